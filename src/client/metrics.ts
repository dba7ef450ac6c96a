/**
 * A consumer's projection as OpenMetrics text: the same series `viewer scan --output openmetrics`
 * prints (the one metrics module, src/metrics/), read from the projection alone, plus the
 * consumer's own: its source state and the age of its projection. A collection the projection does
 * not know (413) and a details payload this client does not recognize are absent series, never 0.
 */
import { renderOpenMetrics, type MetricScope } from '../metrics/openmetrics.ts';
import type { Collection, Projection } from './projection.ts';
import type { SourceStatus } from './source.ts';

export { OPENMETRICS_CONTENT_TYPE } from '../metrics/openmetrics.ts';

const itemsOf = <T>(c: Collection<T>): readonly T[] | null => (c.known ? c.items : null);

/** The metric scope of a projection: the wire envelope, the recognized details, the known collections. */
export function projectionScope(p: Projection): MetricScope {
  return {
    snapshot: { ...p.snapshot, details: p.details.known ? { type: p.details.type, archive_cloud: p.details.archive_cloud } : undefined },
    backups: itemsOf(p.collections.backups),
    walRanges: itemsOf(p.collections['wal-ranges']),
    walGaps: itemsOf(p.collections['wal-gaps']),
    recoveryPaths: itemsOf(p.collections['recovery-paths']),
  };
}

/** The consumer's metrics at `now` (its own clock, used only for the projection's age). */
export function projectionMetrics(projection: Projection | null, status: SourceStatus, server: string | null, now: Date): Promise<string> {
  const age = projection === null ? null : Math.max(0, (now.getTime() - projection.assembledAt.getTime()) / 1000);
  return renderOpenMetrics(projection === null ? [] : [projectionScope(projection)], { consumer: { server, sourceState: status.state, projectionAgeSeconds: age } });
}
