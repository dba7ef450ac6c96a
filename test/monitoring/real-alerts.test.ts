/**
 * The alert rules on the metrics of real scans (issue 25): `viewer scan --output openmetrics` on
 * every real repository the tests build (Barman 3.4 pg-main, pg-wal1m and the scenario servers,
 * pgBackRest 2.45 main and encrypted, Barman 3.20 pg18 and pgBackRest 2.60 main and encrypted),
 * each scan's samples held as `promtool test rules` input series, and exactly the alerts firing at
 * 2h asserted; ViewerBackupCatalogIncomplete, which waits 6h (a backup in progress has no
 * backup.info yet), is judged alone at 6h15m (pg-main's abandoned directory). The expected alerts come from each repository's known damage
 * (test/support/README.md), not from viewer's output, except for what depends on when the
 * repositories were built, read from the scan's own series as the rules would judge them:
 * - a gap's status: one scan confirms a lost segment once its successor is an hour old on the
 *   store's clock (docs/design/evidence.md, Gaps), so a fresh build's gap is candidate (held 2h:
 *   ViewerWalGapCandidatePersisting) and an older build's confirmed (ViewerWalGapConfirmed);
 *   either way exactly one gap alert;
 * - the archive lag against ViewerArchiveLagOverDefault's 1h (no EXPECTED_MAX_ARCHIVE_LAG is set);
 * - the newest backup's age against ViewerNewestBackupTooOld's 26h.
 * Timestamps are shifted so that promtool's time 0 is the store's clock at the scan: at 2h,
 * `time()` is two hours after the scan, as a Prometheus holding the series would see it.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { currentRepositories } from '../support/current-repositories.ts';
import { pgbackrestRepository } from '../support/pgbackrest-repositories.ts';
import { realRepositories } from '../support/real-repositories.ts';
import { runViewer } from '../support/run-viewer.ts';
import { firingTest, heldSeries, parseSamples as parse, PROMTOOL_SKIP as SKIP, promtoolTest, RULES, sampleValue as one, type Sample } from './promtool-harness.ts';

const HOLD_MINUTES = 120;
/** ViewerBackupCatalogIncomplete waits 6h (a backup may still be running): judged alone, at 6h15m. */
const CATALOG_MINUTES = 375;
/** The rules' thresholds these expectations depend on (read from the rules file, checked below). */
const DEFAULT_LAG_SECONDS = 3600;
const NEWEST_BACKUP_SECONDS = 26 * 3600;

/** What a repository's known damage deserves (test/support/README.md). */
interface Damage {
  /** A WAL segment deleted (or cut short) between archived neighbours: one gap alert. */
  readonly lostWal: boolean;
  /** A completed backup's files deleted: ViewerCompletedBackupNotUsable. */
  readonly brokenBackup: boolean;
  /** Every backup's metadata behind pgBackRest's cipher, and viewer has no passphrase: ViewerNoUsableBackup. */
  readonly encrypted: boolean;
  /** A backup directory without backup.info (abandoned): ViewerBackupCatalogIncomplete after 6h. */
  readonly abandonedDirectory: boolean;
}
const NONE: Damage = { lostWal: false, brokenBackup: false, encrypted: false, abandonedDirectory: false };

interface Target {
  readonly name: string;
  readonly env: Record<string, string>;
  readonly damage: Damage;
  readonly why: string;
}

/** The alerts a scan's repository deserves at 2h, with the time-dependent verdicts read from its series. */
function expectedAlerts(t: Target, all: readonly Sample[]): string[] {
  const alerts: string[] = [];
  if (t.damage.lostWal) {
    const confirmed = (one(all, 'viewer_wal_gaps_unexplained', { status: 'confirmed' }) ?? 0) > 0;
    alerts.push(confirmed ? 'ViewerWalGapConfirmed' : 'ViewerWalGapCandidatePersisting');
  }
  if (t.damage.brokenBackup) alerts.push('ViewerCompletedBackupNotUsable');
  if (t.damage.encrypted) alerts.push('ViewerNoUsableBackup');
  const lag = one(all, 'viewer_archive_lag_seconds');
  if (lag !== undefined && lag > DEFAULT_LAG_SECONDS) alerts.push('ViewerArchiveLagOverDefault');
  const store = one(all, 'viewer_store_time_at_scan_timestamp_seconds');
  const newest = one(all, 'viewer_newest_backup_end_timestamp_seconds');
  if (store !== undefined && newest !== undefined && store - newest + HOLD_MINUTES * 60 > NEWEST_BACKUP_SECONDS) alerts.push('ViewerNewestBackupTooOld');
  return alerts.sort();
}

