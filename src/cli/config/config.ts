/**
 * The one typed, validated configuration of both runtime modes, parsed from the environment before
 * anything else starts. Every rule of the spec's "Runtime modes", "Sidecar configuration",
 * "Standalone configuration facts" and "Limits" sections is checked here, plus the variables the
 * spec leaves to us (docs/configuration.md lists them all). A refused configuration yields one
 * violation per broken rule; values are never echoed.
 *
 * This module is where viewer reads its environment (`main.ts` hands `process.env` to it, and to
 * nothing else): the parts of this object travel down as plain values (store options, scan
 * budgets, server options). The provider SDKs' own variables (`AWS_*`, `AZURE_*` other than
 * Barman's connection string, `GOOGLE_*`) are read by those SDKs, in standalone's ambient chains.
 */
import { isIPv4, isIPv6 } from 'node:net';
import { dirname } from 'node:path';
import type { Provider } from '../../contract/primitives.ts';
import { CLUSTER_NAME_PATTERN, NAMESPACE_PATTERN, PROVIDERS, SERVER_NAME_PATTERN, SIDECAR_SOCKET_PATH, UID_PATTERN } from '../../contract/values.ts';
import { defaultFormat, formatIds, formatNamed, registeredFormats } from '../../format/registry.ts';
import type { RepositoryFormat, RetentionPolicy } from '../../format/seam.ts';
import { destinationFormHint, parseDestination, providerOfUrl, type Destination } from '../../store/destination.ts';
import { EnvReader, type ConfigViolation, type Env } from './env-reader.ts';
import { nearMisses } from './near-miss.ts';

export type { ConfigViolation, Env } from './env-reader.ts';

export const RUNTIME_MODES = ['standalone', 'sidecar'] as const;
export type RuntimeMode = (typeof RUNTIME_MODES)[number];
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** How the store client authenticates. */
export type StoreCredentials =
  /** store-a: access key id and secret files, optional session token file. */
  | { readonly mode: 'static-files'; readonly accessKeyIdFile: string; readonly secretAccessKeyFile: string; readonly sessionTokenFile: string | null }
  /** store-a: only the explicit web-identity token file and role provider. */
  | { readonly mode: 'web-identity'; readonly tokenFile: string; readonly roleArn: string }
  /** store-b: a file holding a storage connection string. */
  | { readonly mode: 'connection-string-file'; readonly file: string }
  /** store-c: a service-account key file. */
  | { readonly mode: 'service-account-file'; readonly file: string }
  /**
   * The provider SDK's default chain (standalone only). For store-b, Barman's own variable comes
   * before the chain (D-49): `connectionString` is `AZURE_STORAGE_CONNECTION_STRING` as set, absent
   * when it is not. It is kept even when empty: building the driver refuses that as
   * `invalid_configuration`, as it refuses the chain's other unusable inputs, and never falls
   * through to the chain.
   */
  | { readonly mode: 'ambient'; readonly connectionString?: string };

export interface ClusterIdentity {
  readonly namespace: string;
  readonly uid: string;
  readonly name: string | null;
}

export interface ScanBudgets {
  readonly maxPages: number;
  readonly maxObjects: number;
  readonly timeoutSeconds: number;
  readonly concurrency: number;
}

export interface RetentionExpectation {
  /** The policy text as configured, shown as is; `null` when not configured. */
  readonly policyText: string | null;
  /** The recognised form of `policyText`, `null` when absent or unrecognised. */
  readonly policy: RetentionPolicy | null;
  readonly minimumRedundancy: number | null;
  /** `EXPECTED_MAX_ARCHIVE_LAG` in seconds; `null` when not configured (the lag is then shown, never judged). */
  readonly maxArchiveLagSeconds: number | null;
}

interface CommonConfig {
  /**
   * `REPOSITORY_FORMAT`: the id of a registered format (format/registry.ts; the sidecar accepts
   * only a format that declares `sidecar`, the spec's mode table, D-72).
   */
  readonly format: string;
  readonly provider: Provider;
  readonly credentials: StoreCredentials;
  readonly region: string | null;
  /** S3-compatible, emulator or private endpoint; path-style addressing for store-a when set. */
  readonly endpointUrl: string | null;
  /**
   * `STORE_CA_FILE`: a PEM bundle added to the trusted roots of the store's TLS connections (any
   * provider; process-wide, so shared by a fleet's repositories); `null` trusts Node's defaults.
   */
  readonly caFile: string | null;
  readonly retention: RetentionExpectation;
  readonly refreshIntervalSeconds: number;
  readonly freshnessThresholdSeconds: number;
  readonly readinessWindowSeconds: number;
  readonly scan: ScanBudgets;
  readonly walPageSize: number;
  readonly logLevel: LogLevel;
  /**
   * `STATE_DIR`: where the memory of each scope is kept across restarts (D-81); `null` keeps it in
   * the process only. The directory itself is checked at startup (a gate: it must exist and be
   * writable), not here.
   */
  readonly stateDir: string | null;
  /**
   * `METRICS_LABELS`: the target's identity on every series `viewer scan --output openmetrics`
   * prints, as `[name, value]` pairs in the configured order; empty when unset.
   */
  readonly metricsLabels: readonly MetricsLabel[];
}

/** One `METRICS_LABELS` entry: a Prometheus label name and its value. */
export type MetricsLabel = readonly [name: string, value: string];

