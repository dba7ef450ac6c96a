/**
 * The backup area of one stanza (`backup/<stanza>/`), listed once and flat: per label directory,
 * what pgBackRest writes there — `backup.manifest`, `backup.manifest.copy`, `bundle/<n>` and this
 * backup's separate files — with exact sizes; the history manifests
 * (`backup.history/<YYYY>/<label>.manifest.gz`) by label; `backup.info` and its copy. Anything else
 * is counted as unknown, and a directory whose name is not a pgBackRest label never becomes a
 * backup.
 *
 * Keys arrive in byte order, so a label directory's objects are contiguous: each directory is
 * examined as soon as its last object is listed (its manifest read and its objects compared with
 * it), a few at a time while the listing goes on (the listing waits for a free slot after each
 * page), and its object list is released once examined.
 * Memory therefore grows with the number of backups and the few directories in flight, not with
 * the objects of the whole area.
 *
 * The examination (`examineDirectory`) is the structural check research §3 names: every separate
 * file the manifest says this backup stores exists with exactly its `repo-size`, every bundle it
 * names is at least as long as its members need, and nothing else is in the directory.
 */
import { ViewerError } from '../../common/errors.ts';
import type { ScopeAccess } from '../seam.ts';
import { isLabel } from './backup-info.ts';
import { MANIFEST_LIMITS, ManifestParser, type Manifest } from './manifest.ts';

/** What the listing found in one label directory. */
export interface LabelDirectory {
  readonly label: string;
  /** Listed sizes of `backup.manifest` and `backup.manifest.copy`; null when absent. */
  manifestSize: number | null;
  copySize: number | null;
  /** `bundle/<id>` objects by id, with their listed sizes. */
  readonly bundles: Map<number, number>;
  /** Every other object, by key relative to the directory, with its size (released once examined). */
  files: Map<string, number> | null;
  objects: number;
  bytes: number;
}

/** How a backup's manifest was read. */
export type ManifestReading =
  /** Not read: the directory has none, or nothing depends on reading it. */
  | { readonly status: 'unread' }
  | { readonly status: 'too-large' }
  | { readonly status: 'encrypted' }
  /** Stored encrypted with a customer-provided key the scan does not hold (S3 SSE-C, D-92). */
  | { readonly status: 'key-required' }
  /** Neither the manifest nor its copy loads (grammar, a limit, the checksum, the format number). */
  | { readonly status: 'unloadable' }
  | {
      readonly status: 'loaded';
      readonly manifest: Manifest;
      /** The main file did not load and the copy stood in. */
      readonly fromCopy: boolean;
      /** The copy is missing, or its listed size differs from the main file's. */
      readonly copyMismatch: boolean;
    };

/** The directory's objects against its manifest. */
export interface Structure {
  /** Separate files the manifest stores here that are not listed / listed with another size. */
  readonly missingFiles: number;
  readonly wrongSize: number;
  /** Bundles the manifest needs that are not listed / shorter than their members need. */
  readonly missingBundles: number;
  readonly shortBundles: number;
  /** Objects the manifest does not account for. */
  readonly unexpected: number;
  /** The artifacts that matched: their count and exact listed bytes. */
  readonly artifactCount: number;
  readonly artifactBytes: number;
}

export interface Examined {
  readonly label: string;
  readonly hasManifest: boolean;
  readonly hasCopy: boolean;
  /** Objects and bytes of the whole directory. */
  readonly objects: number;
  readonly bytes: number;
  readonly manifest: ManifestReading;
  /** Null unless the manifest loaded and its stored-object list is complete. */
  readonly structure: Structure | null;
}

/** The whole backup area, as listed. */
export interface BackupArea {
  /** By label, in label order. */
  readonly directories: ReadonlyMap<string, Examined>;
  /** Labels with a history manifest (completed at some time; expired ones keep only this). */
  readonly history: ReadonlySet<string>;
  /** Objects in the area pgBackRest does not write there. */
  readonly unknownObjects: number;
  /** More label directories than the ceiling: the rest were listed and counted, not examined. */
  readonly truncated: boolean;
}

const BUNDLE = /^bundle\/([1-9][0-9]{0,15})$/;
const HISTORY = /^backup\.history\/([0-9]{4})\/([^/]+)\.manifest\.gz$/;

