/**
 * The backup catalog of one scope: its backups on the shelves the spec keeps apart (completed,
 * structurally incomplete, in progress or abandoned, failed, malformed, unsupported), each shelf
 * with the statuses its format keeps under headings of their own split off; a backup's name and
 * keep status where its format's tools list them, its type and the backups it depends on where
 * they tell something, and the error text a failed backup recorded.
 */
import type { BackupItem } from '../../contract/collections.ts';
import type { OwnHeading, Shelf } from '../../format/seam.ts';
import { html, raw, type Raw } from './html.ts';
import type { Dependency, ScopeView } from './page-context.ts';
import { bytes, itemState, when } from './parts.ts';
import { idText } from './scope-parts.ts';

/** The catalog's shelves, kept apart as the spec asks, in the order the page shows them. */
const SHELVES: readonly Shelf[] = ['completed', 'structurally incomplete', 'in progress or abandoned', 'failed', 'malformed', 'unsupported'];

/** A dependency of a backup, marked when it is missing or not usable. */
function dependency(d: Dependency): Raw {
  const mark = d.state === null
    ? html` <strong class="broken">(missing)</strong>`
    : d.state === 'healthy' || d.state === 'warning' ? '' : html` <strong class="broken">(${d.state}: not usable)</strong>`;
  return html`${idText(d.id)}${mark}`;
}

/** A backup's type, and for one that depends on others the backups it needs, nearest first. */
function typeCell(v: ScopeView, b: BackupItem): Raw {
  const deps = v.dependencies.get(b.backup_id) ?? [];
  const type = b.backup_type ?? html`<span class="muted">unknown</span>`;
  if (deps.length === 0) return html`${type}`;
  // One dependency a line, so the column stays one label wide.
  const lines = [...deps].reverse().map((d, i) => {
    const arrow = i > 0 ? html`<span title="which depends on">←</span>${raw('&nbsp;')}` : '';
    return html`<span class="dep">${arrow}${dependency(d)}</span>`;
  });
  return html`<span class="chain">${type} of ${lines}</span>`;
}

/** The error text a failed backup recorded, as its tool lists it (bounded and sanitised by the scope view, escaped here). */
function recordedError(v: ScopeView, b: BackupItem): Raw {
  const text = v.recordedErrors.get(b.backup_id);
  return text === undefined ? html`` : html`<div class="recorded-error">Recorded error: <q>${text}</q></div>`;
}

/** Which optional columns a scope's catalog shows. */
interface Columns {
  /** Names and keep statuses: what some formats' tools list; a scope with none shows neither column. */
  readonly labelled: boolean;
  /** Types and chains where they tell something: backups of more than one type, or some depending on others. */
  readonly typed: boolean;
}

function headings(c: Columns): Raw {
  return html`<tr><th>backup</th>${c.labelled ? html`<th>name</th><th>keep</th>` : ''}${c.typed ? html`<th>type</th>` : ''}\
<th>state</th><th>status</th><th>timeline</th><th>begin WAL<br>end WAL</th><th>ended</th><th>archives</th><th class="reason">reason</th></tr>`;
}

function row(v: ScopeView, b: BackupItem, c: Columns, retained: boolean): Raw {
  const label = v.labels.get(b.backup_id);
  const labels = c.labelled ? html`<td>${label?.name ?? '-'}</td><td>${label?.keep ?? '-'}</td>` : '';
  const archives = html`${b.artifact_count ?? '-'} (${b.compression ?? 'mixed or unknown'})\
${b.stored_artifact_bytes === null ? '' : html`, ${bytes(b.stored_artifact_bytes)}`}`;
  return html`<tr><td>${idText(b.backup_id)}</td>${labels}${c.typed ? html`<td>${typeCell(v, b)}</td>` : ''}\
<td>${itemState(b.state, retained)}</td><td>${b.status ?? '-'}</td><td>${b.timeline ?? '-'}</td>\
<td><code>${b.begin_wal ?? '-'}</code><br><code>${b.end_wal ?? '-'}</code></td><td>${when(b.end_at)}</td>\
<td>${archives}</td><td>${b.reason.message}${recordedError(v, b)}</td></tr>`;
}

/**
 * The catalog, shelf by shelf; on each, the backups whose status the format keeps apart
 * (`ownHeadings`) under their own heading with its note, never among the others.
 */
export function backups(v: ScopeView, retained: boolean, own: readonly OwnHeading[]): Raw {
  const items = v.publication.backups;
  if (items.length === 0) return html`<p class="muted">No backup directory.</p>`;
  // A backup the evidence has no shelf for (none should exist) is never shown as completed.
  const shelfOf = (b: BackupItem): Shelf => v.shelves.get(b.backup_id) ?? 'structurally incomplete';
  const c: Columns = {
    labelled: items.some((b) => v.labels.get(b.backup_id)?.name != null || v.labels.get(b.backup_id)?.keep != null),
    typed: new Set(items.flatMap((b) => (b.backup_type === null ? [] : [b.backup_type]))).size > 1 || v.dependencies.size > 0,
  };
  const table = (rows: readonly BackupItem[]) => html`<div class="scroll" tabindex="0" role="region" aria-label="Backups of ${v.server}">\
<table><thead>${headings(c)}</thead><tbody>
${rows.map((b) => row(v, b, c, retained))}
</tbody></table></div>`;
  const apartStatuses = new Set(own.map((h) => h.status));
  const tool = v.tool ?? 'the tool';
  return html`${SHELVES.map((k) => {
    const shelf = items.filter((b) => shelfOf(b) === k);
    const rows = shelf.filter((b) => b.status === null || !apartStatuses.has(b.status));
    return html`${rows.length === 0 ? '' : html`<h3>${k[0]?.toUpperCase()}${k.slice(1)} (${rows.length})</h3>
${table(rows)}`}${own.map((h) => {
      const apart = shelf.filter((b) => b.status === h.status);
      return apart.length === 0 ? '' : html`<h3>${h.heading} (${apart.length})</h3><p class="muted">${h.note(tool)}</p>
${table(apart)}`;
    })}`;
  })}`;
}
