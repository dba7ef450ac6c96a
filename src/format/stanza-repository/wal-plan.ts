/**
 * A stanza's WAL area (`archive/<stanza>/`) through the format seam. One delimiter listing of the
 * area gives archive.info, its copy and the archive-id directories; the WAL evidence is the
 * current database's archive id (archive.info's `db-id` and `db-version`; without a readable
 * archive.info, the directory with the highest history id, where pgBackRest writes after a
 * stanza-upgrade). Its segment directories are listed once with a delimiter, then the archive id
 * is listed flat as contiguous key ranges in parallel, like barman-cloud's `wals/`, and every key
 * is classified (`wal-keys.ts`) into the seam's neutral WAL entries. Timeline history files sit
 * one level above the segment directories and fall into the first range of their timeline.
 *
 * An earlier database generation's archive id holds another cluster's WAL, whose positions would
 * collide with the current one's: it is listed and counted as objects of the scope (`readOthers`),
 * not read as WAL. Objects of the area that are no archive id's are unknown WAL objects. Sizes are
 * judged against the segment size once it is known; an encrypted archive's objects carry the
 * cipher's header and padding (research §7).
 */
import type { HistoryBytes, HistoryRef, ListedObject, ScopeAccess, WalEntry, WalPlan } from '../seam.ts';
import { archiveArea } from './layout.ts';
import { stanzaInfo } from './stanza-info.ts';
import { classifyWalKey, isArchiveId, splitArchiveId, type WalCompression } from './wal-keys.ts';

/** OpenSSL's salted format: `Salted__` and an 8-byte salt before the first block (research §7). */
const CIPHER_HEADER = 16;
const CIPHER_BLOCK = 16;
const SALTED = 'Salted__';

/**
 * The smallest stream of each compression that holds any content (docs/design/evidence.md §Sizes
 * derives them; pgBackRest writes the same stream formats as Barman's tools: gzip, bzip2, lz4
 * frames, zstd frames, xz).
 */
const MIN_STREAM: Readonly<Record<WalCompression, number>> = { gz: 21, bz2: 15, lz4: 16, zst: 10, xz: 33 };
/** Deflate spends at least two bits on a 258-byte match: no gzip stream shrinks data more than 1032:1. */
const DEFLATE_MAX_RATIO = 1032;
const GZIP_FRAMING = 18;

/** The smallest object a segment of `segmentSize` bytes can be stored as. */
export function minimumSegmentBytes(compression: WalCompression | null, segmentSize: number, encrypted: boolean): number {
  if (encrypted) {
    // The plaintext (at least the smallest stream) padded to whole blocks, after the header.
    const plain = compression === null ? segmentSize : minimumSegmentBytes(compression, segmentSize, false);
    return CIPHER_HEADER + (Math.floor(plain / CIPHER_BLOCK) + 1) * CIPHER_BLOCK;
  }
  if (compression === null) return segmentSize;
  if (compression === 'gz') return Math.max(MIN_STREAM.gz, GZIP_FRAMING + Math.ceil(segmentSize / DEFLATE_MAX_RATIO));
  return MIN_STREAM[compression];
}

/** An uncompressed segment has exactly its size (plus the cipher's framing when encrypted); a compressed one at least its floor. */
export function segmentSizePlausible(size: number, compression: WalCompression | null, segmentSize: number, encrypted: boolean): boolean {
  const floor = minimumSegmentBytes(compression, segmentSize, encrypted);
  return compression === null && !encrypted ? size === segmentSize : size >= floor;
}

/** The SHA-1 a segment's key carries (`<24 hex>-<40 hex>[.ext]`), or null. */
function checksumOf(key: string): string | null {
  const file = key.slice(key.lastIndexOf('/') + 1);
  return file.length >= 65 && file[24] === '-' ? file.slice(25, 65) : null;
}

/** A key of the current archive id as the seam's neutral entry. */
export function walEntry(obj: ListedObject, area: string, segmentSize: number | null, encrypted: boolean): WalEntry {
  const c = classifyWalKey(obj.key.slice(area.length));
  const receivedAt = obj.receivedAt;
  switch (c.kind) {
    case 'segment':
      // archive-get refuses a segment stored under two different checksums (ArchiveDuplicateError, D-85).
      return { kind: 'segment', name: c.walName, compressed: c.compression !== null, sizeOk: segmentSize === null || segmentSizePlausible(obj.size, c.compression, segmentSize, encrypted), receivedAt, restore: { rank: 0, identity: checksumOf(obj.key) } };
    case 'partial':
      return { kind: 'partial', name: c.walName, receivedAt };
    case 'backup-history':
      return { kind: 'backup-history', receivedAt };
    case 'history':
      return { kind: 'history', timeline: c.timeline, ref: { key: obj.key, encoding: encrypted ? 'aes-256-cbc' : null }, receivedAt };
    default:
      return { kind: 'unknown', receivedAt };
  }
}

/** What the area's delimiter listing showed, and which archive id is the WAL evidence. */
export interface WalLayout {
  /** `archive/<stanza>/<archive id>/` of the current database; null when the area has none. */
  readonly current: string | null;
  /** The other folders of the area (earlier archive ids, strangers), listed by `readOthers`. */
  readonly others: readonly string[];
  /** Objects directly in the area that are not archive.info or its copy. */
  readonly strangers: readonly ListedObject[];
  readonly encrypted: boolean;
}

const layouts = new WeakMap<ScopeAccess, Map<string, Promise<WalLayout>>>();