export interface SidecarConfig extends CommonConfig {
  readonly mode: 'sidecar';
  readonly destination: Destination;
  readonly serverName: string;
  readonly tokenFile: string;
  readonly cluster: ClusterIdentity;
}

export interface StandaloneConfig extends CommonConfig {
  readonly mode: 'standalone';
  /**
   * `null` runs the embedded demo repository, unless `fleetFile` is set: then the repositories are
   * the fleet file's entries (`fleet-file.ts`), and the per-repository fields here (format,
   * provider, credentials, region, endpoint, server names) are the defaults and mean nothing.
   */
  readonly destination: Destination | null;
  /** `REPOSITORY_NAME`: what the pages call the one repository; `null` derives it from the destination (bucket and prefix). */
  readonly repositoryName: string | null;
  /** `FLEET_FILE`: the fleet file's absolute path; `null` for one repository (or the demo). */
  readonly fleetFile: string | null;
  /** `FLEET_CONCURRENCY`: how many scans of the fleet run at once. */
  readonly fleetConcurrency: number;
  /** `METRICS_ADDR`: the metrics listener; `null` (the default) when there is none. */
  readonly metricsListen: { readonly host: string | null; readonly port: number } | null;
  /** Explicit scopes, or `null` to discover the server names under the destination. */
  readonly serverNames: readonly string[] | null;
  readonly cluster: ClusterIdentity | null;
  readonly listen: { readonly host: string | null; readonly port: number };
  readonly trustedUserHeader: string | null;
  /** Accepted and frozen: downloads are never served. */
  readonly allowDownload: boolean;
}

export type Config = SidecarConfig | StandaloneConfig;

export type ConfigResult =
  | { readonly ok: true; readonly config: Config; readonly warnings: readonly string[] }
  | { readonly ok: false; readonly violations: readonly ConfigViolation[] };

/**
 * Every variable viewer reads. An unknown variable within two edits of one of these (whatever its
 * prefix), or with one of `WATCHED_PREFIXES`, earns a warning naming the variable it may mean.
 */
export const KNOWN_VARIABLES = [
  'RUNTIME_MODE', 'REPOSITORY_FORMAT', 'PROVIDER', 'DESTINATION_PATH', 'ARCHIVE_SERVER_NAMES',
  'EVIDENCE_TOKEN_FILE', 'CLUSTER_NAMESPACE', 'CLUSTER_UID', 'CLUSTER_NAME',
  'STORE_CREDENTIAL_MODE', 'STORE_ACCESS_KEY_ID_FILE', 'STORE_SECRET_ACCESS_KEY_FILE', 'STORE_SESSION_TOKEN_FILE',
  'STORE_REGION', 'STORE_WEB_IDENTITY_TOKEN_FILE', 'STORE_ROLE_ARN', 'STORE_ENDPOINT_URL',
  'STORE_CONNECTION_STRING_FILE', 'STORE_SERVICE_ACCOUNT_KEY_FILE', 'STORE_CA_FILE',
  'LISTEN_ADDR', 'TRUSTED_USER_HEADER', 'ALLOW_DOWNLOAD', 'WAL_PAGE_SIZE',
  'EXPECTED_RETENTION_POLICY', 'EXPECTED_MINIMUM_REDUNDANCY', 'EXPECTED_MAX_ARCHIVE_LAG',
  'REFRESH_INTERVAL_SECONDS', 'FRESHNESS_THRESHOLD_SECONDS', 'READINESS_WINDOW_SECONDS',
  'SCAN_MAX_PAGES', 'SCAN_MAX_OBJECTS', 'SCAN_TIMEOUT_SECONDS', 'SCAN_CONCURRENCY', 'LOG_LEVEL', 'STATE_DIR',
  'METRICS_LABELS', 'FLEET_FILE', 'FLEET_CONCURRENCY', 'METRICS_ADDR', 'REPOSITORY_NAME',
  // Barman's own variable, read for store-b's ambient chain (D-49); its rules are the Azure SDK's.
  'AZURE_STORAGE_CONNECTION_STRING',
] as const;
const WATCHED_PREFIXES = ['STORE_', 'ARCHIVE_', 'EVIDENCE_', 'CLUSTER_', 'SCAN_', 'EXPECTED_', 'METRICS_', 'FLEET_'];

/**
 * The variables of one repository. Beside `FLEET_FILE` each is refused: every entry of the fleet
 * file has its own (`fleet-file.ts` maps the entry's fields onto them).
 */
export const REPOSITORY_VARIABLES = [
  'DESTINATION_PATH', 'ARCHIVE_SERVER_NAMES', 'PROVIDER', 'REPOSITORY_FORMAT',
  'STORE_CREDENTIAL_MODE', 'STORE_ACCESS_KEY_ID_FILE', 'STORE_SECRET_ACCESS_KEY_FILE', 'STORE_SESSION_TOKEN_FILE',
  'STORE_REGION', 'STORE_WEB_IDENTITY_TOKEN_FILE', 'STORE_ROLE_ARN', 'STORE_ENDPOINT_URL',
  'STORE_CONNECTION_STRING_FILE', 'STORE_SERVICE_ACCOUNT_KEY_FILE',
] as const;

