/**
 * The `RepositoryEvidenceSnapshot` wire kind and its parts: Capability, InventorySummary, Details
 * with the `archive_cloud` payload, StateCounts, WALCounts and RetentionSummary.
 *
 * The spec's conditional rules that JSON Schema can state are expressed here with `if`/`then`:
 * generation 0 against complete evidence (timestamps, completeness, counts `null` while evidence is
 * incomplete), unsupported or unknown capability support, inventory counts only when `known`, the
 * minimum redundancy only when configured, the truncation flags (D-11) and staleness (D-12). They
 * are generated from the tables below (`CAPABILITY_IDS`, `TRUNCATION_DEPENDENTS`,
 * `EVIDENCE_COUNTS`, `SUMMARY_STATES`), so each is written once; the code that builds snapshots
 * (evidence/summary.ts, publication/publisher.ts) is held to them by the validator before anything
 * is published. Rules no schema can express live in `invariants.ts`.
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import {
  API_VERSION,
  Completeness,
  DETAILS_TYPE_ARCHIVE_CLOUD,
  FailureCategory,
  Fingerprint,
  FORMAT_ARCHIVE_CLOUD,
  Nullable,
  PRODUCER_NAME,
  Provider,
  Reason,
  SCOPE_KIND,
  ServerName,
  State,
  StateReason,
  Timestamp,
  Uint,
  NAMESPACE_PATTERN,
  UID_PATTERN,
  CLUSTER_NAME_PATTERN,
} from './primitives.ts';

/** Capability identifiers in wire order (sorted by id, common wire rule 5). */
export const CAPABILITY_IDS = [
  'catalog-listing',
  'dependency-chain-validation',
  'encrypted-metadata',
  'object-inventory',
  'observed-recovery-coverage',
  'retention-expectation-comparison',
  'structural-artifact-validation',
  'timeline-history-traversal',
  'wal-continuity',
] as const;
export type CapabilityId = (typeof CAPABILITY_IDS)[number];

export const SUPPORT_LEVELS = ['supported', 'unsupported', 'unknown'] as const;

/** `unsupported` or `unknown` support forces the capability's state to `unknown`. */
const supportForcesUnknown = {
  if: { type: 'object', properties: { support: { enum: ['unsupported', 'unknown'] } }, required: ['support'] },
  then: { type: 'object', properties: { state: { const: 'unknown' } } },
};

const capabilityFields = (id: TSchema) => ({
  id,
  support: Type.Union(SUPPORT_LEVELS.map((s) => Type.Literal(s))),
  state: State,
  reason: Reason,
});

export const Capability = Type.Object(capabilityFields(Type.Union(CAPABILITY_IDS.map((c) => Type.Literal(c)))), {
  additionalProperties: false,
  ...supportForcesUnknown,
});
export type Capability = Static<typeof Capability>;

/**
 * The capability list is complete, unique and sorted by id. Because the set is closed, that is one
 * fixed sequence, which `prefixItems` states exactly: an unsorted, duplicated or partial list fails.
 */
export const CapabilityList = Type.Unsafe<Capability[]>({
  type: 'array',
  prefixItems: CAPABILITY_IDS.map((id) =>
    Type.Object(capabilityFields(Type.Literal(id)), { additionalProperties: false, ...supportForcesUnknown }),
  ),
  items: false,
  minItems: CAPABILITY_IDS.length,
  maxItems: CAPABILITY_IDS.length,
});

const nullType = { type: 'null' };
const uintType = { type: 'integer' };

/** Inventory counts are exact integers only when `known`; otherwise `null`, never 0. */
const INVENTORY_COUNTS = ['object_count', 'stored_bytes', 'unscoped_object_count'] as const;

export const InventorySummary = Type.Object(
  {
    known: Type.Boolean(),
    object_count: Nullable(Uint),
    stored_bytes: Nullable(Uint),
    unscoped_object_count: Nullable(Uint),
    pages_examined: Uint,
    objects_examined: Uint,
    last_failure_category: Nullable(FailureCategory),
  },
  {
    additionalProperties: false,
    if: { type: 'object', properties: { known: { const: true } }, required: ['known'] },
    then: { type: 'object', properties: Object.fromEntries(INVENTORY_COUNTS.map((f) => [f, uintType])) },
    else: { type: 'object', properties: Object.fromEntries(INVENTORY_COUNTS.map((f) => [f, nullType])) },
  },
);
export type InventorySummary = Static<typeof InventorySummary>;

