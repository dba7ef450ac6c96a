/**
 * pgBackRest's backups through the format seam: the catalog of one stanza (`readCatalog`) from
 * backup.info (and its copy), the backup area's listing and each backup's manifest, judged as far
 * as no WAL is involved; evidence then checks the WAL each backup needs to be consistent, and its
 * dependency chain.
 *
 * What a label directory is (research pgbackrest-format.md §5, §11; pgBackRest has no status):
 * - listed in backup.info's `[backup:current]`: a completed backup (status `DONE`), judged by its
 *   manifest: every separate file stored with exactly its repo-size, every bundle long enough,
 *   the manifest agreeing with backup.info, nothing else in the directory;
 * - `backup.manifest.copy` without `backup.manifest`: a backup that is running or was interrupted
 *   (`INTERRUPTED`): its WAL and timeline are not knowable, so it is `unknown`, kept apart, never
 *   dropped as pgBackRest's own info drops it;
 * - `backup.manifest` that backup.info does not list: `UNLISTED` (pgBackRest would add it back, or
 *   it completed and was never recorded): `unknown`, kept apart;
 * - a history manifest alone: an expired backup, not a backup (not in the catalog).
 * A diff or incr depends on every backup of its `backup-reference` list (the chain rule is
 * evidence's, `dependsOn`). Only the current database generation's backups are judged against the
 * WAL: an older generation's WAL lives in another archive id. An encrypted stanza shows names and
 * sizes only: every backup is `unknown`, its type and set read from its label. So does a stanza
 * whose metadata the store keeps encrypted with a customer-provided key the scan does not hold
 * (pgBackRest's `repo1-s3-sse-customer-key`, S3 SSE-C; D-92), with its own reason.
 *
 * Design: docs/design/stanza-repository.md §Catalog.
 */
import type { BackupItem } from '../../contract/collections.ts';
import { COMPLETED_STATUS } from '../../contract/values.ts';
import { formatLsn, geometry as makeGeometry, splitWalName, type WalGeometry } from '../../postgres/wal.ts';
import { verdictMaker, type BackupDependency, type BackupLabel, type FormatBackup, type FormatCatalog, type FormatVerdict, type ScopeAccess, type Shelf } from '../seam.ts';
import { FULL_LABEL_LENGTH, labelType, pgVersionNum, type BackupInfo, type CurrentBackup, type InfoField } from './backup-info.ts';
import { examineDirectory, listBackupArea, type Examined } from './catalog.ts';
import { backupArea } from './layout.ts';
import type { CompressType, Manifest } from './manifest.ts';
import { inferSegmentSize } from './segment-size.ts';
import { stanzaInfo, type InfoPair, type StanzaInfo } from './stanza-info.ts';

