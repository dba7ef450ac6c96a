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

/**
 * One object of a scope's WAL area as its format classifies it, in the neutral words evidence
 * builds ranges from. Names are PostgreSQL's 24-hex WAL names; keys stay relative.
 */
export type WalEntry =
  /** A whole segment. `sizeOk` is the format's judgement of its listed size (true when sizes are not judged). */
  | { readonly kind: 'segment'; readonly name: string; readonly compressed: boolean; readonly sizeOk: boolean; readonly receivedAt: number | null }
  | { readonly kind: 'partial'; readonly name: string; readonly receivedAt: number | null }
  | { readonly kind: 'backup-history'; readonly receivedAt: number | null }
  /** A timeline history file, to be read through the format. */
  | { readonly kind: 'history'; readonly timeline: number; readonly ref: HistoryRef; readonly receivedAt: number | null }
  | { readonly kind: 'unknown'; readonly receivedAt: number | null };

/** Where a history file is and how it is stored: the format's own, opaque to evidence. */
export interface HistoryRef {
  readonly key: string;
  readonly encoding: string | null;
}

/** A history file's bytes as PostgreSQL wrote them, or why they could not be had. */
export type HistoryBytes = { readonly ok: true; readonly bytes: Uint8Array } | { readonly ok: false; readonly status: 'unread' } | { readonly ok: false; readonly status: 'invalid'; readonly reason: string };
