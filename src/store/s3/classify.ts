/**
 * The one place S3 errors become failure categories. Inputs are what the AWS SDK v3 throws:
 * service exceptions with `name` (the S3 error code) and `$metadata.httpStatusCode`, network
 * errors with a Node `code`, and abort errors. The output carries viewer's own fixed message;
 * the SDK error is kept only as `cause` for debugging and never reaches a response or a log line.
 *
 * A success status with a body the SDK could not deserialize (a listing's XML cut short, or not
 * XML) is `incompatible_format`: the store answered, but not with what S3 sends. The SDK throws
 * it as a plain `Error` carrying the 2xx `$metadata.httpStatusCode` (and the raw body, which stays
 * in `cause` like every provider text).
 *
 * Provider quirks (research s3-test-servers.md): OpenStack Swift's s3api answers an unknown access
 * key with `SignatureDoesNotMatch` (AWS: `InvalidAccessKeyId`), a garbage continuation token with
 * 500 `InternalError` (AWS: 400), and HEAD errors without a body (the SDK names them by status).
 *
 * Throttling, one rule for every provider: `throttled` is the store saying the request rate is the
 * cause, by status 429 or by a code that says so (here `SlowDown`, the 503 S3 sends while a prefix
 * scales, and the SDK's other throttling codes); any other 5xx, a 503 by status alone or S3's
 * `ServiceUnavailable` included, is `unavailable`. This is the AWS SDK's own split (throttling: 429
 * or a throttling code; 500, 502, 503, 504: transient).
 *
 * One refusal of an object read is no failure at all (`s3CustomerKeyRequired`, D-92): the object
 * is stored with SSE-C, a customer-provided key, and the request carried none.
 */
import type { FailureCategory } from '../../contract/primitives.ts';
import { failureDetail, StoreError, type FailureDetail } from '../../common/errors.ts';
import { abortCategory } from '../abort.ts';
import { LOCAL_CAUSES, localFailure, networkCategory } from '../network-errors.ts';
import { STORE_MESSAGES } from '../messages.ts';

const BY_CODE: Record<string, FailureCategory> = {
  InvalidAccessKeyId: 'authentication',
  SignatureDoesNotMatch: 'authentication',
  ExpiredToken: 'authentication',
  InvalidToken: 'authentication',
  TokenRefreshRequired: 'authentication',
  CredentialsProviderError: 'authentication',
  InvalidIdentityToken: 'authentication',
  ExpiredTokenException: 'authentication',
  AccessDenied: 'authorization',
  AllAccessDisabled: 'authorization',
  AccountProblem: 'authorization',
  SlowDown: 'throttled',
  Throttling: 'throttled',
  ThrottlingException: 'throttled',
  RequestLimitExceeded: 'throttled',
  TooManyRequestsException: 'throttled',
  NoSuchBucket: 'not_found',
  InvalidBucketName: 'invalid_configuration',
  PermanentRedirect: 'invalid_configuration',
  AuthorizationHeaderMalformed: 'invalid_configuration',
  IllegalLocationConstraintException: 'invalid_configuration',
  InternalError: 'unavailable',
  ServiceUnavailable: 'unavailable',
  RequestTimeout: 'timeout',
  RequestTimeTooSkewed: 'authentication',
};

function statusCategory(status: number | undefined): FailureCategory | null {
  if (status === undefined) return null;
  if (status === 401) return 'authentication';
  if (status === 403) return 'authorization';
  if (status === 404) return 'not_found';
  if (status === 429) return 'throttled';
  if (status === 408) return 'timeout';
  if (status === 301 || status === 400) return 'invalid_configuration';
  // 503 included: without a throttling code it says nothing about the request rate.
  if (status >= 500) return 'unavailable';
  return null;
}

interface SdkErrorShape {
  name?: unknown;
  code?: unknown;
  $metadata?: { httpStatusCode?: number };
  cause?: unknown;
}

