/**
 * The snapshot's `details`: the one place that knows its tagged union. It builds the format's
 * payload (the publisher's every publication goes through `detailsOf`, `overlayDetails` or
 * `emptyDetails`), and gives the surfaces a format-neutral view of any payload (`detailsView`), so
 * neither the API nor the pages read a payload by its tag.
 */
import { DETAILS_TYPE_ARCHIVE_CLOUD, type Reason, type StateReason } from '../contract/primitives.ts';
import type { Details, RetentionSummary, StateCounts, WALCounts } from '../contract/snapshot.ts';
import type { ScopeEvidence } from '../evidence/scope-scan.ts';
import type { Expectations, ScopeSummary } from '../evidence/summary.ts';

const unknown = (r: Reason): StateReason => ({ state: 'unknown', reason: r });

/** The details before any complete scan: no evidence, but the configured expectations as they are. */
export function emptyDetails(r: Reason, x: Expectations): Details {
  return {
    type: DETAILS_TYPE_ARCHIVE_CLOUD,
    archive_cloud: {
      backup_items: null,
      wal_range_items: null,
      wal_gap_items: null,
      recovery_path_items: null,
      structurally_usable_backups: null,
      backup_states: null,
      wal_counts: null,
      wal: unknown(r),
      timeline: unknown(r),
      coverage: unknown(r),
      retention: {
        visible_backups: null,
        structurally_usable_backups: null,
        oldest_completion_at: null,
        newest_completion_at: null,
        minimum_configured: x.minimumRedundancy !== null,
        policy_configured: x.policyText !== null,
        minimum_redundancy: x.minimumRedundancy,
        ...unknown(r),
      },
      latest_archive_receipt_at: null,
      ranges_truncated: false,
      diagnostics_truncated: false,
    },
  };
}

/** The details of a complete scan: its summary, the exact collection counts, the newest receipt. */
export function detailsOf(e: ScopeEvidence, s: ScopeSummary, counts: { backups: number; ranges: number; gaps: number; paths: number }): Details {
  return {
    type: DETAILS_TYPE_ARCHIVE_CLOUD,
    archive_cloud: {
      backup_items: counts.backups,
      wal_range_items: counts.ranges,
      wal_gap_items: counts.gaps,
      recovery_path_items: counts.paths,
      structurally_usable_backups: s.structurallyUsable,
      backup_states: s.backupStates,
      wal_counts: e.walCounts,
      wal: s.wal,
      timeline: s.timeline,
      coverage: s.coverage,
      retention: s.retention,
      latest_archive_receipt_at: e.latestWalReceipt === null ? null : new Date(e.latestWalReceipt).toISOString(),
      ranges_truncated: false,
      diagnostics_truncated: false,
    },
  };
}

/**
 * Earlier details with every current-evidence state made `unknown` with `r` (stale or failed
 * publications), and the attempt's truncation flags when it reached a ceiling.
 */
export function overlayDetails(d: Details, r: Reason, truncated?: { ranges: boolean; diagnostics: boolean }): Details {
  const ac = d.archive_cloud;
  return {
    type: d.type,
    archive_cloud: {
      ...ac,
      wal: unknown(r),
      timeline: unknown(r),
      coverage: unknown(r),
      retention: { ...ac.retention, ...unknown(r) },
      ...(truncated === undefined ? {} : { ranges_truncated: truncated.ranges, diagnostics_truncated: truncated.diagnostics }),
    },
  };
}

/** What the surfaces read of any format's details. */
export interface DetailsView {
  readonly totals: { readonly backups: number | null; readonly 'wal-ranges': number | null; readonly 'wal-gaps': number | null; readonly 'recovery-paths': number | null };
  readonly wal: StateReason;
  readonly timeline: StateReason;
  readonly coverage: StateReason;
  readonly retention: RetentionSummary;
  readonly structurallyUsable: number | null;
  readonly backupStates: StateCounts | null;
  readonly walCounts: WALCounts | null;
  readonly rangesTruncated: boolean;
  readonly diagnosticsTruncated: boolean;
}

export function detailsView(d: Details): DetailsView {
  const ac = d.archive_cloud;
  return {
    totals: { backups: ac.backup_items, 'wal-ranges': ac.wal_range_items, 'wal-gaps': ac.wal_gap_items, 'recovery-paths': ac.recovery_path_items },
    wal: ac.wal,
    timeline: ac.timeline,
    coverage: ac.coverage,
    retention: ac.retention,
    structurallyUsable: ac.structurally_usable_backups,
    backupStates: ac.backup_states,
    walCounts: ac.wal_counts,
    rangesTruncated: ac.ranges_truncated,
    diagnosticsTruncated: ac.diagnostics_truncated,
  };
}
