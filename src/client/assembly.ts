/**
 * One walk of the sidecar's publication: the snapshot, then every page of the four collections at
 * that snapshot's revision, each validated against the project's JSON Schemas (and their
 * invariants) before it counts. Owns how each answer of the API is read (spec "Errors",
 * "Pagination rules", "Versioning"):
 * - 409 `publication-changed`, a 400 on a cursor (the sidecar restarted and its cursor secret with
 *   it), or a page of another `(revision, evidence_generation)`: `PublicationMoved`; the caller
 *   discards everything assembled and restarts from the snapshot after a backoff;
 * - 413 `response-limit` on a collection page: that collection is `unknown`; the others go on;
 * - everything else that is not a valid page: `AssemblyFailure` with a typed reason.
 * Nothing is returned until every page of one revision validated and the pages agree with each
 * other and with the snapshot's counts (Pagination rule 5): a partial walk is never a projection.
 */
import type { BackupItem, RecoveryPathItem, WalGapItem, WalRangeItem } from '../contract/collections.ts';
import type { WireBody } from '../contract/kinds.ts';
import { compareBackups, compareRecoveryPaths, compareWalRuns, firstOutOfOrder } from '../contract/order.ts';
import { API_VERSION, DETAILS_TYPE_ARCHIVE_CLOUD, PAGE_LIMITS } from '../contract/values.ts';
import { COLLECTIONS, SNAPSHOT_PATH, type Collection as RouteCollection, type CollectionRoute } from '../contract/routes.ts';
import type { RepositoryEvidenceSnapshot } from '../contract/snapshot.ts';
import { foreignDetailsSnapshotViolations, isValidWire, wireViolations } from '../contract/validate.ts';
import { EXPECTED_WIRE } from './config.ts';
import type { Collection, CollectionItems, FormatDetails, Projection, SnapshotEnvelope } from './projection.ts';
import type { Transport, TransportResponse } from './transport.ts';

/** Why a walk failed, for the source state. `transport` and `timeout` come from the transport. */
export type AssemblyFailureReason = 'authentication' | 'busy' | 'schema-incompatible' | 'invalid-publication' | 'identity-mismatch';

export class AssemblyFailure extends Error {
  readonly reason: AssemblyFailureReason;
  constructor(reason: AssemblyFailureReason) {
    super(`evidence walk failed: ${reason}`);
    this.name = 'AssemblyFailure';
    this.reason = reason;
  }
}

/** The publication moved on during the walk (409, or a cursor the sidecar no longer knows). */
export type MoveCause = 'publication-changed' | 'cursor-rejected';

export class PublicationMoved extends Error {
  readonly moveCause: MoveCause;
  constructor(cause: MoveCause) {
    super(`the publication moved during the walk: ${cause}`);
    this.name = 'PublicationMoved';
    this.moveCause = cause;
  }
}

/** What the walk checks the sidecar's identity against (consumer rules 2 and 6(b)). */
export interface ExpectedRepository {
  readonly fingerprint: string;
  readonly server: string;
}

/** A validated snapshot: its envelope, its details as this client understands them. */
export interface SnapshotRead {
  readonly envelope: SnapshotEnvelope;
  readonly details: FormatDetails;
}

/** The collection page size the client asks for: the spec's maximum, so a walk takes the fewest requests. */
export const DEFAULT_PAGE_LIMIT = PAGE_LIMITS.maxItems;

function apiErrorCode(r: TransportResponse): string | null {
  return r.mediaTypeOk && isValidWire('EvidenceAPIError', r.body) ? r.body.code : null;
}

/** The failure every non-200 answer means, for the snapshot and the collections alike. */
function failureOf(r: TransportResponse, withCursor: boolean): Error {
  const code = apiErrorCode(r);
  if (r.status === 401) return new AssemblyFailure('authentication');
  if (r.status === 409 && code === 'publication-changed') return new PublicationMoved('publication-changed');
  if (r.status === 400 && code === 'invalid-request' && withCursor) return new PublicationMoved('cursor-rejected');
  if (r.status === 429) return new AssemblyFailure('busy');
  if (r.status === 500 && code === 'invalid-publication') return new AssemblyFailure('invalid-publication');
  if (r.status === 413 && code === 'response-limit') return new AssemblyFailure('invalid-publication');
  return new AssemblyFailure('schema-incompatible');
}

