/**
 * The standalone pages in Chromium on the real pgBackRest repository (PostgreSQL 15, pgBackRest
 * 2.45, copied into the Swift S3 store: test/support/pgbackrest-repositories.ts), read with
 * REPOSITORY_FORMAT=stanza-repository and discovery: both stanzas in the fleet table; stanza
 * `main`'s completed backups with their types and dependency chains exactly as pgBackRest's own
 * `info` lists them; the interrupted backup under a heading of its own; pgBackRest named as the
 * tool, never Barman; on /wals the deleted segment as a gap and both timelines. Screenshot:
 * test-artifacts/pgbackrest.png.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { chromium, type Browser, type Page } from 'playwright-core';
import { pgbackrestRepository, type PgBackRestRepository } from '../support/pgbackrest-repositories.ts';
import { startStandalone, type RunningViewer } from '../support/run-viewer.ts';
import { expectedGapStatusNow } from '../support/gap-age.ts';

const CHROMIUM = '/usr/bin/chromium';
const ARTIFACTS = join(import.meta.dirname, '..', '..', 'test-artifacts');
const LAUNCH = { executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'] };

/** Heading → rows (cells as text) of each backup table of one server's catalog. */
async function catalog(page: Page, server: string): Promise<Map<string, string[][]>> {
  const out = new Map<string, string[][]>();
  for (const h of await page.locator(`#server-${server} h3`).all()) {
    const heading = (await h.innerText()).trim();
    // The table right after the heading (past its note), if it is a catalog table.
    const table = h.locator('xpath=following-sibling::*[not(self::p)][1][self::div][contains(@class, "scroll")]/table');
    if ((await table.count()) === 0 || (await table.locator('thead th').allInnerTexts()).slice(0, 2).join() !== 'backup,type') continue;
    const rows = await table.locator('tbody tr').all();
    out.set(heading, await Promise.all(rows.map(async (r) => (await r.locator('td').allInnerTexts()).map((t) => t.replace(/\s+/g, ' ').trim()))));
  }
  return out;
}

