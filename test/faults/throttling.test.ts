/**
 * Throttling without a retry storm (D-74), against the real Swift S3 store behind the fault proxy:
 *
 * - one scan under a sustained 503 SlowDown sends at most maxAttempts (3) × the requests it has in
 *   flight when the first one gives up, and nothing after it has failed;
 * - a scan that fails stops its other reads: the requests it left in flight are canceled and no
 *   lane of its bounded-concurrency reads takes another object;
 * - the refresher backs off between failed attempts (twice, then four times the interval) and
 *   publishes a new generation once the store answers again;
 * - the SDK's retry quota (standard mode: 500 tokens, 5 a throttled retry) bounds what one process
 *   retries in a burst, whatever the scan does.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { StoreError } from '../../src/common/errors.ts';
import { MAX_BACKOFF_FACTOR, type ScanFunction } from '../../src/publication/refresher.ts';
import { createS3Driver } from '../../src/store/s3/s3-driver.ts';
import { s3, s3Error, startFaultProxy, type FaultProxy } from '../support/fault-proxy.ts';
import { realRepositories } from '../support/real-repositories.ts';
import { composeSidecar, scanRequest } from './harness.ts';

const MAX_ATTEMPTS = 3;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('throttling without a retry storm', () => {
  let proxy: FaultProxy;
  before(async () => {
    proxy = await startFaultProxy(realRepositories().endpoint);
  });
  after(() => proxy.close());

  it('one scan under a sustained SlowDown on every request: maxAttempts × the requests in flight, and nothing after the scan failed', async () => {
    const sidecar = await composeSidecar({ proxy, reachability: false });
    try {
      await sidecar.refresher.refreshNow();
      proxy.clearLog();
      proxy.inject(s3.any, s3Error(503, 'SlowDown'));
      await sidecar.refresher.refreshNow();
      assert.equal(sidecar.current().snapshot.inventory.last_failure_category, 'throttled');
      const sent = proxy.count(scanRequest);
      // The scan starts with two listings side by side; each is tried maxAttempts times, then the
      // scan fails. Nothing else was started (no listing answered, so nothing was read).
      const invocations = new Set(proxy.log.map((r) => r.invocation));
      assert.deepEqual([invocations.size, sent], [2, 2 * MAX_ATTEMPTS]);
      // Longer than any retry delay the SDK could still be waiting out (1 s, then 2 s at most).
      await sleep(3_500);
      assert.equal(proxy.count(scanRequest), sent, 'requests were sent after the scan had failed');
    } finally {
      proxy.liftAll();
      await sidecar.close();
    }
  });

  it('a scan that fails stops its other reads: the read in flight is canceled and no other object is read', async () => {
    // Two lanes of reads (SCAN_CONCURRENCY 2) over the catalog's 5 reads: the first read is denied
    // at once, every other read takes two seconds. Before the refresher aborted a settled scan's
    // signal, the other lane went on reading the remaining backups' files after the scan had failed
    // (5 reads instead of 3), and its read in flight ran to its end.
    const sidecar = await composeSidecar({ proxy, reachability: false, env: { SCAN_CONCURRENCY: '2' } });
    try {
      await sidecar.refresher.refreshNow();
      // The catalog reads four backup.info files and one keep annotation; then one timeline history.
      assert.equal(proxy.count(s3.get), 6);
      proxy.clearLog();
      proxy.inject(s3.get, s3Error(403, 'AccessDenied'), { times: 1, name: 'denied' });
      proxy.inject(s3.get, { kind: 'delay', ms: 2_000 }, { from: 2, name: 'slow' });
      await sidecar.refresher.refreshNow();
      assert.equal(sidecar.current().snapshot.inventory.last_failure_category, 'authorization');
      // Past the moment the slow reads would have been answered and the lane gone on.
      await sleep(3_500);
      // In flight when it failed: the denied backup.info, and beside it the next backup's backup.info and keep
      // annotation (one backup's two files are read together).
      assert.equal(proxy.count(s3.get), 3, `reads sent: ${proxy.count(s3.get)}`);
      const until = Date.now() + 5_000;
      while (proxy.open > 0 && Date.now() < until) await sleep(50);
      assert.equal(proxy.open, 0, 'the read in flight was not canceled');
    } finally {
      proxy.liftAll();
      await sidecar.close();
    }
  });

  it('the refresher backs off between failed attempts, and the next complete scan publishes a new generation', async () => {
    const intervalMs = 1_000;
    const starts: number[] = [];
    const watch = (scan: ScanFunction): ScanFunction => (signal, next, meter) => {
      starts.push(performance.now());
      return scan(signal, next, meter);
    };
    const sidecar = await composeSidecar({ proxy, reachability: false, intervalMs, jitter: 0, wrapScan: watch });
    try {
      await sidecar.refresher.refreshNow();
      starts.length = 0;
      proxy.clearLog();
      const rule = proxy.inject(s3.any, s3Error(503, 'SlowDown'));
      sidecar.refresher.start();
      const failures = () => new Set(sidecar.published.filter((p) => p.snapshot.inventory.last_failure_category === 'throttled').map((p) => p.revision)).size;
      const until = Date.now() + 30_000;
      while (failures() < 4 && Date.now() < until) await sleep(50);
      assert.equal(failures(), 4, 'four failed attempts were published');
      assert.equal(starts.length, 4, 'four scans were started');
      const gaps = starts.slice(1).map((t, i) => t - (starts[i] as number));
      // Start to start: twice the interval after one failure, four times after two and after three
      // (MAX_BACKOFF_FACTOR); a scan that ran longer is followed at once, so these are lower bounds.
      assert.equal(MAX_BACKOFF_FACTOR, 4);
      const expected = [2, 4, 4].map((f) => f * intervalMs);
      for (const [i, gap] of gaps.entries()) assert.ok(gap >= (expected[i] as number) - 20, `gap ${i + 1} was ${Math.round(gap)} ms, under ${expected[i]} ms`);
      // Every failed scan sent the same bounded number of requests: its two listings, 3 attempts each.
      assert.deepEqual([proxy.log.filter((r) => r.attempt?.n === 1).length, proxy.count(scanRequest)], [4 * 2, 4 * 2 * MAX_ATTEMPTS]);
      const failed = sidecar.current();
      assert.deepEqual([failed.generation, failed.snapshot.stale, failed.snapshot.inventory.last_failure_category], [1, true, 'throttled']);
      rule.lift();
      const recoverBy = Date.now() + 20_000;
      while (sidecar.current().generation < 2 && Date.now() < recoverBy) await sleep(50);
      const recovered = sidecar.current();
      assert.deepEqual([recovered.generation, recovered.snapshot.stale, recovered.snapshot.inventory.last_failure_category], [2, false, null]);
    } finally {
      proxy.liftAll();
      await sidecar.close();
    }
  });

  it("the SDK's retry quota bounds a burst: 60 listings under a sustained SlowDown get 100 retries between them, not 120", async () => {
    const repos = realRepositories();
    const dir = mkdtempSync(join(tmpdir(), 'viewer-quota-'));
    writeFileSync(join(dir, 'id'), repos.accessKeyId);
    writeFileSync(join(dir, 'secret'), repos.secretAccessKey);
    const driver = await createS3Driver({ bucket: repos.bucket, region: null, endpoint: proxy.url, credentials: { mode: 'static-files', accessKeyIdFile: join(dir, 'id'), secretAccessKeyFile: join(dir, 'secret'), sessionTokenFile: null } });
    try {
      proxy.clearLog();
      proxy.inject(s3.list, s3Error(503, 'SlowDown'));
      const results = await Promise.all(
        Array.from({ length: 60 }, () => driver.listPage({ prefix: `${repos.prefix}/pg-main/`, signal: new AbortController().signal }).then(() => 'listed', (e: unknown) => (e instanceof StoreError ? e.category : 'other'))),
      );
      assert.ok(results.every((c) => c === 'throttled'));
      // 500 tokens at 5 a throttled retry: 100 retries, then none until requests succeed again.
      assert.equal(proxy.count(), 60 + 100);
      assert.ok(proxy.log.every((r) => r.attempt !== null && r.attempt.n <= MAX_ATTEMPTS));
    } finally {
      proxy.liftAll();
      driver.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
