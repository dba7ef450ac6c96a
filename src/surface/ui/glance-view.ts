/**
 * The inventory's answers at a glance, as HTML: the repository's display name, the one sentence
 * that says what structural evidence is (names, sizes, receipt times and metadata; never the
 * contents of backups or WAL), one line per server with its observed recovery window on the newest
 * timeline, the first scan's progress, a note when receipt times are a bulk copy's, and per server
 * "what to do" for each reason code it shows (advice from publication/advice.ts, the one source).
 */
import type { BackupItem } from '../../contract/collections.ts';
import { adviceFor, needsNoAction } from '../../publication/advice.ts';
import { detailsView } from '../../publication/details.ts';
import { copiedReceipts, observedWindow } from './glance.ts';
import { html, type Raw } from './html.ts';
import type { PageContext, ScopeView } from './page-context.ts';
import { durationText } from './restore-choice.ts';
import { count, when } from './parts.ts';

export const STRUCTURAL_SENTENCE =
  'This is structural evidence: object names, sizes, receipt times and the metadata files (backup.info, manifests, timeline histories). viewer never reads the contents of backups or WAL segments, so a damaged segment of the right name and size counts as present.';

/** The first scan's progress, while the repository's watch reports one running. */
export function progressNote(ctx: PageContext): Raw {
  const p = ctx.progress ?? null;
  if (p === null) return html``;
  return html`<p class="notice" role="status"><strong>Scanning:</strong> ${count(p.pages)} page${p.pages === 1 ? '' : 's'}, ${count(p.objects)} object${p.objects === 1 ? '' : 's'} so far. The evidence appears once the first scan completes; reload the page to follow it.</p>`;
}

/** One server's observed recovery window, or why there is none. */
function windowLine(v: ScopeView): Raw {
  const p = v.publication;
  if (p.snapshot.evidence_generation === 0) return html`observed recovery coverage <span class="muted">unknown</span> until a scan completes`;
  const w = observedWindow(p.backups, p.recoveryPaths);
  if (w === null) {
    const newest = p.recoveryPaths.reduce((m, r) => Math.max(m, r.target_timeline), 0);
    return html`<strong>no</strong> structurally usable backup's observed recovery coverage reaches the newest WAL${newest === 0 ? '' : html` of timeline ${newest}`}`;
  }
  const copied = copiedReceipts(p.backups, v.receipts) !== null;
  return html`observed recovery coverage from ${when(w.from)} to ${when(w.to)} on timeline ${w.timeline} <span class="muted">(from the end of backup <code>${w.fromBackup}</code> as its metadata records it, to the receipt time of the newest WAL${w.toWal === null ? '' : html` <code>${w.toWal}</code>`} by the store's clock${copied ? html`, <strong>a copy time</strong>: see the note on receipt times` : ''})</span>`;
}

/** One line per server with its observed recovery window on the newest timeline. */
export function windowLines(ctx: PageContext): Raw {
  if (ctx.scopes.length === 0) return html``;
  return html`<ul class="windows">${ctx.scopes.map((v) => html`<li><a href="#server-${v.server}"><code>${v.server}</code></a>: ${windowLine(v)}.</li>`)}</ul>`;
}

const dayText = (ms: number) => durationText(Math.floor(ms / 1000));

/** Receipt times that are a bulk copy's: said once per server, near its newest-WAL facts. */
export function copyNote(v: ScopeView): Raw {
  const c = copiedReceipts(v.publication.backups, v.receipts);
  if (c === null) return html``;
  const oldest = c.backups[0];
  const names = c.backups.slice(0, 3).map((b) => b.id);
  return html`<p class="notice" role="note"><strong>Receipt times here are copy times, not archiving times.</strong> ${c.backups.length === 1 ? 'Backup' : `${c.backups.length} backups, e.g.`} ${names.map((n, i) => html`${i > 0 ? ', ' : ''}<code>${n}</code>`)} ended ${oldest === undefined ? '' : dayText(oldest.endedBeforeMs)} before the first object of this server was received (${when(c.earliest)})${c.oneBatch ? html`, and every object arrived within ${dayText(Date.parse(c.latest ?? c.earliest) - Date.parse(c.earliest))} of it` : ''}: the objects were copied here in bulk (a migration or a sync between buckets). The newest WAL's receipt, the archive lag and the coverage's end say when the copy ran, not when PostgreSQL archived.</p>`;
}

interface Finding {
  readonly code: string;
  readonly where: string[];
}

/** The reason codes a server shows, each once, in the order the page raises them (state first, backups last). */
function findings(v: ScopeView): Finding[] {
  const s = v.publication.snapshot;
  const out = new Map<string, string[]>();
  const add = (code: string, where: string) => {
    const list = out.get(code);
    if (list === undefined) out.set(code, [where]);
    else if (!list.includes(where)) list.push(where);
  };
  add(s.reason.code, 'state');
  if (s.evidence_generation > 0) {
    const d = detailsView(s.details);
    for (const [name, part] of [['WAL continuity', d.wal], ['timelines', d.timeline], ['coverage', d.coverage], ['retention', d.retention]] as const) if (part.state !== 'healthy') add(part.reason.code, name);
    for (const c of s.capabilities) if (c.state !== 'healthy' && c.support === 'supported') add(c.reason.code, String(c.id));
    const bad = (b: BackupItem) => b.state !== 'healthy';
    for (const b of v.publication.backups.filter(bad)) add(b.reason.code, `backup ${b.backup_id}`);
  }
  return [...out].map(([code, where]) => ({ code, where })).filter((f) => !needsNoAction(f.code));
}

/** How many places a finding names before "and N more". */
const WHERE_SHOWN = 3;

/** "What to do" for each reason code the server shows; nothing when every reason needs no action. */
export function todo(v: ScopeView): Raw {
  const list = findings(v);
  if (list.length === 0) return html``;
  return html`<h3>What to do</h3><ul class="todo">${list.map((f) => {
    const advice = adviceFor(f.code, v.tool);
    const where = f.where.slice(0, WHERE_SHOWN).join(', ') + (f.where.length > WHERE_SHOWN ? ` and ${f.where.length - WHERE_SHOWN} more` : '');
    return html`<li><code class="reason">${f.code}</code> <span class="muted">(${where})</span>: ${advice ?? html`<span class="muted">no advice for this code (a newer producer?); see docs/design/evidence.md</span>`}</li>`;
  })}</ul>`;
}
