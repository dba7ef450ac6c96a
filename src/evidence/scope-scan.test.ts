/**
 * The scanner over synthetic repositories laid out exactly as Barman writes them, in an in-memory
 * store with S3 listing semantics: the real-repository scenario (three backups, a timeline switch
 * by PITR, a deleted segment), and one scenario per rule that decides a state. Every publication
 * built from the evidence must pass the wire validator.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SyntheticRepository } from '../format/barman-cloud/synthetic-repository.ts';
import { MemoryStore } from '../store/memory/memory-driver.ts';
import { confine } from '../store/confined.ts';
import type { StoreDriver } from '../store/driver.ts';
import { StoreError } from '../common/errors.ts';
import { BudgetMeter } from './listing.ts';
import { DEFAULT_SCOPE_LIMITS, scanScope, type ScopeEvidence, type ScopeLimits } from './scope-scan.ts';
import { freshMemory } from './memory.ts';
import { archiveCloud } from '../format/barman-cloud/format.ts';
import { requireCommonSummary } from '../contract/details-view.ts';
import { DATABASES_CLUSTER, testPublisher } from '../../test/support/publication-fixture.ts';

const ROOT = 'fixtures/pg-main/';
const T0 = Date.parse('2026-11-21T13:28:00Z');
const at = (minutes: number) => new Date(T0 + minutes * 60_000);
/** Nothing remembered: the memory a first generation of this scope starts from (the publishers below are of the same scope). */
const FRESH = freshMemory({ fingerprint: `sha256:${'0'.repeat(64)}`, format: 'archive-cloud', server: 'pg-main' });

async function scan(store: MemoryStore, options: { maxPages?: number; limits?: ScopeLimits } = {}): Promise<ScopeEvidence> {
  return scanScope({ format: archiveCloud,
    ...(options.limits === undefined ? {} : { limits: options.limits }),
    server: 'pg-main',
    root: ROOT,
    driver: confine(store, ROOT),
    signal: new AbortController().signal,
    meter: new BudgetMeter({ maxPages: options.maxPages ?? 1000, maxObjects: 1_000_000 }),
    concurrency: 4,
    previous: FRESH,
  });
}

function publish(e: ScopeEvidence) {
  const p = testPublisher({
    identity: { cluster: DATABASES_CLUSTER, fingerprint: `sha256:${'0'.repeat(64)}`, server: 'pg-main' },
    expectations: { minimumRedundancy: 1 },
    freshnessMs: 900_000,
  }).complete(e, { startedAt: at(60), finishedAt: at(61), pages: 3, objects: e.objectCount });
  assert.deepEqual(p.violations, []);
  return p;
}

/** The real repository of research real-repository.md, rebuilt synthetically. */
function realScenario(options: { deleteSegment6?: boolean; keepStandalone?: boolean; withHistory?: boolean } = {}) {
  const store = new MemoryStore();
  const repo = new SyntheticRepository(store, ROOT);
  repo.segments(1, 1, 6, at(0), { stepMs: 30_000, missing: options.deleteSegment6 === true ? [6] : [] });
  repo.segment(1, 4, at(1), '.00000028.backup');
  repo.segments(1, 7, 12, at(4), { suffix: '.gz', stepMs: 30_000 });
  repo.segments(1, 13, 14, at(7), { suffix: '.bz2', stepMs: 10_000 });
  if (options.withHistory !== false) repo.history(2, [{ parent: 1, switchpoint: 0xd000090n, reason: 'at restore point "incident"' }], at(8), true);
  repo.segments(2, 13, 17, at(9), { suffix: '.gz', stepMs: 30_000 });
  repo.backup({ id: '20261121T132821', timeline: 1, beginPosition: 4, endPosition: 4, beginTime: at(0.5), endTime: at(0.6), ...(options.keepStandalone === false ? {} : { keep: 'standalone' as const }) });
  repo.backup({ id: '20261121T132829', timeline: 1, beginPosition: 10, endPosition: 10, archiveSuffix: '.gz', beginTime: at(5), endTime: at(5.5) });
  repo.backup({ id: '20261121T132845', timeline: 2, beginPosition: 15, endPosition: 15, archiveSuffix: '.bz2', beginTime: at(10), endTime: at(10.5) });
  return { store, repo };
}

