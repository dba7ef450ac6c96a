/**
 * The reference console's "backup to restore from" for the newest timeline (issue 26, D-123),
 * computed from its cached projection's wire items alone: the backups, the recovery paths, the WAL
 * ranges (which timeline is the newest), the gaps (the segments a path stops at) and the snapshot.
 * The choice itself is the standalone page's (`surface/ui/restore-choice.ts`, the same function on
 * the same items), so a console and the page never name different backups for one publication.
 *
 * It is `unknown`, never a guess, whenever the projection cannot stand for the repository now: no
 * projection, a source that is not `available`/`current` (a retained projection), no completed scan,
 * a stale or incomplete publication, format details this console does not recognize (it could not
 * see the truncation flags), truncated ranges or diagnostics, or any collection not assembled (413).
 * The shape is the console JSON's `restore` field (docs/consumer.md §7); keys in a fixed order.
 */
import type { Projection, SourceStatus } from '../../client/index.ts';
import type { BackupItem, RecoveryPathItem, WalGapItem } from '../../contract/collections.ts';
import { commonSummary } from '../../contract/details-view.ts';
import { COLLECTIONS, type CollectionRoute } from '../../contract/routes.ts';
import { backupTime, restoreChoice, type WhyNot } from '../ui/restore-choice.ts';

export const RESTORE_UNKNOWN_REASONS = [
  'not-configured',
  'no-projection',
  'source-not-current',
  'no-completed-scan',
  'stale',
  'incomplete',
  'details-unrecognized',
  'evidence-truncated',
  'collection-unknown',
] as const;
export type RestoreUnknownReason = (typeof RESTORE_UNKNOWN_REASONS)[number];

/** The gap a path stops at: the first on its frontier timeline after its frontier. */
export interface StopGap {
  readonly status: WalGapItem['status'];
  readonly first_wal: string;
  readonly last_wal: string;
  readonly segment_count: number;
}

/** A recovery path as the restore choice names it. */
export interface PathEnd {
  readonly backup_id: string;
  readonly state: RecoveryPathItem['state'];
  readonly reason_code: string;
  readonly stop: RecoveryPathItem['stop'];
  readonly frontier_timeline: number | null;
  readonly frontier_wal: string | null;
  readonly frontier_receipt_at: string | null;
  /** For `gap-limited` and `candidate-limited`: the gap it stops at, when the wal-gaps collection names one. */
  readonly gap: StopGap | null;
}

export interface PassedOver {
  readonly backup_id: string;
  /** Neither an end nor a begin time: it could be the newest, so it is passed over with its reason. */
  readonly time_unknown: boolean;
  readonly why: WhyNot['kind'];
  /** The backup's reason for `not-usable`, its path's otherwise; null for `no-path`. */
  readonly reason_code: string | null;
  readonly path: PathEnd | null;
}

/** Why there is no backup to restore from, as the standalone page words it. */
export type NoneReason = 'no-wal' | 'no-backup' | 'no-usable-backup' | 'no-path-to-timeline' | 'no-path-reaches-newest-wal';

export type ConsoleRestore =
  | { readonly known: false; readonly reason: RestoreUnknownReason; readonly collections: readonly CollectionRoute[] }
  | {
      readonly known: true;
      /** The newest timeline with WAL; null when no WAL was observed. */
      readonly timeline: number | null;
      readonly backup: { readonly backup_id: string; readonly end_at: string | null; readonly path: PathEnd } | null;
      readonly none: { readonly reason: NoneReason; readonly furthest: PathEnd | null } | null;
      /** Every backup that may be newer than the choice (every backup without one), newest first, unknown times first. */
      readonly passed_over: readonly PassedOver[];
    };

const unknown = (reason: RestoreUnknownReason, collections: readonly CollectionRoute[] = []): ConsoleRestore => ({ known: false, reason, collections });

