/**
 * `viewer scan --output text`: a short human summary of one scope, the way `pgbackrest info` and
 * `barman-cloud-backup-list` answer at a terminal: the state and its reason, the evidence's age,
 * the backups, the WAL and its newest receipt by the store's clock, the archive lag against its
 * expectation, the gaps and the observed recovery coverage of the newest timeline. Read from the
 * publication's wire items and the scan's store-clock facts only; unknown is written "unknown",
 * never 0. Words follow the spec: "observed recovery coverage", never a restore promise.
 */
import type { BackupItem, RecoveryPathItem } from '../../contract/collections.ts';
import { requireCommonSummary, stanzaRepositoryFacts } from '../../contract/details-view.ts';
import type { Publication } from '../../publication/publisher.ts';

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

/** One column for the ids of a list: Barman's are 16 characters, pgBackRest's dependent labels 33. */
const idWidth = (items: readonly { readonly backup_id: string }[]) => Math.max(17, ...items.map((i) => i.backup_id.length));

function backupLines(items: readonly BackupItem[]): string[] {
  const usable = items.filter((b) => b.state === 'healthy' || b.state === 'warning');
  const done = items.filter((b) => b.status === 'DONE');
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

/** pgBackRest's own facts (D-72), as `pgbackrest info` users look for them; none for another format. */
function stanzaLines(p: Publication): string[] {
  const f = stanzaRepositoryFacts(p.snapshot.details);
  if (f === null) return [];
  const t = f.backup_types;
  const types = t === null ? 'unknown' : `${t.full} full, ${t.diff} diff, ${t.incr} incr listed in backup.info`;
  const interrupted = f.interrupted_backups === null ? 'unknown' : String(f.interrupted_backups);
  const cipher = f.encrypted === null ? 'unknown' : f.encrypted ? 'aes-256-cbc' : 'none';
  return [
    row('backup sets', `${types}; ${interrupted} interrupted; repository cipher ${cipher}`),
    row('dependencies', `${f.dependency_chain.state} (${f.dependency_chain.reason.code})`),
  ];
}

/** The summary of one publication: a handful of lines per scope. */
export function scanText(p: Publication, f: TextFacts): string {
  const s = p.snapshot;
  const server = s.identity.repository.scope.name;
  const ac = requireCommonSummary(s.details);
  const lines = [`server ${server} (${s.identity.repository.format})`, row('state', `${s.state} (${s.reason.code}: ${s.reason.message})`)];
  if (p.generation === 0) {
    lines.push(row('evidence', `no completed scan${s.inventory.last_failure_category === null ? '' : `; the attempt failed: ${s.inventory.last_failure_category}`}`));
    return `${lines.join('\n')}\n`;
  }
  const inv = s.inventory;
  lines.push(row('evidence', `generation ${p.generation}, ${s.completeness}${s.stale ? ', stale' : ''}, scanned ${s.started_at ?? 'unknown'} to ${s.completed_at ?? 'unknown'}; ${inv.object_count ?? 'unknown'} objects, ${inv.stored_bytes ?? 'unknown'} bytes`));
  lines.push(...backupLines(p.backups));
  lines.push(...stanzaLines(p));
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
  lines.push(row('retention', `${ac.retention.state} (${ac.retention.reason.code})`));
  return `${lines.join('\n')}\n`;
}
