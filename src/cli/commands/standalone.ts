/**
 * Standalone mode: one refresher per server scope (the configured list, or the servers discovered
 * under the destination), a prefix-scoped reachability check for `/readyz`, and the web UI on
 * LISTEN_ADDR until SIGTERM or SIGINT (graceful shutdown within 15 s). The server listens before
 * discovery starts and discovery never holds it back (D-77): `/healthz` answers as soon as the
 * process listens, and the pages say discovery is in progress until its first run ends. Without a
 * destination it serves the embedded demo repository, scanned by the same scanner from memory.
 * With `STATE_DIR` (checked before anything starts), each scope's memory is read from there before
 * its first scan and written after every complete generation (D-81).
 */
import { categoryOf } from '../../common/errors.ts';
import { createLogger } from '../../common/log.ts';
import { discoverScopes } from '../../evidence/discovery.ts';
import { BudgetMeter } from '../../evidence/listing.ts';
import { DEMO_BUCKET, DEMO_PREFIX, DEMO_SERVER, demoRepository } from '../../format/barman-cloud/demo-repository.ts';
import { checkStateDir } from '../../publication/memory-file.ts';
import { Reachability } from '../../publication/reachability.ts';
import type { Refresher } from '../../publication/refresher.ts';
import { confine } from '../../store/confined.ts';
import type { Destination } from '../../store/destination.ts';
import type { StoreDriver } from '../../store/driver.ts';
import type { DestinationFacts, ScopeView } from '../../surface/ui/pages.ts';
import { scopeView } from '../../surface/ui/scope-view.ts';
import { createStandaloneServer, SERVER_TIMEOUTS } from '../../surface/ui/server.ts';
import { closeGracefully } from '../../surface/close-server.ts';
import type { StandaloneConfig } from '../config/config.ts';
import { EXIT, type ExitCode } from '../exit-codes.ts';
import { listenOnTcp } from '../tcp-listen.ts';
import { formatNamed } from '../formats.ts';
import { scopeMemory, scopeRefresher, wireScope, type ScopeMemory } from '../scope-wiring.ts';
import { createDriver } from '../store-factory.ts';

/** How long one discovery of the destination may list before it fails as `timeout`. */
const DISCOVERY_TIMEOUT_MS = 30_000;

