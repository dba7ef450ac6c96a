/**
 * Streams the WAL entries of one scope (the format seam's neutral `WalEntry`, in key order) into
 * compact evidence: per timeline, the contiguous ranges of segments observed, plus exact class
 * counts, `.partial` positions and the history files to read. Memory grows with the number of
 * ranges (that is, with the holes), never with the number of objects. Design:
 * docs/design/evidence.md §WAL.
 *
 * Sizes are evidence: a segment whose listed size its format judged impossible (`sizeOk` false)
 * is not that segment. It is counted as unknown and its position stays missing, so a 1-byte
 * object never stands in for WAL a backup needs.
 *
 * Copies of one WAL name (under several keys, adjacent in key order) are judged together, as the
 * format's restore tool would choose among them (the seam's `RestoreChoice`): the position is
 * present only when the copy the tool takes is a plausible whole segment, so a valid copy beside
 * an implausible one the tool prefers does not count, and neither do copies the tool refuses to
 * choose between (`unrestorableSegments`).
 *
 * Listing order matters and is checked: within a timeline, segment positions must arrive
 * ascending (stores list keys in byte order, and formats name their WAL keys so that this order
 * is timeline, then position: barman-cloud's hash directories, for one). A store that lists
 * out of order makes the evidence `incompatible_format` instead of producing invented gaps.
 */
import { ViewerError } from '../common/errors.ts';
import type { HistoryRef, RestoreChoice, WalEntry } from '../format/seam.ts';
import { nextPosition, parseWalName, positionsBetween, type WalGeometry } from '../postgres/wal.ts';

/** A run of consecutive existing positions, all observed, on one timeline. */
export interface WalRange {
  readonly start: number;
  end: number;
  /** Segments observed in the run (positions skipped by pre-9.3 numbering are not counted). */
  count: number;
  /** Receipt time of the run's first segment (largest among its copies), epoch milliseconds. */
  startReceipt: number | null;
  /** Largest provider receipt time in the run, epoch milliseconds. */
  latestReceipt: number | null;
  /** Receipt time of the run's last segment (largest among its copies). */
  endReceipt: number | null;
  /** Some segment of the run is stored compressed. */
  compressed: boolean;
  /** Some segment of the run is stored under more than one key. */
  duplicated: boolean;
}

export interface TimelineWal {
  readonly timeline: number;
  readonly ranges: WalRange[];
  /** Positions for which a `.partial` segment exists (few: one per promotion). */
  readonly partials: Set<number>;
}

export interface HistoryObject {
  readonly timeline: number;
  readonly ref: HistoryRef;
  /** The store's receipt time of the (first listed) history file: when the promotion was archived. */
  readonly receivedAt: number | null;
}

export interface WalCounts {
  segment: number;
  partial: number;
  history: number;
  backup_history: number;
  unknown: number;
  duplicate: number;
}

export interface WalArchiveLimits {
  /** Ceiling on ranges held across all timelines (ranges_truncated when reached). */
  readonly maxRanges: number;
  /** Ceiling on history files retained for reading (diagnostics_truncated when reached). */
  readonly maxHistoryFiles: number;
  /** Ceiling on `.partial` positions retained. */
  readonly maxPartials: number;
}

/**
 * The copies seen so far of the WAL name being listed (they are adjacent in key order). One per
 * archive, reset for each name: a million names cost no million objects.
 */
interface NameCopies {
  /** The name being settled; null when none is. */
  name: string | null;
  /** Where the name lies under the geometry; `valid` false for a name invalid under it (its copies count as unknown). */
  valid: boolean;
  timeline: number;
  position: number;
  /** Plausible whole-segment copies. */
  segments: number;
  compressed: boolean;
  /** Largest receipt among the plausible copies. */
  receipt: number | null;
  /** The copy the restore tool would take so far: its rank (Infinity: none yet), and whether it is a plausible whole segment. */
  chosenRank: number;
  chosenWhole: boolean;
  /** The first identity a copy carried, and whether another copy carried a different one. */
  identity: string | null;
  disagree: boolean;
}

const NO_CHOICE: RestoreChoice = { rank: 0, identity: null };

