/**
 * The standalone pages in a real browser (Debian's Chromium driven by playwright-core), with
 * JavaScript disabled: the hashed stylesheet is applied under the Content-Security-Policy and
 * nothing is blocked, the timeline picture is there with its accessible title, the WAL filter
 * form works by plain submission, the operator's four questions are answered at the top of the
 * demo's server (with and without an archive-lag expectation), and a fleet of thirty servers is
 * read from one table linking to each server's section. Screenshots go to test-artifacts/.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { chromium, type Browser, type Page } from 'playwright-core';
import { createLogger } from '../../src/common/log.ts';
import { BudgetMeter } from '../../src/evidence/listing.ts';
import { scanScope } from '../../src/evidence/scope-scan.ts';
import { archiveCloud } from '../../src/format/barman-cloud/format.ts';
import { SyntheticRepository } from '../../src/format/barman-cloud/synthetic-repository.ts';
import { MemoryStore } from '../../src/store/memory/memory-driver.ts';
import type { ScopeView } from '../../src/surface/ui/pages.ts';
import { scopeView } from '../../src/surface/ui/scope-view.ts';
import { createStandaloneServer } from '../../src/surface/ui/server.ts';
import { startStandalone, type RunningViewer } from '../support/run-viewer.ts';
import { testPublisher } from '../support/publication-fixture.ts';

const CHROMIUM = '/usr/bin/chromium';
/** Screenshots of each page, kept as test artefacts (ignored by git). */
const ARTIFACTS = join(import.meta.dirname, '..', '..', 'test-artifacts');
const LAUNCH = { executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'] };
const skip = existsSync(CHROMIUM) ? false : 'Debian chromium is not installed';

/** The first server's top facts, as the browser renders them: `[term, text]` pairs, whitespace collapsed. */
async function topFacts(page: Page, server?: string): Promise<[string, string][]> {
  const dl = page.locator(server === undefined ? 'dl.top' : `#server-${server} dl.top`).first();
  const terms = await dl.locator('dt').allInnerTexts();
  const texts = await dl.locator('dd').allInnerTexts();
  return terms.map((t, i) => [t.trim(), (texts[i] ?? '').replace(/\s+/g, ' ').trim()]);
}

/** Waits until the demo's first scan is published. */
async function published(viewer: RunningViewer): Promise<void> {
  for (let i = 0; i < 100 && !/"generation":1/.test(viewer.logs()); i++) await new Promise((r) => setTimeout(r, 100));
}

describe('standalone pages in Chromium', { skip }, () => {
  let viewer: RunningViewer;
  let browser: Browser;
  let base = '';

  before(async () => {
    viewer = await startStandalone({ WAL_PAGE_SIZE: '5' });
    base = viewer.base;
    browser = await chromium.launch(LAUNCH);
    await published(viewer);
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

  it("answers the operator's four questions at the top of the demo's server", async () => {
    const context = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 1280, height: 720 } });
    const page = await context.newPage();
    await page.goto(base);
    // The demo store's clock is fixed at 05:20; its newest segment arrived at 05:16.
    assert.deepEqual(await topFacts(page), [
      ['Newest WAL received', "2026-11-20 05:16:00Z (store time), 4 min before the scan by the store's clock"],
      ['Archive lag', '4 min; no maximum is configured (EXPECTED_MAX_ARCHIVE_LAG), so it is shown, not judged'],
      [
        'Backup to restore from (timeline 2)',
        '20261120T040000 after-migration, ended 2026-11-20 04:06:00Z healthy: the newest structurally usable backup whose observed recovery coverage reaches the newest WAL of timeline 2. ' +
          'Not a newer one: 20261120T050000 (time unknown): not structurally usable (backup-info-missing)',
      ],
      ['Observed recovery coverage reaches', 'WAL received up to 2026-11-20 05:16:00Z (store time; a receipt time, not a transaction time), segment 00000002000000000000003C on timeline 2, from 20261120T040000 after-migration'],
    ]);
    // The facts are the first thing under the server's heading, in the first screen.
    const box = await page.locator('dl.top').boundingBox();
    assert.ok(box !== null && box.y + box.height < 720, `top facts end at ${box === null ? '?' : box.y + box.height}px`);
    assert.doesNotMatch(await page.locator('main').innerText(), /restorable until|exact recovery window|restore guaranteed|restore verified/i);
    // Backups as barman-cloud-backup-list shows them: their names (barman-cloud-backup -n), the keep:standalone backup, the others kept by nobody.
    const completed = page.locator('h3', { hasText: 'Completed (3)' }).locator('xpath=following-sibling::div[1]/table');
    assert.deepEqual(await completed.locator('thead th').allInnerTexts(), ['backup', 'name', 'keep', 'state', 'status', 'timeline', 'begin WAL\nend WAL', 'ended', 'archives', 'reason']);
    const cells = async (row: number) => (await completed.locator('tbody tr').nth(row).locator('td').allInnerTexts()).slice(0, 3);
    assert.deepEqual([await cells(0), await cells(1), await cells(2)], [['20261120T001500', 'before-upgrade', 'standalone'], ['20261120T013000', '-', '-'], ['20261120T040000', 'after-migration', '-']]);
    // Recent objects newest first; at 05:01 and at 04:06 several objects share one receipt time: the later key first.
    const recent = (await page.locator('table.recent tbody tr').allInnerTexts()).map((r) => r.split('\t').map((c) => c.trim()));
    assert.deepEqual(recent.slice(0, 6).map(([key, , at]) => `${at} ${key}`), [
      '2026-11-20 05:16:00Z wals/0000000200000000/00000002000000000000003C.gz',
      '2026-11-20 05:11:00Z wals/0000000200000000/00000002000000000000003B.gz',
      '2026-11-20 05:06:00Z wals/0000000200000000/00000002000000000000003A.gz',
      '2026-11-20 05:01:00Z wals/0000000200000000/000000020000000000000039.gz',
      '2026-11-20 05:01:00Z base/20261120T050000/data.tar',
      '2026-11-20 04:56:00Z wals/0000000200000000/000000020000000000000038.gz',
    ]);
    assert.deepEqual(recent.filter(([, , at]) => at === '2026-11-20 04:06:00Z').map(([key]) => key), [
      'wals/0000000200000000/00000002000000000000002E.gz',
      'base/20261120T040000/data.tar.zst',
      'base/20261120T040000/backup.info',
      'base/20261120T040000/16385.tar.zst',
    ]);
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, 'inventory-top.png') });
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
    // The demo's timeline 2 forks inside segment 38 (0x26) of timeline 1: its history's switchpoint is there.
    const histories = await rows('class=history');
    assert.equal(histories.length, 1);
    assert.match(histories[0] ?? '', /^history file \(valid\): switches from timeline 1 at LSN 0\/26[0-9A-F]{6}, in segment 000000010000000000000026$/);
    const gaps = await rows('class=gap');
    assert.ok(gaps.length > 0 && gaps.every((t) => /^missing \d+ segments?/.test(t)), gaps.join('\n'));
    for (const c of ['backup-history', 'duplicate', 'unknown']) {
      await page.goto(`${base}wals?class=${c}`);
      assert.match((await page.locator('section').nth(1).textContent()) ?? '', new RegExp(`objects of class ${c}: counted exactly`));
    }
    assert.ok((await rows('timeline=2')).length > 0);
    assert.deepEqual(await rows('timeline=1&from=000000010000000000000016&to=000000010000000000000016'), ['missing 1 segment (confirmed gap)']);
    await context.close();
  });
});

