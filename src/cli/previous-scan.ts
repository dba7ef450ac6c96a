/**
 * `viewer scan --previous FILE`: one-shot scans (a cron job, a CI gate) chained through their own
 * output, so that each run continues from the previous one exactly as the next generation of a
 * long-running process would (D-66): the revision keeps advancing, the generation is the previous
 * one plus one, and the gaps keep their first observed generation, status and class, so a loss is
 * confirmed by the five-minute rule across runs instead of only by the sixty-minute one.
 *
 * The previous run's document is all that is read. The wire items carry the gaps with their status
 * and generations, `observations.wal_gap_classes` their classes (D-61); what the wire cannot carry
 * goes beside it in `observations.memory` (`memoryObservation`):
 *
 * ```json
 * "memory": {
 *   "segment_size_bytes": 16777216,
 *   "frontiers": [{ "timeline": 1, "last_position": 14 }],
 *   "vanished_gaps": [{ "timeline": 1, "start_position": 6, "end_position": 6, "first_observed_generation": 2 }]
 * }
 * ```
 *
 * - `segment_size_bytes` and `frontiers`: the newest position ever observed per timeline (a
 *   high-water mark, not the newest position now observed, so not derivable from `wal_ranges`),
 *   under that segment size; `null` and `[]` when no geometry was ever known. Sorted by timeline.
 * - `vanished_gaps`: remembered confirmed, unexplained losses that are no gap any more (the WAL
 *   around them vanished too); they are in no wire item. Sorted by timeline and start.
 * - The completed backups are not carried: barman-cloud counts a backup completed exactly when its
 *   `backup.info` says `status=DONE`, which is the item's `status`, so they are the backups items
 *   whose status is `DONE` (and a publication is complete only with every backup listed).
 *
 * `readPreviousScan` takes a document whole or not at all: anything that is not exactly such a
 * document of the configured scope (JSON, shape, the wire schemas and invariants, the identity,
 * the counts, gaps against their classes, the memory against the items) is refused with one fixed
 * sentence that never echoes the document or where it came from.
 *
 * A document of a failed run is a valid previous document: it retains the last complete
 * generation's items and, written as the wiring below does, its observations, so a chain survives
 * a failed run exactly as a long-running process retains its last complete generation. A document
 * without any complete generation (generation 0) continues the revision only; its observations
 * must be null. A document with a complete generation but no observations, or observations without
 * `memory` (a viewer that did not record it), cannot be continued exactly and is refused.
 */
import { readFile, stat } from 'node:fs/promises';
import type { BackupItem, RecoveryPathItem, WalGapItem, WalRangeItem } from '../contract/collections.ts';
import { API_VERSION, TIMESTAMP_PATTERN } from '../contract/primitives.ts';
import type { RepositoryEvidenceSnapshot } from '../contract/snapshot.ts';
import { wireViolations } from '../contract/validate.ts';
import type { GapClass, GapMemory } from '../evidence/gaps.ts';
import type { FrontierMemory, ScopeEvidence } from '../evidence/scope-scan.ts';
import { detailsView } from '../publication/details.ts';
import type { PublicationResume } from '../publication/publisher.ts';
import { isValidSegmentSize, VERSION_WITH_SEGMENT_FF } from '../postgres/wal.ts';

/** One timeline's high-water mark. */
export interface FrontierObservation {
  readonly timeline: number;
  readonly last_position: number;
}

/** A remembered confirmed, unexplained loss that is no gap any more. */
export interface VanishedGapObservation {
  readonly timeline: number;
  readonly start_position: number;
  readonly end_position: number;
  readonly first_observed_generation: number;
}

/** `observations.memory`: what the next generation needs that no wire item carries. */
export interface MemoryObservation {
  readonly segment_size_bytes: number | null;
  readonly frontiers: readonly FrontierObservation[];
  readonly vanished_gaps: readonly VanishedGapObservation[];
}

export interface GapClassObservation {
  readonly timeline: number;
  readonly start_position: number;
  readonly class: GapClass;
}

/** A previous document's `observations`, as it was printed (its other keys kept as they were). */
export interface PreviousObservations {
  readonly wal_gap_classes: readonly GapClassObservation[];
  readonly memory: MemoryObservation;
  readonly [key: string]: unknown;
}

/** The scope the previous document must be of: the configured one, as its publications name it. */
export interface ExpectedScope {
  readonly fingerprint: string;
  readonly server: string;
  readonly provider: string;
  /** The wire's repository format (`archive-cloud`), as in `snapshot.identity.repository.format`. */
  readonly format: string;
}

