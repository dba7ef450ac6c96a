/**
 * Standalone's optional metrics listener (`METRICS_ADDR`): exactly `GET /metrics`, the OpenMetrics
 * text of every scope's current publication, rendered from the publications only (no store I/O in
 * a request). Apart from the pages on purpose: the pages' `LISTEN_ADDR` never serves metrics, and
 * this listener serves nothing else (a scraper needs no page, a page reader no scrape target).
 * Built like the other surfaces (`createAnsweringServer`, the same hardening headers and
 * timeouts); any other target is 404, other methods 405, a query 400. Request logs name the route.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Logger } from '../../common/log.ts';
import { OPENMETRICS_CONTENT_TYPE } from '../../metrics/openmetrics.ts';
import { createAnsweringServer } from '../api/evidence-api.ts';
import { PAGE_HEADERS, SERVER_TIMEOUTS } from '../ui/server.ts';

export interface MetricsServerOptions {
  readonly metrics: () => Promise<string>;
  readonly logger: Logger;
}

export const METRICS_ROUTE = '/metrics';
const TEXT = 'text/plain; charset=utf-8';

function send(res: ServerResponse, status: number, type: string, body: string, extra: Record<string, string> = {}): void {
  res.writeHead(status, { ...PAGE_HEADERS, 'Content-Type': type, 'Content-Length': String(Buffer.byteLength(body)), ...extra });
  res.end(body);
}

async function respond(req: IncomingMessage, res: ServerResponse, o: MetricsServerOptions): Promise<{ route: string; status: number }> {
  // Matched on the raw target, as the pages are (D-76): `/metrics?x`, `//metrics` and the like are not the route.
  const target = req.url ?? '';
  const path = target.split('?', 1)[0];
  if (path !== METRICS_ROUTE) {
    send(res, 404, TEXT, `Not found. This listener serves ${METRICS_ROUTE} only.\n`);
    return { route: 'unknown', status: 404 };
  }
  if (req.method !== 'GET') {
    send(res, 405, TEXT, 'Only GET is allowed.\n', { Allow: 'GET' });
    return { route: METRICS_ROUTE, status: 405 };
  }
  if (target !== METRICS_ROUTE) {
    send(res, 400, TEXT, 'This route takes no query.\n');
    return { route: METRICS_ROUTE, status: 400 };
  }
  send(res, 200, OPENMETRICS_CONTENT_TYPE, await o.metrics());
  return { route: METRICS_ROUTE, status: 200 };
}

export function createMetricsServer(o: MetricsServerOptions): Server {
  return createAnsweringServer(
    { maxHeaderSize: SERVER_TIMEOUTS.maxHeaderBytes, headersTimeout: SERVER_TIMEOUTS.readHeaderMs, requestTimeout: SERVER_TIMEOUTS.readMs, keepAliveTimeout: SERVER_TIMEOUTS.idleMs, connectionsCheckingInterval: 1_000 },
    {
      request: (req, res) => {
        const started = process.hrtime.bigint();
        res.setTimeout(SERVER_TIMEOUTS.writeMs, () => res.destroy());
        req.resume();
        respond(req, res, o)
          .catch(() => {
            // A render that fails is this scrape's failure, never the server's.
            if (res.headersSent) res.destroy();
            else send(res, 500, TEXT, 'The metrics could not be rendered.\n');
            return { route: METRICS_ROUTE, status: 500 };
          })
          .then(({ route, status }) => o.logger.info({ route, status, duration_ms: Number(process.hrtime.bigint() - started) / 1e6 }, 'request'), () => undefined);
      },
      refused: (res) => {
        send(res, 400, TEXT, 'Bad request.\n');
        o.logger.info({ route: 'unknown', status: 400 }, 'malformed request');
      },
      lingerMs: SERVER_TIMEOUTS.writeMs,
    },
  );
}
