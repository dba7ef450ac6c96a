/**
 * barman-cloud's catalog through the format seam: lists `base/`, groups it per backup directory
 * (`catalog.ts`), reads each `backup.info` and keep annotation, settles the WAL geometry from the
 * metadata, and judges each backup by Barman's own rules as far as no WAL is involved: metadata
 * (rules 1–10 of docs/design/evidence.md §Backups), archives (11–14), and the warnings that apply
 * once its WAL is present (20–23). Evidence places the backup's `begin_wal`..`end_wal` in the
 * archive (15–19). Only validated values reach the wire fields: sizes, count and compression
 * only when the metadata validated and no archive was refused. A backup.info or keep annotation
 * the store keeps encrypted with a customer-provided key the scan does not hold (Barman's
 * `--sse-customer-key`, S3 SSE-C; D-92) is read as what it is: listed, sized, unreadable.
 */
import { mapLimit } from '../../common/concurrency.ts';
import type { BackupItem } from '../../contract/collections.ts';
import { DEFAULT_SEGMENT_SIZE, formatLsn, geometry as makeGeometry, VERSION_WITH_SEGMENT_FF, type WalGeometry } from '../../postgres/wal.ts';
import { verdictMaker, type FormatBackup, type FormatCatalog, type FormatVerdict, type ScopeAccess, type Shelf } from '../seam.ts';
import { MAX_BACKUP_INFO_BYTES, parseBackupInfo, type BackupInfo, type BackupInfoResult } from './backup-info.ts';
import { BackupCatalog, type BackupDirectory } from './catalog.ts';
import { classifyKey } from './classify.ts';

/** The keep annotation: its target, content Barman does not write, stored behind a customer-provided key (D-92), or none. */
export type KeepTarget = 'full' | 'standalone' | 'unrecognized' | 'key-required' | null;

/** backup.info as read: parsed (or refused by the parser), or stored behind a customer-provided key the scan does not hold. */
export type InfoReading = BackupInfoResult | { readonly ok: false; readonly reason: 'backup-info-customer-key-required' };

export const REASONS = {
  'backup-info-missing': 'No backup.info: the backup is in progress or was abandoned.',
  'backup-info-malformed': 'backup.info could not be parsed.',
  'backup-info-too-large': 'backup.info is larger than any Barman writes.',
  'backup-info-not-utf8': 'backup.info is not UTF-8 text.',
  'backup-info-customer-key-required': 'backup.info is stored encrypted with a customer-provided key (SSE-C) viewer does not hold: its metadata cannot be read; names and sizes are counted.',
  'backup-status-unknown': 'backup.info has no recognised status.',
  'backup-failed': 'Barman recorded the backup as failed.',
  'backup-not-completed': 'Barman has not recorded the backup as done.',
  'backup-type-unknown': 'The backup mode is not one Barman writes.',
  'backup-type-unsupported': 'Incremental backups are not validated.',
  'snapshot-not-verifiable': 'Snapshot backups keep their data outside the object store.',
  'backup-info-invalid': 'Required backup.info fields are missing or out of shape.',
  'backup-info-inconsistent': 'backup.info values contradict each other.',
  'data-archive-missing': 'The PGDATA archive is missing.',
  'tablespace-archive-missing': 'A declared tablespace has no archive.',
  'archive-chunk-missing': 'A numbered archive part is missing.',
  'archive-too-small': 'An archive object is smaller than the smallest valid archive of its kind.',
  'unexpected-archive': 'An archive exists for a tablespace the metadata does not declare.',
  'unrecognized-objects': 'The backup directory holds objects Barman does not write.',
  'keep-annotation-unrecognized': 'The keep annotation has content Barman does not write.',
  'keep-annotation-customer-key-required': 'The keep annotation is stored encrypted with a customer-provided key (SSE-C) viewer does not hold: whether the backup is kept is unknown.',
  'structurally-usable': 'Metadata, archives and the WAL needed for consistency are present.',
} as const;
type Code = keyof typeof REASONS;

/** The shelf of each verdict reached before WAL (the spec keeps these kinds apart). */
const SHELVES: Partial<Record<Code, Shelf>> = {
  'backup-info-missing': 'in progress or abandoned',
  // STARTED, WAITING_FOR_WALS, SYNCING: Barman has not finished it; it is not an unsupported kind.
  'backup-not-completed': 'in progress or abandoned',
  'backup-failed': 'failed',
  'backup-info-malformed': 'malformed',
  'backup-info-too-large': 'malformed',
  'backup-info-not-utf8': 'malformed',
  // Not malformed: behind a key viewer does not hold, like a repository cipher (pgBackRest's `backup-metadata-encrypted`).
  'backup-info-customer-key-required': 'unsupported',
  'backup-status-unknown': 'malformed',
  'backup-info-invalid': 'malformed',
  'backup-info-inconsistent': 'malformed',
  'backup-type-unknown': 'unsupported',
  'backup-type-unsupported': 'unsupported',
  'snapshot-not-verifiable': 'unsupported',
};

