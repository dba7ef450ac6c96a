/**
 * Every codec: real objects barman-cloud 3.20 wrote into the test repositories
 * (test/fixtures/compression/, their decoded bytes pinned by the reference command-line tools),
 * round trips through a real compressor (the Debian command-line tools for bzip2 and xz, Node's
 * zlib, the lz4 and snappy libraries), and hostile input: every truncation, garbage behind each
 * codec's magic, declared sizes and windows far beyond the cap, and decompression bombs, each a
 * typed failure within bounded time and memory.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { crc32, gzipSync, zstdCompressSync } from 'node:zlib';
import { compress as snappyBlock } from 'snappyjs';
import { compress as lz4Frame } from 'lz4js';
import { CODECS, decompress, type Codec } from './compression.ts';

declare module 'snappyjs' {
  export function compress(data: Uint8Array): Uint8Array;
}
declare module 'lz4js' {
  export function compress(data: Uint8Array): Uint8Array;
}

// lz4js's xxHash32, for frame descriptors written here.
const lz4HeaderChecksum = (descriptor: Uint8Array) => (createRequire(import.meta.url)('lz4js/xxh32.js') as { hash: (seed: number, src: Uint8Array, index: number, length: number) => number }).hash(0, descriptor, 0, descriptor.length);

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

const FIXTURES = join(import.meta.dirname, '..', '..', 'test', 'fixtures', 'compression');
const fixture = (name: string) => readFileSync(join(FIXTURES, name));
const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
const SEGMENT = 16 * 1024 * 1024;

/** Real objects, and the SHA-256 and length of their contents as xz, bzip2, zstd, gzip and lz4 (the tools) decode them. */
const REAL: readonly { file: string; codec: Codec; sha256?: string; length: number; starts: string }[] = [
  { file: '000000010000000000000008.00000028.backup.lz4', codec: 'lz4', sha256: '5c1b9b929552afc193ee1f1a62f37a4a3189f969d91bc311b17f9b55756b91af', length: 348, starts: 'START WAL LOCATION: 0/8000028 ' },
  { file: '000000010000000000000005.00000028.backup.zst', codec: 'zstd', sha256: 'e9ab66a5b44ef6b10eb487eb405e388bafb14411774934fb5422812f1126d8bf', length: 348, starts: 'START WAL LOCATION: 0/5000028 ' },
  { file: '00000002.history.zst', codec: 'zstd', sha256: '70af33886bbef9ca715e83409775d88187f380e4a75b4cbb642af65c04d4f940', length: 41, starts: '1\t0/11000090\tat restore point "incident"' },
  { file: '000000010000000000000008.00000028.backup.gz', codec: 'gzip', sha256: 'f135ac1737537081eb2bf5091d40920f5d524b1c1004a8588569b78ec0515cf2', length: 348, starts: 'START WAL LOCATION: 0/8000028 ' },
  { file: '00000002.history.gz', codec: 'gzip', sha256: '16f789c482ed0118e51a4157bd38a5cf1afd73a944673e765a7624af719b2d40', length: 40, starts: '1\t0/B000090\tat restore point "incident"' },
  // No snappy tool here: the frame's own CRC-32C over every chunk vouches for its bytes.
  { file: '00000001000000000000000E.0001CEE8.backup.snappy', codec: 'snappy', length: 348, starts: 'START WAL LOCATION: 0/E01CEE8 ' },
  // WAL segments: 16 MiB each; the first page header names timeline 1 and the segment's own address.
  { file: '00000001000000000000000C.bz2', codec: 'bzip2', sha256: '2273a5f99b4a94dfcedcf0c6afcbe57147c3484492cdc79ae2238529093d81af', length: SEGMENT, starts: '' },
  { file: '00000001000000000000000B.xz', codec: 'xz', sha256: 'df5b61e9e9dc25d06481178b1c93ca59e1e56ef51a96f97004b5074e73f78c39', length: SEGMENT, starts: '' },
];

/** A deterministic byte stream (xorshift32), so a failure names a reproducible input. */
function noise(seed: number, length: number): Uint8Array {
  const out = new Uint8Array(length);
  let x = seed || 1;
  for (let i = 0; i < length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 0xff;
  }
  return out;
}

