/**
 * The WAL browser (`/wals`): the compact WAL evidence of the repository's scopes, filtered by
 * server, object class, timeline and WAL name range (D-46) and paged. Archived ranges and missing
 * runs are one row each however long; `class=gap` lists the missing runs only; each history file
 * with its switchpoint; classes counted but not kept one by one say their exact count. A filter
 * the page cannot take is refused with what to fix, and nothing is searched.
 */
import type { WalGapItem } from '../../contract/collections.ts';
import { detailsView } from '../../publication/details.ts';
import { html, raw, type Raw } from './html.ts';
import { layout } from './layout.ts';
import type { PageContext, ScopeView } from './page-context.ts';
import { count } from './parts.ts';
import { gapLabel } from './scope-parts.ts';

/** The spec's object classes, and `gap`: the missing runs only (the rows `segment` lists as missing). */
export const WAL_CLASSES = ['segment', 'partial', 'history', 'backup-history', 'duplicate', 'unknown', 'gap'] as const;
export type WalClass = (typeof WAL_CLASSES)[number];

export interface WalFilter {
  readonly server: string | null;
  readonly walClass: WalClass | null;
  readonly timeline: number | null;
  readonly from: string | null;
  readonly to: string | null;
  readonly page: number;
}

export type WalFilterResult = { ok: true; filter: WalFilter } | { ok: false; problems: string[] };

const WAL = /^[0-9A-F]{24}$/;
const FILTERS = ['server', 'class', 'timeline', 'from', 'to', 'page'];

/** Parses `/wals` query parameters: `server`, `class`, `timeline`, `from`, `to`, `page` (D-46). */
export function parseWalFilter(search: URLSearchParams, servers: readonly string[]): WalFilterResult {
  const problems: string[] = [];
  const one = (name: string) => {
    const all = search.getAll(name);
    if (all.length > 1) problems.push(`${name} is given more than once`);
    const v = all[0];
    return v === undefined || v === '' ? null : v;
  };
  for (const name of new Set(search.keys())) if (!FILTERS.includes(name)) problems.push(`unknown filter ${name.slice(0, 20)}`);
  const server = one('server');
  if (server !== null && !servers.includes(server)) problems.push('server is not one of the scopes');
  const walClass = one('class');
  if (walClass !== null && !(WAL_CLASSES as readonly string[]).includes(walClass)) problems.push(`class must be one of ${WAL_CLASSES.join(', ')}`);
  const timeline = one('timeline');
  const badTimeline = timeline !== null && (!/^[1-9][0-9]{0,9}$/.test(timeline) || Number(timeline) > 0xffffffff);
  if (badTimeline) problems.push('timeline must be a positive integer');
  const from = one('from');
  const to = one('to');
  if (from !== null && !WAL.test(from)) problems.push('from must be a 24-digit uppercase WAL name');
  if (to !== null && !WAL.test(to)) problems.push('to must be a 24-digit uppercase WAL name');
  if (from !== null && to !== null && WAL.test(from) && WAL.test(to) && from > to) problems.push('from must not come after to');
  const page = one('page');
  if (page !== null && !/^[1-9][0-9]{0,6}$/.test(page)) problems.push('page must be a positive integer');
  if (problems.length > 0) return { ok: false, problems };
  const filter: WalFilter = {
    server,
    walClass: walClass as WalClass | null,
    timeline: timeline === null ? null : Number(timeline),
    from,
    to,
    page: page === null ? 1 : Number(page),
  };
  return { ok: true, filter };
}

interface WalRow {
  readonly server: string;
  readonly timeline: number;
  readonly first: string;
  readonly last: string;
  readonly what: Raw;
}

const plural = (n: number) => (n === 1 ? '' : 's');

function walRows(v: ScopeView, f: WalFilter): WalRow[] {
  const inRange = (first: string, last: string) => (f.from === null || last >= f.from) && (f.to === null || first <= f.to);
  const onTimeline = (t: number) => f.timeline === null || f.timeline === t;
  const rows: WalRow[] = [];
  const want = (c: WalClass) => f.walClass === null || f.walClass === c;
  const p = v.publication;
  if (want('segment') || f.walClass === 'gap') {
    const archived = f.walClass === 'gap' ? [] : p.walRanges.map((r) => ({ r, gap: false }));
    const runs = [...archived, ...p.walGaps.map((r) => ({ r, gap: true }))]
      .sort((a, b) => a.r.timeline - b.r.timeline || a.r.start_position - b.r.start_position);
    for (const { r, gap } of runs) {
      if (!onTimeline(r.timeline) || !inRange(r.first_wal, r.last_wal)) continue;
      // A missing run is one row however long it is.
      const n = r.segment_count;
      const what = gap
        ? html`<strong>missing</strong> ${n} segment${plural(n)} (${gapLabel(v, r as WalGapItem)})`
        : html`${n} archived segment${plural(n)}`;
      rows.push({ server: v.server, timeline: r.timeline, first: r.first_wal, last: r.last_wal, what });
    }
  }
  if (want('partial')) {
    for (const x of v.partials) {
      if (!onTimeline(x.timeline) || !inRange(x.wal, x.wal)) continue;
      rows.push({ server: v.server, timeline: x.timeline, first: x.wal, last: x.wal, what: html`partial segment` });
    }
  }
  if (want('history')) {
    for (const h of v.histories) {
      if (!onTimeline(h.timeline) || f.from !== null || f.to !== null) continue;
      const sp = h.switchpoint;
      const what = sp === null
        ? html`history file (${h.status})`
        : html`history file (${h.status}): switches from timeline ${sp.parent} at LSN <code>${sp.lsn}</code>, in segment <code>${sp.wal}</code>`;
      rows.push({ server: v.server, timeline: h.timeline, first: '-', last: '-', what });
    }
  }
  return rows;
}

