/**
 * The one place Google Cloud Storage errors become failure categories. The SDK throws `ApiError`s
 * whose `code` is the HTTP status (and whose `errors[].reason` names the cause), network errors
 * with a Node `code`, and aborts. Only viewer's fixed messages leave this module.
 *
 * Throttling, one rule for every provider: `throttled` is the store saying the request rate is the
 * cause, by status 429 or by a reason that says so (`rateLimitExceeded`, `userRateLimitExceeded`);
 * any other 5xx, Cloud Storage's 503 `backendError` or a 503 by status alone included, is
 * `unavailable`. A success whose body is not JSON (the SDK's `SyntaxError`) is `incompatible_format`.
 *
 * One refusal of an object read is no failure at all (`gcsCustomerKeyRequired`, D-92): the object
 * is encrypted with a customer-supplied key, and the request carried none.
 */
import type { FailureCategory } from '../../contract/primitives.ts';
import { failureDetail, StoreError, type FailureDetail } from '../../common/errors.ts';
import { abortCategory } from '../abort.ts';
import { LOCAL_CAUSES, localFailure, networkCategory } from '../network-errors.ts';
import { STORE_MESSAGES } from '../messages.ts';

const BY_REASON: Record<string, FailureCategory> = {
  authError: 'authentication',
  required: 'authentication',
  forbidden: 'authorization',
  accessNotConfigured: 'authorization',
  notFound: 'not_found',
  rateLimitExceeded: 'throttled',
  userRateLimitExceeded: 'throttled',
  backendError: 'unavailable',
  invalid: 'invalid_configuration',
};

export function gcsFailureCategory(error: unknown, signal?: AbortSignal): FailureCategory {
  const aborted = abortCategory(signal, error);
  if (aborted !== null) return aborted;
  const local = localFailure(error);
  if (local !== null) return local.category;
  if (noDefaultCredentials(error)) return 'authentication';
  const e = (typeof error === 'object' && error !== null ? error : {}) as { name?: unknown; code?: unknown; errors?: unknown };
  const reasons = Array.isArray(e.errors) ? (e.errors as { reason?: unknown }[]).map((x) => x.reason) : [];
  for (const r of reasons) if (typeof r === 'string' && BY_REASON[r] !== undefined) return BY_REASON[r];
  const net = networkCategory(e.code);
  if (net !== undefined) return net;
  // A 200 whose body is not JSON (an HTML page, JSON cut short): the SDK's JSON.parse throws.
  if (e.name === 'SyntaxError') return 'incompatible_format';
  const status = typeof e.code === 'number' ? e.code : undefined;
  if (status === 401) return 'authentication';
  if (status === 403) return 'authorization';
  if (status === 404) return 'not_found';
  if (status === 429) return 'throttled';
  if (status === 408) return 'timeout';
  if (status === 400) return 'invalid_configuration';
  return 'unavailable';
}

const KEY_REQUIRED_REASON = 'resourceIsEncryptedWithCustomerEncryptionKey';

/** The `errors[].reason` values of a JSON API error body (`{"error": {"errors": [...]}}`), or none. */
function bodyReasons(text: unknown): unknown[] {
  if (typeof text !== 'string' || !text.startsWith('{')) return [];
  try {
    const errors = (JSON.parse(text) as { error?: { errors?: unknown } } | null)?.error?.errors;
    return Array.isArray(errors) ? (errors as { reason?: unknown }[]).map((x) => x?.reason) : [];
  } catch {
    return [];
  }
}

/**
 * Whether a read of an object failed because it is encrypted with a customer-supplied key the
 * request did not carry: Cloud Storage answers 400 with the reason
 * `resourceIsEncryptedWithCustomerEncryptionKey` ("The resource is encrypted with a
 * customer-supplied encryption key, but the request did not provide one"; D-92). The SDK parses
 * the reason into `errors[]` for a metadata request; for a media download it leaves `errors`
 * empty and puts the body's text in `message`, which is read for the reason only, here, and
 * never passed on. For object reads only: a listing is never asked this.
 */
export function gcsCustomerKeyRequired(error: unknown, signal?: AbortSignal): boolean {
  if (signal?.aborted === true || typeof error !== 'object' || error === null) return false;
  const e = error as { code?: unknown; errors?: unknown; message?: unknown };
  if (e.code !== 400) return false;
  const reasons = Array.isArray(e.errors) ? (e.errors as { reason?: unknown }[]).map((x) => x?.reason) : [];
  return reasons.includes(KEY_REQUIRED_REASON) || bodyReasons(e.message).includes(KEY_REQUIRED_REASON);
}

/**
 * google-auth-library found no Application Default Credentials: a plain `Error` whose message
 * starts with its own fixed text. The message is matched here only, never passed on.
 */
function noDefaultCredentials(error: unknown): boolean {
  return error instanceof Error && error.message.startsWith('Could not load the default credentials');
}

/**
 * What points at the cause (`FailureDetail`): the error body's first `errors[].reason`
 * (`forbidden`, `notFound`) or Node's system code, the HTTP status, `endpoint` (`host:port`, given
 * by the driver) and the local cause. Never the message.
 */
export function gcsFailureDetail(error: unknown, signal: AbortSignal | undefined, endpoint: string | null): FailureDetail | null {
  if (abortCategory(signal, error) !== null) return null;
  const local = localFailure(error);
  if (local !== null) return failureDetail({ errorName: local.code, endpoint, localCause: local.cause });
  if (noDefaultCredentials(error)) return failureDetail({ localCause: LOCAL_CAUSES.noGoogleCredentials });
  const e = (typeof error === 'object' && error !== null ? error : {}) as { name?: unknown; code?: unknown; errors?: unknown };
  const reason = Array.isArray(e.errors) ? (e.errors as { reason?: unknown }[]).map((x) => x?.reason).find((r) => typeof r === 'string') : undefined;
  const name = reason ?? (typeof e.code === 'string' ? e.code : e.name === 'Error' ? null : e.name);
  // `required`: Cloud Storage's answer to a request that carried no credential at all (the SDK
  // sends one unauthenticated when its ambient chain found nothing).
  const anonymous = reason === 'required';
  return failureDetail({ errorName: name, httpStatus: typeof e.code === 'number' ? e.code : undefined, endpoint, localCause: anonymous ? LOCAL_CAUSES.noGoogleCredentials : null });
}

export function toGcsStoreError(error: unknown, signal?: AbortSignal, endpoint: string | null = null): StoreError {
  const category = gcsFailureCategory(error, signal);
  return new StoreError(category, STORE_MESSAGES[category], { cause: error, detail: gcsFailureDetail(error, signal, endpoint) });
}
