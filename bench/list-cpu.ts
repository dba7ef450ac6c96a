/**
 * `node bench/list-cpu.ts [--quick] [--rounds=N] [--synthetic=<segments>] [--base-viewer=<bin/viewer.js>] [--viewer=<bin/viewer.js of a build to compare>]`:
 * the client's CPU for listing the bench corpus (issue 28), whole processes as the user runs them.
 *
 * Cases, each its own process under GNU time (user + sys CPU and peak RSS, start-up included):
 * - `start`: node importing the SDK client and viewer's list command, listing nothing (the floor
 *   every listing process pays before its first key);
 * - `sdk`: one flat ListObjectsV2 loop over the corpus's scope with the SDK's own command and
 *   parser, each page's objects turned into `StoreObject`s as s3-driver.ts does today;
 * - `viewer`: the same loop with `ViewerListObjectsV2Command` (list-command.ts, viewer's parser);
 *   the same client, the SDK's logger middleware removed in both (as the driver does);
 * - `floor`: bench/floor-list.ts, the same loop in a process of its own without the SDK's stack
 *   (SigV4, node:http, viewer's parser; Node's compile cache on, as the executable has it): the
 *   floor under `viewer` for any Node.js client;
 * - `bare`: bench/bare-list.ts flat, the floor `npm run bench` compares the scan with;
 * - `scan`: `node bin/viewer.js scan` (or the `--base-viewer` given) on the corpus with default flags, checked against the corpus
 *   generator's truth (objects, bytes, WAL counts, gaps) as bench/run.ts does;
 * - `scan_cold`: the same with Node's compile cache disabled (`NODE_DISABLE_COMPILE_CACHE=1`): the
 *   first run after an install or an upgrade, which `scan` (the executable keeps the cache in the
 *   user's cache directory) pays once;
 * - `refresh`: a long-running viewer (standalone; the sidecar refreshes with the same code) whose
 *   CPU per refresh is read from /proc between two published generations, after two warm-up
 *   refreshes: what a sidecar or a standalone spends each interval, start-up excluded;
 * - `scan_new`: the same with `--viewer=<path>` (a copy of viewer whose S3 driver uses the new
 *   command), when given.
 * The parts of a scan, for the sum that bounds what any change of viewer's code can reach (not with `--root`):
 * - `node`: Node.js starting and exiting;
 * - `sdk_import`: bench/sdk-import.ts, Node loading the SDK's S3 client, credential chain and HTTP
 *   handler (compile cache on), nothing else;
 * - `empty_scan`: `viewer scan` of a prefix that holds nothing: start-up, configuration, the SDK
 *   client, discovery's requests and the output, every cost a scan pays before its first key;
 * - `evidence`: bench/inprocess-scan.ts on the same corpus with its keys built before the clock:
 *   scanScope and the publisher, the CPU of the code after the store driver;
 * - the `viewer` and `floor` cases also report their listing loop's own CPU (`loopCpuMs`), start-up
 *   excluded: the difference is the SDK's stack per request.
 * The cases run round-robin, the order rotating each round, each ratio paired within its round,
 * and every figure is the median over the rounds with the lowest and highest beside it (the
 * method of docs/performance.md; these machines drift by a third within an hour).
 *
 * `--synthetic=<segments>` lists a corpus of that many segments served by bench/synthetic-s3.ts
 * (generated on demand, never stored; the server runs in this process, whose CPU no case counts)
 * instead of the Swift store: the same figures at 1 M keys without loading a million objects.
 *
 * `--root=<prefix>` runs only the listing cases (start, sdk, viewer, bare) over every key already
 * in the bench store under that prefix (another bench's corpus, e.g. `bench-fleet/`), without
 * loading the corpus: the parser figures without the 10-minute load.
 *
 * Child mode (used by the parent): `node bench/list-cpu.ts child <start|sdk|viewer> <endpoint> <bucket> <root>`.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { Corpus, STORE_CORPORA } from './corpus.ts';
import { ACCESS_KEY_ID, BENCH_DIR, BUCKET, ENDPOINT, SECRET_ACCESS_KEY, client, ensureStore, loadCorpus } from './s3.ts';
import { cpuSeconds, statusBytes } from './proc.ts';
import { startSyntheticS3, type SyntheticS3 } from './synthetic-s3.ts';
import { compareTruth } from './truth.ts';
import { ViewerListObjectsV2Command } from '../src/store/s3/list-command.ts';
import { listedName } from '../src/store/s3/listing-names.ts';
import type { StoreObject } from '../src/store/driver.ts';
import type { WalCounts } from '../src/evidence/wal-archive.ts';

const HERE = import.meta.dirname;
const NODE = process.execPath;

async function child(mode: string, endpoint: string, bucket: string, root: string): Promise<void> {
  if (mode === 'start') {
    process.stdout.write(`${JSON.stringify({ keys: 0, loaded: typeof ListObjectsV2Command === 'function' && typeof ViewerListObjectsV2Command === 'function' })}\n`);
    return;
  }
  const s3 = client(endpoint);
  s3.middlewareStack.remove('loggerMiddleware');
  let keys = 0;
  let bytes = 0;
  let token: string | undefined;
  const cpu0 = process.cpuUsage();
  do {
    const input = { Bucket: bucket, Prefix: root, MaxKeys: 1000, EncodingType: 'url' as const, ...(token === undefined ? {} : { ContinuationToken: token }) };
    let objects: readonly StoreObject[];
    if (mode === 'sdk') {
      const out = await s3.send(new ListObjectsV2Command(input));
      // What s3-driver.ts does with the SDK's output.
      objects = (out.Contents ?? []).flatMap((o) => (o.Key === undefined ? [] : [{ key: listedName(o.Key, out.EncodingType), size: o.Size ?? Number.NaN, lastModified: o.LastModified ?? null }]));
      token = out.IsTruncated === true ? out.NextContinuationToken : undefined;
    } else {
      const command = new ViewerListObjectsV2Command(input);
      await s3.send(command);
      objects = command.listing.objects;
      token = command.listing.nextContinuationToken ?? undefined;
    }
    keys += objects.length;
    for (const o of objects) bytes += o.size;
  } while (token !== undefined);
  const cpu = process.cpuUsage(cpu0);
  s3.destroy();
  process.stdout.write(`${JSON.stringify({ keys, bytes, loopCpuMs: (cpu.user + cpu.system) / 1000 })}\n`);
}

interface Measured {
  readonly wall: number;
  readonly cpu: number;
  readonly rssMiB: number;
  readonly stdout: string;
  readonly stderr: string;
  readonly status: number | null;
}

/** Runs one process under GNU time: wall, user + sys CPU and peak RSS of that process. */
function timed(args: readonly string[], env: Record<string, string>, dir: string): Promise<Measured> {
  const report = join(dir, 'time.txt');
  return new Promise((resolve, reject) => {
    const p = spawn('/usr/bin/time', ['-f', '%e %U %S %M', '-o', report, ...args], { env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '/root', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    p.stdout.on('data', (c: Buffer) => out.push(c));
    p.stderr.on('data', (c: Buffer) => err.push(c));
    p.on('error', reject);
    p.on('close', (status) => {
      const [wall = NaN, user = NaN, sys = NaN, rssKiB = NaN] = readFileSync(report, 'utf8').trim().split('\n').at(-1)?.split(' ').map(Number) ?? [];
      resolve({ wall, cpu: user + sys, rssMiB: rssKiB / 1024, stdout: Buffer.concat(out).toString(), stderr: Buffer.concat(err).toString(), status });
    });
  });
}

/** Refreshes a long-running viewer completes before the ones measured: the first scans warm the JIT. */
const REFRESH_WARM_UP = 2;
const REFRESHES_MEASURED = 3;

/**
 * A long-running viewer (standalone, as it starts without a command; the sidecar's refresher is
 * the same code, cli/scope-wiring.ts) refreshing every 10 s: the CPU between two published
 * generations, read from /proc at each `published` log line, for the refreshes after the warm-up.
 * `cpu` is their median and `rssMiB` the process's peak; the wall time is not measured.
 */
function refreshes(viewer: string, env: Record<string, string>): Promise<Measured & { readonly perRefresh: readonly number[] }> {
  return new Promise((resolve, reject) => {
    const p = spawn(NODE, [viewer], { env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '/root', LISTEN_ADDR: '127.0.0.1:0', REFRESH_INTERVAL_SECONDS: '10', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    const pid = p.pid ?? fail('the long-running viewer did not start');
    const at = new Map<number, number>();
    let pending = '';
    let stderr = '';
    let peak = 0;
    const done = () => {
      peak = statusBytes(pid, 'VmHWM') / 2 ** 20;
      p.kill('SIGTERM');
    };
    p.stdout.on('data', (chunk: Buffer) => {
      pending += chunk.toString();
      for (let i = pending.indexOf('\n'); i >= 0; i = pending.indexOf('\n')) {
        const line = pending.slice(0, i);
        pending = pending.slice(i + 1);
        const generation = Number(/"generation":(\d+),.*"msg":"published"/.exec(line)?.[1] ?? NaN);
        if (!Number.isInteger(generation) || at.has(generation)) continue;
        at.set(generation, cpuSeconds(pid));
        if (generation === 1 + REFRESH_WARM_UP + REFRESHES_MEASURED) done();
      }
    });
    p.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    p.on('error', reject);
    p.on('close', () => {
      const perRefresh = Array.from({ length: REFRESHES_MEASURED }, (_, i) => (at.get(2 + REFRESH_WARM_UP + i) ?? NaN) - (at.get(1 + REFRESH_WARM_UP + i) ?? NaN));
      if (!perRefresh.every(Number.isFinite)) fail(`the long-running viewer published generations ${[...at.keys()].join(', ')} only: ${stderr.trim().slice(-300)}`);
      resolve({ wall: NaN, cpu: median(perRefresh), rssMiB: peak, stdout: '', stderr, status: 0, perRefresh });
    });
  });
}

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
}

const log = (line: string) => process.stdout.write(`${line}\n`);
const fail = (line: string): never => {
  process.stderr.write(`list-cpu: ${line}\n`);
  process.exit(1);
};

async function main(): Promise<void> {
  const quick = process.argv.includes('--quick');
  const rounds = Number(process.argv.find((a) => a.startsWith('--rounds='))?.slice('--rounds='.length) ?? (quick ? 3 : 5));
  const patched = process.argv.find((a) => a.startsWith('--viewer='))?.slice('--viewer='.length);
  const base = process.argv.find((a) => a.startsWith('--base-viewer='))?.slice('--base-viewer='.length) ?? join(HERE, '..', 'bin', 'viewer.js');
  const only = process.argv.find((a) => a.startsWith('--root='))?.slice('--root='.length);
  const syntheticText = process.argv.find((a) => a.startsWith('--synthetic='))?.slice('--synthetic='.length);
  const synthetic = syntheticText === undefined ? undefined : Number(syntheticText);
  if (synthetic !== undefined && (!Number.isInteger(synthetic) || synthetic < 1000 || only !== undefined)) fail('--synthetic=<segments> takes a whole number of at least 1000, without --root');
  const spec = synthetic !== undefined ? { ...STORE_CORPORA.full, segments: synthetic } : quick ? STORE_CORPORA.quick : STORE_CORPORA.full;
  log(`list-cpu${quick ? ' --quick' : ''}: ${new Date().toISOString()}, ${cpus().length} cores, load ${loadavg()[0]?.toFixed(2)}, node ${process.version}`);
  let truth: { readonly objects: number } & Partial<Corpus['truth']>;
  let root: string = spec.root;
  let server: SyntheticS3 | null = null;
  let endpoint = ENDPOINT;
  if (synthetic !== undefined) {
    const corpus = new Corpus(spec);
    server = await startSyntheticS3(corpus);
    endpoint = server.endpoint;
    truth = corpus.truth;
    log(`corpus: ${truth.objects} objects served by bench/synthetic-s3.ts on ${endpoint} (not stored; its CPU is not counted)`);
  } else if (only === undefined) {
    ensureStore(log);
    const corpus = new Corpus(spec);
    const loaded = await loadCorpus(corpus, log);
    truth = corpus.truth;
    log(`corpus: ${truth.objects} objects in s3://${BUCKET}/${spec.root}${loaded > 0 ? `, loaded in ${loaded.toFixed(0)} s` : ', already loaded'}`);
  } else {
    ensureStore(log);
    root = only;
    const r = await timed([NODE, join(HERE, 'bare-list.ts'), 'flat', ENDPOINT, BUCKET, root], {}, tmpdir());
    truth = { objects: r.status === 0 ? (JSON.parse(r.stdout) as { keys: number }).keys : fail(`cannot list ${root}`) };
    log(`listing only: ${truth.objects} keys already in s3://${BUCKET}/${root}`);
  }
  const dir = mkdtempSync(join(tmpdir(), 'viewer-list-cpu-'));
  try {
    writeFileSync(join(dir, 'id'), `${ACCESS_KEY_ID}\n`);
    writeFileSync(join(dir, 'secret'), `${SECRET_ACCESS_KEY}\n`);
    const self = join(HERE, 'list-cpu.ts');
    const listing = (mode: string) => async () => {
      const r = await timed([NODE, self, 'child', mode, endpoint, BUCKET, root], {}, dir);
      const keys = r.status === 0 ? (JSON.parse(r.stdout) as { keys: number }).keys : -1;
      if (keys !== (mode === 'start' ? 0 : truth.objects)) fail(`${mode} listed ${keys} keys, the corpus has ${truth.objects}: ${r.stderr.trim().slice(-300)}`);
      return r;
    };
    const bare = async () => {
      const r = await timed([NODE, join(HERE, 'bare-list.ts'), 'flat', endpoint, BUCKET, root], {}, dir);
      const keys = r.status === 0 ? (JSON.parse(r.stdout) as { keys: number }).keys : -1;
      if (keys !== truth.objects) fail(`bare flat listing saw ${keys} keys, the corpus has ${truth.objects}`);
      return r;
    };
    /** viewer's configuration for the corpus's scope, or for `server` under `destination` (the store's credentials from files). */
    const viewerEnv = (destination = `s3://${BUCKET}/${spec.root.split('/')[0]}`, server = spec.root.split('/')[1] as string) => ({
      DESTINATION_PATH: destination,
      ARCHIVE_SERVER_NAMES: server,
      STORE_ENDPOINT_URL: endpoint,
      STORE_ACCESS_KEY_ID_FILE: join(dir, 'id'),
      STORE_SECRET_ACCESS_KEY_FILE: join(dir, 'secret'),
    });
    const scan = (viewer: string, cold = false) => async () => {
      const r = await timed([NODE, viewer, 'scan'], { ...(cold ? { NODE_DISABLE_COMPILE_CACHE: '1' } : {}), ...viewerEnv() }, dir);
      if (r.status !== 0) fail(`${viewer} scan exited ${String(r.status)}: ${r.stderr.trim().slice(-300)}`);
      const doc = JSON.parse(r.stdout) as {
        snapshot: { inventory: { object_count: number | null; stored_bytes: number | null }; details: { archive_cloud?: { wal_counts: WalCounts | null } } };
        wal_gaps: { timeline: number; first_wal: string; last_wal: string }[];
      };
      const check = compareTruth(truth as Corpus['truth'], { objects: doc.snapshot.inventory.object_count, bytes: doc.snapshot.inventory.stored_bytes, walCounts: doc.snapshot.details.archive_cloud?.wal_counts ?? null, gaps: doc.wal_gaps });
      if (check !== 'ok') fail(`${viewer} scan disagrees with the corpus: ${check}`);
      return r;
    };
    const refresh = (viewer: string) => () => refreshes(viewer, viewerEnv());
    const compileCache = { NODE_COMPILE_CACHE: join(BENCH_DIR, 'compile-cache') };
    const parts: Record<string, () => Promise<Measured>> = {
      node: () => timed([NODE, '-e', ''], {}, dir),
      sdk_import: async () => {
        const r = await timed([NODE, join(HERE, 'sdk-import.ts')], compileCache, dir);
        if (r.status !== 0) fail(`sdk-import.ts exited ${String(r.status)}: ${r.stderr.trim().slice(-300)}`);
        return r;
      },
      empty_scan: async () => {
        const r = await timed([NODE, base, 'scan'], viewerEnv(`s3://${BUCKET}/list-cpu-nothing-here`, 'main'), dir);
        const objects = r.status === 0 ? (JSON.parse(r.stdout) as { snapshot: { inventory: { object_count: number | null } } }).snapshot.inventory.object_count : -1;
        if (objects !== 0) fail(`the empty scan exited ${String(r.status)} with ${String(objects)} objects: ${r.stderr.trim().slice(-300)}`);
        return r;
      },
      evidence: async () => {
        const r = await timed([NODE, '--expose-gc', join(HERE, 'inprocess-scan.ts'), String(spec.segments), String(spec.seed), '8', 'materialized'], {}, dir);
        const out = r.status === 0 ? (JSON.parse(r.stdout) as { keys: number; truth: string }) : null;
        if (out?.keys !== truth.objects || out.truth !== 'ok') fail(`the in-process scan disagrees with the corpus: ${r.stdout.trim().slice(-300)} ${r.stderr.trim().slice(-300)}`);
        return r;
      },
    };
    const cases: Record<string, () => Promise<Measured>> = {
      start: listing('start'),
      sdk: listing('sdk'),
      viewer: listing('viewer'),
      floor: async () => {
        const r = await timed([NODE, join(HERE, 'floor-list.ts'), endpoint, BUCKET, root], { BENCH_ACCESS_KEY_ID: ACCESS_KEY_ID, BENCH_SECRET_ACCESS_KEY: SECRET_ACCESS_KEY, NODE_COMPILE_CACHE: join(BENCH_DIR, 'compile-cache') }, dir);
        const keys = r.status === 0 ? (JSON.parse(r.stdout) as { keys: number }).keys : -1;
        if (keys !== truth.objects) fail(`the floor listing saw ${keys} keys, the corpus has ${truth.objects}: ${r.stderr.trim().slice(-300)}`);
        return r;
      },
      bare,
      ...(only === undefined ? { scan: scan(base), scan_cold: scan(base, true), refresh: refresh(base), ...parts } : {}),
      ...(patched === undefined || only !== undefined ? {} : { scan_new: scan(patched) }),
    };
    const names = Object.keys(cases);
    const runs: Record<string, Measured[]> = Object.fromEntries(names.map((n) => [n, []]));
    for (let round = 0; round < rounds; round++) {
      const order = names.map((_, i) => names[(i + round) % names.length] as string);
      for (const name of order) (runs[name] as Measured[]).push(await (cases[name] as () => Promise<Measured>)());
      log(`  round ${round + 1}: ${names.map((n) => `${n} ${(runs[n] as Measured[])[round]?.cpu.toFixed(2)} s CPU`).join(', ')}`);
    }
    const col = (name: string, f: (m: Measured) => number) => (runs[name] ?? []).map(f);
    const paired = (a: string, b: string, f: (m: Measured) => number = (m) => m.cpu) => col(a, f).map((x, i) => x / (col(b, f)[i] as number));
    const perKey = (name: string) => col(name, (m) => m.cpu).map((c, i) => ((c - (col('start', (m) => m.cpu)[i] as number)) / truth.objects) * 1e6);
    const row = (name: string, xs: readonly number[], digits: number, note = '') =>
      log(`| ${name}${note === '' ? '' : ` (${note})`} | ${median(xs).toFixed(digits)} | ${Math.min(...xs).toFixed(digits)}–${Math.max(...xs).toFixed(digits)} (${xs.length}) |`);
    log('\n| figure | median | spread (rounds) |');
    log('|---|---|---|');
    row('parser_cpu_ratio', paired('viewer', 'sdk'), 3, 'whole-process CPU, flat listing with viewer\'s parser / with the SDK\'s');
    row('parser_cpu_ratio_net', col('viewer', (m) => m.cpu).map((c, i) => (c - (col('start', (m) => m.cpu)[i] as number)) / ((col('sdk', (m) => m.cpu)[i] as number) - (col('start', (m) => m.cpu)[i] as number))), 3, 'the same, start-up subtracted from both');
    row('sdk_us_per_key', perKey('sdk'), 2, 'CPU per listed key above start-up, SDK parser');
    row('viewer_us_per_key', perKey('viewer'), 2, "CPU per listed key above start-up, viewer's parser");
    row('floor_us_per_key', col('floor', (m) => m.cpu).map((c) => (c / truth.objects) * 1e6), 2, "whole-process CPU per listed key, start-up included: node:http + SigV4 + viewer's parser, no SDK stack");
    row('floor_cpu_vs_bare', paired('floor', 'bare'), 3, 'the floor of any Node.js client / bare SDK flat listing, whole-process CPU');
    row('bare_us_per_key', perKey('bare'), 2, 'bench/bare-list.ts flat, for scale');
    row('sdk_peak_rss_mib', col('sdk', (m) => m.rssMiB), 1, 'flat listing, SDK parser');
    row('viewer_peak_rss_mib', col('viewer', (m) => m.rssMiB), 1, "flat listing, viewer's parser");
    if (only === undefined) {
      row('scan_cpu_vs_bare', paired('scan', 'bare'), 3, 'viewer scan / bare SDK flat listing, CPU; target <= 0.35');
      row('scan_wall_vs_bare', paired('scan', 'bare', (m) => m.wall), 3, 'wall time, for scale');
      row('scan_us_per_key', perKey('scan'), 2, 'viewer scan, CPU per key above start-up');
      row('scan_peak_rss_mib', col('scan', (m) => m.rssMiB), 1, 'default flags; target <= 150');
      row('scan_cold_cpu_vs_bare', paired('scan_cold', 'bare'), 3, 'the same without the compile cache: the first run after an install');
      row('scan_cold_peak_rss_mib', col('scan_cold', (m) => m.rssMiB), 1, 'the same, first run');
      row('refresh_cpu_vs_bare', paired('refresh', 'bare'), 3, `a long-running viewer's refresh after ${REFRESH_WARM_UP + 1} complete scans (median of ${REFRESHES_MEASURED}) / bare SDK flat listing, CPU`);
      row('refresh_us_per_key', col('refresh', (m) => (m.cpu / truth.objects) * 1e6), 2, 'CPU per key of such a refresh');
      row('refresh_peak_rss_mib', col('refresh', (m) => m.rssMiB), 1, 'the long-running process after its refreshes');
    }
    if (patched !== undefined && only === undefined) {
      row('scan_new_cpu_vs_bare', paired('scan_new', 'bare'), 3, 'viewer scan with the new parser / bare SDK flat listing, CPU; target <= 0.35');
      row('scan_new_cpu_vs_scan', paired('scan_new', 'scan'), 3, 'new parser / SDK parser, whole scan CPU');
      row('scan_new_wall_vs_bare', paired('scan_new', 'bare', (m) => m.wall), 3, 'wall time, for scale');
      row('scan_new_us_per_key', perKey('scan_new'), 2, 'CPU per key above start-up');
      row('scan_new_peak_rss_mib', col('scan_new', (m) => m.rssMiB), 1, 'default flags; target <= 150');
    }
    row('start_cpu_s', col('start', (m) => m.cpu), 3, 'node + SDK import, no listing');
    if (only === undefined) {
      const json = (name: string, field: string) => col(name, (m) => (JSON.parse(m.stdout) as Record<string, number>)[field] as number / 1000);
      const floorLoop = json('floor', 'loopCpuMs');
      const viewerLoop = json('viewer', 'loopCpuMs');
      const evidence = json('evidence', 'scan_cpu_ms');
      const pages = Math.ceil(truth.objects / 1000);
      const at = (name: string, i: number) => col(name, (m) => m.cpu)[i] as number;
      // The parts a scan cannot do without, each measured alone in the same round.
      const withoutSdk = col('bare', (m) => m.cpu).map((bareCpu, i) => (at('floor', i) + (at('empty_scan', i) - at('sdk_import', i)) + (evidence[i] as number)) / bareCpu);
      const withSdk = col('bare', (m) => m.cpu).map((bareCpu, i) => (at('floor', i) + (at('empty_scan', i) - at('node', i)) + ((viewerLoop[i] as number) - (floorLoop[i] as number)) + (evidence[i] as number)) / bareCpu);
      log('\n| part (CPU, median of the rounds) | median | spread (rounds) |');
      log('|---|---|---|');
      row('node_cpu_s', col('node', (m) => m.cpu), 3, 'Node.js starting and exiting');
      row('sdk_import_cpu_s', col('sdk_import', (m) => m.cpu), 3, "Node loading the SDK's S3 client, credential chain and HTTP handler, compile cache on");
      row('empty_scan_cpu_s', col('empty_scan', (m) => m.cpu), 3, 'viewer scan of a prefix holding nothing');
      row('evidence_cpu_s', evidence, 3, 'scanScope and the publisher in-process, keys built before the clock');
      row('floor_loop_cpu_s', floorLoop, 3, "the floor's listing loop alone");
      row('viewer_loop_cpu_s', viewerLoop, 3, "the SDK's stack with viewer's parser, the listing loop alone");
      row('sdk_ms_per_request', viewerLoop.map((v, i) => ((v - (floorLoop[i] as number)) / pages) * 1000), 2, `the SDK's stack per listing request above the floor's, ${pages} requests`);
      row('parts_with_sdk_vs_bare', withSdk, 3, "floor + empty scan - node + the SDK's stack per request + evidence, over bare: what the scan could reach with the SDK's stack kept");
      row('parts_without_sdk_vs_bare', withoutSdk, 3, "floor + empty scan - SDK import + evidence, over bare: with a request stack of viewer's own at the floor's cost");
    }
    log('\n| case | CPU s (median) | wall s (median) | peak RSS MiB (median) | CPU s by round |');
    log('|---|---|---|---|---|');
    for (const n of names) log(`| ${n} | ${median(col(n, (m) => m.cpu)).toFixed(2)} | ${n === 'refresh' ? '–' : median(col(n, (m) => m.wall)).toFixed(2)} | ${median(col(n, (m) => m.rssMiB)).toFixed(1)} | ${col(n, (m) => m.cpu).map((c) => c.toFixed(2)).join(' ')} |`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await server?.close();
  }
}

if (process.argv[2] === 'child') {
  const [, , , mode = '', endpoint = ENDPOINT, bucket = BUCKET, root = ''] = process.argv;
  await child(mode, endpoint, bucket, root);
} else {
  await main();
}
