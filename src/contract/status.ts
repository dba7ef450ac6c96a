/**
 * The fixed bodies: `HealthStatus`, `ReadinessStatus` and the one error body `EvidenceAPIError`.
 * None of them carries identity, destination, provider cause or evidence.
 */
import { Type, type Static } from '@sinclair/typebox';
import { Message } from './primitives.ts';
import { API_ERROR_CODES, API_VERSION } from './values.ts';

export const HealthStatus = Type.Object(
  { api_version: Type.Literal(API_VERSION), kind: Type.Literal('HealthStatus'), status: Type.Literal('live') },
  { additionalProperties: false },
);
export type HealthStatus = Static<typeof HealthStatus>;

export const ReadinessStatus = Type.Object(
  {
    api_version: Type.Literal(API_VERSION),
    kind: Type.Literal('ReadinessStatus'),
    status: Type.Union([Type.Literal('ready'), Type.Literal('not-ready')]),
  },
  { additionalProperties: false },
);
export type ReadinessStatus = Static<typeof ReadinessStatus>;

export const EvidenceAPIError = Type.Object(
  {
    api_version: Type.Literal(API_VERSION),
    kind: Type.Literal('EvidenceAPIError'),
    code: Type.Union(API_ERROR_CODES.map((c) => Type.Literal(c))),
    message: Message,
  },
  { additionalProperties: false },
);
export type EvidenceAPIError = Static<typeof EvidenceAPIError>;
