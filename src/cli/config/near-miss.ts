/**
 * Near misses: which known name a mistyped one most likely meant. One rule for every list viewer
 * checks against (environment variables, fleet-file fields, server names beside an empty scope): a
 * name within two edits (insertions, deletions, substitutions, Levenshtein) of a known one.
 */

/** Levenshtein distance, or `limit` once it is certain to reach it. */
export function editDistance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) >= limit) return limit;
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i += 1) {
    const row = [i];
    for (let j = 1; j <= b.length; j += 1) {
      row.push(Math.min((previous[j] ?? limit) + 1, (row[j - 1] ?? limit) + 1, (previous[j - 1] ?? limit) + (a[i - 1] === b[j - 1] ? 0 : 1)));
    }
    if (Math.min(...row) >= limit) return limit;
    previous = row;
  }
  return Math.min(previous[b.length] ?? limit, limit);
}

/** The known names within `maxEdits` of `name` (not `name` itself), nearest first, then by name. */
export function nearMisses(name: string, known: Iterable<string>, maxEdits = 2): string[] {
  const found: [string, number][] = [];
  for (const k of known) {
    if (k === name) continue;
    const d = editDistance(name, k, maxEdits + 1);
    if (d <= maxEdits) found.push([k, d]);
  }
  return found.sort((a, b) => a[1] - b[1] || (a[0] < b[0] ? -1 : 1)).map(([k]) => k);
}
