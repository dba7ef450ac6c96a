/**
 * What the inventory says of the destination beside its server scopes: a failed discovery with
 * what its category most often means, another registered format recognised there (worded from
 * that format's layout in the registry, against the repository's own format), and the objects
 * that belong to no scope.
 */
import type { FailureCategory } from '../../contract/primitives.ts';
import { formatById } from '../../format/registry.ts';
import type { ForeignFormat } from '../../format/seam.ts';
import { html, type Raw } from './html.ts';
import type { DestinationFacts, PageFormat } from './page-context.ts';
import { count } from './parts.ts';

/** What a discovery failure's category most often means at a destination. */
const DISCOVERY_FAILURES: Record<FailureCategory, string> = {
  not_found: 'the bucket or container does not exist; check DESTINATION_PATH',
  authentication: 'the store did not accept the credentials',
  authorization: 'the credentials may not list the destination',
  unavailable: 'the store could not be reached or answered with an error',
  timeout: 'listing the destination took too long',
  throttled: 'the store throttled the listing',
  safety_limit: 'the destination holds more than discovery lists',
  incompatible_format: 'the destination does not hold this repository format',
  invalid_configuration: 'the destination is not configured correctly',
  canceled: 'the listing was canceled',
};

/** Folder names as code, `x/`, joined as a sentence says them ("a, b and c"). */
function folders(names: readonly string[]): Raw {
  return html`${names.map((n, i) => html`${i === 0 ? '' : i === names.length - 1 ? ' and ' : ', '}<code>${n}/</code>`)}`;
}

/**
 * The notice that the destination holds another registered format (D-60): what that format is
 * called and its REPOSITORY_FORMAT value, then which of its folders the repository's own format
 * does not read as its scopes.
 */
export function foreignNotice(foreign: ForeignFormat, own: PageFormat | null): Raw {
  const other = formatById(foreign);
  const described = other?.layout.describedAs ?? 'another repository format';
  const what = html`${described} (REPOSITORY_FORMAT=${foreign})${own === null ? '' : `, not ${own.id}`}`;
  const scopes = `${own?.layout.scopeNoun ?? 'server'}s`;
  const areas = other?.layout.rootAreas ?? [];
  const inner = other?.layout.scopeAreas ?? [];
  const where = areas.length > 0
    ? html`its ${folders(areas)} area${areas.length === 1 ? ' is' : 's are'}`
    : inner.length > 0 ? html`its folders holding ${folders(inner)} are` : html`its folders are`;
  return html`<p class="notice">The destination looks like ${what} (incompatible_format): ${where} not read as ${scopes}.</p>`;
}

function discoveryFailed(d: DestinationFacts, category: FailureCategory, scopes: number): Raw {
  const detail = d.discoveryFailureDetail == null ? '' : `: ${d.discoveryFailureDetail}`;
  const known = scopes === 0
    ? 'No server scope is known, so nothing below is evidence of an empty destination.'
    : 'The server scopes below are those an earlier discovery found.';
  return html`<p class="notice error" role="alert"><strong>Discovery failed (${category}${detail}):</strong> \
${DISCOVERY_FAILURES[category]}. ${known} Discovery is retried every refresh interval.</p>`;
}

/** The destination's notes; nothing with a configured list of servers (`d` null). */
export function destinationNotes(d: DestinationFacts | null, scopes: number, format: PageFormat | null): Raw {
  if (d === null) return html``;
  return html`${d.discoveryFailure === null ? '' : discoveryFailed(d, d.discoveryFailure, scopes)}
${d.foreignFormat === null ? '' : foreignNotice(d.foreignFormat, format)}
<p>Objects under the destination that belong to no server scope: ${count(d.unscopedObjects)}.</p>`;
}
