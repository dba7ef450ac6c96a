/**
 * The fixed bodies: `HealthStatus`, `ReadinessStatus` and the one error body `EvidenceAPIError`.
 * None of them carries identity, destination, provider cause or evidence.
 */
import { Type, type Static } from '@sinclair/typebox';
import { API_VERSION, Message } from './primitives.ts';

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
