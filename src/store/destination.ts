/**
 * Destination URLs as Barman's cloud tools accept them, parsed into a provider-neutral location:
 * the bucket (or container), the storage account where the provider has one, and the key prefix.
 * The URL itself is a secret-adjacent value (it names the customer's bucket): it is parsed here,
 * once, and never echoed in an error.
 *
 * Forms (research: barman-cloud-format.md §1.1):
 * - `store-a`: `s3://bucket[/prefix]`
 * - `store-b`: `https://<account>.blob.core.windows.net/<container>[/prefix]`, or the emulator form
 *   `http(s)://host[:port]/<account>/<container>[/prefix]`
 * - `store-c`: `gs://bucket[/prefix]` or `https://console.cloud.google.com/storage/browser/bucket[/prefix]`
 */
import type { Provider } from '../contract/primitives.ts';

export interface Destination {
  readonly provider: Provider;
  /** S3 or GCS bucket, or Azure container. */
  readonly bucket: string;
  /** Azure storage account; `null` for the other providers. */
  readonly account: string | null;
  /** Origin of an Azure emulator-form URL (`http://127.0.0.1:10000`); `null` otherwise. */
  readonly emulatorOrigin: string | null;
  /** Key prefix without leading or trailing `/`; empty for the bucket root. */
  readonly prefix: string;
}

export type DestinationResult = { ok: true; destination: Destination } | { ok: false; rule: string };

const AZURE_DOMAIN = '.blob.core.windows.net';
const GCS_CONSOLE = 'https://console.cloud.google.com/storage/browser/';

const S3_BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;
const GCS_BUCKET = /^[a-z0-9][a-z0-9._-]{1,220}[a-z0-9]$/;
const AZURE_ACCOUNT = /^[a-z0-9]{3,24}$/;
const AZURE_CONTAINER = /^(?!.*--)[a-z0-9][a-z0-9-]{1,61}[a-z0-9]$/;
// Printable ASCII except the URL delimiters `?` and `#` and the backslash.
const PREFIX_SEGMENT = /^[\x20-\x22\x24-\x3e\x40-\x5b\x5d-\x7e]+$/;

