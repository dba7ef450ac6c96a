/**
 * The sidecar's evidence API (spec "Sidecar the service"): a closed set of GET routes over
 * HTTP/1.1 on a Unix socket, every one authenticated with the pod-local bearer token, answering
 * only from the current immutable publication (no store I/O), with the spec's fixed headers, one
 * error body, size limits, a concurrency budget (admitted requests until their answer closes; a
 * refusal takes no share of it) and a hard deadline. Order of checks for every request:
 * concurrency budget (429), authentication (401), route (404), method (405), query (400),
 * publication validity (500), revision (409), representability (413). Also owns
 * `createAnsweringServer`, the HTTP server both surfaces use so that Node's HTTP layer never
 * answers (or drops) a request by itself.
 */
import { randomUUID, timingSafeEqual } from 'node:crypto';
import { createServer, IncomingMessage, ServerResponse, type Server, type ServerOptions } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { WireBody, WireKind } from '../../contract/kinds.ts';
import { API_ERROR_STATUS, API_VERSION, type ApiErrorCode, MEDIA_TYPE, PAGE_LIMITS } from '../../contract/values.ts';
import { serialize } from '../../contract/serialize.ts';
import type { Logger } from '../../common/log.ts';
import { detailsView } from '../../publication/details.ts';
import type { Publication } from '../../publication/publisher.ts';
import { CursorCodec, type CursorRoute } from './cursor.ts';
import { API_ROUTES, COLLECTIONS, HEALTH_PATH, READY_PATH, SNAPSHOT_PATH, type Collection } from '../../contract/routes.ts';

/** The spec's limits the API alone applies; the page limits (items, cursor bytes) are `PAGE_LIMITS` of the contract. */
export const LIMITS = {
  snapshotBytes: 256 * 1024,
  pageBytes: 1024 * 1024,
  maxInFlight: 16,
  deadlineMs: 5_000,
  /** `Bearer ` plus the 43-character token; anything longer is refused unread. */
  maxAuthorizationBytes: 7 + 43,
  retryAfterSeconds: 1,
} as const;

export interface EvidenceApiOptions {
  readonly token: string;
  readonly publication: () => Publication;
  /** True when the configuration is valid and a reachability check succeeded within the window. */
  readonly ready: () => boolean;
  readonly logger: Logger;
  readonly cursors?: CursorCodec;
  readonly maxInFlight?: number;
  readonly deadlineMs?: number;
  /** Smaller size limits, so tests can reach the 413 path with small publications. */
  readonly sizeLimits?: { readonly snapshotBytes: number; readonly pageBytes: number };
}

const ERROR_MESSAGES: Record<ApiErrorCode, string> = {
  'invalid-request': 'The request has an invalid query, limit or cursor; restart from the snapshot if a cursor was refused.',
  unauthenticated: 'Authentication is required.',
  'not-found': 'No such route.',
  'method-not-allowed': 'Only GET is allowed.',
  'publication-changed': 'The requested revision is no longer current; restart from the snapshot.',
  'response-limit': 'The response cannot be represented within its size limit.',
  busy: 'Too many requests in flight; retry shortly.',
  'invalid-publication': 'The current publication failed validation; no data is returned.',
};

const FIXED_HEADERS = {
  'Content-Type': MEDIA_TYPE,
  'Cache-Control': 'no-store',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
} as const;

const COLLECTION_BY_PATH = new Map<string, Collection>(COLLECTIONS.map((c) => [c.path, c]));
const ROUTES = new Set(API_ROUTES);
/** Query values are plain ASCII tokens (no percent-encoding is needed or accepted); the longest is a cursor. */
const QUERY_VALUE = new RegExp(`^[A-Za-z0-9_-]{1,${PAGE_LIMITS.cursorBytes}}$`);

interface Outcome {
  readonly status: number;
  readonly body: string;
  readonly code: ApiErrorCode | null;
  readonly revision: number | null;
  readonly headers?: Record<string, string>;
}

export function errorBody(code: ApiErrorCode): string {
  return serialize('EvidenceAPIError', { api_version: API_VERSION, kind: 'EvidenceAPIError', code, message: ERROR_MESSAGES[code] });
}
const fail = (code: ApiErrorCode, revision: number | null = null, headers?: Record<string, string>): Outcome => ({
  status: API_ERROR_STATUS[code],
  body: errorBody(code),
  code,
  revision,
  ...(headers === undefined ? {} : { headers }),
});
const ok = <K extends WireKind>(kind: K, body: WireBody<K>, revision: number | null, status = 200): Outcome => ({ status, body: serialize(kind, body), code: null, revision });

