/**
 * A fault-injecting reverse proxy for the store fault tests: on 127.0.0.1, on an ephemeral port, in
 * front of a real store (the Swift S3 endpoint, Azurite or the Cloud Storage emulator). Requests
 * are forwarded unchanged, Host header included (SigV4 signs it and the path and query, so a
 * signed request can be passed on but never rewritten); a fault rule, matched by method, path and
 * query, answers instead of the store or spoils the store's answer:
 *
 * - `respond`: a status with a body and headers of the fault's choosing (503 SlowDown, 429, 403,
 *   404 NoSuchBucket, 500 InternalError, a provider's JSON error...; helpers below build each
 *   provider's error body, every one carrying a canary, so a test can prove the provider's text
 *   never reaches a response or a log line);
 * - `hang`: accepts the request and never answers, until the client gives up (its socket closes)
 *   or the proxy is closed;
 * - `delay`: holds the request for `ms`, then forwards it (a slow store);
 * - `reset-mid-body`: forwards, sends the store's status, headers and the first half of its body,
 *   then resets the TCP connection (RST);
 * - `truncate-body`: forwards and sends only the first `keep` bytes of the body, with a
 *   Content-Length that says so: a complete HTTP message carrying a cut document (a listing's XML
 *   cut in the middle);
 * - `rewrite-body`: forwards and replaces the body by a function of it (malformed or lying XML).
 *
 * A rule applies to its matching requests number `from` (1-based, default 1) through
 * `from + times - 1` (default: every one from `from` on), so "the second page of a listing" or
 * "one 503 and then the store again" are rules too. Rules can be lifted at run time. Every request
 * is logged (method, path, query, the SDKs' attempt and invocation headers, which rule answered),
 * so tests count requests per pattern and attempts per logical request.
 */
