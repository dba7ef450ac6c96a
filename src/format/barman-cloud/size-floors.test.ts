/**
 * The size floors never reject a valid object: the most compressible content there is (a segment
 * of zeros, as PostgreSQL pads a switched segment, and a single byte) compressed by the real
 * compressors at their strongest settings stays at or above each floor, while an empty stream
 * (no content at all) and a truncated object fall below it.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { constants, gzipSync, zstdCompressSync } from 'node:zlib';
import { compress as lz4Frame } from 'lz4js';
import { MIN_STREAM_WITH_CONTENT, MIN_TAR_BYTES, minimumArchiveBytes, minimumSegmentBytes, segmentSizePlausible } from './size-floors.ts';

declare module 'lz4js' {
  export function compress(data: Uint8Array): Uint8Array;
}

function cli(command: string, args: string[], input: Uint8Array): Uint8Array {
  const r = spawnSync(command, args, { input, maxBuffer: 64 << 20 });
  assert.equal(r.status, 0, `${command} failed`);
  return r.stdout;
}

const COMPRESSORS = {
  gzip: (b: Uint8Array) => gzipSync(b, { level: 9 }),
  bzip2: (b: Uint8Array) => cli('bzip2', ['-9', '-c'], b),
  xz: (b: Uint8Array) => cli('xz', ['-9e', '-c', '--check=none'], b),
  zstd: (b: Uint8Array) => zstdCompressSync(b, { params: { [constants.ZSTD_c_compressionLevel]: 22, [constants.ZSTD_c_checksumFlag]: 0 } }),
  lz4: (b: Uint8Array) => lz4Frame(b),
} as const;

describe('size floors', () => {
  for (const [name, compress] of Object.entries(COMPRESSORS) as [keyof typeof COMPRESSORS, (b: Uint8Array) => Uint8Array][]) {
    it(`${name}: zero-filled segments and a single byte stay above the floor; the empty stream does not`, () => {
      for (const segmentSize of [1 << 20, 16 << 20]) {
        const stored = compress(new Uint8Array(segmentSize)).length;
        assert.ok(stored >= minimumSegmentBytes(name, segmentSize), `${name} ${segmentSize}: ${stored} < ${minimumSegmentBytes(name, segmentSize)}`);
        assert.ok(segmentSizePlausible(stored, name, segmentSize));
      }
      assert.ok(compress(Buffer.from('a')).length >= MIN_STREAM_WITH_CONTENT[name]);
      // Base-backup archives come in gzip, bzip2, snappy and lz4 only.
      if (name !== 'xz' && name !== 'zstd') assert.ok(compress(new Uint8Array(MIN_TAR_BYTES)).length >= minimumArchiveBytes(name));
      assert.ok(compress(new Uint8Array(0)).length < MIN_STREAM_WITH_CONTENT[name], `${name}: the empty stream passes the floor`);
    });
  }

  it('gzip uses the deflate bound: a 16 MiB segment is never under 16,275 bytes', () => {
    assert.equal(minimumSegmentBytes('gzip', 16 << 20), 16_275);
    assert.equal(segmentSizePlausible(16_274, 'gzip', 16 << 20), false);
  });

  it('an uncompressed segment is exactly the segment size', () => {
    assert.equal(segmentSizePlausible(16 << 20, null, 16 << 20), true);
    assert.equal(segmentSizePlausible(1, null, 16 << 20), false);
    assert.equal(segmentSizePlausible((16 << 20) + 1, null, 16 << 20), false);
    assert.equal(segmentSizePlausible(1 << 20, null, 16 << 20), false);
  });

  it('an archive holds at least one tar member', () => {
    assert.equal(minimumArchiveBytes('none'), 1536);
    assert.ok(minimumArchiveBytes('bzip2') > 14);
    assert.ok(minimumArchiveBytes('gzip') > 20);
  });
});
