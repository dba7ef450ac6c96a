/**
 * The wire's runtime values: identifiers, enumerations, patterns, limits and tables, and nothing
 * built from them. The schemas (primitives.ts, collections.ts, snapshot.ts, status.ts) are made
 * from these with TypeBox; the code that only needs a value imports it from here, so that a scan,
 * a server or a consumer loads neither TypeBox nor the schemas (about 200 modules, 0.07 s of CPU
 * and 20 MiB at every start, issue 28: the published bodies are checked by the precompiled
 * validators of validate.ts). Each value is defined once, here; the types the schemas derive stay
 * with the schemas.
 */
import type { BackupItem } from './collections.ts';
import type { DetailsType } from './snapshot.ts';

// Common wire rules (primitives.ts).

export const API_VERSION = 'evidence.viewer.io/v1alpha1';
export const MEDIA_TYPE = 'application/vnd.viewer.evidence.v1alpha1+json';
export const DETAILS_TYPE_ARCHIVE_CLOUD = 'archive-cloud/v1alpha1';

/** The second format's details type: pgBackRest's repository, standalone mode only (D-60, D-72). */
export const DETAILS_TYPE_STANZA_REPOSITORY = 'stanza-repository/v1alpha1';
export const PRODUCER_NAME = 'viewer';

/** The sidecar's one socket path: the server boundary both ends of the API agree on (Authentication rule 2). */
export const SIDECAR_SOCKET_PATH = '/var/run/viewer/evidence.sock';

/** The largest integer JSON and JavaScript agree on exactly; counts and positions stay below it. */
export const MAX_EXACT_INTEGER = Number.MAX_SAFE_INTEGER;

/**
 * UTC RFC 3339 timestamp with optional fractional seconds. The pattern refuses the "zero"
 * timestamps other stacks use for unknown times (year 0, Go's 0001-01-01, the Unix epoch):
 * unknown is `null` (common wire rule 2).
 */
export const TIMESTAMP_PATTERN =
  '^(?!0000-)(?!0001-01-01T00:00:00(?:\\.0+)?Z$)(?!1970-01-01T00:00:00(?:\\.0+)?Z$)' +
  '[0-9]{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12][0-9]|3[01])T(?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]' +
  '(?:\\.[0-9]{1,9})?Z$';

/** Printable ASCII, no control characters, at most 256 bytes (common wire rule 6). */
export const MESSAGE_MAX_BYTES = 256;

/** Stable lower-kebab-case code, at most 64 bytes. Open set: clients tolerate codes they do not know. */
export const REASON_CODE_PATTERN = '^[a-z0-9]+(?:-[a-z0-9]+)*$';
export const STATES = ['healthy', 'warning', 'unhealthy', 'unknown'] as const;
export const COMPLETENESS = ['complete', 'incomplete', 'no-completed-scan'] as const;
export const FAILURE_CATEGORIES = [
  'canceled',
  'timeout',
  'invalid_configuration',
  'authentication',
  'authorization',
  'throttled',
  'unavailable',
  'not_found',
  'incompatible_format',
  'safety_limit',
] as const;

/**
 * Provider constants. `store-a` is the spec's (S3 and S3-compatible); `store-b` (Azure Blob Storage)
 * and `store-c` (Google Cloud Storage) are ours, named in the same neutral spirit (D-05).
 */
export const PROVIDERS = ['store-a', 'store-b', 'store-c'] as const;
export const FORMAT_ARCHIVE_CLOUD = 'archive-cloud';

/** pgBackRest's repository (its unit is the stanza), named in the spec's neutral spirit (D-60). Standalone only. */
export const FORMAT_STANZA_REPOSITORY = 'stanza-repository';

/** The wire's `identity.repository.format` values; the sidecar publishes only the first (D-72). */
export const WIRE_FORMATS = [FORMAT_ARCHIVE_CLOUD, FORMAT_STANZA_REPOSITORY] as const;
export type WireFormat = (typeof WIRE_FORMATS)[number];

export const SCOPE_KIND = 'archive-server';

/**
 * A Barman server name as viewer accepts it: one path segment of letters, digits, `.`, `_`, `-`,
 * starting with a letter or digit, at most 128 bytes (D-06). Names outside this set are refused at
 * configuration time and never discovered.
 */
export const SERVER_NAME_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$';

/**
 * A backup identifier: the `base/<id>/` directory name when it passes this allowlist, at most 256
 * bytes. Directories whose names fail it never become identifiers (common wire rule 7).
 */
export const BACKUP_ID_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._+-]{0,255}$';

/** A WAL segment name: 24 uppercase hex digits (timeline, log, segment). Never an object key. */
export const WAL_NAME_PATTERN = '^[0-9A-F]{24}$';

/** A log sequence number, `%X/%X` uppercase (the zero-padded low half is accepted too). */
export const LSN_PATTERN = '^[0-9A-F]{1,8}/[0-9A-F]{1,8}$';

