/**
 * Parses a barman-cloud `backup.info` (Barman's `FieldListFile`: one `key=value` line per field,
 * values as Barman dumps them) into validated, allowlisted facts. The file is untrusted:
 * - size, encoding and line shape problems reject the whole file with a typed reason;
 * - a known field with a value out of shape becomes `null` and is listed in `problems`, so the
 *   backup cannot be judged usable on it;
 * - unknown keys are tolerated unread (newer Barman adds fields) — their values never travel.
 * No text from the file is exported except values that passed an allowlist or a strict pattern,
 * and the backup's name (printable, bounded), which only the operator's pages show, escaped.
 *
 * Field facts: research barman-cloud-format.md §2 (Barman 3.17 `barman/infofile.py`) and the
 * real files of real-repository.md (Barman 3.4).
 */
import type { BackupItem } from '../../contract/collections.ts';
import { BACKUP_STATUSES } from '../../contract/values.ts';
import { isValidSegmentSize, parseLsn } from '../../postgres/wal.ts';
import { parsePythonLiteral, type PyValue } from './python-literal.ts';

export type BackupStatus = (typeof BACKUP_STATUSES)[number];
export type BackupType = NonNullable<BackupItem['backup_type']>;

/** Fields viewer reads; a problem names one of these, never anything from the file. */
export const READ_FIELDS = [
  'status', 'mode', 'parent_backup_id', 'snapshots_info', 'timeline', 'systemid', 'version', 'xlog_segment_size',
  'begin_wal', 'end_wal', 'begin_xlog', 'end_xlog', 'begin_time', 'end_time', 'cluster_size', 'size',
  'deduplicated_size', 'encryption', 'tablespaces', 'error', 'backup_name',
] as const;
export type ReadField = (typeof READ_FIELDS)[number];

/** The most of a recorded error text a backup.info hands on (Barman writes one line; a hostile file may not). */
export const ERROR_TEXT_MAX = 512;

export interface BackupInfoProblem {
  readonly field: ReadField;
  readonly problem: 'invalid' | 'missing';
}

export interface BackupInfo {
  readonly status: BackupStatus | null;
  readonly backupType: BackupType | null;
  readonly timeline: number | null;
  readonly systemId: string | null;
  /** PostgreSQL `server_version_num`, e.g. 150018. */
  readonly version: number | null;
  readonly segmentSize: number | null;
  readonly beginWal: string | null;
  readonly endWal: string | null;
  readonly beginLsn: bigint | null;
  readonly endLsn: bigint | null;
  /** RFC 3339 UTC (`…Z`), fraction as written. */
  readonly beginAt: string | null;
  readonly endAt: string | null;
  /** PostgreSQL's own size of the cluster (Barman 3.11+ `cluster_size`). */
  readonly clusterSize: number | null;
  /** Deduplicated size, only when Barman declared one. */
  readonly deduplicatedSize: number | null;
  /** Declared client-side encryption: `none` only when the field says `None` and exists. */
  readonly encryption: 'none' | 'gpg' | null;
  /** Tablespace OIDs, each of which needs its own data archive; `[]` when declared `None`. */
  readonly tablespaceOids: readonly number[] | null;
  /** True when Barman recorded an error text. */
  readonly hasError: boolean;
  /**
   * The error text Barman recorded (`error`), at most ERROR_TEXT_MAX characters as read (the page
   * drops control characters and escapes it); null when none. Shown on the operator's page only,
   * as `barman-cloud-backup-list --format json` shows it, never on the wire.
   */
  readonly errorText: string | null;
  /**
   * The name the operator gave the backup (`barman-cloud-backup -n`), as `barman-cloud-backup-list`
   * shows it; null when none, or when it is not printable text of at most 128 characters (a name
   * is a label for the operator, never evidence: a bad one is dropped, not a problem).
   */
  readonly name: string | null;
  readonly problems: readonly BackupInfoProblem[];
}

export type BackupInfoFailure = 'backup-info-too-large' | 'backup-info-not-utf8' | 'backup-info-malformed';
export type BackupInfoResult = { readonly ok: true; readonly info: BackupInfo } | { readonly ok: false; readonly reason: BackupInfoFailure };

