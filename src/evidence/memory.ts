/**
 * The memory between generations (docs/design/evidence.md §Gaps "Evidence over time", D-66, D-80):
 * what one complete generation hands the next, so that nothing it proved is forgotten but by WAL
 * arriving or a completed backup being deleted (the only way a format's retention removes WAL).
 *
 * `EvidenceMemory` is that hand-over: the generation that made it (the counter the next continues
 * from), the gaps it remembers (each gap of its scan with status, class and first and last observed
 * generations, and the confirmed losses that vanished since), the newest position ever observed per
 * timeline (a high-water mark, kept per segment size), the completed backups, and the scope it
 * belongs to (destination fingerprint, format, server). `nextMemory` holds the rules that carry it
 * from one scan to the next; `scanScope` calls it once and only orchestrates.
 *
 * The memory as a document (the state file of `STATE_DIR`, D-81, and `observations.memory` of
 * `viewer scan`'s document, D-71) is written by `memoryDocument` and read by `readMemory` only: the
 * JSON Schema of `memory-schema.ts` (precompiled, the project's one validator) checks its shape,
 * then the rules no schema can express (order, disjoint gaps, generations) and the identity. A
 * document is taken whole or refused with a typed reason; nothing of a refused one is used. No I/O
 * here: the state file is `publication/memory-file.ts`'s.
 */
import { createRequire } from 'node:module';
import type { ValidateFunction } from 'ajv';
import { nextPosition, type WalGeometry } from '../postgres/wal.ts';
import type { BackupFacts } from './backups.ts';
import { GapMemoryIndex, rememberGap, type Gap, type GapClass, type GapMemory } from './gaps.ts';
import type { EvidenceMemoryDocument, ScanObservationsDocument } from './memory-schema.ts';
import { MEMORY_KIND, MEMORY_VERSION } from './memory-values.ts';
import type { TimelineWal } from './wal-archive.ts';
import type { WalIndex } from './wal-index.ts';

/** The scope a memory belongs to: the same destination, format and server, or none of it applies. */
export interface MemoryIdentity {
  /** `sha256:<hex>`, the destination fingerprint (a hash: no bucket, prefix or endpoint in it). */
  readonly fingerprint: string;
  /** The repository format's id (`archive-cloud`, `stanza-repository`). */
  readonly format: string;
  readonly server: string;
}

/** The newest position observed per timeline since the backups last lost one, under one segment size. */
export interface FrontierMemory {
  readonly segmentSize: number;
  readonly last: ReadonlyMap<number, number>;
}

/** What one complete generation hands the next (D-66). */
export interface EvidenceMemory {
  readonly identity: MemoryIdentity;
  /** The complete generation that made it; 0 for a fresh memory (nothing remembered yet). */
  readonly generation: number;
  /** Remembered gaps, disjoint per timeline: this generation's, and the confirmed losses that vanished. */
  readonly gaps: readonly GapMemory[];
  /** Null until a geometry was known. */
  readonly frontiers: FrontierMemory | null;
  readonly completedBackups: ReadonlySet<string>;
}

/** A memory that remembers nothing: the first generation of a scope starts from it. */
export function freshMemory(identity: MemoryIdentity): EvidenceMemory {
  return { identity: { fingerprint: identity.fingerprint, format: identity.format, server: identity.server }, generation: 0, gaps: [], frontiers: null, completedBackups: new Set() };
}

/** The generation a scan continuing `previous` publishes if it completes. */
export const nextGeneration = (previous: EvidenceMemory): number => previous.generation + 1;

export const sameIdentity = (a: MemoryIdentity, b: MemoryIdentity): boolean => a.fingerprint === b.fingerprint && a.format === b.format && a.server === b.server;

/** What one scan found, as the memory rules need it. */
export interface GenerationFacts {
  readonly previous: EvidenceMemory;
  /** This scan's gaps. */
  readonly gaps: readonly Gap[];
  /**
   * The format's class of each gap, index for index; corrected here, in place, by what the memory
   * proved (a loss once unexplained stays unexplained unless a completed backup is gone since).
   */
  readonly classes: GapClass[];
  readonly backups: readonly BackupFacts[];
  readonly timelines: ReadonlyMap<number, TimelineWal>;
  readonly index: WalIndex;
  /** The geometry the ranges' positions are in (the archive's, or PostgreSQL's default while none is known). */
  readonly rangeGeometry: WalGeometry;
  /** The archive's own segment size; null while its geometry is unknown (the frontiers are then carried as they were). */
  readonly segmentSize: number | null;
}

