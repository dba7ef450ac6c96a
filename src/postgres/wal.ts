/**
 * PostgreSQL WAL naming: segment names ⇄ (timeline, position) for every power-of-two segment size
 * from 1 MiB to 1 GiB, LSN parsing and formatting, and the pre-9.3 rule that the last segment of
 * each log file never exists. Pure functions; no storage, no repository format.
 *
 * A *position* is the segment number counted from LSN 0: `lsn / segmentSize`. It is the same on
 * every timeline, so positions order WAL across a timeline switch, and it is what the wire calls
 * `start_position`/`end_position`. A segment *name* is `TTTTTTTTLLLLLLLLSSSSSSSS` (timeline, log,
 * segment within the log), all uppercase hex (PostgreSQL's `XLogFileName`).
 *
 * Sources: PostgreSQL `xlog_internal.h` (`XLogSegmentsPerXLogId`, `XLogFileName`); Barman
 * `barman/xlog.py` (name regex, pre-9.3 skip in `generate_segment_names`).
 */

export const MIN_SEGMENT_SIZE = 1 << 20;
export const MAX_SEGMENT_SIZE = 1 << 30;
/** PostgreSQL's default, and the only size before 11 unless compiled otherwise. */
export const DEFAULT_SEGMENT_SIZE = 16 << 20;
/** First PostgreSQL version (`server_version_num`) that writes the last segment of each log. */
export const VERSION_WITH_SEGMENT_FF = 90300;

const LOG_SPAN = 0x1_0000_0000; // bytes of WAL per log id (2^32)

export function isValidSegmentSize(size: number): boolean {
  return Number.isInteger(size) && size >= MIN_SEGMENT_SIZE && size <= MAX_SEGMENT_SIZE && (size & (size - 1)) === 0;
}

/** Segments per log id (PostgreSQL's `XLogSegmentsPerXLogId`): 256 for 16 MiB, 4 for 1 GiB. */
export function segmentsPerLog(segmentSize: number): number {
  return LOG_SPAN / segmentSize;
}

/** How one archive's WAL is numbered: the segment size and whether segment `…FF` is skipped. */
export interface WalGeometry {
  readonly segmentSize: number;
  /** True for PostgreSQL before 9.3, which never writes the last segment of a log id. */
  readonly skipsLastSegment: boolean;
}

export function geometry(segmentSize: number, serverVersion: number | null = null): WalGeometry {
  if (!isValidSegmentSize(segmentSize)) throw new RangeError('segment size must be a power of two from 1 MiB to 1 GiB');
  return { segmentSize, skipsLastSegment: serverVersion !== null && serverVersion < VERSION_WITH_SEGMENT_FF };
}

const hex8 = (n: number) => n.toString(16).toUpperCase().padStart(8, '0');

export interface SegmentName {
  readonly timeline: number;
  readonly log: number;
  readonly segment: number;
}

/** The value of eight uppercase hex digits of `s` from `from`, or -1 when any is not one. */
export function upperHex8(s: string, from: number): number {
  let n = 0;
  for (let i = from; i < from + 8; i++) {
    const c = s.charCodeAt(i);
    // Uppercase only, as PostgreSQL writes them; NaN from a short string fails both tests.
    if (c >= 48 && c <= 57) n = n * 16 + (c - 48);
    else if (c >= 65 && c <= 70) n = n * 16 + (c - 55);
    else return -1;
  }
  return n;
}

/**
 * The three fields of a 24-hex-digit segment name (uppercase only), without judging the segment
 * number. Hand-parsed rather than by regular expression: it runs once per WAL object listed.
 */
export function splitWalName(name: string): SegmentName | null {
  if (name.length !== 24) return null;
  const timeline = upperHex8(name, 0);
  const log = upperHex8(name, 8);
  const segment = upperHex8(name, 16);
  if (timeline < 0 || log < 0 || segment < 0) return null;
  return { timeline, log, segment };
}

export interface WalPoint {
  readonly timeline: number;
  readonly position: number;
}

/**
 * (timeline, position) of a segment name under `g`, or `null` when the name cannot exist there:
 * timeline 0, a segment number beyond the log, or the skipped last segment of a pre-9.3 log.
 */
export function parseWalName(name: string, g: WalGeometry): WalPoint | null {
  const s = splitWalName(name);
  if (s === null || s.timeline === 0) return null;
  const perLog = segmentsPerLog(g.segmentSize);
  if (s.segment >= perLog || (g.skipsLastSegment && s.segment === perLog - 1)) return null;
  return { timeline: s.timeline, position: s.log * perLog + s.segment };
}

export function walName(timeline: number, position: number, g: WalGeometry): string {
  const perLog = segmentsPerLog(g.segmentSize);
  if (!Number.isSafeInteger(position) || position < 0 || Math.floor(position / perLog) > 0xffffffff) throw new RangeError('position outside the 64-bit WAL space');
  return hex8(timeline) + hex8(Math.floor(position / perLog)) + hex8(position % perLog);
}

/** True when `position` names a segment that can exist under `g`. */
export function positionExists(position: number, g: WalGeometry): boolean {
  return !g.skipsLastSegment || position % segmentsPerLog(g.segmentSize) !== segmentsPerLog(g.segmentSize) - 1;
}

/** The position after `position`, stepping over the skipped pre-9.3 segment. */
export function nextPosition(position: number, g: WalGeometry): number {
  const next = position + 1;
  return positionExists(next, g) ? next : next + 1;
}

/** Number of existing positions in `[from, to]` (inclusive); 0 when `to < from`. */
export function positionsBetween(from: number, to: number, g: WalGeometry): number {
  if (to < from) return 0;
  const span = to - from + 1;
  if (!g.skipsLastSegment) return span;
  const perLog = segmentsPerLog(g.segmentSize);
  // Count positions p in [from, to] with p % perLog === perLog - 1.
  const skippedUpTo = (p: number) => Math.floor((p + 1) / perLog);
  return span - (skippedUpTo(to) - skippedUpTo(from - 1));
}

const LSN = /^([0-9A-Fa-f]{1,8})\/([0-9A-Fa-f]{1,8})$/;

/** A log sequence number as written by PostgreSQL (`%X/%X`, or `%X/%08X` from 19 on). */
export function parseLsn(text: string): bigint | null {
  const m = LSN.exec(text);
  if (m === null) return null;
  return (BigInt(`0x${m[1] ?? '0'}`) << 32n) | BigInt(`0x${m[2] ?? '0'}`);
}

/** `%X/%X`, uppercase: the form viewer emits (D-15). */
export function formatLsn(lsn: bigint): string {
  return `${(lsn >> 32n).toString(16).toUpperCase()}/${(lsn & 0xffff_ffffn).toString(16).toUpperCase()}`;
}

/** The position of the segment holding `lsn`. */
export function positionOfLsn(lsn: bigint, g: WalGeometry): number {
  return Number(lsn / BigInt(g.segmentSize));
}
