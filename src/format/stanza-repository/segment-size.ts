/**
 * The WAL segment size of a pgBackRest archive, inferred from its backups. pgBackRest records it
 * nowhere — not in archive.info, backup.info or a manifest (research pgbackrest-format.md §4;
 * `verify` reads it from a WAL file's header) — but every backup records a pair that fixes it:
 * `backup-archive-start` is what PostgreSQL's `pg_walfile_name(backup-lsn-start)` returned
 * (pgBackRest `src/db/db.c` `dbBackupStartQuery`). That function names the segment holding the
 * byte just before the LSN (`XLByteToPrevSeg`): segno = (lsn − 1) / size, the name's log part is
 * segno / (2³² / size) and its segment part segno mod (2³² / size). A start LSN is a checkpoint's
 * redo point and never sits on a segment boundary, so this is also the segment holding the LSN.
 *
 * Each backup admits the sizes among 1 MiB … 1 GiB (powers of two, PostgreSQL's range) for which
 * its pair holds; the archive's size is the one every informative backup admits. Neither
 * timelines nor archive ids enter: the size is a property of the cluster's initdb, and a
 * stanza-upgrade to a new cluster may change it, so callers infer per archive id (or per
 * `db-id`) when the history has more than one entry.
 */
import { MAX_SEGMENT_SIZE, MIN_SEGMENT_SIZE, segmentsPerLog, splitWalName } from '../../postgres/wal.ts';

/** Every valid PostgreSQL segment size, ascending. */
export const SEGMENT_SIZES: readonly number[] = (() => {
  const sizes: number[] = [];
  for (let s = MIN_SEGMENT_SIZE; s <= MAX_SEGMENT_SIZE; s *= 2) sizes.push(s);
  return sizes;
})();

/** One backup's pair: its `backup-archive-start` and `backup-lsn-start`. */
export interface SegmentSizeEvidence {
  readonly archiveStart: string | null;
  readonly lsnStart: bigint | null;
}

/**
 * The sizes under which `pg_walfile_name(lsn)` is `walName` (timeline ignored), ascending;
 * null when the pair says nothing (a value missing, an invalid name, or LSN 0).
 */
export function sizesFitting(walName: string | null, lsn: bigint | null): readonly number[] | null {
  if (walName === null || lsn === null || lsn <= 0n) return null;
  const name = splitWalName(walName);
  if (name === null) return null;
  const fits: number[] = [];
  for (const size of SEGMENT_SIZES) {
    const perLog = BigInt(segmentsPerLog(size));
    const segno = (lsn - 1n) / BigInt(size);
    if (segno / perLog === BigInt(name.log) && segno % perLog === BigInt(name.segment)) fits.push(size);
  }
  return fits;
}

export type SegmentSizeInference =
  | { readonly kind: 'known'; readonly segmentSize: number }
  /** No backup has a usable pair, or several sizes fit every pair (`candidates`, ascending). */
  | { readonly kind: 'unknown'; readonly candidates: readonly number[] }
  /** Pairs that no single size satisfies: some backup's metadata is wrong. */
  | { readonly kind: 'conflict' };

/** The one segment size every informative backup admits. */
export function inferSegmentSize(backups: Iterable<SegmentSizeEvidence>): SegmentSizeInference {
  let candidates: Set<number> | null = null;
  for (const b of backups) {
    const fits = sizesFitting(b.archiveStart, b.lsnStart);
    if (fits === null) continue;
    candidates = new Set(candidates === null ? fits : fits.filter((s) => candidates?.has(s) === true));
    if (candidates.size === 0) return { kind: 'conflict' };
  }
  if (candidates === null) return { kind: 'unknown', candidates: [] };
  const [only] = candidates;
  if (candidates.size === 1 && only !== undefined) return { kind: 'known', segmentSize: only };
  return { kind: 'unknown', candidates: [...candidates].sort((a, b) => a - b) };
}
