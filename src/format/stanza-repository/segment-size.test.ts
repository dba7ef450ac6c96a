/**
 * Segment-size inference from backups' (archive start, LSN start) pairs: the real pairs pgBackRest
 * 2.45 recorded, every valid size, ambiguity, conflicts and pairs that say nothing.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { geometry, walName } from '../../postgres/wal.ts';
import { SEGMENT_SIZES, inferSegmentSize, sizesFitting } from './segment-size.ts';

const MiB = 1 << 20;

/** What `pg_walfile_name(lsn)` returns on timeline 1 under `size` (XLByteToPrevSeg). */
function walfileName(lsn: bigint, size: number): string {
  return walName(1, Number((lsn - 1n) / BigInt(size)), geometry(size));
}

describe('one backup’s pair', () => {
  it('fixes 16 MiB for the real backups (research real-repository.md)', () => {
    assert.deepEqual(sizesFitting('000000010000000000000003', 0x3000028n), [16 * MiB]);
    assert.deepEqual(sizesFitting('000000010000000000000005', 0x5000028n), [16 * MiB]);
    assert.deepEqual(sizesFitting('00000001000000010000002A', 0x1_2a000028n), [16 * MiB]);
  });

  it('lists the sizes 1 MiB … 1 GiB', () => {
    assert.deepEqual(SEGMENT_SIZES, [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024].map((n) => n * MiB));
  });

  it('finds the true size among the fits for every size and position', () => {
    fc.assert(
      fc.property(fc.constantFrom(...SEGMENT_SIZES), fc.bigInt({ min: 1n, max: (1n << 64n) - 1n }), (size, lsn) => {
        assert.ok(sizesFitting(walfileName(lsn, size), lsn)?.includes(size));
      }),
      { numRuns: 3000 },
    );
  });

  it('names the segment before a boundary, as pg_walfile_name does', () => {
    assert.deepEqual(sizesFitting('000000010000000000000002', 0x3000000n), [16 * MiB]);
    assert.deepEqual(sizesFitting('000000010000000000000003', 0x3000000n), []);
  });

  it('admits every size while the WAL is young, and none for an impossible pair', () => {
    assert.deepEqual(sizesFitting('000000010000000000000000', 0x28n), SEGMENT_SIZES);
    assert.deepEqual(sizesFitting('000000010000000000000001', 0x100028n), [MiB]);
    assert.deepEqual(sizesFitting('0000000100000000000000FF', 0x3000028n), []);
    assert.deepEqual(sizesFitting('000000010000000200000003', 0x3000028n), []);
  });

  it('says nothing without both values, for LSN 0 or an invalid name', () => {
    assert.equal(sizesFitting(null, 0x3000028n), null);
    assert.equal(sizesFitting('000000010000000000000003', null), null);
    assert.equal(sizesFitting('000000010000000000000003', 0n), null);
    assert.equal(sizesFitting('00000001000000000000000g', 0x3000028n), null);
  });
});

describe('the archive’s size across backups', () => {
  it('is the one size every informative pair admits', () => {
    assert.deepEqual(inferSegmentSize([{ archiveStart: '000000010000000000000003', lsnStart: 0x3000028n }, { archiveStart: '000000010000000000000005', lsnStart: 0x5000028n }]), { kind: 'known', segmentSize: 16 * MiB });
    // A young backup admits all sizes; an older one settles it.
    assert.deepEqual(inferSegmentSize([{ archiveStart: '000000010000000000000000', lsnStart: 0x28n }, { archiveStart: '000000010000000000000018', lsnStart: 0x3000028n }]), { kind: 'known', segmentSize: 2 * MiB });
    // Pairs that say nothing are skipped.
    assert.deepEqual(inferSegmentSize([{ archiveStart: null, lsnStart: null }, { archiveStart: '000000010000000000000003', lsnStart: 0x3000028n }]), { kind: 'known', segmentSize: 16 * MiB });
  });

  it('is unknown without evidence, or with several sizes left', () => {
    assert.deepEqual(inferSegmentSize([]), { kind: 'unknown', candidates: [] });
    assert.deepEqual(inferSegmentSize([{ archiveStart: null, lsnStart: 5n }]), { kind: 'unknown', candidates: [] });
    assert.deepEqual(inferSegmentSize([{ archiveStart: '000000010000000000000000', lsnStart: 0x28n }]), { kind: 'unknown', candidates: SEGMENT_SIZES });
    // Still in the first segment of every size from 2 MiB up.
    assert.deepEqual(inferSegmentSize([{ archiveStart: '000000010000000000000000', lsnStart: 0x100028n }]), { kind: 'unknown', candidates: SEGMENT_SIZES.slice(1) });
  });

  it('is a conflict when no size satisfies every pair', () => {
    assert.deepEqual(inferSegmentSize([{ archiveStart: '000000010000000000000003', lsnStart: 0x3000028n }, { archiveStart: '000000010000000000000006', lsnStart: 0x3000028n }]), { kind: 'conflict' });
    assert.deepEqual(inferSegmentSize([{ archiveStart: '0000000100000000000000FF', lsnStart: 0x3000028n }]), { kind: 'conflict' });
  });

  it('recovers the size of archives written under every size', () => {
    for (const size of SEGMENT_SIZES) {
      const backups = [0x3000028n, 0x1_2a000028n, 0x5_0000_0028n].map((lsn) => ({ archiveStart: walfileName(lsn, size), lsnStart: lsn }));
      assert.deepEqual(inferSegmentSize(backups), { kind: 'known', segmentSize: size }, String(size));
    }
  });
});
