/**
 * The `store-a` driver: S3 and S3-compatible stores through the AWS SDK v3. Read-only
 * (ListObjectsV2 and GetObject only, never with an SSE-C key: an object stored with one reads as
 * `key-required`); listings are asked for url-encoded, so that any key can be carried, and read
 * by viewer's own parser (list-command.ts, list-objects-parser.ts: only the elements evidence
 * uses, keys decoded as listing-names.ts does). A listing answer without `IsTruncated`, or
 * truncated without a continuation token, is refused as `incompatible_format` rather than read as
 * a last page. Every setting the SDK would otherwise take from the
 * environment or shared config files (region, endpoint, credentials, retries, checksums, and the
 * endpoint of the STS call that exchanges a web-identity token) is set explicitly here, so an
 * explicit credential mode can never fall back to ambient configuration.
 */
import { GetObjectCommand, S3Client, type S3ClientConfig } from '@aws-sdk/client-s3';
import { fromTokenFile } from '@aws-sdk/credential-provider-web-identity';
import { checkCredentialFile, readCredentialFile } from '../credential-file.ts';
import { hostPort } from '../network-errors.ts';
import type { ListPage, ListRequest, ReadRequest, ReadResult, StoreDriver, StreamResult } from '../driver.ts';
import { boundedBody, chunksOf, readWhole } from '../read-stream.ts';
import { dateHeader } from '../store-time.ts';
import { s3CustomerKeyRequired, toStoreError as classified } from './classify.ts';
import { ViewerListObjectsV2Command } from './list-command.ts';

export type S3Credentials =
  | { readonly mode: 'static-files'; readonly accessKeyIdFile: string; readonly secretAccessKeyFile: string; readonly sessionTokenFile: string | null }
  | { readonly mode: 'web-identity'; readonly tokenFile: string; readonly roleArn: string }
  | { readonly mode: 'ambient' };

export interface S3DriverOptions {
  readonly bucket: string;
  /** Required for explicit credentials; `null` lets the ambient chain pick one (standalone only). */
  readonly region: string | null;
  /** An S3-compatible endpoint (`http://127.0.0.1:9000`); path-style addressing is used when set. */
  readonly endpoint: string | null;
  readonly credentials: S3Credentials;
  /** Maximum attempts per request, retries included. */
  readonly maxAttempts?: number;
}

/**
 * The region used when none is configured: with explicit credentials always, and in the ambient
 * chain with `STORE_ENDPOINT_URL` when the chain finds none (S3-compatible stores accept it; D-102).
 */
export const FALLBACK_REGION = 'us-east-1';

// Access keys, secrets and session tokens are printable ASCII without spaces.
const secretFile = (path: string, variable: string) => readCredentialFile(path, /^[\x21-\x7e]+$/, variable);

/**
 * The region the SDK's own chain finds (AWS_REGION, AWS_DEFAULT_REGION, a shared config's), or
 * FALLBACK_REGION when it finds none or cannot look (no home directory): for the ambient chain
 * beside a custom endpoint, where a region is only a signing parameter.
 */
async function ambientRegionOrFallback(): Promise<string> {
  const probe = new S3Client({});
  try {
    return await probe.config.region();
  } catch {
    return FALLBACK_REGION;
  } finally {
    probe.destroy();
  }
}

/** `host:port` of the store the driver talks to, for failure details (AWS: the regional endpoint). */
export function s3Endpoint(options: Pick<S3DriverOptions, 'endpoint' | 'region'>): string {
  return hostPort(options.endpoint) ?? `s3.${options.region ?? FALLBACK_REGION}.amazonaws.com:443`;
}

