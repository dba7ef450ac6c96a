/**
 * The compression codecs every repository format reads with: gzip, bzip2, xz, snappy (python-
 * snappy's framing format), zstd and lz4 (frame format), one entry each, each decoder with its own
 * bounds. Output never exceeds the caller's cap (a decompression bomb is `decompressed-too-large`,
 * not an allocation), nothing is allocated beyond that cap or a fixed per-codec ceiling, and
 * hostile input (truncated, garbage, lying sizes) is `decompression-failed`, never a throw, a hang
 * or a crash. Used on small objects (history files, backup-history files), never on base backups.
 *
 * It sits in `format/` beside the seam rather than in `common/`: it is knowledge of what backup
 * tools write, which only repository formats read; `common/` is plumbing every layer shares, and
 * the consumer library (`client/`, which may import `common/`) must not carry six decoders. It
 * imports nothing of viewer's, so every format folder (and the next one) imports it without
 * reaching into another format's folder; which file suffix means which codec is each format's own
 * key grammar and stays there.
 *
 * Each codec's guard, as measured (D-118):
 * - gzip, zstd: Node's zlib with `maxOutputLength`. zstd refuses windows above 2^27 itself
 *   (`windowLogMax`'s default), and a declared 2^27 window is reserved, not touched: resident
 *   memory does not grow.
 * - bzip2: seek-bzip, byte by byte into a buffer that grows up to the cap; its block buffer is at
 *   most 900 k entries, as the format allows.
 * - xz: xz-decompress (xz-embedded in WebAssembly), streamed and counted; it refuses dictionaries
 *   above 128 MiB itself (XZ_MEMLIMIT_ERROR) and touches a dictionary only as output fills it.
 * - snappy: the framing walked here, each chunk inside the input, at most 65,536 bytes decoded
 *   (snappyjs checks the declared length before allocating), its masked CRC-32C checked.
 * - lz4: lz4js 0.2.0 (no maintained pure-JS or WebAssembly frame decoder fits, D-118) trusts the
 *   frame: it reads past a block's end, ignores checksums and the declared content size, and
 *   allocates whatever size it is handed. So the frame is walked first (below) and only a frame
 *   whose every block lies inside the input reaches it, with a buffer no larger than the cap.
 */
import { createRequire } from 'node:module';
import { gunzipSync, zstdDecompressSync } from 'node:zlib';
import type BunzipLibrary from 'seek-bzip';
import type * as SnappyLibrary from 'snappyjs';
import type * as Lz4Library from 'lz4js';
import type XzLibrary from 'xz-decompress';

/**
 * The decoder libraries, each imported on the first object of its codec: a scan that meets none
 * of them pays for none (about 12 MiB of resident memory and 30 ms of CPU per process together,
 * issue 28). `decompress` loads the codec's library before decoding, outside its error handling,
 * so a library that cannot load is an error of viewer's, never a verdict on the object.
 */
interface Libraries {
  bzip2?: typeof BunzipLibrary;
  snappy?: typeof SnappyLibrary.uncompress;
  lz4?: { readonly frame: typeof Lz4Library.decompress; readonly xxh32: (seed: number, src: Uint8Array, index: number, length: number) => number };
  xz?: typeof XzLibrary;
}
const libraries: Libraries = {};
const once = (load: () => Promise<void>): (() => Promise<void>) => {
  let loading: Promise<void> | undefined;
  return () => (loading ??= load());
};
const LOADERS: Readonly<Partial<Record<Codec, () => Promise<void>>>> = {
  bzip2: once(async () => {
    libraries.bzip2 = (await import('seek-bzip')).default;
  }),
  snappy: once(async () => {
    libraries.snappy = (await import('snappyjs')).uncompress;
  }),
  lz4: once(async () => {
    // lz4js's own xxHash32 (the frame's checksums); shipped beside it, undeclared.
    const xxh32 = (createRequire(import.meta.url)('lz4js/xxh32.js') as { hash: (seed: number, src: Uint8Array, index: number, length: number) => number }).hash;
    libraries.lz4 = { frame: (await import('lz4js')).decompress, xxh32 };
  }),
  xz: once(async () => {
    libraries.xz = (await import('xz-decompress')).default;
  }),
};

