/**
 * Property tests of the collection routes' query parsing through the real API (issue 19): the
 * in-process evidence API on a temporary Unix socket, sent arbitrary queries over node:http and as
 * raw bytes over a socket. Every answer is one of the statuses the spec allows for a valid
 * publication and an authenticated GET (200, 400, 409), with the fixed headers and a body that
 * validates as its page kind or as an EvidenceAPIError whose code matches the status; it is the
 * answer an independent model of the query rules gives (revision, limit, cursor; cursors accepted
 * only as issued, tampered or foreign ones refused); pages hold exactly the publication's slice;
 * and no request ever ends in the handler's catch-all (no 500, no error log line).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { createLogger } from '../../common/log.ts';
import { PAGE_LIMITS } from '../../contract/values.ts';
import { COLLECTIONS, type Collection, type CollectionRoute } from '../../contract/routes.ts';
import { wireViolations } from '../../contract/validate.ts';
import { BudgetMeter } from '../../evidence/listing.ts';
import { scanScope } from '../../evidence/scope-scan.ts';
import { archiveCloud } from '../../format/barman-cloud/format.ts';
import { SyntheticRepository } from '../../format/barman-cloud/synthetic-repository.ts';
import type { Publisher} from '../../publication/publisher.ts';
import { type Publication } from '../../publication/publisher.ts';
import { confine } from '../../store/confined.ts';
import { MemoryStore } from '../../store/memory/memory-driver.ts';
import { CursorCodec, type CursorState } from './cursor.ts';
import { createEvidenceApi } from './evidence-api.ts';
import { listenOnSocket } from './socket.ts';
import { DATABASES_CLUSTER, testPublisher } from '../../../test/support/publication-fixture.ts';

const TOKEN = 'q1aKFo9oVbP3rJ7Ztl0cKjYc2yU8m1Q0xW5nA4bZr-E';
const ROOT = 'prefix/pg-main/';
const MEDIA_TYPE = 'application/vnd.viewer.evidence.v1alpha1+json';
const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const STATUS_OF: Record<string, number> = { 'invalid-request': 400, 'publication-changed': 409 };

interface Reply { readonly status: number; readonly headers: Record<string, string | string[] | undefined>; readonly body: string }
type Expected = { readonly status: 200; readonly offset: number; readonly limit: number } | { readonly status: 400 | 409; readonly code: string };

/** A publication whose collections span several pages: WAL with many gaps, a few backups. */
async function publication(publisher: Publisher): Promise<Publication> {
  const store = new MemoryStore();
  const repo = new SyntheticRepository(store, ROOT);
  const t0 = Date.parse('2026-11-21T00:00:00Z');
  repo.segments(1, 1, 300, new Date(t0), { stepMs: 1000, missing: Array.from({ length: 60 }, (_, i) => 10 + i * 4) });
  for (let i = 0; i < 6; i++) repo.backup({ id: `2026112${i}T000000`, timeline: 1, beginPosition: 2 + i, endPosition: 2 + i, beginTime: new Date(t0 + i * 1000), endTime: new Date(t0 + i * 1000 + 500) });
  const e = await scanScope({ format: archiveCloud, server: 'pg-main', root: ROOT, driver: confine(store, ROOT), signal: new AbortController().signal, meter: new BudgetMeter({ maxPages: 1000, maxObjects: 1e6 }), concurrency: 4, ...publisher.nextScan });
  return publisher.complete(e, { startedAt: new Date(t0 + 3_600_000), finishedAt: new Date(t0 + 3_601_000), pages: 2, objects: e.objectCount });
}