function authenticated(req: IncomingMessage, expected: Buffer): boolean {
  const values = req.headersDistinct['authorization'];
  if (values?.length !== 1) return false;
  const value = values[0] ?? '';
  if (value.length > LIMITS.maxAuthorizationBytes || !value.startsWith('Bearer ')) return false;
  const given = Buffer.from(value.slice(7));
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** Query parameters, each at most once, no other names; `null` when malformed. */
function queryOf(search: string, allowed: readonly string[]): Map<string, string> | null {
  const out = new Map<string, string>();
  if (search === '') return out;
  for (const part of search.split('&')) {
    const eq = part.indexOf('=');
    const name = eq === -1 ? part : part.slice(0, eq);
    const value = eq === -1 ? '' : part.slice(eq + 1);
    if (!allowed.includes(name) || out.has(name) || !QUERY_VALUE.test(value)) return null;
    out.set(name, value);
  }
  return out;
}

const UINT = /^(?:0|[1-9][0-9]{0,15})$/;

function collectionItems(p: Publication, route: CursorRoute): readonly unknown[] {
  switch (route) {
    case 'backups':
      return p.backups;
    case 'wal-ranges':
      return p.walRanges;
    case 'wal-gaps':
      return p.walGaps;
    case 'recovery-paths':
      return p.recoveryPaths;
  }
}

function totalOf(p: Publication, route: CursorRoute): number | null {
  return detailsView(p.snapshot.details).routeTotals[route];
}

function collection(c: Collection, search: string, o: EvidenceApiOptions, cursors: CursorCodec): Outcome {
  const q = queryOf(search, ['revision', 'limit', 'cursor']);
  if (q === null) return fail('invalid-request');
  const revisionText = q.get('revision');
  const limitText = q.get('limit');
  const cursorText = q.get('cursor');
  if (revisionText !== undefined && !UINT.test(revisionText)) return fail('invalid-request');
  if (limitText !== undefined && (!UINT.test(limitText) || Number(limitText) < 1 || Number(limitText) > PAGE_LIMITS.maxItems)) return fail('invalid-request');
  const p = o.publication();
  if (p.violations.length > 0) return fail('invalid-publication', p.revision);
  if (revisionText !== undefined && Number(revisionText) !== p.revision) return fail('publication-changed', p.revision);
  let offset = 0;
  let limit = limitText === undefined ? PAGE_LIMITS.defaultItems : Number(limitText);
  if (cursorText !== undefined) {
    const state = cursors.decode(cursorText);
    if (state === null || state.route !== c.route) return fail('invalid-request', p.revision);
    // An authentic cursor of an earlier publication carries a non-current revision: 409 (D-55).
    if (state.revision !== p.revision || state.generation !== p.generation) return fail('publication-changed', p.revision);
    if (limitText !== undefined && state.limit !== limit) return fail('invalid-request', p.revision);
    offset = state.offset;
    limit = state.limit;
  }
  const all = collectionItems(p, c.route);
  if (offset > all.length) return fail('invalid-request', p.revision);
  const items = all.slice(offset, offset + limit);
  const next = offset + limit < all.length ? cursors.encode({ route: c.route, revision: p.revision, generation: p.generation, offset: offset + limit, limit }) : null;
  const page = { api_version: API_VERSION, kind: c.kind, revision: p.revision, evidence_generation: p.generation, total_items: totalOf(p, c.route), items, next_cursor: next };
  const out = ok(c.kind, page as WireBody<typeof c.kind>, p.revision);
  return Buffer.byteLength(out.body) > (o.sizeLimits?.pageBytes ?? LIMITS.pageBytes) ? fail('response-limit', p.revision) : out;
}

function handle(path: string, search: string, o: EvidenceApiOptions, cursors: CursorCodec): Outcome {
  if (path === HEALTH_PATH || path === READY_PATH || path === SNAPSHOT_PATH) {
    if (search !== '') return fail('invalid-request');
  }
  if (path === HEALTH_PATH) return ok('HealthStatus', { api_version: API_VERSION, kind: 'HealthStatus', status: 'live' }, null);
  if (path === READY_PATH) {
    const ready = o.ready();
    return ok('ReadinessStatus', { api_version: API_VERSION, kind: 'ReadinessStatus', status: ready ? 'ready' : 'not-ready' }, null, ready ? 200 : 503);
  }
  if (path === SNAPSHOT_PATH) {
    const p = o.publication();
    if (p.violations.length > 0) return fail('invalid-publication', p.revision);
    if (Buffer.byteLength(p.snapshotJson) > (o.sizeLimits?.snapshotBytes ?? LIMITS.snapshotBytes)) return fail('response-limit', p.revision);
    return { status: 200, body: p.snapshotJson, code: null, revision: p.revision };
  }
  const c = COLLECTION_BY_PATH.get(path);
  return c === undefined ? fail('not-found') : collection(c, search, o, cursors);
}

function send(res: ServerResponse, outcome: Outcome): void {
  res.writeHead(outcome.status, { ...FIXED_HEADERS, 'Content-Length': String(Buffer.byteLength(outcome.body)), ...outcome.headers });
  res.end(outcome.body);
}

export interface AnsweringHandlers {
  /**
   * The server's one request handler. It is also given what Node's HTTP layer would otherwise
   * answer or drop by itself: a request without `Host`; one with any `Expect` (no `100 Continue`
   * is sent, since no surface reads a request body: the final answer comes at once, and Node
   * closes the connection after it); an upgrade request (never switched, answered as it is);
   * `CONNECT` (answered on the socket Node let go of, which then closes).
   */
  readonly request: (req: IncomingMessage, res: ServerResponse) => void;
  /** Answers a request the HTTP parser refused: nothing of it is known, not even its method. */
  readonly refused: (res: ServerResponse, error: NodeJS.ErrnoException) => void;
  /**
   * How long a connection answered outside Node's request cycle (a CONNECT, a refusal) may stay
   * open once its answer starts: the client is expected to close it, and is not waited for longer.
   */
  readonly lingerMs: number;
}

/**
 * An HTTP/1.1 server on which every answer is the caller's, so every answer carries the
 * surface's headers and is logged by route. (It lives here because both surfaces need it and it
 * answers like the sidecar; it is surface plumbing, nothing of the evidence API's.)
 */
export function createAnsweringServer(options: ServerOptions, h: AnsweringHandlers): Server {
  // Neither surface consults Host (one origin, routes by path only), so its absence is no error
  // of the request; an upgrade is never accepted, so the request is answered as it stands.
  const server = createServer({ ...options, requireHostHeader: false, shouldUpgradeCallback: () => false });
  // Responses a connection still owes. An answer written outside the request cycle waits for
  // them: pipelined answers keep their order, and the socket is never given two responses.
  const owed = new WeakMap<Duplex, number>();
  const afterOwed = new WeakMap<Duplex, () => void>();
  const answered = new WeakSet<Duplex>();

  const request = (req: IncomingMessage, res: ServerResponse): void => {
    const socket = req.socket;
    owed.set(socket, (owed.get(socket) ?? 0) + 1);
    res.once('close', () => {
      const left = (owed.get(socket) ?? 1) - 1;
      owed.set(socket, left);
      const next = afterOwed.get(socket);
      if (left === 0 && next !== undefined) {
        afterOwed.delete(socket);
        next();
      }
    });
    h.request(req, res);
  };

  /**
   * One answer on a socket Node let go of (CONNECT) or gave up on (a refusal), written through a
   * ServerResponse like any other; then the connection closes.
   */
  const answerOn = (socket: Duplex, req: IncomingMessage, write: (res: ServerResponse) => void): void => {
    // The parser may report the same connection again (more bytes, its end, a timeout).
    if (answered.has(socket)) return;
    answered.add(socket);
    // Node has removed its own error listener from a socket it let go of: a client that goes
    // away must not take the process with it.
    socket.on('error', () => socket.destroy());
    const answer = (): void => {
      if (!socket.writable) {
        socket.destroy();
        return;
      }
      const linger = setTimeout(() => socket.destroy(), h.lingerMs);
      linger.unref();
      socket.once('close', () => clearTimeout(linger));
      const res = new ServerResponse(req);
      res.shouldKeepAlive = false;
      res.assignSocket(socket as Socket);
      res.once('finish', () => socket.end());
      write(res);
    };
    if ((owed.get(socket) ?? 0) === 0) answer();
    else afterOwed.set(socket, answer);
  };

  server.on('request', request);
  server.on('checkContinue', request);
  server.on('checkExpectation', request);
  server.on('connect', (req: IncomingMessage, socket: Duplex) => {
    // Nothing after a CONNECT is read as HTTP any more: discard it, so the client's close is seen.
    socket.resume();
    answerOn(socket, req, (res) => h.request(req, res));
  });
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => answerOn(socket, new IncomingMessage(socket as Socket), (res) => h.refused(res, error)));
  return server;
}

