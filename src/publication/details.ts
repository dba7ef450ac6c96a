/**
 * The snapshot's `details`, a tagged union each format fills through the seam
 * (`RepositoryFormat.details`): the publisher's every publication builds its payload here
 * (`emptyDetails`, `detailsOf`, `overlayDetails`), and the surfaces read any payload through the
 * one format-neutral view (`detailsView`, over the contract's `commonSummary`), so neither the API
 * nor the pages read a payload by tag.
 */
import { requireCommonSummary, withStatesUnknown } from '../contract/details-view.ts';
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
    backups: null,
    dependencyChain: unknown(r),
  });
}

/** The dependency-chain-validation capability's verdict (the summary lists every capability), for a payload that reports it. */
function chainOf(s: ScopeSummary): StateReason {
  const c = s.capabilities.find((x) => x.id === 'dependency-chain-validation');
  return c === undefined ? unknown(s.top.reason) : { state: c.state, reason: c.reason };
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
    backups: e.backups.map((b) => b.item),
    dependencyChain: chainOf(s),
  });
}

/**
 * Earlier details with every current-evidence state made `unknown` with `r` (stale or failed
 * publications), and the attempt's truncation flags when it reached a ceiling. The payload is
 * otherwise kept as published, the format's own facts included (a stanza-repository payload's
 * dependency chain is a state too), so the format is not asked again.
 */
export function overlayDetails(_format: Filler, d: Details, r: Reason, truncated?: { ranges: boolean; diagnostics: boolean }): Details {
  return withStatesUnknown(d, r, truncated);
}

/** What the surfaces read of any format's details. */
export interface DetailsView extends DetailsInput {
  /** By collection route. */
  readonly routeTotals: { readonly backups: number | null; readonly 'wal-ranges': number | null; readonly 'wal-gaps': number | null; readonly 'recovery-paths': number | null };
  readonly retention: RetentionSummary;
  readonly backupStates: StateCounts | null;
  readonly walCounts: WALCounts | null;
}

/** Any format's details as the surfaces read them: the payloads' common summary (`commonSummary`). */
export function detailsView(d: Details): DetailsView {
  const c = requireCommonSummary(d);
  const { backup_items: backups, wal_range_items: ranges, wal_gap_items: gaps, recovery_path_items: paths } = c;
  return {
    totals: backups !== null && ranges !== null && gaps !== null && paths !== null ? { backups, ranges, gaps, paths } : null,
    routeTotals: { backups, 'wal-ranges': ranges, 'wal-gaps': gaps, 'recovery-paths': paths },
    structurallyUsable: c.structurally_usable_backups,
    backupStates: c.backup_states,
    walCounts: c.wal_counts,
    wal: c.wal,
    timeline: c.timeline,
    coverage: c.coverage,
    retention: c.retention,
    latestArchiveReceiptAt: c.latest_archive_receipt_at,
    rangesTruncated: c.ranges_truncated,
    diagnosticsTruncated: c.diagnostics_truncated,
  };
}