/** A codec's library, once `LOADERS` loaded it. */
function library<K extends keyof Libraries>(codec: K): NonNullable<Libraries[K]> {
  const lib = libraries[codec];
  if (lib === undefined) throw new TypeError(`the ${codec} decoder was not loaded`);
  return lib;
}

/** Every codec, by the name the formats' grammars map their suffixes to. */
export const CODECS = ['gzip', 'bzip2', 'xz', 'snappy', 'zstd', 'lz4'] as const;
export type Codec = (typeof CODECS)[number];

export type DecompressResult = { readonly ok: true; readonly bytes: Uint8Array } | { readonly ok: false; readonly reason: 'decompression-failed' | 'decompressed-too-large' };

class TooLarge extends Error {}
class Malformed extends Error {}

/** A codec: how its bytes become at most `max` bytes, or a throw. */
type Decoder = (input: Uint8Array, max: number) => Uint8Array | Promise<Uint8Array>;

/** Bytes written one at a time into a buffer that doubles as needed, never past `max`. */
function byteSink(max: number) {
  let out = new Uint8Array(Math.min(max, 64 * 1024));
  let n = 0;
  return {
    writeByte(byte: number) {
      if (n >= max) throw new TooLarge();
      if (n === out.length) {
        const grown = new Uint8Array(Math.min(max, out.length * 2));
        grown.set(out);
        out = grown;
      }
      out[n++] = byte;
    },
    bytes: () => out.subarray(0, n),
  };
}

function bzip2(input: Uint8Array, max: number): Uint8Array {
  const sink = byteSink(max);
  library('bzip2').decode(input, sink, true);
  return sink.bytes();
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
    if (pos + 4 > input.length) throw new Malformed('truncated chunk header');
    const type = input[pos] ?? 0;
    const length = (input[pos + 1] ?? 0) | ((input[pos + 2] ?? 0) << 8) | ((input[pos + 3] ?? 0) << 16);
    const body = input.subarray(pos + 4, pos + 4 + length);
    if (body.length !== length) throw new Malformed('truncated chunk');
    pos += 4 + length;
    if (type === 0xff) {
      if (new TextDecoder().decode(body) !== 'sNaPpY') throw new Malformed('bad stream identifier');
      sawIdentifier = true;
      continue;
    }
    if (!sawIdentifier) throw new Malformed('missing stream identifier');
    if (type === 0x00 || type === 0x01) {
      if (length < 4) throw new Malformed('chunk without checksum');
      const crc = view.getUint32(pos - length, true);
      // The framing format caps a chunk at 65,536 uncompressed bytes.
      const data = type === 0x00 ? library('snappy')(body.subarray(4), 65_536) : body.subarray(4);
      if (data.length > 65_536) throw new Malformed('chunk too large');
      if (maskedCrc32c(data) !== crc) throw new Malformed('checksum mismatch');
      total += data.length;
      if (total > max) throw new TooLarge();
      parts.push(data);
    } else if (type <= 0x7f) {
      throw new Malformed('unskippable chunk');
    }
  }
  if (!sawIdentifier) throw new Malformed('empty stream');
  return Buffer.concat(parts);
}

