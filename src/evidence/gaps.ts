/**
 * WAL gaps and their lifecycle. A gap is a run of missing positions strictly between two observed
 * segments of one lineage: between two observed segments of one timeline (an inner gap), or at a
 * timeline switch, between the parent's last observed segment before the switch and the child's
 * first observed segment (an edge gap: the child's lost head, or the parent's lost tail before the
 * switch, whichever positions are missing). A timeline's history proves where it starts, so the
 * positions from its switchpoint to its first observed segment are missing WAL like any other.
 * Positions before a lineage's first or after its last observed segment are not gaps (nothing
 * says they should exist there yet, or any longer).
 *
 * Lifecycle (docs/design/evidence.md §Gaps): every gap starts `candidate`. It becomes `confirmed`
 * when the archive has moved on past it: the segment after it (its successor) was received at
 * least LONG_SETTLE before the store's clock at the scan, or before the archive's newest receipt;
 * or the gap was already missing in an earlier complete generation and the successor was received
 * at least SETTLE before the newest receipt, or SETTLE of the store's clock has passed since the
 * scan that first observed it. Receipt times and the store's clock (its `Date` header) are both
 * the store's own, so the rules need no agreement between the store's clock and ours. A receipt
 * after the store's clock proves skew: receipts are then never taken as later than the store's
 * clock, so a future-stamped successor cannot hold a gap `candidate` forever (the first-observed
 * clock reading confirms it). Generations advance only on complete scans; a gap inherits the
 * earliest first observation of any earlier gap it overlaps.
 *
 * Confirmed stays confirmed until filled: a gap that overlaps a remembered confirmed gap is
 * confirmed, whatever its new shape. Positions proven missing stay missing until WAL arrives for
 * them; a gap that widened (more WAL lost beside it, or retention cutting into it) must not fall
 * back to `candidate` because the segment now after it is recent.
 */
import { nextPosition, positionExists, positionsBetween, walName, type WalGeometry } from '../postgres/wal.ts';
import type { TimelineWal, WalRange } from './wal-archive.ts';

export const SETTLE_MS = 5 * 60 * 1000;
export const LONG_SETTLE_MS = 60 * 60 * 1000;
/**
 * A receipt may be stamped up to this long after a `Date` header of the same moment (both are
 * whole seconds, and a listing's header is stamped before the objects it lists were read): only
 * beyond it does a receipt prove the store's clocks disagree.
 */
export const RECEIPT_CLOCK_TOLERANCE_MS = 2_000;

export interface Gap {
  readonly timeline: number;
  readonly start: number;
  readonly end: number;
  readonly count: number;
  readonly status: 'candidate' | 'confirmed';
  readonly firstObservedGeneration: number;
  readonly lastObservedGeneration: number;
  /** The store's clock (epoch ms) at the scan that first observed it; null when no store clock was read then. */
  readonly firstObservedAt: number | null;
  /** `inner`: between two segments of its timeline; `head`/`tail`: at a switch (the child's head, the parent's tail). */
  readonly edge: 'inner' | 'head' | 'tail';
}

import type { GapClass } from '../format/seam.ts';

export type { GapClass } from '../format/seam.ts';

