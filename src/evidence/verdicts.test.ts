/**
 * Summaries agree with the collections they summarise (issue 13), on synthetic repositories laid
 * out as Barman writes them: the retention-hole shape and everything just off it, broken older
 * backups, empty scopes, sizes that no valid object has, artifacts of unvalidated backups,
 * another format at the scope, keys that must not be echoed. Every publication is checked by the
 * wire validator and by `agrees`, the principle itself: no summary healthier than its items.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { State } from '../contract/primitives.ts';
import { SyntheticRepository } from '../format/barman-cloud/synthetic-repository.ts';
import type { Publication, Publisher } from '../publication/publisher.ts';
import { confine } from '../store/confined.ts';
import { MemoryStore } from '../store/memory/memory-driver.ts';
import { BudgetMeter } from './listing.ts';
import { scanScope, type ScopeEvidence } from './scope-scan.ts';
import { freshMemory } from './memory.ts';
import { archiveCloud } from '../format/barman-cloud/format.ts';
import { requireCommonSummary } from '../contract/details-view.ts';
import { DB_CLUSTER, testPublisher } from '../../test/support/publication-fixture.ts';

const ROOT = 'pg/srv/';
const T0 = Date.parse('2026-11-21T10:00:00Z');
const at = (minutes: number) => new Date(T0 + minutes * 60_000);
const SEVERITY: Record<State, number> = { healthy: 0, warning: 1, unknown: 2, unhealthy: 3 };

const scanOf = (store: MemoryStore, next: Publisher['nextScan'] = { previous: freshMemory({ fingerprint: `sha256:${'1'.repeat(64)}`, format: 'archive-cloud', server: 'srv' }) }): Promise<ScopeEvidence> =>
  scanScope({ format: archiveCloud, server: 'srv', root: ROOT, driver: confine(store, ROOT), signal: new AbortController().signal, meter: new BudgetMeter({ maxPages: 1e4, maxObjects: 1e7 }), concurrency: 2, ...next });

/** The rules every publication must keep, whatever the repository. */
function agrees(e: ScopeEvidence, p: Publication): void {
  assert.deepEqual(p.violations, []);
  const ac = requireCommonSummary(p.snapshot.details);
  const capability = (id: string) => p.snapshot.capabilities.find((c) => c.id === id)?.state ?? 'unknown';
  if (e.gapClasses.some((c) => c === 'unexplained')) assert.notEqual(ac.wal.state, 'healthy', 'a gap retention does not explain beside healthy WAL');
  const worstCompleted = e.backups.filter((b) => b.completed).reduce((w, b) => Math.max(w, SEVERITY[b.item.state]), 0);
  assert.ok(SEVERITY[capability('structural-artifact-validation')] >= worstCompleted, 'structural validation healthier than a completed backup');
  if (worstCompleted > 0) assert.notEqual(p.snapshot.state, 'healthy', 'a healthy top level beside a completed backup that is not');
  for (const path of p.recoveryPaths) if (path.state === 'healthy') assert.equal(path.stop, 'frontier', 'a healthy path that stops before the frontier');
  if (e.empty) for (const s of [p.snapshot.state, ac.wal.state, ac.timeline.state, ac.coverage.state, capability('catalog-listing'), capability('structural-artifact-validation')]) assert.notEqual(s, 'healthy');
}

const newPublisher = () => testPublisher({ identity: { cluster: DB_CLUSTER, fingerprint: `sha256:${'1'.repeat(64)}`, server: 'srv' }, freshnessMs: 900_000 });

function publish(e: ScopeEvidence): Publication {
  const p = newPublisher().complete(e, { startedAt: at(200), finishedAt: at(201), pages: 1, objects: e.objectCount });
  agrees(e, p);
  return p;
}

/** Successive complete generations of one store, each remembering the last as in production. */
function generations(store: MemoryStore) {
  const publisher = newPublisher();
  let minute = 300;
  return async () => {
    const e = await scanOf(store, publisher.nextScan);
    minute += 10;
    const p = publisher.complete(e, { startedAt: at(minute), finishedAt: at(minute + 1), pages: 1, objects: e.objectCount });
    agrees(e, p);
    const wal = requireCommonSummary(p.snapshot.details).wal;
    return { e, p, wal: [wal.state, wal.reason.code] as const };
  };
}

/** The key of an uncompressed timeline-1 segment of log 0, as the synthetic repository writes it. */
const segmentKey = (position: number) => `${ROOT}wals/0000000100000000/0000000100000000${position.toString(16).toUpperCase().padStart(8, '0')}`;

