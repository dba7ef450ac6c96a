/**
 * Cancellation and budgets, against the real Swift S3 store behind the fault proxy, the sidecar
 * composed in-process (harness.ts):
 *
 * - a shutdown in the middle of a scan ends at once (not at the scan's deadline), publishes
 *   nothing, leaves the previous publication served byte for byte, and cancels the request in flight;
 * - a scan that reaches SCAN_MAX_PAGES or SCAN_MAX_OBJECTS (the repository grew past them) is a
 *   `safety_limit` failure, its examined counts within the budget, the previous generation kept;
 * - a scan that outlives SCAN_TIMEOUT_SECONDS (a slow store) is a `timeout` failure at its deadline
 *   (the category docs/configuration.md gives the wall-time budget);
 * - a store that never answers anything leaves a first scan `timeout` at its deadline: generation
 *   0, incomplete, every state unknown, and `/readyz` 503.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ProxiedRequest } from '../support/fault-proxy.ts';
import { s3, startFaultProxy, type FaultProxy } from '../support/fault-proxy.ts';
import { realRepositories } from '../support/real-repositories.ts';
import { assertNoLeak, composeSidecar, forbiddenText, refreshCode, withoutRevision, type ComposedSidecar } from './harness.ts';

const walListing = (r: ProxiedRequest) => s3.list(r) && (r.query.get('prefix') ?? '').endsWith('/wals/') && !r.query.has('delimiter');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Asserts the current publication is a failed attempt of `category` that kept generation 1. */
function assertRetained(sidecar: ComposedSidecar, category: string, healthyRevision: number): void {
  const p = sidecar.current();
  assert.deepEqual(
    [p.revision, p.generation, p.snapshot.stale, p.snapshot.state, p.snapshot.reason.code, p.snapshot.inventory.last_failure_category, p.snapshot.completeness],
    [healthyRevision + 1, 1, true, 'unknown', refreshCode(category as never), category, 'complete'],
  );
  assert.ok(p.snapshot.capabilities.every((c) => c.state === 'unknown'));
}

