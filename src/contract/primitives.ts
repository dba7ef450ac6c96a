/**
 * Bounded wire primitives shared by every response kind: timestamps, integers, typed strings and
 * the enumerations of the spec's common wire rules. Each is a TypeBox schema, so the TypeScript
 * type and the JSON Schema come from one definition and cannot drift.
 *
 * Every string primitive is restricted to printable ASCII. That is stricter than the spec's
 * "UTF-8, at most N bytes", and it is what makes the byte bounds expressible in a schema at all:
 * `maxLength` counts code points, and for ASCII a code point is a byte (docs/decisions.md, D-03).
 */
import { Type, type TSchema, type Static } from '@sinclair/typebox';

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

/** `T` or JSON `null`: the field is always present (common wire rule 8). */
export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/** Unsigned integer: counts, bytes, revisions, generations, WAL positions (common wire rules 3–4). */
export const Uint = Type.Integer({ minimum: 0, maximum: MAX_EXACT_INTEGER });

/** A PostgreSQL timeline identifier: 32 bits, zero is invalid. */
export const TimelineId = Type.Integer({ minimum: 1, maximum: 0xffffffff });

/**
 * UTC RFC 3339 timestamp with optional fractional seconds. The pattern refuses the "zero"
 * timestamps other stacks use for unknown times (year 0, Go's 0001-01-01, the Unix epoch):
 * unknown is `null` (common wire rule 2).
 */
export const TIMESTAMP_PATTERN =
  '^(?!0000-)(?!0001-01-01T00:00:00(?:\\.0+)?Z$)(?!1970-01-01T00:00:00(?:\\.0+)?Z$)' +
  '[0-9]{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12][0-9]|3[01])T(?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]' +
  '(?:\\.[0-9]{1,9})?Z$';
export const Timestamp = Type.String({ format: 'date-time', pattern: TIMESTAMP_PATTERN, maxLength: 30 });

/** Printable ASCII, no control characters, at most 256 bytes (common wire rule 6). */
export const MESSAGE_MAX_BYTES = 256;
export const Message = Type.String({ minLength: 1, maxLength: MESSAGE_MAX_BYTES, pattern: '^[\\x20-\\x7E]+$' });

/** Stable lower-kebab-case code, at most 64 bytes. Open set: clients tolerate codes they do not know. */
export const REASON_CODE_PATTERN = '^[a-z0-9]+(?:-[a-z0-9]+)*$';
export const ReasonCode = Type.String({ minLength: 1, maxLength: 64, pattern: REASON_CODE_PATTERN });

export const Reason = Type.Object(
  { code: ReasonCode, message: Message },
  { additionalProperties: false },
);
export type Reason = Static<typeof Reason>;

export const STATES = ['healthy', 'warning', 'unhealthy', 'unknown'] as const;
export const State = Type.Union(STATES.map((s) => Type.Literal(s)));
export type State = Static<typeof State>;

export const StateReason = Type.Object({ state: State, reason: Reason }, { additionalProperties: false });
export type StateReason = Static<typeof StateReason>;

export const COMPLETENESS = ['complete', 'incomplete', 'no-completed-scan'] as const;
export const Completeness = Type.Union(COMPLETENESS.map((s) => Type.Literal(s)));
export type Completeness = Static<typeof Completeness>;

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
export const FailureCategory = Type.Union(FAILURE_CATEGORIES.map((s) => Type.Literal(s)));
export type FailureCategory = Static<typeof FailureCategory>;

/**
 * Provider constants. `store-a` is the spec's (S3 and S3-compatible); `store-b` (Azure Blob Storage)
 * and `store-c` (Google Cloud Storage) are ours, named in the same neutral spirit (D-05).
 */
export const PROVIDERS = ['store-a', 'store-b', 'store-c'] as const;
export const Provider = Type.Union(PROVIDERS.map((s) => Type.Literal(s)));
export type Provider = Static<typeof Provider>;

export const FORMAT_ARCHIVE_CLOUD = 'archive-cloud';
/** pgBackRest's repository (its unit is the stanza), named in the spec's neutral spirit (D-60). Standalone only. */
export const FORMAT_STANZA_REPOSITORY = 'stanza-repository';
/** The wire's `identity.repository.format` values; the sidecar publishes only the first (D-72). */
export const WIRE_FORMATS = [FORMAT_ARCHIVE_CLOUD, FORMAT_STANZA_REPOSITORY] as const;
export type WireFormat = (typeof WIRE_FORMATS)[number];
export const SCOPE_KIND = 'archive-server';

/** `sha256:` + 64 lowercase hex characters. */
export const Fingerprint = Type.String({ pattern: '^sha256:[0-9a-f]{64}$' });

/**
 * A Barman server name as viewer accepts it: one path segment of letters, digits, `.`, `_`, `-`,
 * starting with a letter or digit, at most 128 bytes (D-06). Names outside this set are refused at
 * configuration time and never discovered.
 */
export const SERVER_NAME_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$';
export const ServerName = Type.String({ pattern: SERVER_NAME_PATTERN, maxLength: 128 });

/**
 * A backup identifier: the `base/<id>/` directory name when it passes this allowlist, at most 256
 * bytes. Directories whose names fail it never become identifiers (common wire rule 7).
 */
export const BACKUP_ID_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._+-]{0,255}$';
export const BackupId = Type.String({ pattern: BACKUP_ID_PATTERN, maxLength: 256 });

/** A WAL segment name: 24 uppercase hex digits (timeline, log, segment). Never an object key. */
export const WAL_NAME_PATTERN = '^[0-9A-F]{24}$';
export const WalName = Type.String({ pattern: WAL_NAME_PATTERN });

/** A log sequence number, `%X/%X` uppercase (the zero-padded low half is accepted too). */
export const LSN_PATTERN = '^[0-9A-F]{1,8}/[0-9A-F]{1,8}$';
export const Lsn = Type.String({ pattern: LSN_PATTERN });

/** PostgreSQL's system identifier: a 64-bit unsigned integer as a decimal string, never a number. */
export const SystemId = Type.String({ pattern: '^(?:0|[1-9][0-9]{0,19})$' });

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

/** Opaque pagination cursor: base64url, at most `PAGE_LIMITS.cursorBytes` bytes. */
export const Cursor = Type.String({ pattern: '^[A-Za-z0-9_-]+$', minLength: 1, maxLength: PAGE_LIMITS.cursorBytes });
