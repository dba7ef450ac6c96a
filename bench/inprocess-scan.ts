/**
 * One process, one scan of a generated corpus through the in-process listing source: the same
 * code `viewer scan` runs after its store driver (scanScope, then the publisher). Prints one JSON
 * line: keys, scan time, keys/s, peak RSS, the heap the scan's evidence and publication retain
 * (heap used after a full collection with them alive, minus the same once they are dropped), and
 * whether the scan equals the generator's truth.
 *
 * Usage: node --expose-gc [--max-old-space-size=N --max-semi-space-size=N] bench/inprocess-scan.ts
 *          <segments> <seed> <concurrency> [lazy|materialized] [barman|pgbackrest]
 *   lazy          the source builds each hash directory's keys when a listing reaches it (flat
 *                 memory: the memory figures)
 *   materialized  every key built before the clock starts (throughput: the keys/s figure)
 *   barman        the barman-cloud corpus (bench/corpus.ts), the default
 *   pgbackrest    the pgBackRest stanza corpus (bench/stanza-corpus.ts) through its format
 */
import { Corpus } from './corpus.ts';
import { StanzaCorpus } from './stanza-corpus.ts';
import { stanzaRepository } from '../src/format/stanza-repository/format.ts';
import { CorpusDriver } from './corpus-driver.ts';
import { publishCorpus } from './corpus-publication.ts';
import { compareTruth } from './truth.ts';

const [segmentsText, seedText, concurrencyText, source = 'lazy', kind = 'barman'] = process.argv.slice(2);
const [segments = NaN, seed = NaN, concurrency = NaN] = [segmentsText, seedText, concurrencyText].map(Number);
if (![segments, seed, concurrency].every(Number.isInteger) || !['lazy', 'materialized'].includes(source) || !['barman', 'pgbackrest'].includes(kind)) {
  process.stderr.write('usage: inprocess-scan.ts <segments> <seed> <concurrency> [lazy|materialized] [barman|pgbackrest]\n');
  process.exit(64);
}
const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) {
  process.stderr.write('inprocess-scan.ts needs --expose-gc\n');
  process.exit(64);
}
// A turn of the event loop first: until then, finished async frames may still hold what the scan
// returned, and the second count would keep it (the retained figure would read too low).
const collect = async () => {
  await new Promise((resolve) => setTimeout(resolve, 10));
  gc();
  gc();
  return process.memoryUsage().heapUsed;
};

const corpus = kind === 'pgbackrest' ? new StanzaCorpus({ root: 'bench-pgbackrest/', stanza: 'main', segments, seed }) : new Corpus({ root: 'bench/main/', segments, seed });
if (source === 'materialized') corpus.materialize();
const driver = new CorpusDriver(corpus);

const scanOnce = () => publishCorpus({ corpus, server: 'main', concurrency, freshnessMs: 15 * 60_000, driver, ...(kind === 'pgbackrest' ? { format: stanzaRepository } : {}) });

type Scan = Awaited<ReturnType<typeof scanOnce>>;
// Only the box refers to the scan's results, so emptying it really drops them before the second count.
const box: { held: Scan | null } = { held: await scanOnce() };
const facts = ((scan: Scan) => ({
  keys: corpus.size,
  listed: scan.listed,
  requests: driver.requests,
  scan_ms: scan.ms,
  scan_cpu_ms: scan.cpuMs,
  keys_per_s: corpus.size / (scan.ms / 1000),
  ranges: scan.publication.walRanges.length,
  gaps: scan.publication.walGaps.length,
  backups: scan.publication.backups.length,
  truth: compareTruth(corpus.truth, { objects: scan.evidence.objectCount, bytes: scan.evidence.storedBytes, walCounts: scan.evidence.walCounts, gaps: scan.publication.walGaps }),
  violations: scan.publication.violations.length,
}))(box.held as Scan);
const withEvidence = await collect();
box.held = null;
const without = await collect();
process.stdout.write(`${JSON.stringify({ ...facts, peak_rss_bytes: process.resourceUsage().maxRSS * 1024, heap_retained_bytes: withEvidence - without })}\n`);
