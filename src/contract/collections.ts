/**
 * The four collection wire kinds (`ArchiveBackupPage`, `ArchiveWALRangePage`, `ArchiveWALGapPage`,
 * `ArchiveRecoveryPathPage`) and their item types, with the allowlists the spec leaves to us
 * (backup status, backup type, compression, encryption: each format's values, D-07 and D-72, the
 * wire allowing their union; gap status, recovery stops, assumption codes). Item sort orders are stated in `ITEM_ORDER` and checked by `invariants.ts`.
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import {
  API_VERSION,
  BackupId,
  Cursor,
  Lsn,
  Nullable,
  PAGE_LIMITS,
  Reason,
  ServerName,
  State,
  SystemId,
  TimelineId,
  Timestamp,
  Uint,
  WalName,
} from './primitives.ts';

const literals = <T extends string>(values: readonly T[]) => Type.Union(values.map((v) => Type.Literal(v)));

/** Barman's own `backup.info` status values, exported verbatim (D-07). */
export const BACKUP_STATUSES = ['DONE', 'EMPTY', 'FAILED', 'STARTED', 'SYNCING', 'WAITING_FOR_WALS'] as const;
/**
 * A pgBackRest backup's status, which its repository does not record (D-72): `DONE` when listed in
 * backup.info's `[backup:current]`, `INTERRUPTED` for a label directory holding only
 * `backup.manifest.copy`, `UNLISTED` for one holding `backup.manifest` that backup.info does not list.
 */
export const STANZA_BACKUP_STATUSES = ['DONE', 'INTERRUPTED', 'UNLISTED'] as const;
/** Barman's backup types; a direct barman-cloud backup (`mode=None`, no parent) is `full`. */
export const BACKUP_TYPES = ['full', 'incremental', 'rsync', 'snapshot'] as const;
/** pgBackRest's backup types verbatim (`backup-type`): its `incr` is not Barman's `incremental` (D-72). */
export const STANZA_BACKUP_TYPES = ['full', 'diff', 'incr'] as const;
/** Archive compression as classified from the archive object suffixes. */
export const BACKUP_COMPRESSIONS = ['none', 'gzip', 'bzip2', 'snappy', 'lz4', 'zstd'] as const;
/** pgBackRest's `compress-type` values `none`, `gz`, `bz2`, `lz4`, `zst` in the same classification (D-72). */
export const STANZA_BACKUP_COMPRESSIONS = ['none', 'gzip', 'bzip2', 'lz4', 'zstd'] as const;
/** Declared client-side encryption; object-store server-side encryption is invisible, so `null`. */
export const BACKUP_ENCRYPTIONS = ['none', 'gpg'] as const;
/** pgBackRest's repository cipher (`repo-cipher-type`): `none` or `aes-256-cbc` (D-72). */
export const STANZA_BACKUP_ENCRYPTIONS = ['none', 'aes-256-cbc'] as const;

/** Each format's values, once, in order of first appearance: the wire's allowlist. */
const union = <A extends string, B extends string>(a: readonly A[], b: readonly B[]): readonly (A | B)[] => [...new Set<A | B>([...a, ...b])];

export const WIRE_BACKUP_STATUSES = union(BACKUP_STATUSES, STANZA_BACKUP_STATUSES);
export const WIRE_BACKUP_TYPES = union(BACKUP_TYPES, STANZA_BACKUP_TYPES);
export const WIRE_BACKUP_COMPRESSIONS = union(BACKUP_COMPRESSIONS, STANZA_BACKUP_COMPRESSIONS);
export const WIRE_BACKUP_ENCRYPTIONS = union(BACKUP_ENCRYPTIONS, STANZA_BACKUP_ENCRYPTIONS);

export const BackupItem = Type.Object(
  {
    server: ServerName,
    backup_id: BackupId,
    status: Nullable(literals(WIRE_BACKUP_STATUSES)),
    backup_type: Nullable(literals(WIRE_BACKUP_TYPES)),
    state: State,
    reason: Reason,
    system_id: Nullable(SystemId),
    postgresql_version: Nullable(Uint),
    timeline: Nullable(TimelineId),
    wal_segment_size_bytes: Nullable(Uint),
    begin_wal: Nullable(WalName),
    end_wal: Nullable(WalName),
    begin_lsn: Nullable(Lsn),
    end_lsn: Nullable(Lsn),
    begin_at: Nullable(Timestamp),
    end_at: Nullable(Timestamp),
    logical_bytes: Nullable(Uint),
    deduplicated_bytes: Nullable(Uint),
    stored_artifact_bytes: Nullable(Uint),
    compression: Nullable(literals(WIRE_BACKUP_COMPRESSIONS)),
    encryption: Nullable(literals(WIRE_BACKUP_ENCRYPTIONS)),
    artifact_count: Nullable(Uint),
    tablespace_count: Nullable(Uint),
  },
  {
    additionalProperties: false,
    // An unknown backup type is null and forces the item's state to unknown.
    if: { type: 'object', properties: { backup_type: { type: 'null' } }, required: ['backup_type'] },
    then: { type: 'object', properties: { state: { const: 'unknown' } } },
  },
);
export type BackupItem = Static<typeof BackupItem>;

