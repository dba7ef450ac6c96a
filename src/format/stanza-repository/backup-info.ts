/**
 * A typed view of pgBackRest's `backup.info` (already read by info-file.ts): the current
 * database (`[db]`), its history (`[db:history]`) and every completed backup that has not expired
 * (`[backup:current]`), plus the field readers archive-info.ts and manifest.ts share (labels, WAL
 * names, LSNs, versions, system identifiers).
 *
 * Every field is validated: a value out of shape becomes `null` with a typed problem, a missing
 * required one likewise, and values that contradict each other stay but are flagged
 * `inconsistent` — nothing is invented. An entry whose label is not pgBackRest's is dropped and
 * only counted, so no text that failed validation leaves this module; problems name fields from
 * a fixed list, never content. Unknown keys (newer pgBackRest) are ignored.
 *
 * Facts: shared/research/pgbackrest-format.md §2; pgBackRest `src/info/infoBackup.c`
 * (`infoBackupLoadCallback`: required and optional keys), `src/info/infoPg.c`, and
 * `src/command/backup/common.c` (labels), at 2.45 and 2.59.1.
 */
import { parseLsn, splitWalName } from '../../postgres/wal.ts';
import type { InfoFile, JsonObject, JsonValue } from './info-file.ts';
import { isJsonObject, utf8Text } from './info-file.ts';

export type BackupType = 'full' | 'diff' | 'incr';

/**
 * pgBackRest's label (`backupRegExp`): `YYYYMMDD-HHMMSSF` for a full; the full's label, `_`, a
 * timestamp and `D` or `I` for a diff or incr. The timestamp is the backup host's local time.
 */
export const LABEL = /^[0-9]{8}-[0-9]{6}F(?:_[0-9]{8}-[0-9]{6}[DI])?$/;
/** Characters of a full label, which begin every label of its set. */
export const FULL_LABEL_LENGTH = 16;

export function isLabel(text: string): boolean {
  return LABEL.test(text);
}

/** The type a label's last letter declares. */
export function labelType(label: string): BackupType | null {
  if (!LABEL.test(label)) return null;
  return label.endsWith('F') ? 'full' : label.endsWith('D') ? 'diff' : 'incr';
}

/** `%X/%X` as PostgreSQL prints it: uppercase hex only. */
const LSN_TEXT = /^[0-9A-F]{1,8}\/[0-9A-F]{1,8}$/;
/** PostgreSQL major versions as pgBackRest stores them: `9.6`, `10` … (`pgVersionToStr`). */
const PG_VERSION = /^(?:[1-9][0-9]{1,2}|[1-9]\.[0-9])$/;
const HISTORY_ID = /^[1-9][0-9]{0,8}$/;
/** Epoch seconds up to the end of year 9999. */
const MAX_EPOCH_SECONDS = 253_402_300_799;
const MAX_ANNOTATIONS = 64;
const MAX_ANNOTATION_KEY_CHARS = 128;
const MAX_ANNOTATION_VALUE_CHARS = 1024;
// Controls, format characters, surrogates, private use, unassigned, line and paragraph separators.
const UNPRINTABLE = /[\p{C}\p{Zl}\p{Zp}]/u;

// ---------------------------------------------------------------------------------------------
// Field readers shared by the typed views.

/** A non-negative integer that fits a JavaScript number exactly; null otherwise. */
export function safeUint(v: JsonValue | undefined, max = Number.MAX_SAFE_INTEGER): number | null {
  return typeof v === 'bigint' && v >= 0n && v <= BigInt(max) ? Number(v) : null;
}

/** A PostgreSQL system identifier (unsigned 64 bits) as decimal text. */
export function systemIdOf(v: JsonValue | undefined): string | null {
  return typeof v === 'bigint' && v >= 0n && v < 1n << 64n ? v.toString() : null;
}

export function pgVersionOf(v: JsonValue | undefined): string | null {
  return typeof v === 'string' && PG_VERSION.test(v) ? v : null;
}

