/**
 * Observed recovery coverage of one scope: its recovery paths by target timeline (the newest
 * timelines, the newest backups' paths; the rest counted), and where a path stops, in words.
 */
import type { RecoveryPathItem } from '../../contract/collections.ts';
import { html, type Raw } from './html.ts';
import { PAGE_BOUNDS, type ScopeView } from './page-context.ts';
import { itemState, when } from './parts.ts';
import { backupRef, retentionOf } from './scope-parts.ts';

/** Where a recovery path ends, in words, with its stop code. */
export function stopPhrase(v: ScopeView, path: RecoveryPathItem): Raw {
  const after = path.frontier_wal === null ? '' : html` after <code>${path.frontier_wal}</code>`;
  switch (path.stop) {
    case 'frontier':
      return html`reaches the newest WAL (frontier)`;
    case 'candidate-limited':
      return html`stops at a candidate gap${after} (candidate-limited)`;
    case 'unknown-limited':
      return html`stops where the timeline history is unknown${after} (unknown-limited)`;
    case 'gap-limited':
      return path.reason.code === 'standalone-retention-limited'
        ? html`stops at the hole ${retentionOf(v)} leaves after the WAL this backup needs${after} (gap-limited)`
        : html`stops at missing WAL${after} (gap-limited)`;
  }
}

const HEADINGS = html`<tr><th>backup</th><th>state</th><th>stop</th><th>from</th><th>covered up to</th><th>at least from</th><th>reason</th></tr>`;

function pathRow(v: ScopeView, r: RecoveryPathItem, retained: boolean): Raw {
  return html`<tr><td>${backupRef(v, r.backup_id)}</td><td>${itemState(r.state, retained)}</td><td>${r.stop}</td>\
<td><code>${r.start_wal ?? '-'}</code></td><td><code>${r.frontier_wal ?? '-'}</code></td><td>${when(r.lower_bound_at)}</td>\
<td>${r.reason.message}</td></tr>`;
}

/** One table per target timeline, the newest last. */
export function coverage(v: ScopeView, retained: boolean): Raw {
  const paths = v.publication.recoveryPaths;
  if (paths.length === 0) return html`<p class="muted">No completed backup, so no recovery path.</p>`;
  const byTarget = new Map<number, RecoveryPathItem[]>();
  for (const r of paths) {
    const list = byTarget.get(r.target_timeline);
    if (list === undefined) byTarget.set(r.target_timeline, [r]);
    else list.push(r);
  }
  const targets = [...byTarget.keys()].sort((a, b) => a - b);
  const shown = targets.slice(-PAGE_BOUNDS.targets);
  const older = targets.length - shown.length;
  const olderNote = older > 0
    ? html`<p class="muted">Coverage to the ${shown.length} newest timelines; ${older} older target timelines are not listed here.</p>`
    : '';
  return html`${olderNote}${shown.map((t) => {
    const list = byTarget.get(t) ?? [];
    // Paths come sorted by backup id, which is the backup's start time: the newest are last.
    const rows = list.slice(-PAGE_BOUNDS.pathsPerTarget);
    const fewer = list.length > rows.length ? html`<p class="muted">The ${rows.length} newest of ${list.length} paths.</p>` : '';
    return html`<h3>Observed recovery coverage to timeline ${t}</h3>${fewer}
<div class="scroll" tabindex="0" role="region" aria-label="Observed recovery coverage to timeline ${t}"><table><thead>${HEADINGS}</thead><tbody>
${rows.map((r) => pathRow(v, r, retained))}
</tbody></table></div>`;
  })}`;
}
