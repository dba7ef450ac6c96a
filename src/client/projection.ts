/**
 * The consumer's projection: one completely assembled publication of the sidecar, as the library
 * hands it to its users. Owns the projection's shape and the versioning rules of the spec that
 * decide what a client keeps of a body it only partly understands:
 * - an unrecognized `details.type` keeps only the bounded tag; the payload is discarded and the
 *   format details are `known: false` (Versioning rule 4);
 * - a collection whose page was answered 413 `response-limit` is `known: false` (the spec's
 *   transition table; D-57 leaves this half to the client); the rest stays usable;
 * - an unrecognized reason code keeps its state and gets a generic explanation (`explainReason`).
 */
import type { BackupItem, RecoveryPathItem, WalGapItem, WalRangeItem } from '../contract/collections.ts';
import type { CollectionRoute } from '../contract/routes.ts';
import type { ArchiveCloudSummary, RepositoryEvidenceSnapshot } from '../contract/snapshot.ts';

/** The snapshot without its format payload: the common envelope every client understands. */
export type SnapshotEnvelope = Omit<RepositoryEvidenceSnapshot, 'details'>;

/** The format details: the recognized payload, or only the bounded tag of one this client does not know. */
export type FormatDetails =
  | { readonly type: 'archive-cloud/v1alpha1'; readonly known: true; readonly archive_cloud: ArchiveCloudSummary }
  | { readonly type: string; readonly known: false };

/** Why a collection is not known although the snapshot was assembled. */
export type CollectionUnknownReason = 'response-limit';

export type Collection<T> =
  | { readonly known: true; readonly items: readonly T[] }
  | { readonly known: false; readonly reason: CollectionUnknownReason };

/** The item type of each collection, keyed by its route name (`src/contract/routes.ts`). */
export interface CollectionItems {
  readonly backups: BackupItem;
  readonly 'wal-ranges': WalRangeItem;
  readonly 'wal-gaps': WalGapItem;
  readonly 'recovery-paths': RecoveryPathItem;
}

/** One completely assembled publication: every requested page of one revision validated. */
export interface Projection {
  readonly revision: number;
  readonly evidenceGeneration: number;
  readonly snapshot: SnapshotEnvelope;
  readonly details: FormatDetails;
  readonly collections: { readonly [C in CollectionRoute]: Collection<CollectionItems[C]> };
  /** When the consumer finished assembling it, on the consumer's clock (never compared with the store's). */
  readonly assembledAt: Date;
}
