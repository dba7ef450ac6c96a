/**
 * The standalone pages in Chromium on the real repositories Barman wrote into the Swift S3 store:
 * the operator's four questions for `pg-main` (the backup to restore from is the one on the
 * promoted timeline, and the abandoned directory is passed over with its reason), each backup
 * shown by the name and keep status Barman's own tools list for it, the scenario servers as a fleet,
 * and discovery failures (a bucket that does not exist, credentials without rights) stated with
 * their category. Screenshots go to test-artifacts/.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { chromium, type Browser, type Page } from 'playwright-core';
import { realRepositories, type RealRepositories } from '../support/real-repositories.ts';
import { startStandalone, type RunningViewer } from '../support/run-viewer.ts';

const CHROMIUM = '/usr/bin/chromium';
const ARTIFACTS = join(import.meta.dirname, '..', '..', 'test-artifacts');
const LAUNCH = { executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'] };
/** A receipt or scan time as the page shows it. */
const TIME = String.raw`\d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ`;
const DURATION = String.raw`\d+ (?:s|min|h|d)(?: \d+ (?:s|min|h))?`;

async function topFacts(page: Page, server: string): Promise<Map<string, string>> {
  const dl = page.locator(`#server-${server} dl.top`);
  const terms = await dl.locator('dt').allInnerTexts();
  const texts = await dl.locator('dd').allInnerTexts();
  return new Map(terms.map((t, i) => [t.trim(), (texts[i] ?? '').replace(/\s+/g, ' ').trim()]));
}

/** Backup id → [name, keep] as the page's backup tables show them, for one server. */
async function labels(page: Page, server: string): Promise<Map<string, [string, string]>> {
  const rows = await page.locator(`#server-${server} h3 + .scroll > table`).filter({ has: page.locator('th', { hasText: /^keep$/ }) }).locator('tbody tr').all();
  const out = new Map<string, [string, string]>();
  for (const row of rows) {
    const [id = '', name = '', keep = ''] = (await row.locator('td').allInnerTexts()).map((t) => t.trim());
    out.set(id, [name, keep]);
  }
  return out;
}

