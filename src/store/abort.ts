/**
 * How an aborted store call is categorised, the same for every driver: a deadline (an abort whose
 * reason is a TimeoutError) is `timeout`, any other abort of our signal is `canceled`, whatever the
 * SDK threw; an SDK's own `AbortError` without our signal aborted is `canceled` too.
 */
import type { FailureCategory } from '../contract/primitives.ts';

export function abortCategory(signal: AbortSignal | undefined, error?: unknown): FailureCategory | null {
  if (signal?.aborted === true) {
    const reason: unknown = signal.reason;
    return reason instanceof Error && reason.name === 'TimeoutError' ? 'timeout' : 'canceled';
  }
  return typeof error === 'object' && error !== null && (error as { name?: unknown }).name === 'AbortError' ? 'canceled' : null;
}