/** Real files are ~1.2 KiB; hook-mode files with many tablespaces stay far below this. */
export const MAX_BACKUP_INFO_BYTES = 256 * 1024;
const MAX_LINE_BYTES = 64 * 1024;
const KEY = /^[a-z][a-z0-9_]{0,63}$/;
const WAL = /^[0-9A-F]{24}$/;
const SYSTEM_ID = /^(?:0|[1-9][0-9]{0,19})$/;
const INTEGER = /^(?:0|[1-9][0-9]{0,15})$/;
// Python's str(datetime): "YYYY-MM-DD HH:MM:SS[.ffffff][+HH:MM[:SS]]".
const TIMESTAMP = /^([0-9]{4})-([0-9]{2})-([0-9]{2}) ([0-9]{2}):([0-9]{2}):([0-9]{2})(?:\.([0-9]{1,6}))?(?:([+-])([0-9]{2}):([0-9]{2})(?::([0-9]{2}))?)?$/;

/** Longest backup name kept, in characters (Barman sets none; names it writes are short). */
export const MAX_BACKUP_NAME_CHARS = 128;
// Controls, format characters (bidirectional overrides among them), surrogates, private-use and
// unassigned code points, line and paragraph separators: none is shown to an operator.
const UNPRINTABLE = /[\p{C}\p{Zl}\p{Zp}]/u;

/**
 * `backup_name` as Barman writes it: `str(name)`, not `repr()` (infofile.py has no dump function
 * for it; the real repository holds `backup_name=before-incident`), stripped like every value.
 */
function backupName(text: string | null | undefined): string | null {
  if (text === undefined || text === null || text === '') return null;
  if ([...text].length > MAX_BACKUP_NAME_CHARS || UNPRINTABLE.test(text)) return null;
  return text;
}

/** Splits the file into fields; `null` when it is not a well-formed field list. */
function fieldsOf(text: string): Map<string, string> | null {
  const fields = new Map<string, string>();
  for (const raw of text.split('\n')) {
    if (Buffer.byteLength(raw) > MAX_LINE_BYTES) return null;
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const eq = line.indexOf('=');
    if (eq === -1) return null;
    const key = line.slice(0, eq).trim();
    if (!KEY.test(key) || fields.has(key)) return null;
    fields.set(key, line.slice(eq + 1).trim());
  }
  return fields;
}

/** Python `str(datetime)` with a UTC offset → RFC 3339 UTC; naive or impossible times are `null`. */
export function pythonTimestampToUtc(text: string): string | null {
  const m = TIMESTAMP.exec(text);
  if (m === null || m[8] === undefined) return null;
  const [, y, mo, d, h, mi, s, frac, sign, oh, om, os] = m;
  const local = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s));
  const check = new Date(local);
  if (check.getUTCDate() !== Number(d) || check.getUTCMonth() !== Number(mo) - 1 || check.getUTCFullYear() !== Number(y) || Number(h) > 23 || Number(mi) > 59 || Number(s) > 59) return null;
  // Python writes offset minutes and seconds below 60; anything else is no timestamp it wrote.
  if (Number(om) > 59 || Number(os ?? 0) > 59) return null;
  const offset = (Number(oh) * 3600 + Number(om) * 60 + Number(os ?? 0)) * (sign === '-' ? -1 : 1);
  if (Math.abs(offset) >= 24 * 3600) return null;
  const utc = new Date(local - offset * 1000);
  if (utc.getUTCFullYear() < 1971 || utc.getUTCFullYear() > 9999) return null;
  const iso = utc.toISOString().slice(0, 19);
  return frac === undefined ? `${iso}Z` : `${iso}.${frac}Z`;
}

class FieldReader {
  readonly problems: BackupInfoProblem[] = [];
  readonly #fields: Map<string, string>;
  constructor(fields: Map<string, string>) {
    this.#fields = fields;
  }

  /** The raw text of a field, `null` for Python `None`, `undefined` when absent. */
  raw(field: ReadField): string | null | undefined {
    const v = this.#fields.get(field);
    return v === 'None' ? null : v;
  }

  /** A field parsed by `parse`; an unparsable value is recorded and read as `null`. */
  get<T>(field: ReadField, parse: (text: string) => T | null, required = false): T | null {
    const v = this.raw(field);
    if (v === undefined || v === null) {
      if (required) this.problems.push({ field, problem: 'missing' });
      return null;
    }
    const parsed = parse(v);
    if (parsed === null) this.problems.push({ field, problem: 'invalid' });
    return parsed;
  }

  literal(field: ReadField): PyValue | undefined {
    const v = this.raw(field);
    if (v === undefined) return undefined;
    if (v === null) return null;
    const parsed = parsePythonLiteral(v);
    if (parsed === undefined) this.problems.push({ field, problem: 'invalid' });
    return parsed;
  }
}

const integer = (max = Number.MAX_SAFE_INTEGER) => (t: string) => (INTEGER.test(t) && Number(t) <= max ? Number(t) : null);
const matching = (re: RegExp) => (t: string) => (re.test(t) ? t : null);

