/**
 * The timeline graph of one server, from its history files. Timeline 1 is the root and needs no
 * history. Every other timeline is known only through its own history file, which lists its whole
 * ancestry; where the parent's history file also exists, the child's must extend it exactly.
 * A timeline whose history is missing, unreadable or inconsistent has no known ancestry: every
 * recovery path through it stops `unknown-limited` (docs/design/evidence.md §Timelines).
 *
 * Histories are checked against the listing too: a timeline's WAL starts at the segment holding
 * its switchpoint, so an observed segment of a child before the switch its lineage declares
 * proves the history wrong (`history-contradicted`), and every lineage crossing that switch is
 * unknown with it.
 */
import type { HistoryEntry } from '../postgres/timeline-history.ts';
import { positionOfLsn, type WalGeometry } from '../postgres/wal.ts';
import type { TimelineStart } from './gaps.ts';

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
  | { readonly known: false; readonly reason: 'history-missing' | 'history-invalid' | 'history-unread' | 'history-inconsistent' | 'history-contradicted' };

/** What the listing shows of each timeline, to check histories against: where its observed WAL begins. */
export interface ObservedStarts {
  readonly geometry: WalGeometry;
  /** The first observed segment position of `timeline`, or null when none is observed. */
  firstPosition(timeline: number): number | null;
}

export class TimelineGraph {
  readonly #histories: ReadonlyMap<number, HistoryStatus>;
  readonly #timelines: readonly number[];
  /** The graph never changes: each ancestry is worked out once (recovery paths ask per backup). */
  readonly #ancestry = new Map<number, Ancestry>();

  readonly #observed: ObservedStarts | null;

  /**
   * `timelines`: every timeline seen in WAL, history files or backups. `observed`: the listing's
   * first segments, when the archive's geometry is known (without it nothing is contradicted).
   */
  constructor(histories: ReadonlyMap<number, HistoryStatus>, timelines: Iterable<number>, observed: ObservedStarts | null = null) {
    this.#histories = histories;
    this.#observed = observed;
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
    if (this.#contradicted(steps)) return { known: false, reason: 'history-contradicted' };
    return { known: true, steps };
  }

  /** A timeline of the lineage has an observed segment before the switch that, the lineage says, began it. */
  #contradicted(steps: readonly LineageStep[]): boolean {
    const o = this.#observed;
    if (o === null) return false;
    for (let i = 1; i < steps.length; i++) {
      const leave = steps[i - 1]?.leaveAt ?? null;
      const child = steps[i]?.timeline;
      if (leave === null || child === undefined) continue;
      const first = o.firstPosition(child);
      if (first !== null && first < positionOfLsn(leave, o.geometry)) return true;
    }
    return false;
  }

  /** Where each timeline begins, as the known lineages declare it (one entry per child timeline). */
  starts(): TimelineStart[] {
    const o = this.#observed;
    if (o === null) return [];
    const out = new Map<number, TimelineStart>();
    for (const t of this.#timelines) {
      const a = this.ancestry(t);
      if (!a.known) continue;
      for (let i = 1; i < a.steps.length; i++) {
        const parent = a.steps[i - 1];
        const child = a.steps[i];
        if (parent?.leaveAt == null || child === undefined || out.has(child.timeline)) continue;
        out.set(child.timeline, { timeline: child.timeline, parent: parent.timeline, position: positionOfLsn(parent.leaveAt, o.geometry) });
      }
    }
    return [...out.values()];
  }

  /** The newest timeline of the scope: the highest seen in WAL, history files or backups (PostgreSQL numbers each new one above every existing). */
  get newest(): number | null {
    return this.#timelines.at(-1) ?? null;
  }

  /** Every timeline other than the root whose ancestry is not known. */
  unknownTimelines(): number[] {
    return this.#timelines.filter((t) => !this.ancestry(t).known);
  }
}

function sameEntries(a: readonly HistoryEntry[], b: readonly HistoryEntry[]): boolean {
  return a.length === b.length && a.every((e, i) => e.parentTimeline === b[i]?.parentTimeline && e.switchpoint === b[i]?.switchpoint);
}
