/**
 * A consumer's projection as OpenMetrics text: the same series `viewer scan --output openmetrics`
 * prints (the one metrics module, src/metrics/), read from the projection alone, plus the
 * consumer's own: its source state, the age of its projection, and the freshness of the archive
 * the wire lets it judge (below). A collection the projection does not know (413) and a details
 * payload this client does not recognize are absent series, never 0.
 *
 * What the wire carries and what it does not (docs/consumer.md, Metrics):
 * - the store's clock at the scan is not on the wire, so `viewer_archive_lag_seconds` is absent
 *   here; `viewer_consumer_archive_receipt_age_at_generation_seconds` is the generation's
 *   `completed_at` (viewer's clock at the end of the scan) minus `latest_archive_receipt_at` (the
 *   store's receipt of the newest WAL): two clocks, so their skew enters it;
 * - a gap's class is not on the wire; a gap is the hole retention leaves (`retention-expected`)
 *   when the wal part says so of every gap (`wal-continuous-except-retention`) or when a standalone
 *   backup's recovery path stops at it with `standalone-retention-limited`; every other gap is
 *   unexplained, and without the recovery paths (or the details) the classes are unknown and
 *   `viewer_wal_gaps_unexplained` is absent.
 *
 * Every series carries the cluster identity the projection's snapshot names (`identity.cluster`):
 * `namespace`, and `cluster` when the snapshot names the cluster (its name is nullable), as target
 * labels after `server` (`CLUSTER_LABELS`; neither is one of the metrics module's own labels, which
 * the module refuses), so two clusters' `pg-main` stay apart. Without a projection the console's
 * own series carry `server` alone. The cluster's UID is never a label.
 */
import { Gauge, Registry, type OpenMetricsContentType } from 'prom-client';
import type { RecoveryPathItem, WalGapItem } from '../contract/collections.ts';
import { commonSummary } from '../contract/details-view.ts';
import { renderOpenMetrics, type MetricScope } from '../metrics/openmetrics.ts';
import type { Collection, Projection } from './projection.ts';
import type { SourceStatus } from './source.ts';

export { OPENMETRICS_CONTENT_TYPE } from '../metrics/openmetrics.ts';

const itemsOf = <T>(c: Collection<T>): readonly T[] | null => (c.known ? c.items : null);

/** The target labels of the cluster identity, in the order they are printed. */
export const CLUSTER_LABELS = ['namespace', 'cluster'] as const;

/** The projection's cluster identity as target labels: its namespace, and its name when known; none without a projection. */
export function clusterLabels(p: Projection | null): readonly (readonly [name: string, value: string])[] {
  if (p === null) return [];
  const { namespace, name } = p.snapshot.identity.cluster;
  return [[CLUSTER_LABELS[0], namespace], ...(name === null ? [] : [[CLUSTER_LABELS[1], name] as const])];
}

/** The consumer's freshness family; its name is written `name: '…'` so the monitoring checks find it. */
const RECEIPT_AGE = {
  name: 'viewer_consumer_archive_receipt_age_at_generation_seconds',
  help: "The published generation's completed_at (viewer's clock at the end of the scan) minus the newest WAL's receipt (the store's clock): how old the newest archived WAL was when the scan ended, skew between the two clocks included; absent without a completed scan, a known details payload or a received WAL.",
} as const;

/** A gap's identity on the wire: its timeline and first position. */
const gapKey = (g: Pick<WalGapItem, 'timeline' | 'start_position'>) => `${g.timeline}:${g.start_position}`;

/**
 * The gap a path stops at: the first gap after its frontier on the frontier's timeline, of the
 * status its stop names (a confirmed gap stops a path `gap-limited`, a candidate `candidate-limited`).
 */
function stopGap(path: RecoveryPathItem, gaps: readonly WalGapItem[]): WalGapItem | null {
  const { frontier_timeline: timeline, frontier_position: position } = path;
  if (timeline === null || position === null) return null;
  const status = path.stop === 'gap-limited' ? 'confirmed' : path.stop === 'candidate-limited' ? 'candidate' : null;
  const after = gaps.filter((g) => g.timeline === timeline && g.start_position > position).sort((a, b) => a.start_position - b.start_position)[0];
  return after !== undefined && after.status === status ? after : null;
}