export const StateCounts = Type.Object(
  { healthy: Uint, warning: Uint, unhealthy: Uint, unknown: Uint },
  { additionalProperties: false },
);
export type StateCounts = Static<typeof StateCounts>;

export const WALCounts = Type.Object(
  { segment: Uint, partial: Uint, history: Uint, backup_history: Uint, unknown: Uint, duplicate: Uint },
  { additionalProperties: false },
);
export type WALCounts = Static<typeof WALCounts>;

export const RetentionSummary = Type.Object(
  {
    visible_backups: Nullable(Uint),
    structurally_usable_backups: Nullable(Uint),
    oldest_completion_at: Nullable(Timestamp),
    newest_completion_at: Nullable(Timestamp),
    minimum_configured: Type.Boolean(),
    policy_configured: Type.Boolean(),
    minimum_redundancy: Nullable(Uint),
    state: State,
    reason: Reason,
  },
  {
    additionalProperties: false,
    if: { type: 'object', properties: { minimum_configured: { const: true } }, required: ['minimum_configured'] },
    then: { type: 'object', properties: { minimum_redundancy: uintType } },
    else: { type: 'object', properties: { minimum_redundancy: nullType } },
  },
);
export type RetentionSummary = Static<typeof RetentionSummary>;

/** The StateReason fields of the archive_cloud payload. */
export const SUMMARY_STATES = ['wal', 'timeline', 'coverage', 'retention'] as const;
export type SummaryState = (typeof SUMMARY_STATES)[number];

/**
 * Which states each truncation flag forces to `unknown` (D-11). Ranges feed WAL continuity and
 * coverage; diagnostics (retained per-backup and per-timeline findings) feed timelines, coverage
 * and the retention comparison.
 */
export const TRUNCATION_DEPENDENTS = {
  ranges_truncated: ['wal', 'coverage'],
  diagnostics_truncated: ['timeline', 'coverage', 'retention'],
} as const satisfies Record<string, readonly SummaryState[]>;

/** Counts that are `null` whenever the governing evidence is incomplete. */
export const EVIDENCE_COUNTS = [
  'backup_items',
  'wal_range_items',
  'wal_gap_items',
  'recovery_path_items',
  'structurally_usable_backups',
  'backup_states',
  'wal_counts',
] as const;

const stateIsUnknown = { type: 'object', properties: { state: { const: 'unknown' } } };

export const ArchiveCloudSummary = Type.Object(
  {
    backup_items: Nullable(Uint),
    wal_range_items: Nullable(Uint),
    wal_gap_items: Nullable(Uint),
    recovery_path_items: Nullable(Uint),
    structurally_usable_backups: Nullable(Uint),
    backup_states: Nullable(StateCounts),
    wal_counts: Nullable(WALCounts),
    wal: StateReason,
    timeline: StateReason,
    coverage: StateReason,
    retention: RetentionSummary,
    latest_archive_receipt_at: Nullable(Timestamp),
    ranges_truncated: Type.Boolean(),
    diagnostics_truncated: Type.Boolean(),
  },
  {
    additionalProperties: false,
    allOf: Object.entries(TRUNCATION_DEPENDENTS).map(([flag, states]) => ({
      if: { type: 'object', properties: { [flag]: { const: true } }, required: [flag] },
      then: { type: 'object', properties: Object.fromEntries(states.map((s) => [s, stateIsUnknown])) },
    })),
  },
);
export type ArchiveCloudSummary = Static<typeof ArchiveCloudSummary>;

export const Details = Type.Object(
  { type: Type.Literal(DETAILS_TYPE_ARCHIVE_CLOUD), archive_cloud: ArchiveCloudSummary },
  { additionalProperties: false },
);
export type Details = Static<typeof Details>;

export const Producer = Type.Object(
  {
    name: Type.Literal(PRODUCER_NAME),
    version: Type.String({ pattern: '^[0-9A-Za-z][0-9A-Za-z.+-]{0,63}$' }),
  },
  { additionalProperties: false },
);

export const ClusterIdentity = Type.Object(
  {
    namespace: Type.String({ pattern: NAMESPACE_PATTERN }),
    uid: Type.String({ pattern: UID_PATTERN }),
    name: Nullable(Type.String({ pattern: CLUSTER_NAME_PATTERN })),
  },
  { additionalProperties: false },
);

