/**
 * The sidecar API at the edges of HTTP, over a raw Unix socket: requests Node's HTTP layer would
 * answer or drop by itself (no `Host`, `Expect`, `CONNECT`, upgrades, request lines and headers
 * its parser refuses, pipelined behind ordinary requests). Each answer must carry the spec's four
 * fixed headers and a valid `EvidenceAPIError` (or the route's own body), authentication must come
 * first (D-38), the server must keep serving, and the log must name routes only.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { createLogger } from '../../src/common/log.ts';
import type { WireKind } from '../../src/contract/kinds.ts';
import { wireViolations } from '../../src/contract/validate.ts';
import { createEvidenceApi } from '../../src/surface/api/evidence-api.ts';
import { API_ROUTES } from '../../src/contract/routes.ts';
import { listenOnSocket } from '../../src/surface/api/socket.ts';
import { exchange, header, readAll, type RawReply } from './http-edges-client.ts';
import { DATABASES_CLUSTER, testPublisher } from '../support/publication-fixture.ts';

const TOKEN = 'q1aKFo9oVbP3rJ7Ztl0cKjYc2yU8m1Q0xW5nA4bZr-E';
const AUTH = `Authorization: Bearer ${TOKEN}\r\n`;
/** Text of the requests below that must never reach a response or a log line. */
const REQUEST_TEXT = [TOKEN, 'Bearer', 'example.com', 'websocket', 'h2c', 'dGhlIHNhbXBsZSBub25jZQ', 'feel-lucky', 'junk', 'xxxxxxxxxx', 'GARBAGE'];
const FIXED = {
  'content-type': 'application/vnd.viewer.evidence.v1alpha1+json',
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};
const ROUTE_NAMES = new Set([...API_ROUTES, 'unknown']);

/** What an edge must be answered with: a route's own body, or an error code (with `Allow` on 405). */
type Expected = { status: number; kind: Exclude<WireKind, 'EvidenceAPIError'>; route: string } | { status: number; code: string; route: string };

interface Edge {
  readonly name: string;
  /** The request bytes, with or without the bearer token. */
  readonly bytes: (auth: string) => string | Buffer;
  readonly withoutToken: Expected;
  readonly withToken: Expected;
  /** The connection must close after the answer (the parser gave up, a CONNECT, or an unanswered 100-continue). */
  readonly closes: boolean;
}

const unauthenticated = (route: string): Expected => ({ status: 401, code: 'unauthenticated', route });
const refused: Expected = { status: 400, code: 'invalid-request', route: 'unknown' };
const health: Expected = { status: 200, kind: 'HealthStatus', route: '/healthz' };

