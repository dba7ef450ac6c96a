/**
 * What a lost segment's status must be in one scan of a real repository, from facts that do not
 * come from viewer's verdict: the successor's receipt time in the build's raw listing, and the
 * store's clock and newest receipt the scan read (its `observations`). One scan confirms a gap
 * once the segment after it was received LONG_SETTLE (1 h) before the store's clock or before
 * the archive's newest receipt (src/evidence/gaps.ts, D-87); before that it is `candidate`. A
 * repository built less than an hour ago therefore shows a candidate, an older one a confirmed
 * gap, and a test that asserts either alone fails on machines whose build is the other age.
 */
import assert from 'node:assert/strict';
import { LONG_SETTLE_MS } from '../../src/evidence/gaps.ts';

export type GapStatus = 'candidate' | 'confirmed';

interface Listed {
  readonly key: string;
  readonly lastModified: string;
}

interface Observed {
  readonly store_time_at_scan: string | null;
  readonly newest_wal_received_at: string | null;
}

/** The 24-character name of the 16 MiB segment after `name` (the harness's repositories use 16 MiB segments). */
export function nextSegmentName(name: string): string {
  const timeline = name.slice(0, 8);
  const log = Number.parseInt(name.slice(8, 16), 16);
  const seg = Number.parseInt(name.slice(16, 24), 16);
  const [nextLog, nextSeg] = seg === 0xff ? [log + 1, 0] : [log, seg + 1];
  const hex = (n: number) => n.toString(16).toUpperCase().padStart(8, '0');
  return `${timeline}${hex(nextLog)}${hex(nextSeg)}`;
}

/** The receipt (epoch ms) of the earliest object holding the segment after `deletedWal` in the raw listing. */
export function successorReceipt(listing: readonly Listed[], deletedWal: string): number {
  const next = nextSegmentName(deletedWal);
  const times = listing.filter((o) => (o.key.split('/').at(-1) ?? '').startsWith(next) && !o.key.includes('.backup')).map((o) => Date.parse(o.lastModified));
  assert.ok(times.length > 0, `the listing holds no object of ${next}, the segment after ${deletedWal}`);
  return Math.min(...times);
}

/** The status one scan must give the gap of `deletedWal`, by the receipt of its successor. */
export function expectedGapStatus(listing: readonly Listed[], deletedWal: string, observed: Observed | null | undefined): GapStatus {
  assert.ok(observed?.store_time_at_scan != null, 'the scan read no store clock');
  const successor = successorReceipt(listing, deletedWal);
  const clock = Date.parse(observed.store_time_at_scan);
  const newest = observed.newest_wal_received_at === null ? Number.NEGATIVE_INFINITY : Date.parse(observed.newest_wal_received_at);
  return clock - successor >= LONG_SETTLE_MS || newest - successor >= LONG_SETTLE_MS ? 'confirmed' : 'candidate';
}

/**
 * The same judgement where no scan document is at hand (a page): by our own clock, which on
 * loopback is the store's to the second. Null within a minute of the boundary, where the page's
 * scan and this reading may fall on either side of it.
 */
export function expectedGapStatusNow(listing: readonly Listed[], deletedWal: string, now = Date.now()): GapStatus | null {
  const age = now - successorReceipt(listing, deletedWal);
  if (Math.abs(age - LONG_SETTLE_MS) < 60_000) return null;
  return age >= LONG_SETTLE_MS ? 'confirmed' : 'candidate';
}