const verdict = verdictMaker<Code>(REASONS, SHELVES);

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

function archiveVerdict(dir: BackupDirectory, info: BackupInfo): FormatVerdict | null {
  const data = dir.archives.get(null);
  if (data === undefined || !data.chunks.has(0)) return verdict('unhealthy', 'data-archive-missing');
  for (const oid of info.tablespaceOids ?? []) {
    if (!(dir.archives.get(oid)?.chunks.has(0) ?? false)) return verdict('unhealthy', 'tablespace-archive-missing');
  }
  for (const set of dir.archives.values()) {
    if (set.tooSmall > 0) return verdict('unhealthy', 'archive-too-small');
    for (let c = 1; c < set.chunks.size; c++) if (!set.chunks.has(c)) return verdict('unhealthy', 'archive-chunk-missing');
  }
  return null;
}

/** Rules 1–14: what the metadata and the archives decide before any WAL is consulted. */
function decide(dir: BackupDirectory, parsed: InfoReading | null): FormatVerdict | null {
  if (parsed === null) return verdict('unknown', 'backup-info-missing');
  if (!parsed.ok) return verdict('unknown', parsed.reason);
  const info = parsed.info;
  if (info.status === null) return verdict('unknown', 'backup-status-unknown');
  if (info.status === 'FAILED') return verdict('unhealthy', 'backup-failed');
  if (info.status !== 'DONE') return verdict('unknown', 'backup-not-completed');
  if (info.backupType === null) return verdict('unknown', 'backup-type-unknown');
  if (info.backupType === 'incremental') return verdict('unknown', 'backup-type-unsupported');
  if (info.backupType === 'snapshot') return verdict('unknown', 'snapshot-not-verifiable');
  if (info.problems.some((p) => REQUIRED.has(p.field))) return verdict('unknown', 'backup-info-invalid');
  if (!consistent(info)) return verdict('unknown', 'backup-info-inconsistent');
  return archiveVerdict(dir, info);
}

/** Rules 20–23: the verdict once the backup's WAL is all present. */
function otherwise(dir: BackupDirectory, info: BackupInfo | null, keep: KeepTarget): FormatVerdict {
  const declared = new Set<number | null>([null, ...(info?.tablespaceOids ?? [])]);
  if ([...dir.archives.keys()].some((k) => !declared.has(k))) return verdict('warning', 'unexpected-archive');
  if (dir.otherObjects > 0) return verdict('warning', 'unrecognized-objects');
  if (keep === 'unrecognized') return verdict('warning', 'keep-annotation-unrecognized');
  if (keep === 'key-required') return verdict('warning', 'keep-annotation-customer-key-required');
  return verdict('healthy', 'structurally-usable');
}

/** One backup directory as the seam's `FormatBackup`. */
export function formatBackup(dir: BackupDirectory, parsed: InfoReading | null, keep: KeepTarget): FormatBackup {
  const info = parsed?.ok === true ? parsed.info : null;
  const trusted = info !== null && consistent(info) ? info : null;
  // The spec counts "validated artifacts": bytes, count and compression only for a backup whose
  // metadata parsed, holds every required field and contradicts nothing, and whose archives passed
  // rules 11–14 (none missing, none below its floor, no part missing). An archive refused there
  // makes all three null, never a sum of what happens to be listed (D-79).
  const validated = trusted !== null && !trusted.problems.some((p) => REQUIRED.has(p.field)) && archiveVerdict(dir, trusted) === null;
  const archiveBytes = [...dir.archives.values()].reduce((n, a) => n + a.bytes, 0);
  const archiveCount = [...dir.archives.values()].reduce((n, a) => n + a.chunks.size, 0);
  const compressions = [...dir.compressions];
  const fields: FormatBackup['fields'] = {
    backup_id: dir.backupId,
    status: info?.status ?? null,
    backup_type: info?.backupType ?? null,
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
    stored_artifact_bytes: validated ? archiveBytes : null,
    compression: validated && compressions.length === 1 ? (compressions[0] ?? null) : null,
    encryption: info?.encryption === 'gpg' ? 'gpg' : null,
    artifact_count: validated ? archiveCount : null,
    tablespace_count: info?.tablespaceOids?.length ?? null,
  } satisfies Omit<BackupItem, 'server' | 'state' | 'reason'>;
  return {
    fields,
    decided: decide(dir, parsed),
    unplaceable: verdict('unknown', 'backup-info-invalid'),
    otherwise: otherwise(dir, info, keep),
    completed: info?.status === 'DONE',
    // backup.info is there but says nothing readable about the status (malformed, or behind a
    // customer-provided key): it may be a DONE one.
    mayHaveCompleted: info?.status === 'DONE' || (parsed !== null && (parsed.ok === false || info?.status === null)),
    standalone: keep === 'standalone',
    trusted: { timeline: trusted?.timeline ?? null, endLsn: trusted?.endLsn ?? null, endAt: trusted?.endAt ?? null },
    // As barman-cloud-backup-list shows it: the name, and the archival status KEEP:FULL or KEEP:STANDALONE.
    label: { name: info?.name ?? null, keep: keep === 'full' || keep === 'standalone' ? keep : null, ...(info?.errorText == null ? {} : { error: info.errorText }) },
    dependsOn: [],
  };
}

