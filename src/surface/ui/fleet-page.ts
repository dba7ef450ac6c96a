/**
 * The fleet page (`/` with FLEET_FILE): every repository of the fleet file and each of its servers
 * on one row (repository, server, state with its reason code, newest backup, archive lag, WAL gaps,
 * coverage), the worst first, each linking to that repository's inventory (`/?repository=NAME`).
 * A repository without a known server says why (discovery pending or failed), never "0 servers".
 */
import type { State } from '../../contract/primitives.ts';
import { html, type Raw } from './html.ts';
import { layout, SERVER_SUMMARY_HEADINGS, serverSummaryCells, type DestinationFacts, type PageContext, type ScopeView } from './pages.ts';

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
  const why = d === null ? 'no server is configured' : d.discoveryPending ? 'discovery in progress' : d.discoveryFailure !== null ? `discovery failed (${d.discoveryFailure})` : 'no server found under the destination';
  return html`<tr><td><a href="${link(r.name)}"><code>${r.name}</code></a></td><td><span class="muted">none known</span></td><td colspan="5"><span class="muted">${why}</span></td></tr>`;
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
  const tally = (['unhealthy', 'unknown', 'warning', 'healthy'] as const).filter((s) => (counts.get(s) ?? 0) > 0).map((s) => `${counts.get(s) ?? 0} ${s}`).join(', ');
  const body = html`<section aria-labelledby="fleet"><h2 id="fleet">Fleet: ${repositories.length} repositor${repositories.length === 1 ? 'y' : 'ies'}, ${servers} server scope${servers === 1 ? '' : 's'}</h2>
<p>${tally === '' ? 'No server scope is known yet.' : `States: ${tally}.`} The servers that need attention come first. States are what the evidence proves, "unknown" where it cannot; each repository is scanned on its own, so one that fails goes stale alone.</p>
<div class="scroll" tabindex="0" role="region" aria-label="Servers of the fleet"><table class="fleet"><thead><tr><th>repository</th><th>server</th>${SERVER_SUMMARY_HEADINGS}</tr></thead><tbody>
${rows.map(({ r, v }) => (v === null ? noScopes(r) : html`<tr><td><a href="${link(r.name)}"><code>${r.name}</code></a></td><td><a href="${link(r.name)}#server-${v.server}"><code>${v.server}</code></a></td>${serverSummaryCells(v, r.maxArchiveLagSeconds)}</tr>`))}
</tbody></table></div></section>`;
  return layout('Fleet', ctx, body);
}