/**
 * Reads one manifest object under the manifest ceiling, streamed: each chunk is parsed as it
 * arrives and dropped, so the manifest is never held whole; a refused manifest (encrypted, a
 * limit, bad grammar) stops the read at once.
 */
async function readManifest(access: ScopeAccess, key: string): Promise<ManifestReading> {
  const r = await access.readStream(key, MANIFEST_LIMITS.maxBytes);
  if (r.status === 'absent') return { status: 'unloadable' };
  if (r.status === 'too-large') return { status: 'too-large' };
  if (r.status === 'key-required') return { status: 'key-required' };
  const parser = new ManifestParser();
  for await (const chunk of r.chunks) if (!parser.push(chunk)) break;
  const m = parser.end();
  if (!m.ok) return m.reason === 'encrypted' ? { status: 'encrypted' } : m.reason === 'too-large' ? { status: 'too-large' } : { status: 'unloadable' };
  return m.loadable ? { status: 'loaded', manifest: m, fromCopy: false, copyMismatch: false } : { status: 'unloadable' };
}

/**
 * pgBackRest's rule for manifests as for info files: the main file, and only when it cannot be
 * loaded, the copy. Comparing the two byte for byte would read up to twice 64 MiB per backup; a
 * copy whose listed size differs (or that is missing) is reported, one of equal size is not read.
 */
export async function loadManifest(access: ScopeAccess, dirKey: string, dir: LabelDirectory): Promise<ManifestReading> {
  if (dir.manifestSize !== null) {
    const main = await readManifest(access, `${dirKey}backup.manifest`);
    if (main.status === 'loaded') return { ...main, copyMismatch: dir.copySize !== dir.manifestSize };
    // An encrypted or oversized main file has a copy of the same kind; so has one behind a
    // customer-provided key (pgBackRest writes both with the same key).
    if (main.status === 'encrypted' || main.status === 'key-required' || main.status === 'too-large' || dir.copySize === null) return main;
  }
  if (dir.copySize === null) return { status: 'unread' };
  const copy = await readManifest(access, `${dirKey}backup.manifest.copy`);
  return copy.status === 'loaded' ? { ...copy, fromCopy: dir.manifestSize !== null, copyMismatch: false } : copy;
}

/** The directory's objects against a loaded manifest; null when its stored list is incomplete or unknown. */
export function compareStructure(dir: LabelDirectory, m: Manifest): Structure | null {
  const stored = m.files.stored;
  if (stored === null || stored.truncated || m.files.bundlesTruncated) return null;
  const files = dir.files ?? new Map<string, number>();
  let missingFiles = 0;
  let wrongSize = 0;
  let missingBundles = 0;
  let shortBundles = 0;
  let artifactCount = 0;
  let artifactBytes = 0;
  const named = new Set<string>();
  for (const o of stored.objects) {
    const size = files.get(o.key);
    if (size === undefined) missingFiles++;
    else if (size !== o.repoSize) wrongSize++;
    else if (!named.has(o.key)) {
      artifactCount++;
      artifactBytes += size;
    }
    named.add(o.key);
  }
  for (const [id, need] of m.files.bundles) {
    const size = dir.bundles.get(id);
    if (size === undefined) missingBundles++;
    else if (size < need) shortBundles++;
    else {
      artifactCount++;
      artifactBytes += size;
    }
  }
  let unexpected = 0;
  for (const k of files.keys()) if (!named.has(k)) unexpected++;
  for (const id of dir.bundles.keys()) if (!m.files.bundles.has(id)) unexpected++;
  return { missingFiles, wrongSize, missingBundles, shortBundles, unexpected, artifactCount, artifactBytes };
}

/** A directory examined as far as `readManifest` asks (interrupted or unreadable ones are not read). */
export async function examineDirectory(access: ScopeAccess, area: string, dir: LabelDirectory, readIt: boolean): Promise<Examined> {
  const manifest = readIt ? await loadManifest(access, `${area}${dir.label}/`, dir) : ({ status: 'unread' } as const);
  const structure = manifest.status === 'loaded' ? compareStructure(dir, manifest.manifest) : null;
  dir.files = null;
  return { label: dir.label, hasManifest: dir.manifestSize !== null, hasCopy: dir.copySize !== null, objects: dir.objects, bytes: dir.bytes, manifest, structure };
}

