/**
 * The inventory (`/`): the repository's name and scopes, what structural evidence is, each
 * server's observed recovery window, the destination's notes; with more than one server a table
 * of them first; then one section per server: its state, the notices about its evidence (retained,
 * empty location), the operator's four questions, a note when receipt times are a bulk copy's and
 * what to do for each reason code shown, its facts, the timeline picture, the backup catalog, the
 * observed recovery coverage and the recently received objects.
 */
import { copyNote, STRUCTURAL_SENTENCE, todo, windowLines } from './glance-view.ts';
import { backups } from './catalog.ts';
import { coverage } from './coverage.ts';
import { destinationNotes } from './destination-notes.ts';
import { serversTable } from './fleet-page.ts';
import { html, type Raw } from './html.ts';
import { layout } from './layout.ts';
import type { PageContext, ScopeView } from './page-context.ts';
import { bytes, state, when } from './parts.ts';
import { retainedOf } from './scope-parts.ts';
import { serverFacts } from './server-facts.ts';
import { picture } from './timeline-picture.ts';
import { topFacts } from './top-facts.ts';

/** The scope's most recently received objects, newest first; a key that must not be echoed is not shown. */
function recentObjects(v: ScopeView): Raw {
  if (v.recentObjects.length === 0) return html`<p class="muted">None.</p>`;
  const rows = v.recentObjects.map((o) => {
    const key = o.key === null ? html`<span class="muted">a key holding control characters (not shown)</span>` : html`<code>${o.key}</code>`;
    return html`<tr><td>${key}</td><td>${bytes(o.size)}</td><td>${when(o.receivedAt)}</td></tr>`;
  });
  return html`<p class="muted">Newest first; on one receipt time, the key that sorts last first.</p>\
<div class="scroll" tabindex="0" role="region" aria-label="Recently received objects of ${v.server}"><table class="recent">\
<thead><tr><th>object</th><th>size</th><th>received</th></tr></thead><tbody>${rows}</tbody></table></div>`;
}

function scopeSection(v: ScopeView, ctx: PageContext): Raw {
  const s = v.publication.snapshot;
  const retained = retainedOf(v);
  const retainedNote = retained && s.evidence_generation > 0
    ? html`<p class="notice">The evidence below is retained from generation ${s.evidence_generation}, completed ${when(s.completed_at)}: \
it is historical, not current health. Every item is marked "retained".</p>`
    : '';
  const emptyNote = v.empty
    ? html`<p class="notice">No backup directory and no WAL were found at this server's location. Check DESTINATION_PATH and the server name.</p>`
    : '';
  return html`<section id="server-${v.server}" aria-labelledby="scope-${v.server}">\
<h2 id="scope-${v.server}">Server <code>${v.server}</code> ${state(s.state)}</h2>
<p>${s.reason.message}</p>
${retainedNote}
${emptyNote}
${topFacts(v, ctx, retained)}
${copyNote(v)}${todo(v)}
${serverFacts(v, ctx, ctx.format)}
<h3>Timelines and WAL</h3>${picture(v)}
<h3>Backups</h3>${backups(v, retained, ctx.format?.ownHeadings ?? [])}
${coverage(v, retained)}
<h3>Recently received objects</h3>
${recentObjects(v)}
</section>`;
}

export function inventoryPage(ctx: PageContext): string {
  const n = ctx.scopes.length;
  const failed = ctx.destination?.discoveryFailure != null;
  const pending = ctx.destination?.discoveryPending === true;
  const names = ctx.scopes.map((v, i) => html`${i > 0 ? ', ' : ''}<code>${v.server}</code>`);
  const scopes = n === 0 && (failed || pending)
    ? html`Server scopes: <span class="muted">unknown</span>, ${failed ? 'discovery failed' : 'discovery in progress'}.`
    : html`${n} server scope${n === 1 ? '' : 's'}${n === 0 ? '.' : html`: ${names}.`}`;
  const repository = ctx.repository == null ? '' : html` <code>${ctx.repository}</code>`;
  const name = ctx.name == null || ctx.name === ctx.repository ? '' : html` <span class="name">${ctx.name}</span>`;
  const body = html`<section><h2>Repository${repository}${name}</h2><p>${scopes}
Totals are exact once a scan completed and unknown before; states are what the evidence proves, "unknown" where it cannot.</p>
<p class="structural">${STRUCTURAL_SENTENCE}</p>
${windowLines(ctx)}${destinationNotes(ctx.destination, n, ctx.format)}</section>
${serversTable(ctx)}
${ctx.scopes.map((v) => scopeSection(v, ctx))}`;
  return layout('Inventory', ctx, body);
}