/**
 * The configuration of the STS client the web-identity provider builds to exchange the projected
 * token. Left to itself that client takes its endpoint from AWS_ENDPOINT_URL_STS, AWS_ENDPOINT_URL
 * or a shared config's `endpoint_url` (a profile's, or its `services` section's), and FIPS,
 * dual-stack, retries, the auth-scheme preference and an app id from the environment or the shared
 * config. Every one is set here, so the token goes only to AWS's regional STS endpoint of the
 * configured region (`sts.<region>.amazonaws.com`) and no shared config or credentials file is read
 * for it. What it inherits from the S3 client (the HTTP handler) is set explicitly there.
 */
function stsClientConfig(region: string, maxAttempts: number) {
  return {
    region,
    ignoreConfiguredEndpointUrls: true,
    useFipsEndpoint: false,
    useDualstackEndpoint: false,
    useGlobalEndpoint: false,
    maxAttempts,
    retryMode: 'standard',
    defaultsMode: 'legacy',
    // AssumeRoleWithWebIdentity is unsigned; a preference for SigV4A would make it signed.
    authSchemePreference: [],
    sigv4aSigningRegionSet: [region],
    userAgentAppId: '',
  };
}

async function clientConfig(options: S3DriverOptions): Promise<S3ClientConfig> {
  const explicit = options.credentials.mode !== 'ambient';
  const config: S3ClientConfig = {
    maxAttempts: options.maxAttempts ?? 3,
    retryMode: 'standard',
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    useFipsEndpoint: false,
    useDualstackEndpoint: false,
    useArnRegion: false,
    disableS3ExpressSessionAuth: true,
    followRegionRedirects: false,
  };
  const region = options.region ?? (explicit ? FALLBACK_REGION : undefined);
  if (region !== undefined) config.region = region;
  else if (options.endpoint !== null) config.region = await ambientRegionOrFallback();
  if (options.endpoint !== null) {
    config.endpoint = options.endpoint;
    config.forcePathStyle = true;
  }
  // Explicit credentials go only where the configuration says: without STORE_ENDPOINT_URL, the
  // SDK would otherwise send them to AWS_ENDPOINT_URL(_S3) or a shared config's `endpoint_url`,
  // an endpoint the destination fingerprint does not name (D-54).
  // Likewise its HTTP handler's timeouts are not taken from AWS_DEFAULTS_MODE or `defaults_mode`
  // (the web-identity provider's STS client shares that handler).
  // The settings the SDK would otherwise look up in the shared config files are set too, so an
  // explicit mode never reads ~/.aws at all: a process without a home directory (systemd's
  // DynamicUser, a uid without a passwd entry) works, where the SDK's lookup of the home would throw.
  if (explicit) {
    config.ignoreConfiguredEndpointUrls = true;
    config.defaultsMode = 'legacy';
    config.authSchemePreference = [];
    config.sigv4aSigningRegionSet = [region ?? FALLBACK_REGION];
    config.userAgentAppId = '';
    config.disableClockSkewCorrection = false;
  }
  const c = options.credentials;
  if (c.mode === 'static-files') {
    const [accessKeyId, secretAccessKey, sessionToken] = await Promise.all([
      secretFile(c.accessKeyIdFile, 'STORE_ACCESS_KEY_ID_FILE'),
      secretFile(c.secretAccessKeyFile, 'STORE_SECRET_ACCESS_KEY_FILE'),
      c.sessionTokenFile === null ? Promise.resolve(undefined) : secretFile(c.sessionTokenFile, 'STORE_SESSION_TOKEN_FILE'),
    ]);
    config.credentials = sessionToken === undefined ? { accessKeyId, secretAccessKey } : { accessKeyId, secretAccessKey, sessionToken };
  } else if (c.mode === 'web-identity') {
    await checkCredentialFile(c.tokenFile, 'STORE_WEB_IDENTITY_TOKEN_FILE');
    config.credentials = fromTokenFile({
      webIdentityTokenFile: c.tokenFile,
      roleArn: c.roleArn,
      roleSessionName: 'viewer',
      clientConfig: stsClientConfig(region ?? FALLBACK_REGION, config.maxAttempts as number),
    });
  }
  return config;
}

