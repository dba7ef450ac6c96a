/**
 * The `store-b` driver: Azure Blob Storage through the official SDK (`@azure/storage-blob`),
 * read-only (list blobs, download a blob whole or as a stream; never with a customer-provided key:
 * a blob encrypted with one reads as `key-required`). Credentials: an explicit connection string (read
 * from the configured file by this driver, or handed over from the ambient
 * `AZURE_STORAGE_CONNECTION_STRING` by the command line, as Barman reads it), or the SDK's ambient
 * default chain (`DefaultAzureCredential` from `@azure/identity`) against the destination's account
 * URL. List Blobs has no start-after, so the driver skips keys up to it itself and says so
 * (`startAfter: 'emulated'`): the scanner then lists in one range instead of many. List Blobs
 * answers are read by viewer's own parser in the SDK's pipeline (list-blobs-policy.ts, issue 28).
 * A 200 that is no blob listing is `incompatible_format`, never an empty listing. A name XML
 * cannot carry comes percent-encoded (`<Name Encoded="true">`); the parser decodes it.
 */
import { DefaultAzureCredential } from '@azure/identity';
import { AzureLogger } from '@azure/logger';
import { BlobServiceClient, type ContainerClient } from '@azure/storage-blob';
import { StoreError } from '../../common/errors.ts';
import { readCredentialFile } from '../credential-file.ts';
import { STORE_MESSAGES } from '../messages.ts';
import type { Destination } from '../destination.ts';
import type { ListPage, ListRequest, ReadRequest, ReadResult, StoreDriver, StoreObject, StreamResult } from '../driver.ts';
import { boundedBody, chunksOf, readWhole } from '../read-stream.ts';
import { compareKeyBytes } from '../key-order.ts';
import { parseHttpDate } from '../store-time.ts';
import { hostPort } from '../network-errors.ts';
import { azureCustomerKeyRequired, toAzureStoreError as classified } from './classify.ts';
import { listingOf, useViewerListing } from './list-blobs-policy.ts';

export type AzureCredentials =
  | { readonly mode: 'connection-string-file'; readonly file: string }
  | { readonly mode: 'connection-string'; readonly value: string }
  /** `DefaultAzureCredential` (the SDK's ambient chain) against `accountUrl`, the account's blob endpoint. */
  | { readonly mode: 'default-chain'; readonly accountUrl: string };

export interface AzureDriverOptions {
  readonly container: string;
  readonly credentials: AzureCredentials;
}

// With AZURE_LOG_LEVEL or DEBUG set, the SDK writes request URLs (account, container, object keys),
// headers and the service's answers to stderr. Every Azure SDK logger hands its lines to this one
// root, so silencing it keeps provider text out of viewer's output whatever the environment (D-53).
AzureLogger.log = () => undefined;

const AZURE_DOMAIN = '.blob.core.windows.net';
const RETRY = { retryOptions: { maxTries: 3 } };

/** The blob endpoint of a store-b destination's account: `https://<account>.blob.core.windows.net`, or `<origin>/<account>` for the emulator form. */
export function azureAccountUrl(destination: Pick<Destination, 'account' | 'emulatorOrigin'>): string {
  if (destination.account === null) throw new StoreError('invalid_configuration', 'the destination names no storage account');
  return destination.emulatorOrigin === null ? `https://${destination.account}${AZURE_DOMAIN}` : `${destination.emulatorOrigin}/${destination.account}`;
}

async function connectionString(c: Exclude<AzureCredentials, { mode: 'default-chain' }>): Promise<string> {
  // A connection string is printable ASCII; spaces may appear in its values.
  return c.mode === 'connection-string' ? c.value : readCredentialFile(c.file, /^[\x20-\x7e]+$/, 'STORE_CONNECTION_STRING_FILE');
}

async function serviceClient(c: AzureCredentials): Promise<BlobServiceClient> {
  if (c.mode !== 'default-chain') {
    const value = await connectionString(c);
    try {
      return BlobServiceClient.fromConnectionString(value, RETRY);
    } catch (error) {
      throw new StoreError('invalid_configuration', 'the storage connection string is not usable', { cause: error });
    }
  }
  // The SDK sends bearer tokens over https only; it would refuse every request to an http emulator.
  if (!c.accountUrl.startsWith('https://')) {
    throw new StoreError('invalid_configuration', 'the ambient credential chain needs an https account URL (an http emulator needs a connection string)');
  }
  let credential: DefaultAzureCredential;
  try {
    // Throws on an unknown AZURE_TOKEN_CREDENTIALS value (its message echoes the value).
    credential = new DefaultAzureCredential();
  } catch (error) {
    throw new StoreError('invalid_configuration', 'the ambient credential chain could not be set up', { cause: error });
  }
  return new BlobServiceClient(c.accountUrl, credential, RETRY);
}