const KEEP_MAX_BYTES = 64;

async function readKeep(access: ScopeAccess, dir: BackupDirectory): Promise<KeepTarget> {
  if (dir.keepKey === null) return null;
  const r = await access.read(dir.keepKey, KEEP_MAX_BYTES);
  if (r.status === 'key-required') return 'key-required';
  if (r.status !== 'found') return r.status === 'absent' ? null : 'unrecognized';
  const text = Buffer.from(r.bytes).toString('latin1').trim();
  return text === 'full' || text === 'standalone' ? text : 'unrecognized';
}

async function readInfo(access: ScopeAccess, dir: BackupDirectory): Promise<InfoReading | null> {
  if (dir.infoKey === null) return null;
  const r = await access.read(dir.infoKey, MAX_BACKUP_INFO_BYTES);
  if (r.status === 'absent') return null;
  if (r.status === 'too-large') return { ok: false, reason: 'backup-info-too-large' };
  if (r.status === 'key-required') return { ok: false, reason: 'backup-info-customer-key-required' };
  return parseBackupInfo(r.bytes);
}

/** The archive's geometry as the metadata declares it: one segment size, one side of 9.3. */
function settleGeometry(infos: readonly (InfoReading | null)[]): Pick<FormatCatalog, 'geometry' | 'geometryIssue'> {
  const declared = infos.flatMap((r) => (r?.ok === true && r.info.segmentSize !== null ? [r.info] : []));
  const sizes = new Set(declared.map((i) => i.segmentSize));
  const old = new Set(declared.map((i) => i.version !== null && i.version < VERSION_WITH_SEGMENT_FF));
  if (sizes.size === 0) return { geometry: null, geometryIssue: 'unknown' };
  if (sizes.size > 1 || old.size > 1) return { geometry: null, geometryIssue: 'conflict' };
  const [size] = sizes;
  const g: WalGeometry = makeGeometry(size ?? DEFAULT_SEGMENT_SIZE, old.has(true) ? VERSION_WITH_SEGMENT_FF - 1 : null);
  return { geometry: g, geometryIssue: null };
}

/** Lists `base/`, reads every backup's metadata (bounded concurrency), and judges each backup. */
export async function readCatalog(access: ScopeAccess, maxBackups: number): Promise<FormatCatalog> {
  const catalog = new BackupCatalog(maxBackups);
  for await (const page of access.objects('base/')) for (const obj of page) catalog.add(classifyKey(obj.key), obj.key, obj.size);
  const dirs = [...catalog.directories.values()].sort((a, b) => (a.backupId < b.backupId ? -1 : a.backupId > b.backupId ? 1 : 0));
  const metadata = await mapLimit(dirs, access.concurrency, (d) => Promise.all([readInfo(access, d), readKeep(access, d)]));
  const infos = metadata.map(([info]) => info);
  return {
    backups: dirs.map((d, i) => formatBackup(d, infos[i] ?? null, metadata[i]?.[1] ?? null)),
    ...settleGeometry(infos),
    systemIds: new Set(infos.flatMap((r) => (r?.ok === true && r.info.systemId !== null ? [r.info.systemId] : []))),
    truncated: catalog.truncated,
    unknownObjects: catalog.unknownObjects,
  };
}