const EDGES: readonly Edge[] = [
  // Host names nothing on a Unix socket and is never consulted: its absence changes nothing.
  { name: 'an HTTP/1.1 request without Host', bytes: (a) => `GET /healthz HTTP/1.1\r\n${a}\r\n`, withoutToken: unauthenticated('/healthz'), withToken: health, closes: false },
  { name: 'a snapshot request without Host', bytes: (a) => `GET /api/v1alpha1/snapshot HTTP/1.1\r\n${a}\r\n`, withoutToken: unauthenticated('/api/v1alpha1/snapshot'), withToken: { status: 200, kind: 'RepositoryEvidenceSnapshot', route: '/api/v1alpha1/snapshot' }, closes: false },
  // An expectation other than 100-continue is ignored (RFC 9110 allows it): no body is ever read.
  { name: 'an Expect other than 100-continue', bytes: (a) => `GET /healthz HTTP/1.1\r\nHost: sidecar\r\nExpect: feel-lucky\r\n${a}\r\n`, withoutToken: unauthenticated('/healthz'), withToken: health, closes: false },
  { name: 'Expect: 100-continue', bytes: (a) => `GET /healthz HTTP/1.1\r\nHost: sidecar\r\nExpect: 100-continue\r\n${a}\r\n`, withoutToken: unauthenticated('/healthz'), withToken: health, closes: true },
  {
    name: 'Expect: 100-continue with a body never sent',
    bytes: (a) => `POST /api/v1alpha1/snapshot HTTP/1.1\r\nHost: sidecar\r\nExpect: 100-continue\r\nContent-Length: 1000\r\n${a}\r\n`,
    withoutToken: unauthenticated('/api/v1alpha1/snapshot'),
    withToken: { status: 405, code: 'method-not-allowed', route: '/api/v1alpha1/snapshot' },
    closes: true,
  },
  // A CONNECT names no route, whatever its target: 405 once authenticated, logged as unknown.
  { name: 'CONNECT to an authority', bytes: (a) => `CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n${a}\r\n`, withoutToken: unauthenticated('unknown'), withToken: { status: 405, code: 'method-not-allowed', route: 'unknown' }, closes: true },
  { name: 'CONNECT to a route path', bytes: (a) => `CONNECT /healthz HTTP/1.1\r\nHost: sidecar\r\n${a}\r\n`, withoutToken: unauthenticated('unknown'), withToken: { status: 405, code: 'method-not-allowed', route: 'unknown' }, closes: true },
  {
    name: 'a WebSocket upgrade',
    bytes: (a) => `GET /healthz HTTP/1.1\r\nHost: sidecar\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n${a}\r\n`,
    withoutToken: unauthenticated('/healthz'),
    withToken: health,
    closes: false,
  },
  {
    name: 'an h2c upgrade',
    bytes: (a) => `GET /api/v1alpha1/snapshot HTTP/1.1\r\nHost: sidecar\r\nConnection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\nHTTP2-Settings: AAMAAABkAARAAAAAAAIAAAAA\r\n${a}\r\n`,
    withoutToken: unauthenticated('/api/v1alpha1/snapshot'),
    withToken: { status: 200, kind: 'RepositoryEvidenceSnapshot', route: '/api/v1alpha1/snapshot' },
    closes: false,
  },
  // What the parser refuses is 400 with or without a token (D-44): no header could be read.
  { name: 'a malformed request line', bytes: (a) => `GET /healthz HTTP/1.1 junk\r\nHost: sidecar\r\n${a}\r\n`, withoutToken: refused, withToken: refused, closes: true },
  { name: 'a malformed header', bytes: (a) => `GET /healthz HTTP/1.1\r\nHo st: sidecar\r\n${a}\r\n`, withoutToken: refused, withToken: refused, closes: true },
  { name: 'a TLS client hello', bytes: () => Buffer.from('16030100a5010000a10303', 'hex'), withoutToken: refused, withToken: refused, closes: true },
  { name: 'the HTTP/2 preface', bytes: () => 'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', withoutToken: refused, withToken: refused, closes: true },
  { name: 'headers over 16 KiB', bytes: (a) => `GET /healthz HTTP/1.1\r\nHost: sidecar\r\n${a}X-Junk: ${'x'.repeat(20_000)}\r\n\r\n`, withoutToken: refused, withToken: refused, closes: true },
];

