/**
 * The `RepositoryEvidenceSnapshot` wire kind and its parts: Capability, InventorySummary, Details
 * (a tagged union: the `archive_cloud` payload, and the `stanza_repository` payload of pgBackRest's
 * format, D-72), StateCounts, WALCounts and RetentionSummary.
 *
 * The spec's conditional rules that JSON Schema can state are expressed here with `if`/`then`:
 * generation 0 against complete evidence (timestamps, completeness, counts `null` while evidence is
 * incomplete), unsupported or unknown capability support, inventory counts only when `known`, the
 * minimum redundancy only when configured, the truncation flags (D-11), staleness (D-12) and the
 * agreement of `identity.repository.format` with `details.type` (D-72). They are generated from
 * the tables below (`CAPABILITY_IDS`, `DETAILS_PAYLOADS` and the per-payload tables it names), so
 * each is written once; the code that builds snapshots
 * (evidence/summary.ts, publication/publisher.ts) is held to them by the validator before anything
 * is published. Rules no schema can express live in `invariants.ts`.
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { Completeness, FailureCategory, Fingerprint, Nullable, Provider, Reason, ServerName, State, StateReason, Timestamp, Uint } from './primitives.ts';
import {
  API_VERSION,
  CAPABILITY_IDS,
  CLUSTER_NAME_PATTERN,
  type COMMON_SUMMARY_FIELDS,
  DETAILS_PAYLOADS,
  DETAILS_TAG_PATTERN,
  DETAILS_TYPE_ARCHIVE_CLOUD,
  DETAILS_TYPE_OF_FORMAT,
  DETAILS_TYPE_STANZA_REPOSITORY,
  NAMESPACE_PATTERN,
  PRODUCER_NAME,
  SCOPE_KIND,
  STANZA_TRUNCATION_DEPENDENTS,
  SUPPORT_LEVELS,
  TRUNCATION_DEPENDENTS,
  UID_PATTERN,
  WIRE_FORMATS,
} from './values.ts';

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

const stateIsUnknown = { type: 'object', properties: { state: { const: 'unknown' } } };

/** The spec's archive_cloud summary: every payload carries these fields with this meaning and these rules. */
const commonSummaryFields = {
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
} satisfies Record<(typeof COMMON_SUMMARY_FIELDS)[number], TSchema>;

/**
 * Not a wire kind: the fields both payloads share, as the format-neutral reading of any details
 * returns them (`commonSummary`, details-view.ts). Each payload's schema states their rules.
 */
export const CommonSummary = Type.Object(commonSummaryFields, { additionalProperties: false });
export type CommonSummary = Static<typeof CommonSummary>;

/** The `if`/`then` rules of a truncation table: a flag that is true forces its dependents' states to `unknown`. */
const truncationRules = (table: Readonly<Record<string, readonly string[]>>) =>
  Object.entries(table).map(([flag, states]) => ({
    if: { type: 'object', properties: { [flag]: { const: true } }, required: [flag] },
    then: { type: 'object', properties: Object.fromEntries(states.map((s) => [s, stateIsUnknown])) },
  }));

export const ArchiveCloudSummary = Type.Object(commonSummaryFields, {
  additionalProperties: false,
  allOf: truncationRules(TRUNCATION_DEPENDENTS),
});
export type ArchiveCloudSummary = Static<typeof ArchiveCloudSummary>;

/** Backups by pgBackRest's `backup-type`. */
export const BackupTypeCounts = Type.Object({ full: Uint, diff: Uint, incr: Uint }, { additionalProperties: false });
export type BackupTypeCounts = Static<typeof BackupTypeCounts>;

/**
 * The `stanza-repository/v1alpha1` payload (pgBackRest, D-72): every field of the archive_cloud
 * summary with the same meaning and rules, and what a pgBackRest user expects beside them.
 */
export const StanzaRepositorySummary = Type.Object(
  {
    ...commonSummaryFields,
    /** Backups listed in backup.info's `[backup:current]` (status `DONE`) by pgBackRest type; null while any backup's status is unknown. */
    backup_types: Nullable(BackupTypeCounts),
    /** Whether every diff and incr backup's referenced backups are present and usable. */
    dependency_chain: StateReason,
    /** The repository cipher is in use (`aes-256-cbc`); null when the scan could not tell. */
    encrypted: Nullable(Type.Boolean()),
    /** Backup items with status `INTERRUPTED`: label directories holding only `backup.manifest.copy`; null while any backup's status is unknown. */
    interrupted_backups: Nullable(Uint),
  },
  { additionalProperties: false, allOf: truncationRules(STANZA_TRUNCATION_DEPENDENTS) },
);
export type StanzaRepositorySummary = Static<typeof StanzaRepositorySummary>;

