/**
 * viewer's memory and CPU in its container (docs/deploy.md, "Memory and CPU"): the real image,
 * run as the base manifest runs it (user, read-only root, no capabilities, its memory and CPU
 * limits, its NODE_OPTIONS), in sidecar mode, scanning the bench corpus (bench/corpus.ts) at 100 k
 * and 1 M keys. Loading 1 M objects into Swift would take hours here, so an S3-compatible listing
 * server in this process serves the corpus (ListObjectsV2 with prefix, delimiter, start-after,
 * continuation tokens and url encoding, as S3 answers; GetObject): the sidecar's SDK parses the
 * same XML it would get from a store, so its memory is the sidecar's own.
 *
 *   node bench/pod-memory.ts [--sizes 100000,1000000] [--scans 3] [--configs manifest,cgroup-default,unlimited]
 *                            [--node-options '...' (for the configuration `custom`)]
 *
 * Configurations: `manifest` (the manifest's NODE_OPTIONS and memory limit), `cgroup-default` (the
 * limit without NODE_OPTIONS: V8 sizes its heap from the cgroup's limit), `unlimited` (no limit, no
 * flags: what `viewer scan` does on a large host), `custom` (the limit with --node-options). For each, the container's peak RSS (VmHWM of its
 * node process) and the cgroup's peak usage after each completed scan, and the CPU seconds of each
 * scan after the first (steady state, start-up excluded). Needs root, podman (test/deploy's
 * configuration) and builds the image like the deploy tests. Prints a table and writes
 * /var/tmp/viewer-bench/pod-memory.json.
 */
import { readFileSync, writeFileSync, mkdirSync, chmodSync, chownSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import { containerOf, deploymentOf, envOf, podSpecOf, quantity, render, SHARED_GID, SOCKET_DIR, STORE_DIR, TOKEN_PATH } from '../test/deploy/layout.ts';
import { podman, podmanRun, processCost, socketGet, testImage, sleep } from '../test/deploy/podman.ts';
import { Corpus, type CorpusSpec } from './corpus.ts';
import { CorpusDriver } from './corpus-driver.ts';

const BUCKET = 'viewer-bench';
const TOKEN = 'q1aKFo9oVbP3rJ7Ztl0cKjYc2yU8m1Q0xW5nA4bZr-E';
const WORK = join(process.env['VIEWER_BENCH_DIR'] ?? '/var/tmp/viewer-bench', 'pod-memory');
const MiB = 1024 ** 2;

const arg = (name: string, fallback: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? (process.argv[i + 1] ?? fallback) : fallback;
};
const sizes = arg('sizes', '100000,1000000').split(',').map(Number);
const scans = Number(arg('scans', '3'));
const configs = arg('configs', 'manifest,cgroup-default,unlimited').split(',');
const customOptions = arg('node-options', '');

const xml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const enc = (s: string) => encodeURIComponent(s).replace(/%2F/g, '/');

/** An S3 listing server over the corpus: enough of ListObjectsV2 and GetObject for the SDK. */
function s3Server(corpus: Corpus): Promise<{ url: string; close: () => void; requests: () => number }> {
  const driver = new CorpusDriver(corpus);
  const signal = new AbortController().signal;
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const path = decodeURIComponent(url.pathname);
    if (path === `/${BUCKET}` || path === `/${BUCKET}/`) {
      const q = url.searchParams;
      const token = q.get('continuation-token');
      const page = await driver.listPage({
        prefix: q.get('prefix') ?? '',
        ...(q.get('delimiter') === '/' ? { delimiter: '/' as const } : {}),
        ...(q.get('start-after') !== null ? { startAfter: q.get('start-after') as string } : {}),
        ...(token !== null ? { continuationToken: Buffer.from(token, 'base64url').toString() } : {}),
        maxKeys: Number(q.get('max-keys') ?? 1000),
        signal,
      });
      const e = q.get('encoding-type') === 'url' ? enc : (s: string) => s;
      const parts = [
        '<?xml version="1.0" encoding="UTF-8"?>\n<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">',
        `<Name>${BUCKET}</Name><Prefix>${xml(e(q.get('prefix') ?? ''))}</Prefix><KeyCount>${page.objects.length + page.prefixes.length}</KeyCount><MaxKeys>${q.get('max-keys') ?? 1000}</MaxKeys>`,
        q.get('delimiter') === '/' ? '<Delimiter>/</Delimiter>' : '',
        q.get('encoding-type') === 'url' ? '<EncodingType>url</EncodingType>' : '',
        `<IsTruncated>${page.nextToken !== null}</IsTruncated>`,
      ];
      for (const o of page.objects) {
        parts.push(`<Contents><Key>${xml(e(o.key))}</Key><LastModified>${o.lastModified?.toISOString() ?? ''}</LastModified><ETag>&quot;d41d8cd98f00b204e9800998ecf8427e&quot;</ETag><Size>${o.size}</Size><StorageClass>STANDARD</StorageClass></Contents>`);
      }
      for (const p of page.prefixes) parts.push(`<CommonPrefixes><Prefix>${xml(e(p))}</Prefix></CommonPrefixes>`);
      if (token !== null) parts.push(`<ContinuationToken>${xml(token)}</ContinuationToken>`);
      if (page.nextToken !== null) parts.push(`<NextContinuationToken>${Buffer.from(page.nextToken).toString('base64url')}</NextContinuationToken>`);
      parts.push('</ListBucketResult>');
      const body = parts.join('');
      res.writeHead(200, { 'content-type': 'application/xml', 'content-length': Buffer.byteLength(body) });
      res.end(body);
      return;
    }
    if (path.startsWith(`/${BUCKET}/`)) {
      const r = await driver.read({ key: path.slice(BUCKET.length + 2), maxBytes: 64 * MiB, signal });
      if (r.status === 'found') {
        res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': r.bytes.length });
        res.end(r.bytes);
        return;
      }
      const body = '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>NoSuchKey</Code><Message>The specified key does not exist.</Message></Error>';
      res.writeHead(404, { 'content-type': 'application/xml', 'content-length': Buffer.byteLength(body) });
      res.end(body);
      return;
    }
    res.writeHead(400).end();
  };
  const server = createServer((req, res) => void handle(req, res).catch(() => res.writeHead(500).end()));
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => {
    const a = server.address();
    resolve({ url: `http://127.0.0.1:${typeof a === 'object' && a !== null ? a.port : 0}`, close: () => server.close(), requests: () => driver.requests });
  }));
}

