/**
 * One scan of one barman-cloud server scope (`<prefix>/<server>/`): list `base/`, read each
 * `backup.info` and keep annotation, settle the WAL geometry, stream `wals/` into ranges, read
 * the history files, count whatever else lies under the scope, then derive gaps, timelines,
 * backup states and recovery paths. All store access goes through the (confined) driver it is
 * given; budgets and cancellation come from the caller. Counts of objects and bytes are exact.
 */
import { ViewerError } from '../common/errors.ts';
import type { RecoveryPathItem, WalGapItem, WalRangeItem } from '../contract/collections.ts';
import { compareWalRuns } from '../contract/order.ts';
import { MAX_BACKUP_INFO_BYTES, parseBackupInfo, type BackupInfoResult } from '../format/barman-cloud/backup-info.ts';
import { classifyKey } from '../format/barman-cloud/classify.ts';
import { decompress } from '../format/barman-cloud/decompress.ts';
import { MAX_HISTORY_BYTES, parseTimelineHistory } from '../postgres/timeline-history.ts';
import { DEFAULT_SEGMENT_SIZE, geometry as makeGeometry, VERSION_WITH_SEGMENT_FF, walName, type WalGeometry } from '../postgres/wal.ts';
import type { StoreDriver } from '../store/driver.ts';
import { evaluateBackup, type BackupFacts, type KeepTarget } from './backups.ts';
import { BackupCatalog, type BackupDirectory } from './catalog.ts';
import { findGaps, type Gap, type GapMemory, type GapSettle } from './gaps.ts';
import { listPages, type BudgetMeter } from './listing.ts';
import { compareKeyBytes } from '../store/key-order.ts';
import { recoveryPaths } from './recovery-paths.ts';
import { classifyGaps, type GapClass } from './retention-holes.ts';
import { TimelineGraph, type HistoryStatus } from './timelines.ts';
import { WalArchive, type WalCounts } from './wal-archive.ts';
import { WalIndex } from './wal-index.ts';

export interface ScopeLimits {
  readonly maxBackups: number;
  readonly maxRanges: number;
  readonly maxHistoryFiles: number;
  readonly maxPartials: number;
  /** Recovery paths are backups × reachable timelines: bounded like every other kept list. */
  readonly maxPaths: number;
}

export const DEFAULT_SCOPE_LIMITS: ScopeLimits = { maxBackups: 10_000, maxRanges: 100_000, maxHistoryFiles: 1_000, maxPartials: 10_000, maxPaths: 100_000 };

export interface ScopeScanOptions {
  readonly server: string;
  /** `<prefix>/<server>/`: every request stays under it. */
  readonly root: string;
  readonly driver: StoreDriver;
  readonly signal: AbortSignal;
  readonly meter: BudgetMeter;
  readonly concurrency: number;
  readonly limits?: ScopeLimits;
  /** The generation this scan will publish if it completes. */
  readonly generation: number;
  readonly previousGaps: readonly GapMemory[];
  /** Gap confirmation thresholds (store receipt time); the defaults of D-35 unless a test shortens them. */
  readonly gapSettle?: GapSettle;
}

export type GeometryIssue = 'unknown' | 'conflict' | null;

export interface ScopeEvidence {
  readonly server: string;
  readonly objectCount: number;
  readonly storedBytes: number;
  readonly unknownObjects: number;
  readonly backups: readonly BackupFacts[];
  readonly walCounts: WalCounts;
  readonly ranges: readonly WalRangeItem[];
  readonly gaps: readonly WalGapItem[];
  /** The class of each item of `gaps`, index for index (not on the wire: pages and `viewer scan`). */
  readonly gapClasses: readonly GapClass[];
  readonly gapMemory: readonly GapMemory[];
  readonly paths: readonly RecoveryPathItem[];
  readonly geometry: WalGeometry | null;
  readonly geometryIssue: GeometryIssue;
  readonly graph: TimelineGraph;
  readonly histories: ReadonlyMap<number, HistoryStatus>;
  readonly systemIds: ReadonlySet<string>;
  readonly rangesTruncated: boolean;
  readonly diagnosticsTruncated: boolean;
  /**
   * Objects under the destination that belong to no scope, when the caller counted them
   * (standalone discovery); absent, the scope's own confined listings saw none (D-56).
   */
  readonly unscopedObjects?: number | null;
  /** No backup directory and no object under `wals/`: nothing Barman writes is at this location. */
  readonly empty: boolean;
  /** Objects named as WAL segments whose size no segment can have (counted as unknown). */
  readonly implausibleSegments: number;
  /** Newest receipt time of any WAL object (epoch ms). */
  readonly latestWalReceipt: number | null;
  /**
   * The most recently received objects, newest first, keys relative to the scope root. For the
   * operator's standalone page only: never part of a wire publication.
   */
  readonly recentObjects: readonly RecentObject[];
  /** `.partial` segments by timeline and WAL name (few: one per promotion). */
  readonly partials: readonly { readonly timeline: number; readonly wal: string }[];
}

