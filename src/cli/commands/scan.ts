/**
 * `viewer scan`: one scan of one scope with the configured environment. With `--output json` (the
 * default) prints one JSON document on stdout, `{"snapshot", "backups", "wal_ranges", "wal_gaps",
 * "recovery_paths", "observations"}`: the first five exactly as the API serves them, and beside
 * them what the closed v1alpha1 wire has no room for (`observations`: each gap's class, D-61), null
 * when no scan completed. With `--output openmetrics` prints the same publication as OpenMetrics
 * text (`metrics/openmetrics.ts`, the series a consumer console also serves); with `--output
 * text` a short human summary (`scan-text.ts`). Progress on
 * stderr when it is a terminal. Exits `EXIT.ok` on a complete scan, `EXIT.failed` naming the
 * failure category otherwise, `EXIT.degraded` after a complete scan whose scope state is at or
 * beyond `--fail-on` (healthy < warning < unknown < unhealthy, viewer's severity order),
 * `EXIT.usage` without exactly one scope and `EXIT.internal` when the publication fails its own
 * validation.
 */
import { categoryOf, detailOf, failureDetail, formatDetail, type FailureDetail } from '../../common/errors.ts';
import { BudgetMeter } from '../../evidence/listing.ts';
import { memoryDocument } from '../../evidence/memory.ts';
import type { ScopeEvidence } from '../../evidence/scope-scan.ts';
import { archiveLagSeconds } from '../../evidence/summary.ts';
import { writeFileAtomic } from '../../publication/atomic-file.ts';
import type { Publication } from '../../publication/publisher.ts';
import type { State } from '../../contract/primitives.ts';
import { confine } from '../../store/confined.ts';
import type { Config, MetricsLabel } from '../config/config.ts';
import { EXIT, type ExitCode } from '../exit-codes.ts';
import { loadPreviousScan, type Continuation, type PreviousObservations } from '../previous-scan.ts';
import { scanText, type TextFacts } from './scan-text.ts';
import { publicationMetricScope } from '../publication-metrics.ts';
import { scanBudget, wireScope } from '../scope-wiring.ts';
import { createDriver } from '../store-factory.ts';
import { emptyScopeHints } from './empty-scope.ts';

/** `--fail-on`: the least severe scope state that makes a complete scan exit `EXIT.degraded`. */
export type FailOnLevel = Exclude<State, 'healthy'>;

/** viewer's severity order (as in evidence/summary.ts): unknown ranks above warning. */
const SEVERITY: Readonly<Record<State, number>> = { healthy: 0, warning: 1, unknown: 2, unhealthy: 3 };

/** Whether a scope state is at or beyond a `--fail-on` level. */
export const atOrBeyond = (state: State, level: FailOnLevel): boolean => SEVERITY[state] >= SEVERITY[level];

/** What `viewer scan` prints: the JSON document below, the publication's OpenMetrics text, or a short human summary. */
export type ScanOutput = 'json' | 'openmetrics' | 'text';

const isoOrNull = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/**
 * What the scan knows beside the wire items (not part of any wire kind; their schema is
 * `ScanObservations`, evidence/memory-schema.ts): each gap's class (D-61), archive freshness on the
 * store's clock (the store's time at the scan, the newest WAL's age by it, and the configured
 * expectation, docs/design/evidence.md §Archive freshness), and the memory the generation hands on
 * (the memory module's document, D-80), which `--previous` reads back.
 */
function observations(e: ScopeEvidence | null, expectedMaxArchiveLagSeconds: number | null): PreviousObservations | null {
  if (e === null) return null;
  return {
    wal_gap_classes: e.gaps.map((g, i) => ({ timeline: g.timeline, start_position: g.start_position, class: e.gapClasses[i] ?? 'unexplained' })),
    store_time_at_scan: isoOrNull(e.storeTimeAtScan),
    newest_wal_received_at: isoOrNull(e.latestWalReceipt),
    archive_lag_seconds: archiveLagSeconds(e),
    expected_max_archive_lag_seconds: expectedMaxArchiveLagSeconds,
    memory: memoryDocument(e.memory),
  };
}

