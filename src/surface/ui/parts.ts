/**
 * Small pieces of HTML every standalone page uses: a time as the store stamped it, a count that
 * may be unknown (never shown as 0), a byte count in binary units with the exact bytes in its
 * `title`, and a state badge (marked as retained evidence while a publication is stale).
 */
import { bytesText } from './glance.ts';
import { html, type Raw } from './html.ts';

/** A timestamp (RFC 3339) as `2026-11-20 05:20:00Z`, machine-readable in `datetime`; "unknown" for null. */
export const when = (t: string | null): Raw => (t === null ? html`<span class="muted">unknown</span>` : html`<time datetime="${t}">${t.replace('T', ' ').replace(/\.\d+Z$/, 'Z')}</time>`);

/** A count with separators; "unknown" for null, never 0. */
export const count = (n: number | null): Raw => (n === null ? html`<span class="muted">unknown</span>` : html`${n.toLocaleString('en-US')}`);

/** Bytes in KiB/MiB/GiB, the exact count in the title; "unknown" for null. */
export function bytes(n: number | null): Raw {
  if (n === null) return html`<span class="muted">unknown</span>`;
  const b = bytesText(n);
  return html`<span class="bytes" title="${b.exact}">${b.text}</span>`;
}

/** A state as a badge. */
export const state = (s: string): Raw => html`<span class="state ${s}">${s}</span>`;

/** An item's state; while the publication is stale or incomplete it is retained evidence, not current health. */
export const itemState = (s: string, retained: boolean): Raw =>
  retained ? html`<span class="state retained" title="retained historical evidence, not current health">${s} (retained)</span>` : state(s);