export async function runStandalone(config: StandaloneConfig, stop: AbortSignal, onListening?: (url: string) => void): Promise<ExitCode> {
  const log = createLogger(config.logLevel);
  const demo = config.destination === null;
  const destination: Destination = config.destination ?? { provider: 'store-a', bucket: DEMO_BUCKET, account: null, emulatorOrigin: null, prefix: DEMO_PREFIX };
  if (config.stateDir !== null) {
    try {
      await checkStateDir(config.stateDir);
    } catch (error) {
      process.stderr.write(`viewer: standalone refused to start: ${error instanceof Error ? error.message : 'state directory: refused'}\n`);
      return EXIT.config;
    }
  }
  let driver: StoreDriver;
  try {
    driver = demo ? demoRepository() : await createDriver(config);
  } catch (error) {
    process.stderr.write(`viewer: standalone refused to start: store: ${categoryOf(error)}\n`);
    return EXIT.config;
  }
  const views = new Map<string, ScopeView>();
  const refreshers: Refresher[] = [];
  const memories: ScopeMemory[] = [];
  // Discovery mode only: what lies under the destination beside the scopes (unknown until counted).
  const discovering = !demo && config.serverNames === null;
  let destinationFacts: DestinationFacts = { unscopedObjects: null, foreignFormat: null, discoveryFailure: null, discoveryPending: discovering };
  // Aborted on the way out: a discovery still listing ends, and no scope starts after it.
  const halt = new AbortController();

  const addScope = (server: string) => {
    if (halt.signal.aborted) return;
    const scope = wireScope(config, { server, destination, endpointUrl: demo ? null : config.endpointUrl });
    const publisher = scope.publisher;
    const scan = scope.scan(confine(driver, scope.roots));
    views.set(server, scopeView(server, publisher.current, null));
    const memory = scopeMemory(config.stateDir, scope, log, { server });
    memories.push(memory);
    const refresher = scopeRefresher(
      config,
      scope,
      async (signal, next, meter) => {
        const evidence = await scan(signal, next, meter);
        return discovering ? { ...evidence, unscopedObjects: destinationFacts.unscopedObjects } : evidence;
      },
      (p) => {
        // The scan behind the published generation: a failed or truncated attempt is never shown.
        views.set(server, scopeView(server, p, publisher.evidence));
        memory.published(p);
        // Server names are configuration, not secrets: an operator reading the log needs to know whose publication this is.
        log.info({ server, revision: p.revision, generation: p.generation, code: p.snapshot.reason.code, state: p.snapshot.state }, 'published');
      },
    );
    refreshers.push(refresher);
    // The first scan continues what the state directory remembers (a stopped refresher never starts).
    void memory.restore().then(() => refresher.start());
  };

  const destinationRoot = destination.prefix === '' ? '' : `${destination.prefix}/`;
  let discovery: NodeJS.Timeout | null = null;
  const discover = async () => {
    try {
      const signal = AbortSignal.any([halt.signal, AbortSignal.timeout(DISCOVERY_TIMEOUT_MS)]);
      const found = await discoverScopes(formatNamed(config.format), driver, destination.prefix, signal, new BudgetMeter({ maxPages: 1000, maxObjects: 1_000_000 }));
      if (halt.signal.aborted) return;
      destinationFacts = { unscopedObjects: found.unscopedObjects, foreignFormat: found.foreignFormat, discoveryFailure: null, discoveryPending: false };
      if (found.foreignFormat !== null) log.warn({ failure_category: 'incompatible_format' }, 'the destination holds another repository format');
      for (const n of found.servers) if (!views.has(n)) addScope(n);
    } catch (error) {
      if (halt.signal.aborted) return;
      // A count that can no longer be confirmed is unknown, never the last number seen; the page
      // states the failure and its category (a wrong bucket, denied, the store down), never "0 server scopes".
      const category = categoryOf(error);
      destinationFacts = { ...destinationFacts, unscopedObjects: null, discoveryFailure: category, discoveryPending: false };
      log.warn({ failure_category: category }, 'discovery failed');
    }
    if (!stop.aborted && !halt.signal.aborted) {
      discovery = setTimeout(() => void discover(), config.refreshIntervalSeconds * 1000);
      discovery.unref();
    }
  };
  if (demo) addScope(DEMO_SERVER);
  else if (config.serverNames !== null) config.serverNames.forEach(addScope);

  const reachability = new Reachability({ driver, root: destinationRoot, windowMs: config.readinessWindowSeconds * 1000 });
  reachability.start();

  const server = createStandaloneServer({
    scopes: () => [...views.values()].sort((a, b) => (a.server < b.server ? -1 : 1)),
    ...(discovering ? { destination: () => destinationFacts } : {}),
    ready: () => reachability.ready(),
    trustedUserHeader: config.trustedUserHeader,
    retentionPolicy: config.retention.policyText,
    minimumRedundancy: config.retention.minimumRedundancy,
    maxArchiveLagSeconds: config.retention.maxArchiveLagSeconds,
    walPageSize: config.walPageSize,
    demo,
    logger: log,
  });
  // Background work first on every way out: no scan may outlive the server or use a closed driver.
  const stopScanning = async () => {
    halt.abort();
    if (discovery !== null) clearTimeout(discovery);
    reachability.stop();
    await Promise.all(refreshers.map((r) => r.stop()));
    await Promise.all(memories.map((m) => m.flush()));
  };
  const listened = await listenOnTcp(server, config.listen);
  if (!listened.ok) {
    await stopScanning();
    driver.close();
    return EXIT.config;
  }
  const url = listened.url;
  process.stderr.write(`viewer: standalone UI on ${url}${demo ? ' (embedded demo repository)' : ''}\n`);
  onListening?.(url);
  // Discovery runs behind the listening server (D-77): /healthz answers at once, /readyz follows
  // the reachability check, and the pages say discovery is in progress until it ends (a hanging
  // store holds it for up to 30 s).
  if (discovering && !stop.aborted) void discover();

  await new Promise<void>((resolve) => (stop.aborted ? resolve() : stop.addEventListener('abort', () => resolve(), { once: true })));
  await stopScanning();
  await closeGracefully(server, SERVER_TIMEOUTS.shutdownMs);
  driver.close();
  return EXIT.ok;
}
