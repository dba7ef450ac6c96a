/**
 * The backup to restore from, chosen from wire items: the newest usable backup whose path to the
 * newest timeline reaches the frontier; every backup that may be newer is passed over with its
 * reason (a backup of unknown time could be the newest); without a choice, the furthest path.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { BackupItem, RecoveryPathItem } from '../../contract/collections.ts';
import { durationText, restoreChoice } from './restore-choice.ts';

const backup = (id: string, state: BackupItem['state'], endAt: string | null, timeline = 1): BackupItem => ({
  server: 's', backup_id: id, status: 'DONE', backup_type: 'full', state, reason: { code: state === 'healthy' ? 'structurally-usable' : 'backup-info-missing', message: '' },
  system_id: null, postgresql_version: null, timeline, wal_segment_size_bytes: null, begin_wal: null, end_wal: null, begin_lsn: null, end_lsn: null,
  begin_at: null, end_at: endAt, logical_bytes: null, deduplicated_bytes: null, stored_artifact_bytes: null, compression: null, encryption: null, artifact_count: null, tablespace_count: null,
});
const path = (id: string, target: number, stop: RecoveryPathItem['stop'], state: RecoveryPathItem['state'], frontier: number): RecoveryPathItem => ({
  server: 's', backup_id: id, target_timeline: target, state, reason: { code: 'x', message: '' }, stop, lower_bound_at: null, start_timeline: 1, start_position: 1, start_wal: null,
  frontier_timeline: target, frontier_position: frontier, frontier_wal: null, frontier_receipt_at: null, assumption_codes: [],
});

describe('the backup to restore from', () => {
  it('chooses the newest usable backup reaching the frontier of the newest timeline and says why not each newer one', () => {
    const backups = [
      backup('A', 'healthy', '2026-01-01T01:00:00Z'),
      backup('B', 'warning', '2026-01-01T02:00:00Z'),
      backup('C', 'healthy', '2026-01-01T03:00:00Z'),
      backup('D', 'healthy', '2026-01-01T04:00:00Z'),
      backup('E', 'unknown', null),
      backup('F', 'healthy', '2026-01-01T05:00:00Z', 1),
    ];
    const paths = [path('A', 2, 'frontier', 'healthy', 90), path('B', 2, 'frontier', 'warning', 90), path('C', 2, 'candidate-limited', 'warning', 50), path('D', 2, 'frontier', 'unknown', 90), path('F', 1, 'frontier', 'healthy', 40)];
    const rc = restoreChoice(backups, paths, [1, 2, 2]);
    assert.equal(rc.timeline, 2);
    assert.equal(rc.chosen?.backup.backup_id, 'B');
    assert.deepEqual(rc.passedOver.map((p) => [p.backup.backup_id, p.why.kind]), [['E', 'not-usable'], ['F', 'no-path'], ['D', 'path-not-usable'], ['C', 'stops']]);
    assert.equal(rc.furthest, null);
  });

  it('without a path to the frontier there is no choice; the furthest path is named', () => {
    const backups = [backup('A', 'healthy', '2026-01-01T01:00:00Z'), backup('B', 'healthy', '2026-01-01T02:00:00Z'), backup('C', 'unhealthy', '2026-01-01T03:00:00Z')];
    const rc = restoreChoice(backups, [path('A', 1, 'gap-limited', 'unhealthy', 30), path('B', 1, 'candidate-limited', 'warning', 30), path('C', 1, 'frontier', 'unhealthy', 99)], [1]);
    assert.equal(rc.chosen, null);
    assert.equal(rc.furthest?.backup.backup_id, 'B', 'an unusable backup never counts; on one frontier the better stop');
    assert.deepEqual(rc.passedOver.map((p) => p.backup.backup_id), ['C', 'B', 'A']);
    assert.equal(restoreChoice(backups, [], []).timeline, null);
  });
});

describe('durations', () => {
  it('reads as an operator would say it, rounded down', () => {
    assert.deepEqual([0, 59.9, 60, 90, 240, 3_599, 3_600, 3_660, 86_399, 86_400, 90_000, 30 * 86_400].map(durationText), ['0 s', '59 s', '1 min', '1 min 30 s', '4 min', '59 min 59 s', '1 h', '1 h 1 min', '23 h 59 min', '1 d', '1 d 1 h', '30 d']);
  });
});
