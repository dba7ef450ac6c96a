/**
 * viewer's own fixed message for each failure category of a store call: what replaces the
 * provider's text at every driver's classification boundary.
 */
import type { FailureCategory } from '../contract/primitives.ts';

export const STORE_MESSAGES: Record<FailureCategory, string> = {
  canceled: 'the store request was canceled',
  timeout: 'the store request timed out',
  invalid_configuration: 'the store rejected the configured destination',
  authentication: 'the store did not accept the credentials',
  authorization: 'the credentials may not read the destination',
  throttled: 'the store throttled the request',
  unavailable: 'the store is unavailable',
  not_found: 'the destination bucket or container does not exist',
  incompatible_format: 'the store answered in an unexpected format',
  safety_limit: 'a store safety limit was reached',
};
