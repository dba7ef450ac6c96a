/**
 * Bounded wire primitives shared by every response kind: timestamps, integers, typed strings and
 * the enumerations of the spec's common wire rules. Each is a TypeBox schema, so the TypeScript
 * type and the JSON Schema come from one definition and cannot drift. The values they are made of
 * (patterns, enumerations, identifiers, limits) are defined in `values.ts`, which is what the rest
 * of viewer imports at run time (issue 28).
 *
 * Every string primitive is restricted to printable ASCII. That is stricter than the spec's
 * "UTF-8, at most N bytes", and it is what makes the byte bounds expressible in a schema at all:
 * `maxLength` counts code points, and for ASCII a code point is a byte (docs/decisions.md, D-03).
 */
import { Type, type TSchema, type Static } from '@sinclair/typebox';
import { BACKUP_ID_PATTERN, COMPLETENESS, FAILURE_CATEGORIES, LSN_PATTERN, MAX_EXACT_INTEGER, MESSAGE_MAX_BYTES, PAGE_LIMITS, PROVIDERS, REASON_CODE_PATTERN, SERVER_NAME_PATTERN, STATES, TIMESTAMP_PATTERN, WAL_NAME_PATTERN } from './values.ts';

/** `T` or JSON `null`: the field is always present (common wire rule 8). */
export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/** Unsigned integer: counts, bytes, revisions, generations, WAL positions (common wire rules 3–4). */
export const Uint = Type.Integer({ minimum: 0, maximum: MAX_EXACT_INTEGER });

/** A PostgreSQL timeline identifier: 32 bits, zero is invalid. */
export const TimelineId = Type.Integer({ minimum: 1, maximum: 0xffffffff });
export const Timestamp = Type.String({ format: 'date-time', pattern: TIMESTAMP_PATTERN, maxLength: 30 });
export const Message = Type.String({ minLength: 1, maxLength: MESSAGE_MAX_BYTES, pattern: '^[\\x20-\\x7E]+$' });
export const ReasonCode = Type.String({ minLength: 1, maxLength: 64, pattern: REASON_CODE_PATTERN });

export const Reason = Type.Object(
  { code: ReasonCode, message: Message },
  { additionalProperties: false },
);
export type Reason = Static<typeof Reason>;
export const State = Type.Union(STATES.map((s) => Type.Literal(s)));
export type State = Static<typeof State>;

export const StateReason = Type.Object({ state: State, reason: Reason }, { additionalProperties: false });
export type StateReason = Static<typeof StateReason>;
export const Completeness = Type.Union(COMPLETENESS.map((s) => Type.Literal(s)));
export type Completeness = Static<typeof Completeness>;
export const FailureCategory = Type.Union(FAILURE_CATEGORIES.map((s) => Type.Literal(s)));
export type FailureCategory = Static<typeof FailureCategory>;
export const Provider = Type.Union(PROVIDERS.map((s) => Type.Literal(s)));
export type Provider = Static<typeof Provider>;

/** `sha256:` + 64 lowercase hex characters. */
export const Fingerprint = Type.String({ pattern: '^sha256:[0-9a-f]{64}$' });
export const ServerName = Type.String({ pattern: SERVER_NAME_PATTERN, maxLength: 128 });
export const BackupId = Type.String({ pattern: BACKUP_ID_PATTERN, maxLength: 256 });
export const WalName = Type.String({ pattern: WAL_NAME_PATTERN });
export const Lsn = Type.String({ pattern: LSN_PATTERN });

/** PostgreSQL's system identifier: a 64-bit unsigned integer as a decimal string, never a number. */
export const SystemId = Type.String({ pattern: '^(?:0|[1-9][0-9]{0,19})$' });

/** Opaque pagination cursor: base64url, at most `PAGE_LIMITS.cursorBytes` bytes. */
export const Cursor = Type.String({ pattern: '^[A-Za-z0-9_-]+$', minLength: 1, maxLength: PAGE_LIMITS.cursorBytes });