/**
 * Keeps the `Date` header of a listing's raw HTTP response, which the SDK parses into no output
 * field (`$metadata` has none): a middleware on this one command, in the deserialize step, sees
 * each attempt's response; the last one (the one the output comes from) wins. The closure carries
 * the value out beside the output, so concurrent listings never see each other's.
 */
function keepStoreTime(command: ViewerListObjectsV2Command): () => Date | null {
  let storeTime: Date | null = null;
  command.middlewareStack.add(
    (next) => async (args) => {
      const result = await next(args);
      const headers = (result.response as { headers?: unknown } | undefined)?.headers;
      storeTime = typeof headers === 'object' && headers !== null ? dateHeader(headers as Record<string, unknown>) : null;
      return result;
    },
    { step: 'deserialize', name: 'viewerStoreTime' },
  );
  return () => storeTime;
}

export async function createS3Driver(options: S3DriverOptions): Promise<StoreDriver> {
  const client = new S3Client(await clientConfig(options));
  // The SDK's logger middleware builds a redacted copy of every response for its logger even when
  // the logger discards it (about 3 % of a listing's CPU). viewer never gives the SDK a logger:
  // provider text must not reach viewer's logs.
  client.middlewareStack.remove('loggerMiddleware');
  const bucket = options.bucket;
  const endpoint = s3Endpoint(options);
  const toStoreError = (error: unknown, signal?: AbortSignal) => classified(error, signal, endpoint);
  async function readStream(request: ReadRequest): Promise<StreamResult> {
    try {
      const out = await client.send(new GetObjectCommand({ Bucket: bucket, Key: request.key }), { abortSignal: request.signal });
      const body = out.Body as (AsyncIterable<Uint8Array> & { destroy?: () => void }) | undefined;
      const size = out.ContentLength ?? 0;
      if (size > request.maxBytes) {
        body?.destroy?.();
        return { status: 'too-large', size };
      }
      if (body === undefined) return { status: 'found', size: 0, chunks: chunksOf(new Uint8Array()) };
      return { status: 'found', size, chunks: boundedBody(body, size, (e) => toStoreError(e, request.signal), () => body.destroy?.()) };
    } catch (error) {
      const name = (error as { name?: unknown }).name;
      if ((name === 'NoSuchKey' || name === 'NotFound') && request.signal.aborted !== true) return { status: 'absent' };
      // Stored with SSE-C and asked for without the key (D-92): the object is there, its bytes are not to be had.
      if (s3CustomerKeyRequired(error, request.signal)) return { status: 'key-required' };
      throw toStoreError(error, request.signal);
    }
  }
  return {
    async listPage(request: ListRequest): Promise<ListPage> {
      // Asked with EncodingType=url and read by viewer's own parser (list-command.ts,
      // list-objects-parser.ts). A listing is complete only when the store says so: the parser
      // refuses, as incompatible_format, every answer that is no complete listing (no IsTruncated,
      // truncated without a token, an object without a key, a body cut short, another document),
      // never taking it for an empty or a last page.
      const command = new ViewerListObjectsV2Command({
        Bucket: bucket,
        Prefix: request.prefix,
        ...(request.delimiter === undefined ? {} : { Delimiter: request.delimiter }),
        ...(request.startAfter === undefined ? {} : { StartAfter: request.startAfter }),
        ...(request.continuationToken === undefined ? {} : { ContinuationToken: request.continuationToken }),
        MaxKeys: request.maxKeys ?? 1000,
      });
      const storeTime = keepStoreTime(command);
      try {
        await client.send(command, { abortSignal: request.signal });
      } catch (error) {
        throw toStoreError(error, request.signal);
      }
      const page = command.listing;
      return { objects: page.objects, prefixes: page.prefixes, nextToken: page.nextContinuationToken, storeTime: storeTime() };
    },

    read: (request: ReadRequest): Promise<ReadResult> => readWhole(readStream(request)),
    readStream,

    close: () => client.destroy(),
  };
}
