/**
 * The consumer's correlation of orchestrator backup records (CloudNativePG `Backup` objects) with
 * repository backups, under the spec's consumer contract rules 6–8. Owns the typed record the
 * console hands in, the eligibility rules, the match rule and the outcomes. Pure: no I/O, no clock.
 * The producer asserts no such correlation; this is the consumer's claim alone, so every doubt
 * ends in an outcome that is not `matched`.
 *
 * Precedence, per record:
 * 1. Eligibility of the record comes first, because it depends on the record alone and a record
 *    that can never be correlated should say why whatever the projections hold. The first failing
 *    check names the reason, in this order: `other-namespace`, `not-owned-by-target`,
 *    `unsupported-method`, `no-backup-id`.
 * 2. Then projection usability: no projection is `unknown/no-projection`; no projection passing
 *    rules 6(a) and 6(b) is `unknown/identity-mismatch`. Projections failing them are never
 *    searched, whatever they hold (their backups may belong to another cluster or repository).
 * 3. Then the count over every passing projection whose backups are known (rule 6(e)); each
 *    matching item counts once, so two sources claiming the id are two matches:
 *    - more than one match is `ambiguous`, even when another passing projection's backups are
 *      unknown: the unknown ones could only add matches, never remove the ambiguity;
 *    - otherwise, if any passing projection's backups are unknown, the result is
 *      `unknown/backups-unknown`, both with zero matches (the id may sit in the collection we do
 *      not hold, so `not-observed` would be a guess) and with exactly one (the unseen collection
 *      may hold a second claim, so `matched` would collapse a possible ambiguity into agreement);
 *    - otherwise zero matches is `not-observed` and exactly one is `matched` (rule 7).
 * Names, timestamps and prefixes never take part (rule 8): belonging is proved by the owner
 * reference's UID, and the only key is `status.backupId`, compared byte for byte.
 */
import type { BackupItem } from '../contract/collections.ts';
import type { Projection } from './projection.ts';

/** An owner reference as Kubernetes writes it into `metadata.ownerReferences`. */
export interface OwnerReference {
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
  readonly uid: string;
  readonly controller?: boolean;
}

/** The fields of a CloudNativePG `Backup` object the correlation reads; the rest is not needed. */
export interface OrchestratorBackup {
  readonly metadata: {
    readonly name: string;
    readonly namespace: string;
    readonly uid?: string;
    readonly ownerReferences?: readonly OwnerReference[];
  };
  readonly spec: {
    readonly cluster: { readonly name: string };
    readonly method?: string;
    readonly pluginConfiguration?: { readonly name: string };
  };
  readonly status?: { readonly backupId?: string; readonly method?: string };
}

/** The console's own cluster: the one records and responses must belong to. */
export interface TargetCluster {
  readonly namespace: string;
  readonly uid: string;
}

/** What the console was configured to expect of the repository (fingerprint, server) and the wire constants. */
export interface RepositoryMapping {
  readonly fingerprint: string;
  readonly server: string;
  readonly provider: 'store-a';
  readonly format: 'archive-cloud';
}

export interface CorrelationInput {
  readonly target: TargetCluster;
  readonly mapping: RepositoryMapping;
  /** The latest assembled projection of each source; one per source, or a source counts twice. */
  readonly projections: readonly Projection[];
  readonly records: readonly OrchestratorBackup[];
}

export const NOT_ELIGIBLE_REASONS = ['other-namespace', 'not-owned-by-target', 'unsupported-method', 'no-backup-id'] as const;
export type NotEligibleReason = (typeof NOT_ELIGIBLE_REASONS)[number];

export const CORRELATION_UNKNOWN_REASONS = ['no-projection', 'identity-mismatch', 'backups-unknown'] as const;
export type CorrelationUnknownReason = (typeof CORRELATION_UNKNOWN_REASONS)[number];

export type CorrelationOutcome =
  | { readonly kind: 'matched'; readonly backupId: string }
  | { readonly kind: 'not-observed' }
  | { readonly kind: 'ambiguous'; readonly matches: number }
  | { readonly kind: 'not-eligible'; readonly reason: NotEligibleReason }
  | { readonly kind: 'unknown'; readonly reason: CorrelationUnknownReason };

/** One record's outcome, with the record's namespace and name for display only (never a key). */
export interface CorrelationResult {
  readonly namespace: string;
  readonly name: string;
  readonly outcome: CorrelationOutcome;
}

