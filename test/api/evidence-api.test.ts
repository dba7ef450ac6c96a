/**
 * The sidecar API over a real Unix socket: every status and error code of the spec's table,
 * every body validated against the schemas, pagination walked to the end and compared with the
 * publication, a publication change mid-walk (409), cursors from another process (400), and a
 * hostile-input suite after which the server still serves and no secret reaches a response or a
 * log line.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { createLogger } from '../../src/common/log.ts';
import type { WireKind } from '../../src/contract/kinds.ts';
import { PAGE_LIMITS } from '../../src/contract/values.ts';
import { wireViolations } from '../../src/contract/validate.ts';
import { BudgetMeter } from '../../src/evidence/listing.ts';
import { scanScope } from '../../src/evidence/scope-scan.ts';
import { SyntheticRepository } from '../../src/format/barman-cloud/synthetic-repository.ts';
import type { Publisher} from '../../src/publication/publisher.ts';
import { type Publication } from '../../src/publication/publisher.ts';
import { confine } from '../../src/store/confined.ts';
import { MemoryStore } from '../../src/store/memory/memory-driver.ts';
import { CursorCodec } from '../../src/surface/api/cursor.ts';
import { createEvidenceApi } from '../../src/surface/api/evidence-api.ts';
import { API_ROUTES, COLLECTIONS, type CollectionRoute } from '../../src/contract/routes.ts';
import { listenOnSocket } from '../../src/surface/api/socket.ts';
import { archiveCloud } from '../../src/format/barman-cloud/format.ts';
import { DATABASES_CLUSTER, testPublisher } from '../support/publication-fixture.ts';

const TOKEN = 'q1aKFo9oVbP3rJ7Ztl0cKjYc2yU8m1Q0xW5nA4bZr-E';
const ROOT = 'secret-prefix/pg-main/';
const SECRETS = [TOKEN, 'secret-prefix', 'acme-bucket'];

interface Reply { status: number; headers: Record<string, string | string[] | undefined>; body: string }

function call(socketPath: string, path: string, options: { method?: string; headers?: Record<string, string | string[]> } = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request({ socketPath, path, method: options.method ?? 'GET', headers: { authorization: `Bearer ${TOKEN}`, ...options.headers } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** A publication with many WAL gaps, so every collection spans several pages. */
async function publication(publisher: Publisher): Promise<Publication> {
  const store = new MemoryStore();
  const repo = new SyntheticRepository(store, ROOT);
  const t0 = Date.parse('2026-11-21T00:00:00Z');
  const missing = Array.from({ length: 250 }, (_, i) => 10 + i * 3);
  repo.segments(1, 1, 800, new Date(t0), { stepMs: 1000, missing });
  for (let i = 0; i < 5; i++) repo.backup({ id: `2026112${i}T000000`, timeline: 1, beginPosition: 2 + i, endPosition: 2 + i, beginTime: new Date(t0 + i * 1000), endTime: new Date(t0 + i * 1000 + 500) });
  const e = await scanScope({ format: archiveCloud, server: 'pg-main', root: ROOT, driver: confine(store, ROOT), signal: new AbortController().signal, meter: new BudgetMeter({ maxPages: 1000, maxObjects: 1e6 }), concurrency: 4, ...publisher.nextScan });
  return publisher.complete(e, { startedAt: new Date(t0 + 3_600_000), finishedAt: new Date(t0 + 3_601_000), pages: 2, objects: e.objectCount });
}