export interface GenerationMemory {
  /** Remembered confirmed, unexplained losses that are no gap any more (neither observed nor in a gap now). */
  readonly vanishedGaps: number;
  /** A timeline's newest observed position moved back since an earlier generation, no backup gone. */
  readonly frontierRegressed: boolean;
  /** What the next generation remembers of this one. */
  readonly memory: EvidenceMemory;
}

const byPosition = (a: GapMemory, b: GapMemory) => a.timeline - b.timeline || a.start - b.start;

/**
 * The rules of evidence over time (docs/design/evidence.md §Gaps): what an earlier generation
 * proved missing or present may only be forgotten when WAL arrived or a completed backup of the
 * previous generation is gone since.
 */
export function nextMemory(f: GenerationFacts): GenerationMemory {
  const previous = f.previous;
  const completedBackups = new Set(f.backups.filter((b) => b.completed).map((b) => b.item.backup_id));
  const backupsGone = [...previous.completedBackups].some((id) => !completedBackups.has(id));
  const remembered = new GapMemoryIndex(previous.gaps);
  for (const [i, g] of f.gaps.entries()) {
    // A hole once unexplained does not become expected by growing: only a deleted backup explains it.
    if (f.classes[i] === 'retention-expected' && !backupsGone && remembered.overlapping(g.timeline, g.start, g.end).some((m) => m.class === 'unexplained')) f.classes[i] = 'unexplained';
  }
  const current = new GapMemoryIndex(f.gaps.map((g) => rememberGap(g, 'unexplained')));
  const observedThrough = (timeline: number, from: number, to: number): boolean => {
    for (let p = from; p <= to; ) {
      const range = f.index.rangeAt(timeline, p);
      if (range === null) return false;
      p = nextPosition(range.end, f.rangeGeometry);
    }
    return true;
  };
  // A confirmed loss whose neighbours vanished too is no gap any more, but it is not filled.
  const vanished = backupsGone
    ? []
    : previous.gaps.filter((m) => m.status === 'confirmed' && m.class === 'unexplained' && current.overlapping(m.timeline, m.start, m.end).length === 0 && !observedThrough(m.timeline, m.start, m.end));
  // Frontiers: the newest position observed per timeline is a high-water mark; WAL gone from a
  // timeline's newest end, no backup deleted, is lost (Barman never removes it).
  const lastObserved = new Map([...f.timelines.values()].flatMap((tl) => (tl.ranges.length === 0 ? [] : [[tl.timeline, (tl.ranges.at(-1) as { end: number }).end] as const])));
  const earlier = previous.frontiers;
  const comparable = f.segmentSize !== null && earlier !== null && earlier.segmentSize === f.segmentSize;
  const frontierRegressed = comparable && !backupsGone && [...earlier.last].some(([t, last]) => (lastObserved.get(t) ?? -1) < last);
  let frontiers: FrontierMemory | null = earlier;
  if (f.segmentSize !== null) {
    const last = new Map(comparable && !backupsGone ? earlier.last : []);
    for (const [t, end] of lastObserved) last.set(t, Math.max(last.get(t) ?? end, end));
    frontiers = { segmentSize: f.segmentSize, last };
  }
  const gaps = [...f.gaps.map((g, i) => rememberGap(g, f.classes[i] ?? 'unexplained')), ...vanished].sort(byPosition);
  return {
    vanishedGaps: vanished.length,
    frontierRegressed,
    memory: { identity: previous.identity, generation: nextGeneration(previous), gaps, frontiers, completedBackups },
  };
}

// The memory as a document.

const validators = createRequire(import.meta.url)('./memory-validators.generated.cjs') as { EvidenceMemory?: ValidateFunction; ScanObservations?: ValidateFunction };

/** Why a memory document is not taken; a typed code, never a value of the document. */
export type MemoryRefusal =
  /** The text is not JSON. */
  | 'not-json'
  /** JSON, but not a memory document at all (another kind, or a viewer's memory of an older shape). */
  | 'not-memory'
  /** A memory document of a version this viewer does not read. */
  | 'other-version'
  /** Its version, but not its schema (a damaged or hand-edited document). */
  | 'schema'
  /** Valid by its schema, but its parts contradict each other (order, overlapping gaps, generations). */
  | 'inconsistent'
  | 'other-destination'
  | 'other-format'
  | 'other-server';

export type MemoryRead = { readonly ok: true; readonly memory: EvidenceMemory } | { readonly ok: false; readonly reason: MemoryRefusal };