/** The store-clock facts the text summary needs beside the wire items, and the scope's format for its own facts. */
export function textFacts(e: ScopeEvidence | null, expectedMaxArchiveLagSeconds: number | null, format: TextFacts['format']): TextFacts {
  return {
    storeTimeAtScan: e?.storeTimeAtScan ?? null,
    newestWalReceipt: e?.latestWalReceipt ?? null,
    archiveLagSeconds: e === null ? null : archiveLagSeconds(e),
    expectedMaxArchiveLagSeconds,
    retentionExpectedGaps: e?.gapClasses.filter((c) => c === 'retention-expected').length ?? 0,
    tool: e?.tool ?? null,
    earliestReceipt: e?.earliestReceipt ?? null,
    format,
  };
}

/**
 * The JSON document. A resumed run whose attempt failed has no evidence of its own: it prints the
 * observations carried from the previous document with the retained items, so the chain goes on.
 */
export function scanDocument(p: Publication, evidence: ScopeEvidence | null, expectedMaxArchiveLagSeconds: number | null = null, carried: PreviousObservations | null = null): string {
  return JSON.stringify({
    snapshot: JSON.parse(p.snapshotJson) as unknown,
    backups: p.backups,
    wal_ranges: p.walRanges,
    wal_gaps: p.walGaps,
    recovery_paths: p.recoveryPaths,
    observations: evidence === null && p.generation > 0 ? carried : observations(evidence, expectedMaxArchiveLagSeconds),
  });
}

/** The publication as OpenMetrics text (`publication-metrics.ts` says what is known before a complete scan). */
export async function scanMetrics(p: Publication, evidence: ScopeEvidence | null, attemptSeconds: number, expectedMaxArchiveLagSeconds: number | null, labels: readonly MetricsLabel[] = []): Promise<string> {
  // Loaded only for this output: prom-client is no cost of the JSON document.
  const { renderOpenMetrics } = await import('../../metrics/openmetrics.ts');
  return renderOpenMetrics([publicationMetricScope(p, evidence, { expectedMaxArchiveLagSeconds, attemptSeconds })], { labels });
}

export interface ScanOptions {
  readonly output: ScanOutput;
  /** `--previous FILE`: the JSON document of the previous run, continued exactly (generation, gap memory). */
  readonly previous: string | null;
  /** `--save FILE`: the JSON document is also written there (replaced atomically), whatever `output` prints. */
  readonly save?: string | null;
  /** `--fail-on LEVEL`: exit `EXIT.degraded` when the scope's state is at or beyond LEVEL; null or absent: never. */
  readonly failOn?: FailOnLevel | null;
}

