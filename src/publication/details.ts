/**
 * The snapshot's `details`, a tagged union each format fills through the seam
 * (`RepositoryFormat.details`): the publisher's every publication builds its payload here
 * (`emptyDetails`, `detailsOf`, `overlayDetails`), and the surfaces read any payload through the
 * one format-neutral view (`detailsView`), so neither the API nor the pages read a payload by tag.
 */
import type { Reason, StateReason } from '../contract/primitives.ts';
import type { Details, RetentionSummary, StateCounts, WALCounts } from '../contract/snapshot.ts';
import type { ScopeEvidence } from '../evidence/scope-scan.ts';
import type { Expectations, ScopeSummary } from '../evidence/summary.ts';
import type { DetailsInput, RepositoryFormat } from '../format/seam.ts';

type Filler = Pick<RepositoryFormat, 'details'>;
const unknown = (r: Reason): StateReason => ({ state: 'unknown', reason: r });

/** The details before any complete scan: no evidence, but the configured expectations as they are. */
export function emptyDetails(format: Filler, r: Reason, x: Expectations): Details {
  return format.details({
    totals: null,
    structurallyUsable: null,
    backupStates: null,
    walCounts: null,
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
    latestArchiveReceiptAt: null,
    rangesTruncated: false,
    diagnosticsTruncated: false,
  });
}

/** The details of a complete scan: its summary, the exact collection counts, the newest receipt. */
export function detailsOf(format: Filler, e: ScopeEvidence, s: ScopeSummary, totals: NonNullable<DetailsInput['totals']>): Details {
  return format.details({
    totals,
    structurallyUsable: s.structurallyUsable,
    backupStates: s.backupStates,
    walCounts: e.walCounts,
    wal: s.wal,
    timeline: s.timeline,
    coverage: s.coverage,
    retention: s.retention,
    latestArchiveReceiptAt: e.latestWalReceipt === null ? null : new Date(e.latestWalReceipt).toISOString(),
    rangesTruncated: false,
    diagnosticsTruncated: false,
  });
}

/**
 * Earlier details with every current-evidence state made `unknown` with `r` (stale or failed
 * publications), and the attempt's truncation flags when it reached a ceiling.
 */
export function overlayDetails(format: Filler, d: Details, r: Reason, truncated?: { ranges: boolean; diagnostics: boolean }): Details {
  const v = detailsView(d);
  return format.details({
    ...v,
    wal: unknown(r),
    timeline: unknown(r),
    coverage: unknown(r),
    retention: { ...v.retention, ...unknown(r) },
    ...(truncated === undefined ? {} : { rangesTruncated: truncated.ranges, diagnosticsTruncated: truncated.diagnostics }),
  });
}

/** What the surfaces read of any format's details. */
export interface DetailsView extends DetailsInput {
  /** By collection route. */
  readonly routeTotals: { readonly backups: number | null; readonly 'wal-ranges': number | null; readonly 'wal-gaps': number | null; readonly 'recovery-paths': number | null };
  readonly retention: RetentionSummary;
  readonly backupStates: StateCounts | null;
  readonly walCounts: WALCounts | null;
}

export function detailsView(d: Details): DetailsView {
  const ac = d.archive_cloud;
  const { backup_items: backups, wal_range_items: ranges, wal_gap_items: gaps, recovery_path_items: paths } = ac;
  return {
    totals: backups !== null && ranges !== null && gaps !== null && paths !== null ? { backups, ranges, gaps, paths } : null,
    routeTotals: { backups: ac.backup_items, 'wal-ranges': ac.wal_range_items, 'wal-gaps': ac.wal_gap_items, 'recovery-paths': ac.recovery_path_items },
    structurallyUsable: ac.structurally_usable_backups,
    backupStates: ac.backup_states,
    walCounts: ac.wal_counts,
    wal: ac.wal,
    timeline: ac.timeline,
    coverage: ac.coverage,
    retention: ac.retention,
    latestArchiveReceiptAt: ac.latest_archive_receipt_at,
    rangesTruncated: ac.ranges_truncated,
    diagnosticsTruncated: ac.diagnostics_truncated,
  };
}
