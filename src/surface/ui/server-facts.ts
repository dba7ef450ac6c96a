/**
 * One server's facts beside its top answers: the repository's tool and format, the format's own
 * facts (its `facts(details)` view model, rendered whatever the format), the generation and scan
 * times, the store's clock, the last attempt, safety limits, totals, the scope's states with their
 * reasons, and the operator's expectations (retention, minimum redundancy, archive lag) each with
 * the verdict about it.
 */
import type { FactValue, FormatFacts } from '../../format/seam.ts';
import { detailsView } from '../../publication/details.ts';
import { html, type Raw } from './html.ts';
import type { PageContext, PageFormat, ScopeView } from './page-context.ts';
import { bytes, count, state, when } from './parts.ts';
import { durationText } from './restore-choice.ts';

const UNKNOWN = html`<span class="muted">unknown</span>`;

/** One of a format's own values: a count, counts by kind, yes or no, or a state with its reason. */
export function factValue(f: FactValue): Raw {
  switch (f.kind) {
    case 'count':
      return count(f.value);
    case 'counts':
      return f.parts === null ? count(null) : html`${f.parts.map((p, i) => html`${i > 0 ? ', ' : ''}${count(p.count)} ${p.unit}`)}`;
    case 'flag':
      return f.value === null ? UNKNOWN : html`${f.value ? 'yes' : 'no'}`;
    case 'state':
      return html`${state(f.value.state)} ${f.value.reason.message}`;
  }
}

/** The format's own facts beside the common ones, one labelled row each; nothing when it has none. */
export function formatFacts(facts: FormatFacts | null): Raw {
  if (facts === null) return html``;
  return html`${facts.page.map((r, i) => html`${i > 0 ? '\n' : ''}<span>${r.label}</span><span>${factValue(r.value)}</span>`)}`;
}

/** Retention reasons by the expectation they are about; the others concern every expectation configured. */
const POLICY_REASONS = new Set(['retention-policy-unrecognized', 'redundancy-policy-not-met', 'recovery-window-not-covered']);
const MINIMUM_REASONS = new Set(['minimum-redundancy-not-met']);

function expectations(v: ScopeView, ctx: PageContext): Raw {
  const d = detailsView(v.publication.snapshot.details);
  const r = d.retention;
  const verdict = (about: ReadonlySet<string>, other: ReadonlySet<string>) =>
    about.has(r.reason.code) || (!other.has(r.reason.code) && r.reason.code !== 'no-expectation-configured')
      ? html` ${state(r.state)} ${r.reason.message}`
      : '';
  const policy = ctx.retentionPolicy === null ? html`not configured` : html`${ctx.retentionPolicy}${verdict(POLICY_REASONS, MINIMUM_REASONS)}`;
  const minimum = ctx.minimumRedundancy === null
    ? html`not configured`
    : html`${ctx.minimumRedundancy} expected, ${count(d.structurallyUsable)} structurally usable${verdict(MINIMUM_REASONS, POLICY_REASONS)}`;
  return html`<span>Expected retention</span><span>${policy}</span>
<span>Minimum redundancy</span><span>${minimum}</span>
<span>Maximum archive lag</span><span>${ctx.maxArchiveLagSeconds === null ? 'not configured' : durationText(ctx.maxArchiveLagSeconds)}</span>`;
}

/** The facts grid of one server; `format` is the repository's (null: no own facts are shown). */
export function serverFacts(v: ScopeView, ctx: PageContext, format: PageFormat | null): Raw {
  const s = v.publication.snapshot;
  const d = detailsView(s.details);
  const limits = [
    d.rangesTruncated ? 'WAL ranges' : '',
    d.diagnosticsTruncated ? 'diagnostics' : '',
    s.inventory.last_failure_category === 'safety_limit' ? 'scan budget' : '',
  ].filter(Boolean);
  const tool = v.tool ?? html`<span class="muted">unknown until a scan completes</span>`;
  const clock = v.clock === null
    ? when(null)
    : v.clock.storeTimeAtScan === null ? html`<span class="muted">not sent by the store</span>` : when(v.clock.storeTimeAtScan);
  const failure = s.inventory.last_failure_category;
  const detail = failure === null ? null : (ctx.failureDetail?.(v.server) ?? null);
  const attempt = html`${when(s.last_attempt_at)}${failure === null ? '' : html` — failed: ${failure}${detail === null ? '' : ` (${detail})`}`}`;
  return html`<div class="facts">
<span>Repository</span><span>${tool} (<code>${s.identity.repository.format}</code>)</span>
${formatFacts(format?.facts(s.details) ?? null)}
<span>Generation</span><span>${s.evidence_generation} (revision ${s.revision}), ${s.completeness}${s.stale ? ', stale' : ''}</span>
<span>Scan started</span><span>${when(s.started_at)}</span><span>Scan completed</span><span>${when(s.completed_at)}</span>
<span>Store's clock at the scan</span><span>${clock}</span>
<span>Last attempt</span><span>${attempt}</span>
<span>Safety limits reached</span><span>${limits.length === 0 ? 'none' : limits.join(', ')}</span>
<span>Objects</span><span>${count(s.inventory.object_count)}</span><span>Stored bytes</span><span>${bytes(s.inventory.stored_bytes)}</span>
<span>WAL continuity</span><span>${state(d.wal.state)} ${d.wal.reason.message}</span>
<span>Timelines</span><span>${state(d.timeline.state)} ${d.timeline.reason.message}</span>
<span>Observed recovery coverage</span><span>${state(d.coverage.state)} ${d.coverage.reason.message}</span>
${expectations(v, ctx)}
</div>`;
}