export interface RecentObject {
  /** Relative to the scope root; `null` when the key holds characters that must never be echoed. */
  readonly key: string | null;
  readonly size: number;
  readonly receivedAt: string;
}

export const RECENT_OBJECTS = 20;

/** C0 and C1 controls and DEL: a key holding one is counted, never shown (any writer can create one). */
function unprintable(key: string): boolean {
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i);
    if (c < 0x20 || (c >= 0x7f && c <= 0x9f)) return true;
  }
  return false;
}

/**
 * Keeps the newest objects seen, newest first, ties by key: the same whatever the listing
 * interleaving. Called once per listed object, and in a live archive nearly every object is newer
 * than the last: the check against the oldest kept item comes first and allocates nothing.
 */
class RecentObjects {
  readonly items: { key: string; size: number; at: number }[] = [];
  add(key: string, size: number, at: number | null): void {
    if (at === null) return;
    const items = this.items;
    const last = items[items.length - 1];
    if (items.length >= RECENT_OBJECTS && last !== undefined && (at < last.at || (at === last.at && key >= last.key))) return;
    let i = items.length;
    for (; i > 0; i--) {
      const o = items[i - 1] as { key: string; at: number };
      if (at < o.at || (at === o.at && key > o.key)) break;
    }
    items.splice(i, 0, { key, size, at });
    if (items.length > RECENT_OBJECTS) items.pop();
  }
}

/**
 * Both results once both have settled; the first failure otherwise. Unlike Promise.all, nothing is
 * left running against the store after the scan has returned.
 */
async function both<A, B>(a: Promise<A>, b: Promise<B>): Promise<[A, B]> {
  const [ra, rb] = await Promise.allSettled([a, b]);
  if (ra.status === 'rejected') throw ra.reason;
  if (rb.status === 'rejected') throw rb.reason;
  return [ra.value, rb.value];
}

