/**
 * One scan of one scope, through its repository format (the seam, `format/seam.ts`): the format's
 * catalog (backups, their verdicts, the WAL geometry), its WAL area streamed into ranges in
 * parallel key-ordered parts, its history files, whatever else lies in the scope; then the rules
 * that are PostgreSQL's: gaps and their lifecycle (remembered across generations), timelines, the
 * WAL each backup needs, the format's retention classes, recovery paths. Every listing goes
 * through one counting access over the (confined) driver it is given; budgets and cancellation
 * come from the caller. Counts of objects and bytes are exact.
 */
import { ViewerError } from '../common/errors.ts';
import type { RecoveryPathItem, WalGapItem, WalRangeItem } from '../contract/collections.ts';
import { compareWalRuns } from '../contract/order.ts';
import { mapLimit, settleAll } from '../common/concurrency.ts';
import { MAX_HISTORY_BYTES, parseTimelineHistory } from '../postgres/timeline-history.ts';
import { DEFAULT_SEGMENT_SIZE, geometry as makeGeometry, walName, type WalGeometry } from '../postgres/wal.ts';
import { foreignLayouts } from '../format/registry.ts';
import type { RepositoryFormat, ScopeAccess, WalEntry } from '../format/seam.ts';
import type { StoreDriver } from '../store/driver.ts';
import { evaluateBackup, type BackupFacts } from './backups.ts';
import { DEFAULT_GAP_SETTLE, findGaps, type Gap, type GapClass, type GapSettle } from './gaps.ts';
import { nextGeneration, nextMemory, type EvidenceMemory } from './memory.ts';
import type { BudgetMeter } from './listing.ts';
import { CountingScopeAccess } from './scope-access.ts';
import { recoveryPaths, type PathResult } from './recovery-paths.ts';
import { TimelineGraph, type HistoryStatus } from './timelines.ts';
import { WalArchive, type HistoryObject, type WalCounts } from './wal-archive.ts';
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
  /** The repository format of the scope: the seam is all this module knows of it. */
  readonly format: RepositoryFormat;
  readonly server: string;
  /** `<prefix>/<server>/`: every request stays under it. */
  readonly root: string;
  readonly driver: StoreDriver;
  readonly signal: AbortSignal;
  readonly meter: BudgetMeter;
  readonly concurrency: number;
  readonly limits?: ScopeLimits;
  /**
   * What the previous complete generation handed on (D-66; `memory.ts`), a fresh memory of this
   * scope when nothing is remembered. The scan publishes generation `previous.generation + 1`.
   */
  readonly previous: EvidenceMemory;
  /** Gap confirmation thresholds (store receipt time); the defaults of D-35 unless a test shortens them. */
  readonly gapSettle?: GapSettle;
}

export type GeometryIssue = 'unknown' | 'conflict' | null;

export type { FrontierMemory } from './memory.ts';

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
  /** Remembered confirmed losses whose surroundings are gone too (neither observed nor in a gap now). */
  readonly vanishedGaps: number;
  /** A timeline's newest observed position moved back since an earlier generation, no backup gone. */
  readonly frontierRegressed: boolean;
  /** What the next generation remembers of this one (`memory.ts`). */
  readonly memory: EvidenceMemory;
  /** The tool whose repository this is, as messages and pages name it (the format's `tool`). */
  readonly tool: string;
  /** No backup and no object in the WAL area: nothing the format writes is at this location. */
  readonly empty: boolean;
  /** Objects named as WAL segments whose size no segment can have (counted as unknown). */
  readonly implausibleSegments: number;
  /** Paths from usable backups that stop at lost, contradicted or unattributable WAL (retention's holes aside). */
  readonly pathsLosingWal: number;
  /** The newest timeline has no archived segment: `lost` once the store's clock says it should have one. */
  readonly newestUnarchived: 'lost' | 'not-yet' | null;
  /** WAL names with a plausible copy whose position is missing all the same: the restore tool would take another copy, or refuse to choose. */
  readonly unrestorableSegments: number;
  /** Newest receipt time of any WAL object (epoch ms). */
  readonly latestWalReceipt: number | null;
  /** The store's clock at the scan (ms; its listings' latest `Date` header), null when it sent none. */
  readonly storeTimeAtScan: number | null;
  /**
   * The earliest receipt time of any object of the scope (ms), null when none carried one; absent
   * where evidence is built without a listing. With the backups' end times it shows receipts that
   * are a bulk copy's, not archiving's (the operator's pages and text output only, never the wire).
   */
  readonly earliestReceipt?: number | null;
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

