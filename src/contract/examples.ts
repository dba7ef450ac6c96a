/**
 * Deterministic wire examples of every kind, valid ones and the negative ones the validator must
 * reject. `npm run contract` (scripts/write-contract-files.ts, through `files.ts`) writes them to
 * `examples/wire/valid/` and `examples/wire/invalid/` beside the schemas; contract.test.ts checks
 * the files are as generated, that every valid example passes the validator and every schema, and
 * that every negative one fails the validator (the schema, or `invariants.ts` for what no schema
 * can state). Other tests reuse these bodies as fixtures (the UI's page tests).
 */
/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-member-access,
   @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-call,
   @typescript-eslint/no-unsafe-return --
   negative examples are deliberately ill-typed copies of valid bodies. */
import type { ArchiveBackupPage, ArchiveRecoveryPathPage, ArchiveWALGapPage, ArchiveWALRangePage } from './collections.ts';
import type { WireBody, WireKind } from './kinds.ts';
import { API_VERSION, CAPABILITY_IDS, PAGE_LIMITS } from './values.ts';
import type { ArchiveCloudDetails, Capability, RepositoryEvidenceSnapshot, SnapshotWith, StanzaRepositoryDetails } from './snapshot.ts';
import type { EvidenceAPIError, HealthStatus, ReadinessStatus } from './status.ts';

export interface WireExample<K extends WireKind = WireKind> {
  /** File stem under examples/wire/valid/. */
  readonly name: string;
  readonly kind: K;
  readonly body: WireBody<K>;
}

export interface NegativeExample {
  /** File stem under examples/wire/invalid/. */
  readonly name: string;
  readonly kind: WireKind;
  /** Why it must be rejected (written beside the example). */
  readonly why: string;
  readonly body: unknown;
}

const reason = (code: string, message: string) => ({ code, message });

function capabilities(state: 'healthy' | 'unknown'): Capability[] {
  return CAPABILITY_IDS.map((id) =>
    id === 'encrypted-metadata'
      ? { id, support: 'unsupported', state: 'unknown', reason: reason('not-in-format', 'The format has no encrypted metadata.') }
      : { id, support: 'supported', state, reason: state === 'healthy' ? reason('evidence-complete', 'Evidence from a complete scan.') : reason('no-completed-scan', 'No scan has completed yet.') },
  );
}

const identity: RepositoryEvidenceSnapshot['identity'] = {
  cluster: { namespace: 'databases', uid: '6f1c2a7e-3b9d-4e8f-a1c2-9d8e7f6a5b4c', name: 'pg-main' },
  repository: {
    provider: 'store-a',
    format: 'archive-cloud',
    destination_fingerprint: 'sha256:50d858e0985ecc7f60418aaf0cc5ab587f42c2570a884095a9e8ccacd0f6545c',
    scope: { kind: 'archive-server', name: 'pg-main' },
  },
};

const producer = { name: 'viewer', version: '0.1.0' } as const;

export const snapshotComplete: SnapshotWith<ArchiveCloudDetails> = {
  api_version: API_VERSION,
  kind: 'RepositoryEvidenceSnapshot',
  producer,
  identity,
  revision: 7,
  evidence_generation: 5,
  started_at: '2026-11-21T13:30:00.125Z',
  completed_at: '2026-11-21T13:30:04.875Z',
  last_attempt_at: '2026-11-21T13:30:00.125Z',
  completeness: 'complete',
  stale: false,
  state: 'warning',
  reason: reason('wal-gap-candidate', 'A WAL gap was observed and is not yet confirmed.'),
  capabilities: capabilities('healthy'),
  inventory: {
    known: true,
    object_count: 1342,
    stored_bytes: 22548578304,
    unscoped_object_count: 0,
    pages_examined: 3,
    objects_examined: 1342,
    last_failure_category: null,
  },
  details: {
    type: 'archive-cloud/v1alpha1',
    archive_cloud: {
      backup_items: 2,
      wal_range_items: 3,
      wal_gap_items: 1,
      recovery_path_items: 3,
      structurally_usable_backups: 1,
      backup_states: { healthy: 1, warning: 0, unhealthy: 1, unknown: 0 },
      wal_counts: { segment: 1320, partial: 1, history: 1, backup_history: 2, unknown: 0, duplicate: 0 },
      wal: { state: 'warning', reason: reason('wal-gap-candidate', 'A WAL gap was observed and is not yet confirmed.') },
      timeline: { state: 'healthy', reason: reason('timelines-consistent', 'Every timeline has a valid history.') },
      coverage: { state: 'warning', reason: reason('coverage-gap-limited', 'A recovery path stops at a WAL gap.') },
      retention: {
        visible_backups: 2,
        structurally_usable_backups: 1,
        oldest_completion_at: '2026-11-20T01:00:12.5Z',
        newest_completion_at: '2026-11-21T01:00:09.25Z',
        minimum_configured: true,
        policy_configured: true,
        minimum_redundancy: 1,
        state: 'healthy',
        reason: reason('minimum-redundancy-met', 'Structurally usable backups meet the configured minimum.'),
      },
      latest_archive_receipt_at: '2026-11-21T13:29:58Z',
      ranges_truncated: false,
      diagnostics_truncated: false,
    },
  },
};