const BUILTIN_ERRORS = [Error, TypeError, RangeError, SyntaxError, ReferenceError, EvalError, URIError, AggregateError];

/** The class of a thrown value when it is exactly one of the language's own errors, else `other`: a fixed word, never the value's text. */
function builtinErrorType(error: unknown): string {
  const proto: unknown = typeof error === 'object' && error !== null ? Object.getPrototypeOf(error) : null;
  return BUILTIN_ERRORS.find((c) => c.prototype === proto)?.name ?? 'other';
}

export function createEvidenceApi(o: EvidenceApiOptions): Server {
  const cursors = o.cursors ?? new CursorCodec();
  const expected = Buffer.from(o.token);
  const maxInFlight = o.maxInFlight ?? LIMITS.maxInFlight;
  const deadlineMs = o.deadlineMs ?? LIMITS.deadlineMs;
  let inFlight = 0;

  /** Logs an answer once it is sent, as the request's one line: allowlisted fields only, the route by its stable name. */
  const logWhenSent = (res: ServerResponse, message: string, route: string, outcome: Outcome, started: bigint, extra: Record<string, string | null> = {}, level: 'info' | 'error' = 'info'): void => {
    res.once('finish', () =>
      o.logger[level](
        { request_id: randomUUID(), route, status: outcome.status, duration_ms: Number(process.hrtime.bigint() - started) / 1e6, revision: outcome.revision, code: outcome.code, ...extra },
        message,
      ),
    );
  };

  const request = (req: IncomingMessage, res: ServerResponse): void => {
    const started = process.hrtime.bigint();
    const raw = req.url ?? '';
    const q = raw.indexOf('?');
    const path = q === -1 ? raw : raw.slice(0, q);
    const search = q === -1 ? '' : raw.slice(q + 1);
    // A CONNECT names an authority (host:port), never a resource: it has no route, and what is
    // wrong with it is its method (405, after authentication like everything else).
    const connect = req.method === 'CONNECT';
    const route = ROUTES.has(path) && !connect ? path : 'unknown';
    // The budget counts admitted requests until their answer is closed. A refused request takes
    // no share of it: its 429 may wait on its connection behind answers a stalled client is not
    // reading, and counting it until written would let refusals alone keep the API closed.
    const admitted = inFlight < maxInFlight;
    if (admitted) {
      inFlight += 1;
      res.once('close', () => (inFlight -= 1));
    }
    // The hard deadline: a response not finished in time ends the connection.
    const deadline = setTimeout(() => req.socket.destroy(), deadlineMs);
    deadline.unref();
    res.once('finish', () => clearTimeout(deadline));

    let outcome: Outcome;
    let thrown: string | null = null;
    try {
      if (!admitted) outcome = fail('busy', null, { 'Retry-After': String(LIMITS.retryAfterSeconds) });
      else if (!authenticated(req, expected)) outcome = fail('unauthenticated');
      else if (route === 'unknown' && !connect) outcome = fail('not-found');
      else if (req.method !== 'GET') outcome = fail('method-not-allowed', null, { Allow: 'GET' });
      else outcome = handle(path, search, o, cursors);
    } catch (error) {
      // A handler that throws is a defect, answered like an invalid publication (500, no data).
      // It is logged, at error level and under its own message so that it is not mistaken for a
      // publication that failed validation, by route, status and stable code only, plus the kind
      // of error when it is one of the language's own. Never the error's message, stack or cause:
      // they can carry what the publication holds (backup ids, scope names, which the request log
      // never shows) and, through a StoreError's cause, a provider's text, which never leaves the
      // store layer (docs/architecture.md).
      outcome = fail('invalid-publication');
      thrown = builtinErrorType(error);
    }
    // A request body is never read: drain it so the connection can be reused.
    req.resume();
    if (thrown === null) logWhenSent(res, 'request', route, outcome, started);
    else logWhenSent(res, 'request failed in its handler', route, outcome, started, { error_type: thrown }, 'error');
    send(res, outcome);
  };

  // requestTimeout and headersTimeout are only enforced when connections are checked, every
  // 30 s by default: check often enough that the deadline holds within a second.
  return createAnsweringServer(
    { maxHeaderSize: 16 * 1024, requestTimeout: deadlineMs, headersTimeout: deadlineMs, keepAliveTimeout: 60_000, connectionsCheckingInterval: Math.min(1_000, deadlineMs) },
    {
      request,
      // A request the parser refused (D-44): no header could be read, so no token either.
      refused: (res, error) => {
        const outcome = fail('invalid-request');
        logWhenSent(res, 'malformed request', 'unknown', outcome, process.hrtime.bigint(), { error_code: typeof error.code === 'string' ? error.code : null });
        send(res, outcome);
      },
      lingerMs: deadlineMs,
    },
  );
}
