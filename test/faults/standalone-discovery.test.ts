/**
 * Standalone mode in discovery mode (no ARCHIVE_SERVER_NAMES), the real executable against the
 * real repositories in Swift behind the fault proxy (D-77). The server listens before discovery
 * and discovery never holds it back: while the destination's listing hangs, `/healthz` answers 200
 * at once, `/readyz` stays 503 (no lightweight listing has succeeded), `/` and `/wals` answer with
 * a page saying discovery is in progress (scopes unknown, never "0"), and SIGTERM still ends the
 * process. While only discovery is slow, `/readyz` follows the reachability check alone, and the
 * scopes appear once discovery ends.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { s3, startFaultProxy, type FaultProxy, type RequestLine } from '../support/fault-proxy.ts';
import { realRepositories } from '../support/real-repositories.ts';
import { startStandalone, type RunningViewer } from '../support/run-viewer.ts';

/** Generous bounds: a loaded machine must not fail these, a server held back by discovery (30 s) must. */
const LISTEN_WITHIN_MS = 15_000;
const ANSWER_WITHIN_MS = 5_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(what: string, check: () => boolean | Promise<boolean>, withinMs = 20_000): Promise<void> {
  const deadline = Date.now() + withinMs;
  while (!(await check())) {
    if (Date.now() > deadline) assert.fail(`${what}: not within ${withinMs} ms`);
    await sleep(50);
  }
}

describe('standalone discovery mode behind a hanging or slow store', () => {
  let proxy: FaultProxy;
  let dir = '';
  let env: Record<string, string> = {};
  let root = '';
  const running: RunningViewer[] = [];

  before(async () => {
    const repos = realRepositories();
    proxy = await startFaultProxy(repos.endpoint);
    dir = mkdtempSync(join(tmpdir(), 'viewer-discovery-'));
    writeFileSync(join(dir, 'id'), repos.accessKeyId);
    writeFileSync(join(dir, 'secret'), repos.secretAccessKey);
    root = `${repos.prefix}/`;
    env = {
      DESTINATION_PATH: `s3://${repos.bucket}/${repos.prefix}`,
      STORE_ENDPOINT_URL: proxy.url,
      STORE_ACCESS_KEY_ID_FILE: join(dir, 'id'),
      STORE_SECRET_ACCESS_KEY_FILE: join(dir, 'secret'),
    };
  });
  after(async () => {
    for (const v of running) if (v.child.exitCode === null && v.child.signalCode === null) v.child.kill('SIGKILL');
    await proxy.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Discovery's own listing: the delimiter listing of the destination (the reachability check asks for one key). */
  const discoveryListing = (r: RequestLine) => s3.list(r) && r.query.get('delimiter') === '/' && r.query.get('prefix') === root && r.query.get('max-keys') !== '1';

  const start = async (): Promise<RunningViewer> => {
    const started = startStandalone(env);
    const viewer = await Promise.race([started, sleep(LISTEN_WITHIN_MS).then(() => null)]);
    if (viewer === null) {
      void started.then((v) => v.child.kill('SIGKILL'), () => undefined);
      assert.fail(`the server did not listen within ${LISTEN_WITHIN_MS} ms while discovery was held`);
    }
    running.push(viewer);
    return viewer;
  };
  const get = async (viewer: RunningViewer, path: string) => {
    const r = await fetch(new URL(path, viewer.base), { signal: AbortSignal.timeout(ANSWER_WITHIN_MS) });
    return { status: r.status, body: await r.text() };
  };
  const inProgress = (body: string) => /<strong>Discovery in progress:<\/strong>/.test(body);

  it('a hanging store: /healthz 200 at once, /readyz 503, the pages say discovery is in progress, SIGTERM ends it', async () => {
    const hang = proxy.inject(s3.list, { kind: 'hang' }, { name: 'every listing hangs' });
    try {
      const viewer = await start();
      // Discovery's listing is held at the proxy: the answers below are given while it hangs.
      await until('discovery listing reached the store', () => proxy.count((r) => discoveryListing(r)) >= 1);

      const health = await get(viewer, '/healthz');
      assert.equal(health.status, 200);
      assert.match(health.body, /"status":"live"/);
      const ready = await get(viewer, '/readyz');
      assert.equal(ready.status, 503);
      assert.match(ready.body, /"status":"not-ready"/);

      const inventory = await get(viewer, '/');
      assert.equal(inventory.status, 200);
      assert.ok(inProgress(inventory.body), 'the inventory says discovery is in progress');
      assert.match(inventory.body, /Server scopes: <span class="muted">unknown<\/span>, discovery in progress\./);
      assert.doesNotMatch(inventory.body, /0 server scopes/);
      const wals = await get(viewer, '/wals');
      assert.equal(wals.status, 200);
      assert.ok(inProgress(wals.body), 'the WAL browser says discovery is in progress');
      assert.ok(hang.hits >= 1 && proxy.open >= 1, 'the listings were still hanging');

      const exited = new Promise<number | null>((resolve) => viewer.child.once('exit', (code) => resolve(code)));
      viewer.child.kill('SIGTERM');
      const code = await Promise.race([exited, sleep(20_000).then(() => 'still running' as const)]);
      assert.equal(code, 0);
    } finally {
      hang.lift();
    }
  });

  it('a slow discovery: /readyz follows the reachability check alone, and the scopes appear once discovery ends', async () => {
    proxy.clearLog();
    const slow = proxy.inject(discoveryListing, { kind: 'delay', ms: 12_000 }, { name: 'discovery is slow', times: 1 });
    try {
      const viewer = await start();
      await until('discovery listing reached the store', () => slow.seen >= 1);
      assert.equal((await get(viewer, '/healthz')).status, 200);
      assert.ok(inProgress((await get(viewer, '/')).body), 'the inventory says discovery is in progress');
      // Ready is configuration plus a lightweight listing that succeeded, never a scan or discovery.
      await until('/readyz 200', async () => (await get(viewer, '/readyz')).status === 200);
      assert.ok(inProgress((await get(viewer, '/')).body), 'ready while discovery was still running');

      await until('both scopes discovered', async () => /2 server scopes: <code>pg-main<\/code>, <code>pg-wal1m<\/code>/.test((await get(viewer, '/')).body), 40_000);
      const page = (await get(viewer, '/')).body;
      assert.ok(!inProgress(page), 'the notice is gone once discovery ended');
      viewer.child.kill('SIGTERM');
    } finally {
      slow.lift();
    }
  });
});