export const REASONS = {
  'backup-info-invalid': 'backup.info lacks required values for this backup, or holds them out of shape.',
  'backup-info-inconsistent': 'backup.info values for this backup contradict each other.',
  'backup-catalog-unreadable': 'Neither backup.info nor its copy can be read, so whether this backup completed is not known.',
  'backup-metadata-encrypted': 'The repository is encrypted: its metadata cannot be read without the passphrase; names and sizes are counted.',
  'backup-metadata-customer-key-required': 'The metadata is stored encrypted with a customer-provided key (SSE-C) viewer does not hold: it cannot be read; names and sizes are counted.',
  'backup-earlier-database': 'The backup belongs to an earlier database of the stanza, whose WAL is not read.',
  'backup-directory-missing': 'backup.info lists the backup, but its directory holds no object.',
  'backup-manifest-missing': 'The backup directory has neither backup.manifest nor its copy.',
  'backup-manifest-too-large': 'The backup manifest, or its list of stored files, exceeds what viewer reads.',
  'backup-manifest-malformed': 'Neither backup.manifest nor its copy can be loaded.',
  'backup-manifest-inconsistent': 'backup.manifest contradicts backup.info.',
  'backup-manifest-invalid': 'backup.manifest lists files without a usable size, name, location or reference.',
  'backup-file-missing': 'A file the manifest says this backup stores is missing.',
  'backup-file-size-mismatch': 'A file this backup stores does not have the size its manifest records.',
  'backup-bundle-missing': 'A bundle the manifest names is missing.',
  'backup-bundle-too-short': 'A bundle is shorter than the files the manifest places in it.',
  'backup-interrupted': 'backup.manifest.copy without backup.manifest: pgBackRest is running this backup or it was interrupted; its WAL and timeline are not knowable.',
  'backup-unlisted': 'backup.manifest exists but backup.info does not list the backup.',
  'backup-page-checksum-errors': 'pgBackRest recorded page checksum errors in the backed-up files.',
  'unrecognized-objects': 'The backup directory holds objects its manifest does not account for.',
  'backup-manifest-from-copy': 'backup.manifest could not be loaded; its copy was used.',
  'backup-manifest-copy-mismatch': 'backup.manifest.copy is missing or differs in size from backup.manifest.',
  'backup-info-from-copy': 'backup.info could not be loaded; its copy was used.',
  'backup-info-copy-mismatch': 'backup.info and its copy differ.',
  'archive-info-from-copy': 'archive.info could not be loaded; its copy was used.',
  'archive-info-copy-mismatch': 'archive.info and its copy differ.',
  'archive-info-unreadable': 'Neither archive.info nor its copy can be read.',
  'archive-info-customer-key-required': 'archive.info is stored encrypted with a customer-provided key (SSE-C) viewer does not hold; the archive id is taken from the listing.',
  'structurally-usable': 'Metadata, stored files and the WAL needed for consistency are present.',
} as const;
export type Code = keyof typeof REASONS;

/** The shelf of each verdict reached before WAL (the spec keeps these kinds apart). */
const SHELVES: Partial<Record<Code, Shelf>> = {
  'backup-interrupted': 'in progress or abandoned',
  'backup-unlisted': 'in progress or abandoned',
  'backup-info-invalid': 'malformed',
  'backup-info-inconsistent': 'malformed',
  'backup-catalog-unreadable': 'malformed',
  'backup-manifest-malformed': 'malformed',
  'backup-manifest-inconsistent': 'malformed',
  'backup-manifest-invalid': 'malformed',
  'backup-metadata-encrypted': 'unsupported',
  'backup-metadata-customer-key-required': 'unsupported',
  'backup-earlier-database': 'unsupported',
  'backup-manifest-too-large': 'unsupported',
};

const verdict = verdictMaker<Code>(REASONS, SHELVES);

/** Values without which a listed backup cannot be judged. */
const REQUIRED = new Set<InfoField>(['label', 'backup-type', 'backup-archive-start', 'backup-archive-stop', 'backup-lsn-start', 'backup-lsn-stop', 'backup-timestamp-start', 'backup-timestamp-stop', 'db-id', 'backup-prior', 'backup-reference']);

const COMPRESSIONS: Readonly<Record<CompressType, BackupItem['compression']>> = { none: 'none', gz: 'gzip', bz2: 'bzip2', lz4: 'lz4', zst: 'zstd', xz: null };

/** RFC 3339 of epoch seconds, as the wire writes times. */
const time = (seconds: number | null): string | null => (seconds === null ? null : `${new Date(seconds * 1000).toISOString().slice(0, 19)}Z`);
const timelineOf = (wal: string | null): number | null => (wal === null ? null : (splitWalName(wal)?.timeline ?? null));

/** What the whole stanza says of its metadata files, as warnings every completed backup carries. */
function stanzaWarnings(info: StanzaInfo): Code[] {
  const out: Code[] = [];
  if (info.backup.fromCopy) out.push('backup-info-from-copy');
  else if (info.backup.differ) out.push('backup-info-copy-mismatch');
  if (info.archive.view === null && info.archive.keyRequired && !info.archive.encrypted) out.push('archive-info-customer-key-required');
  else if (info.archive.view === null && !info.archive.encrypted) out.push('archive-info-unreadable');
  else if (info.archive.fromCopy) out.push('archive-info-from-copy');
  else if (info.archive.differ) out.push('archive-info-copy-mismatch');
  return out;
}

