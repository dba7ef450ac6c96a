/**
 * `viewer/client`: the consumer side of the sidecar's socket (spec "Consumer contract"), for a
 * console process in the same pod. Configuration from the four inputs, a background poller that
 * keeps the last completely assembled projection and a typed source state, the versioning rules,
 * correlation of CloudNativePG Backup records, and the projection's metrics. docs/consumer.md walks
 * an integrator through it; `viewer console` is the reference console built on it.
 */
export { CONSUMER_INPUTS, ConsumerConfigError, consumerConfigFrom, EVIDENCE_URL, EXPECTED_WIRE } from './config.ts';
export type { ConsumerConfig, ConsumerConfigViolation, ConsumerInput, ConsumerSetting } from './config.ts';
export { EvidenceSource, readConsumerToken, SOURCE_DEFAULTS, STATE_OF_REASON } from './source.ts';
export type { EvidenceSourceOptions, SourceEvent, SourceReason, SourceState, SourceStatus } from './source.ts';
export { AssemblyFailure, assembleProjection, DEFAULT_PAGE_LIMIT, PublicationMoved, readSnapshot } from './assembly.ts';
export type { AssemblyFailureReason, ExpectedRepository, MoveCause, SnapshotRead } from './assembly.ts';
export { TransportFailure, unixSocketTransport } from './transport.ts';
export type { Transport, TransportFailureKind, TransportResponse, UnixSocketTransportOptions } from './transport.ts';
export type { Collection, CollectionItems, CollectionUnknownReason, FormatDetails, Projection, SnapshotEnvelope } from './projection.ts';
export { explainReason, GENERIC_REASON_EXPLANATION, isRecognizedReasonCode, RECOGNIZED_REASON_CODES } from './reasons.ts';
export type { ReasonExplanation, RecognizedReasonCode } from './reasons.ts';
export { correlate, CORRELATION_UNKNOWN_REASONS, NOT_ELIGIBLE_REASONS } from './correlation.ts';
export type { CorrelationInput, CorrelationOutcome, CorrelationResult, CorrelationUnknownReason, NotEligibleReason, OrchestratorBackup, OwnerReference, RepositoryMapping, TargetCluster } from './correlation.ts';
export { OPENMETRICS_CONTENT_TYPE, projectionMetrics, projectionScope } from './metrics.ts';
