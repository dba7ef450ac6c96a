/**
 * Run by console-alerts.test.ts inside a private mount namespace (`unshare -m`, as root), never
 * directly: a tmpfs on /run gives the real fixed socket path `/var/run/viewer/evidence.sock`. For
 * each real repository in turn, the real `viewer` sidecar scans it (with a cluster identity of its
 * own) and the real `viewer console` reads the sidecar; the console's `/metrics` is scraped once its
 * projection is the sidecar's publication, the samples are held in `promtool test rules` against
 * deploy/monitoring/viewer-alerts.yaml, and exactly the alerts the repository's known damage
 * deserves (test/support/README.md) must fire at 2h, by alert, server, namespace and cluster:
 * - Barman 3.4 pg-main: a deleted timeline-1 segment, one gap alert (candidate persisting on a
 *   build younger than an hour, confirmed on an older one: test/support/gap-age.ts); its
 *   abandoned backup directory, ViewerBackupCatalogIncomplete, judged alone at 6h15m;
 * - pg-damaged: D1's data.tar deleted (ViewerCompletedBackupNotUsable) and D2's begin_wal cut
 *   short (one gap alert);
 * - pg-wal1m: healthy;
 * - pg-retention: healthy, its hole the one Barman's retention leaves around a keep:standalone
 *   backup, which the console must not page from what the wire carries (docs/consumer.md).
 * What depends on the build's age and not on damage is read as the rules judge it: the console's
 * receipt age at the generation against ViewerConsoleArchiveLagOverDefault's 1h, the newest
 * backup's age against ViewerNewestBackupTooOld's 26h. Timestamps are shifted so that promtool's
 * time 0 is the scrape.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { unixSocketTransport } from '../../src/client/index.ts';
import { SIDECAR_SOCKET_PATH } from '../../src/contract/values.ts';
import { expectedGapStatusNow, type GapStatus } from '../support/gap-age.ts';
import { realRepositories, type RealRepositories } from '../support/real-repositories.ts';
import { SECRETS, SIDECAR_TOKEN, TOKEN_FILE, until, writeSidecarFiles } from '../support/sidecar-scenario.ts';
import { runViewer, VIEWER_BIN, type ScanDocument } from '../support/run-viewer.ts';
import { firingTest, heldSeries, parseSamples, promtoolTest, sampleValue, type ExpectedAlert, type Sample } from './promtool-harness.ts';

const HOLD_MINUTES = 120;
const CATALOG_MINUTES = 375;
/** The rules' thresholds these expectations depend on (real-alerts.test.ts checks them in the rules file). */
const DEFAULT_LAG_SECONDS = 3600;
const NEWEST_BACKUP_SECONDS = 26 * 3600;

interface Target {
  readonly name: string;
  readonly server: string;
  readonly scenario: boolean;
  readonly namespace: string;
  readonly cluster: string;
  /** The segment deleted or cut short: one gap alert, its status by the build's age. */
  readonly lostWal: (r: RealRepositories) => string | null;
  readonly brokenBackup: boolean;
  readonly abandonedDirectory: boolean;
  readonly why: string;
}

const TARGETS: readonly Target[] = [
  { name: 'Barman 3.4 pg-main', server: 'pg-main', scenario: false, namespace: 'db-main', cluster: 'main', lostWal: (r) => r.facts['DELETED_WAL'] ?? null, brokenBackup: false, abandonedDirectory: true, why: 'a deleted timeline-1 segment; an abandoned backup directory' },
  { name: 'Barman 3.4 pg-damaged', server: 'pg-damaged', scenario: true, namespace: 'db-damaged', cluster: 'damaged', lostWal: (r) => r.damaged.truncatedWal, brokenBackup: true, abandonedDirectory: false, why: "D1's data.tar deleted, D2's begin_wal cut to 100 bytes" },
  { name: 'Barman 3.4 pg-wal1m', server: 'pg-wal1m', scenario: false, namespace: 'db-wal1m', cluster: 'wal1m', lostWal: () => null, brokenBackup: false, abandonedDirectory: false, why: 'healthy' },
  { name: 'Barman 3.4 pg-retention', server: 'pg-retention', scenario: true, namespace: 'db-retention', cluster: 'retention', lostWal: () => null, brokenBackup: false, abandonedDirectory: false, why: "healthy: its hole is the one Barman's retention leaves around a keep:standalone backup" },
];

