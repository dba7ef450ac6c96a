/**
 * viewer's typed errors. `ViewerError` and its kinds carry a failure category of the spec and
 * never a provider's text: provider errors are turned into them in exactly one place per driver
 * (`store/<provider>/classify.ts`), and everything above the store sees only these. `GateError` is
 * a refused startup gate of the sidecar (token file, socket directory, socket path), which is no
 * failure category: its message names the gate and the rule, never a secret or a file's contents.
 */
import type { FailureCategory } from '../contract/primitives.ts';

/**
 * What points at the cause of a failure, beside its category (issue 26): each field is sanitised
 * where it is made (the classify modules, the one place provider errors are read) and holds no
 * provider text, secret, signed URL, token or object key.
 * - `errorName`: the SDK's error name or the store's error code (`SignatureDoesNotMatch`,
 *   `AuthorizationFailure`, `forbidden`, `TimeoutError`) or Node's system code (`ECONNREFUSED`,
 *   `DEPTH_ZERO_SELF_SIGNED_CERT`): letters and digits (and `_`) only, at most 64 characters;
 * - `httpStatus`: the status of the store's answer, when there was one;
 * - `endpoint`: `host:port` of the store the request went to (configuration, not a secret; shown
 *   on the operator's terminal, never on the unauthenticated page: `publicDetail` drops it);
 * - `localCause`: viewer's own fixed text for a failure that happened here, before or without the
 *   store (TLS verification, no region, no home directory, an unreadable credential file named by
 *   its variable), or `null` when the store answered.
 */
export interface FailureDetail {
  readonly errorName: string | null;
  readonly httpStatus: number | null;
  readonly endpoint: string | null;
  readonly localCause: string | null;
}

/** The detail the standalone page may show: no endpoint. */
export type PublicFailureDetail = Omit<FailureDetail, 'endpoint'>;

const ERROR_NAME = /^[A-Za-z][A-Za-z0-9_]{0,63}$/;
const ENDPOINT = /^(?:[A-Za-z0-9.-]{1,253}|\[[0-9A-Fa-f:.]{2,45}\]):[0-9]{1,5}$/;

/**
 * A detail with every field checked against its form: a name or endpoint of any other shape, a
 * status outside 100–599, is dropped (null), never shown.
 */
export function failureDetail(d: { errorName?: unknown; httpStatus?: unknown; endpoint?: unknown; localCause?: string | null }): FailureDetail {
  return {
    errorName: typeof d.errorName === 'string' && ERROR_NAME.test(d.errorName) ? d.errorName : null,
    httpStatus: typeof d.httpStatus === 'number' && Number.isInteger(d.httpStatus) && d.httpStatus >= 100 && d.httpStatus <= 599 ? d.httpStatus : null,
    endpoint: typeof d.endpoint === 'string' && ENDPOINT.test(d.endpoint) ? d.endpoint : null,
    localCause: d.localCause ?? null,
  };
}

export class ViewerError extends Error {
  readonly category: FailureCategory;
  /** What points at the cause, when it is known (sanitised; see `FailureDetail`). */
  readonly detail: FailureDetail | null;
  constructor(category: FailureCategory, message: string, options?: { cause?: unknown; detail?: FailureDetail | null }) {
    super(message, options);
    this.name = 'ViewerError';
    this.category = category;
    this.detail = options?.detail ?? null;
  }
}

/** A store call failed; `message` is viewer's own fixed text, the provider's error stays in `cause`. */
export class StoreError extends ViewerError {
  constructor(category: FailureCategory, message: string, options?: { cause?: unknown; detail?: FailureDetail | null }) {
    super(category, message, options);
    this.name = 'StoreError';
  }
}

/** A scan budget (pages, objects, wall time, retained items) was reached. */
export class SafetyLimitError extends ViewerError {
  readonly limit: string;
  constructor(limit: string) {
    super('safety_limit', `scan budget reached: ${limit}`);
    this.name = 'SafetyLimitError';
    this.limit = limit;
  }
}

/** A sidecar startup gate refused; the message (`<gate>: <rule>`) is printed as the refusal's one line. */
export class GateError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'GateError';
  }
}

/** The category of any thrown value: typed errors keep theirs, anything else is `unavailable`. */
export function categoryOf(error: unknown): FailureCategory {
  return error instanceof ViewerError ? error.category : 'unavailable';
}

/** The detail of any thrown value: typed errors carry theirs (or none), anything else has none. */
export function detailOf(error: unknown): FailureDetail | null {
  return error instanceof ViewerError ? error.detail : null;
}

/** The detail without its endpoint: what the unauthenticated standalone page may show. */
export function publicDetail(detail: FailureDetail | null): PublicFailureDetail | null {
  if (detail === null) return null;
  const { errorName, httpStatus, localCause } = detail;
  return errorName === null && httpStatus === null && localCause === null ? null : { errorName, httpStatus, localCause };
}

/**
 * One line of text for a detail (`SignatureDoesNotMatch, HTTP 403, from 127.0.0.1:18080`;
 * `TLS verification failed: ...`), or `null` when nothing is known. The endpoint is included only
 * when the detail has one: hand `publicDetail(d)` for the page.
 */
export function formatDetail(detail: FailureDetail | PublicFailureDetail | null): string | null {
  if (detail === null) return null;
  const parts: string[] = [];
  if (detail.localCause !== null) parts.push(detail.localCause);
  if (detail.errorName !== null) parts.push(detail.errorName);
  if (detail.httpStatus !== null) parts.push(`HTTP ${detail.httpStatus}`);
  const endpoint = 'endpoint' in detail ? detail.endpoint : null;
  if (endpoint !== null) parts.push(`${parts.length === 0 ? '' : 'from '}${endpoint}`);
  return parts.length === 0 ? null : parts.join(', ');
}

/** `category` followed by its detail: `unavailable (ECONNREFUSED, from 127.0.0.1:9000)`. */
export function describeFailure(category: FailureCategory, detail: FailureDetail | PublicFailureDetail | null): string {
  const text = formatDetail(detail);
  return text === null ? category : `${category} (${text})`;
}