/** A `promtool test rules` file: the scan's samples held, the alerts firing at 2h asserted by name, and the catalog alert at 6h15m. */
function ruleTest(t: Target, all: readonly Sample[], expected: readonly string[]): unknown {
  const store = one(all, 'viewer_store_time_at_scan_timestamp_seconds');
  assert.ok(store !== undefined, `${t.name}: the scan published no store time`);
  const server = all[0]?.labels['server'] ?? '';
  const catalog = t.damage.abandonedDirectory ? [{ alertname: 'ViewerBackupCatalogIncomplete', server }] : [];
  return firingTest(`${t.name}: ${t.why}`, heldSeries(all, CATALOG_MINUTES, store), [
    { minutes: HOLD_MINUTES, by: ['server'], expected: expected.map((alertname) => ({ alertname, server })) },
    { minutes: CATALOG_MINUTES, by: ['server'], expected: catalog, only: 'ViewerBackupCatalogIncomplete' },
  ]);
}

describe('the alert rules on real scans, held for 2h', { skip: SKIP }, () => {
  let dir: string;
  const targets: Target[] = [];

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'viewer-real-alerts-'));
    const real = realRepositories();
    const pgb = pgbackrestRepository();
    const cur = currentRepositories();
    const creds = (tag: string, endpoint: string, id: string, secret: string) => {
      writeFileSync(join(dir, `${tag}-id`), `${id}\n`);
      writeFileSync(join(dir, `${tag}-secret`), `${secret}\n`);
      return { STORE_ENDPOINT_URL: endpoint, STORE_ACCESS_KEY_ID_FILE: join(dir, `${tag}-id`), STORE_SECRET_ACCESS_KEY_FILE: join(dir, `${tag}-secret`) };
    };
    const r = creds('real', real.endpoint, real.accessKeyId, real.secretAccessKey);
    const p = creds('pgbackrest', pgb.endpoint, pgb.accessKeyId, pgb.secretAccessKey);
    const c = creds('current', cur.endpoint, cur.accessKeyId, cur.secretAccessKey);
    const fixtures = `s3://${real.bucket}/${real.prefix}`;
    const scenarios = `s3://${real.bucket}/${real.scenarioPrefix}`;
    const stanza = { REPOSITORY_FORMAT: 'stanza-repository' };
    targets.push(
      { name: 'Barman 3.4 pg-main', env: { ...r, DESTINATION_PATH: fixtures, ARCHIVE_SERVER_NAMES: 'pg-main' }, damage: { ...NONE, lostWal: true, abandonedDirectory: true }, why: 'one timeline-1 segment deleted between two backups; its FAILED backup is noise; its abandoned backup directory pages after 6h' },
      { name: 'Barman 3.4 pg-wal1m', env: { ...r, DESTINATION_PATH: fixtures, ARCHIVE_SERVER_NAMES: 'pg-wal1m' }, damage: NONE, why: 'healthy' },
      { name: 'Barman 3.4 pg-retention', env: { ...r, DESTINATION_PATH: scenarios, ARCHIVE_SERVER_NAMES: 'pg-retention' }, damage: NONE, why: "healthy: its hole is the one Barman's retention leaves around a keep:standalone backup" },
      { name: 'Barman 3.4 pg-standalone', env: { ...r, DESTINATION_PATH: scenarios, ARCHIVE_SERVER_NAMES: 'pg-standalone' }, damage: { ...NONE, lostWal: true }, why: 'one segment deleted between the standalone backup and the next' },
      { name: 'Barman 3.4 pg-damaged', env: { ...r, DESTINATION_PATH: scenarios, ARCHIVE_SERVER_NAMES: 'pg-damaged' }, damage: { ...NONE, lostWal: true, brokenBackup: true }, why: "D1's data.tar deleted, D2's begin_wal cut to 100 bytes" },
      { name: 'pgBackRest 2.45 main', env: { ...p, ...stanza, DESTINATION_PATH: `s3://${pgb.bucket}/${pgb.prefix}`, ARCHIVE_SERVER_NAMES: 'main' }, damage: { ...NONE, lostWal: true }, why: 'one timeline-1 segment deleted; the interrupted full is noise' },
      { name: 'pgBackRest 2.45 encrypted', env: { ...p, ...stanza, DESTINATION_PATH: `s3://${pgb.bucket}/${pgb.prefix}`, ARCHIVE_SERVER_NAMES: 'encrypted' }, damage: { ...NONE, encrypted: true }, why: 'every object behind the cipher, no passphrase given' },
      { name: 'Barman 3.20 pg18', env: { ...c, DESTINATION_PATH: `s3://${cur.barman.bucket}/${cur.barman.prefix}`, ARCHIVE_SERVER_NAMES: cur.barman.server }, damage: { ...NONE, lostWal: true }, why: "one xz segment deleted between B2 and B3" },
      { name: 'pgBackRest 2.60 main', env: { ...c, ...stanza, DESTINATION_PATH: `s3://${cur.pgbackrest.bucket}/${cur.pgbackrest.prefix}`, ARCHIVE_SERVER_NAMES: 'main' }, damage: { ...NONE, lostWal: true }, why: "the middle of three segments between F2's stop and D2's start deleted" },
      { name: 'pgBackRest 2.60 encrypted', env: { ...c, ...stanza, DESTINATION_PATH: `s3://${cur.pgbackrest.bucket}/${cur.pgbackrest.prefix}`, ARCHIVE_SERVER_NAMES: 'encrypted' }, damage: { ...NONE, encrypted: true }, why: 'every object behind the cipher, no passphrase given' },
    );
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('the thresholds assumed here are the rules\' own', () => {
    const rules = readFileSync(RULES, 'utf8');
    assert.match(rules, /expr: viewer_archive_lag_seconds > 3600 unless viewer_expected_max_archive_lag_seconds/);
    assert.match(rules, /time\(\) - viewer_newest_backup_end_timestamp_seconds > 26 \* 3600/);
    assert.match(rules, /alert: ViewerWalGapCandidatePersisting[\s\S]*?for: 2h/);
    assert.match(rules, /alert: ViewerBackupCatalogIncomplete[\s\S]*?for: 6h\n/);
  });

  it('every repository fires exactly the alerts its damage deserves, and the healthy ones none beyond the clock\'s', async () => {
    const failures: string[] = [];
    // Scans one after another: the store is shared with other test files.
    for (const t of targets) {
      const r = await runViewer(['scan', '--output', 'openmetrics'], t.env);
      assert.equal(r.status, 0, `${t.name}: ${r.stderr}`);
      const all = parse(r.stdout);
      assert.ok(all.length > 0, `${t.name}: no samples`);
      assert.equal(one(all, 'viewer_expected_max_archive_lag_seconds'), undefined, 'no expectation configured: the default lag rule judges');
      const expected = expectedAlerts(t, all);
      if (t.damage.lostWal || t.damage.brokenBackup || t.damage.encrypted) assert.ok(expected.length > 0, t.name);
      const out = promtoolTest(dir, `${t.name.replaceAll(/\W+/g, '-')}.json`, ruleTest(t, all, expected));
      if (!out.ok) failures.push(`${t.name} (${t.why}), expected [${expected.join(', ')}]:\n${out.output}`);
    }
    assert.deepEqual(failures, []);
  });
});
