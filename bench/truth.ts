/**
 * Compares what a scan reported with the corpus generator's truth: the exact object count, the
 * stored bytes, the WAL class counts (every segment taken as one, none judged implausible by its
 * size) and every missing run (timeline, first and last WAL name). A bench figure is only printed
 * next to a scan that got the archive right.
 */
import type { CorpusTruth } from './corpus.ts';
import type { WalCounts } from '../src/evidence/wal-archive.ts';

export interface ScanFacts {
  readonly objects: number | null;
  readonly bytes: number | null;
  readonly walCounts: WalCounts | null;
  readonly gaps: readonly { readonly timeline: number; readonly first_wal: string; readonly last_wal: string }[];
}

/** `'ok'`, or one line naming the first difference. */
export function compareTruth(truth: CorpusTruth, scan: ScanFacts): string {
  if (scan.objects !== truth.objects) return `object count ${String(scan.objects)} != ${truth.objects}`;
  if (scan.bytes !== truth.bytes) return `stored bytes ${String(scan.bytes)} != ${truth.bytes}`;
  for (const k of Object.keys(truth.walCounts) as (keyof WalCounts)[]) {
    if (scan.walCounts?.[k] !== truth.walCounts[k]) return `WAL ${k} count ${String(scan.walCounts?.[k] ?? null)} != ${truth.walCounts[k]}`;
  }
  const seen = scan.gaps.map((g) => `${g.timeline}:${g.first_wal}-${g.last_wal}`).sort();
  const expected = truth.gaps.map((g) => `${g.timeline}:${g.first}-${g.last}`).sort();
  if (seen.join(',') !== expected.join(',')) return `gaps [${seen.join(', ')}] != [${expected.join(', ')}]`;
  return 'ok';
}
