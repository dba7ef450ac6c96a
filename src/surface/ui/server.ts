/**
 * The standalone web server: exactly `GET /`, `GET /wals`, `GET /healthz`, `GET /readyz` on TCP,
 * unauthenticated, rendering only from the last publications (no store I/O in a request). Routes
 * are matched on the raw request target, byte for byte (D-76): any other target (`/x/../wals`,
 * `/%2e/wals`, `//wals`, an absolute form, a query on `/healthz`) is 404; other methods on a route
 * (CONNECT anywhere) are 405 (D-47), and what the HTTP parser refuses is 400.
 * Every answer, these included, carries `no-store`, a Content-Security-Policy that allows only
 * the one stylesheet (by hash) and no script or framing, `nosniff` and `no-referrer`: the server
 * is built by `createPageServer` (over `createAnsweringServer`), so Node's HTTP layer never answers by itself. Request logs
 * name the route only.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Logger } from '../../common/log.ts';
import { API_VERSION } from '../../contract/values.ts';
import { serialize } from '../../contract/serialize.ts';
import { createPageServer, send as sendWith, TEXT } from '../page-server.ts';
import { html } from './html.ts';
import { fleetPage, inventoryPage, layout, parseWalFilter, rejectedFilterPage, STYLE_HASH, walsPage, type DestinationFacts, type PageContext, type PageFormat, type ScopeView } from './pages.ts';

/** One repository's pages: its scopes and what its configuration expects of them. */
export interface RepositoryPages {
  /** The fleet entry's name; null outside a fleet (one repository, no name). */
  readonly name: string | null;
  /**
   * The repository's format (REPOSITORY_FORMAT; the `RepositoryFormat` itself): its own facts, the
   * statuses its catalog keeps apart and its layout's words, which the pages render without naming it.
   */
  readonly format: PageFormat;
  readonly scopes: () => readonly ScopeView[];
  /** What discovery found at the destination beside the scopes (null with a configured list). */
  readonly destination: () => DestinationFacts | null;
  readonly retentionPolicy: string | null;
  readonly minimumRedundancy: number | null;
  /** `EXPECTED_MAX_ARCHIVE_LAG` in seconds, null when not configured. */
  readonly maxArchiveLagSeconds: number | null;
  /**
   * What the pages call the repository (REPOSITORY_NAME, or `displayNameOf(destination)`: its bucket
   * or container and prefix, never a credential); absent or null, the pages name none.
   */
  readonly displayName?: string | null;
  /** The listing so far of a first scan still running (its BudgetMeter's pages and objects); null once every scope has published one. */
  readonly progress?: () => { readonly pages: number; readonly objects: number } | null;
  /** What points at the cause of a scope's latest failed attempt (page text: error name, HTTP status, local cause); absent or null when none. */
  readonly failureDetail?: (server: string) => string | null;
}

export interface StandaloneServerOptions {
  /**
   * Exactly one repository without a name (DESTINATION_PATH or the demo: `/` is its inventory), or
   * the fleet's named ones (FLEET_FILE: `/` is the fleet page, `/?repository=NAME` a repository's
   * inventory and `/wals?repository=NAME&…` its WAL browser; D-101).
   */
  readonly repositories: readonly RepositoryPages[];
  readonly ready: () => boolean;
  readonly trustedUserHeader: string | null;
  readonly walPageSize: number;
  readonly demo: boolean;
  readonly logger: Logger;
}

export const PAGE_HEADERS = {
  'Cache-Control': 'no-store',
  'Content-Security-Policy': `default-src 'none'; style-src '${STYLE_HASH}'; img-src 'none'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'`,
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
} as const;

const ROUTES = new Set(['/', '/wals', '/healthz', '/readyz']);
/** The routes a query may follow (`/healthz?x` is no route: probes send the bare path). */
const QUERIED = new Set(['/', '/wals']);
const IDENTITY_MAX = 128;

function identityOf(value: string | string[] | undefined): string | null {
  const v = Array.isArray(value) ? value[0] : value;
  if (v === undefined) return null;
  // Displayed text only: control characters dropped, length bounded, escaped when rendered.
  const clean = [...v].filter((c) => c >= ' ' && c !== '\u007f').join('').trim();
  return clean === '' ? null : clean.slice(0, IDENTITY_MAX);
}


const send = (res: ServerResponse, status: number, type: string, body: string, extra: Record<string, string> = {}): void => sendWith(res, PAGE_HEADERS, status, type, body, extra);

const sendNotAllowed = (res: ServerResponse): void => send(res, 405, TEXT, 'Only GET is allowed.\n', { Allow: 'GET' });

export function createStandaloneServer(o: StandaloneServerOptions): Server {
  return createPageServer({ headers: PAGE_HEADERS, respond: (req, res) => respond(req, res, o), failure: 'The page could not be rendered.\n', failureRoute: 'unknown', logger: o.logger });
}

