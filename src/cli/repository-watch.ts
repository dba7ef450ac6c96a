/**
 * One repository standalone mode watches: its server scopes (the configured list, or the servers
 * discovered under the destination and re-discovered every refresh interval), each scope's
 * refresher, memory in `STATE_DIR` and page view, and the prefix-scoped reachability check behind
 * `/readyz`. Standalone runs one (DESTINATION_PATH, or the embedded demo) or one per fleet-file
 * entry (FLEET_FILE), whose scans then take turns (`Turns`, one lane per repository, D-100): a
 * repository whose store fails or hangs holds at most one turn, publishes its own failures and
 * goes stale alone.
 */
import { categoryOf, detailOf, formatDetail, publicDetail, type FailureDetail, type PublicFailureDetail } from '../common/errors.ts';
import type { Turns } from '../common/concurrency.ts';
import type { Logger } from '../common/log.ts';
import { discoverScopes } from '../evidence/discovery.ts';
import { BudgetMeter } from '../evidence/listing.ts';
import type { MetricScope } from '../metrics/openmetrics.ts';
import { Reachability } from '../publication/reachability.ts';
import type { Refresher } from '../publication/refresher.ts';
import { confine } from '../store/confined.ts';
import type { Destination } from '../store/destination.ts';
import type { StoreDriver } from '../store/driver.ts';
import type { DestinationFacts, ScopeView } from '../surface/ui/pages.ts';
import { scopeView } from '../surface/ui/scope-view.ts';
import type { StandaloneConfig } from './config/config.ts';
import { formatNamed } from '../format/registry.ts';
import { publicationMetricScope } from './publication-metrics.ts';
import { scopeMemory, scopeRefresher, wireScope, type ScopeMemory, type ScopeWiring } from './scope-wiring.ts';

/** How long one discovery of the destination may list before it fails as `timeout`. */
export const DISCOVERY_TIMEOUT_MS = 30_000;

export interface RepositoryWatchOptions {
  /** The repository's configuration (for a fleet entry, the entry's settings over the process-wide ones). */
  readonly config: StandaloneConfig;
  readonly destination: Destination;
  /** The endpoint origin the fingerprint includes (`null` for the embedded demo). */
  readonly endpointUrl: string | null;
  readonly driver: StoreDriver;
  readonly log: Logger;
  /** The fleet entry's name (on log lines and metrics), null outside a fleet. */
  readonly name: string | null;
  /** Shared scan turns of a fleet; null scans each scope on its own schedule only. */
  readonly turns: Turns | null;
  /** The scope's own metric labels (`repository` and the entry's labels). */
  readonly metricLabels: readonly (readonly [string, string])[];
  /** Scan these servers; null discovers them under the destination. */
  readonly serverNames: readonly string[] | null;
}

/**
 * A failure detail as log fields (standalone's log is the operator's: the endpoint is included;
 * never provider text, a secret or a key). Empty when nothing is known.
 */
function detailFields(detail: FailureDetail | null): Record<string, string | number> {
  if (detail === null) return {};
  return {
    ...(detail.errorName === null ? {} : { error_name: detail.errorName }),
    ...(detail.httpStatus === null ? {} : { http_status: detail.httpStatus }),
    ...(detail.endpoint === null ? {} : { endpoint: detail.endpoint }),
    ...(detail.localCause === null ? {} : { local_cause: detail.localCause }),
  };
}

interface WatchedScope {
  readonly wiring: ScopeWiring;
  view: ScopeView;
  readonly refresher: Refresher;
  readonly memory: ScopeMemory;
  /** The meter of the scan in flight while the scope has no complete generation yet (the pages' progress). */
  firstScan: BudgetMeter | null;
}