describe('standalone pages in Chromium on the real pgBackRest repository', { skip: existsSync(CHROMIUM) ? false : 'Debian chromium is not installed' }, () => {
  let repo: PgBackRestRepository;
  let browser: Browser;
  let viewer: RunningViewer;
  let dir = '';

  before(async () => {
    repo = pgbackrestRepository();
    dir = mkdtempSync(join(tmpdir(), 'viewer-browser-pgbackrest-'));
    writeFileSync(join(dir, 'id'), `${repo.accessKeyId}\n`);
    writeFileSync(join(dir, 'secret'), `${repo.secretAccessKey}\n`);
    viewer = await startStandalone({
      REPOSITORY_FORMAT: 'stanza-repository',
      DESTINATION_PATH: `s3://${repo.bucket}/${repo.prefix}`,
      STORE_ENDPOINT_URL: repo.endpoint,
      STORE_ACCESS_KEY_ID_FILE: join(dir, 'id'),
      STORE_SECRET_ACCESS_KEY_FILE: join(dir, 'secret'),
      REFRESH_INTERVAL_SECONDS: '3600',
    });
    // Each stanza's first complete scan.
    const published = () => new Set(viewer.logs().split('\n').filter((l) => l.includes('"published"')).map((l) => JSON.parse(l) as { server: string; generation: number }).filter((l) => l.generation > 0).map((l) => l.server));
    for (let i = 0; i < 600 && published().size < repo.stanzas.length; i++) await new Promise((r) => setTimeout(r, 100));
    browser = await chromium.launch(LAUNCH);
    mkdirSync(ARTIFACTS, { recursive: true });
  });
  after(async () => {
    if ((viewer as RunningViewer | undefined)?.child.exitCode === null) viewer.child.kill('SIGTERM');
    await (browser as Browser | undefined)?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("shows both stanzas, main's backups with the types and chains pgBackRest's info lists, the interrupted one apart", async () => {
    const context = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await page.goto(viewer.base);
    const main = repo.main.stanza;
    assert.deepEqual(await page.locator('table.fleet tbody tr td:first-child').allInnerTexts(), [...repo.stanzas].sort());
    const shelves = await catalog(page, main);
    const info = repo.info(main);
    // Type, then the backups it depends on nearest first: pgBackRest's prior, then the rest of its reference list.
    const expected = info.backup.map((b) => {
      const chain = [...(b.reference ?? [])].reverse();
      assert.equal(chain[0] ?? null, b.prior, b.label);
      return [b.label, chain.length === 0 ? b.type : `${b.type} of ${chain.join(' ← ')}`, 'healthy', 'DONE'];
    });
    assert.deepEqual([...shelves.keys()], [`Completed (${info.backup.length})`, 'Interrupted (1)']);
    assert.deepEqual(shelves.get(`Completed (${info.backup.length})`)?.map((r) => r.slice(0, 4)), expected);
    // The facts of the build agree: two fulls, a diff and two incrs.
    assert.deepEqual([repo.main.full.length, repo.main.diff.length, repo.main.incr.length], [2, 1, 2]);
    assert.deepEqual(shelves.get('Interrupted (1)')?.map((r) => r.slice(0, 5)), [[repo.main.interrupted, 'full', 'unknown', 'INTERRUPTED', '-']]);
    const section = (await page.locator(`#server-${main}`).innerText()).replace(/\s+/g, ' ');
    assert.match(section, /Repository pgBackRest \(stanza-repository\)/);
    assert.match(section, /Completed backups by type 2 full, 1 diff, 2 incr Interrupted backups 1 Encrypted repository no Dependency chains healthy/);
    // Nothing of Barman's on a pgBackRest page (the bucket the harness named `barman` aside: the page's display name).
    const text = (await page.locator('main').innerText()).replaceAll(`${repo.bucket}/${repo.prefix} (S3)`, '');
    assert.doesNotMatch(text, /Barman/i);
    // The encrypted stanza: its three backups by label, every one unknown.
    const encrypted = await catalog(page, repo.encrypted.stanza);
    assert.deepEqual([...encrypted.values()].flat().map((r) => [r[0], r[2]]), repo.info(repo.encrypted.stanza).backup.map((b) => [b.label, 'unknown']));
    // Two-timestamp labels and chains fit the window: nothing scrolls sideways.
    // Runs in the page; the project compiles without the DOM library, hence the narrow cast.
    type PageGlobals = { document: { documentElement: { scrollWidth: number } } };
    assert.ok((await page.evaluate(() => (globalThis as unknown as PageGlobals).document.documentElement.scrollWidth)) <= 1280);
    await page.screenshot({ path: join(ARTIFACTS, 'pgbackrest.png'), fullPage: true });
    await context.close();
  });

  it('/wals: the deleted segment as the one gap of main, and both timelines with the history file', async () => {
    const context = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await page.goto(new URL(`/wals?server=${repo.main.stanza}`, viewer.base).href);
    const rows = await Promise.all((await page.locator('main table tbody tr').all()).map(async (r) => (await r.locator('td').allInnerTexts()).map((t) => t.replace(/\s+/g, ' ').trim())));
    const missing = rows.filter((r) => (r[4] ?? '').startsWith('missing'));
    assert.deepEqual(missing.map((r) => [r[1], r[2], r[3]]), [['1', repo.deletedWal, repo.deletedWal]]);
    // Candidate in the build's first hour, confirmed after (test/support/gap-age.ts).
    const shown = /^missing 1 segment \((candidate|confirmed) gap\)$/.exec(missing[0]?.[4] ?? '')?.[1];
    assert.ok(shown !== undefined, missing[0]?.[4]);
    const expected = expectedGapStatusNow(repo.objects().filter((o) => o.key.startsWith(`${repo.prefix}/archive/${repo.main.stanza}/`)), repo.deletedWal);
    if (expected !== null) assert.equal(shown, expected);
    assert.deepEqual([...new Set(rows.filter((r) => /archived segment/.test(r[4] ?? '')).map((r) => r[1]))], ['1', '2']);
    assert.deepEqual(rows.filter((r) => /history file/.test(r[4] ?? '')).map((r) => r[1]), ['2']);
    assert.equal(rows.find((r) => r[1] === '2' && /archived segment/.test(r[4] ?? ''))?.[2], repo.main.firstTimeline2Wal);
    await page.screenshot({ path: join(ARTIFACTS, 'pgbackrest-wals.png'), fullPage: true });
    await context.close();
  });
});