/** The memory as its JSON document (canonical: frontiers by timeline, gaps by timeline and start, backups sorted). */
export function memoryDocument(m: EvidenceMemory): EvidenceMemoryDocument {
  if (m.generation < 1) throw new Error('only what a complete generation proved is remembered');
  return {
    kind: MEMORY_KIND,
    version: MEMORY_VERSION,
    identity: { destination_fingerprint: m.identity.fingerprint, format: m.identity.format, server: m.identity.server },
    generation: m.generation,
    segment_size_bytes: m.frontiers?.segmentSize ?? null,
    frontiers: [...(m.frontiers?.last ?? [])].sort(([a], [b]) => a - b).map(([timeline, last]) => ({ timeline, last_position: last })),
    gaps: [...m.gaps].sort(byPosition).map((g) => ({
      timeline: g.timeline,
      start_position: g.start,
      end_position: g.end,
      first_observed_generation: g.firstObservedGeneration,
      last_observed_generation: g.lastObservedGeneration,
      first_observed_at: g.firstObservedAt === null ? null : new Date(g.firstObservedAt).toISOString(),
      status: g.status,
      class: g.class,
    })),
    completed_backups: [...m.completedBackups].sort(),
  };
}

/** The memory as the text of its document. */
export const serializeMemory = (m: EvidenceMemory): string => JSON.stringify(memoryDocument(m));

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The rules no schema expresses: one order for everything, gaps disjoint, generations in order. */
function consistent(d: EvidenceMemoryDocument): boolean {
  if (d.segment_size_bytes === null && d.frontiers.length > 0) return false;
  for (let i = 1; i < d.frontiers.length; i++) if ((d.frontiers[i - 1]?.timeline ?? 0) >= (d.frontiers[i]?.timeline ?? 0)) return false;
  for (const [i, g] of d.gaps.entries()) {
    if (g.end_position < g.start_position) return false;
    if (g.first_observed_generation > g.last_observed_generation || g.last_observed_generation > d.generation) return false;
    const before = d.gaps[i - 1];
    // Sorted by timeline then start, and disjoint on a timeline (the gap index relies on it).
    if (before !== undefined && (before.timeline > g.timeline || (before.timeline === g.timeline && before.end_position >= g.start_position))) return false;
  }
  for (let i = 1; i < d.completed_backups.length; i++) if ((d.completed_backups[i - 1] ?? '') >= (d.completed_backups[i] ?? '')) return false;
  return true;
}

/**
 * A memory document (parsed JSON) as the memory of the scope `expected`, or why not: shape first
 * (the schema), then the identity, then the rules between its parts.
 */
export function readMemory(doc: unknown, expected: MemoryIdentity): MemoryRead {
  const refuse = (reason: MemoryRefusal): MemoryRead => ({ ok: false, reason });
  if (!isObject(doc) || doc['kind'] !== MEMORY_KIND) return refuse('not-memory');
  if (doc['version'] !== MEMORY_VERSION) return refuse('other-version');
  const validate = validators.EvidenceMemory;
  if (validate === undefined) throw new Error('the memory validator is missing (npm run contract)');
  if (!validate(doc)) return refuse('schema');
  const d = doc as unknown as EvidenceMemoryDocument;
  if (d.identity.destination_fingerprint !== expected.fingerprint) return refuse('other-destination');
  if (d.identity.format !== expected.format) return refuse('other-format');
  if (d.identity.server !== expected.server) return refuse('other-server');
  if (!consistent(d)) return refuse('inconsistent');
  return {
    ok: true,
    memory: {
      identity: { fingerprint: expected.fingerprint, format: expected.format, server: expected.server },
      generation: d.generation,
      gaps: d.gaps.map((g) => ({
        timeline: g.timeline,
        start: g.start_position,
        end: g.end_position,
        firstObservedGeneration: g.first_observed_generation,
        lastObservedGeneration: g.last_observed_generation,
        firstObservedAt: g.first_observed_at === null ? null : Date.parse(g.first_observed_at),
        status: g.status,
        class: g.class,
      })),
      frontiers: d.segment_size_bytes === null ? null : { segmentSize: d.segment_size_bytes, last: new Map(d.frontiers.map((x) => [x.timeline, x.last_position])) },
      completedBackups: new Set(d.completed_backups),
    },
  };
}

/** `readMemory` of a document's text. */
export function parseMemory(text: string, expected: MemoryIdentity): MemoryRead {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    return { ok: false, reason: 'not-json' };
  }
  return readMemory(doc, expected);
}

/** `viewer scan`'s observations (everything but the memory, which `readMemory` reads) have the shape of their schema. */
export function isScanObservations(v: unknown): v is ScanObservationsDocument {
  const validate = validators.ScanObservations;
  if (validate === undefined) throw new Error('the observations validator is missing (npm run contract)');
  return validate(v);
}