describe('the demo in Chromium with an archive-lag expectation (EXPECTED_MAX_ARCHIVE_LAG=1m)', { skip }, () => {
  let viewer: RunningViewer;
  let browser: Browser;

  before(async () => {
    viewer = await startStandalone({ EXPECTED_MAX_ARCHIVE_LAG: '1m', EXPECTED_MINIMUM_REDUNDANCY: '4', EXPECTED_RETENTION_POLICY: 'REDUNDANCY 2' });
    browser = await chromium.launch(LAUNCH);
    await published(viewer);
  });
  after(async () => {
    viewer.child.kill('SIGTERM');
    await (browser as Browser | undefined)?.close();
  });

  it('states how old the newest WAL is by the store clock against the expectation, and each retention verdict beside its expectation', async () => {
    const context = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await page.goto(viewer.base);
    const facts = new Map(await topFacts(page));
    assert.equal(facts.get('Archive lag'), "warning 4 min, over the expected maximum of 1 min (archive-lag-over-expectation): by the store's clock the newest WAL is 4 min old. A database with no writes archives nothing, so this says look at the archiving, not that it failed.");
    assert.equal(await page.locator('dl.top dd').nth(1).locator('.state').getAttribute('class'), 'state warning');
    const fact = async (term: string) => (await page.locator('.facts span', { hasText: new RegExp(`^${term}$`) }).locator('xpath=following-sibling::span[1]').innerText()).replace(/\s+/g, ' ');
    assert.equal(await fact('Maximum archive lag'), '1 min');
    assert.equal(await fact('Expected retention'), 'REDUNDANCY 2');
    assert.equal(await fact('Minimum redundancy'), '4 expected, 3 structurally usable unhealthy Fewer structurally usable backups than the configured minimum.');
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, 'inventory-lag-over-expectation.png') });
    await context.close();
  });
});

