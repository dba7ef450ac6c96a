/**
 * WAL naming at its edges, with literal names: log rollover for every segment size, the pre-9.3
 * missing segment FF, LSNs in both spellings, and names that cannot exist.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  formatLsn,
  geometry,
  isValidSegmentSize,
  nextPosition,
  parseLsn,
  parseWalName,
  positionOfLsn,
  positionsBetween,
  segmentsPerLog,
  splitWalName,
  walName,
} from './wal.ts';

const MiB = 1 << 20;
const g16 = geometry(16 * MiB);

describe('segment sizes', () => {
  it('accepts every power of two from 1 MiB to 1 GiB and nothing else', () => {
    const valid = Array.from({ length: 11 }, (_, i) => MiB << i);
    for (const s of valid) assert.ok(isValidSegmentSize(s), String(s));
    for (const s of [0, MiB / 2, 2 * 1024 * 1024 * 1024, 3 * MiB, 16 * MiB + 1, Number.NaN]) assert.ok(!isValidSegmentSize(s), String(s));
    assert.throws(() => geometry(3 * MiB), RangeError);
  });

  it('counts segments per log id as PostgreSQL does', () => {
    assert.equal(segmentsPerLog(MiB), 4096);
    assert.equal(segmentsPerLog(16 * MiB), 256);
    assert.equal(segmentsPerLog(64 * MiB), 64);
    assert.equal(segmentsPerLog(1024 * MiB), 4);
  });
});

describe('names and positions', () => {
  it('rolls over from segment FF to the next log with 16 MiB segments', () => {
    assert.deepEqual(parseWalName('0000000100000000000000FF', g16), { timeline: 1, position: 255 });
    assert.deepEqual(parseWalName('000000010000000100000000', g16), { timeline: 1, position: 256 });
    assert.equal(walName(1, 255, g16), '0000000100000000000000FF');
    assert.equal(walName(1, 256, g16), '000000010000000100000000');
    assert.equal(nextPosition(255, g16), 256);
  });

  it('round-trips names for every segment size at the log boundary', () => {
    for (let i = 0; i <= 10; i++) {
      const g = geometry(MiB << i);
      const perLog = segmentsPerLog(g.segmentSize);
      for (const position of [0, 1, perLog - 1, perLog, 3 * perLog + 2, 0x1b222 * perLog + 6]) {
        const name = walName(9, position, g);
        assert.deepEqual(parseWalName(name, g), { timeline: 9, position }, name);
      }
    }
  });

  it('rejects segment numbers beyond the log for the size', () => {
    const g1g = geometry(1024 * MiB);
    assert.deepEqual(parseWalName('000000010000000000000003', g1g), { timeline: 1, position: 3 });
    assert.equal(parseWalName('000000010000000000000004', g1g), null);
    assert.equal(walName(1, 4, g1g), '000000010000000100000000');
    const g64 = geometry(64 * MiB);
    assert.equal(parseWalName('00000001000000000000003F', g64)?.position, 63);
    assert.equal(parseWalName('000000010000000000000040', g64), null);
  });

  it('refuses timeline 0, lowercase and wrong lengths', () => {
    assert.equal(parseWalName('000000000000000000000001', g16), null);
    assert.equal(parseWalName('0000000a0000000000000001', g16), null);
    assert.equal(parseWalName('00000001000000000000001', g16), null);
    assert.equal(parseWalName('000000010000000000000001.partial', g16), null);
  });

  it('skips segment FF before PostgreSQL 9.3', () => {
    const old = geometry(16 * MiB, 90224);
    assert.equal(parseWalName('0000000100000000000000FF', old), null);
    assert.equal(parseWalName('0000000100000000000000FE', old)?.position, 254);
    assert.equal(nextPosition(254, old), 256);
    assert.equal(walName(1, nextPosition(254, old), old), '000000010000000100000000');
    assert.equal(positionsBetween(250, 260, old), 10);
    assert.equal(positionsBetween(250, 260, g16), 11);
    assert.equal(positionsBetween(0, 255 + 256, old), 510);
    assert.equal(positionsBetween(5, 4, old), 0);
    assert.equal(geometry(16 * MiB, 90300).skipsLastSegment, false);
  });
});

describe('LSNs', () => {
  it('parses the classic and the zero-padded spelling to the same value', () => {
    assert.equal(parseLsn('0/8000028'), 0x8000028n);
    assert.equal(parseLsn('0/08000028'), 0x8000028n);
    assert.equal(parseLsn('1B222/6009F10'), (0x1b222n << 32n) | 0x6009f10n);
    assert.equal(parseLsn('FFFFFFFF/FFFFFFFF'), 0xffff_ffff_ffff_ffffn);
  });

  it('refuses what is not an LSN', () => {
    for (const t of ['', '0', '0/', '/1', '0/123456789', 'G/0', '0/8000028 ', '-1/0', '0x0/0']) assert.equal(parseLsn(t), null, t);
  });

  it('formats uppercase %X/%X and finds the segment of an LSN', () => {
    assert.equal(formatLsn(0xd000090n), '0/D000090');
    assert.equal(formatLsn((0x1b222n << 32n) | 0x6009f10n), '1B222/6009F10');
    assert.equal(walName(1, positionOfLsn(0x8000028n, g16), g16), '000000010000000000000008');
    const lsn = parseLsn('1B222/6009F10') ?? 0n;
    assert.equal(walName(9, positionOfLsn(lsn, g16), g16), '000000090001B22200000006');
  });
});

describe('splitWalName by hand', () => {
  it('agrees with the uppercase-hex regular expression on 20,000 near-miss names', async () => {
    const fc = await import('fast-check');
    const WAL_NAME = /^([0-9A-F]{8})([0-9A-F]{8})([0-9A-F]{8})$/;
    const digit = fc.oneof({ weight: 40, arbitrary: fc.constantFrom(...'0123456789ABCDEF'.split('')) }, { weight: 1, arbitrary: fc.constantFrom(...'abcdefG :/@`'.split('')) });
    const name = fc.array(digit, { minLength: 23, maxLength: 25 }).map((a) => a.join(''));
    fc.assert(
      fc.property(name, (n) => {
        const m = WAL_NAME.exec(n);
        const expected = m === null ? null : { timeline: Number.parseInt(m[1] ?? '', 16), log: Number.parseInt(m[2] ?? '', 16), segment: Number.parseInt(m[3] ?? '', 16) };
        assert.deepEqual(splitWalName(n), expected);
      }),
      { numRuns: 20_000, seed: 11 },
    );
    assert.deepEqual(splitWalName('FFFFFFFFFFFFFFFFFFFFFFFF'), { timeline: 0xffffffff, log: 0xffffffff, segment: 0xffffffff });
  });
});
