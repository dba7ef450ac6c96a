/**
 * The structural state of each backup directory, from what is visible without restoring: the
 * metadata Barman wrote, the data archives present, and the WAL the backup needs to reach
 * consistency (`begin_wal`..`end_wal` on its timeline) present in the archive. The rules run in
 * a fixed order and the first that applies decides; docs/design/evidence.md §Backups lists them
 * with their reason codes. Only validated values reach the wire item.
 */
import type { BackupItem } from '../contract/collections.ts';
import type { Reason, State } from '../contract/primitives.ts';
import type { BackupInfo, BackupInfoResult } from '../format/barman-cloud/backup-info.ts';
import { formatLsn, nextPosition, parseWalName, type WalGeometry } from '../postgres/wal.ts';
import type { BackupDirectory } from './catalog.ts';
import type { WalIndex } from './wal-index.ts';

export type KeepTarget = 'full' | 'standalone' | 'unrecognized' | null;

export interface BackupFacts {
  readonly item: BackupItem;
  /** Proven structurally usable (state healthy or warning). */
  readonly usable: boolean;
  /** Barman recorded the backup as DONE. */
  readonly completed: boolean;
  readonly standalone: boolean;
  readonly timeline: number | null;
  readonly beginPosition: number | null;
  readonly endPosition: number | null;
  readonly endLsn: bigint | null;
  readonly endAt: string | null;
}

export interface BackupContext {
  readonly server: string;
  /** The archive's geometry when it is known and agreed by the metadata; `null` otherwise. */
  readonly geometry: WalGeometry | null;
  readonly index: WalIndex;
}

const REASONS = {
  'backup-info-missing': 'No backup.info: the backup is in progress or was abandoned.',
  'backup-info-malformed': 'backup.info could not be parsed.',
  'backup-info-too-large': 'backup.info is larger than any Barman writes.',
  'backup-info-not-utf8': 'backup.info is not UTF-8 text.',
  'backup-status-unknown': 'backup.info has no recognised status.',
  'backup-failed': 'Barman recorded the backup as failed.',
  'backup-not-completed': 'Barman has not recorded the backup as done.',
  'backup-type-unknown': 'The backup mode is not one Barman writes.',
  'backup-type-unsupported': 'Incremental backups are not validated.',
  'snapshot-not-verifiable': 'Snapshot backups keep their data outside the object store.',
  'backup-info-invalid': 'Required backup.info fields are missing or out of shape.',
  'backup-info-inconsistent': 'backup.info values contradict each other.',
  'segment-size-conflict': 'The backup declares a WAL segment size the archive does not use.',
  'data-archive-missing': 'The PGDATA archive is missing.',
  'tablespace-archive-missing': 'A declared tablespace has no archive.',
  'archive-chunk-missing': 'A numbered archive part is missing.',
  'archive-too-small': 'An archive object is smaller than the smallest valid archive of its kind.',
  'required-wal-missing': 'WAL needed to reach consistency is missing from the archive.',
  'required-wal-candidate-gap': 'WAL needed to reach consistency falls in an unconfirmed gap.',
  'required-wal-not-yet-archived': 'WAL needed to reach consistency has not been archived yet.',
  'wal-geometry-unknown': 'The archive WAL segment size is not known, so required WAL cannot be checked.',
  'unexpected-archive': 'An archive exists for a tablespace the metadata does not declare.',
  'unrecognized-objects': 'The backup directory holds objects Barman does not write.',
  'keep-annotation-unrecognized': 'The keep annotation has content Barman does not write.',
  'structurally-usable': 'Metadata, archives and the WAL needed for consistency are present.',
} as const;
export type BackupReasonCode = keyof typeof REASONS;

const reason = (code: BackupReasonCode): Reason => ({ code, message: REASONS[code] });

interface Verdict {
  readonly state: State;
  readonly code: BackupReasonCode;
}

const walTimeline = (wal: string) => Number.parseInt(wal.slice(0, 8), 16);

/** Fields whose absence or corruption makes a DONE backup unjudgeable. */
const REQUIRED = new Set(['timeline', 'begin_wal', 'end_wal', 'begin_xlog', 'end_xlog', 'begin_time', 'end_time', 'xlog_segment_size', 'version', 'systemid', 'tablespaces']);

