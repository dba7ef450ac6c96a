/**
 * What the standalone pages show of one scope: its publication plus the operator-only facts of the
 * last complete scan (recent objects, `.partial` segments, history files, timeline forks, which
 * gaps have the shape the format's retention leaves, whether the location was empty, what each
 * backup is known by and the backups it depends on, the store's clock against the newest WAL, each
 * history's switchpoint, the receipt times of the scope's oldest and newest objects, the error text
 * each failed backup recorded), which never travel on the wire.
 */
import type { RecentObject, ScopeEvidence } from '../../evidence/scope-scan.ts';
import { archiveLagSeconds } from '../../evidence/summary.ts';
import { DEFAULT_SEGMENT_SIZE, formatLsn, geometry, positionOfLsn, walName } from '../../postgres/wal.ts';
import type { Publication } from '../../publication/publisher.ts';
import { compareKeyBytes } from '../../store/key-order.ts';
import { recordedErrorText } from './glance.ts';
import { gapKey, type ScopeView } from './page-context.ts';

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/**
 * Newest receipt first; on one receipt time (stores stamp whole seconds, and an archiver sends
 * several segments a second) the key that sorts later first, so the newest segment is on top. A
 * key that is not shown sorts after the shown ones of its second.
 */
export function newestFirst(objects: readonly RecentObject[]): RecentObject[] {
  return [...objects].sort((a, b) => {
    const t = Date.parse(b.receivedAt) - Date.parse(a.receivedAt);
    if (t !== 0) return t;
    if (a.key === null || b.key === null) return a.key === b.key ? 0 : a.key === null ? 1 : -1;
    return compareKeyBytes(b.key, a.key);
  });
}

export function scopeView(server: string, publication: Publication, evidence: ScopeEvidence | null): ScopeView {
  if (evidence === null) return { server, publication, recentObjects: [], partials: [], histories: [], forks: [], retentionGaps: new Set(), empty: false, shelves: new Map(), labels: new Map(), dependencies: new Map(), tool: null, clock: null, receipts: null, recordedErrors: new Map() };
  const g = evidence.geometry ?? geometry(DEFAULT_SEGMENT_SIZE);
  const forks = evidence.graph.timelines.flatMap((t) => {
    const a = evidence.graph.ancestry(t);
    if (!a.known || a.steps.length < 2) return [];
    const parent = a.steps.at(-2);
    return parent?.leaveAt == null ? [] : [{ timeline: t, parent: parent.timeline, position: positionOfLsn(parent.leaveAt, g) }];
  });
  const histories = [...evidence.histories.entries()].sort(([a], [b]) => a - b).map(([timeline, h]) => {
    // The switch into this timeline is the history's last line: its parent and the first LSN that is the child's.
    const last = h.status === 'valid' ? h.entries.at(-1) : undefined;
    const switchpoint = last === undefined ? null : { parent: last.parentTimeline, lsn: formatLsn(last.switchpoint), wal: walName(last.parentTimeline, positionOfLsn(last.switchpoint, g), g) };
    return { timeline, status: h.status === 'invalid' ? `invalid: ${h.reason}` : h.status, switchpoint };
  });
  const retentionGaps = new Set(evidence.gaps.flatMap((g, i) => (evidence.gapClasses[i] === 'retention-expected' ? [gapKey(g)] : [])));
  const shelves = new Map(evidence.backups.map((b) => [b.item.backup_id, b.shelf] as const));
  const labels = new Map(evidence.backups.map((b) => [b.item.backup_id, b.label] as const));
  const dependencies = new Map(evidence.backups.flatMap((b) => (b.dependsOn.length === 0 ? [] : [[b.item.backup_id, b.dependsOn] as const])));
  // A format that reads a failed backup's recorded error text hands it over with the backup's label (pages only).
  const recordedErrors = new Map(evidence.backups.flatMap((b) => {
    const text = 'error' in b.label ? recordedErrorText(b.label.error) : null;
    return text === null ? [] : [[b.item.backup_id, text] as const];
  }));
  const newestObject = evidence.recentObjects.reduce<number | null>((m, o) => Math.max(m ?? 0, Date.parse(o.receivedAt)), null);
  const receipts = { earliest: iso(evidence.earliestReceipt ?? null), latest: iso(newestObject) };
  const clock = { storeTimeAtScan: iso(evidence.storeTimeAtScan), newestWalReceivedAt: iso(evidence.latestWalReceipt), archiveLagSeconds: archiveLagSeconds(evidence) };
  return { server, publication, recentObjects: newestFirst(evidence.recentObjects), partials: evidence.partials, histories, forks, retentionGaps, empty: evidence.empty, shelves, labels, dependencies, tool: evidence.tool, clock, receipts, recordedErrors };
}