/**
 * Everything a new process needs to continue the previous one: `Publisher.resume` takes it whole
 * (its publication and memory); the document writer prints `observations` again when this run
 * has no complete scan of its own (a failed attempt retains the previous generation).
 */
export interface Continuation extends PublicationResume {
  readonly revision: number;
  readonly generation: number;
  /** When the previous complete generation finished (null before any). */
  readonly completedAt: string | null;
  /** Null exactly when `generation` is 0. */
  readonly observations: PreviousObservations | null;
}

export type PreviousScan = { readonly ok: true; readonly continuation: Continuation } | { readonly ok: false; readonly reason: string };

/** The largest previous document read: well above the largest a scan within its ceilings prints. */
export const PREVIOUS_MAX_BYTES = 256 * 1024 * 1024;

/** The fixed refusals (never a value of the document, never a path). */
export const REFUSALS = {
  unreadable: 'the previous scan document cannot be read',
  tooLarge: 'the previous scan document is larger than any scan prints',
  notUtf8: 'the previous scan document is not UTF-8 text',
  notJson: 'the previous scan document is not JSON',
  notDocument: 'the previous document is not a viewer scan document (an object of exactly snapshot, backups, wal_ranges, wal_gaps, recovery_paths and observations)',
  snapshot: 'the previous scan document\'s snapshot is not a valid RepositoryEvidenceSnapshot',
  format: 'the previous scan document is of another repository format',
  provider: 'the previous scan document is of another store provider',
  destination: 'the previous scan document is of another destination',
  server: 'the previous scan document is of another server',
  items: 'the previous scan document\'s items are not valid wire items',
  itemServer: 'the previous scan document holds items of another server',
  counts: 'the previous scan document\'s items do not match its snapshot\'s counts',
  itemsBeforeScan: 'the previous scan document holds items but no complete generation',
  observationsBeforeScan: 'the previous scan document holds observations but no complete generation',
  noObservations: 'the previous scan document has a complete generation but no observations to continue from',
  observations: 'the previous scan document\'s observations are malformed',
  noMemory: 'the previous scan document records no memory (observations.memory); it was written by a viewer that cannot be continued',
  gapGenerations: 'the previous scan document\'s gaps were not all observed in its generation',
  gapClasses: 'the previous scan document\'s gap classes do not match its gaps one to one',
  frontiers: 'the previous scan document\'s memory frontiers are inconsistent with its WAL ranges',
  vanished: 'the previous scan document\'s vanished gaps are inconsistent with its WAL gaps and ranges',
  exhausted: 'the previous scan document\'s revision or generation cannot advance',
} as const;

const refuse = (reason: string): PreviousScan => ({ ok: false, reason });

/** What a long-running process would remember of this scan that no wire item carries. */
export function memoryObservation(e: ScopeEvidence): MemoryObservation {
  const onWire = new Set(e.gaps.map((g) => `${g.timeline}:${g.start_position}:${g.end_position}`));
  return {
    segment_size_bytes: e.frontiers?.segmentSize ?? null,
    frontiers: [...(e.frontiers?.last ?? [])].sort(([a], [b]) => a - b).map(([timeline, last]) => ({ timeline, last_position: last })),
    vanished_gaps: e.gapMemory
      .filter((m) => !onWire.has(`${m.timeline}:${m.start}:${m.end}`))
      .sort((a, b) => a.timeline - b.timeline || a.start - b.start)
      .map((m) => ({ timeline: m.timeline, start_position: m.start, end_position: m.end, first_observed_generation: m.firstObservedGeneration })),
  };
}

/** Reads `path` and continues from it (`readPreviousScan`); a file that cannot be read is refused the same way. */
export async function loadPreviousScan(path: string, expected: ExpectedScope): Promise<PreviousScan> {
  let bytes: Buffer;
  try {
    if ((await stat(path)).size > PREVIOUS_MAX_BYTES) return refuse(REFUSALS.tooLarge);
    bytes = await readFile(path);
  } catch {
    return refuse(REFUSALS.unreadable);
  }
  if (bytes.length > PREVIOUS_MAX_BYTES) return refuse(REFUSALS.tooLarge);
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return refuse(REFUSALS.notUtf8);
  }
  return readPreviousScan(text, expected);
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const hasExactly = (v: Json, keys: readonly string[]) => {
  const own = Object.keys(v);
  return own.length === keys.length && keys.every((k) => Object.hasOwn(v, k));
};
const isUint = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
const isTimeline = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 1 && v <= 0xffffffff;
const isGeneration = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 1;
const TIMESTAMP = new RegExp(TIMESTAMP_PATTERN);
const isTimestampOrNull = (v: unknown) => v === null || (typeof v === 'string' && v.length <= 30 && TIMESTAMP.test(v) && !Number.isNaN(Date.parse(v)));
const isSecondsOrNull = (v: unknown) => v === null || (typeof v === 'number' && Number.isFinite(v) && v >= 0);

