/**
 * The default start of standalone mode without a destination: scans the embedded demo repository
 * (in memory, no network) with the real scanner and prints what it found. The standalone web UI
 * will serve the same publication (issue 5).
 */
import { DEMO_BUCKET, DEMO_PREFIX, DEMO_SERVER, demoRepository } from '../../format/barman-cloud/demo-repository.ts';
import { BudgetMeter } from '../../evidence/listing.ts';
import { scanScope } from '../../evidence/scope-scan.ts';
import { destinationFingerprint } from '../../publication/fingerprint.ts';
import { Publisher, type Publication } from '../../publication/publisher.ts';
import { confine, scopeRoot } from '../../store/confined.ts';
import type { StandaloneConfig } from '../config/config.ts';
import { PRODUCER_VERSION, standaloneCluster } from '../identity.ts';

export async function demoPublication(config: StandaloneConfig, now: Date): Promise<Publication> {
  const destination = { provider: 'store-a' as const, bucket: DEMO_BUCKET, account: null, emulatorOrigin: null, prefix: DEMO_PREFIX };
  const publisher = new Publisher(
    { cluster: config.cluster ?? standaloneCluster, provider: 'store-a', fingerprint: destinationFingerprint(destination, null), server: DEMO_SERVER, producerVersion: PRODUCER_VERSION },
    config.retention,
    config.freshnessThresholdSeconds * 1000,
  );
  const root = scopeRoot(DEMO_PREFIX, DEMO_SERVER);
  const meter = new BudgetMeter({ maxPages: config.scan.maxPages, maxObjects: config.scan.maxObjects });
  const evidence = await scanScope({ server: DEMO_SERVER, root, driver: confine(demoRepository(), root), signal: new AbortController().signal, meter, concurrency: config.scan.concurrency, ...publisher.nextScan });
  return publisher.complete(evidence, { startedAt: now, finishedAt: now, pages: meter.pages, objects: meter.objects });
}

const pad = (s: string | number | null, n: number) => String(s ?? '-').padEnd(n);

/** A plain-text report of a publication, for a terminal. */
export function report(p: Publication): string {
  const s = p.snapshot;
  const ac = s.details.archive_cloud;
  const lines = [
    `viewer demo: server ${s.identity.repository.scope.name}, generation ${s.evidence_generation}, state ${s.state} (${s.reason.code})`,
    `objects ${s.inventory.object_count ?? 'unknown'}, bytes ${s.inventory.stored_bytes ?? 'unknown'}; WAL ${ac.wal.state} (${ac.wal.reason.code}), timelines ${ac.timeline.state}, observed recovery coverage ${ac.coverage.state}`,
    '',
    `${pad('backup', 17)}${pad('status', 8)}${pad('state', 10)}${pad('begin WAL', 26)}reason`,
    ...p.backups.map((b) => `${pad(b.backup_id, 17)}${pad(b.status, 8)}${pad(b.state, 10)}${pad(b.begin_wal, 26)}${b.reason.code}`),
    '',
    `${pad('timeline', 10)}${pad('first WAL', 26)}${pad('last WAL', 26)}segments`,
    ...p.walRanges.map((r) => `${pad(r.timeline, 10)}${pad(r.first_wal, 26)}${pad(r.last_wal, 26)}${r.segment_count}`),
    ...p.walGaps.map((g) => `gap on timeline ${g.timeline}: ${g.first_wal}..${g.last_wal} (${g.segment_count} missing, ${g.status})`),
    '',
    'observed recovery coverage:',
    ...p.recoveryPaths.map((r) => `  ${r.backup_id} -> timeline ${r.target_timeline}: ${r.state}, stops ${r.stop} at ${r.frontier_wal ?? '-'}`),
  ];
  return `${lines.join('\n')}\n`;
}
