/**
 * Standalone mode: the web UI on LISTEN_ADDR over one repository (DESTINATION_PATH, or the embedded
 * demo without one, scanned by the same scanner from memory) or a fleet of them (FLEET_FILE: one
 * `RepositoryWatch` per entry, each with its own driver, scopes, publications and memory, their
 * scans sharing FLEET_CONCURRENCY turns, one lane per repository, D-100), and optionally every
 * scope's metrics on METRICS_ADDR (`/metrics` only). Runs until SIGTERM or SIGINT (graceful
 * shutdown within 15 s). The server listens before discovery starts and discovery never holds it
 * back (D-77). With `STATE_DIR` (checked before anything starts), each scope's memory is read from
 * there before its first scan and written after every complete generation (D-81).
 */
import type { Server } from 'node:http';
import { Turns } from '../../common/concurrency.ts';
import { categoryOf, detailOf, formatDetail } from '../../common/errors.ts';
import { createLogger, type Logger } from '../../common/log.ts';
import { DEMO_BUCKET, DEMO_PREFIX, DEMO_SERVER, demoRepository } from '../../format/demo.ts';
import { formatNamed } from '../../format/registry.ts';
import { checkStateDir } from '../../publication/memory-file.ts';
import type { Destination } from '../../store/destination.ts';
import type { StoreDriver } from '../../store/driver.ts';
import { closeGracefully } from '../../surface/close-server.ts';
import { createMetricsServer } from '../../surface/metrics/server.ts';
import { displayNameOf } from '../../surface/ui/glance.ts';
import { SERVER_TIMEOUTS } from '../../surface/page-server.ts';
import { createStandaloneServer, type RepositoryPages } from '../../surface/ui/server.ts';
import type { StandaloneConfig } from '../config/config.ts';
import type { FleetRepository } from '../config/fleet-file.ts';
import { EXIT, type ExitCode } from '../exit-codes.ts';
import { RepositoryWatch } from '../repository-watch.ts';
import { createDriver } from '../store-factory.ts';
import { listenOnTcp } from '../tcp-listen.ts';

const refuse = (why: string): ExitCode => {
  process.stderr.write(`viewer: standalone refused to start: ${why}\n`);
  return EXIT.config;
};

/** A store that could not be set up: its category, then one line that points at the cause (issue 26). */
const storeRefusal = (error: unknown): string => {
  const detail = formatDetail(detailOf(error));
  return `store: ${categoryOf(error)}${detail === null ? '' : `\nviewer: detail: ${detail}`}`;
};

interface Watched {
  readonly watch: RepositoryWatch;
  readonly driver: StoreDriver;
  readonly pages: RepositoryPages;
}

function pagesOf(watch: RepositoryWatch, config: StandaloneConfig, destination: Destination): RepositoryPages {
  return {
    name: watch.name,
    // A fleet entry is shown by its name; one repository by REPOSITORY_NAME, else its bucket and prefix (never an account or endpoint).
    displayName: watch.name ?? config.repositoryName ?? displayNameOf(destination),
    // The configured REPOSITORY_FORMAT (a fleet entry's own): the pages render its facts and words.
    format: formatNamed(config.format),
    progress: () => watch.progress(),
    failureDetail: (server) => formatDetail(watch.failureDetail(server)),
    scopes: () => watch.views(),
    destination: () => watch.destination(),
    retentionPolicy: config.retention.policyText,
    minimumRedundancy: config.retention.minimumRedundancy,
    maxArchiveLagSeconds: config.retention.maxArchiveLagSeconds,
  };
}

/** The one repository of DESTINATION_PATH, or the embedded demo. */
async function single(config: StandaloneConfig, log: Logger): Promise<Watched[] | string> {
  const demo = config.destination === null;
  const destination: Destination = config.destination ?? { provider: 'store-a', bucket: DEMO_BUCKET, account: null, emulatorOrigin: null, prefix: DEMO_PREFIX };
  let driver: StoreDriver;
  try {
    driver = demo ? demoRepository() : await createDriver(config);
  } catch (error) {
    return storeRefusal(error);
  }
  const watch = new RepositoryWatch({ config, destination, endpointUrl: demo ? null : config.endpointUrl, driver, log, name: null, turns: null, metricLabels: [], serverNames: demo ? [DEMO_SERVER] : config.serverNames });
  return [{ watch, driver, pages: pagesOf(watch, config, destination) }];
}