async function xz(input: Uint8Array, max: number): Promise<Uint8Array> {
  // A webpack UMD bundle: its named export is only reachable through the CommonJS object.
  const stream = new (library('xz').XzReadableStream)(new Blob([input]).stream());
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
 * version, descriptor and its checksum, then every block inside both the input and the
 * descriptor's maximum block size (and its checksum, when the frame carries them), up to the end
 * mark. Returns how many bytes the frame can decode to at most: its declared content size, else
 * the sum of its blocks' maxima.
 */
function lz4Walk(b: Uint8Array): { readonly bound: number; readonly contentSize: number | null; readonly contentChecksum: number | null } {
  const { xxh32 } = library('lz4');
  const u32 = (i: number) => ((b[i] ?? 0) | ((b[i + 1] ?? 0) << 8) | ((b[i + 2] ?? 0) << 16) | ((b[i + 3] ?? 0) << 24)) >>> 0;
  if (b.length < 7 || u32(0) !== LZ4_MAGIC) throw new Malformed('not an lz4 frame');
  const flg = b[4] ?? 0;
  const maxBlock = LZ4_BLOCK_MAX[((b[5] ?? 0) >> 4) & 7];
  if (flg >> 6 !== 1 || maxBlock === undefined) throw new Malformed('unknown lz4 frame descriptor');
  const hasContentSize = (flg & 0x08) !== 0;
  const descriptorEnd = 6 + (hasContentSize ? 8 : 0) + ((flg & 0x01) !== 0 ? 4 : 0);
  if (descriptorEnd >= b.length || ((xxh32(0, b, 4, descriptorEnd - 4) >>> 8) & 0xff) !== b[descriptorEnd]) throw new Malformed('lz4 descriptor checksum');
  const contentSize = hasContentSize ? u32(6) + u32(10) * 2 ** 32 : null;
  const blockChecksums = (flg & 0x10) !== 0;
  let bound = 0;
  let i = descriptorEnd + 1;
  for (;;) {
    if (i + 4 > b.length) throw new Malformed('truncated lz4 frame');
    const word = u32(i);
    i += 4;
    if (word === 0) break;
    const size = word & 0x7fffffff;
    if (size > maxBlock || i + size + (blockChecksums ? 4 : 0) > b.length) throw new Malformed('lz4 block outside the frame');
    if (blockChecksums && xxh32(0, b, i, size) >>> 0 !== u32(i + size)) throw new Malformed('lz4 block checksum');
    bound += word & 0x80000000 ? size : maxBlock;
    i += size + (blockChecksums ? 4 : 0);
  }
  const contentChecksum = (flg & 0x04) !== 0 ? u32(i) : null;
  if (i + (contentChecksum === null ? 0 : 4) > b.length) throw new Malformed('truncated lz4 frame');
  return { bound: contentSize ?? bound, contentSize, contentChecksum };
}

function lz4(input: Uint8Array, max: number): Uint8Array {
  const frame = lz4Walk(input);
  if (frame.contentSize !== null && frame.contentSize > max) throw new TooLarge();
  // One byte past the cap (or the frame's bound) tells a bomb (or a lying frame) from output of
  // exactly that size; lz4js drops what does not fit.
  const { frame: lz4Frame, xxh32 } = library('lz4');
  const out = lz4Frame(input, Math.min(max, frame.bound) + 1);
  if (out.length > max) throw new TooLarge();
  if (out.length > frame.bound) throw new Malformed('lz4 block larger than its frame allows');
  if (frame.contentSize !== null && out.length !== frame.contentSize) throw new Malformed('lz4 content size');
  if (frame.contentChecksum !== null && xxh32(0, out, 0, out.length) >>> 0 !== frame.contentChecksum) throw new Malformed('lz4 content checksum');
  return out;
}

/** One entry per codec. */
const DECODERS: Readonly<Record<Codec, Decoder>> = {
  gzip: (input, max) => gunzipSync(input, { maxOutputLength: max }),
  zstd: (input, max) => zstdDecompressSync(input, { maxOutputLength: max }),
  bzip2,
  xz,
  snappy: snappyFramed,
  lz4,
};

/** Decompresses `input` to at most `maxOutput` bytes. */
export async function decompress(input: Uint8Array, codec: Codec, maxOutput: number): Promise<DecompressResult> {
  if (!Number.isSafeInteger(maxOutput) || maxOutput < 0) throw new RangeError('maxOutput must be a byte count');
  await LOADERS[codec]?.();
  try {
    return { ok: true, bytes: await DECODERS[codec](input, maxOutput) };
  } catch (e) {
    // zlib reports an exceeded maxOutputLength as ERR_BUFFER_TOO_LARGE.
    const tooLarge = e instanceof TooLarge || (e as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE';
    return { ok: false, reason: tooLarge ? 'decompressed-too-large' : 'decompression-failed' };
  }
}
