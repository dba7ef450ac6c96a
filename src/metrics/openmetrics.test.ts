/**
 * The OpenMetrics text of the embedded demo's published evidence (test/fixtures/demo-scan.json,
 * the golden `viewer scan` document): every value is compared with what the wire items say,
 * counted here from the fixture; unknown inputs give absent series, never 0; the same input gives
 * the same bytes; no object key or destination text leaks into the text.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { demoObjects } from '../../test/support/demo-objects.ts';
import type { BackupItem, RecoveryPathItem, WalGapItem, WalRangeItem } from '../contract/collections.ts';
import { CAPABILITY_IDS, STATES } from '../contract/values.ts';
import { stanzaBackupPage, stanzaSnapshotComplete } from '../contract/examples.ts';
import type { ArchiveCloudDetails, Details, RepositoryEvidenceSnapshot, SnapshotWith } from '../contract/snapshot.ts';
import { wireViolations } from '../contract/validate.ts';
import { DEMO_BUCKET, DEMO_PREFIX } from '../format/barman-cloud/demo-repository.ts';
import { RESERVED_METRIC_LABELS } from '../cli/config/config.ts';
import { CONSUMER_SOURCE_STATES, OPENMETRICS_CONTENT_TYPE, OWN_LABELS, renderOpenMetrics, type MetricScope } from './openmetrics.ts';

interface DemoDocument {
  snapshot: SnapshotWith<ArchiveCloudDetails>;
  backups: BackupItem[];
  wal_ranges: WalRangeItem[];
  wal_gaps: WalGapItem[];
  recovery_paths: RecoveryPathItem[];
  observations: { wal_gap_classes: { timeline: number; start_position: number; class: string }[] } | null;
}

const FIXTURE = join(import.meta.dirname, '..', '..', 'test', 'fixtures', 'demo-scan.json');
const demo = JSON.parse(readFileSync(FIXTURE, 'utf8')) as DemoDocument;

const page = (kind: string, items: readonly unknown[]) => ({ api_version: demo.snapshot.api_version, kind, revision: demo.snapshot.revision, evidence_generation: demo.snapshot.evidence_generation, total_items: items.length, items, next_cursor: null });

function demoScope(over: Partial<MetricScope> = {}): MetricScope {
  return { snapshot: demo.snapshot, backups: demo.backups, walRanges: demo.wal_ranges, walGaps: demo.wal_gaps, recoveryPaths: demo.recovery_paths, ...over };
}

interface Sample {
  readonly name: string;
  readonly labels: Record<string, string>;
  readonly value: number;
}

/** The samples of the text (label values here never hold quotes or backslashes). */
function samples(text: string): Sample[] {
  return text
    .split('\n')
    .filter((l) => l !== '' && !l.startsWith('#'))
    .map((line) => {
      const m = /^([a-z_]+)(?:\{(.*)\})? (\S+)$/.exec(line);
      assert.ok(m?.[1] !== undefined && m[3] !== undefined, `not a sample line: ${line}`);
      const labels = Object.fromEntries([...(m[2] ?? '').matchAll(/([a-z_]+)="([^"]*)"/g)].map((l) => [l[1] ?? '', l[2] ?? '']));
      return { name: m[1], labels, value: Number(m[3]) };
    });
}

/** The value of the one sample of `name` with exactly these labels besides server; fails when absent or doubled. */
function value(all: readonly Sample[], name: string, labels: Record<string, string> = {}, server = 'pg-main'): number {
  const want = { server, ...labels };
  const hits = all.filter((s) => s.name === name && JSON.stringify(Object.entries(s.labels).sort()) === JSON.stringify(Object.entries(want).sort()));
  assert.equal(hits.length, 1, `${name}${JSON.stringify(want)}: ${hits.length} samples`);
  return hits[0]?.value ?? Number.NaN;
}

const names = (all: readonly Sample[]) => new Set(all.map((s) => s.name));
const seconds = (ts: string) => Date.parse(ts) / 1000;

describe('renderOpenMetrics on the demo', () => {
  it('reads a valid fixture', () => {
    assert.deepEqual(wireViolations('RepositoryEvidenceSnapshot', demo.snapshot), []);
    assert.deepEqual(wireViolations('ArchiveBackupPage', page('ArchiveBackupPage', demo.backups)), []);
    assert.deepEqual(wireViolations('ArchiveWALRangePage', page('ArchiveWALRangePage', demo.wal_ranges)), []);
    assert.deepEqual(wireViolations('ArchiveWALGapPage', page('ArchiveWALGapPage', demo.wal_gaps)), []);
    assert.deepEqual(wireViolations('ArchiveRecoveryPathPage', page('ArchiveRecoveryPathPage', demo.recovery_paths)), []);
  });

  it('derives every series from the snapshot and the items', async () => {
    const text = await renderOpenMetrics([demoScope()]);
    assert.ok(text.endsWith('\n# EOF\n'));
    const all = samples(text);
    const s = demo.snapshot;
    const ac = s.details.archive_cloud;

    assert.equal(value(all, 'viewer_scan_success'), 1);
    assert.equal(value(all, 'viewer_scan_duration_seconds'), seconds(s.completed_at ?? '') - seconds(s.started_at ?? ''));
    for (const state of STATES) assert.equal(value(all, 'viewer_state', { state }), state === s.state ? 1 : 0);
    assert.equal(value(all, 'viewer_stale'), 0);
    assert.equal(value(all, 'viewer_publication_revision'), s.revision);
    assert.equal(value(all, 'viewer_evidence_generation'), s.evidence_generation);
    assert.equal(value(all, 'viewer_objects'), s.inventory.object_count);
    assert.equal(value(all, 'viewer_stored_bytes'), s.inventory.stored_bytes);

    for (const state of STATES) {
      const n = demo.backups.filter((b) => b.state === state).length;
      assert.equal(value(all, 'viewer_backups', { state }), n);
      assert.equal(n, ac.backup_states?.[state], 'the items and the snapshot agree');
    }
    assert.equal(value(all, 'viewer_structurally_usable_backups'), ac.structurally_usable_backups);
    // The state with its reason: one series each, the current one only, the code never the message.
    assert.deepEqual(all.filter((x) => x.name === 'viewer_state_reason').map((x) => [x.labels, x.value]), [[{ server: 'pg-main', state: s.state, reason: s.reason.code }, 1]]);
    const parts = all.filter((x) => x.name === 'viewer_part_state_reason');
    assert.deepEqual(
      parts.map((x) => [x.labels['part'], x.labels['state'], x.labels['reason'], x.value]),
      (['coverage', 'retention', 'timeline', 'wal'] as const).map((p) => [p, ac[p].state, ac[p].reason.code, 1]),
    );
    const notUsable = demo.backups.filter((b) => b.status === 'DONE' && (b.state === 'unhealthy' || b.state === 'unknown')).length;
    assert.equal(value(all, 'viewer_completed_backups_not_usable'), notUsable);
    const doneEnds = demo.backups.filter((b) => b.status === 'DONE' && b.end_at !== null).map((b) => seconds(b.end_at ?? ''));
    assert.ok(doneEnds.length > 0 && demo.backups.some((b) => b.status !== 'DONE'));
    assert.equal(value(all, 'viewer_newest_backup_end_timestamp_seconds'), Math.max(...doneEnds));

    for (const status of ['candidate', 'confirmed'] as const) {
      const gaps = demo.wal_gaps.filter((g) => g.status === status);
      assert.equal(value(all, 'viewer_wal_gaps', { status }), gaps.length);
      assert.equal(value(all, 'viewer_wal_missing_segments', { status }), gaps.reduce((n, g) => n + g.segment_count, 0));
    }
    assert.equal(value(all, 'viewer_newest_wal_receipt_timestamp_seconds'), seconds(ac.latest_archive_receipt_at ?? ''));

    // Recovery paths: only those to the newest target timeline; the demo has paths to an older one too.
    const newest = Math.max(...demo.recovery_paths.map((p) => p.target_timeline));
    const current = demo.recovery_paths.filter((p) => p.target_timeline === newest);
    assert.ok(current.length > 0 && current.length < demo.recovery_paths.length);
    for (const p of current) {
      const labels = { backup_id: p.backup_id, timeline: String(newest) };
      assert.equal(value(all, 'viewer_recovery_coverage_timestamp_seconds', labels), seconds(p.frontier_receipt_at ?? ''));
      for (const state of STATES) assert.equal(value(all, 'viewer_recovery_path_state', { ...labels, state }), state === p.state ? 1 : 0);
      for (const stop of ['frontier', 'candidate-limited', 'gap-limited', 'unknown-limited']) assert.equal(value(all, 'viewer_recovery_path_stop', { ...labels, stop }), stop === p.stop ? 1 : 0);
    }
    const recovery = all.filter((x) => x.name.startsWith('viewer_recovery_'));
    // Per path a coverage, a state per state and a stop per stop; one coverage start for the scope.
    assert.equal(recovery.length, current.length * (1 + STATES.length + 4) + 1);
    assert.ok(recovery.every((x) => x.labels['timeline'] === String(newest)));

    // Observations were not given: their series are absent, never 0.
    for (const n of ['viewer_store_time_at_scan_timestamp_seconds', 'viewer_archive_lag_seconds', 'viewer_scan_attempt_duration_seconds', 'viewer_consumer_source_state', 'viewer_consumer_projection_age_seconds']) {
      assert.ok(!text.includes(n), `${n} is absent`);
    }
  });

  it('labels every series with the server and nothing but the allowed labels', async () => {
    const all = samples(await renderOpenMetrics([demoScope({ observations: { storeTimeAtScan: new Date(0), archiveLagSeconds: 1, scanDurationSeconds: 2 } })]));
    const allowed = new Set(['server', 'timeline', 'state', 'status', 'backup_id', 'stop', 'part', 'capability', 'reason', 'version', 'format', 'provider']);
    for (const x of all) {
      assert.equal(x.labels['server'], demo.snapshot.identity.repository.scope.name, x.name);
      for (const l of Object.keys(x.labels)) assert.ok(allowed.has(l), `${x.name} has label ${l}`);
      assert.match(x.name, /^viewer_[a-z_]+$/);
    }
  });

  it('prints no object key, file name, destination or fingerprint', async () => {
    const text = await renderOpenMetrics([demoScope({ observations: { storeTimeAtScan: new Date(0), archiveLagSeconds: 1, scanDurationSeconds: 2 } })]);
    const objects = await demoObjects();
    assert.ok(objects.length > 0);
    for (const o of objects) {
      assert.ok(!text.includes(o.key), o.key);
      const file = o.key.split('/').at(-1) ?? '';
      assert.ok(!text.includes(file), file);
    }
    for (const leak of [DEMO_BUCKET, `${DEMO_PREFIX}/`, DEMO_PREFIX, 's3://', demo.snapshot.identity.repository.destination_fingerprint, 'sha256:', demo.snapshot.identity.cluster.uid]) {
      assert.ok(!text.includes(leak), leak);
    }
  });

  it('gives the same bytes for the same evidence, whatever the order of scopes and items', async () => {
    const other: MetricScope = demoScope({
      snapshot: { ...demo.snapshot, identity: { ...demo.snapshot.identity, repository: { ...demo.snapshot.identity.repository, scope: { kind: 'archive-server', name: 'pg-aaa' } } } },
      backups: demo.backups.toReversed(),
      walGaps: demo.wal_gaps.toReversed(),
      recoveryPaths: demo.recovery_paths.toReversed(),
    });
    const a = await renderOpenMetrics([demoScope(), other]);
    const b = await renderOpenMetrics([other, demoScope()]);
    assert.equal(a, b);
    assert.equal(a, await renderOpenMetrics([demoScope(), other]));
    // Scopes in server order within every family, and both scopes' values alike.
    const all = samples(a);
    const order = all.filter((x) => x.name === 'viewer_objects').map((x) => x.labels['server']);
    assert.deepEqual(order, ['pg-aaa', 'pg-main']);
    for (const x of all.filter((y) => y.labels['server'] === 'pg-main')) assert.equal(value(all, x.name, { ...x.labels }, 'pg-aaa'), x.value);
    await assert.rejects(renderOpenMetrics([demoScope(), demoScope()]), /two metric scopes name the server pg-main/);
  });

  it('names the OpenMetrics content type and prints an empty exposition as only # EOF', async () => {
    assert.equal(OPENMETRICS_CONTENT_TYPE, 'application/openmetrics-text; version=1.0.0; charset=utf-8');
    assert.equal(await renderOpenMetrics([]), '# EOF\n');
  });
});

describe('viewer_build_info', () => {
  it('is 1 with the producer version the snapshot carries, its format and its provider, for each scope', async () => {
    const s = demo.snapshot;
    const all = samples(await renderOpenMetrics([demoScope()]));
    const info = all.filter((x) => x.name === 'viewer_build_info');
    assert.deepEqual(info, [{ name: 'viewer_build_info', labels: { server: 'pg-main', version: s.producer.version, format: s.identity.repository.format, provider: s.identity.repository.provider }, value: 1 }]);
    assert.match(s.producer.version, /^[0-9A-Za-z][0-9A-Za-z.+-]{0,63}$/);

    const stanza = samples(await renderOpenMetrics([{ snapshot: stanzaSnapshotComplete, backups: null, walRanges: null, walGaps: null, recoveryPaths: null }]));
    const r = stanzaSnapshotComplete.identity.repository;
    assert.equal(value(stanza, 'viewer_build_info', { version: stanzaSnapshotComplete.producer.version, format: 'stanza-repository', provider: r.provider }, r.scope.name), 1);
  });

  it('is there at generation 0 too, and keeps its label values bounded whatever a snapshot claims', async () => {
    const s = demo.snapshot;
    const odd = {
      ...s,
      evidence_generation: 0,
      producer: { ...s.producer, version: `1.0 ${'x'.repeat(200)}\n"` },
      identity: { ...s.identity, repository: { ...s.identity.repository, format: 'archive-cloud-v9', provider: 'store-z' } },
    } as unknown as RepositoryEvidenceSnapshot;
    const all = samples(await renderOpenMetrics([{ snapshot: odd, backups: null, walRanges: null, walGaps: null, recoveryPaths: null }]));
    assert.equal(value(all, 'viewer_build_info', { version: 'unknown', format: 'unknown', provider: 'unknown' }), 1);
    const long = { ...s, producer: { ...s.producer, version: '1'.repeat(65) } };
    assert.equal(value(samples(await renderOpenMetrics([demoScope({ snapshot: long })])), 'viewer_build_info', { version: 'unknown', format: s.identity.repository.format, provider: s.identity.repository.provider }), 1);
  });
});

describe('target labels (METRICS_LABELS)', () => {
  const target = [['namespace', 'db'], ['cluster', 'main'], ['env', 'prod']] as const;
  const observations = { storeTimeAtScan: new Date(0), archiveLagSeconds: 1, scanDurationSeconds: 2, expectedMaxArchiveLagSeconds: 3600, gapClasses: demo.wal_gaps.map(() => 'unexplained') };

  it('are on every sample of every family, the consumer\'s included, and change nothing else', async () => {
    const plain = await renderOpenMetrics([demoScope({ observations })], { consumer: { server: 'pg-main', sourceState: 'available', projectionAgeSeconds: 1 } });
    const text = await renderOpenMetrics([demoScope({ observations })], { consumer: { server: 'pg-main', sourceState: 'available', projectionAgeSeconds: 1 }, labels: target });
    const all = samples(text);
    const without = samples(plain);
    assert.equal(all.length, without.length);
    assert.ok(names(all).size >= 25, 'every family is there');
    for (const x of all) for (const [name, v] of target) assert.equal(x.labels[name], v, `${x.name} carries ${name}`);
    const strip = (x: Sample) => ({ ...x, labels: Object.fromEntries(Object.entries(x.labels).filter(([k]) => !target.some(([n]) => n === k))) });
    assert.deepEqual(all.map(strip), without);
    assert.match(text, /^viewer_objects\{server="pg-main",namespace="db",cluster="main",env="prod"\} \d+$/m);
  });

  it('are escaped as OpenMetrics label values', async () => {
    const text = await renderOpenMetrics([demoScope()], { labels: [['team', 'a"b\\c']] });
    assert.match(text, /^viewer_objects\{server="pg-main",team="a\\"b\\\\c"\} \d+$/m);
  });

  /**
   * A label this module prints that the configuration (src/cli/config/config.ts, another owner's
   * file) does not reserve yet: until it does, `METRICS_LABELS` with that name passes the
   * configuration and this module refuses it at render. Removed from here once reserved (the
   * test fails while a pending name is reserved already). None pending now.
   */
  const PENDING_RESERVATION: ReadonlySet<string> = new Set<string>();

  it('never take a name the module prints itself: the configuration reserves every one', async () => {
    for (const own of OWN_LABELS) if (!PENDING_RESERVATION.has(own)) assert.ok(RESERVED_METRIC_LABELS.has(own), `${own} is reserved in the configuration`);
    for (const pending of PENDING_RESERVATION) {
      assert.ok(OWN_LABELS.has(pending) && !RESERVED_METRIC_LABELS.has(pending), `${pending}: reserved now, or no longer the module's; remove it from PENDING_RESERVATION`);
      await assert.rejects(renderOpenMetrics([demoScope()], { labels: [[pending, 'x']] }), /target labels/);
    }
    for (const own of ['server', 'state', 'reason', 'backup_id', 'version']) await assert.rejects(renderOpenMetrics([demoScope()], { labels: [[own, 'x']] }), /target labels/);
    await assert.rejects(renderOpenMetrics([demoScope()], { labels: [['env', 'a'], ['env', 'b']] }), /target labels/);
  });
});

describe('scope labels (a fleet in one exposition)', () => {
  const named = (name: string) => ({ ...demo.snapshot, identity: { ...demo.snapshot.identity, repository: { ...demo.snapshot.identity.repository, scope: { kind: 'archive-server' as const, name } } } });
  const fleetScope = (labels: readonly (readonly [string, string])[], server = 'pg-main', over: Partial<MetricScope> = {}): MetricScope => demoScope({ snapshot: named(server), labels, ...over });
  const scopeLabels = (x: Sample) => Object.entries(x.labels).filter(([k]) => !['server', ...OWN_LABELS].includes(k));
  const strip = (x: Sample, drop: readonly string[]) => ({ ...x, labels: Object.fromEntries(Object.entries(x.labels).filter(([k]) => !drop.includes(k))) });

  it('tell two repositories\' same-named servers apart, each sample carrying its own scope\'s labels', async () => {
    const single = samples(await renderOpenMetrics([demoScope()]));
    const a = fleetScope([['repository', 'prod-a'], ['env', 'prod']]);
    const b = fleetScope([['repository', 'prod-b'], ['env', 'prod']], 'pg-main', { backups: demo.backups.slice(1) });
    const all = samples(await renderOpenMetrics([b, a]));
    for (const repository of ['prod-a', 'prod-b']) {
      const mine = all.filter((x) => x.labels['repository'] === repository);
      assert.ok(mine.length > 0 && mine.every((x) => x.labels['env'] === 'prod' && x.labels['server'] === 'pg-main'), repository);
    }
    assert.equal(all.filter((x) => x.labels['repository'] === undefined).length, 0);
    // Each scope's series are its own evidence: prod-a's are the single scope's exactly.
    assert.deepEqual(all.filter((x) => x.labels['repository'] === 'prod-a').map((x) => strip(x, ['repository', 'env'])), single);
    assert.equal(value(all, 'viewer_backups', { repository: 'prod-b', env: 'prod', state: 'healthy' }), demo.backups.slice(1).filter((x) => x.state === 'healthy').length);
    assert.notDeepEqual(all.filter((x) => x.labels['repository'] === 'prod-b').map((x) => strip(x, ['repository', 'env'])), single);
  });

  it('print the scope labels after server and before the process-wide ones, and leave off one a scope lacks', async () => {
    const text = await renderOpenMetrics([fleetScope([['repository', 'b'], ['env', 'prod']]), fleetScope([['repository', 'a']])], { labels: [['team', 'dba']] });
    assert.match(text, /^viewer_objects\{server="pg-main",repository="a",team="dba"\} \d+$/m);
    assert.match(text, /^viewer_objects\{server="pg-main",repository="b",env="prod",team="dba"\} \d+$/m);
    assert.match(text, /^viewer_state_reason\{server="pg-main",repository="b",env="prod",team="dba",state="[a-z]+",reason="[a-z0-9-]+"\} 1$/m);
    assert.ok(!text.includes('env=""'), 'a missing label is absent, never empty');
  });

  it('order the scopes by their scope-label values, then by server, whatever order they come in', async () => {
    const scopes = [
      fleetScope([['repository', 'b']], 'pg-aaa'),
      fleetScope([['repository', 'a']], 'pg-zzz'),
      fleetScope([['env', 'dev'], ['repository', 'a']], 'pg-main'),
      fleetScope([], 'pg-main'),
      fleetScope([['repository', 'a']], 'pg-main'),
    ];
    const text = await renderOpenMetrics(scopes);
    for (const order of [scopes.toReversed(), [scopes[2], scopes[0], scopes[4], scopes[1], scopes[3]]]) assert.equal(await renderOpenMetrics(order.filter((x) => x !== undefined)), text);
    const objects = samples(text).filter((x) => x.name === 'viewer_objects').map((x) => [...scopeLabels(x).map(([k, v]) => `${k}=${v}`), x.labels['server']].join(' '));
    // Names by their earliest position (repository 0, env 0: byte order, env first), then values, then server.
    assert.deepEqual(objects, ['pg-main', 'repository=a pg-main', 'repository=a pg-zzz', 'repository=b pg-aaa', 'env=dev repository=a pg-main']);
    assert.match(text, /^viewer_objects\{server="pg-main",env="dev",repository="a"\} \d+$/m);
  });

  it('refuse two scopes of one server and the same labels, and names that collide', async () => {
    await assert.rejects(renderOpenMetrics([fleetScope([['repository', 'a']]), fleetScope([['repository', 'a']])]), /two metric scopes name the server pg-main with the same scope labels/);
    await assert.rejects(renderOpenMetrics([fleetScope([]), demoScope()]), /two metric scopes name the server pg-main/);
    for (const own of ['server', 'state', 'reason', 'backup_id', 'part']) await assert.rejects(renderOpenMetrics([fleetScope([[own, 'x']])]), /one of the metrics module's own or of the target labels/, own);
    await assert.rejects(renderOpenMetrics([fleetScope([['env', 'x']])], { labels: [['env', 'y']] }), /one of the metrics module's own or of the target labels/);
    await assert.rejects(renderOpenMetrics([fleetScope([['env', 'x'], ['env', 'y']])]), /labels must be distinct/);
    for (const bad of ['__name', '1env', 'e-nv', '']) await assert.rejects(renderOpenMetrics([fleetScope([[bad, 'x']])]), /not a Prometheus label name/, bad);
    await assert.rejects(renderOpenMetrics([fleetScope([['env', '']])]), /empty value/);
    // The same labels on another server, or another value on the same server, are distinct scopes.
    assert.equal(samples(await renderOpenMetrics([fleetScope([['repository', 'a']]), fleetScope([['repository', 'a']], 'pg-aaa'), fleetScope([['repository', 'b']])])).filter((x) => x.name === 'viewer_objects').length, 3);
  });

  it('keep repository free for them: not a label of the module, reserved from METRICS_LABELS', () => {
    assert.ok(!OWN_LABELS.has('repository'));
    assert.ok(RESERVED_METRIC_LABELS.has('repository'));
  });
});

describe('viewer_recovery_coverage_start_timestamp_seconds', () => {
  const START = 'viewer_recovery_coverage_start_timestamp_seconds';
  const path0 = demo.recovery_paths[0];
  const backup0 = demo.backups[0];
  assert.ok(path0 !== undefined && backup0 !== undefined);
  const path = (backup_id: string, target_timeline: number, stop: RecoveryPathItem['stop'], lower_bound_at: string | null): RecoveryPathItem => ({ ...path0, backup_id, target_timeline, stop, lower_bound_at });
  const backup = (backup_id: string, state: (typeof STATES)[number], end_at: string) => ({ ...backup0, backup_id, status: 'DONE', state, end_at }) as BackupItem;
  const starts = (all: readonly Sample[]) => all.filter((x) => x.name === START).map((x) => [x.labels['timeline'], x.value]);

  it('is the end of the earliest usable backup whose path reaches the newest timeline\'s frontier, on the demo', async () => {
    // Derived here from the backups' own end times, not from the paths' lower bounds.
    const newest = Math.max(...demo.recovery_paths.map((p) => p.target_timeline));
    const usable = new Set(demo.backups.filter((b) => b.state === 'healthy' || b.state === 'warning').map((b) => b.backup_id));
    const reaching = demo.recovery_paths.filter((p) => p.target_timeline === newest && p.stop === 'frontier' && usable.has(p.backup_id)).map((p) => p.backup_id);
    const ends = demo.backups.filter((b) => reaching.includes(b.backup_id)).map((b) => seconds(b.end_at ?? ''));
    assert.ok(ends.length > 0, 'the demo has a usable backup reaching the frontier');
    // The older usable backups' paths stop at gaps: the window starts at the newest backup, not the oldest.
    assert.ok(Math.min(...demo.backups.filter((b) => usable.has(b.backup_id) && b.end_at !== null).map((b) => seconds(b.end_at ?? ''))) < Math.min(...ends));
    assert.deepEqual(starts(samples(await renderOpenMetrics([demoScope()]))), [[String(newest), Math.min(...ends)]]);
  });

  it('counts only frontier paths to the newest timeline from usable backups, with an observed consistency point', async () => {
    const backups = [backup('a', 'healthy', '2026-11-20T01:00:00Z'), backup('b', 'warning', '2026-11-20T02:00:00Z'), backup('c', 'unhealthy', '2026-11-20T00:30:00Z'), backup('d', 'unknown', '2026-11-20T00:40:00Z'), backup('e', 'healthy', '2026-11-20T00:10:00Z'), backup('f', 'healthy', '2026-11-20T00:05:00Z')];
    const paths = [
      path('a', 3, 'frontier', '2026-11-20T01:00:00Z'),
      path('b', 3, 'frontier', '2026-11-20T02:00:00Z'),
      path('c', 3, 'frontier', '2026-11-20T00:30:00Z'), // backup not usable
      path('d', 3, 'frontier', '2026-11-20T00:40:00Z'), // backup usability unknown
      path('e', 3, 'gap-limited', '2026-11-20T00:10:00Z'), // stops before the frontier
      path('e', 2, 'frontier', '2026-11-20T00:10:00Z'), // an older timeline
      path('f', 3, 'frontier', null), // consistency not observed
      path('x', 3, 'frontier', '2026-11-20T00:01:00Z'), // no such backup item
    ];
    assert.deepEqual(starts(samples(await renderOpenMetrics([demoScope({ backups, recoveryPaths: paths })]))), [['3', seconds('2026-11-20T01:00:00Z')]]);
    const warnedOnly = paths.filter((p) => p.backup_id !== 'a');
    assert.deepEqual(starts(samples(await renderOpenMetrics([demoScope({ backups, recoveryPaths: warnedOnly })]))), [['3', seconds('2026-11-20T02:00:00Z')]], 'a warning backup is usable');
  });

  it('is absent when unknown or when no usable backup reaches the frontier, never 0', async () => {
    const backups = [backup('a', 'healthy', '2026-11-20T01:00:00Z')];
    const none = async (over: Partial<MetricScope>) => names(samples(await renderOpenMetrics([demoScope(over)]))).has(START);
    assert.equal(await none({ backups, recoveryPaths: [path('a', 1, 'frontier', '2026-11-20T01:00:00Z')] }), true, 'the control case is present');
    assert.equal(await none({ backups: null }), false, 'backups unknown');
    assert.equal(await none({ recoveryPaths: null }), false, 'paths unknown');
    assert.equal(await none({ backups, recoveryPaths: [] }), false, 'no path');
    assert.equal(await none({ backups, recoveryPaths: [path('a', 1, 'candidate-limited', '2026-11-20T01:00:00Z')] }), false, 'no frontier path');
    assert.equal(await none({ backups, recoveryPaths: [path('a', 2, 'gap-limited', '2026-11-20T01:00:00Z'), path('a', 1, 'frontier', '2026-11-20T01:00:00Z')] }), false, 'only an older timeline reached');
    assert.equal(await none({ snapshot: { ...demo.snapshot, evidence_generation: 0 } }), false, 'generation 0');
  });
});

describe('viewer_backup_state', () => {
  it('is 1 for each backup with its status and state, an unreadable status unknown, absent when the backups are unknown', async () => {
    const all = samples(await renderOpenMetrics([demoScope()]));
    const rows = all.filter((x) => x.name === 'viewer_backup_state');
    assert.deepEqual(
      rows.map((x) => [x.labels['backup_id'], x.labels['status'], x.labels['state'], x.value]).sort(),
      demo.backups.map((b) => [b.backup_id, b.status ?? 'unknown', b.state, 1]).sort(),
    );
    assert.ok(demo.backups.some((b) => b.status === 'FAILED') && demo.backups.some((b) => b.status === null), 'the demo has a failed and an unreadable backup');
    assert.ok(!names(samples(await renderOpenMetrics([demoScope({ backups: null })]))).has('viewer_backup_state'));
  });
});

describe('viewer_capability_state', () => {
  it('is 1 for each capability of the snapshot with its state and reason code, nothing else', async () => {
    const s = demo.snapshot;
    const all = samples(await renderOpenMetrics([demoScope()]));
    const caps = all.filter((x) => x.name === 'viewer_capability_state');
    assert.deepEqual(
      caps.map((x) => [x.labels, x.value]),
      s.capabilities.map((c) => [{ server: 'pg-main', capability: c.id, state: c.state, reason: c.reason.code }, 1]),
    );
    assert.equal(caps.length, CAPABILITY_IDS.length);
    // The demo's catalog warns (an abandoned backup directory): the series says so.
    assert.equal(value(all, 'viewer_capability_state', { capability: 'catalog-listing', state: 'warning', reason: 'catalog-incomplete' }), 1);
  });

  it('is there at generation 0 too, keeps its labels in closed sets and never prints a message', async () => {
    const s = demo.snapshot;
    const odd = {
      ...s,
      evidence_generation: 0,
      capabilities: s.capabilities.map((c, i) => (i === 0 ? { ...c, id: 'teleportation', state: 'dazed', reason: { code: 'x-y', message: 'do not print me' } } : c)),
    } as unknown as RepositoryEvidenceSnapshot;
    const text = await renderOpenMetrics([{ snapshot: odd, backups: null, walRanges: null, walGaps: null, recoveryPaths: null }]);
    assert.equal(value(samples(text), 'viewer_capability_state', { capability: 'unknown', state: 'unknown', reason: 'x-y' }), 1);
    assert.ok(!text.includes('teleportation') && !text.includes('dazed') && !text.includes('do not print me'));
  });
});

describe('the state reasons and the completed backups not usable', () => {
  it('counts only completed backups that are unhealthy or unknown, never FAILED or interrupted ones', async () => {
    const base = demo.backups[0];
    assert.ok(base !== undefined);
    const b = (backup_id: string, status: string | null, state: (typeof STATES)[number]) => ({ ...base, backup_id, status, state }) as BackupItem;
    const backups = [b('a', 'DONE', 'healthy'), b('b', 'DONE', 'warning'), b('c', 'DONE', 'unhealthy'), b('d', 'DONE', 'unknown'), b('e', 'FAILED', 'unhealthy'), b('f', 'INTERRUPTED', 'unknown'), b('g', null, 'unknown')];
    const all = samples(await renderOpenMetrics([demoScope({ backups })]));
    assert.equal(value(all, 'viewer_completed_backups_not_usable'), 2);
    assert.equal(value(all, 'viewer_completed_backups_not_usable'), 2);
    const none = samples(await renderOpenMetrics([demoScope({ backups: [b('e', 'FAILED', 'unhealthy')] })]));
    assert.equal(value(none, 'viewer_completed_backups_not_usable'), 0, 'a known collection without one is 0');
    assert.ok(!names(samples(await renderOpenMetrics([demoScope({ backups: null })]))).has('viewer_completed_backups_not_usable'), 'unknown backups: absent');
  });

  it('publishes the reason code of the scope and of each part, and the parts only with a known payload', async () => {
    const s = demo.snapshot;
    const ac = s.details.archive_cloud;
    const warned = { ...s, state: 'warning' as const, reason: { code: 'wal-gap-candidate', message: 'a message that must not be printed' }, details: { ...s.details, archive_cloud: { ...ac, wal: { state: 'warning' as const, reason: { code: 'wal-gap-candidate', message: 'x' } } } } };
    const text = await renderOpenMetrics([demoScope({ snapshot: warned })]);
    const all = samples(text);
    assert.equal(value(all, 'viewer_state_reason', { state: 'warning', reason: 'wal-gap-candidate' }), 1);
    assert.equal(value(all, 'viewer_part_state_reason', { part: 'wal', state: 'warning', reason: 'wal-gap-candidate' }), 1);
    assert.ok(!text.includes('must not be printed'));
    const envelope = Object.fromEntries(Object.entries(s).filter(([k]) => k !== 'details')) as Omit<RepositoryEvidenceSnapshot, 'details'>;
    const bare = samples(await renderOpenMetrics([demoScope({ snapshot: envelope })]));
    assert.ok(!names(bare).has('viewer_part_state_reason'));
    assert.equal(value(bare, 'viewer_state_reason', { state: s.state, reason: s.reason.code }), 1);
  });
});

describe('renderOpenMetrics on unknown evidence', () => {
  const COLLECTION_SERIES = [
    'viewer_completed_backups_not_usable',
    'viewer_backups',
    'viewer_newest_backup_end_timestamp_seconds',
    'viewer_wal_gaps',
    'viewer_wal_missing_segments',
    'viewer_recovery_coverage_timestamp_seconds',
    'viewer_recovery_path_state',
    'viewer_recovery_path_stop',
  ];

  it('leaves out the series of a collection the caller does not know, and only those', async () => {
    const all = samples(await renderOpenMetrics([demoScope({ backups: null, walGaps: null, recoveryPaths: null, walRanges: null })]));
    for (const n of COLLECTION_SERIES) assert.ok(!names(all).has(n), n);
    // What the snapshot itself says stays.
    assert.equal(value(all, 'viewer_structurally_usable_backups'), demo.snapshot.details.archive_cloud.structurally_usable_backups);
    assert.equal(value(all, 'viewer_objects'), demo.snapshot.inventory.object_count);

    const noBackups = samples(await renderOpenMetrics([demoScope({ backups: null })]));
    assert.ok(!names(noBackups).has('viewer_backups') && !names(noBackups).has('viewer_newest_backup_end_timestamp_seconds'));
    assert.ok(names(noBackups).has('viewer_wal_gaps') && names(noBackups).has('viewer_recovery_path_state'));
  });

  it('prints all four backup states and both gap statuses as 0 when the collections are known and empty', async () => {
    const all = samples(await renderOpenMetrics([demoScope({ backups: [], walGaps: [], recoveryPaths: [] })]));
    for (const state of STATES) assert.equal(value(all, 'viewer_backups', { state }), 0);
    for (const status of ['candidate', 'confirmed']) {
      assert.equal(value(all, 'viewer_wal_gaps', { status }), 0);
      assert.equal(value(all, 'viewer_wal_missing_segments', { status }), 0);
    }
    // No completed backup and no path: nothing to report, not a time of 0.
    for (const n of ['viewer_newest_backup_end_timestamp_seconds', 'viewer_recovery_coverage_timestamp_seconds', 'viewer_recovery_path_state']) assert.ok(!names(all).has(n), n);
  });

  it('leaves out what the details payload says when the caller does not know the payload', async () => {
    const envelope: Omit<RepositoryEvidenceSnapshot, 'details'> = Object.fromEntries(Object.entries(demo.snapshot).filter(([k]) => k !== 'details')) as Omit<RepositoryEvidenceSnapshot, 'details'>;
    assert.ok(!('details' in envelope));
    const all = samples(await renderOpenMetrics([demoScope({ snapshot: envelope })]));
    assert.ok(!names(all).has('viewer_structurally_usable_backups'));
    assert.ok(!names(all).has('viewer_newest_wal_receipt_timestamp_seconds'));
    assert.equal(value(all, 'viewer_backups', { state: 'healthy' }), demo.backups.filter((b) => b.state === 'healthy').length);
  });

  it('reads the common summary of a stanza-repository payload as of any other, and nothing of an unknown type', async () => {
    const s = stanzaSnapshotComplete;
    const scope = { snapshot: s, backups: stanzaBackupPage.items, walRanges: [], walGaps: [], recoveryPaths: [] };
    const all = samples(await renderOpenMetrics([scope]));
    assert.equal(value(all, 'viewer_structurally_usable_backups', {}, 'main'), s.details.stanza_repository.structurally_usable_backups);
    assert.equal(value(all, 'viewer_newest_wal_receipt_timestamp_seconds', {}, 'main'), seconds(s.details.stanza_repository.latest_archive_receipt_at ?? ''));
    // A listed pgBackRest backup is DONE; the interrupted one is not the newest completed backup.
    const done = stanzaBackupPage.items.filter((b) => b.status === 'DONE').map((b) => seconds(b.end_at ?? ''));
    assert.equal(value(all, 'viewer_newest_backup_end_timestamp_seconds', {}, 'main'), Math.max(...done));
    const foreign = { ...s, details: { type: 'stanza-repository/v2' } as unknown as Details };
    const none = samples(await renderOpenMetrics([{ ...scope, snapshot: foreign }]));
    assert.ok(!names(none).has('viewer_structurally_usable_backups') && !names(none).has('viewer_newest_wal_receipt_timestamp_seconds'));
  });

  it('leaves out a null count or timestamp and a path without a frontier receipt', async () => {
    const s = demo.snapshot;
    const newest = Math.max(...demo.recovery_paths.map((p) => p.target_timeline));
    const paths = demo.recovery_paths.map((p) => (p.target_timeline === newest && p.stop === 'frontier' ? { ...p, frontier_receipt_at: null } : p));
    const all = samples(
      await renderOpenMetrics([
        demoScope({
          snapshot: { ...s, details: { ...s.details, archive_cloud: { ...s.details.archive_cloud, latest_archive_receipt_at: null, structurally_usable_backups: null } } },
          recoveryPaths: paths,
        }),
      ]),
    );
    assert.ok(!names(all).has('viewer_newest_wal_receipt_timestamp_seconds'));
    assert.ok(!names(all).has('viewer_structurally_usable_backups'));
    const blank = paths.find((p) => p.target_timeline === newest && p.frontier_receipt_at === null);
    assert.ok(blank !== undefined);
    assert.ok(!all.some((x) => x.name === 'viewer_recovery_coverage_timestamp_seconds' && x.labels['backup_id'] === blank.backup_id));
    assert.equal(value(all, 'viewer_recovery_path_state', { backup_id: blank.backup_id, timeline: String(newest), state: blank.state }), 1);
  });

  it('knows nothing of a generation 0 but its state, revision and the failed attempt', async () => {
    const s = demo.snapshot;
    const gen0: RepositoryEvidenceSnapshot = {
      ...s,
      evidence_generation: 0,
      started_at: null,
      completed_at: null,
      completeness: 'incomplete',
      stale: true,
      state: 'unknown',
      inventory: { ...s.inventory, known: false, object_count: null, stored_bytes: null, unscoped_object_count: null, last_failure_category: 'timeout' },
      details: {
        ...s.details,
        archive_cloud: {
          ...s.details.archive_cloud,
          backup_items: null,
          wal_range_items: null,
          wal_gap_items: null,
          recovery_path_items: null,
          structurally_usable_backups: null,
          backup_states: null,
          wal_counts: null,
          latest_archive_receipt_at: null,
        },
      },
    };
    // The arrays a publisher keeps at generation 0 are empty, which must not read as "no backups".
    const all = samples(await renderOpenMetrics([{ snapshot: gen0, backups: [], walRanges: [], walGaps: [], recoveryPaths: [] }]));
    for (const n of [...COLLECTION_SERIES, 'viewer_objects', 'viewer_stored_bytes', 'viewer_scan_duration_seconds', 'viewer_structurally_usable_backups', 'viewer_newest_wal_receipt_timestamp_seconds']) {
      assert.ok(!names(all).has(n), n);
    }
    assert.equal(value(all, 'viewer_scan_success'), 0);
    assert.equal(value(all, 'viewer_state', { state: 'unknown' }), 1);
    assert.equal(value(all, 'viewer_stale'), 1);
    assert.equal(value(all, 'viewer_evidence_generation'), 0);

    const never = samples(await renderOpenMetrics([{ snapshot: { ...gen0, last_attempt_at: null, inventory: { ...gen0.inventory, last_failure_category: null } }, backups: null, walRanges: null, walGaps: null, recoveryPaths: null }]));
    assert.ok(!names(never).has('viewer_scan_success'), 'no attempt yet: neither success nor failure');
  });

  it('prints the observations exactly when given, and leaves out the null ones', async () => {
    const at = new Date('2026-11-20T06:00:02.250Z');
    const all = samples(await renderOpenMetrics([demoScope({ observations: { storeTimeAtScan: at, archiveLagSeconds: 2762.5, scanDurationSeconds: 0.75 } })]));
    assert.equal(value(all, 'viewer_store_time_at_scan_timestamp_seconds'), at.getTime() / 1000);
    assert.equal(value(all, 'viewer_archive_lag_seconds'), 2762.5);
    assert.equal(value(all, 'viewer_scan_attempt_duration_seconds'), 0.75);
    const none = samples(await renderOpenMetrics([demoScope({ observations: { storeTimeAtScan: null, archiveLagSeconds: null } })]));
    for (const n of ['viewer_store_time_at_scan_timestamp_seconds', 'viewer_archive_lag_seconds', 'viewer_scan_attempt_duration_seconds']) assert.ok(!names(none).has(n), n);
  });

  it('counts the gaps retention does not explain only where the gap classes are given, aligned with the gaps', async () => {
    const classes = (demo.observations?.wal_gap_classes ?? []).map((c) => c.class);
    assert.equal(classes.length, demo.wal_gaps.length);
    const expected = (status: string) => demo.wal_gaps.filter((g, i) => g.status === status && classes[i] !== 'retention-expected').length;
    const all = samples(await renderOpenMetrics([demoScope({ observations: { storeTimeAtScan: null, archiveLagSeconds: null, gapClasses: classes } })]));
    for (const status of ['candidate', 'confirmed']) assert.equal(value(all, 'viewer_wal_gaps_unexplained', { status }), expected(status));
    assert.ok(classes.includes('retention-expected') && value(all, 'viewer_wal_gaps_unexplained', { status: 'confirmed' }) + value(all, 'viewer_wal_gaps_unexplained', { status: 'candidate' }) < demo.wal_gaps.length, 'the demo\'s retention hole is left out');
    const without = samples(await renderOpenMetrics([demoScope({ observations: { storeTimeAtScan: null, archiveLagSeconds: null } })]));
    assert.ok(!names(without).has('viewer_wal_gaps_unexplained'), 'no classes: absent, never every gap');
    const misaligned = samples(await renderOpenMetrics([demoScope({ observations: { storeTimeAtScan: null, archiveLagSeconds: null, gapClasses: classes.slice(1) } })]));
    assert.ok(!names(misaligned).has('viewer_wal_gaps_unexplained'), 'classes that do not match the gaps one to one are not used');
  });

  it('keeps every fractional digit of a wire timestamp', async () => {
    const s = demo.snapshot;
    const text = await renderOpenMetrics([
      demoScope({
        snapshot: { ...s, started_at: '2026-11-20T06:00:00.100000001Z', completed_at: '2026-11-20T06:00:01.3Z', details: { ...s.details, archive_cloud: { ...s.details.archive_cloud, latest_archive_receipt_at: '2026-11-20T05:16:00.123456789Z' } } },
      }),
    ]);
    const receipt = value(samples(text), 'viewer_newest_wal_receipt_timestamp_seconds');
    assert.equal(receipt, Number('1795151760.123456789'));
    assert.notEqual(receipt, Date.parse('2026-11-20T05:16:00.123456789Z') / 1000, 'more than a Date keeps');
    assert.match(text, /^viewer_scan_duration_seconds\{server="pg-main"\} 1\.199999999$/m);
  });
});

describe('the consumer series', () => {
  it('are one-hot over the source states, with the projection age when there is one', async () => {
    for (const sourceState of CONSUMER_SOURCE_STATES) {
      const all = samples(await renderOpenMetrics([demoScope()], { consumer: { server: 'pg-main', sourceState, projectionAgeSeconds: 12.5 } }));
      for (const state of CONSUMER_SOURCE_STATES) assert.equal(value(all, 'viewer_consumer_source_state', { state }), state === sourceState ? 1 : 0);
      assert.equal(value(all, 'viewer_consumer_projection_age_seconds'), 12.5);
    }
  });

  it('leave out the age without a projection and the server label when the consumer knows no server', async () => {
    const text = await renderOpenMetrics([], { consumer: { server: null, sourceState: 'unavailable', projectionAgeSeconds: null } });
    assert.equal(
      text,
      [
        '# HELP viewer_consumer_source_state The state of the consumer source: 1 for the current state, 0 for the others.',
        '# TYPE viewer_consumer_source_state gauge',
        'viewer_consumer_source_state{state="available"} 0',
        'viewer_consumer_source_state{state="unavailable"} 1',
        'viewer_consumer_source_state{state="unknown"} 0',
        '# EOF',
        '',
      ].join('\n'),
    );
  });
});
