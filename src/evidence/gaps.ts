/**
 * WAL gaps and their lifecycle. A gap is a run of missing positions strictly between two observed
 * segments of one timeline; positions before a timeline's first or after its last observed
 * segment are not gaps (nothing says they should exist there yet, or any longer).
 *
 * Lifecycle (docs/design/evidence.md §Gaps): every gap starts `candidate`. It becomes `confirmed`
 * when the archive has moved on past it: either it was already missing in an earlier complete
 * generation and the segment after it was received at least SETTLE before the archive's newest
 * receipt, or that segment was received at least LONG_SETTLE before the newest receipt (archiving
 * never lags that long behind a segment that came later). Receipt times are the store's own, so
 * the rule needs no agreement between the store's clock and ours. Generations advance only on
 * complete scans; a gap inherits the earliest first observation of any earlier gap it overlaps.
 *
 * Confirmed stays confirmed until filled: a gap that overlaps a remembered confirmed gap is
 * confirmed, whatever its new shape. Positions proven missing stay missing until WAL arrives for
 * them; a gap that widened (more WAL lost beside it, or retention cutting into it) must not fall
 * back to `candidate` because the segment now after it is recent.
 */
import { nextPosition, positionExists, positionsBetween, walName, type WalGeometry } from '../postgres/wal.ts';
import type { TimelineWal } from './wal-archive.ts';

export const SETTLE_MS = 5 * 60 * 1000;
export const LONG_SETTLE_MS = 60 * 60 * 1000;

export interface Gap {
  readonly timeline: number;
  readonly start: number;
  readonly end: number;
  readonly count: number;
  readonly status: 'candidate' | 'confirmed';
  readonly firstObservedGeneration: number;
  readonly lastObservedGeneration: number;
}

import type { GapClass } from '../format/seam.ts';

export type { GapClass } from '../format/seam.ts';

/** What a previous complete generation recorded about a gap. */
export interface GapMemory {
  readonly timeline: number;
  readonly start: number;
  readonly end: number;
  readonly firstObservedGeneration: number;
  readonly status: Gap['status'];
  readonly class: GapClass;
}

/** How long the archive must have moved on past a gap before it is confirmed (store receipt time). */
export interface GapSettle {
  /** After an earlier complete generation already saw the gap. */
  readonly settleMs: number;
  /** In any generation. */
  readonly longSettleMs: number;
}

export const DEFAULT_GAP_SETTLE: GapSettle = { settleMs: SETTLE_MS, longSettleMs: LONG_SETTLE_MS };

export interface GapContext {
  readonly geometry: WalGeometry;
  /** The generation this scan would publish if complete. */
  readonly generation: number;
  readonly previous: readonly GapMemory[];
  /** Newest receipt time in the archive (epoch ms). */
  readonly newestReceipt: number | null;
  /** Confirmation needs a trustworthy geometry; without it every gap stays a candidate. */
  readonly geometryKnown: boolean;
  readonly settle?: GapSettle;
}

function previousPosition(position: number, g: WalGeometry): number {
  const p = position - 1;
  return positionExists(p, g) ? p : p - 1;
}

/**
 * The remembered gaps by timeline, for overlap lookups. Remembered gaps are disjoint, so sorted
 * by start they are sorted by end too: a binary search finds the first that ends at or after a
 * position (a linear filter per gap made rescans quadratic in the gap count).
 */
export class GapMemoryIndex {
  readonly #byTimeline = new Map<number, GapMemory[]>();

  constructor(previous: readonly GapMemory[]) {
    for (const m of previous) {
      const list = this.#byTimeline.get(m.timeline);
      if (list === undefined) this.#byTimeline.set(m.timeline, [m]);
      else list.push(m);
    }
    for (const list of this.#byTimeline.values()) list.sort((a, b) => a.start - b.start);
  }

  /** The remembered gaps of `timeline` overlapping [start, end]. */
  overlapping(timeline: number, start: number, end: number): GapMemory[] {
    const sorted = this.#byTimeline.get(timeline) ?? [];
    let lo = 0;
    let hi = sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((sorted[mid] as GapMemory).end < start) lo = mid + 1;
      else hi = mid;
    }
    const out: GapMemory[] = [];
    for (let i = lo; i < sorted.length && (sorted[i] as GapMemory).start <= end; i++) out.push(sorted[i] as GapMemory);
    return out;
  }
}

export function findGaps(timelines: Iterable<TimelineWal>, ctx: GapContext): Gap[] {
  const gaps: Gap[] = [];
  const remembered = new GapMemoryIndex(ctx.previous);
  for (const tl of timelines) {
    for (let i = 1; i < tl.ranges.length; i++) {
      const before = tl.ranges[i - 1];
      const after = tl.ranges[i];
      if (before === undefined || after === undefined) continue;
      const start = nextPosition(before.end, ctx.geometry);
      const end = previousPosition(after.start, ctx.geometry);
      if (end < start) continue;
      const count = positionsBetween(start, end, ctx.geometry);
      const earlier = remembered.overlapping(tl.timeline, start, end);
      const first = earlier.reduce((f, m) => Math.min(f, m.firstObservedGeneration), ctx.generation);
      // The segment after the gap: the first of the following range.
      const followingReceipt = after.startReceipt;
      const movedOn = (ms: number) => ctx.newestReceipt !== null && followingReceipt !== null && ctx.newestReceipt - followingReceipt >= ms;
      const settle = ctx.settle ?? DEFAULT_GAP_SETTLE;
      const wasConfirmed = earlier.some((m) => m.status === 'confirmed');
      const confirmed = ctx.geometryKnown && (wasConfirmed || (first < ctx.generation && movedOn(settle.settleMs)) || movedOn(settle.longSettleMs));
      gaps.push({
        timeline: tl.timeline,
        start,
        end,
        count,
        status: confirmed ? 'confirmed' : 'candidate',
        firstObservedGeneration: first,
        lastObservedGeneration: ctx.generation,
      });
    }
  }
  return gaps;
}

export const gapNames = (g: Gap, geometry: WalGeometry) => ({
  first: walName(g.timeline, g.start, geometry),
  last: walName(g.timeline, g.end, geometry),
});
