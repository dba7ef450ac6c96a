/**
 * Property tests for the edges of timelines (issue 23): random barman-cloud repositories with a
 * promotion onto timeline 2 whose head may be lost, whose history may declare an earlier or a
 * contradicted switch, or whose segments may be missing altogether; a second system id; copies of
 * one WAL name under two suffixes, either one implausible; a store clock behind a receipt. Every
 * scan must publish a complete generation (the publisher refuses one whose summaries are healthier
 * than its items: `agreement.ts`), and the rules the issue states hold on each: a timeline without
 * a segment is never healthy coverage, two system ids leave nothing healthy that attributes WAL,
 * a receipt after the store's clock leaves the lag unknown, and deleting every timeline-2 segment
 * never improves coverage nor makes the top level healthy.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { requireCommonSummary } from '../contract/details-view.ts';
import type { State } from '../contract/primitives.ts';
import { archiveCloud } from '../format/barman-cloud/format.ts';
import { SyntheticRepository } from '../format/barman-cloud/synthetic-repository.ts';
import type { Publication } from '../publication/publisher.ts';
import { confine } from '../store/confined.ts';
import { MemoryStore } from '../store/memory/memory-driver.ts';
import { BudgetMeter } from './listing.ts';
import { scanScope, type ScopeEvidence } from './scope-scan.ts';
import { archiveLagSeconds } from './summary.ts';
import { DB_CLUSTER, testPublisher } from '../../test/support/publication-fixture.ts';

const ROOT = 'pg/srv/';
const T0 = Date.parse('2026-11-21T10:00:00Z');
const MIN = 60_000;
const at = (minutes: number) => new Date(T0 + minutes * MIN);
const SEVERITY: Record<State, number> = { healthy: 0, warning: 1, unknown: 2, unhealthy: 3 };

interface Shape {
  /** Timeline 1 holds 1..`tl1End`, but `tl1Missing`. */
  readonly tl1End: number;
  readonly tl1Missing: readonly number[];
  /** Timeline 2 forks at `fork` (its first segment), holds fork..`tl2End` but `tl2Missing`; its history declares `declared`; null: no promotion. */
  readonly tl2: { readonly fork: number; readonly tl2End: number; readonly tl2Missing: readonly number[]; readonly declared: number; readonly withoutSegments: boolean } | null;
  readonly backups: readonly { readonly timeline: 1 | 2; readonly begin: number; readonly otherSystem: boolean }[];
  /** A timeline-1 segment stored under two suffixes, one copy implausible (or neither). */
  readonly copy: { readonly position: number; readonly pair: readonly [string, string]; readonly implausible: 0 | 1 | null } | null;
  /** Minutes between the newest receipt and the store's clock (negative: the clock is behind it). */
  readonly clockMinutes: number;
}

const shapeArb: fc.Arbitrary<Shape> = fc
  .record({
    tl1End: fc.integer({ min: 6, max: 30 }),
    tl1Missing: fc.uniqueArray(fc.integer({ min: 2, max: 29 }), { maxLength: 3 }),
    tl2: fc.option(
      fc.record({ forkOffset: fc.integer({ min: 1, max: 29 }), length: fc.integer({ min: 0, max: 10 }), tl2Missing: fc.uniqueArray(fc.integer({ min: 0, max: 10 }), { maxLength: 3 }), declaredShift: fc.integer({ min: -2, max: 2 }), withoutSegments: fc.boolean() }),
      { nil: null },
    ),
    backups: fc.array(fc.record({ timeline: fc.constantFrom(1 as const, 2 as const), beginOffset: fc.integer({ min: 0, max: 30 }), otherSystem: fc.boolean() }), { minLength: 1, maxLength: 4 }),
    copy: fc.option(fc.record({ position: fc.integer({ min: 1, max: 30 }), pair: fc.constantFrom(['', '.gz'] as const, ['.bz2', '.gz'] as const, ['', '.bz2'] as const), implausible: fc.constantFrom(0 as const, 1 as const, null) }), { nil: null }),
    clockMinutes: fc.constantFrom(-30, 0, 2, 30, 90, 600),
    twoSystems: fc.boolean(),
  })
  .map((r): Shape => {
    const tl2 =
      r.tl2 === null
        ? null
        : (() => {
            const fork = Math.min(r.tl1End, 1 + r.tl2.forkOffset);
            return { fork, tl2End: fork + r.tl2.length, tl2Missing: r.tl2.tl2Missing.map((m) => fork + m), declared: Math.max(2, fork + r.tl2.declaredShift), withoutSegments: r.tl2.withoutSegments };
          })();
    const backups = r.backups.map((b) => {
      const timeline: 1 | 2 = b.timeline === 2 && tl2 !== null ? 2 : 1;
      const begin = timeline === 2 && tl2 !== null ? tl2.fork + (b.beginOffset % (tl2.tl2End - tl2.fork + 1)) : 1 + (b.beginOffset % r.tl1End);
      return { timeline, begin, otherSystem: r.twoSystems && b.otherSystem };
    });
    const copy = r.copy === null || r.copy.position > r.tl1End ? null : r.copy;
    return { tl1End: r.tl1End, tl1Missing: r.tl1Missing, tl2, backups, copy, clockMinutes: r.clockMinutes };
  });