import { Agent, createServer, request as httpRequest, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** What a matcher sees of a request. */
export interface ProxiedRequest {
  readonly method: string;
  /** The raw path (still percent-encoded), without the query. */
  readonly path: string;
  readonly query: URLSearchParams;
  readonly headers: IncomingHttpHeaders;
}

export type Matcher = (r: ProxiedRequest) => boolean;

/** What the patterns below look at: also what the log keeps of a request. */
export type RequestLine = Pick<ProxiedRequest, 'method' | 'path' | 'query'>;

export type Fault =
  | { readonly kind: 'respond'; readonly status: number; readonly body: string; readonly headers?: Readonly<Record<string, string>> }
  | { readonly kind: 'hang' }
  | { readonly kind: 'delay'; readonly ms: number }
  | { readonly kind: 'reset-mid-body' }
  | { readonly kind: 'truncate-body'; readonly keep: (length: number) => number }
  | { readonly kind: 'rewrite-body'; readonly rewrite: (body: string) => string };

export interface RuleOptions {
  /** The first matching request (1-based) the fault applies to; default 1. */
  readonly from?: number;
  /** How many matching requests it applies to; default all from `from` on. */
  readonly times?: number;
  /** A name for the log. */
  readonly name?: string;
}

export interface Rule {
  readonly name: string;
  /** Requests the rule matched so far, whether or not it answered them. */
  readonly seen: number;
  /** Requests the fault answered. */
  readonly hits: number;
  /** Switches the fault off; matching requests reach the store again. */
  lift(): void;
}

export interface LoggedRequest {
  readonly method: string;
  readonly path: string;
  readonly query: URLSearchParams;
  /** The AWS SDK's `amz-sdk-request` header (`attempt=N; max=M`), when sent. */
  readonly attempt: { readonly n: number; readonly max: number } | null;
  /** The logical request this attempt belongs to (AWS `amz-sdk-invocation-id`, Azure `x-ms-client-request-id`, Google `gccl-invocation-id`). */
  readonly invocation: string | null;
  /** Name of the rule whose fault answered, `null` when the store did. */
  readonly fault: string | null;
  /** Milliseconds since the proxy started (monotonic). */
  readonly at: number;
}

export interface FaultProxy {
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  readonly port: number;
  inject(match: Matcher, fault: Fault, options?: RuleOptions): Rule;
  /** Lifts every rule. */
  liftAll(): void;
  /** Every request so far, in arrival order. */
  readonly log: readonly LoggedRequest[];
  /** Requests so far that `match` matches (all when omitted). */
  count(match?: (r: LoggedRequest) => boolean): number;
  /** Forgets the log (rules keep their counts). */
  clearLog(): void;
  /** Requests the store has not answered yet (hanging ones included). */
  readonly open: number;
  close(): Promise<void>;
}

interface RuleState {
  readonly name: string;
  readonly match: Matcher;
  readonly fault: Fault;
  readonly from: number;
  readonly times: number;
  seen: number;
  hits: number;
  lifted: boolean;
}

function attemptOf(headers: IncomingHttpHeaders): LoggedRequest['attempt'] {
  const m = /attempt=(\d+); max=(\d+)/.exec(String(headers['amz-sdk-request'] ?? ''));
  return m === null ? null : { n: Number(m[1]), max: Number(m[2]) };
}

function invocationOf(headers: IncomingHttpHeaders): string | null {
  const aws = headers['amz-sdk-invocation-id'];
  if (typeof aws === 'string') return aws;
  const azure = headers['x-ms-client-request-id'];
  if (typeof azure === 'string') return azure;
  const google = /gccl-invocation-id\/([0-9a-f-]+)/.exec(String(headers['x-goog-api-client'] ?? ''));
  return google?.[1] ?? null;
}

/** Starts the proxy in front of `target` (an `http://host:port` origin). */
export async function startFaultProxy(target: string): Promise<FaultProxy> {
  const origin = new URL(target);
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  const rules: RuleState[] = [];
  const log: LoggedRequest[] = [];
  const sockets = new Set<Socket>();
  const started = performance.now();
  let open = 0;
  let ruleNumber = 0;

  /** Forwards the request; `then` gets the store's response (its body unread). */
  const forward = (req: IncomingMessage, res: ServerResponse, then: (up: IncomingMessage) => void) => {
    const upstream = httpRequest({ host: origin.hostname, port: origin.port, method: req.method, path: req.url, headers: req.headers, agent }, then);
    upstream.on('error', () => {
      if (!res.headersSent) res.writeHead(502).end();
      else res.destroy();
    });
    req.pipe(upstream);
  };
  const readAll = (up: IncomingMessage) =>
    new Promise<Buffer>((resolve, reject) => {
      const parts: Buffer[] = [];
      up.on('data', (c: Buffer) => parts.push(c));
      up.on('end', () => resolve(Buffer.concat(parts)));
      up.on('error', reject);
    });
  const headersWithout = (headers: IncomingHttpHeaders, length: number): Record<string, string | string[]> => {
    const out: Record<string, string | string[]> = {};
    for (const [k, v] of Object.entries(headers)) if (v !== undefined && k !== 'content-length' && k !== 'transfer-encoding' && k !== 'content-md5' && k !== 'etag') out[k] = v;
    out['content-length'] = String(length);
    return out;
  };

  const server = createServer((req, res) => {
    open += 1;
    res.on('close', () => (open -= 1));
    const url = new URL(req.url ?? '/', 'http://proxy');
    const seen: ProxiedRequest = { method: req.method ?? 'GET', path: url.pathname, query: url.searchParams, headers: req.headers };
    let applied: RuleState | null = null;
    for (const rule of rules) {
      if (rule.lifted || !rule.match(seen)) continue;
      rule.seen += 1;
      if (applied === null && rule.seen >= rule.from && rule.seen < rule.from + rule.times) {
        rule.hits += 1;
        applied = rule;
      }
    }
    log.push({ method: seen.method, path: seen.path, query: seen.query, attempt: attemptOf(req.headers), invocation: invocationOf(req.headers), fault: applied?.name ?? null, at: performance.now() - started });
    if (applied === null) {
      forward(req, res, (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      });
      return;
    }
    const fault = applied.fault;
    switch (fault.kind) {
      case 'respond':
        req.resume();
        res.writeHead(fault.status, { 'content-length': String(Buffer.byteLength(fault.body)), ...fault.headers });
        res.end(fault.body);
        return;
      case 'hang':
        // Nothing is ever written; the request ends when the client gives up or the proxy closes.
        req.resume();
        return;
      case 'delay': {
        const timer = setTimeout(() => {
          if (res.destroyed) return;
          forward(req, res, (up) => {
            res.writeHead(up.statusCode ?? 502, up.headers);
            up.pipe(res);
          });
        }, fault.ms);
        res.on('close', () => clearTimeout(timer));
        return;
      }
      case 'reset-mid-body':
        forward(req, res, (up) => {
          void readAll(up).then((body) => {
            res.writeHead(up.statusCode ?? 502, headersWithout(up.headers, body.length));
            res.write(body.subarray(0, Math.floor(body.length / 2)), () => res.socket?.resetAndDestroy());
          });
        });
        return;
      case 'truncate-body':
        forward(req, res, (up) => {
          void readAll(up).then((body) => {
            const cut = body.subarray(0, Math.max(0, Math.min(body.length, fault.keep(body.length))));
            res.writeHead(up.statusCode ?? 502, headersWithout(up.headers, cut.length));
            res.end(cut);
          });
        });
        return;
      case 'rewrite-body':
        forward(req, res, (up) => {
          void readAll(up).then((body) => {
            const next = Buffer.from(fault.rewrite(body.toString('utf8')));
            res.writeHead(up.statusCode ?? 502, headersWithout(up.headers, next.length));
            res.end(next);
          });
        });
        return;
    }
  });
  server.keepAliveTimeout = 60_000;
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    inject(match, fault, options = {}) {
      const state: RuleState = { name: options.name ?? `rule-${++ruleNumber}`, match, fault, from: options.from ?? 1, times: options.times ?? Number.POSITIVE_INFINITY, seen: 0, hits: 0, lifted: false };
      rules.push(state);
      return {
        name: state.name,
        get seen() {
          return state.seen;
        },
        get hits() {
          return state.hits;
        },
        lift: () => {
          state.lifted = true;
        },
      };
    },
    liftAll() {
      for (const r of rules) r.lifted = true;
    },
    get log() {
      return log;
    },
    count: (match) => (match === undefined ? log.length : log.filter(match).length),
    clearLog() {
      log.length = 0;
    },
    get open() {
      return open;
    },
    async close() {
      for (const r of rules) r.lifted = true;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const s of sockets) s.destroy();
      agent.destroy();
      await closed;
    },
  };
}

