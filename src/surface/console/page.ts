/**
 * The reference console's page and JSON: what a console shows of its cached projection. Owns the
 * console's words: the source state with its typed reason, the publication with the producer's
 * reasons explained by the library (an unrecognized code keeps its state and gets the generic
 * explanation), each collection or "unknown" where the projection does not know it, and the
 * correlation of the orchestrator's Backup records. Renders only from what it is given.
 */
import type { Collection, CorrelationResult, Projection, SourceStatus } from '../../client/index.ts';
import { explainReason } from '../../client/index.ts';
import { commonSummary } from '../../contract/details-view.ts';
import { html, raw, type Raw } from '../ui/html.ts';
import { STYLE } from '../ui/pages.ts';
import { consoleRestore, type ConsoleRestore, type PassedOver, type PathEnd, type RestoreUnknownReason } from './restore.ts';

export interface ConsoleView {
  /** False when the four repository inputs are not configured. */
  readonly enabled: boolean;
  readonly status: SourceStatus;
  readonly projection: Projection | null;
  /** Null when no target cluster or no Backup records are configured; otherwise one result per record. */
  readonly correlation: readonly CorrelationResult[] | null;
  /** Why the records could not be read this time, if they could not (a fixed word, never a path). */
  readonly recordsProblem: 'unreadable' | 'invalid' | null;
  readonly now: Date;
}

const SOURCE_WORDS: Record<string, string> = {
  'not-yet-polled': 'not polled yet',
  current: 'the projection is the sidecar\'s current publication',
  transport: 'the sidecar could not be reached over its socket',
  timeout: 'the sidecar did not answer in time',
  'token-unreadable': 'the token file could not be read',
  authentication: 'the sidecar refused the token',
  busy: 'the sidecar was busy',
  'schema-incompatible': 'the sidecar answered with bodies this console does not understand',
  'invalid-publication': 'the sidecar\'s publication was invalid or inconsistent',
  'identity-mismatch': 'the sidecar publishes another repository than the one configured',
  'publication-churn': 'the publication changed on every walk',
};

const reasonCell = (r: { code: string; message: string }): Raw => {
  const e = explainReason(r);
  return html`<code>${e.code}</code> ${e.explanation}`;
};

const ageSeconds = (p: Projection, now: Date) => Math.max(0, Math.round((now.getTime() - p.assembledAt.getTime()) / 1000));

function outcomeText(r: CorrelationResult): string {
  const o = r.outcome;
  switch (o.kind) {
    case 'matched':
      return `matched: ${o.backupId}`;
    case 'not-observed':
      return 'repository counterpart not observed';
    case 'ambiguous':
      return `ambiguous: ${o.matches} repository backups claim this id`;
    case 'not-eligible':
      return `not eligible for correlation (${o.reason})`;
    case 'unknown':
      return `unknown (${o.reason})`;
  }
}

function collectionSection<T>(title: string, c: Collection<T>, head: Raw, row: (item: T) => Raw): Raw {
  if (!c.known) return html`<section><h2>${title}</h2><p class="state-unknown">Unknown: the sidecar could not represent this collection within its response limit.</p></section>`;
  const items = c.items;
  return html`<section><h2>${title} (${items.length})</h2>${items.length === 0 ? html`<p>None.</p>` : html`<table><thead>${head}</thead><tbody>${items.map(row)}</tbody></table>`}</section>`;
}

function projectionSections(p: Projection, now: Date): Raw {
  const s = p.snapshot;
  const c = commonSummary(p.details.known ? p.details : null);
  const details = c !== null
    ? html`<p>Format details <code>${p.details.type}</code>: WAL ${c.wal.state}, timelines ${c.timeline.state}, coverage ${c.coverage.state}, retention ${c.retention.state}; latest WAL receipt ${c.latest_archive_receipt_at ?? 'unknown'} (the store's time).</p>`
    : html`<p class="state-unknown">Format details <code>${p.details.type}</code> are not recognized by this console: unknown.</p>`;
  return html`<section><h2>Publication</h2>
<table><tbody>
<tr><th>State</th><td class="state-${s.state}">${s.state}</td><td>${reasonCell(s.reason)}</td></tr>
<tr><th>Revision / generation</th><td colspan="2">${s.revision} / ${s.evidence_generation}</td></tr>
<tr><th>Generation scanned</th><td colspan="2">${s.started_at ?? 'no completed scan'} – ${s.completed_at ?? ''}</td></tr>
<tr><th>Completeness</th><td colspan="2">${s.completeness}${s.stale ? ' (stale)' : ''}</td></tr>
<tr><th>Assembled</th><td colspan="2">${ageSeconds(p, now)} s ago by this console</td></tr>
</tbody></table>${details}</section>
${collectionSection(
  'Backups',
  p.collections.backups,
  html`<tr><th>Backup ID</th><th>Status</th><th>State</th><th>Ended</th><th>Reason</th></tr>`,
  (b) => html`<tr><td><code>${b.backup_id}</code></td><td>${b.status ?? 'unknown'}</td><td class="state-${b.state}">${b.state}</td><td>${b.end_at ?? 'unknown'}</td><td>${reasonCell(b.reason)}</td></tr>`,
)}
${collectionSection(
  'WAL gaps',
  p.collections['wal-gaps'],
  html`<tr><th>Timeline</th><th>First missing</th><th>Last missing</th><th>Segments</th><th>Status</th></tr>`,
  (g) => html`<tr><td>${g.timeline}</td><td><code>${g.first_wal}</code></td><td><code>${g.last_wal}</code></td><td>${g.segment_count}</td><td>${g.status}</td></tr>`,
)}
${collectionSection(
  'Observed recovery coverage',
  p.collections['recovery-paths'],
  html`<tr><th>Backup ID</th><th>Target timeline</th><th>State</th><th>Stop</th><th>Observed WAL reaches</th><th>Received at (store)</th></tr>`,
  (r) => html`<tr><td><code>${r.backup_id}</code></td><td>${r.target_timeline}</td><td class="state-${r.state}">${r.state}</td><td>${r.stop}</td><td><code>${r.frontier_wal ?? 'unknown'}</code></td><td>${r.frontier_receipt_at ?? 'unknown'}</td></tr>`,
)}`;
}