export class RepositoryWatch {
  readonly #o: RepositoryWatchOptions;
  readonly #scopes = new Map<string, WatchedScope>();
  readonly #halt = new AbortController();
  readonly #reachability: Reachability;
  readonly #discovering: boolean;
  #facts: DestinationFacts;
  #discovery: NodeJS.Timeout | null = null;
  /** The latest failed attempt's detail per scope, for the page (no endpoint); gone after a complete scan. */
  readonly #failureDetails = new Map<string, PublicFailureDetail>();
  #discoveryDetail: PublicFailureDetail | null = null;

  constructor(options: RepositoryWatchOptions) {
    this.#o = options;
    this.#discovering = options.serverNames === null;
    this.#facts = { unscopedObjects: null, foreignFormat: null, discoveryFailure: null, discoveryPending: this.#discovering };
    const prefix = options.destination.prefix;
    this.#reachability = new Reachability({ driver: options.driver, root: prefix === '' ? '' : `${prefix}/`, windowMs: options.config.readinessWindowSeconds * 1000 });
  }

  get name(): string | null {
    return this.#o.name;
  }

  /** Starts the configured scopes (or discovery, which adds them) and the reachability check. */
  start(): void {
    this.#reachability.start();
    if (this.#o.serverNames !== null) this.#o.serverNames.forEach((s) => this.#add(s));
    else void this.#discover();
  }

  /** The scopes' page views, by server name. */
  views(): ScopeView[] {
    return [...this.#scopes.values()].map((s) => s.view).sort((a, b) => (a.server < b.server ? -1 : 1));
  }

  /**
   * What points at the cause of each scope's latest failed attempt (`PublicFailureDetail`: the
   * error name, the HTTP status and the local cause, never the endpoint), by server name; a scope
   * whose latest attempt completed has none. For the standalone page, beside the failure category
   * its publication carries.
   */
  failureDetail(server: string): PublicFailureDetail | null {
    return this.#failureDetails.get(server) ?? null;
  }

  /** The detail of the latest discovery failure (as `failureDetail`); null while discovery succeeds. */
  discoveryFailureDetail(): PublicFailureDetail | null {
    return this.#discovering ? this.#discoveryDetail : null;
  }

  /** What discovery found beside the scopes; null with a configured list. */
  destination(): DestinationFacts | null {
    return this.#discovering ? { ...this.#facts, discoveryFailureDetail: formatDetail(this.#discoveryDetail) } : null;
  }

  ready(): boolean {
    return this.#reachability.ready();
  }

  /**
   * What the first scans list so far, summed over the scopes still without a complete generation
   * (the pages' "scanning: N pages, M objects so far"); null once every scope has published one.
   */
  progress(): { readonly pages: number; readonly objects: number } | null {
    const meters = [...this.#scopes.values()].flatMap((s) => (s.firstScan === null || s.wiring.publisher.current.generation > 0 ? [] : [s.firstScan]));
    if (meters.length === 0) return null;
    return { pages: meters.reduce((n, m) => n + m.pages, 0), objects: meters.reduce((n, m) => n + m.objects, 0) };
  }

  /** Every scope's current publication as the metrics module reads it. */
  metricScopes(): MetricScope[] {
    const expected = this.#o.config.retention.maxArchiveLagSeconds;
    return [...this.#scopes.values()].map((s) => {
      const p = s.wiring.publisher.current;
      return publicationMetricScope(p, p.generation > 0 ? s.wiring.publisher.evidence : null, { expectedMaxArchiveLagSeconds: expected, labels: this.#o.metricLabels });
    });
  }

  /** Stops discovery, every scan and the reachability check, then writes the memories still pending. */
  async stop(): Promise<void> {
    this.#halt.abort();
    if (this.#discovery !== null) clearTimeout(this.#discovery);
    this.#reachability.stop();
    const scopes = [...this.#scopes.values()];
    await Promise.all(scopes.map((s) => s.refresher.stop()));
    await Promise.all(scopes.map((s) => s.memory.flush()));
  }

  #fields(server: string): Record<string, string> {
    // Server and repository names are configuration, not secrets: an operator reading the log needs to know whose publication this is.
    return this.#o.name === null ? { server } : { repository: this.#o.name, server };
  }

  #add(server: string): void {
    if (this.#halt.signal.aborted || this.#scopes.has(server)) return;
    const { config, log, turns } = this.#o;
    const wiring = wireScope(config, { server, destination: this.#o.destination, endpointUrl: this.#o.endpointUrl });
    const publisher = wiring.publisher;
    const scan = wiring.scan(confine(this.#o.driver, wiring.roots));
    const memory = scopeMemory(config.stateDir, wiring, log, this.#fields(server));
    const lane = this.#o.name ?? '';
    const refresher = scopeRefresher(
      config,
      wiring,
      async (signal, next, meter) => {
        const scope = this.#scopes.get(server);
        if (scope !== undefined && publisher.current.generation === 0) scope.firstScan = meter;
        let evidence;
        try {
          evidence = await scan(signal, next, meter);
        } catch (error) {
          if (!this.#halt.signal.aborted) {
            const detail = detailOf(error);
            const shown = publicDetail(detail);
            if (shown === null) this.#failureDetails.delete(server);
            else this.#failureDetails.set(server, shown);
            log.warn({ ...this.#fields(server), failure_category: categoryOf(error), ...detailFields(detail) }, 'scan failed');
          }
          throw error;
        }
        this.#failureDetails.delete(server);
        return this.#discovering ? { ...evidence, unscopedObjects: this.#facts.unscopedObjects } : evidence;
      },
      (p) => {
        // The scan behind the published generation: a failed or truncated attempt is never shown.
        const scope = this.#scopes.get(server);
        if (scope !== undefined) {
          scope.view = scopeView(server, p, publisher.evidence);
          if (p.generation > 0) scope.firstScan = null;
        }
        memory.published(p);
        log.info({ ...this.#fields(server), revision: p.revision, generation: p.generation, code: p.snapshot.reason.code, state: p.snapshot.state }, 'published');
      },
      turns === null ? undefined : (signal) => turns.take(lane, signal),
    );
    this.#scopes.set(server, { wiring, view: scopeView(server, publisher.current, null), refresher, memory, firstScan: null });
    // The first scan continues what the state directory remembers (a stopped refresher never starts).
    void memory.restore().then(() => refresher.start());
  }

  async #discover(): Promise<void> {
    const { config, log } = this.#o;
    const halt = this.#halt.signal;
    try {
      const signal = AbortSignal.any([halt, AbortSignal.timeout(DISCOVERY_TIMEOUT_MS)]);
      const found = await discoverScopes(formatNamed(config.format), this.#o.driver, this.#o.destination.prefix, signal, new BudgetMeter({ maxPages: 1000, maxObjects: 1_000_000 }));
      if (halt.aborted) return;
      this.#facts = { unscopedObjects: found.unscopedObjects, foreignFormat: found.foreignFormat, discoveryFailure: null, discoveryPending: false };
      this.#discoveryDetail = null;
      if (found.foreignFormat !== null) log.warn({ ...(this.#o.name === null ? {} : { repository: this.#o.name }), failure_category: 'incompatible_format' }, 'the destination holds another repository format');
      for (const n of found.servers) this.#add(n);
    } catch (error) {
      if (halt.aborted) return;
      // A count that can no longer be confirmed is unknown, never the last number seen; the page
      // states the failure and its category (a wrong bucket, denied, the store down), never "0 server scopes".
      const category = categoryOf(error);
      const detail = detailOf(error);
      this.#facts = { ...this.#facts, unscopedObjects: null, discoveryFailure: category, discoveryPending: false };
      this.#discoveryDetail = publicDetail(detail);
      log.warn({ ...(this.#o.name === null ? {} : { repository: this.#o.name }), failure_category: category, ...detailFields(detail) }, 'discovery failed');
    }
    if (!halt.aborted) {
      this.#discovery = setTimeout(() => void this.#discover(), config.refreshIntervalSeconds * 1000);
      this.#discovery.unref();
    }
  }
}
