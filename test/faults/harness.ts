/**
 * The sidecar composed in-process exactly as `src/cli/commands/sidecar.ts` composes it (the parsed
 * sidecar configuration, the real store factory's S3 driver, confinement, the wired scope's
 * Publisher and scan, a Refresher, the reachability check, the evidence API on a temporary Unix
 * socket, one structured logger for all of them), but with the refresher's interval, the scan
 * deadline and the readiness window in milliseconds, so a fault and its lifting fit in seconds
 * (the executable's REFRESH_INTERVAL_SECONDS is at least 10). The store is the real Swift S3
 * endpoint behind a fault proxy, the repository the real `pg-main` Barman wrote.
 *
 * Listings are asked for `pageSize` keys a page (4 by default; the real driver signs that
 * MaxKeys), so the repository's 25 keys take several pages and "the n-th page of a listing" exists.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { parseConfig, type SidecarConfig } from '../../src/cli/config/config.ts';
import { scanBudget, wireScope, type ScopeWiring } from '../../src/cli/scope-wiring.ts';
import { createDriver } from '../../src/cli/store-factory.ts';
import { createLogger } from '../../src/common/log.ts';
import type { FailureCategory } from '../../src/contract/primitives.ts';
import { COLLECTIONS } from '../../src/contract/routes.ts';
import type { Publication } from '../../src/publication/publisher.ts';
import { Reachability } from '../../src/publication/reachability.ts';
import { Refresher, type ScanFunction } from '../../src/publication/refresher.ts';
import { confine } from '../../src/store/confined.ts';
import type { StoreDriver } from '../../src/store/driver.ts';
import { createEvidenceApi } from '../../src/surface/api/evidence-api.ts';
import { listenOnSocket } from '../../src/surface/api/socket.ts';
import { CANARY, type Fault, type FaultProxy, type LoggedRequest, type Matcher, type RuleOptions } from '../support/fault-proxy.ts';
import { realRepositories } from '../support/real-repositories.ts';

export const TOKEN = 'q1aKFo9oVbP3rJ7Ztl0cKjYc2yU8m1Q0xW5nA4bZr-E';

export interface Reply {
  readonly status: number;
  readonly body: string;
}

export interface ComposeOptions {
  readonly proxy: FaultProxy;
  /** Refresh interval; default one hour (tests then refresh with `refreshNow`). */
  readonly intervalMs?: number;
  readonly jitter?: number;
  readonly scanTimeoutMs?: number;
  readonly readinessWindowMs?: number;
  readonly freshnessMs?: number;
  /** Keys asked for per listing page; default 4. A function is asked at every page (the repository "grows" in pages). */
  readonly pageSize?: number | (() => number);
  /** More sidecar variables (SCAN_MAX_PAGES, SCAN_CONCURRENCY...). */
  readonly env?: Readonly<Record<string, string>>;
  /** Run the reachability check behind /readyz; default true. */
  readonly reachability?: boolean;
  /** Wraps the wired scan (to watch its starts); default the scan itself. */
  readonly wrapScan?: (scan: ScanFunction) => ScanFunction;
}

