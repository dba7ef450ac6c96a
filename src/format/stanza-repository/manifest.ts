/**
 * pgBackRest's `backup.manifest` (and its `.copy`), read incrementally: chunks are pushed as they
 * arrive and each line is folded into a bounded aggregate, so a manifest of hundreds of thousands
 * of files is never held whole. What is kept: the `[backup]`, `[backup:db]` and `[backup:option]`
 * facts (known keys only), and from `[target:file]` what structural checks of the backup's
 * objects need — counts and sums, the labels files are referenced from, per bundle of this backup
 * the length it must have, and the (key, size) of every separate object this backup stores, up
 * to a ceiling; from `[backup:target]`, how many tablespaces it links (`pg_tblspc/<oid>` targets,
 * counted, their host paths never kept). Ownership, checksums and timestamps of files are read for
 * shape only and never kept.
 *
 * Same line grammar, JSON and checksum as the info files (info-file.ts `InfoStream`). Problems
 * are typed and counted per field; no text from the manifest appears in any of them.
 *
 * Facts: shared/research/pgbackrest-format.md §3; pgBackRest `src/info/manifest/serialize.c.inc`
 * (2.59.1; `src/info/manifest.c` in 2.45) `manifestLoadCallback`, `src/command/backup/common.c`
 * `backupFileRepoPath` (where a file's bytes are), `src/command/verify/verify.c` (which files have
 * objects: all but zero-length files of a bundled backup). See docs/design/stanza-repository.md.
 */
import { InfoStream, isJsonObject, utf8Text, type InfoChecksum, type InfoFailure, type InfoLimits, type JsonValue } from './info-file.ts';
import { FULL_LABEL_LENGTH, epochOf, labelOf, labelType, lsnOf, pgVersionOf, safeUint, systemIdOf, walNameOf, type BackupType } from './backup-info.ts';
import { WAL_COMPRESSIONS, type WalCompression } from './wal-keys.ts';

/**
 * Ceiling of one manifest: 64 MiB is some 380,000 files at ~175 bytes a line, as pgBackRest 2.45
 * writes them (a 10,000-table database's manifest is ~10 MiB; see the design note). Keys are paths under the data directory or a
 * tablespace (PATH_MAX is 4096 bytes).
 */
export const MANIFEST_LIMITS: InfoLimits = {
  maxBytes: 64 * 1024 * 1024,
  maxLines: 2_000_000,
  maxLineBytes: 1024 * 1024,
  maxKeyBytes: 4096,
  maxSections: 64,
};
/** Separate objects of this backup listed by (key, size); beyond it the list is `truncated`. */
export const MAX_STORED_OBJECTS = 100_000;
/** Bundles of this backup whose required length is kept; beyond it `bundlesTruncated`. */
export const MAX_BUNDLES = 100_000;

export type CompressType = 'none' | WalCompression;
const COMPRESS_TYPES: readonly string[] = ['none', ...WAL_COMPRESSIONS];
/** Extension of a separately stored block-incremental file (`BACKUP_BLOCK_INCR_EXT`). */
export const BLOCK_INCR_EXTENSION = '.pgbi';

export interface ManifestBackup {
  readonly label: string | null;
  readonly type: BackupType | null;
  readonly prior: string | null;
  /** `backup-reference`: every label of the set the backup uses, itself included (newer versions). */
  readonly reference: readonly string[] | null;
  /** Absent from the early copy of a backup that never finished. */
  readonly archiveStart: string | null;
  readonly archiveStop: string | null;
  readonly lsnStart: bigint | null;
  readonly lsnStop: bigint | null;
  /** Epoch seconds; the stop is 0 in the early copy of an unfinished backup. */
  readonly timestampStart: number | null;
  readonly timestampCopyStart: number | null;
  readonly timestampStop: number | null;
  readonly bundle: boolean | null;
  readonly bundleRaw: boolean | null;
  readonly blockIncr: boolean | null;
}

export interface ManifestDb {
  /** 0, with a system id of 0, in the early copy of an unfinished backup. */
  readonly id: number | null;
  readonly systemId: string | null;
  readonly version: string | null;
  readonly catalogVersion: number | null;
  readonly controlVersion: number | null;
}

