/**
 * Store faults in the answer itself, between the sidecar and the real Swift S3 store: a store that
 * never answers, a connection reset in the middle of a body, listing XML cut short or not a listing
 * at all, and one page of a listing lost. Each is checked end to end by `runFaultCase`
 * (harness.ts); the page faults use the listing's pages of 4 keys.
 *
 * "Dropping the n-th page" is modelled the two ways a real store loses a page: it fails (a 500 for
 * that continuation request, once — the SDK's retry heals it and the generation is complete — or
 * every time — `unavailable`), or it answers that page empty, still truncated, without the token of
 * the next page (a store that lost its place). The second must never read as the end of the
 * listing: that would publish a short listing as a complete generation.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { s3, startFaultProxy, type FaultProxy, type ProxiedRequest } from '../support/fault-proxy.ts';
import { realRepositories } from '../support/real-repositories.ts';
import { composeSidecar, runFaultCase, scanRequest, withoutRevision } from './harness.ts';

/** The pages after the first of the flat listing of the WAL area (pages of 4 keys). */
const walContinuation = (r: ProxiedRequest) => s3.continuation(r) && (r.query.get('prefix') ?? '').endsWith('/wals/') && !r.query.has('delimiter');

describe('S3 answer faults against the real store', () => {
  let proxy: FaultProxy;
  before(async () => {
    proxy = await startFaultProxy(realRepositories().endpoint);
  });
  after(() => proxy.close());

  it('a store that never answers a listing: timeout at the scan deadline, the hung request closed', async () => {
    const scanTimeoutMs = 2_500;
    const r = await runFaultCase(proxy, { match: s3.list, fault: { kind: 'hang' }, category: 'timeout', attempts: 1, readiness: 'lost', compose: { scanTimeoutMs } });
    assert.ok(r.failedRefreshMs >= scanTimeoutMs - 50, `the refresh ended before its deadline (${r.failedRefreshMs} ms)`);
    assert.ok(r.failedRefreshMs < scanTimeoutMs + 15_000, `the refresh outlived its deadline by far (${r.failedRefreshMs} ms)`);
    // The two listings the scan started were abandoned at the deadline: sent once, never retried.
    assert.equal(r.invocations, 2);
    const until = Date.now() + 10_000;
    while (proxy.open > 0 && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(proxy.open, 0, 'a hung request was left open after the scan gave up');
  });

  it('a connection reset in the middle of a listing body: unavailable, retried', async () => {
    await runFaultCase(proxy, { match: s3.list, fault: { kind: 'reset-mid-body' }, category: 'unavailable', attempts: 3, readiness: 'lost' });
  });

  it('a connection reset in the middle of an object body: unavailable (a body already handed over is not retried by the SDK)', async () => {
    await runFaultCase(proxy, { match: s3.get, fault: { kind: 'reset-mid-body' }, category: 'unavailable', attempts: 1, readiness: 'kept' });
  });

  it('listing XML cut short (a complete HTTP message): incompatible_format, not retried', async () => {
    await runFaultCase(proxy, { match: s3.list, fault: { kind: 'truncate-body', keep: (n) => Math.floor(n / 2) }, category: 'incompatible_format', attempts: 1, readiness: 'lost' });
  });

  it('a 200 that is no listing (an HTML page): incompatible_format, never an empty listing', async () => {
    await runFaultCase(proxy, { match: s3.list, fault: { kind: 'rewrite-body', rewrite: () => '<html><body><h1>Welcome</h1></body></html>' }, category: 'incompatible_format', attempts: 1, readiness: 'lost' });
  });

  it('the second page of the WAL listing fails every time: unavailable after 3 attempts of that page', async () => {
    const r = await runFaultCase(proxy, { match: walContinuation, fault: { kind: 'respond', status: 500, body: '' }, rule: { times: 3 }, category: 'unavailable', attempts: 3, readiness: 'kept' });
    assert.deepEqual([r.invocations, r.faulted], [1, 3]);
  });

  it('the second page of the WAL listing answered empty, still truncated, without a next token: incompatible_format, never the end of the listing', async () => {
    const lost = (body: string) =>
      body
        .replace(/<Contents>[\s\S]*<\/Contents>/, '')
        .replace(/<NextContinuationToken>[\s\S]*?<\/NextContinuationToken>/, '')
        .replace(/<KeyCount>\d+<\/KeyCount>/, '<KeyCount>0</KeyCount>');
    const r = await runFaultCase(proxy, { match: walContinuation, fault: { kind: 'rewrite-body', rewrite: lost }, rule: { times: 1 }, category: 'incompatible_format', attempts: 1, readiness: 'kept' });
    assert.deepEqual([r.invocations, r.faulted], [1, 1]);
  });

  it('the second page of the WAL listing fails once: the SDK retries it and the generation is complete and the same', async () => {
    const sidecar = await composeSidecar({ proxy });
    try {
      proxy.clearLog();
      await sidecar.refresher.refreshNow();
      const first = await sidecar.collections();
      const objects = sidecar.current().snapshot.inventory.object_count;
      // How many pages a healthy scan lists depends on how many segments the fixture holds, which
      // varies from machine to machine: measured, not assumed.
      const healthyPages = proxy.count((r) => scanRequest(r) && s3.list(r));
      assert.ok(healthyPages >= 3, `the WAL listing has a second page (${healthyPages} listing pages)`);
      proxy.clearLog();
      const rule = proxy.inject(walContinuation, { kind: 'respond', status: 500, body: '' }, { times: 1, name: 'once' });
      await sidecar.refresher.refreshNow();
      const p = sidecar.current();
      assert.deepEqual([p.generation, p.snapshot.stale, p.snapshot.inventory.last_failure_category, p.snapshot.inventory.object_count], [2, false, null, objects]);
      assert.equal(rule.hits, 1);
      const failed = proxy.log.find((r) => r.fault === 'once');
      const tries = proxy.log.filter((r) => r.invocation === failed?.invocation).map((r) => r.attempt?.n);
      assert.deepEqual(tries, [1, 2], 'the failed page was asked again, once');
      assert.equal(proxy.count((r) => scanRequest(r) && s3.list(r)), healthyPages + 1, `the ${healthyPages} listing pages of a healthy scan, one of them twice`);
      // Backups, WAL ranges and recovery paths are the same items (gaps carry their observed generation).
      const same = (pages: Record<string, string[]>) => {
        const plain = withoutRevision(pages);
        return ['backups', 'wal-ranges', 'recovery-paths'].map((route) => plain[route]?.map((b) => b.replace(/"evidence_generation":\d+,/, '')));
      };
      assert.deepEqual(same(await sidecar.collections()), same(first));
    } finally {
      proxy.liftAll();
      await sidecar.close();
    }
  });
});
