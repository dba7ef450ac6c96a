/**
 * The generated contract files and their exact text: one JSON Schema per wire kind and per details
 * member (D-72), one file per wire example, the precompiled validator module and the serializer's shapes. The writer script and the freshness test both
 * use this, so they cannot disagree.
 */
import { NEGATIVE_EXAMPLES, VALID_EXAMPLES } from './examples.ts';
import { DETAILS_SCHEMA_NAMES, detailsSchemaDocument, schemaDocument, WIRE_KINDS, wireShapes } from './kinds.ts';
import { serializeWith } from './serialize.ts';
import { VALIDATOR_MODULE, validatorModuleSource } from './validator-build.ts';

export const SCHEMA_DIR = 'schemas/v1alpha1';
export const VALID_EXAMPLE_DIR = 'examples/wire/valid';
export const INVALID_EXAMPLE_DIR = 'examples/wire/invalid';
/** Directories holding only generated files: the writer removes what it no longer generates there. */
export const GENERATED_DIRS = [SCHEMA_DIR, VALID_EXAMPLE_DIR, INVALID_EXAMPLE_DIR] as const;
/** The serializer's key order (serialize.ts), generated beside the validators. */
export const SHAPES_FILE = 'src/contract/wire-shapes.generated.json';

const pretty = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;

/** Repository-relative path → file text. */
export function contractFiles(): Map<string, string> {
  const files = new Map<string, string>();
  for (const kind of WIRE_KINDS) files.set(`${SCHEMA_DIR}/${kind}.schema.json`, pretty(schemaDocument(kind)));
  for (const name of DETAILS_SCHEMA_NAMES) files.set(`${SCHEMA_DIR}/${name}.schema.json`, pretty(detailsSchemaDocument(name)));
  files.set(VALIDATOR_MODULE, validatorModuleSource());
  const shapes = wireShapes();
  files.set(SHAPES_FILE, `${JSON.stringify(shapes)}\n`);
  for (const ex of VALID_EXAMPLES) {
    // Canonical key order first, then indentation for readers.
    files.set(`${VALID_EXAMPLE_DIR}/${ex.name}.json`, pretty({ kind: ex.kind, body: JSON.parse(serializeWith(shapes, ex.kind, ex.body)) as unknown }));
  }
  for (const ex of NEGATIVE_EXAMPLES) {
    files.set(`${INVALID_EXAMPLE_DIR}/${ex.name}.json`, pretty({ kind: ex.kind, why: ex.why, body: ex.body }));
  }
  return files;
}