/** A `/wals` link with the repository and the given filters. */
function walsLink(ctx: PageContext, set: (q: URLSearchParams) => void): string {
  const q = new URLSearchParams();
  if (ctx.repository != null) q.set('repository', ctx.repository);
  set(q);
  return `/wals?${q.toString()}`;
}

/** The exact count of a class counted but not kept one by one, or why it is unknown. */
function countedNote(scopes: readonly ScopeView[], walClass: 'backup-history' | 'duplicate' | 'unknown'): Raw {
  const key = walClass === 'backup-history' ? 'backup_history' : walClass;
  // Exact only when every scope shown has complete counts; otherwise unknown, never zero.
  const n = scopes.reduce<number | null>((sum, v) => {
    const k = detailsView(v.publication.snapshot.details).walCounts?.[key] ?? null;
    return sum === null || k === null ? null : sum + k;
  }, 0);
  return n === null
    ? html`<p>Objects of class ${walClass}: ${count(null)} until a scan of every scope shown completes.</p>`
    : html`<p>${count(n)} objects of class ${walClass}: counted exactly, not kept one by one.</p>`;
}

export function walsPage(ctx: PageContext, f: WalFilter, pageSize: number): string {
  const scopes = ctx.scopes.filter((v) => f.server === null || v.server === f.server);
  const rows = scopes.flatMap((v) => walRows(v, f));
  const pages = Math.max(1, Math.ceil(rows.length / pageSize));
  const page = Math.min(f.page, pages);
  const shown = rows.slice((page - 1) * pageSize, page * pageSize);
  const link = (n: number) =>
    walsLink(ctx, (q) => {
      if (f.server !== null) q.set('server', f.server);
      if (f.walClass !== null) q.set('class', f.walClass);
      if (f.timeline !== null) q.set('timeline', String(f.timeline));
      if (f.from !== null) q.set('from', f.from);
      if (f.to !== null) q.set('to', f.to);
      q.set('page', String(n));
    });
  const notes = f.walClass === 'backup-history' || f.walClass === 'duplicate' || f.walClass === 'unknown' ? countedNote(scopes, f.walClass) : '';
  const gapsOnly = walsLink(ctx, (q) => {
    if (f.server !== null) q.set('server', f.server);
    q.set('class', 'gap');
  });
  const row = (r: WalRow) => html`<tr><td><code>${r.server}</code></td><td>${r.timeline}</td>\
<td><code>${r.first}</code></td><td><code>${r.last}</code></td><td>${r.what}</td></tr>`;
  const body = html`<section><h2>WAL browser</h2>${filterForm(ctx, f)}\
${f.walClass === 'gap' ? '' : html`<p><a href="${gapsOnly}">Show only the gaps</a> (missing WAL).</p>`}</section>
<section>${notes}<p class="muted">${rows.length} row${plural(rows.length)}, page ${page} of ${pages}.</p>
<div class="scroll" tabindex="0" role="region" aria-label="WAL rows"><table><thead>\
<tr><th>server</th><th>timeline</th><th>first WAL</th><th>last WAL</th><th>what</th></tr></thead><tbody>
${shown.map(row)}
</tbody></table></div>
<p>${page > 1 ? html`<a href="${link(page - 1)}">previous</a>` : ''} ${page < pages ? html`<a href="${link(page + 1)}">next</a>` : ''}</p></section>`;
  return layout('WAL browser', ctx, body);
}

function filterForm(ctx: PageContext, f: WalFilter | null): Raw {
  const servers = ctx.scopes.map((v) => html`<option${f?.server === v.server ? raw(' selected') : ''}>${v.server}</option>`);
  const classes = WAL_CLASSES.map((c) => html`<option value="${c}"${f?.walClass === c ? raw(' selected') : ''}>\
${c === 'gap' ? 'gap (missing WAL only)' : c}</option>`);
  return html`<form method="get" action="/wals">\
${ctx.repository == null ? '' : html`<input type="hidden" name="repository" value="${ctx.repository}">`}
<label>Server<select name="server"><option value="">all</option>${servers}</select></label>
<label>Class<select name="class"><option value="">all</option>${classes}</select></label>
<label>Timeline<input name="timeline" inputmode="numeric" size="6" value="${f?.timeline ?? ''}"></label>
<label>From WAL<input name="from" size="26" maxlength="24" value="${f?.from ?? ''}"></label>
<label>To WAL<input name="to" size="26" maxlength="24" value="${f?.to ?? ''}"></label>
<button type="submit">Filter</button></form>`;
}

export function rejectedFilterPage(ctx: PageContext, problems: readonly string[]): string {
  return layout('Filter rejected', ctx, html`<section class="error"><h2>Filter rejected</h2><p>Nothing was searched. Fix the filter:</p>\
<ul>${problems.map((p) => html`<li>${p}</li>`)}</ul>${filterForm(ctx, null)}</section>`);
}