describe('evidence API over a Unix socket', () => {
  const dir = mkdtempSync(join(tmpdir(), 'viewer-api-'));
  const socketPath = join(dir, 'evidence.sock');
  const logLines: string[] = [];
  const sink = new Writable({ write(chunk: Buffer, _e, cb) { logLines.push(...chunk.toString().split('\n').filter(Boolean)); cb(); } });
  const publisher = testPublisher({ identity: { cluster: DATABASES_CLUSTER, fingerprint: `sha256:${'b'.repeat(64)}`, server: 'pg-main' }, freshnessMs: 900_000 });
  let current: Publication = publisher.current;
  let ready = false;
  const server = createEvidenceApi({ token: TOKEN, publication: () => current, ready: () => ready, logger: createLogger('info', sink) });

  before(async () => {
    current = await publication(publisher);
    await listenOnSocket(server, socketPath);
  });
  after(() => {
    server.close();
    server.closeAllConnections();
    rmSync(dir, { recursive: true, force: true });
  });

  const expectBody = (r: Reply, kind: WireKind) => {
    assert.equal(r.headers['content-type'], 'application/vnd.viewer.evidence.v1alpha1+json');
    assert.equal(r.headers['cache-control'], 'no-store');
    assert.equal(r.headers['x-content-type-options'], 'nosniff');
    assert.equal(r.headers['referrer-policy'], 'no-referrer');
    assert.equal(r.headers['access-control-allow-origin'], undefined);
    assert.equal(r.headers['content-encoding'], undefined);
    const body: unknown = JSON.parse(r.body);
    assert.deepEqual(wireViolations(kind, body), [], `${kind}: ${r.body.slice(0, 200)}`);
    for (const s of SECRETS) assert.ok(!r.body.includes(s), 'a secret reached a response');
    return body as Record<string, unknown>;
  };
  const expectError = (r: Reply, status: number, code: string) => {
    assert.equal(r.status, status);
    assert.equal(expectBody(r, 'EvidenceAPIError')['code'], code);
  };

  it('serves health, readiness and the snapshot, byte-identical on repeat', async () => {
    expectBody(await call(socketPath, '/healthz'), 'HealthStatus');
    const notReady = await call(socketPath, '/readyz');
    assert.equal(notReady.status, 503);
    assert.equal(expectBody(notReady, 'ReadinessStatus')['status'], 'not-ready');
    ready = true;
    assert.equal((await call(socketPath, '/readyz')).status, 200);
    const a = await call(socketPath, '/api/v1alpha1/snapshot');
    const b = await call(socketPath, '/api/v1alpha1/snapshot');
    assert.equal(a.status, 200);
    expectBody(a, 'RepositoryEvidenceSnapshot');
    assert.equal(a.body, b.body);
  });

  it("has the spec's routes and page limits", () => {
    assert.deepEqual(API_ROUTES, ['/healthz', '/readyz', '/api/v1alpha1/snapshot', '/api/v1alpha1/backups', '/api/v1alpha1/wal-ranges', '/api/v1alpha1/wal-gaps', '/api/v1alpha1/recovery-paths']);
    assert.deepEqual(PAGE_LIMITS, { maxItems: 200, defaultItems: 100, cursorBytes: 4096 });
  });

  const ITEMS: Record<CollectionRoute, (p: Publication) => readonly unknown[]> = {
    backups: (p) => p.backups,
    'wal-ranges': (p) => p.walRanges,
    'wal-gaps': (p) => p.walGaps,
    'recovery-paths': (p) => p.recoveryPaths,
  };
  for (const { route, path, kind } of COLLECTIONS) {
    const items = ITEMS[route];
    it(`walks every page of ${route} and finds exactly the publication's items`, async () => {
      const seen: unknown[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const q: string = `?revision=${current.revision}&limit=7${cursor === null ? '' : `&cursor=${cursor}`}`;
        const r = await call(socketPath, `${path}${cursor === null ? q : `?revision=${current.revision}&cursor=${cursor}`}`);
        assert.equal(r.status, 200, r.body);
        const page = expectBody(r, kind);
        seen.push(...(page['items'] as unknown[]));
        cursor = page['next_cursor'] as string | null;
        pages += 1;
      } while (cursor !== null);
      assert.deepEqual(seen, JSON.parse(JSON.stringify(items(current))));
      if (route === 'wal-gaps' || route === 'wal-ranges') assert.ok(pages > 30);
    });
  }

  it('defaults to 100 items a page, allows 200, refuses 201', async () => {
    const { defaultItems, maxItems } = PAGE_LIMITS;
    const d = expectBody(await call(socketPath, '/api/v1alpha1/wal-gaps'), 'ArchiveWALGapPage');
    assert.equal((d['items'] as unknown[]).length, defaultItems);
    const m = expectBody(await call(socketPath, `/api/v1alpha1/wal-gaps?limit=${maxItems}`), 'ArchiveWALGapPage');
    assert.equal((m['items'] as unknown[]).length, maxItems);
    expectError(await call(socketPath, `/api/v1alpha1/wal-gaps?limit=${maxItems + 1}`), 400, 'invalid-request');
  });

  it('a publication change in the middle of a walk is 409, with or without the revision beside the old cursor', async () => {
    const first = expectBody(await call(socketPath, `/api/v1alpha1/wal-ranges?revision=${current.revision}&limit=5`), 'ArchiveWALRangePage');
    const oldRevision = current.revision;
    const cursor = first['next_cursor'] as string;
    current = publisher.fail('throttled', { startedAt: new Date('2026-11-21T02:00:00Z'), finishedAt: new Date('2026-11-21T02:00:01Z'), pages: 1, objects: 10 });
    expectError(await call(socketPath, `/api/v1alpha1/wal-ranges?revision=${oldRevision}&cursor=${cursor}`), 409, 'publication-changed');
    expectError(await call(socketPath, `/api/v1alpha1/wal-ranges?cursor=${cursor}`), 409, 'publication-changed');
    const fresh = expectBody(await call(socketPath, `/api/v1alpha1/wal-ranges?revision=${current.revision}&limit=5`), 'ArchiveWALRangePage');
    assert.equal(fresh['revision'], current.revision);
  });

  it('refuses cursors from another route, another process, or tampered', async () => {
    const page = expectBody(await call(socketPath, '/api/v1alpha1/wal-gaps?limit=3'), 'ArchiveWALGapPage');
    const cursor = page['next_cursor'] as string;
    expectError(await call(socketPath, `/api/v1alpha1/wal-ranges?cursor=${cursor}`), 400, 'invalid-request');
    const other = new CursorCodec().encode({ route: 'wal-gaps', revision: current.revision, generation: current.generation, offset: 3, limit: 3 });
    expectError(await call(socketPath, `/api/v1alpha1/wal-gaps?cursor=${other}`), 400, 'invalid-request');
    const tampered = `${cursor.slice(0, 10)}${cursor[10] === 'A' ? 'B' : 'A'}${cursor.slice(11)}`;
    expectError(await call(socketPath, `/api/v1alpha1/wal-gaps?cursor=${tampered}`), 400, 'invalid-request');
    expectError(await call(socketPath, `/api/v1alpha1/wal-gaps?cursor=${cursor}&limit=4`), 400, 'invalid-request');
  });

  it('answers 401 for missing, malformed, wrong and oversized credentials, with no detail', async () => {
    // (Surrounding white space is not part of a header value in HTTP, so "Bearer <token> " is the token.)
    for (const authorization of ['', 'Basic Zm9vOmJhcg==', `Bearer ${TOKEN.slice(0, -1)}x`, `bearer ${TOKEN}`, `Bearer  ${TOKEN}`, `Bearer ${TOKEN}x`, `Bearer ${'A'.repeat(5000)}`]) {
      expectError(await call(socketPath, '/api/v1alpha1/snapshot', { headers: { authorization } }), 401, 'unauthenticated');
    }
    expectError(await call(socketPath, '/healthz', { headers: { authorization: [`Bearer ${TOKEN}`, `Bearer ${TOKEN}`] } }), 401, 'unauthenticated');
  });

  it('answers 404 for unknown routes and 405 for other methods', async () => {
    for (const path of ['/', '/api/v1alpha1/snapshot/', '/api/v1alpha1/../healthz', '/api/v1alpha1/%62ackups', '/API/V1ALPHA1/SNAPSHOT', `/${'x'.repeat(3000)}`, '/api/v1alpha1/objects?key=secret-prefix/pg-main/base']) {
      expectError(await call(socketPath, path), 404, 'not-found');
    }
    for (const method of ['POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD']) {
      const r = await call(socketPath, '/api/v1alpha1/snapshot', { method });
      assert.equal(r.status, 405, method);
      if (method !== 'HEAD') expectError(r, 405, 'method-not-allowed');
    }
  });

  it('refuses bad collection queries with 400', async () => {
    for (const q of ['limit=0', 'limit=-1', 'limit=1.5', 'limit=', 'limit=1e2', 'limit=10&limit=10', 'revision=-1', 'revision=1.0', 'revision=99999999999999999999', 'cursor=', 'cursor=%00', 'other=1', 'revision', `cursor=${'A'.repeat(5000)}`]) {
      expectError(await call(socketPath, `/api/v1alpha1/backups?${q}`), 400, 'invalid-request');
    }
    expectError(await call(socketPath, '/api/v1alpha1/snapshot?revision=1'), 400, 'invalid-request');
  });

  it('answers 413 when a body cannot be represented within its limit, never a truncated page', async () => {
    const small = createEvidenceApi({ token: TOKEN, publication: () => current, ready: () => true, logger: createLogger('silent'), sizeLimits: { snapshotBytes: 1000, pageBytes: 2000 } });
    const path = join(dir, 'small.sock');
    await listenOnSocket(small, path);
    try {
      expectError(await call(path, '/api/v1alpha1/snapshot'), 413, 'response-limit');
      expectError(await call(path, '/api/v1alpha1/recovery-paths?limit=200'), 413, 'response-limit');
    } finally {
      small.close();
      small.closeAllConnections();
    }
  });

  it('answers 500 invalid-publication with no data when the publication failed validation', async () => {
    const broken = { ...current, violations: [{ path: '/x', rule: 'broken' }] };
    const api = createEvidenceApi({ token: TOKEN, publication: () => broken, ready: () => true, logger: createLogger('silent') });
    const path = join(dir, 'broken.sock');
    await listenOnSocket(api, path);
    try {
      expectError(await call(path, '/api/v1alpha1/snapshot'), 500, 'invalid-publication');
      expectError(await call(path, '/api/v1alpha1/backups'), 500, 'invalid-publication');
    } finally {
      api.close();
      api.closeAllConnections();
    }
  });

  it('answers 500 when a handler throws, and logs it by route, status, code and error class, never its text', async () => {
    const lines: string[] = [];
    const log = new Writable({ write(chunk: Buffer, _e, cb) { lines.push(...chunk.toString().split('\n').filter(Boolean)); cb(); } });
    class ProviderishError extends Error {}
    const thrown: Error[] = [
      Object.assign(new Error('NoSuchKey: secret-prefix/pg-main/base/20261120T000000 in acme-bucket'), { cause: new Error('acme-bucket said no') }),
      new TypeError("Cannot read properties of undefined (reading 'secret-prefix')"),
      new ProviderishError('acme-bucket: SlowDown'),
    ];
    let next = 0;
    const api = createEvidenceApi({
      token: TOKEN,
      publication: () => {
        throw thrown[next++] ?? new Error('unexpected');
      },
      ready: () => true,
      logger: createLogger('info', log),
    });
    const path = join(dir, 'throws.sock');
    await listenOnSocket(api, path);
    try {
      expectError(await call(path, '/api/v1alpha1/snapshot'), 500, 'invalid-publication');
      expectError(await call(path, '/api/v1alpha1/backups'), 500, 'invalid-publication');
      expectError(await call(path, '/api/v1alpha1/wal-gaps?limit=3'), 500, 'invalid-publication');
    } finally {
      api.close();
      api.closeAllConnections();
    }
    await new Promise((r) => setImmediate(r));
    const entries = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    assert.deepEqual(
      entries.map((e) => [e['level'], e['msg'], e['route'], e['status'], e['code'], e['error_type']]),
      [
        [50, 'request failed in its handler', '/api/v1alpha1/snapshot', 500, 'invalid-publication', 'Error'],
        [50, 'request failed in its handler', '/api/v1alpha1/backups', 500, 'invalid-publication', 'TypeError'],
        [50, 'request failed in its handler', '/api/v1alpha1/wal-gaps', 500, 'invalid-publication', 'other'],
      ],
    );
    for (const line of lines) for (const s of [...SECRETS, 'NoSuchKey', 'SlowDown', 'pg-main', '20261120', 'stack', 'Cannot read']) assert.ok(!line.includes(s), `a log line carries ${s}`);
  });

  it('answers 429 busy with bounded retry guidance beyond the concurrency budget', async () => {
    const api = createEvidenceApi({ token: TOKEN, publication: () => current, ready: () => true, logger: createLogger('silent'), maxInFlight: 0 });
    const path = join(dir, 'busy.sock');
    await listenOnSocket(api, path);
    try {
      const r = await call(path, '/healthz');
      expectError(r, 429, 'busy');
      assert.equal(r.headers['retry-after'], '1');
    } finally {
      api.close();
      api.closeAllConnections();
    }
  });

  it('survives many concurrent clients and oversized headers, and still serves', async () => {
    const replies = await Promise.all(Array.from({ length: 64 }, () => call(socketPath, '/api/v1alpha1/wal-gaps?limit=200')));
    assert.ok(replies.every((r) => r.status === 200 || r.status === 429));
    const huge = await call(socketPath, '/healthz', { headers: { 'x-junk': 'x'.repeat(20_000) } }).catch(() => null);
    if (huge !== null) expectError(huge, 400, 'invalid-request');
    assert.equal((await call(socketPath, '/healthz')).status, 200);
  });

  it('ends a request that is not complete within the deadline', async () => {
    const api = createEvidenceApi({ token: TOKEN, publication: () => current, ready: () => true, logger: createLogger('silent'), deadlineMs: 500 });
    const path = join(dir, 'slow.sock');
    await listenOnSocket(api, path);
    try {
      const started = Date.now();
      const ended = await new Promise<string>((resolve) => {
        const socket = connect(path, () => socket.write('GET /healthz HTTP/1.1\r\nHost: sidecar\r\n'));
        let answer = '';
        socket.on('data', (c: Buffer) => (answer += c.toString()));
        socket.on('close', () => resolve(answer));
      });
      assert.ok(Date.now() - started < 4_000, 'the slow request outlived the deadline');
      assert.ok(ended === '' || ended.startsWith('HTTP/1.1 4'), ended.slice(0, 40));
    } finally {
      api.close();
      api.closeAllConnections();
    }
  });

  it('logs one line per request with only the allowed fields, never secrets or queries', () => {
    assert.ok(logLines.length > 50);
    for (const line of logLines) {
      const entry = JSON.parse(line) as Record<string, unknown>;
      for (const s of [...SECRETS, 'cursor=', 'revision=', 'Bearer', 'pg-main', '2026112']) assert.ok(!line.includes(s), `log line carries ${s.slice(0, 12)}`);
      if (entry['msg'] === 'request') {
        assert.deepEqual(Object.keys(entry).filter((k) => !['level', 'time', 'service', 'msg'].includes(k)).sort(), ['code', 'duration_ms', 'request_id', 'revision', 'route', 'status']);
      }
    }
  });
});
