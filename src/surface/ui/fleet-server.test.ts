/**
 * The standalone server over a fleet (FLEET_FILE, D-101): `/` is the fleet page (every repository's
 * servers, worst first, each linking to its repository), `/?repository=NAME` that repository's
 * inventory, `/wals?repository=NAME&…` its WAL browser with every link and the filter form keeping
 * the repository; a name not in the fleet, a name twice, another query on `/`, or `/wals` without
 * a repository are refused (400), never another repository's page. And the metrics listener
 * (METRICS_ADDR) answers exactly `GET /metrics`.
 */
import assert from 'node:assert/strict';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { createLogger } from '../../common/log.ts';
import { BudgetMeter } from '../../evidence/listing.ts';
import { scanScope } from '../../evidence/scope-scan.ts';
import { SyntheticRepository } from '../../format/barman-cloud/synthetic-repository.ts';
import { archiveCloud } from '../../format/barman-cloud/format.ts';
import { MemoryStore } from '../../store/memory/memory-driver.ts';
import { createMetricsServer } from '../metrics/server.ts';
import { scopeView } from './scope-view.ts';
import { createStandaloneServer, type RepositoryPages } from './server.ts';
import type { ScopeView } from './pages.ts';
import { testPublisher } from '../../../test/support/publication-fixture.ts';

const T = new Date('2026-11-21T10:00:00Z');
const minute = (n: number) => new Date(T.getTime() + n * 60_000);
const identity = { cluster: { namespace: 'n', uid: '00000000-0000-4000-8000-000000000000', name: null }, provider: 'store-a' as const, fingerprint: `sha256:${'0'.repeat(64)}`, producerVersion: '0.1.0', format: archiveCloud };

/** One scanned scope: 20 segments, one backup, and segment `lost` deleted when given. */
async function view(server: string, lost: number | null): Promise<ScopeView> {
  const store = new MemoryStore({ storeClock: () => minute(25) });
  const repo = new SyntheticRepository(store, `pg/${server}/`);
  repo.segments(1, 1, 20, minute(0), { missing: lost === null ? [] : [lost] });
  repo.backup({ id: '20261121T100100', timeline: 1, beginPosition: 2, endPosition: 3, beginTime: minute(1), endTime: minute(3) });
  const publisher = testPublisher({ identity: { ...identity, server } });
  const e = await scanScope({ format: archiveCloud, server, root: `pg/${server}/`, driver: store, signal: new AbortController().signal, meter: new BudgetMeter({ maxPages: 1e4, maxObjects: 1e6 }), concurrency: 2, ...publisher.nextScan });
  const p = publisher.complete(e, { startedAt: minute(26), finishedAt: minute(27), pages: 1, objects: 1 });
  assert.deepEqual(p.violations, []);
  return scopeView(server, p, e);
}

