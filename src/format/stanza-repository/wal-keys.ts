/**
 * Classifies every object key under a stanza's WAL area (`archive/<stanza>/`, given relative to
 * it) into what pgBackRest's archive-push and stanza commands write there, from the key alone.
 * Anything that does not match exactly is `unknown`: counted, never trusted, never turned into
 * an identifier. The segment's SHA-1 suffix is checked for shape and dropped here: no caller
 * receives it, nor any other text of the key beyond validated fields.
 *
 * Layout (research pgbackrest-format.md §1, §4; pgBackRest `src/storage/helper.c`
 * `storageRepoPathExpression`, `src/command/archive/common.h`, `src/info/infoArchive.h`,
 * `src/common/compress/helper.c`):
 *   archive.info, archive.info.copy
 *   <archive id>/<TTTTTTTT>.history                                   (never compressed)
 *   <archive id>/<TTTTTTTTLLLLLLLL>/<segment>-<sha1>[.<ext>]
 *   <archive id>/<TTTTTTTTLLLLLLLL>/<segment>.partial-<sha1>[.<ext>]
 *   <archive id>/<TTTTTTTTLLLLLLLL>/<segment>.<8 hex offset>.backup   (never compressed)
 * where <archive id> is `<dotted PostgreSQL version>-<history id>` (`15-1`, `9.6-2`), <ext> one of
 * gz, bz2, lz4, zst, xz, and every file named by 24 hex digits sits in the directory named by its
 * first 16. Hex is uppercase in WAL names (PostgreSQL writes it so) and lowercase in the SHA-1
 * (pgBackRest's hex encoder).
 */
import { splitWalName, upperHex8 } from '../../postgres/wal.ts';

/** pgBackRest's compression types by file extension (`compressHelperLocal`); `xz` is read-only there. */
export const WAL_COMPRESSIONS = ['gz', 'bz2', 'lz4', 'zst', 'xz'] as const;
export type WalCompression = (typeof WAL_COMPRESSIONS)[number];

export type WalKey =
  | { readonly kind: 'archive-info'; readonly copy: boolean }
  | { readonly kind: 'segment'; readonly archiveId: string; readonly walName: string; readonly compression: WalCompression | null }
  | { readonly kind: 'partial'; readonly archiveId: string; readonly walName: string; readonly compression: WalCompression | null }
  | { readonly kind: 'backup-history'; readonly archiveId: string; readonly walName: string; readonly offset: number }
  | { readonly kind: 'history'; readonly archiveId: string; readonly timeline: number }
  | { readonly kind: 'unknown' };

const UNKNOWN: WalKey = { kind: 'unknown' };

/**
 * pgBackRest's `REGEX_ARCHIVE_DIR_DB_VERSION` (`^[0-9]+(\.[0-9]+)*-[0-9]+$`), bounded: a
 * version of at most three short parts, a history id of at most nine digits.
 */
const ARCHIVE_ID = /^[0-9]{1,4}(?:\.[0-9]{1,4}){0,2}-[0-9]{1,9}$/;
const HISTORY_FILE = /^([0-9A-F]{8})\.history$/;
const SHA1 = /^[0-9a-f]{40}$/;
const EXTENSIONS = new Map<string, WalCompression | null>([['', null], ...WAL_COMPRESSIONS.map((c) => [`.${c}`, c] as const)]);

export function isArchiveId(text: string): boolean {
  return ARCHIVE_ID.test(text);
}

/** The version and history id of an archive id, or null. */
export function splitArchiveId(text: string): { readonly version: string; readonly historyId: number } | null {
  if (!ARCHIVE_ID.test(text)) return null;
  const dash = text.lastIndexOf('-');
  return { version: text.slice(0, dash), historyId: Number(text.slice(dash + 1)) };
}

/** True when `s` from `from` is 40 lowercase hex digits (checked by hand: once per segment listed). */
function lowerHex40(s: string, from: number): boolean {
  for (let i = from; i < from + 40; i++) {
    const c = s.charCodeAt(i);
    if (!((c >= 48 && c <= 57) || (c >= 97 && c <= 102))) return false;
  }
  return true;
}

/** A file inside `<archive id>/<16 hex>/`: `dir` is the directory, `file` the name. */
function classifySegmentDirFile(archiveId: string, dir: string, file: string): WalKey {
  const walName = file.slice(0, 24);
  const s = splitWalName(walName);
  // The directory is the first 16 characters of the name, or the file is not pgBackRest's.
  if (s === null || s.timeline === 0 || !file.startsWith(dir)) return UNKNOWN;
  const rest = file.slice(24);
  if (rest.startsWith('-')) {
    if (rest.length < 41 || !lowerHex40(rest, 1)) return UNKNOWN;
    const compression = EXTENSIONS.get(rest.slice(41));
    return compression === undefined ? UNKNOWN : { kind: 'segment', archiveId, walName, compression };
  }
  if (rest.startsWith('.partial-')) {
    const sha = rest.slice(9, 49);
    if (!SHA1.test(sha)) return UNKNOWN;
    const compression = EXTENSIONS.get(rest.slice(49));
    return compression === undefined ? UNKNOWN : { kind: 'partial', archiveId, walName, compression };
  }
  // `.<8 hex>.backup`: PostgreSQL's backup history file, stored as it is.
  if (rest.length === 16 && rest.startsWith('.') && rest.endsWith('.backup')) {
    const offset = upperHex8(rest, 1);
    return offset < 0 ? UNKNOWN : { kind: 'backup-history', archiveId, walName, offset };
  }
  return UNKNOWN;
}

/** Classifies `key`, given relative to `archive/<stanza>/`. */
export function classifyWalKey(key: string): WalKey {
  if (key === 'archive.info') return { kind: 'archive-info', copy: false };
  if (key === 'archive.info.copy') return { kind: 'archive-info', copy: true };
  const first = key.indexOf('/');
  if (first <= 0) return UNKNOWN;
  const archiveId = key.slice(0, first);
  if (!ARCHIVE_ID.test(archiveId)) return UNKNOWN;
  const rest = key.slice(first + 1);
  const second = rest.indexOf('/');
  if (second === -1) {
    const h = HISTORY_FILE.exec(rest);
    if (h === null) return UNKNOWN;
    const timeline = Number.parseInt(h[1] ?? '', 16);
    return timeline === 0 ? UNKNOWN : { kind: 'history', archiveId, timeline };
  }
  if (second !== 16) return UNKNOWN;
  const dir = rest.slice(0, 16);
  if (upperHex8(dir, 0) < 0 || upperHex8(dir, 8) < 0) return UNKNOWN;
  const file = rest.slice(17);
  if (file.includes('/')) return UNKNOWN;
  return classifySegmentDirFile(archiveId, dir, file);
}