describe('evidence API at the edges of HTTP', () => {
  const dir = mkdtempSync(join(tmpdir(), 'viewer-edges-'));
  const socketPath = join(dir, 'evidence.sock');
  const logLines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _e, cb) {
      logLines.push(...chunk.toString().split('\n').filter(Boolean));
      cb();
    },
  });
  const publisher = testPublisher({ identity: { cluster: DATABASES_CLUSTER, fingerprint: `sha256:${'b'.repeat(64)}`, server: 'pg-main' }, freshnessMs: 900_000 });
  const server = createEvidenceApi({ token: TOKEN, publication: () => publisher.current, ready: () => true, logger: createLogger('info', sink), deadlineMs: 2_000 });
  const to = { path: socketPath };

  before(() => listenOnSocket(server, socketPath));
  after(() => {
    server.close();
    server.closeAllConnections();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Every fixed header, and the body the case calls for, validated against the wire schema. */
  const expectAnswer = (r: RawReply, want: Expected, what: string) => {
    assert.equal(r.status, want.status, `${what}: ${r.body.slice(0, 120)}`);
    for (const [name, value] of Object.entries(FIXED)) assert.equal(header(r, name), value, `${what}: ${name}`);
    assert.equal(header(r, 'content-length'), String(Buffer.byteLength(r.body)), what);
    assert.deepEqual(r.interim, [], `${what}: no interim answer without the fixed headers`);
    const body: unknown = JSON.parse(r.body);
    const kind = 'code' in want ? 'EvidenceAPIError' : want.kind;
    assert.deepEqual(wireViolations(kind, body), [], `${what}: ${r.body.slice(0, 200)}`);
    if ('code' in want) assert.equal((body as { code: string }).code, want.code, what);
    if (want.status === 405) assert.equal(header(r, 'allow'), 'GET', what);
    for (const s of REQUEST_TEXT) assert.ok(!r.body.includes(s), `${what}: the response carries request text`);
  };

  /** The log line of the answer just given (logging happens once the answer is flushed). */
  const logOf = async (from: number, want: Expected, what: string) => {
    for (let i = 0; i < 50 && logLines.length === from; i++) await new Promise((r) => setTimeout(r, 20));
    assert.equal(logLines.length, from + 1, `${what}: one log line per answer`);
    const entry = JSON.parse(logLines[from] ?? '{}') as Record<string, unknown>;
    assert.equal(entry['route'], want.route, what);
    assert.equal(entry['status'], want.status, what);
    assert.equal(entry['code'], 'code' in want ? want.code : null, what);
  };

  for (const edge of EDGES) {
    for (const [auth, want] of [['', edge.withoutToken], [AUTH, edge.withToken]] as const) {
      const what = `${edge.name} ${auth === '' ? 'without' : 'with'} the token`;
      it(`answers ${what} with ${want.status} and the fixed headers, then keeps serving`, async () => {
        const from = logLines.length;
        const r = await exchange(to, edge.bytes(auth));
        expectAnswer(r, want, what);
        assert.equal(r.closed, edge.closes, `${what}: connection ${edge.closes ? 'kept open' : 'closed'}`);
        if (edge.closes) assert.equal(header(r, 'connection'), 'close', what);
        await logOf(from, want, what);
        expectAnswer(await exchange(to, `GET /healthz HTTP/1.1\r\nHost: sidecar\r\n${AUTH}\r\n`), health, `${what}, then /healthz`);
      });
    }
  }

  it('answers pipelined requests in order when a CONNECT or a malformed request follows them', async () => {
    const get = `GET /healthz HTTP/1.1\r\nHost: sidecar\r\n${AUTH}\r\n`;
    for (const [last, want] of [[`CONNECT example.com:443 HTTP/1.1\r\n${AUTH}\r\n`, 'HTTP/1.1 405 '], ['GARBAGE\r\n\r\n', 'HTTP/1.1 400 ']] as const) {
      const all = await readAll(to, `${get}${get}${get}${last}`);
      assert.deepEqual(all.match(/HTTP\/1\.1 \d{3} /g), ['HTTP/1.1 200 ', 'HTTP/1.1 200 ', 'HTTP/1.1 200 ', want], all.slice(0, 400));
    }
  });

  it('survives a client that goes away right after CONNECT or a malformed line', async () => {
    for (const bytes of [`CONNECT example.com:443 HTTP/1.1\r\n${AUTH}\r\n`, 'GET /healthz HTTP/1.1 junk\r\n\r\n']) await readAll(to, bytes, { abort: true });
    await new Promise((r) => setTimeout(r, 100));
    expectAnswer(await exchange(to, `GET /healthz HTTP/1.1\r\nHost: sidecar\r\n${AUTH}\r\n`), health, 'after clients went away');
  });

  it('logs only route names and allowlisted fields, never request text', () => {
    assert.ok(logLines.length >= EDGES.length * 2);
    for (const line of logLines) {
      const entry = JSON.parse(line) as Record<string, unknown>;
      assert.ok(ROUTE_NAMES.has(String(entry['route'])), `route ${String(entry['route'])}`);
      for (const s of REQUEST_TEXT) assert.ok(!line.includes(s), `a log line carries ${s.slice(0, 12)}`);
      const fields = Object.keys(entry).filter((k) => !['level', 'time', 'service', 'msg'].includes(k)).sort();
      const expected = ['code', 'duration_ms', 'request_id', 'revision', 'route', 'status'];
      assert.deepEqual(fields, entry['msg'] === 'malformed request' ? [...expected, 'error_code'].sort() : expected, line);
    }
  });

});
