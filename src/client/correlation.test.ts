/**
 * The consumer's correlation under the spec's consumer rules 6–8, as one table: each row is an
 * input and the exact outcome it must produce, so a rule that loosens (a name used as a key, a
 * case-folded id, an unknown collection read as empty) turns some row red.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { BackupItem } from '../contract/collections.ts';
import { backupPage, snapshotComplete } from '../contract/examples.ts';
import type { RepositoryEvidenceSnapshot } from '../contract/snapshot.ts';
import {
  correlate,
  type CorrelationInput,
  type CorrelationOutcome,
  type OrchestratorBackup,
  type OwnerReference,
  type RepositoryMapping,
  type TargetCluster,
} from './correlation.ts';
import type { Projection, SnapshotEnvelope } from './projection.ts';

const NAMESPACE = 'databases';
const UID = '6f1c2a7e-3b9d-4e8f-a1c2-9d8e7f6a5b4c';
const OTHER_UID = '0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d';
const FINGERPRINT = 'sha256:50d858e0985ecc7f60418aaf0cc5ab587f42c2570a884095a9e8ccacd0f6545c';
const OTHER_FINGERPRINT = 'sha256:1111111111111111111111111111111111111111111111111111111111111111';
const SERVER = 'pg-main';
/** The example page's backups: a DONE one and a FAILED one (a failed backup is still a repository backup). */
const OLDER = '20261120T010000';
const NEWER = '20261121T010000';

const target: TargetCluster = { namespace: NAMESPACE, uid: UID };
const mapping: RepositoryMapping = { fingerprint: FINGERPRINT, server: SERVER, provider: 'store-a', format: 'archive-cloud' };

// The fixtures must describe the same cluster as the wire examples, or every row tests the wrong thing.
assert.equal(snapshotComplete.identity.cluster.uid, UID);
assert.equal(snapshotComplete.identity.repository.destination_fingerprint, FINGERPRINT);
assert.deepEqual(
  backupPage.items.map((b) => [b.server, b.backup_id]),
  [[SERVER, OLDER], [SERVER, NEWER]],
);

interface ProjectionOptions {
  readonly namespace?: string;
  readonly uid?: string;
  readonly fingerprint?: string;
  readonly server?: string;
  readonly provider?: RepositoryEvidenceSnapshot['identity']['repository']['provider'];
  /** The backups collection: its items, or `unknown` for a collection answered 413. */
  readonly backups?: readonly BackupItem[] | 'unknown';
}

/** A projection of the wire example snapshot with its identity and backups overridden. */
function projection(options: ProjectionOptions = {}): Projection {
  const { details, ...envelope } = snapshotComplete;
  const { cluster, repository } = snapshotComplete.identity;
  const snapshot: SnapshotEnvelope = {
    ...envelope,
    identity: {
      cluster: { ...cluster, namespace: options.namespace ?? cluster.namespace, uid: options.uid ?? cluster.uid },
      repository: {
        ...repository,
        provider: options.provider ?? repository.provider,
        destination_fingerprint: options.fingerprint ?? repository.destination_fingerprint,
        scope: { ...repository.scope, name: options.server ?? repository.scope.name },
      },
    },
  };
  const backups = options.backups ?? backupPage.items;
  return {
    revision: snapshotComplete.revision,
    evidenceGeneration: snapshotComplete.evidence_generation,
    snapshot,
    details: { type: 'archive-cloud/v1alpha1', known: true, archive_cloud: details.archive_cloud },
    collections: {
      backups: backups === 'unknown' ? { known: false, reason: 'response-limit' } : { known: true, items: backups },
      'wal-ranges': { known: true, items: [] },
      'wal-gaps': { known: true, items: [] },
      'recovery-paths': { known: true, items: [] },
    },
    assembledAt: new Date(0),
  };
}

/** A repository backup item with another id or server, built from a real one. */
const item = (backupId: string, server = SERVER): BackupItem => {
  const base = backupPage.items[0];
  assert.ok(base !== undefined);
  return { ...base, backup_id: backupId, server };
};

const clusterOwner = (uid = UID, name = 'pg-main'): OwnerReference => ({
  apiVersion: 'postgresql.cnpg.io/v1',
  kind: 'Cluster',
  name,
  uid,
  controller: true,
});

