/**
 * One scope's publication wiring, written once for the three commands that publish (`scan`,
 * sidecar, standalone): the Publisher that names the scope (identity, the configured expectations
 * and freshness threshold), the scan of that scope (the one call of the scanner, in the shape the
 * Refresher takes), the budgets it runs under, and for the long-running modes the Refresher that
 * repeats it on the configured interval and deadline, and the scope's memory kept in `STATE_DIR`
 * (`scopeMemory`: read into the publisher before the first scan, written after every complete
 * generation; D-81).
 */
import type { Logger } from '../common/log.ts';
import type { ScanBudget } from '../evidence/listing.ts';
import { scanScope } from '../evidence/scope-scan.ts';
import { destinationFingerprint } from '../publication/fingerprint.ts';
import { MemoryKeeper, readMemoryFile, type MemoryFileRead } from '../publication/memory-file.ts';
import { Publisher, type Publication } from '../publication/publisher.ts';
import { Refresher, type RefresherOptions, type ScanFunction } from '../publication/refresher.ts';
import type { Destination } from '../store/destination.ts';
import type { StoreDriver } from '../store/driver.ts';
import type { Config } from './config/config.ts';
import { PRODUCER_VERSION, standaloneCluster } from './identity.ts';
import { formatNamed } from '../format/registry.ts';
import type { RepositoryFormat } from '../format/seam.ts';

export interface Scope {
  readonly server: string;
  readonly destination: Destination;
  /** The endpoint origin the fingerprint includes: the configured one, `null` for the embedded demo. */
  readonly endpointUrl: string | null;
}

export interface ScopeWiring {
  readonly publisher: Publisher;
  /** The scope's repository format (the configured `REPOSITORY_FORMAT`). */
  readonly format: RepositoryFormat;
  /** The base the scope's keys are relative to (the format's `scopeRoots`). */
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
  const format = formatNamed(config.format);
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
  return { publisher, format, root, roots, scan };
}

/**
 * The Refresher of a wired scope: `scan` (the wiring's, or one that amends its evidence) on the
 * configured interval, budgets and deadline, each attempt after its `turn` when one is given.
 */
export function scopeRefresher(config: Config, wiring: ScopeWiring, scan: ScanFunction, onPublish: (p: Publication) => void, turn?: RefresherOptions['turn']): Refresher {
  return new Refresher({
    publisher: wiring.publisher,
    scan,
    ...(turn === undefined ? {} : { turn }),
    budget: scanBudget(config),
    intervalMs: config.refreshIntervalSeconds * 1000,
    scanTimeoutMs: config.scan.timeoutSeconds * 1000,
    onPublish,
  });
}

/** One scope's memory in `STATE_DIR` (nothing at all without one). */
export interface ScopeMemory {
  /**
   * Reads the scope's state file into its publisher: before the first attempt, so the first
   * complete scan continues what the earlier process proved and its generation count (D-82). A
   * missing file starts afresh; a refused one too, with a warning (its typed reason, never its path
   * or contents), and nothing of it is used.
   */
  restore(): Promise<void>;
  /** Called with every publication: a new complete generation's memory is written (atomically, one write at a time). */
  published(p: Publication): void;
  /** Resolves once the last memory handed over is on disk (or its write failed): on shutdown. */
  flush(): Promise<void>;
}

/**
 * The memory of a wired scope in `stateDir`. `fields` go on every log line (standalone names its
 * server; the sidecar logs no scope name, spec Authentication, Sidecar, rule 9).
 */
export function scopeMemory(stateDir: string | null, wiring: ScopeWiring, log: Logger, fields: Readonly<Record<string, string>> = {}): ScopeMemory {
  if (stateDir === null) return { restore: () => Promise.resolve(), published: () => undefined, flush: () => Promise.resolve() };
  const publisher = wiring.publisher;
  const keeper = new MemoryKeeper(stateDir, (r) => {
    if (r.ok) log.debug({ ...fields, code: 'memory-written', generation: r.generation }, 'memory written to the state directory');
    else log.warn({ ...fields, code: 'state-file-not-written', error_code: r.errorCode }, 'the memory could not be written to the state directory; it is kept in the process');
  });
  let kept = publisher.memory.generation;
  return {
    async restore() {
      // Never a reason not to start: anything unexpected is a refused file too.
      const read = await readMemoryFile(stateDir, publisher.memoryIdentity).catch((): MemoryFileRead => ({ status: 'refused', reason: 'unreadable' }));
      if (read.status === 'absent') {
        log.info({ ...fields, code: 'memory-absent' }, 'no state file for this scope; the first generation starts afresh');
      } else if (read.status === 'refused') {
        log.warn({ ...fields, code: 'state-file-refused', reason: read.reason, ...(read.errorCode === undefined ? {} : { error_code: read.errorCode }) }, 'state file refused; starting afresh');
      } else {
        publisher.remember(read.memory);
        kept = read.memory.generation;
        log.info({ ...fields, code: 'memory-restored', generation: read.memory.generation }, 'memory restored from the state directory');
      }
    },
    published() {
      const memory = publisher.memory;
      if (memory.generation <= kept) return;
      kept = memory.generation;
      keeper.keep(memory);
    },
    flush: () => keeper.flush(),
  };
}
