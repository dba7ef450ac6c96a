/**
 * Timeline history files (`<TLI>.history`): what PostgreSQL's `writeTimeLineHistory` writes at
 * promotion. Each non-comment line is `parentTLI<TAB>switchpoint<TAB>reason`, oldest ancestor
 * first; the last line names the immediate parent and where the new timeline forked from it.
 * The content is untrusted: anything out of shape is a typed failure, never a guess.
 *
 * Rules (Barman `decode_history_file`, made stricter where Barman would accept nonsense):
 * blank lines and lines starting with `#` are skipped; every other line has exactly three
 * tab-separated fields; the parent is a decimal timeline below the file's own; parents strictly
 * increase and switchpoints never decrease from line to line; at least one entry.
 */
import { parseLsn } from './wal.ts';

export interface HistoryEntry {
  readonly parentTimeline: number;
  /** First LSN that belongs to the child rather than to `parentTimeline`. */
  readonly switchpoint: bigint;
}

export type HistoryResult =
  | { readonly ok: true; readonly entries: readonly HistoryEntry[] }
  | { readonly ok: false; readonly reason: HistoryFailure };

export type HistoryFailure = 'history-empty' | 'history-malformed' | 'history-too-large' | 'history-inconsistent';

/** History files grow by one short line per ancestor; 256 KiB is thousands of timelines. */
export const MAX_HISTORY_BYTES = 256 * 1024;

const DECIMAL = /^[1-9][0-9]{0,9}$/;

export function parseTimelineHistory(text: string, timeline: number): HistoryResult {
  if (Buffer.byteLength(text) > MAX_HISTORY_BYTES) return { ok: false, reason: 'history-too-large' };
  const entries: HistoryEntry[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const fields = line.split('\t');
    if (fields.length !== 3) return { ok: false, reason: 'history-malformed' };
    const [parent = '', lsn = ''] = fields;
    const switchpoint = parseLsn(lsn);
    if (!DECIMAL.test(parent) || switchpoint === null) return { ok: false, reason: 'history-malformed' };
    const parentTimeline = Number(parent);
    const previous = entries.at(-1);
    if (parentTimeline >= timeline || (previous !== undefined && (parentTimeline <= previous.parentTimeline || switchpoint < previous.switchpoint))) {
      return { ok: false, reason: 'history-inconsistent' };
    }
    entries.push({ parentTimeline, switchpoint });
  }
  return entries.length === 0 ? { ok: false, reason: 'history-empty' } : { ok: true, entries };
}
