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