interface Shape {
  /** Segments present on timeline 1, as [from, to] runs. */
  readonly runs: readonly [number, number][];
  readonly backups: readonly { id: string; begin: number; end: number; minute: number; keep?: 'full' | 'standalone' }[];
  /** Minutes the archive runs on after its last segment (over 60: every gap confirmed). */
  readonly tailMinutes?: number;
}

async function build(shape: Shape) {
  const store = new MemoryStore();
  const repo = new SyntheticRepository(store, ROOT);
  for (const [from, to] of shape.runs) repo.segments(1, from, to, at(from));
  const last = Math.max(...shape.runs.map(([, to]) => to));
  if (shape.tailMinutes !== undefined) repo.segment(1, last + 1, at(last + shape.tailMinutes));
  for (const b of shape.backups) repo.backup({ id: b.id, timeline: 1, beginPosition: b.begin, endPosition: b.end, beginTime: at(b.minute), endTime: at(b.minute + 0.5), ...(b.keep === undefined ? {} : { keep: b.keep }) });
  const e = await scanOf(store);
  return { e, p: publish(e), store };
}

const path = (p: Publication, id: string) => p.recoveryPaths.filter((x) => x.backup_id === id).map((x) => [x.stop, x.state, x.reason.code]);

describe('holes Barman retention leaves', () => {
  // keep:standalone S holds 4..5; retention removed 6..9 up to the begin_wal of R (10).
  const S = { id: '20261121T100400', begin: 4, end: 5, minute: 4, keep: 'standalone' as const };
  const R = { id: '20261121T101000', begin: 10, end: 11, minute: 10 };

  it('exactly the retention shape is expected: WAL healthy, the standalone path a warning of its own, coverage from R', async () => {
    const { e, p } = await build({ runs: [[4, 5], [10, 20]], backups: [S, R], tailMinutes: 90 });
    assert.deepEqual(p.walGaps.map((g) => [g.first_wal, g.last_wal, g.status]), [['000000010000000000000006', '000000010000000000000009', 'confirmed']]);
    assert.deepEqual(e.gapClasses, ['retention-expected']);
    const ac = requireCommonSummary(p.snapshot.details);
    assert.deepEqual([ac.wal.state, ac.wal.reason.code], ['healthy', 'wal-continuous-except-retention']);
    assert.deepEqual(path(p, S.id), [['gap-limited', 'warning', 'standalone-retention-limited']]);
    assert.deepEqual(path(p, R.id), [['frontier', 'healthy', 'coverage-to-frontier']]);
    assert.deepEqual([ac.coverage.state, p.snapshot.state, p.snapshot.reason.code], ['healthy', 'healthy', 'evidence-healthy']);
  });

  it('a candidate hole of that shape is expected too', async () => {
    const { e, p } = await build({ runs: [[4, 5], [10, 20]], backups: [S, R] });
    assert.deepEqual([e.gapClasses, p.walGaps.map((g) => g.status)], [['retention-expected'], ['candidate']]);
    assert.equal(requireCommonSummary(p.snapshot.details).wal.state, 'healthy');
  });

  const offShape: [string, Shape][] = [
    ['one segment after the island survives', { runs: [[4, 6], [10, 20]], backups: [S, R], tailMinutes: 90 }],
    ['the hole ends before the next backup begins', { runs: [[4, 5], [9, 20]], backups: [S, R], tailMinutes: 90 }],
    ['a one-segment hole with WAL on both sides next to a standalone backup', { runs: [[4, 7], [9, 20]], backups: [S, R], tailMinutes: 90 }],
    ['WAL below the standalone backup survives, which the same retention pass would have deleted', { runs: [[1, 5], [10, 20]], backups: [S, R], tailMinutes: 90 }],
    ['the older backup is keep:full, not standalone', { runs: [[4, 5], [10, 20]], backups: [{ ...S, keep: 'full' }, R], tailMinutes: 90 }],
    ['the older backup has no keep annotation', { runs: [[4, 5], [10, 20]], backups: [{ id: S.id, begin: 4, end: 5, minute: 4 }, R], tailMinutes: 90 }],
    ['only standalone backups remain', { runs: [[4, 5], [10, 20]], backups: [S, { ...R, keep: 'standalone' }], tailMinutes: 90 }],
    ['no backup at all before the hole', { runs: [[4, 5], [10, 20]], backups: [{ ...R, id: '20261121T101500', begin: 15, end: 15, minute: 15 }], tailMinutes: 90 }],
  ];
  for (const [what, shape] of offShape) {
    it(`${what}: the hole is unexplained and WAL is unhealthy`, async () => {
      const { e, p } = await build(shape);
      assert.equal(e.gapClasses.length, 1);
      assert.deepEqual(e.gapClasses, ['unexplained']);
      const wal = requireCommonSummary(p.snapshot.details).wal;
      assert.deepEqual([wal.state, wal.reason.code], ['unhealthy', 'wal-gap-confirmed']);
      assert.notEqual(p.snapshot.state, 'healthy');
    });
  }

  it('a gap after the oldest regular backup is never expected', async () => {
    const { e, p } = await build({ runs: [[4, 5], [10, 12], [14, 20]], backups: [S, R], tailMinutes: 90 });
    assert.deepEqual(e.gapClasses, ['retention-expected', 'unexplained']);
    assert.equal(requireCommonSummary(p.snapshot.details).wal.reason.code, 'wal-gap-confirmed');
  });
});