/** The category of an SDK failure; `signal` tells a deliberate abort from a deadline. */
export function s3FailureCategory(error: unknown, signal?: AbortSignal): FailureCategory {
  const aborted = abortCategory(signal, error);
  if (aborted !== null) return aborted;
  const local = localFailure(error);
  if (local !== null) return local.category;
  const e = (typeof error === 'object' && error !== null ? error : {}) as SdkErrorShape;
  const name = typeof e.name === 'string' ? e.name : '';
  if (name === 'TimeoutError') return 'timeout';
  if (regionMissing(error)) return 'invalid_configuration';
  const byCode = BY_CODE[name];
  if (byCode !== undefined) return byCode;
  const net = networkCategory(e.code);
  if (net !== undefined) return net;
  const status = e.$metadata?.httpStatusCode;
  if (status !== undefined && status >= 200 && status < 300) return 'incompatible_format';
  const byStatus = statusCategory(e.$metadata?.httpStatusCode);
  if (byStatus !== null) return byStatus;
  // A reply that is not S3 at all (an HTML error page, a proxy) fails XML parsing; a listed name
  // that is not well-formed url encoding fails decoding (listing-names.ts).
  if (name === 'SyntaxError' || name === 'URIError' || /Deserialization|XML/i.test(name)) return 'incompatible_format';
  if (e.cause !== undefined && e.cause !== error) return s3FailureCategory(e.cause);
  return 'unavailable';
}

/**
 * Whether a GetObject failed because the object is encrypted with a customer-provided key (SSE-C)
 * the request did not carry: AWS answers 400 `InvalidRequest`, "The object was stored using a form
 * of Server Side Encryption. The correct parameters must be provided to retrieve the object."
 * (MinIO and LocalStack answer alike; D-92). `InvalidRequest` names other refusals too, so the
 * message is matched as well: only this answer becomes `key-required`, any other stays a failure.
 * The message is only matched here, never passed on. For object reads only: a listing is never
 * asked this (a 400 on a listing keeps failing as `invalid_configuration`).
 */
export function s3CustomerKeyRequired(error: unknown, signal?: AbortSignal): boolean {
  if (signal?.aborted === true || typeof error !== 'object' || error === null) return false;
  const e = error as SdkErrorShape & { message?: unknown };
  return e.name === 'InvalidRequest' && e.$metadata?.httpStatusCode === 400 && typeof e.message === 'string' && /server side encryption/i.test(e.message);
}

/**
 * The SDK found no region anywhere (no STORE_REGION, no AWS_REGION, no shared config): a plain
 * `Error` whose message is exactly its own fixed text. The message is matched here only.
 */
function regionMissing(error: unknown): boolean {
  return error instanceof Error && error.name === 'Error' && error.message === 'Region is missing';
}

/**
 * What points at the cause of an SDK failure (`FailureDetail`): the SDK's error name (the S3 error
 * code, or Node's system code for a network failure), the HTTP status, `endpoint` (`host:port`,
 * given by the driver) and the local cause. Never the message.
 */
export function s3FailureDetail(error: unknown, signal: AbortSignal | undefined, endpoint: string | null): FailureDetail | null {
  if (abortCategory(signal, error) !== null) return null;
  const local = localFailure(error);
  if (local !== null) return failureDetail({ errorName: local.code, endpoint, localCause: local.cause });
  if (regionMissing(error)) return failureDetail({ localCause: LOCAL_CAUSES.noRegion });
  const e = (typeof error === 'object' && error !== null ? error : {}) as SdkErrorShape;
  if (e.name === 'CredentialsProviderError') return failureDetail({ errorName: e.name, localCause: LOCAL_CAUSES.noCredentials });
  const code = typeof e.code === 'string' && networkCategory(e.code) !== undefined ? e.code : null;
  const name = code ?? (e.name === 'Error' ? null : e.name);
  return failureDetail({ errorName: name, httpStatus: e.$metadata?.httpStatusCode, endpoint });
}

export function toStoreError(error: unknown, signal?: AbortSignal, endpoint: string | null = null): StoreError {
  const category = s3FailureCategory(error, signal);
  return new StoreError(category, STORE_MESSAGES[category], { cause: error, detail: s3FailureDetail(error, signal, endpoint) });
}