/** The cgroup v1 memory controller's peak for a process (page cache included), or null. */
function cgroupPeak(pid: number): number | null {
  try {
    const line = readFileSync(`/proc/${pid}/cgroup`, 'utf8').split('\n').find((l) => /:memory:/.test(l));
    if (line === undefined) return null;
    return Number(readFileSync(`/sys/fs/cgroup/memory${line.slice(line.indexOf(':memory:') + 8)}/memory.max_usage_in_bytes`, 'utf8'));
  } catch {
    return null;
  }
}

interface Row {
  keys: number;
  objects: number;
  config: string;
  node_options: string | null;
  limit_mib: number | null;
  peak_rss_mib: number[];
  cgroup_peak_mib: (number | null)[];
  scan_seconds: number[];
  cpu_seconds: number[];
  outcome: string;
  stop_ms?: number;
  stop_exit?: number;
}

async function main(): Promise<void> {
  const spec = podSpecOf(deploymentOf(render('base')));
  const viewer = containerOf(spec, 'viewer');
  const manifestEnv = envOf(viewer);
  const limit = quantity(viewer.resources?.limits?.['memory']);
  const cpus = quantity(viewer.resources?.limits?.['cpu']);
  const sc = viewer.securityContext ?? {};
  const image = testImage().tag;
  rmSync(WORK, { recursive: true, force: true });
  mkdirSync(join(WORK, 'socket'), { recursive: true });
  chmodSync(WORK, 0o755);
  mkdirSync(join(WORK, 'store'));
  const shared = (p: string, mode: number) => {
    chownSync(p, 0, SHARED_GID);
    chmodSync(p, mode);
  };
  writeFileSync(join(WORK, 'token'), TOKEN);
  shared(join(WORK, 'token'), 0o440);
  for (const f of ['access-key-id', 'secret-access-key']) {
    writeFileSync(join(WORK, 'store', f), 'bench\n');
    shared(join(WORK, 'store', f), 0o440);
  }
  shared(join(WORK, 'store'), 0o750);
  shared(join(WORK, 'socket'), 0o2770);
  const rows: Row[] = [];

  for (const keys of sizes) {
    const corpusSpec: CorpusSpec = { root: 'bench/main/', segments: keys, seed: 20261123 };
    const corpus = new Corpus(corpusSpec);
    const store = await s3Server(corpus);
    for (const config of configs) {
      const env: Record<string, string> = {
        ...manifestEnv,
        DESTINATION_PATH: `s3://${BUCKET}/bench`,
        ARCHIVE_SERVER_NAMES: 'main',
        STORE_ENDPOINT_URL: store.url,
        REFRESH_INTERVAL_SECONDS: '10',
        SCAN_TIMEOUT_SECONDS: '600',
      };
      if (config === 'custom') env['NODE_OPTIONS'] = customOptions;
      else if (config !== 'manifest') delete env['NODE_OPTIONS'];
      const name = `viewer-pod-memory-${process.pid}`;
      podmanRun(['rm', '-f', '-t', '0', name]);
      const flags = ['--user', `${sc.runAsUser}:${sc.runAsGroup}`, '--group-add', String(SHARED_GID), '--read-only', '--read-only-tmpfs=false', '--cap-drop=ALL', '--security-opt', 'no-new-privileges', '--network', 'host', '--cpus', String(cpus)];
      if (config !== 'unlimited') flags.push('--memory', String(limit), '--memory-swap', String(limit));
      podman(['run', '-d', '--name', name, ...flags, '-v', `${join(WORK, 'socket')}:${SOCKET_DIR}`, '-v', `${join(WORK, 'token')}:${TOKEN_PATH}:ro`,
        '-v', `${join(WORK, 'store')}:${STORE_DIR}:ro`, ...Object.entries(env).flatMap(([k, v]) => ['-e', `${k}=${v}`]), image]);
      const pid = (JSON.parse(podman(['container', 'inspect', name])) as [{ State: { Pid: number } }])[0].State.Pid;
      const row: Row = { keys, objects: corpus.size, config, node_options: env['NODE_OPTIONS'] ?? null, limit_mib: config === 'unlimited' ? null : limit / MiB, peak_rss_mib: [], cgroup_peak_mib: [], scan_seconds: [], cpu_seconds: [], outcome: 'ok' };
      let generation = 0;
      let lastCpu = processCost(pid).cpuSeconds;
      let lastAt = Date.now();
      const deadline = Date.now() + scans * 240_000;
      while (generation < scans && Date.now() < deadline) {
        await sleep(100);
        const state = (JSON.parse(podman(['container', 'inspect', name])) as [{ State: { Status: string; OOMKilled: boolean; ExitCode: number } }])[0].State;
        if (state.Status !== 'running') {
          row.outcome = state.OOMKilled ? 'OOM-killed' : `exited ${state.ExitCode}`;
          break;
        }
        const r = await socketGet(join(WORK, 'socket', 'evidence.sock'), '/api/v1alpha1/snapshot', TOKEN).catch(() => null);
        const snap = r?.status === 200 ? (r.body as { evidence_generation: number; inventory: { objects?: number | null } }) : null;
        if (snap === null || snap.evidence_generation <= generation) continue;
        generation = snap.evidence_generation;
        const cost = processCost(pid);
        const cg = cgroupPeak(pid);
        row.peak_rss_mib.push(Math.round((cost.peakRssKiB / 1024) * 10) / 10);
        row.cgroup_peak_mib.push(cg === null ? null : Math.round((cg / MiB) * 10) / 10);
        row.cpu_seconds.push(Math.round((cost.cpuSeconds - lastCpu) * 100) / 100);
        row.scan_seconds.push(Math.round((Date.now() - lastAt) / 100) / 10);
        lastCpu = cost.cpuSeconds;
        lastAt = Date.now();
        process.stderr.write(`${keys} keys, ${config}: generation ${generation}, peak RSS ${row.peak_rss_mib.at(-1)} MiB, cgroup peak ${row.cgroup_peak_mib.at(-1)} MiB, ${row.cpu_seconds.at(-1)} CPU s\n`);
      }
      if (generation < scans && row.outcome === 'ok') row.outcome = `only ${generation} scans in time`;
      // SIGTERM in the middle of the next scan (at 1 M keys one follows another): the scan is
      // cancelled, the API drained, the socket removed, exit 0, well within the grace period.
      if (row.outcome === 'ok') {
        const stopping = Date.now();
        podman(['stop', '-t', '30', name]);
        const exit = (JSON.parse(podman(['container', 'inspect', name])) as [{ State: { ExitCode: number } }])[0].State.ExitCode;
        row.stop_ms = Date.now() - stopping;
        row.stop_exit = exit;
        process.stderr.write(`${keys} keys, ${config}: SIGTERM to exit ${exit} in ${row.stop_ms} ms\n`);
      }
      const logs = podmanRun(['logs', name]);
      if (!/"generation":\d+/.test(logs.stdout)) process.stderr.write(logs.stdout.slice(-2000) + logs.stderr.slice(-2000));
      podmanRun(['rm', '-f', '-t', '0', name]);
      rows.push(row);
    }
    store.close();
  }
  writeFileSync(join(WORK, '..', 'pod-memory.json'), `${JSON.stringify({ date: new Date().toISOString(), cpus: (await import('node:os')).cpus().length, rows }, null, 2)}\n`);
  process.stdout.write('| keys | objects | configuration | limit MiB | peak RSS MiB (after each scan) | cgroup peak MiB | CPU s per scan (2nd on) | SIGTERM to exit | outcome |\n|---|---|---|---|---|---|---|---|---|\n');
  for (const r of rows) {
    process.stdout.write(`| ${r.keys} | ${r.objects} | ${r.config}${r.node_options === null ? '' : ` (\`${r.node_options}\`)`} | ${r.limit_mib ?? 'none'} | ${r.peak_rss_mib.join(', ')} | ${r.cgroup_peak_mib.join(', ')} | ${r.cpu_seconds.slice(1).join(', ')} | ${r.stop_ms === undefined ? '' : `${r.stop_ms} ms, exit ${r.stop_exit}`} | ${r.outcome} |\n`);
  }
}

await main();
