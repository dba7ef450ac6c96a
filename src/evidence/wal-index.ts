/**
 * Read-only lookups over the compact WAL evidence of one server: which range holds a position,
 * which gap, where a timeline's observed WAL ends. Used by the backup and recovery-path rules.
 */
import type { Gap } from './gaps.ts';
import type { TimelineWal, WalRange } from './wal-archive.ts';

export type Absence =
  | { readonly kind: 'gap'; readonly gap: Gap }
  /** Before the first observed segment of the timeline: removed, or never archived. */
  | { readonly kind: 'before-observed' }
  /** After the last observed segment of the timeline (or the timeline has none): not archived yet. */
  | { readonly kind: 'beyond-observed' };

/** The run holding `position` in disjoint runs sorted by start (binary search), if any. */
function containing<T extends { readonly start: number; readonly end: number }>(runs: readonly T[], position: number): T | null {
  let lo = 0;
  let hi = runs.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const r = runs[mid] as T;
    if (position < r.start) hi = mid - 1;
    else if (position > r.end) lo = mid + 1;
    else return r;
  }
  return null;
}

export class WalIndex {
  readonly #timelines: ReadonlyMap<number, TimelineWal>;
  readonly #gaps: ReadonlyMap<number, readonly Gap[]>;

  constructor(timelines: ReadonlyMap<number, TimelineWal>, gaps: readonly Gap[]) {
    this.#timelines = timelines;
    const byTimeline = new Map<number, Gap[]>();
    // Appended in place: copying the list for every gap made this quadratic (40 k gaps took 10 s).
    for (const g of gaps) {
      const list = byTimeline.get(g.timeline);
      if (list === undefined) byTimeline.set(g.timeline, [g]);
      else list.push(g);
    }
    for (const list of byTimeline.values()) list.sort((a, b) => a.start - b.start);
    this.#gaps = byTimeline;
  }

  /** The observed range holding `position` on `timeline`, if any. */
  rangeAt(timeline: number, position: number): WalRange | null {
    return containing(this.#timelines.get(timeline)?.ranges ?? [], position);
  }

  /** Why `position` is not observed on `timeline` (call only when `rangeAt` found nothing). */
  absence(timeline: number, position: number): Absence {
    const gap = containing(this.#gaps.get(timeline) ?? [], position);
    if (gap !== null) return { kind: 'gap', gap };
    const first = this.#timelines.get(timeline)?.ranges[0];
    return first !== undefined && position < first.start ? { kind: 'before-observed' } : { kind: 'beyond-observed' };
  }

  hasPartial(timeline: number, position: number): boolean {
    return this.#timelines.get(timeline)?.partials.has(position) ?? false;
  }

  lastObserved(timeline: number): WalRange | null {
    return this.#timelines.get(timeline)?.ranges.at(-1) ?? null;
  }
}
