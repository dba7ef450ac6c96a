/**
 * Decompresses the small objects viewer reads (timeline history files, backup-history files) in
 * every compression barman-cloud-wal-archive writes: gzip, bzip2, xz, snappy (python-snappy's
 * framing format), zstd and lz4 (frame format). Output is bounded, so a decompression bomb is a
 * typed failure, not an allocation. Nothing here is used on backup archives or WAL segments.
 */
import { gunzipSync, zstdDecompressSync } from 'node:zlib';
import Bunzip from 'seek-bzip';
import { uncompress as snappyBlock } from 'snappyjs';
import { decompress as lz4Frame } from 'lz4js';
import xzDecompress from 'xz-decompress';
import type { WalCompression } from './classify.ts';

export type DecompressResult = { readonly ok: true; readonly bytes: Uint8Array } | { readonly ok: false; readonly reason: 'decompression-failed' | 'decompressed-too-large' };

class TooLarge extends Error {}

function bzip2(input: Uint8Array, max: number): Uint8Array {
  const out = new Uint8Array(max);
  let n = 0;
  Bunzip.decode(input, {
    writeByte(byte: number) {
      if (n >= max) throw new TooLarge();
      out[n++] = byte;
    },
  }, true);
  return out.subarray(0, n);
}

// CRC-32C (Castagnoli), as snappy frames carry it masked.
const CRC32C = (() => {
  const table = new Uint32Array(256);
  for (let i = 0; i < 256; i++) {
    let c = i;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0x82f63b78 ^ (c >>> 1) : c >>> 1;
    table[i] = c >>> 0;
  }
  return table;
})();
function maskedCrc32c(data: Uint8Array): number {
  let c = 0xffffffff;
  for (const b of data) c = (CRC32C[(c ^ b) & 0xff] ?? 0) ^ (c >>> 8);
  c = (c ^ 0xffffffff) >>> 0;
  return ((((c >>> 15) | (c << 17)) >>> 0) + 0xa282ead8) >>> 0;
}

/** The snappy framing format: a stream identifier, then compressed (0x00) or raw (0x01) chunks. */
function snappyFramed(input: Uint8Array, max: number): Uint8Array {
  const view = new DataView(input.buffer, input.byteOffset, input.byteLength);
  const parts: Uint8Array[] = [];
  let total = 0;
  let pos = 0;
  let sawIdentifier = false;
  while (pos < input.length) {
    if (pos + 4 > input.length) throw new Error('truncated chunk header');
    const type = input[pos] ?? 0;
    const length = (input[pos + 1] ?? 0) | ((input[pos + 2] ?? 0) << 8) | ((input[pos + 3] ?? 0) << 16);
    const body = input.subarray(pos + 4, pos + 4 + length);
    if (body.length !== length) throw new Error('truncated chunk');
    pos += 4 + length;
    if (type === 0xff) {
      if (new TextDecoder().decode(body) !== 'sNaPpY') throw new Error('bad stream identifier');
      sawIdentifier = true;
      continue;
    }
    if (!sawIdentifier) throw new Error('missing stream identifier');
    if (type === 0x00 || type === 0x01) {
      const crc = view.getUint32(pos - length, true);
      // The framing format caps a chunk at 65,536 uncompressed bytes.
      const data = type === 0x00 ? snappyBlock(body.subarray(4), 65_536) : body.subarray(4);
      if (maskedCrc32c(data) !== crc) throw new Error('checksum mismatch');
      total += data.length;
      if (total > max) throw new TooLarge();
      parts.push(data);
    } else if (type <= 0x7f) {
      throw new Error('unskippable chunk');
    }
  }
  if (!sawIdentifier) throw new Error('empty stream');
  return Buffer.concat(parts);
}

async function xz(input: Uint8Array, max: number): Promise<Uint8Array> {
  // A webpack UMD bundle: its named export is only reachable through the CommonJS object.
  const stream = new xzDecompress.XzReadableStream(new Blob([input]).stream());
  const parts: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of stream) {
    total += chunk.length;
    if (total > max) throw new TooLarge();
    parts.push(chunk);
  }
  return Buffer.concat(parts);
}

const LZ4_MAGIC = 0x184d2204;
/** Block maximum sizes by the frame descriptor's BD field (LZ4 frame format 1.6.x). */
const LZ4_BLOCK_MAX: Readonly<Record<number, number>> = { 4: 64 << 10, 5: 256 << 10, 6: 1 << 20, 7: 4 << 20 };

/**
 * lz4js trusts a frame's block sizes: a block claiming more bytes than the input holds makes it
 * loop over the missing input (an 11-byte file ran 33 s). So the frame is walked first: magic,
 * version, descriptor, then every block inside both the input and the descriptor's maximum block
 * size, up to the end mark. Only a frame that passes reaches lz4js.
 */
function lz4FrameWellFormed(b: Uint8Array): boolean {
  const u32 = (i: number) => ((b[i] ?? 0) | ((b[i + 1] ?? 0) << 8) | ((b[i + 2] ?? 0) << 16) | ((b[i + 3] ?? 0) << 24)) >>> 0;
  if (b.length < 7 || u32(0) !== LZ4_MAGIC) return false;
  const flg = b[4] ?? 0;
  const maxBlock = LZ4_BLOCK_MAX[((b[5] ?? 0) >> 4) & 7];
  if (flg >> 6 !== 1 || maxBlock === undefined) return false;
  const checksum = (flg & 0x10) !== 0 ? 4 : 0;
  let i = 7 + ((flg & 0x08) !== 0 ? 8 : 0) + ((flg & 0x01) !== 0 ? 4 : 0);
  for (;;) {
    if (i + 4 > b.length) return false;
    const size = u32(i) & 0x7fffffff;
    const endMark = u32(i) === 0;
    i += 4;
    if (endMark) break;
    if (size > maxBlock || i + size + checksum > b.length) return false;
    i += size + checksum;
  }
  return i + ((flg & 0x04) !== 0 ? 4 : 0) <= b.length;
}

async function run(input: Uint8Array, compression: WalCompression, max: number): Promise<Uint8Array> {
  switch (compression) {
    case 'gzip':
      return gunzipSync(input, { maxOutputLength: max });
    case 'zstd':
      return zstdDecompressSync(input, { maxOutputLength: max });
    case 'bzip2':
      return bzip2(input, max);
    case 'xz':
      return xz(input, max);
    case 'snappy':
      return snappyFramed(input, max);
    case 'lz4': {
      if (!lz4FrameWellFormed(input)) throw new Error('malformed lz4 frame');
      const out = lz4Frame(input, max + 1);
      if (out.length > max) throw new TooLarge();
      return out;
    }
  }
}

/** Decompresses `input` to at most `maxOutput` bytes. */
export async function decompress(input: Uint8Array, compression: WalCompression, maxOutput: number): Promise<DecompressResult> {
  try {
    return { ok: true, bytes: await run(input, compression, maxOutput) };
  } catch (e) {
    // zlib reports an exceeded maxOutputLength as ERR_BUFFER_TOO_LARGE.
    const tooLarge = e instanceof TooLarge || (e as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE';
    return { ok: false, reason: tooLarge ? 'decompressed-too-large' : 'decompression-failed' };
  }
}
