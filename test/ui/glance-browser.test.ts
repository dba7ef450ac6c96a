/**
 * The page at a glance in Chromium (issue 26), at 390 px and 1400 px, on the embedded demo
 * (standalone without DESTINATION_PATH, through the executable), on the real repositories Barman
 * wrote into Swift (through the executable), and on an in-process server given a long display
 * name and a first scan's progress: no page scrolls sideways (a wide table scrolls inside its own
 * `.scroll` box), every section fits the viewport, the glance sections are there (structural
 * sentence, one recovery window per server, what to do, byte units with exact titles, the
 * gaps-only WAL filter, history switchpoints), and axe-core, injected into the page, reports no
 * serious or critical violation. Screenshots go to test-artifacts/glance-*.png.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { chromium, type Browser, type Page } from 'playwright-core';
import { createLogger } from '../../src/common/log.ts';
import { BudgetMeter } from '../../src/evidence/listing.ts';
import { scanScope } from '../../src/evidence/scope-scan.ts';
import { DEMO_BUCKET, DEMO_PREFIX, DEMO_SERVER, demoRepository } from '../../src/format/barman-cloud/demo-repository.ts';
import { archiveCloud, scopeRoot } from '../../src/format/barman-cloud/format.ts';
import { confine } from '../../src/store/confined.ts';
import { displayNameOf } from '../../src/surface/ui/glance.ts';
import { scopeView } from '../../src/surface/ui/scope-view.ts';
import { createStandaloneServer } from '../../src/surface/ui/server.ts';
import { realRepositories } from '../support/real-repositories.ts';
import { startStandalone, type RunningViewer } from '../support/run-viewer.ts';
import { testPublisher } from '../support/publication-fixture.ts';

const CHROMIUM = '/usr/bin/chromium';
const ARTIFACTS = join(import.meta.dirname, '..', '..', 'test-artifacts');
const LAUNCH = { executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'] };
const skip = existsSync(CHROMIUM) ? false : 'Debian chromium is not installed';
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const WIDTHS = [390, 1400] as const;

/** Runs in the page (the project compiles without the DOM library, hence the narrow types). */
type Doc = { documentElement: { scrollWidth: number; clientWidth: number }; querySelectorAll(s: string): ArrayLike<{ getBoundingClientRect(): { left: number; right: number }; id: string; tagName: string }> };
type AxeResult = { violations: { id: string; impact: string | null; help: string; nodes: { target: unknown[] }[] }[] };

/** How far the page scrolls sideways, and the sections (or headings) that stick out of the viewport. */
async function overflow(page: Page): Promise<{ sideways: number; outside: string[] }> {
  return page.evaluate(() => {
    const d = (globalThis as unknown as { document: Doc }).document;
    const width = d.documentElement.clientWidth;
    const outside: string[] = [];
    const all = d.querySelectorAll('section, h2, h3, dl.top, p.notice, ul.windows, ul.todo, form, .facts');
    for (let i = 0; i < all.length; i++) {
      const e = all[i];
      if (e === undefined) continue;
      const r = e.getBoundingClientRect();
      if (r.left < -0.5 || r.right > width + 0.5) outside.push(`${e.tagName.toLowerCase()}#${e.id} ${Math.round(r.left)}..${Math.round(r.right)}`);
    }
    return { sideways: d.documentElement.scrollWidth - width, outside };
  });
}

