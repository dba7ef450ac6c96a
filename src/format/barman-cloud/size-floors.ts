/**
 * The smallest size a valid object of each kind Barman's cloud tools write can have. A listed
 * object below its floor is not that object, whatever its name says: a 1-byte `…0005` is not a
 * 16 MiB WAL segment, an empty `data.tar` is not an archive. Each floor is derived from the
 * structure of the format, so no valid object is ever below it (docs/design/evidence.md §Sizes
 * has the derivations and the measurements that check them).
 */
import type { ArchiveCompression, WalCompression } from './classify.ts';

/**
 * The smallest stream of each compression that holds at least one byte of content:
 * - gzip: 10-byte header, a non-empty deflate stream (at least 3 bytes), 8-byte trailer (RFC 1952).
 * - bzip2: larger than the 14-byte empty stream (`BZh9` + end-of-stream marker and CRC).
 * - xz: larger than the 32-byte empty stream (12-byte header, 8-byte index, 12-byte footer).
 * - snappy (framing format, as python-snappy writes it): 10-byte stream identifier, then a chunk of
 *   a 4-byte header, a 4-byte masked CRC and at least one byte.
 * - zstd: 4-byte magic, 1-byte frame header descriptor, 1-byte window descriptor or content size,
 *   a 3-byte block header and at least one byte (an RLE block).
 * - lz4 (frame format): 4-byte magic, 3-byte descriptor, a 4-byte block size, at least one byte,
 *   and the 4-byte end mark.
 */
export const MIN_STREAM_WITH_CONTENT: Record<WalCompression, number> = { gzip: 21, bzip2: 15, xz: 33, snappy: 19, zstd: 10, lz4: 16 };

/** Deflate spends at least two bits on a 258-byte match: no gzip stream shrinks data more than 1032:1. */
const DEFLATE_MAX_RATIO = 1032;
const GZIP_FRAMING = 18;

/** A tar holding one member: a 512-byte header and the 1024-byte end-of-archive marker (POSIX ustar). */
export const MIN_TAR_BYTES = 1536;

/**
 * The smallest object a WAL segment of `segmentSize` bytes can be stored as: the segment itself
 * when uncompressed (PostgreSQL archives whole segments only), else the smallest compressed stream
 * (for gzip, the bound of deflate's best ratio).
 */
export function minimumSegmentBytes(compression: WalCompression | null, segmentSize: number): number {
  if (compression === null) return segmentSize;
  if (compression === 'gzip') return Math.max(MIN_STREAM_WITH_CONTENT.gzip, GZIP_FRAMING + Math.ceil(segmentSize / DEFLATE_MAX_RATIO));
  return MIN_STREAM_WITH_CONTENT[compression];
}

/** An uncompressed WAL segment has exactly the segment size; a compressed one at least its floor. */
export function segmentSizePlausible(size: number, compression: WalCompression | null, segmentSize: number): boolean {
  return compression === null ? size === segmentSize : size >= minimumSegmentBytes(compression, segmentSize);
}

/** The smallest object a base-backup archive (`data.tar`, `<oid>.tar`, a `_NNNN` part) can be. */
export function minimumArchiveBytes(compression: ArchiveCompression): number {
  if (compression === 'none') return MIN_TAR_BYTES;
  return compression === 'gzip' ? Math.max(MIN_STREAM_WITH_CONTENT.gzip, GZIP_FRAMING + Math.ceil(MIN_TAR_BYTES / DEFLATE_MAX_RATIO)) : MIN_STREAM_WITH_CONTENT[compression];
}
