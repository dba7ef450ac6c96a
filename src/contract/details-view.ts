/**
 * The one format-neutral reading of a snapshot's `details`: the fields every payload shares (the
 * spec's archive_cloud summary), whichever format wrote them. Everything that is not a format's own
 * code reads `details` through here (the publication's view, the invariants, the metrics, the text
 * summary, the pages, the consumer's page), so a second payload needs no reader of its own, and a
 * payload is named by its key only in the contract's definitions (`DETAILS_PAYLOADS`).
 *
 * A type this contract does not define reads as `null` (Versioning rule 4): a caller that met one
 * treats the format details as unknown. The consumer library recognizes only `archive-cloud` and
 * never hands another type here.
 */
import type { Reason } from './primitives.ts';
import type { CommonSummary, Details, StanzaRepositorySummary } from './snapshot.ts';
import { COMMON_SUMMARY_FIELDS, DETAILS_PAYLOADS } from './values.ts';

export type { CommonSummary } from './snapshot.ts';

/** The payload object of a details value of a known type, untyped beyond its common fields. */
function payloadOf(details: Details): (CommonSummary & Record<string, unknown>) | null {
  if (!Object.hasOwn(DETAILS_PAYLOADS, details.type)) return null;
  const key = DETAILS_PAYLOADS[details.type].key;
  const payload = (details as unknown as Record<string, unknown>)[key];
  return typeof payload === 'object' && payload !== null ? (payload as CommonSummary & Record<string, unknown>) : null;
}

/**
 * The fields both payloads share, as a new object holding exactly them; `null` for an absent
 * details value or a type this contract does not define.
 */
export function commonSummary(details: Details | null | undefined): CommonSummary | null {
  if (details === null || details === undefined) return null;
  const payload = payloadOf(details);
  if (payload === null) return null;
  return Object.fromEntries(COMMON_SUMMARY_FIELDS.map((f) => [f, payload[f]])) as CommonSummary;
}

/** `commonSummary` where the caller holds only details it produced or validated: an unknown type is a bug. */
export function requireCommonSummary(details: Details): CommonSummary {
  const summary = commonSummary(details);
  if (summary === null) throw new TypeError('details of a type the contract does not define');
  return summary;
}

/** The JSON Pointer of a details value's payload (`/details/<key>`), for violations; null for an unknown type. */
export function payloadPointer(details: Details): string | null {
  return Object.hasOwn(DETAILS_PAYLOADS, details.type) ? `/details/${DETAILS_PAYLOADS[details.type].key}` : null;
}

/** The pgBackRest facts beside the common summary (D-72); null for any other type. */
export function stanzaRepositoryFacts(
  details: Details | null | undefined,
): Pick<StanzaRepositorySummary, 'backup_types' | 'dependency_chain' | 'encrypted' | 'interrupted_backups'> | null {
  if (details?.type !== 'stanza-repository/v1alpha1') return null;
  const { backup_types, dependency_chain, encrypted, interrupted_backups } = details.stanza_repository;
  return { backup_types, dependency_chain, encrypted, interrupted_backups };
}

/**
 * Retained details with every current-evidence state of its payload (`DETAILS_PAYLOADS[type].states`)
 * made `unknown` with `reason`, and, when given, the truncation flags of the attempt: the details of
 * a stale or failed publication (D-12). Every other field, the format's own included, is kept.
 */
export function withStatesUnknown(details: Details, reason: Reason, truncated?: { readonly ranges: boolean; readonly diagnostics: boolean }): Details {
  const entry: { readonly key: string; readonly states: readonly string[] } | undefined = Object.hasOwn(DETAILS_PAYLOADS, details.type)
    ? DETAILS_PAYLOADS[details.type]
    : undefined;
  const payload = payloadOf(details);
  if (entry === undefined || payload === null) throw new TypeError('details of a type the contract does not define');
  const out: Record<string, unknown> = { ...payload };
  for (const state of entry.states) out[state] = { ...(payload[state] as object), state: 'unknown', reason };
  if (truncated !== undefined) {
    out['ranges_truncated'] = truncated.ranges;
    out['diagnostics_truncated'] = truncated.diagnostics;
  }
  return { type: details.type, [entry.key]: out } as unknown as Details;
}
