/**
 * The one place Azure Blob Storage errors become failure categories. The SDK throws `RestError`s
 * with an HTTP `statusCode` and the service's `code` (from `x-ms-error-code`); network failures
 * carry a Node `code`; aborts are `AbortError`. The ambient chain (`@azure/identity`) throws its own
 * errors, told apart by `name`: no credential in the chain was usable (`CredentialUnavailableError`,
 * or `AggregateAuthenticationError` from a chain of them), or one was refused by the identity
 * service (`AuthenticationError`). A listed name the service sent percent-encoded (`Encoded="true"`)
 * that does not decode is a `URIError`; a body the SDK cannot parse is its `PARSE_ERROR`, also
 * `incompatible_format`. Only viewer's fixed messages leave this module.
 *
 * Throttling, one rule for every provider: `throttled` is the store saying the request rate is the
 * cause, by status 429 or by a code that says so (here `ServerBusy`, the 503 Azure Storage
 * documents as its answer when a partition or account limit is reached); any other 5xx, a 503
 * without that code included, is `unavailable`.
 *
 * One refusal of an object read is no failure at all (`azureCustomerKeyRequired`, D-92): the blob
 * is encrypted with a customer-provided key, and the request carried none.
 */
import type { FailureCategory } from '../../contract/primitives.ts';
import { failureDetail, StoreError, type FailureDetail } from '../../common/errors.ts';
import { abortCategory } from '../abort.ts';
import { LOCAL_CAUSES, localFailure, networkCategory } from '../network-errors.ts';
import { STORE_MESSAGES } from '../messages.ts';

// `@azure/identity` error names (its classes are matched by name, as its own chain does).
const CREDENTIAL_ERRORS = new Set(['CredentialUnavailableError', 'AuthenticationError', 'AggregateAuthenticationError', 'AuthenticationRequiredError']);

const BY_CODE: Record<string, FailureCategory> = {
  AuthenticationFailed: 'authentication',
  InvalidAuthenticationInfo: 'authentication',
  NoAuthenticationInformation: 'authentication',
  AuthorizationFailure: 'authorization',
  AuthorizationPermissionMismatch: 'authorization',
  AuthorizationResourceTypeMismatch: 'authorization',
  InsufficientAccountPermissions: 'authorization',
  AccountIsDisabled: 'authorization',
  ContainerNotFound: 'not_found',
  ResourceNotFound: 'not_found',
  ServerBusy: 'throttled',
  OperationTimedOut: 'timeout',
  InternalError: 'unavailable',
  InvalidResourceName: 'invalid_configuration',
  InvalidUri: 'invalid_configuration',
  InvalidHeaderValue: 'invalid_configuration',
};

export function azureFailureCategory(error: unknown, signal?: AbortSignal): FailureCategory {
  const aborted = abortCategory(signal, error);
  if (aborted !== null) return aborted;
  const local = localFailure(error);
  if (local !== null) return local.category;
  const e = (typeof error === 'object' && error !== null ? error : {}) as { name?: unknown; code?: unknown; statusCode?: unknown };
  if (typeof e.name === 'string' && CREDENTIAL_ERRORS.has(e.name)) return 'authentication';
  // The SDK decodes a listed name sent `Encoded="true"` with decodeURIComponent: a malformed one throws.
  if (e.name === 'URIError') return 'incompatible_format';
  const code = typeof e.code === 'string' ? e.code : '';
  // The SDK could not parse a response body (XML cut short, not XML): the store answered, but not as Azure does.
  if (code === 'PARSE_ERROR') return 'incompatible_format';
  // REQUEST_SEND_ERROR is the Azure SDK's own name for a request that never reached the service.
  const byCode = BY_CODE[code] ?? networkCategory(code) ?? (code === 'REQUEST_SEND_ERROR' ? 'unavailable' : undefined);
  if (byCode !== undefined) return byCode;
  const status = typeof e.statusCode === 'number' ? e.statusCode : undefined;
  if (status === 401) return 'authentication';
  if (status === 403) return 'authorization';
  if (status === 404) return 'not_found';
  // A 503 without `ServerBusy` says nothing about the request rate (a gateway, a proxy, an outage).
  if (status === 429) return 'throttled';
  if (status === 400) return 'invalid_configuration';
  return 'unavailable';
}

/**
 * Whether a read of a blob (Get Blob Properties or Get Blob) failed because the blob is encrypted
 * with a customer-provided key (CPK) the request did not carry: Azure answers 409 (Conflict) with
 * the error code `BlobUsesCustomerSpecifiedEncryption` in `x-ms-error-code` (D-92). The SDK puts
 * the code of an error body in `code`; a HEAD has no body, and its code is only the parsed header
 * (`details.errorCode`). For object reads only: a listing is never asked this, and a 409 on a
 * listing keeps failing as today.
 */
export function azureCustomerKeyRequired(error: unknown, signal?: AbortSignal): boolean {
  if (signal?.aborted === true || typeof error !== 'object' || error === null) return false;
  const e = error as { code?: unknown; statusCode?: unknown; details?: unknown };
  const header = typeof e.details === 'object' && e.details !== null ? (e.details as { errorCode?: unknown }).errorCode : undefined;
  return e.statusCode === 409 && (e.code === CPK_CODE || (e.code === undefined && header === CPK_CODE));
}

const CPK_CODE = 'BlobUsesCustomerSpecifiedEncryption';

/**
 * What points at the cause (`FailureDetail`): the service's error code (`x-ms-error-code`), the
 * SDK's own code (`REQUEST_SEND_ERROR`) or Node's, or the credential chain's error name; the HTTP
 * status; `endpoint` (`host:port` of the account, given by the driver); the local cause. Never the
 * message.
 */
export function azureFailureDetail(error: unknown, signal: AbortSignal | undefined, endpoint: string | null): FailureDetail | null {
  if (abortCategory(signal, error) !== null) return null;
  const local = localFailure(error);
  if (local !== null) return failureDetail({ errorName: local.code, endpoint, localCause: local.cause });
  const e = (typeof error === 'object' && error !== null ? error : {}) as { name?: unknown; code?: unknown; statusCode?: unknown };
  if (e.name === 'CredentialUnavailableError' || e.name === 'AggregateAuthenticationError') return failureDetail({ errorName: e.name, localCause: LOCAL_CAUSES.noAzureCredentials });
  if (typeof e.name === 'string' && CREDENTIAL_ERRORS.has(e.name)) return failureDetail({ errorName: e.name, httpStatus: e.statusCode });
  return failureDetail({ errorName: typeof e.code === 'string' ? e.code : e.name === 'RestError' || e.name === 'Error' ? null : e.name, httpStatus: e.statusCode, endpoint });
}

export function toAzureStoreError(error: unknown, signal?: AbortSignal, endpoint: string | null = null): StoreError {
  const category = azureFailureCategory(error, signal);
  return new StoreError(category, STORE_MESSAGES[category], { cause: error, detail: azureFailureDetail(error, signal, endpoint) });
}
