/**
 * Observed recovery coverage: for each completed backup and each target timeline reachable from
 * it, walk the archived WAL forward from `begin_wal`, across timeline switchpoints, to the first
 * stop. What is reported is what the archive shows, never a promise that a restore would work:
 * "observed recovery coverage". Design and cases: docs/design/evidence.md §Recovery paths.
 *
 * Targets: the backup's own timeline, and every timeline whose ancestry leaves the backup's
 * timeline at or after the backup's end LSN (Barman's `get_children_timelines` rule). A timeline
 * with unknown ancestry that is newer than the backup's is a target too: it might descend from
 * it, and the path to it stops `unknown-limited`.
 *
 * The walk: on each timeline of the lineage, WAL is needed up to the segment before the one
 * holding the switchpoint (that segment is the child's first); on the target timeline, up to
 * the end of what was observed. The first position not observed decides the stop:
 * `candidate-limited` (an unconfirmed gap), `gap-limited` (a confirmed gap, WAL before the first
 * observed segment, or WAL missing before a switch), or `frontier` (the end of the target
 * timeline's observed WAL). Only a path that reaches the frontier can be healthy; a
 * `keep:standalone` backup whose path stops at a hole retention is expected to leave
 * (`retention-holes.ts`) gets its own reason and a warning, never green.
 *
 * Less evidence never improves a path: a target timeline with a history and no archived segment
 * is not covered (unknown while its first segment may still come, unhealthy once the store's
 * clock says it should have); a target whose history the listing contradicts is unknown; with
 * more than one database system in the scope no WAL can be attributed to the backup's, and every
 * path is unknown.
 */
import type { RecoveryPathItem } from '../contract/collections.ts';
import type { Reason, State } from '../contract/primitives.ts';
import { nextPosition, positionOfLsn, walName, type WalGeometry } from '../postgres/wal.ts';
import type { BackupFacts } from './backups.ts';
import type { Gap } from './gaps.ts';
import type { LineageStep, TimelineGraph } from './timelines.ts';
import type { WalIndex } from './wal-index.ts';

type Stop = RecoveryPathItem['stop'];
type Assumption = RecoveryPathItem['assumption_codes'][number];

const REASONS = {
  'coverage-to-frontier': 'WAL is continuous from the backup to the newest observed segment of the target timeline.',
  'coverage-candidate-limited': 'The path stops at a WAL gap that is not yet confirmed.',
  'coverage-gap-limited': 'The path stops at missing WAL.',
  'coverage-unknown-limited': 'The path stops where timeline history or WAL geometry is unknown.',
  'consistency-not-reached': 'The WAL needed to make the backup consistent is not all observed.',
  'standalone-retention-limited': 'A standalone backup: WAL is observed to its consistency point, then stops at a hole with the shape retention leaves.',
  'backup-not-usable': 'The backup this path starts from is not structurally usable.',
  'backup-usability-unknown': 'Whether the backup this path starts from is usable is unknown.',
  'backup-warning': 'The backup this path starts from carries a warning.',
  'coverage-history-contradicted': 'The target timeline\'s history declares a switch the archived WAL contradicts.',
  'target-timeline-not-archived': 'The target timeline has a history file but no archived WAL segment yet.',
  'target-timeline-wal-missing': 'The target timeline has had a history file for over an hour of the store\'s clock and no archived WAL segment.',
  'coverage-system-ambiguous': 'WAL of more than one database system shares this location, so none can be attributed to this backup.',
} as const;
type PathReason = keyof typeof REASONS;

/**
 * Reasons that say WAL on the path is lost, contradicted or not attributable (never a stop at a
 * hole with the shape the format's retention leaves): such a path from a usable backup means part
 * of the window only that backup covered is gone, whatever the best path shows.
 */
const LOSSES: ReadonlySet<PathReason> = new Set(['coverage-gap-limited', 'consistency-not-reached', 'coverage-unknown-limited', 'coverage-history-contradicted', 'target-timeline-wal-missing', 'coverage-system-ambiguous']);

/** A path, and whether it stops at lost, contradicted or unattributable WAL (not on the wire: the scope's coverage counts it). */
export interface PathResult {
  readonly item: RecoveryPathItem;
  readonly losesWal: boolean;
}
const reason = (code: PathReason): Reason => ({ code, message: REASONS[code] });

