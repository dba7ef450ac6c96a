/**
 * An in-memory store with S3's listing semantics (keys in UTF-8 byte order, prefix, `/`
 * delimiter with common prefixes, start-after, continuation, page size). It backs the embedded
 * demo, the benchmark's in-process listing source and unit tests of the layers above; it is
 * checked against the same contract as the real drivers.
 */
import { StoreError } from '../../common/errors.ts';
import type { ListPage, ListRequest, ReadRequest, ReadResult, StoreDriver, StoreObject, StreamResult } from '../driver.ts';
import { compareKeyBytes } from '../key-order.ts';
import { boundedBody, chunksOf, readWhole } from '../read-stream.ts';

export interface MemoryObject {
  readonly key: string;
  readonly body: Uint8Array;
  readonly lastModified: Date | null;
  /** The size listed and judged by reads; the body's length unless the object is sparse. */
  readonly size: number;
}

export interface MemoryStoreOptions {
  /**
   * The store's clock, read once per listing page as its `storeTime`. A memory store answers no
   * HTTP request, so by default it has no clock (`null`); a caller that simulates a store's clock
   * (the demo, a test of archive lag) passes one.
   */
  readonly storeClock?: () => Date | null;
}

export class MemoryStore implements StoreDriver {
  #keys: string[] = [];
  readonly #objects = new Map<string, MemoryObject>();
  /** Keys stored with a customer-provided key (SSE-C): listed as usual, every read `key-required`. */
  readonly #sealed = new Set<string>();
  #sorted = true;
  closed = false;
  /** Every request received, for tests that prove what a scan asked for. */
  readonly requests: { readonly op: 'list' | 'read'; readonly prefix: string }[] = [];
  readonly #storeClock: () => Date | null;

  constructor(options: MemoryStoreOptions = {}) {
    this.#storeClock = options.storeClock ?? (() => null);
  }

  /**
   * Stores an object. `size` makes it sparse: listed (and size-checked on read) as that many bytes
   * while holding only `body`, for synthetic WAL segments and archives that are never read but
   * must be listed at the sizes real ones have.
   */
  put(key: string, body: Uint8Array | string, lastModified: Date | null = null, size?: number): void {
    if (!this.#objects.has(key)) {
      this.#keys.push(key);
      this.#sorted = false;
    }
    const bytes = typeof body === 'string' ? Buffer.from(body) : body;
    this.#objects.set(key, { key, body: bytes, lastModified, size: size ?? bytes.length });
  }

  delete(key: string): void {
    if (this.#objects.delete(key)) this.#keys = this.#keys.filter((k) => k !== key);
    this.#sealed.delete(key);
  }

  /**
   * Keeps an object as a store keeps one encrypted with a customer-provided key the reader does not
   * hold (S3 SSE-C, D-92): listed with its size, and every read answers `key-required`.
   */
  sealWithCustomerKey(key: string): void {
    if (!this.#objects.has(key)) throw new Error(`no object ${key} to seal`);
    this.#sealed.add(key);
  }

  #ordered(): string[] {
    if (!this.#sorted) {
      this.#keys.sort(compareKeyBytes);
      this.#sorted = true;
    }
    return this.#keys;
  }

  listPage(request: ListRequest): Promise<ListPage> {
    if (request.signal.aborted) return Promise.reject(new StoreError('canceled', 'the store request was canceled'));
    this.requests.push({ op: 'list', prefix: request.prefix });
    const keys = this.#ordered();
    const after = request.continuationToken ?? request.startAfter;
    let i = lowerBound(keys, request.prefix);
    if (after !== undefined) i = Math.max(i, upperBound(keys, after));
    const max = Math.min(request.maxKeys ?? 1000, 1000);
    const objects: StoreObject[] = [];
    const prefixes: string[] = [];
    // Where the next page starts: after the last key, or after everything under the last common prefix.
    let resumeAfter: string | null = null;
    while (i < keys.length && objects.length + prefixes.length < max) {
      const key = keys[i] as string;
      if (!key.startsWith(request.prefix)) break;
      const rest = key.slice(request.prefix.length);
      const cut = request.delimiter === undefined ? -1 : rest.indexOf(request.delimiter);
      if (cut >= 0) {
        const common = request.prefix + rest.slice(0, cut + 1);
        prefixes.push(common);
        // Skip every key under this common prefix.
        resumeAfter = `${common}\u{10FFFF}`;
        i = upperBound(keys, resumeAfter);
        continue;
      }
      const o = this.#objects.get(key) as MemoryObject;
      objects.push({ key, size: o.size, lastModified: o.lastModified });
      resumeAfter = key;
      i += 1;
    }
    const more = i < keys.length && (keys[i] as string).startsWith(request.prefix);
    return Promise.resolve({ objects, prefixes, nextToken: more ? resumeAfter : null, storeTime: this.#storeClock() });
  }

  read(request: ReadRequest): Promise<ReadResult> {
    return readWhole(this.readStream(request));
  }

  /** The body in 64 KiB chunks, as a store sends it; an abort while it is read fails it as canceled. */
  readStream(request: ReadRequest): Promise<StreamResult> {
    if (request.signal.aborted) return Promise.reject(new StoreError('canceled', 'the store request was canceled'));
    this.requests.push({ op: 'read', prefix: request.key });
    const o = this.#objects.get(request.key);
    if (o === undefined) return Promise.resolve({ status: 'absent' });
    if (this.#sealed.has(request.key)) return Promise.resolve({ status: 'key-required' });
    if (o.size > request.maxBytes) return Promise.resolve({ status: 'too-large', size: o.size });
    const canceled = () => new StoreError('canceled', 'the store request was canceled');
    const body = (async function* () {
      for await (const chunk of chunksOf(o.body)) {
        if (request.signal.aborted) throw canceled();
        yield chunk;
      }
    })();
    // A listed size may be given apart from the body (a corpus's sizes): the body is what is sent.
    return Promise.resolve({ status: 'found', size: o.body.byteLength, chunks: boundedBody(body, o.body.byteLength, canceled, () => undefined) });
  }

  close(): void {
    this.closed = true;
  }
}

/** First index whose key is >= `key` in byte order. */
function lowerBound(keys: readonly string[], key: string): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (compareKeyBytes(keys[mid] as string, key) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** First index whose key is > `key` in byte order. */
function upperBound(keys: readonly string[], key: string): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (compareKeyBytes(keys[mid] as string, key) <= 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
