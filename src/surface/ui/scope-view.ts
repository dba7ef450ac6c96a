/**
 * What the standalone pages show of one scope: its publication plus the operator-only facts of the
 * last complete scan (recent objects, `.partial` segments, history files, timeline forks, which
 * gaps have the shape the format's retention leaves, whether the location was empty), which never
 * travel on the wire.
 */
import type { ScopeEvidence } from '../../evidence/scope-scan.ts';
import { DEFAULT_SEGMENT_SIZE, geometry, positionOfLsn } from '../../postgres/wal.ts';
import type { Publication } from '../../publication/publisher.ts';
import { gapKey, type ScopeView } from './pages.ts';

export function scopeView(server: string, publication: Publication, evidence: ScopeEvidence | null): ScopeView {
  if (evidence === null) return { server, publication, recentObjects: [], partials: [], histories: [], forks: [], retentionGaps: new Set(), empty: false, shelves: new Map(), tool: null };
  const g = evidence.geometry ?? geometry(DEFAULT_SEGMENT_SIZE);
  const forks = evidence.graph.timelines.flatMap((t) => {
    const a = evidence.graph.ancestry(t);
    if (!a.known || a.steps.length < 2) return [];
    const parent = a.steps.at(-2);
    return parent?.leaveAt == null ? [] : [{ timeline: t, parent: parent.timeline, position: positionOfLsn(parent.leaveAt, g) }];
  });
  const histories = [...evidence.histories.entries()].sort(([a], [b]) => a - b).map(([timeline, h]) => ({ timeline, status: h.status === 'invalid' ? `invalid: ${h.reason}` : h.status }));
  const retentionGaps = new Set(evidence.gaps.flatMap((g, i) => (evidence.gapClasses[i] === 'retention-expected' ? [gapKey(g)] : [])));
  const shelves = new Map(evidence.backups.map((b) => [b.item.backup_id, b.shelf] as const));
  return { server, publication, recentObjects: evidence.recentObjects, partials: evidence.partials, histories, forks, retentionGaps, empty: evidence.empty, shelves, tool: evidence.tool };
}
