/**
 * `viewer scan --output openmetrics` end to end: the real executable scans the embedded demo
 * repository, copied into Azurite (`viewer scan` needs a destination; the demo runs from memory
 * only in standalone mode), and its text must pass `promtool check metrics` without a single
 * complaint (the Debian package `prometheus`, installed by .ci/run). The series equal what the
 * metrics module makes of the JSON document of the same repository; `--output json` is the
 * default document; any other argument is a usage error found before the environment is read.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { BlobServiceClient } from '@azure/storage-blob';
import { PRODUCER_VERSION } from '../../src/cli/identity.ts';
import type { BackupItem, RecoveryPathItem, WalGapItem, WalRangeItem } from '../../src/contract/collections.ts';
import type { RepositoryEvidenceSnapshot } from '../../src/contract/snapshot.ts';
import { DEMO_PREFIX, DEMO_SERVER } from '../../src/format/barman-cloud/demo-repository.ts';
import { renderOpenMetrics } from '../../src/metrics/openmetrics.ts';
import { startAzurite, type Azurite } from '../support/azurite.ts';
import { demoObjects } from '../support/demo-objects.ts';
import { runViewer } from '../support/run-viewer.ts';

interface Document {
  snapshot: RepositoryEvidenceSnapshot;
  backups: BackupItem[];
  wal_ranges: WalRangeItem[];
  wal_gaps: WalGapItem[];
  recovery_paths: RecoveryPathItem[];
  observations: { wal_gap_classes: { class: string }[] } | null;
}

/** `promtool check metrics` on the text: its exit status and every line it printed. */
function promtool(text: string): { status: number | null; complaints: string } {
  const r = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
  assert.equal(r.error, undefined, 'promtool must be installed (Debian package prometheus, see .ci/run)');
  return { status: r.status, complaints: `${r.stdout}${r.stderr}` };
}

function assertClean(text: string): void {
  const { status, complaints } = promtool(text);
  assert.equal(complaints, '', `promtool complains:\n${complaints}`);
  assert.equal(status, 0);
}

/** The lines, without the families that differ from run to run by construction (D-59, the clock). */
const stable = (text: string) => text.split('\n').filter((l) => !/\bviewer_(publication_revision|scan_duration_seconds|scan_attempt_duration_seconds)\b/.test(l));

