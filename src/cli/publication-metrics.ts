/**
 * A publication as the metrics module reads it (`metrics/openmetrics.ts`'s `MetricScope`), written
 * once for `viewer scan --output openmetrics` and standalone's `METRICS_ADDR`: before a complete
 * scan the collections are unknown, not empty, and so are the store's clock and the archive lag;
 * after one, the observations come from the scan behind the published generation.
 */
import type { ScopeEvidence } from '../evidence/scope-scan.ts';
import { archiveLagSeconds } from '../evidence/summary.ts';
import type { MetricScope } from '../metrics/openmetrics.ts';
import type { Publication } from '../publication/publisher.ts';

export interface PublicationMetricsOptions {
  /** `EXPECTED_MAX_ARCHIVE_LAG` in seconds, null when not configured. */
  readonly expectedMaxArchiveLagSeconds: number | null;
  /** How long the last attempt took; absent leaves its series out. */
  readonly attemptSeconds?: number;
  /** The scope's own target labels (a fleet entry's `repository` and `labels`). */
  readonly labels?: readonly (readonly [name: string, value: string])[];
}

export function publicationMetricScope(p: Publication, evidence: ScopeEvidence | null, o: PublicationMetricsOptions): MetricScope {
  const known = p.generation > 0;
  const e = known ? evidence : null;
  return {
    snapshot: p.snapshot,
    backups: known ? p.backups : null,
    walRanges: known ? p.walRanges : null,
    walGaps: known ? p.walGaps : null,
    recoveryPaths: known ? p.recoveryPaths : null,
    observations: {
      storeTimeAtScan: e?.storeTimeAtScan != null ? new Date(e.storeTimeAtScan) : null,
      archiveLagSeconds: e === null ? null : archiveLagSeconds(e),
      expectedMaxArchiveLagSeconds: o.expectedMaxArchiveLagSeconds,
      ...(o.attemptSeconds === undefined ? {} : { scanDurationSeconds: o.attemptSeconds }),
      ...(e === null ? {} : { gapClasses: e.gapClasses }),
    },
    ...(o.labels === undefined || o.labels.length === 0 ? {} : { labels: o.labels }),
  };
}
