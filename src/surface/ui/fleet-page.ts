/**
 * Servers at a glance, one table row each (state with its reason code, newest backup, archive lag
 * against the expectation, WAL gaps, coverage): the inventory's table of a repository's servers
 * (with more than one), and the fleet page (`/` with FLEET_FILE), every repository of the fleet
 * file and each of its servers on one row, the worst first, each linking to that repository's
 * inventory (`/?repository=NAME`). A repository without a known server says why (discovery
 * pending or failed), never "0 servers".
 */
import type { State } from '../../contract/primitives.ts';
import { detailsView } from '../../publication/details.ts';
import { html, type Raw } from './html.ts';
import { layout } from './layout.ts';
import type { DestinationFacts, PageContext, ScopeView } from './page-context.ts';
import { itemState, state, when } from './parts.ts';
import { backupTime, durationText } from './restore-choice.ts';
import { backupRef, isRetentionGap, retainedOf } from './scope-parts.ts';

const UNKNOWN = html`<span class="muted">unknown</span>`;

/** The newest backup by its time, the later id first on a tie; undefined when none has a time. */
function newestBackup(v: ScopeView) {
  const timed = v.publication.backups.filter((b) => backupTime(b) !== null);
  return [...timed].sort((a, b) => (backupTime(b) ?? 0) - (backupTime(a) ?? 0) || (a.backup_id < b.backup_id ? 1 : -1))[0];
}

/**
 * One server at a glance, the cells after its name: state with its reason code, newest backup,
 * archive lag against the expectation, WAL gaps, coverage. The fleet table of one repository and
 * the fleet page's table of every repository share them.
 */
export function serverSummaryCells(v: ScopeView, maxArchiveLagSeconds: number | null): Raw {
  const max = maxArchiveLagSeconds;
  const p = v.publication;
  const retained = retainedOf(v);
  const scanned = p.snapshot.evidence_generation !== 0;
  const newest = newestBackup(v);
  const lag = v.clock?.archiveLagSeconds ?? null;
  const open = p.walGaps.filter((g) => !isRetentionGap(v, g));
  const confirmed = open.filter((g) => g.status === 'confirmed').length;
  const candidate = open.length - confirmed;
  const expected = p.walGaps.length - open.length;
  const gaps = open.length === 0
    ? html`none`
    : html`${[confirmed > 0 ? `${confirmed} confirmed` : '', candidate > 0 ? `${candidate} candidate` : ''].filter((t) => t !== '').join(', ')}`;
  const backup = !scanned
    ? UNKNOWN
    : newest === undefined
      ? html`<span class="muted">none</span>`
      : html`${backupRef(v, newest.backup_id)} ${itemState(newest.state, retained)} <span class="muted">ended ${when(newest.end_at)}</span>`;
  const lagCell = lag === null
    ? UNKNOWN
    : html`${durationText(lag)}${max !== null && lag > max ? html` ${itemState('warning', retained)} over ${durationText(max)}` : ''}`;
  return html`<td>${state(p.snapshot.state)} <code class="reason">${p.snapshot.reason.code}</code></td>
<td>${backup}</td>
<td>${lagCell}</td>
<td>${scanned ? gaps : UNKNOWN}${expected > 0 ? html` <span class="muted">(${expected} from retention, expected)</span>` : ''}</td>
<td>${state(detailsView(p.snapshot.details).coverage.state)}</td>`;
}

/** The header cells of `serverSummaryCells`. */
export const SERVER_SUMMARY_HEADINGS = html`<th>state, reason</th><th>newest backup</th><th>archive lag</th><th>WAL gaps</th><th>coverage</th>`;

/** The inventory's table of its servers, one row per server linking to its section; none for a single server. */
export function serversTable(ctx: PageContext): Raw {
  if (ctx.scopes.length < 2) return html``;
  const rows = ctx.scopes.map((v) => html`<tr><td><a href="#server-${v.server}"><code>${v.server}</code></a></td>\
${serverSummaryCells(v, ctx.maxArchiveLagSeconds)}</tr>`);
  return html`<section aria-labelledby="fleet"><h2 id="fleet">Servers (${ctx.scopes.length})</h2>
<div class="scroll" tabindex="0" role="region" aria-label="Servers"><table class="fleet">\
<thead><tr><th>server</th>${SERVER_SUMMARY_HEADINGS}</tr></thead><tbody>
${rows}
</tbody></table></div></section>`;
}

