/**
 * Issue: a cron job or CI gate runs `viewer scan` once per run. Chained with `--previous` (each run
 * reading the document the run before printed), one-shot runs must behave exactly as the
 * generations of one long-running process: the same generation numbers, gap statuses and first and
 * last observed generations, the same documents but for the revision, which keeps increasing. So a
 * lost segment is confirmed by the five-minute rule on the next run, as a long-running process
 * confirms it, instead of only by the sixty-minute rule.
 *
 * At the library level, through the functions `viewer scan` runs: the scope's scan (`scanScope`
 * with the publisher's `nextScan`), `Publisher.complete` / `fail`, the document writer
 * `scanDocument`, then `readPreviousScan` and `Publisher.resume` for the next run, each run in a
 * publisher of its own. The document gets `observations.memory` and, for a run without a complete
 * scan of its own, the observations it continued from, as the scan command's wiring does.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { scanDocument } from '../../src/cli/commands/scan.ts';
import { readPreviousScan, REFUSALS, type Continuation, type ExpectedScope } from '../../src/cli/previous-scan.ts';
import { categoryOf, StoreError } from '../../src/common/errors.ts';
import type { WalGapItem } from '../../src/contract/collections.ts';
import { SETTLE_MS, LONG_SETTLE_MS } from '../../src/evidence/gaps.ts';
import { BudgetMeter } from '../../src/evidence/listing.ts';
import { scanScope, type ScopeEvidence } from '../../src/evidence/scope-scan.ts';
import { archiveCloud } from '../../src/format/barman-cloud/format.ts';
import { SyntheticRepository } from '../../src/format/barman-cloud/synthetic-repository.ts';
import { walName } from '../../src/postgres/wal.ts';
import type { Publication, Publisher } from '../../src/publication/publisher.ts';
import { confine } from '../../src/store/confined.ts';
import type { StoreDriver } from '../../src/store/driver.ts';
import { MemoryStore } from '../../src/store/memory/memory-driver.ts';
import { STANDALONE_CLUSTER, testPublisher } from '../support/publication-fixture.ts';

const SERVER = 'pg-main';
const ROOT = `backups/${SERVER}/`;
const FINGERPRINT = `sha256:${'d'.repeat(64)}`;
const T0 = Date.parse('2026-11-21T13:00:00Z');
const at = (min: number) => new Date(T0 + min * 60_000);

function publisher(server = SERVER, fingerprint = FINGERPRINT): Publisher {
  // Each run draws its own revision base from the clock, as `viewer scan` does.
  return testPublisher({
    identity: { cluster: STANDALONE_CLUSTER, fingerprint, server },
    expectations: { policyText: 'REDUNDANCY 1', policy: { kind: 'redundancy', count: 1 }, minimumRedundancy: null },
    freshnessMs: 15 * 60_000,
  });
}

const expected = (p: Publisher): ExpectedScope => {
  const r = p.current.snapshot.identity.repository;
  return { fingerprint: r.destination_fingerprint, server: r.scope.name, provider: r.provider, format: r.format };
};

/** A store that is down: the attempt fails as `viewer scan` fails it. */
const down: StoreDriver = { listPage: () => Promise.reject(new StoreError('unavailable', 'down')), read: () => Promise.reject(new StoreError('unavailable', 'down')), readStream: () => Promise.reject(new StoreError('unavailable', 'down')), close: () => undefined };

/** One attempt as `runScan` makes it (its times fixed by the test), and the document it prints. */
async function attempt(p: Publisher, driver: StoreDriver, minute: number, continuation: Continuation | null = null): Promise<{ publication: Publication; text: string }> {
  const startedAt = at(minute);
  const finishedAt = at(minute + 1);
  let publication: Publication;
  try {
    const evidence: ScopeEvidence = await scanScope({ format: archiveCloud, server: SERVER, root: ROOT, driver: confine(driver, ROOT), signal: new AbortController().signal, meter: new BudgetMeter({ maxPages: 100, maxObjects: 10_000 }), concurrency: 2, ...p.nextScan });
    publication = p.complete(evidence, { startedAt, finishedAt, pages: 3, objects: evidence.objectCount });
  } catch (error) {
    publication = p.fail(categoryOf(error), { startedAt, finishedAt, pages: 0, objects: 0 });
  }
  assert.deepEqual(publication.violations, []);
  const evidence = publication.generation > 0 ? p.evidence : null;
  // The document as the scan command prints it (observations.memory; a failed run's carried observations).
  return { publication, text: `${scanDocument(publication, evidence, null, continuation?.observations ?? null)}\n` };
}