export interface ManifestOptions {
  /** `option-compress-type`, else `gz`/`none` from the older boolean `option-compress`. */
  readonly compressType: CompressType | null;
  readonly compressLevel: number | null;
  readonly archiveCheck: boolean | null;
  readonly archiveCopy: boolean | null;
  readonly backupStandby: boolean | null;
  readonly checksumPage: boolean | null;
  readonly delta: boolean | null;
  readonly hardlink: boolean | null;
  readonly online: boolean | null;
  readonly processMax: number | null;
  readonly bufferSize: number | null;
}

/** A separate object this backup stores: its key relative to `backup/<stanza>/<label>/`, and its size. */
export interface StoredObject {
  readonly key: string;
  readonly repoSize: number;
}

export interface ManifestFiles {
  /** `[target:file]` entries, valid or not. */
  readonly files: number;
  /** Entries without a usable size, name or location: in no count below. */
  readonly invalid: number;
  /** PostgreSQL bytes / repository bytes over valid entries. */
  readonly size: number;
  readonly repoSize: number;
  /** Entries whose bytes this backup stores (no `reference`), and their repository bytes. */
  readonly storedFiles: number;
  readonly storedRepoSize: number;
  /** Entries whose bytes an earlier backup of the set holds (`reference`). */
  readonly referencedFiles: number;
  readonly referencedRepoSize: number;
  /** Labels named by `reference`, sorted (validated labels only). */
  readonly references: readonly string[];
  readonly zeroLength: number;
  /** Entries with block-incremental data (`bi`). */
  readonly blockIncremental: number;
  /** Non-empty entries without a content checksum (a copy saved while the backup ran). */
  readonly withoutChecksum: number;
  /** Per bundle id of this backup, the bytes `bundle/<id>` must hold at least (max `bno` + `repo-size`). */
  readonly bundles: ReadonlyMap<number, number>;
  readonly bundlesTruncated: boolean;
  /** Separate objects this backup stores (not bundled, not referenced, and not a zero-length file of a bundled backup). */
  readonly stored: {
    readonly objects: readonly StoredObject[];
    /** How many there are, listed or not. */
    readonly total: number;
    readonly truncated: boolean;
  } | null;
}

export const MANIFEST_FIELDS = [
  'backup-label', 'backup-type', 'backup-prior', 'backup-reference', 'backup-archive-start', 'backup-archive-stop',
  'backup-lsn-start', 'backup-lsn-stop', 'backup-timestamp-start', 'backup-timestamp-copy-start', 'backup-timestamp-stop',
  'backup-bundle', 'backup-bundle-raw', 'backup-block-incr',
  'db-id', 'db-system-id', 'db-version', 'db-catalog-version', 'db-control-version',
  'option-compress-type', 'option-compress', 'option-compress-level', 'option-archive-check', 'option-archive-copy',
  'option-backup-standby', 'option-checksum-page', 'option-delta', 'option-hardlink', 'option-online',
  'option-process-max', 'option-buffer-size',
  'name', 'order', 'entry', 'size', 'repo-size', 'reference', 'bni', 'bno', 'bi', 'bim', 'checksum', 'timestamp',
] as const;
export type ManifestField = (typeof MANIFEST_FIELDS)[number];

export interface ManifestProblem {
  readonly section: 'backup' | 'backup:db' | 'backup:option' | 'target:file';
  readonly field: ManifestField;
  readonly problem: 'missing' | 'invalid' | 'inconsistent';
  /** How many entries; for an inconsistent `reference`, how many labels; 1 outside `[target:file]`. */
  readonly count: number;
}

export interface Manifest {
  readonly checksum: InfoChecksum;
  readonly format: number | null;
  readonly version: string | null;
  /** What pgBackRest's own load would accept at the file level: checksum valid, format absent or 5. */
  readonly loadable: boolean;
  /** The manifest carries its data files' passphrase: they are encrypted. */
  readonly encrypted: boolean;
  /** SHA-1 of the manifest's bytes (compared with the copy's). */
  readonly digest: string;
  readonly bytes: number;
  readonly backup: ManifestBackup;
  readonly db: ManifestDb;
  readonly options: ManifestOptions;
  readonly files: ManifestFiles;
  /** Tablespaces the backup holds: `[backup:target]` entries `pg_tblspc/<oid>` (0 when it lists none). */
  readonly tablespaces: number;
  readonly problems: readonly ManifestProblem[];
}

export type ManifestResult = ({ readonly ok: true } & Manifest) | { readonly ok: false; readonly reason: InfoFailure; readonly line: number | null };

