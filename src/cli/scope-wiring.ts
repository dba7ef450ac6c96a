/**
 * One scope's publication wiring, written once for the three commands that publish (`scan`,
 * sidecar, standalone): the Publisher that names the scope (identity, the configured expectations
 * and freshness threshold), the scan of that scope (the one call of the scanner, in the shape the
 * Refresher takes), the budgets it runs under, and for the long-running modes the Refresher that
 * repeats it on the configured interval and deadline.
 */
import type { ScanBudget } from '../evidence/listing.ts';
import { scanScope } from '../evidence/scope-scan.ts';
import { destinationFingerprint } from '../publication/fingerprint.ts';
import { Publisher, type Publication } from '../publication/publisher.ts';
import { Refresher, type ScanFunction } from '../publication/refresher.ts';
import type { Destination } from '../store/destination.ts';
import type { StoreDriver } from '../store/driver.ts';
import type { Config } from './config/config.ts';
import { PRODUCER_VERSION, standaloneCluster } from './identity.ts';
import { FORMATS } from './formats.ts';

export interface Scope {
  readonly server: string;
  readonly destination: Destination;
  /** The endpoint origin the fingerprint includes: the configured one, `null` for the embedded demo. */
  readonly endpointUrl: string | null;
}

export interface ScopeWiring {
  readonly publisher: Publisher;
  /** The base the scope's keys are relative to (for barman-cloud `<prefix>/<server>/`). */
  readonly root: string;
  /** The prefixes the scope's driver is confined to, the first one probed for readiness. */
  readonly roots: readonly string[];
  /** The scan of this scope through `driver`, already confined to `roots`. */
  readonly scan: (driver: StoreDriver) => ScanFunction;
}

/** The listing budgets of one scan (its wall time is the caller's deadline). */
export function scanBudget(config: Config): ScanBudget {
  return { maxPages: config.scan.maxPages, maxObjects: config.scan.maxObjects };
}

export function wireScope(config: Config, scope: Scope): ScopeWiring {
  const format = FORMATS[config.format];
  const { base: root, roots } = format.scopeRoots(scope.destination.prefix, scope.server);
  const publisher = new Publisher(
    {
      // Sidecar mode always has its cluster; standalone without CLUSTER_* publishes the placeholder.
      cluster: config.cluster ?? standaloneCluster,
      provider: scope.destination.provider,
      fingerprint: destinationFingerprint(scope.destination, scope.endpointUrl),
      server: scope.server,
      producerVersion: PRODUCER_VERSION,
      format,
    },
    config.retention,
    config.freshnessThresholdSeconds * 1000,
  );
  const scan = (driver: StoreDriver): ScanFunction => (signal, next, meter) =>
    scanScope({ format, server: scope.server, root, driver, signal, meter, concurrency: config.scan.concurrency, ...next });
  return { publisher, root, roots, scan };
}

/** The Refresher of a wired scope: `scan` (the wiring's, or one that amends its evidence) on the configured interval, budgets and deadline. */
export function scopeRefresher(config: Config, wiring: ScopeWiring, scan: ScanFunction, onPublish: (p: Publication) => void): Refresher {
  return new Refresher({
    publisher: wiring.publisher,
    scan,
    budget: scanBudget(config),
    intervalMs: config.refreshIntervalSeconds * 1000,
    scanTimeoutMs: config.scan.timeoutSeconds * 1000,
    onPublish,
  });
}
