/**
 * Store faults by status, injected between the sidecar and the real Swift S3 store (fault-proxy.ts),
 * the real `pg-main` repository behind it, the sidecar composed in-process (harness.ts). For each:
 * the category the spec names, the SDK's attempts per request (throttling and 5xx retried to
 * maxAttempts 3, 403 and 404 never retried), the previous generation served byte for byte under a
 * new stale revision with every dependent state `unknown` and a typed reason, `/readyz` 503 only
 * when the lightweight reachability listing fails too, no provider text in any response or log line;
 * then the fault lifted and a new generation published.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { s3, s3Error, startFaultProxy, type FaultProxy } from '../support/fault-proxy.ts';
import { realRepositories } from '../support/real-repositories.ts';
import { runFaultCase } from './harness.ts';

describe('S3 status faults against the real store', () => {
  let proxy: FaultProxy;
  before(async () => {
    proxy = await startFaultProxy(realRepositories().endpoint);
  });
  after(() => proxy.close());

  it('503 SlowDown on every listing: throttled, each listing tried 3 times, readiness lost', async () => {
    const r = await runFaultCase(proxy, { match: s3.list, fault: s3Error(503, 'SlowDown'), category: 'throttled', attempts: 3, readiness: 'lost' });
    // The scan starts with two listings side by side (the backup catalog and the WAL area's
    // directories); both fail, nothing else is requested.
    assert.deepEqual([r.invocations, r.faulted], [2, 6]);
  });

  it('429 Too Many Requests on every listing: throttled, retried like SlowDown', async () => {
    const r = await runFaultCase(proxy, { match: s3.list, fault: { kind: 'respond', status: 429, body: '' }, category: 'throttled', attempts: 3, readiness: 'lost' });
    assert.deepEqual([r.invocations, r.faulted], [2, 6]);
  });

  it('403 AccessDenied on every listing: authorization, never retried', async () => {
    const r = await runFaultCase(proxy, { match: s3.list, fault: s3Error(403, 'AccessDenied', { bucket: 'barman' }), category: 'authorization', attempts: 1, readiness: 'lost' });
    assert.deepEqual([r.invocations, r.faulted], [2, 2]);
  });

  it('404 NoSuchBucket on every listing: not_found, never retried', async () => {
    const r = await runFaultCase(proxy, { match: s3.list, fault: s3Error(404, 'NoSuchBucket', { bucket: 'barman' }), category: 'not_found', attempts: 1, readiness: 'lost' });
    assert.deepEqual([r.invocations, r.faulted], [2, 2]);
  });

  it('500 InternalError on every listing: unavailable, retried as transient', async () => {
    const r = await runFaultCase(proxy, { match: s3.list, fault: s3Error(500, 'InternalError'), category: 'unavailable', attempts: 3, readiness: 'lost' });
    assert.deepEqual([r.invocations, r.faulted], [2, 6]);
  });

  it('503 SlowDown on object reads only: throttled; the reachability listing still succeeds, so /readyz stays ready', async () => {
    const r = await runFaultCase(proxy, { match: s3.get, fault: s3Error(503, 'SlowDown', { key: 'fixtures/pg-main/base/x/backup.info' }), category: 'throttled', attempts: 3, readiness: 'kept' });
    // Every backup.info and keep read of the catalog is in flight at once (SCAN_CONCURRENCY 8): 5 reads at most.
    assert.ok(r.invocations >= 1 && r.invocations <= 5, String(r.invocations));
  });

  it('403 AccessDenied on object reads only: authorization, never retried, /readyz stays ready', async () => {
    const r = await runFaultCase(proxy, { match: s3.get, fault: s3Error(403, 'AccessDenied', { key: 'fixtures/pg-main/base/x/backup.info' }), category: 'authorization', attempts: 1, readiness: 'kept' });
    assert.equal(r.faulted, r.invocations);
  });
});
