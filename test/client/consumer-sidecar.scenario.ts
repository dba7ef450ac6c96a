/**
 * Run by consumer-sidecar.test.ts inside a private mount namespace (`unshare -m`, as root), never
 * directly: a tmpfs on /run gives the real fixed socket path `/var/run/viewer/evidence.sock` to the
 * real `viewer` sidecar, scanning a real Barman repository in the real S3 store; the consumer
 * library and the real `viewer console` read it there. Each case moves the sidecar (a new
 * publication, a restart, a stop) and checks the library's source state and projection, and that
 * the console stays ready throughout.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { EvidenceSource, unixSocketTransport, type Projection, type Transport } from '../../src/client/index.ts';
import { SIDECAR_SOCKET_PATH } from '../../src/contract/values.ts';
import { realRepositories, type RealRepositories } from '../support/real-repositories.ts';
import { SECRETS, SIDECAR_TOKEN, TOKEN_FILE, until, writeSidecarFiles } from '../support/sidecar-scenario.ts';
import { runViewer, startConsole, VIEWER_BIN, type RunningConsole, type ScanDocument } from '../support/run-viewer.ts';

const WRONG = 'Z1aKFo9oVbP3rJ7Ztl0cKjYc2yU8m1Q0xW5nA4bZr-E';
const SERVER = 'pg-standalone';
const CLUSTER_UID = '6f1c2a7e-3b9d-4e8f-a1c2-9d8e7f6a5b4c';
const RECORDS_FILE = '/run/backups.json';

describe('the consumer library and console against the real sidecar on the fixed socket', () => {
  let repos: RealRepositories;
  let scan: ScanDocument;
  let sidecar: ChildProcess | null = null;
  let sidecarLog = '';
  let consoleRun: RunningConsole;
  const transport = unixSocketTransport({ socketPath: SIDECAR_SOCKET_PATH, token: SIDECAR_TOKEN });
  const scannedRepository = () => (scan.snapshot as { identity: { repository: { destination_fingerprint: string } } }).identity.repository;
  const config = () => ({ socketPath: SIDECAR_SOCKET_PATH, tokenFile: TOKEN_FILE, expectedFingerprint: scannedRepository().destination_fingerprint, server: SERVER });

  const snapshotNow = async () => {
    const r = await transport('/api/v1alpha1/snapshot', AbortSignal.timeout(3_000));
    return r.status === 200 ? (r.body as { revision: number; evidence_generation: number }) : null;
  };

  async function startSidecar(): Promise<void> {
    const child = spawn(process.execPath, [VIEWER_BIN], {
      env: {
        PATH: process.env['PATH'] ?? '',
        RUNTIME_MODE: 'sidecar',
        REPOSITORY_FORMAT: 'archive-cloud',
        PROVIDER: 'store-a',
        DESTINATION_PATH: `s3://${repos.bucket}/${repos.scenarioPrefix}`,
        ARCHIVE_SERVER_NAMES: SERVER,
        EVIDENCE_TOKEN_FILE: TOKEN_FILE,
        CLUSTER_NAMESPACE: 'databases',
        CLUSTER_UID,
        STORE_CREDENTIAL_MODE: 'static-files',
        STORE_ACCESS_KEY_ID_FILE: join(SECRETS, 'id'),
        STORE_SECRET_ACCESS_KEY_FILE: join(SECRETS, 'secret'),
        STORE_ENDPOINT_URL: repos.endpoint,
        REFRESH_INTERVAL_SECONDS: '10',
      },
    });
    child.stdout?.on('data', (c: Buffer) => (sidecarLog += c.toString()));
    child.stderr?.on('data', (c: Buffer) => (sidecarLog += c.toString()));
    sidecar = child;
    await until('the sidecar publishing generation 1', async () => ((await snapshotNow())?.evidence_generation ?? 0) > 0 || null);
  }

  async function stopSidecar(): Promise<void> {
    const child = sidecar;
    if (child === null) return;
    sidecar = null;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  }

  const consoleGet = async (path: string) => {
    const r = await fetch(new URL(path, consoleRun.url));
    return { status: r.status, text: await r.text() };
  };
  const consoleSource = async () => (JSON.parse((await consoleGet('/projection')).text) as { source: { state: string; reason: string }; projection: { revision: number } | null; correlation: { name: string; outcome: Record<string, unknown> }[] | null });

  before(async () => {
    repos = realRepositories();
    writeSidecarFiles(repos);
    const r = await runViewer(['scan'], {
      DESTINATION_PATH: `s3://${repos.bucket}/${repos.scenarioPrefix}`,
      ARCHIVE_SERVER_NAMES: SERVER,
      STORE_ENDPOINT_URL: repos.endpoint,
      STORE_ACCESS_KEY_ID_FILE: join(SECRETS, 'id'),
      STORE_SECRET_ACCESS_KEY_FILE: join(SECRETS, 'secret'),
    });
    assert.equal(r.status, 0, r.stderr);
    scan = JSON.parse(r.stdout) as ScanDocument;
    await startSidecar();
    const owner = [{ apiVersion: 'postgresql.cnpg.io/v1', kind: 'Cluster', name: 'pg', uid: CLUSTER_UID, controller: true }];
    const record = (name: string, backupId: string, method = 'barmanObjectStore') => ({
      apiVersion: 'postgresql.cnpg.io/v1', kind: 'Backup',
      metadata: { name, namespace: 'databases', ownerReferences: owner },
      spec: { cluster: { name: 'pg' }, method },
      status: { backupId, method },
    });
    const [first] = scan.backups;
    writeFileSync(RECORDS_FILE, JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [
      record('nightly-1', first?.['backup_id'] as string),
      record('nightly-2', '20990101T000000'),
      record('snap-1', first?.['backup_id'] as string, 'volumeSnapshot'),
      record(first?.['backup_id'] as string, ''),
    ] }));
    consoleRun = await startConsole({
      POLL_INTERVAL_SECONDS: '5',
      REPOSITORY_EVIDENCE_URL: `unix://${SIDECAR_SOCKET_PATH}`,
      REPOSITORY_EVIDENCE_TOKEN_FILE: TOKEN_FILE,
      REPOSITORY_EXPECTED_FINGERPRINT: config().expectedFingerprint,
      REPOSITORY_BARMAN_SERVER: SERVER,
      CLUSTER_NAMESPACE: 'databases',
      CLUSTER_UID,
      BACKUP_RECORDS_FILE: RECORDS_FILE,
    });
  });

  after(async () => {
    await stopSidecar();
    consoleRun.child.kill('SIGTERM');
  });

  it('a full assembly equals viewer scan\'s items', async () => {
    const source = new EvidenceSource({ config: config(), transport, pageLimit: 1 });
    await source.poll();
    assert.deepEqual([source.status().state, source.status().reason], ['available', 'current']);
    const p = source.projection() as Projection;
    const items = <T>(c: { known: boolean; items?: readonly T[] }) => (c.known ? c.items : null);
    assert.deepEqual(items(p.collections.backups), scan.backups);
    assert.deepEqual(items(p.collections['wal-ranges']), scan.wal_ranges);
    assert.deepEqual(items(p.collections['recovery-paths']), scan.recovery_paths);
    // Gap generations are each process's own counters; everything else is the same evidence.
    const withoutGenerations = (gaps: readonly Record<string, unknown>[]) => gaps.map(({ first_observed_generation: _f, last_observed_generation: _l, ...g }) => g);
    assert.ok(scan.wal_gaps.length > 0, 'the repository has a gap, so wal-gaps is walked');
    assert.deepEqual(withoutGenerations(items(p.collections['wal-gaps']) as unknown as Record<string, unknown>[]), withoutGenerations(scan.wal_gaps));
    assert.ok(scan.backups.length + scan.wal_ranges.length > 2, 'several pages at limit 1');
    assert.deepEqual(p.snapshot.identity.repository, scannedRepository());
    assert.equal(p.details.known && p.details.archive_cloud.backup_items, scan.backups.length);
  });

  it('the console assembles the same publication and is ready', async () => {
    const current = await snapshotNow();
    assert.ok(current !== null);
    const seen = await until('the console available', async () => {
      const s = await consoleSource();
      return s.source.state === 'available' && s.projection !== null ? s : null;
    }, 20_000);
    assert.ok(seen.projection !== null && seen.projection.revision >= current.revision);
    assert.equal((await consoleGet('/readyz')).status, 200);
    const metrics = (await consoleGet('/metrics')).text;
    // The console's series carry the cluster identity the snapshot names (no CLUSTER_NAME here: namespace only).
    assert.match(metrics, new RegExp(`^viewer_backups\\{server="${SERVER}",namespace="databases",state="healthy"\\} \\d+$`, 'm'));
    assert.match(metrics, /^viewer_consumer_source_state\{server="pg-standalone",namespace="databases",state="available"\} 1$/m);
    assert.match(metrics, /^viewer_consumer_projection_age_seconds\{server="pg-standalone",namespace="databases"\} [0-9.e-]+$/m);
    const page = (await consoleGet('/')).text;
    for (const b of scan.backups) assert.ok(page.includes(b['backup_id'] as string));
    // The orchestrator's records, correlated by status.backupId only.
    const first = scan.backups[0]?.['backup_id'] as string;
    const correlation = await until('the correlation of the assembled projection', async () => {
      const c = (await consoleSource()).correlation;
      return c !== null && c[0]?.outcome['kind'] === 'matched' ? c : null;
    }, 20_000);
    assert.deepEqual(correlation.map((c) => [c.name, c.outcome]), [
      ['nightly-1', { kind: 'matched', backupId: first }],
      ['nightly-2', { kind: 'not-observed' }],
      ['snap-1', { kind: 'not-eligible', reason: 'unsupported-method' }],
      [first, { kind: 'not-eligible', reason: 'no-backup-id' }],
    ]);
    assert.match((await consoleGet('/')).text, /repository counterpart not observed/);
  });

  it('a publication change in the middle of a walk: discarded, restarted from the snapshot, the new revision assembled', async () => {
    let moved = false;
    const waiting: Transport = async (path, signal) => {
      if (!moved && path.includes('/wal-ranges')) {
        const before = await snapshotNow();
        // The sidecar publishes every refresh (10 s): wait for the next revision mid-walk.
        await until('the next revision', async () => ((await snapshotNow())?.revision ?? 0) > (before?.revision ?? 0) || null, 20_000);
        moved = true;
      }
      return transport(path, signal);
    };
    const source = new EvidenceSource({ config: config(), transport: waiting, pageLimit: 1, backoffBaseMs: 50 });
    await source.poll();
    assert.ok(moved);
    assert.ok(source.status().restarts['publication-changed'] >= 1, JSON.stringify(source.status()));
    assert.deepEqual([source.status().state, source.status().reason], ['available', 'current']);
    const now = await snapshotNow();
    assert.ok(now !== null && (source.projection()?.revision ?? 0) <= now.revision && (source.projection()?.revision ?? 0) > 0);
  });

  it('a sidecar restart in the middle of a walk: restarted from the snapshot of the new process', async () => {
    let restarted = false;
    const restarting: Transport = async (path, signal) => {
      if (!restarted && path.includes('/wal-ranges')) {
        restarted = true;
        await stopSidecar();
        await startSidecar();
      }
      return transport(path, signal);
    };
    const source = new EvidenceSource({ config: config(), transport: restarting, pageLimit: 1, backoffBaseMs: 50 });
    await source.poll();
    assert.ok(restarted);
    const r = source.status().restarts;
    assert.equal(r['publication-changed'] + r['cursor-rejected'], 1, JSON.stringify(r));
    assert.deepEqual([source.status().state, source.status().reason], ['available', 'current']);
    assert.equal(source.projection()?.evidenceGeneration, 1, 'the new process\'s first generation');
    assert.equal((await consoleGet('/readyz')).status, 200);
  });

  it('a wrong token: unavailable by authentication, never a projection', async () => {
    const source = new EvidenceSource({ config: config(), transport: unixSocketTransport({ socketPath: SIDECAR_SOCKET_PATH, token: WRONG }) });
    await source.poll();
    assert.deepEqual([source.status().state, source.status().reason], ['unavailable', 'authentication']);
    assert.equal(source.projection(), null);
  });

  it('a stopped sidecar: unavailable by transport, the last projection kept, the console still ready', async () => {
    const source = new EvidenceSource({ config: config(), transport });
    await source.poll();
    const kept = source.projection();
    assert.ok(kept !== null);
    await until('the console available again', async () => ((await consoleSource()).source.state === 'available' ? true : null), 20_000);
    await stopSidecar();
    assert.ok(!existsSync(SIDECAR_SOCKET_PATH));
    await source.poll();
    assert.deepEqual([source.status().state, source.status().reason], ['unavailable', 'transport']);
    assert.equal(source.projection(), kept);
    const seen = await until('the console unavailable', async () => {
      const s = await consoleSource();
      return s.source.state === 'unavailable' ? s : null;
    }, 20_000);
    assert.equal(seen.source.reason, 'transport');
    assert.ok(seen.projection !== null, 'the console keeps its last projection');
    assert.equal((await consoleGet('/readyz')).status, 200);
    assert.match((await consoleGet('/')).text, /the last completely assembled publication, retained/);
  });

  it('no token, credential or destination in any log line', () => {
    const secretValues = [SIDECAR_TOKEN, WRONG, repos.secretAccessKey, repos.accessKeyId, repos.bucket, repos.scenarioPrefix, TOKEN_FILE];
    for (const [name, log] of [['sidecar', sidecarLog], ['console', consoleRun.log()]] as const) {
      assert.ok(log.length > 0, `${name} logged`);
      for (const s of secretValues) assert.ok(!log.includes(s), `${name} log carries ${s.slice(0, 6)}`);
    }
    assert.ok(!consoleRun.log().includes(SERVER) || !/"msg":"request"[^\n]*pg-standalone/.test(consoleRun.log()), 'request logs name routes only');
    assert.ok(readFileSync(TOKEN_FILE, 'utf8').startsWith(SIDECAR_TOKEN));
  });
});
