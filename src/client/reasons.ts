/**
 * The consumer's knowledge of v1alpha1 reason codes, and how it explains a `reason` it is handed.
 * Owns `RECOGNIZED_REASON_CODES` (every code the v1alpha1 producer emits anywhere on the wire: the
 * snapshot's top-level reason, capability reasons, `details.archive_cloud`'s wal, timeline,
 * coverage and retention reasons, backup item reasons and recovery-path item reasons) and
 * `explainReason`.
 *
 * The set is open on the wire (spec, Reason; Versioning rule 5): a producer may send a code this
 * client has never heard of, and that code never changes the supplied state. So this module only
 * explains; it never takes, returns or alters a state. A recognized code's explanation is the
 * producer's message as supplied: the wire schema bounds it (printable ASCII, at most 256 bytes)
 * and the producer wrote it for exactly that code. An unrecognized code gets one fixed generic
 * sentence instead of its message: this client cannot vouch for what an unknown code means, and
 * rendering the message would present the producer's words as if the client understood them
 * (the spec: "renders a generic explanation instead of guessing").
 *
 * The list is written out rather than imported from the producer: the client layer may depend
 * only on the contract, and a client's vocabulary is that of the version it speaks, not whatever
 * the producer it was built beside happens to emit. reasons.test.ts keeps the two in step.
 */

/** Every reason code the v1alpha1 producer can emit, sorted by code unit, each once. */
export const RECOGNIZED_REASON_CODES = [
  'archive-chunk-missing',
  'archive-info-copy-mismatch',
  'archive-info-customer-key-required',
  'archive-info-from-copy',
  'archive-info-unreadable',
  'archive-lag-over-expectation',
  'archive-lag-unknown',
  'archive-receipt-after-store-clock',
  'archive-too-small',
  'backup-bundle-missing',
  'backup-bundle-too-short',
  'backup-catalog-unreadable',
  'backup-directory-missing',
  'backup-earlier-database',
  'backup-failed',
  'backup-file-missing',
  'backup-file-size-mismatch',
  'backup-info-copy-mismatch',
  'backup-info-customer-key-required',
  'backup-info-from-copy',
  'backup-info-inconsistent',
  'backup-info-invalid',
  'backup-info-malformed',
  'backup-info-missing',
  'backup-info-not-utf8',
  'backup-info-too-large',
  'backup-interrupted',
  'backup-manifest-copy-mismatch',
  'backup-manifest-from-copy',
  'backup-manifest-inconsistent',
  'backup-manifest-invalid',
  'backup-manifest-malformed',
  'backup-manifest-missing',
  'backup-manifest-too-large',
  'backup-metadata-customer-key-required',
  'backup-metadata-encrypted',
  'backup-not-completed',
  'backup-not-usable',
  'backup-page-checksum-errors',
  'backup-status-unknown',
  'backup-type-unknown',
  'backup-type-unsupported',
  'backup-unlisted',
  'backup-usability-unknown',
  'backup-warning',
  'backups-usable',
  'capability-not-judged',
  'catalog-complete',
  'catalog-incomplete',
  'completed-backup-not-usable',
  'completed-backup-unhealthy',
  'completed-backup-unknown',
  'completed-backup-warning',
  'consistency-not-reached',
  'coverage-candidate-limited',
  'coverage-gap-limited',
  'coverage-history-contradicted',
  'coverage-path-wal-lost',
  'coverage-system-ambiguous',
  'coverage-target-not-archived',
  'coverage-target-wal-missing',
  'coverage-to-frontier',
  'coverage-to-frontier-backup-warning',
  'coverage-unknown-limited',
  'data-archive-missing',
  'dependency-chain-broken',
  'dependency-chain-unknown',
  'dependency-chains-complete',
  'dependency-missing',
  'dependency-not-usable',
  'diagnostics-truncated',
  'evidence-healthy',
  'evidence-stale',
  'inventory-exact',
  'keep-annotation-customer-key-required',
  'keep-annotation-unrecognized',
  'latest-backup-not-usable',
  'latest-timeline-not-covered',
  'metadata-encrypted',
  'metadata-encryption-unknown',
  'metadata-readable',
  'minimum-redundancy-not-met',
  'multiple-system-ids',
  'no-completed-scan',
  'no-expectation-configured',
  'no-usable-backup',
  'not-in-format',
  'older-backup-not-usable',
  'ranges-truncated',
  'recovery-window-not-covered',
  'redundancy-policy-not-met',
  'refresh-authentication',
  'refresh-authorization',
  'refresh-canceled',
  'refresh-incompatible-format',
  'refresh-invalid-configuration',
  'refresh-invalid-publication',
  'refresh-not-found',
  'refresh-safety-limit',
  'refresh-throttled',
  'refresh-timeout',
  'refresh-unavailable',
  'required-wal-candidate-gap',
  'required-wal-missing',
  'required-wal-not-yet-archived',
  'required-wal-system-ambiguous',
  'retention-met',
  'retention-policy-unrecognized',
  'scope-empty',
  'segment-size-conflict',
  'snapshot-not-verifiable',
  'standalone-retention-limited',
  'structurally-usable',
  'tablespace-archive-missing',
  'target-timeline-not-archived',
  'target-timeline-wal-missing',
  'timeline-history-contradicted',
  'timeline-history-invalid',
  'timeline-history-missing',
  'timeline-history-unread',
  'timelines-consistent',
  'unexpected-archive',
  'unrecognized-objects',
  'wal-archive-empty',
  'wal-continuous',
  'wal-continuous-except-retention',
  'wal-copy-not-restorable',
  'wal-frontier-regressed',
  'wal-gap-candidate',
  'wal-gap-confirmed',
  'wal-gap-vanished',
  'wal-geometry-unknown',
  'wal-segment-size-conflict',
  'wal-segment-size-invalid',
  'wal-segment-size-unknown',
  'wal-timeline-not-archived',
  'wal-unknown-objects',
] as const;

export type RecognizedReasonCode = (typeof RECOGNIZED_REASON_CODES)[number];

/** What the client shows for a code it does not recognize; the state beside it stands as given. */
export const GENERIC_REASON_EXPLANATION = 'The producer gave a reason this client does not recognize; its state stands as given.';

const RECOGNIZED: ReadonlySet<string> = new Set<string>(RECOGNIZED_REASON_CODES);

/** Whether `code` is one this client knows. Exact match only: codes are identifiers, not text to normalise. */
export function isRecognizedReasonCode(code: string): code is RecognizedReasonCode {
  return RECOGNIZED.has(code);
}

/** A reason as the client renders it; `code` is the supplied one, for branching and for logs. */
export interface ReasonExplanation {
  readonly code: string;
  readonly recognized: boolean;
  readonly explanation: string;
}

/**
 * The explanation to render for a wire `reason`. Branches on the code alone (spec: clients branch
 * on typed codes, never on messages); the message is only ever passed through, for known codes.
 */
export function explainReason(reason: { readonly code: string; readonly message: string }): ReasonExplanation {
  return isRecognizedReasonCode(reason.code)
    ? { code: reason.code, recognized: true, explanation: reason.message }
    : { code: reason.code, recognized: false, explanation: GENERIC_REASON_EXPLANATION };
}
