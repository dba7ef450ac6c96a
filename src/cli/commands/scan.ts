/**
 * `viewer scan`: one scan of one scope with the configured environment. Prints one JSON document
 * on stdout, `{"snapshot", "backups", "wal_ranges", "wal_gaps", "recovery_paths", "observations"}`:
 * the first five exactly as the API serves them, and beside them what the closed v1alpha1 wire has
 * no room for (`observations`: each gap's class, D-61), null when no scan completed. Progress on
 * stderr when it is a terminal. Exits `EXIT.ok` on a complete scan, `EXIT.failed` naming the
 * failure category otherwise, `EXIT.usage` without exactly one scope and `EXIT.internal` when the
 * publication fails its own validation.
 */
import { categoryOf } from '../../common/errors.ts';
import { BudgetMeter } from '../../evidence/listing.ts';
import type { ScopeEvidence } from '../../evidence/scope-scan.ts';
import type { Publication } from '../../publication/publisher.ts';
import { confine } from '../../store/confined.ts';
import type { Config } from '../config/config.ts';
import { EXIT, type ExitCode } from '../exit-codes.ts';
import { scanBudget, wireScope } from '../scope-wiring.ts';
import { createDriver } from '../store-factory.ts';

/** What the scan knows beside the wire items (not part of any wire kind). */
function observations(e: ScopeEvidence | null) {
  if (e === null) return null;
  return {
    wal_gap_classes: e.gaps.map((g, i) => ({ timeline: g.timeline, start_position: g.start_position, class: e.gapClasses[i] ?? 'unexplained' })),
  };
}

export function scanDocument(p: Publication, evidence: ScopeEvidence | null): string {
  return JSON.stringify({
    snapshot: JSON.parse(p.snapshotJson) as unknown,
    backups: p.backups,
    wal_ranges: p.walRanges,
    wal_gaps: p.walGaps,
    recovery_paths: p.recoveryPaths,
    observations: observations(evidence),
  });
}

export async function runScan(config: Config, signal: AbortSignal): Promise<ExitCode> {
  const destination = config.destination;
  const server = config.mode === 'sidecar' ? config.serverName : config.serverNames?.length === 1 ? config.serverNames[0] : undefined;
  if (destination === null || server === undefined) {
    process.stderr.write('viewer: scan needs DESTINATION_PATH and exactly one ARCHIVE_SERVER_NAMES entry\n');
    return EXIT.usage;
  }
  const scope = wireScope(config, { server, destination, endpointUrl: config.endpointUrl });
  const publisher = scope.publisher;
  const meter = new BudgetMeter(scanBudget(config));
  const startedAt = new Date();
  const deadline = AbortSignal.any([signal, AbortSignal.timeout(config.scan.timeoutSeconds * 1000)]);
  const progress = process.stderr.isTTY ? setInterval(() => process.stderr.write(`\rviewer: ${meter.pages} pages, ${meter.objects} objects`), 250) : null;
  let publication: Publication;
  let failure: string | null = null;
  try {
    const driver = confine(await createDriver(config), scope.roots);
    try {
      const evidence = await scope.scan(driver)(deadline, publisher.nextScan, meter);
      publication = publisher.complete(evidence, { startedAt, finishedAt: new Date(), pages: meter.pages, objects: meter.objects });
      if (publication.snapshot.inventory.last_failure_category !== null) failure = publication.snapshot.inventory.last_failure_category;
    } finally {
      driver.close();
    }
  } catch (error) {
    const category = deadline.aborted && !signal.aborted ? 'timeout' : categoryOf(error);
    publication = publisher.fail(category, { startedAt, finishedAt: new Date(), pages: meter.pages, objects: meter.objects });
    failure = category;
  } finally {
    if (progress !== null) {
      clearInterval(progress);
      process.stderr.write('\n');
    }
  }
  if (publication.violations.length > 0) {
    process.stderr.write(`viewer: scan produced an invalid publication (${publication.violations.length} violations)\n`);
    return EXIT.internal;
  }
  process.stdout.write(`${scanDocument(publication, publication.generation > 0 ? publisher.evidence : null)}\n`);
  if (failure !== null) {
    process.stderr.write(`viewer: scan failed: ${failure}\n`);
    return EXIT.failed;
  }
  return EXIT.ok;
}
