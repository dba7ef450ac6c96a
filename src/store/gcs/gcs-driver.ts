/**
 * The `store-c` driver: Google Cloud Storage through the official SDK (`@google-cloud/storage`),
 * read-only (list objects, download an object whole or as a stream; never with a customer-supplied
 * key: an object encrypted with one reads as `key-required`). Credentials: a service-account key file, or
 * the SDK's Application Default Credentials (standalone only). `STORE_ENDPOINT_URL` points it at
 * an emulator. Listing starts after a key with `startOffset`, and the driver also skips the key
 * itself, since the offset is inclusive. A listing is the SDK's own authenticated request for
 * `objects.list` (`bucket.request`, what `getFiles` sends), so the page keeps the HTTP response
 * and with it the store's `Date` header, which `getFiles` drops. A listing and an object's metadata
 * request end as soon as their signal aborts (the SDK takes none: the request is abandoned), and a
 * 200 that is not an `objects.list` answer is `incompatible_format`, never an empty listing.
 */
import { Storage, type Bucket } from '@google-cloud/storage';
import { setBackend } from 'google-logging-utils';
import { StoreError } from '../../common/errors.ts';
import { STORE_MESSAGES } from '../messages.ts';
import { compareKeyBytes } from '../key-order.ts';
import { dateHeader } from '../store-time.ts';
import type { ListPage, ListRequest, ReadRequest, ReadResult, StoreDriver, StoreObject, StreamResult } from '../driver.ts';
import { boundedBody, chunksOf, readWhole } from '../read-stream.ts';
import { failureDetail } from '../../common/errors.ts';
import { readCredentialFile } from '../credential-file.ts';
import { hostPort } from '../network-errors.ts';
import { gcsCustomerKeyRequired, toGcsStoreError as classified } from './classify.ts';

/**
 * The service-account key file, read once here before the SDK reads it itself: a missing,
 * unreadable or non-JSON file is a local `invalid_configuration` naming its variable, not a
 * failure of the store (the SDK's own error would read as `unavailable` or `incompatible_format`).
 */
async function checkKeyFile(file: string): Promise<void> {
  const text = await readCredentialFile(file, /\S/, 'STORE_SERVICE_ACCOUNT_KEY_FILE');
  let key: unknown;
  try {
    key = JSON.parse(text);
  } catch {
    key = null;
  }
  if (typeof key !== 'object' || key === null || Array.isArray(key)) {
    throw new StoreError('invalid_configuration', 'a credential file is empty or malformed', {
      detail: failureDetail({ localCause: 'STORE_SERVICE_ACCOUNT_KEY_FILE names a file that is not a JSON key' }),
    });
  }
}

// With GOOGLE_SDK_NODE_LOGGING set, Google's client libraries write every authorized request and
// its answer (object listings, token responses) to stderr. Their one log backend is switched off,
// so provider text and tokens never reach viewer's output whatever the environment (D-53).
setBackend(null);

export type GcsCredentials = { readonly mode: 'service-account-file'; readonly file: string } | { readonly mode: 'ambient' };

export interface GcsDriverOptions {
  readonly bucket: string;
  readonly endpoint: string | null;
  readonly credentials: GcsCredentials;
}

/**
 * `work`, or a rejection as soon as `signal` aborts: the SDK's requests take no signal (its own
 * timeout is 60 s a try, three tries), so a deadline or a shutdown would otherwise wait for a store
 * that never answers. The abandoned request ends by the SDK's timeout; its result is dropped.
 */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(new Error('aborted'));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new Error('aborted'));
    signal.addEventListener('abort', onAbort, { once: true });
    work.finally(() => signal.removeEventListener('abort', onAbort)).then(resolve, reject);
  });
}

/** The JSON body of `objects.list` (only what the driver reads). */
interface GcsListResponse {
  readonly items?: readonly { readonly name?: unknown; readonly size?: unknown; readonly updated?: unknown }[];
  readonly prefixes?: readonly unknown[];
  readonly nextPageToken?: unknown;
}

