/**
 * Property tests: for random sets of archived segments (any segment size, with and without the
 * pre-9.3 numbering, with duplicates), the streamed ranges and gaps equal a naive model computed
 * from the full set of positions; copies of one name under several keys count as the restore tool
 * would choose among them; and the parsers never throw on arbitrary input.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { classifyKey } from '../format/barman-cloud/classify.ts';
import { parseBackupInfo } from '../format/barman-cloud/backup-info.ts';
import { parsePythonLiteral } from '../format/barman-cloud/python-literal.ts';
import { parseTimelineHistory } from '../postgres/timeline-history.ts';
import { geometry, nextPosition, parseWalName, positionExists, walName } from '../postgres/wal.ts';
import { findGaps } from './gaps.ts';
import { WalArchive } from './wal-archive.ts';

const LIMITS = { maxRanges: 1_000_000, maxHistoryFiles: 100, maxPartials: 100 };

describe('WAL ranges and gaps match a naive model', () => {
  it('for random positions, sizes and numbering', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 10 }),
        fc.boolean(),
        fc.uniqueArray(fc.integer({ min: 0, max: 3000 }), { maxLength: 300 }),
        fc.array(fc.integer({ min: 0, max: 299 }), { maxLength: 20 }),
        (shift, pre93, raw, dupIdx) => {
          const g = geometry((1 << 20) << shift, pre93 ? 90200 : 150000);
          const positions = raw.filter((p) => positionExists(p, g)).sort((a, b) => a - b);
          const archive = new WalArchive(g, LIMITS);
          const dups = new Set(dupIdx.map((i) => positions[i]).filter((p) => p !== undefined));
          for (const p of positions) {
            const name = walName(3, p, g);
            archive.add({ kind: 'segment', name, compressed: false, sizeOk: true, receivedAt: p * 1000 });
            if (dups.has(p)) archive.add({ kind: 'segment', name, compressed: true, sizeOk: true, receivedAt: p * 1000 });
          }
          archive.finish();
          // Naive model: walk every existing position from the first to the last observed one.
          const set = new Set(positions);
          const ranges: [number, number, number][] = [];
          const gaps: [number, number, number][] = [];
          if (positions.length > 0) {
            let run: [number, number, number] | null = null;
            let hole: [number, number, number] | null = null;
            const last = positions.at(-1) as number;
            for (let p = positions[0] as number; p <= last; p = nextPosition(p, g)) {
              if (set.has(p)) {
                if (hole !== null) gaps.push(hole);
                hole = null;
                run = run === null ? [p, p, 1] : [run[0], p, run[2] + 1];
              } else {
                if (run !== null) ranges.push(run);
                run = null;
                hole = hole === null ? [p, p, 1] : [hole[0], p, hole[2] + 1];
              }
            }
            if (run !== null) ranges.push(run);
          }
          const got = archive.timelines.get(3)?.ranges.map((r) => [r.start, r.end, r.count]) ?? [];
          assert.deepEqual(got, ranges);
          const found = findGaps(archive.timelines.values(), { geometry: g, generation: 1, previous: [], newestReceipt: null, geometryKnown: true });
          assert.deepEqual(found.map((x) => [x.start, x.end, x.count]), gaps);
          assert.equal(archive.counts.segment, positions.length);
          assert.equal(archive.counts.duplicate, dups.size);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('copies of one name: present only when the copy the restore tool takes is a plausible whole segment and no two identities disagree', () => {
    const g = geometry(16 << 20);
    // Each position has 1–4 copies in key order: a rank (0 taken first, 1 only when alone),
    // a plausible size or not, an identity or none, or a competing partial.
    const copy = fc.record({ rank: fc.constantFrom(0, 1), ok: fc.boolean(), identity: fc.constantFrom(null, 'a', 'b'), partial: fc.boolean() });
    fc.assert(
      fc.property(fc.array(fc.array(copy, { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 40 }), fc.integer({ min: 1, max: 39 }), (positions, split) => {
        // Listed in two parts cut at `split`, as the parallel listing appends them.
        const parts = [new WalArchive(g, LIMITS), new WalArchive(g, LIMITS)];
        const expected: number[] = [];
        let segments = 0;
        let duplicates = 0;
        let unrestorable = 0;
        for (const [i, copies] of positions.entries()) {
          const archive = parts[i < split ? 0 : 1] as WalArchive;
          const name = walName(1, i + 1, g);
          for (const c of copies) {
            const restore = { rank: c.rank, identity: c.identity };
            if (c.partial) archive.add({ kind: 'partial', name, receivedAt: null, restore });
            else archive.add({ kind: 'segment', name, compressed: c.rank === 0, sizeOk: c.ok, receivedAt: null, restore });
          }
          // The model: the lowest rank wins, the first listed among equals; partials are never whole.
          let chosen: (typeof copies)[number] | null = null;
          for (const c of copies) if (chosen === null || c.rank < chosen.rank) chosen = c;
          const whole = copies.filter((c) => !c.partial && c.ok);
          const identities = new Set(copies.flatMap((c) => (c.identity === null ? [] : [c.identity])));
          segments += whole.length > 0 ? 1 : 0;
          duplicates += Math.max(0, whole.length - 1);
          const present = whole.length > 0 && chosen !== null && !chosen.partial && chosen.ok && identities.size <= 1;
          if (present) expected.push(i + 1);
          else if (whole.length > 0) unrestorable += 1;
        }
        const [first, second] = parts as [WalArchive, WalArchive];
        first.append(second);
        const got: number[] = [];
        for (const r of first.timelines.get(1)?.ranges ?? []) for (let p = r.start; p <= r.end; p++) got.push(p);
        assert.deepEqual(got, expected);
        assert.equal(first.counts.segment, segments);
        assert.equal(first.counts.duplicate, duplicates);
        assert.equal(first.unrestorableSegments, unrestorable);
      }),
      { numRuns: 500 },
    );
  });

  it('segment names round-trip for every size', () => {
    // Positions of a 64-bit LSN space: below 2^64 / segment size.
    const point = fc.integer({ min: 0, max: 10 }).chain((shift) => fc.tuple(fc.constant(shift), fc.integer({ min: 0, max: 2 ** (44 - shift) - 1 })));
    fc.assert(
      fc.property(point, fc.integer({ min: 1, max: 0xffffffff }), ([shift, pos], tli) => {
        const g = geometry((1 << 20) << shift);
        assert.deepEqual(parseWalName(walName(tli, pos, g), g), { timeline: tli, position: pos });
      }),
    );
  });
});

describe('parsers never throw on arbitrary input', () => {
  it('backup.info, Python literals, history files and object keys', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 2000 }), fc.string({ maxLength: 300 }), (bytes, text) => {
        parseBackupInfo(bytes);
        parseBackupInfo(Buffer.from(`status=DONE\n${text}\n`));
        parsePythonLiteral(text);
        parseTimelineHistory(text, 5);
        classifyKey(text);
        classifyKey(`wals/${text}`);
        classifyKey(`base/${text}`);
      }),
      { numRuns: 2000 },
    );
  });
});