describe('backups summarised', () => {
  const twoBackups = async (breakOlder: (store: MemoryStore) => void) => {
    const store = new MemoryStore();
    const repo = new SyntheticRepository(store, ROOT);
    repo.segments(1, 1, 20, at(0));
    repo.backup({ id: 'b1', timeline: 1, beginPosition: 3, endPosition: 4, beginTime: at(3), endTime: at(4) });
    repo.backup({ id: 'b2', timeline: 1, beginPosition: 10, endPosition: 11, beginTime: at(10), endTime: at(11) });
    breakOlder(store);
    const e = await scanOf(store);
    return publish(e);
  };
  const structural = (p: Publication) => p.snapshot.capabilities.find((c) => c.id === 'structural-artifact-validation');

  it('an older completed backup whose data archive is gone: structural validation unhealthy, top level a warning', async () => {
    const p = await twoBackups((s) => s.delete(`${ROOT}base/b1/data.tar`));
    assert.deepEqual(p.backups.map((b) => [b.backup_id, b.state, b.reason.code]), [['b1', 'unhealthy', 'data-archive-missing'], ['b2', 'healthy', 'structurally-usable']]);
    assert.deepEqual([structural(p)?.state, structural(p)?.reason.code], ['unhealthy', 'completed-backup-unhealthy']);
    assert.deepEqual([p.snapshot.state, p.snapshot.reason.code], ['warning', 'older-backup-not-usable']);
  });

  it('an older completed backup that cannot be judged: structural validation unknown, top level a warning', async () => {
    const p = await twoBackups((s) => s.put(`${ROOT}base/b1/backup.info`, 'status=DONE\nmode=incremental\n'));
    assert.equal(p.backups[0]?.state, 'unknown');
    // Its begin time is unknown too, so the message cannot call it older.
    assert.deepEqual([structural(p)?.state, p.snapshot.state, p.snapshot.reason.code], ['unknown', 'warning', 'completed-backup-not-usable']);
  });

  it('a completed backup carrying a warning: structural validation and the top level are warnings too', async () => {
    const p = await twoBackups((s) => s.put(`${ROOT}base/b2/notes.txt`, 'x'));
    assert.deepEqual([p.backups[1]?.state, structural(p)?.state, p.snapshot.state, p.snapshot.reason.code], ['warning', 'warning', 'warning', 'completed-backup-warning']);
    // Coverage reaches the frontier only from the backup with the warning: it says so.
    const cov = requireCommonSummary(p.snapshot.details).coverage;
    assert.deepEqual([cov.state, cov.reason.code], ['healthy', 'coverage-to-frontier']);
  });

  it('coverage from the frontier path of the healthier backup, whatever the order of paths', async () => {
    const p = await twoBackups((s) => s.put(`${ROOT}base/b1/annotations/keep`, 'forever'));
    assert.deepEqual([p.backups[0]?.state, p.backups[0]?.reason.code], ['warning', 'keep-annotation-unrecognized']);
    const cov = requireCommonSummary(p.snapshot.details).coverage;
    assert.deepEqual([cov.state, cov.reason.code], ['healthy', 'coverage-to-frontier']);
    const only = await twoBackups((s) => {
      s.put(`${ROOT}base/b1/notes.txt`, 'x');
      s.put(`${ROOT}base/b2/notes.txt`, 'x');
    });
    const c = requireCommonSummary(only.snapshot.details).coverage;
    assert.deepEqual([c.state, c.reason.code], ['warning', 'coverage-to-frontier-backup-warning']);
  });

  it('a completed backup whose begin time is unknown is not called older or newer', async () => {
    const p = await twoBackups((s) => s.put(`${ROOT}base/b2/backup.info`, 'status=DONE\nbegin_time=2026-11-21 10:10:00+00:00\nend_time=2026-11-21 10:05:00+00:00\n'));
    assert.equal(p.backups[1]?.begin_at, null);
    assert.deepEqual([p.snapshot.state, p.snapshot.reason.code], ['warning', 'completed-backup-not-usable']);
  });

  it('an archive smaller than any valid archive is not an archive', async () => {
    const p = await twoBackups((s) => s.put(`${ROOT}base/b1/data.tar`, Buffer.alloc(512)));
    assert.deepEqual([p.backups[0]?.state, p.backups[0]?.reason.code], ['unhealthy', 'archive-too-small']);
  });

  it('artifacts are counted only for backups whose metadata validated', async () => {
    const p = await twoBackups((s) => s.put(`${ROOT}base/b1/backup.info`, 'not a field list'));
    const [b1, b2] = p.backups;
    assert.deepEqual([b1?.stored_artifact_bytes, b1?.artifact_count, b1?.compression], [null, null, null]);
    assert.deepEqual([b2?.artifact_count, b2?.compression], [1, 'none']);
    assert.ok((b2?.stored_artifact_bytes ?? 0) > 0);
  });
});