describe('a fleet of thirty servers in Chromium', { skip }, () => {
  const T = new Date('2026-11-21T10:00:00Z');
  const minute = (n: number) => new Date(T.getTime() + n * 60_000);
  const SERVERS = 30;
  const HOSTILE = '<script>alert("fleet")</script>';
  let browser: Browser;
  let server: ReturnType<typeof createStandaloneServer>;
  let base = '';

  /** One synthetic server, varied by its index: lag, gaps, a failed or missing backup, no store clock, never scanned. */
  async function fleetServer(i: number): Promise<ScopeView> {
    const name = `pg-${String(i).padStart(2, '0')}`;
    const store = new MemoryStore({ storeClock: () => (i === 13 ? null : minute(40)) });
    const repo = new SyntheticRepository(store, `fleet/${name}/`);
    repo.segments(1, 1, 20, minute(i % 12), { missing: i % 5 === 1 ? [12] : [] });
    if (i % 7 !== 3) repo.backup({ id: '20261121T100100', timeline: 1, beginPosition: 2, endPosition: 3, beginTime: minute(1), endTime: minute(3), ...(i % 4 === 0 ? { name: i === 4 ? HOSTILE : `nightly-${i}` } : {}) });
    if (i % 6 === 2) repo.backup({ id: '20261121T101500', timeline: 1, beginPosition: 15, endPosition: 16, status: 'FAILED', beginTime: minute(15), endTime: minute(16) });
    const publisher = testPublisher({ identity: { server: name }, expectations: { maxArchiveLagSeconds: 900 } });
    if (i === SERVERS - 1) return scopeView(name, publisher.current, null);
    const e = await scanScope({ format: archiveCloud, server: name, root: `fleet/${name}/`, driver: store, signal: new AbortController().signal, meter: new BudgetMeter({ maxPages: 1e4, maxObjects: 1e6 }), concurrency: 2, ...publisher.nextScan });
    return scopeView(name, publisher.complete(e, { startedAt: minute(40), finishedAt: minute(41), pages: 1, objects: 1 }), e);
  }

  before(async () => {
    const views = await Promise.all(Array.from({ length: SERVERS }, (_, i) => fleetServer(i)));
    server = createStandaloneServer({ repositories: [{ name: null, format: archiveCloud, scopes: () => views, destination: () => null, retentionPolicy: null, minimumRedundancy: null, maxArchiveLagSeconds: 900 }], ready: () => true, trustedUserHeader: null, walPageSize: 50, demo: false, logger: createLogger('silent') });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    browser = await chromium.launch(LAUNCH);
  });
  after(async () => {
    await (browser as Browser | undefined)?.close();
    await new Promise((resolve) => server.close(resolve));
  });

  it('shows a fleet table first, one row per server linking to its section', async () => {
    const context = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 1280, height: 1100 } });
    const page = await context.newPage();
    await page.goto(base);
    assert.equal(await page.locator('main > section').nth(1).locator('h2').innerText(), `Servers (${SERVERS})`);
    const rows = page.locator('table.fleet tbody tr');
    assert.equal(await rows.count(), SERVERS);
    const row = async (i: number) => (await rows.nth(i).locator('td').allInnerTexts()).map((t) => t.replace(/\s+/g, ' ').trim());
    // pg-00: newest WAL at minute 19, store clock at minute 40: 21 min, over the 15 min expected.
    assert.deepEqual(await row(0), ['pg-00', 'warning archive-lag-over-expectation', '20261121T100100 nightly-0 healthy ended 2026-11-21 10:03:00Z', '21 min warning over 15 min', 'none', 'healthy']);
    // pg-01 lost a segment; pg-02's newest backup failed; pg-03 has no backup; pg-04's name is hostile text, shown as text.
    assert.match((await row(1))[4] ?? '', /^1 (candidate|confirmed)$/);
    assert.equal((await row(2))[2], '20261121T101500 unhealthy ended unknown');
    assert.deepEqual((await row(3)).slice(2, 6), ['none', '18 min warning over 15 min', 'none', 'unhealthy']);
    assert.equal((await row(4))[2], `20261121T100100 ${HOSTILE} healthy ended 2026-11-21 10:03:00Z`);
    assert.equal(await page.locator('script').count(), 0);
    // pg-13's store sent no clock: its lag is unknown, never zero; pg-29 has not been scanned yet.
    assert.equal((await row(13))[3], 'unknown');
    assert.deepEqual((await row(29)).slice(1), ['unknown no-completed-scan', 'unknown', 'unknown', 'unknown', 'unknown']);
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, 'fleet.png') });
    // Every row links to its server's section; following one lands on it.
    const hrefs = await rows.locator('td:first-child a').evaluateAll((links) => links.map((a) => (a as unknown as { getAttribute(n: string): string }).getAttribute('href')));
    assert.deepEqual(hrefs, Array.from({ length: SERVERS }, (_, i) => `#server-pg-${String(i).padStart(2, '0')}`));
    assert.equal(await page.locator('section[id^="server-"]').count(), SERVERS);
    await page.locator('table.fleet a', { hasText: 'pg-17' }).click();
    assert.equal(new URL(page.url()).hash, '#server-pg-17');
    type Rect = { getBoundingClientRect(): { top: number } };
    const top = await page.locator('#server-pg-17').evaluate((el) => (el as unknown as Rect).getBoundingClientRect().top);
    assert.ok(Math.abs(top) < 2, `the section is at the top of the window (${top}px)`);
    await page.screenshot({ path: join(ARTIFACTS, 'fleet-server.png') });
    await context.close();
  });
});