/** Timeline 2's first archived position in `shape`, or null when it archived none. */
function firstOfTimeline2(shape: Shape): number | null {
  const t2 = shape.tl2;
  if (t2 === null || t2.withoutSegments) return null;
  for (let p = t2.fork; p <= t2.tl2End; p++) if (!t2.tl2Missing.includes(p)) return p;
  return null;
}

/**
 * Whether timeline 1's position is present as the restore tool sees it: archived, and when stored
 * twice, the copy barman-cloud-wal-restore takes (the suffixed one; of two, the first) plausible.
 */
function presentOnTimeline1(shape: Shape, position: number): boolean {
  if (shape.tl1Missing.includes(position) || position > shape.tl1End) return false;
  const c = shape.copy;
  if (c?.position !== position) return true;
  const taken = c.pair[0] === '' ? 1 : 0;
  return c.implausible !== taken;
}

/** Builds the repository of `shape` (timeline-2 segments left out when `dropTimeline2`), scans it and publishes it. */
async function scanned(shape: Shape, dropTimeline2 = false): Promise<{ e: ScopeEvidence; p: Publication }> {
  let newest = 0;
  const store = new MemoryStore({ storeClock: () => at(newest + shape.clockMinutes) });
  const repo = new SyntheticRepository(store, ROOT);
  // One segment a minute, timeline 1 first; timeline 2's history when it forks, its segments after.
  const copy = shape.copy;
  for (let p = 1; p <= shape.tl1End; p++) {
    if (shape.tl1Missing.includes(p)) continue;
    if (copy?.position !== p) {
      repo.segment(1, p, at(p));
      continue;
    }
    // Two keys for one name: an implausible copy is a tiny body, whatever its suffix.
    copy.pair.forEach((suffix, i) => repo.segment(1, p, at(p), suffix, copy.implausible === i ? 'x' : undefined));
  }
  newest = shape.tl1End;
  const t2 = shape.tl2;
  if (t2 !== null) {
    repo.history(2, [{ parent: 1, switchpoint: repo.switchpoint(t2.declared) }], at(shape.tl1End + 1), true);
    newest = shape.tl1End + 1;
    if (!t2.withoutSegments) {
      // Deleting segments later does not move the store's clock: it stays where the archive left it.
      if (!dropTimeline2) for (let p = t2.fork; p <= t2.tl2End; p++) if (!t2.tl2Missing.includes(p)) repo.segment(2, p, at(shape.tl1End + 2 + p - t2.fork));
      newest = shape.tl1End + 2 + t2.tl2End - t2.fork;
    }
  }
  for (const [i, b] of shape.backups.entries()) {
    const minute = b.timeline === 1 ? b.begin : shape.tl1End + 2 + b.begin - (t2?.fork ?? 0);
    repo.backup({ id: `20261121T1${String(i).padStart(5, '0')}`, timeline: b.timeline, beginPosition: b.begin, endPosition: b.begin, beginTime: at(minute), endTime: at(minute + 0.5), ...(b.otherSystem ? { systemId: '7000000000000000001' } : {}) });
  }
  const publisher = testPublisher({
    identity: { cluster: DB_CLUSTER, fingerprint: `sha256:${'1'.repeat(64)}`, server: 'srv' },
    expectations: { maxArchiveLagSeconds: 3600 },
    freshnessMs: 900_000,
  });
  const e = await scanScope({ format: archiveCloud, server: 'srv', root: ROOT, driver: confine(store, ROOT), signal: new AbortController().signal, meter: new BudgetMeter({ maxPages: 1e4, maxObjects: 1e7 }), concurrency: 2, ...publisher.nextScan });
  const p = publisher.complete(e, { startedAt: at(newest + 100), finishedAt: at(newest + 101), pages: 1, objects: e.objectCount });
  assert.deepEqual(p.violations, []);
  assert.equal(p.snapshot.stale, false, `a complete generation, not a refused one (${p.snapshot.reason.code})`);
  return { e, p };
}

