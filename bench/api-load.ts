/**
 * The API figures' client, in its own process: `load` runs a fixed number of GETs of one path
 * through C concurrent keep-alive connections on a Unix socket and prints requests per second and
 * latency percentiles; `page` walks every page of a collection at one revision (following
 * next_cursor) and prints the items seen, the pages and the time. Any response other than 200 is
 * counted and makes the run fail: a fast error is not a result.
 *
 * Usage: node bench/api-load.ts load <socket> <token file|-> <path> <requests> <concurrency>
 *        node bench/api-load.ts page <socket> <token file> <collection> <limit>
 */
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';

const [mode, socketPath, tokenFile, path, a, b] = process.argv.slice(2);
if ((mode !== 'load' && mode !== 'page') || socketPath === undefined || tokenFile === undefined || path === undefined) {
  process.stderr.write('usage: api-load.ts load <socket> <token file|-> <path> <requests> <concurrency> | page <socket> <token file> <collection> <limit>\n');
  process.exit(64);
}
const headers: Record<string, string> = tokenFile === '-' ? {} : { authorization: `Bearer ${readFileSync(tokenFile, 'utf8').trim()}` };
const agent = new Agent({ keepAlive: true, maxSockets: 64 });

/** A GET whose body is only counted: the load's client does as little as it can per response. */
function hit(p: string): Promise<{ status: number; bytes: number }> {
  return new Promise((resolve, reject) => {
    const req = request({ socketPath, path: p, headers, agent }, (res) => {
      let bytes = 0;
      res.on('data', (c: Buffer) => (bytes += c.byteLength));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

function get(p: string): Promise<{ status: number; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = request({ socketPath, path: p, headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

async function load(p: string, total: number, concurrency: number) {
  const latencies: number[] = [];
  let failed = 0;
  let issued = 0;
  // A short warm-up: connections open and the server's code paths compiled before the clock runs.
  const expected = (await Promise.all(Array.from({ length: concurrency }, () => hit(p))))[0]?.bytes ?? 0;
  const t0 = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (issued < total) {
        issued += 1;
        const s = process.hrtime.bigint();
        const r = await hit(p);
        latencies.push(Number(process.hrtime.bigint() - s) / 1e6);
        if (r.status !== 200 || r.bytes !== expected) failed += 1;
      }
    }),
  );
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  latencies.sort((x, y) => x - y);
  const pct = (q: number) => latencies[Math.min(latencies.length - 1, Math.ceil(q * latencies.length) - 1)] ?? NaN;
  return { requests: latencies.length, failed, rps: latencies.length / seconds, p50_ms: pct(0.5), p99_ms: pct(0.99), max_ms: latencies.at(-1) ?? NaN };
}

async function walk(collection: string, limit: number) {
  const snapshot = await get('/api/v1alpha1/snapshot');
  if (snapshot.status !== 200) throw new Error(`snapshot: HTTP ${snapshot.status}`);
  const revision = (JSON.parse(snapshot.body.toString()) as { revision: number }).revision;
  const t0 = process.hrtime.bigint();
  let items = 0;
  let pages = 0;
  let cursor: string | null = null;
  do {
    const q: string = cursor === null ? `revision=${revision}&limit=${limit}` : `revision=${revision}&cursor=${encodeURIComponent(cursor)}`;
    const r = await get(`/api/v1alpha1/${collection}?${q}`);
    if (r.status !== 200) throw new Error(`${collection} page ${pages + 1}: HTTP ${r.status}`);
    const page = JSON.parse(r.body.toString()) as { items: unknown[]; next_cursor: string | null; total_items: number };
    items += page.items.length;
    pages += 1;
    cursor = page.next_cursor;
  } while (cursor !== null);
  return { items, pages, ms: Number(process.hrtime.bigint() - t0) / 1e6 };
}

const result = mode === 'load' ? await load(path, Number(a), Number(b)) : await walk(path, Number(a));
agent.destroy();
process.stdout.write(`${JSON.stringify(result)}\n`);
