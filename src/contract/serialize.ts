/**
 * The canonical serializer: one JSON text per body, with object keys in the order the kind's
 * schema declares them, whatever order the body was built in. Same publication, same bytes.
 * It does not validate; callers validate first (`validate.ts`) and serialize what passed.
 * The schemas' order comes from `wire-shapes.generated.json` (kinds.ts's `wireShapes`, written by
 * `npm run contract`), so serializing loads neither TypeBox nor the schemas.
 */
import { createRequire } from 'node:module';
import type { WireBody, WireKind, WireShape } from './kinds.ts';

type SchemaNode = WireShape;

let shapes: Readonly<Record<WireKind, WireShape>> | null = null;
// Read on first use, so the contract's build (which writes the file) can load this module without it.
const generatedShapes = () => (shapes ??= createRequire(import.meta.url)('./wire-shapes.generated.json') as Record<WireKind, WireShape>);

/** Rebuild `value` with keys in schema order; keys the schema does not declare are an error. */
function canonical(schema: SchemaNode, value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    return value.map((v, i) => {
      const s = schema.prefixItems?.[i] ?? schema.items;
      return s === undefined ? canonical(branchFor(schema, v), v) : canonical(s, v);
    });
  }
  const node = schema.properties === undefined ? branchFor(schema, value) : schema;
  const props = node.properties;
  if (props === undefined) throw new TypeError('object value where the schema has no object');
  const input = value as Record<string, unknown>;
  for (const key of Object.keys(input)) {
    if (!(key in props)) throw new TypeError('key not declared by the schema');
  }
  const out: Record<string, unknown> = {};
  for (const [key, sub] of Object.entries(props)) {
    if (key in input) out[key] = canonical(sub, input[key]);
  }
  return out;
}

/**
 * For a union, the branch that describes the value: of the branches of its JSON type (one for a
 * nullable union), the first whose properties declare every key the value has (the tagged
 * `details` union's members differ by their payload's key).
 */
function branchFor(schema: SchemaNode, value: unknown): SchemaNode {
  const want = Array.isArray(value) ? 'array' : 'object';
  const branches = (schema.anyOf ?? []).filter((b) => b.type === want);
  if (want === 'object' && branches.length > 1) {
    const keys = Object.keys(value as object);
    const declaring = branches.find((b) => b.properties !== undefined && keys.every((k) => Object.hasOwn(b.properties ?? {}, k)));
    if (declaring !== undefined) return declaring;
  }
  return branches[0] ?? schema;
}

export function serialize<K extends WireKind>(kind: K, body: WireBody<K>): string {
  return serializeWith(generatedShapes(), kind, body);
}

/** The same with the shapes given: the contract's build serializes its examples with the shapes it is writing. */
export function serializeWith<K extends WireKind>(shapes: Readonly<Record<WireKind, WireShape>>, kind: K, body: WireBody<K>): string {
  return JSON.stringify(canonical(shapes[kind], body));
}