/** One repository of the fleet as its pages show it. */
export interface FleetRepositoryView {
  readonly name: string;
  readonly scopes: readonly ScopeView[];
  /** What discovery found beside the scopes; null with a configured list of servers. */
  readonly destination: DestinationFacts | null;
  /** The repository's `EXPECTED_MAX_ARCHIVE_LAG` in seconds (the entry's or the process-wide one). */
  readonly maxArchiveLagSeconds: number | null;
}

/** viewer's severity order (evidence/summary.ts): the rows that need attention first. */
const SEVERITY: Readonly<Record<State, number>> = { unhealthy: 0, unknown: 1, warning: 2, healthy: 3 };

const link = (name: string) => `/?repository=${encodeURIComponent(name)}`;

function noScopes(r: FleetRepositoryView): Raw {
  const d = r.destination;
  const why = d === null
    ? 'no server is configured'
    : d.discoveryPending
      ? 'discovery in progress'
      : d.discoveryFailure !== null ? `discovery failed (${d.discoveryFailure})` : 'no server found under the destination';
  return html`<tr><td><a href="${link(r.name)}"><code>${r.name}</code></a></td><td><span class="muted">none known</span></td>\
<td colspan="5"><span class="muted">${why}</span></td></tr>`;
}

export function fleetPage(repositories: readonly FleetRepositoryView[], ctx: PageContext): string {
  const rows = repositories
    .flatMap((r): { r: FleetRepositoryView; v: ScopeView | null }[] => (r.scopes.length === 0 ? [{ r, v: null }] : r.scopes.map((v) => ({ r, v }))))
    .sort((a, b) => {
      const sa = a.v === null ? SEVERITY.unknown : SEVERITY[a.v.publication.snapshot.state];
      const sb = b.v === null ? SEVERITY.unknown : SEVERITY[b.v.publication.snapshot.state];
      return sa - sb || (a.r.name < b.r.name ? -1 : a.r.name > b.r.name ? 1 : 0) || ((a.v?.server ?? '') < (b.v?.server ?? '') ? -1 : 1);
    });
  const servers = repositories.reduce((n, r) => n + r.scopes.length, 0);
  const counts = new Map<State, number>();
  for (const { v } of rows) if (v !== null) counts.set(v.publication.snapshot.state, (counts.get(v.publication.snapshot.state) ?? 0) + 1);
  const tally = (['unhealthy', 'unknown', 'warning', 'healthy'] as const)
    .filter((s) => (counts.get(s) ?? 0) > 0)
    .map((s) => `${counts.get(s) ?? 0} ${s}`)
    .join(', ');
  const row = (r: FleetRepositoryView, v: ScopeView) => html`<tr><td><a href="${link(r.name)}"><code>${r.name}</code></a></td>\
<td><a href="${link(r.name)}#server-${v.server}"><code>${v.server}</code></a></td>${serverSummaryCells(v, r.maxArchiveLagSeconds)}</tr>`;
  const heading = html`Fleet: ${repositories.length} repositor${repositories.length === 1 ? 'y' : 'ies'}, \
${servers} server scope${servers === 1 ? '' : 's'}`;
  const body = html`<section aria-labelledby="fleet"><h2 id="fleet">${heading}</h2>
<p>${tally === '' ? 'No server scope is known yet.' : `States: ${tally}.`} The servers that need attention come first. \
States are what the evidence proves, "unknown" where it cannot; each repository is scanned on its own, so one that fails goes stale alone.</p>
<div class="scroll" tabindex="0" role="region" aria-label="Servers of the fleet"><table class="fleet"><thead><tr><th>repository</th><th>server</th>\
${SERVER_SUMMARY_HEADINGS}</tr></thead><tbody>
${rows.map(({ r, v }) => (v === null ? noScopes(r) : row(r, v)))}
</tbody></table></div></section>`;
  return layout('Fleet', ctx, body);
}