/** Percent-encoding of every byte but the unreserved ones (encodeURIComponent throws on a lone surrogate). */
function percent(s: string): string {
  return [...Buffer.from(s, 'utf8')].map((b) => (/[A-Za-z0-9_.~-]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${b.toString(16).toUpperCase().padStart(2, '0')}`)).join('');
}

function itemsOf(p: Publication, route: CollectionRoute): readonly unknown[] {
  return route === 'backups' ? p.backups : route === 'wal-ranges' ? p.walRanges : route === 'wal-gaps' ? p.walGaps : p.recoveryPaths;
}

describe('collection query parsing through the evidence API', () => {
  const dir = mkdtempSync(join(tmpdir(), 'viewer-api-prop-'));
  const socketPath = join(dir, 'evidence.sock');
  const logLines: string[] = [];
  const sink = new Writable({ write(chunk: Buffer, _e, cb) { logLines.push(...chunk.toString().split('\n').filter(Boolean)); cb(); } });
  const publisher = testPublisher({ identity: { cluster: DATABASES_CLUSTER, fingerprint: `sha256:${'b'.repeat(64)}`, server: 'pg-main' }, freshnessMs: 900_000 });
  /** The server's own codec, so the test can also forge authentic cursors of any state. */
  const codec = new CursorCodec();
  const foreign = new CursorCodec();
  let current: Publication = publisher.current;
  const server = createEvidenceApi({ token: TOKEN, publication: () => current, ready: () => true, logger: createLogger('info', sink), cursors: codec });
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  /** Every authentic cursor the model knows of (issued by the server, or forged with its codec), with its state. */
  const authentic = new Map<string, CursorState>();
  let requests = 0;

  before(async () => {
    current = await publication(publisher);
    await listenOnSocket(server, socketPath);
    // Collect issued cursors by walking every route with a few page sizes.
    for (const c of COLLECTIONS) {
      for (const limit of [1, 3, 7, 100]) {
        let cursor: string | null = null;
        do {
          const r = await call(`${c.path}?${cursor === null ? `limit=${String(limit)}` : `cursor=${cursor}`}`);
          assert.equal(r.status, 200, r.body);
          const offset: number = cursor === null ? 0 : (authentic.get(cursor)?.offset ?? Number.NaN);
          verify(c, cursor === null ? `limit=${String(limit)}` : `cursor=${cursor}`, r, { status: 200, offset, limit });
          cursor = (JSON.parse(r.body) as { next_cursor: string | null }).next_cursor;
        } while (cursor !== null);
      }
    }
  });
  after(() => {
    agent.destroy();
    server.close();
    server.closeAllConnections();
    rmSync(dir, { recursive: true, force: true });
  });

  function call(path: string): Promise<Reply> {
    requests++;
    return new Promise((resolve, reject) => {
      const req = request({ socketPath, path, agent, headers: { authorization: `Bearer ${TOKEN}` } }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      });
      req.on('error', reject);
      req.end();
    });
  }

  /** One whole exchange on a fresh connection, the request line written byte for byte. */
  function rawCall(target: Buffer): Promise<Reply> {
    requests++;
    return new Promise((resolve, reject) => {
      const socket = connect(socketPath, () => {
        socket.end(Buffer.concat([Buffer.from('GET '), target, Buffer.from(` HTTP/1.1\r\nHost: sidecar\r\nAuthorization: Bearer ${TOKEN}\r\nConnection: close\r\n\r\n`)]));
      });
      const chunks: Buffer[] = [];
      socket.on('data', (c: Buffer) => chunks.push(c));
      socket.on('error', reject);
      socket.on('close', () => {
        const all = Buffer.concat(chunks).toString('latin1');
        const head = all.indexOf('\r\n\r\n');
        const m = /^HTTP\/1\.1 ([0-9]{3}) /.exec(all);
        if (head === -1 || m === null) return reject(new Error(`no HTTP answer: ${JSON.stringify(all.slice(0, 80))}`));
        const headers: Record<string, string> = {};
        for (const line of all.slice(0, head).split('\r\n').slice(1)) {
          const colon = line.indexOf(':');
          headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
        }
        const length = Number(headers['content-length']);
        const body = Buffer.from(all.slice(head + 4), 'latin1');
        // Exactly one answer, of exactly its declared length.
        assert.equal(body.length, length, 'a second answer or a short body');
        resolve({ status: Number(m[1]), headers, body: body.toString('utf8') });
      });
    });
  }

  /**
   * The query rules, written independently of the server: parameters `name=value`, each of
   * `revision`, `limit`, `cursor` at most once, values plain base64url-alphabet tokens of at most
   * 4096 bytes; integers without sign or leading zero; a limit of 1–200; a cursor only as issued
   * for this route and publication, and then its page size governs.
   */
  function model(route: CollectionRoute, query: string): Expected {
    const invalid = { status: 400, code: 'invalid-request' } as const;
    const params = new Map<string, string>();
    if (query !== '') {
      for (const part of query.split('&')) {
        const m = /^(revision|limit|cursor)=([A-Za-z0-9_-]+)$/.exec(part);
        if (m === null || params.has(m[1] ?? '') || (m[2] ?? '').length > PAGE_LIMITS.cursorBytes) return invalid;
        params.set(m[1] ?? '', m[2] ?? '');
      }
    }
    const uint = (t: string) => /^(?:0|[1-9][0-9]*)$/.test(t) && t.length <= 16;
    const revision = params.get('revision');
    const limitText = params.get('limit');
    const cursor = params.get('cursor');
    if (revision !== undefined && !uint(revision)) return invalid;
    if (limitText !== undefined && (!uint(limitText) || Number(limitText) < 1 || Number(limitText) > PAGE_LIMITS.maxItems)) return invalid;
    if (revision !== undefined && Number(revision) !== current.revision) return { status: 409, code: 'publication-changed' };
    let offset = 0;
    let limit = limitText === undefined ? PAGE_LIMITS.defaultItems : Number(limitText);
    if (cursor !== undefined) {
      const state = authentic.get(cursor);
      if (state === undefined || state.route !== route) return invalid;
      if (state.revision !== current.revision || state.generation !== current.generation) return { status: 409, code: 'publication-changed' };
      if (limitText !== undefined && state.limit !== limit) return invalid;
      offset = state.offset;
      limit = state.limit;
    }
    if (offset > itemsOf(current, route).length) return invalid;
    return { status: 200, offset, limit };
  }

  /** The reply is well-formed, and is what the model expects; a page's next cursor becomes known. */
  function verify(c: Collection, query: string, r: Reply, expected: Expected | null): void {
    assert.equal(r.headers['content-type'], MEDIA_TYPE);
    assert.equal(r.headers['cache-control'], 'no-store');
    assert.equal(r.headers['x-content-type-options'], 'nosniff');
    assert.equal(r.headers['referrer-policy'], 'no-referrer');
    assert.ok([200, 400, 409].includes(r.status), `status ${String(r.status)} for ${JSON.stringify(query.slice(0, 200))}: ${r.body}`);
    const body = JSON.parse(r.body) as Record<string, unknown>;
    if (r.status === 200) {
      assert.deepEqual(wireViolations(c.kind, body), []);
      assert.equal(body['revision'], current.revision);
      assert.equal(body['evidence_generation'], current.generation);
    } else {
      assert.deepEqual(wireViolations('EvidenceAPIError', body), []);
      assert.equal(STATUS_OF[body['code'] as string], r.status);
    }
    if (expected === null) return;
    if (expected.status !== 200) {
      assert.equal(r.status, expected.status, `${JSON.stringify(query.slice(0, 200))}: ${r.body}`);
      assert.equal(body['code'], expected.code);
      return;
    }
    assert.equal(r.status, 200, `${JSON.stringify(query.slice(0, 200))}: ${r.body}`);
    const all = itemsOf(current, c.route);
    assert.deepEqual(body['items'], JSON.parse(JSON.stringify(all.slice(expected.offset, expected.offset + expected.limit))));
    const next = body['next_cursor'];
    if (expected.offset + expected.limit >= all.length) assert.equal(next, null);
    else {
      assert.equal(typeof next, 'string');
      const state: CursorState = { route: c.route, revision: current.revision, generation: current.generation, offset: expected.offset + expected.limit, limit: expected.limit };
      assert.deepEqual(codec.decode(next as string), state);
      authentic.set(next as string, state);
    }
  }

  /** Queries built from the parameter names with values of every kind; sometimes percent-encoded. */
  function queryArb(route: CollectionRoute): fc.Arbitrary<string> {
    const issued = [...authentic.entries()];
    const sameRoute = issued.filter(([, s]) => s.route === route).map(([t]) => t);
    const otherRoute = issued.filter(([, s]) => s.route !== route).map(([t]) => t);
    assert.ok(sameRoute.length > 0, `no cursor was issued for ${route}: the publication is too small`);
    const anyIssued = fc.constantFrom(...sameRoute);
    const tampered = fc.tuple(anyIssued, fc.nat(), fc.constantFrom(...BASE64URL)).map(([t, at, ch]) => t.slice(0, at % t.length) + ch + t.slice((at % t.length) + 1));
    const forged = fc
      .record({
        route: fc.oneof({ weight: 3, arbitrary: fc.constant(route) }, { weight: 1, arbitrary: fc.constantFrom(...COLLECTIONS.map((x) => x.route)) }),
        revision: fc.oneof({ weight: 2, arbitrary: fc.constant(current.revision) }, { weight: 1, arbitrary: fc.nat(current.revision + 2) }),
        generation: fc.oneof({ weight: 2, arbitrary: fc.constant(current.generation) }, { weight: 1, arbitrary: fc.nat(current.generation + 2) }),
        offset: fc.oneof(fc.nat(itemsOf(current, route).length + 2), fc.maxSafeNat()),
        limit: fc.integer({ min: 0, max: 300 }),
      }, { noNullPrototype: true })
      .map((s) => {
        const text = codec.encode(s);
        authentic.set(text, s);
        return text;
      });
    const cursorValue = fc.oneof(
      { weight: 6, arbitrary: anyIssued },
      { weight: 1, arbitrary: otherRoute.length === 0 ? anyIssued : fc.constantFrom(...otherRoute) },
      { weight: 2, arbitrary: tampered },
      { weight: 3, arbitrary: forged },
      { weight: 1, arbitrary: forged.map((t) => foreign.encode(authentic.get(t) ?? { route, revision: 0, generation: 0, offset: 0, limit: 1 })) },
      { weight: 1, arbitrary: fc.string({ unit: fc.constantFrom(...BASE64URL), maxLength: 100 }) },
      { weight: 1, arbitrary: fc.constantFrom(PAGE_LIMITS.cursorBytes, PAGE_LIMITS.cursorBytes + 1).chain((n) => anyIssued.map((t) => t.padEnd(n, 'A'))) },
    );
    const integer = (good: fc.Arbitrary<number>) =>
      fc.oneof({ weight: 4, arbitrary: good.map(String) }, { weight: 1, arbitrary: fc.constantFrom('0', '00', '01', '-1', '+1', '1.0', '1e2', '0x1', ' 1', '9'.repeat(16), '9'.repeat(17), '99999999999999999999', '') });
    const value: Record<string, fc.Arbitrary<string>> = {
      revision: integer(fc.oneof({ weight: 2, arbitrary: fc.constant(current.revision) }, { weight: 1, arbitrary: fc.nat(current.revision + 3) })),
      limit: integer(fc.oneof(fc.integer({ min: 1, max: PAGE_LIMITS.maxItems }), fc.constantFrom(0, PAGE_LIMITS.maxItems + 1, 1000))),
      cursor: cursorValue,
    };
    const anyValue = fc.oneof(fc.string({ maxLength: 20 }), fc.string({ unit: 'binary', maxLength: 20 }), fc.string({ unit: fc.constantFrom(...BASE64URL), minLength: 1, maxLength: 20 }));
    const param = fc
      .oneof({ weight: 8, arbitrary: fc.constantFrom('revision', 'limit', 'cursor') }, { weight: 1, arbitrary: fc.oneof(fc.constantFrom('Limit', 'cursor[]', 'offset', 'page', '', '__proto__', 'constructor'), fc.string({ maxLength: 8 })) })
      .chain((name) => fc.tuple(fc.constant(name), fc.oneof({ weight: 6, arbitrary: (Object.hasOwn(value, name) ? value[name] : undefined) ?? anyValue }, { weight: 1, arbitrary: anyValue }), fc.constantFrom('=', '=', '=', '', '==')));
    // Well-formed queries (each name once, good values mostly), and noisy ones (any names, separators, encodings).
    const wellFormed = fc
      .oneof(fc.shuffledSubarray(['revision', 'limit', 'cursor']), fc.constantFrom(['cursor'], ['revision', 'cursor'], ['cursor', 'revision']))
      .chain((names) => fc.tuple(...names.map((n) => (value[n] ?? anyValue).map((v) => `${n}=${v}`))))
      .map((parts) => parts.join('&'));
    const noisy = fc
      .tuple(fc.array(param, { maxLength: 4 }), fc.constantFrom('plain', 'plain', 'plain', 'encoded', 'search-params'), fc.constantFrom('&', '&', '&', '&&', ';'))
      .map(([ps, style, sep]) => {
        if (style === 'search-params') return new URLSearchParams(ps.map(([n, v]): [string, string] => [n, v])).toString();
        const enc = style === 'encoded' ? percent : (s: string) => s;
        return ps.map(([n, v, eq]) => `${enc(n)}${eq}${enc(v)}`).join(sep);
      });
    return (
      fc
        .oneof({ weight: 3, arbitrary: wellFormed }, { weight: 2, arbitrary: noisy })
        // What node:http can send at all: no byte outside 0x21–0xFF in a request target.
        .map((q) => q.replace(/[^\u0021-\u00ff]/gu, percent))
    );
  }

  const routeArb = fc.constantFrom(...COLLECTIONS);

  it('answers generated queries exactly as the model of the query rules says', async () => {
    const seen = { 200: 0, 400: 0, 409: 0, cursorPages: 0 };
    await fc.assert(
      fc.asyncProperty(routeArb.chain((c) => fc.tuple(fc.constant(c), queryArb(c.route))), async ([c, query]) => {
        const r = await call(`${c.path}?${query}`);
        verify(c, query, r, model(c.route, query));
        if (r.status === 200 || r.status === 400 || r.status === 409) seen[r.status]++;
        if (r.status === 200 && query.includes('cursor=')) seen.cursorPages++;
      }),
      { numRuns: 1200 },
    );
    // Every answer is exercised, pages reached through a cursor among them.
    for (const [what, n] of Object.entries(seen)) assert.ok(n >= 60, `only ${String(n)} × ${what}`);
  });

  it('answers arbitrary request targets (every byte node:http sends) with a typed answer the model agrees with', async () => {
    const raw = fc.oneof(
      fc.string({ unit: fc.integer({ min: 0x21, max: 0xff }).map((c) => String.fromCharCode(c)), maxLength: 200 }),
      fc.string({ unit: fc.constantFrom(...BASE64URL, '=', '&', '%', '?', '#', '/', ';', '+', '.', '~'), maxLength: 200 }),
      fc.string({ unit: fc.constantFrom(...'revisionlimtcursor0123456789=&'), maxLength: 80 }),
    );
    await fc.assert(
      fc.asyncProperty(routeArb, raw, fc.boolean(), async (c, query, question) => {
        // Without `?` the text is part of the path: an unknown route, 404, unless it is empty.
        const target = question ? `${c.path}?${query}` : `${c.path}${query}`;
        const r = await call(target);
        // Bytes beyond printable ASCII never reach a route: the HTTP parser refuses the request (400, D-44).
        if (/[^\x21-\x7e]/.test(target)) {
          assert.equal(r.status, 400, target);
          assert.deepEqual(wireViolations('EvidenceAPIError', JSON.parse(r.body)), []);
          assert.equal((JSON.parse(r.body) as Record<string, unknown>)['code'], 'invalid-request');
          return;
        }
        const q = target.indexOf('?');
        if ((q === -1 ? target : target.slice(0, q)) !== c.path) {
          assert.equal(r.status, 404, target);
          assert.deepEqual(wireViolations('EvidenceAPIError', JSON.parse(r.body)), []);
          return;
        }
        const search = q === -1 ? '' : target.slice(q + 1);
        verify(c, search, r, model(c.route, search));
      }),
      { numRuns: 1500 },
    );
  });

  it('answers request lines of arbitrary bytes (no line break) with exactly one typed answer', async () => {
    const bytes = fc.oneof(
      fc.uint8Array({ maxLength: 120 }),
      fc.string({ unit: fc.constantFrom(...BASE64URL, '=', '&', ' ', '\t', '\u0000', '\u007f', '%', '#'), maxLength: 120 }).map((s) => Buffer.from(s, 'latin1')),
      fc.tuple(fc.constantFrom('', 'limit=5', `revision=${String(current.revision)}`, 'limit=0', 'x'), fc.integer({ min: 1, max: 3 }), fc.constantFrom('', 'x', 'HTTP/1.1')).map(([q, n, tail]) => Buffer.from(`${q}${' '.repeat(n)}${tail}`, 'latin1')),
    ).map((b) => Buffer.from(Buffer.from(b).filter((x) => x !== 0x0d && x !== 0x0a)));
    await fc.assert(
      fc.asyncProperty(routeArb, bytes, async (c, query) => {
        const r = await rawCall(Buffer.concat([Buffer.from(`${c.path}?`), query]));
        const text = query.toString('latin1');
        // Node's parser ends the target at a space and lets more spaces precede the version
        // ("GET /x?a  HTTP/1.1" is "/x?a"); any other byte outside printable ASCII refuses the request.
        const target = /^([\x21-\x7e]*) *$/.exec(text)?.[1];
        verify(c, text, r, target === undefined ? { status: 400, code: 'invalid-request' } : model(c.route, target));
      }),
      { numRuns: 300 },
    );
  });

  it('never ended a request in the handler’s catch-all, and logged one allowlisted line per request', async () => {
    await new Promise((r) => setImmediate(r));
    const entries = logLines.map((l) => JSON.parse(l) as Record<string, unknown>);
    const failed = entries.filter((e) => e['level'] !== 30 || (e['msg'] !== 'request' && e['msg'] !== 'malformed request'));
    assert.deepEqual(failed, []);
    assert.ok(entries.every((e) => e['status'] === 200 || e['status'] === 400 || e['status'] === 404 || e['status'] === 409));
    assert.ok(entries.length >= requests - 5, `${String(entries.length)} log lines for ${String(requests)} requests`);
  });
});