describe('cancellation and budgets against the real store', () => {
  let proxy: FaultProxy;
  before(async () => {
    proxy = await startFaultProxy(realRepositories().endpoint);
  });
  after(() => proxy.close());

  it('a shutdown in the middle of a scan ends at once, publishes nothing and keeps the previous publication', async () => {
    const scanTimeoutMs = 60_000;
    const sidecar = await composeSidecar({ proxy, scanTimeoutMs });
    try {
      await sidecar.refresher.refreshNow();
      const before = sidecar.current();
      const snapshot = await sidecar.get('/api/v1alpha1/snapshot');
      const pages = await sidecar.collections();
      // The catalog is read; the WAL listing never answers.
      const rule = proxy.inject(walListing, { kind: 'hang' });
      const scan = sidecar.refresher.refreshNow();
      while (rule.hits === 0) await sleep(10);
      const published = sidecar.published.length;
      const t0 = performance.now();
      await sidecar.refresher.stop();
      await scan;
      const stopMs = performance.now() - t0;
      assert.ok(stopMs < scanTimeoutMs / 4, `the shutdown waited ${Math.round(stopMs)} ms`);
      assert.equal(sidecar.published.length, published, 'a shutdown is no refresh result: nothing is published');
      assert.equal(sidecar.current(), before);
      const after = await sidecar.get('/api/v1alpha1/snapshot');
      assert.equal(after.body, snapshot.body, 'the same publication, byte for byte');
      assert.deepEqual(await sidecar.collections(), pages);
      const until = Date.now() + 10_000;
      while (proxy.open > 0 && Date.now() < until) await sleep(50);
      assert.equal(proxy.open, 0, 'the request in flight was not canceled');
      assertNoLeak(sidecar.logLines, forbiddenText(proxy), 'log line');
    } finally {
      proxy.liftAll();
      await sidecar.close();
    }
  });

  it('SCAN_MAX_PAGES reached (the repository grew past it): safety_limit, pages examined within the budget, generation kept', async () => {
    let pageSize = 1000;
    const sidecar = await composeSidecar({ proxy, pageSize: () => pageSize, env: { SCAN_MAX_PAGES: '6' } });
    try {
      await sidecar.refresher.refreshNow();
      const healthy = sidecar.current();
      assert.equal(healthy.generation, 1);
      assert.ok(healthy.snapshot.inventory.pages_examined <= 6, String(healthy.snapshot.inventory.pages_examined));
      const pages = await sidecar.collections();
      // The same keys in pages of 2: more pages than the budget.
      pageSize = 2;
      await sidecar.refresher.refreshNow();
      assertRetained(sidecar, 'safety_limit', healthy.revision);
      const inventory = sidecar.current().snapshot.inventory;
      assert.ok(inventory.pages_examined <= 6, `pages_examined ${inventory.pages_examined} passed the budget`);
      assert.deepEqual(withoutRevision(await sidecar.collections()), withoutRevision(pages));
      pageSize = 1000;
      await sidecar.refresher.refreshNow();
      assert.deepEqual([sidecar.current().generation, sidecar.current().snapshot.stale], [2, false]);
    } finally {
      await sidecar.close();
    }
  });

  it('SCAN_MAX_OBJECTS reached (one more object listed): safety_limit, objects examined within the budget, generation kept', async () => {
    // The budget is exactly what the repository holds. Its size is learned, not assumed: how many
    // segments PostgreSQL archives while the fixture is built varies from machine to machine.
    const counting = await composeSidecar({ proxy, pageSize: 1000 });
    let budget: number;
    try {
      await counting.refresher.refreshNow();
      assert.equal(counting.current().generation, 1);
      budget = counting.current().snapshot.inventory.objects_examined;
      assert.ok(budget > 0);
    } finally {
      await counting.close();
    }
    const sidecar = await composeSidecar({ proxy, pageSize: 1000, env: { SCAN_MAX_OBJECTS: String(budget) } });
    try {
      await sidecar.refresher.refreshNow();
      const healthy = sidecar.current();
      assert.deepEqual([healthy.generation, healthy.snapshot.inventory.objects_examined], [1, budget], `the scan examines the ${budget} listed objects, the budget exactly`);
      // The WAL area lists one more segment than it holds: past every segment a build archives, so
      // the page stays in key order whatever positions PostgreSQL reached.
      const extra = `<Contents><Key>${realRepositories().prefix}/pg-main/wals/0000000200000000/0000000200000000000000FF.gz</Key><LastModified>2026-01-01T00:00:00.000Z</LastModified><ETag>"0"</ETag><Size>16400</Size><StorageClass>STANDARD</StorageClass></Contents>`;
      const rule = proxy.inject(walListing, { kind: 'rewrite-body', rewrite: (b) => b.replace('</ListBucketResult>', `${extra}</ListBucketResult>`) });
      await sidecar.refresher.refreshNow();
      assert.ok(rule.hits > 0);
      assertRetained(sidecar, 'safety_limit', healthy.revision);
      assert.ok(sidecar.current().snapshot.inventory.objects_examined <= budget);
      rule.lift();
      await sidecar.refresher.refreshNow();
      assert.deepEqual([sidecar.current().generation, sidecar.current().snapshot.stale], [2, false]);
    } finally {
      proxy.liftAll();
      await sidecar.close();
    }
  });

  it('SCAN_TIMEOUT_SECONDS reached (a slow store): timeout at the deadline, generation kept', async () => {
    const scanTimeoutMs = 1_500;
    const sidecar = await composeSidecar({ proxy, scanTimeoutMs });
    try {
      await sidecar.refresher.refreshNow();
      const healthy = sidecar.current();
      assert.equal(healthy.generation, 1);
      proxy.inject(walListing, { kind: 'delay', ms: 4_000 });
      const t0 = performance.now();
      await sidecar.refresher.refreshNow();
      const ms = performance.now() - t0;
      assertRetained(sidecar, 'timeout', healthy.revision);
      assert.ok(ms >= scanTimeoutMs - 50 && ms < scanTimeoutMs + 10_000, `the attempt took ${Math.round(ms)} ms`);
    } finally {
      proxy.liftAll();
      await sidecar.close();
    }
  });

  it('a store that never answers anything: the first scan is a timeout at its deadline, generation 0, /readyz 503', async () => {
    const scanTimeoutMs = 2_000;
    proxy.inject(s3.any, { kind: 'hang' });
    const sidecar = await composeSidecar({ proxy, scanTimeoutMs });
    try {
      const t0 = performance.now();
      await sidecar.refresher.refreshNow();
      const ms = performance.now() - t0;
      assert.ok(ms >= scanTimeoutMs - 50 && ms < scanTimeoutMs + 10_000, `the attempt took ${Math.round(ms)} ms`);
      const p = sidecar.current();
      assert.deepEqual(
        [p.generation, p.snapshot.completeness, p.snapshot.stale, p.snapshot.state, p.snapshot.reason.code, p.snapshot.inventory.last_failure_category, p.snapshot.inventory.known, p.snapshot.started_at],
        [0, 'incomplete', true, 'unknown', 'refresh-timeout', 'timeout', false, null],
      );
      const snapshot = await sidecar.get('/api/v1alpha1/snapshot');
      assert.equal(snapshot.body, p.snapshotJson);
      await sidecar.readyzBecomes(503);
      assertNoLeak([snapshot.body, ...sidecar.logLines], forbiddenText(proxy), 'response or log line');
    } finally {
      proxy.liftAll();
      await sidecar.close();
    }
  });
});
