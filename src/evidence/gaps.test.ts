/**
 * A gap's first observation is carried from the previous generation's overlapping gaps. The
 * lookup is a binary search over remembered gaps sorted by position; this checks it against the
 * plain rule (every remembered gap of the timeline that overlaps, the earliest generation wins) on
 * random archives and random memories.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { geometry } from '../postgres/wal.ts';
import { findGaps, rememberGap, type GapMemory } from './gaps.ts';
import type { TimelineWal, WalRange } from './wal-archive.ts';

const g = geometry(16 << 20);
const range = (start: number, end: number): WalRange => ({ start, end, count: end - start + 1, startReceipt: null, latestReceipt: null, endReceipt: null, compressed: false, duplicated: false });

/** Disjoint sorted runs from a list of (skip, length) steps. */
function runs(steps: readonly [number, number][]): [number, number][] {
  let at = 1;
  return steps.map(([skip, length]) => {
    const start = at + skip;
    at = start + length + 1;
    return [start, start + length];
  });
}

describe('gap memory across generations', () => {
  it('equals the plain overlap rule on random archives and memories', () => {
    const steps = fc.array(fc.tuple(fc.integer({ min: 0, max: 6 }), fc.integer({ min: 0, max: 6 })), { maxLength: 30 });
    fc.assert(
      fc.property(steps, steps, fc.array(fc.integer({ min: 1, max: 9 }), { minLength: 30, maxLength: 30 }), fc.array(fc.boolean(), { minLength: 30, maxLength: 30 }), fc.boolean(), (present, remembered, generations, confirmed, shuffle) => {
        const timeline: TimelineWal = { timeline: 1, ranges: runs(present).map(([s, e]) => range(s, e)), partials: new Set() };
        const memory: GapMemory[] = runs(remembered).map(([start, end], i) => ({ timeline: 1, start, end, firstObservedGeneration: generations[i] ?? 1, lastObservedGeneration: 9, firstObservedAt: null, status: confirmed[i] === true ? 'confirmed' : 'candidate', class: 'unexplained' }));
        // Another timeline's memory must never count; the order memories arrive in must not matter.
        memory.push({ timeline: 2, start: 0, end: 10_000, firstObservedGeneration: 0, lastObservedGeneration: 9, firstObservedAt: null, status: 'confirmed', class: 'unexplained' });
        if (shuffle) memory.reverse();
        // No receipt times: only the memory can confirm a gap here.
        const found = findGaps([timeline], { geometry: g, generation: 10, previous: memory, newestReceipt: null, geometryKnown: true });
        for (const gap of found) {
          const overlapping = memory.filter((m) => m.timeline === 1 && m.start <= gap.end && m.end >= gap.start);
          assert.equal(gap.firstObservedGeneration, overlapping.reduce((f, m) => Math.min(f, m.firstObservedGeneration), 10));
          // Confirmed stays confirmed, whatever the new shape; nothing else confirms without receipts.
          assert.equal(gap.status, overlapping.some((m) => m.status === 'confirmed') ? 'confirmed' : 'candidate');
        }
      }),
      { numRuns: 500 },
    );
  });
});

describe('a confirmed gap stays confirmed until it is filled', () => {
  const MIN = 60_000;
  // Ranges with receipt times: each segment received one minute after the previous one.
  const timed = (start: number, end: number): WalRange => ({ ...range(start, end), startReceipt: start * MIN, latestReceipt: end * MIN, endReceipt: end * MIN });
  const scan = (ranges: WalRange[], previous: GapMemory[], generation: number) =>
    findGaps([{ timeline: 1, ranges, partials: new Set() }], { geometry: g, generation, previous, newestReceipt: Math.max(...ranges.map((r) => r.latestReceipt ?? 0)), geometryKnown: true });
  const memory = (gaps: ReturnType<typeof scan>): GapMemory[] => gaps.map((x) => rememberGap(x, 'unexplained'));

  it('widened towards recent WAL, widened backwards, narrowed by a late upload: confirmed each time; filled: gone', () => {
    // Generation 1 sees {5}; by generation 2 the archive moved 20 minutes past segment 6: confirmed.
    const g1 = scan([timed(1, 4), timed(6, 10)], [], 1);
    assert.deepEqual(g1.map((x) => [x.start, x.end, x.status]), [[5, 5, 'candidate']]);
    const g2 = scan([timed(1, 4), timed(6, 26)], memory(g1), 2);
    assert.deepEqual(g2.map((x) => [x.start, x.end, x.status]), [[5, 5, 'confirmed']]);
    // More WAL lost after it: the segment after the gap is now the newest one. Still confirmed.
    const g3 = scan([timed(1, 4), timed(26, 26)], memory(g2), 3);
    assert.deepEqual(g3.map((x) => [x.start, x.end, x.status, x.firstObservedGeneration]), [[5, 25, 'confirmed', 1]]);
    // And before it.
    const g4 = scan([timed(1, 2), timed(26, 27)], memory(g3), 4);
    assert.deepEqual(g4.map((x) => [x.start, x.end, x.status]), [[3, 25, 'confirmed']]);
    // A late upload of segment 20 (received last): both remaining parts are still confirmed.
    const late = { ...timed(20, 20), startReceipt: 28 * MIN, latestReceipt: 28 * MIN, endReceipt: 28 * MIN };
    const g5 = scan([timed(1, 2), late, timed(26, 27)], memory(g4), 5);
    assert.deepEqual(g5.map((x) => [x.start, x.end, x.status]), [[3, 19, 'confirmed'], [21, 25, 'confirmed']]);
    // Filled: no gap, and nothing remembered revives one.
    assert.deepEqual(scan([timed(1, 27)], memory(g5), 6), []);
  });

  it('a candidate the archive has not moved past stays a candidate', () => {
    const g1 = scan([timed(1, 4), timed(6, 7)], [], 1);
    const g2 = scan([timed(1, 4), timed(6, 8)], memory(g1), 2);
    assert.deepEqual(g2.map((x) => x.status), ['candidate']);
  });
});
