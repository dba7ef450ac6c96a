/**
 * Classifies every object key under a barman-cloud server prefix (`<prefix>/<server>/`) into what
 * Barman's cloud tools write there, from the key alone. Anything that does not match exactly is
 * `unknown`: counted, never trusted, and never turned into an identifier. The key text itself
 * never leaves this module; callers get typed, validated fields.
 *
 * Layout (research: barman-cloud-format.md §1.2, §1.5):
 *   base/<backup_id>/backup.info
 *   base/<backup_id>/{data|<tablespace oid>}[_NNNN].tar[.gz|.bz2|.snappy|.lz4|.zst]   (.lz4, .zst: barman-cloud-backup --lz4, --zstd)
 *   base/<backup_id>/annotations/keep
 *   base/<backup_id>/backup_label                       (snapshot backups)
 *   wals/<TTTTTTTTLLLLLLLL>/<segment>[.partial|.<offset>.backup][.gz|.bz2|.xz|.snappy|.zst|.lz4]
 *   wals/<TTTTTTTT>.history[.gz|.bz2|.xz|.snappy|.zst|.lz4]
 *
 * Hex digits must be uppercase: PostgreSQL writes them so and Barman's `hash_dir` uppercases
 * the directory, so a lowercase name is not something the tools produce.
 */
import { BACKUP_ID_PATTERN } from '../../contract/values.ts';
import { upperHex8 } from '../../postgres/wal.ts';

export const WAL_COMPRESSIONS = ['gzip', 'bzip2', 'xz', 'snappy', 'zstd', 'lz4'] as const;
export type WalCompression = (typeof WAL_COMPRESSIONS)[number];
export type ArchiveCompression = 'none' | 'gzip' | 'bzip2' | 'snappy' | 'lz4' | 'zstd';

const WAL_SUFFIX: Record<string, WalCompression> = { gz: 'gzip', bz2: 'bzip2', xz: 'xz', snappy: 'snappy', zst: 'zstd', lz4: 'lz4' };
// The extensions CloudBackupCatalog.get_backup_files recognises (Barman 3.20): tar, tar.gz, tar.bz2, tar.snappy, tar.lz4, tar.zst.
const ARCHIVE_SUFFIX: Record<string, ArchiveCompression> = { '': 'none', '.gz': 'gzip', '.bz2': 'bzip2', '.snappy': 'snappy', '.lz4': 'lz4', '.zst': 'zstd' };

export type ClassifiedKey =
  | { readonly kind: 'backup-info'; readonly backupId: string }
  | {
      readonly kind: 'backup-archive';
      readonly backupId: string;
      /** `null` for the PGDATA archive (`data`), else the tablespace OID. */
      readonly tablespaceOid: number | null;
      /** 0 for the first archive of a name, N for `_NNNN`. */
      readonly chunk: number;
      readonly compression: ArchiveCompression;
    }
  | { readonly kind: 'backup-keep'; readonly backupId: string }
  | { readonly kind: 'backup-label'; readonly backupId: string }
  /** Something inside a valid backup directory that Barman does not write. */
  | { readonly kind: 'backup-other'; readonly backupId: string }
  | { readonly kind: 'wal-segment'; readonly walName: string; readonly compression: WalCompression | null }
  | { readonly kind: 'wal-partial'; readonly walName: string; readonly compression: WalCompression | null }
  | { readonly kind: 'wal-backup-history'; readonly walName: string; readonly offset: number; readonly compression: WalCompression | null }
  | { readonly kind: 'wal-history'; readonly timeline: number; readonly compression: WalCompression | null }
  | { readonly kind: 'unknown' };

