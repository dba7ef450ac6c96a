/**
 * The read-only object-store driver contract every provider implements: paged listing under a
 * prefix, a size-bounded read of one object (whole, or streamed as chunks), and nothing else. Every call takes an
 * AbortSignal. Failures are `StoreError`s with a spec failure category; absence of an object is a
 * value (`absent`), never an error, so a denied read can never pass for a missing one. So is an
 * object the store keeps encrypted with a customer-provided key the request did not carry
 * (`key-required`: S3 SSE-C, Cloud Storage CSEK, Azure CPK; D-92): it exists, its bytes cannot be
 * had, and that is a fact about that one object, not a failure of the store.
 * No method writes, deletes or signs URLs.
 */

export interface StoreObject {
  /** The full object key. It stays inside the scanner: keys never reach the wire. */
  readonly key: string;
  /** Bytes, as listed; NaN when the store gave none (the confined wrapper refuses such a page). */
  readonly size: number;
  /** Provider receipt or modification time; `null` when the provider gave none. */
  readonly lastModified: Date | null;
}

export interface ListRequest {
  readonly prefix: string;
  /** Only `/` is used: one level of "directories" as common prefixes. */
  readonly delimiter?: '/';
  /** List keys strictly after this one (S3 `StartAfter`). */
  readonly startAfter?: string;
  /** Opaque token from the previous page of the same listing. */
  readonly continuationToken?: string;
  /** Requested page size; providers may return fewer. */
  readonly maxKeys?: number;
  readonly signal: AbortSignal;
}

export interface ListPage {
  /** Objects in ascending key order (UTF-8 byte order). */
  readonly objects: readonly StoreObject[];
  /** Common prefixes when a delimiter was given, ascending. */
  readonly prefixes: readonly string[];
  /** Token for the next page, `null` on the last page. */
  readonly nextToken: string | null;
  /**
   * The store's own clock when it answered: the HTTP `Date` header of this page's listing
   * response (store-time.ts reads it strictly). `null` when the response had none or it is no
   * HTTP-date, and for a store without a clock (the memory store unless given one). Never
   * viewer's own clock and never a guess: times derived from it against receipt times (archive
   * lag) are then both on the store's clock, free of skew between viewer's clock and the store's.
   */
  readonly storeTime: Date | null;
}

export interface ReadRequest {
  readonly key: string;
  /** Objects larger than this are not read: the result is `tooLarge`. */
  readonly maxBytes: number;
  readonly signal: AbortSignal;
}

/**
 * The object exists but is encrypted with a customer-provided key (S3 SSE-C, Cloud Storage
 * customer-supplied keys, Azure customer-provided keys) that the request did not carry: the store
 * refuses its bytes. viewer never sends such a key. Only a read can answer this, never a listing.
 */
export interface KeyRequired {
  readonly status: 'key-required';
}

export type ReadResult =
  | { readonly status: 'found'; readonly bytes: Uint8Array }
  | { readonly status: 'absent' }
  | { readonly status: 'too-large'; readonly size: number }
  | KeyRequired;

/** An opened object: its size and its body as chunks (read at most once; stop early to release it). */
export type StreamResult =
  | { readonly status: 'found'; readonly size: number; readonly chunks: AsyncIterable<Uint8Array> }
  | { readonly status: 'absent' }
  | { readonly status: 'too-large'; readonly size: number }
  | KeyRequired;

export interface StoreDriver {
  /** `startAfter: 'emulated'` when the provider cannot start a listing after a key (the driver skips). */
  readonly capabilities?: { readonly startAfter: 'native' | 'emulated' };
  listPage(request: ListRequest): Promise<ListPage>;
  /** A small object whole (read-stream.ts `readWhole` over `readStream`). */
  read(request: ReadRequest): Promise<ReadResult>;
  /**
   * An object's body as it arrives, never held whole by the driver: for objects parsed piece by
   * piece (pgBackRest's manifests). A failure in the middle of the body is a `StoreError`.
   */
  readStream(request: ReadRequest): Promise<StreamResult>;
  /** Releases connections; the driver is unusable afterwards. */
  close(): void;
}
