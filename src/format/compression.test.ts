/**
 * Every compression barman-cloud-wal-archive can write, round-tripped through a real compressor
 * (the Debian command-line tools for bzip2 and xz, Node's zlib, the lz4 and snappy libraries),
 * plus corrupt input and decompression bombs.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { gzipSync, zstdCompressSync } from 'node:zlib';
import { compress as snappyBlock } from 'snappyjs';
import { compress as lz4Frame } from 'lz4js';
import { decompress, type Codec } from './compression.ts';

declare module 'snappyjs' {
  export function compress(data: Uint8Array): Uint8Array;
}
declare module 'lz4js' {
  export function compress(data: Uint8Array): Uint8Array;
}

const HISTORY = Buffer.from('1\t0/D000090\tat restore point "incident"\n');

function cli(command: string, input: Uint8Array): Uint8Array {
  const r = spawnSync(command, ['-c'], { input });
  assert.equal(r.status, 0, `${command} failed`);
  return r.stdout;
}

/** python-snappy's framing: stream identifier, then compressed chunks of at most 64 KiB, each with a masked CRC-32C. */
function snappyFramed(data: Uint8Array): Uint8Array {
  const chunks: Buffer[] = [Buffer.from([0xff, 6, 0, 0]), Buffer.from('sNaPpY')];
  for (let at = 0; at < data.length; at += 65_536) {
    const part = data.subarray(at, at + 65_536);
    let c = 0xffffffff;
    for (const b of part) {
      c ^= b;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0x82f63b78 ^ (c >>> 1) : c >>> 1;
    }
    c = (c ^ 0xffffffff) >>> 0;
    const masked = ((((c >>> 15) | (c << 17)) >>> 0) + 0xa282ead8) >>> 0;
    const body = snappyBlock(part);
    const chunk = Buffer.alloc(8 + body.length);
    chunk.writeUInt8(0x00, 0);
    chunk.writeUIntLE(4 + body.length, 1, 3);
    chunk.writeUInt32LE(masked, 4);
    Buffer.from(body).copy(chunk, 8);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

const COMPRESSORS: Record<Codec, (d: Uint8Array) => Uint8Array> = {
  gzip: (d) => gzipSync(d),
  zstd: (d) => zstdCompressSync(d),
  bzip2: (d) => cli('bzip2', d),
  xz: (d) => cli('xz', d),
  snappy: snappyFramed,
  lz4: (d) => lz4Frame(d),
};

describe('decompression of small archive objects', () => {
  for (const [name, compress] of Object.entries(COMPRESSORS) as [Codec, (d: Uint8Array) => Uint8Array][]) {
    it(`${name}: round trip`, async () => {
      const r = await decompress(compress(HISTORY), name, 1024);
      assert.ok(r.ok, JSON.stringify(r));
      assert.equal(Buffer.from(r.ok ? r.bytes : []).toString(), HISTORY.toString());
    });

    it(`${name}: a bomb is refused as too large`, async () => {
      const bomb = compress(Buffer.alloc(4 * 1024 * 1024, 0x61));
      assert.deepEqual(await decompress(bomb, name, 64 * 1024), { ok: false, reason: 'decompressed-too-large' });
    });

    it(`${name}: garbage is a typed failure`, async () => {
      assert.deepEqual(await decompress(Buffer.from('not compressed at all, just text'), name, 1024), { ok: false, reason: 'decompression-failed' });
    });
  }

  it('lz4: a block claiming more bytes than the frame holds is refused before lz4js reads past the input', async () => {
    // 11 bytes: one block claiming 0x7FFFFFFF bytes (uncompressed, then compressed form). lz4js
    // alone looped over the missing input for 5 and 33 s, then said too large.
    for (const size of [[0xff, 0xff, 0xff, 0xff], [0xff, 0xff, 0xff, 0x7f]]) {
      const frame = Uint8Array.from([0x04, 0x22, 0x4d, 0x18, 0x40, 0x40, 0xc0, ...size]);
      assert.deepEqual(await decompress(frame, 'lz4', 256 * 1024), { ok: false, reason: 'decompression-failed' });
    }
    // Every truncation of a real frame is refused too, and the whole frame still decodes.
    const real = lz4Frame(HISTORY);
    for (let n = 0; n < real.length; n++) assert.deepEqual(await decompress(real.subarray(0, n), 'lz4', 1024), { ok: false, reason: 'decompression-failed' }, `first ${n} bytes`);
    assert.ok((await decompress(real, 'lz4', 1024)).ok);
  });

  it('snappy: a corrupted checksum is refused', async () => {
    const framed = Buffer.from(snappyFramed(HISTORY));
    framed[14] = (framed[14] ?? 0) ^ 0xff;
    assert.deepEqual(await decompress(framed, 'snappy', 1024), { ok: false, reason: 'decompression-failed' });
  });
});