/** C0 and C1 controls and DEL: a key holding one is counted, never shown (any writer can create one). */
function unprintable(key: string): boolean {
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i);
    if (c < 0x20 || (c >= 0x7f && c <= 0x9f)) return true;
  }
  return false;
}

/** A history file read through its format, then parsed by PostgreSQL's rules. */
async function history(format: RepositoryFormat, access: ScopeAccess, h: HistoryObject): Promise<HistoryStatus> {
  const read = await format.readHistory(access, h.ref, MAX_HISTORY_BYTES);
  if (!read.ok) return read.status === 'unread' ? { status: 'unread' } : { status: 'invalid', reason: read.reason };
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(read.bytes);
  } catch {
    return { status: 'invalid', reason: 'history-not-utf8' };
  }
  const parsed = parseTimelineHistory(text, h.timeline);
  return parsed.ok ? { status: 'valid', entries: parsed.entries } : { status: 'invalid', reason: parsed.reason };
}


/**
 * The WAL area's parts, each into its own compact evidence, appended in key order. When one part
 * fails the others stop at their next page, and the failure is reported once all have settled.
 */
async function listWal(parts: readonly AsyncIterable<readonly WalEntry[]>[], g: WalGeometry, limits: ScopeLimits): Promise<WalArchive> {
  let failed = false;
  const archives = await settleAll(
    parts.map(async (part) => {
      const archive = new WalArchive(g, limits);
      try {
        for await (const page of part) {
          if (failed) break;
          for (const entry of page) archive.add(entry);
        }
        archive.finish();
      } catch (error) {
        failed = true;
        throw error;
      }
      return archive;
    }),
  );
  const [first = new WalArchive(g, limits), ...rest] = archives;
  for (const next of rest) first.append(next);
  return first;
}

/**
 * Timelines with a history file and no archived segment (a promotion whose new timeline archived
 * nothing): not covered. The newest timeline's first segment is `lost` once the store's clock is a
 * long settle past the history file's receipt (archiving moved on without it), `not-yet` before;
 * an older one is `not-yet` for good (an abandoned branch may never have written a segment).
 */
function unarchivedTimelines(wal: WalArchive, graph: TimelineGraph, storeTime: number | null, settle: GapSettle): (timeline: number) => 'lost' | 'not-yet' | null {
  const historyReceipts = new Map(wal.histories.map((h) => [h.timeline, h.receivedAt]));
  return (t) => {
    if ((wal.timelines.get(t)?.ranges.length ?? 0) > 0) return null;
    const received = historyReceipts.get(t) ?? null;
    const aged = t === graph.newest && storeTime !== null && received !== null && storeTime - Math.min(received, storeTime) >= settle.longSettleMs;
    return aged ? 'lost' : 'not-yet';
  };
}

/** Every backup's recovery paths, up to the ceiling (reached: `truncated`), and how many lose WAL. */
function collectPaths(backups: readonly BackupFacts[], max: number, of: (b: BackupFacts) => PathResult[]): { items: RecoveryPathItem[]; losingWal: number; truncated: boolean } {
  const items: RecoveryPathItem[] = [];
  let losingWal = 0;
  for (const b of backups) {
    const more = of(b);
    if (items.length + more.length > max) return { items, losingWal, truncated: true };
    for (const p of more) {
      items.push(p.item);
      if (p.losesWal) losingWal += 1;
    }
  }
  return { items, losingWal, truncated: false };
}

/** The WAL ranges as wire items, in wire order. */
function rangeItems(server: string, wal: WalArchive, g: WalGeometry): WalRangeItem[] {
  const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
  return [...wal.timelines.values()]
    .flatMap((tl) =>
      tl.ranges.map((r) => ({
        server,
        timeline: tl.timeline,
        start_position: r.start,
        end_position: r.end,
        segment_count: r.count,
        first_wal: walName(tl.timeline, r.start, g),
        last_wal: walName(tl.timeline, r.end, g),
        latest_receipt_at: iso(r.latestReceipt),
        end_receipt_at: iso(r.endReceipt),
      })),
    )
    .sort(compareWalRuns);
}

