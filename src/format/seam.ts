/**
 * The format seam: what a repository format sees of the store while it reads one scope. The
 * evidence layer implements `ScopeAccess` (`evidence/scope-access.ts`) over the confined driver,
 * with the scan's budgets and cancellation, and counts every object it hands out exactly once; a
 * format decides what to list and read, and how to classify it, never how objects are counted.
 *
 * Keys are relative to the scope's base (for `archive-cloud`, `<prefix>/<server>/`): a format
 * never sees the destination, and nothing it holds can leak it.
 */
import type { BackupItem } from '../contract/collections.ts';
import type { State } from '../contract/primitives.ts';
import type { WalGeometry } from '../postgres/wal.ts';
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

/** Where a backup belongs in the operator's catalog (the spec keeps these kinds apart). */
export type Shelf = 'completed' | 'in progress or abandoned' | 'failed' | 'malformed' | 'unsupported' | 'structurally incomplete';

/** A format's verdict on a backup, with its reason in the format's own words. */
export interface FormatVerdict {
  readonly state: State;
  readonly code: string;
  readonly message: string;
  /** The shelf of a verdict that decides before any WAL is consulted; judged by state otherwise. */
  readonly shelf?: Shelf;
}

/** What a format knows of one backup, before evidence checks the WAL it needs. */
export interface FormatBackup {
  /** The wire item's fields as far as the format validated them (evidence adds server, state and reason). */
  readonly fields: Omit<BackupItem, 'server' | 'state' | 'reason'>;
  /** A verdict reached before any WAL is consulted (metadata, artifacts); null when WAL decides. */
  readonly decided: FormatVerdict | null;
  /** When WAL decides: the verdict if `begin_wal`..`end_wal` cannot be placed under the archive's geometry. */
  readonly unplaceable: FormatVerdict;
  /** When WAL decides: the verdict once all WAL it needs is present (healthy, or a warning of the format's). */
  readonly otherwise: FormatVerdict;
  /** The format recorded the backup as completed (barman-cloud: `DONE`). */
  readonly completed: boolean;
  /** Kept by the operator only up to its consistency point (barman-cloud: `keep:standalone`). */
  readonly standalone: boolean;
  /** Values that contradict nothing else in the metadata (null otherwise). */
  readonly trusted: { readonly timeline: number | null; readonly endLsn: bigint | null; readonly endAt: string | null };
}

/** The catalog of one scope: its backups and what they say of the WAL archive's geometry. */
export interface FormatCatalog {
  readonly backups: readonly FormatBackup[];
  readonly geometry: WalGeometry | null;
  readonly geometryIssue: 'unknown' | 'conflict' | null;
  readonly systemIds: ReadonlySet<string>;
  /** A safety ceiling was reached (more backup directories than kept). */
  readonly truncated: boolean;
  /** Objects of the catalog area that are no backup's. */
  readonly unknownObjects: number;
}
