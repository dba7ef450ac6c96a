/**
 * Barman's retention policy syntax, recognised so an expectation can be compared with evidence:
 * `REDUNDANCY <n>` or `RECOVERY WINDOW OF <n> DAYS|WEEKS|MONTHS` (case-insensitive, as Barman reads
 * its `retention_policy` setting). Anything else is kept as configured but unrecognised, which
 * makes the retention comparison `unknown` rather than guessed.
 */

import type { RetentionPolicy } from '../seam.ts';

export type { RetentionPolicy } from '../seam.ts';

const REDUNDANCY = /^REDUNDANCY\s+([1-9][0-9]{0,5})$/i;
const WINDOW = /^RECOVERY\s+WINDOW\s+OF\s+([1-9][0-9]{0,5})\s+(DAYS?|WEEKS?|MONTHS?)$/i;

/** The recognised policy, or `null` for text Barman's syntax does not cover. */
export function parseRetentionPolicy(text: string): RetentionPolicy | null {
  const r = REDUNDANCY.exec(text.trim());
  if (r !== null) return { kind: 'redundancy', count: Number(r[1]) };
  const w = WINDOW.exec(text.trim());
  if (w === null) return null;
  const unit = (w[2] ?? '').toLowerCase();
  const normalized = unit.startsWith('day') ? 'days' : unit.startsWith('week') ? 'weeks' : 'months';
  return { kind: 'recovery-window', amount: Number(w[1]), unit: normalized };
}