/** Reads the snapshot: schema (envelope only for an unknown details type), then identity. */
export async function readSnapshot(transport: Transport, expected: ExpectedRepository, signal: AbortSignal): Promise<SnapshotRead> {
  const r = await transport(SNAPSHOT_PATH, signal);
  if (r.status !== 200) throw failureOf(r, false);
  const body = r.body as { api_version?: unknown; kind?: unknown; details?: { type?: unknown } } | undefined;
  if (!r.mediaTypeOk || typeof body !== 'object' || body === null || body.api_version !== API_VERSION || body.kind !== 'RepositoryEvidenceSnapshot') {
    throw new AssemblyFailure('schema-incompatible');
  }
  const known = body.details?.type === DETAILS_TYPE_ARCHIVE_CLOUD;
  const violations = known ? wireViolations('RepositoryEvidenceSnapshot', body) : foreignDetailsSnapshotViolations(body);
  if (violations.length > 0) throw new AssemblyFailure('schema-incompatible');
  const { details, ...envelope } = body as RepositoryEvidenceSnapshot;
  const repository = envelope.identity.repository;
  if (
    repository.provider !== EXPECTED_WIRE.provider ||
    repository.format !== EXPECTED_WIRE.format ||
    repository.scope.kind !== EXPECTED_WIRE.scopeKind ||
    repository.destination_fingerprint !== expected.fingerprint ||
    repository.scope.name !== expected.server
  ) {
    throw new AssemblyFailure('identity-mismatch');
  }
  // Versioning rule 4: of an unknown type only the bounded tag is kept; the payload is dropped here.
  // archive-cloud is the one type this client recognizes (the sidecar publishes no other, D-72).
  const formatDetails: FormatDetails = known && details.type === DETAILS_TYPE_ARCHIVE_CLOUD ? { type: DETAILS_TYPE_ARCHIVE_CLOUD, known: true, archive_cloud: details.archive_cloud } : { type: String(details.type), known: false };
  return { envelope, details: formatDetails };
}

type Page = { total_items: number | null; items: unknown[]; next_cursor: string | null; revision: number; evidence_generation: number };

const ORDER: { readonly [C in CollectionRoute]: (a: CollectionItems[C], b: CollectionItems[C]) => number } = {
  backups: (a: BackupItem, b: BackupItem) => compareBackups(a, b),
  'wal-ranges': (a: WalRangeItem, b: WalRangeItem) => compareWalRuns(a, b),
  'wal-gaps': (a: WalGapItem, b: WalGapItem) => compareWalRuns(a, b),
  'recovery-paths': (a: RecoveryPathItem, b: RecoveryPathItem) => compareRecoveryPaths(a, b),
};

/** The snapshot's own count of a collection, when its details are known. */
function declaredCount(details: FormatDetails, route: CollectionRoute): number | null {
  if (!details.known) return null;
  const d = details.archive_cloud;
  const counts = { backups: d.backup_items, 'wal-ranges': d.wal_range_items, 'wal-gaps': d.wal_gap_items, 'recovery-paths': d.recovery_path_items };
  return counts[route];
}

async function walkCollection<C extends CollectionRoute>(
  c: RouteCollection & { route: C },
  transport: Transport,
  read: SnapshotRead,
  limit: number,
  signal: AbortSignal,
): Promise<Collection<CollectionItems[C]>> {
  const { revision, evidence_generation: generation } = read.envelope;
  const items: CollectionItems[C][] = [];
  let cursor: string | null = null;
  let total: number | null | undefined;
  for (;;) {
    const query = `revision=${revision}&limit=${limit}${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`;
    const r = await transport(`${c.path}?${query}`, signal);
    if (r.status === 413 && apiErrorCode(r) === 'response-limit') return { known: false, reason: 'response-limit' };
    if (r.status !== 200) throw failureOf(r, cursor !== null);
    if (!r.mediaTypeOk || wireViolations(c.kind, r.body).length > 0) throw new AssemblyFailure('schema-incompatible');
    const page = r.body as WireBody<typeof c.kind> as Page;
    if (page.revision !== revision || page.evidence_generation !== generation) throw new PublicationMoved('publication-changed');
    if (total !== undefined && page.total_items !== total) throw new AssemblyFailure('invalid-publication');
    total = page.total_items;
    items.push(...(page.items as CollectionItems[C][]));
    if (page.next_cursor === null) break;
    if (page.items.length === 0) throw new AssemblyFailure('invalid-publication');
    cursor = page.next_cursor;
  }
  // The pages must make one sorted collection, exactly as long as the page totals and the snapshot say.
  if (firstOutOfOrder(items, ORDER[c.route]) !== -1) throw new AssemblyFailure('invalid-publication');
  if (total !== null && total !== undefined && total !== items.length) throw new AssemblyFailure('invalid-publication');
  const declared = declaredCount(read.details, c.route);
  if (declared !== null && declared !== items.length) throw new AssemblyFailure('invalid-publication');
  return { known: true, items };
}

/**
 * Every page of the four collections at the snapshot's revision, validated, or a throw. The
 * collections are walked one after another: the sidecar's concurrency budget is shared with every
 * other caller in the pod, and one walk is a handful of requests.
 */
export async function assembleProjection(transport: Transport, read: SnapshotRead, signal: AbortSignal, options: { limit?: number; now?: () => Date } = {}): Promise<Projection> {
  const limit = options.limit ?? DEFAULT_PAGE_LIMIT;
  const [backups, walRanges, walGaps, recoveryPaths] = COLLECTIONS;
  return {
    revision: read.envelope.revision,
    evidenceGeneration: read.envelope.evidence_generation,
    snapshot: read.envelope,
    details: read.details,
    collections: {
      backups: await walkCollection(backups, transport, read, limit, signal),
      'wal-ranges': await walkCollection(walRanges, transport, read, limit, signal),
      'wal-gaps': await walkCollection(walGaps, transport, read, limit, signal),
      'recovery-paths': await walkCollection(recoveryPaths, transport, read, limit, signal),
    },
    assembledAt: (options.now ?? (() => new Date()))(),
  };
}