export async function createGcsDriver(options: GcsDriverOptions): Promise<StoreDriver> {
  if (options.credentials.mode === 'service-account-file') await checkKeyFile(options.credentials.file);
  const endpoint = hostPort(options.endpoint) ?? 'storage.googleapis.com:443';
  const toGcsStoreError = (error: unknown, signal?: AbortSignal) => classified(error, signal, endpoint);
  const storage = new Storage({
    ...(options.endpoint === null ? {} : { apiEndpoint: options.endpoint, projectId: 'viewer' }),
    ...(options.credentials.mode === 'service-account-file' ? { keyFilename: options.credentials.file } : {}),
    retryOptions: { maxRetries: 2 },
  });
  const bucket: Bucket = storage.bucket(options.bucket);
  const abort = (signal: AbortSignal) => {
    if (signal.aborted) throw toGcsStoreError(new Error('aborted'), signal);
  };
  async function readStream(request: ReadRequest): Promise<StreamResult> {
    abort(request.signal);
    const file = bucket.file(request.key);
    let release: () => void = () => undefined;
    try {
      const [metadata] = await untilAborted(file.getMetadata(), request.signal);
      abort(request.signal);
      // An object encrypted with a customer-supplied key says so in its metadata (its
      // `customerEncryption`), which Cloud Storage gives without the key; its bytes it would refuse
      // (D-92). No download is asked for.
      if ((metadata as { customerEncryption?: unknown }).customerEncryption != null) return { status: 'key-required' };
      const size = Number(metadata.size ?? 0);
      if (!Number.isSafeInteger(size) || size < 0) throw new StoreError('incompatible_format', 'the store gave an object without a valid size');
      if (size > request.maxBytes) return { status: 'too-large', size };
      if (size === 0) return { status: 'found', size, chunks: chunksOf(new Uint8Array()) };
      const body = file.createReadStream({ validation: false });
      // The SDK takes no signal for a download: an abort ends the body, as a failure of the read.
      const onAbort = () => body.destroy(new Error('aborted'));
      request.signal.addEventListener('abort', onAbort, { once: true });
      release = () => {
        request.signal.removeEventListener('abort', onAbort);
        body.destroy();
      };
      // The download's own answer arrives with its first chunk: a refusal (the customer-supplied
      // key, the object gone since its metadata) is the read's answer, not a failure mid-body.
      const raw = (body as AsyncIterable<Uint8Array>)[Symbol.asyncIterator]();
      const first = await raw.next();
      const rest: AsyncIterable<Uint8Array> = (async function* () {
        if (first.done !== true) yield first.value;
        yield* { [Symbol.asyncIterator]: () => raw };
      })();
      const chunks = boundedBody(rest, size, (e) => toGcsStoreError(e, request.signal), () => body.destroy());
      return {
        status: 'found',
        size,
        chunks: (async function* () {
          try {
            yield* chunks;
          } finally {
            request.signal.removeEventListener('abort', onAbort);
          }
        })(),
      };
    } catch (error) {
      release();
      if (error instanceof StoreError) throw error;
      if (gcsCustomerKeyRequired(error, request.signal)) return { status: 'key-required' };
      const e = error as { code?: unknown };
      if (e.code === 404 && !request.signal.aborted) {
        // A missing bucket is also a 404 here; listing tells them apart (it fails only without a bucket).
        const bucketThere = await bucket.getFiles({ prefix: request.key, maxResults: 1, autoPaginate: false }).then(() => true, () => false);
        if (bucketThere) return { status: 'absent' };
      }
      throw toGcsStoreError(error, request.signal);
    }
  }
  return Promise.resolve({
    capabilities: { startAfter: 'native' },

    async listPage(request: ListRequest): Promise<ListPage> {
      abort(request.signal);
      let body: unknown;
      let http: { readonly headers?: Readonly<Record<string, unknown>> } | undefined;
      try {
        [body, http] = await untilAborted(
          bucket.request({
            uri: '/o',
            qs: {
              prefix: request.prefix,
              maxResults: Math.min(request.maxKeys ?? 1000, 1000),
              ...(request.delimiter === undefined ? {} : { delimiter: request.delimiter }),
              ...(request.continuationToken === undefined ? {} : { pageToken: request.continuationToken }),
              ...(request.startAfter === undefined ? {} : { startOffset: request.startAfter }),
            },
          }),
          request.signal,
        );
        abort(request.signal);
      } catch (error) {
        throw toGcsStoreError(error, request.signal);
      }
      // Every objects.list answer is `"kind": "storage#objects"` (items, prefixes and the token are
      // left out when there are none): anything else with a 200 is no listing, never an empty one.
      if (typeof body !== 'object' || body === null || (body as { kind?: unknown }).kind !== 'storage#objects') {
        throw new StoreError('incompatible_format', STORE_MESSAGES.incompatible_format);
      }
      const after = request.startAfter;
      const response = body as GcsListResponse;
      const objects: StoreObject[] = [];
      for (const item of response.items ?? []) {
        // An object the store lists without a name can be neither counted nor skipped honestly.
        if (typeof item.name !== 'string') throw new StoreError('incompatible_format', 'the store listed an object without a name');
        if (after !== undefined && compareKeyBytes(item.name, after) <= 0) continue;
        // The JSON API gives sizes as decimal strings; anything else stays NaN for confinement to refuse.
        const size = (typeof item.size === 'string' && /^\d+$/.test(item.size)) || typeof item.size === 'number' ? Number(item.size) : Number.NaN;
        objects.push({ key: item.name, size, lastModified: typeof item.updated === 'string' ? new Date(item.updated) : null });
      }
      const prefixes: string[] = [];
      for (const p of response.prefixes ?? []) {
        if (typeof p !== 'string') throw new StoreError('incompatible_format', 'the store listed a common prefix without a name');
        if (after === undefined || compareKeyBytes(p, after) > 0) prefixes.push(p);
      }
      const next = response.nextPageToken;
      return { objects, prefixes, nextToken: typeof next === 'string' && next !== '' ? next : null, storeTime: dateHeader(http?.headers) };
    },

    read: (request: ReadRequest): Promise<ReadResult> => readWhole(readStream(request)),
    readStream,

    close: () => undefined,
  });
}
