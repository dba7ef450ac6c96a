/**
 * Compares what a scan reported with the corpus generator's truth: the exact object count, the
 * stored bytes, and every missing run (timeline, first and last WAL name). A bench figure is only
 * printed next to a scan that got the archive right.
 */
import type { CorpusTruth } from './corpus.ts';

export interface ScanFacts {
  readonly objects: number | null;
  readonly bytes: number | null;
  readonly gaps: readonly { readonly timeline: number; readonly first_wal: string; readonly last_wal: string }[];
}

/** `'ok'`, or one line naming the first difference. */
export function compareTruth(truth: CorpusTruth, scan: ScanFacts): string {
  if (scan.objects !== truth.objects) return `object count ${String(scan.objects)} != ${truth.objects}`;
  if (scan.bytes !== truth.bytes) return `stored bytes ${String(scan.bytes)} != ${truth.bytes}`;
  const seen = scan.gaps.map((g) => `${g.timeline}:${g.first_wal}-${g.last_wal}`).sort();
  const expected = truth.gaps.map((g) => `${g.timeline}:${g.first}-${g.last}`).sort();
  if (seen.join(',') !== expected.join(',')) return `gaps [${seen.join(', ')}] != [${expected.join(', ')}]`;
  return 'ok';
}