export interface ComposedSidecar {
  readonly config: SidecarConfig;
  readonly wiring: ScopeWiring;
  readonly refresher: Refresher;
  readonly logLines: readonly string[];
  readonly published: readonly Publication[];
  current(): Publication;
  get(path: string): Promise<Reply>;
  /** Every collection walked to its end at the current revision: route → the pages' bodies. */
  collections(): Promise<Record<string, string[]>>;
  /** Waits until `/readyz` answers `status`. */
  readyzBecomes(status: number, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

/** The scan's own requests: every listing but the reachability check's (one key), and every read. */
export const scanRequest = (r: LoggedRequest): boolean => r.query.get('max-keys') !== '1';

export async function composeSidecar(o: ComposeOptions): Promise<ComposedSidecar> {
  const repos = realRepositories();
  const dir = mkdtempSync(join(tmpdir(), 'viewer-faults-'));
  writeFileSync(join(dir, 'token'), TOKEN);
  writeFileSync(join(dir, 'id'), repos.accessKeyId);
  writeFileSync(join(dir, 'secret'), repos.secretAccessKey);
  const parsed = parseConfig({
    RUNTIME_MODE: 'sidecar',
    REPOSITORY_FORMAT: 'archive-cloud',
    PROVIDER: 'store-a',
    DESTINATION_PATH: `s3://${repos.bucket}/${repos.prefix}`,
    ARCHIVE_SERVER_NAMES: 'pg-main',
    EVIDENCE_TOKEN_FILE: join(dir, 'token'),
    CLUSTER_NAMESPACE: 'databases',
    CLUSTER_UID: '6f1c2a7e-3b9d-4e8f-a1c2-9d8e7f6a5b4c',
    STORE_CREDENTIAL_MODE: 'static-files',
    STORE_ACCESS_KEY_ID_FILE: join(dir, 'id'),
    STORE_SECRET_ACCESS_KEY_FILE: join(dir, 'secret'),
    STORE_ENDPOINT_URL: o.proxy.url,
    LOG_LEVEL: 'debug',
    ...o.env,
  });
  if (!parsed.ok || parsed.config.mode !== 'sidecar') throw new Error(`configuration refused: ${JSON.stringify(parsed)}`);
  const config = parsed.config;
  const wiring = wireScope(config, { server: config.serverName, destination: config.destination, endpointUrl: config.endpointUrl });
  const real = await createDriver(config);
  const pageSize = typeof o.pageSize === 'function' ? o.pageSize : () => (o.pageSize as number | undefined) ?? 4;
  const paged: StoreDriver = { ...real, listPage: (q) => real.listPage({ ...q, maxKeys: Math.min(q.maxKeys ?? 1000, pageSize()) }) };
  const driver = confine(paged, wiring.roots);

  const logLines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      logLines.push(...chunk.toString().split('\n').filter(Boolean));
      callback();
    },
  });
  const log = createLogger(config.logLevel, sink);
  let current = wiring.publisher.current;
  const published: Publication[] = [];
  const scan = wiring.scan(driver);
  const refresher = new Refresher({
    publisher: wiring.publisher,
    scan: o.wrapScan === undefined ? scan : o.wrapScan(scan),
    budget: scanBudget(config),
    intervalMs: o.intervalMs ?? 3_600_000,
    jitter: o.jitter ?? 0,
    scanTimeoutMs: o.scanTimeoutMs ?? 20_000,
    onPublish: (p) => {
      current = p;
      published.push(p);
      // The line sidecar.ts logs for every publication.
      log.info({ revision: p.revision, generation: p.generation, code: p.snapshot.reason.code, failure_category: p.snapshot.inventory.last_failure_category, invalid: p.violations.length > 0 }, 'published');
    },
  });
  const [root = wiring.root] = wiring.roots;
  const reachability = new Reachability({ driver, root, windowMs: o.readinessWindowMs ?? 1_500, onResult: (category) => log.debug({ failure_category: category }, 'reachability') });
  const socketPath = join(dir, 'evidence.sock');
  const server = createEvidenceApi({ token: TOKEN, publication: () => current, ready: () => reachability.ready(), logger: log });
  await listenOnSocket(server, socketPath);
  if (o.reachability !== false) reachability.start();

  const get = (path: string) =>
    new Promise<Reply>((resolve, reject) => {
      const req = request({ socketPath, path, headers: { authorization: `Bearer ${TOKEN}` } }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on('error', reject);
      req.end();
    });

  return {
    config,
    wiring,
    refresher,
    logLines,
    published,
    current: () => current,
    get,
    async collections() {
      const out: Record<string, string[]> = {};
      const revision = current.revision;
      for (const { route, path } of COLLECTIONS) {
        const pages: string[] = [];
        let cursor: string | null = null;
        do {
          const r: Reply = await get(`${path}?revision=${revision}&limit=200${cursor === null ? '' : `&cursor=${cursor}`}`);
          assert.equal(r.status, 200, `${route}: ${r.body}`);
          pages.push(r.body);
          cursor = (JSON.parse(r.body) as { next_cursor: string | null }).next_cursor;
        } while (cursor !== null);
        out[route] = pages;
      }
      return out;
    },
    async readyzBecomes(status, timeoutMs = 20_000) {
      const until = Date.now() + timeoutMs;
      let last = 0;
      while (Date.now() < until) {
        last = (await get('/readyz')).status;
        if (last === status) return;
        await new Promise((r) => setTimeout(r, 100));
      }
      assert.fail(`/readyz stayed ${last}, not ${status}`);
    },
    async close() {
      reachability.stop();
      await refresher.stop();
      server.close();
      server.closeAllConnections();
      driver.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Collection pages with their `revision` taken out: what must stay byte for byte while a generation is retained. */
export function withoutRevision(pages: Record<string, string[]>): Record<string, string[]> {
  return Object.fromEntries(Object.entries(pages).map(([route, bodies]) => [route, bodies.map((b) => b.replace(/"revision":\d+,/, '"revision":0,'))]));
}

/** What must never leave viewer: the provider's text, the store's identity, the credentials, object keys. */
export function forbiddenText(proxy: FaultProxy): (string | RegExp)[] {
  const repos = realRepositories();
  return [
    CANARY,
    repos.accessKeyId,
    repos.secretAccessKey,
    `s3://${repos.bucket}`,
    `/${repos.bucket}/`,
    `"${repos.bucket}"`,
    `${repos.prefix}/`,
    proxy.url,
    `127.0.0.1:${proxy.port}`,
    /\btx[0-9a-f]{21}-[0-9a-f]{10}\b/, // Swift's request ids
    /SlowDown|AccessDenied|NoSuchBucket|InternalError|ServiceUnavailable|XML parse|Deserialization|ECONNRESET|socket hang up/,
    // Object keys, whole or relative to the scope (reason messages may name `backup.info` as a kind of file).
    /pg-main\/|(?:base|wals)\/[0-9A-F]{8}|\d{8}T\d{6}\/(?:backup\.info|data)|0{7}[12]\.history/,
  ];
}

/** Asserts that none of `texts` holds any forbidden string. */
export function assertNoLeak(texts: readonly string[], forbidden: readonly (string | RegExp)[], where: string): void {
  for (const [i, text] of texts.entries()) {
    for (const f of forbidden) {
      const hit = typeof f === 'string' ? text.includes(f) : f.test(text);
      assert.ok(!hit, `${where} #${i} carries ${String(f)}: ${text.slice(0, 300)}`);
    }
  }
}

/** The typed reason code of a failed refresh of `category`. */
export const refreshCode = (category: FailureCategory): string => `refresh-${category.replaceAll('_', '-')}`;

/** Snapshot fields that belong to the retained generation: unchanged while an attempt fails. */
export function generationFacts(snapshotJson: string): unknown {
  const s = JSON.parse(snapshotJson) as Record<string, unknown> & { inventory: Record<string, unknown>; details: { archive_cloud: Record<string, unknown> } };
  const d = s.details.archive_cloud;
  return {
    evidence_generation: s['evidence_generation'],
    started_at: s['started_at'],
    completed_at: s['completed_at'],
    completeness: s['completeness'],
    identity: s['identity'],
    inventory: { known: s.inventory['known'], object_count: s.inventory['object_count'], stored_bytes: s.inventory['stored_bytes'], unscoped_object_count: s.inventory['unscoped_object_count'] },
    counts: [d['backup_items'], d['wal_range_items'], d['wal_gap_items'], d['recovery_path_items'], d['structurally_usable_backups'], d['backup_states'], d['wal_counts'], d['latest_archive_receipt_at']],
  };
}

export interface FaultCase {
  /** Requests the fault answers (see fault-proxy.ts's patterns). */
  readonly match: Matcher;
  readonly fault: Fault;
  readonly rule?: RuleOptions;
  /** The failure category the attempt must publish. */
  readonly category: FailureCategory;
  /**
   * Attempts the SDK makes for one request the fault answers: 3 (`attempt=1..3; max=3`) when it
   * retries, 1 when it does not.
   */
  readonly attempts: 1 | 3;
  /** The fault hits the reachability check's listing too, so `/readyz` turns 503 (spec: reachability, never the scan). */
  readonly readiness: 'lost' | 'kept';
  readonly compose?: Omit<ComposeOptions, 'proxy'>;
}

export interface FaultOutcome {
  /** Requests the fault answered, and how many logical requests they were. */
  readonly faulted: number;
  readonly invocations: number;
  /** Milliseconds the failed refresh took. */
  readonly failedRefreshMs: number;
}

/**
 * One fault, end to end: a complete generation first; then the fault, one refresh, and every
 * promise of the spec checked (category and typed reason, revision advanced, the generation
 * retained byte for byte, stale, dependent states unknown, /readyz, the SDK's attempts per
 * request, nothing of the provider's text or the store's identity in any response or log line);
 * then the fault lifted and the next refresh publishing a new generation.
 */
export async function runFaultCase(proxy: FaultProxy, c: FaultCase): Promise<FaultOutcome> {
  const sidecar = await composeSidecar({ proxy, ...c.compose });
  const responses: string[] = [];
  const keep = (r: Reply) => {
    responses.push(r.body);
    return r;
  };
  try {
    await sidecar.refresher.refreshNow();
    const healthy = sidecar.current();
    assert.deepEqual([healthy.generation, healthy.snapshot.completeness, healthy.snapshot.inventory.last_failure_category], [1, 'complete', null], 'the first scan completes');
    const before = keep(await sidecar.get('/api/v1alpha1/snapshot'));
    const pagesBefore = await sidecar.collections();
    await sidecar.readyzBecomes(200);

    proxy.clearLog();
    const rule = proxy.inject(c.match, c.fault, { name: 'fault', ...c.rule });
    const started = performance.now();
    await sidecar.refresher.refreshNow();
    const failedRefreshMs = performance.now() - started;
    assert.ok(rule.hits > 0, 'the fault answered no request');

    // The publication: a new revision of the same generation, stale, every state unknown, typed.
    const failed = sidecar.current();
    const code = refreshCode(c.category);
    assert.equal(failed.snapshot.inventory.last_failure_category, c.category, `category (reason ${failed.snapshot.reason.code})`);
    assert.deepEqual([failed.revision, failed.generation, failed.snapshot.stale, failed.snapshot.state, failed.snapshot.reason.code], [healthy.revision + 1, 1, true, 'unknown', code]);
    for (const cap of failed.snapshot.capabilities) {
      assert.equal(cap.state, 'unknown', String(cap.id));
      if (cap.support === 'supported') assert.equal(cap.reason.code, code, String(cap.id));
    }
    const details = failed.snapshot.details as unknown as { archive_cloud: Record<string, { state: string; reason: { code: string } }> };
    for (const dependent of ['wal', 'timeline', 'coverage', 'retention']) {
      assert.deepEqual([details.archive_cloud[dependent]?.state, details.archive_cloud[dependent]?.reason.code], ['unknown', code], dependent);
    }
    assert.deepEqual(failed.violations, []);

    // Served: the snapshot as published; the retained generation byte for byte in every collection.
    const during = keep(await sidecar.get('/api/v1alpha1/snapshot'));
    assert.equal(during.status, 200);
    assert.equal(during.body, failed.snapshotJson);
    assert.deepEqual(generationFacts(during.body), generationFacts(before.body), 'the facts of the generation are retained');
    const pagesDuring = await sidecar.collections();
    assert.deepEqual(withoutRevision(pagesDuring), withoutRevision(pagesBefore), 'every collection keeps the previous generation byte for byte');
    assert.ok(Object.values(pagesDuring).flat().every((b) => b.includes(`"revision":${failed.revision},"evidence_generation":1,`)));
    responses.push(...Object.values(pagesBefore).flat(), ...Object.values(pagesDuring).flat());

    // /readyz follows the lightweight reachability check, never the scan.
    if (c.readiness === 'lost') await sidecar.readyzBecomes(503);
    else assert.equal(keep(await sidecar.get('/readyz')).status, 200, 'a fault the reachability listing does not meet keeps /readyz ready');
    responses.push((await sidecar.get('/readyz')).body);

    // The SDK's attempts: each request the fault answered was tried exactly `attempts` times, never more than 3.
    const faulted = proxy.log.filter((r) => r.fault === 'fault' && scanRequest(r));
    const byInvocation = new Map<string, number[]>();
    for (const r of faulted) byInvocation.set(r.invocation ?? '?', [...(byInvocation.get(r.invocation ?? '?') ?? []), r.attempt?.n ?? 0]);
    assert.ok(byInvocation.size > 0);
    // A request still retrying when the scan gave up is canceled: it may have fewer attempts, never more.
    const complete = [...byInvocation.values()].filter((a) => a.length === c.attempts);
    assert.ok(complete.length > 0, `no request was tried ${c.attempts} times: ${JSON.stringify([...byInvocation.values()])}`);
    for (const attempts of byInvocation.values()) {
      assert.ok(attempts.length <= c.attempts, `a request was tried ${attempts.length} times`);
      assert.deepEqual(attempts, attempts.map((_, i) => i + 1));
    }
    assert.ok(proxy.log.every((r) => r.attempt === null || (r.attempt.max === 3 && r.attempt.n <= 3)), 'no request is tried more than maxAttempts (3)');

    // Nothing of the provider's answer, the store or the credentials in any response or log line.
    assertNoLeak([...responses, ...sidecar.logLines], forbiddenText(proxy), 'response or log line');

    // Lifted: the next refresh publishes a new complete generation.
    rule.lift();
    await sidecar.refresher.refreshNow();
    const recovered = sidecar.current();
    assert.deepEqual([recovered.revision, recovered.generation, recovered.snapshot.stale, recovered.snapshot.completeness, recovered.snapshot.inventory.last_failure_category], [failed.revision + 1, 2, false, 'complete', null]);
    if (c.readiness === 'lost') await sidecar.readyzBecomes(200);
    assertNoLeak([...sidecar.logLines], forbiddenText(proxy), 'log line');
    return { faulted: faulted.length, invocations: byInvocation.size, failedRefreshMs };
  } finally {
    proxy.liftAll();
    await sidecar.close();
  }
}