/** The fleet repository a query names (null: none named), or why the name is refused. */
function pickRepository(search: URLSearchParams, repositories: readonly RepositoryPages[]): { ok: true; repository: RepositoryPages | null } | { ok: false; problem: string } {
  const named = search.getAll('repository');
  if (named.length > 1) return { ok: false, problem: 'repository is given more than once' };
  const name = named[0];
  if (name === undefined) return { ok: true, repository: null };
  const r = repositories.find((x) => x.name === name);
  return r === undefined ? { ok: false, problem: 'repository is not one of the fleet file' } : { ok: true, repository: r };
}

/** Answers one request; returns the route name to log and the status sent. */
function respond(req: IncomingMessage, res: ServerResponse, o: StandaloneServerOptions): { route: string; status: number } {
  // A CONNECT names an authority (host:port), never a page: it has no route, and what is wrong
  // with it is its method.
  if (req.method === 'CONNECT') {
    sendNotAllowed(res);
    return { route: 'unknown', status: 405 };
  }
  // Routes are matched on the raw request target, never on a URL parsed from it: a parser
  // resolves `/x/../wals` and `/%2e/wals` to `/wals`, reads `//wals` as a host and takes the path
  // of an absolute form (`http://host/wals`), and each of those would be served under a name the
  // spec does not give (D-76). The path is exactly one of the four; a query follows only where
  // the route takes one (`/wals`, and `/`, whose query is refused as a filter, D-47).
  const target = req.url ?? '';
  const q = target.indexOf('?');
  const path = q === -1 ? target : target.slice(0, q);
  const query = q === -1 ? '' : target.slice(q + 1);
  const route = ROUTES.has(path) && (query === '' || QUERIED.has(path)) ? path : 'unknown';
  const fleet = o.repositories.some((r) => r.name !== null);
  const identity = o.trustedUserHeader === null ? null : identityOf(req.headers[o.trustedUserHeader]);
  const ctxOf = (r: RepositoryPages | null): PageContext => ({
    scopes: r?.scopes() ?? [],
    destination: r?.destination() ?? null,
    format: r?.format ?? null,
    identity,
    retentionPolicy: r?.retentionPolicy ?? null,
    minimumRedundancy: r?.minimumRedundancy ?? null,
    maxArchiveLagSeconds: r?.maxArchiveLagSeconds ?? null,
    demo: o.demo,
    name: r?.displayName ?? null,
    progress: r?.progress?.() ?? null,
    ...(r?.failureDetail === undefined ? {} : { failureDetail: r.failureDetail }),
    ...(fleet ? { repository: r?.name ?? null } : {}),
  });
  const html_ = 'text/html; charset=utf-8';
  let status: number;
  if (route === 'unknown') {
    status = 404;
    send(res, status, html_, layout('Not found', ctxOf(fleet ? null : (o.repositories[0] ?? null)), html`<section><h2>Not found</h2><p>This server has <a href="/">the ${fleet ? 'fleet' : 'inventory'}</a>${fleet ? '' : html` and <a href="/wals">the WAL browser</a>`}.</p></section>`));
  } else if (req.method !== 'GET') {
    status = 405;
    sendNotAllowed(res);
  } else if (route === '/healthz') {
    status = 200;
    send(res, status, 'application/json', serialize('HealthStatus', { api_version: API_VERSION, kind: 'HealthStatus', status: 'live' }));
  } else if (route === '/readyz') {
    const ready = o.ready();
    status = ready ? 200 : 503;
    send(res, status, 'application/json', serialize('ReadinessStatus', { api_version: API_VERSION, kind: 'ReadinessStatus', status: ready ? 'ready' : 'not-ready' }));
  } else {
    // Outside a fleet the one repository; in one, the repository the query names (its only
    // parameter on `/`, one of the filters on `/wals`): the fleet page when `/` names none.
    const search = new URLSearchParams(query);
    const chosen = fleet ? pickRepository(search, o.repositories) : { ok: true as const, repository: o.repositories[0] ?? null };
    if (!chosen.ok) {
      status = 400;
      send(res, status, html_, rejectedFilterPage(ctxOf(null), [chosen.problem]));
    } else if (route === '/') {
      const rest = [...search.keys()].filter((k) => !fleet || k !== 'repository');
      status = rest.length === 0 ? 200 : 400;
      if (status === 400) send(res, status, html_, rejectedFilterPage(ctxOf(chosen.repository), [fleet ? 'the inventory takes only repository' : 'the inventory takes no query']));
      else if (chosen.repository === null) send(res, status, html_, fleetPage(o.repositories.map((r) => ({ name: r.name ?? '', scopes: r.scopes(), destination: r.destination(), maxArchiveLagSeconds: r.maxArchiveLagSeconds })), ctxOf(null)));
      else send(res, status, html_, inventoryPage(ctxOf(chosen.repository)));
    } else if (chosen.repository === null) {
      status = 400;
      send(res, status, html_, rejectedFilterPage(ctxOf(null), ['the WAL browser shows one repository of the fleet: choose one on the fleet page']));
    } else {
      const c = ctxOf(chosen.repository);
      if (fleet) search.delete('repository');
      const filter = parseWalFilter(search, c.scopes.map((v) => v.server));
      status = filter.ok ? 200 : 400;
      send(res, status, html_, filter.ok ? walsPage(c, filter.filter, o.walPageSize) : rejectedFilterPage(c, filter.problems));
    }
  }
  return { route, status };
}