export const DEFAULTS = {
  listenAddr: ':3000',
  walPageSize: 200,
  refreshIntervalSeconds: 300,
  freshnessMultiplier: 3,
  readinessWindowSeconds: 90,
  scanMaxPages: 20_000,
  scanMaxObjects: 20_000_000,
  scanTimeoutSeconds: 1_800,
  scanConcurrency: 8,
  fleetConcurrency: 4,
  logLevel: 'info' as LogLevel,
} as const;

const S3_FILE_VARIABLES = ['STORE_ACCESS_KEY_ID_FILE', 'STORE_SECRET_ACCESS_KEY_FILE', 'STORE_SESSION_TOKEN_FILE'] as const;
const WEB_IDENTITY_VARIABLES = ['STORE_WEB_IDENTITY_TOKEN_FILE', 'STORE_ROLE_ARN'] as const;
const FORBIDDEN_IDENTITY_HEADERS = new Set([
  'authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'host', 'content-length',
  'transfer-encoding', 'connection', 'upgrade', 'te', 'trailer', 'keep-alive', 'forwarded',
]);
const SERVER_NAME = new RegExp(SERVER_NAME_PATTERN);
const REGION = /^[a-z]{2}(?:-[a-z0-9]+){1,4}$|^[a-z0-9][a-z0-9-]{0,62}$/;
const ROLE_ARN = /^arn:aws[a-z-]*:iam::[0-9]{12}:role\/[A-Za-z0-9+=,.@_/-]{1,512}$/;

function parseServerNames(r: EnvReader, mode: RuntimeMode): string[] | null {
  const raw = mode === 'sidecar' ? r.required('ARCHIVE_SERVER_NAMES', 'in sidecar mode') : r.string('ARCHIVE_SERVER_NAMES');
  if (raw === undefined) return null;
  const names = raw.split(',').map((n) => n.trim());
  if (names.some((n) => !SERVER_NAME.test(n))) {
    r.violate('ARCHIVE_SERVER_NAMES', 'must be a comma-separated list of server names (letters, digits, ., _, -; at most 128 bytes each)');
    return null;
  }
  if (new Set(names).size !== names.length) {
    r.violate('ARCHIVE_SERVER_NAMES', 'must not name a server twice');
    return null;
  }
  if (mode === 'sidecar' && names.length !== 1) {
    r.violate('ARCHIVE_SERVER_NAMES', 'must name exactly one server in sidecar mode');
    return null;
  }
  return names;
}

function parseCluster(r: EnvReader, mode: RuntimeMode): ClusterIdentity | null {
  const why = mode === 'sidecar' ? 'in sidecar mode' : 'when another CLUSTER_ identity variable is set';
  const anySet = ['CLUSTER_NAMESPACE', 'CLUSTER_UID', 'CLUSTER_NAME'].some((v) => r.isSet(v));
  if (mode === 'standalone' && !anySet) return null;
  const namespace = r.isSet('CLUSTER_NAMESPACE')
    ? r.pattern('CLUSTER_NAMESPACE', new RegExp(NAMESPACE_PATTERN), 'a Kubernetes namespace name (DNS-1123 label)')
    : r.required('CLUSTER_NAMESPACE', why);
  const uid = r.isSet('CLUSTER_UID')
    ? r.pattern('CLUSTER_UID', new RegExp(UID_PATTERN), 'a lowercase Kubernetes UID (UUID)')
    : r.required('CLUSTER_UID', why);
  const name = r.pattern('CLUSTER_NAME', new RegExp(CLUSTER_NAME_PATTERN), 'a Kubernetes object name (DNS-1123 subdomain)');
  if (namespace === undefined || uid === undefined) return null;
  return { namespace, uid, name: name ?? null };
}

/** What each of the spec's neutral provider identifiers stands for, as messages name them. */
export const PROVIDER_NAMES: Readonly<Record<Provider, string>> = {
  'store-a': 'S3 and S3-compatible stores',
  'store-b': 'Azure Blob Storage',
  'store-c': 'Google Cloud Storage',
};

/** `store-b (Azure Blob Storage)`. */
export const providerNamed = (p: Provider): string => `${p} (${PROVIDER_NAMES[p]})`;

const PROVIDER_CHOICES = `${PROVIDERS.slice(0, -1).map(providerNamed).join(', ')} or ${providerNamed(PROVIDERS[PROVIDERS.length - 1] as Provider)}`;

function parseProvider(r: EnvReader, mode: RuntimeMode, url: string | undefined): Provider | undefined {
  if (mode === 'sidecar') {
    const p = r.required('PROVIDER', `in sidecar mode (${providerNamed('store-a')})`);
    if (p !== undefined && p !== 'store-a') r.violate('PROVIDER', `must be ${providerNamed('store-a')} in sidecar mode`);
    return p === 'store-a' ? p : undefined;
  }
  const given = r.string('PROVIDER');
  if (given !== undefined && !(PROVIDERS as readonly string[]).includes(given)) {
    r.violate('PROVIDER', `must be ${PROVIDER_CHOICES}`);
    return undefined;
  }
  if (given !== undefined || r.isSet('PROVIDER')) return given as Provider | undefined;
  if (url === undefined) return 'store-a';
  const inferred = providerOfUrl(url);
  if (inferred === null) {
    const hint = destinationFormHint(url);
    if (hint !== null) r.violate('DESTINATION_PATH', hint);
    else r.violate('PROVIDER', `is required when DESTINATION_PATH does not name its provider (an http(s)://host/<account>/<container> URL is the Azure emulator form: PROVIDER=store-b; an S3-compatible store takes s3://bucket[/path] with STORE_ENDPOINT_URL=http(s)://host:port)`);
  }
  return inferred ?? undefined;
}