describe('the real-repository scenario', () => {
  it('finds three healthy backups, both timelines with the fork, and the deleted segment as a gap', async () => {
    const { store } = realScenario({ deleteSegment6: true });
    const e = await scan(store);
    assert.deepEqual(e.backups.map((b) => [b.item.backup_id, b.item.status, b.item.state, b.item.begin_wal, b.item.end_wal, b.item.timeline, b.item.compression]), [
      ['20261121T132821', 'DONE', 'healthy', '000000010000000000000004', '000000010000000000000004', 1, 'none'],
      ['20261121T132829', 'DONE', 'healthy', '00000001000000000000000A', '00000001000000000000000A', 1, 'gzip'],
      ['20261121T132845', 'DONE', 'healthy', '00000002000000000000000F', '00000002000000000000000F', 2, 'bzip2'],
    ]);
    assert.deepEqual(e.ranges.map((r) => [r.timeline, r.first_wal, r.last_wal, r.segment_count]), [
      [1, '000000010000000000000001', '000000010000000000000005', 5],
      [1, '000000010000000000000007', '00000001000000000000000E', 8],
      [2, '00000002000000000000000D', '000000020000000000000011', 5],
    ]);
    assert.deepEqual(e.gaps.map((g) => [g.timeline, g.first_wal, g.last_wal, g.segment_count, g.status]), [[1, '000000010000000000000006', '000000010000000000000006', 1, 'candidate']]);
    assert.deepEqual(e.walCounts, { segment: 18, partial: 0, history: 1, backup_history: 1, unknown: 0, duplicate: 0 });
    assert.equal(e.objectCount, 18 + 1 + 1 + 3 * 2 + 1);

    const paths = e.paths.map((p) => [p.backup_id, p.target_timeline, p.stop, p.state, p.frontier_wal]);
    assert.deepEqual(paths, [
      ['20261121T132821', 1, 'candidate-limited', 'warning', '000000010000000000000005'],
      ['20261121T132821', 2, 'candidate-limited', 'warning', '000000010000000000000005'],
      ['20261121T132829', 1, 'frontier', 'healthy', '00000001000000000000000E'],
      ['20261121T132829', 2, 'frontier', 'healthy', '000000020000000000000011'],
      ['20261121T132845', 2, 'frontier', 'healthy', '000000020000000000000011'],
    ]);
    const crossing = e.paths.find((p) => p.backup_id === '20261121T132829' && p.target_timeline === 2);
    assert.deepEqual(crossing?.assumption_codes, ['backup-end-from-metadata', 'compressed-content-not-decoded', 'history-content-trusted', 'segment-content-not-verified', 'segment-size-from-metadata']);

    const p = publish(e);
    assert.equal(requireCommonSummary(p.snapshot.details).wal_gap_items, 1);
    // The gap lies between a standalone backup and the next one, but one segment after the
    // standalone backup's end_wal survives: retention never leaves that shape, so WAL was lost.
    assert.deepEqual(e.gapClasses, ['unexplained']);
    assert.equal(requireCommonSummary(p.snapshot.details).wal.reason.code, 'wal-gap-candidate');
    assert.equal(requireCommonSummary(p.snapshot.details).coverage.state, 'healthy');
    assert.equal(p.snapshot.state, 'warning');
  });

  it('the same gap after a regular backup makes WAL continuity a warning and its path candidate-limited', async () => {
    const { store } = realScenario({ deleteSegment6: true, keepStandalone: false });
    const p = publish(await scan(store));
    assert.equal(requireCommonSummary(p.snapshot.details).wal.reason.code, 'wal-gap-candidate');
    assert.equal(requireCommonSummary(p.snapshot.details).wal.state, 'warning');
    assert.equal(p.snapshot.state, 'warning');
  });

  it('without the history file, timeline 2 has no ancestry and paths into it are unknown-limited', async () => {
    const { store } = realScenario({ withHistory: false });
    const e = await scan(store);
    const toTl2 = e.paths.filter((p) => p.target_timeline === 2 && p.backup_id !== '20261121T132845');
    assert.deepEqual(toTl2.map((p) => [p.stop, p.state]), [['unknown-limited', 'unknown'], ['unknown-limited', 'unknown']]);
    const p = publish(e);
    assert.equal(requireCommonSummary(p.snapshot.details).timeline.reason.code, 'timeline-history-missing');
    assert.equal(p.snapshot.state, 'unhealthy');
  });
});

