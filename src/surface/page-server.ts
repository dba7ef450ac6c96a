/**
 * The HTTP server of the surfaces that answer a browser or a scraper over TCP (the standalone
 * pages, standalone's metrics listener, the reference console): `createAnsweringServer` with the
 * pages' limits and timeouts, every answer with the surface's headers, a write deadline per
 * response, a request log naming the route only, a responder that fails answered as 500 (this
 * request's failure, never the server's), and a request Node's parser refused answered 400. The
 * sidecar's API over its socket has rules of its own (`api/evidence-api.ts`).
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Logger } from '../common/log.ts';
import { createAnsweringServer } from './api/evidence-api.ts';

/** Header, read, write and idle limits of the TCP surfaces, and the grace period of their shutdown. */
export const SERVER_TIMEOUTS = { readHeaderMs: 5_000, readMs: 15_000, writeMs: 30_000, idleMs: 60_000, maxHeaderBytes: 16 * 1024, shutdownMs: 15_000 } as const;

export const TEXT = 'text/plain; charset=utf-8';

/** What a responder answered, for the request log. */
export interface Answered {
  readonly route: string;
  readonly status: number;
}

export interface PageServerOptions {
  /** Headers every answer carries (the surface's security headers). */
  readonly headers: Readonly<Record<string, string>>;
  /** Answers one request (through `send`) and says which route and status it answered. */
  respond(req: IncomingMessage, res: ServerResponse): Answered | Promise<Answered>;
  /** The body of the 500 when `respond` fails ("The page could not be rendered."). */
  readonly failure: string;
  /** The route a failed response is logged under (the one route of a single-route listener, else `unknown`). */
  readonly failureRoute: string;
  readonly logger: Logger;
}

/** One whole answer with the surface's headers and an exact length. */
export function send(res: ServerResponse, headers: Readonly<Record<string, string>>, status: number, type: string, body: string, extra: Record<string, string> = {}): void {
  res.writeHead(status, { ...headers, 'Content-Type': type, 'Content-Length': String(Buffer.byteLength(body)), ...extra });
  res.end(body);
}

export function createPageServer(o: PageServerOptions): Server {
  const durationMs = (started: bigint) => Number(process.hrtime.bigint() - started) / 1e6;
  const failed = (res: ServerResponse): Answered => {
    if (res.headersSent) res.destroy();
    else send(res, o.headers, 500, TEXT, o.failure);
    return { route: o.failureRoute, status: 500 };
  };
  return createAnsweringServer(
    { maxHeaderSize: SERVER_TIMEOUTS.maxHeaderBytes, headersTimeout: SERVER_TIMEOUTS.readHeaderMs, requestTimeout: SERVER_TIMEOUTS.readMs, keepAliveTimeout: SERVER_TIMEOUTS.idleMs, connectionsCheckingInterval: 1_000 },
    {
      request: (req, res) => {
        const started = process.hrtime.bigint();
        res.setTimeout(SERVER_TIMEOUTS.writeMs, () => res.destroy());
        req.resume();
        let answered: Promise<Answered>;
        try {
          answered = Promise.resolve(o.respond(req, res)).catch(() => failed(res));
        } catch {
          answered = Promise.resolve(failed(res));
        }
        answered.then(({ route, status }) => o.logger.info({ route, status, duration_ms: durationMs(started) }, 'request'), () => undefined);
      },
      // A request the HTTP parser refused: nothing of it is known, so it names no route.
      refused: (res, error) => {
        const started = process.hrtime.bigint();
        send(res, o.headers, 400, TEXT, 'Bad request.\n');
        o.logger.info({ route: 'unknown', status: 400, duration_ms: durationMs(started), error_code: typeof error.code === 'string' ? error.code : null }, 'malformed request');
      },
      lingerMs: SERVER_TIMEOUTS.writeMs,
    },
  );
}