/** backup.info's entry for a backup is whole and agrees with itself. */
function entryProblems(info: BackupInfo, label: string): { invalid: boolean; inconsistent: boolean } {
  const mine = info.problems.filter((p) => p.section === 'backup:current' && p.entry === label);
  return {
    invalid: mine.some((p) => p.problem !== 'inconsistent' && REQUIRED.has(p.field)),
    inconsistent: mine.some((p) => p.problem === 'inconsistent'),
  };
}

/** The entry's WAL and LSN values place it: one timeline, start not after stop. */
function walConsistent(e: CurrentBackup): boolean {
  const start = timelineOf(e.archiveStart);
  const stop = timelineOf(e.archiveStop);
  if (e.archiveStart === null || e.archiveStop === null || start === null || start !== stop) return false;
  return e.archiveStart <= e.archiveStop;
}

/** The manifest says what backup.info says of the backup. */
function manifestAgrees(m: Manifest, e: CurrentBackup): boolean {
  const b = m.backup;
  const sameList = (a: readonly string[] | null, x: readonly string[] | null) => (a ?? []).filter((l) => l !== e.label).join(',') === (x ?? []).join(',');
  return (
    b.label === e.label &&
    b.type === e.type &&
    b.archiveStart === e.archiveStart &&
    b.archiveStop === e.archiveStop &&
    b.lsnStart === e.lsnStart &&
    b.lsnStop === e.lsnStop &&
    b.prior === e.prior &&
    b.timestampStart === e.timestampStart &&
    b.timestampStop === e.timestampStop &&
    // The manifest's list names the backup itself too (newer versions); backup.info's does not.
    (b.reference === null || sameList(b.reference, e.reference)) &&
    // Every file reference is a backup the set's list names.
    m.files.references.every((r) => (e.reference ?? []).includes(r))
  );
}

/** A loaded manifest's own shape: every file entry usable, no reference outside its set. */
function manifestValid(m: Manifest): boolean {
  return m.files.invalid === 0 && m.files.stored !== null && !m.problems.some((p) => p.section === 'target:file' && p.field === 'reference' && p.problem === 'inconsistent');
}

/** The structural verdict of a listed backup's directory, before WAL. */
function structureVerdict(d: Examined | undefined, e: CurrentBackup): FormatVerdict | null {
  if (d === undefined) return verdict('unhealthy', 'backup-directory-missing');
  if (!d.hasManifest && !d.hasCopy) return verdict('unhealthy', 'backup-manifest-missing');
  const r = d.manifest;
  if (r.status === 'encrypted') return verdict('unknown', 'backup-metadata-encrypted');
  if (r.status === 'key-required') return verdict('unknown', 'backup-metadata-customer-key-required');
  if (r.status === 'too-large') return verdict('unknown', 'backup-manifest-too-large');
  if (r.status !== 'loaded') return verdict('unknown', 'backup-manifest-malformed');
  if (!manifestAgrees(r.manifest, e)) return verdict('unknown', 'backup-manifest-inconsistent');
  if (!manifestValid(r.manifest)) return verdict('unknown', 'backup-manifest-invalid');
  const s = d.structure;
  if (s === null) return verdict('unknown', 'backup-manifest-too-large');
  if (s.missingFiles > 0) return verdict('unhealthy', 'backup-file-missing');
  if (s.wrongSize > 0) return verdict('unhealthy', 'backup-file-size-mismatch');
  if (s.missingBundles > 0) return verdict('unhealthy', 'backup-bundle-missing');
  if (s.shortBundles > 0) return verdict('unhealthy', 'backup-bundle-too-short');
  return null;
}