const DOCUMENT_KEYS = ['snapshot', 'backups', 'wal_ranges', 'wal_gaps', 'recovery_paths', 'observations'] as const;
type PageKind = 'ArchiveBackupPage' | 'ArchiveWALRangePage' | 'ArchiveWALGapPage' | 'ArchiveRecoveryPathPage';

/**
 * Items as the publisher checks them: as pages of the kind holding them, under the snapshot's
 * revision and generation, in windows of 200 (a page's most) overlapping by one so the sort order
 * is checked across their seams.
 */
function itemsValid(kind: PageKind, items: readonly unknown[], s: RepositoryEvidenceSnapshot): boolean {
  const page = { api_version: API_VERSION, kind, revision: s.revision, evidence_generation: s.evidence_generation, total_items: items.length, next_cursor: null };
  for (let i = 0; i === 0 || i < items.length - 1; i += 199) {
    if (wireViolations(kind, { ...page, items: items.slice(i, i + 200) }).length > 0) return false;
  }
  return true;
}

/** The completed backups of a barman-cloud scan: `completed` is `status === 'DONE'` (format/barman-cloud/backups.ts). */
export function completedBackupsOf(backups: readonly BackupItem[]): Set<string> {
  return new Set(backups.filter((b) => b.status === 'DONE').map((b) => b.backup_id));
}

/**
 * The archive's segment size when the backups settle one, by barman-cloud's rule (`settleGeometry`:
 * every size declared is one size, every declaring backup on one side of 9.3); null otherwise.
 */
function settledSegmentSize(backups: readonly BackupItem[]): number | null {
  const declared = backups.filter((b) => b.wal_segment_size_bytes !== null);
  const sizes = new Set(declared.map((b) => b.wal_segment_size_bytes));
  const old = new Set(declared.map((b) => b.postgresql_version !== null && b.postgresql_version < VERSION_WITH_SEGMENT_FF));
  const [size] = sizes;
  return sizes.size === 1 && old.size === 1 && size !== undefined ? size : null;
}

/** The parsed memory, or null when malformed (shape, types, order). */
function parseMemory(v: unknown, generation: number): MemoryObservation | null {
  if (!isObject(v) || !hasExactly(v, ['segment_size_bytes', 'frontiers', 'vanished_gaps'])) return null;
  const size = v['segment_size_bytes'];
  const frontiers = v['frontiers'];
  const vanished = v['vanished_gaps'];
  if (!(size === null || (typeof size === 'number' && Number.isSafeInteger(size) && isValidSegmentSize(size)))) return null;
  if (!Array.isArray(frontiers) || !Array.isArray(vanished)) return null;
  const f: FrontierObservation[] = [];
  for (const x of frontiers as unknown[]) {
    if (!isObject(x) || !hasExactly(x, ['timeline', 'last_position']) || !isTimeline(x['timeline']) || !isUint(x['last_position'])) return null;
    const prev = f.at(-1);
    if (prev !== undefined && prev.timeline >= x['timeline']) return null;
    f.push({ timeline: x['timeline'], last_position: x['last_position'] });
  }
  // Without a segment size there are no positions to remember.
  if (size === null && f.length > 0) return null;
  const g: VanishedGapObservation[] = [];
  for (const x of vanished as unknown[]) {
    if (!isObject(x) || !hasExactly(x, ['timeline', 'start_position', 'end_position', 'first_observed_generation'])) return null;
    const { timeline, start_position: start, end_position: end, first_observed_generation: first } = x;
    // Remembered from an earlier generation: observed first before this one.
    if (!isTimeline(timeline) || !isUint(start) || !isUint(end) || end < start || !isGeneration(first) || first >= generation) return null;
    const prev = g.at(-1);
    if (prev !== undefined && (prev.timeline > timeline || (prev.timeline === timeline && prev.start_position >= start))) return null;
    g.push({ timeline, start_position: start, end_position: end, first_observed_generation: first });
  }
  return { segment_size_bytes: size, frontiers: f, vanished_gaps: g };
}

