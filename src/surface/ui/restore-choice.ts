/**
 * The backup an operator would restore from for the newest timeline, read off the wire items the
 * page shows: among the recovery paths to the newest timeline with WAL that reach its frontier
 * from a structurally usable backup, the one whose backup is newest (by its end time, else its
 * begin time). Every backup that could be newer (later, or of unknown time) is passed over with
 * the reason why. When no path reaches the frontier there is no choice; the path that reaches
 * furthest is named instead. What the page says of it is "observed recovery coverage", never a
 * promise that a restore works.
 */
import type { BackupItem, RecoveryPathItem } from '../../contract/collections.ts';

export type WhyNot =
  | { readonly kind: 'not-usable' }
  | { readonly kind: 'no-path' }
  /** The path does not reach the frontier (its `stop` says where it ends). */
  | { readonly kind: 'stops'; readonly path: RecoveryPathItem }
  /** The path reaches the frontier, yet its state is not healthy or warning (consistency not reached). */
  | { readonly kind: 'path-not-usable'; readonly path: RecoveryPathItem };

export interface Candidate {
  readonly backup: BackupItem;
  readonly path: RecoveryPathItem;
}

export interface RestoreChoice {
  /** The newest timeline with WAL; null when no WAL was observed. */
  readonly timeline: number | null;
  readonly chosen: Candidate | null;
  /** Without a choice: the usable backup's path to `timeline` that reaches furthest, if any. */
  readonly furthest: Candidate | null;
  /** Backups that may be newer than the choice (every backup without one), newest first, unknown times first. */
  readonly passedOver: readonly { readonly backup: BackupItem; readonly why: WhyNot }[];
}

const usable = (s: string) => s === 'healthy' || s === 'warning';
/** A backup's time: when it ended, else when it began; null when neither is known. */
export const backupTime = (b: BackupItem): number | null => {
  const t = b.end_at ?? b.begin_at;
  return t === null ? null : Date.parse(t);
};

/** Newest first; a backup of unknown time could be the newest, so it comes first. Ties by id, later first. */
function newestFirst(a: BackupItem, b: BackupItem): number {
  const ta = backupTime(a);
  const tb = backupTime(b);
  if (ta === null || tb === null) {
    if (ta !== tb) return ta === null ? -1 : 1;
  } else if (ta !== tb) return tb - ta;
  return a.backup_id < b.backup_id ? 1 : a.backup_id > b.backup_id ? -1 : 0;
}

const STOP_RANK = { frontier: 0, 'candidate-limited': 1, 'unknown-limited': 2, 'gap-limited': 3 } as const;

export function restoreChoice(backups: readonly BackupItem[], paths: readonly RecoveryPathItem[], walTimelines: readonly number[]): RestoreChoice {
  const timeline = walTimelines.length === 0 ? null : walTimelines.reduce((a, b) => Math.max(a, b));
  const sorted = [...backups].sort(newestFirst);
  const toNewest = new Map<string, RecoveryPathItem>();
  for (const p of paths) if (p.target_timeline === timeline) toNewest.set(p.backup_id, p);
  const whyNot = (b: BackupItem): WhyNot | null => {
    if (!usable(b.state)) return { kind: 'not-usable' };
    const path = toNewest.get(b.backup_id);
    if (path === undefined) return { kind: 'no-path' };
    if (path.stop !== 'frontier') return { kind: 'stops', path };
    if (!usable(path.state)) return { kind: 'path-not-usable', path };
    return null;
  };
  const chosenBackup = timeline === null ? undefined : sorted.find((b) => whyNot(b) === null);
  const chosenPath = chosenBackup === undefined ? undefined : toNewest.get(chosenBackup.backup_id);
  const chosen = chosenBackup === undefined || chosenPath === undefined ? null : { backup: chosenBackup, path: chosenPath };
  const passedOver = (chosen === null ? sorted : sorted.slice(0, sorted.indexOf(chosen.backup))).map((backup) => ({ backup, why: whyNot(backup) ?? { kind: 'no-path' as const } }));
  let furthest: Candidate | null = null;
  if (chosen === null) {
    for (const backup of sorted) {
      const path = toNewest.get(backup.backup_id);
      if (!usable(backup.state) || path === undefined) continue;
      if (furthest === null || reachesFurther(path, furthest.path)) furthest = { backup, path };
    }
  }
  return { timeline, chosen, furthest, passedOver };
}

/** Further along the newest timeline's WAL, then the better stop; the newer backup wins a tie (it is met first). */
function reachesFurther(a: RecoveryPathItem, b: RecoveryPathItem): boolean {
  const at = a.frontier_timeline ?? -1;
  const bt = b.frontier_timeline ?? -1;
  if (at !== bt) return at > bt;
  const ap = a.frontier_position ?? -1;
  const bp = b.frontier_position ?? -1;
  if (ap !== bp) return ap > bp;
  return STOP_RANK[a.stop] < STOP_RANK[b.stop];
}

/** A duration as an operator reads it: `45 s`, `4 min`, `1 h 5 min`, `2 d 3 h` (rounded down). */
export function durationText(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  if (s < 60) return `${s} s`;
  if (s < 3_600) return `${Math.floor(s / 60)} min${s % 60 === 0 ? '' : ` ${s % 60} s`}`;
  if (s < 86_400) return `${Math.floor(s / 3_600)} h${Math.floor(s / 60) % 60 === 0 ? '' : ` ${Math.floor(s / 60) % 60} min`}`;
  return `${Math.floor(s / 86_400)} d${Math.floor(s / 3_600) % 24 === 0 ? '' : ` ${Math.floor(s / 3_600) % 24} h`}`;
}