/** The warnings of a listed backup once its WAL is present, in order; healthy without any. */
function otherwiseVerdict(d: Examined | undefined, e: CurrentBackup, stanza: readonly Code[]): FormatVerdict {
  const r = d?.manifest;
  if (e.error === true) return verdict('warning', 'backup-page-checksum-errors');
  if ((d?.structure?.unexpected ?? 0) > 0) return verdict('warning', 'unrecognized-objects');
  if (r?.status === 'loaded' && r.fromCopy) return verdict('warning', 'backup-manifest-from-copy');
  if (r?.status === 'loaded' && r.copyMismatch) return verdict('warning', 'backup-manifest-copy-mismatch');
  const first = stanza[0];
  return first === undefined ? verdict('healthy', 'structurally-usable') : verdict('warning', first);
}

/** A backup under construction: its dependencies are filled in once every backup exists. */
interface Draft {
  readonly backup: FormatBackup & { readonly dependsOn: BackupDependency[] };
  /** The ids of the backups it depends on. */
  readonly needs: readonly string[];
}

const NO_LABEL = { name: null, keep: null } as const;
/** The longest label shown (the seam's BackupLabel: at most 128 characters). */
const MAX_LABEL_CHARS = 128;

/**
 * What operators know a backup by: its annotations (`--annotation key=value`, as `pgbackrest info`
 * lists them), for the pages only and never a correlation key; keys in order, cut at the label's
 * length. The parser already refused unprintable or oversized ones.
 */
function annotationLabel(annotations: ReadonlyMap<string, string> | null): BackupLabel {
  if (annotations === null || annotations.size === 0) return NO_LABEL;
  const text = [...annotations].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([k, v]) => `${k}=${v}`).join(', ');
  const chars = [...text];
  return { name: chars.length <= MAX_LABEL_CHARS ? text : `${chars.slice(0, MAX_LABEL_CHARS - 1).join('')}…`, keep: null };
}

/** A backup backup.info lists. */
function listedBackup(e: CurrentBackup, info: BackupInfo, d: Examined | undefined, g: WalGeometry | null, stanza: readonly Code[], encryption: BackupItem['encryption']): Draft {
  const problems = entryProblems(info, e.label);
  const history = info.history.find((h) => h.id === e.dbId);
  const current = e.dbId !== null && e.dbId === info.db.id;
  const trusted = !problems.inconsistent && walConsistent(e);
  const manifest = d?.manifest.status === 'loaded' ? d.manifest.manifest : null;
  const structural = structureVerdict(d, e);
  // Bytes, count and compression of validated artifacts only: a backup whose structure checked out.
  const validated = structural === null && d?.structure != null && manifest !== null;
  let decided: FormatVerdict | null;
  if (problems.invalid) decided = verdict('unknown', 'backup-info-invalid');
  else if (problems.inconsistent || !walConsistent(e)) decided = verdict('unknown', 'backup-info-inconsistent');
  else if (!current) decided = verdict('unknown', 'backup-earlier-database');
  else decided = structural;
  const fields: FormatBackup['fields'] = {
    backup_id: e.label,
    status: COMPLETED_STATUS,
    backup_type: e.type,
    system_id: history?.systemId ?? null,
    // pgBackRest records the major version only (`15`, `9.6`): its first release's number (150000, 90600; D-91).
    postgresql_version: pgVersionNum(history?.version ?? manifest?.db.version ?? ''),
    timeline: trusted ? timelineOf(e.archiveStart) : null,
    wal_segment_size_bytes: current ? (g?.segmentSize ?? null) : null,
    begin_wal: trusted ? e.archiveStart : null,
    end_wal: trusted ? e.archiveStop : null,
    begin_lsn: trusted && e.lsnStart !== null ? formatLsn(e.lsnStart) : null,
    end_lsn: trusted && e.lsnStop !== null ? formatLsn(e.lsnStop) : null,
    begin_at: problems.inconsistent ? null : time(e.timestampStart),
    end_at: problems.inconsistent ? null : time(e.timestampStop),
    logical_bytes: e.size,
    deduplicated_bytes: null,
    stored_artifact_bytes: validated ? (d?.structure?.artifactBytes ?? null) : null,
    compression: validated && manifest.options.compressType !== null ? COMPRESSIONS[manifest.options.compressType] : null,
    encryption,
    artifact_count: validated ? (d?.structure?.artifactCount ?? null) : null,
    tablespace_count: manifest?.tablespaces ?? null,
  };
  const backup = {
    fields,
    decided,
    unplaceable: verdict('unknown', 'backup-info-invalid'),
    otherwise: otherwiseVerdict(d, e, stanza),
    completed: true,
    mayHaveCompleted: true,
    standalone: false,
    trusted: { timeline: fields.timeline, endLsn: trusted ? e.lsnStop : null, endAt: fields.end_at },
    label: annotationLabel(e.annotations),
    dependsOn: [],
  };
  // A diff or incr needs every backup its reference list names (a block-incremental one too).
  return { backup, needs: e.type === 'full' ? [] : (e.reference ?? (e.prior === null ? [] : [e.prior])) };
}