const repository = (name: string, scopes: ScopeView[], pending = false): RepositoryPages => ({
  name,
  format: archiveCloud,
  scopes: () => scopes,
  destination: () => (pending ? { unscopedObjects: null, foreignFormat: null, discoveryFailure: null, discoveryPending: true } : null),
  retentionPolicy: null,
  minimumRedundancy: null,
  maxArchiveLagSeconds: null,
});

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('the standalone server over a fleet', () => {
  let server: Server;
  let base = '';
  before(async () => {
    // Two repositories with a server of the same name, one of them damaged; one still discovering.
    const repositories = [repository('prod-b', [await view('pg-main', 6), await view('pg-two', null)]), repository('prod-a', [await view('pg-main', null)]), repository('staging', [], true)];
    server = createStandaloneServer({ repositories, ready: () => true, trustedUserHeader: null, walPageSize: 50, demo: false, logger: createLogger('silent') });
    base = await listen(server);
  });
  after(() => server.close());

  const get = async (path: string) => {
    const r = await fetch(`${base}${path}`);
    return { status: r.status, text: await r.text() };
  };

  it('shows every repository and server on the fleet page, worst first, each linking to its repository', async () => {
    const { status, text } = await get('/');
    assert.equal(status, 200);
    const rows = [...text.matchAll(/<tr><td><a href="\/\?repository=([\w-]+)"><code>[\w-]+<\/code><\/a><\/td><td>(?:<a href="\/\?repository=[\w-]+#server-([\w-]+)">|<span class="muted">none known)/g)].map((m) => [m[1], m[2] ?? null]);
    // viewer's severity order (unknown above warning): the repository still discovering, the
    // damaged pg-main of prod-b, then the healthy ones by repository and server.
    assert.deepEqual(rows, [['staging', null], ['prod-b', 'pg-main'], ['prod-a', 'pg-main'], ['prod-b', 'pg-two']]);
    assert.match(text, /Fleet: 3 repositories, 3 server scopes/);
    assert.match(text, /<span class="state warning">warning<\/span> <code class="reason">wal-gap-candidate<\/code>/);
    assert.match(text, /<span class="muted">discovery in progress<\/span>/);
    // The fleet page links to no WAL browser of its own: one repository's is chosen from it.
    assert.doesNotMatch(text, /href="\/wals/);
  });

  it("serves one repository's inventory, and its WAL browser with links and form that keep it", async () => {
    const inv = await get('/?repository=prod-b');
    assert.equal(inv.status, 200);
    assert.match(inv.text, /<h2>Repository <code>prod-b<\/code><\/h2>/);
    assert.match(inv.text, /<a href="\/wals\?repository=prod-b">WAL browser<\/a>/);
    assert.match(inv.text, /id="server-pg-two"/);
    assert.doesNotMatch((await get('/?repository=prod-a')).text, /id="server-pg-two"/);
    const wals = await get('/wals?repository=prod-b&server=pg-main&class=segment');
    assert.equal(wals.status, 200);
    assert.match(wals.text, /<strong>missing<\/strong> 1 segment/);
    assert.match(wals.text, /<input type="hidden" name="repository" value="prod-b">/);
    // prod-a's pg-main has no gap: the same server name, another repository.
    assert.doesNotMatch((await get('/wals?repository=prod-a&server=pg-main&class=segment')).text, /<strong>missing<\/strong>/);
  });

  it('refuses a repository not in the fleet, one given twice, another query on /, and /wals without a repository', async () => {
    for (const [path, problem] of [
      ['/?repository=nope', 'repository is not one of the fleet file'],
      ['/?repository=prod-a&repository=prod-b', 'repository is given more than once'],
      ['/?repository=prod-a&server=pg-main', 'the inventory takes only repository'],
      ['/?x=1', 'the inventory takes only repository'],
      ['/wals', 'the WAL browser shows one repository of the fleet'],
      ['/wals?repository=prod-a&server=pg-two', 'server is not one of the scopes'],
    ] as const) {
      const r = await get(path);
      assert.deepEqual([path, r.status], [path, 400]);
      assert.ok(r.text.includes(problem), `${path}: ${problem}`);
    }
  });
});

describe("standalone's metrics listener", () => {
  let server: Server;
  let base = '';
  before(async () => {
    server = createMetricsServer({ metrics: () => Promise.resolve('# EOF\n'), logger: createLogger('silent') });
    base = await listen(server);
  });
  after(() => server.close());

  it('answers GET /metrics in OpenMetrics and nothing else', async () => {
    const ok = await fetch(`${base}/metrics`);
    assert.deepEqual([ok.status, ok.headers.get('content-type'), await ok.text()], [200, 'application/openmetrics-text; version=1.0.0; charset=utf-8', '# EOF\n']);
    for (const [method, path, status] of [['GET', '/', 404], ['GET', '/wals', 404], ['GET', '/metrics/', 404], ['GET', '/metrics?x=1', 400], ['POST', '/metrics', 405], ['HEAD', '/metrics', 405]] as const) {
      const r = await fetch(`${base}${path}`, { method });
      assert.deepEqual([method, path, r.status], [method, path, status]);
    }
  });
});
