/**
 * The soak's publication (bench/soak.ts): a barman-cloud server scanned by the real scanner from
 * an in-memory store, big enough that every collection spans several pages, and a `swap` that
 * republishes it the way the sidecar's refresher does: a new scan, a new complete generation (or,
 * every fifth swap, a failed refresh: a new revision of the same generation). One segment near
 * the end of the archive is deleted and restored on alternate scans, so consecutive generations
 * differ in their items (a gap and a range appear and go) while the store and the publication
 * keep their size: the server's memory stays flat however long the soak runs.
 */
import { BudgetMeter } from '../src/evidence/listing.ts';
import { scanScope } from '../src/evidence/scope-scan.ts';
import { archiveCloud } from '../src/format/barman-cloud/format.ts';
import { SyntheticRepository } from '../src/format/barman-cloud/synthetic-repository.ts';
import { Publisher, type Publication } from '../src/publication/publisher.ts';
import { confine } from '../src/store/confined.ts';
import { MemoryStore } from '../src/store/memory/memory-driver.ts';

const ROOT = 'soak/pg-main/';
const SERVER = 'pg-main';
const T0 = Date.parse('2026-11-01T00:00:00Z');
const STEP_MS = 60_000;
/** Timeline 1 then timeline 2 after a recovery; backups every BACKUP_EVERY segments on each. */
const TL1_LAST = 2_400;
const TL2_LAST = 3_600;
const BACKUP_EVERY = 24;
/** The segment a swap deletes or restores (timeline 2, well after its last gap). */
const TOGGLED = TL2_LAST - 10;

export interface SoakPublication {
  readonly current: () => Publication;
  /** Publishes the next attempt (a complete scan, or every fifth a failed refresh). */
  readonly swap: () => Promise<Publication>;
}

export async function soakPublication(): Promise<SoakPublication> {
  let nowMs = T0 + (TL2_LAST + 10) * STEP_MS;
  const store = new MemoryStore({ storeClock: () => new Date(nowMs) });
  const repo = new SyntheticRepository(store, ROOT);
  const at = (position: number) => new Date(T0 + position * STEP_MS);
  // Lost segments: one every 16 on timeline 1 (150 gaps), a few on timeline 2.
  const lost1 = Array.from({ length: 150 }, (_, i) => 20 + i * 16);
  const lost2 = [2_500, 2_700, 2_900, 3_100, 3_300];
  repo.segments(1, 1, TL1_LAST, at(1), { stepMs: STEP_MS, suffix: '.gz', missing: lost1 });
  repo.history(2, [{ parent: 1, switchpoint: repo.switchpoint(TL1_LAST - 20), reason: 'at restore point "before-migration"' }], at(TL1_LAST - 19), true);
  repo.partial(1, TL1_LAST - 20, at(TL1_LAST - 20));
  repo.segments(2, TL1_LAST - 20, TL2_LAST, at(TL1_LAST - 20), { stepMs: STEP_MS, suffix: '.gz', missing: lost2 });
  let n = 0;
  for (let p = 4; p < TL2_LAST - 30; p += BACKUP_EVERY) {
    const timeline = p < TL1_LAST - 20 ? 1 : 2;
    const d = at(p);
    const id = `${d.toISOString().slice(0, 10).replaceAll('-', '')}T${d.toISOString().slice(11, 19).replaceAll(':', '')}`;
    n += 1;
    repo.backup({
      id,
      timeline,
      beginPosition: p,
      endPosition: p + 1,
      beginTime: d,
      endTime: new Date(d.getTime() + 90_000),
      ...(n % 37 === 0 ? { status: 'FAILED' as const } : {}),
      ...(n % 5 === 0 ? { archiveSuffix: '.gz' } : {}),
      ...(n === 1 ? { keep: 'standalone' as const, name: 'before-upgrade' } : {}),
    });
  }
  const toggledKey = repo.segment(2, TOGGLED, at(TOGGLED), '.gz');

  const publisher = new Publisher(
    { cluster: { namespace: 'databases', uid: '6f1c2a7e-3b9d-4e8f-a1c2-9d8e7f6a5b4c', name: 'pg-main' }, provider: 'store-a', fingerprint: `sha256:${'c'.repeat(64)}`, server: SERVER, producerVersion: '0.1.0', format: archiveCloud },
    { policyText: null, policy: null, minimumRedundancy: null },
    // Fresh for a day: the evidence never turns stale by the clock during a soak.
    24 * 3_600_000,
  );
  let swaps = 0;

  const scan = async (): Promise<Publication> => {
    const startedAt = new Date(nowMs);
    const meter = new BudgetMeter({ maxPages: 1e6, maxObjects: 1e9 });
    const evidence = await scanScope({ format: archiveCloud, server: SERVER, root: ROOT, driver: confine(store, ROOT), signal: new AbortController().signal, meter, concurrency: 4, ...publisher.nextScan });
    // The memory store records every request for tests; a soak must not let that grow.
    store.requests.length = 0;
    nowMs += 1_000;
    return publisher.complete(evidence, { startedAt, finishedAt: new Date(nowMs), pages: meter.pages, objects: meter.objects });
  };

  const first = await scan();
  if (first.violations.length > 0 || first.generation !== 1) throw new Error('the soak publication is invalid');

  return {
    current: () => publisher.current,
    swap: async () => {
      swaps += 1;
      let p: Publication;
      if (swaps % 5 === 0) {
        nowMs += 1_000;
        p = publisher.fail('unavailable', { startedAt: new Date(nowMs - 1_000), finishedAt: new Date(nowMs), pages: 1, objects: 0 });
      } else {
        if (swaps % 2 === 1) store.delete(toggledKey);
        else repo.segment(2, TOGGLED, at(TOGGLED), '.gz');
        p = await scan();
      }
      if (p.violations.length > 0) throw new Error('a soak publication failed validation');
      return p;
    },
  };
}
