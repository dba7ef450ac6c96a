/**
 * The publication transitions of the spec, each valid against the wire contract: first complete
 * scan, failed refresh retaining evidence, freshness threshold, truncation, gap observations
 * carried across generations, and the background refresher's scheduling and shutdown.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { StoreError } from '../common/errors.ts';
import { Turns } from '../common/concurrency.ts';
import { BudgetMeter } from '../evidence/listing.ts';
import { scanScope, type ScopeEvidence } from '../evidence/scope-scan.ts';
import { SyntheticRepository } from '../format/barman-cloud/synthetic-repository.ts';
import { confine } from '../store/confined.ts';
import { MemoryStore } from '../store/memory/memory-driver.ts';
import { Publisher, revisionBase, type Publication } from './publisher.ts';
import { MAX_BACKOFF_FACTOR, Refresher } from './refresher.ts';
import { archiveCloud } from '../format/barman-cloud/format.ts';
import { requireCommonSummary } from '../contract/details-view.ts';

const ROOT = 'p/pg-main/';
const T0 = Date.parse('2026-11-21T13:00:00Z');
const at = (min: number) => new Date(T0 + min * 60_000);
const attempt = (min: number) => ({ startedAt: at(min), finishedAt: at(min + 1), pages: 2, objects: 20 });

function repository(missing: number[] = [6]) {
  const store = new MemoryStore();
  const repo = new SyntheticRepository(store, ROOT);
  repo.segments(1, 1, 12, at(0), { missing });
  repo.backup({ id: 'b1', timeline: 1, beginPosition: 2, endPosition: 3, beginTime: at(1), endTime: at(2) });
  return store;
}

function newPublisher(expectations: ConstructorParameters<typeof Publisher>[1] = { policyText: 'REDUNDANCY 1', policy: { kind: 'redundancy', count: 1 }, minimumRedundancy: null }, freshnessMs = 15 * 60_000) {
  return new Publisher(
    { cluster: { namespace: 'databases', uid: '6f1c2a7e-3b9d-4e8f-a1c2-9d8e7f6a5b4c', name: 'pg-main' }, provider: 'store-a', fingerprint: `sha256:${'a'.repeat(64)}`, server: 'pg-main', producerVersion: '0.1.0', format: archiveCloud },
    expectations,
    freshnessMs,
    // Revisions counted from 0 here, so each transition's advance reads plainly.
    { revisionBase: 0 },
  );
}

/** Lets promise callbacks run (setImmediate is not among the mocked timers). */
const settle = async () => {
  for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
};

async function scanWith(store: MemoryStore, p: Publisher, meter = new BudgetMeter({ maxPages: 100, maxObjects: 10_000 }), signal = new AbortController().signal): Promise<ScopeEvidence> {
  return scanScope({ format: archiveCloud, server: 'pg-main', root: ROOT, driver: confine(store, ROOT), signal, meter, concurrency: 2, ...p.nextScan });
}

/** One scan's evidence stands for every scan of a refresher test: its memory made the continuation of the one handed to the scan. */
const continuing = (e: ScopeEvidence, next: Publisher['nextScan']): ScopeEvidence => ({ ...e, memory: { ...e.memory, generation: next.previous.generation + 1 } });

const valid = (p: Publication) => {
  assert.deepEqual(p.violations, []);
  return p;
};

