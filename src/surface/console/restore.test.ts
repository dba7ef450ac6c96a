/**
 * The console's backup to restore from, on projections: the standalone page's choice from the
 * projection's items (the newest usable backup whose path reaches the newest WAL of the newest
 * timeline, with why not each newer one, "none" with the reason otherwise), and unknown, never a
 * guess, whenever the projection cannot stand for the repository now. Checked on the JSON the
 * console serves and on its page.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Collection, Projection, SourceStatus } from '../../client/index.ts';
import type { BackupItem, RecoveryPathItem, WalGapItem, WalRangeItem } from '../../contract/collections.ts';
import { VALID_EXAMPLES } from '../../contract/examples.ts';
import type { ArchiveCloudDetails, RepositoryEvidenceSnapshot } from '../../contract/snapshot.ts';
import { consoleJson, consolePage, type ConsoleView } from './page.ts';
import { consoleRestore, type ConsoleRestore } from './restore.ts';

const example = (name: string) => {
  const e = VALID_EXAMPLES.find((x) => x.name === name);
  assert.ok(e !== undefined, name);
  return e.body as RepositoryEvidenceSnapshot;
};

const backup = (id: string, state: BackupItem['state'], endAt: string | null, code = state === 'healthy' ? 'structurally-usable' : 'backup-failed', status: BackupItem['status'] = 'DONE'): BackupItem => ({
  server: 'pg-main', backup_id: id, status, backup_type: 'full', state, reason: { code, message: '' },
  system_id: null, postgresql_version: 15, timeline: 1, wal_segment_size_bytes: 16_777_216, begin_wal: null, end_wal: null, begin_lsn: null, end_lsn: null,
  begin_at: null, end_at: endAt, logical_bytes: null, deduplicated_bytes: null, stored_artifact_bytes: null, compression: null, encryption: null, artifact_count: null, tablespace_count: null,
});
const wal = (tl: number, pos: number) => `${tl.toString(16).padStart(8, '0').toUpperCase()}00000000${pos.toString(16).padStart(8, '0').toUpperCase()}`;
const path = (id: string, stop: RecoveryPathItem['stop'], state: RecoveryPathItem['state'], frontier: number, code = stop === 'frontier' ? 'path-reaches-frontier' : 'wal-gap-confirmed'): RecoveryPathItem => ({
  server: 'pg-main', backup_id: id, target_timeline: 1, state, reason: { code, message: '' }, stop, lower_bound_at: null, start_timeline: 1, start_position: 1, start_wal: wal(1, 1),
  frontier_timeline: 1, frontier_position: frontier, frontier_wal: wal(1, frontier), frontier_receipt_at: '2026-11-27T06:14:35Z', assumption_codes: [],
});
const range = (first: number, last: number): WalRangeItem => ({
  server: 'pg-main', timeline: 1, start_position: first, end_position: last, segment_count: last - first + 1, first_wal: wal(1, first), last_wal: wal(1, last), latest_receipt_at: null, end_receipt_at: null,
});
const gap = (first: number, last: number): WalGapItem => ({
  server: 'pg-main', timeline: 1, start_position: first, end_position: last, segment_count: last - first + 1, first_wal: wal(1, first), last_wal: wal(1, last), status: 'confirmed', first_observed_generation: 1, last_observed_generation: 5,
});
const known = <T>(items: readonly T[]): Collection<T> => ({ known: true, items });

function projection(backups: BackupItem[], paths: RecoveryPathItem[], ranges: WalRangeItem[], gaps: WalGapItem[] = [], snapshotName = 'snapshot-complete'): Projection {
  const { details, ...snapshot } = example(snapshotName);
  return {
    revision: snapshot.revision,
    evidenceGeneration: snapshot.evidence_generation,
    snapshot,
    details: { type: 'archive-cloud/v1alpha1', known: true, archive_cloud: (details as ArchiveCloudDetails).archive_cloud },
    collections: { backups: known(backups), 'wal-ranges': known(ranges), 'wal-gaps': known(gaps), 'recovery-paths': known(paths) },
    assembledAt: new Date('2026-11-27T07:00:00Z'),
  };
}
const status = (state: SourceStatus['state'], reason: SourceStatus['reason']): SourceStatus => ({ state, reason, since: new Date('2026-11-27T07:00:00Z'), lastPollAt: null, restarts: { 'publication-changed': 0, 'cursor-rejected': 0 }, polls: 1 });
const CURRENT = status('available', 'current');
const view = (p: Projection | null, s = CURRENT): ConsoleView => ({ enabled: true, status: s, projection: p, correlation: null, recordsProblem: null, now: new Date('2026-11-27T07:01:00Z') });
/** What the console serves: the JSON's field, which must be the function's answer, and the page's text. */
function served(p: Projection | null, s = CURRENT): { restore: ConsoleRestore; page: string } {
  const v = view(p, s);
  const restore = (JSON.parse(consoleJson(v)) as { restore: ConsoleRestore }).restore;
  assert.deepEqual(restore, JSON.parse(JSON.stringify(consoleRestore(true, s, p))));
  const page = consolePage(v)
    .replace(/<style>[^<]*<\/style>/, '')
    .replace(/<\/?(?:code|span|strong)[^>]*>/g, '')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&#39;/g, "'")
    .replace(/\s+/g, ' ');
  return { restore, page };
}
const chosen = (r: ConsoleRestore) => (r.known ? (r.backup?.backup_id ?? null) : 'unknown');