describe('viewer scan --output openmetrics', () => {
  let azurite: Azurite;
  let dir: string;
  let env: Record<string, string>;
  let leaks: string[];

  before(async () => {
    azurite = await startAzurite();
    dir = mkdtempSync(join(tmpdir(), 'viewer-openmetrics-'));
    const container = BlobServiceClient.fromConnectionString(azurite.connectionString()).getContainerClient('barman');
    await container.create();
    const objects = await demoObjects();
    for (const o of objects) await container.getBlockBlobClient(o.key).upload(o.body, o.body.length);
    writeFileSync(join(dir, 'conn'), azurite.connectionString());
    writeFileSync(join(dir, 'wrong'), azurite.connectionString(Buffer.alloc(64, 7).toString('base64')));
    env = { PROVIDER: 'store-b', DESTINATION_PATH: `${azurite.blobEndpoint}/barman/${DEMO_PREFIX}`, ARCHIVE_SERVER_NAMES: DEMO_SERVER, STORE_CONNECTION_STRING_FILE: join(dir, 'conn') };
    leaks = [azurite.blobEndpoint, '127.0.0.1', 'barman/', `${DEMO_PREFIX}/`, 'sha256:', 'devstoreaccount1', ...objects.map((o) => o.key)];
  });
  after(() => {
    azurite.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('prints the demo evidence as OpenMetrics text that promtool accepts without a complaint', async () => {
    const [metrics, json] = await Promise.all([runViewer(['scan', '--output', 'openmetrics'], env), runViewer(['scan'], env)]);
    assert.equal(metrics.status, 0, metrics.stderr);
    assert.equal(json.status, 0, json.stderr);
    assert.ok(metrics.stdout.endsWith('\n# EOF\n'));
    assertClean(metrics.stdout);

    // The same series the module makes of the JSON document of the same repository.
    const doc = JSON.parse(json.stdout) as Document;
    const gapClasses = (doc.observations?.wal_gap_classes ?? []).map((c) => c.class);
    const expected = await renderOpenMetrics([{ snapshot: doc.snapshot, backups: doc.backups, walRanges: doc.wal_ranges, walGaps: doc.wal_gaps, recoveryPaths: doc.recovery_paths, observations: { storeTimeAtScan: null, archiveLagSeconds: null, gapClasses } }]);
    // The two runs read the store's clock at their own moments: its series are checked apart.
    const clockFree = (text: string) => stable(text).filter((l) => !/viewer_(store_time_at_scan_timestamp|archive_lag)_seconds/.test(l));
    assert.deepEqual(clockFree(metrics.stdout), clockFree(expected));
    assert.match(metrics.stdout, /^viewer_objects\{server="pg-main"\} \d+$/m);
    assert.ok(metrics.stdout.includes(`\nviewer_build_info{server="pg-main",version="${PRODUCER_VERSION}",format="archive-cloud",provider="store-b"} 1\n`), 'the build that scanned');
    assert.match(metrics.stdout, /^viewer_scan_attempt_duration_seconds\{server="pg-main"\} [0-9.e-]+$/m);
    assert.match(metrics.stdout, /^viewer_publication_revision\{server="pg-main"\} \d+$/m);
    // The store's clock (Azurite's Date header) and the lag on it: store time − newest receipt.
    const value = (name: string) => Number(new RegExp(`^${name}\\{server="pg-main"\\} ([0-9.e+-]+)$`, 'm').exec(metrics.stdout)?.[1]);
    const storeTime = value('viewer_store_time_at_scan_timestamp_seconds');
    assert.ok(Math.abs(storeTime - Date.now() / 1000) < 300, 'a local store\'s clock is this machine\'s, within minutes');
    assert.equal(value('viewer_archive_lag_seconds'), storeTime - value('viewer_newest_wal_receipt_timestamp_seconds'));
    assert.doesNotMatch(metrics.stdout, /viewer_expected_max_archive_lag_seconds/, 'no expectation configured: absent');
    for (const leak of leaks) assert.ok(!metrics.stdout.includes(leak), leak);
  });

  it('prints a failed first attempt with its collections absent, and exits as failed', async () => {
    const r = await runViewer(['scan', '--output=openmetrics'], { ...env, STORE_CONNECTION_STRING_FILE: join(dir, 'wrong') });
    assert.equal(r.status, 1, r.stderr);
    assert.match(r.stderr, /scan failed: /);
    assertClean(r.stdout);
    assert.match(r.stdout, /^viewer_scan_success\{server="pg-main"\} 0$/m);
    assert.match(r.stdout, /^viewer_evidence_generation\{server="pg-main"\} 0$/m);
    assert.match(r.stdout, /^viewer_state\{server="pg-main",state="unknown"\} 1$/m);
    for (const absent of ['viewer_backups', 'viewer_wal_gaps', 'viewer_objects', 'viewer_recovery_', 'viewer_scan_duration_seconds']) assert.ok(!r.stdout.includes(absent), absent);
    for (const leak of leaks) assert.ok(!r.stdout.includes(leak), leak);
  });

  it('prints the JSON document with --output json, as without the option', async () => {
    const [plain, explicit] = await Promise.all([runViewer(['scan'], env), runViewer(['scan', '--output', 'json'], env)]);
    assert.equal(explicit.status, 0, explicit.stderr);
    // Only the revision (drawn per process, D-59) and the attempt's own times differ by construction
    // (the memory remembers the store's clock at the scan that first saw each gap: this one's).
    const normal = (s: string) => s.replace(/"(revision|started_at|completed_at|last_attempt_at|store_time_at_scan|archive_lag_seconds|first_observed_at)":("[^"]*"|\d+)/g, '"$1":_');
    assert.equal(normal(explicit.stdout), normal(plain.stdout));
    assert.ok(explicit.stdout.startsWith('{"snapshot":{') && explicit.stdout.endsWith('}\n'));
  });

  it('refuses any other output or argument as a usage error before reading the environment', async () => {
    for (const args of [['--output', 'xml'], ['--output'], ['--output='], ['--output', 'json', '--output', 'openmetrics'], ['--output', 'openmetrics', 'extra'], ['openmetrics'], ['-o', 'openmetrics'], ['--output', 'OpenMetrics']]) {
      const r = await runViewer(['scan', ...args], { DESTINATION_PATH: 'not a destination' });
      assert.equal(r.status, 64, `${args.join(' ')}: ${r.stderr}`);
      // The mistake named in one line before the usage.
      assert.match(r.stderr, /^viewer: scan [^\n]+\nusage: viewer/);
      assert.equal(r.stdout, '');
    }
  });

  it('puts METRICS_LABELS on every sample, promtool clean, a failed attempt included', async () => {
    const labels = 'namespace=db,cluster=main,env=prod';
    const [ok, failed] = await Promise.all([
      runViewer(['scan', '--output', 'openmetrics'], { ...env, METRICS_LABELS: labels }),
      runViewer(['scan', '--output', 'openmetrics'], { ...env, METRICS_LABELS: labels, STORE_CONNECTION_STRING_FILE: join(dir, 'wrong') }),
    ]);
    assert.equal(ok.status, 0, ok.stderr);
    assert.equal(failed.status, 1, failed.stderr);
    for (const r of [ok, failed]) {
      assertClean(r.stdout);
      const lines = r.stdout.split('\n').filter((l) => l !== '' && !l.startsWith('#'));
      assert.ok(lines.length > 10);
      for (const line of lines) assert.ok(line.startsWith('viewer_') && line.includes('{server="pg-main",namespace="db",cluster="main",env="prod"'), line);
    }
    // The other outputs do not carry them.
    const text = await runViewer(['scan', '--output', 'text'], { ...env, METRICS_LABELS: labels });
    assert.equal(text.status, 0, text.stderr);
    assert.ok(!text.stdout.includes('namespace'));
  });

  it('refuses a broken METRICS_LABELS before any scan, naming the variable and the rule, never the value', async () => {
    for (const value of ['server=pg-secret', '__meta_secret=x', 'env=secret value ', 'team=secret\u0001', 'env=a,env=secret']) {
      const r = await runViewer(['scan', '--output', 'openmetrics'], { ...env, METRICS_LABELS: value });
      assert.equal(r.status, 78, `${JSON.stringify(value)}: ${r.stderr}`);
      assert.equal(r.stdout, '');
      assert.match(r.stderr, /^viewer: configuration refused: METRICS_LABELS: [^\n]+\n$/);
      assert.ok(!r.stderr.includes('secret'), r.stderr);
    }
  });

  it('the consumer series pass promtool too', async () => {
    const text = await renderOpenMetrics([], { consumer: { server: DEMO_SERVER, sourceState: 'available', projectionAgeSeconds: 4.5 } });
    assertClean(text);
    assert.match(text, /^viewer_consumer_projection_age_seconds\{server="pg-main"\} 4\.5$/m);
  });
});