export async function runScan(config: Config, signal: AbortSignal, options: ScanOptions = { output: 'json', previous: null }): Promise<ExitCode> {
  const { output, previous } = options;
  const save = options.save ?? null;
  const destination = config.destination;
  const server = config.mode === 'sidecar' ? config.serverName : config.serverNames?.length === 1 ? config.serverNames[0] : undefined;
  if (config.mode === 'standalone' && config.fleetFile !== null) {
    process.stderr.write('viewer: scan reads one repository: unset FLEET_FILE (standalone\'s) and set DESTINATION_PATH and one ARCHIVE_SERVER_NAMES entry\n');
    return EXIT.usage;
  }
  if (destination === null || server === undefined) {
    process.stderr.write('viewer: scan needs DESTINATION_PATH and exactly one ARCHIVE_SERVER_NAMES entry\n');
    return EXIT.usage;
  }
  const scope = wireScope(config, { server, destination, endpointUrl: config.endpointUrl });
  const publisher = scope.publisher;
  let continuation: Continuation | null = null;
  if (previous !== null) {
    const r = publisher.current.snapshot.identity.repository;
    const read = await loadPreviousScan(previous, { fingerprint: r.destination_fingerprint, server: r.scope.name, provider: r.provider, format: r.format });
    if (!read.ok) {
      process.stderr.write(`viewer: scan --previous refused: ${read.reason}\n`);
      return EXIT.config;
    }
    continuation = read.continuation;
    publisher.resume(continuation);
  }
  const meter = new BudgetMeter(scanBudget(config));
  const startedAt = new Date();
  const deadline = AbortSignal.any([signal, AbortSignal.timeout(config.scan.timeoutSeconds * 1000)]);
  // Every listing of the scan charges the one meter: the line counts what the scan really listed,
  // and its last state is printed when the scan ends (a scan shorter than one tick shows it too).
  const showProgress = () => process.stderr.write(`\rviewer: listed ${meter.pages} pages, ${meter.objects} objects`);
  const progress = process.stderr.isTTY ? setInterval(showProgress, 250) : null;
  let publication: Publication;
  let failure: string | null = null;
  let detail: FailureDetail | null = null;
  let hints: string[] = [];
  let finishedAt: Date;
  try {
    const raw = await createDriver(config);
    const driver = confine(raw, scope.roots);
    try {
      const evidence = await scope.scan(driver)(deadline, publisher.nextScan, meter);
      finishedAt = new Date();
      publication = publisher.complete(evidence, { startedAt, finishedAt, pages: meter.pages, objects: meter.objects });
      if (publication.snapshot.inventory.last_failure_category !== null) failure = publication.snapshot.inventory.last_failure_category;
      // An empty scope is a wrong prefix or server more often than an empty repository: a few
      // listings beside it say which (empty-scope.ts; this terminal only).
      if (publication.snapshot.reason.code === 'scope-empty') hints = await emptyScopeHints(raw, { format: scope.format, destination, server }, deadline);
    } finally {
      driver.close();
    }
  } catch (error) {
    const timedOut = deadline.aborted && !signal.aborted;
    const category = timedOut ? 'timeout' : categoryOf(error);
    detail = timedOut ? failureDetail({ localCause: `the scan reached SCAN_TIMEOUT_SECONDS (${config.scan.timeoutSeconds} s)` }) : detailOf(error);
    finishedAt = new Date();
    publication = publisher.fail(category, { startedAt, finishedAt, pages: meter.pages, objects: meter.objects });
    failure = category;
  } finally {
    if (progress !== null) {
      clearInterval(progress);
      showProgress();
      process.stderr.write('\n');
    }
  }
  if (publication.violations.length > 0) {
    process.stderr.write(`viewer: scan produced an invalid publication (${publication.violations.length} violations)\n`);
    return EXIT.internal;
  }
  const evidence = publication.generation > 0 ? publisher.evidence : null;
  const expectedLag = config.retention.maxArchiveLagSeconds;
  // The JSON document only where it is written: --output json, or --save.
  const document = output === 'json' || save !== null ? `${scanDocument(publication, evidence, expectedLag, continuation?.observations ?? null)}\n` : '';
  if (save !== null) {
    // Written beside the file, flushed and renamed (atomic-file.ts): a reader (the next run's
    // --previous) never sees half a document. Saved before anything is printed, so a refused save
    // prints nothing (exit 78).
    try {
      await writeFileAtomic(save, document, 0o600);
    } catch (error) {
      process.stderr.write(`viewer: scan --save could not write its file (${(error as NodeJS.ErrnoException).code ?? 'error'})\n`);
      return EXIT.config;
    }
  }
  if (output === 'openmetrics') process.stdout.write(await scanMetrics(publication, evidence, (finishedAt.getTime() - startedAt.getTime()) / 1000, expectedLag, config.metricsLabels));
  else if (output === 'text') process.stdout.write(scanText(publication, textFacts(evidence, expectedLag, scope.format)));
  else process.stdout.write(document);
  for (const line of hints) process.stderr.write(`viewer: ${line}\n`);
  if (failure !== null) {
    process.stderr.write(`viewer: scan failed: ${failure}\n`);
    // One line that points at the cause (issue 26): the SDK's error name, the HTTP status, the
    // endpoint, or what failed here. Never provider text, a secret or a key.
    const text = formatDetail(detail);
    if (text !== null) process.stderr.write(`viewer: detail: ${text}\n`);
    return EXIT.failed;
  }
  const failOn = options.failOn ?? null;
  if (failOn !== null && atOrBeyond(publication.snapshot.state, failOn)) {
    process.stderr.write(`viewer: scan found the scope ${publication.snapshot.state} (--fail-on ${failOn})\n`);
    return EXIT.degraded;
  }
  return EXIT.ok;
}
