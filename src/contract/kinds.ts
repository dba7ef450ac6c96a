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
import { RepositoryEvidenceSnapshot } from './snapshot.ts';
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