interface RecordOptions {
  readonly name?: string;
  readonly namespace?: string;
  readonly clusterName?: string;
  readonly owners?: readonly OwnerReference[] | null;
  readonly method?: string;
  readonly plugin?: string;
  readonly status?: OrchestratorBackup['status'] | null;
}

/** A CloudNativePG Backup of the target cluster, owned by it, in-tree method, reporting `NEWER`. */
function record(options: RecordOptions = {}): OrchestratorBackup {
  const owners = options.owners === undefined ? [clusterOwner()] : options.owners;
  const status = options.status === undefined ? { backupId: NEWER, method: options.method ?? 'barmanObjectStore' } : options.status;
  return {
    metadata: {
      name: options.name ?? 'pg-main-backup-1',
      namespace: options.namespace ?? NAMESPACE,
      uid: '9f8e7d6c-5b4a-4c3d-8e2f-1a0b9c8d7e6f',
      ...(owners === null ? {} : { ownerReferences: owners }),
    },
    spec: {
      cluster: { name: options.clusterName ?? 'pg-main' },
      ...(options.method === undefined ? {} : { method: options.method }),
      ...(options.plugin === undefined ? {} : { pluginConfiguration: { name: options.plugin } }),
    },
    ...(status === null ? {} : { status }),
  };
}

interface Row {
  readonly name: string;
  readonly records?: readonly OrchestratorBackup[];
  readonly projections?: readonly Projection[];
  readonly target?: TargetCluster;
  readonly expected: CorrelationOutcome;
}

const matched = (backupId: string): CorrelationOutcome => ({ kind: 'matched', backupId });
const notObserved: CorrelationOutcome = { kind: 'not-observed' };
const notEligible = (reason: Extract<CorrelationOutcome, { kind: 'not-eligible' }>['reason']): CorrelationOutcome => ({ kind: 'not-eligible', reason });
const unknown = (reason: Extract<CorrelationOutcome, { kind: 'unknown' }>['reason']): CorrelationOutcome => ({ kind: 'unknown', reason });

