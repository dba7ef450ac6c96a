/**
 * `viewer scan --previous FILE`: one-shot scans (a cron job, a CI gate) chained through their own
 * output, so that each run continues from the previous one exactly as the next generation of a
 * long-running process would (D-66, D-71): the revision keeps advancing, the generation is the
 * previous one plus one, and the gaps keep their first observed generation, status and class, so a
 * loss is confirmed by the five-minute rule across runs instead of only by the sixty-minute one.
 *
 * The previous run's document is all that is read. Its `observations.memory` is the memory its last
 * complete generation handed on, as the memory module writes it (`evidence/memory.ts`, the same
 * document a `STATE_DIR` state file holds, D-80): the gaps with status, class and generations, the
 * vanished losses, the frontiers, the completed backups, the generation and the scope. It is read by
 * that module alone (`readMemory`: its JSON Schema, then its own rules and its scope); nothing of it
 * is re-derived here from the wire items or a format's rules. The rest of the document is checked by
 * the validators it was written with: the snapshot and the items by the wire's, `observations` by
 * its schema (`evidence/memory-schema.ts`); what ties the parts together is checked here (the same
 * scope, the items' counts, each gap item remembered as the memory says).
 *
 * `readPreviousScan` takes a document whole or not at all: anything that is not exactly such a
 * document of the configured scope is refused with one fixed sentence that never echoes the
 * document or where it came from.
 *
 * A document of a failed run is a valid previous document: it retains the last complete
 * generation's items and, written as the scan command does, its observations, so a chain survives
 * a failed run exactly as a long-running process retains its last complete generation. A document
 * without any complete generation (generation 0) continues the revision only; its observations
 * must be null. A document with a complete generation but no observations, or observations without
 * a memory this viewer reads (a viewer that recorded none, or another shape of it), cannot be
 * continued exactly and is refused.
 */
import { readFile, stat } from 'node:fs/promises';
import type { BackupItem, RecoveryPathItem, WalGapItem, WalRangeItem } from '../contract/collections.ts';
import { API_VERSION, PAGE_LIMITS } from '../contract/values.ts';
import type { RepositoryEvidenceSnapshot } from '../contract/snapshot.ts';
import { wireViolations } from '../contract/validate.ts';
import { freshMemory, isScanObservations, readMemory, type MemoryIdentity, type MemoryRefusal } from '../evidence/memory.ts';
import type { ScanObservationsDocument } from '../evidence/memory-schema.ts';
import { detailsView } from '../publication/details.ts';
import type { PublicationResume } from '../publication/publisher.ts';

/** A previous document's `observations`, as it was printed (its schema's shape). */
export type PreviousObservations = ScanObservationsDocument;

/** The scope the previous document must be of: the configured one, as its publications name it. */
export interface ExpectedScope {
  readonly fingerprint: string;
  readonly server: string;
  readonly provider: string;
  /** The wire's repository format (the format's `wireFormat`), as in `snapshot.identity.repository.format`. */
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
  noMemory: 'the previous scan document records no memory this viewer can read (observations.memory); it was written by a viewer that cannot be continued: start a new chain without --previous',
  memory: 'the previous scan document\'s memory is malformed',
  memoryInconsistent: 'the previous scan document\'s memory contradicts itself',
  memoryScope: 'the previous scan document\'s memory is of another scope than its snapshot',
  memoryGeneration: 'the previous scan document\'s memory is not of its generation',
  gapGenerations: 'the previous scan document\'s gaps were not all observed in its generation',
  gapClasses: 'the previous scan document\'s gap classes do not match its gaps one to one',
  memoryGaps: 'the previous scan document\'s gaps are not remembered as its memory remembers them',
  exhausted: 'the previous scan document\'s revision or generation cannot advance',
} as const;

const refuse = (reason: string): PreviousScan => ({ ok: false, reason });

/** Why the memory module refused the memory, as one of the fixed sentences. */
const MEMORY_REFUSALS: Readonly<Record<MemoryRefusal, string>> = {
  'not-json': REFUSALS.memory,
  'not-memory': REFUSALS.noMemory,
  'other-version': REFUSALS.noMemory,
  schema: REFUSALS.memory,
  inconsistent: REFUSALS.memoryInconsistent,
  'other-destination': REFUSALS.memoryScope,
  'other-format': REFUSALS.memoryScope,
  'other-server': REFUSALS.memoryScope,
};

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