export const RepositoryIdentity = Type.Object(
  {
    provider: Provider,
    format: Type.Literal(FORMAT_ARCHIVE_CLOUD),
    destination_fingerprint: Fingerprint,
    scope: Type.Object(
      { kind: Type.Literal(SCOPE_KIND), name: ServerName },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);

export const Identity = Type.Object(
  { cluster: ClusterIdentity, repository: RepositoryIdentity },
  { additionalProperties: false },
);

const nullCounts = Object.fromEntries(EVIDENCE_COUNTS.map((f) => [f, nullType]));
const knownCounts = Object.fromEntries(
  EVIDENCE_COUNTS.map((f) => [f, f === 'backup_states' || f === 'wal_counts' ? { type: 'object' } : uintType]),
);
const detailsCounts = (counts: Record<string, unknown>) => ({
  type: 'object',
  properties: { archive_cloud: { type: 'object', properties: counts } },
});

/** When the snapshot is stale, every current-evidence state is `unknown` (D-12). */
const staleForcesUnknown = {
  if: { type: 'object', properties: { stale: { const: true } }, required: ['stale'] },
  then: {
    type: 'object',
    properties: {
      state: { const: 'unknown' },
      capabilities: {
        not: { type: 'array', contains: { type: 'object', properties: { state: { not: { const: 'unknown' } } }, required: ['state'] } },
      },
      details: {
        type: 'object',
        properties: {
          archive_cloud: {
            type: 'object',
            properties: Object.fromEntries(SUMMARY_STATES.map((s) => [s, stateIsUnknown])),
          },
        },
      },
    },
  },
};

/**
 * Generation 0 has no complete evidence: null generation timestamps, no counts, state `unknown`.
 * A non-zero generation is complete evidence (possibly stale): timestamps and counts are present.
 */
const generationRules = {
  if: { type: 'object', properties: { evidence_generation: { const: 0 } }, required: ['evidence_generation'] },
  then: {
    type: 'object',
    properties: {
      started_at: nullType,
      completed_at: nullType,
      completeness: { enum: ['no-completed-scan', 'incomplete'] },
      state: { const: 'unknown' },
      inventory: { type: 'object', properties: { known: { const: false } } },
      details: detailsCounts(nullCounts),
    },
  },
  else: {
    type: 'object',
    properties: {
      started_at: { type: 'string' },
      completed_at: { type: 'string' },
      completeness: { const: 'complete' },
      inventory: { type: 'object', properties: { known: { const: true } } },
      details: detailsCounts(knownCounts),
    },
  },
};

export const RepositoryEvidenceSnapshot = Type.Object(
  {
    api_version: Type.Literal(API_VERSION),
    kind: Type.Literal('RepositoryEvidenceSnapshot'),
    producer: Producer,
    identity: Identity,
    revision: Uint,
    evidence_generation: Uint,
    started_at: Nullable(Timestamp),
    completed_at: Nullable(Timestamp),
    last_attempt_at: Nullable(Timestamp),
    completeness: Completeness,
    stale: Type.Boolean(),
    state: State,
    reason: Reason,
    capabilities: CapabilityList,
    inventory: InventorySummary,
    details: Details,
  },
  { additionalProperties: false, allOf: [generationRules, staleForcesUnknown] },
);
export type RepositoryEvidenceSnapshot = Static<typeof RepositoryEvidenceSnapshot>;

/**
 * A `details.type` tag as a client keeps it when it does not recognize the type (Versioning rule
 * 4): a bounded lower-case `<format>/<version>` string. Only the tag is kept; the payload is discarded.
 */
export const DETAILS_TAG_PATTERN = '^[a-z0-9][a-z0-9-]{0,46}/v[0-9]+(?:(?:alpha|beta)[0-9]+)?$';

/**
 * Not a wire kind: what a client validates of a snapshot whose `details.type` it does not
 * recognize. The common envelope is checked exactly as in `RepositoryEvidenceSnapshot`; `details`
 * only needs its bounded tag (the unknown payload beside it is not judged, and is then discarded).
 */
export const SnapshotWithForeignDetails = Type.Object(
  {
    ...RepositoryEvidenceSnapshot.properties,
    details: Type.Object({ type: Type.String({ pattern: DETAILS_TAG_PATTERN, maxLength: 64 }) }, { additionalProperties: true }),
  },
  { additionalProperties: false, allOf: [generationRules, staleForcesUnknown] },
);
