/**
 * One scope of a standalone configuration on store-b (Azure) or store-c (Cloud Storage), composed
 * in-process as `src/cli/commands/standalone.ts` composes it (parsed configuration, the real store
 * factory's driver, confinement, the wired scope's Publisher and scan, a Refresher, the structured
 * logger), over the emulator behind the fault proxy, holding the embedded demo repository copied
 * key for key. The sidecar serves store-a only, so these faults are judged on the publication
 * itself (what both surfaces serve) and the log; `runProviderFault` checks the same promises as
 * `runFaultCase` does for S3.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { parseConfig } from '../../src/cli/config/config.ts';
import { scanBudget, wireScope } from '../../src/cli/scope-wiring.ts';
import { createDriver } from '../../src/cli/store-factory.ts';
import { createLogger } from '../../src/common/log.ts';
import type { FailureCategory } from '../../src/contract/primitives.ts';
import { DEMO_SERVER } from '../../src/format/barman-cloud/demo-repository.ts';
import type { Publication } from '../../src/publication/publisher.ts';
import { Refresher } from '../../src/publication/refresher.ts';
import { confine } from '../../src/store/confined.ts';
import type { Fault, FaultProxy, Matcher, RuleOptions } from '../support/fault-proxy.ts';
import { assertNoLeak, generationFacts, refreshCode } from './harness.ts';

export interface ProviderScope {
  readonly refresher: Refresher;
  readonly logLines: readonly string[];
  current(): Publication;
  close(): Promise<void>;
}

/** `env`: the provider's variables (PROVIDER, DESTINATION_PATH, credentials, STORE_ENDPOINT_URL). */
export async function composeProviderScope(env: Readonly<Record<string, string>>, scanTimeoutMs = 30_000): Promise<ProviderScope> {
  const parsed = parseConfig({ ARCHIVE_SERVER_NAMES: DEMO_SERVER, LOG_LEVEL: 'debug', ...env });
  if (!parsed.ok || parsed.config.destination === null) throw new Error(`configuration refused: ${JSON.stringify(parsed)}`);
  const config = parsed.config;
  const destination = parsed.config.destination;
  const wiring = wireScope(config, { server: DEMO_SERVER, destination, endpointUrl: config.endpointUrl });
  const driver = confine(await createDriver(config), wiring.roots);
  const logLines: string[] = [];
  const log = createLogger(config.logLevel, new Writable({
    write(chunk: Buffer, _encoding, callback) {
      logLines.push(...chunk.toString().split('\n').filter(Boolean));
      callback();
    },
  }));
  let current = wiring.publisher.current;
  const refresher = new Refresher({
    publisher: wiring.publisher,
    scan: wiring.scan(driver),
    budget: scanBudget(config),
    intervalMs: 3_600_000,
    scanTimeoutMs,
    onPublish: (p) => {
      current = p;
      // The line standalone.ts logs for every publication.
      log.info({ server: DEMO_SERVER, revision: p.revision, generation: p.generation, code: p.snapshot.reason.code, state: p.snapshot.state }, 'published');
    },
  });
  return {
    refresher,
    logLines,
    current: () => current,
    async close() {
      await refresher.stop();
      driver.close();
    },
  };
}

export interface ProviderFault {
  readonly match: Matcher;
  readonly fault: Fault;
  readonly rule?: RuleOptions;
  readonly category: FailureCategory;
  /** Tries the SDK makes for one request the fault answers (its own policy: 3, or 1 when it does not retry). */
  readonly attempts: 1 | 3;
  readonly scanTimeoutMs?: number;
}

const items = (p: Publication) => JSON.stringify([p.backups, p.walRanges, p.walGaps, p.recoveryPaths]);

/** A complete generation, the fault and one refresh checked, then the fault lifted and a new generation. */
export async function runProviderFault(proxy: FaultProxy, env: Readonly<Record<string, string>>, forbidden: readonly (string | RegExp)[], c: ProviderFault): Promise<{ invocations: number; faulted: number; failedRefreshMs: number }> {
  const scope = await composeProviderScope(env, c.scanTimeoutMs);
  try {
    await scope.refresher.refreshNow();
    const healthy = scope.current();
    assert.deepEqual([healthy.generation, healthy.snapshot.completeness, healthy.snapshot.inventory.last_failure_category], [1, 'complete', null], 'the first scan completes');
    proxy.clearLog();
    const rule = proxy.inject(c.match, c.fault, { name: 'fault', ...c.rule });
    const t0 = performance.now();
    await scope.refresher.refreshNow();
    const failedRefreshMs = performance.now() - t0;
    assert.ok(rule.hits > 0, 'the fault answered no request');
    const failed = scope.current();
    const code = refreshCode(c.category);
    assert.equal(failed.snapshot.inventory.last_failure_category, c.category, `category (reason ${failed.snapshot.reason.code})`);
    assert.deepEqual([failed.revision, failed.generation, failed.snapshot.stale, failed.snapshot.state, failed.snapshot.reason.code], [healthy.revision + 1, 1, true, 'unknown', code]);
    for (const cap of failed.snapshot.capabilities) assert.equal(cap.state, 'unknown', String(cap.id));
    assert.deepEqual(failed.violations, []);
    assert.deepEqual(generationFacts(failed.snapshotJson), generationFacts(healthy.snapshotJson), 'the facts of the generation are retained');
    assert.equal(items(failed), items(healthy), 'the items of the generation are retained byte for byte');

    const byInvocation = new Map<string, number>();
    for (const r of proxy.log.filter((x) => x.fault === 'fault')) byInvocation.set(r.invocation ?? '?', (byInvocation.get(r.invocation ?? '?') ?? 0) + 1);
    assert.ok([...byInvocation.values()].some((n) => n === c.attempts), `no request was tried ${c.attempts} times: ${JSON.stringify([...byInvocation.values()])}`);
    for (const n of byInvocation.values()) assert.ok(n <= c.attempts, `a request was tried ${n} times`);
    const faulted = proxy.count((x) => x.fault === 'fault');

    assertNoLeak([failed.snapshotJson, ...scope.logLines], forbidden, 'publication or log line');

    rule.lift();
    await scope.refresher.refreshNow();
    const recovered = scope.current();
    assert.deepEqual([recovered.generation, recovered.snapshot.stale, recovered.snapshot.inventory.last_failure_category], [2, false, null]);
    return { invocations: byInvocation.size, faulted, failedRefreshMs };
  } finally {
    proxy.liftAll();
    await scope.close();
  }
}

/** A temporary directory for credential files, removed by the caller. */
export function tempDir(): { readonly path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), 'viewer-provider-faults-'));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}
