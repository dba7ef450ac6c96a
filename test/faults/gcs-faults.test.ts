/**
 * Store faults on store-c: the Cloud Storage emulator behind the fault proxy, holding the demo
 * repository, scanned by the real GCS driver through a standalone scope composed in-process
 * (provider-harness.ts). rateLimitExceeded (429) is throttling, retried by the SDK (3 tries);
 * forbidden and a missing bucket are not retried; a 200 that is no `objects.list` answer is
 * `incompatible_format`; a store that never answers ends at the scan's deadline although the SDK
 * takes no abort signal (before, the listing waited out the SDK's own 60 s timeout, three times);
 * and the real executable, sent SIGTERM while such a listing hangs, exits within its grace period.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Storage } from '@google-cloud/storage';
import { demoObjects } from '../support/demo-objects.ts';
import { CANARY, gcs, gcsError, startFaultProxy, type FaultProxy } from '../support/fault-proxy.ts';
import { startGcsEmulator, type GcsEmulator } from '../support/gcs-emulator.ts';
import { runProviderFault } from './provider-harness.ts';
import { startStandalone } from '../support/run-viewer.ts';

describe('Cloud Storage faults against the emulator', () => {
  let emulator: GcsEmulator;
  let proxy: FaultProxy;
  let env: Record<string, string>;
  let forbidden: (string | RegExp)[];
  const prefix = 'faults';

  before(async () => {
    emulator = await startGcsEmulator();
    const bucket = new Storage({ apiEndpoint: emulator.endpoint, projectId: 'viewer' }).bucket('barman');
    for (const o of await demoObjects()) await bucket.file(`${prefix}/${o.key.split('/').slice(1).join('/')}`).save(Buffer.from(o.body), { resumable: false });
    proxy = await startFaultProxy(emulator.endpoint);
    env = { PROVIDER: 'store-c', DESTINATION_PATH: `gs://barman/${prefix}`, STORE_ENDPOINT_URL: proxy.url };
    forbidden = [CANARY, proxy.url, `127.0.0.1:${proxy.port}`, '"barman"', `${prefix}/`, /rateLimitExceeded|forbidden|notFound|storage#/, /pg-main\/|(?:base|wals)\/[0-9A-F]{8}/];
  });
  after(async () => {
    await proxy.close();
    emulator.stop();
  });

  it('429 rateLimitExceeded on every listing: throttled, each listing tried 3 times', async () => {
    await runProviderFault(proxy, env, forbidden, { match: gcs.list, fault: gcsError(429, 'rateLimitExceeded'), category: 'throttled', attempts: 3 });
  });

  it('403 forbidden on every listing: authorization, not retried', async () => {
    await runProviderFault(proxy, env, forbidden, { match: gcs.list, fault: gcsError(403, 'forbidden'), category: 'authorization', attempts: 1 });
  });

  it('404 notFound on every listing (no bucket): not_found, not retried', async () => {
    await runProviderFault(proxy, env, forbidden, { match: gcs.list, fault: gcsError(404, 'notFound'), category: 'not_found', attempts: 1 });
  });

  it('a 200 that is some other JSON document: incompatible_format, never an empty listing', async () => {
    await runProviderFault(proxy, env, forbidden, { match: gcs.list, fault: { kind: 'rewrite-body', rewrite: () => '{"kind":"storage#buckets"}' }, category: 'incompatible_format', attempts: 1 });
  });

  it('SIGTERM while a listing hangs: the real executable shuts down within its grace period, although the SDK cannot cancel the request', async () => {
    const hang = proxy.inject(gcs.list, { kind: 'hang' });
    try {
      const viewer = await startStandalone({ ...env, ARCHIVE_SERVER_NAMES: 'pg-main' });
      // The first scan is under way and its listing hangs at the proxy.
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      const t0 = performance.now();
      const exited = new Promise<number | null>((resolve) => viewer.child.once('exit', (code) => resolve(code)));
      viewer.child.kill('SIGTERM');
      const code = await Promise.race([exited, new Promise<'still running'>((resolve) => setTimeout(() => resolve('still running'), 20_000))]);
      if (code === 'still running') viewer.child.kill('SIGKILL');
      assert.equal(code, 0);
      // The standalone server's grace period is 15 s (the spec's graceful shutdown).
      assert.ok(performance.now() - t0 < 15_000, `${Math.round(performance.now() - t0)} ms`);
      assert.ok(hang.hits >= 1);
    } finally {
      hang.lift();
    }
  });

  it('a store that never answers a listing: timeout at the scan deadline, not the SDK\'s own', async () => {
    const scanTimeoutMs = 2_000;
    const r = await runProviderFault(proxy, env, forbidden, { match: gcs.list, fault: { kind: 'hang' }, category: 'timeout', attempts: 1, scanTimeoutMs });
    assert.ok(r.failedRefreshMs >= scanTimeoutMs - 50 && r.failedRefreshMs < scanTimeoutMs + 10_000, `${Math.round(r.failedRefreshMs)} ms`);
  });
});