const ROWS: readonly Row[] = [
  // Rule 6(e) and rule 7.
  { name: 'exact match of status.backupId in the one usable projection', expected: matched(NEWER) },
  { name: 'the other repository backup matches just as well', records: [record({ status: { backupId: OLDER } })], expected: matched(OLDER) },
  { name: 'zero matches is not observed', records: [record({ status: { backupId: '20261122T010000' } })], expected: notObserved },
  {
    name: 'two repositories claiming the id is ambiguous',
    projections: [projection(), projection({ backups: [item(NEWER)] })],
    expected: { kind: 'ambiguous', matches: 2 },
  },
  {
    name: 'one collection holding the id twice is ambiguous too',
    projections: [projection({ backups: [item(NEWER), item(NEWER)] })],
    expected: { kind: 'ambiguous', matches: 2 },
  },
  {
    name: 'an item with the id under another server is not the mapped server',
    projections: [projection({ backups: [item(NEWER, 'pg-other')] })],
    expected: notObserved,
  },

  // Rule 8: names, prefixes and case are never keys.
  {
    name: 'metadata.name equal to a backup_id with another status.backupId is no match by name',
    records: [record({ name: OLDER, status: { backupId: '20261122T010000' } })],
    expected: notObserved,
  },
  { name: 'metadata.name equal to a backup_id with an empty status.backupId', records: [record({ name: OLDER, status: { backupId: '' } })], expected: notEligible('no-backup-id') },
  { name: 'metadata.name equal to a backup_id with no status at all', records: [record({ name: OLDER, status: null })], expected: notEligible('no-backup-id') },
  { name: 'status without backupId', records: [record({ status: { method: 'barmanObjectStore' } })], expected: notEligible('no-backup-id') },
  { name: 'empty status.backupId', records: [record({ status: { backupId: '' } })], expected: notEligible('no-backup-id') },
  { name: 'case differs in backupId', records: [record({ status: { backupId: '20261121t010000' } })], expected: notObserved },
  { name: 'a padded backupId is not trimmed', records: [record({ status: { backupId: ` ${NEWER}` } })], expected: notObserved },
  { name: 'a prefix of a backup_id is no match', records: [record({ status: { backupId: '20261121T' } })], expected: notObserved },
  { name: 'a backup_id plus a suffix is no match', records: [record({ status: { backupId: `${NEWER}0` } })], expected: notObserved },

  // Rule 6(c): namespace and ownership by UID.
  { name: 'record in another namespace', records: [record({ namespace: 'other' })], expected: notEligible('other-namespace') },
  {
    name: 'same cluster name, another cluster UID in the owner reference',
    records: [record({ owners: [clusterOwner(OTHER_UID, 'pg-main')] })],
    expected: notEligible('not-owned-by-target'),
  },
  { name: 'no owner references although spec.cluster.name is the target', records: [record({ owners: null })], expected: notEligible('not-owned-by-target') },
  { name: 'empty owner references', records: [record({ owners: [] })], expected: notEligible('not-owned-by-target') },
  {
    name: 'owner with the target UID but another kind',
    records: [record({ owners: [{ ...clusterOwner(), kind: 'ScheduledBackup' }] })],
    expected: notEligible('not-owned-by-target'),
  },
  {
    name: 'owner with the target UID but another API group',
    records: [record({ owners: [{ ...clusterOwner(), apiVersion: 'example.com/v1' }] })],
    expected: notEligible('not-owned-by-target'),
  },
  {
    name: 'owner by UID with another name and another spec.cluster.name still belongs',
    records: [record({ clusterName: 'renamed', owners: [clusterOwner(UID, 'renamed')] })],
    expected: matched(NEWER),
  },
  {
    name: 'owner reference need not be the controller',
    records: [record({ owners: [{ apiVersion: 'postgresql.cnpg.io/v1', kind: 'Cluster', name: 'pg-main', uid: UID }] })],
    expected: matched(NEWER),
  },
  {
    name: 'an empty target UID never proves ownership',
    target: { namespace: NAMESPACE, uid: '' },
    records: [record({ owners: [clusterOwner('')] })],
    expected: notEligible('not-owned-by-target'),
  },

  // Rule 6(d): the method.
  { name: 'spec.method absent is barmanObjectStore', records: [record({ status: { backupId: NEWER } })], expected: matched(NEWER) },
  { name: 'explicit barmanObjectStore', records: [record({ method: 'barmanObjectStore' })], expected: matched(NEWER) },
  { name: 'volumeSnapshot method', records: [record({ method: 'volumeSnapshot' })], expected: notEligible('unsupported-method') },
  { name: 'an unknown method', records: [record({ method: 'barmanobjectstore' })], expected: notEligible('unsupported-method') },
  {
    name: 'plugin method with the barman-cloud plugin',
    records: [record({ method: 'plugin', plugin: 'barman-cloud.cloudnative-pg.io' })],
    expected: matched(NEWER),
  },
  { name: 'plugin method with another plugin', records: [record({ method: 'plugin', plugin: 'other.example.com' })], expected: notEligible('unsupported-method') },
  { name: 'plugin method without a plugin configuration', records: [record({ method: 'plugin' })], expected: notEligible('unsupported-method') },
  {
    name: 'status.method differs from the defaulted spec method',
    records: [record({ status: { backupId: NEWER, method: 'volumeSnapshot' } })],
    expected: notEligible('unsupported-method'),
  },
  {
    name: 'status.method differs from the spec method',
    records: [record({ method: 'plugin', plugin: 'barman-cloud.cloudnative-pg.io', status: { backupId: NEWER, method: 'barmanObjectStore' } })],
    expected: notEligible('unsupported-method'),
  },

  // Rules 6(a) and 6(b): projection usability.
  { name: 'no projection', projections: [], expected: unknown('no-projection') },
  { name: 'projection of another cluster UID', projections: [projection({ uid: OTHER_UID })], expected: unknown('identity-mismatch') },
  { name: 'projection of another namespace', projections: [projection({ namespace: 'other' })], expected: unknown('identity-mismatch') },
  { name: 'projection with another fingerprint', projections: [projection({ fingerprint: OTHER_FINGERPRINT })], expected: unknown('identity-mismatch') },
  { name: 'projection with another server', projections: [projection({ server: 'pg-other' })], expected: unknown('identity-mismatch') },
  { name: 'projection from another provider', projections: [projection({ provider: 'store-b' })], expected: unknown('identity-mismatch') },
  { name: 'backups collection unknown', projections: [projection({ backups: 'unknown' })], expected: unknown('backups-unknown') },

  // Mixed projections: only passing ones are searched; unknown never collapses into an answer.
  {
    name: 'a mismatched projection holding the id is never searched',
    projections: [projection({ fingerprint: OTHER_FINGERPRINT }), projection({ backups: [] })],
    expected: notObserved,
  },
  {
    name: 'a mismatched projection does not make a match ambiguous',
    projections: [projection({ uid: OTHER_UID }), projection()],
    expected: matched(NEWER),
  },
  {
    name: 'a mismatched projection with unknown backups is ignored',
    projections: [projection({ server: 'pg-other', backups: 'unknown' }), projection({ backups: [] })],
    expected: notObserved,
  },
  {
    name: 'no match beside a passing projection with unknown backups is unknown, not not-observed',
    projections: [projection({ backups: [] }), projection({ backups: 'unknown' })],
    expected: unknown('backups-unknown'),
  },
  {
    name: 'one match beside a passing projection with unknown backups is unknown, not matched',
    projections: [projection(), projection({ backups: 'unknown' })],
    expected: unknown('backups-unknown'),
  },
  {
    name: 'two matches beside a passing projection with unknown backups stay ambiguous',
    projections: [projection(), projection({ backups: 'unknown' }), projection({ backups: [item(NEWER)] })],
    expected: { kind: 'ambiguous', matches: 2 },
  },

  // Precedence: the record's eligibility before projection usability, in the documented order.
  { name: 'ineligible record with no projection', projections: [], records: [record({ method: 'volumeSnapshot' })], expected: notEligible('unsupported-method') },
  {
    name: 'ineligible record beside a mismatched projection',
    projections: [projection({ uid: OTHER_UID })],
    records: [record({ status: { backupId: '' } })],
    expected: notEligible('no-backup-id'),
  },
  {
    name: 'other namespace comes before every other reason',
    records: [record({ namespace: 'other', owners: null, method: 'volumeSnapshot', status: null })],
    expected: notEligible('other-namespace'),
  },
  {
    name: 'ownership comes before method and backup id',
    records: [record({ owners: null, method: 'volumeSnapshot', status: null })],
    expected: notEligible('not-owned-by-target'),
  },
  { name: 'method comes before backup id', records: [record({ method: 'volumeSnapshot', status: null })], expected: notEligible('unsupported-method') },
];