export interface PathContext {
  readonly server: string;
  readonly geometry: WalGeometry | null;
  readonly graph: TimelineGraph;
  readonly index: WalIndex;
  /** Whether a gap has exactly the shape the format's own retention leaves (the seam's `classifyGaps`). */
  readonly retentionHole: (gap: Gap) => boolean;
  /**
   * For a timeline with no archived segment: `lost` once its first segment should have been
   * archived by the store's clock, `not-yet` before; null when it has archived WAL.
   */
  readonly unarchived: (timeline: number) => 'lost' | 'not-yet' | null;
  /** More than one database system id in the scope: WAL cannot be attributed to any backup. */
  readonly systemAmbiguous: boolean;
}

interface Walk {
  stop: Stop;
  /** The gap the walk stopped in, if it stopped in one. */
  stopGap: Gap | null;
  frontier: { timeline: number; position: number; receipt: number | null } | null;
  crossedSwitch: boolean;
  compressed: boolean;
  duplicated: boolean;
  partialAtSwitch: boolean;
}

function walk(steps: readonly LineageStep[], begin: number, g: WalGeometry, index: WalIndex, unknownAfter: boolean): Walk {
  const w: Walk = { stop: 'frontier', stopGap: null, frontier: null, crossedSwitch: false, compressed: false, duplicated: false, partialAtSwitch: false };
  let position = begin;
  for (const [i, step] of steps.entries()) {
    const isTarget = i === steps.length - 1;
    // The segment holding the switchpoint already belongs to the child timeline.
    const until = step.leaveAt === null ? null : positionOfLsn(step.leaveAt, g);
    while (until === null || position < until) {
      const range = index.rangeAt(step.timeline, position);
      if (range === null) {
        const absence = index.absence(step.timeline, position);
        if (unknownAfter && isTarget) w.stop = 'unknown-limited';
        else if (absence.kind === 'gap') {
          w.stop = absence.gap.status === 'confirmed' ? 'gap-limited' : 'candidate-limited';
          w.stopGap = absence.gap;
        }
        else if (absence.kind === 'before-observed' || !isTarget) w.stop = 'gap-limited';
        else w.stop = 'frontier';
        return w;
      }
      const last = until === null ? range.end : Math.min(range.end, until - 1);
      w.compressed ||= range.compressed;
      w.duplicated ||= range.duplicated;
      w.frontier = { timeline: step.timeline, position: last, receipt: last === range.end ? range.endReceipt : range.latestReceipt };
      position = nextPosition(last, g);
    }
    if (!isTarget) {
      w.crossedSwitch = true;
      if (until !== null && index.hasPartial(step.timeline, until)) w.partialAtSwitch = true;
    }
  }
  return w;
}

/** The lineage from the backup's timeline to `target`, or `null` when `target` is not reachable. */
function lineageFrom(backupTimeline: number, endLsn: bigint, target: readonly LineageStep[]): readonly LineageStep[] | null {
  const at = target.findIndex((s) => s.timeline === backupTimeline);
  if (at === -1) return null;
  const leave = target[at]?.leaveAt ?? null;
  if (leave !== null && leave < endLsn) return null;
  return target.slice(at);
}

/**
 * A path is never better than the backup it starts from: the spec's state is the conservative
 * one, and WAL coverage from a backup that is not usable (or not proven usable) recovers nothing.
 * A worse verdict of the walk itself (a confirmed gap, consistency not reached) is kept: it is the
 * more specific reason.
 */
function capByBackup(backupState: State, state: State, code: PathReason): [State, PathReason] {
  if (backupState === 'unhealthy') return state === 'unhealthy' ? [state, code] : ['unhealthy', 'backup-not-usable'];
  if (backupState === 'unknown') return state === 'healthy' || state === 'warning' ? ['unknown', 'backup-usability-unknown'] : [state, code];
  if (backupState === 'warning' && state === 'healthy') return ['warning', 'backup-warning'];
  return [state, code];
}

/** Why a path's target is beyond what the walk can judge, when it is. */
type TargetDoubt = 'contradicted' | null;

