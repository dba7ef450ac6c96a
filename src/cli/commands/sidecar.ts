/**
 * Sidecar mode: the startup gates (configuration was checked before; then the token file, the
 * socket directory and the socket path), then the scope's refresher, the reachability check and
 * the evidence API on the Unix socket, until SIGTERM or SIGINT. Every refusal happens before the
 * socket exists and prints one line naming the gate, never a secret.
 */
import { rm } from 'node:fs/promises';
import { categoryOf, GateError } from '../../common/errors.ts';
import { createLogger } from '../../common/log.ts';
import { scanScope } from '../../evidence/scope-scan.ts';
import { destinationFingerprint } from '../../publication/fingerprint.ts';
import { Publisher } from '../../publication/publisher.ts';
import { Reachability } from '../../publication/reachability.ts';
import { Refresher } from '../../publication/refresher.ts';
import { confine, scopeRoot } from '../../store/confined.ts';
import { createEvidenceApi } from '../../surface/api/evidence-api.ts';
import { checkSocketDirectory, listenOnSocket, prepareSocketPath } from '../../surface/api/socket.ts';
import { readTokenFile } from '../../surface/api/token-file.ts';
import { closeGracefully } from '../../surface/close-server.ts';
import type { SidecarConfig } from '../config/config.ts';
import { EXIT, type ExitCode } from '../exit-codes.ts';
import { PRODUCER_VERSION } from '../identity.ts';
import { createDriver } from '../store-factory.ts';

export async function runSidecar(config: SidecarConfig, socketPath: string, stop: AbortSignal): Promise<ExitCode> {
  const log = createLogger(config.logLevel);
  let token: string;
  let driver;
  const root = scopeRoot(config.destination.prefix, config.serverName);
  try {
    token = await readTokenFile(config.tokenFile);
    await checkSocketDirectory(socketPath);
    await prepareSocketPath(socketPath);
    driver = confine(await createDriver(config), root);
  } catch (error) {
    const reason = error instanceof GateError ? error.message : `store: ${categoryOf(error)}`;
    process.stderr.write(`viewer: sidecar refused to start: ${reason}\n`);
    return EXIT.config;
  }

  const publisher = new Publisher(
    { cluster: config.cluster, provider: 'store-a', fingerprint: destinationFingerprint(config.destination, config.endpointUrl), server: config.serverName, producerVersion: PRODUCER_VERSION },
    config.retention,
    config.freshnessThresholdSeconds * 1000,
  );
  let current = publisher.current;
  const refresher = new Refresher({
    publisher,
    budget: { maxPages: config.scan.maxPages, maxObjects: config.scan.maxObjects },
    intervalMs: config.refreshIntervalSeconds * 1000,
    scanTimeoutMs: config.scan.timeoutSeconds * 1000,
    onPublish: (p) => {
      current = p;
      const failure = p.snapshot.inventory.last_failure_category;
      log.info({ revision: p.revision, generation: p.generation, code: p.snapshot.reason.code, failure_category: failure, invalid: p.violations.length > 0 }, 'published');
    },
    scan: (signal, next, meter) => scanScope({ server: config.serverName, root, driver, signal, meter, concurrency: config.scan.concurrency, ...next }),
  });
  const reachability = new Reachability({
    driver,
    root,
    windowMs: config.readinessWindowSeconds * 1000,
    onResult: (category) => log.debug({ failure_category: category }, 'reachability'),
  });
  const server = createEvidenceApi({ token, publication: () => current, ready: () => reachability.ready(), logger: log });
  await listenOnSocket(server, socketPath);
  log.info({ revision: current.revision }, 'serving');
  reachability.start();
  refresher.start();

  await new Promise<void>((resolve) => (stop.aborted ? resolve() : stop.addEventListener('abort', () => resolve(), { once: true })));
  log.info({}, 'shutting down');
  reachability.stop();
  await refresher.stop();
  await closeGracefully(server, 5_000);
  driver.close();
  await rm(socketPath, { force: true });
  return EXIT.ok;
}
