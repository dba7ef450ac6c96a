/**
 * The registry of wire kinds: one entry per response kind, naming its schema and its TypeScript
 * type. Schema files, the validator, the serializer and the examples all read this one table.
 */
import type { Static, TSchema } from '@sinclair/typebox';
import {
  ArchiveBackupPage,
  ArchiveRecoveryPathPage,
  ArchiveWALGapPage,
  ArchiveWALRangePage,
} from './collections.ts';
import { ArchiveCloudDetails, RepositoryEvidenceSnapshot, StanzaRepositoryDetails } from './snapshot.ts';
import { EvidenceAPIError, HealthStatus, ReadinessStatus } from './status.ts';

export const WIRE_SCHEMAS = {
  RepositoryEvidenceSnapshot,
  ArchiveBackupPage,
  ArchiveWALRangePage,
  ArchiveWALGapPage,
  ArchiveRecoveryPathPage,
  HealthStatus,
  ReadinessStatus,
  EvidenceAPIError,
} as const satisfies Record<string, TSchema>;

export type WireKind = keyof typeof WIRE_SCHEMAS;
export const WIRE_KINDS = Object.keys(WIRE_SCHEMAS) as WireKind[];

export type WireBody<K extends WireKind> = Static<(typeof WIRE_SCHEMAS)[K]>;

/**
 * What the serializer needs of a schema, and nothing else: each object's properties in declared
 * order, array items, union branches and JSON types. `serialize.ts` reads it from
 * `wire-shapes.generated.json` at run time (no TypeBox, no schemas loaded, issue 28); `npm run
 * contract` writes it from here and the contract test fails while it is stale.
 */
export interface WireShape {
  readonly type?: string;
  readonly properties?: Readonly<Record<string, WireShape>>;
  readonly prefixItems?: readonly WireShape[];
  readonly items?: WireShape;
  readonly anyOf?: readonly WireShape[];
}

function shapeOf(schema: unknown): WireShape {
  const s = schema as { type?: unknown; properties?: Record<string, unknown>; prefixItems?: unknown[]; items?: unknown; anyOf?: unknown[] };
  return {
    ...(typeof s.type === 'string' ? { type: s.type } : {}),
    ...(s.properties === undefined ? {} : { properties: Object.fromEntries(Object.entries(s.properties).map(([k, v]) => [k, shapeOf(v)])) }),
    ...(s.prefixItems === undefined ? {} : { prefixItems: s.prefixItems.map(shapeOf) }),
    ...(typeof s.items === 'object' && s.items !== null ? { items: shapeOf(s.items) } : {}),
    ...(s.anyOf === undefined ? {} : { anyOf: s.anyOf.map(shapeOf) }),
  };
}

/** Every wire kind's shape, by kind. */
export function wireShapes(): Record<WireKind, WireShape> {
  return Object.fromEntries(WIRE_KINDS.map((kind) => [kind, shapeOf(WIRE_SCHEMAS[kind])])) as Record<WireKind, WireShape>;
}

export const SCHEMA_BASE_URI = 'https://evidence.viewer.io/schemas/v1alpha1/';
export const JSON_SCHEMA_DIALECT = 'https://json-schema.org/draft/2020-12/schema';

/**
 * The published JSON Schema document of a kind: the TypeBox schema with its dialect and id.
 * JSON round-tripping drops TypeBox's symbol keys, leaving plain JSON Schema.
 */
export function schemaDocument(kind: WireKind): Record<string, unknown> {
  const body = JSON.parse(JSON.stringify(WIRE_SCHEMAS[kind])) as Record<string, unknown>;
  return { $schema: JSON_SCHEMA_DIALECT, $id: `${SCHEMA_BASE_URI}${kind}.schema.json`, title: kind, ...body };
}

/**
 * Not wire kinds: each `details` member on its own, the payload its `details.type` names, so a
 * format's payload has a schema file of its own (`schemas/v1alpha1/<Name>.schema.json`). The
 * snapshot's schema holds the same members inline, with the rules that need the envelope
 * (generation 0, staleness, the format's agreement with the type).
 */
export const DETAILS_SCHEMAS = { ArchiveCloudDetails, StanzaRepositoryDetails } as const satisfies Record<string, TSchema>;
export type DetailsSchemaName = keyof typeof DETAILS_SCHEMAS;
export const DETAILS_SCHEMA_NAMES = Object.keys(DETAILS_SCHEMAS) as DetailsSchemaName[];

/** The published JSON Schema document of one details member, like `schemaDocument`. */
export function detailsSchemaDocument(name: DetailsSchemaName): Record<string, unknown> {
  const body = JSON.parse(JSON.stringify(DETAILS_SCHEMAS[name])) as Record<string, unknown>;
  return { $schema: JSON_SCHEMA_DIALECT, $id: `${SCHEMA_BASE_URI}${name}.schema.json`, title: name, ...body };
}