describe('backup states', () => {
  function oneBackup(extra: (repo: SyntheticRepository, store: MemoryStore) => void) {
    const store = new MemoryStore();
    const repo = new SyntheticRepository(store, ROOT);
    repo.segments(1, 1, 10, at(0));
    extra(repo, store);
    return store;
  }

  const cases: [string, (repo: SyntheticRepository, store: MemoryStore) => void, string, string][] = [
    ['a failed backup', (r) => r.backup({ id: 'b1', timeline: 1, beginPosition: 3, endPosition: 4, status: 'FAILED', beginTime: at(1), endTime: at(2) }), 'unhealthy', 'backup-failed'],
    ['a directory without backup.info', (r) => r.backup({ id: 'b1', timeline: 1, beginPosition: 3, endPosition: 4, withoutInfo: true, beginTime: at(1), endTime: at(2) }), 'unknown', 'backup-info-missing'],
    ['a malformed backup.info', (_r, s) => s.put(`${ROOT}base/b1/backup.info`, 'this is not a field list'), 'unknown', 'backup-info-malformed'],
    ['a 10 MB backup.info', (_r, s) => s.put(`${ROOT}base/b1/backup.info`, Buffer.alloc(10 << 20, 0x61)), 'unknown', 'backup-info-too-large'],
    ['no data archive', (r, s) => { r.backup({ id: 'b1', timeline: 1, beginPosition: 3, endPosition: 4, beginTime: at(1), endTime: at(2) }); s.delete(`${ROOT}base/b1/data.tar`); }, 'unhealthy', 'data-archive-missing'],
    ['a declared tablespace without archive', (r, s) => { r.backup({ id: 'b1', timeline: 1, beginPosition: 3, endPosition: 4, tablespaces: [16385], beginTime: at(1), endTime: at(2) }); s.delete(`${ROOT}base/b1/16385.tar`); }, 'unhealthy', 'tablespace-archive-missing'],
    ['required WAL not archived yet', (r) => r.backup({ id: 'b1', timeline: 1, beginPosition: 9, endPosition: 12, beginTime: at(1), endTime: at(2) }), 'unknown', 'required-wal-not-yet-archived'],
    ['required WAL before the archive starts', (r) => r.backup({ id: 'b1', timeline: 0x1, beginPosition: 0, endPosition: 1, beginTime: at(1), endTime: at(2) }), 'unhealthy', 'required-wal-missing'],
    ['required WAL in a candidate gap', (r, s) => { r.backup({ id: 'b1', timeline: 1, beginPosition: 3, endPosition: 5, beginTime: at(1), endTime: at(2) }); s.delete(`${ROOT}wals/0000000100000000/000000010000000000000004`); }, 'unknown', 'required-wal-candidate-gap'],
    ['begin_xlog outside the file begin_wal names', (r, s) => {
      const b = { id: 'b1', timeline: 1, beginPosition: 3, endPosition: 4, beginTime: at(1), endTime: at(2) };
      r.backup(b);
      s.put(`${ROOT}base/b1/backup.info`, r.backupInfo(b).replace(/^begin_xlog=.*$/m, 'begin_xlog=AAAAAAAA/0'));
    }, 'unknown', 'backup-info-inconsistent'],
    ['end_xlog outside the file end_wal names', (r, s) => {
      const b = { id: 'b1', timeline: 1, beginPosition: 3, endPosition: 4, beginTime: at(1), endTime: at(2) };
      r.backup(b);
      s.put(`${ROOT}base/b1/backup.info`, r.backupInfo(b).replace(/^end_xlog=.*$/m, 'end_xlog=FFFFFFFF/FFFFFFFF'));
    }, 'unknown', 'backup-info-inconsistent'],
    ['end_xlog at the boundary after the file end_wal names', (r, s) => {
      const b = { id: 'b1', timeline: 1, beginPosition: 3, endPosition: 4, beginTime: at(1), endTime: at(2) };
      r.backup(b);
      s.put(`${ROOT}base/b1/backup.info`, r.backupInfo(b).replace(/^end_xlog=.*$/m, 'end_xlog=0/5000000'));
    }, 'healthy', 'structurally-usable'],
    ['an unrecognised object in the directory', (r, s) => { r.backup({ id: 'b1', timeline: 1, beginPosition: 3, endPosition: 4, beginTime: at(1), endTime: at(2) }); s.put(`${ROOT}base/b1/notes.txt`, 'x'); }, 'warning', 'unrecognized-objects'],
    ['a healthy backup', (r) => r.backup({ id: 'b1', timeline: 1, beginPosition: 3, endPosition: 4, beginTime: at(1), endTime: at(2) }), 'healthy', 'structurally-usable'],
    // STARTED, WAITING_FOR_WALS, SYNCING: Barman has not finished it; it is not an unsupported kind.
    ['a backup Barman has not finished', (r, s) => { const b = { id: 'b1', timeline: 1, beginPosition: 3, endPosition: 4, beginTime: at(1), endTime: at(2) }; r.backup(b); s.put(`${ROOT}base/b1/backup.info`, r.backupInfo(b).replace(/^status=.*$/m, 'status=WAITING_FOR_WALS')); }, 'unknown', 'backup-not-completed'],
    ['a backup.info without status', (r, s) => { const b = { id: 'b1', timeline: 1, beginPosition: 3, endPosition: 4, beginTime: at(1), endTime: at(2) }; r.backup(b); s.put(`${ROOT}base/b1/backup.info`, r.backupInfo(b).replace(/^status=.*\n/m, '')); }, 'unknown', 'backup-status-unknown'],
    ['an incremental backup', (r, s) => { const b = { id: 'b1', timeline: 1, beginPosition: 3, endPosition: 4, beginTime: at(1), endTime: at(2) }; r.backup(b); s.put(`${ROOT}base/b1/backup.info`, `${r.backupInfo(b)}parent_backup_id=b0\n`); }, 'unknown', 'backup-type-unsupported'],
  ];
  /** The catalog shelf each verdict puts a backup on (the spec keeps these kinds apart). */
  const SHELF: Record<string, string> = {
    'backup-failed': 'failed',
    'backup-info-missing': 'in progress or abandoned',
    'backup-not-completed': 'in progress or abandoned',
    'backup-info-malformed': 'malformed',
    'backup-info-too-large': 'malformed',
    'backup-info-inconsistent': 'malformed',
    'backup-status-unknown': 'malformed',
    'backup-type-unsupported': 'unsupported',
    'data-archive-missing': 'structurally incomplete',
    'tablespace-archive-missing': 'structurally incomplete',
    'required-wal-not-yet-archived': 'structurally incomplete',
    'required-wal-missing': 'structurally incomplete',
    'required-wal-candidate-gap': 'structurally incomplete',
    'unrecognized-objects': 'completed',
    'structurally-usable': 'completed',
  };
  for (const [what, build, state, code] of cases) {
    it(`${what}: ${state} (${code}), on the ${SHELF[code] ?? '?'} shelf`, async () => {
      const e = await scan(oneBackup(build));
      assert.deepEqual(e.backups.map((b) => [b.item.backup_id, b.item.state, b.item.reason.code, b.shelf]), [['b1', state, code, SHELF[code]]]);
      publish(e);
    });
  }

  it('a path is never better than the backup it starts from, whatever WAL covers it', async () => {
    const b = { id: 'b1', timeline: 1, beginPosition: 3, endPosition: 4, beginTime: at(1), endTime: at(2) };
    const paths = async (build: (repo: SyntheticRepository, store: MemoryStore) => void) => (await scan(oneBackup(build))).paths.map((p) => [p.stop, p.state, p.reason.code]);
    assert.deepEqual(await paths((r) => r.backup(b)), [['frontier', 'healthy', 'coverage-to-frontier']]);
    assert.deepEqual(await paths((r, s) => { r.backup(b); s.put(`${ROOT}base/b1/notes.txt`, 'x'); }), [['frontier', 'warning', 'backup-warning']]);
    assert.deepEqual(await paths((r, s) => { r.backup(b); s.delete(`${ROOT}base/b1/data.tar`); }), [['frontier', 'unhealthy', 'backup-not-usable']]);
    assert.deepEqual(await paths((r, s) => { r.backup(b); s.put(`${ROOT}base/b1/backup.info`, `${r.backupInfo(b)}parent_backup_id=b0\n`); }), [['frontier', 'unknown', 'backup-usability-unknown']]);
  });

  it('recovery paths are bounded: past the limit the scan is truncated, never silently short', async () => {
    const { store } = realScenario();
    const all = await scan(store);
    assert.equal(all.diagnosticsTruncated, false);
    const n = all.paths.length;
    assert.ok(n >= 3);
    const exact = await scan(store, { limits: { ...DEFAULT_SCOPE_LIMITS, maxPaths: n } });
    assert.deepEqual([exact.paths.length, exact.diagnosticsTruncated], [n, false]);
    const over = await scan(store, { limits: { ...DEFAULT_SCOPE_LIMITS, maxPaths: n - 1 } });
    assert.equal(over.diagnosticsTruncated, true);
    assert.ok(over.paths.length < n);
  });

  it('a failed backup yields no recovery path', async () => {
    const e = await scan(oneBackup((r) => r.backup({ id: 'b1', timeline: 1, beginPosition: 3, endPosition: 4, status: 'FAILED', beginTime: at(1), endTime: at(2) })));
    assert.deepEqual(e.paths, []);
  });
});

