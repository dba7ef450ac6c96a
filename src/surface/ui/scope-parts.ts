/**
 * Small pieces of one scope's sections, shared by them: whether its evidence is retained, which
 * gaps have its retention's shape and how a gap is named, and a backup as operators know it (its
 * id, breakable where long, with the name and keep status its format's tools list).
 */
import type { WalGapItem } from '../../contract/collections.ts';
import { html, raw, type Raw } from './html.ts';
import { gapKey, type ScopeView } from './page-context.ts';

/** Stale, or no complete generation: what the page lists is historical evidence. */
export const retainedOf = (v: ScopeView): boolean => v.publication.snapshot.stale || v.publication.snapshot.completeness !== 'complete';

export const isRetentionGap = (v: ScopeView, g: WalGapItem): boolean => v.retentionGaps.has(gapKey(g));

/** "<tool>'s retention" with the scope's own tool, or plain "retention" before a scan. */
export const retentionOf = (v: ScopeView): string => (v.tool === null ? 'retention' : `${v.tool}'s retention`);

export const gapLabel = (v: ScopeView, g: WalGapItem): string =>
  isRetentionGap(v, g) ? `${g.status} gap with the shape ${retentionOf(v)} leaves (expected)` : `${g.status} gap`;

/** A backup id that may break after each `_` (a label of several parts); others never break. */
export const idText = (id: string): Raw =>
  id.includes('_')
    ? html`<code class="id">${id.split(/(?<=_)/).map((part, i) => html`${i > 0 ? raw('<wbr>') : ''}${part}`)}</code>`
    : html`<code>${id}</code>`;

/** A backup as operators know it: its id, and the name and keep status its format's tools list. */
export function backupRef(v: ScopeView, id: string): Raw {
  const l = v.labels.get(id);
  const name = l?.name == null ? '' : html` <span class="label" title="backup name">${l.name}</span>`;
  const keep = l?.keep == null ? '' : html` <span class="muted">keep:${l.keep}</span>`;
  return html`<code>${id}</code>${name}${keep}`;
}