/** `server_version_num` of a major version as pgBackRest stores it: `9.6` → 90600, `15` → 150000. */
export function pgVersionNum(version: string): number | null {
  if (!PG_VERSION.test(version)) return null;
  const [major = '', minor] = version.split('.');
  return Number(major) * 10000 + (minor === undefined ? 0 : Number(minor) * 100);
}

/** A 24-hex-digit WAL segment name (uppercase, timeline not 0). */
export function walNameOf(v: JsonValue | undefined): string | null {
  if (typeof v !== 'string') return null;
  const s = splitWalName(v);
  return s !== null && s.timeline > 0 ? v : null;
}

/** An LSN as PostgreSQL prints it (uppercase `X/Y`). */
export function lsnOf(v: JsonValue | undefined): bigint | null {
  return typeof v === 'string' && LSN_TEXT.test(v) ? parseLsn(v) : null;
}

export function labelOf(v: JsonValue | undefined): string | null {
  return typeof v === 'string' && LABEL.test(v) ? v : null;
}

export function epochOf(v: JsonValue | undefined): number | null {
  return safeUint(v, MAX_EPOCH_SECONDS);
}

export function historyIdOf(key: string): number | null {
  return HISTORY_ID.test(key) ? Number(key) : null;
}

/** User annotations (`--annotation key=value`): printable UTF-8 text, bounded; null otherwise. */
export function annotationsOf(v: JsonValue | undefined): ReadonlyMap<string, string> | null {
  if (!isJsonObject(v) || v.size > MAX_ANNOTATIONS) return null;
  const out = new Map<string, string>();
  for (const [k, val] of v) {
    if (typeof val !== 'string') return null;
    const key = utf8Text(k);
    const text = utf8Text(val);
    if (key === null || text === null || key === '' || [...key].length > MAX_ANNOTATION_KEY_CHARS || [...text].length > MAX_ANNOTATION_VALUE_CHARS) return null;
    if (UNPRINTABLE.test(key) || UNPRINTABLE.test(text)) return null;
    out.set(key, text);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Problems.

/** Every field a problem can name: fixed here, never taken from a file. */
export const INFO_FIELDS = [
  'backrest-format', 'backrest-version',
  'db-id', 'db-system-id', 'db-version', 'db-catalog-version', 'db-control-version', 'history-id',
  'label', 'backup-type', 'backup-prior', 'backup-reference', 'backup-archive-start', 'backup-archive-stop',
  'backup-lsn-start', 'backup-lsn-stop', 'backup-timestamp-start', 'backup-timestamp-stop', 'backup-error',
  'backup-info-size', 'backup-info-size-delta', 'backup-info-repo-size', 'backup-info-repo-size-delta',
  'backup-info-repo-size-map', 'backup-info-repo-size-map-delta', 'backup-annotation',
  'option-archive-check', 'option-archive-copy', 'option-backup-standby', 'option-checksum-page',
  'option-compress', 'option-hardlink', 'option-online',
] as const;
export type InfoField = (typeof INFO_FIELDS)[number];

export interface InfoProblem {
  readonly section: 'db' | 'db:history' | 'backup:current';
  /** The label or history id concerned, once it passed validation; null for the section itself or an invalid one. */
  readonly entry: string | null;
  readonly field: InfoField;
  readonly problem: 'missing' | 'invalid' | 'inconsistent';
}

/** Reads fields of one JSON object (or one section), recording problems as it goes. */
export class FieldReader {
  readonly #problems: InfoProblem[];
  readonly #section: InfoProblem['section'];
  readonly #entry: string | null;
  readonly #values: JsonObject;

  constructor(problems: InfoProblem[], section: InfoProblem['section'], entry: string | null, values: JsonObject) {
    this.#problems = problems;
    this.#section = section;
    this.#entry = entry;
    this.#values = values;
  }

  has(field: InfoField): boolean {
    return this.#values.has(field);
  }

  /** `field` read by `read`; absent → null (a problem when required), out of shape → null and a problem. */
  get<T>(field: InfoField, read: (v: JsonValue) => T | null, required = false): T | null {
    const v = this.#values.get(field);
    if (v === undefined) {
      if (required) this.flag(field, 'missing');
      return null;
    }
    const t = read(v);
    if (t === null) this.flag(field, 'invalid');
    return t;
  }

  flag(field: InfoField, problem: InfoProblem['problem']): void {
    this.#problems.push({ section: this.#section, entry: this.#entry, field, problem });
  }
}

export const bool = (v: JsonValue): boolean | null => (typeof v === 'boolean' ? v : null);
export const uint32 = (v: JsonValue): number | null => safeUint(v, 0xffff_ffff);

// ---------------------------------------------------------------------------------------------
// The database and its history (`src/info/infoPg.c`).

export interface PgCurrent {
  /** The history id of the current database. */
  readonly id: number | null;
  readonly systemId: string | null;
  /** Major version as stored (`15`, `9.6`). */
  readonly version: string | null;
  /** Present in backup.info only. */
  readonly catalogVersion: number | null;
  readonly controlVersion: number | null;
}

export interface PgHistoryEntry {
  readonly id: number;
  readonly systemId: string | null;
  readonly version: string | null;
  readonly catalogVersion: number | null;
  readonly controlVersion: number | null;
}

const NO_VALUES: JsonObject = new Map();

/**
 * `[db]` and `[db:history]`. `systemIdKey` is the trap of research §2: archive.info's history
 * entries hold the system identifier under `db-id`, backup.info's under `db-system-id`.
 */
export function readPg(file: InfoFile, problems: InfoProblem[], kind: 'backup' | 'archive'): { readonly current: PgCurrent; readonly history: readonly PgHistoryEntry[] } {
  const dbValues = file.sections.get('db');
  if (dbValues === undefined) problems.push({ section: 'db', entry: null, field: 'db-id', problem: 'missing' });
  const db = new FieldReader(problems, 'db', null, dbValues ?? NO_VALUES);
  const isBackup = kind === 'backup';
  const current: PgCurrent = {
    id: db.get('db-id', (v) => { const n = uint32(v); return n === 0 ? null : n; }, dbValues !== undefined),
    systemId: db.get('db-system-id', systemIdOf, dbValues !== undefined),
    version: db.get('db-version', pgVersionOf, dbValues !== undefined),
    catalogVersion: isBackup ? db.get('db-catalog-version', uint32, dbValues !== undefined) : null,
    controlVersion: isBackup ? db.get('db-control-version', uint32, dbValues !== undefined) : null,
  };

  const history: PgHistoryEntry[] = [];
  for (const [key, value] of file.sections.get('db:history') ?? NO_VALUES) {
    const id = historyIdOf(key);
    if (id === null) {
      problems.push({ section: 'db:history', entry: null, field: 'history-id', problem: 'invalid' });
      continue;
    }
    const entry = String(id);
    if (!isJsonObject(value)) {
      problems.push({ section: 'db:history', entry, field: 'history-id', problem: 'invalid' });
      continue;
    }
    const h = new FieldReader(problems, 'db:history', entry, value);
    history.push({
      id,
      systemId: h.get(isBackup ? 'db-system-id' : 'db-id', systemIdOf, true),
      version: h.get('db-version', pgVersionOf, true),
      catalogVersion: isBackup ? h.get('db-catalog-version', uint32, true) : null,
      controlVersion: isBackup ? h.get('db-control-version', uint32, true) : null,
    });
  }
  history.sort((a, b) => a.id - b.id);

  // The current database is the history entry of its id, and says the same of it.
  if (current.id !== null) {
    const h = history.find((e) => e.id === current.id);
    if (h === undefined) db.flag('db-id', 'inconsistent');
    else {
      if (current.systemId !== null && h.systemId !== null && current.systemId !== h.systemId) db.flag('db-system-id', 'inconsistent');
      if (current.version !== null && h.version !== null && current.version !== h.version) db.flag('db-version', 'inconsistent');
      if (isBackup && current.catalogVersion !== null && h.catalogVersion !== null && current.catalogVersion !== h.catalogVersion) db.flag('db-catalog-version', 'inconsistent');
      if (isBackup && current.controlVersion !== null && h.controlVersion !== null && current.controlVersion !== h.controlVersion) db.flag('db-control-version', 'inconsistent');
    }
  }
  return { current, history };
}

// ---------------------------------------------------------------------------------------------
// backup.info

export interface BackupOptions {
  readonly archiveCheck: boolean | null;
  readonly archiveCopy: boolean | null;
  readonly backupStandby: boolean | null;
  readonly checksumPage: boolean | null;
  /** Whether the backup's files are compressed; the type is only in its manifest. */
  readonly compress: boolean | null;
  readonly hardlink: boolean | null;
  readonly online: boolean | null;
}

/** One `[backup:current]` entry: a backup that completed and has not expired. */
export interface CurrentBackup {
  readonly label: string;
  readonly type: BackupType | null;
  /** The backup a diff or incr was taken against; null for a full. */
  readonly prior: string | null;
  /** Every earlier backup whose files a diff or incr uses; null for a full, or when invalid. */
  readonly reference: readonly string[] | null;
  /** First and last WAL segment the backup needs to be consistent. */
  readonly archiveStart: string | null;
  readonly archiveStop: string | null;
  readonly lsnStart: bigint | null;
  readonly lsnStop: bigint | null;
  /** Epoch seconds. */
  readonly timestampStart: number | null;
  readonly timestampStop: number | null;
  /** Database bytes in the backup / copied by it. */
  readonly size: number | null;
  readonly sizeDelta: number | null;
  /** Repository bytes of the whole set / of this backup's own files. */
  readonly repoSize: number | null;
  readonly repoSizeDelta: number | null;
  /** Block-incremental map sizes, when present. */
  readonly repoSizeMap: number | null;
  readonly repoSizeMapDelta: number | null;
  /** Page-checksum errors were found (`backup-error`); null when the key is absent (older versions). */
  readonly error: boolean | null;
  /** The `[db:history]` entry the backup belongs to. */
  readonly dbId: number | null;
  readonly options: BackupOptions;
  readonly annotations: ReadonlyMap<string, string> | null;
  readonly backrestFormat: number | null;
  readonly backrestVersion: string | null;
}

export interface BackupInfo {
  readonly db: PgCurrent;
  /** By id, ascending. */
  readonly history: readonly PgHistoryEntry[];
  /** In file order (pgBackRest writes them sorted by label). */
  readonly backups: readonly CurrentBackup[];
  /** `[backup:current]` entries dropped because their key is not a pgBackRest label. */
  readonly invalidLabels: number;
  /** The file carries a `[cipher]` passphrase: the manifests and data files are encrypted. */
  readonly encrypted: boolean;
  readonly problems: readonly InfoProblem[];
}

const BACKREST_VERSION = /^[0-9]{1,3}\.[0-9]{1,3}(?:\.[0-9]{1,3})?(?:dev)?$/;
const size = (v: JsonValue): number | null => safeUint(v);

function referenceList(v: JsonValue): readonly string[] | null {
  if (!Array.isArray(v)) return null;
  const out: string[] = [];
  for (const item of v as readonly JsonValue[]) {
    const l = labelOf(item);
    if (l === null || out.includes(l)) return null;
    out.push(l);
  }
  return out;
}

function readBackup(label: string, values: JsonObject, problems: InfoProblem[], history: readonly PgHistoryEntry[]): CurrentBackup {
  const r = new FieldReader(problems, 'backup:current', label, values);
  const type = r.get('backup-type', (v) => (v === 'full' || v === 'diff' || v === 'incr' ? v : null), true);
  const prior = r.get('backup-prior', labelOf);
  const reference = r.get('backup-reference', referenceList);
  const b: CurrentBackup = {
    label,
    type,
    prior,
    reference,
    archiveStart: r.get('backup-archive-start', walNameOf),
    archiveStop: r.get('backup-archive-stop', walNameOf),
    lsnStart: r.get('backup-lsn-start', lsnOf),
    lsnStop: r.get('backup-lsn-stop', lsnOf),
    timestampStart: r.get('backup-timestamp-start', epochOf, true),
    timestampStop: r.get('backup-timestamp-stop', epochOf, true),
    size: r.get('backup-info-size', size, true),
    sizeDelta: r.get('backup-info-size-delta', size, true),
    repoSize: r.get('backup-info-repo-size', size, true),
    repoSizeDelta: r.get('backup-info-repo-size-delta', size, true),
    repoSizeMap: r.get('backup-info-repo-size-map', size),
    repoSizeMapDelta: r.get('backup-info-repo-size-map-delta', size, r.has('backup-info-repo-size-map')),
    error: r.get('backup-error', bool),
    dbId: r.get('db-id', (v) => { const n = uint32(v); return n === 0 ? null : n; }, true),
    options: {
      archiveCheck: r.get('option-archive-check', bool, true),
      archiveCopy: r.get('option-archive-copy', bool, true),
      backupStandby: r.get('option-backup-standby', bool, true),
      checksumPage: r.get('option-checksum-page', bool, true),
      compress: r.get('option-compress', bool, true),
      hardlink: r.get('option-hardlink', bool, true),
      online: r.get('option-online', bool, true),
    },
    annotations: r.get('backup-annotation', annotationsOf),
    backrestFormat: r.get('backrest-format', uint32, true),
    backrestVersion: r.get('backrest-version', (v) => (typeof v === 'string' && BACKREST_VERSION.test(v) ? v : null), true),
  };

  // What the label, the type, the prior and the reference list say must agree (backupLabelFormat).
  const declared = labelType(label);
  if (type !== null && type !== declared) r.flag('backup-type', 'inconsistent');
  const set = label.slice(0, FULL_LABEL_LENGTH);
  if (declared === 'full') {
    if (r.has('backup-prior')) r.flag('backup-prior', 'inconsistent');
    if (r.has('backup-reference')) r.flag('backup-reference', 'inconsistent');
  } else {
    if (!r.has('backup-prior')) r.flag('backup-prior', 'missing');
    // A diff's prior is its full; an incr's is any earlier backup of the same set.
    else if (prior !== null && (prior.slice(0, FULL_LABEL_LENGTH) !== set || prior >= label || (declared === 'diff' && prior !== set))) r.flag('backup-prior', 'inconsistent');
    if (!r.has('backup-reference')) r.flag('backup-reference', 'missing');
    else if (reference !== null && (reference.some((l) => l.slice(0, FULL_LABEL_LENGTH) !== set || l >= label) || (prior !== null && !reference.includes(prior)))) r.flag('backup-reference', 'inconsistent');
  }
  if (b.lsnStart !== null && b.lsnStop !== null && b.lsnStart > b.lsnStop) r.flag('backup-lsn-stop', 'inconsistent');
  if (b.timestampStart !== null && b.timestampStop !== null && b.timestampStart > b.timestampStop) r.flag('backup-timestamp-stop', 'inconsistent');
  if (b.dbId !== null && !history.some((h) => h.id === b.dbId)) r.flag('db-id', 'inconsistent');
  return b;
}

/** The typed view of a loaded `backup.info`. */
export function readBackupInfo(file: InfoFile): BackupInfo {
  const problems: InfoProblem[] = [];
  const { current, history } = readPg(file, problems, 'backup');
  const backups: CurrentBackup[] = [];
  let invalidLabels = 0;
  for (const [key, value] of file.sections.get('backup:current') ?? NO_VALUES) {
    if (!LABEL.test(key)) {
      invalidLabels++;
      continue;
    }
    if (!isJsonObject(value)) {
      problems.push({ section: 'backup:current', entry: key, field: 'label', problem: 'invalid' });
      continue;
    }
    backups.push(readBackup(key, value, problems, history));
  }
  return { db: current, history, backups, invalidLabels, encrypted: file.cipherPass, problems };
}