// ---- Request patterns -------------------------------------------------------------------------

/** S3 path-style requests (`/<bucket>/<key>?...`), as the S3 driver sends them to an endpoint. */
export const s3 = {
  /** ListObjectsV2, any page. */
  list: (r: RequestLine): boolean => r.method === 'GET' && r.query.get('list-type') === '2',
  /** ListObjectsV2 pages after the first of a listing (they carry a continuation token). */
  continuation: (r: RequestLine): boolean => r.method === 'GET' && r.query.get('list-type') === '2' && r.query.has('continuation-token'),
  /** ListObjectsV2 under a prefix that contains `part` (e.g. `/wals/`). */
  listUnder: (part: string) => (r: RequestLine): boolean => r.method === 'GET' && r.query.get('list-type') === '2' && (r.query.get('prefix') ?? '').includes(part),
  /** GetObject of any key. */
  get: (r: RequestLine): boolean => r.method === 'GET' && r.query.get('list-type') === null && r.path.split('/').length > 2,
  /** GetObject of a key ending with `suffix`. */
  getEnding: (suffix: string) => (r: RequestLine): boolean => r.method === 'GET' && r.query.get('list-type') === null && decodeURIComponent(r.path).endsWith(suffix),
  any: (): boolean => true,
};

/** Azure Blob requests (`/<account>/<container>[/<blob>]?...`). */
export const azure = {
  list: (r: RequestLine): boolean => r.method === 'GET' && r.query.get('comp') === 'list' && r.query.get('restype') === 'container',
  /** Get Blob Properties (HEAD) and Get Blob (GET) of one blob. */
  read: (r: RequestLine): boolean => (r.method === 'HEAD' || r.method === 'GET') && !r.query.has('comp') && r.path.split('/').length > 3,
};