const RESTORE_UNKNOWN_WORDS: Record<RestoreUnknownReason, string> = {
  'not-configured': 'repository evidence is not configured',
  'no-projection': 'no publication has been assembled yet',
  'source-not-current': 'the publication shown is retained, not the sidecar\'s current one',
  'no-completed-scan': 'the sidecar has not completed a scan yet',
  stale: 'the publication is stale, so its evidence may no longer hold',
  incomplete: 'the publication\'s evidence is incomplete',
  'details-unrecognized': 'the format details are not recognized by this console, so it cannot tell whether the evidence was truncated',
  'evidence-truncated': 'the sidecar truncated its WAL ranges or diagnostics, so a path or the newest WAL may be missing from them',
  'collection-unknown': 'not every collection was assembled',
};

/** Where a path ends, in the standalone page's words, with the segments of the gap it stops at. */
function stopPhrase(p: PathEnd): Raw {
  const after = p.frontier_wal === null ? '' : html` after <code>${p.frontier_wal}</code>`;
  const gap = p.gap === null ? '' : html`: ${p.gap.status} gap <code>${p.gap.first_wal}</code>..<code>${p.gap.last_wal}</code> (${p.gap.segment_count} segment${p.gap.segment_count === 1 ? '' : 's'} missing)`;
  switch (p.stop) {
    case 'frontier':
      return html`reaches the newest WAL (frontier)`;
    case 'candidate-limited':
      return html`stops at a candidate gap${after} (candidate-limited)${gap}`;
    case 'unknown-limited':
      return html`stops where the timeline history is unknown${after} (unknown-limited)`;
    case 'gap-limited':
      return p.reason_code === 'standalone-retention-limited'
        ? html`stops at the hole retention leaves after the WAL this backup needs${after} (gap-limited)${gap}`
        : html`stops at missing WAL${after} (gap-limited)${gap}`;
  }
}

function whyNotPhrase(o: PassedOver, timeline: number): Raw {
  switch (o.why) {
    case 'not-usable':
      return html`not structurally usable (<code>${o.reason_code ?? ''}</code>)`;
    case 'no-path':
      return html`no observed recovery path to timeline ${timeline}`;
    case 'stops':
      return o.path === null ? html`its path does not reach the newest WAL` : html`its path ${stopPhrase(o.path)}`;
    case 'path-not-usable':
      return html`its path reaches the newest WAL but is ${o.path?.state ?? 'unknown'} (<code>${o.reason_code ?? ''}</code>)`;
  }
}

/** How many passed-over backups the page names; the JSON and the backups table list every one. */
const PASSED_OVER_SHOWN = 8;

const NONE_WORDS = {
  'no-backup': 'There is no backup.',
  'no-usable-backup': 'No backup is structurally usable.',
} as const;