/** `viewer scan --previous FILE`: a fresh process that reads the previous document, then scans. */
async function oneShot(driver: StoreDriver, minute: number, previous: string | null): Promise<{ publication: Publication; text: string }> {
  const p = publisher();
  let continuation: Continuation | null = null;
  if (previous !== null) {
    const read = readPreviousScan(previous, expected(p));
    assert.ok(read.ok, read.ok ? '' : read.reason);
    continuation = read.continuation;
    p.resume(continuation);
  }
  return attempt(p, driver, minute, continuation);
}

/**
 * Segments 1..40 of timeline 1 received a minute apart (the newest at minute 39) and one backup.
 * Segment 30 is deleted after the first run: the segment after it (31, received at minute 30) is
 * then 9 minutes older than the newest receipt, past the five-minute rule and short of the hour.
 */
function repository() {
  const store = new MemoryStore();
  const repo = new SyntheticRepository(store, ROOT);
  repo.segments(1, 1, 40, at(0));
  repo.backup({ id: '20261121T130200', timeline: 1, beginPosition: 3, endPosition: 4, beginTime: at(2), endTime: at(3) });
  const lose = (position: number) => {
    const name = walName(1, position, repo.geometry);
    store.delete(`${ROOT}wals/${name.slice(0, 16)}/${name}`);
  };
  return { store, lose };
}

interface Doc {
  snapshot: { revision: number; evidence_generation: number; state: string };
  wal_gaps: WalGapItem[];
  observations: { wal_gap_classes: unknown[] } | null;
}
const parse = (text: string) => JSON.parse(text) as Doc;
const gapsOf = (text: string) => parse(text).wal_gaps.map((g) => [g.first_wal, g.status, g.first_observed_generation, g.last_observed_generation]);
/** The document with its revision set aside: the one thing separate processes number differently. */
const withoutRevision = (text: string) => {
  const d = JSON.parse(text) as Doc & Record<string, unknown>;
  return { ...d, snapshot: { ...d.snapshot, revision: 0 } };
};

