/**
 * `viewer scan --output text`: a short human summary of one scope, the way a backup tool's own
 * listing answers at a terminal: the state and its reason, the evidence's age, the backups and
 * the scope's format's own facts (`RepositoryFormat.facts`), the WAL and its newest receipt by the
 * store's clock, the archive lag against its expectation, the gaps and the observed recovery
 * coverage of the newest timeline, the backup to
 * restore from (the page's choice, restore-choice.ts) and why not a newer one, with the segment
 * names of the gap a path stops at, the observed recovery window, a note when receipt times are a
 * bulk copy's, and what to do for each reason the scope shows (publication/advice.ts, the page's
 * own advice). Read from the publication's wire items and the scan's store-clock facts only;
 * unknown is written "unknown", never 0. Words follow the spec: "observed recovery coverage",
 * never a restore promise.
 */
import type { BackupItem, RecoveryPathItem, WalGapItem } from '../../contract/collections.ts';
import { isCompleted } from '../../contract/values.ts';
import { requireCommonSummary } from '../../contract/details-view.ts';
import type { RepositoryFormat } from '../../format/seam.ts';
import { adviceFor, needsNoAction } from '../../publication/advice.ts';
import type { Publication } from '../../publication/publisher.ts';
import { bytesText, copiedReceipts, observedWindow } from '../../surface/ui/glance.ts';
import { backupTime, restoreChoice, type WhyNot } from '../../surface/ui/restore-choice.ts';

export interface TextFacts {
  /** The store's clock at the scan (ms), null when unknown. */
  readonly storeTimeAtScan: number | null;
  readonly newestWalReceipt: number | null;
  readonly archiveLagSeconds: number | null;
  readonly expectedMaxArchiveLagSeconds: number | null;
  /** Gaps with exactly the shape the format's retention leaves (not on the wire: the scan's classes). */
  readonly retentionExpectedGaps: number;
  /** The tool whose repository this is, as messages name it. */
  readonly tool: string | null;
  /** The scope's repository format, whose own facts follow the backups; null: none are shown. */
  readonly format: Pick<RepositoryFormat, 'facts'> | null;
  /** The earliest receipt time of any object of the scope (ms; `ScopeEvidence.earliestReceipt`); absent or null when unknown: no bulk-copy note. */
  readonly earliestReceipt?: number | null;
}

/** A duration as an operator reads it: `45 s`, `12 min`, `3 h 5 min`, `2 d 4 h`. */
export function humanDuration(seconds: number): string {
  const s = Math.round(seconds);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min`;
  const h = Math.floor(m / 60);
  if (h < 48) return m % 60 === 0 ? `${h} h` : `${h} h ${m % 60} min`;
  const d = Math.floor(h / 24);
  return h % 24 === 0 ? `${d} d` : `${d} d ${h % 24} h`;
}

const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');
const row = (label: string, text: string) => `  ${label.padEnd(13)}${text}`;
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** One column for the ids of a list: at least 17 characters, longer ids (a dependent backup's label of 33) widen it. */
const idWidth = (items: readonly { readonly backup_id: string }[]) => Math.max(17, ...items.map((i) => i.backup_id.length));

function backupLines(items: readonly BackupItem[]): string[] {
  const usable = items.filter((b) => b.state === 'healthy' || b.state === 'warning');
  const done = items.filter(isCompleted);
  const lines = [row('backups', `${items.length} (${done.length} completed, ${usable.length} structurally usable)`)];
  const width = idWidth(items);
  for (const b of [...items].sort((a, b) => (a.begin_at ?? '').localeCompare(b.begin_at ?? '') || a.backup_id.localeCompare(b.backup_id))) {
    lines.push(row('', `${b.backup_id.padEnd(width)} ${(b.status ?? 'unknown').padEnd(17)}${b.state.padEnd(10)}ended ${b.end_at ?? 'unknown'}  ${b.reason.code}`));
  }
  return lines;
}

function lagLine(f: TextFacts): string {
  if (f.newestWalReceipt === null) return row('archive lag', 'unknown (no WAL received)');
  if (f.archiveLagSeconds === null) return row('archive lag', `unknown (${f.storeTimeAtScan === null ? 'the store sent no clock reading' : "a WAL object was received after the store's own clock: its clocks disagree"})${f.expectedMaxArchiveLagSeconds === null ? '' : `; expectation ${humanDuration(f.expectedMaxArchiveLagSeconds)} cannot be checked`}`);
  const lag = humanDuration(f.archiveLagSeconds);
  if (f.expectedMaxArchiveLagSeconds === null) return row('archive lag', `${lag} by the store's clock (no expectation configured)`);
  const over = f.archiveLagSeconds > f.expectedMaxArchiveLagSeconds;
  return row('archive lag', `${lag} by the store's clock, ${over ? 'over' : 'within'} the expectation of ${humanDuration(f.expectedMaxArchiveLagSeconds)}`);
}

