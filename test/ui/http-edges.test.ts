/**
 * The standalone server (the real executable on the embedded demo) at the edges of HTTP, over a
 * raw TCP socket: requests Node's HTTP layer would answer or drop by itself (no `Host`, `Expect`,
 * `CONNECT`, upgrades, request lines and headers its parser refuses, pipelined behind ordinary
 * requests), and request targets a URL parser would resolve to a route (`/x/../wals`, `//wals`,
 * `http://host/wals`...), which are no route (D-76). Each answer must carry every hardening header and the status D-47 gives it, the
 * process must keep serving, and its log must name routes only.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { WireKind } from '../../src/contract/kinds.ts';
import { wireViolations } from '../../src/contract/validate.ts';
import { PAGE_HEADERS } from '../../src/surface/ui/server.ts';
import { exchange, header, readAll, type RawReply } from '../api/http-edges-client.ts';
import { startStandalone, type RunningViewer } from '../support/run-viewer.ts';

/** Text of the requests below that must never reach a log line. */
const REQUEST_TEXT = ['example.com', 'websocket', 'h2c', 'dGhlIHNhbXBsZSBub25jZQ', 'feel-lucky', 'junk', 'xxxxxxxxxx', 'GARBAGE', 'mallory', '%2e', '%2E', '%77', 'http://ui', 'HTTP://ui', 'probe=1', 'class=segment', '/x/'];
const ROUTE_NAMES = new Set(['/', '/wals', '/healthz', '/readyz', 'unknown']);

type Body = 'page' | 'text' | Extract<WireKind, 'HealthStatus' | 'ReadinessStatus'>;
interface Expected { readonly status: number; readonly body: Body; readonly route: string }
interface Edge {
  readonly name: string;
  readonly bytes: string | Buffer;
  readonly want: Expected;
  /** The connection must close after the answer (the parser gave up, a CONNECT, or an unanswered 100-continue). */
  readonly closes: boolean;
}

const CONTENT_TYPE: Record<Body, string> = { page: 'text/html; charset=utf-8', text: 'text/plain; charset=utf-8', HealthStatus: 'application/json', ReadinessStatus: 'application/json' };
const health: Expected = { status: 200, body: 'HealthStatus', route: '/healthz' };
const notAllowed: Expected = { status: 405, body: 'text', route: 'unknown' };
const refused: Expected = { status: 400, body: 'text', route: 'unknown' };
const notFound: Expected = { status: 404, body: 'page', route: 'unknown' };

/**
 * Request targets that name no route although a URL parser resolves each to one (dot segments,
 * percent-encoded dots and letters, an empty first segment read as a host, the absolute form, a
 * trailing slash, case), plus a query on a route that takes none.
 */
const NOT_ROUTES = [
  '/x/../wals',
  '/./wals',
  '/wals/.',
  '/%2e/wals',
  '/%2E/healthz',
  '/%77als',
  '//wals',
  '//',
  '//healthz',
  'http://ui/wals',
  'http://ui/',
  'http://ui/healthz',
  'HTTP://ui/readyz',
  '/wals/',
  '/WALS',
  '/healthz/',
  '/healthz?probe=1',
  '/readyz?x',
];