/** One watch per fleet-file entry (the file already read and validated by the command line). */
async function fleet(config: StandaloneConfig, repositories: readonly FleetRepository[], log: Logger): Promise<Watched[] | string> {
  const turns = new Turns(config.fleetConcurrency);
  const out: Watched[] = [];
  for (const r of repositories) {
    let driver: StoreDriver;
    try {
      driver = await createDriver(r.config);
    } catch (error) {
      for (const w of out) w.driver.close();
      return `FLEET_FILE: repository ${r.name}: ${storeRefusal(error)}`;
    }
    const watch = new RepositoryWatch({
      config: r.config,
      destination: r.config.destination,
      endpointUrl: r.config.endpointUrl,
      driver,
      log,
      name: r.name,
      turns,
      metricLabels: [['repository', r.name], ...r.labels],
      serverNames: r.config.serverNames,
    });
    out.push({ watch, driver, pages: pagesOf(watch, r.config, r.config.destination) });
  }
  return out;
}

export interface StandaloneOptions {
  /** FLEET_FILE's repositories, read and validated by the command line; absent outside a fleet. */
  readonly fleet?: readonly FleetRepository[];
  readonly onListening?: (url: string, metricsUrl: string | null) => void;
}

export async function runStandalone(config: StandaloneConfig, stop: AbortSignal, options: StandaloneOptions = {}): Promise<ExitCode> {
  const log = createLogger(config.logLevel);
  if (config.stateDir !== null) {
    try {
      await checkStateDir(config.stateDir);
    } catch (error) {
      return refuse(error instanceof Error ? error.message : 'state directory: refused');
    }
  }
  const built = options.fleet === undefined ? await single(config, log) : await fleet(config, options.fleet, log);
  if (typeof built === 'string') return refuse(built);
  const demo = options.fleet === undefined && config.destination === null;

  const server = createStandaloneServer({
    repositories: built.map((w) => w.pages),
    // A fleet is ready while any of its repositories is reachable: one store down must not take
    // the pages of every other out of service (D-101).
    ready: () => built.some((w) => w.watch.ready()),
    trustedUserHeader: config.trustedUserHeader,
    walPageSize: config.walPageSize,
    demo,
    logger: log,
  });
  const metrics: Server | null =
    config.metricsListen === null
      ? null
      : createMetricsServer({
          metrics: async () => {
            const { renderOpenMetrics } = await import('../../metrics/openmetrics.ts');
            return renderOpenMetrics(built.flatMap((w) => w.watch.metricScopes()), { labels: config.metricsLabels });
          },
          logger: log,
        });
  const close = async () => {
    await Promise.all(built.map((w) => w.watch.stop()));
    for (const w of built) w.driver.close();
  };
  const listened = await listenOnTcp(server, config.listen);
  const metricsListened = metrics === null || !listened.ok ? null : await listenOnTcp(metrics, config.metricsListen ?? { host: null, port: 0 }, 'METRICS_ADDR');
  if (!listened.ok || metricsListened?.ok === false) {
    if (listened.ok) await closeGracefully(server, SERVER_TIMEOUTS.shutdownMs);
    await close();
    return EXIT.config;
  }
  const url = listened.url;
  const metricsUrl = metricsListened?.ok === true ? `${metricsListened.url}metrics` : null;
  const what = demo ? ' (embedded demo repository)' : options.fleet === undefined ? '' : ` (fleet of ${built.length} repositor${built.length === 1 ? 'y' : 'ies'})`;
  // The bound address as it is: 0.0.0.0 and "all interfaces" when LISTEN_ADDR names no host.
  const all = (l: { readonly allInterfaces: boolean }) => (l.allInterfaces ? ' (all interfaces)' : '');
  const metricsPart = metricsUrl === null || metricsListened?.ok !== true ? '' : `; metrics on ${metricsUrl}${all(metricsListened)}`;
  process.stderr.write(`viewer: standalone UI on ${url}${all(listened)}${what}${metricsPart}\n`);
  options.onListening?.(url, metricsUrl);
  // Scans and discovery start behind the listening server (D-77): /healthz answers at once,
  // /readyz follows the reachability checks, and the pages say discovery is in progress until it ends.
  if (!stop.aborted) for (const w of built) w.watch.start();

  await new Promise<void>((resolve) => (stop.aborted ? resolve() : stop.addEventListener('abort', () => resolve(), { once: true })));
  // Background work first: no scan may outlive the servers or use a closed driver.
  await Promise.all(built.map((w) => w.watch.stop()));
  await Promise.all([closeGracefully(server, SERVER_TIMEOUTS.shutdownMs), metrics === null ? Promise.resolve() : closeGracefully(metrics, SERVER_TIMEOUTS.shutdownMs)]);
  for (const w of built) w.driver.close();
  return EXIT.ok;
}
