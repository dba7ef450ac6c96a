/**
 * The standalone pages in a real browser (Debian's Chromium driven by playwright-core), with
 * JavaScript disabled: the hashed stylesheet is applied under the Content-Security-Policy and
 * nothing is blocked, the timeline picture is there with its accessible title, and the WAL filter
 * form works by plain submission.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { chromium, type Browser } from 'playwright-core';
import { startStandalone, type RunningViewer } from '../support/run-viewer.ts';

const CHROMIUM = '/usr/bin/chromium';
/** Screenshots of each page, kept as test artefacts (ignored by git). */
const ARTIFACTS = join(import.meta.dirname, '..', '..', 'test-artifacts');

describe('standalone pages in Chromium', { skip: existsSync(CHROMIUM) ? false : 'Debian chromium is not installed' }, () => {
  let viewer: RunningViewer;
  let browser: Browser;
  let base = '';

  before(async () => {
    viewer = await startStandalone({ WAL_PAGE_SIZE: '5' });
    base = viewer.base;
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
  });
  after(async () => {
    viewer.child.kill('SIGTERM');
    await (browser as Browser | undefined)?.close();
  });

  it('renders the inventory with its stylesheet allowed by the CSP and no violation', async () => {
    const context = await browser.newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    const violations: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error' || /Content Security Policy|Refused/.test(m.text())) violations.push(m.text());
    });
    const response = await page.goto(base);
    assert.equal(response?.status(), 200);
    // The header is dark only if the inline stylesheet was applied.
    // Runs in the page; the project compiles without the DOM library, hence the narrow cast.
    type PageGlobals = { getComputedStyle(e: unknown): { backgroundColor: string } };
    const background = await page.locator('header').evaluate((el) => (globalThis as unknown as PageGlobals).getComputedStyle(el).backgroundColor);
    assert.equal(background, 'rgb(27, 31, 36)');
    assert.equal(await page.locator('svg[role="img"] title').first().textContent(), 'Timelines of pg-main as lanes over WAL position: ranges, gaps, backups and the frontier');
    assert.ok((await page.locator('h3', { hasText: 'Failed (1)' }).count()) === 1);
    assert.deepEqual(violations, []);
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, 'inventory.png'), fullPage: true });
    await context.close();
  });

  it('filters the WAL browser by submitting the form, without JavaScript', async () => {
    const context = await browser.newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    await page.goto(`${base}wals`);
    await page.selectOption('select[name="class"]', 'segment');
    await page.fill('input[name="timeline"]', '1');
    await page.click('button[type="submit"]');
    await page.waitForURL(/\/wals\?/);
    const url = new URL(page.url());
    assert.equal(url.searchParams.get('class'), 'segment');
    assert.equal(url.searchParams.get('timeline'), '1');
    assert.ok((await page.locator('td', { hasText: 'missing' }).count()) >= 1);
    await page.screenshot({ path: join(ARTIFACTS, 'wals.png'), fullPage: true });
    await page.fill('input[name="timeline"]', '0');
    await page.click('button[type="submit"]');
    assert.equal(await page.locator('h2').first().textContent(), 'Filter rejected');
    await page.screenshot({ path: join(ARTIFACTS, 'wals-rejected.png'), fullPage: true });
    await context.close();
  });

  it('applies every filter: server, each class, timeline and an inclusive WAL range', async () => {
    const context = await browser.newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    const rows = async (query: string) => {
      await page.goto(`${base}wals?${query}`);
      return page.locator('tbody tr td:last-child').allTextContents();
    };
    assert.ok((await rows('server=pg-main')).length > 0);
    assert.ok((await rows('class=segment')).every((t) => /segment/.test(t)));
    assert.deepEqual(await rows('class=partial'), ['partial segment']);
    assert.deepEqual(await rows('class=history'), ['history file (valid)']);
    for (const c of ['backup-history', 'duplicate', 'unknown']) {
      await page.goto(`${base}wals?class=${c}`);
      assert.match((await page.locator('section').nth(1).textContent()) ?? '', new RegExp(`objects of class ${c}: counted exactly`));
    }
    assert.ok((await rows('timeline=2')).length > 0);
    assert.deepEqual(await rows('timeline=1&from=000000010000000000000016&to=000000010000000000000016'), ['missing 1 segment (confirmed gap)']);
    await context.close();
  });
});