/** axe-core's serious and critical violations on the page as served (its CSP bypassed for the injected script only). */
async function axeViolations(browser: Browser, url: string, width: number): Promise<string[]> {
  const context = await browser.newContext({ bypassCSP: true, viewport: { width, height: 900 } });
  try {
    const page = await context.newPage();
    await page.goto(url);
    await page.addScriptTag({ content: AXE });
    const result = await page.evaluate(() => (globalThis as unknown as { axe: { run(o: unknown): Promise<AxeResult> } }).axe.run({ resultTypes: ['violations'] }));
    return result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.slice(0, 3).map((n) => JSON.stringify(n.target)).join(' ')}`);
  } finally {
    await context.close();
  }
}

/** Opens `url` at `width` as a reader would (no script), checks the layout, saves a screenshot. */
async function look(browser: Browser, url: string, width: number, shot: string): Promise<Page> {
  const context = await browser.newContext({ javaScriptEnabled: false, viewport: { width, height: 900 } });
  const page = await context.newPage();
  const response = await page.goto(url);
  assert.equal(response?.status(), 200, url);
  const o = await overflow(page);
  assert.equal(o.sideways, 0, `${shot}: the page scrolls sideways by ${o.sideways} px`);
  assert.deepEqual(o.outside, [], `${shot}: parts outside the viewport`);
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: join(ARTIFACTS, `glance-${shot}-${width}.png`), fullPage: true });
  return page;
}

/** The wide tables really are wider than a phone: they scroll inside their box, not the page. */
async function scrollsInside(page: Page): Promise<boolean> {
  return page.evaluate(() => {
    const boxes = (globalThis as unknown as { document: { querySelectorAll(s: string): ArrayLike<{ scrollWidth: number; clientWidth: number }> } }).document.querySelectorAll('.scroll');
    for (let i = 0; i < boxes.length; i++) {
      const b = boxes[i];
      if (b !== undefined && b.scrollWidth > b.clientWidth) return true;
    }
    return false;
  });
}

async function published(viewer: RunningViewer, scopes: number): Promise<void> {
  for (let i = 0; i < 200 && (viewer.logs().match(/"generation":1/g) ?? []).length < scopes; i++) await new Promise((r) => setTimeout(r, 100));
}

describe('the page at a glance in Chromium', { skip }, () => {
  let browser: Browser;
  let demo: RunningViewer;
  let real: RunningViewer;
  let dir = '';
  let server: ReturnType<typeof createStandaloneServer>;
  let named = '';

  before(async () => {
    const repos = realRepositories();
    dir = mkdtempSync(join(tmpdir(), 'viewer-glance-'));
    writeFileSync(join(dir, 'id'), repos.accessKeyId);
    writeFileSync(join(dir, 'secret'), repos.secretAccessKey);
    [demo, real] = await Promise.all([
      startStandalone({}),
      startStandalone({ DESTINATION_PATH: `s3://${repos.bucket}/${repos.prefix}`, STORE_ENDPOINT_URL: repos.endpoint, STORE_ACCESS_KEY_ID_FILE: join(dir, 'id'), STORE_SECRET_ACCESS_KEY_FILE: join(dir, 'secret') }),
    ]);
    // The demo scanned in process, served with a long display name and a first scan's progress.
    const root = scopeRoot(DEMO_PREFIX, DEMO_SERVER);
    const publisher = testPublisher({ identity: { server: DEMO_SERVER } });
    const e = await scanScope({ format: archiveCloud, server: DEMO_SERVER, root, driver: confine(demoRepository(), root), signal: new AbortController().signal, meter: new BudgetMeter({ maxPages: 1e4, maxObjects: 1e6 }), concurrency: 2, ...publisher.nextScan });
    const view = scopeView(DEMO_SERVER, publisher.complete(e, { startedAt: new Date(), finishedAt: new Date(), pages: 1, objects: 1 }), e);
    named = displayNameOf({ provider: 'store-a', bucket: `${DEMO_BUCKET}-with-a-rather-long-bucket-name`, prefix: `${DEMO_PREFIX}/clusters/production-eu-west-1` });
    server = createStandaloneServer({ repositories: [{ name: null, format: archiveCloud, displayName: named, progress: () => ({ pages: 12, objects: 11_250 }), scopes: () => [view], destination: () => null, retentionPolicy: null, minimumRedundancy: null, maxArchiveLagSeconds: 900 }], ready: () => true, trustedUserHeader: null, walPageSize: 50, demo: false, logger: createLogger('silent') });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    browser = await chromium.launch(LAUNCH);
    await Promise.all([published(demo, 1), published(real, 2)]);
  });
  after(async () => {
    demo.child.kill('SIGTERM');
    real.child.kill('SIGTERM');
    server.close();
    await (browser as Browser | undefined)?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  for (const width of WIDTHS) {
    it(`the demo's inventory at ${width} px: every section fits, the glance sections are there, tables scroll inside`, async () => {
      const page = await look(browser, demo.base, width, 'demo-inventory');
      const body = (await page.locator('main').innerText()).replace(/\s+/g, ' ');
      assert.match(body, /never reads the contents of backups or WAL segments/);
      assert.match(body, /pg-main: observed recovery coverage from \d{4}-\d\d-\d\d \d\d:\d\d:\d\d(\.\d+)?Z to \d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ on timeline \d+/);
      assert.ok((await page.locator('ul.todo li').count()) >= 1, 'what to do');
      const total = page.locator('.facts .bytes').first();
      assert.match(await total.innerText(), /^\d+(\.\d+)? (KiB|MiB|GiB)$/);
      assert.match((await total.getAttribute('title')) ?? '', /^[\d,]+ bytes$/);
      if (width === 390) assert.ok(await scrollsInside(page), 'a wide table scrolls inside its box at 390 px');
      await page.context().close();
    });

    it(`the demo's WAL browser, gaps only, and its histories at ${width} px`, async () => {
      const gaps = await look(browser, new URL('/wals?class=gap', demo.base).href, width, 'demo-wals-gaps');
      const rows = await gaps.locator('tbody tr').allInnerTexts();
      assert.ok(rows.length >= 1 && rows.every((r) => /missing/.test(r)), rows.join('\n'));
      await gaps.context().close();
      const histories = await look(browser, new URL('/wals?class=history', demo.base).href, width, 'demo-wals-history');
      assert.match(await histories.locator('tbody').innerText(), /switches from timeline 1 at LSN [0-9A-F]+\/[0-9A-F]+, in segment 00000001[0-9A-F]{16}/);
      await histories.context().close();
    });

    it(`a real repository's inventory and WAL browser at ${width} px`, async () => {
      const page = await look(browser, real.base, width, 'real-inventory');
      assert.equal(await page.locator('ul.windows li').count(), 2, 'one window line per server');
      await page.context().close();
      (await look(browser, new URL('/wals?server=pg-main&class=gap', real.base).href, width, 'real-wals-gaps')).context().close().catch(() => undefined);
    });

    it(`a long display name and the first scan's progress at ${width} px`, async () => {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
      const page = await look(browser, base, width, 'named-progress');
      assert.equal(await page.locator('header h1 .name').innerText(), named);
      assert.match(await page.locator('p.notice[role=status]').innerText(), /Scanning: 12 pages, 11,250 objects so far/);
      await page.context().close();
    });

    it(`axe-core finds no serious or critical violation at ${width} px`, async () => {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
      for (const url of [demo.base, new URL('/wals?class=gap', demo.base).href, new URL('/wals?class=history', demo.base).href, real.base, base]) {
        assert.deepEqual(await axeViolations(browser, url, width), [], url);
      }
    });
  }

  it('the checks can fail: a page wider than the viewport is caught', async () => {
    const context = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 390, height: 600 } });
    const page = await context.newPage();
    await page.setContent('<main><section style="width:900px">wide</section><table><tr><td style="white-space:nowrap">' + 'x'.repeat(300) + '</td></tr></table></main>');
    const o = await overflow(page);
    assert.ok(o.sideways > 0 && o.outside.length > 0);
    await context.close();
    const axeContext = await browser.newContext({ bypassCSP: true });
    const bad = await axeContext.newPage();
    await bad.setContent('<html><body><img src="data:,"><a href="#"></a></body></html>');
    await bad.addScriptTag({ content: AXE });
    const result = await bad.evaluate(() => (globalThis as unknown as { axe: { run(o: unknown): Promise<AxeResult> } }).axe.run({ resultTypes: ['violations'] }));
    assert.ok(result.violations.some((v) => v.impact === 'serious' || v.impact === 'critical'));
    await axeContext.close();
  });
});
