/**
 * The processes of the consumer figures (bench/consumer.ts drives them over an IPC channel):
 *   serve     the sidecar's evidence API (createEvidenceApi, the sidecar's handler, limits, logger
 *             at the default level and socket binding) over a publication of about 10,000 items
 *             the real scanner built from a synthetic barman-cloud archive in a MemoryStore: about
 *             5,000 single missing segments make about 5,000 gaps and 5,000 ranges, beside a few
 *             backups and their recovery paths. Prints `ready <JSON>` (its fingerprint, server and
 *             counts) on stderr once listening; answers every `cpu` message with its own `process.cpuUsage()`.
 *   assemble  the consumer library: one warm-up assembly, then, when told `go`, one measured
 *             assembly (readSnapshot, then assembleProjection at limit 200: every page validated
 *             against the schemas). Needs --expose-gc. Reports the wall time, the peak heap used
 *             during the assembly above the heap used (after a full collection) before it, taken
 *             from V8's GC profiler (heap used only grows between collections, so its peak is the
 *             heap used just before one of them or at the end), and the heap the finished
 *             projection retains (heap used after a full collection with it alive, minus the same
 *             once it is dropped).
 *   bare      the same requests in the same order as the library (a connection each, the same
 *             headers and query), each body only parsed to follow `next_cursor`: no validation,
 *             nothing kept. One warm-up walk, then one measured walk when told `go`.
 *
 * Imported only for its message type (importing it runs it).
 *
 * Usage: node bench/consumer-child.ts serve <socket> <token file> <gaps> <backups>
 *        node --expose-gc bench/consumer-child.ts assemble <socket> <token file> <fingerprint> <server>
 *        node bench/consumer-child.ts bare <socket> <token file>
 */
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { GCProfiler } from 'node:v8';
import { assembleProjection, readSnapshot } from '../src/client/assembly.ts';
import type { Projection } from '../src/client/projection.ts';
import { unixSocketTransport } from '../src/client/transport.ts';
import { PRODUCER_VERSION, standaloneCluster } from '../src/cli/identity.ts';
import { createLogger } from '../src/common/log.ts';
import { MEDIA_TYPE } from '../src/contract/values.ts';
import { COLLECTIONS, SNAPSHOT_PATH } from '../src/contract/routes.ts';
import { BudgetMeter } from '../src/evidence/listing.ts';
import { scanScope } from '../src/evidence/scope-scan.ts';
import { archiveCloud } from '../src/format/barman-cloud/format.ts';
import { SyntheticRepository } from '../src/format/barman-cloud/synthetic-repository.ts';
import { Publisher } from '../src/publication/publisher.ts';
import { confine } from '../src/store/confined.ts';
import { MemoryStore } from '../src/store/memory/memory-driver.ts';
import { createEvidenceApi } from '../src/surface/api/evidence-api.ts';
import { listenOnSocket } from '../src/surface/api/socket.ts';

const CONSUMER_SERVER = 'pg-bench';
const CONSUMER_FINGERPRINT = `sha256:${'c'.repeat(64)}`;
const PAGE_LIMIT = 200;

/** What the children say over the IPC channel. */
export type ChildMessage =
  | { readonly type: 'ready' }
  | { readonly type: 'cpu'; readonly user_us: number; readonly system_us: number }
  | { readonly type: 'done'; readonly ms: number; readonly requests: number; readonly items: Record<string, number> }
  | { readonly type: 'heap'; readonly cold_ms: number; readonly baseline_bytes: number; readonly peak_above_baseline_bytes: number; readonly retained_bytes: number; readonly collections_during: number };

const [role, socketPath, tokenFile, a, b] = process.argv.slice(2);
if (!['serve', 'assemble', 'bare'].includes(role ?? '') || socketPath === undefined || tokenFile === undefined || process.send === undefined) {
  process.stderr.write('usage (with an IPC channel): consumer-child.ts serve <socket> <token file> <gaps> <backups> | assemble <socket> <token file> <fingerprint> <server> | bare <socket> <token file>\n');
  process.exit(64);
}
const send = (m: ChildMessage) => process.send?.(m);
const token = readFileSync(tokenFile, 'utf8').trim();
/** The next message from the parent (the driver sends `go` and `cpu` only). */
const next = () => new Promise<unknown>((resolve) => process.once('message', resolve));

