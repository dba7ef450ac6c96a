/**
 * The one implementation of the format seam's `ScopeAccess`: a format's view of one scope over the
 * confined driver, within the scan's budgets (`listing.ts`), and the one place objects and bytes
 * are counted. Every object a listing hands out is counted exactly once: a key range's listing is
 * cut at its end (the keys its last page lists beyond belong to the next range, which counts
 * them), and a `folders` listing hands out nothing. The newest objects are kept for the
 * operator's page, never for the wire.
 */
import type { KeyRange, ListedObject, ScopeAccess } from '../format/seam.ts';
import type { ListPage, ReadResult, StoreDriver, StreamResult } from '../store/driver.ts';
import { compareKeyBytes } from '../store/key-order.ts';
import { listPages, type BudgetMeter } from './listing.ts';

export const RECENT_OBJECTS = 20;

/** A kept recent object: key relative to the scope's base. */
export interface RecentItem {
  readonly key: string;
  readonly size: number;
  readonly at: number;
}

/**
 * Keeps the newest objects seen, newest first, ties by key descending (of WAL received in the same
 * second, the later segment is on top): the same whatever the listing
 * interleaving. Called once per listed object, and in a live archive nearly every object is newer
 * than the last: the check against the oldest kept item comes first and allocates nothing.
 */
class RecentObjects {
  readonly items: RecentItem[] = [];
  add(key: string, size: number, at: number | null): void {
    if (at === null) return;
    const items = this.items;
    const last = items[items.length - 1];
    if (items.length >= RECENT_OBJECTS && last !== undefined && (at < last.at || (at === last.at && key <= last.key))) return;
    let i = items.length;
    for (; i > 0; i--) {
      const o = items[i - 1] as RecentItem;
      if (at < o.at || (at === o.at && key < o.key)) break;
    }
    items.splice(i, 0, { key, size, at });
    if (items.length > RECENT_OBJECTS) items.pop();
  }
}

export interface ScopeAccessOptions {
  readonly driver: StoreDriver;
  /** The scope's base, a full key prefix ending in `/`: every key handed out is relative to it. */
  readonly base: string;
  readonly signal: AbortSignal;
  readonly meter: BudgetMeter;
  readonly concurrency: number;
}

export class CountingScopeAccess implements ScopeAccess {
  objectCount = 0;
  storedBytes = 0;
  /**
   * The store's own clock at the scan: the latest `Date` its listing pages carried (ms), or null
   * when none did. Being the latest, it is read at or after every listing, so a lag measured
   * against it never understates (it may overstate by the scan's own listing time).
   */
  storeTime: number | null = null;
  /** The earliest receipt time of any object handed out (ms), null when none carried one: with the backups' own times it tells a bulk copy's receipts from archiving's (the pages only). */
  earliestReceipt: number | null = null;
  readonly #recent = new RecentObjects();
  readonly #o: ScopeAccessOptions;

  constructor(o: ScopeAccessOptions) {
    this.#o = o;
  }

  get signal(): AbortSignal {
    return this.#o.signal;
  }

  get concurrency(): number {
    return this.#o.concurrency;
  }

  get startsAfterKeys(): boolean {
    return this.#o.driver.capabilities?.startAfter !== 'emulated';
  }

  /** The newest objects handed out, newest first. */
  get recent(): readonly RecentItem[] {
    return this.#recent.items;
  }

  #clock(page: ListPage): void {
    const t = page.storeTime?.getTime();
    if (t !== undefined && Number.isFinite(t) && (this.storeTime === null || t > this.storeTime)) this.storeTime = t;
  }

  #handOut(key: string, size: number, lastModified: Date | null): ListedObject {
    const receivedAt = lastModified?.getTime() ?? null;
    const relative = key.slice(this.#o.base.length);
    this.objectCount += 1;
    this.storedBytes += size;
    this.#recent.add(relative, size, receivedAt);
    if (receivedAt !== null && (this.earliestReceipt === null || receivedAt < this.earliestReceipt)) this.earliestReceipt = receivedAt;
    return { key: relative, size, receivedAt };
  }

  async *objects(prefix: string, range: KeyRange = {}): AsyncIterable<readonly ListedObject[]> {
    const { base, driver, signal, meter } = this.#o;
    const through = range.through === undefined ? undefined : base + range.through;
    const listing = listPages(driver, {
      prefix: base + prefix,
      signal,
      meter,
      ...(range.after === undefined ? {} : { startAfter: base + range.after }),
      ...(through === undefined ? {} : { stopAfter: through }),
    });
    for await (const page of listing) {
      this.#clock(page);
      const out: ListedObject[] = [];
      for (const obj of page.objects) {
        if (through !== undefined && compareKeyBytes(obj.key, through) > 0) {
          yield out;
          return;
        }
        out.push(this.#handOut(obj.key, obj.size, obj.lastModified));
      }
      yield out;
    }
  }

  async *level(prefix: string): AsyncIterable<{ readonly objects: readonly ListedObject[]; readonly folders: readonly string[] }> {
    const { base, driver, signal, meter } = this.#o;
    for await (const page of listPages(driver, { prefix: base + prefix, delimiter: '/', signal, meter })) {
      this.#clock(page);
      yield { objects: page.objects.map((o) => this.#handOut(o.key, o.size, o.lastModified)), folders: page.prefixes.map((p) => p.slice(base.length)) };
    }
  }

  async folders(prefix: string): Promise<string[]> {
    const { base, driver, signal, meter } = this.#o;
    const out: string[] = [];
    for await (const page of listPages(driver, { prefix: base + prefix, delimiter: '/', signal, meter })) {
      this.#clock(page);
      for (const p of page.prefixes) out.push(p.slice(base.length));
    }
    return out;
  }

  read(key: string, maxBytes: number): Promise<ReadResult> {
    return this.#o.driver.read({ key: this.#o.base + key, maxBytes, signal: this.#o.signal });
  }

  readStream(key: string, maxBytes: number): Promise<StreamResult> {
    return this.#o.driver.readStream({ key: this.#o.base + key, maxBytes, signal: this.#o.signal });
  }
}