const UNKNOWN: ClassifiedKey = { kind: 'unknown' };
const BACKUP_ID = new RegExp(BACKUP_ID_PATTERN);
// Chunks are written as `_%04d` from 1 up: `_0001`…`_9999`, then `_10000`… without padding.
const ARCHIVE = /^(data|[1-9][0-9]{0,9})(?:_((?!0000)[0-9]{4}|[1-9][0-9]{4,8}))?\.tar(\.gz|\.bz2|\.snappy|\.lz4|\.zst)?$/;
const WAL_FILE = /^([0-9A-F]{24})(\.partial|\.([0-9A-F]{8})\.backup)?(?:\.(gz|bz2|xz|snappy|zst|lz4))?$/;
const HISTORY_FILE = /^([0-9A-F]{8})\.history(?:\.(gz|bz2|xz|snappy|zst|lz4))?$/;
const HASH_DIR = /^[0-9A-F]{16}$/;

function classifyBackupKey(rest: string): ClassifiedKey {
  const slash = rest.indexOf('/');
  if (slash <= 0) return UNKNOWN;
  const backupId = rest.slice(0, slash);
  if (!BACKUP_ID.test(backupId)) return UNKNOWN;
  const file = rest.slice(slash + 1);
  if (file === 'backup.info') return { kind: 'backup-info', backupId };
  if (file === 'annotations/keep') return { kind: 'backup-keep', backupId };
  if (file === 'backup_label') return { kind: 'backup-label', backupId };
  const m = ARCHIVE.exec(file);
  if (m === null) return { kind: 'backup-other', backupId };
  const [, base = '', chunk, suffix = ''] = m;
  return {
    kind: 'backup-archive',
    backupId,
    tablespaceOid: base === 'data' ? null : Number(base),
    chunk: chunk === undefined ? 0 : Number(chunk),
    compression: ARCHIVE_SUFFIX[suffix] ?? 'none',
  };
}

/** Compressed or bare full-segment suffixes: the key shape of nearly every object in an archive. */
const SEGMENT_SUFFIX = new Map<string, WalCompression | null>([['', null], ...Object.entries(WAL_SUFFIX).map(([ext, c]) => [`.${ext}`, c] as const)]);

function classifyWalKey(rest: string): ClassifiedKey {
  const slash = rest.indexOf('/');
  if (slash === -1) {
    const h = HISTORY_FILE.exec(rest);
    if (h === null) return UNKNOWN;
    const timeline = Number.parseInt(h[1] ?? '', 16);
    return timeline === 0 ? UNKNOWN : { kind: 'wal-history', timeline, compression: h[2] === undefined ? null : (WAL_SUFFIX[h[2]] ?? null) };
  }
  // Fast path, once per listed segment: `<16 hex>/<the same 16 hex><8 hex>[.<compression>]`,
  // checked by hand; anything else (partials, backup history, strangers) takes the regexes below.
  if (slash === 16 && rest.startsWith(rest.slice(0, 16), 17) && upperHex8(rest, 0) > 0 && upperHex8(rest, 8) >= 0 && upperHex8(rest, 33) >= 0) {
    const compression = SEGMENT_SUFFIX.get(rest.slice(41));
    if (compression !== undefined) return { kind: 'wal-segment', walName: rest.slice(17, 41), compression };
  }
  const dir = rest.slice(0, slash);
  const file = rest.slice(slash + 1);
  const m = WAL_FILE.exec(file);
  if (!HASH_DIR.test(dir) || m === null) return UNKNOWN;
  const [, walName = '', variant, offset, ext] = m;
  // barman-cloud stores a segment under the directory named by its timeline and log; elsewhere it is not theirs.
  if (!walName.startsWith(dir) || walName.startsWith('00000000')) return UNKNOWN;
  const compression = ext === undefined ? null : (WAL_SUFFIX[ext] ?? null);
  if (variant === undefined) return { kind: 'wal-segment', walName, compression };
  if (variant === '.partial') return { kind: 'wal-partial', walName, compression };
  return { kind: 'wal-backup-history', walName, offset: Number.parseInt(offset ?? '', 16), compression };
}

/** Classifies `key`, given relative to the server prefix (`<prefix>/<server>/` already removed). */
export function classifyKey(key: string): ClassifiedKey {
  if (key.startsWith('base/')) return classifyBackupKey(key.slice('base/'.length));
  if (key.startsWith('wals/')) return classifyWalKey(key.slice('wals/'.length));
  return UNKNOWN;
}