function parseCredentials(r: EnvReader, mode: RuntimeMode, provider: Provider | undefined): StoreCredentials | undefined {
  const s3Modes = mode === 'sidecar' ? (['static-files', 'web-identity'] as const) : (['static-files', 'web-identity', 'ambient'] as const);
  const otherModes = ['static-files', 'ambient'] as const;
  if (mode === 'sidecar' && !r.isSet('STORE_CREDENTIAL_MODE')) {
    r.required('STORE_CREDENTIAL_MODE', 'in sidecar mode (static-files or web-identity; there is no ambient chain)');
    return undefined;
  }
  if (mode === 'sidecar' && r.string('STORE_CREDENTIAL_MODE') === 'ambient') {
    r.violate('STORE_CREDENTIAL_MODE', 'must be static-files or web-identity: sidecar mode has no ambient credential chain');
    return undefined;
  }
  // A provider that failed its own rule is reported there; its credentials cannot be judged.
  if (provider === undefined) return undefined;
  const declared = r.oneOf('STORE_CREDENTIAL_MODE', provider === 'store-a' ? s3Modes : otherModes);
  if (r.isSet('STORE_CREDENTIAL_MODE') && declared === undefined) return undefined;

  if (provider !== 'store-a') {
    for (const v of [...S3_FILE_VARIABLES, ...WEB_IDENTITY_VARIABLES, 'STORE_REGION']) r.forbid(v, `applies to ${providerNamed('store-a')} only (PROVIDER is ${providerNamed(provider)})`);
    const fileVar = provider === 'store-b' ? 'STORE_CONNECTION_STRING_FILE' : 'STORE_SERVICE_ACCOUNT_KEY_FILE';
    r.forbid(provider === 'store-b' ? 'STORE_SERVICE_ACCOUNT_KEY_FILE' : 'STORE_CONNECTION_STRING_FILE', `does not apply to ${providerNamed(provider)}`);
    // Azure's endpoint is the destination's account URL (or the emulator origin it names) or the
    // connection string's: a second source would be ignored or contradict them.
    if (provider === 'store-b') r.forbid('STORE_ENDPOINT_URL', `does not apply to ${providerNamed('store-b')}: its endpoint comes from DESTINATION_PATH or the connection string`);
    const effective = declared ?? (r.isSet(fileVar) ? 'static-files' : 'ambient');
    if (effective === 'ambient') {
      r.forbid(fileVar, 'must not be set with STORE_CREDENTIAL_MODE=ambient');
      // Barman's order (D-49): its variable first, then the SDK's chain. Read as Barman reads it.
      const connectionString = provider === 'store-b' ? r.raw('AZURE_STORAGE_CONNECTION_STRING') : undefined;
      return connectionString === undefined ? { mode: 'ambient' } : { mode: 'ambient', connectionString };
    }
    const file = r.isSet(fileVar) ? r.absolutePath(fileVar) : r.required(fileVar, 'with STORE_CREDENTIAL_MODE=static-files');
    if (file === undefined) return undefined;
    return provider === 'store-b' ? { mode: 'connection-string-file', file } : { mode: 'service-account-file', file };
  }

  r.forbid('STORE_CONNECTION_STRING_FILE', `applies to ${providerNamed('store-b')} only (PROVIDER is ${providerNamed('store-a')})`);
  r.forbid('STORE_SERVICE_ACCOUNT_KEY_FILE', `applies to ${providerNamed('store-c')} only (PROVIDER is ${providerNamed('store-a')})`);
  const anyFile = S3_FILE_VARIABLES.some((v) => r.isSet(v));
  const effective = declared ?? (anyFile ? 'static-files' : 'ambient');
  switch (effective) {
    case 'static-files': {
      for (const v of WEB_IDENTITY_VARIABLES) r.forbid(v, 'must not be set with STORE_CREDENTIAL_MODE=static-files');
      const why = 'with STORE_CREDENTIAL_MODE=static-files';
      const id = r.isSet('STORE_ACCESS_KEY_ID_FILE') ? r.absolutePath('STORE_ACCESS_KEY_ID_FILE') : r.required('STORE_ACCESS_KEY_ID_FILE', why);
      const secret = r.isSet('STORE_SECRET_ACCESS_KEY_FILE') ? r.absolutePath('STORE_SECRET_ACCESS_KEY_FILE') : r.required('STORE_SECRET_ACCESS_KEY_FILE', why);
      const session = r.absolutePath('STORE_SESSION_TOKEN_FILE');
      if (id === undefined || secret === undefined) return undefined;
      return { mode: 'static-files', accessKeyIdFile: id, secretAccessKeyFile: secret, sessionTokenFile: session ?? null };
    }
    case 'web-identity': {
      for (const v of S3_FILE_VARIABLES) r.forbid(v, 'must not be set with STORE_CREDENTIAL_MODE=web-identity');
      const why = 'with STORE_CREDENTIAL_MODE=web-identity';
      const tokenFile = r.isSet('STORE_WEB_IDENTITY_TOKEN_FILE') ? r.absolutePath('STORE_WEB_IDENTITY_TOKEN_FILE') : r.required('STORE_WEB_IDENTITY_TOKEN_FILE', why);
      const role = r.isSet('STORE_ROLE_ARN') ? r.pattern('STORE_ROLE_ARN', ROLE_ARN, 'an IAM role ARN') : r.required('STORE_ROLE_ARN', why);
      if (!r.isSet('STORE_REGION')) r.required('STORE_REGION', why);
      if (tokenFile === undefined || role === undefined) return undefined;
      return { mode: 'web-identity', tokenFile, roleArn: role };
    }
    case 'ambient':
      for (const v of [...S3_FILE_VARIABLES, ...WEB_IDENTITY_VARIABLES]) r.forbid(v, 'must not be set with STORE_CREDENTIAL_MODE=ambient');
      return { mode: 'ambient' };
  }
}