describe('publication transitions', () => {
  it('starts at generation 0 with no completed scan', () => {
    const p = valid(newPublisher().current);
    assert.equal(p.revision, 0);
    assert.equal(p.snapshot.completeness, 'no-completed-scan');
    assert.equal(p.snapshot.state, 'unknown');
    // Expectations are configuration, not evidence: shown as configured from the start.
    const r = requireCommonSummary(valid(newPublisher({ policyText: 'REDUNDANCY 1', policy: { kind: 'redundancy', count: 1 }, minimumRedundancy: 2 }).fail('unavailable', attempt(1))).snapshot.details).retention;
    assert.deepEqual([r.policy_configured, r.minimum_configured, r.minimum_redundancy, r.state], [true, true, 2, 'unknown']);
  });

  it('a complete scan publishes generation 1; a failed refresh keeps it, stale and unknown; the next scan publishes generation 2', async () => {
    const store = repository();
    const pub = newPublisher();
    const g1 = valid(pub.complete(await scanWith(store, pub), attempt(10)));
    assert.deepEqual([g1.revision, g1.generation, g1.snapshot.stale, g1.snapshot.completeness], [1, 1, false, 'complete']);
    assert.equal(g1.snapshot.started_at, at(10).toISOString());
    assert.equal(g1.walGaps[0]?.first_observed_generation, 1);

    const failed = valid(pub.fail('throttled', attempt(20)));
    assert.deepEqual([failed.revision, failed.generation, failed.snapshot.stale], [2, 1, true]);
    assert.equal(failed.snapshot.reason.code, 'refresh-throttled');
    assert.equal(requireCommonSummary(failed.snapshot.details).wal.state, 'unknown');
    assert.equal(failed.snapshot.inventory.last_failure_category, 'throttled');
    assert.equal(failed.snapshot.inventory.object_count, g1.snapshot.inventory.object_count);
    assert.equal(failed.snapshot.started_at, g1.snapshot.started_at);
    assert.equal(failed.snapshot.last_attempt_at, at(20).toISOString());
    assert.deepEqual(failed.backups, g1.backups);

    const g2 = valid(pub.complete(await scanWith(store, pub), attempt(30)));
    assert.deepEqual([g2.revision, g2.generation, g2.snapshot.stale], [3, 2, false]);
    assert.deepEqual(g2.walGaps.map((g) => [g.first_observed_generation, g.last_observed_generation]), [[1, 2]]);
  });

  it('a scan whose publication fails validation is a failed attempt: the valid generation stays and is served', async () => {
    const pub = newPublisher();
    const g1 = valid(pub.complete(await scanWith(repository(), pub), attempt(10)));
    const e = await scanWith(repository(), pub);
    // A receipt time the wire's schema refuses, reaching the publisher however it got there.
    const bad = { ...e, ranges: e.ranges.map((r) => ({ ...r, latest_receipt_at: '1970-01-01T00:00:00.000Z' })) };
    const p = valid(pub.complete(bad, attempt(20)));
    assert.deepEqual([p.revision, p.generation, p.snapshot.stale, p.snapshot.reason.code, p.snapshot.inventory.last_failure_category], [2, 1, true, 'refresh-invalid-publication', 'incompatible_format']);
    assert.deepEqual([p.walRanges, p.backups, p.snapshot.started_at], [g1.walRanges, g1.backups, g1.snapshot.started_at]);
    assert.notEqual(pub.evidence, bad, 'the pages would show the refused scan');
    // The next clean scan publishes generation 2 as usual.
    assert.deepEqual([valid(pub.complete(await scanWith(repository(), pub), attempt(30))).generation], [2]);
  });

  it('one (revision, evidence_generation) never names two bodies across restarts', async () => {
    // Two processes of one destination, the second started a second later: same repository,
    // same scan, different content (a gap filled in between).
    const identity = { cluster: { namespace: 'databases', uid: '6f1c2a7e-3b9d-4e8f-a1c2-9d8e7f6a5b4c', name: 'pg-main' }, provider: 'store-a' as const, fingerprint: `sha256:${'a'.repeat(64)}`, server: 'pg-main', producerVersion: '0.1.0', format: archiveCloud };
    const expectations = { policyText: null, policy: null, minimumRedundancy: null };
    const first = new Publisher(identity, expectations, 900_000, { revisionBase: revisionBase(Date.parse('2026-11-23T10:00:00Z')) });
    const firstBodies = [first.current, first.complete(await scanWith(repository([6]), first), attempt(10)), first.fail('throttled', attempt(11))];
    const second = new Publisher(identity, expectations, 900_000, { revisionBase: revisionBase(Date.parse('2026-11-23T10:00:01Z')) });
    const secondBodies = [second.current, second.complete(await scanWith(repository([]), second), attempt(12))];
    const seen = new Map(firstBodies.map((p) => [`${p.revision}/${p.generation}`, p.snapshotJson]));
    for (const p of secondBodies) {
      const earlier = seen.get(`${p.revision}/${p.generation}`);
      assert.ok(earlier === undefined || earlier === p.snapshotJson, 'a pair named two bodies');
    }
    assert.ok(Math.min(...secondBodies.map((p) => p.revision)) > Math.max(...firstBodies.map((p) => p.revision)));
    // The default base is drawn from the clock and 20 random bits: two processes started in the
    // same second still differ (with probability 1 - 2^-20), and every value is an exact integer.
    const bases = Array.from({ length: 8 }, () => revisionBase(Date.parse('2026-11-23T10:00:00Z')));
    assert.ok(new Set(bases).size > 1);
    for (const b of bases) assert.ok(Number.isSafeInteger(b) && b >= Math.floor(Date.parse('2026-11-23T10:00:00Z') / 1000) * 2 ** 20);
    assert.ok(new Publisher(identity, expectations, 900_000).current.revision > 2 ** 50);
  });

  it('a failure before any complete scan is generation 0, incomplete', () => {
    const p = valid(newPublisher().fail('authentication', attempt(1)));
    assert.deepEqual([p.revision, p.generation, p.snapshot.completeness, p.snapshot.stale], [1, 0, 'incomplete', true]);
    assert.equal(p.snapshot.reason.code, 'refresh-authentication');
    assert.equal(p.snapshot.inventory.object_count, null);
  });

  it('the freshness threshold publishes a stale revision once, and only after it elapsed', async () => {
    const pub = newPublisher();
    const g1 = pub.complete(await scanWith(repository(), pub), attempt(10));
    assert.equal(pub.checkFreshness(at(20)), g1);
    const stale = valid(pub.checkFreshness(at(26)));
    assert.deepEqual([stale.revision, stale.generation, stale.snapshot.stale, stale.snapshot.reason.code], [2, 1, true, 'evidence-stale']);
    assert.equal(pub.checkFreshness(at(40)), stale);
  });

  it('a truncated scan is a safety_limit failure with its flag set, never a new generation', async () => {
    const pub = newPublisher();
    pub.complete(await scanWith(repository(), pub), attempt(10));
    const e = await scanWith(repository(), pub);
    const p = valid(pub.complete({ ...e, rangesTruncated: true }, attempt(20)));
    assert.deepEqual([p.generation, p.snapshot.inventory.last_failure_category, requireCommonSummary(p.snapshot.details).ranges_truncated], [1, 'safety_limit', true]);
  });

  it('the evidence behind the current generation is the last complete scan, never a truncated attempt', async () => {
    const pub = newPublisher();
    assert.equal(pub.evidence, null);
    const first = await scanWith(repository(), pub);
    pub.complete(first, attempt(10));
    assert.equal(pub.evidence, first);
    pub.complete({ ...(await scanWith(repository([6, 7]), pub)), rangesTruncated: true }, attempt(20));
    pub.fail('throttled', attempt(30));
    assert.equal(pub.evidence, first);
    const third = await scanWith(repository([6, 7]), pub);
    pub.complete(third, attempt(40));
    assert.equal(pub.evidence, third);
  });

  it('retention: an unmet minimum is unhealthy, but a configured unrecognized policy forces unknown', async () => {
    const retention = async (x: ConstructorParameters<typeof Publisher>[1]) => {
      const pub = newPublisher(x);
      return requireCommonSummary(valid(pub.complete(await scanWith(repository(), pub), attempt(10))).snapshot.details).retention;
    };
    const unmet = await retention({ policyText: null, policy: null, minimumRedundancy: 5 });
    assert.deepEqual([unmet.state, unmet.reason.code, unmet.minimum_redundancy], ['unhealthy', 'minimum-redundancy-not-met', 5]);
    const both = await retention({ policyText: 'KEEP EVERYTHING', policy: null, minimumRedundancy: 5 });
    assert.deepEqual([both.state, both.reason.code, both.policy_configured, both.minimum_configured], ['unknown', 'retention-policy-unrecognized', true, true]);
  });

  it('the same publication serializes to the same bytes', async () => {
    const store = repository();
    const a = newPublisher();
    const b = newPublisher();
    const pa = a.complete(await scanWith(store, a), attempt(10));
    const pb = b.complete(await scanWith(store, b), attempt(10));
    assert.equal(pa.snapshotJson, pb.snapshotJson);
  });
});

