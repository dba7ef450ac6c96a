/**
 * The timeline graph of one server, from its history files. Timeline 1 is the root and needs no
 * history. Every other timeline is known only through its own history file, which lists its whole
 * ancestry; where the parent's history file also exists, the child's must extend it exactly.
 * A timeline whose history is missing, unreadable or inconsistent has no known ancestry: every
 * recovery path through it stops `unknown-limited` (docs/design/evidence.md §Timelines).
 */
import type { HistoryEntry } from '../postgres/timeline-history.ts';

export type HistoryStatus =
  | { readonly status: 'valid'; readonly entries: readonly HistoryEntry[] }
  | { readonly status: 'invalid'; readonly reason: string }
  | { readonly status: 'unread' };

/** One step of a lineage: WAL of `timeline` counts up to `until` (exclusive position), or to the end. */
export interface LineageStep {
  readonly timeline: number;
  /** Switchpoint LSN where the lineage leaves this timeline; `null` on the last step. */
  readonly leaveAt: bigint | null;
}

export type Ancestry =
  | { readonly known: true; readonly steps: readonly LineageStep[] }
  | { readonly known: false; readonly reason: 'history-missing' | 'history-invalid' | 'history-unread' | 'history-inconsistent' };

export class TimelineGraph {
  readonly #histories: ReadonlyMap<number, HistoryStatus>;
  readonly #timelines: readonly number[];
  /** The graph never changes: each ancestry is worked out once (recovery paths ask per backup). */
  readonly #ancestry = new Map<number, Ancestry>();

  /** `timelines`: every timeline seen in WAL, history files or backups. */
  constructor(histories: ReadonlyMap<number, HistoryStatus>, timelines: Iterable<number>) {
    this.#histories = histories;
    this.#timelines = [...new Set([...timelines, ...histories.keys()])].sort((a, b) => a - b);
  }

  get timelines(): readonly number[] {
    return this.#timelines;
  }

  /** The full lineage from the root to `timeline`, or why it is unknown. */
  ancestry(timeline: number): Ancestry {
    let a = this.#ancestry.get(timeline);
    if (a === undefined) {
      a = this.#lineage(timeline);
      this.#ancestry.set(timeline, a);
    }
    return a;
  }

  #lineage(timeline: number): Ancestry {
    if (timeline === 1) return { known: true, steps: [{ timeline: 1, leaveAt: null }] };
    const h = this.#histories.get(timeline);
    if (h === undefined) return { known: false, reason: 'history-missing' };
    if (h.status === 'unread') return { known: false, reason: 'history-unread' };
    if (h.status === 'invalid') return { known: false, reason: 'history-invalid' };
    const entries = h.entries;
    const parent = entries.at(-1);
    if (parent !== undefined && parent.parentTimeline > 1) {
      const ph = this.#histories.get(parent.parentTimeline);
      if (ph?.status === 'valid' && !sameEntries(ph.entries, entries.slice(0, -1))) return { known: false, reason: 'history-inconsistent' };
    }
    const steps: LineageStep[] = entries.map((e) => ({ timeline: e.parentTimeline, leaveAt: e.switchpoint }));
    if (steps[0]?.timeline !== 1) return { known: false, reason: 'history-inconsistent' };
    steps.push({ timeline, leaveAt: null });
    return { known: true, steps };
  }

  /** Every timeline other than the root whose ancestry is not known. */
  unknownTimelines(): number[] {
    return this.#timelines.filter((t) => !this.ancestry(t).known);
  }
}

function sameEntries(a: readonly HistoryEntry[], b: readonly HistoryEntry[]): boolean {
  return a.length === b.length && a.every((e, i) => e.parentTimeline === b[i]?.parentTimeline && e.switchpoint === b[i]?.switchpoint);
}