/**
 * The wire's one completed status, whatever the payload: Barman's `DONE`, and a pgBackRest backup
 * listed in backup.info (D-72). Every other status, and an unknown one (null), is not completed.
 */
export const COMPLETED_STATUS = 'DONE' satisfies (typeof WIRE_BACKUP_STATUSES)[number];

/** Whether a backup item's status is the wire's completed status (`COMPLETED_STATUS`). */
export function isCompleted(b: Pick<BackupItem, 'status'>): boolean {
  return b.status === COMPLETED_STATUS;
}

export const WalRangeItem = Type.Object(
  {
    server: ServerName,
    timeline: TimelineId,
    start_position: Uint,
    end_position: Uint,
    segment_count: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }),
    first_wal: WalName,
    last_wal: WalName,
    latest_receipt_at: Nullable(Timestamp),
    end_receipt_at: Nullable(Timestamp),
  },
  { additionalProperties: false },
);
export type WalRangeItem = Static<typeof WalRangeItem>;

export const GAP_STATUSES = ['candidate', 'confirmed'] as const;
/** Generations that observed a gap are complete generations, so never 0. */
const Generation = Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER });

export const WalGapItem = Type.Object(
  {
    server: ServerName,
    timeline: TimelineId,
    start_position: Uint,
    end_position: Uint,
    segment_count: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }),
    first_wal: WalName,
    last_wal: WalName,
    status: literals(GAP_STATUSES),
    first_observed_generation: Generation,
    last_observed_generation: Generation,
  },
  { additionalProperties: false },
);
export type WalGapItem = Static<typeof WalGapItem>;

export const RECOVERY_STOPS = ['frontier', 'candidate-limited', 'gap-limited', 'unknown-limited'] as const;

/**
 * What an observed recovery path relies on without proof (D-09). Sorted, unique, at most 32.
 * Each is explained in docs/decisions.md.
 */
export const ASSUMPTION_CODES = [
  'backup-end-from-metadata',
  'compressed-content-not-decoded',
  'duplicate-wal-name-not-compared',
  'history-content-trusted',
  'partial-segment-not-used',
  'pre-93-segment-ff-skipped',
  'segment-content-not-verified',
  'segment-size-from-metadata',
] as const;

export const RecoveryPathItem = Type.Object(
  {
    server: ServerName,
    backup_id: BackupId,
    target_timeline: TimelineId,
    state: State,
    reason: Reason,
    stop: literals(RECOVERY_STOPS),
    lower_bound_at: Nullable(Timestamp),
    start_timeline: Nullable(TimelineId),
    start_position: Nullable(Uint),
    start_wal: Nullable(WalName),
    frontier_timeline: Nullable(TimelineId),
    frontier_position: Nullable(Uint),
    frontier_wal: Nullable(WalName),
    frontier_receipt_at: Nullable(Timestamp),
    assumption_codes: Type.Array(literals(ASSUMPTION_CODES), { uniqueItems: true, maxItems: 32 }),
  },
  { additionalProperties: false },
);
export type RecoveryPathItem = Static<typeof RecoveryPathItem>;

const page = <K extends string, T extends TSchema>(kind: K, item: T) =>
  Type.Object(
    {
      api_version: Type.Literal(API_VERSION),
      kind: Type.Literal(kind),
      revision: Uint,
      evidence_generation: Uint,
      total_items: Nullable(Uint),
      items: Type.Array(item, { maxItems: PAGE_LIMITS.maxItems }),
      next_cursor: Nullable(Cursor),
    },
    { additionalProperties: false },
  );

export const ArchiveBackupPage = page('ArchiveBackupPage', BackupItem);
export const ArchiveWALRangePage = page('ArchiveWALRangePage', WalRangeItem);
export const ArchiveWALGapPage = page('ArchiveWALGapPage', WalGapItem);
export const ArchiveRecoveryPathPage = page('ArchiveRecoveryPathPage', RecoveryPathItem);
export type ArchiveBackupPage = Static<typeof ArchiveBackupPage>;
export type ArchiveWALRangePage = Static<typeof ArchiveWALRangePage>;
export type ArchiveWALGapPage = Static<typeof ArchiveWALGapPage>;
export type ArchiveRecoveryPathPage = Static<typeof ArchiveRecoveryPathPage>;