/**
 * Each gap's class, in the order of the wire's gaps, from what the wire carries (module comment);
 * undefined when it cannot tell: the gaps, or both the wal part's verdict and the paths, unknown.
 */
export function gapClassesOnWire(p: Projection): readonly string[] | undefined {
  const gaps = p.evidenceGeneration === 0 ? null : itemsOf(p.collections['wal-gaps']);
  if (gaps === null) return undefined;
  const summary = p.details.known ? commonSummary({ type: p.details.type, archive_cloud: p.details.archive_cloud }) : null;
  // The scan's own verdict on every gap: each one is the hole the format's retention leaves.
  if (summary?.wal.reason.code === 'wal-continuous-except-retention') return gaps.map(() => 'retention-expected');
  const paths = itemsOf(p.collections['recovery-paths']);
  if (paths === null) return undefined;
  const holes = new Set(
    paths.flatMap((path) => {
      const gap = path.reason.code === 'standalone-retention-limited' ? stopGap(path, gaps) : null;
      return gap === null ? [] : [gapKey(gap)];
    }),
  );
  return gaps.map((g) => (holes.has(gapKey(g)) ? 'retention-expected' : 'unexplained'));
}

/** The metric scope of a projection: the wire envelope, the recognized details, the known collections. */
export function projectionScope(p: Projection): MetricScope {
  const gapClasses = gapClassesOnWire(p);
  return {
    snapshot: { ...p.snapshot, details: p.details.known ? { type: p.details.type, archive_cloud: p.details.archive_cloud } : undefined },
    backups: itemsOf(p.collections.backups),
    walRanges: itemsOf(p.collections['wal-ranges']),
    walGaps: itemsOf(p.collections['wal-gaps']),
    recoveryPaths: itemsOf(p.collections['recovery-paths']),
    // The store's clock is not on the wire: the lag series stay absent.
    observations: { storeTimeAtScan: null, archiveLagSeconds: null, ...(gapClasses === undefined ? {} : { gapClasses }) },
  };
}

/**
 * Seconds from the newest WAL's receipt (store's clock) to the end of the generation's scan
 * (viewer's clock); null when either is unknown. Negative when the store stamped the receipt after
 * viewer's clock says the scan ended: skew, published as it is.
 */
export function archiveReceiptAgeAtGeneration(p: Projection): number | null {
  if (p.evidenceGeneration === 0 || !p.details.known) return null;
  const receipt = commonSummary({ type: p.details.type, archive_cloud: p.details.archive_cloud })?.latest_archive_receipt_at ?? null;
  const completed = p.snapshot.completed_at;
  if (receipt === null || completed === null) return null;
  const ms = Date.parse(completed) - Date.parse(receipt);
  return Number.isFinite(ms) ? ms / 1000 : null;
}

/** The consumer's freshness family as OpenMetrics text without `# EOF`; empty when unknown. */
async function receiptAgeFamily(p: Projection | null): Promise<string> {
  const age = p === null ? null : archiveReceiptAgeAtGeneration(p);
  if (p === null || age === null) return '';
  const registry = new Registry<OpenMetricsContentType>();
  registry.setContentType(Registry.OPENMETRICS_CONTENT_TYPE);
  const labels = clusterLabels(p);
  const g = new Gauge({ name: RECEIPT_AGE.name, help: RECEIPT_AGE.help, labelNames: ['server', ...labels.map(([n]) => n)], registers: [registry] });
  // The scope's name and the cluster's identity, as the evidence series carry them, so rules can compare them.
  g.set({ server: p.snapshot.identity.repository.scope.name, ...Object.fromEntries(labels) }, age);
  return (await registry.metrics()).replace(/# EOF\n$/, '');
}

/** The consumer's metrics at `now` (its own clock, used only for the projection's age). */
export async function projectionMetrics(projection: Projection | null, status: SourceStatus, server: string | null, now: Date): Promise<string> {
  const age = projection === null ? null : Math.max(0, (now.getTime() - projection.assembledAt.getTime()) / 1000);
  const text = await renderOpenMetrics(projection === null ? [] : [projectionScope(projection)], { consumer: { server, sourceState: status.state, projectionAgeSeconds: age }, labels: clusterLabels(projection) });
  const freshness = await receiptAgeFamily(projection);
  return freshness === '' ? text : text.replace(/# EOF\n$/, `${freshness}# EOF\n`);
}
