/**
 * The format seam: what a repository format sees of the store while it reads one scope. The
 * evidence layer implements `ScopeAccess` (`evidence/scope-access.ts`) over the confined driver,
 * with the scan's budgets and cancellation, and counts every object it hands out exactly once; a
 * format decides what to list and read, and how to classify it, never how objects are counted.
 *
 * Keys are relative to the scope's base (for `archive-cloud`, `<prefix>/<server>/`): a format
 * never sees the destination, and nothing it holds can leak it.
 */
import type { ReadResult } from '../store/driver.ts';

/** One listed object, handed out once. */
export interface ListedObject {
  /** Relative to the scope's base. */
  readonly key: string;
  readonly size: number;
  /** Provider receipt time, epoch ms; null when the store gave none the wire can carry. */
  readonly receivedAt: number | null;
}

/** A key range of one listing: keys after `after`, up to and including `through`. */
export interface KeyRange {
  readonly after?: string;
  readonly through?: string;
}

export interface ScopeAccess {
  readonly signal: AbortSignal;
  /** Listings and reads a scan may have in flight at once. */
  readonly concurrency: number;
  /** Whether the store can start a listing after a key; without it, parallel key ranges cost a full listing each. */
  readonly startsAfterKeys: boolean;
  /** Every object under `prefix`, within `range`, in key order, page by page; each is counted. */
  objects(prefix: string, range?: KeyRange): AsyncIterable<readonly ListedObject[]>;
  /** One level under `prefix`: the objects directly there (counted) and the sub-prefixes. */
  level(prefix: string): AsyncIterable<{ readonly objects: readonly ListedObject[]; readonly folders: readonly string[] }>;
  /** Only the sub-prefixes of `prefix`; no object is handed out or counted. */
  folders(prefix: string): Promise<string[]>;
  /** A bounded read of one small object. */
  read(key: string, maxBytes: number): Promise<ReadResult>;
}