const unknownState = (code: string, message: string) => ({ state: 'unknown' as const, reason: reason(code, message) });

export const snapshotNoCompletedScan: SnapshotWith<ArchiveCloudDetails> = {
  ...snapshotComplete,
  revision: 0,
  evidence_generation: 0,
  started_at: null,
  completed_at: null,
  last_attempt_at: null,
  completeness: 'no-completed-scan',
  state: 'unknown',
  reason: reason('no-completed-scan', 'No scan has completed yet.'),
  capabilities: capabilities('unknown'),
  inventory: {
    known: false,
    object_count: null,
    stored_bytes: null,
    unscoped_object_count: null,
    pages_examined: 0,
    objects_examined: 0,
    last_failure_category: null,
  },
  details: {
    type: 'archive-cloud/v1alpha1',
    archive_cloud: {
      backup_items: null,
      wal_range_items: null,
      wal_gap_items: null,
      recovery_path_items: null,
      structurally_usable_backups: null,
      backup_states: null,
      wal_counts: null,
      wal: unknownState('no-completed-scan', 'No scan has completed yet.'),
      timeline: unknownState('no-completed-scan', 'No scan has completed yet.'),
      coverage: unknownState('no-completed-scan', 'No scan has completed yet.'),
      retention: {
        visible_backups: null,
        structurally_usable_backups: null,
        oldest_completion_at: null,
        newest_completion_at: null,
        minimum_configured: false,
        policy_configured: false,
        minimum_redundancy: null,
        state: 'unknown',
        reason: reason('no-completed-scan', 'No scan has completed yet.'),
      },
      latest_archive_receipt_at: null,
      ranges_truncated: false,
      diagnostics_truncated: false,
    },
  },
};

/** Generation 5 retained after a refresh that was throttled: stale, every current state unknown. */
export const snapshotStale: SnapshotWith<ArchiveCloudDetails> = {
  ...snapshotComplete,
  revision: 8,
  last_attempt_at: '2026-11-21T13:35:00Z',
  stale: true,
  state: 'unknown',
  reason: reason('refresh-throttled', 'The latest refresh was throttled by the store; evidence is retained.'),
  capabilities: capabilities('unknown'),
  inventory: { ...snapshotComplete.inventory, pages_examined: 1, objects_examined: 1000, last_failure_category: 'throttled' },
  details: {
    type: 'archive-cloud/v1alpha1',
    archive_cloud: {
      ...snapshotComplete.details.archive_cloud,
      wal: unknownState('evidence-stale', 'Evidence is retained from an earlier generation.'),
      timeline: unknownState('evidence-stale', 'Evidence is retained from an earlier generation.'),
      coverage: unknownState('evidence-stale', 'Evidence is retained from an earlier generation.'),
      retention: { ...snapshotComplete.details.archive_cloud.retention, ...unknownState('evidence-stale', 'Evidence is retained from an earlier generation.') },
    },
  },
};

/**
 * pgBackRest's repository (`stanza-repository`, D-72): stanza `main`, a full with a diff and an
 * incr on it, and an interrupted full; the dependency chain capability is the format's.
 */
const stanzaIdentity: RepositoryEvidenceSnapshot['identity'] = {
  cluster: identity.cluster,
  repository: {
    provider: 'store-a',
    format: 'stanza-repository',
    destination_fingerprint: 'sha256:9c1185a5c5e9fc54612808977ee8f548b2258d31a0e3b1d7a9a0e0d9b7b1b0c2',
    scope: { kind: 'archive-server', name: 'main' },
  },
};

function stanzaCapabilities(state: 'healthy' | 'unknown'): Capability[] {
  return capabilities(state).map((c) =>
    c.id === 'dependency-chain-validation'
      ? { ...c, reason: state === 'healthy' ? reason('dependency-chains-complete', 'Every completed backup that depends on others has its whole chain usable.') : c.reason }
      : c,
  );
}