/** A label directory backup.info does not list, or every directory when backup.info cannot be read. */
function unlistedBackup(d: Examined, catalog: CatalogState, encryption: BackupItem['encryption']): Draft {
  const type = labelType(d.label);
  const manifest = d.manifest.status === 'loaded' ? d.manifest.manifest : null;
  const interrupted = !d.hasManifest && d.hasCopy;
  let decided: FormatVerdict;
  let status: BackupItem['status'] = null;
  if (interrupted) {
    decided = verdict('unknown', 'backup-interrupted');
    status = 'INTERRUPTED';
  } else if (catalog === 'encrypted') decided = verdict('unknown', 'backup-metadata-encrypted');
  else if (catalog === 'key-required') decided = verdict('unknown', 'backup-metadata-customer-key-required');
  else if (catalog === 'unreadable') decided = verdict('unknown', 'backup-catalog-unreadable');
  else if (d.hasManifest) {
    decided = verdict('unknown', 'backup-unlisted');
    status = 'UNLISTED';
  } else decided = { ...verdict('unknown', 'backup-manifest-missing'), shelf: 'in progress or abandoned' };
  // An unlisted backup's manifest is shown as it is; nothing of it is trusted, and an interrupted one shows nothing.
  const m = interrupted || manifest === null || manifest.backup.label !== d.label ? null : manifest.backup;
  const fields: FormatBackup['fields'] = {
    backup_id: d.label,
    status,
    backup_type: type,
    system_id: null,
    postgresql_version: null,
    timeline: timelineOf(m?.archiveStart ?? null),
    wal_segment_size_bytes: null,
    begin_wal: m?.archiveStart ?? null,
    end_wal: m?.archiveStop ?? null,
    begin_lsn: m?.lsnStart == null ? null : formatLsn(m.lsnStart),
    end_lsn: m?.lsnStop == null ? null : formatLsn(m.lsnStop),
    begin_at: time(m?.timestampStart ?? null),
    end_at: m?.timestampStop == null || m.timestampStop === 0 ? null : time(m.timestampStop),
    logical_bytes: null,
    deduplicated_bytes: null,
    stored_artifact_bytes: null,
    compression: null,
    encryption,
    artifact_count: null,
    tablespace_count: null,
  };
  // An interrupted backup is no restorable set: it depends on nothing. Without a readable catalog
  // the label still names the full backup of its set.
  const needs = interrupted || type === 'full' || type === null ? [] : (m?.reference?.filter((l) => l !== d.label) ?? [d.label.slice(0, FULL_LABEL_LENGTH)]);
  const backup = {
    fields,
    decided,
    unplaceable: decided,
    otherwise: decided,
    // backup.manifest is written only when a backup completes; with no readable catalog that is all there is to go by.
    completed: catalog !== 'readable' && d.hasManifest,
    mayHaveCompleted: catalog !== 'readable' && d.hasManifest,
    standalone: false,
    trusted: { timeline: null, endLsn: null, endAt: null },
    label: NO_LABEL,
    dependsOn: [],
  };
  return { backup, needs };
}

