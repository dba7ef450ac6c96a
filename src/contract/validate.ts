/**
 * The one wire validator: the kind's JSON Schema (Draft 2020-12, compiled by ajv in strict mode)
 * and then the rules of `invariants.ts`. The publisher runs it before publishing (a failure is the
 * 500 `invalid-publication` path) and the tests run it on every body they see.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import formatsPlugin from 'ajv-formats';
import { invariantViolations, type Violation } from './invariants.ts';
import { schemaDocument, WIRE_KINDS, type WireBody, type WireKind } from './kinds.ts';

export type { Violation } from './invariants.ts';

// ajv-formats is CommonJS with `exports.default`; under NodeNext the callable sits on `.default`.
const addFormats = formatsPlugin.default;

/** A strict 2020-12 validator with the `date-time` format, shared by every kind. */
export function createAjv(): Ajv2020 {
  const ajv = new Ajv2020({ strict: true, allErrors: true, allowUnionTypes: false });
  addFormats(ajv, ['date-time']);
  return ajv;
}

let compiled: Map<WireKind, ValidateFunction> | undefined;

function validators(): Map<WireKind, ValidateFunction> {
  if (compiled === undefined) {
    const ajv = createAjv();
    compiled = new Map(WIRE_KINDS.map((kind) => [kind, ajv.compile(schemaDocument(kind))]));
  }
  return compiled;
}

/** Every violation of the kind's schema, then (if the shape is right) of its invariants. */
export function wireViolations(kind: WireKind, body: unknown): Violation[] {
  const validate = validators().get(kind);
  if (validate === undefined) return [{ path: '', rule: 'unknown wire kind' }];
  if (!validate(body)) {
    return (validate.errors ?? []).map((e) => ({ path: e.instancePath, rule: `${e.keyword}: ${e.message ?? 'invalid'}` }));
  }
  return invariantViolations(kind, body as WireBody<typeof kind>);
}

export function isValidWire<K extends WireKind>(kind: K, body: unknown): body is WireBody<K> {
  return wireViolations(kind, body).length === 0;
}