function pathItem(backup: BackupFacts, target: number, ctx: PathContext, w: Walk | null, extra: readonly Assumption[], doubt: TargetDoubt = null): PathResult {
  const g = ctx.geometry;
  const end = backup.endPosition ?? Number.POSITIVE_INFINITY;
  const consistent = w?.frontier != null && (w.frontier.timeline !== backup.timeline || w.frontier.position >= end);
  let stop: Stop = w === null ? 'unknown-limited' : w.stop;
  // The walk reached the end of what was observed, but the target timeline archived nothing.
  const unarchived = w !== null && stop === 'frontier' && target !== backup.timeline ? ctx.unarchived(target) : null;
  let state: State;
  let code: PathReason;
  if (ctx.systemAmbiguous) {
    [state, code] = ['unknown', 'coverage-system-ambiguous'];
  } else if (doubt === 'contradicted' && (consistent || stop === 'unknown-limited')) {
    [state, code] = ['unknown', 'coverage-history-contradicted'];
  } else if (unarchived === 'lost' && consistent) {
    stop = 'gap-limited';
    [state, code] = ['unhealthy', 'target-timeline-wal-missing'];
  } else if (unarchived === 'not-yet' && consistent) {
    [state, code] = ['unknown', 'target-timeline-not-archived'];
  } else if (!consistent) {
    state = stop === 'gap-limited' ? 'unhealthy' : 'unknown';
    code = stop === 'unknown-limited' ? 'coverage-unknown-limited' : 'consistency-not-reached';
  } else if (stop === 'frontier') {
    [state, code] = ['healthy', 'coverage-to-frontier'];
  } else if (backup.standalone && w?.stopGap != null && ctx.retentionHole(w.stopGap)) {
    // Reached its consistency point, then the hole retention leaves after a standalone backup
    // (confirmed or not yet): what keep:standalone promises, but not coverage to the frontier.
    [state, code] = ['warning', 'standalone-retention-limited'];
  } else if (stop === 'candidate-limited') {
    [state, code] = ['warning', 'coverage-candidate-limited'];
  } else if (stop === 'gap-limited') {
    [state, code] = ['unhealthy', 'coverage-gap-limited'];
  } else {
    [state, code] = ['unknown', 'coverage-unknown-limited'];
  }
  const losesWal = (state === 'unhealthy' || state === 'unknown') && LOSSES.has(code) && !(w?.stopGap != null && ctx.retentionHole(w.stopGap));
  [state, code] = capByBackup(backup.item.state, state, code);
  const codes = new Set<Assumption>(['segment-content-not-verified', 'segment-size-from-metadata', ...extra]);
  if (consistent) codes.add('backup-end-from-metadata');
  if (w?.compressed === true) codes.add('compressed-content-not-decoded');
  if (w?.duplicated === true) codes.add('duplicate-wal-name-not-compared');
  if (w?.crossedSwitch === true) codes.add('history-content-trusted');
  if (w?.partialAtSwitch === true) codes.add('partial-segment-not-used');
  if (g?.skipsLastSegment === true) codes.add('pre-93-segment-ff-skipped');
  const f = w?.frontier ?? null;
  const start = backup.beginPosition;
  const item: RecoveryPathItem = {
    server: ctx.server,
    backup_id: backup.item.backup_id,
    target_timeline: target,
    state,
    reason: reason(code),
    stop,
    lower_bound_at: consistent ? backup.endAt : null,
    start_timeline: start === null ? null : backup.timeline,
    start_position: start,
    start_wal: start === null || g === null || backup.timeline === null ? null : walName(backup.timeline, start, g),
    frontier_timeline: f?.timeline ?? null,
    frontier_position: f?.position ?? null,
    frontier_wal: f === null || g === null ? null : walName(f.timeline, f.position, g),
    frontier_receipt_at: f?.receipt == null ? null : new Date(f.receipt).toISOString(),
    assumption_codes: [...codes].sort(),
  };
  return { item, losesWal: losesWal && backup.usable };
}

/** Every recovery path of one completed backup. */
export function recoveryPaths(backup: BackupFacts, ctx: PathContext): PathResult[] {
  const t0 = backup.timeline;
  if (!backup.completed || t0 === null) return [];
  const g = ctx.geometry;
  const begin = backup.beginPosition;
  if (g === null || begin === null || backup.endLsn === null) return [pathItem(backup, t0, ctx, null, [])];
  const paths: PathResult[] = [];
  for (const target of ctx.graph.timelines) {
    if (target < t0) continue;
    const own: readonly LineageStep[] = [{ timeline: t0, leaveAt: null }];
    if (target === t0) {
      // Along its own timeline a backup needs no history at all.
      paths.push(pathItem(backup, target, ctx, walk(own, begin, g, ctx.index, false), []));
      continue;
    }
    const ancestry = ctx.graph.ancestry(target);
    if (!ancestry.known) {
      // Maybe a descendant: covered as far as the backup's own timeline goes, then unknown.
      paths.push(pathItem(backup, target, ctx, walk(own, begin, g, ctx.index, true), [], ancestry.reason === 'history-contradicted' ? 'contradicted' : null));
      continue;
    }
    const steps = lineageFrom(t0, backup.endLsn, ancestry.steps);
    if (steps === null) continue;
    paths.push(pathItem(backup, target, ctx, walk(steps, begin, g, ctx.index, false), []));
  }
  return paths;
}