export const stanzaSnapshotComplete: SnapshotWith<StanzaRepositoryDetails> = {
  ...snapshotComplete,
  identity: stanzaIdentity,
  state: 'healthy',
  reason: reason('evidence-healthy', 'The evidence shows no problem.'),
  capabilities: stanzaCapabilities('healthy'),
  inventory: { ...snapshotComplete.inventory, object_count: 2210, stored_bytes: 9163653120, objects_examined: 2210 },
  details: {
    type: 'stanza-repository/v1alpha1',
    stanza_repository: {
      backup_items: 4,
      wal_range_items: 1,
      wal_gap_items: 0,
      recovery_path_items: 3,
      structurally_usable_backups: 3,
      backup_states: { healthy: 3, warning: 0, unhealthy: 0, unknown: 1 },
      wal_counts: { segment: 2150, partial: 0, history: 0, backup_history: 3, unknown: 0, duplicate: 0 },
      wal: { state: 'healthy', reason: reason('wal-continuous', 'Archived WAL has no gap between the first and last segment of any timeline.') },
      timeline: { state: 'healthy', reason: reason('timelines-consistent', 'Every timeline has a consistent history.') },
      coverage: { state: 'healthy', reason: reason('coverage-to-frontier', 'A usable backup is covered by WAL up to the newest observed segment.') },
      retention: {
        visible_backups: 3,
        structurally_usable_backups: 3,
        oldest_completion_at: '2026-11-20T01:02:10Z',
        newest_completion_at: '2026-11-22T01:00:41Z',
        minimum_configured: false,
        policy_configured: false,
        minimum_redundancy: null,
        state: 'healthy',
        reason: reason('no-expectation-configured', 'No retention expectation is configured.'),
      },
      latest_archive_receipt_at: '2026-11-23T00:59:58Z',
      ranges_truncated: false,
      diagnostics_truncated: false,
      backup_types: { full: 1, diff: 1, incr: 1 },
      dependency_chain: { state: 'healthy', reason: reason('dependency-chains-complete', 'Every completed backup that depends on others has its whole chain usable.') },
      encrypted: false,
      interrupted_backups: 1,
    },
  },
};

export const stanzaSnapshotNoCompletedScan: SnapshotWith<StanzaRepositoryDetails> = {
  ...snapshotNoCompletedScan,
  identity: stanzaIdentity,
  capabilities: stanzaCapabilities('unknown'),
  details: {
    type: 'stanza-repository/v1alpha1',
    stanza_repository: {
      ...snapshotNoCompletedScan.details.archive_cloud,
      backup_types: null,
      dependency_chain: unknownState('no-completed-scan', 'No scan has completed yet.'),
      encrypted: null,
      interrupted_backups: null,
    },
  },
};

const stanzaBackup = {
  server: 'main',
  system_id: '7384497274230341974',
  postgresql_version: null,
  timeline: 1,
  wal_segment_size_bytes: 16777216,
  deduplicated_bytes: null,
  compression: 'zstd',
  encryption: 'none',
  tablespace_count: 0,
} as const;

