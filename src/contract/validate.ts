/**
 * The one wire validator: the kind's JSON Schema (Draft 2020-12, strict ajv, precompiled into
 * `wire-validators.generated.cjs` by `validator-build.ts`) and then the rules of `invariants.ts`.
 * The publisher runs it before publishing (a failure is the 500 `invalid-publication` path) and
 * the tests run it on every body they see.
 */
import { createRequire } from 'node:module';
import type { ValidateFunction } from 'ajv';
import { invariantViolations, type Violation } from './invariants.ts';
import type { WireBody, WireKind } from './kinds.ts';

export type { Violation } from './invariants.ts';

const generated = createRequire(import.meta.url)('./wire-validators.generated.cjs') as Record<string, ValidateFunction | undefined>;
const validators = generated as Partial<Record<WireKind, ValidateFunction>>;
const clientValidators = generated as { SnapshotWithForeignDetails?: ValidateFunction };

/** Every violation of the kind's schema, then (if the shape is right) of its invariants. */
export function wireViolations(kind: WireKind, body: unknown): Violation[] {
  const validate = Object.hasOwn(validators, kind) ? validators[kind] : undefined;
  if (validate === undefined) return [{ path: '', rule: 'unknown wire kind' }];
  if (!validate(body)) {
    return (validate.errors ?? []).map((e) => ({ path: e.instancePath, rule: `${e.keyword}: ${e.message ?? 'invalid'}` }));
  }
  return invariantViolations(kind, body as WireBody<typeof kind>);
}

/**
 * Every schema violation of a snapshot whose `details.type` the caller does not recognize: the
 * common envelope exactly, `details` only as a bounded tag (Versioning rule 4).
 */
export function foreignDetailsSnapshotViolations(body: unknown): Violation[] {
  const validate = clientValidators.SnapshotWithForeignDetails;
  if (validate === undefined) return [{ path: '', rule: 'validator missing' }];
  if (validate(body)) return [];
  return (validate.errors ?? []).map((e) => ({ path: e.instancePath, rule: `${e.keyword}: ${e.message ?? 'invalid'}` }));
}

export function isValidWire<K extends WireKind>(kind: K, body: unknown): body is WireBody<K> {
  return wireViolations(kind, body).length === 0;
}