function restoreSection(r: ConsoleRestore): Raw {
  if (!r.known) {
    const which = r.collections.length === 0 ? '' : html` (unknown: ${r.collections.join(', ')})`;
    return html`<section><h2>Backup to restore from</h2><p class="state-unknown">Unknown: ${RESTORE_UNKNOWN_WORDS[r.reason]}${which} (<code>${r.reason}</code>). Never a guess.</p></section>`;
  }
  const t = r.timeline;
  const shown = r.passed_over.slice(0, PASSED_OVER_SHOWN);
  const more = r.passed_over.length - shown.length;
  const passed = (heading: string) =>
    shown.length === 0 || t === null
      ? ''
      : html`<p>${heading}</p><ul>${shown.map((o) => html`<li><code>${o.backup_id}</code>${o.time_unknown ? ' (time unknown)' : ''}: ${whyNotPhrase(o, t)}</li>`)}${more > 0 ? html`<li>and ${more} more (the backups below list every one)</li>` : ''}</ul>`;
  let body: Raw;
  if (t === null) body = html`<p class="state-unknown">None: no WAL was observed, so no recovery path reaches any.</p>`;
  else if (r.backup !== null) {
    const b = r.backup;
    body = html`<p><code>${b.backup_id}</code>, ended ${b.end_at ?? 'unknown'}, path <span class="state-${b.path.state}">${b.path.state}</span>: the newest structurally usable backup whose observed recovery coverage reaches the newest WAL of timeline ${t} (<code>${b.path.frontier_wal ?? 'unknown'}</code>, received ${b.path.frontier_receipt_at ?? 'at an unknown time'} by the store's clock).</p>${passed('Not a newer one:')}`;
  } else {
    const n = r.none;
    const f = n?.furthest ?? null;
    const why = f !== null
      ? html`The furthest path, from <code>${f.backup_id}</code>, ${stopPhrase(f)}.`
      : n?.reason === 'no-backup' || n?.reason === 'no-usable-backup' ? NONE_WORDS[n.reason] : html`No structurally usable backup has a path to timeline ${t}.`;
    body = html`<p class="state-unhealthy">None: no backup's observed recovery coverage reaches the newest WAL of timeline ${t}. ${why}</p>${passed('Why not each backup:')}`;
  }
  return html`<section><h2>Backup to restore from${t === null ? '' : html` (timeline ${t})`}</h2>${body}<p>Observed recovery coverage from the projection's items, the standalone page's choice; never a promise that a restore works.</p></section>`;
}

function correlationSection(v: ConsoleView): Raw {
  if (v.correlation === null) return raw('');
  const problem = v.recordsProblem === null ? '' : v.recordsProblem === 'unreadable' ? 'The Backup records file could not be read; the last records read are shown.' : 'The Backup records file is not a valid Backup list; the last records read are shown.';
  return html`<section><h2>Orchestrator backups</h2>${problem === '' ? '' : html`<p class="state-warning">${problem}</p>`}
<p>Matched only by the record's <code>status.backupId</code> equal to a repository backup ID, for records of the target cluster (by owner UID) with an object-store method; never by name or time.</p>
${v.correlation.length === 0 ? html`<p>No Backup records.</p>` : html`<table><thead><tr><th>Record</th><th>Repository counterpart</th></tr></thead><tbody>${v.correlation.map((r) => html`<tr><td><code>${r.namespace}/${r.name}</code></td><td>${outcomeText(r)}</td></tr>`)}</tbody></table>`}</section>`;
}

export function consolePage(v: ConsoleView): string {
  const s = v.status;
  const source = v.enabled
    ? html`<p class="state-${s.state === 'available' ? 'healthy' : s.state === 'unavailable' ? 'unhealthy' : 'unknown'}">Repository source: <strong>${s.state}</strong>, ${SOURCE_WORDS[s.reason] ?? s.reason} (<code>${s.reason}</code>) since ${s.since.toISOString()}.</p>
${v.projection === null ? html`<p>No publication has been assembled yet.</p>` : s.state === 'available' ? '' : html`<p>Shown below: the last completely assembled publication, retained.</p>`}`
    : html`<p>Repository evidence is not configured (none of the four <code>REPOSITORY_*</code> inputs is set).</p>`;
  const restore = v.enabled ? restoreSection(consoleRestore(v.enabled, v.status, v.projection)) : '';
  const body = html`<h1>viewer console</h1><p>A reference consumer of the sidecar's evidence API.</p>${source}${restore}${v.projection === null ? '' : projectionSections(v.projection, v.now)}${correlationSection(v)}`;
  return `<!doctype html>\n${html`<html lang="en"><head><meta charset="utf-8"><title>viewer console</title><style>${raw(STYLE)}</style></head><body><main>${body}</main></body></html>`.text}\n`;
}

/**
 * The console's JSON: its source state, the projection, the backup to restore from (`restore`,
 * restore.ts; unknown with its reason whenever the projection cannot stand for the repository now)
 * and the correlation, keys in a fixed order.
 */
export function consoleJson(v: ConsoleView): string {
  const p = v.projection;
  return `${JSON.stringify({
    enabled: v.enabled,
    source: { state: v.status.state, reason: v.status.reason, since: v.status.since.toISOString(), last_poll_at: v.status.lastPollAt?.toISOString() ?? null, restarts: v.status.restarts },
    projection:
      p === null
        ? null
        : { revision: p.revision, evidence_generation: p.evidenceGeneration, assembled_at: p.assembledAt.toISOString(), snapshot: p.snapshot, details: p.details, collections: p.collections },
    restore: consoleRestore(v.enabled, v.status, p),
    correlation: v.correlation,
  })}\n`;
}
