/**
 * Property tests of WAL naming (issue 19): for every segment size from 1 MiB to 1 GiB, with and
 * without the pre-9.3 numbering, name ⇄ (timeline, position) round-trips over the whole 64-bit
 * WAL space; a name is PostgreSQL's `XLogFileName` of the LSNs it holds (checked against an
 * independent model in bigints); name order is position order; arbitrary strings are a `null` or
 * a point, never an exception, and a point has exactly one name; LSN text round-trips.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  MAX_SEGMENT_SIZE, MIN_SEGMENT_SIZE, formatLsn, geometry, isValidSegmentSize, nextPosition, parseLsn, parseWalName, positionExists,
  positionOfLsn, positionsBetween, splitWalName, walName, type WalGeometry,
} from './wal.ts';

/** Every segment size PostgreSQL allows: 2^20 … 2^30. */
const SIZES = Array.from({ length: 11 }, (_, i) => MIN_SEGMENT_SIZE * 2 ** i);
const LSN_SPACE = 1n << 64n;
const HEX = '0123456789ABCDEF';

const hex8 = (n: bigint) => n.toString(16).toUpperCase().padStart(8, '0');

/** A geometry: any size, and a server version before or after 9.3. */
const geometryArb: fc.Arbitrary<WalGeometry> = fc.tuple(fc.constantFrom(...SIZES), fc.constantFrom(null, 90200, 90300, 150000)).map(([size, version]) => geometry(size, version));

/** A position that exists under `g`, anywhere in the 64-bit space (both ends weighted in). */
function positionArb(g: WalGeometry): fc.Arbitrary<number> {
  const max = Number(LSN_SPACE / BigInt(g.segmentSize)) - 1;
  const perLog = 2 ** 32 / g.segmentSize;
  return fc
    .oneof(fc.integer({ min: 0, max }), fc.integer({ min: 0, max: 4 * perLog }), fc.integer({ min: Math.max(0, max - 4 * perLog), max }))
    .map((p) => (positionExists(p, g) ? p : p - 1));
}

const timelineArb = fc.oneof(fc.integer({ min: 1, max: 0xffffffff }), fc.integer({ min: 1, max: 16 }), fc.constant(0xffffffff));

/** A point in a geometry: [g, timeline, position]. */
const pointArb = geometryArb.chain((g) => fc.tuple(fc.constant(g), timelineArb, positionArb(g)));

/** Strings shaped like WAL names, with now and then a character outside uppercase hex, a wrong length. */
const nameLike = fc.oneof(
  fc.string(),
  fc.string({ unit: 'binary' }),
  fc.array(fc.oneof({ weight: 30, arbitrary: fc.constantFrom(...HEX) }, { weight: 1, arbitrary: fc.constantFrom(...'abcdefG :/@`\u0000\u0660\uff10') }), { minLength: 22, maxLength: 26 }).map((a) => a.join('')),
  fc.array(fc.constantFrom(...HEX), { minLength: 24, maxLength: 24 }).map((a) => a.join('')),
);