/** Examinations in flight at once: each may hold a manifest of up to 64 MiB. */
const MAX_EXAMINING = 4;

/**
 * Lists `area` (`backup/<stanza>/`) once, examining each label directory as soon as it is
 * complete, at most `maxBackups` of them.
 */
export async function listBackupArea(access: ScopeAccess, area: string, maxBackups: number, examine: (dir: LabelDirectory) => Promise<Examined>): Promise<BackupArea> {
  const examined = new Map<string, Examined>();
  const history = new Set<string>();
  const done = new Set<string>();
  const running = new Set<Promise<void>>();
  const limit = Math.max(1, Math.min(access.concurrency, MAX_EXAMINING));
  let failure: { error: unknown } | null = null;
  let unknownObjects = 0;
  let truncated = false;
  let current: LabelDirectory | null = null;
  /** The label whose objects are being listed (null while listing none, or skipping one past the ceiling). */
  let currentLabel: string | null = null;

  /** Directories listed whole, waiting for an examination slot. */
  const waiting: LabelDirectory[] = [];
  const pump = () => {
    // After a failure no examination starts: the scan is over.
    while (running.size < limit && waiting.length > 0 && failure === null) {
      const dir = waiting.shift() as LabelDirectory;
      const p: Promise<void> = examine(dir)
        .then(
          (e) => void examined.set(dir.label, e),
          (error: unknown) => void (failure ??= { error }),
        )
        .finally(() => {
          running.delete(p);
          pump();
        });
      running.add(p);
    }
  };
  const finish = (dir: LabelDirectory) => {
    waiting.push(dir);
    pump();
  };
  /** Until every directory listed so far is being examined, and a slot is free. */
  const drain = async () => {
    while ((waiting.length > 0 || running.size >= limit) && failure === null) await Promise.race(running);
  };

  try {
    await listInto();
  } finally {
    // Whatever ended the listing, the examinations in flight settle before the answer: nothing
    // keeps reading the store after the catalog has returned or failed.
    waiting.length = 0;
    await Promise.allSettled(running);
  }
  if (failure !== null) throw (failure as { error: unknown }).error;
  const directories = new Map([...examined].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return { directories, history, unknownObjects, truncated };

  async function listInto(): Promise<void> {
    for await (const page of access.objects(area)) {
      for (const obj of page) {
        const rel = obj.key.slice(area.length);
        const slash = rel.indexOf('/');
        const head = slash === -1 ? rel : rel.slice(0, slash);
        if (slash === -1 || !isLabel(head)) {
          if (rel === 'backup.info' || rel === 'backup.info.copy') continue;
          const h = HISTORY.exec(rel);
          // A history manifest sits under the year its label begins with.
          if (h !== null && isLabel(h[2] ?? '') && (h[2] ?? '').startsWith(h[1] ?? '')) history.add(h[2] ?? '');
          else unknownObjects++;
          continue;
        }
        if (currentLabel !== head) {
          if (current !== null) finish(current);
          current = null;
          // Keys are listed in byte order: a directory seen again means the store did not list in order.
          if (done.has(head)) throw new ViewerError('incompatible_format', 'the store listed a backup directory out of order');
          currentLabel = head;
          if (done.size >= maxBackups) {
            truncated = true;
            done.add(head);
          } else {
            done.add(head);
            current = { label: head, manifestSize: null, copySize: null, bundles: new Map(), files: new Map(), objects: 0, bytes: 0 };
          }
        }
        if (current === null) continue;
        const dir: LabelDirectory = current;
        dir.objects++;
        dir.bytes += obj.size;
        const file = rel.slice(slash + 1);
        const bundle = BUNDLE.exec(file);
        if (file === 'backup.manifest') dir.manifestSize = obj.size;
        else if (file === 'backup.manifest.copy') dir.copySize = obj.size;
        else if (bundle !== null) dir.bundles.set(Number(bundle[1]), obj.size);
        else dir.files?.set(file, obj.size);
      }
      // At most one page of directories waits: memory stays bounded by a page and the examinations in flight.
      await drain();
      if (failure !== null) break;
    }
    if (current !== null && failure === null) finish(current);
    while (waiting.length > 0 && failure === null) await drain();
  }
}