export class WalArchive {
  readonly counts: WalCounts = { segment: 0, partial: 0, history: 0, backup_history: 0, unknown: 0, duplicate: 0 };
  readonly timelines = new Map<number, TimelineWal>();
  readonly histories: HistoryObject[] = [];
  rangesTruncated = false;
  diagnosticsTruncated = false;
  /** Objects named as segments whose size no segment can have (counted in `counts.unknown` too). */
  implausibleSegments = 0;
  /** WAL names with a plausible copy whose position is still missing: the restore tool would take another copy, or refuse. */
  unrestorableSegments = 0;
  /** Latest receipt time of any object of the WAL area (epoch ms). */
  latestReceipt: number | null = null;
  #rangeCount = 0;
  #partialCount = 0;
  readonly #copies: NameCopies = { name: null, valid: false, timeline: 0, position: 0, segments: 0, compressed: false, receipt: null, chosenRank: Infinity, chosenWhole: false, identity: null, disagree: false };
  #lastHistory: number | null = null;
  readonly #geometry: WalGeometry;
  readonly #limits: WalArchiveLimits;

  constructor(geometry: WalGeometry, limits: WalArchiveLimits) {
    this.#geometry = geometry;
    this.#limits = limits;
  }

  #timeline(t: number): TimelineWal {
    let tl = this.timelines.get(t);
    if (tl === undefined) {
      tl = { timeline: t, ranges: [], partials: new Set() };
      this.timelines.set(t, tl);
    }
    return tl;
  }

  /** Adds one entry of the WAL area, in key order. */
  add(c: WalEntry): void {
    const receipt = c.receivedAt;
    if (receipt !== null && (this.latestReceipt === null || receipt > this.latestReceipt)) this.latestReceipt = receipt;
    switch (c.kind) {
      case 'segment': {
        const copies = this.#copiesOf(c.name);
        this.#choose(copies, c.restore ?? NO_CHOICE, c.sizeOk);
        if (!copies.valid) {
          this.counts.unknown += 1;
          return;
        }
        if (!c.sizeOk) {
          this.counts.unknown += 1;
          this.implausibleSegments += 1;
          return;
        }
        // The same WAL name under another key (e.g. X and X.gz): one segment, one duplicate copy.
        if (copies.segments === 0) this.counts.segment += 1;
        else this.counts.duplicate += 1;
        copies.segments += 1;
        copies.compressed ||= c.compressed;
        if (receipt !== null) copies.receipt = Math.max(copies.receipt ?? receipt, receipt);
        return;
      }
      case 'partial': {
        // A partial the restore tool may take for the whole segment of its name is one of its copies.
        if (c.restore !== undefined) this.#choose(this.#copiesOf(c.name), c.restore, false);
        const p = parseWalName(c.name, this.#geometry);
        if (p === null) {
          this.counts.unknown += 1;
          return;
        }
        this.counts.partial += 1;
        const partials = this.#timeline(p.timeline).partials;
        if (this.#partialCount < this.#limits.maxPartials) {
          if (!partials.has(p.position)) this.#partialCount += 1;
          partials.add(p.position);
        } else this.diagnosticsTruncated = true;
        return;
      }
      case 'backup-history':
        this.counts.backup_history += 1;
        return;
      case 'history':
        if (this.#lastHistory === c.timeline) {
          // Two keys for one history file (a compression change): one is a duplicate.
          this.counts.duplicate += 1;
          return;
        }
        this.#lastHistory = c.timeline;
        this.counts.history += 1;
        if (this.histories.length < this.#limits.maxHistoryFiles) this.histories.push({ timeline: c.timeline, ref: c.ref, receivedAt: receipt });
        else this.diagnosticsTruncated = true;
        return;
      default:
        this.counts.unknown += 1;
    }
  }

  /** The copies of `name`: the current ones, or new ones once the previous name is settled. */
  #copiesOf(name: string): NameCopies {
    const c = this.#copies;
    if (c.name === name) return c;
    this.finish();
    const p = parseWalName(name, this.#geometry);
    c.name = name;
    c.valid = p !== null;
    c.timeline = p?.timeline ?? 0;
    c.position = p?.position ?? 0;
    c.segments = 0;
    c.compressed = false;
    c.receipt = null;
    c.chosenRank = Infinity;
    c.chosenWhole = false;
    c.identity = null;
    c.disagree = false;
    return c;
  }

  #choose(copies: NameCopies, choice: RestoreChoice, whole: boolean): void {
    if (choice.rank < copies.chosenRank) {
      copies.chosenRank = choice.rank;
      copies.chosenWhole = whole;
    }
    if (choice.identity === null) return;
    if (copies.identity === null) copies.identity = choice.identity;
    else if (copies.identity !== choice.identity) copies.disagree = true;
  }

  /** Settles the last WAL name listed: call after the last entry of a listing (before `append`). */
  finish(): void {
    const c = this.#copies;
    if (c.name === null) return;
    c.name = null;
    if (c.segments === 0 || !c.valid) return;
    if (!c.chosenWhole || c.disagree) {
      this.unrestorableSegments += 1;
      return;
    }
    this.#segment(c.timeline, c.position, c.segments, c.compressed, c.receipt);
  }

  #segment(timeline: number, position: number, copies: number, compressed: boolean, receipt: number | null): void {
    const tl = this.#timeline(timeline);
    const last = tl.ranges.at(-1);
    const p = { position };
    const duplicated = copies > 1;
    if (last !== undefined && p.position <= last.end) {
      throw new ViewerError('incompatible_format', 'the store listed WAL segments out of order');
    }
    if (last !== undefined && p.position === nextPosition(last.end, this.#geometry)) {
      last.end = p.position;
      last.count += 1;
      last.compressed ||= compressed;
      last.duplicated ||= duplicated;
      last.endReceipt = receipt;
      if (receipt !== null) last.latestReceipt = Math.max(last.latestReceipt ?? receipt, receipt);
      return;
    }
    if (this.#rangeCount >= this.#limits.maxRanges) {
      this.rangesTruncated = true;
      return;
    }
    this.#rangeCount += 1;
    tl.ranges.push({ start: p.position, end: p.position, count: 1, startReceipt: receipt, latestReceipt: receipt, endReceipt: receipt, compressed, duplicated });
  }

  /**
   * Appends the evidence of the key range that follows this one (the parallel listing splits
   * `wals/` at hash-directory boundaries, so no WAL name spans two parts). A run that continues
   * across the seam is stitched into one range; positions that go backwards mean the store did
   * not list in order.
   */
  append(next: WalArchive): void {
    this.finish();
    next.finish();
    this.unrestorableSegments += next.unrestorableSegments;
    for (const k of Object.keys(this.counts) as (keyof WalCounts)[]) this.counts[k] += next.counts[k];
    this.implausibleSegments += next.implausibleSegments;
    if (next.latestReceipt !== null && (this.latestReceipt === null || next.latestReceipt > this.latestReceipt)) this.latestReceipt = next.latestReceipt;
    for (const h of next.histories) {
      if (this.histories.length < this.#limits.maxHistoryFiles) this.histories.push(h);
      else this.diagnosticsTruncated = true;
    }
    this.rangesTruncated ||= next.rangesTruncated;
    this.diagnosticsTruncated ||= next.diagnosticsTruncated;
    for (const [t, theirs] of next.timelines) {
      const ours = this.#timeline(t);
      for (const p of theirs.partials) ours.partials.add(p);
      const [first, ...rest] = theirs.ranges;
      if (first === undefined) continue;
      const last = ours.ranges.at(-1);
      if (last !== undefined && first.start <= last.end) throw new ViewerError('incompatible_format', 'the store listed WAL segments out of order');
      if (last !== undefined && first.start === nextPosition(last.end, this.#geometry)) {
        last.end = first.end;
        last.count += first.count;
        last.endReceipt = first.endReceipt;
        if (first.latestReceipt !== null) last.latestReceipt = Math.max(last.latestReceipt ?? first.latestReceipt, first.latestReceipt);
        last.compressed ||= first.compressed;
        last.duplicated ||= first.duplicated;
        // A loop, not push(...rest): a spread of 100 k+ arguments overflows the stack.
        for (const r of rest) ours.ranges.push(r);
        this.#rangeCount += rest.length;
      } else {
        ours.ranges.push(first);
        for (const r of rest) ours.ranges.push(r);
        this.#rangeCount += 1 + rest.length;
      }
    }
    if (this.#rangeCount > this.#limits.maxRanges) this.rangesTruncated = true;
  }

  /** Missing existing positions between `from` and `to`, inclusive. */
  missingBetween(from: number, to: number): number {
    return positionsBetween(from, to, this.#geometry);
  }
}