describe('refresher', () => {
  it('publishes the first scan at start, a failure as a new stale revision, and stops an in-flight scan', async () => {
    const store = repository();
    const pub = newPublisher();
    const published: Publication[] = [];
    let mode: 'ok' | 'throttled' | 'hang' = 'ok';
    const refresher = new Refresher({
      publisher: pub,
      budget: { maxPages: 100, maxObjects: 10_000 },
      intervalMs: 3_600_000,
      scanTimeoutMs: 60_000,
      onPublish: (p) => published.push(p),
      scan: async (signal, next, meter) => {
        if (mode === 'throttled') throw new StoreError('throttled', 'the store throttled the request');
        if (mode === 'hang') await new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(new StoreError('canceled', 'canceled'))));
        return scanScope({ format: archiveCloud, server: 'pg-main', root: ROOT, driver: confine(store, ROOT), signal, meter, concurrency: 2, ...next });
      },
    });
    await refresher.refreshNow();
    assert.equal(pub.current.generation, 1);
    mode = 'throttled';
    await refresher.refreshNow();
    assert.deepEqual([pub.current.revision, pub.current.generation, pub.current.snapshot.inventory.last_failure_category], [2, 1, 'throttled']);
    mode = 'hang';
    const inFlight = refresher.refreshNow();
    await new Promise((r) => setTimeout(r, 20));
    await refresher.stop();
    await inFlight;
    assert.equal(pub.current.revision, 2, 'a shutdown publishes nothing');
    assert.ok(published.every((p) => p.violations.length === 0));
  });

  it('starts scans an interval apart, start to start, and at once after a scan longer than the interval', async (t) => {
    const pub = newPublisher();
    const evidence = await scanWith(repository(), pub);
    t.mock.timers.enable({ apis: ['setTimeout', 'Date'], now: T0 });
    const starts: number[] = [];
    const durations = [300, 1500, 100];
    const refresher = new Refresher({
      publisher: pub,
      budget: { maxPages: 100, maxObjects: 10_000 },
      intervalMs: 1000,
      jitter: 0,
      scanTimeoutMs: 3_600_000,
      scan: (signal, next) => {
        starts.push(Date.now() - T0);
        const ms = durations[starts.length - 1] ?? 100;
        return new Promise((resolve, reject) => {
          const timer = setTimeout(() => resolve(continuing(evidence, next)), ms);
          signal.addEventListener('abort', () => {
            clearTimeout(timer);
            reject(new StoreError('canceled', 'canceled'));
          });
        });
      },
    });
    refresher.start();
    for (const step of [0, 300, 700, 1500, 0]) {
      t.mock.timers.tick(step);
      await settle();
    }
    assert.deepEqual(starts, [0, 1000, 2500]);
    await refresher.stop();
  });

  it('backs off after failed attempts: twice the interval, then four times at most, and the interval again after a complete scan', async (t) => {
    const pub = newPublisher();
    const evidence = await scanWith(repository(), pub);
    t.mock.timers.enable({ apis: ['setTimeout', 'Date'], now: T0 });
    const starts: number[] = [];
    const results: ('fail' | 'ok')[] = ['fail', 'fail', 'fail', 'ok', 'fail', 'ok'];
    const refresher = new Refresher({
      publisher: pub,
      budget: { maxPages: 100, maxObjects: 10_000 },
      intervalMs: 1000,
      jitter: 0,
      scanTimeoutMs: 3_600_000,
      scan: (_signal, next) => {
        starts.push(Date.now() - T0);
        return (results[starts.length - 1] ?? 'ok') === 'ok' ? Promise.resolve(continuing(evidence, next)) : Promise.reject(new StoreError('throttled', 'throttled'));
      },
    });
    assert.equal(MAX_BACKOFF_FACTOR, 4);
    refresher.start();
    t.mock.timers.tick(0);
    await settle();
    for (let i = 0; i < 160; i++) {
      t.mock.timers.tick(100);
      await settle();
    }
    // fail → 2 s, fail → 4 s, fail → 4 s (capped), ok → 1 s, fail → 2 s, ok → 1 s, ok → 1 s ...
    assert.deepEqual(starts, [0, 2000, 6000, 10_000, 11_000, 13_000, 14_000, 15_000, 16_000]);
    assert.deepEqual([pub.current.generation, pub.current.snapshot.stale], [5, false]);
    await refresher.stop();
  });

  it('a scan waits for its turn before its deadline starts, and gives the turn back however it ends', async () => {
    const pub = newPublisher();
    const turns = new Turns(1);
    const held = await turns.take('other');
    let scanned = 0;
    let fail = true;
    const refresher = new Refresher({
      publisher: pub,
      budget: { maxPages: 100, maxObjects: 10_000 },
      intervalMs: 3_600_000,
      // Shorter than the wait below: were the wait part of the scan, it would time out.
      scanTimeoutMs: 50,
      turn: (signal) => turns.take('mine', signal),
      scan: async (signal, next, meter) => {
        scanned += 1;
        if (fail) throw new StoreError('throttled', 'throttled');
        return scanScope({ format: archiveCloud, server: 'pg-main', root: ROOT, driver: confine(repository(), ROOT), signal, meter, concurrency: 2, ...next });
      },
    });
    const first = refresher.refreshNow();
    await new Promise((r) => setTimeout(r, 120));
    assert.equal(scanned, 0);
    held();
    await first;
    // A failed attempt gives its turn back: the next one gets it, and is not timed out by the wait.
    assert.deepEqual([scanned, turns.held, pub.current.snapshot.inventory.last_failure_category], [1, 0, 'throttled']);
    fail = false;
    await refresher.refreshNow();
    assert.deepEqual([scanned, turns.held, pub.current.generation], [2, 0, 1]);
    // A shutdown while waiting ends the wait without a scan and without publishing.
    const blocker = await turns.take('other');
    const waiting = refresher.refreshNow();
    const revision = pub.current.revision;
    await refresher.stop();
    await waiting;
    assert.deepEqual([scanned, pub.current.revision], [2, revision]);
    blocker();
  });

  it('a scan that settles leaves nothing running: its signal is aborted, so requests it left in flight are canceled', async () => {
    const pub = newPublisher();
    const signals: AbortSignal[] = [];
    let fail = true;
    const refresher = new Refresher({
      publisher: pub,
      budget: { maxPages: 100, maxObjects: 10_000 },
      intervalMs: 3_600_000,
      scanTimeoutMs: 3_600_000,
      scan: async (signal, next, meter) => {
        signals.push(signal);
        if (fail) throw new StoreError('throttled', 'throttled');
        return scanScope({ format: archiveCloud, server: 'pg-main', root: ROOT, driver: confine(repository(), ROOT), signal, meter, concurrency: 2, ...next });
      },
    });
    await refresher.refreshNow();
    fail = false;
    await refresher.refreshNow();
    assert.deepEqual(signals.map((s) => s.aborted), [true, true]);
    assert.deepEqual([pub.current.generation, pub.current.snapshot.inventory.last_failure_category], [1, null], 'aborting a settled scan changes nothing published');
    assert.equal(pub.current.revision, 2);
    await refresher.stop();
  });

  it('a scan in flight does not keep old evidence fresh: the threshold has its own timer', async (t) => {
    t.mock.timers.enable({ apis: ['setTimeout', 'Date'], now: T0 });
    const store = repository();
    const pub = newPublisher(undefined, 5_000);
    const published: Publication[] = [];
    let hang = false;
    const refresher = new Refresher({
      publisher: pub,
      budget: { maxPages: 100, maxObjects: 10_000 },
      intervalMs: 3_600_000,
      scanTimeoutMs: 3_600_000,
      onPublish: (p) => published.push(p),
      scan: async (signal, next, meter) => {
        if (hang) await new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(new StoreError('canceled', 'canceled'))));
        return scanScope({ format: archiveCloud, server: 'pg-main', root: ROOT, driver: confine(store, ROOT), signal, meter, concurrency: 2, ...next });
      },
    });
    await refresher.refreshNow();
    assert.equal(pub.current.snapshot.stale, false);
    hang = true;
    const inFlight = refresher.refreshNow();
    t.mock.timers.tick(4_999);
    await settle();
    assert.equal(pub.current.snapshot.stale, false, 'not before the threshold');
    t.mock.timers.tick(1);
    await settle();
    assert.deepEqual([pub.current.generation, pub.current.snapshot.stale, pub.current.snapshot.reason.code], [1, true, 'evidence-stale']);
    assert.equal(published.at(-1), pub.current);
    assert.ok(published.every((p) => p.violations.length === 0));
    await refresher.stop();
    await inFlight;
  });

  it('a scan that outlives its deadline is a timeout', async () => {
    const pub = newPublisher();
    const refresher = new Refresher({
      publisher: pub,
      budget: { maxPages: 100, maxObjects: 10_000 },
      intervalMs: 3_600_000,
      scanTimeoutMs: 30,
      scan: (signal) => new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(new Error('aborted')))),
    });
    await refresher.refreshNow();
    assert.equal(pub.current.snapshot.inventory.last_failure_category, 'timeout');
    await refresher.stop();
  });
});