describe('correlate', () => {
  for (const row of ROWS) {
    it(row.name, () => {
      const records = row.records ?? [record()];
      const input: CorrelationInput = {
        target: row.target ?? target,
        mapping,
        projections: row.projections ?? [projection()],
        records,
      };
      const results = correlate(input);
      assert.deepEqual(
        results,
        records.map((r) => ({ namespace: r.metadata.namespace, name: r.metadata.name, outcome: row.expected })),
      );
    });
  }

  it('answers every record in input order, each with its own namespace and name', () => {
    const records = [
      record({ name: 'b-first', status: { backupId: OLDER } }),
      record({ name: 'a-second', namespace: 'other' }),
      record({ name: 'c-third', status: { backupId: '20261122T010000' } }),
      record({ name: 'b-first', status: { backupId: NEWER } }),
    ];
    assert.deepEqual(correlate({ target, mapping, projections: [projection()], records }), [
      { namespace: NAMESPACE, name: 'b-first', outcome: matched(OLDER) },
      { namespace: 'other', name: 'a-second', outcome: notEligible('other-namespace') },
      { namespace: NAMESPACE, name: 'c-third', outcome: notObserved },
      { namespace: NAMESPACE, name: 'b-first', outcome: matched(NEWER) },
    ]);
  });

  it('no records, no results', () => {
    assert.deepEqual(correlate({ target, mapping, projections: [projection()], records: [] }), []);
  });

  it('reads its input without changing it', () => {
    const projections = [projection(), projection({ backups: 'unknown' })];
    const records = [record()];
    const before = structuredClone({ projections, records });
    correlate({ target, mapping, projections, records });
    assert.deepEqual({ projections, records }, before);
  });
});