function coverageLines(paths: readonly RecoveryPathItem[], backups: readonly BackupItem[]): string[] {
  if (paths.length === 0) return [row('coverage', 'no observed recovery coverage (no usable backup has a path)')];
  const newest = Math.max(...paths.map((p) => p.target_timeline));
  const usable = new Set(backups.filter((b) => b.state === 'healthy' || b.state === 'warning').map((b) => b.backup_id));
  const lines = [row('coverage', `observed recovery coverage of timeline ${newest}:`)];
  const shown = paths.filter((x) => x.target_timeline === newest);
  const width = idWidth(shown);
  for (const p of shown) {
    const reach = p.frontier_wal === null ? 'reach unknown' : `reaches ${p.frontier_wal} (received ${p.frontier_receipt_at ?? 'unknown'})`;
    lines.push(row('', `${p.backup_id.padEnd(width)} ${p.state.padEnd(10)}${reach}, stop ${p.stop}${usable.has(p.backup_id) ? '' : ', backup not usable'}`));
  }
  return lines;
}

/** The format's own facts beside the common summary, in its words (none for a format without any). */
function formatLines(p: Publication, f: TextFacts): string[] {
  return (f.format?.facts(p.snapshot.details)?.text ?? []).map((r) => row(r.label, r.text));
}

/** The gap a path stops at: the first on its frontier timeline after its frontier. */
function gapAfter(path: RecoveryPathItem, gaps: readonly WalGapItem[]): WalGapItem | null {
  if (path.frontier_timeline === null || path.frontier_position === null) return null;
  const after = gaps.filter((g) => g.timeline === path.frontier_timeline && g.start_position > (path.frontier_position ?? 0));
  return after.reduce<WalGapItem | null>((m, g) => (m === null || g.start_position < m.start_position ? g : m), null);
}

/** Where a path stops, with the segment names of the gap it stops at. */
function stopText(path: RecoveryPathItem, gaps: readonly WalGapItem[]): string {
  const after = path.frontier_wal === null ? '' : ` after ${path.frontier_wal}`;
  const gap = path.stop === 'gap-limited' || path.stop === 'candidate-limited' ? gapAfter(path, gaps) : null;
  const missing = gap === null ? '' : `: ${gap.status} gap ${gap.first_wal}..${gap.last_wal} (${plural(gap.segment_count, 'segment')} missing)`;
  switch (path.stop) {
    case 'frontier':
      return 'reaches the newest WAL';
    case 'candidate-limited':
      return `stops at an unconfirmed gap${after}${missing}`;
    case 'gap-limited':
      return path.reason.code === 'standalone-retention-limited' ? `stops at the hole retention leaves${after} (${path.reason.code})${missing}` : `stops at missing WAL${after}${missing}`;
    case 'unknown-limited':
      return `stops where the timeline history is unknown${after}`;
  }
}

function whyNotText(w: WhyNot, b: BackupItem, gaps: readonly WalGapItem[]): string {
  switch (w.kind) {
    case 'not-usable':
      return `not structurally usable (${b.reason.code})`;
    case 'no-path':
      return 'no observed recovery path to the newest timeline';
    case 'stops':
      return `its path ${stopText(w.path, gaps)}`;
    case 'path-not-usable':
      return `its path reaches the newest WAL but is ${w.path.state} (${w.path.reason.code})`;
  }
}

/** How many passed-over backups the text names. */
const PASSED_OVER_SHOWN = 5;

/** The backup to restore from for the newest timeline, why not a newer one, and the observed window. */
function restoreLines(p: Publication): string[] {
  const rc = restoreChoice(p.backups, p.recoveryPaths, p.walRanges.map((r) => r.timeline));
  const lines: string[] = [];
  if (rc.timeline === null) return [row('restore from', 'none: no WAL was observed, so no recovery path reaches any')];
  if (rc.chosen !== null) {
    const { backup, path } = rc.chosen;
    lines.push(row('restore from', `${backup.backup_id} (ended ${backup.end_at ?? 'unknown'}, ${path.state}): the newest structurally usable backup whose observed recovery coverage reaches the newest WAL of timeline ${rc.timeline} (${path.frontier_wal ?? 'unknown'})`));
  } else {
    const f = rc.furthest;
    lines.push(row('restore from', `none: no backup's observed recovery coverage reaches the newest WAL of timeline ${rc.timeline}${f === null ? '' : `; the furthest path, from ${f.backup.backup_id}, ${stopText(f.path, p.walGaps)}`}`));
  }
  const passed = rc.passedOver.slice(0, PASSED_OVER_SHOWN);
  for (const { backup, why } of passed) lines.push(row('', `not ${backup.backup_id}${backupTime(backup) === null ? ' (time unknown)' : ''}: ${whyNotText(why, backup, p.walGaps)}`));
  if (rc.passedOver.length > passed.length) lines.push(row('', `and ${rc.passedOver.length - passed.length} more`));
  const w = observedWindow(p.backups, p.recoveryPaths);
  if (w !== null) lines.push(row('window', `observed recovery coverage on timeline ${w.timeline} from ${w.from} (end of backup ${w.fromBackup}) to ${w.to ?? 'unknown'} (receipt time of the newest WAL, store clock)`));
  return lines;
}