const GAP_CLASSES: readonly string[] = ['retention-expected', 'unexplained'] satisfies readonly GapClass[];

/** The observations `viewer scan` prints beside `wal_gap_classes` and `memory`, each checked for its type. */
const OTHER_OBSERVATIONS: Readonly<Record<string, (v: unknown) => boolean>> = {
  store_time_at_scan: isTimestampOrNull,
  newest_wal_received_at: isTimestampOrNull,
  archive_lag_seconds: isSecondsOrNull,
  expected_max_archive_lag_seconds: isSecondsOrNull,
};

/** Shape checks of `observations`; the refusal, or the parsed observations. */
function parseObservations(v: unknown, generation: number): PreviousObservations | string {
  if (!isObject(v) || !Array.isArray(v['wal_gap_classes'])) return REFUSALS.observations;
  for (const [key, value] of Object.entries(v)) {
    if (key === 'wal_gap_classes' || key === 'memory') continue;
    const check = Object.hasOwn(OTHER_OBSERVATIONS, key) ? OTHER_OBSERVATIONS[key] : undefined;
    if (check === undefined || !check(value)) return REFUSALS.observations;
  }
  const classes: GapClassObservation[] = [];
  for (const x of v['wal_gap_classes'] as unknown[]) {
    if (!isObject(x) || !hasExactly(x, ['timeline', 'start_position', 'class']) || !isTimeline(x['timeline']) || !isUint(x['start_position'])) return REFUSALS.observations;
    const c = x['class'];
    if (typeof c !== 'string' || !GAP_CLASSES.includes(c)) return REFUSALS.observations;
    classes.push({ timeline: x['timeline'], start_position: x['start_position'], class: c as GapClass });
  }
  if (!Object.hasOwn(v, 'memory')) return REFUSALS.noMemory;
  const memory = parseMemory(v['memory'], generation);
  if (memory === null) return REFUSALS.observations;
  return { ...v, wal_gap_classes: classes, memory };
}

/** Remembered gaps must be disjoint on their timeline (the gap index relies on it). */
function disjoint(spans: readonly { timeline: number; start: number; end: number }[]): boolean {
  const sorted = [...spans].sort((a, b) => a.timeline - b.timeline || a.start - b.start);
  for (let i = 1; i < sorted.length; i++) {
    const a = sorted[i - 1];
    const b = sorted[i];
    if (a !== undefined && b !== undefined && a.timeline === b.timeline && b.start <= a.end) return false;
  }
  return true;
}

/**
 * The previous run's document, checked whole, as a continuation of the configured scope; or the
 * one fixed sentence that says why it cannot be continued.
 */