/** Whether WAL file `wal` (timeline, log, segment) holds `lsn` for segments of `size` bytes. */
function walHolds(wal: string, lsn: bigint, size: number): boolean {
  const log = Number(lsn >> 32n);
  const segment = Number((lsn & 0xffff_ffffn) / BigInt(size));
  return Number.parseInt(wal.slice(8, 16), 16) === log && Number.parseInt(wal.slice(16, 24), 16) === segment;
}

/**
 * `begin_xlog`/`end_xlog` lie in the files `begin_wal`/`end_wal` name. At an exact segment
 * boundary PostgreSQL names the previous file (pg_walfile_name), so that one is accepted too.
 */
function lsnInWal(wal: string | null, lsn: bigint | null, size: number | null): boolean {
  if (wal === null || lsn === null || size === null || size <= 0) return true;
  return walHolds(wal, lsn, size) || (lsn > 0n && lsn % BigInt(size) === 0n && walHolds(wal, lsn - 1n, size));
}

/** Values that contradict each other are dropped together: the wire never shows a contradiction. */
function consistent(info: BackupInfo): boolean {
  if (info.timeline !== null && [info.beginWal, info.endWal].some((w) => w !== null && walTimeline(w) !== info.timeline)) return false;
  if (!lsnInWal(info.beginWal, info.beginLsn, info.segmentSize) || !lsnInWal(info.endWal, info.endLsn, info.segmentSize)) return false;
  if (info.beginWal !== null && info.endWal !== null && info.beginWal > info.endWal) return false;
  if (info.beginLsn !== null && info.endLsn !== null && info.beginLsn > info.endLsn) return false;
  if (info.beginAt !== null && info.endAt !== null && Date.parse(info.beginAt) > Date.parse(info.endAt)) return false;
  return true;
}

function archiveVerdict(dir: BackupDirectory, info: BackupInfo): Verdict | null {
  const data = dir.archives.get(null);
  if (data === undefined || !data.chunks.has(0)) return { state: 'unhealthy', code: 'data-archive-missing' };
  for (const oid of info.tablespaceOids ?? []) {
    if (!(dir.archives.get(oid)?.chunks.has(0) ?? false)) return { state: 'unhealthy', code: 'tablespace-archive-missing' };
  }
  for (const set of dir.archives.values()) {
    if (set.tooSmall > 0) return { state: 'unhealthy', code: 'archive-too-small' };
    for (let c = 1; c < set.chunks.size; c++) if (!set.chunks.has(c)) return { state: 'unhealthy', code: 'archive-chunk-missing' };
  }
  return null;
}

function walVerdict(begin: number, end: number, timeline: number, ctx: BackupContext & { geometry: WalGeometry }): Verdict | null {
  let position = begin;
  while (position <= end) {
    const range = ctx.index.rangeAt(timeline, position);
    if (range !== null) {
      position = nextPosition(range.end, ctx.geometry);
      continue;
    }
    const absence = ctx.index.absence(timeline, position);
    if (absence.kind === 'beyond-observed') return { state: 'unknown', code: 'required-wal-not-yet-archived' };
    if (absence.kind === 'gap' && absence.gap.status === 'candidate') return { state: 'unknown', code: 'required-wal-candidate-gap' };
    return { state: 'unhealthy', code: 'required-wal-missing' };
  }
  return null;
}