function gapAfter(path: RecoveryPathItem, gaps: readonly WalGapItem[]): StopGap | null {
  if (path.stop !== 'gap-limited' && path.stop !== 'candidate-limited') return null;
  if (path.frontier_timeline === null || path.frontier_position === null) return null;
  const frontier = path.frontier_position;
  const after = gaps.filter((g) => g.timeline === path.frontier_timeline && g.start_position > frontier);
  const g = after.reduce<WalGapItem | null>((m, x) => (m === null || x.start_position < m.start_position ? x : m), null);
  return g === null ? null : { status: g.status, first_wal: g.first_wal, last_wal: g.last_wal, segment_count: g.segment_count };
}

const pathEnd = (p: RecoveryPathItem, gaps: readonly WalGapItem[]): PathEnd => ({
  backup_id: p.backup_id,
  state: p.state,
  reason_code: p.reason.code,
  stop: p.stop,
  frontier_timeline: p.frontier_timeline,
  frontier_wal: p.frontier_wal,
  frontier_receipt_at: p.frontier_receipt_at,
  gap: gapAfter(p, gaps),
});

function passedOver(backup: BackupItem, why: WhyNot, gaps: readonly WalGapItem[]): PassedOver {
  const path = why.kind === 'stops' || why.kind === 'path-not-usable' ? why.path : null;
  return {
    backup_id: backup.backup_id,
    time_unknown: backupTime(backup) === null,
    why: why.kind,
    reason_code: why.kind === 'not-usable' ? backup.reason.code : path === null ? null : path.reason.code,
    path: path === null ? null : pathEnd(path, gaps),
  };
}

const usable = (s: string) => s === 'healthy' || s === 'warning';

/** The backup to restore from for the newest timeline, or unknown with the reason. */
export function consoleRestore(enabled: boolean, status: SourceStatus, p: Projection | null): ConsoleRestore {
  if (!enabled) return unknown('not-configured');
  if (p === null) return unknown('no-projection');
  if (status.state !== 'available' || status.reason !== 'current') return unknown('source-not-current');
  const s = p.snapshot;
  if (s.evidence_generation === 0) return unknown('no-completed-scan');
  if (s.stale) return unknown('stale');
  if (s.completeness !== 'complete') return unknown('incomplete');
  const summary = commonSummary(p.details.known ? p.details : null);
  if (summary === null) return unknown('details-unrecognized');
  if (summary.ranges_truncated || summary.diagnostics_truncated) return unknown('evidence-truncated');
  const c = p.collections;
  const missing = COLLECTIONS.map((x) => x.route).filter((r) => !c[r].known);
  if (!c.backups.known || !c['wal-ranges'].known || !c['wal-gaps'].known || !c['recovery-paths'].known) return unknown('collection-unknown', missing);
  const backups = c.backups.items;
  const gaps = c['wal-gaps'].items;
  const rc = restoreChoice(backups, c['recovery-paths'].items, c['wal-ranges'].items.map((r) => r.timeline));
  const passed = rc.timeline === null ? [] : rc.passedOver.map(({ backup, why }) => passedOver(backup, why, gaps));
  if (rc.chosen !== null) {
    const { backup, path } = rc.chosen;
    return { known: true, timeline: rc.timeline, backup: { backup_id: backup.backup_id, end_at: backup.end_at, path: pathEnd(path, gaps) }, none: null, passed_over: passed };
  }
  const f = rc.furthest;
  const reason: NoneReason =
    rc.timeline === null ? 'no-wal'
    : f !== null ? 'no-path-reaches-newest-wal'
    : backups.length === 0 ? 'no-backup'
    : backups.some((b) => usable(b.state)) ? 'no-path-to-timeline'
    : 'no-usable-backup';
  return { known: true, timeline: rc.timeline, backup: null, none: { reason, furthest: f === null || rc.timeline === null ? null : pathEnd(f.path, gaps) }, passed_over: passed };
}
