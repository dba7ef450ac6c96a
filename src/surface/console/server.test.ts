/**
 * The reference console's server: exactly its five GET routes, ready whatever the source state,
 * pages escaped, a retained projection never shown as current, and request logs naming routes only.
 */
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import type { Projection, SourceStatus } from '../../client/index.ts';
import { createLogger } from '../../common/log.ts';
import { VALID_EXAMPLES } from '../../contract/examples.ts';
import type { ArchiveCloudDetails, RepositoryEvidenceSnapshot } from '../../contract/snapshot.ts';
import type { ConsoleView } from './page.ts';
import { createConsoleServer } from './server.ts';

const example = VALID_EXAMPLES.find((e) => e.kind === 'RepositoryEvidenceSnapshot' && (e.body as RepositoryEvidenceSnapshot).evidence_generation > 0);
const { details, ...snapshot } = example?.body as RepositoryEvidenceSnapshot;
const projection: Projection = {
  revision: snapshot.revision,
  evidenceGeneration: snapshot.evidence_generation,
  snapshot: { ...snapshot, reason: { code: 'a-code-from-the-future', message: '<script>alert(1)</script>' } },
  details: { type: 'archive-cloud/v1alpha1', known: true, archive_cloud: (details as ArchiveCloudDetails).archive_cloud },
  collections: { backups: { known: false, reason: 'response-limit' }, 'wal-ranges': { known: true, items: [] }, 'wal-gaps': { known: true, items: [] }, 'recovery-paths': { known: true, items: [] } },
  assembledAt: new Date('2026-11-23T10:00:00Z'),
};
const status = (state: SourceStatus['state'], reason: SourceStatus['reason']): SourceStatus => ({ state, reason, since: new Date('2026-11-23T10:00:00Z'), lastPollAt: null, restarts: { 'publication-changed': 0, 'cursor-rejected': 0 }, polls: 1 });

describe('the console server', () => {
  let view: ConsoleView = { enabled: true, status: status('unavailable', 'transport'), projection, correlation: [{ namespace: 'databases', name: '<b>x</b>', outcome: { kind: 'ambiguous', matches: 2 } }], recordsProblem: null, now: new Date('2026-11-23T10:01:00Z') };
  const logs: string[] = [];
  const server = createConsoleServer({ view: () => view, metrics: () => Promise.resolve('# EOF\n'), logger: createLogger('info', new Writable({ write: (c: Buffer, _e, cb) => { logs.push(c.toString()); cb(); } })) });
  let base = '';
  before(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => {
    server.close();
    server.closeAllConnections();
  });
  const get = async (path: string, method = 'GET') => {
    const r = await fetch(base + path, { method });
    return { status: r.status, type: r.headers.get('content-type'), csp: r.headers.get('content-security-policy'), text: await r.text() };
  };

  it('is ready while its source is unavailable, and says the projection is retained', async () => {
    assert.equal((await get('/readyz')).status, 200);
    assert.equal((await get('/healthz')).status, 200);
    const page = await get('/');
    assert.equal(page.status, 200);
    assert.match(page.text, /Repository source: <strong>unavailable<\/strong>/);
    assert.match(page.text, /last completely assembled publication, retained/);
    assert.ok(page.csp?.includes("default-src 'none'"));
  });

  it('explains an unknown reason generically, escapes everything, and shows an unknown collection as unknown', async () => {
    const page = (await get('/')).text;
    assert.ok(!page.includes('<script>alert(1)</script>') && !page.includes('&lt;script&gt;'), 'an unrecognized code never shows its message');
    assert.match(page, /does not recognize/);
    assert.ok(page.includes('&lt;b&gt;x&lt;/b&gt;'));
    assert.match(page, /<h2>Backups<\/h2><p class="state-unknown">Unknown/);
    const json = JSON.parse((await get('/projection')).text) as { projection: { collections: { backups: unknown } }; source: { state: string } };
    assert.deepEqual(json.projection.collections.backups, { known: false, reason: 'response-limit' });
    assert.equal(json.source.state, 'unavailable');
  });

  it('serves metrics as OpenMetrics', async () => {
    const m = await get('/metrics');
    assert.equal(m.status, 200);
    assert.match(m.type ?? '', /^application\/openmetrics-text/);
  });

  it('answers only its routes, only GET, no queries', async () => {
    assert.equal((await get('/api/v1alpha1/snapshot')).status, 404);
    assert.equal((await get('/', 'POST')).status, 405);
    assert.equal((await get('/projection?x=1')).status, 400);
    view = { ...view, enabled: false, projection: null, correlation: null };
    assert.match((await get('/')).text, /not configured/);
    assert.ok(logs.some((l) => l.includes('"route":"/projection"')));
    assert.ok(!logs.some((l) => l.includes('x=1')), 'request logs carry no query');
  });
});