const DOCUMENT_KEYS = ['snapshot', 'backups', 'wal_ranges', 'wal_gaps', 'recovery_paths', 'observations'] as const;
type PageKind = 'ArchiveBackupPage' | 'ArchiveWALRangePage' | 'ArchiveWALGapPage' | 'ArchiveRecoveryPathPage';

/**
 * Items as the publisher checks them: as pages of the kind holding them, under the snapshot's
 * revision and generation, in windows of a page's most (`PAGE_LIMITS.maxItems`) overlapping by
 * one so the sort order is checked across their seams.
 */
function itemsValid(kind: PageKind, items: readonly unknown[], s: RepositoryEvidenceSnapshot): boolean {
  const page = { api_version: API_VERSION, kind, revision: s.revision, evidence_generation: s.evidence_generation, total_items: items.length, next_cursor: null };
  for (let i = 0; i === 0 || i < items.length - 1; i += PAGE_LIMITS.maxItems - 1) {
    if (wireViolations(kind, { ...page, items: items.slice(i, i + PAGE_LIMITS.maxItems) }).length > 0) return false;
  }
  return true;
}

const spanKey = (timeline: number, start: number, end: number) => `${timeline}:${start}:${end}`;

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
  const scope: MemoryIdentity = { fingerprint: expected.fingerprint, format: expected.format, server: expected.server };

  if (generation === 0) {
    // No complete generation: nothing to remember, only the revision to continue.
    if (b.length + r.length + g.length + p.length > 0) return refuse(REFUSALS.itemsBeforeScan);
    if (rawObservations !== null) return refuse(REFUSALS.observationsBeforeScan);
    return {
      ok: true,
      continuation: { revision: snapshot.revision, generation, completedAt: snapshot.completed_at, snapshot, backups: [], walRanges: [], walGaps: [], recoveryPaths: [], memory: freshMemory(scope), observations: null },
    };
  }

  const totals = detailsView(snapshot.details).totals;
  if (totals === null || totals.backups !== b.length || totals.ranges !== r.length || totals.gaps !== g.length || totals.paths !== p.length) return refuse(REFUSALS.counts);
  // Every gap item is of the generation published (a failed run retains that generation's items).
  if (g.some((i) => i.last_observed_generation !== generation)) return refuse(REFUSALS.gapGenerations);

  if (rawObservations === null) return refuse(REFUSALS.noObservations);
  if (isObject(rawObservations) && !Object.hasOwn(rawObservations, 'memory')) return refuse(REFUSALS.noMemory);
  if (!isScanObservations(rawObservations)) return refuse(REFUSALS.observations);
  const observations = rawObservations;
  const classes = observations.wal_gap_classes;
  if (classes.length !== g.length || classes.some((c, i) => c.timeline !== g[i]?.timeline || c.start_position !== g[i]?.start_position)) return refuse(REFUSALS.gapClasses);

  // The memory, through the module that wrote it: taken whole or refused.
  const read = readMemory(observations.memory, scope);
  if (!read.ok) return refuse(MEMORY_REFUSALS[read.reason]);
  const memory = read.memory;
  if (memory.generation !== generation) return refuse(REFUSALS.memoryGeneration);
  // Each gap item is remembered exactly as published: status, generations and class.
  const remembered = new Map(memory.gaps.map((m) => [spanKey(m.timeline, m.start, m.end), m]));
  for (const [i, item] of g.entries()) {
    const m = remembered.get(spanKey(item.timeline, item.start_position, item.end_position));
    if (m === undefined || m.status !== item.status || m.firstObservedGeneration !== item.first_observed_generation || m.lastObservedGeneration !== item.last_observed_generation || m.class !== classes[i]?.class) {
      return refuse(REFUSALS.memoryGaps);
    }
  }
  return { ok: true, continuation: { revision: snapshot.revision, generation, completedAt: snapshot.completed_at, snapshot, backups: b, walRanges: r, walGaps: g, recoveryPaths: p, memory, observations } };
}
