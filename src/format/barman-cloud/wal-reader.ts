/**
 * barman-cloud's WAL area, read through the format seam: `wals/<TTTTTTTTLLLLLLLL>/` hash
 * directories listed once with a delimiter, then listed flat as contiguous key ranges in parallel
 * (the listing research's "ranges" strategy), every key classified into the seam's neutral WAL
 * entries; history files read and decompressed in any of the six compressions. Also what lies
 * under a server prefix beside `base/` and `wals/`. Design: docs/design/evidence.md §The scan.
 */
import type { ForeignLayout, ListedObject, ScopeAccess, WalEntry, HistoryBytes, HistoryRef, RestoreChoice } from '../seam.ts';
import { classifyKey, WAL_COMPRESSIONS, type WalCompression } from './classify.ts';
import { decompress } from '../compression.ts';
import { segmentSizePlausible } from './size-floors.ts';

/** The hash directories under `wals/`, from one delimiter listing (nothing is counted). */
export function walDirectories(access: ScopeAccess): Promise<string[]> {
  return access.folders('wals/');
}

/**
 * barman-cloud-wal-restore lists the keys that begin with the WAL name in key order and takes the
 * first one with a suffix (any compression, or `.partial`, compressed or not); the bare name only
 * when no such key exists: an exact match does not end its loop (`CloudWalDownloader.download_wal`,
 * Barman 3.4 to 3.17; 3.4 knew only `.gz`, `.bz2`, `.snappy`, and a repository holding the newer
 * suffixes was written by a Barman that restores them too). D-85.
 */
const TAKEN_FIRST: RestoreChoice = { rank: 0, identity: null };
const TAKEN_LAST: RestoreChoice = { rank: 1, identity: null };

/** A classified key of the WAL area as the seam's neutral entry; sizes judged only when `segmentSize` is known. */
export function walEntry(obj: ListedObject, segmentSize: number | null): WalEntry {
  const c = classifyKey(obj.key);
  const receivedAt = obj.receivedAt;
  switch (c.kind) {
    case 'wal-segment':
      return { kind: 'segment', name: c.walName, compressed: c.compression !== null, sizeOk: segmentSize === null || segmentSizePlausible(obj.size, c.compression, segmentSize), receivedAt, restore: c.compression === null ? TAKEN_LAST : TAKEN_FIRST };
    case 'wal-partial':
      return { kind: 'partial', name: c.walName, receivedAt, restore: TAKEN_FIRST };
    case 'wal-backup-history':
      return { kind: 'backup-history', receivedAt };
    case 'wal-history':
      return { kind: 'history', timeline: c.timeline, ref: { key: obj.key, encoding: c.compression }, receivedAt };
    default:
      return { kind: 'unknown', receivedAt };
  }
}

/**
 * The WAL area as up to `concurrency` contiguous key ranges listed at once (about 1,000-key
 * pages, the request count of a flat listing). The hash directories are cut into runs of at
 * least four; range i lists after the first directory of its run up to that of the next. The
 * ranges are returned in key order, so evidence appended in that order is in key order; the keys a
 * range's last page lists beyond its end belong to the next range (the access cuts them).
 */
export function walParts(access: ScopeAccess, dirs: readonly string[], segmentSize: number | null): AsyncIterable<readonly WalEntry[]>[] {
  // A store that cannot start a listing after a key would list every range from the start.
  const parts = access.startsAfterKeys ? Math.max(1, Math.min(access.concurrency, Math.floor(dirs.length / 4))) : 1;
  // Range i covers keys after starts[i] up to and including starts[i + 1]; the first has no start.
  const starts: (string | undefined)[] = Array.from({ length: parts }, (_, i) => (i === 0 ? undefined : dirs[Math.floor((i * dirs.length) / parts)]?.slice(0, -1)));
  return starts.map((after, i) => {
    const through = starts[i + 1];
    const range = { ...(after === undefined ? {} : { after }), ...(through === undefined ? {} : { through }) };
    return (async function* () {
      for await (const page of access.objects('wals/', range)) yield page.map((obj) => walEntry(obj, segmentSize));
    })();
  });
}

const HISTORY_MAX_STORED_BYTES = 64 * 1024;
const isCompression = (e: string | null): e is WalCompression => e !== null && (WAL_COMPRESSIONS as readonly string[]).includes(e);

/** A history file's bytes, decompressed (at most `maxBytes` after decompression). */
export async function readHistory(access: ScopeAccess, ref: HistoryRef, maxBytes: number): Promise<HistoryBytes> {
  const r = await access.read(ref.key, HISTORY_MAX_STORED_BYTES);
  // Behind a customer-provided key the scan does not hold (D-92): there, but proves nothing either way.
  if (r.status === 'absent' || r.status === 'key-required') return { ok: false, status: 'unread' };
  if (r.status === 'too-large') return { ok: false, status: 'invalid', reason: 'history-too-large' };
  if (!isCompression(ref.encoding)) return { ok: true, bytes: r.bytes };
  const d = await decompress(r.bytes, ref.encoding, maxBytes);
  return d.ok ? { ok: true, bytes: d.bytes } : { ok: false, status: 'invalid', reason: d.reason };
}

/**
 * Everything under a server prefix beside `base/` and `wals/`: counted as unknown objects, and
 * whether another registered format's own files are among them (say a pgBackRest stanza's, seen
 * from a server named `archive`): another format at this location.
 */
export async function readOthers(access: ScopeAccess, server: string, others: readonly ForeignLayout[]): Promise<{ unknownObjects: number; foreignLayout: boolean }> {
  let unknownObjects = 0;
  let foreignLayout = false;
  for await (const page of access.level('')) {
    unknownObjects += page.objects.length;
    for (const folder of page.folders) {
      if (folder === 'base/' || folder === 'wals/') continue;
      for await (const inner of access.objects(folder)) {
        unknownObjects += inner.length;
        if (!foreignLayout && inner.some((obj) => others.some((o) => o.layout.ownsKey(`${server}/${obj.key}`)))) foreignLayout = true;
      }
    }
  }
  return { unknownObjects, foreignLayout };
}