/** Cloud Storage JSON API requests. */
export const gcs = {
  list: (r: RequestLine): boolean => r.method === 'GET' && /^\/storage\/v1\/b\/[^/]+\/o$/.test(r.path),
  /** Object metadata and media (`alt=media`, or the download path). */
  read: (r: RequestLine): boolean => r.method === 'GET' && (/^\/storage\/v1\/b\/[^/]+\/o\/.+/.test(r.path) || r.path.startsWith('/download/')),
};

// ---- Provider error answers ------------------------------------------------------------------

/**
 * Text a provider's error may carry that must never leave viewer (its message, request ids, the
 * bucket and key it names). Every error body below embeds it.
 */
export const CANARY = 'CanaryProviderText7f3a';

const xml = (s: string) => s.replaceAll('&', '&amp;').replaceAll('<', '&lt;');

/** An S3 error document, as S3 and Swift's s3api send it (`x-amz-request-id` and `x-amz-id-2` too). */
export function s3Error(status: number, code: string, extra: { readonly bucket?: string; readonly key?: string; readonly retryAfter?: string } = {}): Fault {
  const body =
    '<?xml version="1.0" encoding="UTF-8"?>\n<Error>' +
    `<Code>${xml(code)}</Code><Message>${CANARY} message of ${xml(code)}</Message>` +
    (extra.bucket === undefined ? '' : `<BucketName>${xml(extra.bucket)}</BucketName>`) +
    (extra.key === undefined ? '' : `<Key>${xml(extra.key)}</Key>`) +
    `<RequestId>${CANARY}REQID</RequestId><HostId>${CANARY}HOSTID</HostId></Error>`;
  return {
    kind: 'respond',
    status,
    body,
    headers: {
      'content-type': 'application/xml',
      'x-amz-request-id': `${CANARY}REQID`,
      'x-amz-id-2': `${CANARY}HOSTID`,
      ...(extra.retryAfter === undefined ? {} : { 'retry-after': extra.retryAfter }),
    },
  };
}

/** An Azure Storage error (`x-ms-error-code` and the XML body). */
export function azureError(status: number, code: string): Fault {
  const body = `<?xml version="1.0" encoding="utf-8"?><Error><Code>${xml(code)}</Code><Message>${CANARY} message of ${xml(code)}\nRequestId:${CANARY}REQID\nTime:2026-01-01T00:00:00.0000000Z</Message></Error>`;
  return { kind: 'respond', status, body, headers: { 'content-type': 'application/xml', 'x-ms-error-code': code, 'x-ms-request-id': `${CANARY}REQID` } };
}

/** A Cloud Storage JSON API error with its `errors[].reason`. */
export function gcsError(status: number, reason: string): Fault {
  const body = JSON.stringify({ error: { code: status, message: `${CANARY} message of ${reason}`, errors: [{ message: `${CANARY} ${reason}`, domain: 'global', reason }] } });
  return { kind: 'respond', status, body, headers: { 'content-type': 'application/json; charset=UTF-8', 'x-guploader-uploadid': `${CANARY}UPLOAD` } };
}
