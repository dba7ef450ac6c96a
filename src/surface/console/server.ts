/**
 * The reference console's HTTP server: exactly `GET /` (page), `GET /projection` (JSON),
 * `GET /metrics` (OpenMetrics), `GET /healthz` and `GET /readyz`, rendering only from the cached
 * projection (no request reaches the sidecar: consumer rule 5). `/readyz` is the console's own
 * readiness, which no state of the repository source can fail (rule 4). Built like the standalone
 * server (`page-server.ts`, the same hardening headers and timeouts), so Node's HTTP layer
 * never answers by itself. Request logs name the route only.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { OPENMETRICS_CONTENT_TYPE } from '../../client/index.ts';
import type { Logger } from '../../common/log.ts';
import { API_VERSION } from '../../contract/values.ts';
import { serialize } from '../../contract/serialize.ts';
import { createPageServer, send as sendWith, TEXT } from '../page-server.ts';
import { PAGE_HEADERS } from '../ui/server.ts';
import { consoleJson, consolePage, type ConsoleView } from './page.ts';

export interface ConsoleServerOptions {
  readonly view: () => ConsoleView;
  readonly metrics: () => Promise<string>;
  readonly logger: Logger;
}

export const CONSOLE_ROUTES = ['/', '/projection', '/metrics', '/healthz', '/readyz'] as const;
const ROUTES = new Set<string>(CONSOLE_ROUTES);
const send = (res: ServerResponse, status: number, type: string, body: string, extra: Record<string, string> = {}): void => sendWith(res, PAGE_HEADERS, status, type, body, extra);

async function respond(req: IncomingMessage, res: ServerResponse, o: ConsoleServerOptions): Promise<{ route: string; status: number }> {
  const target = req.url ?? '/';
  if (req.method === 'CONNECT' || !URL.canParse(target, 'http://console')) {
    send(res, req.method === 'CONNECT' ? 405 : 400, TEXT, 'Bad request.\n');
    return { route: 'unknown', status: req.method === 'CONNECT' ? 405 : 400 };
  }
  const url = new URL(target, 'http://console');
  const route = ROUTES.has(url.pathname) ? url.pathname : 'unknown';
  if (route === 'unknown') {
    send(res, 404, TEXT, 'Not found. This console serves /, /projection, /metrics, /healthz and /readyz.\n');
    return { route, status: 404 };
  }
  if (req.method !== 'GET') {
    send(res, 405, TEXT, 'Only GET is allowed.\n', { Allow: 'GET' });
    return { route, status: 405 };
  }
  if (url.search !== '') {
    send(res, 400, TEXT, 'This route takes no query.\n');
    return { route, status: 400 };
  }
  switch (route) {
    case '/healthz':
      send(res, 200, 'application/json', serialize('HealthStatus', { api_version: API_VERSION, kind: 'HealthStatus', status: 'live' }));
      break;
    case '/readyz':
      // Listening means configured: the console's readiness never depends on the sidecar.
      send(res, 200, 'application/json', serialize('ReadinessStatus', { api_version: API_VERSION, kind: 'ReadinessStatus', status: 'ready' }));
      break;
    case '/projection':
      send(res, 200, 'application/json', consoleJson(o.view()));
      break;
    case '/metrics':
      send(res, 200, OPENMETRICS_CONTENT_TYPE, await o.metrics());
      break;
    default:
      send(res, 200, 'text/html; charset=utf-8', consolePage(o.view()));
  }
  return { route, status: 200 };
}

export function createConsoleServer(o: ConsoleServerOptions): Server {
  return createPageServer({ headers: PAGE_HEADERS, respond: (req, res) => respond(req, res, o), failure: 'The page could not be rendered.\n', failureRoute: 'unknown', logger: o.logger });
}