/** The gaps as wire items with their classes (not on the wire), in wire order. */
function gapItems(server: string, gaps: readonly Gap[], classes: readonly GapClass[], g: WalGeometry): { class: GapClass; item: WalGapItem }[] {
  return gaps
    .map((gap, i) => ({
      class: classes[i] ?? 'unexplained',
      item: {
        server,
        timeline: gap.timeline,
        start_position: gap.start,
        end_position: gap.end,
        segment_count: gap.count,
        first_wal: walName(gap.timeline, gap.start, g),
        last_wal: walName(gap.timeline, gap.end, g),
        status: gap.status,
        first_observed_generation: gap.firstObservedGeneration,
        last_observed_generation: gap.lastObservedGeneration,
      } satisfies WalGapItem,
    }))
    .sort((a, b) => compareWalRuns(a.item, b.item));
}

export async function scanScope(o: ScopeScanOptions): Promise<ScopeEvidence> {
  const limits = o.limits ?? DEFAULT_SCOPE_LIMITS;
  // Every listing goes through the one counting access: objects and bytes are counted there.
  const access = new CountingScopeAccess({ driver: o.driver, base: o.root, signal: o.signal, meter: o.meter, concurrency: o.concurrency });
  let unknownObjects = 0;

  // Phases that do not depend on each other overlap, so a store's round trips add up less: the
  // hash directories are listed while the backups are, and the scope root while the WAL is.
  // Counting is order-free (sums, and recent objects ordered by time then key).

  // 1–3. The catalog: backups, their metadata and the geometry it declares; the WAL area's
  // directories are listed beside it. A format that declares its geometry apart from the backups
  // (readGeometry) lets the WAL listing start while the rest of the catalog is read.
  const catalogRead = o.format.readCatalog(access, limits.maxBackups, o.server);
  const geometryRead = o.format.readGeometry?.(access, o.server) ?? catalogRead;
  // Settled below in every case; until then a failure of either must not count as unhandled.
  catalogRead.catch(() => undefined);
  geometryRead.catch(() => undefined);
  const [declared, walPlan] = await settleAll([geometryRead, o.format.planWal(access, o.server)]).catch(async (error: unknown) => {
    // The catalog runs on beside them: it settles before the failure is reported.
    await catalogRead.catch(() => undefined);
    throw error;
  });
  // Without a geometry, ranges use PostgreSQL's default and stay unconfirmed.
  const archiveGeometry = declared.geometry;
  const rangeGeometry = archiveGeometry ?? makeGeometry(DEFAULT_SEGMENT_SIZE);

  // 4. The WAL archive, streamed, in parallel key ranges (listWal) merged back in key order, while
  // everything else under the scope is listed and counted as unknown.
  // Sizes are judged only against the archive's own geometry: against a guessed segment size
  // every segment of a 1 MiB archive would become an unknown object.
  const parts = walPlan.parts(archiveGeometry?.segmentSize ?? null);
  const [catalog, [wal, others]] = await settleAll([catalogRead, settleAll([listWal(parts, rangeGeometry, limits), o.format.readOthers(access, o.server, foreignLayouts(o.format))])]);
  unknownObjects += catalog.unknownObjects;
  unknownObjects += others.unknownObjects;
  const foreignLayout = others.foreignLayout;
  const c = wal.counts;
  const empty = catalog.backups.length === 0 && c.segment + c.partial + c.history + c.backup_history + c.unknown + c.duplicate === 0;
  if (empty && foreignLayout) throw new ViewerError('incompatible_format', 'the scope holds another repository format');

  // 5. Timeline histories.
  const historyResults = await mapLimit(wal.histories, o.concurrency, (h) => history(o.format, access, h));
  const histories = new Map<number, HistoryStatus>(wal.histories.map((h, i) => [h.timeline, historyResults[i] ?? { status: 'unread' }]));

  if (o.signal.aborted) throw new ViewerError('canceled', 'the scan was canceled');

  // 6. Derived evidence.
  // The timeline graph first: its histories, checked against the listing, say where each timeline
  // begins, and a lost head or tail at a switch is a gap like any other.
  const backupTimelines = catalog.backups.flatMap((b) => (b.fields.timeline === null ? [] : [b.fields.timeline]));
  const observedStarts = archiveGeometry === null ? null : { geometry: archiveGeometry, firstPosition: (t: number) => wal.timelines.get(t)?.ranges[0]?.start ?? null };
  const graph = new TimelineGraph(histories, [...wal.timelines.keys(), ...backupTimelines], observedStarts);
  const gapList: Gap[] = findGaps(wal.timelines.values(), {
    geometry: rangeGeometry,
    generation: nextGeneration(o.previous),
    previous: o.previous.gaps,
    newestReceipt: wal.latestReceipt,
    storeTime: access.storeTime,
    geometryKnown: archiveGeometry !== null,
    starts: graph.starts(),
    ...(o.gapSettle === undefined ? {} : { settle: o.gapSettle }),
  });
  const index = new WalIndex(wal.timelines, gapList);
  // WAL attributed to a system is ambiguous when the scope's backups declare more than one.
  const systemAmbiguous = catalog.systemIds.size > 1;
  const unarchived = unarchivedTimelines(wal, graph, access.storeTime, o.gapSettle ?? DEFAULT_GAP_SETTLE);
  const backups = catalog.backups.map((b) => evaluateBackup(b, { server: o.server, geometry: archiveGeometry, index, systemAmbiguous, unarchived }));
  const classes: GapClass[] = o.format.classifyGaps(gapList, backups, archiveGeometry, (t) => wal.timelines.get(t)?.ranges ?? []);

  // Evidence over time (docs/design/evidence.md §Gaps, D-66): what an earlier generation proved
  // missing or present may only be forgotten when WAL arrived or a backup was deleted since; the
  // memory module's rules (they correct `classes` in place), and what the next generation remembers.
  const overTime = nextMemory({ previous: o.previous, gaps: gapList, classes, backups, timelines: wal.timelines, index, rangeGeometry, segmentSize: archiveGeometry?.segmentSize ?? null });
  const retentionHoles = new Set(gapList.filter((_, i) => classes[i] === 'retention-expected'));
  const paths = collectPaths(backups, limits.maxPaths, (b) => recoveryPaths(b, { server: o.server, geometry: archiveGeometry, graph, index, retentionHole: (g) => retentionHoles.has(g), unarchived, systemAmbiguous }));
  const ranges = rangeItems(o.server, wal, rangeGeometry);
  const classified = gapItems(o.server, gapList, classes, rangeGeometry);

  return {
    server: o.server,
    objectCount: access.objectCount,
    storedBytes: access.storedBytes,
    unknownObjects: unknownObjects + wal.counts.unknown,
    backups,
    walCounts: { ...wal.counts },
    ranges,
    gaps: classified.map((c) => c.item),
    gapClasses: classified.map((c) => c.class),
    paths: paths.items,
    geometry: archiveGeometry,
    geometryIssue: declared.geometryIssue,
    graph,
    histories,
    systemIds: catalog.systemIds,
    rangesTruncated: wal.rangesTruncated,
    diagnosticsTruncated: wal.diagnosticsTruncated || catalog.truncated || paths.truncated,
    empty,
    tool: o.format.tool,
    implausibleSegments: wal.implausibleSegments,
    unrestorableSegments: wal.unrestorableSegments,
    pathsLosingWal: paths.losingWal,
    newestUnarchived: graph.newest === null ? null : unarchived(graph.newest),
    vanishedGaps: overTime.vanishedGaps,
    frontierRegressed: overTime.frontierRegressed,
    memory: overTime.memory,
    latestWalReceipt: wal.latestReceipt,
    storeTimeAtScan: access.storeTime,
    earliestReceipt: access.earliestReceipt,
    partials: [...wal.timelines.values()].flatMap((tl) => [...tl.partials].sort((a, b) => a - b).map((p) => ({ timeline: tl.timeline, wal: walName(tl.timeline, p, rangeGeometry) }))),
    recentObjects: access.recent.map((r) => ({ key: unprintable(r.key) ? null : r.key, size: r.size, receivedAt: new Date(r.at).toISOString() })),
  };
}