/** The provider a URL form names, or `null` when the form alone does not tell (emulator form). */
export function providerOfUrl(url: string): Provider | null {
  if (url.startsWith('s3://')) return 'store-a';
  if (url.startsWith('gs://') || url.startsWith(GCS_CONSOLE)) return 'store-c';
  const host = /^https:\/\/([^/?#]+)/.exec(url)?.[1];
  if (host?.endsWith(AZURE_DOMAIN) === true) return 'store-b';
  return null;
}

const AZURE_FORM = 'https://<account>.blob.core.windows.net/<container>[/path] (store-b, Azure Blob Storage)';
const S3_FORM = 's3://bucket[/path] (store-a, S3 and S3-compatible stores; an S3-compatible store\'s origin goes in STORE_ENDPOINT_URL)';
const GCS_FORM = 'gs://bucket[/path] (store-c, Google Cloud Storage)';

/**
 * The rule for a destination written in a form other tools use but Barman's cloud tools do not
 * (Hadoop's `wasbs://` and `s3a://`, `azure://`, Cloud Storage's and S3's HTTPS object URLs):
 * which form viewer expects instead. `null` for any other text. Never contains the URL.
 */
export function destinationFormHint(url: string): string | null {
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//.exec(url)?.[1]?.toLowerCase();
  const host = /^https?:\/\/([^/?#:@]+)/i.exec(url)?.[1]?.toLowerCase() ?? '';
  if (scheme === 'azure' || scheme === 'az' || scheme === 'abfs' || scheme === 'abfss') return `must be written ${AZURE_FORM}, the form DESTINATION_PATH takes (not ${scheme}://)`;
  if (scheme === 'wasb' || scheme === 'wasbs') return `must be written ${AZURE_FORM}: a Hadoop ${scheme}://<container>@<account>.blob.core.windows.net/<path> URL names the same place`;
  if (scheme === 's3a' || scheme === 's3n') return `must be written ${S3_FORM}: Hadoop's ${scheme}:// is s3:// here`;
  if (scheme === 'gcs') return `must be written ${GCS_FORM}`;
  if ((scheme === 'https' || scheme === 'http') && (host === 'storage.googleapis.com' || host.endsWith('.storage.googleapis.com') || host === 'storage.cloud.google.com')) return `must be written ${GCS_FORM}, not as an HTTPS object URL`;
  if ((scheme === 'https' || scheme === 'http') && /(^|\.)s3([.-][a-z0-9-]+)*\.amazonaws\.com$/.test(host)) return `must be written ${S3_FORM}, not as an HTTPS object URL`;
  return null;
}

/** Splits a path into a prefix with validated segments; a single trailing `/` is tolerated. */
function prefixOf(segments: readonly string[]): string | null {
  const parts = segments.at(-1) === '' ? segments.slice(0, -1) : segments;
  if (parts.some((s) => s === '' || s === '.' || s === '..' || !PREFIX_SEGMENT.test(s))) return null;
  const prefix = parts.join('/');
  return prefix.length <= 512 ? prefix : null;
}

const fail = (rule: string): DestinationResult => ({ ok: false, rule });
const PREFIX_RULE = 'must have a prefix of printable segments without ., .., empty segments, ? or #';

function bucketAndPrefix(provider: Provider, rest: string, bucketRe: RegExp, what: string): DestinationResult {
  const [bucket = '', ...segments] = rest.split('/');
  if (!bucketRe.test(bucket)) return fail(`must name a valid ${what}`);
  const prefix = prefixOf(segments);
  if (prefix === null) return fail(PREFIX_RULE);
  return { ok: true, destination: { provider, bucket, account: null, emulatorOrigin: null, prefix } };
}

function parseAzure(url: string): DestinationResult {
  const m = /^(https?):\/\/([^/?#@]+)\/([^?#]*)$/.exec(url);
  if (m === null) return fail('must be an https://<account>.blob.core.windows.net/<container>[/path] URL');
  const [, scheme, host = '', path = ''] = m;
  let account: string;
  let emulatorOrigin: string | null = null;
  let rest: string[];
  if (scheme === 'https' && host.endsWith(AZURE_DOMAIN)) {
    account = host.slice(0, -AZURE_DOMAIN.length);
    rest = path.split('/');
  } else {
    if (!/^[A-Za-z0-9.-]+(?::[0-9]{1,5})?$|^\[[0-9a-fA-F:.]+\](?::[0-9]{1,5})?$/.test(host)) return fail('must have a valid host');
    [account = '', ...rest] = path.split('/');
    emulatorOrigin = `${scheme}://${host}`;
  }
  if (!AZURE_ACCOUNT.test(account)) return fail('must name a valid storage account');
  const [container = '', ...segments] = rest;
  if (!AZURE_CONTAINER.test(container)) return fail('must name a valid container');
  const prefix = prefixOf(segments);
  if (prefix === null) return fail(PREFIX_RULE);
  return { ok: true, destination: { provider: 'store-b', bucket: container, account, emulatorOrigin, prefix } };
}

/** Parses `url` for `provider`; the rule in a failure never contains the URL. */
export function parseDestination(url: string, provider: Provider): DestinationResult {
  if (/[?#]/.test(url) || /^[a-z0-9]+:\/\/[^/]*@/i.test(url)) return fail('must not carry credentials, a query or a fragment');
  switch (provider) {
    case 'store-a':
      if (!url.startsWith('s3://')) return fail(destinationFormHint(url) ?? 'must be an s3://bucket[/path] URL for store-a (S3 and S3-compatible stores)');
      return bucketAndPrefix(provider, url.slice('s3://'.length), S3_BUCKET, 'S3 bucket');
    case 'store-c':
      if (url.startsWith('gs://')) return bucketAndPrefix(provider, url.slice('gs://'.length), GCS_BUCKET, 'GCS bucket');
      if (url.startsWith(GCS_CONSOLE)) return bucketAndPrefix(provider, url.slice(GCS_CONSOLE.length), GCS_BUCKET, 'GCS bucket');
      return fail(destinationFormHint(url) ?? 'must be a gs://bucket[/path] URL for store-c (Google Cloud Storage)');
    case 'store-b':
      return /^https?:\/\//.test(url) ? parseAzure(url) : fail(destinationFormHint(url) ?? `must be an ${AZURE_FORM} URL`);
  }
}