export const stanzaBackupPage: ArchiveBackupPage = {
  api_version: API_VERSION,
  kind: 'ArchiveBackupPage',
  revision: 7,
  evidence_generation: 5,
  total_items: 4,
  items: [
    {
      ...stanzaBackup,
      backup_id: '20261120-010000F',
      status: 'DONE',
      backup_type: 'full',
      state: 'healthy',
      reason: reason('structurally-usable', 'The manifest, its files and the WAL needed for consistency are present.'),
      begin_wal: '000000010000000000000004',
      end_wal: '000000010000000000000005',
      begin_lsn: '0/4000028',
      end_lsn: '0/5000100',
      begin_at: '2026-11-20T01:00:00Z',
      end_at: '2026-11-20T01:02:10Z',
      logical_bytes: 48071936,
      stored_artifact_bytes: 6291968,
      artifact_count: 1290,
    },
    {
      ...stanzaBackup,
      backup_id: '20261120-010000F_20261121-010000D',
      status: 'DONE',
      backup_type: 'diff',
      state: 'healthy',
      reason: reason('structurally-usable', 'The manifest, its files and the WAL needed for consistency are present.'),
      begin_wal: '0000000100000000000000A1',
      end_wal: '0000000100000000000000A1',
      begin_lsn: '0/A1000028',
      end_lsn: '0/A1000138',
      begin_at: '2026-11-21T01:00:00Z',
      end_at: '2026-11-21T01:00:52Z',
      logical_bytes: 48103424,
      stored_artifact_bytes: 1048576,
      artifact_count: 37,
    },
    {
      ...stanzaBackup,
      backup_id: '20261120-010000F_20261122-010000I',
      status: 'DONE',
      backup_type: 'incr',
      state: 'healthy',
      reason: reason('structurally-usable', 'The manifest, its files and the WAL needed for consistency are present.'),
      begin_wal: '00000001000000010000003E',
      end_wal: '00000001000000010000003E',
      begin_lsn: '1/3E000028',
      end_lsn: '1/3E000138',
      begin_at: '2026-11-22T01:00:00Z',
      end_at: '2026-11-22T01:00:41Z',
      logical_bytes: 48119808,
      stored_artifact_bytes: 524288,
      artifact_count: 12,
    },
    {
      ...stanzaBackup,
      backup_id: '20261123-010000F',
      status: 'INTERRUPTED',
      backup_type: 'full',
      state: 'unknown',
      reason: reason('backup-interrupted', 'Only the manifest copy written while the backup ran is present.'),
      system_id: null,
      timeline: null,
      wal_segment_size_bytes: null,
      begin_wal: null,
      end_wal: null,
      begin_lsn: null,
      end_lsn: null,
      begin_at: '2026-11-23T01:00:00Z',
      end_at: null,
      logical_bytes: null,
      stored_artifact_bytes: null,
      encryption: null,
      artifact_count: null,
      tablespace_count: null,
    },
  ],
  next_cursor: null,
};

export const backupPage: ArchiveBackupPage = {
  api_version: API_VERSION,
  kind: 'ArchiveBackupPage',
  revision: 7,
  evidence_generation: 5,
  total_items: 2,
  items: [
    {
      server: 'pg-main',
      backup_id: '20261120T010000',
      status: 'DONE',
      backup_type: 'full',
      state: 'healthy',
      reason: reason('structurally-usable', 'Metadata, data archives and the WAL needed for consistency are present.'),
      system_id: '7384497274230341974',
      postgresql_version: 150006,
      timeline: 1,
      wal_segment_size_bytes: 16777216,
      begin_wal: '000000010000000000000004',
      end_wal: '000000010000000000000004',
      begin_lsn: '0/4000028',
      end_lsn: '0/4000138',
      begin_at: '2026-11-20T01:00:01.272854Z',
      end_at: '2026-11-20T01:00:12.5Z',
      logical_bytes: 48071936,
      deduplicated_bytes: null,
      stored_artifact_bytes: 6291968,
      compression: 'gzip',
      encryption: null,
      artifact_count: 1,
      tablespace_count: 0,
    },
    {
      server: 'pg-main',
      backup_id: '20261121T010000',
      status: 'FAILED',
      backup_type: 'full',
      state: 'unhealthy',
      reason: reason('backup-failed', 'The backup metadata records a failed backup.'),
      system_id: '7384497274230341974',
      postgresql_version: 150006,
      timeline: 2,
      wal_segment_size_bytes: 16777216,
      begin_wal: '00000002000000000000000A',
      end_wal: null,
      begin_lsn: '0/A000028',
      end_lsn: null,
      begin_at: '2026-11-21T01:00:00.5Z',
      end_at: null,
      logical_bytes: null,
      deduplicated_bytes: null,
      stored_artifact_bytes: 1048576,
      compression: 'none',
      encryption: null,
      artifact_count: 1,
      tablespace_count: 0,
    },
  ],
  next_cursor: null,
};

export const walRangePage: ArchiveWALRangePage = {
  api_version: API_VERSION,
  kind: 'ArchiveWALRangePage',
  revision: 7,
  evidence_generation: 5,
  total_items: 3,
  items: [
    {
      server: 'pg-main',
      timeline: 1,
      start_position: 1,
      end_position: 6,
      segment_count: 6,
      first_wal: '000000010000000000000001',
      last_wal: '000000010000000000000006',
      latest_receipt_at: '2026-11-20T01:10:00Z',
      end_receipt_at: '2026-11-20T01:10:00Z',
    },
    {
      server: 'pg-main',
      timeline: 1,
      start_position: 8,
      end_position: 9,
      segment_count: 2,
      first_wal: '000000010000000000000008',
      last_wal: '000000010000000000000009',
      latest_receipt_at: '2026-11-20T02:00:00Z',
      end_receipt_at: '2026-11-20T02:00:00Z',
    },
  ],
  next_cursor: 'djEuQUJDREVGR0hJSktMTU5PUA',
};

