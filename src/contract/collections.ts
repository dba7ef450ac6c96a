/**
 * The four collection wire kinds (`ArchiveBackupPage`, `ArchiveWALRangePage`, `ArchiveWALGapPage`,
 * `ArchiveRecoveryPathPage`) and their item types, made with the allowlists the spec leaves to us
 * (backup status, backup type, compression, encryption: each format's values, D-07 and D-72, the
 * wire allowing their union; gap status, recovery stops, assumption codes), which `values.ts` defines. Item sort orders are stated in `ITEM_ORDER` and checked by `invariants.ts`.
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { BackupId, Cursor, Lsn, Nullable, Reason, ServerName, State, SystemId, TimelineId, Timestamp, Uint, WalName } from './primitives.ts';
import { API_VERSION, ASSUMPTION_CODES, GAP_STATUSES, PAGE_LIMITS, RECOVERY_STOPS, WIRE_BACKUP_COMPRESSIONS, WIRE_BACKUP_ENCRYPTIONS, WIRE_BACKUP_STATUSES, WIRE_BACKUP_TYPES } from './values.ts';

const literals = <T extends string>(values: readonly T[]) => Type.Union(values.map((v) => Type.Literal(v)));

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