/** CloudNativePG's API group; the version after the slash may change without changing the owner. */
const CNPG_API_GROUP_PREFIX = 'postgresql.cnpg.io/';
/** CloudNativePG applies `barmanObjectStore` when `spec.method` is absent. */
const DEFAULT_METHOD = 'barmanObjectStore';
const PLUGIN_METHOD = 'plugin';
/** The Barman Cloud plugin writes the same archive-cloud layout as the in-tree method. */
const BARMAN_CLOUD_PLUGIN = 'barman-cloud.cloudnative-pg.io';

/** Rule 6(c): belonging is proved only by an owner reference to a Cluster with the target's UID. */
function ownedByTarget(record: OrchestratorBackup, target: TargetCluster): boolean {
  // An empty configured UID would otherwise accept an empty reference UID as proof.
  if (target.uid === '') return false;
  return (record.metadata.ownerReferences ?? []).some(
    (ref) => ref.kind === 'Cluster' && ref.apiVersion.startsWith(CNPG_API_GROUP_PREFIX) && ref.uid === target.uid,
  );
}

/** Rule 6(d): only the archive-object-store methods write what the repository inventories. */
function supportedMethod(record: OrchestratorBackup): boolean {
  const method = record.spec.method ?? DEFAULT_METHOD;
  // A status that reports another method than the spec asked for is a record we cannot trust either way.
  if (record.status?.method !== undefined && record.status.method !== method) return false;
  if (method === DEFAULT_METHOD) return true;
  return method === PLUGIN_METHOD && record.spec.pluginConfiguration?.name === BARMAN_CLOUD_PLUGIN;
}

function ineligibility(record: OrchestratorBackup, target: TargetCluster): NotEligibleReason | null {
  if (record.metadata.namespace !== target.namespace) return 'other-namespace';
  if (!ownedByTarget(record, target)) return 'not-owned-by-target';
  if (!supportedMethod(record)) return 'unsupported-method';
  const backupId = record.status?.backupId;
  if (backupId === undefined || backupId === '') return 'no-backup-id';
  return null;
}

/** Rules 6(a) and 6(b): the response describes the target cluster and the configured repository. */
function identityPasses(projection: Projection, target: TargetCluster, mapping: RepositoryMapping): boolean {
  const { cluster, repository } = projection.snapshot.identity;
  return (
    cluster.namespace === target.namespace &&
    cluster.uid === target.uid &&
    repository.destination_fingerprint === mapping.fingerprint &&
    repository.provider === mapping.provider &&
    repository.format === mapping.format &&
    repository.scope.name === mapping.server
  );
}

/** Rule 6(e): same mapped server, and the id byte-equal (no case folding, no trimming, no prefix). */
const matches = (item: BackupItem, server: string, backupId: string): boolean =>
  item.server === server && item.backup_id === backupId;

function outcomeFor(
  record: OrchestratorBackup,
  input: CorrelationInput,
  passing: readonly Projection[],
): CorrelationOutcome {
  const reason = ineligibility(record, input.target);
  if (reason !== null) return { kind: 'not-eligible', reason };
  if (input.projections.length === 0) return { kind: 'unknown', reason: 'no-projection' };
  if (passing.length === 0) return { kind: 'unknown', reason: 'identity-mismatch' };

  // Eligibility guarantees a non-empty id; read it again so the type says so too.
  const backupId = record.status?.backupId ?? '';
  let count = 0;
  let someUnknown = false;
  for (const projection of passing) {
    const backups = projection.collections.backups;
    if (!backups.known) {
      someUnknown = true;
      continue;
    }
    for (const item of backups.items) if (matches(item, input.mapping.server, backupId)) count += 1;
  }
  if (count > 1) return { kind: 'ambiguous', matches: count };
  if (someUnknown) return { kind: 'unknown', reason: 'backups-unknown' };
  return count === 1 ? { kind: 'matched', backupId } : { kind: 'not-observed' };
}

/** One result per record, in input order. */
export function correlate(input: CorrelationInput): CorrelationResult[] {
  const passing = input.projections.filter((p) => identityPasses(p, input.target, input.mapping));
  return input.records.map((record) => ({
    namespace: record.metadata.namespace,
    name: record.metadata.name,
    outcome: outcomeFor(record, input, passing),
  }));
}