describe('WAL names ⇄ (timeline, position), every segment size', () => {
  it('round-trips every existing position of the 64-bit space, for every size and numbering', () => {
    fc.assert(
      fc.property(pointArb, ([g, timeline, position]) => {
        const name = walName(timeline, position, g);
        assert.match(name, /^[0-9A-F]{24}$/);
        assert.deepEqual(parseWalName(name, g), { timeline, position });
        assert.deepEqual(splitWalName(name)?.timeline, timeline);
      }),
      { numRuns: 3000 },
    );
  });

  it("is PostgreSQL's XLogFileName of every LSN the segment holds (independent bigint model)", () => {
    const arb = fc.tuple(fc.constantFrom(...SIZES), timelineArb, fc.bigInt({ min: 0n, max: LSN_SPACE - 1n }));
    fc.assert(
      fc.property(arb, ([size, timeline, lsn]) => {
        const g = geometry(size);
        const position = positionOfLsn(lsn, g);
        const bytes = BigInt(size);
        // The segment holds [position * size, (position + 1) * size).
        assert.ok(BigInt(position) * bytes <= lsn && lsn < BigInt(position + 1) * bytes);
        // XLogFileName: timeline, lsn / 2^32, (lsn mod 2^32) / size — as 8 hex digits each.
        const expected = hex8(BigInt(timeline)) + hex8(lsn >> 32n) + hex8((lsn & 0xffff_ffffn) / bytes);
        assert.equal(walName(timeline, position, g), expected);
        // LSN text round-trips, uppercase, as PostgreSQL's %X/%X.
        const text = formatLsn(lsn);
        assert.match(text, /^(?:0|[1-9A-F][0-9A-F]{0,7})\/(?:0|[1-9A-F][0-9A-F]{0,7})$/);
        assert.equal(parseLsn(text), lsn);
        assert.equal(parseLsn(text.toLowerCase()), lsn);
        // %X/%08X (PostgreSQL 19) reads the same.
        assert.equal(parseLsn(`${(lsn >> 32n).toString(16).toUpperCase()}/${hex8(lsn & 0xffff_ffffn)}`), lsn);
      }),
      { numRuns: 3000 },
    );
  });

  it('orders names as positions on one timeline (the pages compare names as text)', () => {
    const arb = geometryArb.chain((g) => fc.tuple(fc.constant(g), timelineArb, positionArb(g), positionArb(g)));
    fc.assert(
      fc.property(arb, ([g, timeline, a, b]) => {
        const na = walName(timeline, a, g);
        const nb = walName(timeline, b, g);
        assert.equal(Math.sign(na < nb ? -1 : na > nb ? 1 : 0), Math.sign(a - b));
      }),
      { numRuns: 1000 },
    );
  });

  it('parses arbitrary strings to null or a point, never throwing; a point has exactly one name', () => {
    fc.assert(
      fc.property(nameLike, geometryArb, (text, g) => {
        const point = parseWalName(text, g);
        if (point === null) {
          // Refused only for a reason: not 24 uppercase hex digits, timeline 0, or no such segment.
          const s = splitWalName(text);
          const perLog = 2 ** 32 / g.segmentSize;
          assert.ok(s === null || s.timeline === 0 || s.segment >= perLog || (g.skipsLastSegment && s.segment === perLog - 1), text);
          assert.equal(s === null, !/^[0-9A-F]{24}$/.test(text));
          return;
        }
        assert.ok(Number.isSafeInteger(point.position) && point.position >= 0);
        assert.ok(Number.isInteger(point.timeline) && point.timeline >= 1 && point.timeline <= 0xffffffff);
        assert.ok(positionExists(point.position, g));
        assert.equal(walName(point.timeline, point.position, g), text);
      }),
      { numRuns: 5000 },
    );
  });

  it('refuses exactly timeline 0, a segment beyond the log, and the skipped pre-9.3 segment', () => {
    const arb = fc.tuple(geometryArb, fc.integer({ min: 0, max: 0xffffffff }), fc.integer({ min: 0, max: 0xffffffff }), fc.integer({ min: 0, max: 0xffffffff }));
    fc.assert(
      fc.property(arb, ([g, timeline, log, segment]) => {
        const name = hex8(BigInt(timeline)) + hex8(BigInt(log)) + hex8(BigInt(segment));
        const perLog = 2 ** 32 / g.segmentSize;
        // Small segment numbers matter most: weight them in by folding.
        const seg = segment % (perLog + 2);
        const folded = hex8(BigInt(timeline)) + hex8(BigInt(log)) + hex8(BigInt(seg));
        for (const [n, s] of [[name, segment], [folded, seg]] as const) {
          const valid = timeline !== 0 && s < perLog && !(g.skipsLastSegment && s === perLog - 1);
          const point = parseWalName(n, g);
          assert.equal(point !== null, valid, n);
          if (point !== null) assert.deepEqual(point, { timeline, position: log * perLog + s });
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('parses arbitrary LSN text to null or a 64-bit value that formats back, never throwing', () => {
    const lsnLike = fc.oneof(
      fc.string(),
      fc.tuple(fc.string({ unit: fc.constantFrom(...'0123456789abcdefABCDEFx '), maxLength: 10 }), fc.string({ unit: fc.constantFrom(...'0123456789abcdefABCDEFx '), maxLength: 10 })).map(([a, b]) => `${a}/${b}`),
    );
    fc.assert(
      fc.property(lsnLike, (text) => {
        const lsn = parseLsn(text);
        if (lsn === null) return;
        assert.ok(lsn >= 0n && lsn < LSN_SPACE);
        assert.equal(parseLsn(formatLsn(lsn)), lsn);
      }),
      { numRuns: 3000 },
    );
  });

  it('steps and counts positions as a naive walk does, across the pre-9.3 skip', () => {
    const arb = geometryArb.chain((g) => {
      const perLog = 2 ** 32 / g.segmentSize;
      return fc.tuple(fc.constant(g), fc.integer({ min: 0, max: 2 ** 40 }), fc.integer({ min: -2, max: 3 * perLog }));
    });
    fc.assert(
      fc.property(arb, ([g, start, span]) => {
        const from = positionExists(start, g) ? start : start + 1;
        const to = from + span;
        let naive = 0;
        for (let p = from; p <= to; p++) if (positionExists(p, g)) naive++;
        assert.equal(positionsBetween(from, to, g), naive);
        // nextPosition visits exactly the existing positions.
        let walked = 0;
        for (let p = from; p <= to; p = nextPosition(p, g)) {
          assert.ok(positionExists(p, g));
          walked++;
        }
        assert.equal(walked, naive);
      }),
      { numRuns: 500 },
    );
  });

  it('accepts exactly the powers of two from 1 MiB to 1 GiB as segment sizes', () => {
    fc.assert(
      fc.property(fc.oneof(fc.integer(), fc.double(), fc.constantFrom(...SIZES), fc.integer({ min: 0, max: 30 }).map((s) => 2 ** s), fc.constantFrom(...SIZES).map((s) => s + 1)), (size) => {
        const expected = SIZES.includes(size);
        assert.equal(isValidSegmentSize(size), expected);
        if (expected) assert.equal(geometry(size).segmentSize, size);
        else assert.throws(() => geometry(size), RangeError);
      }),
      { numRuns: 1000 },
    );
    assert.equal(SIZES[0], MIN_SEGMENT_SIZE);
    assert.equal(SIZES.at(-1), MAX_SEGMENT_SIZE);
  });
});
