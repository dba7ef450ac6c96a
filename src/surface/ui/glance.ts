/**
 * The facts a page (and `viewer scan --output text`) states at a glance, as pure functions over
 * the wire items and the scan's operator-only facts, no HTML:
 * - `displayNameOf`: what a repository is called when the operator gave it no name: its bucket
 *   or container and prefix, never an account, endpoint or credential;
 * - `observedWindow`: the observed recovery window on the newest timeline, with the definition of
 *   `viewer_recovery_coverage_start_timestamp_seconds` (metrics/openmetrics.ts): among the paths to
 *   the newest target timeline that stop at the frontier from a structurally usable backup, from
 *   the earliest `lower_bound_at` (that backup's end, its consistency point, a metadata time) to
 *   the frontier's receipt time (the store's clock), never a transaction time;
 * - `copiedReceipts`: receipt times that are a bulk copy's, not archiving's: a backup whose own
 *   end time (backup.info) is more than `COPY_AFTER_MS` before the earliest receipt of any object
 *   of its server was necessarily received that long after it ended, which archiving never does
 *   (Barman and pgBackRest upload while the backup runs and its metadata as it ends);
 * - `bytesText`: byte counts in binary units, the exact count kept beside them;
 * - `recordedErrorText`: a failed backup's recorded error text, bounded and sanitised (control
 *   characters dropped, white space collapsed, at most `ERROR_TEXT_MAX` characters); the pages
 *   escape it like every value.
 */
import type { BackupItem, RecoveryPathItem } from '../../contract/collections.ts';
import type { Provider } from '../../contract/primitives.ts';

/** What each neutral provider identifier is. */
export const PROVIDER_NAMES: Readonly<Record<Provider, string>> = { 'store-a': 'S3', 'store-b': 'Azure Blob Storage', 'store-c': 'Google Cloud Storage' };

/** A repository's default display name: `bucket/prefix` (the container for Azure) and the provider, e.g. `backups/pg (S3)`. */
export function displayNameOf(d: { readonly provider: Provider; readonly bucket: string; readonly prefix: string }): string {
  const prefix = d.prefix.replace(/^\/+|\/+$/g, '');
  return `${d.bucket}${prefix === '' ? '' : `/${prefix}`} (${PROVIDER_NAMES[d.provider]})`;
}

const UNITS = ['KiB', 'MiB', 'GiB', 'TiB', 'PiB'] as const;

/** `512 B`, `1.5 KiB`, `23.4 MiB`, `1.02 GiB` (three significant digits), and the exact count with separators. */
export function bytesText(n: number): { readonly text: string; readonly exact: string } {
  const exact = `${n.toLocaleString('en-US')} bytes`;
  if (n < 1024) return { text: `${n} B`, exact };
  let v = n;
  let i = -1;
  while (v >= 1024 && i < UNITS.length - 1) {
    v /= 1024;
    i += 1;
  }
  const digits = v >= 100 ? 0 : v >= 10 ? 1 : 2;
  // Rounding never shows a value above the count (1023.99 KiB is not "1024 KiB").
  const shown = Math.floor(v * 10 ** digits) / 10 ** digits;
  return { text: `${shown.toFixed(digits)} ${UNITS[i] ?? 'PiB'}`, exact };
}

/** The most of a recorded error text a page shows. */
export const ERROR_TEXT_MAX = 300;

/** C0 and C1 controls, DEL, and the bidirectional overrides and isolates that reorder what follows. */
function droppedChar(c: string): boolean {
  const n = c.codePointAt(0) ?? 0;
  return n < 0x20 || (n >= 0x7f && n <= 0x9f) || (n >= 0x202a && n <= 0x202e) || (n >= 0x2066 && n <= 0x2069);
}

