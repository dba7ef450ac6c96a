/**
 * How an aborted store call is categorised, the same for every driver: a deadline (an abort whose
 * reason is a TimeoutError) is `timeout`, any other abort is `canceled`, whatever the SDK threw.
 */
import type { FailureCategory } from '../contract/primitives.ts';

export function abortCategory(signal: AbortSignal | undefined): FailureCategory | null {
  if (signal?.aborted !== true) return null;
  const reason: unknown = signal.reason;
  return reason instanceof Error && reason.name === 'TimeoutError' ? 'timeout' : 'canceled';
}
