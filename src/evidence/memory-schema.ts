/**
 * The JSON Schemas of what viewer keeps beside the wire, written once with TypeBox like the wire's
 * (`contract/`), so the TypeScript types and the schemas are one definition. Neither is a v1alpha1
 * wire kind: nothing here is served, and no file of `schemas/v1alpha1/` describes them.
 *
 * - `EvidenceMemory`: what one complete generation hands the next (D-66, D-80), as a document: the
 *   state file of `STATE_DIR` (D-81) and `observations.memory` of `viewer scan`'s document (D-71).
 * - `ScanObservations`: `viewer scan`'s `observations`, what its document carries beside the wire
 *   items (D-61): each gap's class, archive freshness on the store's clock, and the memory (checked
 *   on its own by `memory.ts`, so a refusal can say which part is wrong).
 *
 * Both are compiled by the project's one strict validator (ajv 2020-12, `contract/validator-build.ts`)
 * into `memory-validators.generated.cjs` (`memory-validator-build.ts`; `npm run contract` writes it,
 * and `memory.test.ts` fails while it is stale), which `memory.ts` loads at run time (D-51's reason:
 * no ajv at start-up).
 */
import { Type, type Static } from '@sinclair/typebox';
import { BackupId, Fingerprint, Nullable, ServerName, TimelineId, Timestamp, Uint } from '../contract/primitives.ts';
import { MEMORY_KIND, MEMORY_VERSION } from './memory-values.ts';

export const MEMORY_SCHEMA_BASE_URI = 'https://evidence.viewer.io/schemas/memory/v1/';

/** Bounds: far above what a scan within its ceilings remembers (100,000 ranges, 10,000 backups). */
export const MEMORY_MAX_GAPS = 1_000_000;
export const MEMORY_MAX_BACKUPS = 100_000;
export const MEMORY_MAX_TIMELINES = 100_000;

/** PostgreSQL's segment sizes: powers of two from 1 MiB to 1 GiB (`postgres/wal.ts`, `isValidSegmentSize`). */
export const SEGMENT_SIZES = Array.from({ length: 11 }, (_, i) => 2 ** (20 + i));

/** A registered format's id: lowercase words joined by hyphens (the registry's ids, `archive-cloud`, `stanza-repository`). */
export const FORMAT_ID_PATTERN = '^[a-z0-9]+(?:-[a-z0-9]+)*$';

const Generation = Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER });

export const MemoryIdentitySchema = Type.Object(
  {
    destination_fingerprint: Fingerprint,
    // The format's registry id (`REPOSITORY_FORMAT`), not the wire's format: two formats publishing under one wire format keep apart.
    format: Type.String({ pattern: FORMAT_ID_PATTERN, maxLength: 48 }),
    server: ServerName,
  },
  { additionalProperties: false },
);

export const FrontierSchema = Type.Object({ timeline: TimelineId, last_position: Uint }, { additionalProperties: false });

export const RememberedGapSchema = Type.Object(
  {
    timeline: TimelineId,
    start_position: Uint,
    end_position: Uint,
    first_observed_generation: Generation,
    last_observed_generation: Generation,
    /** The store's clock at the scan that first observed it; null when no clock was read then. */
    first_observed_at: Nullable(Timestamp),
    status: Type.Union([Type.Literal('candidate'), Type.Literal('confirmed')]),
    class: Type.Union([Type.Literal('retention-expected'), Type.Literal('unexplained')]),
  },
  { additionalProperties: false },
);

export const EvidenceMemorySchema = Type.Object(
  {
    kind: Type.Literal(MEMORY_KIND),
    version: Type.Literal(MEMORY_VERSION),
    identity: MemoryIdentitySchema,
    /** The complete generation that handed this on. */
    generation: Generation,
    /** The segment size the frontiers are positions of; null while no geometry was ever known. */
    segment_size_bytes: Nullable(Type.Union(SEGMENT_SIZES.map((s) => Type.Literal(s)))),
    frontiers: Type.Array(FrontierSchema, { maxItems: MEMORY_MAX_TIMELINES }),
    gaps: Type.Array(RememberedGapSchema, { maxItems: MEMORY_MAX_GAPS }),
    completed_backups: Type.Array(BackupId, { maxItems: MEMORY_MAX_BACKUPS }),
  },
  { additionalProperties: false },
);
export type EvidenceMemoryDocument = Static<typeof EvidenceMemorySchema>;

const Seconds = Type.Number({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER });

export const ScanObservationsSchema = Type.Object(
  {
    wal_gap_classes: Type.Array(
      Type.Object(
        { timeline: TimelineId, start_position: Uint, class: Type.Union([Type.Literal('retention-expected'), Type.Literal('unexplained')]) },
        { additionalProperties: false },
      ),
      { maxItems: MEMORY_MAX_GAPS },
    ),
    store_time_at_scan: Nullable(Timestamp),
    newest_wal_received_at: Nullable(Timestamp),
    archive_lag_seconds: Nullable(Seconds),
    expected_max_archive_lag_seconds: Nullable(Seconds),
    /** An `EvidenceMemory` document: read by `memory.ts` on its own. */
    memory: Type.Unknown(),
  },
  { additionalProperties: false },
);
export type ScanObservationsDocument = Static<typeof ScanObservationsSchema>;

/** The schemas compiled into the generated module, by the name it exports them under. */
export const MEMORY_SCHEMAS = { EvidenceMemory: EvidenceMemorySchema, ScanObservations: ScanObservationsSchema } as const;
export type MemorySchemaName = keyof typeof MEMORY_SCHEMAS;