/** A recorded error as a page may show it: printable, one line, bounded; null when there is none. */
export function recordedErrorText(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  // C0 and C1 controls and DEL dropped (line breaks become spaces first), bidirectional overrides too.
  const printable = [...value.replace(/[\r\n\t]+/g, ' ')].filter((c) => !droppedChar(c)).join('');
  const text = printable.replace(/\s+/g, ' ').trim();
  if (text === '') return null;
  const chars = [...text];
  return chars.length <= ERROR_TEXT_MAX ? text : `${chars.slice(0, ERROR_TEXT_MAX - 1).join('')}…`;
}

/** The observed recovery window on the newest timeline; null when no usable backup's path reaches its frontier. */
export interface ObservedWindow {
  readonly timeline: number;
  /** The earliest consistency point (backup end, RFC 3339) of a usable backup whose path reaches the frontier. */
  readonly from: string;
  readonly fromBackup: string;
  /** The newest WAL's receipt time on that timeline (store clock); null when the store gave none. */
  readonly to: string | null;
  readonly toWal: string | null;
}

const usable = (s: string) => s === 'healthy' || s === 'warning';

export function observedWindow(backups: readonly BackupItem[], paths: readonly RecoveryPathItem[]): ObservedWindow | null {
  if (paths.length === 0) return null;
  const timeline = paths.reduce((m, p) => Math.max(m, p.target_timeline), 0);
  const ok = new Set(backups.filter((b) => usable(b.state)).map((b) => b.backup_id));
  const reaching = paths.filter((p) => p.target_timeline === timeline && p.stop === 'frontier' && ok.has(p.backup_id) && p.lower_bound_at !== null);
  let first: RecoveryPathItem | null = null;
  for (const p of reaching) if (first === null || Date.parse(p.lower_bound_at ?? '') < Date.parse(first.lower_bound_at ?? '')) first = p;
  if (first === null || first.lower_bound_at === null) return null;
  const receipts = reaching.flatMap((p) => (p.frontier_receipt_at === null ? [] : [p.frontier_receipt_at]));
  const to = receipts.reduce<string | null>((m, t) => (m === null || Date.parse(t) > Date.parse(m) ? t : m), null);
  return { timeline, from: first.lower_bound_at, fromBackup: first.backup_id, to, toWal: first.frontier_wal };
}

/** A backup ended this long before its server's first object was received: a copy, not archiving. */
export const COPY_AFTER_MS = 24 * 3_600_000;
/** Every object received within this span of each other reads as one bulk copy. */
export const ONE_BATCH_MS = 60_000;

export interface CopiedReceipts {
  /** The earliest and newest receipt of any object of the server (RFC 3339, store clock). */
  readonly earliest: string;
  readonly latest: string | null;
  /** The backups that ended over `COPY_AFTER_MS` before the earliest receipt, oldest first, and how long before. */
  readonly backups: readonly { readonly id: string; readonly endedBeforeMs: number }[];
  /** Every object was received within `ONE_BATCH_MS` of each other: the whole server arrived as one batch. */
  readonly oneBatch: boolean;
}

/** Receipt times that look like a bulk copy's; null when nothing says so (or the receipts are unknown). */
export function copiedReceipts(backups: readonly BackupItem[], receipts: { readonly earliest: string | null; readonly latest: string | null } | null): CopiedReceipts | null {
  if (receipts?.earliest == null) return null;
  const earliest = Date.parse(receipts.earliest);
  const copied = backups
    .flatMap((b) => (b.end_at === null ? [] : [{ id: b.backup_id, endedBeforeMs: earliest - Date.parse(b.end_at) }]))
    .filter((b) => b.endedBeforeMs > COPY_AFTER_MS)
    .sort((a, b) => b.endedBeforeMs - a.endedBeforeMs || (a.id < b.id ? -1 : 1));
  if (copied.length === 0) return null;
  const oneBatch = receipts.latest !== null && Date.parse(receipts.latest) - earliest <= ONE_BATCH_MS;
  return { earliest: receipts.earliest, latest: receipts.latest, backups: copied, oneBatch };
}