describe('standalone pages in Chromium on the real repositories', { skip: existsSync(CHROMIUM) ? false : 'Debian chromium is not installed' }, () => {
  let repos: RealRepositories;
  let browser: Browser;
  let dir = '';
  const running: RunningViewer[] = [];

  /** A standalone viewer with discovery under `s3://<bucket>/<prefix>`, once each scope published. */
  async function viewer(bucket: string, prefix: string, scopes: number, credentials: 'test' | 'other' = 'test'): Promise<RunningViewer> {
    const v = await startStandalone({
      DESTINATION_PATH: `s3://${bucket}/${prefix}`,
      STORE_ENDPOINT_URL: repos.endpoint,
      STORE_ACCESS_KEY_ID_FILE: join(dir, `${credentials}-id`),
      STORE_SECRET_ACCESS_KEY_FILE: join(dir, `${credentials}-secret`),
    });
    running.push(v);
    const done = () => (scopes === 0 ? /discovery failed/.test(v.logs()) : (v.logs().match(/"generation":1/g) ?? []).length >= scopes);
    for (let i = 0; i < 200 && !done(); i++) await new Promise((r) => setTimeout(r, 100));
    return v;
  }

  before(async () => {
    repos = realRepositories();
    dir = mkdtempSync(join(tmpdir(), 'viewer-browser-real-'));
    writeFileSync(join(dir, 'test-id'), repos.accessKeyId);
    writeFileSync(join(dir, 'test-secret'), repos.secretAccessKey);
    writeFileSync(join(dir, 'other-id'), repos.otherAccessKeyId);
    writeFileSync(join(dir, 'other-secret'), repos.otherSecretAccessKey);
    browser = await chromium.launch(LAUNCH);
    mkdirSync(ARTIFACTS, { recursive: true });
  });
  after(async () => {
    for (const v of running) if (v.child.exitCode === null) v.child.kill('SIGTERM');
    await (browser as Browser | undefined)?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("pg-main: the backup to restore from is the promoted timeline's, by the store's clock, with the names Barman lists", async () => {
    const v = await viewer(repos.bucket, repos.prefix, 2);
    const context = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await page.goto(v.base);
    const f = repos.facts;
    const facts = await topFacts(page, 'pg-main');
    assert.deepEqual([...facts.keys()], ['Newest WAL received', 'Archive lag', 'Backup to restore from (timeline 2)', 'Observed recovery coverage reaches']);
    // The store (Swift) sends its clock: the lag is measured, never unknown.
    assert.match(facts.get('Newest WAL received') ?? '', new RegExp(`^${TIME} \\(store time\\), ${DURATION} before the scan by the store's clock$`));
    assert.match(facts.get('Archive lag') ?? '', new RegExp(`^${DURATION}; no maximum is configured \\(EXPECTED_MAX_ARCHIVE_LAG\\), so it is shown, not judged$`));
    assert.match(
      facts.get('Backup to restore from (timeline 2)') ?? '',
      new RegExp(`^${f['BACKUP_3']} after-pitr, ended ${TIME} healthy: the newest structurally usable backup whose observed recovery coverage reaches the newest WAL of timeline 2\\. Not a newer one: ${f['ABANDONED_BACKUP']} \\(time unknown\\): not structurally usable \\(backup-info-missing\\)$`),
    );
    assert.match(facts.get('Observed recovery coverage reaches') ?? '', new RegExp(`^WAL received up to ${TIME} \\(store time; a receipt time, not a transaction time\\), segment 00000002[0-9A-F]{16} on timeline 2, from ${f['BACKUP_3']} after-pitr$`));
    // Names as barman-cloud-backup-list --format json reports them; keep: full on backup 2 (barman-cloud-backup-keep --target full).
    const barman = (JSON.parse(repos.outText('backup-list-pg-main.json')) as { backups_list: { backup_id: string; backup_name?: string }[] }).backups_list;
    const shown = await labels(page, 'pg-main');
    for (const b of barman) assert.deepEqual(shown.get(b.backup_id), [b.backup_name ?? '-', b.backup_id === f['BACKUP_2'] ? 'full' : '-'], b.backup_id);
    assert.deepEqual(shown.get(f['ABANDONED_BACKUP'] ?? ''), ['-', '-']);
    assert.equal(await page.locator('table.fleet tbody tr').count(), 2);
    await page.screenshot({ path: join(ARTIFACTS, 'real-repository-top.png') });
    await page.screenshot({ path: join(ARTIFACTS, 'real-repository.png'), fullPage: true });
    await context.close();
  });

  it('the scenario servers: a fleet table, and keep:standalone as barman-cloud-backup-list shows it', async () => {
    const v = await viewer(repos.bucket, repos.scenarioPrefix, 3);
    const context = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await page.goto(v.base);
    assert.deepEqual(await page.locator('table.fleet tbody tr td:first-child').allInnerTexts(), ['pg-damaged', 'pg-retention', 'pg-standalone']);
    for (const server of ['pg-retention', 'pg-standalone']) {
      // Barman's console list: "<id>  <end time>  <begin wal>  KEEP:STANDALONE".
      const kept = repos.backupListText(server).split('\n').flatMap((l) => (/^(\d{8}T\d{6})\s.*KEEP:STANDALONE/.exec(l)?.[1] ?? []));
      assert.equal(kept.length, 1, server);
      const shown = await labels(page, server);
      assert.deepEqual([...shown].filter(([, [, keep]]) => keep !== '-').map(([id, [, keep]]) => [id, keep]), [[kept[0], 'standalone']], server);
    }
    // pg-retention: the hole Barman's retention left is expected, not a gap to worry about.
    assert.match((await page.locator('table.fleet tbody tr', { hasText: 'pg-retention' }).locator('td').nth(4).innerText()).trim(), /^none \(\d+ from retention, expected\)$/);
    await page.screenshot({ path: join(ARTIFACTS, 'real-scenarios.png') });
    await context.close();
  });

  it('a failed discovery is stated with its category: a bucket that does not exist, credentials without rights', async () => {
    const missing = await viewer('no-such-bucket-for-viewer', 'pg', 0);
    const context = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 1280, height: 400 } });
    const page = await context.newPage();
    await page.goto(missing.base);
    const repository = async () => (await page.locator('main > section').first().innerText()).replace(/\s+/g, ' ');
    assert.match(await repository(), /^Repository no-such-bucket-for-viewer\/pg \(S3\) Server scopes: unknown, discovery failed\. .*Discovery failed \(not_found: NoSuchBucket, HTTP 404\): the bucket or container does not exist; check DESTINATION_PATH\. No server scope is known, so nothing below is evidence of an empty destination\./);
    assert.doesNotMatch(await repository(), /0 server scopes/);
    assert.match(missing.logs(), /"failure_category":"not_found"(,"[a-z_]+":[^,]+)*,"msg":"discovery failed"/);
    await page.screenshot({ path: join(ARTIFACTS, 'discovery-failed.png') });
    const denied = await viewer(repos.bucket, repos.prefix, 0, 'other');
    await page.goto(denied.base);
    const category = /"failure_category":"([a-z_]+)"(?:,"[a-z_]+":[^,]+)*,"msg":"discovery failed"/.exec(denied.logs())?.[1];
    assert.ok(category === 'authorization' || category === 'authentication', String(category));
    assert.match(await repository(), new RegExp(`Discovery failed \\(${category}(: [A-Za-z]+, HTTP 40[13])?\\): the (credentials may not list the destination|store did not accept the credentials)\\.`));
    await context.close();
  });
});