/** A note when the receipt times are a bulk copy's (glance.ts's rule, as on the page). */
function copyLines(p: Publication, f: TextFacts): string[] {
  const earliest = f.earliestReceipt ?? null;
  const c = copiedReceipts(p.backups, { earliest: earliest === null ? null : new Date(earliest).toISOString(), latest: f.newestWalReceipt === null ? null : new Date(f.newestWalReceipt).toISOString() });
  if (c === null) return [];
  const days = humanDuration((c.backups[0]?.endedBeforeMs ?? 0) / 1000);
  return [row('receipts', `copy times, not archiving times: ${plural(c.backups.length, 'backup')} ended up to ${days} before the first object was received (${iso(Date.parse(c.earliest))}); the newest receipt and the archive lag say when the copy ran`)];
}

/** What to do for each reason the scope shows (its state and parts), once per code. */
function adviceLines(p: Publication, f: TextFacts): string[] {
  const s = p.snapshot;
  const ac = requireCommonSummary(s.details);
  const codes = [...new Set([s.reason.code, ...(p.generation === 0 ? [] : [ac.wal, ac.timeline, ac.coverage, ac.retention].filter((x) => x.state !== 'healthy').map((x) => x.reason.code))])].filter((c) => !needsNoAction(c));
  return codes.map((c, i) => row(i === 0 ? 'to do' : '', `${c}: ${adviceFor(c, f.tool) ?? 'no advice for this code (a newer producer?)'}`));
}

/** The summary of one publication: a handful of lines per scope. */
export function scanText(p: Publication, f: TextFacts): string {
  const s = p.snapshot;
  const server = s.identity.repository.scope.name;
  const ac = requireCommonSummary(s.details);
  const lines = [`server ${server} (${s.identity.repository.format})`, row('state', `${s.state} (${s.reason.code}: ${s.reason.message})`)];
  if (p.generation === 0) {
    lines.push(row('evidence', `no completed scan${s.inventory.last_failure_category === null ? '' : `; the attempt failed: ${s.inventory.last_failure_category}`}`));
    lines.push(...adviceLines(p, f));
    return `${lines.join('\n')}\n`;
  }
  const inv = s.inventory;
  lines.push(row('evidence', `generation ${p.generation}, ${s.completeness}${s.stale ? ', stale' : ''}, scanned ${s.started_at ?? 'unknown'} to ${s.completed_at ?? 'unknown'}; ${inv.object_count ?? 'unknown'} objects, ${inv.stored_bytes === null ? 'unknown bytes' : `${inv.stored_bytes} bytes (${bytesText(inv.stored_bytes).text})`}`));
  lines.push(...backupLines(p.backups));
  lines.push(...formatLines(p, f));
  const timelines = [...new Set(p.walRanges.map((r) => r.timeline))].sort((a, b) => a - b);
  const segments = ac.wal_counts?.segment ?? null;
  const newest = f.newestWalReceipt === null ? 'no WAL received' : `newest received ${iso(f.newestWalReceipt)}${f.storeTimeAtScan === null || f.archiveLagSeconds === null ? '' : ` (${humanDuration(f.archiveLagSeconds)} before the scan by the store's clock)`}`;
  lines.push(row('wal', `${ac.wal.state} (${ac.wal.reason.code}); ${segments === null ? 'unknown' : segments} segments on ${timelines.length === 0 ? 'no timeline' : `timeline${timelines.length === 1 ? '' : 's'} ${timelines.join(', ')}`}; ${newest}`));
  lines.push(lagLine(f));
  const byStatus = (status: 'candidate' | 'confirmed') => p.walGaps.filter((g) => g.status === status);
  const gapText = (status: 'candidate' | 'confirmed') => {
    const gaps = byStatus(status);
    return `${gaps.length} ${status} (${plural(gaps.reduce((n, g) => n + g.segment_count, 0), 'segment')})`;
  };
  const expected = f.retentionExpectedGaps === 0 ? '' : `; ${f.retentionExpectedGaps} of them with exactly the shape ${f.tool ?? 'the format'}'s retention leaves`;
  lines.push(row('gaps', `${gapText('confirmed')}, ${gapText('candidate')}${expected}`));
  lines.push(...coverageLines(p.recoveryPaths, p.backups));
  lines.push(...restoreLines(p));
  lines.push(...copyLines(p, f));
  lines.push(row('retention', `${ac.retention.state} (${ac.retention.reason.code})`));
  lines.push(...adviceLines(p, f));
  return `${lines.join('\n')}\n`;
}