export function readPreviousScan(text: string, expected: ExpectedScope): PreviousScan {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    return refuse(REFUSALS.notJson);
  }
  if (!isObject(doc) || !hasExactly(doc, DOCUMENT_KEYS)) return refuse(REFUSALS.notDocument);
  const { snapshot: rawSnapshot, backups, wal_ranges: ranges, wal_gaps: gaps, recovery_paths: paths, observations: rawObservations } = doc;
  if (!Array.isArray(backups) || !Array.isArray(ranges) || !Array.isArray(gaps) || !Array.isArray(paths)) return refuse(REFUSALS.notDocument);

  // The snapshot first: its identity decides whether the rest is ours to read at all.
  if (wireViolations('RepositoryEvidenceSnapshot', rawSnapshot).length > 0) return refuse(REFUSALS.snapshot);
  const snapshot = rawSnapshot as RepositoryEvidenceSnapshot;
  const repository = snapshot.identity.repository;
  if (repository.format !== expected.format) return refuse(REFUSALS.format);
  if (repository.provider !== expected.provider) return refuse(REFUSALS.provider);
  if (repository.destination_fingerprint !== expected.fingerprint) return refuse(REFUSALS.destination);
  if (repository.scope.name !== expected.server) return refuse(REFUSALS.server);
  const generation = snapshot.evidence_generation;
  if (snapshot.revision >= Number.MAX_SAFE_INTEGER || generation >= Number.MAX_SAFE_INTEGER) return refuse(REFUSALS.exhausted);

  if (!itemsValid('ArchiveBackupPage', backups, snapshot) || !itemsValid('ArchiveWALRangePage', ranges, snapshot) || !itemsValid('ArchiveWALGapPage', gaps, snapshot) || !itemsValid('ArchiveRecoveryPathPage', paths, snapshot)) {
    return refuse(REFUSALS.items);
  }
  const b = backups as BackupItem[];
  const r = ranges as WalRangeItem[];
  const g = gaps as WalGapItem[];
  const p = paths as RecoveryPathItem[];
  if ([...b, ...r, ...g, ...p].some((i) => i.server !== expected.server)) return refuse(REFUSALS.itemServer);

  if (generation === 0) {
    // No complete generation: nothing to remember, only the revision to continue.
    if (b.length + r.length + g.length + p.length > 0) return refuse(REFUSALS.itemsBeforeScan);
    if (rawObservations !== null) return refuse(REFUSALS.observationsBeforeScan);
    return {
      ok: true,
      continuation: { revision: snapshot.revision, generation, completedAt: snapshot.completed_at, snapshot, backups: [], walRanges: [], walGaps: [], recoveryPaths: [], previousGaps: [], previousFrontiers: null, previousCompletedBackups: new Set(), observations: null },
    };
  }

  const totals = detailsView(snapshot.details).totals;
  if (totals === null || totals.backups !== b.length || totals.ranges !== r.length || totals.gaps !== g.length || totals.paths !== p.length) return refuse(REFUSALS.counts);
  // Every gap item is of the generation published (a failed run retains that generation's items).
  if (g.some((i) => i.last_observed_generation !== generation)) return refuse(REFUSALS.gapGenerations);

  if (rawObservations === null) return refuse(REFUSALS.noObservations);
  const observations = parseObservations(rawObservations, generation);
  if (typeof observations === 'string') return refuse(observations);
  const classes = observations.wal_gap_classes;
  if (classes.length !== g.length || classes.some((c, i) => c.timeline !== g[i]?.timeline || c.start_position !== g[i]?.start_position)) return refuse(REFUSALS.gapClasses);

  const memory = observations.memory;
  // Frontiers are a high-water mark: when this scan knew the geometry they were updated from its
  // ranges, so each timeline observed has one at least as far as its newest range, under that size.
  const settled = settledSegmentSize(b);
  if (settled !== null) {
    if (memory.segment_size_bytes !== settled) return refuse(REFUSALS.frontiers);
    const last = new Map(memory.frontiers.map((f) => [f.timeline, f.last_position]));
    for (const range of r) {
      const mark = last.get(range.timeline);
      if (mark === undefined || mark < range.end_position) return refuse(REFUSALS.frontiers);
    }
  }

  // A vanished loss is in no gap of this scan and not observed: no range holds it whole.
  const vanished = memory.vanished_gaps;
  const gapSpans = g.map((i) => ({ timeline: i.timeline, start: i.start_position, end: i.end_position }));
  const vanishedSpans = vanished.map((v) => ({ timeline: v.timeline, start: v.start_position, end: v.end_position }));
  if (!disjoint([...gapSpans, ...vanishedSpans])) return refuse(REFUSALS.vanished);
  if (vanished.some((v) => r.some((range) => range.timeline === v.timeline && range.start_position <= v.start_position && v.end_position <= range.end_position))) {
    return refuse(REFUSALS.vanished);
  }

  const previousGaps: GapMemory[] = [
    ...g.map((i, n) => ({ timeline: i.timeline, start: i.start_position, end: i.end_position, firstObservedGeneration: i.first_observed_generation, lastObservedGeneration: i.last_observed_generation, firstObservedAt: null, status: i.status, class: classes[n]?.class ?? 'unexplained' })),
    // Only confirmed, unexplained losses are remembered once they vanish (scope-scan.ts).
    ...vanished.map((v): GapMemory => ({ timeline: v.timeline, start: v.start_position, end: v.end_position, firstObservedGeneration: v.first_observed_generation, lastObservedGeneration: generation, firstObservedAt: null, status: 'confirmed', class: 'unexplained' })),
  ];
  const previousFrontiers: FrontierMemory | null =
    memory.segment_size_bytes === null ? null : { segmentSize: memory.segment_size_bytes, last: new Map(memory.frontiers.map((f) => [f.timeline, f.last_position])) };
  return {
    ok: true,
    continuation: {
      revision: snapshot.revision,
      generation,
      completedAt: snapshot.completed_at,
      snapshot,
      backups: b,
      walRanges: r,
      walGaps: g,
      recoveryPaths: p,
      previousGaps,
      previousFrontiers,
      previousCompletedBackups: completedBackupsOf(b),
      observations,
    },
  };
}
