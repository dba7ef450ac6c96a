/**
 * The deterministic sort order of every wire array (common wire rule 5, "Collection page"):
 * backups by `backup_id` then `server`; WAL ranges and gaps by `server`, `timeline`,
 * `start_position`; recovery paths by `backup_id` then `target_timeline`. Where the spec's key can
 * tie (several servers in standalone mode) `server` breaks the tie, so the order stays total.
 * Strings compare by code unit, which for the ASCII-only wire strings is byte order.
 */
import type { BackupItem, RecoveryPathItem, WalGapItem, WalRangeItem } from './collections.ts';

type Key = string | number;

function compareKeys(a: readonly Key[], b: readonly Key[]): number {
  for (let i = 0; i < a.length; i++) {
    const x = a[i] as Key;
    const y = b[i] as Key;
    if (x < y) return -1;
    if (x > y) return 1;
  }
  return 0;
}

const backupKey = (i: BackupItem): Key[] => [i.backup_id, i.server];
const walKey = (i: WalRangeItem | WalGapItem): Key[] => [i.server, i.timeline, i.start_position];
const pathKey = (i: RecoveryPathItem): Key[] => [i.backup_id, i.target_timeline, i.server];

export const compareBackups = (a: BackupItem, b: BackupItem) => compareKeys(backupKey(a), backupKey(b));
export const compareWalRuns = (a: WalRangeItem | WalGapItem, b: WalRangeItem | WalGapItem) =>
  compareKeys(walKey(a), walKey(b));
export const compareRecoveryPaths = (a: RecoveryPathItem, b: RecoveryPathItem) =>
  compareKeys(pathKey(a), pathKey(b));

/** Index of the first item that is not strictly after its predecessor, or -1 when sorted and unique. */
export function firstOutOfOrder<T>(items: readonly T[], compare: (a: T, b: T) => number): number {
  for (let i = 1; i < items.length; i++) {
    if (compare(items[i - 1] as T, items[i] as T) >= 0) return i;
  }
  return -1;
}