function expectedAlerts(t: Target, all: readonly Sample[], gap: GapStatus | null, scrapedAt: number): string[] {
  const alerts: string[] = [];
  if (gap !== null) alerts.push(gap === 'confirmed' ? 'ViewerWalGapConfirmed' : 'ViewerWalGapCandidatePersisting');
  if (t.brokenBackup) alerts.push('ViewerCompletedBackupNotUsable');
  const age = sampleValue(all, 'viewer_consumer_archive_receipt_age_at_generation_seconds');
  if (age !== undefined && age > DEFAULT_LAG_SECONDS) alerts.push('ViewerConsoleArchiveLagOverDefault');
  const newest = sampleValue(all, 'viewer_newest_backup_end_timestamp_seconds');
  if (newest !== undefined && scrapedAt - newest + HOLD_MINUTES * 60 > NEWEST_BACKUP_SECONDS) alerts.push('ViewerNewestBackupTooOld');
  return alerts.sort();
}

describe('the alert rules on the console\'s /metrics over real sidecars, held for 2h', () => {
  let repos: RealRepositories;
  let dir: string;
  const children: ChildProcess[] = [];
  const transport = unixSocketTransport({ socketPath: SIDECAR_SOCKET_PATH, token: SIDECAR_TOKEN });

  before(() => {
    repos = realRepositories();
    dir = mkdtempSync(join(tmpdir(), 'viewer-console-alerts-'));
    writeSidecarFiles(repos);
  });
  after(() => {
    for (const c of children) if (c.exitCode === null) c.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  });

  function start(args: readonly string[], env: Record<string, string>): { child: ChildProcess; log: () => string } {
    const child = spawn(process.execPath, [VIEWER_BIN, ...args], { env: { PATH: process.env['PATH'] ?? '', ...env } });
    children.push(child);
    let log = '';
    child.stdout?.on('data', (c: Buffer) => (log += c.toString()));
    child.stderr?.on('data', (c: Buffer) => (log += c.toString()));
    return { child, log: () => log };
  }

  async function stop(child: ChildProcess): Promise<void> {
    if (child.exitCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  }

  /** The console's /metrics once its projection is the sidecar's current publication, and the scrape time. */
  async function scrape(t: Target): Promise<{ text: string; at: number }> {
    const destination = `s3://${repos.bucket}/${t.scenario ? repos.scenarioPrefix : repos.prefix}`;
    const store = { STORE_ENDPOINT_URL: repos.endpoint, STORE_ACCESS_KEY_ID_FILE: join(SECRETS, 'id'), STORE_SECRET_ACCESS_KEY_FILE: join(SECRETS, 'secret') };
    const scan = await runViewer(['scan'], { ...store, DESTINATION_PATH: destination, ARCHIVE_SERVER_NAMES: t.server });
    assert.equal(scan.status, 0, scan.stderr);
    const fingerprint = (JSON.parse(scan.stdout) as ScanDocument & { snapshot: { identity: { repository: { destination_fingerprint: string } } } }).snapshot.identity.repository.destination_fingerprint;
    const sidecar = start([], {
      ...store,
      RUNTIME_MODE: 'sidecar',
      REPOSITORY_FORMAT: 'archive-cloud',
      PROVIDER: 'store-a',
      DESTINATION_PATH: destination,
      ARCHIVE_SERVER_NAMES: t.server,
      EVIDENCE_TOKEN_FILE: TOKEN_FILE,
      CLUSTER_NAMESPACE: t.namespace,
      CLUSTER_UID: '6f1c2a7e-3b9d-4e8f-a1c2-9d8e7f6a5b4c',
      CLUSTER_NAME: t.cluster,
      STORE_CREDENTIAL_MODE: 'static-files',
      REFRESH_INTERVAL_SECONDS: '600',
    });
    const console = start(['console'], {
      LISTEN_ADDR: '127.0.0.1:0',
      POLL_INTERVAL_SECONDS: '5',
      REPOSITORY_EVIDENCE_URL: `unix://${SIDECAR_SOCKET_PATH}`,
      REPOSITORY_EVIDENCE_TOKEN_FILE: TOKEN_FILE,
      REPOSITORY_EXPECTED_FINGERPRINT: fingerprint,
      REPOSITORY_BARMAN_SERVER: t.server,
    });
    try {
      const published = await until(`${t.name}: the sidecar's generation 1`, async () => {
        const r = await transport('/api/v1alpha1/snapshot', AbortSignal.timeout(3_000));
        const body = r.body as { revision: number; evidence_generation: number };
        return r.status === 200 && body.evidence_generation > 0 ? body : null;
      });
      const url = await until(`${t.name}: the console listening`, () => /console on (http:\/\/[^ \n]+)/.exec(console.log())?.[1] ?? null);
      await until(`${t.name}: the console's projection of revision ${published.revision}`, async () => {
        const p = JSON.parse(await (await fetch(new URL('/projection', url))).text()) as { source: { state: string }; projection: { revision: number } | null };
        return p.source.state === 'available' && p.projection?.revision === published.revision ? true : null;
      });
      const at = Date.now() / 1000;
      const text = await (await fetch(new URL('/metrics', url))).text();
      return { text, at };
    } catch (error) {
      throw new Error(`${String(error)}\nsidecar:\n${sidecar.log()}\nconsole:\n${console.log()}`, { cause: error });
    } finally {
      await stop(console.child);
      await stop(sidecar.child);
    }
  }

  it('every repository fires exactly the alerts its damage deserves, by server, namespace and cluster', async () => {
    const failures: string[] = [];
    for (const t of TARGETS) {
      const lost = t.lostWal(repos);
      // Within a minute of the hour that confirms a gap, the sidecar's scan and this judgement may
      // fall on either side: wait until they cannot.
      let gap: GapStatus | null = null;
      if (lost !== null) gap = await until(`${t.name}: a gap age away from the confirmation boundary`, () => expectedGapStatusNow(repos.objects(t.server), lost), 180_000);
      const { text, at } = await scrape(t);
      const all = parseSamples(text);
      assert.ok(all.length > 0, `${t.name}: no samples`);
      // Every sample carries the cluster identity the sidecar published.
      for (const s of all) assert.deepEqual([s.labels['server'], s.labels['namespace'], s.labels['cluster']], [t.server, t.namespace, t.cluster], `${t.name}: ${s.name}`);
      const expected = expectedAlerts(t, all, gap, at);
      if (lost !== null || t.brokenBackup) assert.ok(expected.length > 0, t.name);
      const who = { server: t.server, namespace: t.namespace, cluster: t.cluster };
      const by = ['server', 'namespace', 'cluster'];
      const doc = firingTest(`${t.name}: ${t.why}`, heldSeries(all, CATALOG_MINUTES, at), [
        { minutes: HOLD_MINUTES, by, expected: expected.map((alertname): ExpectedAlert => ({ alertname, ...who })) },
        { minutes: CATALOG_MINUTES, by, expected: t.abandonedDirectory ? [{ alertname: 'ViewerBackupCatalogIncomplete', ...who }] : [], only: 'ViewerBackupCatalogIncomplete' },
      ]);
      const out = promtoolTest(dir, `${t.server}.json`, doc);
      if (!out.ok) failures.push(`${t.name} (${t.why}), expected [${expected.join(', ')}]:\n${out.output}`);
    }
    assert.deepEqual(failures, []);
  });
});
