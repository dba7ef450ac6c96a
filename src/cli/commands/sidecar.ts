/**
 * Sidecar mode: the startup gates (configuration was checked before; then the token file, the
 * socket directory, the state directory when `STATE_DIR` is set, and the socket path), then the
 * scope's memory read from the state directory, the scope's refresher, the reachability check and
 * the evidence API on the Unix socket, until SIGTERM or SIGINT. Every refusal happens before the
 * socket exists and prints one line naming the gate, never a secret. With `STATE_DIR`, every
 * complete generation's memory is written there, and the last one is on disk before the process
 * ends (D-81).
 */
import { rm } from 'node:fs/promises';
import { categoryOf, GateError } from '../../common/errors.ts';
import { createLogger } from '../../common/log.ts';
import { checkStateDir } from '../../publication/memory-file.ts';
import { Reachability } from '../../publication/reachability.ts';
import { confine } from '../../store/confined.ts';
import { createEvidenceApi } from '../../surface/api/evidence-api.ts';
import { checkSocketDirectory, listenOnSocket, prepareSocketPath } from '../../surface/api/socket.ts';
import { readTokenFile } from '../../surface/api/token-file.ts';
import { closeGracefully } from '../../surface/close-server.ts';
import type { SidecarConfig } from '../config/config.ts';
import { EXIT, type ExitCode } from '../exit-codes.ts';
import { scopeMemory, scopeRefresher, wireScope } from '../scope-wiring.ts';
import { createDriver } from '../store-factory.ts';

export async function runSidecar(config: SidecarConfig, socketPath: string, stop: AbortSignal): Promise<ExitCode> {
  const log = createLogger(config.logLevel);
  let token: string;
  let driver;
  const scope = wireScope(config, { server: config.serverName, destination: config.destination, endpointUrl: config.endpointUrl });
  const [root = scope.root] = scope.roots;
  try {
    token = await readTokenFile(config.tokenFile);
    await checkSocketDirectory(socketPath);
    if (config.stateDir !== null) await checkStateDir(config.stateDir);
    await prepareSocketPath(socketPath);
    driver = confine(await createDriver(config), scope.roots);
  } catch (error) {
    const reason = error instanceof GateError ? error.message : `store: ${categoryOf(error)}`;
    process.stderr.write(`viewer: sidecar refused to start: ${reason}\n`);
    return EXIT.config;
  }

  // No scope name on the sidecar's log lines (spec Authentication, Sidecar, rule 9).
  const memory = scopeMemory(config.stateDir, scope, log);
  await memory.restore();
  let current = scope.publisher.current;
  const refresher = scopeRefresher(config, scope, scope.scan(driver), (p) => {
    current = p;
    memory.published(p);
    const failure = p.snapshot.inventory.last_failure_category;
    log.info({ revision: p.revision, generation: p.generation, code: p.snapshot.reason.code, failure_category: failure, invalid: p.violations.length > 0 }, 'published');
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
  await memory.flush();
  await closeGracefully(server, 5_000);
  driver.close();
  await rm(socketPath, { force: true });
  return EXIT.ok;
}
