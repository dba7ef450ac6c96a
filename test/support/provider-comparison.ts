/**
 * Comparing one repository's scans on several providers (the S3 store, Azurite, the Cloud Storage
 * emulator): the copy made with a bounded number of uploads at a time, and a scan document without
 * what differs by construction between providers (each store's own clock: receipt times, first
 * observations, the store's time at the scan, the lag; the scan's own times; the revision, drawn
 * per process; the provider and the destination's fingerprint).
 */
import type { ScanDocument } from './run-viewer.ts';

/** Runs `work` over every item, at most `limit` at a time. */
export async function pool<T>(items: readonly T[], limit: number, work: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < items.length) await work(items[next++] as T);
    }),
  );
}

/** Keys whose values are store clocks or scan times. */
const STORE_CLOCK = /receipt|received|store_time|archive_lag|^(started_at|completed_at|last_attempt_at|last_success_at|lower_bound_at|first_observed_at)$/;

/** The document without what differs by construction between two providers. */
export function comparable(doc: ScanDocument): unknown {
  return JSON.parse(JSON.stringify(doc, (k, v: unknown) => (STORE_CLOCK.test(k) || k === 'revision' || k === 'provider' || k === 'destination_fingerprint' ? undefined : v)));
}