/** Kubernetes identity injected by the composing operator. */
export const NAMESPACE_PATTERN = '^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$';
export const UID_PATTERN = '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$';
export const CLUSTER_NAME_PATTERN = '^[a-z0-9](?:[a-z0-9.-]{0,251}[a-z0-9])?$';

/**
 * The spec's pagination limits ("Limits", "Pagination rules"), defined once: the page and cursor
 * schemas, the API's `limit` rule and cursor decoding, and the wire examples all read them here.
 */
export const PAGE_LIMITS = {
  /** Items one page may hold, and the largest `limit` a request may name. */
  maxItems: 200,
  /** Items a page holds when the request names no `limit`. */
  defaultItems: 100,
  /** Bytes of an opaque cursor. */
  cursorBytes: 4096,
} as const;

// The collections' allowlists (collections.ts).

/** Barman's own `backup.info` status values, exported verbatim (D-07). */
export const BACKUP_STATUSES = ['DONE', 'EMPTY', 'FAILED', 'STARTED', 'SYNCING', 'WAITING_FOR_WALS'] as const;

/**
 * A pgBackRest backup's status, which its repository does not record (D-72): `DONE` when listed in
 * backup.info's `[backup:current]`, `INTERRUPTED` for a label directory holding only
 * `backup.manifest.copy`, `UNLISTED` for one holding `backup.manifest` that backup.info does not list.
 */
export const STANZA_BACKUP_STATUSES = ['DONE', 'INTERRUPTED', 'UNLISTED'] as const;

/** Barman's backup types; a direct barman-cloud backup (`mode=None`, no parent) is `full`. */
export const BACKUP_TYPES = ['full', 'incremental', 'rsync', 'snapshot'] as const;

/** pgBackRest's backup types verbatim (`backup-type`): its `incr` is not Barman's `incremental` (D-72). */
export const STANZA_BACKUP_TYPES = ['full', 'diff', 'incr'] as const;

/** Archive compression as classified from the archive object suffixes. */
export const BACKUP_COMPRESSIONS = ['none', 'gzip', 'bzip2', 'snappy', 'lz4', 'zstd'] as const;

/** pgBackRest's `compress-type` values `none`, `gz`, `bz2`, `lz4`, `zst` in the same classification (D-72). */
export const STANZA_BACKUP_COMPRESSIONS = ['none', 'gzip', 'bzip2', 'lz4', 'zstd'] as const;

/** Declared client-side encryption; object-store server-side encryption is invisible, so `null`. */
export const BACKUP_ENCRYPTIONS = ['none', 'gpg'] as const;

/** pgBackRest's repository cipher (`repo-cipher-type`): `none` or `aes-256-cbc` (D-72). */
export const STANZA_BACKUP_ENCRYPTIONS = ['none', 'aes-256-cbc'] as const;

/** Each format's values, once, in order of first appearance: the wire's allowlist. */
const union = <A extends string, B extends string>(a: readonly A[], b: readonly B[]): readonly (A | B)[] => [...new Set<A | B>([...a, ...b])];

export const WIRE_BACKUP_STATUSES = union(BACKUP_STATUSES, STANZA_BACKUP_STATUSES);
export const WIRE_BACKUP_TYPES = union(BACKUP_TYPES, STANZA_BACKUP_TYPES);
export const WIRE_BACKUP_COMPRESSIONS = union(BACKUP_COMPRESSIONS, STANZA_BACKUP_COMPRESSIONS);
export const WIRE_BACKUP_ENCRYPTIONS = union(BACKUP_ENCRYPTIONS, STANZA_BACKUP_ENCRYPTIONS);

/**
 * The wire's one completed status, whatever the payload: Barman's `DONE`, and a pgBackRest backup
 * listed in backup.info (D-72). Every other status, and an unknown one (null), is not completed.
 */
export const COMPLETED_STATUS = 'DONE' satisfies (typeof WIRE_BACKUP_STATUSES)[number];

/** Whether a backup item's status is the wire's completed status (`COMPLETED_STATUS`). */
export function isCompleted(b: Pick<BackupItem, 'status'>): boolean {
  return b.status === COMPLETED_STATUS;
}

export const GAP_STATUSES = ['candidate', 'confirmed'] as const;
export const RECOVERY_STOPS = ['frontier', 'candidate-limited', 'gap-limited', 'unknown-limited'] as const;

/**
 * What an observed recovery path relies on without proof (D-09). Sorted, unique, at most 32.
 * Each is explained in docs/decisions.md.
 */
export const ASSUMPTION_CODES = [
  'backup-end-from-metadata',
  'compressed-content-not-decoded',
  'duplicate-wal-name-not-compared',
  'history-content-trusted',
  'partial-segment-not-used',
  'pre-93-segment-ff-skipped',
  'segment-content-not-verified',
  'segment-size-from-metadata',
] as const;