async function readLayout(access: ScopeAccess, stanza: string): Promise<WalLayout> {
  const area = archiveArea(stanza);
  const [info, listing] = await Promise.all([
    stanzaInfo(access, stanza),
    (async () => {
      const objects: ListedObject[] = [];
      const folders: string[] = [];
      for await (const page of access.level(area)) {
        for (const o of page.objects) objects.push(o);
        for (const f of page.folders) folders.push(f);
      }
      return { objects, folders };
    })(),
  ]);
  const strangers = listing.objects.filter((o) => o.key !== `${area}archive.info` && o.key !== `${area}archive.info.copy`);
  const ids = listing.folders.map((f) => ({ folder: f, id: splitArchiveId(f.slice(area.length, -1)) })).filter((x) => x.id !== null && isArchiveId(x.folder.slice(area.length, -1)));
  const named = info.archive.view?.currentArchiveId ?? null;
  let current = named === null ? null : (ids.find((x) => x.folder === `${area}${named}/`)?.folder ?? null);
  if (current === null && named === null) {
    // Without archive.info: the newest database generation, by history id (pgBackRest's own order).
    const newest = ids.reduce<(typeof ids)[number] | null>((a, b) => (a === null || (b.id?.historyId ?? 0) > (a.id?.historyId ?? 0) ? b : a), null);
    current = newest?.folder ?? null;
  }
  const encrypted = info.archive.encrypted || info.archive.view?.encrypted === true || info.backup.encrypted;
  return { current, others: listing.folders.filter((f) => f !== current), strangers, encrypted };
}

/** The WAL area's layout, listed once per scan (the plan and `readOthers` share it). */
export function walLayout(access: ScopeAccess, stanza: string): Promise<WalLayout> {
  let byStanza = layouts.get(access);
  if (byStanza === undefined) {
    byStanza = new Map();
    layouts.set(access, byStanza);
  }
  let layout = byStanza.get(stanza);
  if (layout === undefined) {
    layout = readLayout(access, stanza);
    byStanza.set(stanza, layout);
  }
  return layout;
}

/** Pages already in hand, as the seam's async parts. */
async function* pages(list: readonly (readonly WalEntry[])[]): AsyncIterable<readonly WalEntry[]> {
  await Promise.resolve();
  yield* list;
}

/**
 * The current archive id as up to `concurrency` contiguous key ranges listed at once, cut at
 * segment-directory boundaries (runs of at least four directories), in key order; objects directly
 * in the area that are not archive.info come first, as unknown entries.
 */
export async function planWal(access: ScopeAccess, stanza: string): Promise<WalPlan> {
  const area = archiveArea(stanza);
  const layout = await walLayout(access, stanza);
  const dirs = layout.current === null ? [] : (await access.folders(layout.current)).sort();
  return {
    parts(segmentSize) {
      const strangers = pages(layout.strangers.length === 0 ? [] : [layout.strangers.map((o): WalEntry => ({ kind: 'unknown', receivedAt: o.receivedAt }))]);
      const current = layout.current;
      if (current === null) return [strangers];
      const parts = access.startsAfterKeys ? Math.max(1, Math.min(access.concurrency, Math.floor(dirs.length / 4))) : 1;
      const starts: (string | undefined)[] = Array.from({ length: parts }, (_, i) => (i === 0 ? undefined : dirs[Math.floor((i * dirs.length) / parts)]?.slice(0, -1)));
      const ranges = starts.map((after, i) => {
        const through = starts[i + 1];
        const range = { ...(after === undefined ? {} : { after }), ...(through === undefined ? {} : { through }) };
        return (async function* () {
          for await (const page of access.objects(current, range)) yield page.map((obj) => walEntry(obj, area, segmentSize, layout.encrypted));
        })();
      });
      return [strangers, ...ranges];
    },
  };
}

/**
 * Everything of the scope that is neither catalog nor current WAL: earlier archive ids (another
 * cluster's WAL, the format's own and not unknown) and folders of the area that are no archive id
 * (unknown). A barman-cloud server's layout is not looked for: its `base/` and `wals/` cannot sit
 * under a stanza's areas.
 */
export async function readOthers(access: ScopeAccess, stanza: string): Promise<{ unknownObjects: number; foreignLayout: boolean }> {
  const area = archiveArea(stanza);
  const layout = await walLayout(access, stanza);
  let unknownObjects = 0;
  for (const folder of layout.others) {
    const own = isArchiveId(folder.slice(area.length, -1));
    for await (const page of access.objects(folder)) if (!own) unknownObjects += page.length;
  }
  return { unknownObjects, foreignLayout: false };
}

/** History files are a few hundred bytes; read at most this many. */
const HISTORY_MAX_STORED_BYTES = 64 * 1024;

/** A history file's bytes: stored as PostgreSQL wrote them, never compressed; behind the cipher when encrypted. */
export async function readHistory(access: ScopeAccess, ref: HistoryRef, maxBytes: number): Promise<HistoryBytes> {
  const r = await access.read(ref.key, Math.min(maxBytes, HISTORY_MAX_STORED_BYTES));
  // Behind a customer-provided key the scan does not hold (D-92): there, but proves nothing either way.
  if (r.status === 'absent' || r.status === 'key-required') return { ok: false, status: 'unread' };
  if (r.status === 'too-large') return { ok: false, status: 'invalid', reason: 'history-too-large' };
  // Encrypted (research §7): its content is behind the cipher, so the history is not known.
  if (ref.encoding !== null || Buffer.from(r.bytes.subarray(0, SALTED.length)).toString('latin1') === SALTED) return { ok: false, status: 'unread' };
  return { ok: true, bytes: r.bytes };
}
