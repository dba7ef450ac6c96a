/**
 * The dependency-chain rule (evidence/backups.ts) and its capability (summary.ts), format-neutral:
 * a backup is no more usable than the artifacts of every backup it depends on; a dependency the
 * catalog does not hold is unhealthy; the dependency's own consistency WAL plays no part; a cycle
 * proves nothing; a long chain is judged without exponential work.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { State } from '../contract/primitives.ts';
import type { BackupDependency, FormatBackup, FormatVerdict } from '../format/seam.ts';
import { geometry, walName } from '../postgres/wal.ts';
import { evaluateBackup } from './backups.ts';
import type { Gap } from './gaps.ts';
import type { TimelineWal } from './wal-archive.ts';
import { WalIndex } from './wal-index.ts';

const g = geometry(16 << 20);
const healthy: FormatVerdict = { state: 'healthy', code: 'structurally-usable', message: 'ok' };

/** WAL observed on timeline 1 at positions 1..20, missing 5 (a confirmed gap). */
function index(): WalIndex {
  const timelines = new Map<number, TimelineWal>([
    [1, { timeline: 1, partials: new Set(), ranges: [{ start: 1, end: 4, count: 4, startReceipt: 0, latestReceipt: 0, endReceipt: 0, compressed: false, duplicated: false }, { start: 6, end: 20, count: 15, startReceipt: 0, latestReceipt: 0, endReceipt: 0, compressed: false, duplicated: false }] }],
  ]);
  const gap: Gap = { timeline: 1, start: 5, end: 5, count: 1, status: 'confirmed', firstObservedGeneration: 1, lastObservedGeneration: 1, firstObservedAt: null, edge: 'inner' };
  return new WalIndex(timelines, [gap]);
}

function backup(id: string, begin: number, end: number, decided: State | null = null, dependsOn: BackupDependency[] = []): FormatBackup & { dependsOn: BackupDependency[] } {
  return {
    fields: {
      backup_id: id, status: 'DONE', backup_type: 'full', system_id: null, postgresql_version: null, timeline: 1, wal_segment_size_bytes: g.segmentSize,
      begin_wal: walName(1, begin, g), end_wal: walName(1, end, g), begin_lsn: null, end_lsn: null, begin_at: null, end_at: null, logical_bytes: null,
      deduplicated_bytes: null, stored_artifact_bytes: null, compression: null, encryption: null, artifact_count: null, tablespace_count: null,
    },
    decided: decided === null ? null : { state: decided, code: `artifacts-${decided}`, message: decided },
    unplaceable: healthy,
    otherwise: healthy,
    completed: true,
    mayHaveCompleted: true,
    standalone: false,
    trusted: { timeline: 1, endLsn: null, endAt: null },
    label: { name: null, keep: null },
    dependsOn,
  };
}

const judge = (b: FormatBackup) => {
  const f = evaluateBackup(b, { server: 's', geometry: g, index: index() });
  return [f.item.state, f.item.reason.code, f.chain, f.shelf];
};
const on = (b: FormatBackup): BackupDependency => ({ id: b.fields.backup_id, backup: b });

describe('the dependency-chain rule', () => {
  it('leaves a backup without dependencies alone, and one whose chain is usable healthy', () => {
    const full = backup('F', 1, 2);
    assert.deepEqual(judge(full), ['healthy', 'structurally-usable', null, 'completed']);
    assert.deepEqual(judge(backup('D', 7, 8, null, [on(full)])), ['healthy', 'structurally-usable', 'healthy', 'completed']);
  });

  it('ignores the WAL a dependency needed for its own consistency', () => {
    // The full's own WAL (4..5) falls in the confirmed gap; the diff replays from its own begin.
    const full = backup('F', 4, 5);
    assert.deepEqual(judge(full), ['unhealthy', 'required-wal-missing', null, 'structurally incomplete']);
    assert.deepEqual(judge(backup('D', 7, 8, null, [on(full)])), ['healthy', 'structurally-usable', 'healthy', 'completed']);
  });

  it('takes a broken or unknown dependency\'s state, and a missing one as unhealthy', () => {
    assert.deepEqual(judge(backup('I', 7, 8, null, [on(backup('F', 1, 2, 'unhealthy'))])), ['unhealthy', 'dependency-not-usable', 'unhealthy', 'structurally incomplete']);
    assert.deepEqual(judge(backup('I', 7, 8, null, [on(backup('F', 1, 2, 'unknown'))])), ['unknown', 'dependency-not-usable', 'unknown', 'structurally incomplete']);
    assert.deepEqual(judge(backup('I', 7, 8, null, [{ id: 'gone', backup: null }])), ['unhealthy', 'dependency-missing', 'unhealthy', 'structurally incomplete']);
    // Transitively: a diff whose full is broken breaks the incr built on the diff.
    const d = backup('D', 3, 3, null, [on(backup('F', 1, 2, 'unhealthy'))]);
    assert.deepEqual(judge(backup('I', 7, 8, null, [on(d)])), ['unhealthy', 'dependency-not-usable', 'unhealthy', 'structurally incomplete']);
  });

  it('keeps the backup\'s own verdict when it is at least as severe', () => {
    assert.deepEqual(judge(backup('I', 7, 8, 'unhealthy', [on(backup('F', 1, 2, 'unknown'))])), ['unhealthy', 'artifacts-unhealthy', 'unknown', 'structurally incomplete']);
  });

  it('proves nothing through a cycle, and judges a long chain in linear steps', () => {
    const a = backup('A', 1, 2);
    const b = backup('B', 3, 4, null, [on(a)]);
    a.dependsOn.push(on(b));
    assert.equal(judge(b)[0], 'unknown');
    // 2,000 incrementals, each naming every earlier one: 2ⁿ work would never finish.
    const chain: FormatBackup[] = [backup('F', 1, 2)];
    for (let i = 1; i < 2000; i++) chain.push(backup(`I${i}`, 7, 8, null, chain.map(on)));
    const last = chain.at(-1);
    assert.ok(last !== undefined);
    for (const b2 of chain) evaluateBackup(b2, { server: 's', geometry: g, index: index() });
    assert.deepEqual(judge(last), ['healthy', 'structurally-usable', 'healthy', 'completed']);
  });
});