export const walGapPage: ArchiveWALGapPage = {
  api_version: API_VERSION,
  kind: 'ArchiveWALGapPage',
  revision: 7,
  evidence_generation: 5,
  total_items: 1,
  items: [
    {
      server: 'pg-main',
      timeline: 1,
      start_position: 7,
      end_position: 7,
      segment_count: 1,
      first_wal: '000000010000000000000007',
      last_wal: '000000010000000000000007',
      status: 'candidate',
      first_observed_generation: 4,
      last_observed_generation: 5,
    },
  ],
  next_cursor: null,
};

export const recoveryPathPage: ArchiveRecoveryPathPage = {
  api_version: API_VERSION,
  kind: 'ArchiveRecoveryPathPage',
  revision: 7,
  evidence_generation: 5,
  total_items: 3,
  items: [
    {
      server: 'pg-main',
      backup_id: '20261120T010000',
      target_timeline: 1,
      state: 'warning',
      reason: reason('coverage-gap-limited', 'The path stops at a WAL gap.'),
      stop: 'candidate-limited',
      lower_bound_at: '2026-11-20T01:00:12.5Z',
      start_timeline: 1,
      start_position: 4,
      start_wal: '000000010000000000000004',
      frontier_timeline: 1,
      frontier_position: 6,
      frontier_wal: '000000010000000000000006',
      frontier_receipt_at: '2026-11-20T01:10:00Z',
      assumption_codes: ['backup-end-from-metadata', 'compressed-content-not-decoded', 'segment-content-not-verified'],
    },
    {
      server: 'pg-main',
      backup_id: '20261120T010000',
      target_timeline: 2,
      state: 'unknown',
      reason: reason('history-missing', 'The history file of the target timeline was not observed.'),
      stop: 'unknown-limited',
      lower_bound_at: '2026-11-20T01:00:12.5Z',
      start_timeline: 1,
      start_position: 4,
      start_wal: '000000010000000000000004',
      frontier_timeline: 1,
      frontier_position: 6,
      frontier_wal: '000000010000000000000006',
      frontier_receipt_at: '2026-11-20T01:10:00Z',
      assumption_codes: ['segment-content-not-verified'],
    },
  ],
  next_cursor: null,
};

export const health: HealthStatus = { api_version: API_VERSION, kind: 'HealthStatus', status: 'live' };
export const ready: ReadinessStatus = { api_version: API_VERSION, kind: 'ReadinessStatus', status: 'ready' };
export const notReady: ReadinessStatus = { api_version: API_VERSION, kind: 'ReadinessStatus', status: 'not-ready' };
export const apiError: EvidenceAPIError = {
  api_version: API_VERSION,
  kind: 'EvidenceAPIError',
  code: 'publication-changed',
  message: 'The requested revision is no longer current; restart from the snapshot.',
};

const example = <K extends WireKind>(name: string, kind: K, body: WireBody<K>): WireExample => ({ name, kind, body });

export const VALID_EXAMPLES: readonly WireExample[] = [
  example('snapshot-complete', 'RepositoryEvidenceSnapshot', snapshotComplete),
  example('snapshot-no-completed-scan', 'RepositoryEvidenceSnapshot', snapshotNoCompletedScan),
  example('snapshot-stale', 'RepositoryEvidenceSnapshot', snapshotStale),
  example('stanza-snapshot-complete', 'RepositoryEvidenceSnapshot', stanzaSnapshotComplete),
  example('stanza-snapshot-no-completed-scan', 'RepositoryEvidenceSnapshot', stanzaSnapshotNoCompletedScan),
  example('stanza-backup-page', 'ArchiveBackupPage', stanzaBackupPage),
  example('backup-page', 'ArchiveBackupPage', backupPage),
  example('wal-range-page', 'ArchiveWALRangePage', walRangePage),
  example('wal-gap-page', 'ArchiveWALGapPage', walGapPage),
  example('recovery-path-page', 'ArchiveRecoveryPathPage', recoveryPathPage),
  example('health', 'HealthStatus', health),
  example('readiness-ready', 'ReadinessStatus', ready),
  example('readiness-not-ready', 'ReadinessStatus', notReady),
  example('error-publication-changed', 'EvidenceAPIError', apiError),
];