describe('the edges of timelines, on random repositories', () => {
  it('every generation is published (no summary healthier than its items) and the issue\'s rules hold', async () => {
    await fc.assert(
      fc.asyncProperty(shapeArb, async (shape) => {
        const { e, p } = await scanned(shape);
        const s = requireCommonSummary(p.snapshot.details);
        const walTimelines = new Set(p.walRanges.map((r) => r.timeline));
        for (const path of p.recoveryPaths) if (path.state === 'healthy') assert.ok(walTimelines.has(path.target_timeline), 'a healthy path to a timeline without WAL');
        if (shape.tl2 !== null && !walTimelines.has(2)) assert.notEqual(s.coverage.state, 'healthy', 'coverage of a newest timeline with no segment');
        if (e.systemIds.size > 1) {
          assert.equal(s.coverage.state, 'unknown');
          for (const b of p.backups) assert.notEqual(b.state, 'healthy');
        }
        if (shape.clockMinutes < 0) assert.equal(archiveLagSeconds(e), null, 'a receipt after the store clock is no lag');
        const first2 = firstOfTimeline2(shape);
        if (shape.tl2 !== null && first2 !== null && first2 < shape.tl2.declared) assert.equal(s.timeline.reason.code, 'timeline-history-contradicted');
        // A lost head: timeline 2 begins after its declared switch while timeline 1 has WAL before it.
        if (shape.tl2 !== null && first2 !== null && first2 > shape.tl2.declared && [...Array(shape.tl2.declared - 1).keys()].some((i) => presentOnTimeline1(shape, i + 1))) {
          assert.ok(p.walGaps.some((g) => g.timeline === 2 && g.start_position === shape.tl2?.declared && g.end_position === first2 - 1), 'the lost head is a gap');
          assert.notEqual(s.wal.state, 'healthy');
        }
        if (shape.tl2 !== null && !shape.tl2.withoutSegments) {
          // Less evidence never improves: the same repository without its timeline-2 segments.
          const { p: less } = await scanned(shape, true);
          const l = requireCommonSummary(less.snapshot.details);
          // Never healthy where it was not; and no less severe, unless the segments deleted were
          // the very proof that the history is wrong (the doubt they raised goes with them, and
          // what remains is judged on the history as written: never healthy either).
          const contradicted = first2 !== null && first2 < shape.tl2.declared;
          if (!contradicted) assert.ok(SEVERITY[l.coverage.state] >= SEVERITY[s.coverage.state], `coverage ${s.coverage.reason.code} → ${l.coverage.reason.code}`);
          assert.notEqual(l.coverage.state, 'healthy', `coverage ${s.coverage.reason.code} → ${l.coverage.reason.code}`);
          if (p.snapshot.state !== 'healthy') assert.notEqual(less.snapshot.state, 'healthy', `top ${p.snapshot.reason.code} → ${less.snapshot.reason.code}`);
        }
      }),
      { numRuns: 1000 },
    );
  });
});