export async function createAzureDriver(options: AzureDriverOptions): Promise<StoreDriver> {
  const container: ContainerClient = (await serviceClient(options.credentials)).getContainerClient(options.container);
  // List Blobs answers are read by viewer's parser (list-blobs-policy.ts, issue 28).
  useViewerListing(container);
  const endpoint = hostPort(container.url);
  const toAzureStoreError = (error: unknown, signal?: AbortSignal) => classified(error, signal, endpoint);
  const abort = (signal: AbortSignal) => {
    if (signal.aborted) throw toAzureStoreError(new Error('aborted'), signal);
  };
  async function readStream(request: ReadRequest): Promise<StreamResult> {
    abort(request.signal);
    const blob = container.getBlobClient(request.key);
    try {
      const props = await blob.getProperties({ abortSignal: request.signal });
      const size = props.contentLength ?? 0;
      if (size > request.maxBytes) return { status: 'too-large', size };
      if (size === 0) return { status: 'found', size, chunks: chunksOf(new Uint8Array()) };
      const response = await blob.download(0, size, { abortSignal: request.signal });
      const body = response.readableStreamBody as (NodeJS.ReadableStream & AsyncIterable<Uint8Array> & { destroy?: () => void }) | undefined;
      if (body === undefined) throw new StoreError('incompatible_format', 'the store answered a download without a body');
      return { status: 'found', size, chunks: boundedBody(body, size, (e) => toAzureStoreError(e, request.signal), () => body.destroy?.()) };
    } catch (error) {
      if (error instanceof StoreError) throw error;
      const status = (error as { statusCode?: unknown }).statusCode;
      if (status === 404 && !request.signal.aborted && (error as { code?: unknown }).code !== 'ContainerNotFound') return { status: 'absent' };
      // Encrypted with a customer-provided key the request did not carry (D-92): there, but unreadable.
      if (azureCustomerKeyRequired(error, request.signal)) return { status: 'key-required' };
      throw toAzureStoreError(error, request.signal);
    }
  }
  return {
    capabilities: { startAfter: 'emulated' },

    async listPage(request: ListRequest): Promise<ListPage> {
      abort(request.signal);
      const max = Math.min(request.maxKeys ?? 1000, 5000);
      const token = request.continuationToken ?? undefined;
      try {
        const objects: StoreObject[] = [];
        const prefixes: string[] = [];
        const pages =
          request.delimiter === undefined
            ? container.listBlobsFlat({ prefix: request.prefix, abortSignal: request.signal }).byPage({ maxPageSize: max, ...(token === undefined ? {} : { continuationToken: token }) })
            : container.listBlobsByHierarchy(request.delimiter, { prefix: request.prefix, abortSignal: request.signal }).byPage({ maxPageSize: max, ...(token === undefined ? {} : { continuationToken: token }) });
        const result = await pages.next();
        // No page at all means no request was made: there is no response to take a time from.
        if (result.done === true) return { objects, prefixes, nextToken: null, storeTime: null };
        const page = result.value;
        // Read by viewer's parser in the pipeline (list-blobs-policy.ts), which refuses a 200 that
        // is no blob listing (an HTML page, another document): no listing, never an empty one.
        const parsed = listingOf(page._response);
        if (parsed === undefined) throw new StoreError('incompatible_format', STORE_MESSAGES.incompatible_format);
        for (const o of parsed.objects) {
          if (request.startAfter !== undefined && compareKeyBytes(o.key, request.startAfter) <= 0) continue;
          objects.push(o);
        }
        for (const name of parsed.prefixes) {
          if (request.startAfter !== undefined && compareKeyBytes(name, request.startAfter) <= 0) continue;
          prefixes.push(name);
        }
        // The last page carries an empty marker, not an absent one.
        const next = parsed.nextMarker;
        // The raw `Date` header, read strictly (the SDK's parsed `page.date` is a lenient `new Date()`).
        return { objects, prefixes, nextToken: typeof next === 'string' && next !== '' ? next : null, storeTime: parseHttpDate(page._response.headers.get('date')) };
      } catch (error) {
        if (error instanceof StoreError) throw error;
        if (error instanceof TypeError && !request.signal.aborted) throw new StoreError('incompatible_format', STORE_MESSAGES.incompatible_format, { cause: error });
        throw toAzureStoreError(error, request.signal);
      }
    },

    read: (request: ReadRequest): Promise<ReadResult> => readWhole(readStream(request)),

    readStream,

    close: () => undefined,
  };
}