/** Each codec's stream start, so garbage behind it reaches the decoder proper. */
const MAGIC: Record<Codec, number[]> = {
  gzip: [0x1f, 0x8b, 0x08, 0x00],
  bzip2: [...Buffer.from('BZh9'), 0x31, 0x41, 0x59, 0x26, 0x53, 0x59],
  xz: [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00, 0x00, 0x04],
  snappy: [0xff, 0x06, 0x00, 0x00, ...Buffer.from('sNaPpY')],
  zstd: [0x28, 0xb5, 0x2f, 0xfd],
  lz4: [0x04, 0x22, 0x4d, 0x18, 0x60, 0x70, 0x73],
};

describe('real objects from the test repositories', () => {
  for (const r of REAL) {
    it(`${r.codec}: ${r.file} decodes to its contents, and one byte under its size is too large`, async () => {
      const d = await decompress(fixture(r.file), r.codec, r.length);
      assert.ok(d.ok, JSON.stringify(d));
      if (!d.ok) return;
      assert.equal(d.bytes.length, r.length);
      if (r.sha256 !== undefined) assert.equal(sha256(d.bytes), r.sha256);
      if (r.length === SEGMENT) {
        const page = Buffer.from(d.bytes.subarray(0, 16));
        assert.equal(page.readUInt32LE(4), 1, 'timeline');
        assert.equal(page.readBigUInt64LE(8), BigInt(parseInt(r.file.slice(16, 24), 16) * SEGMENT), 'page address');
      } else {
        assert.ok(Buffer.from(d.bytes).toString('latin1').startsWith(r.starts));
      }
      // (The segments' cap is proven below at 64 KiB: decoding 16 MiB twice is slow under seek-bzip.)
      if (r.length < SEGMENT) assert.deepEqual(await decompress(fixture(r.file), r.codec, r.length - 1), { ok: false, reason: 'decompressed-too-large' });
    });
  }

  it('every truncation of every small real object is a typed failure (snappy: or whole chunks only)', async () => {
    for (const r of REAL.filter((r) => r.length < SEGMENT)) {
      const whole = fixture(r.file);
      const contents = await decompress(whole, r.codec, 1024);
      for (let n = 0; n < whole.length; n++) {
        const d = await decompress(whole.subarray(0, n), r.codec, 1024);
        // The snappy framing has no end mark: cut between chunks, it is a shorter valid stream.
        if (r.codec === 'snappy' && d.ok && contents.ok) assert.ok(Buffer.from(contents.bytes).subarray(0, d.bytes.length).equals(d.bytes) && d.bytes.length < contents.bytes.length);
        else assert.deepEqual(d, { ok: false, reason: 'decompression-failed' }, `${r.file}: first ${n} bytes`);
      }
    }
  });

  it('lz4: no single flipped byte of a real frame crashes, hangs or exceeds the cap', async () => {
    const whole = fixture('000000010000000000000008.00000028.backup.lz4');
    for (let i = 0; i < whole.length; i++) {
      for (const mask of [0x01, 0x80, 0xff]) {
        const bad = Buffer.from(whole);
        bad[i] = (bad[i] ?? 0) ^ mask;
        const d = await decompress(bad, 'lz4', 1024);
        assert.ok(!d.ok || d.bytes.length <= 1024, `byte ${i} ^ ${mask}`);
      }
    }
  });
});