const EDGES: readonly Edge[] = [
  // Host is never consulted (links are relative, routes are paths): its absence changes nothing.
  { name: 'the inventory without Host', bytes: 'GET / HTTP/1.1\r\nX-Forwarded-User: mallory\r\n\r\n', want: { status: 200, body: 'page', route: '/' }, closes: false },
  { name: '/healthz without Host', bytes: 'GET /healthz HTTP/1.1\r\n\r\n', want: health, closes: false },
  // An expectation other than 100-continue is ignored (RFC 9110 allows it): no body is ever read.
  { name: 'an Expect other than 100-continue', bytes: 'GET /healthz HTTP/1.1\r\nHost: ui\r\nExpect: feel-lucky\r\n\r\n', want: health, closes: false },
  { name: 'Expect: 100-continue', bytes: 'GET /readyz HTTP/1.1\r\nHost: ui\r\nExpect: 100-continue\r\n\r\n', want: { status: 200, body: 'ReadinessStatus', route: '/readyz' }, closes: true },
  { name: 'Expect: 100-continue with a body never sent', bytes: 'POST / HTTP/1.1\r\nHost: ui\r\nExpect: 100-continue\r\nContent-Length: 1000\r\n\r\n', want: { status: 405, body: 'text', route: '/' }, closes: true },
  // A CONNECT names no page, whatever its target: 405 (D-47), logged as unknown.
  { name: 'CONNECT to an authority', bytes: 'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n', want: notAllowed, closes: true },
  { name: 'CONNECT to an IPv6 authority', bytes: 'CONNECT [::1]:443 HTTP/1.1\r\nHost: [::1]:443\r\n\r\n', want: notAllowed, closes: true },
  { name: 'CONNECT to a page path', bytes: 'CONNECT /wals HTTP/1.1\r\nHost: ui\r\n\r\n', want: notAllowed, closes: true },
  {
    name: 'a WebSocket upgrade',
    bytes: 'GET /healthz HTTP/1.1\r\nHost: ui\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n',
    want: health,
    closes: false,
  },
  { name: 'an h2c upgrade', bytes: 'GET /wals HTTP/1.1\r\nHost: ui\r\nConnection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\nHTTP2-Settings: AAMAAABkAARAAAAAAAIAAAAA\r\n\r\n', want: { status: 200, body: 'page', route: '/wals' }, closes: false },
  { name: 'a malformed request line', bytes: 'GET / HTTP/1.1 junk\r\nHost: ui\r\n\r\n', want: refused, closes: true },
  { name: 'a malformed header', bytes: 'GET / HTTP/1.1\r\nHo st: ui\r\n\r\n', want: refused, closes: true },
  { name: 'a TLS client hello', bytes: Buffer.from('16030100a5010000a10303', 'hex'), want: refused, closes: true },
  { name: 'the HTTP/2 preface', bytes: 'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', want: refused, closes: true },
  { name: 'headers over 16 KiB', bytes: `GET / HTTP/1.1\r\nHost: ui\r\nX-Junk: ${'x'.repeat(20_000)}\r\n\r\n`, want: refused, closes: true },
  // Routes are the raw target byte for byte (D-76): no target a URL parser would resolve to a
  // route is served under it. The same routes, written exactly, are served (the last cases).
  ...NOT_ROUTES.map((target): Edge => ({ name: `the target ${target}`, bytes: `GET ${target} HTTP/1.1\r\nHost: ui\r\n\r\n`, want: notFound, closes: false })),
  { name: 'POST to a dot-segment target', bytes: 'POST /x/../healthz HTTP/1.1\r\nHost: ui\r\n\r\n', want: { status: 404, body: 'page', route: 'unknown' }, closes: false },
  { name: 'the target /wals with a query', bytes: 'GET /wals?class=segment&timeline=1 HTTP/1.1\r\nHost: ui\r\n\r\n', want: { status: 200, body: 'page', route: '/wals' }, closes: false },
  { name: 'the target /wals with an empty query', bytes: 'GET /wals? HTTP/1.1\r\nHost: ui\r\n\r\n', want: { status: 200, body: 'page', route: '/wals' }, closes: false },
  { name: 'the target / with a query (a rejected filter, D-47)', bytes: 'GET /?class=segment HTTP/1.1\r\nHost: ui\r\n\r\n', want: { status: 400, body: 'page', route: '/' }, closes: false },
  { name: 'the target /readyz', bytes: 'GET /readyz HTTP/1.1\r\nHost: ui\r\n\r\n', want: { status: 200, body: 'ReadinessStatus', route: '/readyz' }, closes: false },
];