async function serve(gaps: number, backups: number): Promise<void> {
  const store = new MemoryStore();
  const root = `bench/${CONSUMER_SERVER}/`;
  const repo = new SyntheticRepository(store, root);
  // Received one minute apart, ending an hour ago: every gap is long settled.
  const last = 10 + 2 * gaps;
  const t0 = Date.now() - 3_600_000 - last * 60_000;
  for (let p = 1; p <= last; p++) if (!(p >= 10 && p < 10 + 2 * gaps && p % 2 === 0)) repo.segment(1, p, new Date(t0 + p * 60_000));
  for (let i = 0; i < backups; i++) repo.backup({ id: `20261121T${String(i).padStart(6, '0')}`, timeline: 1, beginPosition: 2 + i, endPosition: 2 + i, beginTime: new Date(t0 + (2 + i) * 60_000), endTime: new Date(t0 + (2 + i) * 60_000 + 500) });
  const publisher = new Publisher(
    { cluster: standaloneCluster, provider: 'store-a', fingerprint: CONSUMER_FINGERPRINT, server: CONSUMER_SERVER, producerVersion: PRODUCER_VERSION, format: archiveCloud },
    { policyText: null, policy: null, minimumRedundancy: null },
    24 * 3600_000, // fresh for a day: the publication must not turn stale while the bench runs
  );
  const meter = new BudgetMeter({ maxPages: 1e9, maxObjects: 1e12 });
  const startedAt = new Date();
  const e = await scanScope({ format: archiveCloud, server: CONSUMER_SERVER, root, driver: confine(store, root), signal: new AbortController().signal, meter, concurrency: 8, ...publisher.nextScan });
  const publication = publisher.complete(e, { startedAt, finishedAt: new Date(), pages: meter.pages, objects: meter.objects });
  if (publication.violations.length > 0) throw new Error('the consumer bench publication is invalid');
  // The sidecar's default log level: one request line per request (to the file the driver gave as stdout).
  const server = createEvidenceApi({ token, publication: () => publication, ready: () => true, logger: createLogger('info') });
  await listenOnSocket(server, socketPath as string);
  process.on('message', () => {
    const c = process.cpuUsage();
    send({ type: 'cpu', user_us: c.user, system_us: c.system });
  });
  process.on('disconnect', () => {
    server.close();
    server.closeAllConnections();
  });
  const counts = { fingerprint: CONSUMER_FINGERPRINT, server: CONSUMER_SERVER, objects: e.objectCount, backups: publication.backups.length, 'wal-ranges': publication.walRanges.length, 'wal-gaps': publication.walGaps.length, 'recovery-paths': publication.recoveryPaths.length };
  process.stderr.write(`ready ${JSON.stringify(counts)}\n`);
}

const ms = (t0: bigint) => Number(process.hrtime.bigint() - t0) / 1e6;

async function assemble(fingerprint: string, server: string): Promise<void> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) throw new Error('consumer-child.ts assemble needs --expose-gc');
  // A turn of the event loop first, so finished async frames hold nothing of the last walk.
  const collect = async () => {
    await new Promise((resolve) => setTimeout(resolve, 10));
    gc();
    gc();
    return process.memoryUsage().heapUsed;
  };
  let requests = 0;
  const inner = unixSocketTransport({ socketPath: socketPath as string, token });
  const transport: typeof inner = (path, signal) => {
    requests += 1;
    return inner(path, signal);
  };
  const walk = async () => {
    const signal = new AbortController().signal;
    const read = await readSnapshot(transport, { fingerprint, server }, signal);
    return assembleProjection(transport, read, signal, { limit: PAGE_LIMIT });
  };
  const t = process.hrtime.bigint();
  await walk();
  const coldMs = ms(t);
  const baseline = await collect();
  send({ type: 'ready' });
  await next();
  requests = 0;
  const profiler = new GCProfiler();
  profiler.start();
  const t0 = process.hrtime.bigint();
  // Only the box refers to the projection, so emptying it really drops it before the last count.
  const box: { held: Projection | null } = { held: await walk() };
  const wall = ms(t0);
  const atEnd = process.memoryUsage().heapUsed;
  const profile = profiler.stop();
  const items = Object.fromEntries(
    COLLECTIONS.map((k) => {
      const c = box.held?.collections[k.route];
      return [k.route, c?.known === true ? c.items.length : -1];
    }),
  );
  send({ type: 'done', ms: wall, requests, items });
  const before = profile?.statistics.map((s) => s.beforeGC.heapStatistics.usedHeapSize) ?? [];
  const peak = Math.max(atEnd, ...before);
  const withProjection = await collect();
  box.held = null;
  const without = await collect();
  send({ type: 'heap', cold_ms: coldMs, baseline_bytes: baseline, peak_above_baseline_bytes: peak - baseline, retained_bytes: withProjection - without, collections_during: before.length });
}

function get(path: string): Promise<{ status: number; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = request({ socketPath, path, method: 'GET', agent: false, headers: { Authorization: `Bearer ${token}`, Accept: MEDIA_TYPE, Host: 'sidecar' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

async function bare(): Promise<void> {
  const walk = async () => {
    let requests = 1;
    const snapshot = await get(SNAPSHOT_PATH);
    if (snapshot.status !== 200) throw new Error(`snapshot: HTTP ${snapshot.status}`);
    const revision = (JSON.parse(snapshot.body.toString('utf8')) as { revision: number }).revision;
    const items: Record<string, number> = {};
    for (const c of COLLECTIONS) {
      let cursor: string | null = null;
      let n = 0;
      do {
        const r = await get(`${c.path}?revision=${revision}&limit=${PAGE_LIMIT}${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`);
        requests += 1;
        if (r.status !== 200) throw new Error(`${c.route}: HTTP ${r.status}`);
        const page = JSON.parse(r.body.toString('utf8')) as { items: unknown[]; next_cursor: string | null };
        n += page.items.length;
        cursor = page.next_cursor;
      } while (cursor !== null);
      items[c.route] = n;
    }
    return { requests, items };
  };
  await walk();
  send({ type: 'ready' });
  await next();
  const t0 = process.hrtime.bigint();
  const r = await walk();
  send({ type: 'done', ms: ms(t0), ...r });
}

if (role === 'serve') await serve(Number(a), Number(b));
else if (role === 'assemble') await assemble(a as string, b as string);
else await bare();
if (role !== 'serve') process.disconnect();