export interface ManifestParseOptions {
  readonly limits?: InfoLimits;
  readonly maxStoredObjects?: number;
  readonly maxBundles?: number;
}

type HeaderSection = 'backup' | 'backup:db' | 'backup:option';
const HEADER_KEYS: Readonly<Record<HeaderSection, ReadonlySet<string>>> = {
  backup: new Set(['backup-label', 'backup-type', 'backup-prior', 'backup-reference', 'backup-archive-start', 'backup-archive-stop', 'backup-lsn-start', 'backup-lsn-stop', 'backup-timestamp-start', 'backup-timestamp-copy-start', 'backup-timestamp-stop', 'backup-bundle', 'backup-bundle-raw', 'backup-block-incr']),
  'backup:db': new Set(['db-id', 'db-system-id', 'db-version', 'db-catalog-version', 'db-control-version']),
  'backup:option': new Set(['option-compress-type', 'option-compress', 'option-compress-level', 'option-archive-check', 'option-archive-copy', 'option-backup-standby', 'option-checksum-page', 'option-delta', 'option-hardlink', 'option-online', 'option-process-max', 'option-buffer-size']),
};

const CHECKSUM = /^[0-9a-f]{40}$/;
const ROOTS = ['pg_data/', 'pg_tblspc/'];
/** A tablespace's target name in `[backup:target]` (keys are unique: the info grammar refuses a repeated key). */
const TABLESPACE_TARGET = /^pg_tblspc\/[1-9][0-9]{0,9}$/;
const BAD_PART = /(?:^|\/)\.{0,2}(?:\/|$)/;

/** A manifest name: under pg_data/ or pg_tblspc/, no empty, `.` or `..` part, no control byte. */
function isName(name: string): boolean {
  const root = ROOTS.find((r) => name.startsWith(r));
  if (root === undefined || BAD_PART.test(name.slice(root.length))) return false;
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    if (c < 0x20 || c === 0x7f) return false;
  }
  return true;
}

const uint32 = (v: JsonValue): number | null => safeUint(v, 0xffff_ffff);
const bool = (v: JsonValue): boolean | null => (typeof v === 'boolean' ? v : null);
const size = (v: JsonValue): number | null => safeUint(v);

/**
 * A copy of `s` that shares no memory with the text it was cut from: V8 keeps a slice's parent
 * alive, and a name cut from a 64 KiB chunk would otherwise pin the chunk for as long as the list.
 */
function detach(s: string): string {
  // UTF-8 both ways round-trips any string without lone surrogates: byte strings and decoded names alike.
  return Buffer.from(s, 'utf8').toString('utf8');
}

/** A separate object of this backup, before the extension is known. */
interface PendingStored {
  readonly name: string;
  readonly repoSize: number;
  readonly zero: boolean;
  readonly blockIncr: boolean;
}

/** A `backup.manifest` read chunk by chunk. */
export class ManifestParser {
  readonly #stream: InfoStream;
  readonly #maxStored: number;
  readonly #maxBundles: number;
  readonly #header = { backup: new Map<string, JsonValue>(), 'backup:db': new Map<string, JsonValue>(), 'backup:option': new Map<string, JsonValue>() };
  readonly #problems = new Map<string, ManifestProblem>();
  readonly #references = new Set<string>();
  readonly #bundles = new Map<number, number>();
  readonly #stored: PendingStored[] = [];
  #bundlesTruncated = false;
  #storedTotal = 0;
  #storedZeroTotal = 0;
  #storedTruncated = false;
  #lastName: string | null = null;
  #files = 0;
  #invalid = 0;
  #size = 0;
  #repoSize = 0;
  #storedFiles = 0;
  #storedRepoSize = 0;
  #referencedFiles = 0;
  #referencedRepoSize = 0;
  #zero = 0;
  #blockIncremental = 0;
  #withoutChecksum = 0;
  #tablespaces = 0;
  #result: ManifestResult | undefined;

  constructor(options: ManifestParseOptions = {}) {
    this.#maxStored = options.maxStoredObjects ?? MAX_STORED_OBJECTS;
    this.#maxBundles = options.maxBundles ?? MAX_BUNDLES;
    this.#stream = new InfoStream(options.limits ?? MANIFEST_LIMITS, (section, key, value) => this.#value(section, key, value));
  }

  /** Feeds the next bytes; false once the manifest is refused (further input is ignored). */
  push(chunk: Uint8Array): boolean {
    return this.#stream.push(chunk);
  }