/** What a previous complete generation recorded about a gap. */
export interface GapMemory {
  readonly timeline: number;
  readonly start: number;
  readonly end: number;
  readonly firstObservedGeneration: number;
  readonly lastObservedGeneration: number;
  /** The store's clock (epoch ms) at the scan that first observed it, or null. */
  readonly firstObservedAt: number | null;
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

/** Where a timeline begins, as the history of a timeline whose ancestry is known proves it. */
export interface TimelineStart {
  readonly timeline: number;
  readonly parent: number;
  /** The child's first position: the segment holding the switchpoint. */
  readonly position: number;
}

export interface GapContext {
  readonly geometry: WalGeometry;
  /** The generation this scan would publish if complete. */
  readonly generation: number;
  readonly previous: readonly GapMemory[];
  /** Newest receipt time in the archive (epoch ms). */
  readonly newestReceipt: number | null;
  /** The store's clock at the scan (epoch ms; its listings' latest `Date` header), or null. */
  readonly storeTime?: number | null;
  /** Confirmation needs a trustworthy geometry; without it every gap stays a candidate. */
  readonly geometryKnown: boolean;
  readonly settle?: GapSettle;
  /** Where timelines begin (from known histories): the edges where a head or tail can be lost. */
  readonly starts?: readonly TimelineStart[];
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

/** The last observed range of `ranges` that starts below `position` (ranges sorted, disjoint), if any. */
function lastRangeBelow(ranges: readonly WalRange[], position: number): WalRange | null {
  let lo = 0;
  let hi = ranges.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((ranges[mid] as WalRange).start < position) lo = mid + 1;
    else hi = mid;
  }
  return lo === 0 ? null : (ranges[lo - 1] as WalRange);
}

export function findGaps(timelines: Iterable<TimelineWal>, ctx: GapContext): Gap[] {
  const gaps: Gap[] = [];
  const remembered = new GapMemoryIndex(ctx.previous);
  const settle = ctx.settle ?? DEFAULT_GAP_SETTLE;
  const storeTime = ctx.storeTime ?? null;
  // Receipts are the store's; a receipt after its own clock proves skew and is read as "now" (below).
  const clamp = (receipt: number | null) => (receipt === null || storeTime === null ? receipt : Math.min(receipt, storeTime));
  const newest = clamp(ctx.newestReceipt);
  const add = (timeline: number, start: number, end: number, successorReceipt: number | null, edge: Gap['edge']) => {
    if (end < start) return;
    const count = positionsBetween(start, end, ctx.geometry);
    if (count === 0) return;
    const earlier = remembered.overlapping(timeline, start, end);
    const first = earlier.reduce((f, m) => Math.min(f, m.firstObservedGeneration), ctx.generation);
    const firstAt = earlier.reduce<number | null>((f, m) => (m.firstObservedAt === null ? f : f === null ? m.firstObservedAt : Math.min(f, m.firstObservedAt)), null) ?? (first === ctx.generation ? storeTime : null);
    const following = clamp(successorReceipt);
    const movedOn = (ms: number) => newest !== null && following !== null && newest - following >= ms;
    const storeAged = (ms: number) => storeTime !== null && following !== null && storeTime - following >= ms;
    const seenFor = (ms: number) => storeTime !== null && firstAt !== null && storeTime - firstAt >= ms;
    const wasConfirmed = earlier.some((m) => m.status === 'confirmed');
    const seenBefore = first < ctx.generation;
    const confirmed = ctx.geometryKnown && (wasConfirmed || movedOn(settle.longSettleMs) || storeAged(settle.longSettleMs) || (seenBefore && (movedOn(settle.settleMs) || seenFor(settle.settleMs))));
    gaps.push({ timeline, start, end, count, status: confirmed ? 'confirmed' : 'candidate', firstObservedGeneration: first, lastObservedGeneration: ctx.generation, firstObservedAt: firstAt, edge });
  };
  const byTimeline = new Map<number, TimelineWal>();
  for (const tl of timelines) {
    byTimeline.set(tl.timeline, tl);
    for (let i = 1; i < tl.ranges.length; i++) {
      const before = tl.ranges[i - 1];
      const after = tl.ranges[i];
      if (before === undefined || after === undefined) continue;
      // The successor: the first segment of the following range.
      add(tl.timeline, nextPosition(before.end, ctx.geometry), previousPosition(after.start, ctx.geometry), after.startReceipt, 'inner');
    }
  }
  // Edges: the WAL between the parent's last segment before a switch and the child's first. A
  // parent with several children has one tail: up to its latest switch (its WAL existed up to there).
  const tails = new Map<number, { start: number; end: number; successor: number | null }>();
  for (const s of ctx.starts ?? []) {
    const child = byTimeline.get(s.timeline)?.ranges[0];
    const parent = byTimeline.get(s.parent)?.ranges ?? [];
    const below = lastRangeBelow(parent, s.position);
    // Without the child's WAL nothing came after; without the parent's before the switch, the
    // lineage's WAL begins later (retention removed it, or it was never needed). A child segment
    // before its own switch contradicts its history (the timeline graph's finding, not a gap).
    if (child === undefined || below === null || child.start < s.position) continue;
    add(s.timeline, s.position, previousPosition(child.start, ctx.geometry), child.startReceipt, 'head');
    // The parent's own WAL after the switch (a fork that continued) makes its tail an inner gap.
    if (parent.at(-1) !== below) continue;
    const tail = { start: nextPosition(below.end, ctx.geometry), end: previousPosition(s.position, ctx.geometry), successor: child.startReceipt };
    const known = tails.get(s.parent);
    if (known === undefined || tail.end > known.end) tails.set(s.parent, tail);
  }
  for (const [parent, t] of tails) add(parent, t.start, t.end, t.successor, 'tail');
  return gaps;
}

/** What the next generation remembers of a gap of this one. */
export const rememberGap = (g: Gap, gapClass: GapClass): GapMemory => ({
  timeline: g.timeline,
  start: g.start,
  end: g.end,
  firstObservedGeneration: g.firstObservedGeneration,
  lastObservedGeneration: g.lastObservedGeneration,
  firstObservedAt: g.firstObservedAt,
  status: g.status,
  class: gapClass,
});

export const gapNames = (g: Gap, geometry: WalGeometry) => ({
  first: walName(g.timeline, g.start, geometry),
  last: walName(g.timeline, g.end, geometry),
});