describe('WAL evidence', () => {
  it('a gap after which the archive moved on for over an hour is confirmed; the path is gap-limited', async () => {
    const store = new MemoryStore();
    const repo = new SyntheticRepository(store, ROOT);
    repo.segments(1, 1, 30, at(0), { missing: [12, 13] });
    repo.segments(1, 31, 100, at(30));
    repo.backup({ id: 'b1', timeline: 1, beginPosition: 3, endPosition: 4, beginTime: at(1), endTime: at(2) });
    const e = await scan(store);
    assert.deepEqual(e.gaps.map((g) => [g.first_wal, g.last_wal, g.segment_count, g.status]), [['00000001000000000000000C', '00000001000000000000000D', 2, 'confirmed']]);
    assert.deepEqual(e.paths.map((p) => [p.stop, p.state, p.frontier_wal]), [['gap-limited', 'unhealthy', '00000001000000000000000B']]);
    const p = publish(e);
    assert.equal(requireCommonSummary(p.snapshot.details).wal.reason.code, 'wal-gap-confirmed');
    assert.equal(p.snapshot.state, 'unhealthy');
  });

  it('64 MiB segments roll over to the next log after segment 3F without a gap', async () => {
    const store = new MemoryStore();
    const repo = new SyntheticRepository(store, ROOT, 64 << 20);
    repo.segments(1, 60, 70, at(0));
    repo.backup({ id: 'b1', timeline: 1, beginPosition: 61, endPosition: 62, beginTime: at(1), endTime: at(2) });
    const e = await scan(store);
    assert.deepEqual(e.ranges.map((r) => [r.first_wal, r.last_wal, r.segment_count]), [['00000001000000000000003C', '000000010000000100000006', 11]]);
    assert.deepEqual(e.gaps, []);
    assert.equal(e.backups[0]?.item.wal_segment_size_bytes, 64 << 20);
  });

  it('counts a WAL name stored twice as one segment and one duplicate, and unknown objects as unknown', async () => {
    const store = new MemoryStore();
    const repo = new SyntheticRepository(store, ROOT);
    repo.segments(1, 1, 5, at(0));
    repo.segment(1, 3, at(3), '.gz');
    store.put(`${ROOT}wals/0000000100000000/000000010000000000000009.gz.enc`, 'x');
    store.put(`${ROOT}wals/README`, 'x');
    store.put(`${ROOT}stray/file`, 'xyz');
    store.put(`${ROOT}top-level`, 'xy');
    repo.backup({ id: 'b1', timeline: 1, beginPosition: 2, endPosition: 2, beginTime: at(1), endTime: at(2) });
    const e = await scan(store);
    assert.deepEqual(e.walCounts, { segment: 5, partial: 0, history: 0, backup_history: 0, unknown: 2, duplicate: 1 });
    assert.equal(e.unknownObjects, 4);
    assert.equal(e.objectCount, 5 + 1 + 2 + 2 + 2);
    const all = await store.listPage({ prefix: ROOT, signal: new AbortController().signal });
    assert.equal(e.storedBytes, all.objects.reduce((n, o) => n + o.size, 0));
    assert.equal(e.objectCount, all.objects.length);
    assert.ok(e.paths[0]?.assumption_codes.includes('duplicate-wal-name-not-compared'));
  });

  it('refuses a store that lists segments out of order instead of inventing gaps', async () => {
    const store = new MemoryStore();
    const repo = new SyntheticRepository(store, ROOT);
    repo.segments(1, 1, 5, at(0));
    const shuffled = {
      ...store,
      listPage: async (r: Parameters<MemoryStore['listPage']>[0]) => {
        const page = await store.listPage(r);
        return { ...page, objects: [...page.objects].reverse() };
      },
      read: (r: Parameters<MemoryStore['read']>[0]) => store.read(r),
      readStream: (r: Parameters<MemoryStore['read']>[0]) => store.readStream(r),
      close: () => undefined,
    };
    await assert.rejects(
      scanScope({ format: archiveCloud, server: 'pg-main', root: ROOT, driver: shuffled, signal: new AbortController().signal, meter: new BudgetMeter({ maxPages: 100, maxObjects: 1000 }), concurrency: 2, previous: FRESH }),
      (e: unknown) => (e as { category?: string }).category === 'incompatible_format',
    );
  });

  it('stops every WAL range at its next page once one range fails, and answers after they have settled', async () => {
    const store = new MemoryStore();
    // 16 hash directories: four ranges at concurrency 4.
    new SyntheticRepository(store, ROOT).segments(1, 1, 16 * 256, at(0));
    let walPages = 0;
    let failedFirst = false;
    let startedAfterAnswer = 0;
    let answered = false;
    const driver: StoreDriver = {
      listPage: async (r) => {
        if (r.delimiter !== undefined || !r.prefix.endsWith('/wals/')) return store.listPage(r);
        if (answered) startedAfterAnswer += 1;
        walPages += 1;
        // The first range (no start-after) fails on its second page.
        if (r.startAfter === undefined && r.continuationToken !== undefined && !failedFirst) {
          failedFirst = true;
          throw new StoreError('unavailable', 'the store connection failed');
        }
        return store.listPage({ ...r, maxKeys: 50 });
      },
      read: (r) => store.read(r),
      readStream: (r) => store.readStream(r),
      close: () => undefined,
    };
    await assert.rejects(
      scanScope({ format: archiveCloud, server: 'pg-main', root: ROOT, driver: confine(driver, ROOT), signal: new AbortController().signal, meter: new BudgetMeter({ maxPages: 10_000, maxObjects: 1e6 }), concurrency: 4, previous: FRESH }),
      (e: unknown) => (e as { category?: string }).category === 'unavailable',
    );
    answered = true;
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.ok(failedFirst);
    assert.equal(startedAfterAnswer, 0);
    // Listing on to the end would take 4096 / 50 ≈ 82 pages; the others stopped within a page or two.
    assert.ok(walPages < 20, `${walPages} WAL pages`);
  });

  it('refuses a listing whose object has no size instead of counting it as 0 bytes', async () => {
    const store = new MemoryStore();
    new SyntheticRepository(store, ROOT).segments(1, 1, 5, at(0));
    const sizeless: StoreDriver = {
      listPage: async (r) => {
        const page = await store.listPage(r);
        return { ...page, objects: page.objects.map((o, i) => (i === 2 ? { ...o, size: Number.NaN } : o)) };
      },
      read: (r) => store.read(r),
      readStream: (r) => store.readStream(r),
      close: () => undefined,
    };
    await assert.rejects(
      scanScope({ format: archiveCloud, server: 'pg-main', root: ROOT, driver: confine(sizeless, ROOT), signal: new AbortController().signal, meter: new BudgetMeter({ maxPages: 100, maxObjects: 1000 }), concurrency: 2, previous: FRESH }),
      (e: unknown) => (e as { category?: string }).category === 'incompatible_format',
    );
  });

  it('a receipt time the wire cannot carry (no date, the epoch itself, past 9999) becomes unknown; the scan publishes', async () => {
    const store = new MemoryStore();
    // Every segment its own range, so each odd receipt time would be a range's latest on the wire.
    new SyntheticRepository(store, ROOT).segments(1, 1, 9, at(0), { missing: [2, 4, 6, 8] });
    const odd = [new Date(Number.NaN), new Date(0), new Date(Date.UTC(12000, 0, 1)), new Date('0001-01-01T00:00:00Z')];
    const driver: StoreDriver = {
      listPage: async (r) => {
        const page = await store.listPage(r);
        return { ...page, objects: page.objects.map((o, i) => (i < odd.length ? { ...o, lastModified: odd[i] ?? null } : o)) };
      },
      read: (r) => store.read(r),
      readStream: (r) => store.readStream(r),
      close: () => undefined,
    };
    const pub = testPublisher({ identity: { cluster: { namespace: 'databases', uid: '6f1c2a7e-3b9d-4e8f-a1c2-9d8e7f6a5b4c', name: 'pg-main' }, fingerprint: `sha256:${'a'.repeat(64)}`, server: 'pg-main' }, freshnessMs: 900_000 });
    const e = await scanScope({ format: archiveCloud, server: 'pg-main', root: ROOT, driver: confine(driver, ROOT), signal: new AbortController().signal, meter: new BudgetMeter({ maxPages: 100, maxObjects: 1000 }), concurrency: 2, ...pub.nextScan });
    assert.equal(e.objectCount, 5);
    assert.deepEqual(e.ranges.map((r) => r.latest_receipt_at), [null, null, null, null, at(8).toISOString()]);
    const p = pub.complete(e, { startedAt: at(20), finishedAt: at(21), pages: 1, objects: 5 });
    assert.deepEqual([p.violations, p.generation, p.snapshot.stale], [[], 1, false]);
  });

  it('parallel key ranges give exactly the evidence of one sequential listing, seams included', async () => {
    const store = new MemoryStore();
    const repo = new SyntheticRepository(store, ROOT);
    // 40 hash directories; holes right at directory seams and inside; a second timeline.
    repo.segments(1, 1, 40 * 256, at(0), { stepMs: 1000, missing: [255, 256, 2048, 2049, 5000, 7679, 7680, 7681] });
    repo.history(2, [{ parent: 1, switchpoint: repo.switchpoint(6000) }], at(200));
    repo.segments(2, 6000, 6300, at(210), { stepMs: 1000, suffix: '.gz' });
    repo.segment(1, 300, at(5), '.gz');
    store.put(`${ROOT}wals/0000000100000011`, 'an object named like a directory');
    repo.backup({ id: 'b1', timeline: 1, beginPosition: 3, endPosition: 4, beginTime: at(1), endTime: at(2) });
    const run = async (concurrency: number) =>
      scanScope({ format: archiveCloud, server: 'pg-main', root: ROOT, driver: confine(store, ROOT), signal: new AbortController().signal, meter: new BudgetMeter({ maxPages: 10_000, maxObjects: 1e7 }), concurrency, previous: FRESH });
    const one = await run(1);
    const eight = await run(8);
    for (const k of ['ranges', 'gaps', 'walCounts', 'objectCount', 'storedBytes', 'unknownObjects', 'recentObjects', 'paths'] as const) {
      assert.deepEqual(eight[k], one[k], k);
    }
    assert.equal(one.gaps.length, 4);
    assert.equal(one.walCounts.duplicate, 1);
  });

  it('reaching the page budget is a safety_limit, never a short success', async () => {
    const store = new MemoryStore();
    const repo = new SyntheticRepository(store, ROOT);
    repo.segments(1, 1, 2500, at(0));
    await assert.rejects(scan(store, { maxPages: 2 }), (e: unknown) => (e as { category?: string }).category === 'safety_limit');
  });

  it('every request stays under the scope root', async () => {
    const { store } = realScenario({ deleteSegment6: true });
    store.put('fixtures/other-server/wals/0000000100000000/000000010000000000000001', 'x');
    store.put('fixtures/pg-main-2/base/x/backup.info', 'x');
    await scan(store);
    assert.ok(store.requests.length > 5);
    for (const r of store.requests) assert.ok(r.prefix.startsWith(ROOT), r.prefix);
  });
});