  end(): ManifestResult {
    this.#result ??= this.#finish();
    return this.#result;
  }

  #flag(section: ManifestProblem['section'], field: ManifestField, problem: ManifestProblem['problem']): void {
    const id = `${section}|${field}|${problem}`;
    const p = this.#problems.get(id);
    this.#problems.set(id, { section, field, problem, count: (p?.count ?? 0) + 1 });
  }

  #value(section: string, key: string, value: JsonValue): InfoFailure | null {
    if (section === 'target:file') {
      this.#file(key, value);
      return null;
    }
    // A tablespace target (manifestLoadCallback: `pg_tblspc/<oid>`, a link); its path is never kept.
    if (section === 'backup:target') {
      if (TABLESPACE_TARGET.test(key)) this.#tablespaces += 1;
      return null;
    }
    if (section === 'backup' || section === 'backup:db' || section === 'backup:option') {
      // Known keys only: a hostile section of a million keys holds no memory.
      if (!HEADER_KEYS[section].has(key)) return null;
      const values = this.#header[section];
      if (values.has(key)) return 'duplicate-key';
      values.set(key, typeof value === 'string' ? detach(value) : value);
    }
    return null;
  }

  #file(rawName: string, value: JsonValue): void {
    this.#files++;
    // pgBackRest writes files sorted by name (byte order): a name not after its predecessor is a duplicate or a splice.
    if (this.#lastName !== null && rawName <= this.#lastName) this.#flag('target:file', 'order', 'inconsistent');
    this.#lastName = rawName;
    const name = isName(rawName) ? utf8Text(rawName) : null;
    if (name === null) return this.#invalidFile('name', 'invalid');
    if (!isJsonObject(value)) return this.#invalidFile('entry', 'invalid');

    const sizeValue = value.get('size');
    if (sizeValue === undefined) return this.#invalidFile('size', 'missing');
    const fileSize = size(sizeValue);
    if (fileSize === null) return this.#invalidFile('size', 'invalid');
    const repoSizeValue = value.get('repo-size');
    // repo-size is written only when it differs from size (serialize.c.inc).
    const repoSize = repoSizeValue === undefined ? fileSize : size(repoSizeValue);
    if (repoSize === null) return this.#invalidFile('repo-size', 'invalid');
    const referenceValue = value.get('reference');
    const reference = referenceValue === undefined ? null : labelOf(referenceValue);
    if (referenceValue !== undefined && reference === null) return this.#invalidFile('reference', 'invalid');
    const bniValue = value.get('bni');
    const bundleId = bniValue === undefined ? null : safeUint(bniValue);
    if (bniValue !== undefined && (bundleId === null || bundleId === 0)) return this.#invalidFile('bni', 'invalid');
    const bnoValue = value.get('bno');
    const bundleOffset = bnoValue === undefined ? 0 : safeUint(bnoValue);
    if (bundleOffset === null) return this.#invalidFile('bno', 'invalid');
    if (bnoValue !== undefined && bniValue === undefined) this.#flag('target:file', 'bno', 'inconsistent');
    const biValue = value.get('bi');
    if (biValue !== undefined && size(biValue) === null) return this.#invalidFile('bi', 'invalid');
    const bimValue = value.get('bim');
    const blockMap = bimValue === undefined ? 0 : size(bimValue);
    if (blockMap === null) return this.#invalidFile('bim', 'invalid');

    // Read for shape only; neither is kept. A zero-length file has no checksum written (its hash is fixed).
    const checksum = value.get('checksum');
    if (checksum === undefined) {
      if (fileSize !== 0) this.#withoutChecksum++;
    }
    else if (typeof checksum !== 'string' || !CHECKSUM.test(checksum)) this.#flag('target:file', 'checksum', 'invalid');
    const timestamp = value.get('timestamp');
    if (timestamp === undefined) this.#flag('target:file', 'timestamp', 'missing');
    else if (typeof timestamp !== 'bigint') this.#flag('target:file', 'timestamp', 'invalid');

    this.#size += fileSize;
    this.#repoSize += repoSize;
    if (fileSize === 0) this.#zero++;
    if (biValue !== undefined) this.#blockIncremental++;
    if (reference !== null) {
      this.#referencedFiles++;
      this.#referencedRepoSize += repoSize;
      if (!this.#references.has(reference)) this.#references.add(detach(reference));
      return;
    }
    this.#storedFiles++;
    this.#storedRepoSize += repoSize;
    if (bundleId !== null) {
      const need = bundleOffset + repoSize;
      const known = this.#bundles.get(bundleId);
      if (known !== undefined) this.#bundles.set(bundleId, Math.max(known, need));
      else if (this.#bundles.size < this.#maxBundles) this.#bundles.set(bundleId, need);
      else this.#bundlesTruncated = true;
      return;
    }
    // A separate object — unless the backup turns out bundled and the file is empty (decided at the end).
    this.#storedTotal++;
    if (fileSize === 0) this.#storedZeroTotal++;
    if (this.#stored.length < this.#maxStored) this.#stored.push({ name: detach(name), repoSize, zero: fileSize === 0, blockIncr: blockMap !== 0 });
    else this.#storedTruncated = true;
  }

  #invalidFile(field: ManifestField, problem: 'missing' | 'invalid'): void {
    this.#invalid++;
    this.#flag('target:file', field, problem);
  }

  #get<T>(section: HeaderSection, field: ManifestField, read: (v: JsonValue) => T | null, required = false): T | null {
    const v = this.#header[section].get(field);
    if (v === undefined) {
      if (required) this.#flag(section, field, 'missing');
      return null;
    }
    const t = read(v);
    if (t === null) this.#flag(section, field, 'invalid');
    return t;
  }

  #finish(): ManifestResult {
    const end = this.#stream.end();
    if (!end.ok) return end;

    const referenceList = (v: JsonValue): readonly string[] | null => {
      if (typeof v !== 'string') return null;
      const labels = v.split(',');
      return labels.every((l) => labelOf(l) !== null) && new Set(labels).size === labels.length ? labels : null;
    };
    const backup: ManifestBackup = {
      label: this.#get('backup', 'backup-label', labelOf, true),
      type: this.#get('backup', 'backup-type', (v) => (v === 'full' || v === 'diff' || v === 'incr' ? v : null), true),
      prior: this.#get('backup', 'backup-prior', labelOf),
      reference: this.#get('backup', 'backup-reference', referenceList),
      archiveStart: this.#get('backup', 'backup-archive-start', walNameOf),
      archiveStop: this.#get('backup', 'backup-archive-stop', walNameOf),
      lsnStart: this.#get('backup', 'backup-lsn-start', lsnOf),
      lsnStop: this.#get('backup', 'backup-lsn-stop', lsnOf),
      timestampStart: this.#get('backup', 'backup-timestamp-start', epochOf, true),
      timestampCopyStart: this.#get('backup', 'backup-timestamp-copy-start', epochOf),
      timestampStop: this.#get('backup', 'backup-timestamp-stop', epochOf),
      bundle: this.#get('backup', 'backup-bundle', bool),
      bundleRaw: this.#get('backup', 'backup-bundle-raw', bool),
      blockIncr: this.#get('backup', 'backup-block-incr', bool),
    };
    const db: ManifestDb = {
      id: this.#get('backup:db', 'db-id', uint32, true),
      systemId: this.#get('backup:db', 'db-system-id', systemIdOf, true),
      version: this.#get('backup:db', 'db-version', pgVersionOf, true),
      catalogVersion: this.#get('backup:db', 'db-catalog-version', uint32),
      controlVersion: this.#get('backup:db', 'db-control-version', uint32),
    };
    const compressType = this.#get('backup:option', 'option-compress-type', (v) => (typeof v === 'string' && COMPRESS_TYPES.includes(v) ? (v as CompressType) : null));
    const compress = this.#get('backup:option', 'option-compress', bool);
    const options: ManifestOptions = {
      // The type, where written, wins over the older boolean (manifestLoadCallback).
      compressType: compressType ?? (this.#header['backup:option'].has('option-compress-type') ? null : compress === null ? null : compress ? 'gz' : 'none'),
      compressLevel: this.#get('backup:option', 'option-compress-level', uint32),
      archiveCheck: this.#get('backup:option', 'option-archive-check', bool),
      archiveCopy: this.#get('backup:option', 'option-archive-copy', bool),
      backupStandby: this.#get('backup:option', 'option-backup-standby', bool),
      checksumPage: this.#get('backup:option', 'option-checksum-page', bool),
      delta: this.#get('backup:option', 'option-delta', bool),
      hardlink: this.#get('backup:option', 'option-hardlink', bool),
      online: this.#get('backup:option', 'option-online', bool),
      processMax: this.#get('backup:option', 'option-process-max', uint32),
      bufferSize: this.#get('backup:option', 'option-buffer-size', uint32),
    };
    if (options.compressType === null && !this.#header['backup:option'].has('option-compress-type') && compress === null) this.#flag('backup:option', 'option-compress-type', 'missing');

    this.#checkHeader(backup);
    const references = [...this.#references].sort();
    if (backup.label !== null) {
      const own = backup.label;
      // A file's bytes are in an earlier backup of the same set, one the set's reference list names.
      for (const r of references) {
        const outside = r >= own || r.slice(0, FULL_LABEL_LENGTH) !== own.slice(0, FULL_LABEL_LENGTH) || (backup.reference !== null && !backup.reference.includes(r));
        if (outside) this.#flag('target:file', 'reference', 'inconsistent');
      }
    }

    // Zero-length files of a bundled backup are not stored at all (verify skips them).
    const dropZero = backup.bundle === true;
    const extension = options.compressType === null ? null : options.compressType === 'none' ? '' : `.${options.compressType}`;
    const stored =
      extension === null
        ? null
        : {
            objects: this.#stored.filter((f) => !(dropZero && f.zero)).map((f) => ({ key: `${f.name}${f.blockIncr ? BLOCK_INCR_EXTENSION : extension}`, repoSize: f.repoSize })),
            total: this.#storedTotal - (dropZero ? this.#storedZeroTotal : 0),
            truncated: this.#storedTruncated,
          };
    this.#stored.length = 0;

    return {
      ok: true,
      checksum: end.checksum,
      format: end.format,
      version: end.version,
      loadable: end.loadable,
      encrypted: end.cipherPass,
      digest: end.digest,
      bytes: this.#stream.bytes,
      backup,
      db,
      options,
      files: {
        files: this.#files,
        invalid: this.#invalid,
        size: this.#size,
        repoSize: this.#repoSize,
        storedFiles: this.#storedFiles,
        storedRepoSize: this.#storedRepoSize,
        referencedFiles: this.#referencedFiles,
        referencedRepoSize: this.#referencedRepoSize,
        references,
        zeroLength: this.#zero,
        blockIncremental: this.#blockIncremental,
        withoutChecksum: this.#withoutChecksum,
        bundles: this.#bundles,
        bundlesTruncated: this.#bundlesTruncated,
        stored,
      },
      tablespaces: this.#tablespaces,
      problems: [...this.#problems.values()],
    };
  }

  /** The label, type, prior and reference list must agree, as in backup.info. */
  #checkHeader(b: ManifestBackup): void {
    const label = b.label;
    if (label === null) return;
    const declared = labelType(label);
    if (b.type !== null && b.type !== declared) this.#flag('backup', 'backup-type', 'inconsistent');
    const set = label.slice(0, FULL_LABEL_LENGTH);
    const hasPrior = this.#header.backup.has('backup-prior');
    // (A full's file references are flagged with every other reference: none can be earlier in its own set.)
    if (declared === 'full') {
      if (hasPrior) this.#flag('backup', 'backup-prior', 'inconsistent');
    } else if (!hasPrior) {
      this.#flag('backup', 'backup-prior', 'missing');
    } else if (b.prior !== null && (b.prior.slice(0, FULL_LABEL_LENGTH) !== set || b.prior >= label || (declared === 'diff' && b.prior !== set))) {
      this.#flag('backup', 'backup-prior', 'inconsistent');
    }
    if (b.reference !== null && (!b.reference.includes(label) || b.reference.some((l) => l.slice(0, FULL_LABEL_LENGTH) !== set || l > label))) {
      this.#flag('backup', 'backup-reference', 'inconsistent');
    }
    if (b.lsnStart !== null && b.lsnStop !== null && b.lsnStart > b.lsnStop) this.#flag('backup', 'backup-lsn-stop', 'inconsistent');
    // The stop is 0 while a backup runs (its early copy); otherwise it follows the start.
    if (b.timestampStart !== null && b.timestampStop !== null && b.timestampStop !== 0 && b.timestampStart > b.timestampStop) this.#flag('backup', 'backup-timestamp-stop', 'inconsistent');
  }
}

/** Reads a whole manifest held in memory (tests, small manifests). */
export function parseManifest(bytes: Uint8Array, options: ManifestParseOptions = {}): ManifestResult {
  const p = new ManifestParser(options);
  p.push(bytes);
  return p.end();
}