function systemId(t: string): string | null {
  return SYSTEM_ID.test(t) && BigInt(t) <= 0xffff_ffff_ffff_ffffn ? t : null;
}

/** Barman's `backup_type` property, applied to what the file declares. */
function backupTypeOf(r: FieldReader, snapshot: boolean): BackupType | null {
  const mode = r.raw('mode');
  const parent = r.raw('parent_backup_id');
  if (snapshot || (typeof mode === 'string' && mode.startsWith('snapshot'))) return 'snapshot';
  if (typeof mode === 'string' && mode.startsWith('rsync')) return 'rsync';
  if (typeof parent === 'string') return 'incremental';
  // Direct cloud backups write mode=None; a hook upload carries the Barman server's mode.
  // Barman always writes the line (mode=None for a direct cloud backup): without it the type is unknown.
  if (mode === undefined) {
    r.problems.push({ field: 'mode', problem: 'missing' });
    return null;
  }
  if (mode === null || mode === 'postgres' || mode === 'concurrent' || mode === 'exclusive' || mode === 'passive') return 'full';
  r.problems.push({ field: 'mode', problem: 'invalid' });
  return null;
}

function tablespaceOids(r: FieldReader): readonly number[] | null {
  const value = r.literal('tablespaces');
  if (value === undefined || value === null) return value === null ? [] : null;
  // repr([tuple(t) ...]): a list of (name, oid, location) tuples.
  if (!Array.isArray(value)) return invalid(r, 'tablespaces');
  const oids: number[] = [];
  for (const t of value) {
    if (!Array.isArray(t) || t.length !== 3 || typeof t[1] !== 'number' || !Number.isInteger(t[1]) || t[1] <= 0 || t[1] > 0xffffffff) return invalid(r, 'tablespaces');
    oids.push(t[1]);
  }
  if (new Set(oids).size !== oids.length) return invalid(r, 'tablespaces');
  return oids.sort((a, b) => a - b);
}

function invalid(r: FieldReader, field: ReadField): null {
  r.problems.push({ field, problem: 'invalid' });
  return null;
}

/** Parses the raw bytes of one `backup.info`. */
export function parseBackupInfo(bytes: Uint8Array): BackupInfoResult {
  if (bytes.byteLength > MAX_BACKUP_INFO_BYTES) return { ok: false, reason: 'backup-info-too-large' };
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return { ok: false, reason: 'backup-info-not-utf8' };
  }
  const fields = fieldsOf(text);
  if (fields === null) return { ok: false, reason: 'backup-info-malformed' };
  const r = new FieldReader(fields);

  const status = r.get('status', (t) => ((BACKUP_STATUSES as readonly string[]).includes(t) ? (t as BackupStatus) : null), true);
  const snapshotsInfo = r.raw('snapshots_info');
  const backupType = backupTypeOf(r, typeof snapshotsInfo === 'string');
  const encryptionRaw = r.raw('encryption');
  const encryption = encryptionRaw === null ? 'none' : encryptionRaw === 'gpg' ? 'gpg' : encryptionRaw === undefined ? null : invalid(r, 'encryption');
  const errorRaw = r.raw('error');

  const info: BackupInfo = {
    status,
    backupType,
    timeline: r.get('timeline', (t) => { const n = integer(0xffffffff)(t); return n === 0 ? null : n; }, true),
    systemId: r.get('systemid', systemId, true),
    version: r.get('version', integer(9_999_999), true),
    segmentSize: r.get('xlog_segment_size', (t) => { const n = integer()(t); return n !== null && isValidSegmentSize(n) ? n : null; }, true),
    beginWal: r.get('begin_wal', matching(WAL), true),
    endWal: r.get('end_wal', matching(WAL)),
    beginLsn: r.get('begin_xlog', parseLsn, true),
    endLsn: r.get('end_xlog', parseLsn),
    beginAt: r.get('begin_time', pythonTimestampToUtc, true),
    endAt: r.get('end_time', pythonTimestampToUtc),
    clusterSize: r.get('cluster_size', integer()) ?? r.get('size', integer()),
    deduplicatedSize: r.get('deduplicated_size', integer()),
    encryption,
    tablespaceOids: tablespaceOids(r),
    hasError: typeof errorRaw === 'string' && errorRaw !== '',
    errorText: typeof errorRaw === 'string' && errorRaw !== '' ? errorRaw.slice(0, ERROR_TEXT_MAX) : null,
    name: backupName(r.raw('backup_name')),
    problems: r.problems,
  };
  return { ok: true, info };
}