function parseEndpoint(r: EnvReader): string | null {
  const raw = r.string('STORE_ENDPOINT_URL', 2048);
  if (raw === undefined) return null;
  const url = URL.canParse(raw) ? new URL(raw) : null;
  const ok = url !== null && (url.protocol === 'http:' || url.protocol === 'https:') && url.username === '' && url.password === '' && url.search === '' && url.hash === '' && (url.pathname === '/' || url.pathname === '');
  if (!ok) {
    r.violate('STORE_ENDPOINT_URL', 'must be an http(s)://host[:port] URL without credentials, path, query or fragment');
    return null;
  }
  return url === null ? null : url.origin;
}

/**
 * `[host]:port` with the host optional (all interfaces); IPv6 hosts in brackets. `LISTEN_ADDR` by
 * default, with its default; another variable (`METRICS_ADDR`) by the same rules, with its own.
 */
export function parseListen(r: EnvReader, name = 'LISTEN_ADDR', fallback: string = DEFAULTS.listenAddr): { host: string | null; port: number } | undefined {
  const raw = r.string(name) ?? (r.isSet(name) ? undefined : fallback);
  if (raw === undefined) return undefined;
  const m = /^(?:\[([0-9A-Fa-f:.]+)\]|([A-Za-z0-9.-]*)):([0-9]{1,5})$/.exec(raw);
  const port = m === null ? Number.NaN : Number(m[3]);
  if (m === null || port > 65535) {
    r.violate(name, 'must be [host]:port with a port from 0 to 65535 (IPv6 hosts in brackets)');
    return undefined;
  }
  const host = m[1] ?? m[2] ?? '';
  // Brackets hold an IPv6 address; a bare host is an IPv4 address or a DNS name (RFC 1123 labels).
  const valid = m[1] !== undefined ? isIPv6(host) : host === '' || isIPv4(host) || (HOSTNAME.test(host) && !/^[0-9.]+$/.test(host));
  if (!valid) {
    r.violate(name, 'must name an IPv4 address, a bracketed IPv6 address or a DNS host name');
    return undefined;
  }
  return { host: host === '' ? null : host, port };
}

/**
 * `METRICS_ADDR`: absent means no metrics listener. Refused when it would take `LISTEN_ADDR`'s
 * port on the same or all interfaces (port 0 picks a free port, so it never collides).
 */
function parseMetricsListen(r: EnvReader, listen: { host: string | null; port: number } | undefined): { host: string | null; port: number } | null {
  if (!r.isSet('METRICS_ADDR')) return null;
  const metrics = parseListen(r, 'METRICS_ADDR');
  if (metrics === undefined || listen === undefined) return null;
  const sameHost = metrics.host === null || listen.host === null || metrics.host.toLowerCase() === listen.host.toLowerCase();
  if (metrics.port !== 0 && metrics.port === listen.port && sameHost) {
    r.violate('METRICS_ADDR', 'must not be the address LISTEN_ADDR takes (the same port on the same or all interfaces)');
    return null;
  }
  return metrics;
}

const HOSTNAME = /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;

function parseTrustedUserHeader(r: EnvReader): string | null {
  const name = r.pattern('TRUSTED_USER_HEADER', /^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,64}$/, 'an HTTP header name of at most 64 bytes');
  if (name === undefined) return null;
  if (FORBIDDEN_IDENTITY_HEADERS.has(name.toLowerCase())) {
    r.violate('TRUSTED_USER_HEADER', 'must not name a credential, hop-by-hop or framing header');
    return null;
  }
  return name.toLowerCase();
}

/** The expectations, the policy read in the repository format's own syntax. */
function parseRetention(r: EnvReader, format: RepositoryFormat): RetentionExpectation {
  const policyText = r.pattern('EXPECTED_RETENTION_POLICY', /^[\x20-\x7e]{1,128}$/, 'printable text of at most 128 bytes') ?? null;
  const minimumRedundancy = r.integer('EXPECTED_MINIMUM_REDUNDANCY', 0, 10_000) ?? null;
  const maxArchiveLagSeconds = parseDuration(r, 'EXPECTED_MAX_ARCHIVE_LAG', 60, 30 * 86_400) ?? null;
  return { policyText, policy: policyText === null ? null : format.parseRetentionPolicy(policyText), minimumRedundancy, maxArchiveLagSeconds };
}

