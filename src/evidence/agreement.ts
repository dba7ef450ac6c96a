/**
 * The principle, checked on every publication: no summary is healthier than the items it
 * summarises. Written apart from the rules of `summary.ts` (and deliberately more naive), so a rule
 * that forgets a case there is caught here; the publisher refuses to publish a generation that
 * disagrees (a failed attempt, `refresh-invalid-publication`, never an overstated one). Each finding
 * is a stable code, never text from the repository.
 */
import type { State } from '../contract/primitives.ts';
import type { ScopeEvidence } from './scope-scan.ts';
import type { ScopeSummary } from './summary.ts';

const SEVERITY: Record<State, number> = { healthy: 0, warning: 1, unknown: 2, unhealthy: 3 };

/** Path reasons that are not a loss of WAL: what keep:standalone promises, and an older timeline that archived nothing. */
const EXCUSED = new Set(['standalone-retention-limited', 'target-timeline-not-archived']);

/** Where the holes with the shape the format's retention leaves begin: `timeline:start`. */
function retentionHoleStarts(e: ScopeEvidence): Set<string> {
  return new Set(e.gaps.flatMap((g, i) => (e.gapClasses[i] === 'retention-expected' ? [`${g.timeline}:${g.start_position}`] : [])));
}

/** Whether a path stopped right at such a hole (the next position, or the one after a skipped pre-9.3 `FF`). */
function stopsAtRetentionHole(holes: ReadonlySet<string>, timeline: number | null, position: number | null): boolean {
  if (timeline === null || position === null) return false;
  return holes.has(`${timeline}:${position + 1}`) || holes.has(`${timeline}:${position + 2}`);
}

export function disagreements(e: ScopeEvidence, s: ScopeSummary): string[] {
  const out: string[] = [];
  const capability = (id: string): State => s.capabilities.find((c) => c.id === id)?.state ?? 'unknown';
  for (const part of [s.wal, s.timeline, s.coverage]) if (SEVERITY[s.top.state] < SEVERITY[part.state]) out.push('top-healthier-than-a-part');

  if (e.empty) for (const st of [s.top.state, s.wal.state, s.timeline.state, s.coverage.state, capability('catalog-listing'), capability('structural-artifact-validation')]) if (st === 'healthy') out.push('healthy-empty-scope');

  if (s.wal.state === 'healthy') {
    if (e.gapClasses.some((c) => c !== 'retention-expected')) out.push('wal-healthy-beside-an-unexplained-gap');
    if (e.implausibleSegments > 0 || e.unrestorableSegments > 0 || e.walCounts.unknown > 0) out.push('wal-healthy-beside-unusable-objects');
    if (e.frontierRegressed || e.vanishedGaps > 0) out.push('wal-healthy-beside-a-remembered-loss');
    if (e.systemIds.size > 1) out.push('wal-healthy-with-two-systems');
  }

  if (s.timeline.state === 'healthy' && e.graph.unknownTimelines().length > 0) out.push('timeline-healthy-beside-unknown-ancestry');

  // Backups that may have completed: the structural capability and the top level carry the worst.
  const worstBackup = e.backups.filter((b) => b.mayHaveCompleted).reduce((w, b) => Math.max(w, SEVERITY[b.item.state]), 0);
  if (SEVERITY[capability('structural-artifact-validation')] < worstBackup) out.push('structural-healthier-than-a-backup');
  if (worstBackup > 0 && s.top.state === 'healthy') out.push('top-healthy-beside-a-backup-that-is-not');

  const observed = new Set(e.ranges.map((r) => r.timeline));
  const usable = new Set(e.backups.filter((b) => b.usable).map((b) => b.item.backup_id));
  for (const p of e.paths) {
    if (p.state !== 'healthy') continue;
    if (p.stop !== 'frontier') out.push('healthy-path-before-the-frontier');
    if (!observed.has(p.target_timeline)) out.push('healthy-path-to-a-timeline-without-wal');
    if (!usable.has(p.backup_id)) out.push('healthy-path-from-an-unusable-backup');
  }

  if (s.coverage.state === 'healthy') {
    const newest = e.graph.newest;
    if (newest !== null && !observed.has(newest)) out.push('coverage-healthy-without-wal-on-the-newest-timeline');
    if (e.systemIds.size > 1) out.push('coverage-healthy-with-two-systems');
    const holes = retentionHoleStarts(e);
    const lost = e.paths.some((p) => usable.has(p.backup_id) && (p.state === 'unhealthy' || p.state === 'unknown') && !EXCUSED.has(p.reason.code) && !stopsAtRetentionHole(holes, p.frontier_timeline, p.frontier_position));
    if (lost) out.push('coverage-healthy-beside-a-path-that-lost-wal');
  }
  return [...new Set(out)].sort();
}