const A = '20261127T061312';
const B = '20261127T061335';
const C = '20261127T061413';
const D = '20261127T061429';
const T = (m: string) => `2026-11-27T06:${m}Z`;

describe('the console\'s backup to restore from', () => {
  it('healthy: the newest backup, nothing newer passed over', () => {
    const { restore, page } = served(projection([backup(A, 'healthy', T('13:16')), backup(B, 'healthy', T('13:54'))], [path(A, 'frontier', 'healthy', 13), path(B, 'frontier', 'healthy', 13)], [range(1, 13)]));
    assert.equal(chosen(restore), B);
    assert.ok(restore.known && restore.timeline === 1 && restore.passed_over.length === 0 && restore.none === null);
    assert.match(page, new RegExp(`Backup to restore from \\(timeline 1\\) ${B}, ended ${T('13:54')}, path healthy: the newest structurally usable backup whose observed recovery coverage reaches the newest WAL of timeline 1 \\(${wal(1, 13)}`));
    assert.doesNotMatch(page, /Not a newer one/);
  });

  it('a gap that cuts the oldest backup\'s path: the newest is chosen; the cut path is older, so never a reason', () => {
    const { restore } = served(projection(
      [backup(A, 'healthy', T('13:16')), backup(B, 'healthy', T('13:54')), backup(D, 'healthy', T('14:30'))],
      [path(A, 'gap-limited', 'unhealthy', 3), path(B, 'frontier', 'healthy', 13), path(D, 'frontier', 'healthy', 13)],
      [range(1, 3), range(5, 13)],
      [gap(4, 4)],
    ));
    assert.equal(chosen(restore), D);
    assert.deepEqual(restore.known && restore.passed_over, []);
  });

  it('a gap that cuts the newest backup\'s path: an older one, and why not the newest, with the gap\'s segments', () => {
    const { restore, page } = served(projection(
      [backup(A, 'healthy', T('13:16')), backup(B, 'healthy', T('13:54'))],
      [path(A, 'frontier', 'healthy', 13), path(B, 'gap-limited', 'unhealthy', 9)],
      [range(1, 9), range(12, 13)],
      [gap(10, 11)],
    ));
    assert.equal(chosen(restore), A);
    assert.deepEqual(restore.known && restore.passed_over.map((o) => [o.backup_id, o.why, o.reason_code, o.path?.gap?.first_wal, o.path?.gap?.segment_count]), [[B, 'stops', 'wal-gap-confirmed', wal(1, 10), 2]]);
    assert.match(page, new RegExp(`Not a newer one: ${B}: its path stops at missing WAL after ${wal(1, 9)} \\(gap-limited\\): confirmed gap ${wal(1, 10)}..${wal(1, 11)} \\(2 segments missing\\)`));
  });

  it('the newest backup failed, and one has no time: the newest usable one, each newer backup passed over with its reason', () => {
    const { restore, page } = served(projection(
      [backup('20261121T235959', 'unknown', null, 'backup-info-missing', null), backup(B, 'healthy', T('13:54')), { ...backup(C, 'unhealthy', null, 'backup-failed', 'FAILED'), begin_at: T('14:13') }],
      [path(B, 'frontier', 'healthy', 13)],
      [range(1, 13)],
    ));
    assert.equal(chosen(restore), B);
    // A backup without a time could be the newest, so it comes first; the failed one began after B ended.
    assert.deepEqual(restore.known && restore.passed_over.map((o) => [o.backup_id, o.why, o.reason_code, o.time_unknown]), [
      ['20261121T235959', 'not-usable', 'backup-info-missing', true],
      [C, 'not-usable', 'backup-failed', false],
    ]);
    assert.match(page, new RegExp(`Not a newer one: 20261121T235959 \\(time unknown\\): not structurally usable \\(backup-info-missing\\) ${C}: not structurally usable \\(backup-failed\\)`));
  });

  it('no usable backup: none, with the reason; no path reaching the newest WAL: none, with the furthest path and its gap', () => {
    const { restore, page } = served(projection([backup(A, 'unhealthy', T('13:16'), 'data-archive-missing'), backup(B, 'unhealthy', T('13:54'), 'required-wal-missing')], [], [range(1, 13)]));
    assert.ok(restore.known);
    assert.equal(restore.backup, null);
    assert.deepEqual(restore.none, { reason: 'no-usable-backup', furthest: null });
    assert.deepEqual(restore.passed_over.map((o) => [o.backup_id, o.why]), [[B, 'not-usable'], [A, 'not-usable']]);
    assert.match(page, /None: no backup's observed recovery coverage reaches the newest WAL of timeline 1\. No backup is structurally usable\. Why not each backup:/);

    const cut = served(projection([backup(A, 'healthy', T('13:16'))], [path(A, 'gap-limited', 'unhealthy', 3)], [range(1, 3), range(5, 13)], [gap(4, 4)]));
    assert.ok(cut.restore.known && cut.restore.none !== null);
    assert.equal(cut.restore.none.reason, 'no-path-reaches-newest-wal');
    assert.deepEqual([cut.restore.none.furthest?.backup_id, cut.restore.none.furthest?.gap?.first_wal], [A, wal(1, 4)]);
    assert.match(cut.page, new RegExp(`The furthest path, from ${A}, stops at missing WAL after ${wal(1, 3)} \\(gap-limited\\): confirmed gap ${wal(1, 4)}..${wal(1, 4)} \\(1 segment missing\\)`));

    assert.deepEqual(served(projection([], [], [range(1, 13)])).restore, { known: true, timeline: 1, backup: null, none: { reason: 'no-backup', furthest: null }, passed_over: [] });
    assert.deepEqual(served(projection([backup(A, 'healthy', T('13:16'))], [], [])).restore, { known: true, timeline: null, backup: null, none: { reason: 'no-wal', furthest: null }, passed_over: [] });
  });

  it('unknown, never a guess, while the projection cannot stand for the repository now', () => {
    const healthy = projection([backup(A, 'healthy', T('13:16'))], [path(A, 'frontier', 'healthy', 13)], [range(1, 13)]);
    assert.equal(chosen(consoleRestore(true, CURRENT, healthy)), A, 'the same projection, current, is known');
    const unknownOf = (r: ConsoleRestore) => (r.known ? 'known' : [r.reason, ...r.collections].join(' '));

    const retained = served(healthy, status('unavailable', 'transport'));
    assert.equal(unknownOf(retained.restore), 'source-not-current');
    assert.match(retained.page, /Backup to restore from Unknown: the publication shown is retained, not the sidecar's current one \(source-not-current\)/);
    assert.doesNotMatch(retained.page, /the newest structurally usable backup/);
    assert.equal(unknownOf(served(healthy, status('unknown', 'identity-mismatch')).restore), 'source-not-current');
    assert.equal(unknownOf(served(null, status('unknown', 'not-yet-polled')).restore), 'no-projection');
    assert.equal(unknownOf(served(null).restore), 'no-projection');
    assert.equal(unknownOf(consoleRestore(false, CURRENT, null)), 'not-configured');

    assert.equal(unknownOf(served(projection([backup(A, 'healthy', T('13:16'))], [], [], [], 'snapshot-no-completed-scan')).restore), 'no-completed-scan');
    assert.equal(unknownOf(served(projection([backup(A, 'healthy', T('13:16'))], [path(A, 'frontier', 'healthy', 13)], [range(1, 13)], [], 'snapshot-stale')).restore), 'stale');

    const limited: Projection = { ...healthy, collections: { ...healthy.collections, 'recovery-paths': { known: false, reason: 'response-limit' } } };
    const l = served(limited);
    assert.equal(unknownOf(l.restore), 'collection-unknown recovery-paths');
    assert.match(l.page, /Unknown: not every collection was assembled \(unknown: recovery-paths\)/);
    const noGaps: Projection = { ...healthy, collections: { ...healthy.collections, 'wal-gaps': { known: false, reason: 'response-limit' } } };
    assert.equal(unknownOf(served(noGaps).restore), 'collection-unknown wal-gaps');

    const d = healthy.details;
    assert.ok(d.known);
    const truncated: Projection = { ...healthy, details: { ...d, archive_cloud: { ...d.archive_cloud, ranges_truncated: true, wal: { state: 'unknown', reason: d.archive_cloud.wal.reason }, coverage: { state: 'unknown', reason: d.archive_cloud.coverage.reason } } } };
    assert.equal(unknownOf(served(truncated).restore), 'evidence-truncated');
    assert.equal(unknownOf(served({ ...healthy, details: { type: 'archive-cloud/v9', known: false } }).restore), 'details-unrecognized');
  });
});