describe('hostile input', () => {
  it('every codec: garbage behind its magic is a typed failure, quickly', async () => {
    for (const codec of CODECS) {
      for (let seed = 1; seed <= 40; seed++) {
        const input = Buffer.concat([Buffer.from(MAGIC[codec]), noise(seed, 16 + seed * 97)]);
        const started = performance.now();
        const d = await decompress(input, codec, 64 * 1024);
        assert.ok(!d.ok || d.bytes.length <= 64 * 1024, `${codec} seed ${seed}`);
        assert.ok(performance.now() - started < 2000, `${codec} seed ${seed} took ${performance.now() - started} ms`);
      }
      assert.deepEqual(await decompress(new Uint8Array(0), codec, 1024), { ok: false, reason: 'decompression-failed' }, `${codec}: empty`);
    }
  });

  it('lz4: a declared content size beyond the cap is too large before any allocation; a lying one fails', async () => {
    const descriptor = (contentSize: bigint) => {
      const d = Buffer.alloc(10);
      d.writeUInt8(0x68, 0); // version 1, independent blocks, content size present
      d.writeUInt8(0x40, 1); // 64 KiB blocks
      d.writeBigUInt64LE(contentSize, 2);
      return d;
    };
    const frame = (contentSize: bigint, blocks: Buffer) => {
      const d = descriptor(contentSize);
      const hc = (lz4HeaderChecksum(d) >>> 8) & 0xff;
      return Buffer.concat([Buffer.from([0x04, 0x22, 0x4d, 0x18]), d, Buffer.from([hc]), blocks, Buffer.alloc(4)]);
    };
    const raw = Buffer.concat([Buffer.from([5, 0, 0, 0x80]), Buffer.from('hello')]);
    assert.deepEqual(await decompress(frame(2n ** 40n, raw), 'lz4', 256 * 1024), { ok: false, reason: 'decompressed-too-large' });
    assert.deepEqual(await decompress(frame(4n, raw), 'lz4', 1024), { ok: false, reason: 'decompression-failed' });
    assert.deepEqual(await decompress(frame(6n, raw), 'lz4', 1024), { ok: false, reason: 'decompression-failed' });
    const ok = await decompress(frame(5n, raw), 'lz4', 1024);
    assert.ok(ok.ok && Buffer.from(ok.bytes).toString() === 'hello');
  });

  it('snappy: a chunk declaring 2 GiB decoded is refused before allocating', async () => {
    // varint 0x80000000, then a literal tag: snappyjs checks the declared length first.
    const body = Buffer.from([0x80, 0x80, 0x80, 0x80, 0x08, 0x00, 0x61]);
    const chunk = Buffer.concat([Buffer.from([0x00, body.length + 4, 0, 0, 0, 0, 0, 0]), body]);
    const stream = Buffer.concat([Buffer.from(MAGIC.snappy), chunk]);
    assert.deepEqual(await decompress(stream, 'snappy', 256 * 1024), { ok: false, reason: 'decompression-failed' });
  });

  it('zstd: a frame asking for a 2 GiB window is refused; a 128 MiB one costs nothing until filled', async () => {
    // Frame header without content size, window descriptor, then one raw 1-byte last block.
    const frame = (windowDescriptor: number) => Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0x00, windowDescriptor, 0x09, 0x00, 0x00, 0x61]);
    assert.deepEqual(await decompress(frame(0xa8), 'zstd', 256 * 1024), { ok: false, reason: 'decompression-failed' });
    const d = await decompress(frame(0x88), 'zstd', 256 * 1024);
    assert.ok(d.ok && Buffer.from(d.bytes).toString() === 'a');
  });

  it('xz: a block asking for a 256 MiB dictionary is refused', async () => {
    const real = Buffer.from(cli('xz', HISTORY));
    const headerSize = ((real[12] ?? 0) + 1) * 4;
    const filter = real.indexOf(Buffer.from([0x21, 0x01]), 12); // LZMA2, one property byte: the dictionary size
    assert.ok(filter > 12 && filter < 12 + headerSize);
    real[filter + 2] = 30; // 2 << (30 / 2 + 11) = 256 MiB
    real.writeUInt32LE(crc32(real.subarray(12, 12 + headerSize - 4)), 12 + headerSize - 4);
    assert.deepEqual(await decompress(real, 'xz', 256 * 1024), { ok: false, reason: 'decompression-failed' });
  });

  it('bzip2: a real 195-byte object holding 16 MiB stops at the cap', async () => {
    assert.deepEqual(await decompress(fixture('00000001000000000000000C.bz2'), 'bzip2', 64 * 1024), { ok: false, reason: 'decompressed-too-large' });
  });

  it('a cap that is not a byte count is a programming error', async () => {
    await assert.rejects(decompress(HISTORY, 'gzip', -1), RangeError);
    await assert.rejects(decompress(HISTORY, 'gzip', Number.NaN), RangeError);
  });

  it('the module stands below every format: it imports nothing of viewer', () => {
    const source = readFileSync(join(import.meta.dirname, 'compression.ts'), 'utf8');
    assert.deepEqual([...source.matchAll(/from '(\.[^']*)'/g)].map((m) => m[1]), []);
  });
});