export const ArchiveCloudDetails = Type.Object(
  { type: Type.Literal(DETAILS_TYPE_ARCHIVE_CLOUD), archive_cloud: ArchiveCloudSummary },
  { additionalProperties: false },
);
export type ArchiveCloudDetails = Static<typeof ArchiveCloudDetails>;

export const StanzaRepositoryDetails = Type.Object(
  { type: Type.Literal(DETAILS_TYPE_STANZA_REPOSITORY), stanza_repository: StanzaRepositorySummary },
  { additionalProperties: false },
);
export type StanzaRepositoryDetails = Static<typeof StanzaRepositoryDetails>;

/**
 * The tagged union: exactly one member, each with exactly one payload (every member is closed),
 * and the member agrees with `identity.repository.format` (`formatAgreement` below).
 */
export const Details = Type.Union([ArchiveCloudDetails, StanzaRepositoryDetails]);
export type Details = Static<typeof Details>;
export type DetailsType = Details['type'];

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
    format: Type.Union(WIRE_FORMATS.map((f) => Type.Literal(f))),
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

const OBJECT_COUNTS: readonly string[] = ['backup_states', 'wal_counts', 'backup_types'];
const payloads = Object.values(DETAILS_PAYLOADS);

/** A rule on `details` that holds for whichever payload is present: each key's fields as `field` maps them. */
const onPayloads = (fields: (p: (typeof payloads)[number]) => readonly string[], field: (name: string) => unknown) => ({
  type: 'object',
  properties: Object.fromEntries(
    payloads.map((p) => [p.key, { type: 'object', properties: Object.fromEntries(fields(p).map((f) => [f, field(f)])) }]),
  ),
});

/** When the snapshot is stale, every current-evidence state is `unknown` (D-12). */
const staleForcesUnknown = (withDetails: boolean) => ({
  if: { type: 'object', properties: { stale: { const: true } }, required: ['stale'] },
  then: {
    type: 'object',
    properties: {
      state: { const: 'unknown' },
      capabilities: {
        not: { type: 'array', contains: { type: 'object', properties: { state: { not: { const: 'unknown' } } }, required: ['state'] } },
      },
      ...(withDetails ? { details: onPayloads((p) => p.states, () => stateIsUnknown) } : {}),
    },
  },
});

/**
 * Generation 0 has no complete evidence: null generation timestamps, no counts, state `unknown`.
 * A non-zero generation is complete evidence (possibly stale): timestamps and counts are present.
 */
const generationRules = (withDetails: boolean) => ({
  if: { type: 'object', properties: { evidence_generation: { const: 0 } }, required: ['evidence_generation'] },
  then: {
    type: 'object',
    properties: {
      started_at: nullType,
      completed_at: nullType,
      completeness: { enum: ['no-completed-scan', 'incomplete'] },
      state: { const: 'unknown' },
      inventory: { type: 'object', properties: { known: { const: false } } },
      ...(withDetails ? { details: onPayloads((p) => p.nullAtGenerationZero, () => nullType) } : {}),
    },
  },
  else: {
    type: 'object',
    properties: {
      started_at: { type: 'string' },
      completed_at: { type: 'string' },
      completeness: { const: 'complete' },
      inventory: { type: 'object', properties: { known: { const: true } } },
      ...(withDetails ? { details: onPayloads((p) => p.counts, (f) => (OBJECT_COUNTS.includes(f) ? { type: 'object' } : uintType)) } : {}),
    },
  },
});

/** `identity.repository.format` names the details type: each format publishes only its own payload (D-72). */
const formatAgreement = payloads.map((p) => ({
  if: {
    type: 'object',
    properties: {
      identity: {
        type: 'object',
        properties: { repository: { type: 'object', properties: { format: { const: p.format } }, required: ['format'] } },
        required: ['repository'],
      },
    },
    required: ['identity'],
  },
  then: { type: 'object', properties: { details: { type: 'object', properties: { type: { const: DETAILS_TYPE_OF_FORMAT[p.format] } } } } },
}));

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
  { additionalProperties: false, allOf: [generationRules(true), staleForcesUnknown(true), ...formatAgreement] },
);
export type RepositoryEvidenceSnapshot = Static<typeof RepositoryEvidenceSnapshot>;
/** A snapshot whose details are known to be one member of the union (examples, a format's own tests). */
export type SnapshotWith<D extends Details> = Omit<RepositoryEvidenceSnapshot, 'details'> & { details: D };

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
  // Only the envelope's rules: the payload beside an unknown tag is not judged, nor is its format.
  { additionalProperties: false, allOf: [generationRules(false), staleForcesUnknown(false)] },
);
