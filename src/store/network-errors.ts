/**
 * Node's network error codes and the failure category each means, the same for every driver:
 * a connection that cannot be made or was cut is `unavailable`, a socket that timed out `timeout`.
 */
import type { FailureCategory } from '../contract/primitives.ts';

const NETWORK: Record<string, FailureCategory> = {
  ECONNREFUSED: 'unavailable',
  ECONNRESET: 'unavailable',
  EPIPE: 'unavailable',
  ENOTFOUND: 'unavailable',
  EAI_AGAIN: 'unavailable',
  EHOSTUNREACH: 'unavailable',
  ENETUNREACH: 'unavailable',
  ETIMEDOUT: 'timeout',
  ESOCKETTIMEDOUT: 'timeout',
};

/** The category of a Node network error `code`, or `undefined` when it is not one. */
export function networkCategory(code: unknown): FailureCategory | undefined {
  return typeof code === 'string' ? NETWORK[code] : undefined;
}

/**
 * Failures that happen here, before or without the store, each with the category it really is and
 * viewer's own text naming the cause (issue 26): a TLS certificate this process does not trust, a
 * missing home directory, an unreadable local file. Everything else (`null`) is the store's answer
 * or the network's. Only codes are read, never an error's message.
 */
export interface LocalFailure {
  readonly category: FailureCategory;
  readonly cause: string;
  /** The system or TLS code that told (`DEPTH_ZERO_SELF_SIGNED_CERT`), shown as the error name. */
  readonly code: string | null;
}

const UNTRUSTED = 'TLS verification failed: self-signed or unknown CA (add the CA with STORE_CA_FILE or NODE_EXTRA_CA_CERTS)';
const TLS: Record<string, LocalFailure> = Object.fromEntries(
  (
    [
      ['DEPTH_ZERO_SELF_SIGNED_CERT', 'invalid_configuration', UNTRUSTED],
      ['SELF_SIGNED_CERT_IN_CHAIN', 'invalid_configuration', UNTRUSTED],
      ['UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'invalid_configuration', UNTRUSTED],
      ['UNABLE_TO_GET_ISSUER_CERT', 'invalid_configuration', UNTRUSTED],
      ['UNABLE_TO_GET_ISSUER_CERT_LOCALLY', 'invalid_configuration', UNTRUSTED],
      ['CERT_UNTRUSTED', 'invalid_configuration', UNTRUSTED],
      ['CERT_SIGNATURE_FAILURE', 'invalid_configuration', UNTRUSTED],
      ['ERR_TLS_CERT_ALTNAME_INVALID', 'invalid_configuration', 'TLS verification failed: the certificate does not name the endpoint\'s host'],
      ['CERT_HAS_EXPIRED', 'unavailable', 'TLS verification failed: the store\'s certificate has expired'],
      ['CERT_NOT_YET_VALID', 'unavailable', 'TLS verification failed: the store\'s certificate is not yet valid'],
      ['ERR_SSL_WRONG_VERSION_NUMBER', 'invalid_configuration', 'TLS handshake failed: the endpoint does not speak TLS (an http:// endpoint written as https://?)'],
      ['EPROTO', 'invalid_configuration', 'TLS handshake failed: the endpoint does not speak TLS (an http:// endpoint written as https://?)'],
    ] as const
  ).map(([code, category, cause]) => [code, { category, cause, code }]),
);

/** The texts of the local causes other modules name (drivers, the command line). */
export const LOCAL_CAUSES = {
  noHome: 'no home directory: HOME is unset or empty and this uid has no passwd entry',
  noRegion: 'no region: set STORE_REGION (or AWS_REGION for the ambient chain)',
  noCredentials: 'the ambient credential chain found no usable credentials',
  noAzureCredentials: 'the ambient chain found no usable Azure credential: set STORE_CONNECTION_STRING_FILE, or AZURE_STORAGE_CONNECTION_STRING, or a DefaultAzureCredential source (AZURE_CLIENT_ID and its secret or certificate, workload or managed identity, az login)',
  noGoogleCredentials: 'no Google credential was sent (the ambient chain found none): set STORE_SERVICE_ACCOUNT_KEY_FILE, or GOOGLE_APPLICATION_CREDENTIALS, or run where application-default credentials exist',
} as const;

const MAX_DEPTH = 4;

/** The local failure `error` (or an error it wraps) is, or `null`. */
export function localFailure(error: unknown): LocalFailure | null {
  let e: unknown = error;
  for (let depth = 0; depth < MAX_DEPTH && typeof e === 'object' && e !== null; depth++) {
    const x = e as { code?: unknown; info?: { syscall?: unknown }; syscall?: unknown; cause?: unknown };
    const code = typeof x.code === 'string' ? x.code : null;
    if (code !== null && TLS[code] !== undefined) return TLS[code];
    if (code === 'ERR_SYSTEM_ERROR' && x.info?.syscall === 'uv_os_homedir') return { category: 'invalid_configuration', cause: LOCAL_CAUSES.noHome, code: null };
    e = x.cause;
  }
  return null;
}

/** `host:port` of an endpoint URL (the scheme's port when none is written), or `null`. */
export function hostPort(url: string | null): string | null {
  if (url === null) return null;
  try {
    const u = new URL(url);
    const port = u.port !== '' ? u.port : u.protocol === 'http:' ? '80' : '443';
    return `${u.hostname}:${port}`;
  } catch {
    return null;
  }
}