/** Seconds of the units d, h, m, s, in the order a duration writes them. */
const DURATION_UNITS = [86_400, 3_600, 60, 1] as const;

/** A duration such as `15m`, `1h30m` or `2d`: units d, h, m, s, each at most once, largest first; in seconds. */
export function parseDuration(r: EnvReader, name: string, minSeconds: number, maxSeconds: number): number | undefined {
  const text = r.string(name, 32);
  if (text === undefined) return undefined;
  const m = /^(?:(\d{1,5})d)?(?:(\d{1,6})h)?(?:(\d{1,7})m)?(?:(\d{1,9})s)?$/.exec(text);
  const seconds = m === null || text === '' ? Number.NaN : [m[1], m[2], m[3], m[4]].reduce((sum, part, i) => sum + Number(part ?? 0) * (DURATION_UNITS[i] ?? 0), 0);
  if (!Number.isSafeInteger(seconds) || seconds < minSeconds || seconds > maxSeconds) {
    r.violate(name, `must be a duration such as 15m, 1h30m or 2d (units d, h, m, s), from ${minSeconds} s to ${maxSeconds / 86_400} days`);
    return undefined;
  }
  return seconds;
}

/** The socket's directory: shared with the consumer's container, never a place for viewer's state. */
const SOCKET_DIR = dirname(SIDECAR_SOCKET_PATH);

/**
 * `STATE_DIR`: an absolute, clean path. In sidecar mode not the socket directory or under it (that
 * volume is the consumer's too: spec Authentication, Sidecar, rule 6).
 */