describe('sizes are evidence', () => {
  const withSegment = async (position: number, suffix: string, bytes: Buffer) => {
    const store = new MemoryStore();
    const repo = new SyntheticRepository(store, ROOT);
    repo.segments(1, 1, 12, at(0), { missing: [position] });
    repo.segment(1, position, at(position), suffix, bytes);
    repo.backup({ id: 'b1', timeline: 1, beginPosition: 5, endPosition: 7, beginTime: at(5), endTime: at(7) });
    const e = await scanOf(store);
    return { e, p: publish(e) };
  };

  it('a 1-byte object in place of a required 16 MiB segment: unknown object, missing position, backup not usable', async () => {
    const { e, p } = await withSegment(6, '', Buffer.from('x'));
    assert.deepEqual([e.walCounts.segment, e.walCounts.unknown, e.implausibleSegments], [11, 1, 1]);
    assert.deepEqual(p.walGaps.map((g) => [g.first_wal, g.segment_count]), [['000000010000000000000006', 1]]);
    assert.deepEqual([p.backups[0]?.state, p.backups[0]?.reason.code], ['unknown', 'required-wal-candidate-gap']);
    assert.notEqual(p.snapshot.state, 'healthy');
  });

  it('a gzip segment below deflate\'s bound is not that segment; at the end of the archive WAL says so', async () => {
    const { e, p } = await withSegment(13, '.gz', Buffer.alloc(100));
    assert.deepEqual([e.walCounts.unknown, p.walGaps.length], [1, 0]);
    const wal = requireCommonSummary(p.snapshot.details).wal;
    assert.deepEqual([wal.state, wal.reason.code], ['warning', 'wal-segment-size-invalid']);
  });
});

describe('what a scope holds', () => {
  it('nothing at the location: counted exactly as zero, and no other field is healthy', async () => {
    const store = new MemoryStore();
    store.put('pg/other/wals/0000000100000000/000000010000000000000001', 'x');
    const e = await scanOf(store);
    const p = publish(e);
    assert.equal(e.empty, true);
    assert.deepEqual([p.snapshot.inventory.known, p.snapshot.inventory.object_count, p.snapshot.inventory.stored_bytes], [true, 0, 0]);
    assert.deepEqual([p.snapshot.state, p.snapshot.reason.code], ['unhealthy', 'scope-empty']);
    const ac = requireCommonSummary(p.snapshot.details);
    assert.deepEqual([ac.wal.reason.code, ac.timeline.reason.code, ac.coverage.reason.code], ['scope-empty', 'scope-empty', 'scope-empty']);
    for (const c of p.snapshot.capabilities) if (c.id !== 'object-inventory') assert.notEqual(c.state, 'healthy', 'a capability other than object-inventory is healthy');
  });

  it('a pgBackRest stanza under the scope is another format, not an empty server', async () => {
    const store = new MemoryStore();
    store.put(`${ROOT}main/archive.info`, '[db]\n');
    store.put(`${ROOT}main/archive.info.copy`, '[db]\n');
    await assert.rejects(scanOf(store), (e: unknown) => (e as { category?: string }).category === 'incompatible_format');
  });

  it('a key holding control characters is counted and never kept for display', async () => {
    const store = new MemoryStore();
    const repo = new SyntheticRepository(store, ROOT);
    repo.segments(1, 1, 4, at(0));
    repo.backup({ id: 'b1', timeline: 1, beginPosition: 2, endPosition: 2, beginTime: at(2), endTime: at(2.5) });
    store.put(`${ROOT}wals/evil\u0007\u001b[2Jname`, 'x', at(30));
    const e = await scanOf(store);
    assert.equal(e.walCounts.unknown, 1);
    assert.deepEqual(e.recentObjects[0], { key: null, size: 1, receivedAt: at(30).toISOString() });
    assert.ok(!JSON.stringify(e.recentObjects).includes('evil'));
  });
});