/** Runs `work` over `items` with at most `limit` in flight, keeping order. */
async function mapLimit<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array<R>(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await work(items[i] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  return out;
}

const KEEP_MAX_BYTES = 64;

/** pgBackRest's stanza metadata, as seen from a scope named `archive` or `backup`. */
const STANZA_FILE = /^[^/]+\/(?:archive|backup)\.info(?:\.copy)?$/;

async function readKeep(driver: StoreDriver, dir: BackupDirectory, signal: AbortSignal): Promise<KeepTarget> {
  if (dir.keepKey === null) return null;
  const r = await driver.read({ key: dir.keepKey, maxBytes: KEEP_MAX_BYTES, signal });
  if (r.status !== 'found') return r.status === 'absent' ? null : 'unrecognized';
  const text = Buffer.from(r.bytes).toString('latin1').trim();
  return text === 'full' || text === 'standalone' ? text : 'unrecognized';
}

async function readInfo(driver: StoreDriver, dir: BackupDirectory, signal: AbortSignal): Promise<BackupInfoResult | null> {
  if (dir.infoKey === null) return null;
  const r = await driver.read({ key: dir.infoKey, maxBytes: MAX_BACKUP_INFO_BYTES, signal });
  if (r.status === 'absent') return null;
  if (r.status === 'too-large') return { ok: false, reason: 'backup-info-too-large' };
  return parseBackupInfo(r.bytes);
}

/** The archive's geometry as the metadata declares it: one segment size, one side of 9.3. */
function settleGeometry(infos: readonly (BackupInfoResult | null)[]): { geometry: WalGeometry | null; issue: GeometryIssue } {
  const declared = infos.flatMap((r) => (r?.ok === true && r.info.segmentSize !== null ? [r.info] : []));
  const sizes = new Set(declared.map((i) => i.segmentSize));
  const old = new Set(declared.map((i) => i.version !== null && i.version < VERSION_WITH_SEGMENT_FF));
  if (sizes.size === 0) return { geometry: null, issue: 'unknown' };
  if (sizes.size > 1 || old.size > 1) return { geometry: null, issue: 'conflict' };
  const [size] = sizes;
  return { geometry: makeGeometry(size ?? DEFAULT_SEGMENT_SIZE, old.has(true) ? VERSION_WITH_SEGMENT_FF - 1 : null), issue: null };
}

const HISTORY_MAX_STORED_BYTES = 64 * 1024;

async function readHistory(driver: StoreDriver, h: { timeline: number; key: string; compression: Parameters<typeof decompress>[1] | null }, signal: AbortSignal): Promise<HistoryStatus> {
  const r = await driver.read({ key: h.key, maxBytes: HISTORY_MAX_STORED_BYTES, signal });
  if (r.status === 'absent') return { status: 'unread' };
  if (r.status === 'too-large') return { status: 'invalid', reason: 'history-too-large' };
  let bytes = r.bytes;
  if (h.compression !== null) {
    const d = await decompress(bytes, h.compression, MAX_HISTORY_BYTES);
    if (!d.ok) return { status: 'invalid', reason: d.reason };
    bytes = d.bytes;
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return { status: 'invalid', reason: 'history-not-utf8' };
  }
  const parsed = parseTimelineHistory(text, h.timeline);
  return parsed.ok ? { status: 'valid', entries: parsed.entries } : { status: 'invalid', reason: parsed.reason };
}

/** The hash directories under `wals/`, from one delimiter listing. */
async function listHashDirectories(o: ScopeScanOptions): Promise<string[]> {
  const dirs: string[] = [];
  for await (const page of listPages(o.driver, { prefix: `${o.root}wals/`, delimiter: '/', signal: o.signal, meter: o.meter })) dirs.push(...page.prefixes);
  return dirs;
}

/**
 * Lists `wals/` as `concurrency` contiguous key ranges at once (the listing research's "ranges"
 * strategy: about 1,000-key pages, the request count of a flat listing, N listings in flight).
 * The hash directories, from one delimiter listing, are cut into N runs; range i lists flat after
 * the first directory of its run and ends at the first directory of the next run. Each range
 * builds its own compact evidence, and the parts are appended in range order, which is key order.
 * A range's last page runs past its end: those keys belong to the next range and are dropped
 * there, never counted twice. Without the ordering guarantee of the merge, a run of WAL that
 * crosses a seam would show up as a false gap.
 */
async function listWal(
  o: ScopeScanOptions,
  dirs: readonly string[],
  g: WalGeometry,
  judgeSizes: boolean,
  limits: ScopeLimits,
  relative: (key: string) => string,
  count: (size: number, key: string, at: number | null) => void,
): Promise<WalArchive> {
  const prefix = `${o.root}wals/`;
  // A store that cannot start a listing after a key would list every range from the start.
  const parallel = o.driver.capabilities?.startAfter !== 'emulated';
  const parts = parallel ? Math.max(1, Math.min(o.concurrency, Math.floor(dirs.length / 4))) : 1;
  // Range i covers keys after starts[i] up to and including starts[i + 1]; the first has no start.
  const starts: (string | undefined)[] = Array.from({ length: parts }, (_, i) => (i === 0 ? undefined : dirs[Math.floor((i * dirs.length) / parts)]?.slice(0, -1)));
  const archives = await Promise.all(
    starts.map(async (startAfter, i) => {
      const end = starts[i + 1];
      const archive = new WalArchive(g, limits, judgeSizes);
      const listing = listPages(o.driver, { prefix, signal: o.signal, meter: o.meter, ...(startAfter === undefined ? {} : { startAfter }), ...(end === undefined ? {} : { stopAfter: end }) });
      for await (const page of listing) {
        for (const obj of page.objects) {
          if (end !== undefined && compareKeyBytes(obj.key, end) > 0) return archive;
          const at = obj.lastModified?.getTime() ?? null;
          count(obj.size, obj.key, at);
          archive.add(classifyKey(relative(obj.key)), at, obj.key, obj.size);
        }
      }
      return archive;
    }),
  );
  const [first = new WalArchive(g, limits, judgeSizes), ...rest] = archives;
  for (const next of rest) first.append(next);
  return first;
}

export async function scanScope(o: ScopeScanOptions): Promise<ScopeEvidence> {
  const limits = o.limits ?? DEFAULT_SCOPE_LIMITS;
  const relative = (key: string) => key.slice(o.root.length);
  let objectCount = 0;
  let storedBytes = 0;
  let unknownObjects = 0;
  const recent = new RecentObjects();
  // Full keys here; made relative only for the few kept.
  const count = (size: number, key = '', at: number | null = null) => {
    objectCount += 1;
    storedBytes += size;
    recent.add(key, size, at);
  };

  // Phases that do not depend on each other overlap, so a store's round trips add up less: the
  // hash directories are listed while the backups are, and the scope root while the WAL is.
  // Counting is order-free (sums, and recent objects ordered by time then key).

  // 1–2. Backup directories, then every backup.info and keep annotation.
  const catalog = new BackupCatalog(limits.maxBackups);
  const listBackups = async () => {
    for await (const page of listPages(o.driver, { prefix: `${o.root}base/`, signal: o.signal, meter: o.meter })) {
      for (const obj of page.objects) {
        count(obj.size, obj.key, obj.lastModified?.getTime() ?? null);
        catalog.add(classifyKey(relative(obj.key)), obj.key, obj.size);
      }
    }
    const dirs = [...catalog.directories.values()].sort((a, b) => (a.backupId < b.backupId ? -1 : a.backupId > b.backupId ? 1 : 0));
    return { dirs, metadata: await mapLimit(dirs, o.concurrency, (d) => Promise.all([readInfo(o.driver, d, o.signal), readKeep(o.driver, d, o.signal)])) };
  };
  const [{ dirs, metadata }, hashDirectories] = await both(listBackups(), listHashDirectories(o));
  unknownObjects += catalog.unknownObjects;
  const infos = metadata.map(([info]) => info);
  const keeps = metadata.map(([, keep]) => keep);

  // 3. Geometry from the metadata; without it ranges use PostgreSQL's default and stay unconfirmed.
  const settled = settleGeometry(infos);
  const rangeGeometry = settled.geometry ?? makeGeometry(DEFAULT_SEGMENT_SIZE);

  // 4. The WAL archive, streamed, in parallel key ranges (listWal) merged back in key order, while
  // everything else under the scope is listed and counted as unknown.
  // A pgBackRest stanza's own files (`<stanza>/archive.info`, `<stanza>/backup.info`) directly
  // under the scope: the destination holds another format, not an empty barman-cloud server.
  let foreignLayout = false;
  const countOthers = async () => {
    for await (const page of listPages(o.driver, { prefix: o.root, delimiter: '/', signal: o.signal, meter: o.meter })) {
      for (const obj of page.objects) {
        count(obj.size, obj.key, obj.lastModified?.getTime() ?? null);
        unknownObjects += 1;
      }
      for (const prefix of page.prefixes) {
        if (prefix === `${o.root}base/` || prefix === `${o.root}wals/`) continue;
        for await (const inner of listPages(o.driver, { prefix, signal: o.signal, meter: o.meter })) {
          for (const obj of inner.objects) {
            count(obj.size, obj.key, obj.lastModified?.getTime() ?? null);
            unknownObjects += 1;
            if (STANZA_FILE.test(relative(obj.key))) foreignLayout = true;
          }
        }
      }
    }
  };
  const [wal] = await both(listWal(o, hashDirectories, rangeGeometry, settled.geometry !== null, limits, relative, count), countOthers());
  const c = wal.counts;
  const empty = catalog.directories.size === 0 && c.segment + c.partial + c.history + c.backup_history + c.unknown + c.duplicate === 0;
  if (empty && foreignLayout) throw new ViewerError('incompatible_format', 'the scope holds another repository format');

  // 5. Timeline histories.
  const historyResults = await mapLimit(wal.histories, o.concurrency, (h) => readHistory(o.driver, h, o.signal));
  const histories = new Map<number, HistoryStatus>(wal.histories.map((h, i) => [h.timeline, historyResults[i] ?? { status: 'unread' }]));

  if (o.signal.aborted) throw new ViewerError('canceled', 'the scan was canceled');

  // 6. Derived evidence.
  const gapList: Gap[] = findGaps(wal.timelines.values(), {
    geometry: rangeGeometry,
    generation: o.generation,
    previous: o.previousGaps,
    newestReceipt: wal.latestReceipt,
    geometryKnown: settled.geometry !== null,
    ...(o.gapSettle === undefined ? {} : { settle: o.gapSettle }),
  });
  const index = new WalIndex(wal.timelines, gapList);
  const backupTimelines = infos.flatMap((r) => (r?.ok === true && r.info.timeline !== null ? [r.info.timeline] : []));
  const graph = new TimelineGraph(histories, [...wal.timelines.keys(), ...backupTimelines]);
  const backups = dirs.map((d, i) => evaluateBackup(d, infos[i] ?? null, keeps[i] ?? null, { server: o.server, geometry: settled.geometry, index }));
  const classes = classifyGaps(gapList, backups, settled.geometry);
  const retentionHoles = new Set(gapList.filter((_, i) => classes[i] === 'retention-expected'));
  const paths: RecoveryPathItem[] = [];
  let pathsTruncated = false;
  for (const b of backups) {
    const more = recoveryPaths(b, { server: o.server, geometry: settled.geometry, graph, index, retentionHole: (g) => retentionHoles.has(g) });
    if (paths.length + more.length > limits.maxPaths) {
      pathsTruncated = true;
      break;
    }
    for (const p of more) paths.push(p);
  }

  const ranges: WalRangeItem[] = [...wal.timelines.values()].flatMap((tl) =>
    tl.ranges.map((r) => ({
      server: o.server,
      timeline: tl.timeline,
      start_position: r.start,
      end_position: r.end,
      segment_count: r.count,
      first_wal: walName(tl.timeline, r.start, rangeGeometry),
      last_wal: walName(tl.timeline, r.end, rangeGeometry),
      latest_receipt_at: r.latestReceipt === null ? null : new Date(r.latestReceipt).toISOString(),
      end_receipt_at: r.endReceipt === null ? null : new Date(r.endReceipt).toISOString(),
    })),
  );
  const classified = gapList.map((g, i) => ({
    class: classes[i] ?? 'unexplained',
    item: {
    server: o.server,
    timeline: g.timeline,
    start_position: g.start,
    end_position: g.end,
    segment_count: g.count,
    first_wal: walName(g.timeline, g.start, rangeGeometry),
    last_wal: walName(g.timeline, g.end, rangeGeometry),
    status: g.status,
    first_observed_generation: g.firstObservedGeneration,
    last_observed_generation: g.lastObservedGeneration,
    } satisfies WalGapItem,
  })).sort((a, b) => compareWalRuns(a.item, b.item));
  const systemIds = new Set(infos.flatMap((r) => (r?.ok === true && r.info.systemId !== null ? [r.info.systemId] : [])));

  return {
    server: o.server,
    objectCount,
    storedBytes,
    unknownObjects: unknownObjects + wal.counts.unknown,
    backups,
    walCounts: { ...wal.counts },
    ranges: ranges.sort(compareWalRuns),
    gaps: classified.map((c) => c.item),
    gapClasses: classified.map((c) => c.class),
    gapMemory: gapList.map((g) => ({ timeline: g.timeline, start: g.start, end: g.end, firstObservedGeneration: g.firstObservedGeneration, status: g.status })),
    paths,
    geometry: settled.geometry,
    geometryIssue: settled.issue,
    graph,
    histories,
    systemIds,
    rangesTruncated: wal.rangesTruncated,
    diagnosticsTruncated: wal.diagnosticsTruncated || catalog.truncated || pathsTruncated,
    empty,
    implausibleSegments: wal.implausibleSegments,
    latestWalReceipt: wal.latestReceipt,
    partials: [...wal.timelines.values()].flatMap((tl) => [...tl.partials].sort((a, b) => a - b).map((p) => ({ timeline: tl.timeline, wal: walName(tl.timeline, p, rangeGeometry) }))),
    recentObjects: recent.items.map((o) => ({ key: unprintable(o.key) ? null : relative(o.key), size: o.size, receivedAt: new Date(o.at).toISOString() })),
  };
}
