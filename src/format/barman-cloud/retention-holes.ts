/**
 * Which WAL gaps have exactly the shape Barman's own retention leaves, and so are expected rather
 * than lost WAL. `barman-cloud-backup-delete` removes WAL only when every backup older than the
 * deleted one is `keep:standalone`, removes only WAL older than the `begin_wal` of the backup that
 * follows the deleted one, on that backup's timeline, and never the `begin_wal`..`end_wal` of a
 * `keep:standalone` backup (research: barman-cloud-format.md §4.3; Barman's
 * `BackupManager.should_remove_wals`). Below the oldest remaining backup that is not standalone,
 * the archive therefore holds only standalone islands; a hole between them is expected exactly
 * when:
 *
 * 1. a completed backup that is not `keep:standalone` exists, and the oldest such (`anchor`, by
 *    begin time) is on the gap's timeline and begins after the gap;
 * 2. the segment right before the gap is the `end_wal` of a `keep:standalone` backup on that
 *    timeline older than the anchor (the hole starts where an island ends);
 * 3. the segment right after the gap is the `begin_wal` of the anchor or of such a standalone
 *    backup (retention cuts at a remaining backup's `begin_wal`);
 * 4. no completed backup needs any position of the gap (its `begin_wal`..`end_wal` on the
 *    timeline does not meet it);
 * 5. every segment observed on that timeline below the gap's end lies inside such a standalone
 *    backup's `begin_wal`..`end_wal`: the pass that cut at the gap's end deleted everything else
 *    below it, so any other surviving segment means the hole was made some other way.
 *
 * Anything else, including every gap when only standalone backups remain (the cut of the last
 * deleted backup is unknowable), is unexplained. Design note: docs/design/evidence.md §WAL states.
 */
import { nextPosition, type WalGeometry } from '../../postgres/wal.ts';
import type { BackupPlacement, GapClass, GapSpan } from '../seam.ts';

interface Placed {
  readonly facts: BackupPlacement;
  readonly timeline: number;
  readonly begin: number;
  readonly end: number;
  /** Epoch ms. */
  readonly beginAt: number;
  readonly standalone: boolean;
}

/** Completed backups whose timeline, WAL positions and begin time are all known, oldest first. */
function placed(backups: readonly BackupPlacement[]): Placed[] {
  return backups
    .flatMap((b) =>
      b.completed && b.timeline !== null && b.beginPosition !== null && b.endPosition !== null && b.beginAt !== null
        ? [{ facts: b, timeline: b.timeline, begin: b.beginPosition, end: b.endPosition, beginAt: Date.parse(b.beginAt), standalone: b.standalone }]
        : [],
    )
    .sort((a, b) => a.beginAt - b.beginAt);
}

/**
 * The class of each gap, in the order given. Without a geometry no position can be placed, and
 * every gap is unexplained.
 */
/** Observed runs of one timeline, ascending (the WAL archive's ranges). */
export type ObservedRuns = (timeline: number) => readonly { readonly start: number; readonly end: number }[];

export function classifyGaps(gaps: readonly GapSpan[], backups: readonly BackupPlacement[], geometry: WalGeometry | null, observed: ObservedRuns): GapClass[] {
  if (geometry === null) return gaps.map(() => 'unexplained');
  const all = placed(backups);
  const anchor = all.find((b) => !b.standalone);
  if (anchor === undefined) return gaps.map(() => 'unexplained');
  // A completed backup that cannot be placed could be older than the anchor and need anything;
  // only one known to begin after the anchor is harmless.
  const placedFacts = new Set(all.map((p) => p.facts));
  const unplaced = backups.filter((b) => b.completed && !placedFacts.has(b));
  if (unplaced.some((b) => b.beginAt === null || Date.parse(b.beginAt) <= anchor.beginAt)) return gaps.map(() => 'unexplained');
  const islands = all.filter((b) => b.standalone && b.timeline === anchor.timeline && b.beginAt < anchor.beginAt);
  /** Whether every position from `from` to `to` lies in some island. */
  const insideIslands = (from: number, to: number): boolean => {
    let p = from;
    while (p <= to) {
      const holding = islands.filter((s) => s.begin <= p && p <= s.end);
      if (holding.length === 0) return false;
      p = nextPosition(Math.max(...holding.map((s) => s.end)), geometry);
    }
    return true;
  };
  const runs = observed(anchor.timeline);
  return gaps.map((g) => {
    if (g.timeline !== anchor.timeline || g.end >= anchor.begin) return 'unexplained';
    const startsAfterIsland = islands.some((s) => nextPosition(s.end, geometry) === g.start);
    const after = nextPosition(g.end, geometry);
    const endsAtCut = after === anchor.begin || islands.some((s) => s.begin === after);
    const needed = all.some((b) => b.timeline === g.timeline && b.begin <= g.end && b.end >= g.start);
    const onlyIslandsBelow = runs.every((r) => r.start > g.end || insideIslands(r.start, Math.min(r.end, g.end)));
    return startsAfterIsland && endsAtCut && !needed && onlyIslandsBelow ? 'retention-expected' : 'unexplained';
  });
}