// The snapshot's capabilities and details payloads (snapshot.ts).

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

/** The StateReason fields every details payload carries (the spec's archive_cloud summary). */
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

/**
 * The fields every details payload carries, in the wire's order (the spec's archive_cloud summary):
 * what the format-neutral reading of any details returns (`commonSummary`, details-view.ts).
 * snapshot.ts's schema of them must declare exactly these, in this order (a test).
 */
export const COMMON_SUMMARY_FIELDS = [
  'backup_items',
  'wal_range_items',
  'wal_gap_items',
  'recovery_path_items',
  'structurally_usable_backups',
  'backup_states',
  'wal_counts',
  'wal',
  'timeline',
  'coverage',
  'retention',
  'latest_archive_receipt_at',
  'ranges_truncated',
  'diagnostics_truncated',
] as const;

/** The StateReason fields of the stanza_repository payload: the common ones and the dependency chain. */
export const STANZA_SUMMARY_STATES = [...SUMMARY_STATES, 'dependency_chain'] as const;
export type StanzaSummaryState = (typeof STANZA_SUMMARY_STATES)[number];

/** D-11's table for the stanza_repository payload: a truncated catalog cannot prove a chain either. */
export const STANZA_TRUNCATION_DEPENDENTS = {
  ranges_truncated: TRUNCATION_DEPENDENTS.ranges_truncated,
  diagnostics_truncated: [...TRUNCATION_DEPENDENTS.diagnostics_truncated, 'dependency_chain'],
} as const satisfies Record<keyof typeof TRUNCATION_DEPENDENTS, readonly StanzaSummaryState[]>;

/**
 * The stanza_repository counts that are `null` while the governing evidence is incomplete. The two
 * of pgBackRest's own stay `null` after a complete scan too when a backup's status is unknown (its
 * backup.info behind a cipher): whether it is listed, and so counted, is then unknown, never 0.
 */
export const STANZA_EVIDENCE_COUNTS = [...EVIDENCE_COUNTS, 'backup_types', 'interrupted_backups'] as const;

/**
 * Each details type: the repository format it belongs to, its payload's key, its StateReason
 * fields, its truncation table and the fields generation 0 forces to `null` (and, for counts,
 * a complete generation forces to be known). snapshot.ts generates the schema rules from it.
 */
export const DETAILS_PAYLOADS = {
  [DETAILS_TYPE_ARCHIVE_CLOUD]: {
    format: FORMAT_ARCHIVE_CLOUD,
    key: 'archive_cloud',
    states: SUMMARY_STATES,
    truncation: TRUNCATION_DEPENDENTS,
    counts: EVIDENCE_COUNTS,
    nullAtGenerationZero: EVIDENCE_COUNTS,
  },
  [DETAILS_TYPE_STANZA_REPOSITORY]: {
    format: FORMAT_STANZA_REPOSITORY,
    key: 'stanza_repository',
    states: STANZA_SUMMARY_STATES,
    truncation: STANZA_TRUNCATION_DEPENDENTS,
    counts: EVIDENCE_COUNTS,
    // Whether the cipher is in use is evidence too: nothing is known of it before a complete scan.
    nullAtGenerationZero: [...STANZA_EVIDENCE_COUNTS, 'encrypted'],
  },
} as const satisfies Record<DetailsType, { format: WireFormat; key: string; states: readonly string[]; truncation: Readonly<Record<string, readonly string[]>>; counts: readonly string[]; nullAtGenerationZero: readonly string[] }>;

/** The details type of a repository format. */
export const DETAILS_TYPE_OF_FORMAT: Readonly<Record<WireFormat, DetailsType>> = Object.fromEntries(
  Object.entries(DETAILS_PAYLOADS).map(([type, p]) => [p.format, type]),
) as Record<WireFormat, DetailsType>;

/**
 * A `details.type` tag as a client keeps it when it does not recognize the type (Versioning rule
 * 4): a bounded lower-case `<format>/<version>` string. Only the tag is kept; the payload is discarded.
 */
export const DETAILS_TAG_PATTERN = '^[a-z0-9][a-z0-9-]{0,46}/v[0-9]+(?:(?:alpha|beta)[0-9]+)?$';

// The fixed bodies (status.ts).

/** The spec's error codes with their HTTP status: the one table the surfaces use. */
export const API_ERROR_STATUS = {
  'invalid-request': 400,
  unauthenticated: 401,
  'not-found': 404,
  'method-not-allowed': 405,
  'publication-changed': 409,
  'response-limit': 413,
  busy: 429,
  'invalid-publication': 500,
} as const;

export type ApiErrorCode = keyof typeof API_ERROR_STATUS;

export const API_ERROR_CODES = Object.keys(API_ERROR_STATUS) as ApiErrorCode[];
