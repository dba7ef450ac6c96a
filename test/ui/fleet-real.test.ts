/**
 * A fleet in one standalone process (FLEET_FILE, issue 25), on the real repositories the tests
 * build and synthetic ones in the same Swift S3 store: twelve repositories (Barman 3.4's fixtures
 * and scenario servers, pgBackRest 2.45, Barman 3.20, pgBackRest 2.60, six copies of the embedded
 * demo, and one more demo copy reached through a fault proxy: fifteen server scopes). The executable serves the fleet page
 * (checked in Chromium at 1400 and 390 px, screenshots kept) and, on METRICS_ADDR, every scope's
 * series with its `repository` label (promtool check metrics; two `pg-main` servers of two
 * repositories stay apart); LISTEN_ADDR serves no metrics. Then the proxied repository's store
 * fails: that repository goes stale alone, while every other keeps publishing fresh generations.
 * Each scope's memory is kept in STATE_DIR, one file per scope of every repository.
 */
import assert from 'node:assert/strict';
import { spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { DeleteObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { chromium, type Browser } from 'playwright-core';
import { DEMO_PREFIX, DEMO_SERVER } from '../../src/format/barman-cloud/demo-repository.ts';
import { currentRepositories } from '../support/current-repositories.ts';
import { demoObjects } from '../support/demo-objects.ts';
import { s3Error, startFaultProxy, type FaultProxy } from '../support/fault-proxy.ts';
import { pgbackrestRepository } from '../support/pgbackrest-repositories.ts';
import { pool } from '../support/provider-comparison.ts';
import { realRepositories } from '../support/real-repositories.ts';
import { startStandalone, type RunningViewer } from '../support/run-viewer.ts';
import { parseSamples, PROMTOOL_SKIP, type Sample } from '../monitoring/promtool-harness.ts';

const CHROMIUM = '/usr/bin/chromium';
const ARTIFACTS = join(import.meta.dirname, '..', '..', 'test-artifacts');
const LAUNCH = { executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'] };
const DEMO_COPIES = 6;

describe('a fleet of twelve repositories in one standalone process', () => {
  const real = realRepositories();
  const stanza = pgbackrestRepository();
  const current = currentRepositories();
  const prefix = `fleet-${process.pid}`;
  const copies: string[] = [];
  let s3: S3Client;
  let proxy: FaultProxy;
  let dir = '';
  let viewer: RunningViewer;
  let child: ChildProcess;
  /** repository name → the servers it must show (discovered or configured). */
  const expected = new Map<string, readonly string[]>();

  before(async () => {
    s3 = new S3Client({ endpoint: real.endpoint, region: 'us-east-1', forcePathStyle: true, credentials: { accessKeyId: real.accessKeyId, secretAccessKey: real.secretAccessKey }, requestChecksumCalculation: 'WHEN_REQUIRED' });
    const objects = await demoObjects();
    const targets = Array.from({ length: DEMO_COPIES + 1 }, (_, i) => `${prefix}/demo-${i}`);
    const puts = targets.flatMap((t) => objects.map((o) => ({ key: `${t}/${o.key}`, body: o.body })));
    copies.push(...puts.map((p) => p.key));
    await pool(puts, 16, (p) => s3.send(new PutObjectCommand({ Bucket: real.bucket, Key: p.key, Body: p.body })));
    proxy = await startFaultProxy(real.endpoint);
    dir = mkdtempSync(join(tmpdir(), 'viewer-fleet-'));
    writeFileSync(join(dir, 'id'), real.accessKeyId);
    writeFileSync(join(dir, 'secret'), real.secretAccessKey);
    const creds = `    endpoint_url: ${real.endpoint}\n    access_key_id_file: ${join(dir, 'id')}\n    secret_access_key_file: ${join(dir, 'secret')}\n`;
    const entries = [
      `  - name: barman-34\n    destination: s3://${real.bucket}/${real.prefix}\n${creds}    labels: {cluster: fixtures, env: test}\n`,
      `  - name: barman-34-scenarios\n    destination: s3://${real.bucket}/${real.scenarioPrefix}\n${creds}`,
      `  - name: pgbackrest-245\n    destination: s3://${stanza.bucket}/${stanza.prefix}\n    format: stanza-repository\n    servers: [${stanza.main.stanza}]\n${creds}`,
      `  - name: barman-320\n    destination: s3://${current.barman.bucket}/${current.barman.prefix}\n${creds}`,
      `  - name: pgbackrest-260\n    destination: s3://${current.pgbackrest.bucket}/${current.pgbackrest.prefix}\n    format: stanza-repository\n    servers: [${current.pgbackrest.main.stanza}]\n${creds}`,
      ...Array.from({ length: DEMO_COPIES }, (_, i) => `  - name: demo-${i + 1}\n    destination: s3://${real.bucket}/${prefix}/demo-${i + 1}/${DEMO_PREFIX}\n    servers: [${DEMO_SERVER}]\n${creds}    labels: {env: demo}\n`),
      `  - name: through-proxy\n    destination: s3://${real.bucket}/${prefix}/demo-0/${DEMO_PREFIX}\n    servers: [${DEMO_SERVER}]\n    endpoint_url: ${proxy.url}\n    access_key_id_file: ${join(dir, 'id')}\n    secret_access_key_file: ${join(dir, 'secret')}\n`,
    ];
    writeFileSync(join(dir, 'fleet.yaml'), `repositories:\n${entries.join('')}`);
    mkdirSync(join(dir, 'state'), { mode: 0o700 });
    expected.set('barman-34', ['pg-main', 'pg-wal1m']);
    expected.set('barman-34-scenarios', ['pg-damaged', 'pg-retention', 'pg-standalone']);
    expected.set('pgbackrest-245', [stanza.main.stanza]);
    expected.set('barman-320', [current.barman.server]);
    expected.set('pgbackrest-260', [current.pgbackrest.main.stanza]);
    for (let i = 1; i <= DEMO_COPIES; i++) expected.set(`demo-${i}`, [DEMO_SERVER]);
    expected.set('through-proxy', [DEMO_SERVER]);
    viewer = await startStandalone({
      FLEET_FILE: join(dir, 'fleet.yaml'),
      METRICS_ADDR: '127.0.0.1:0',
      METRICS_LABELS: 'site=lab',
      FLEET_CONCURRENCY: '3',
      REFRESH_INTERVAL_SECONDS: '10',
      FRESHNESS_THRESHOLD_SECONDS: '10',
      STATE_DIR: join(dir, 'state'),
    });
    child = viewer.child;
    // Every scope of every repository published once.
    const total = [...expected.values()].reduce((n, s) => n + s.length, 0);
    for (let i = 0; i < 600; i++) {
      const firsts = new Set((viewer.logs().match(/"repository":"[^"]+","server":"[^"]+","revision":\d+,"generation":1\b/g) ?? []).map((l) => l.replace(/,"revision".*/, '')));
      if (firsts.size >= total) break;
      await new Promise((r) => setTimeout(r, 100));
    }
  });
  after(async () => {
    if (child?.exitCode === null) child.kill('SIGKILL');
    await proxy?.close();
    await pool(copies, 16, (Key) => s3.send(new DeleteObjectCommand({ Bucket: real.bucket, Key })));
    s3?.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  it('shows the fleet first: every repository and its servers, with state and reason, linking to each', async () => {
    const page = await (await fetch(viewer.base)).text();
    const total = [...expected.values()].reduce((n, x) => n + x.length, 0);
    assert.match(page, new RegExp(`Fleet: 12 repositories, ${total} server scopes`));
    for (const [name, servers] of expected) {
      for (const s of servers) assert.match(page, new RegExp(`<a href="/\\?repository=${name}#server-${s}"><code>${s}</code></a>`), `${name}/${s}`);
    }
    // Known damage reaches the fleet page: the deleted segment of barman-34's pg-main, the damaged scenario server.
    const row = (name: string, server: string) => new RegExp(`repository=${name}#server-${server}"><code>${server}</code></a></td><td><span class="state (\\w+)">\\w+</span> <code class="reason">([a-z-]+)</code>`).exec(page)?.slice(1);
    assert.match(row('barman-34', 'pg-main')?.join(' ') ?? '', /^(warning wal-gap-candidate|unhealthy wal-gap-confirmed)$/);
    assert.match(row('barman-34-scenarios', 'pg-damaged')?.[0] ?? '', /^(warning|unhealthy)$/);
    assert.equal(row('demo-1', DEMO_SERVER)?.[0], row('demo-2', DEMO_SERVER)?.[0]);
    // One repository's page, and its WAL browser.
    const inventory = await fetch(new URL('/?repository=barman-34', viewer.base));
    assert.equal(inventory.status, 200);
    assert.match(await inventory.text(), /<h2>Repository <code>barman-34<\/code><\/h2><p>2 server scopes: <code>pg-main<\/code>, <code>pg-wal1m<\/code>/);
    const wals = await (await fetch(new URL('/wals?repository=barman-34&server=pg-main&class=segment&timeline=1', viewer.base))).text();
    assert.match(wals, /<strong>missing<\/strong> 1 segment \((candidate|confirmed) gap\)/);
  });

  it("keeps each scope's memory in STATE_DIR: one file per scope of every repository", () => {
    const files = readdirSync(join(dir, 'state')).filter((n) => /^memory-[0-9a-f]{32}\.json$/.test(n));
    assert.equal(files.length, [...expected.values()].reduce((n, x) => n + x.length, 0));
  });

  it('serves every scope on METRICS_ADDR with its repository label, valid OpenMetrics; LISTEN_ADDR serves none', async () => {
    assert.ok(viewer.metrics !== null, viewer.stderr());
    const r = await fetch(viewer.metrics);
    assert.equal(r.headers.get('content-type'), 'application/openmetrics-text; version=1.0.0; charset=utf-8');
    const text = await r.text();
    const states = parseSamples(text).filter((s) => s.name === 'viewer_state' && s.value === 1);
    // One state per scope, each named by repository and server: the two pg-main of barman-34 and the demos stay apart.
    assert.deepEqual(states.map((s) => `${s.labels['repository']}/${s.labels['server']}`).sort(), [...expected].flatMap(([n, servers]) => servers.map((s) => `${n}/${s}`)).sort());
    // The entry's labels and the process-wide METRICS_LABELS on every series of that scope.
    for (const s of parseSamples(text).filter((x) => x.labels['repository'] === 'barman-34')) assert.deepEqual([s.labels['cluster'], s.labels['env'], s.labels['site']], ['fixtures', 'test', 'lab'], s.name);
    for (const s of parseSamples(text).filter((x) => x.labels['repository'] === 'demo-3')) assert.deepEqual([s.labels['cluster'], s.labels['env']], [undefined, 'demo'], s.name);
    if (PROMTOOL_SKIP === false) {
      const check = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
      // promtool's lint names style notes; a parse error is a non-zero exit with "error".
      assert.doesNotMatch(`${check.stdout}${check.stderr}`, /error/i);
    }
    assert.equal((await fetch(new URL('/metrics', viewer.base))).status, 404);
  });

  it('renders the fleet page in Chromium at 1400 and 390 px without sideways scrolling of the page', { skip: existsSync(CHROMIUM) ? false : 'Debian chromium is not installed' }, async () => {
    const browser: Browser = await chromium.launch(LAUNCH);
    try {
      mkdirSync(ARTIFACTS, { recursive: true });
      for (const width of [1400, 390]) {
        const context = await browser.newContext({ javaScriptEnabled: false, viewport: { width, height: 900 } });
        const page = await context.newPage();
        await page.goto(viewer.base);
        assert.equal(await page.locator('table.fleet tbody tr').count(), [...expected.values()].reduce((n, x) => n + x.length, 0));
        const overflow = await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth');
        assert.equal(overflow, 0, `the page scrolls sideways at ${width} px`);
        await page.screenshot({ path: join(ARTIFACTS, `fleet-real-${width}.png`), fullPage: true });
        await context.close();
      }
    } finally {
      await browser.close();
    }
  });

  it("a repository whose store fails goes stale alone; every other keeps publishing fresh generations", async () => {
    assert.ok(viewer.metrics !== null);
    const read = async () => parseSamples(await (await fetch(viewer.metrics ?? '')).text());
    const generation = (all: Sample[], repository: string, server: string) => all.find((s) => s.name === 'viewer_evidence_generation' && s.labels['repository'] === repository && s.labels['server'] === server)?.value ?? -1;
    const before = await read();
    proxy.inject(() => true, s3Error(503, 'ServiceUnavailable'), { name: 'store down' });
    let now = before;
    const stale = (all: Sample[], repository: string) => all.find((s) => s.name === 'viewer_stale' && s.labels['repository'] === repository)?.value;
    for (let i = 0; i < 60 && stale(now, 'through-proxy') !== 1; i++) {
      await new Promise((r) => setTimeout(r, 1000));
      now = await read();
    }
    assert.equal(stale(now, 'through-proxy'), 1, 'the failing repository turned stale');
    // Wait for one more refresh of everything else, then: none stale, every one moved on.
    await new Promise((r) => setTimeout(r, 12_000));
    now = await read();
    for (const [name, servers] of expected) {
      if (name === 'through-proxy') continue;
      for (const s of servers) {
        assert.equal(now.find((x) => x.name === 'viewer_stale' && x.labels['repository'] === name && x.labels['server'] === s)?.value, 0, `${name}/${s} stale`);
        assert.ok(generation(now, name, s) > generation(before, name, s), `${name}/${s} published no new generation`);
      }
    }
    // The failing one still shows its last complete generation, stale, on the page.
    const page = await (await fetch(new URL('/?repository=through-proxy', viewer.base))).text();
    assert.match(page, /retained from generation \d+/);
  });
});