function judge(dir: BackupDirectory, parsed: BackupInfoResult | null, keep: KeepTarget, ctx: BackupContext): Verdict {
  if (parsed === null) return { state: 'unknown', code: 'backup-info-missing' };
  if (!parsed.ok) return { state: 'unknown', code: parsed.reason };
  const info = parsed.info;
  if (info.status === null) return { state: 'unknown', code: 'backup-status-unknown' };
  if (info.status === 'FAILED') return { state: 'unhealthy', code: 'backup-failed' };
  if (info.status !== 'DONE') return { state: 'unknown', code: 'backup-not-completed' };
  if (info.backupType === null) return { state: 'unknown', code: 'backup-type-unknown' };
  if (info.backupType === 'incremental') return { state: 'unknown', code: 'backup-type-unsupported' };
  if (info.backupType === 'snapshot') return { state: 'unknown', code: 'snapshot-not-verifiable' };
  if (info.problems.some((p) => REQUIRED.has(p.field))) return { state: 'unknown', code: 'backup-info-invalid' };
  if (!consistent(info)) return { state: 'unknown', code: 'backup-info-inconsistent' };
  const archives = archiveVerdict(dir, info);
  if (archives !== null) return archives;
  if (ctx.geometry === null) return { state: 'unknown', code: 'wal-geometry-unknown' };
  if (info.segmentSize !== ctx.geometry.segmentSize) return { state: 'unknown', code: 'segment-size-conflict' };
  const begin = info.beginWal === null ? null : parseWalName(info.beginWal, ctx.geometry);
  const end = info.endWal === null ? null : parseWalName(info.endWal, ctx.geometry);
  if (begin === null || end === null || info.timeline === null) return { state: 'unknown', code: 'backup-info-invalid' };
  const wal = walVerdict(begin.position, end.position, info.timeline, { ...ctx, geometry: ctx.geometry });
  if (wal !== null) return wal;
  const declared = new Set<number | null>([null, ...(info.tablespaceOids ?? [])]);
  if ([...dir.archives.keys()].some((k) => !declared.has(k))) return { state: 'warning', code: 'unexpected-archive' };
  if (dir.otherObjects > 0) return { state: 'warning', code: 'unrecognized-objects' };
  if (keep === 'unrecognized') return { state: 'warning', code: 'keep-annotation-unrecognized' };
  return { state: 'healthy', code: 'structurally-usable' };
}

export function evaluateBackup(dir: BackupDirectory, parsed: BackupInfoResult | null, keep: KeepTarget, ctx: BackupContext): BackupFacts {
  const verdict = judge(dir, parsed, keep, ctx);
  const info = parsed?.ok === true ? parsed.info : null;
  const trusted = info !== null && consistent(info) ? info : null;
  // The spec counts "validated artifacts": bytes, count and compression only for a backup whose
  // metadata parsed, holds every required field and contradicts nothing.
  const validated = trusted !== null && !trusted.problems.some((p) => REQUIRED.has(p.field));
  const positions = trusted !== null && ctx.geometry !== null && trusted.segmentSize === ctx.geometry.segmentSize ? ctx.geometry : null;
  const archiveBytes = [...dir.archives.values()].reduce((n, a) => n + a.bytes, 0);
  const archiveCount = [...dir.archives.values()].reduce((n, a) => n + a.chunks.size, 0);
  const compressions = [...dir.compressions];
  const item: BackupItem = {
    server: ctx.server,
    backup_id: dir.backupId,
    status: info?.status ?? null,
    backup_type: info?.backupType ?? null,
    // The wire rule: an unknown backup type forces the state to unknown, whatever else is known.
    state: (info?.backupType ?? null) === null ? 'unknown' : verdict.state,
    reason: reason(verdict.code),
    system_id: info?.systemId ?? null,
    postgresql_version: info?.version ?? null,
    timeline: info?.timeline ?? null,
    wal_segment_size_bytes: info?.segmentSize ?? null,
    begin_wal: trusted?.beginWal ?? null,
    end_wal: trusted?.endWal ?? null,
    begin_lsn: trusted?.beginLsn == null ? null : formatLsn(trusted.beginLsn),
    end_lsn: trusted?.endLsn == null ? null : formatLsn(trusted.endLsn),
    begin_at: trusted?.beginAt ?? null,
    end_at: trusted?.endAt ?? null,
    logical_bytes: info?.clusterSize ?? null,
    deduplicated_bytes: info?.deduplicatedSize ?? null,
    stored_artifact_bytes: validated && archiveCount > 0 ? archiveBytes : null,
    compression: validated && compressions.length === 1 ? (compressions[0] ?? null) : null,
    encryption: info?.encryption === 'gpg' ? 'gpg' : null,
    artifact_count: validated ? archiveCount : null,
    tablespace_count: info?.tablespaceOids?.length ?? null,
  };
  const begin = positions === null || trusted?.beginWal == null ? null : parseWalName(trusted.beginWal, positions);
  const end = positions === null || trusted?.endWal == null ? null : parseWalName(trusted.endWal, positions);
  return {
    item,
    usable: item.state === 'healthy' || item.state === 'warning',
    completed: info?.status === 'DONE',
    standalone: keep === 'standalone',
    timeline: trusted?.timeline ?? null,
    beginPosition: begin?.position ?? null,
    endPosition: end?.position ?? null,
    endLsn: trusted?.endLsn ?? null,
    endAt: trusted?.endAt ?? null,
  };
}
