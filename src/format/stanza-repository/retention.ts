/**
 * pgBackRest's retention as viewer compares evidence with it.
 *
 * Which gaps its `expire` leaves (research pgbackrest-format.md §4; pgBackRest
 * `src/command/expire/expire.c`, 2.45): archive retention picks a backup (with the default
 * `repo-retention-archive-type=full`, the oldest full backup it keeps; with `diff` or `incr` and
 * a smaller `repo-retention-archive`, a later one) and removes every WAL segment older than that
 * backup's archive start, except each older backup's own `backup-archive-start`..`-stop`, which
 * keeps it consistent. The segments before the oldest backup are no gap at all (evidence never
 * reports what lies before a timeline's first observed segment); the only interior holes expire
 * leaves lie between those islands. Which backup retention picked depends on options the
 * repository does not record, so a hole is expected exactly when it has the shape any such pick
 * leaves:
 *
 * 1. the segment right before the gap is the end (`backup-archive-stop`) of a completed backup on
 *    the gap's timeline (an island ends there);
 * 2. the segment right after the gap is the begin (`backup-archive-start`) of a completed backup
 *    on that timeline (an island, or the picked backup, starts there);
 * 3. no completed backup needs any position of the gap;
 * 4. every segment observed on that timeline below the gap lies inside some completed backup's
 *    begin..end: the pass that cut at the gap's end removed everything else below it, so any other
 *    surviving segment means the hole was made some other way.
 *
 * Anything else is unexplained; without a geometry every gap is. With the default archive
 * retention no interior hole has this shape unless WAL outside every island was lost as well.
 *
 * The retention policy's syntax: pgBackRest has no policy string; its retention is a set of
 * options. Recognised is only the pair that has a neutral meaning — full backups kept by age,
 * `repo-retention-full-type=time` with `repo-retention-full=<days>` (pgBackRest keeps enough full
 * backups that one is at least that old: a recovery window of that many days). Written as the
 * options are, separated by spaces or commas, with or without `repoN-` (`repo1-retention-full-type=time
 * repo1-retention-full=14`). Counted retention (`type=count`, the default) keeps N full backups
 * and their dependents, which the neutral redundancy (N usable backups of any type) does not
 * express: it is unrecognised, and so is any other text (the comparison is then `unknown`).
 */
import { nextPosition, type WalGeometry } from '../../postgres/wal.ts';
import type { BackupPlacement, GapClass, GapSpan, RetentionPolicy } from '../seam.ts';

/** Observed runs of one timeline, ascending (the WAL archive's ranges). */
export type ObservedRuns = (timeline: number) => readonly { readonly start: number; readonly end: number }[];

interface Island {
  readonly timeline: number;
  readonly begin: number;
  readonly end: number;
}

export function classifyGaps(gaps: readonly GapSpan[], backups: readonly BackupPlacement[], geometry: WalGeometry | null, observed: ObservedRuns): GapClass[] {
  if (geometry === null) return gaps.map(() => 'unexplained');
  const islands: Island[] = backups.flatMap((b) => (b.completed && b.timeline !== null && b.beginPosition !== null && b.endPosition !== null ? [{ timeline: b.timeline, begin: b.beginPosition, end: b.endPosition }] : []));
  // A completed backup that cannot be placed could need anything.
  if (backups.some((b) => b.completed && (b.timeline === null || b.beginPosition === null || b.endPosition === null))) return gaps.map(() => 'unexplained');
  const inIsland = (timeline: number, p: number) => islands.some((s) => s.timeline === timeline && s.begin <= p && p <= s.end);
  /** Every position from `from` to `to` lies in some island of `timeline`. */
  const insideIslands = (timeline: number, from: number, to: number): boolean => {
    let p = from;
    while (p <= to) {
      const holding = islands.filter((s) => s.timeline === timeline && s.begin <= p && p <= s.end);
      if (holding.length === 0) return false;
      p = nextPosition(Math.max(...holding.map((s) => s.end)), geometry);
    }
    return true;
  };
  return gaps.map((g) => {
    const mine = islands.filter((s) => s.timeline === g.timeline);
    const endsIsland = mine.some((s) => nextPosition(s.end, geometry) === g.start);
    const after = nextPosition(g.end, geometry);
    const startsIsland = mine.some((s) => s.begin === after);
    const needed = mine.some((s) => s.begin <= g.end && s.end >= g.start) || inIsland(g.timeline, g.start);
    const onlyIslandsBelow = observed(g.timeline).every((r) => r.start > g.end || insideIslands(g.timeline, r.start, Math.min(r.end, g.end)));
    return endsIsland && startsIsland && !needed && onlyIslandsBelow ? 'retention-expected' : 'unexplained';
  });
}

const TOKEN = /^(?:repo[1-9][0-9]{0,2}-)?(retention-full-type|retention-full)=([a-z0-9]+)$/;
const MAX_DAYS = 9_999_999;

/** `repo-retention-full-type=time` with `repo-retention-full=<days>`: a recovery window; null for any other text. */
export function parseRetentionPolicy(text: string): RetentionPolicy | null {
  const tokens = text.trim().split(/[\s,]+/).filter((t) => t !== '');
  const values = new Map<string, string>();
  for (const t of tokens) {
    const m = TOKEN.exec(t);
    if (m === null || values.has(m[1] ?? '')) return null;
    values.set(m[1] ?? '', m[2] ?? '');
  }
  if (values.size !== 2 || values.get('retention-full-type') !== 'time') return null;
  const days = values.get('retention-full') ?? '';
  if (!/^[1-9][0-9]{0,6}$/.test(days) || Number(days) > MAX_DAYS) return null;
  return { kind: 'recovery-window', amount: Number(days), unit: 'days' };
}