function parseStateDir(r: EnvReader, mode: RuntimeMode): string | null {
  const dir = r.absolutePath('STATE_DIR');
  if (dir === undefined) return null;
  const under = (root: string) => dir === root || dir.startsWith(`${root}/`);
  if (mode === 'sidecar' && (under(SOCKET_DIR) || under(SOCKET_DIR.replace(/^\/var\/run\//, '/run/')))) {
    r.violate('STATE_DIR', 'must not be the socket directory or under it (the consumer container mounts that volume too)');
    return null;
  }
  return dir;
}

/**
 * Label names `METRICS_LABELS` may not take: every label viewer's own series carry
 * (src/metrics/openmetrics.ts; its test checks this list covers them), the ones OpenMetrics gives a
 * meaning (`le`, `quantile`), the ones Prometheus sets at the scrape (`job`, `instance`; a textfile
 * that carried them would see them renamed `exported_…`), and `repository`, the fleet file's
 * repository name (issue 25).
 */
export const RESERVED_METRIC_LABELS: ReadonlySet<string> = new Set([
  'server', 'timeline', 'state', 'status', 'backup_id', 'stop', 'part', 'capability', 'reason', 'version', 'format', 'provider',
  'le', 'quantile', 'job', 'instance', 'repository',
]);
const METRIC_LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]{0,63}$/;
/** Printable ASCII without the separator; no white space at either end. */
const METRIC_LABEL_VALUE = /^[\x21-\x2b\x2d-\x7e](?:[\x20-\x2b\x2d-\x7e]{0,126}[\x21-\x2b\x2d-\x7e])?$/;
/** At most this many labels in `METRICS_LABELS`, and in each fleet entry's `labels`. */
export const MAX_METRICS_LABELS = 16;

/**
 * The rule one extra label breaks, or `null`: one judgement for `METRICS_LABELS` and the fleet
 * file's `labels`. `earlier` holds the names of the entries before it; `inherited` the names
 * `METRICS_LABELS` already sets (a fleet entry must not set them again).
 */
export function metricLabelRule(name: string, value: string, earlier: ReadonlySet<string>, inherited: ReadonlySet<string> = new Set()): string | null {
  if (!METRIC_LABEL_NAME.test(name)) return 'the name must be a Prometheus label name ([a-zA-Z_][a-zA-Z0-9_]*, at most 64 characters)';
  if (name.startsWith('__')) return 'the name must not start with __ (reserved by Prometheus)';
  if (RESERVED_METRIC_LABELS.has(name)) return `the name must not be one viewer or Prometheus already uses (${[...RESERVED_METRIC_LABELS].join(', ')})`;
  if (earlier.has(name)) return 'the name must not repeat an earlier entry';
  if (inherited.has(name)) return 'the name must not be one METRICS_LABELS already sets';
  if (!METRIC_LABEL_VALUE.test(value)) return 'the value must be 1 to 128 printable ASCII characters, without a comma or white space at either end';
  return null;
}

/**
 * `METRICS_LABELS=name=value,name=value`: extra labels on every series. Each refusal names the entry
 * by its position and the rule it breaks, never the name or the value.
 */
function parseMetricsLabels(r: EnvReader): MetricsLabel[] {
  const raw = r.string('METRICS_LABELS', 4096);
  if (raw === undefined) return [];
  const entries = raw.split(',');
  if (entries.length > MAX_METRICS_LABELS) {
    r.violate('METRICS_LABELS', `must hold at most ${MAX_METRICS_LABELS} labels`);
    return [];
  }
  const labels: MetricsLabel[] = [];
  const seen = new Set<string>();
  let broken = false;
  const violate = (i: number, rule: string) => {
    r.violate('METRICS_LABELS', `entry ${i + 1}: ${rule}`);
    broken = true;
  };
  entries.forEach((entry, i) => {
    const eq = entry.indexOf('=');
    if (eq < 0) return violate(i, 'must be name=value (entries separated by commas)');
    const name = entry.slice(0, eq);
    const value = entry.slice(eq + 1);
    const rule = metricLabelRule(name, value, seen);
    seen.add(name);
    if (rule !== null) return violate(i, rule);
    labels.push([name, value]);
  });
  return broken ? [] : labels;
}

/**
 * One warning per unknown variable that looks meant for viewer: within two edits of a variable
 * viewer reads (whatever its prefix: `REPOSITRY_FORMAT`), or with a prefix of viewer's own. Names
 * only, never a value.
 */
export function warningsFor(env: Env): string[] {
  const known = new Set<string>(KNOWN_VARIABLES);
  const warnings: string[] = [];
  for (const k of Object.keys(env).sort()) {
    if (known.has(k)) continue;
    const [meant] = nearMisses(k, KNOWN_VARIABLES);
    if (meant !== undefined) warnings.push(`${k}: not a viewer variable; ignored (did you mean ${meant}?)`);
    else if (WATCHED_PREFIXES.some((p) => k.startsWith(p))) warnings.push(`${k}: not a viewer variable; ignored (check the spelling)`);
  }
  return warnings;
}

/**
 * The one variable `viewer probe` reads (spec: it "reads only EVIDENCE_TOKEN_FILE"), outside the
 * configuration so that the probe works in any environment. Judged by the probe: anything wrong
 * with it is "not live".
 */
export function probeTokenFile(env: Env): string | undefined {
  return env['EVIDENCE_TOKEN_FILE'];
}

/** The formats sidecar mode reads (those declaring `sidecar`), as its refusal names them: `a`, or `one of a, b`. */
function sidecarFormatChoices(): string {
  const ids = registeredFormats().filter((f) => f.sidecar).map((f) => f.id);
  return ids.length === 1 ? (ids[0] ?? '') : `one of ${ids.join(', ')}`;
}

/** The indefinite article before a word, by its first letter: `an x`, `a y` (a format id in a message). */
const article = (word: string): string => (/^[aeiou]/i.test(word) ? 'an' : 'a');

/** Parses and validates the whole configuration; never throws, never echoes a value. */
export function parseConfig(env: Env): ConfigResult {
  // Beside FLEET_FILE the repository variables are refused below and read as absent: their rules
  // are the fleet entries' (judged by fleet-file.ts), and one refusal each is enough.
  const fleet = env['FLEET_FILE'] !== undefined && (env['RUNTIME_MODE'] ?? 'standalone') === 'standalone';
  const r = new EnvReader(fleet ? Object.fromEntries(Object.entries(env).filter(([k]) => !(REPOSITORY_VARIABLES as readonly string[]).includes(k))) : env);
  const mode = r.isSet('RUNTIME_MODE') ? r.oneOf('RUNTIME_MODE', RUNTIME_MODES) : 'standalone';
  if (mode === undefined) return { ok: false, violations: r.violations };

  if (mode === 'sidecar' && !r.isSet('REPOSITORY_FORMAT')) r.required('REPOSITORY_FORMAT', 'in sidecar mode');
  // The registry is read here, at parse time: a format a test registers is accepted like the others.
  const format: string | undefined = r.isSet('REPOSITORY_FORMAT') ? r.oneOf('REPOSITORY_FORMAT', formatIds()) : mode === 'sidecar' ? undefined : defaultFormat().id;

  const url = mode === 'sidecar' ? r.required('DESTINATION_PATH', 'in sidecar mode', 2048) : r.string('DESTINATION_PATH', 2048);
  const provider = parseProvider(r, mode, url);
  let destination: Destination | null = null;
  if (url !== undefined && provider !== undefined) {
    const parsed = parseDestination(url, provider);
    if (parsed.ok) destination = parsed.destination;
    else r.violate('DESTINATION_PATH', parsed.rule);
  }
  const serverNames = parseServerNames(r, mode);
  const cluster = parseCluster(r, mode);
  const credentials = parseCredentials(r, mode, provider);
  const region = provider === 'store-a' ? (r.pattern('STORE_REGION', REGION, 'a region name such as eu-west-1') ?? null) : null;
  const endpointUrl = parseEndpoint(r);
  const caFile = r.absolutePath('STORE_CA_FILE') ?? null;
  const retention = parseRetention(r, formatNamed(format));
  const walPageSize = r.integer('WAL_PAGE_SIZE', 1, 1000) ?? DEFAULTS.walPageSize;

  const refreshIntervalSeconds = r.integer('REFRESH_INTERVAL_SECONDS', 10, 86_400) ?? DEFAULTS.refreshIntervalSeconds;
  const freshnessThresholdSeconds = r.integer('FRESHNESS_THRESHOLD_SECONDS', 10, 7 * 86_400) ?? refreshIntervalSeconds * DEFAULTS.freshnessMultiplier;
  if (r.isSet('FRESHNESS_THRESHOLD_SECONDS') && freshnessThresholdSeconds < refreshIntervalSeconds) {
    r.violate('FRESHNESS_THRESHOLD_SECONDS', 'must not be shorter than REFRESH_INTERVAL_SECONDS');
  }
  const readinessWindowSeconds = r.integer('READINESS_WINDOW_SECONDS', 10, 3_600) ?? DEFAULTS.readinessWindowSeconds;
  const scan: ScanBudgets = {
    maxPages: r.integer('SCAN_MAX_PAGES', 1, 10_000_000) ?? DEFAULTS.scanMaxPages,
    maxObjects: r.integer('SCAN_MAX_OBJECTS', 1, 1_000_000_000) ?? DEFAULTS.scanMaxObjects,
    timeoutSeconds: r.integer('SCAN_TIMEOUT_SECONDS', 1, 86_400) ?? DEFAULTS.scanTimeoutSeconds,
    concurrency: r.integer('SCAN_CONCURRENCY', 1, 64) ?? DEFAULTS.scanConcurrency,
  };
  const logLevel = r.oneOf('LOG_LEVEL', LOG_LEVELS) ?? DEFAULTS.logLevel;
  const stateDir = parseStateDir(r, mode);
  const metricsLabels = parseMetricsLabels(r);

  if (mode === 'sidecar') {
    // The mode table's restrictions: present at all (even empty) is a refusal.
    r.forbid('LISTEN_ADDR', 'must not be set in sidecar mode (the API is served on the Unix socket only)');
    r.forbid('REPOSITORY_NAME', 'must not be set in sidecar mode (it names the standalone pages)');
    r.forbid('TRUSTED_USER_HEADER', 'must not be set in sidecar mode');
    for (const v of ['FLEET_FILE', 'FLEET_CONCURRENCY', 'METRICS_ADDR']) r.forbid(v, 'applies to standalone mode only');
    if (r.boolean('ALLOW_DOWNLOAD') === true) r.violate('ALLOW_DOWNLOAD', 'must not be true in sidecar mode');
    if (format !== undefined && !formatNamed(format).sidecar) r.violate('REPOSITORY_FORMAT', `must be ${sidecarFormatChoices()} in sidecar mode`);
    const tokenFile = r.isSet('EVIDENCE_TOKEN_FILE') ? r.absolutePath('EVIDENCE_TOKEN_FILE') : r.required('EVIDENCE_TOKEN_FILE', 'in sidecar mode');
    if (r.violations.length > 0 || format === undefined || provider === undefined || destination === null || serverNames?.[0] === undefined || cluster === null || credentials === undefined || tokenFile === undefined) {
      return { ok: false, violations: r.violations };
    }
    const config: SidecarConfig = {
      mode, format, provider, destination, serverName: serverNames[0], tokenFile, cluster, credentials, region, endpointUrl, caFile,
      retention, refreshIntervalSeconds, freshnessThresholdSeconds, readinessWindowSeconds, scan, walPageSize, logLevel, stateDir, metricsLabels,
    };
    return { ok: true, config, warnings: warningsFor(env) };
  }

  r.forbid('EVIDENCE_TOKEN_FILE', 'applies to sidecar mode only (standalone mode has no authentication)');
  const listen = parseListen(r);
  const metricsListen = parseMetricsListen(r, listen);
  const trustedUserHeader = parseTrustedUserHeader(r);
  const allowDownload = r.boolean('ALLOW_DOWNLOAD') ?? false;
  const fleetFile = r.absolutePath('FLEET_FILE') ?? null;
  const fleetConcurrency = r.integer('FLEET_CONCURRENCY', 1, 64) ?? DEFAULTS.fleetConcurrency;
  // Shown as text (escaped) in the page's title and heading: printable, no surrounding white space.
  const repositoryName = r.pattern('REPOSITORY_NAME', /^[\x21-\x7e](?:[\x20-\x7e]{0,126}[\x21-\x7e])?$/, 'printable ASCII text of 1 to 128 characters without surrounding white space') ?? null;
  if (fleet && r.isSet('REPOSITORY_NAME')) r.violate('REPOSITORY_NAME', "must not be set with FLEET_FILE: each entry's name names its repository");
  if (fleet) {
    for (const v of REPOSITORY_VARIABLES) {
      if (env[v] !== undefined) r.violate(v, 'must not be set with FLEET_FILE: it belongs in the fleet file, in each repository entry');
    }
  } else if (destination === null && url === undefined && (serverNames !== null || r.isSet('PROVIDER'))) {
    r.violate('DESTINATION_PATH', 'is required when PROVIDER or ARCHIVE_SERVER_NAMES is set (unset, viewer runs its embedded demo)');
  } else if (url === undefined && format !== undefined && format !== defaultFormat().id) {
    const demo = defaultFormat().id;
    r.violate('DESTINATION_PATH', `is required with a REPOSITORY_FORMAT other than ${demo} (the embedded demo is ${article(demo)} ${demo} repository)`);
  }
  if (r.violations.length > 0 || format === undefined || provider === undefined || credentials === undefined || listen === undefined) {
    return { ok: false, violations: r.violations };
  }
  const config: StandaloneConfig = {
    mode, format, provider, destination, serverNames, cluster, credentials, region, endpointUrl, caFile, retention,
    refreshIntervalSeconds, freshnessThresholdSeconds, readinessWindowSeconds, scan, walPageSize, logLevel, stateDir, metricsLabels, listen, trustedUserHeader, allowDownload,
    fleetFile, fleetConcurrency, metricsListen, repositoryName,
  };
  return { ok: true, config, warnings: warningsFor(env) };
}