describe('evidence over time: nothing proved is forgotten but by WAL arriving or a backup deleted', () => {
  it('a confirmed loss that grows into the retention shape stays unexplained; a deleted backup may explain it', async () => {
    for (const deleteBackup of [false, true]) {
      const store = new MemoryStore();
      const repo = new SyntheticRepository(store, ROOT);
      repo.segments(1, 4, 31, at(4));
      repo.segment(1, 32, at(200));
      repo.backup({ id: '20261121T100400', timeline: 1, beginPosition: 4, endPosition: 5, beginTime: at(4), endTime: at(4.5), keep: 'standalone' });
      repo.backup({ id: '20261121T100700', timeline: 1, beginPosition: 7, endPosition: 7, beginTime: at(7), endTime: at(7.5) });
      repo.backup({ id: '20261121T101000', timeline: 1, beginPosition: 10, endPosition: 11, beginTime: at(10), endTime: at(10.5) });
      const next = generations(store);
      store.delete(segmentKey(8));
      store.delete(segmentKey(9));
      assert.deepEqual((await next()).wal, ['unhealthy', 'wal-gap-confirmed']);
      // More WAL lost beside it: 6..9 has exactly the retention shape after the standalone backup.
      store.delete(segmentKey(6));
      store.delete(segmentKey(7));
      if (deleteBackup) {
        store.delete(`${ROOT}base/20261121T100700/backup.info`);
        store.delete(`${ROOT}base/20261121T100700/data.tar`);
      }
      const g = await next();
      assert.deepEqual(g.e.gapClasses, [deleteBackup ? 'retention-expected' : 'unexplained'], `backup deleted: ${deleteBackup}`);
      assert.deepEqual(g.wal, deleteBackup ? ['healthy', 'wal-continuous-except-retention'] : ['unhealthy', 'wal-gap-confirmed']);
    }
  });

  it('WAL lost at the newest end of a timeline is reported, and stays reported until it comes back', async () => {
    const store = new MemoryStore();
    const repo = new SyntheticRepository(store, ROOT);
    repo.segments(1, 1, 25, at(1));
    repo.backup({ id: '20261121T100500', timeline: 1, beginPosition: 5, endPosition: 6, beginTime: at(5), endTime: at(5.5) });
    const next = generations(store);
    assert.deepEqual((await next()).wal, ['healthy', 'wal-continuous']);
    for (let p = 16; p <= 25; p++) store.delete(segmentKey(p));
    const lost = await next();
    assert.deepEqual([lost.wal, lost.p.snapshot.state], [['unhealthy', 'wal-frontier-regressed'], 'unhealthy']);
    assert.deepEqual((await next()).wal, ['unhealthy', 'wal-frontier-regressed'], 'a second look does not forget it');
    repo.segments(1, 16, 25, at(16));
    assert.deepEqual((await next()).wal, ['healthy', 'wal-continuous']);
  });

  it('a confirmed loss whose older neighbours vanished is still a loss; unless a backup was deleted', async () => {
    for (const deleteBackup of [false, true]) {
      const store = new MemoryStore();
      const repo = new SyntheticRepository(store, ROOT);
      repo.segments(1, 1, 30, at(1), { missing: [2, 3] });
      repo.segment(1, 31, at(200));
      repo.backup({ id: '20261121T100100', timeline: 1, beginPosition: 1, endPosition: 1, beginTime: at(1), endTime: at(1.5) });
      repo.backup({ id: '20261121T101000', timeline: 1, beginPosition: 10, endPosition: 11, beginTime: at(10), endTime: at(10.5) });
      const next = generations(store);
      assert.deepEqual((await next()).wal, ['unhealthy', 'wal-gap-confirmed']);
      store.delete(segmentKey(1));
      if (deleteBackup) {
        store.delete(`${ROOT}base/20261121T100100/backup.info`);
        store.delete(`${ROOT}base/20261121T100100/data.tar`);
      }
      const g = await next();
      assert.deepEqual([g.p.walGaps.length, g.wal], [0, deleteBackup ? ['healthy', 'wal-continuous'] : ['unhealthy', 'wal-gap-vanished']]);
      if (!deleteBackup) assert.deepEqual((await next()).wal, ['unhealthy', 'wal-gap-vanished'], 'remembered across generations');
    }
  });
});
