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
import { findGaps, type GapMemory } from './gaps.ts';
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
      fc.property(steps, steps, fc.array(fc.integer({ min: 1, max: 9 }), { minLength: 30, maxLength: 30 }), fc.boolean(), (present, remembered, generations, shuffle) => {
        const timeline: TimelineWal = { timeline: 1, ranges: runs(present).map(([s, e]) => range(s, e)), partials: new Set() };
        const memory: GapMemory[] = runs(remembered).map(([start, end], i) => ({ timeline: 1, start, end, firstObservedGeneration: generations[i] ?? 1 }));
        // Another timeline's memory must never count; the order memories arrive in must not matter.
        memory.push({ timeline: 2, start: 0, end: 10_000, firstObservedGeneration: 0 });
        if (shuffle) memory.reverse();
        const found = findGaps([timeline], { geometry: g, generation: 10, previous: memory, newestReceipt: null, geometryKnown: true });
        for (const gap of found) {
          const plain = memory.filter((m) => m.timeline === 1 && m.start <= gap.end && m.end >= gap.start).reduce((f, m) => Math.min(f, m.firstObservedGeneration), 10);
          assert.equal(gap.firstObservedGeneration, plain);
        }
      }),
      { numRuns: 500 },
    );
  });
});