/** The archive's geometry: the one segment size every current backup's start pair admits. */
function settleGeometry(info: BackupInfo | null): Pick<FormatCatalog, 'geometry' | 'geometryIssue'> {
  if (info === null) return { geometry: null, geometryIssue: 'unknown' };
  const current = info.backups.filter((b) => b.dbId !== null && b.dbId === info.db.id);
  const inferred = inferSegmentSize(current);
  if (inferred.kind === 'conflict') return { geometry: null, geometryIssue: 'conflict' };
  if (inferred.kind === 'unknown') return { geometry: null, geometryIssue: 'unknown' };
  const version = info.db.version === null ? null : pgVersionNum(info.db.version);
  return { geometry: makeGeometry(inferred.segmentSize, version), geometryIssue: null };
}

/** The catalog's state: readable, or why not (a cipher, a customer-provided key the store wants, anything else). */
type CatalogState = 'readable' | 'encrypted' | 'key-required' | 'unreadable';

function catalogState(pair: InfoPair<BackupInfo>): CatalogState {
  if (pair.view !== null) return 'readable';
  if (pair.encrypted) return 'encrypted';
  return pair.keyRequired ? 'key-required' : 'unreadable';
}

/** How the repository encrypts its files, as far as the stanza shows it. */
function encryptionOf(info: StanzaInfo): BackupItem['encryption'] {
  if (info.backup.encrypted || info.backup.view?.encrypted === true) return 'aes-256-cbc';
  return info.backup.view === null ? null : 'none';
}

/** The geometry backup.info declares: what `readCatalog` settles, from the same (shared) read. */
export async function readGeometry(access: ScopeAccess, stanza: string): Promise<Pick<FormatCatalog, 'geometry' | 'geometryIssue'>> {
  return settleGeometry((await stanzaInfo(access, stanza)).backup.view);
}

/** Lists `backup/<stanza>/`, reads backup.info and each needed manifest, and judges every backup. */
export async function readCatalog(access: ScopeAccess, maxBackups: number, stanza: string): Promise<FormatCatalog> {
  const info = await stanzaInfo(access, stanza);
  const backupInfo = info.backup.view;
  const catalog = catalogState(info.backup);
  const listed = new Map((backupInfo?.backups ?? []).map((b) => [b.label, b]));
  const area = backupArea(stanza);
  // Manifests are read where they decide something: a listed backup's, and an unlisted one's header.
  const found = await listBackupArea(access, area, maxBackups, (dir) => examineDirectory(access, area, dir, (catalog === 'readable' && dir.manifestSize !== null) || listed.has(dir.label)));
  const { geometry, geometryIssue } = settleGeometry(backupInfo);
  const stanzaCodes = stanzaWarnings(info);
  const encryption = encryptionOf(info);

  const drafts = new Map<string, Draft>();
  for (const e of backupInfo?.backups ?? []) {
    if (drafts.size >= maxBackups) break;
    drafts.set(e.label, listedBackup(e, backupInfo as BackupInfo, found.directories.get(e.label), geometry, stanzaCodes, encryption));
  }
  for (const d of found.directories.values()) if (!drafts.has(d.label)) drafts.set(d.label, unlistedBackup(d, catalog, encryption));
  // In label order: a backup's dependencies (earlier labels of its set) come before it.
  const ordered = [...drafts.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([, d]) => d);
  for (const d of ordered) for (const id of d.needs) d.backup.dependsOn.push({ id, backup: drafts.get(id)?.backup ?? null });
  const backups: FormatBackup[] = ordered.map((d) => d.backup);

  const systemIds = new Set<string>();
  if (backupInfo?.db.systemId != null) systemIds.add(backupInfo.db.systemId);
  const archiveSystemId = info.archive.view?.db.systemId;
  if (archiveSystemId != null) systemIds.add(archiveSystemId);
  return {
    backups,
    geometry,
    geometryIssue,
    systemIds,
    truncated: found.truncated || (backupInfo?.backups.length ?? 0) > maxBackups,
    // History manifests (of expired backups among them) are the catalog's own objects, and no backups.
    unknownObjects: found.unknownObjects,
  };
}