describe('viewer scan --previous: one-shot runs chained as the generations of one process', () => {
  it('the receipt times make the short rule the deciding one', () => {
    assert.ok(9 * 60_000 >= SETTLE_MS && 9 * 60_000 < LONG_SETTLE_MS);
  });

  it('a lost segment is a candidate in the run that first sees it and confirmed in the next, exactly as in a long-running process', async () => {
    const chain = repository();
    const live = repository();
    const longRunning = publisher();

    // Run 1: the archive is whole.
    const run1 = await oneShot(chain.store, 45, null);
    const gen1 = await attempt(longRunning, live.store, 45);
    // Run 2: segment 30 is lost; a candidate, first observed now.
    chain.lose(30);
    live.lose(30);
    const run2 = await oneShot(chain.store, 50, run1.text);
    const gen2 = await attempt(longRunning, live.store, 50);
    // Run 3: seen in an earlier complete generation and 9 minutes overtaken: confirmed.
    const run3 = await oneShot(chain.store, 55, run2.text);
    const gen3 = await attempt(longRunning, live.store, 55);

    assert.deepEqual([run1, run2, run3].map((r) => r.publication.generation), [1, 2, 3]);
    assert.deepEqual(gapsOf(run1.text), []);
    assert.deepEqual(gapsOf(run2.text), [['00000001000000000000001E', 'candidate', 2, 2]]);
    assert.deepEqual(gapsOf(run3.text), [['00000001000000000000001E', 'confirmed', 2, 3]]);
    assert.equal(parse(run2.text).snapshot.state, 'warning');
    assert.equal(parse(run3.text).snapshot.state, 'unhealthy');
    // Byte for byte the long-running process's documents, but for the revision.
    assert.deepEqual(withoutRevision(run1.text), withoutRevision(gen1.text));
    assert.deepEqual(withoutRevision(run2.text), withoutRevision(gen2.text));
    assert.deepEqual(withoutRevision(run3.text), withoutRevision(gen3.text));
    // Revisions keep increasing across processes.
    const revisions = [run1, run2, run3].map((r) => r.publication.revision);
    assert.ok(revisions[0]! < revisions[1]! && revisions[1]! < revisions[2]!, `revisions ${revisions.join(', ')}`);

    // Without --previous every run is generation 1 and the loss stays a candidate for the hour.
    const alone = await oneShot(chain.store, 55, null);
    assert.equal(alone.publication.generation, 1);
    assert.deepEqual(gapsOf(alone.text), [['00000001000000000000001E', 'candidate', 1, 1]]);
  });

  it('a failed run in the chain retains the generation, and the next run continues from it as a long-running process does', async () => {
    const chain = repository();
    const live = repository();
    const longRunning = publisher();
    chain.lose(30);
    live.lose(30);

    const run1 = await oneShot(chain.store, 45, null);
    const gen1 = await attempt(longRunning, live.store, 45);
    const run2 = await oneShot(down, 50, run1.text);
    const gen2 = await attempt(longRunning, down, 50);
    const run3 = await oneShot(chain.store, 55, run2.text);
    const gen3 = await attempt(longRunning, live.store, 55);

    assert.deepEqual([run1, run2, run3].map((r) => r.publication.generation), [1, 1, 2]);
    assert.equal(run2.publication.snapshot.stale, true);
    assert.equal(run2.publication.snapshot.inventory.last_failure_category, 'unavailable');
    assert.deepEqual(parse(run2.text).observations, parse(run1.text).observations);
    assert.deepEqual(gapsOf(run2.text), [['00000001000000000000001E', 'candidate', 1, 1]]);
    assert.deepEqual(gapsOf(run3.text), [['00000001000000000000001E', 'confirmed', 1, 2]]);
    for (const [a, b] of [[run1, gen1], [run2, gen2], [run3, gen3]] as const) assert.deepEqual(withoutRevision(a.text), withoutRevision(b.text));
    const revisions = [run1, run2, run3].map((r) => r.publication.revision);
    assert.ok(revisions[0]! < revisions[1]! && revisions[1]! < revisions[2]!, `revisions ${revisions.join(', ')}`);
  });

  it('a run that never completed a scan hands on its revision only; the next is generation 1', async () => {
    const chain = repository();
    const run1 = await oneShot(down, 45, null);
    assert.equal(run1.publication.generation, 0);
    assert.equal(parse(run1.text).observations, null);
    const run2 = await oneShot(chain.store, 50, run1.text);
    assert.equal(run2.publication.generation, 1);
    assert.ok(run2.publication.revision > run1.publication.revision);
  });

  it('refuses the previous document of another server or destination, and a damaged one, whole', async () => {
    const chain = repository();
    const run1 = await oneShot(chain.store, 45, null);
    const otherServer = publisher('pg-other');
    assert.deepEqual(readPreviousScan(run1.text, expected(otherServer)), { ok: false, reason: REFUSALS.server });
    const otherDestination = publisher(SERVER, `sha256:${'e'.repeat(64)}`);
    assert.deepEqual(readPreviousScan(run1.text, expected(otherDestination)), { ok: false, reason: REFUSALS.destination });
    assert.deepEqual(readPreviousScan(run1.text.slice(0, run1.text.length / 2), expected(publisher())), { ok: false, reason: REFUSALS.notJson });
    // A refused document leaves the new process as it was: nothing of it was used.
    const fresh = publisher();
    assert.equal(fresh.nextScan.previous.generation, 0, 'nothing remembered: the next scan is generation 1');
  });
});