describe('standalone server at the edges of HTTP', () => {
  let viewer: RunningViewer;
  let to = { port: 0, host: '127.0.0.1' };
  /** The request log lines written so far (scans log too; they are not counted). */
  const requestLines = () =>
    viewer
      .logs()
      .split('\n')
      .filter((l) => /"msg":"(request|malformed request)"/.test(l));

  before(async () => {
    viewer = await startStandalone({ TRUSTED_USER_HEADER: 'X-Forwarded-User' });
    const { hostname, port } = new URL(viewer.base);
    to = { port: Number(port), host: hostname };
    // The first scan of the demo is immediate; wait until it is published.
    for (let i = 0; i < 50 && !/"generation":1/.test(viewer.logs()); i++) await new Promise((r) => setTimeout(r, 100));
  });
  after(() => {
    viewer.child.kill('SIGTERM');
  });

  /** Every hardening header, the status, and the body the case calls for. */
  const expectAnswer = (r: RawReply, want: Expected, what: string) => {
    assert.equal(r.status, want.status, `${what}: ${r.body.slice(0, 120)}`);
    for (const [name, value] of Object.entries(PAGE_HEADERS)) assert.equal(header(r, name), value, `${what}: ${name}`);
    assert.equal(header(r, 'content-type'), CONTENT_TYPE[want.body], what);
    assert.equal(header(r, 'content-length'), String(Buffer.byteLength(r.body)), what);
    assert.deepEqual(r.interim, [], `${what}: no interim answer without the hardening headers`);
    if (want.body === 'page') assert.match(r.body, /^<!doctype html>/, what);
    else if (want.body === 'text') assert.ok(r.body.length > 0 && !r.body.includes('<'), what);
    else assert.deepEqual(wireViolations(want.body, JSON.parse(r.body)), [], `${what}: ${r.body.slice(0, 200)}`);
    if (want.status === 405) assert.equal(header(r, 'allow'), 'GET', what);
  };

  /** Waits until the log holds `count` request lines (the child's output arrives through a pipe), and no more. */
  const logged = async (count: number, what: string) => {
    for (let i = 0; i < 100 && requestLines().length < count; i++) await new Promise((r) => setTimeout(r, 20));
    assert.equal(requestLines().length, count, `${what}: one log line per answer`);
  };

  for (const edge of EDGES) {
    it(`answers ${edge.name} with ${edge.want.status} and every hardening header, then keeps serving`, async () => {
      const from = requestLines().length;
      const r = await exchange(to, edge.bytes);
      expectAnswer(r, edge.want, edge.name);
      assert.equal(r.closed, edge.closes, `${edge.name}: connection ${edge.closes ? 'kept open' : 'closed'}`);
      if (edge.closes) assert.equal(header(r, 'connection'), 'close', edge.name);
      await logged(from + 1, edge.name);
      const entry = JSON.parse(requestLines()[from] ?? '{}') as Record<string, unknown>;
      assert.equal(entry['route'], edge.want.route, edge.name);
      assert.equal(entry['status'], edge.want.status, edge.name);
      expectAnswer(await exchange(to, 'GET /healthz HTTP/1.1\r\nHost: ui\r\n\r\n'), health, `${edge.name}, then /healthz`);
      await logged(from + 2, `${edge.name}, then /healthz`);
    });
  }

  it('answers pipelined requests in order when a CONNECT or a malformed request follows them', async () => {
    const get = 'GET /healthz HTTP/1.1\r\nHost: ui\r\n\r\n';
    for (const [last, want] of [['CONNECT example.com:443 HTTP/1.1\r\n\r\n', 'HTTP/1.1 405 '], ['GARBAGE\r\n\r\n', 'HTTP/1.1 400 ']] as const) {
      const all = await readAll(to, `${get}${get}${get}${last}`);
      assert.deepEqual(all.match(/HTTP\/1\.1 \d{3} /g), ['HTTP/1.1 200 ', 'HTTP/1.1 200 ', 'HTTP/1.1 200 ', want], all.slice(0, 400));
    }
  });

  it('survives a client that resets right after CONNECT or a malformed line', async () => {
    for (const bytes of ['CONNECT example.com:443 HTTP/1.1\r\n\r\n', 'GET / HTTP/1.1 junk\r\n\r\n']) await readAll(to, bytes, { abort: true });
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(viewer.child.exitCode, null, 'the process exited');
    expectAnswer(await exchange(to, 'GET /healthz HTTP/1.1\r\nHost: ui\r\n\r\n'), health, 'after resets');
  });

  it('logs only route names, never request text', () => {
    const lines = requestLines();
    assert.ok(lines.length >= EDGES.length * 2);
    for (const line of lines) {
      assert.ok(ROUTE_NAMES.has(String((JSON.parse(line) as Record<string, unknown>)['route'])), line);
      for (const s of REQUEST_TEXT) assert.ok(!line.includes(s), `a log line carries ${s.slice(0, 12)}`);
    }
  });
});
