/**
 * The standalone web UI, the real executable with no configuration (`npm start`): the embedded demo
 * repository scanned by the real scanner and served on TCP. Checks the four routes and nothing
 * else, the hardening headers, the inventory's contents (every backup kind kept apart, coverage,
 * the picture), the WAL browser's filters and compact missing runs, rejected filters, and that
 * request logs name routes only.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { wireViolations } from '../../src/contract/validate.ts';
import { runViewer, startStandalone, type RunningViewer } from '../support/run-viewer.ts';

describe('standalone UI on the embedded demo', () => {
  let viewer: RunningViewer;
  let base = '';
  const logs = () => viewer.logs();

  before(async () => {
    viewer = await startStandalone({ TRUSTED_USER_HEADER: 'X-Forwarded-User', EXPECTED_MINIMUM_REDUNDANCY: '2', EXPECTED_RETENTION_POLICY: 'RECOVERY WINDOW OF 7 DAYS', WAL_PAGE_SIZE: '2' });
    base = viewer.base;
    // The first scan of the demo is immediate; wait until it is published.
    for (let i = 0; i < 50 && !/"generation":1/.test(logs()); i++) await new Promise((r) => setTimeout(r, 100));
  });
  after(() => {
    viewer.child.kill('SIGTERM');
  });

  const get = async (path: string, headers: Record<string, string> = {}, method = 'GET') => {
    const r = await fetch(new URL(path, base), { method, headers, redirect: 'manual' });
    return { status: r.status, headers: r.headers, body: await r.text() };
  };

  it('serves the inventory with every hardening header and no script', async () => {
    const r = await get('/', { 'X-Forwarded-User': '<b>alice</b>' });
    assert.equal(r.status, 200);
    assert.equal(r.headers.get('cache-control'), 'no-store');
    const csp = r.headers.get('content-security-policy') ?? '';
    assert.match(csp, /default-src 'none'/);
    assert.match(csp, /frame-ancestors 'none'/);
    assert.match(csp, /style-src 'sha256-[A-Za-z0-9+/=]+'/);
    assert.doesNotMatch(csp, /script-src|unsafe-inline/);
    assert.equal(r.headers.get('x-content-type-options'), 'nosniff');
    assert.equal(r.headers.get('referrer-policy'), 'no-referrer');
    assert.doesNotMatch(r.body, /<script/i);
    assert.match(r.body, /signed in as &lt;b&gt;alice&lt;\/b&gt;/);
  });

  it('keeps completed, failed, in-progress and incomplete backups apart and shows coverage', async () => {
    const body = (await get('/')).body;
    for (const heading of ['Completed (3)', 'Failed (1)', 'In progress or abandoned (1)']) assert.ok(body.includes(heading), heading);
    assert.match(body, /Observed recovery coverage to timeline 2/);
    assert.match(body, /gap-limited/);
    assert.match(body, /frontier/);
    assert.doesNotMatch(body, /restorable until|restore verified|exact recovery window/i);
    assert.match(body, /2 expected, 3 structurally usable/);
    assert.match(body, /RECOVERY WINDOW OF 7 DAYS/);
    assert.match(body, /<svg role="img"/);
    assert.match(body, /class="gap-confirmed"/);
    assert.match(body, /Recently received objects/);
  });

  it('browses WAL compactly, filters, pages by WAL_PAGE_SIZE and rejects bad filters', async () => {
    const all = await get('/wals');
    assert.equal(all.status, 200);
    assert.match(all.body, /page 1 of \d+/);
    const gaps = await get('/wals?class=segment&timeline=1&from=000000010000000000000015&to=000000010000000000000017');
    assert.match(gaps.body, /<strong>missing<\/strong> 1 segment \(confirmed gap\)/);
    // The hole retention left after the demo's keep:standalone backup is listed as expected.
    const retention = await get('/wals?class=segment&timeline=1&from=000000010000000000000005&to=000000010000000000000012');
    assert.match(retention.body, /<strong>missing<\/strong> 14 segments \(confirmed gap with the shape Barman&#39;s retention leaves \(expected\)\)/);
    const partial = await get('/wals?class=partial');
    assert.match(partial.body, /partial segment/);
    for (const q of ['class=everything', 'timeline=0', 'from=zzz', 'server=nope', 'from=000000010000000000000017&to=000000010000000000000015', 'page=-1', 'class=segment&class=partial', 'bogus=1']) {
      const r = await get(`/wals?${q}`);
      assert.equal(r.status, 400, q);
      assert.match(r.body, /Filter rejected/);
    }
  });

  it('answers request targets a URL parser refuses or reads as a host with 404 (no route, D-76) and keeps serving', async () => {
    const { hostname, port } = new URL(base);
    const raw = (target: string) =>
      new Promise<string>((resolve, reject) => {
        const socket = connect(Number(port), hostname, () => socket.write(`GET ${target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`));
        let got = '';
        socket.on('data', (c: Buffer) => (got += c.toString()));
        socket.on('end', () => resolve(got));
        socket.on('error', reject);
      });
    for (const target of ['//', '//x:99999', '//[']) assert.match(await raw(target), /^HTTP\/1\.1 404 /, target);
    assert.equal((await get('/')).status, 200);
  });

  it('serves health and readiness, and only the four routes with GET', async () => {
    const h = await get('/healthz');
    assert.equal(h.status, 200);
    assert.deepEqual(wireViolations('HealthStatus', JSON.parse(h.body)), []);
    const ready = await get('/readyz');
    assert.equal(ready.status, 200);
    assert.equal((await get('/nope')).status, 404);
    assert.equal((await get('/api/v1alpha1/snapshot')).status, 404);
    const post = await get('/', {}, 'POST');
    assert.equal(post.status, 405);
    assert.equal(post.headers.get('allow'), 'GET');
  });

  it('names the server of each publication in its log (configuration, not a secret)', () => {
    const published = logs().split('\n').filter((l) => l.includes('"msg":"published"'));
    assert.ok(published.length > 0);
    for (const line of published) assert.match(line, /"server":"pg-main","revision":\d+,"generation":\d+,"code":"[a-z-]+","state":"(healthy|warning|unhealthy|unknown)"/);
  });

  it('logs route names only: no query, no identity header', async () => {
    await get('/wals?class=segment&timeline=1', { 'X-Forwarded-User': 'mallory-identity' });
    await new Promise((r) => setTimeout(r, 100));
    const requests = logs().split('\n').filter((l) => l.includes('"msg":"request"'));
    assert.ok(requests.length > 5);
    for (const line of requests) {
      assert.match(line, /"route":"(\/|\/wals|\/healthz|\/readyz|unknown)"/);
      assert.doesNotMatch(line, /class=|timeline=|mallory|alice/);
    }
  });
});

describe('standalone UI before any scan has completed', () => {
  let viewer: RunningViewer;
  let dir = '';

  before(async () => {
    // A store nobody listens on: every attempt fails, so no generation is ever published.
    dir = mkdtempSync(join(tmpdir(), 'viewer-ui-unreached-'));
    writeFileSync(join(dir, 'id'), 'AKIDEXAMPLE\n');
    writeFileSync(join(dir, 'secret'), 'not-a-real-secret\n');
    viewer = await startStandalone({
      DESTINATION_PATH: 's3://unreached-bucket/pg',
      ARCHIVE_SERVER_NAMES: 'pg-main',
      STORE_ENDPOINT_URL: 'http://127.0.0.1:9',
      STORE_ACCESS_KEY_ID_FILE: join(dir, 'id'),
      STORE_SECRET_ACCESS_KEY_FILE: join(dir, 'secret'),
    });
    for (let i = 0; i < 100 && !/"code":"refresh-/.test(viewer.logs()); i++) await new Promise((r) => setTimeout(r, 100));
  });
  after(() => {
    viewer.child.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  });

  it('shows the counted WAL classes as unknown, never as zero, on /wals', async () => {
    assert.match(viewer.logs(), /"generation":0,"code":"refresh-/);
    for (const c of ['backup-history', 'duplicate', 'unknown']) {
      const body = await (await fetch(new URL(`/wals?class=${c}`, viewer.base))).text();
      assert.match(body, new RegExp(`Objects of class ${c}: <span class="muted">unknown</span>`), c);
      assert.doesNotMatch(body, /counted exactly/, c);
    }
  });
});

describe('standalone start-up', () => {
  it('an address that cannot be bound is a refused start (78) with one line, not a crash', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const { port } = taken.address() as { port: number };
    try {
      const r = await runViewer([], { LISTEN_ADDR: `127.0.0.1:${port}` });
      assert.equal(r.status, 78);
      assert.equal(r.stderr, 'viewer: LISTEN_ADDR cannot be bound (EADDRINUSE)\n');
    } finally {
      taken.close();
    }
  });
});
