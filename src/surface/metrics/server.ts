/**
 * Standalone's optional metrics listener (`METRICS_ADDR`): exactly `GET /metrics`, the OpenMetrics
 * text of every scope's current publication, rendered from the publications only (no store I/O in
 * a request). Apart from the pages on purpose: the pages' `LISTEN_ADDR` never serves metrics, and
 * this listener serves nothing else (a scraper needs no page, a page reader no scrape target).
 * Built like the other TCP surfaces (`page-server.ts`: the same hardening headers and
 * timeouts); any other target is 404, other methods 405, a query 400. Request logs name the route.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Logger } from '../../common/log.ts';
import { OPENMETRICS_CONTENT_TYPE } from '../../metrics/openmetrics.ts';
import { createPageServer, send as sendWith, TEXT } from '../page-server.ts';
import { PAGE_HEADERS } from '../ui/server.ts';

export interface MetricsServerOptions {
  readonly metrics: () => Promise<string>;
  readonly logger: Logger;
}

export const METRICS_ROUTE = '/metrics';
const send = (res: ServerResponse, status: number, type: string, body: string, extra: Record<string, string> = {}): void => sendWith(res, PAGE_HEADERS, status, type, body, extra);

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
  return createPageServer({ headers: PAGE_HEADERS, respond: (req, res) => respond(req, res, o), failure: 'The metrics could not be rendered.\n', failureRoute: METRICS_ROUTE, logger: o.logger });
}