/** A deep copy with one change applied, so each negative example differs from a valid one by one rule. */
function mutate<T>(body: T, change: (copy: any) => void): unknown {
  const copy: unknown = structuredClone(body);
  change(copy);
  return copy;
}

export const NEGATIVE_EXAMPLES: readonly NegativeExample[] = [
  {
    name: 'zero-timestamp',
    kind: 'RepositoryEvidenceSnapshot',
    why: 'an unknown time must be null, never a zero timestamp',
    body: mutate(snapshotComplete, (s) => { s.started_at = '0001-01-01T00:00:00Z'; }),
  },
  {
    name: 'epoch-timestamp',
    kind: 'ArchiveWALRangePage',
    why: 'the Unix epoch is a zero timestamp too',
    body: mutate(walRangePage, (p) => { p.items[0].end_receipt_at = '1970-01-01T00:00:00Z'; }),
  },
  {
    name: 'omitted-nullable-field',
    kind: 'ArchiveBackupPage',
    why: 'a nullable field is present with null, never omitted',
    body: mutate(backupPage, (p) => { delete p.items[1].end_wal; }),
  },
  {
    name: 'float-wal-position',
    kind: 'ArchiveWALGapPage',
    why: 'WAL positions are integers, not floating point',
    body: mutate(walGapPage, (p) => { p.items[0].start_position = 6.5; }),
  },
  {
    name: 'free-form-map-in-details',
    kind: 'RepositoryEvidenceSnapshot',
    why: 'details carry exactly one typed payload; free-form maps are forbidden',
    body: mutate(snapshotComplete, (s) => { s.details.archive_cloud.labels = { team: 'db' }; }),
  },
  {
    name: 'second-payload-in-details',
    kind: 'RepositoryEvidenceSnapshot',
    why: 'exactly one format payload is allowed',
    body: mutate(snapshotComplete, (s) => { s.details.archive_other = {}; }),
  },
  {
    name: 'unsorted-capabilities',
    kind: 'RepositoryEvidenceSnapshot',
    why: 'capabilities are sorted by id',
    body: mutate(snapshotComplete, (s) => { s.capabilities.reverse(); }),
  },
  {
    name: 'missing-capability',
    kind: 'RepositoryEvidenceSnapshot',
    why: 'the capability list is complete',
    body: mutate(snapshotComplete, (s) => { s.capabilities.pop(); }),
  },
  {
    name: 'unsupported-capability-healthy',
    kind: 'RepositoryEvidenceSnapshot',
    why: 'an unsupported capability has state unknown',
    body: mutate(snapshotComplete, (s) => { s.capabilities[2].state = 'healthy'; }),
  },
  {
    name: 'generation-zero-with-timestamps',
    kind: 'RepositoryEvidenceSnapshot',
    why: 'generation 0 has null generation timestamps',
    body: mutate(snapshotNoCompletedScan, (s) => { s.started_at = '2026-11-21T13:30:00Z'; s.completed_at = '2026-11-21T13:30:04Z'; }),
  },
  {
    name: 'generation-zero-healthy',
    kind: 'RepositoryEvidenceSnapshot',
    why: 'generation 0 has state unknown',
    body: mutate(snapshotNoCompletedScan, (s) => { s.state = 'healthy'; }),
  },
  {
    name: 'zero-count-while-incomplete',
    kind: 'RepositoryEvidenceSnapshot',
    why: 'collection counts are null while evidence is incomplete, never 0',
    body: mutate(snapshotNoCompletedScan, (s) => { s.details.archive_cloud.wal_gap_items = 0; }),
  },
  {
    name: 'unknown-inventory-as-zero',
    kind: 'RepositoryEvidenceSnapshot',
    why: 'inventory counts are null when not known, never 0',
    body: mutate(snapshotNoCompletedScan, (s) => { s.inventory.object_count = 0; }),
  },
  {
    name: 'started-after-completed',
    kind: 'RepositoryEvidenceSnapshot',
    why: 'started_at is not after completed_at',
    body: mutate(snapshotComplete, (s) => { s.started_at = '2026-11-21T13:30:05Z'; }),
  },
  {
    name: 'ranges-truncated-wal-healthy',
    kind: 'RepositoryEvidenceSnapshot',
    why: 'a truncation flag forces its dependent state to unknown',
    body: mutate(snapshotComplete, (s) => { s.details.archive_cloud.ranges_truncated = true; s.details.archive_cloud.wal.state = 'healthy'; }),
  },
  {
    name: 'stale-but-healthy',
    kind: 'RepositoryEvidenceSnapshot',
    why: 'stale evidence is never currently healthy',
    body: mutate(snapshotStale, (s) => { s.state = 'healthy'; }),
  },
  {
    name: 'uppercase-fingerprint',
    kind: 'RepositoryEvidenceSnapshot',
    why: 'the fingerprint is sha256: and 64 lowercase hex characters',
    body: mutate(snapshotComplete, (s) => { s.identity.repository.destination_fingerprint = s.identity.repository.destination_fingerprint.toUpperCase(); }),
  },
  {
    name: 'lowercase-lsn',
    kind: 'ArchiveBackupPage',
    why: 'LSNs are uppercase',
    body: mutate(backupPage, (p) => { p.items[0].begin_lsn = '0/a000028'; }),
  },
  {
    name: 'numeric-system-id',
    kind: 'ArchiveBackupPage',
    why: 'the system identifier is a decimal string, never a JSON number',
    body: mutate(backupPage, (p) => { p.items[0].system_id = 7384497274; }),
  },
  {
    name: 'unsorted-backups',
    kind: 'ArchiveBackupPage',
    why: 'backups are sorted by backup_id then server',
    body: mutate(backupPage, (p) => { p.items.reverse(); }),
  },
  {
    name: 'unknown-type-not-unknown',
    kind: 'ArchiveBackupPage',
    why: 'an unknown backup type is null and forces state unknown',
    body: mutate(backupPage, (p) => { p.items[0].backup_type = null; }),
  },
  {
    name: 'object-key-as-wal-name',
    kind: 'ArchiveWALRangePage',
    why: 'WAL names are 24 hex digits, never object keys',
    body: mutate(walRangePage, (p) => { p.items[0].first_wal = 'pg-main/wals/0000000100000000/000000010000000000000001.gz'; }),
  },
  {
    name: 'wal-name-off-timeline',
    kind: 'ArchiveWALRangePage',
    why: 'a range WAL name is on the range timeline',
    body: mutate(walRangePage, (p) => { p.items[0].first_wal = '000000020000000000000001'; }),
  },
  {
    name: 'too-many-items',
    kind: 'ArchiveWALGapPage',
    why: `a page holds at most ${PAGE_LIMITS.maxItems} items`,
    body: mutate(walGapPage, (p) => {
      const one = p.items[0];
      p.items = Array.from({ length: PAGE_LIMITS.maxItems + 1 }, (_, n) => ({ ...one, start_position: n * 2 + 1, end_position: n * 2 + 1 }));
    }),
  },
  {
    name: 'unsorted-assumption-codes',
    kind: 'ArchiveRecoveryPathPage',
    why: 'assumption codes are sorted and unique',
    body: mutate(recoveryPathPage, (p) => { p.items[0].assumption_codes.reverse(); }),
  },
  {
    name: 'control-character-in-message',
    kind: 'EvidenceAPIError',
    why: 'messages have no control characters',
    body: mutate(apiError, (e) => { e.message = 'line one\nline two'; }),
  },
  {
    name: 'long-reason-code',
    kind: 'RepositoryEvidenceSnapshot',
    why: 'reason codes are at most 64 bytes',
    body: mutate(snapshotComplete, (s) => { s.reason.code = 'a'.repeat(65); }),
  },
  {
    name: 'message-over-256-bytes',
    kind: 'EvidenceAPIError',
    why: 'messages are at most 256 bytes',
    body: mutate(apiError, (e) => { e.message = 'x'.repeat(257); }),
  },
  {
    name: 'non-ascii-message',
    kind: 'EvidenceAPIError',
    why: 'messages are printable ASCII (D-03), so 256 characters are 256 bytes',
    body: mutate(apiError, (e) => { e.message = 'é'.repeat(200); }),
  },
  {
    name: 'cursor-too-long',
    kind: 'ArchiveWALRangePage',
    why: `cursors are at most ${PAGE_LIMITS.cursorBytes} bytes`,
    body: mutate(walRangePage, (p) => { p.next_cursor = 'A'.repeat(PAGE_LIMITS.cursorBytes + 1); }),
  },
  {
    name: 'stanza-type-with-archive-payload',
    kind: 'RepositoryEvidenceSnapshot',
    why: 'the payload is the one its details type names',
    body: mutate(stanzaSnapshotComplete, (s) => { s.details.archive_cloud = snapshotComplete.details.archive_cloud; delete s.details.stanza_repository; }),
  },
  {
    name: 'stanza-details-with-second-payload',
    kind: 'RepositoryEvidenceSnapshot',
    why: 'exactly one format payload is allowed',
    body: mutate(stanzaSnapshotComplete, (s) => { s.details.archive_cloud = snapshotComplete.details.archive_cloud; }),
  },
  {
    name: 'stanza-format-with-archive-details',
    kind: 'RepositoryEvidenceSnapshot',
    why: 'a stanza-repository snapshot carries only the stanza-repository/v1alpha1 details',
    body: mutate(snapshotComplete, (s) => { s.identity.repository.format = 'stanza-repository'; }),
  },
  {
    name: 'archive-format-with-stanza-details',
    kind: 'RepositoryEvidenceSnapshot',
    why: 'an archive-cloud snapshot carries only the archive-cloud/v1alpha1 details',
    body: mutate(stanzaSnapshotComplete, (s) => { s.identity.repository.format = 'archive-cloud'; }),
  },
  {
    name: 'stanza-missing-dependency-chain',
    kind: 'RepositoryEvidenceSnapshot',
    why: 'every field of the stanza_repository payload is required',
    body: mutate(stanzaSnapshotComplete, (s) => { delete s.details.stanza_repository.dependency_chain; }),
  },
  {
    name: 'stanza-free-form-backup-types',
    kind: 'RepositoryEvidenceSnapshot',
    why: 'backup_types counts exactly full, diff and incr',
    body: mutate(stanzaSnapshotComplete, (s) => { s.details.stanza_repository.backup_types.block = 1; }),
  },
  {
    name: 'stanza-generation-zero-encrypted',
    kind: 'RepositoryEvidenceSnapshot',
    why: 'generation 0 knows nothing of the repository cipher: encrypted is null',
    body: mutate(stanzaSnapshotNoCompletedScan, (s) => { s.details.stanza_repository.encrypted = false; }),
  },
  {
    name: 'stanza-zero-interrupted-while-incomplete',
    kind: 'RepositoryEvidenceSnapshot',
    why: 'counts are null while evidence is incomplete, never 0',
    body: mutate(stanzaSnapshotNoCompletedScan, (s) => { s.details.stanza_repository.interrupted_backups = 0; }),
  },
  {
    name: 'stanza-unknown-wal-counts-when-complete',
    kind: 'RepositoryEvidenceSnapshot',
    why: 'a complete generation counts its WAL classes (only pgBackRest\'s own counts may stay unknown, behind a cipher)',
    body: mutate(stanzaSnapshotComplete, (s) => { s.details.stanza_repository.wal_counts = null; }),
  },
  {
    name: 'stanza-stale-dependency-chain-healthy',
    kind: 'RepositoryEvidenceSnapshot',
    why: 'stale evidence has no current state, the dependency chain included',
    body: mutate(stanzaSnapshotComplete, (s) => {
      const stale = { state: 'unknown', reason: reason('evidence-stale', 'Evidence is retained from an earlier generation.') };
      Object.assign(s, { stale: true, state: 'unknown', reason: stale.reason, capabilities: stanzaCapabilities('unknown') });
      for (const k of ['wal', 'timeline', 'coverage']) s.details.stanza_repository[k] = stale;
      Object.assign(s.details.stanza_repository.retention, stale);
    }),
  },
  {
    name: 'stanza-truncated-dependency-chain-healthy',
    kind: 'RepositoryEvidenceSnapshot',
    why: 'diagnostics_truncated forces the dependency chain to unknown as well',
    body: mutate(stanzaSnapshotComplete, (s) => {
      const p = s.details.stanza_repository;
      p.diagnostics_truncated = true;
      for (const k of ['timeline', 'coverage', 'retention']) p[k].state = 'unknown';
    }),
  },
  {
    name: 'stanza-backup-types-exceed-items',
    kind: 'RepositoryEvidenceSnapshot',
    why: 'listed and interrupted backups are backup items: together they cannot exceed backup_items',
    body: mutate(stanzaSnapshotComplete, (s) => { s.details.stanza_repository.backup_types.full = 3; }),
  },
  {
    name: 'stanza-compression-abbreviated',
    kind: 'ArchiveBackupPage',
    why: 'compression is classified (zstd), never the format\'s own extension (zst)',
    body: mutate(stanzaBackupPage, (p) => { p.items[0].compression = 'zst'; }),
  },
  {
    name: 'health-with-identity',
    kind: 'HealthStatus',
    why: 'health bodies carry no identity',
    body: mutate(health, (h) => { h.cluster = 'pg-main'; }),
  },
];
