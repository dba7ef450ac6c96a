/**
 * `npm run bench [-- --quick]`: every performance figure of viewer in one run on this machine.
 * `npm run bench -- --only=consumer`: only the consumer library's figures (bench/consumer.ts), in
 * about 10 s with no store, Barman or corpus; it prints its rows and leaves bench/results.json alone.
 * `npm run bench [-- --quick] -- --only=pgbackrest`: only the pgBackRest stanza's figures
 * (bench/stanza-corpus.ts loaded into the bench store; scan against its flat and ranged listings,
 * peak RSS at 100 k and 1 M keys); it prints its rows and leaves bench/results.json alone. The
 * whole run measures the same after barman-cloud's figures and adds its rows.
 * `npm run bench -- --only=fleet`: only the fleet's figures (bench/fleet.ts: 100 repositories of 3
 * servers in the bench store, one standalone process with FLEET_FILE: time to the first complete
 * fleet, CPU per refresh cycle, peak RSS); it prints its rows and leaves bench/results.json alone.
 * The whole run measures the same last and adds its rows.
 *
 * These machines drift by up to a third within an hour, so every figure is a ratio of two cases
 * run side by side: the cases run round-robin (one run of each, then the next round), each run is
 * paired with its baseline's run of the same round, and the figure is the median over the rounds
 * with the spread (lowest and highest round) beside it. Each store case is a whole process, timed
 * from spawn to exit, and its result is checked (the scan against the corpus generator's truth,
 * the floors and Barman against the key count), so nothing is timed that got the archive wrong.
 * Each runs under GNU time, which gives its CPU (user + sys, start-up included) and peak RSS: the
 * client's figures of issue 28 (`viewer scan`'s CPU over the bare SDK flat listing's, CPU per key,
 * the scan's peak RSS with its default flags) for both formats.
 *
 * Prints a table and writes bench/results.json. What it needs it starts itself: its own Swift S3
 * store (installed by test/support/swift-s3.sh if missing) with the corpus loaded once, the
 * latency proxies, the API servers; Debian's Barman is installed when apt-get can, or the bench
 * stops with one line saying what is missing.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { Corpus, STORE_CORPORA, type CorpusSpec } from './corpus.ts';
import { ACCESS_KEY_ID, BENCH_DIR, BUCKET, ENDPOINT, PORT, SECRET_ACCESS_KEY, ensureStore, loadCorpus } from './s3.ts';
import { compareTruth } from './truth.ts';
import { measureConsumer, type ConsumerRounds } from './consumer.ts';
import { STANZA_GENERATOR_VERSION, STANZA_STORE_CORPORA, StanzaCorpus } from './stanza-corpus.ts';
import { FLEET_MARKER_VERSION, FLEET_SPEC, FleetCorpus, runFleet, writeFleetFile, type FleetRun } from './fleet.ts';
import type { WalCounts } from '../src/evidence/wal-archive.ts';

const QUICK = process.argv.includes('--quick');
const ONLY = process.argv.find((a) => a.startsWith('--only='))?.slice('--only='.length);
const HERE = import.meta.dirname;
const NODE = process.execPath;
const VIEWER = join(HERE, '..', 'bin', 'viewer.js');
const PYTHON = '/usr/bin/python3';
const BARMAN_CHECK = '/usr/bin/barman-cloud-check-wal-archive';
const CONCURRENCY = 8; // the scanner's default SCAN_CONCURRENCY, and the floor's
const ROUNDS = QUICK ? 3 : 5;
const RSS_ROUNDS = 3;
// Not fewer in --quick: with 4,000 requests the p99 is the 40 slowest, mostly the client warming up.
const API_REQUESTS = 20_000;
const HEAP_FLAGS = ['--max-old-space-size=64', '--max-semi-space-size=1'];
// A round of the consumer figures takes about 1.5 s: not fewer in --quick.
const CONSUMER_ROUNDS = 7;
// The fleet's FLEET_CONCURRENCY: the default, and twice it beside (first complete fleet only).
const FLEET_CONCURRENCY = 4;
const FLEET_CONCURRENCY_WIDE = 8;

const log = (line: string) => process.stdout.write(`${line}\n`);
const fail = (line: string): never => {
  process.stderr.write(`bench: ${line}\n`);
  process.exit(1);
};

interface Run {
  readonly seconds: number;
  /** User + system CPU of the process, seconds (GNU time). */
  readonly cpu: number;
  /** Peak resident set of the process, MiB (GNU time's maximum RSS). */
  readonly rssMiB: number;
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** GNU time, which reports a child's CPU and peak RSS (`apt-get install time` where missing). */
const GNU_TIME = '/usr/bin/time';
let timeReports = 0;

/** One whole process, timed from spawn to exit, with its CPU and peak RSS read by GNU time. */
function run(command: string, args: readonly string[], env: Record<string, string> = {}): Promise<Run> {
  if (!existsSync(GNU_TIME)) fail(`${GNU_TIME} is missing: apt-get install time`);
  const report = join(tmpdir(), `viewer-bench-time-${process.pid}-${timeReports++}.txt`);
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const child = spawn(GNU_TIME, ['-f', '%U %S %M', '-o', report, command, ...args], { env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '/root', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c: Buffer) => err.push(c));
    child.on('error', reject);
    child.on('close', (status) => {
      const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
      // The last line: GNU time writes "Command exited with non-zero status" before it on failure.
      const [user = Number.NaN, sys = Number.NaN, rssKiB = Number.NaN] = (existsSync(report) ? readFileSync(report, 'utf8') : '').trim().split('\n').at(-1)?.split(' ').map(Number) ?? [];
      rmSync(report, { force: true });
      resolve({ seconds, cpu: user + sys, rssMiB: rssKiB / 1024, status, stdout: Buffer.concat(out).toString(), stderr: Buffer.concat(err).toString() });
    });
  });
}

/** What a store case keeps of its process. */
interface Measured {
  readonly seconds: number;
  readonly cpu: number;
  readonly rssMiB: number;
}
const measured = (r: Run): Measured => ({ seconds: r.seconds, cpu: r.cpu, rssMiB: r.rssMiB });

/** Each store case's seconds, CPU and peak RSS, round by round. */
interface StoreRounds {
  readonly names: readonly string[];
  readonly times: Record<string, number[]>;
  readonly cpu: Record<string, number[]>;
  readonly rss: Record<string, number[]>;
}

/** The store cases round-robin, the order inside a round rotating so no case always runs first. */
async function storeRounds(cases: Record<string, () => Promise<Measured>>, label = ''): Promise<StoreRounds> {
  const names = Object.keys(cases);
  const empty = () => Object.fromEntries(names.map((n) => [n, [] as number[]]));
  const r: StoreRounds = { names, times: empty(), cpu: empty(), rss: empty() };
  for (let round = 0; round < ROUNDS; round++) {
    const order = names.map((_, i) => names[(i + round) % names.length] as string);
    for (const name of order) {
      const m = await (cases[name] as () => Promise<Measured>)();
      (r.times[name] as number[]).push(m.seconds);
      (r.cpu[name] as number[]).push(m.cpu);
      (r.rss[name] as number[]).push(m.rssMiB);
    }
    log(`  ${label}round ${round + 1}: ${names.map((n) => `${n} ${(r.times[n] as number[])[round]?.toFixed(2)} s (CPU ${(r.cpu[n] as number[])[round]?.toFixed(2)} s)`).join(', ')}`);
  }
  return r;
}

/**
 * The client's CPU and memory (issue 28): `viewer scan`'s whole-process CPU (user + sys, start-up
 * included) over the bare SDK flat listing's of the same keys, paired by round; CPU per key of
 * each; the scan's peak RSS with its default flags.
 */
function clientFigures(prefix: string, r: StoreRounds, keys: number): Record<string, Figure> {
  const ratio = (a: string, b: string) => figure((r.cpu[a] as number[]).map((c, i) => c / ((r.cpu[b] as number[])[i] as number)));
  const perKey = (n: string) => figure((r.cpu[n] as number[]).map((c) => (c / keys) * 1e6));
  return {
    [`${prefix}scan_cpu_vs_list`]: ratio('scan', 'list'),
    [`${prefix}scan_cpu_us_per_key`]: perKey('scan'),
    [`${prefix}list_cpu_us_per_key`]: perKey('list'),
    [`${prefix}scan_peak_rss_mib`]: figure(r.rss['scan'] as number[]),
  };
}

/** The targets of `clientFigures` (issue 28); CPU per key is reported. */
function clientTargets(prefix: string): Record<string, [string, (x: number) => boolean]> {
  return {
    [`${prefix}scan_cpu_vs_list`]: ['<= 0.35', (x) => x <= 0.35],
    [`${prefix}scan_cpu_us_per_key`]: ['report', () => true],
    [`${prefix}list_cpu_us_per_key`]: ['report', () => true],
    [`${prefix}scan_peak_rss_mib`]: ['<= 150', (x) => x <= 150],
  };
}

/**
 * Starts a long-running helper and waits for its ready line on stdout or stderr. With `logFile`,
 * its stdout (the servers' request logs) goes to that file: read through a pipe, the logs would
 * cost this process CPU on the same two cores and slow the case being measured.
 */
async function start(args: readonly string[], ready: RegExp, logFile?: string): Promise<{ stop: () => void; match: RegExpMatchArray }> {
  const child = spawn(NODE, args, { stdio: ['ignore', logFile === undefined ? 'pipe' : openSync(logFile, 'w'), 'pipe'] });
  const match = await new Promise<RegExpMatchArray>((resolve, reject) => {
    let seen = '';
    const look = (c: Buffer) => {
      seen += c.toString();
      const m = seen.match(ready);
      if (m !== null) resolve(m);
    };
    child.stdout?.on('data', look);
    child.stderr?.on('data', look);
    child.on('exit', (code) => reject(new Error(`${args.join(' ')} exited (${String(code)}): ${seen.trim().slice(-300)}`)));
  });
  child.stdout?.resume();
  child.stderr?.resume();
  return { stop: () => child.kill('SIGTERM'), match };
}

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
}

interface Figure {
  readonly median: number;
  readonly min: number;
  readonly max: number;
  readonly rounds: readonly number[];
}
const figure = (rounds: readonly number[]): Figure => ({ median: median(rounds), min: Math.min(...rounds), max: Math.max(...rounds), rounds });
const round3 = (x: number) => Math.round(x * 1000) / 1000;

/** The consumer figures' table rows and their entries of bench/results.json. */
function consumerReport(c: ConsumerRounds) {
  const mib = (xs: readonly number[]) => xs.map((x) => x / 2 ** 20);
  const figures: Record<string, [string, Figure, number]> = {
    consumer_assembly_ms_10k: ['library: snapshot and every page at limit 200, validated', figure(c.assemblyMs), 1],
    consumer_assembly_vs_bare_walk_10k: ['library time / bare walk time, same round', figure(c.assemblyMs.map((t, i) => t / (c.bareWalkMs[i] as number))), 3],
    consumer_peak_heap_mib_10k: ['above the heap before the assembly', figure(mib(c.peakHeapBytes)), 2],
    consumer_retained_heap_mib_10k: ['the finished projection', figure(mib(c.retainedHeapBytes)), 2],
    sidecar_serve_cpu_ms_10k: ["the sidecar's CPU for one bare walk", figure(c.serveCpuMs), 1],
    sidecar_bare_walk_ms_10k: ['the same requests, nothing validated', figure(c.bareWalkMs), 1],
  };
  const first = figure(c.assemblyColdMs);
  const cpuLibrary = figure(c.serveCpuMsLibrary);
  const items = c.counts.backups + c.counts['wal-ranges'] + c.counts['wal-gaps'] + c.counts['recovery-paths'];
  const row = (name: string, text: string, f: Figure, digits: number) => `| ${name} (${text}) | ${f.median.toFixed(digits)} | ${f.min.toFixed(digits)}–${f.max.toFixed(digits)} (${f.rounds.length}) | report | |`;
  const rows = [
    ...Object.entries(figures).map(([name, [text, f, digits]]) => row(name, text, f, digits)),
    row('consumer_first_assembly_ms_10k', "the first walk of the library's process, for scale", first, 1),
    row('sidecar_serve_cpu_ms_10k_library_walk', "the sidecar's CPU for the library's walk, for scale", cpuLibrary, 1),
  ];
  const results = {
    ...Object.fromEntries(Object.entries(figures).map(([name, [, f]]) => [name, round3(f.median)])),
    consumer: {
      items: { total: items, backups: c.counts.backups, wal_ranges: c.counts['wal-ranges'], wal_gaps: c.counts['wal-gaps'], recovery_paths: c.counts['recovery-paths'] },
      objects_scanned: c.counts.objects,
      requests_per_walk: c.requests,
      page_limit: 200,
      rounds: c.assemblyMs.length,
      first_assembly_ms: round3(first.median),
      sidecar_serve_cpu_ms_library_walk: round3(cpuLibrary.median),
    },
  };
  const spread = Object.entries(figures).map(([name, [, f]]) => [name, f] as [string, Figure]);
  return { rows, results, spread };
}

/** `--only=consumer`: the consumer figures alone, printed; bench/results.json is the whole run's. */
async function consumerOnly(): Promise<void> {
  log(`viewer bench --only=consumer: ${new Date().toISOString()}, ${cpus().length} cores, load ${loadavg()[0]?.toFixed(2)}, node ${process.version}`);
  const dir = mkdtempSync(join(tmpdir(), 'viewer-bench-'));
  try {
    const report = consumerReport(await measureConsumer({ dir, rounds: CONSUMER_ROUNDS, log }));
    log('\n| figure | median | spread (rounds) | target | met |');
    log('|---|---|---|---|---|');
    for (const line of report.rows) log(line);
    log('\nbench/results.json not written: it holds a whole run (npm run bench)');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The pgBackRest figures: table rows, entries of bench/results.json and their spreads. */
interface StanzaReport {
  readonly rows: readonly string[];
  readonly memoryRows: readonly string[];
  readonly caseRows: readonly string[];
  readonly results: Record<string, unknown>;
  readonly spread: readonly [string, Figure][];
}

/**
 * The pgBackRest stanza corpus (bench/stanza-corpus.ts) loaded into the bench store, `viewer scan`
 * with REPOSITORY_FORMAT=stanza-repository against the flat listing of both areas and the ranged
 * floor (bench/bare-list.ts stanza-*), round-robin as the barman cases; then the in-process scan's
 * peak RSS at 10 k, 100 k and 1 M segments with the same fixed heap.
 */
async function measureStanza(dir: string): Promise<StanzaReport> {
  const spec = QUICK ? STANZA_STORE_CORPORA.quick : STANZA_STORE_CORPORA.full;
  const corpus = new StanzaCorpus(spec);
  const loaded = await loadCorpus(corpus, log, STANZA_GENERATOR_VERSION);
  const truth = corpus.truth;
  const prefix = spec.root.slice(0, -1);
  log(`\npgBackRest corpus: ${truth.objects} objects (${truth.segments} WAL segments, ${truth.gaps.length} gaps, ${truth.backups} backups, stanza ${spec.stanza}) in s3://${BUCKET}/${spec.root}${loaded > 0 ? `, loaded in ${loaded.toFixed(0)} s` : ', already loaded'}`);
  const scan = async () => {
    const r = await run(NODE, [VIEWER, 'scan'], {
      REPOSITORY_FORMAT: 'stanza-repository',
      DESTINATION_PATH: `s3://${BUCKET}/${prefix}`,
      ARCHIVE_SERVER_NAMES: spec.stanza,
      STORE_ENDPOINT_URL: ENDPOINT,
      STORE_ACCESS_KEY_ID_FILE: join(dir, 'id'),
      STORE_SECRET_ACCESS_KEY_FILE: join(dir, 'secret'),
      SCAN_CONCURRENCY: String(CONCURRENCY),
    });
    if (r.status !== 0) fail(`viewer scan (pgBackRest) exited ${String(r.status)}: ${r.stderr.trim()}`);
    const doc = JSON.parse(r.stdout) as {
      snapshot: { inventory: { object_count: number | null; stored_bytes: number | null }; details: { stanza_repository?: { wal_counts: WalCounts | null } } };
      wal_gaps: { timeline: number; first_wal: string; last_wal: string }[];
    };
    const check = compareTruth(truth, { objects: doc.snapshot.inventory.object_count, bytes: doc.snapshot.inventory.stored_bytes, walCounts: doc.snapshot.details.stanza_repository?.wal_counts ?? null, gaps: doc.wal_gaps });
    if (check !== 'ok') fail(`viewer scan (pgBackRest) disagrees with the corpus: ${check}`);
    return measured(r);
  };
  const bare = async (mode: 'stanza-flat' | 'stanza-ranges') => {
    const r = await run(NODE, [join(HERE, 'bare-list.ts'), mode, ENDPOINT, BUCKET, spec.root, String(CONCURRENCY), spec.stanza]);
    const keys = r.status === 0 ? (JSON.parse(r.stdout) as { keys: number }).keys : -1;
    if (keys !== truth.objects) fail(`${mode} listing saw ${keys} keys, the pgBackRest corpus has ${truth.objects}: ${r.stderr.trim()}`);
    return measured(r);
  };
  log(`pgBackRest store cases: ${ROUNDS} rounds, scanner and ranges at concurrency ${CONCURRENCY}`);
  const rounds = await storeRounds({ list: () => bare('stanza-flat'), scan, ranges: () => bare('stanza-ranges') });
  const { names, times } = rounds;
  const paired = (a: string, b: string) => figure((times[a] as number[]).map((t, i) => t / ((times[b] as number[])[i] as number)));

  log(`pgBackRest in-process scans: ${RSS_ROUNDS} rounds of 10 k, 100 k and 1 M segments (${HEAP_FLAGS.join(' ')})`);
  const sizes = [10_000, 100_000, 1_000_000] as const;
  const memory: Record<number, { rss: number[]; heap: number[]; keys: number; ranges: number; gaps: number; backups: number }> = {};
  for (let round = 0; round < RSS_ROUNDS; round++) {
    for (const n of sizes) {
      const r = await run(NODE, ['--expose-gc', ...HEAP_FLAGS, join(HERE, 'inprocess-scan.ts'), String(n), String(spec.seed), String(CONCURRENCY), 'lazy', 'pgbackrest']);
      if (r.status !== 0) fail(`in-process pgBackRest scan of ${n} failed: ${r.stderr.trim().slice(-300)}`);
      const f = JSON.parse(r.stdout) as { keys: number; peak_rss_bytes: number; heap_retained_bytes: number; truth: string; ranges: number; gaps: number; backups: number };
      if (f.truth !== 'ok') fail(`in-process pgBackRest scan of ${n} disagrees with the corpus: ${f.truth}`);
      const m = (memory[n] ??= { rss: [], heap: [], keys: f.keys, ranges: f.ranges, gaps: f.gaps, backups: f.backups });
      m.rss.push(f.peak_rss_bytes);
      m.heap.push(f.heap_retained_bytes);
    }
  }
  const ratios = {
    pgbackrest_scan_vs_list: paired('scan', 'list'),
    pgbackrest_scan_vs_ranges: paired('scan', 'ranges'),
    pgbackrest_rss_1m_vs_100k: figure((memory[1_000_000]?.rss ?? []).map((r, i) => r / ((memory[100_000]?.rss ?? [])[i] as number))),
    ...clientFigures('pgbackrest_', rounds, truth.objects),
  };
  const targets: Record<string, [string, (x: number) => boolean]> = {
    pgbackrest_scan_vs_list: ['<= 0.80', (x) => x <= 0.8],
    pgbackrest_scan_vs_ranges: ['<= 1.15', (x) => x <= 1.15],
    pgbackrest_rss_1m_vs_100k: ['<= 1.2', (x) => x <= 1.2],
    ...clientTargets('pgbackrest_'),
  };
  const rows = Object.entries(ratios).map(([name, f]) => {
    const [text, ok] = targets[name] as [string, (x: number) => boolean];
    return `| ${name} | ${f.median.toFixed(3)} | ${f.min.toFixed(3)}–${f.max.toFixed(3)} (${f.rounds.length}) | ${text} | ${text === 'report' ? '' : ok(f.median) ? 'yes' : 'NO'} |`;
  });
  const memoryRows = sizes.flatMap((n) => {
    const m = memory[n];
    return m === undefined ? [] : [`| pgBackRest ${n} | ${m.keys} | ${m.ranges} | ${m.gaps} | ${m.backups} | ${(median(m.rss) / 2 ** 20).toFixed(1)} | ${(median(m.heap) / 1024).toFixed(1)} |`];
  });
  const caseRows = names.map((n) => `| pgbackrest_${n} | ${median(times[n] as number[]).toFixed(2)} | ${(times[n] as number[]).map((t) => t.toFixed(2)).join(' ')} |`);
  const results = {
    ratios: Object.fromEntries(Object.entries(ratios).map(([k, f]) => [k, round3(f.median)])),
    pgbackrest: {
      corpus: { ...spec, objects: truth.objects, segments_present: truth.segments, gaps: truth.gaps.length, backups: truth.backups, timelines: truth.timelines },
      seconds: Object.fromEntries(names.map((n) => [n, (times[n] as number[]).map(round3)])),
      cpu_seconds: Object.fromEntries(names.map((n) => [n, (rounds.cpu[n] as number[]).map(round3)])),
      peak_rss_mib: Object.fromEntries(names.map((n) => [n, (rounds.rss[n] as number[]).map(round3)])),
      memory: Object.fromEntries(
        sizes.map((n) => {
          const m = memory[n] as { rss: number[]; heap: number[]; keys: number; ranges: number; gaps: number; backups: number };
          return [String(n), { objects: m.keys, ranges: m.ranges, gaps: m.gaps, backups: m.backups, peak_rss_bytes: median(m.rss), heap_retained_bytes: median(m.heap), heap_flags: HEAP_FLAGS.join(' ') }];
        }),
      ),
    },
  };
  return { rows, memoryRows, caseRows, results, spread: Object.entries(ratios) };
}

/**
 * One part of the bench alone (`--only=<part>`): the bench store started, the credentials written,
 * the part measured and its tables printed; bench/results.json is the whole run's.
 */
async function onePart(title: string, measure: (dir: string) => Promise<{ readonly rows: readonly string[]; readonly memoryRows?: readonly string[]; readonly caseRows: readonly string[] }>): Promise<void> {
  log(`viewer bench${QUICK ? ' --quick' : ''} ${title}: ${new Date().toISOString()}, ${cpus().length} cores, load ${loadavg()[0]?.toFixed(2)}, node ${process.version}`);
  ensureStore(log);
  const dir = mkdtempSync(join(tmpdir(), 'viewer-bench-'));
  try {
    writeFileSync(join(dir, 'id'), `${ACCESS_KEY_ID}\n`);
    writeFileSync(join(dir, 'secret'), `${SECRET_ACCESS_KEY}\n`);
    const report = await measure(dir);
    log('\n| figure | median | spread (rounds) | target | met |');
    log('|---|---|---|---|---|');
    for (const line of report.rows) log(line);
    if (report.memoryRows !== undefined) {
      log('\n| keys | objects | ranges | gaps | backups | peak RSS MiB (median) | heap retained KiB (median) |');
      log('|---|---|---|---|---|---|---|');
      for (const line of report.memoryRows) log(line);
    }
    log('\n| case | median s | rounds |');
    log('|---|---|---|');
    for (const line of report.caseRows) log(line);
    log('\nbench/results.json not written: it holds a whole run (npm run bench)');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The fleet figures: table rows, entries of bench/results.json and their spreads. */
interface FleetReport {
  readonly rows: readonly string[];
  readonly caseRows: readonly string[];
  readonly results: Record<string, unknown>;
  readonly spread: readonly [string, Figure][];
}

/**
 * The fleet corpus (bench/fleet.ts) loaded into the bench store, then RSS_ROUNDS rounds of two
 * processes side by side, the order rotating: FLEET_CONCURRENCY 4 (the default) to the first
 * complete fleet and through one further refresh cycle, and FLEET_CONCURRENCY 8 to the first
 * complete fleet only. Each round's runs are checked against the corpus before they count.
 */
async function measureFleet(dir: string): Promise<FleetReport> {
  const corpus = new FleetCorpus();
  const loaded = await loadCorpus(corpus, log, FLEET_MARKER_VERSION);
  const scopes = corpus.scopes.length;
  log(`\nfleet corpus: ${corpus.size} objects, ${FLEET_SPEC.repositories} repositories of ${FLEET_SPEC.servers.length} barman-cloud servers (${scopes} scopes of ${FLEET_SPEC.segments} segments) in s3://${BUCKET}/${FLEET_SPEC.root}${loaded > 0 ? `, loaded in ${loaded.toFixed(0)} s` : ', already loaded'}`);
  const fleetFile = join(dir, 'fleet.yaml');
  writeFleetFile(fleetFile, corpus, { id: join(dir, 'id'), secret: join(dir, 'secret') });
  log(`fleet: ${RSS_ROUNDS} rounds of one standalone process each at FLEET_CONCURRENCY ${FLEET_CONCURRENCY} (first complete fleet, then one further refresh cycle, REFRESH_INTERVAL_SECONDS=60) and ${FLEET_CONCURRENCY_WIDE} (first complete fleet); its log read every 250 ms, its metrics checked at each milestone`);
  const runs: { base: FleetRun[]; wide: FleetRun[] } = { base: [], wide: [] };
  for (let round = 0; round < RSS_ROUNDS; round++) {
    const cases = [
      () => runFleet({ node: NODE, viewer: VIEWER, fleetFile, logFile: join(dir, `fleet-${round}-c${FLEET_CONCURRENCY}.log`), concurrency: FLEET_CONCURRENCY, cycle: true, corpus }).then((r) => runs.base.push(r)),
      () => runFleet({ node: NODE, viewer: VIEWER, fleetFile, logFile: join(dir, `fleet-${round}-c${FLEET_CONCURRENCY_WIDE}.log`), concurrency: FLEET_CONCURRENCY_WIDE, cycle: false, corpus }).then((r) => runs.wide.push(r)),
    ];
    try {
      for (const c of round % 2 === 0 ? cases : [...cases].reverse()) await c();
    } catch (error) {
      fail(`fleet round ${round + 1}: ${error instanceof Error ? error.message : String(error)}`);
    }
    const b = runs.base[round] as FleetRun;
    const w = runs.wide[round] as FleetRun;
    log(`  round ${round + 1}: c${FLEET_CONCURRENCY} first fleet ${b.firstFleetS.toFixed(2)} s (CPU ${b.firstFleetCpuS.toFixed(2)} s), cycle ${(b.cycleS ?? 0).toFixed(1)} s (CPU ${(b.cycleCpuS ?? 0).toFixed(2)} s), peak RSS ${(b.peakRssBytes / 2 ** 20).toFixed(1)} MiB; c${FLEET_CONCURRENCY_WIDE} first fleet ${w.firstFleetS.toFixed(2)} s (CPU ${w.firstFleetCpuS.toFixed(2)} s)`);
  }
  const mib = (x: number) => x / 2 ** 20;
  const base = runs.base;
  const figures: Record<string, [string, Figure, number]> = {
    fleet_first_complete_s: [`spawn to every scope at generation >= 1, FLEET_CONCURRENCY ${FLEET_CONCURRENCY}`, figure(base.map((r) => r.firstFleetS)), 2],
    [`fleet_first_complete_s_c${FLEET_CONCURRENCY_WIDE}`]: [`the same at FLEET_CONCURRENCY ${FLEET_CONCURRENCY_WIDE}`, figure(runs.wide.map((r) => r.firstFleetS)), 2],
    [`fleet_first_complete_c${FLEET_CONCURRENCY_WIDE}_vs_c${FLEET_CONCURRENCY}`]: ['time ratio, same round', figure(runs.wide.map((r, i) => r.firstFleetS / (base[i] as FleetRun).firstFleetS)), 3],
    fleet_cpu_first_complete_s: ['CPU from spawn to the first complete fleet', figure(base.map((r) => r.firstFleetCpuS)), 2],
    [`fleet_cpu_first_complete_s_c${FLEET_CONCURRENCY_WIDE}`]: [`the same at FLEET_CONCURRENCY ${FLEET_CONCURRENCY_WIDE}`, figure(runs.wide.map((r) => r.firstFleetCpuS)), 2],
    fleet_cpu_cycle_s: ['CPU over one further cycle, every scope to generation >= 2', figure(base.map((r) => r.cycleCpuS ?? Number.NaN)), 2],
    fleet_cpu_per_scope_scan_ms: ["that cycle's CPU / the scans it completed", figure(base.map((r) => ((r.cycleCpuS ?? Number.NaN) / (r.cycleScans ?? Number.NaN)) * 1000)), 1],
    fleet_cycle_s: ['first complete fleet to every scope at generation >= 2', figure(base.map((r) => r.cycleS ?? Number.NaN)), 1],
    fleet_scrape_cpu_ms: [`one scrape of the ${scopes} scopes' /metrics, for scale`, figure(base.map((r) => r.scrapeCpuMs ?? Number.NaN)), 1],
    fleet_scrape_ms: ['its time, 20 in a row', figure(base.map((r) => r.scrapeMs ?? Number.NaN)), 1],
    fleet_peak_rss_mib: ['VmHWM at the end of the further cycle', figure(base.map((r) => mib(r.peakRssBytes))), 1],
    fleet_rss_first_complete_mib: ['VmRSS at the first complete fleet', figure(base.map((r) => mib(r.rssAtFirstFleetBytes))), 1],
    [`fleet_peak_rss_mib_c${FLEET_CONCURRENCY_WIDE}`]: [`VmHWM at the first complete fleet, FLEET_CONCURRENCY ${FLEET_CONCURRENCY_WIDE}`, figure(runs.wide.map((r) => mib(r.peakRssBytes))), 1],
  };
  const rows = Object.entries(figures).map(([name, [text, f, digits]]) => `| ${name} (${text}) | ${f.median.toFixed(digits)} | ${f.min.toFixed(digits)}–${f.max.toFixed(digits)} (${f.rounds.length}) | report | |`);
  const caseRows = [
    `| fleet_c${FLEET_CONCURRENCY}_first_complete | ${figures['fleet_first_complete_s']?.[1].median.toFixed(2)} | ${base.map((r) => r.firstFleetS.toFixed(2)).join(' ')} |`,
    `| fleet_c${FLEET_CONCURRENCY_WIDE}_first_complete | ${median(runs.wide.map((r) => r.firstFleetS)).toFixed(2)} | ${runs.wide.map((r) => r.firstFleetS.toFixed(2)).join(' ')} |`,
  ];
  const results = {
    fleet: {
      corpus: { root: FLEET_SPEC.root, repositories: FLEET_SPEC.repositories, servers_per_repository: FLEET_SPEC.servers.length, scopes, segments_per_scope: FLEET_SPEC.segments, objects: corpus.size, servers_listed: Math.ceil(FLEET_SPEC.repositories / 2), servers_discovered: Math.floor(FLEET_SPEC.repositories / 2) },
      fleet_concurrency: FLEET_CONCURRENCY,
      refresh_interval_seconds: 60,
      poll_ms: 250,
      rounds: RSS_ROUNDS,
      ...Object.fromEntries(Object.entries(figures).map(([name, [, f]]) => [name, round3(f.median)])),
      scans: { first_complete: base.map((r) => r.firstFleetScans), cycle: base.map((r) => r.cycleScans) },
    },
  };
  return { rows, caseRows, results, spread: Object.entries(figures).map(([name, [, f]]) => [name, f] as [string, Figure]) };
}


/** Debian's Barman client, installed when this machine can; otherwise one clear line. */
function ensureBarman(): void {
  const usable = () => existsSync(BARMAN_CHECK) && spawnSync(PYTHON, ['-c', 'import barman.clients.cloud_check_wal_archive, boto3'], { stdio: 'ignore' }).status === 0;
  if (usable()) return;
  log('installing Debian barman-cli-cloud and python3-boto3 for the Barman comparison');
  const apt = (args: string[]) => spawnSync('apt-get', args, { stdio: 'ignore', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } }).status === 0;
  const install = () => apt(['install', '-y', '--no-install-recommends', 'barman-cli-cloud', 'python3-boto3']);
  // A fresh machine may have no package lists yet: update once, then try again.
  if (!install() && apt(['update'])) install();
  if (!usable()) fail(`missing Debian's barman-cli-cloud and python3-boto3 (${BARMAN_CHECK} with ${PYTHON}); install them with apt-get and run again`);
}

async function main(): Promise<void> {
  const spec: CorpusSpec = QUICK ? STORE_CORPORA.quick : STORE_CORPORA.full;
  const server = spec.root.split('/')[1] as string;
  log(`viewer bench${QUICK ? ' --quick' : ''}: ${new Date().toISOString()}, ${cpus().length} cores, load ${loadavg()[0]?.toFixed(2)}, node ${process.version}`);

  ensureBarman();
  ensureStore(log);
  const corpus = new Corpus(spec);
  const loaded = await loadCorpus(corpus, log);
  const truth = corpus.truth;
  let walKeys = 0;
  for (const o of corpus.objects()) if (o.key.startsWith(`${spec.root}wals/`)) walKeys += 1;
  log(`corpus: ${truth.objects} objects (${truth.segments} WAL segments, ${truth.gaps.length} gaps, ${truth.backups} backups, ${truth.timelines} timelines) in s3://${BUCKET}/${spec.root}${loaded > 0 ? `, loaded in ${loaded.toFixed(0)} s` : ', already loaded'}`);

  const dir = mkdtempSync(join(tmpdir(), 'viewer-bench-'));
  const stops: (() => void)[] = [];
  try {
    writeFileSync(join(dir, 'id'), `${ACCESS_KEY_ID}\n`);
    writeFileSync(join(dir, 'secret'), `${SECRET_ACCESS_KEY}\n`);
    const proxy20 = await start([join(HERE, 'latency-proxy.ts'), '20', String(PORT)], /listening (\d+)/);
    stops.push(proxy20.stop);
    const proxy100 = await start([join(HERE, 'latency-proxy.ts'), '100', String(PORT)], /listening (\d+)/);
    stops.push(proxy100.stop);
    const endpoints = { '': ENDPOINT, _20ms: `http://127.0.0.1:${proxy20.match[1]}`, _100ms: `http://127.0.0.1:${proxy100.match[1]}` };

    const scan = async (endpoint: string) => {
      const r = await run(NODE, [VIEWER, 'scan'], {
        DESTINATION_PATH: `s3://${BUCKET}/${spec.root.split('/')[0]}`,
        ARCHIVE_SERVER_NAMES: server,
        STORE_ENDPOINT_URL: endpoint,
        STORE_ACCESS_KEY_ID_FILE: join(dir, 'id'),
        STORE_SECRET_ACCESS_KEY_FILE: join(dir, 'secret'),
        SCAN_CONCURRENCY: String(CONCURRENCY),
      });
      if (r.status !== 0) fail(`viewer scan exited ${String(r.status)}: ${r.stderr.trim()}`);
      const doc = JSON.parse(r.stdout) as {
        snapshot: { inventory: { object_count: number | null; stored_bytes: number | null }; details: { archive_cloud?: { wal_counts: WalCounts | null } } };
        wal_gaps: { timeline: number; first_wal: string; last_wal: string }[];
      };
      const check = compareTruth(truth, { objects: doc.snapshot.inventory.object_count, bytes: doc.snapshot.inventory.stored_bytes, walCounts: doc.snapshot.details.archive_cloud?.wal_counts ?? null, gaps: doc.wal_gaps });
      if (check !== 'ok') fail(`viewer scan disagrees with the corpus: ${check}`);
      return measured(r);
    };
    const bare = async (mode: 'flat' | 'ranges', endpoint: string) => {
      const r = await run(NODE, [join(HERE, 'bare-list.ts'), mode, endpoint, BUCKET, spec.root, String(CONCURRENCY)]);
      const keys = r.status === 0 ? (JSON.parse(r.stdout) as { keys: number }).keys : -1;
      if (keys !== truth.objects) fail(`${mode} listing saw ${keys} keys, the corpus has ${truth.objects}: ${r.stderr.trim()}`);
      return measured(r);
    };
    const barman = async () => {
      const r = await run(PYTHON, [join(HERE, 'barman-check-paginated.py'), '--endpoint-url', ENDPOINT, `s3://${BUCKET}/${spec.root.split('/')[0]}`, server], {
        AWS_ACCESS_KEY_ID: ACCESS_KEY_ID,
        AWS_SECRET_ACCESS_KEY: SECRET_ACCESS_KEY,
        AWS_DEFAULT_REGION: 'us-east-1',
      });
      const listed = Number(/listed (\d+)/.exec(r.stderr)?.[1] ?? -1);
      if (listed !== walKeys) fail(`barman-cloud-check-wal-archive listed ${listed} keys, wals/ holds ${walKeys}: ${r.stderr.trim().slice(-300)}`);
      return measured(r);
    };

    // Store cases, round-robin; the order inside a round rotates so no case always runs first.
    log(`\nbarman-cloud-check-wal-archive runs with the upstream paginated S3 listing (bench/barman-check-paginated.py): Debian's 3.4 lists only the first 1,000 keys (EnterpriseDB/barman#780).`);
    log(`store cases: ${ROUNDS} rounds, scanner and ranges at concurrency ${CONCURRENCY}`);
    const rounds = await storeRounds({
      list: () => bare('flat', endpoints['']),
      scan: () => scan(endpoints['']),
      ranges: () => bare('ranges', endpoints['']),
      barman,
      list_20ms: () => bare('flat', endpoints._20ms),
      scan_20ms: () => scan(endpoints._20ms),
      list_100ms: () => bare('flat', endpoints._100ms),
      scan_100ms: () => scan(endpoints._100ms),
    });
    const { names, times } = rounds;
    const paired = (a: string, b: string) => figure((times[a] as number[]).map((t, i) => t / ((times[b] as number[])[i] as number)));

    // In-process scans: memory at three sizes with a fixed heap, throughput at 1 M.
    log(`\nin-process scans: ${RSS_ROUNDS} rounds of 10 k, 100 k and 1 M segments (${HEAP_FLAGS.join(' ')}), then 1 M for throughput`);
    const inproc = async (segments: number, source: 'lazy' | 'materialized', flags: readonly string[]) => {
      const r = await run(NODE, ['--expose-gc', ...flags, join(HERE, 'inprocess-scan.ts'), String(segments), '20261123', String(CONCURRENCY), source]);
      if (r.status !== 0) fail(`in-process scan of ${segments} failed: ${r.stderr.trim().slice(-300)}`);
      const facts = JSON.parse(r.stdout) as { keys: number; keys_per_s: number; peak_rss_bytes: number; heap_retained_bytes: number; truth: string; ranges: number; gaps: number; backups: number };
      if (facts.truth !== 'ok') fail(`in-process scan of ${segments} disagrees with the corpus: ${facts.truth}`);
      return facts;
    };
    const sizes = [10_000, 100_000, 1_000_000] as const;
    const memory: Record<number, { rss: number[]; heap: number[]; keys: number; ranges: number; gaps: number; backups: number }> = {};
    const throughput: { lazy: number[]; materialized: number[] } = { lazy: [], materialized: [] };
    for (let round = 0; round < RSS_ROUNDS; round++) {
      for (const n of sizes) {
        const f = await inproc(n, 'lazy', HEAP_FLAGS);
        const m = (memory[n] ??= { rss: [], heap: [], keys: f.keys, ranges: f.ranges, gaps: f.gaps, backups: f.backups });
        m.rss.push(f.peak_rss_bytes);
        m.heap.push(f.heap_retained_bytes);
      }
      throughput.lazy.push((await inproc(1_000_000, 'lazy', [])).keys_per_s);
      throughput.materialized.push((await inproc(1_000_000, 'materialized', [])).keys_per_s);
    }
    const rssRatio = figure((memory[1_000_000]?.rss ?? []).map((r, i) => r / ((memory[100_000]?.rss ?? [])[i] as number)));

    // The evidence API against a bare server with the same bytes, then paging.
    log(`\nAPI: ${RSS_ROUNDS} rounds of ${API_REQUESTS} snapshot requests, 16 keep-alive clients, Unix socket`);
    const token = join(dir, 'token');
    writeFileSync(token, randomBytes(32).toString('base64url'), { mode: 0o600 });
    const evidenceSocket = join(dir, 'evidence.sock');
    stops.push((await start([join(HERE, 'api-server.ts'), 'evidence', evidenceSocket, token, '100000'], /ready/, join(dir, 'evidence.log'))).stop);
    const snapshotBytes = await run('curl', ['-sf', '--unix-socket', evidenceSocket, '-H', `Authorization: Bearer ${readFileSync(token, 'utf8').trim()}`, 'http://sidecar/api/v1alpha1/snapshot', '-o', join(dir, 'body')]);
    if (snapshotBytes.status !== 0) fail('could not read the snapshot for the bare server');
    const bareSocket = join(dir, 'bare.sock');
    stops.push((await start([join(HERE, 'api-server.ts'), 'bare', bareSocket, join(dir, 'body')], /ready/, join(dir, 'bare.log'))).stop);
    const pagingSocket = join(dir, 'paging.sock');
    stops.push((await start([join(HERE, 'api-server.ts'), 'evidence', pagingSocket, token, '20000', 'sparse'], /ready/, join(dir, 'paging.log'))).stop);
    const load = async (socket: string, tokenFile: string, path: string) => {
      const r = await run(NODE, [join(HERE, 'api-load.ts'), 'load', socket, tokenFile, path, String(API_REQUESTS), '16']);
      const f = r.status === 0 ? (JSON.parse(r.stdout) as { rps: number; p99_ms: number; p50_ms: number; failed: number }) : null;
      if (f === null || f.failed > 0) fail(`API load failed: ${r.stderr.trim().slice(-300)}`);
      return f as { rps: number; p99_ms: number; p50_ms: number };
    };
    const page = async (limit: number) => {
      const r = await run(NODE, [join(HERE, 'api-load.ts'), 'page', pagingSocket, token, 'wal-ranges', String(limit)]);
      const f = r.status === 0 ? (JSON.parse(r.stdout) as { items: number; pages: number; ms: number }) : null;
      if (f === null || f.items < 10_000) fail(`paging failed: ${r.stderr.trim().slice(-300)}`);
      return f as { items: number; pages: number; ms: number };
    };
    const api = { evidence: [] as { rps: number; p99_ms: number; p50_ms: number }[], bare: [] as { rps: number; p99_ms: number; p50_ms: number }[], paging: [] as { items: number; pages: number; ms: number }[], pagingDefault: [] as { items: number; pages: number; ms: number }[] };
    for (let round = 0; round < RSS_ROUNDS; round++) {
      api.evidence.push(await load(evidenceSocket, token, '/api/v1alpha1/snapshot'));
      api.bare.push(await load(bareSocket, '-', '/api/v1alpha1/snapshot'));
      api.paging.push(await page(200));
      api.pagingDefault.push(await page(100));
    }
    const apiRatio = figure(api.evidence.map((e, i) => e.rps / (api.bare[i] as { rps: number }).rps));

    // The consumer library assembling a 10,000-item publication, beside the sidecar serving it.
    log('');
    const consumer = consumerReport(await measureConsumer({ dir, rounds: CONSUMER_ROUNDS, log }));

    // The pgBackRest stanza of the same size, after every barman-cloud figure (it changes none of them).
    const stanza = await measureStanza(dir);

    // The fleet last: 100 repositories in one standalone process (its own corpus under bench-fleet/).
    const fleet = await measureFleet(dir);

    const ratios = {
      scan_vs_list: paired('scan', 'list'),
      scan_vs_list_20ms: paired('scan_20ms', 'list_20ms'),
      scan_vs_list_100ms: paired('scan_100ms', 'list_100ms'),
      scan_vs_ranges: paired('scan', 'ranges'),
      scan_vs_barman_check: paired('scan', 'barman'),
      rss_1m_vs_100k: rssRatio,
      api_vs_bare: apiRatio,
      ...clientFigures('', rounds, truth.objects),
    };
    const targets: Record<string, [string, (x: number) => boolean]> = {
      ...clientTargets(''),
      scan_vs_list: ['<= 0.80', (x) => x <= 0.8],
      scan_vs_list_20ms: ['<= 0.65', (x) => x <= 0.65],
      scan_vs_list_100ms: ['<= 0.40', (x) => x <= 0.4],
      scan_vs_ranges: ['<= 1.15', (x) => x <= 1.15],
      scan_vs_barman_check: ['<= 0.5', (x) => x <= 0.5],
      rss_1m_vs_100k: ['<= 1.2', (x) => x <= 1.2],
      api_vs_bare: ['>= 0.8', (x) => x >= 0.8],
    };
    const p99 = figure(api.evidence.map((e) => e.p99_ms));
    const bareP99 = figure(api.bare.map((e) => e.p99_ms));
    const keysPerS = figure(throughput.lazy);
    const keysPerSPrebuilt = figure(throughput.materialized);
    const paging = figure(api.paging.map((p) => p.ms));
    const pagingDefault = figure(api.pagingDefault.map((p) => p.ms));

    log('\n| figure | median | spread (rounds) | target | met |');
    log('|---|---|---|---|---|');
    for (const [name, f] of Object.entries(ratios)) {
      const [text, ok] = targets[name] as [string, (x: number) => boolean];
      log(`| ${name} | ${f.median.toFixed(3)} | ${f.min.toFixed(3)}–${f.max.toFixed(3)} (${f.rounds.length}) | ${text} | ${text === 'report' ? '' : ok(f.median) ? 'yes' : 'NO'} |`);
    }
    log(`| api_p99_ms | ${p99.median.toFixed(2)} | ${p99.min.toFixed(2)}–${p99.max.toFixed(2)} (${p99.rounds.length}) | < 5 | ${p99.median < 5 ? 'yes' : 'NO'} |`);
    log(`| api_bare_p99_ms (the bare server, for scale) | ${bareP99.median.toFixed(2)} | ${bareP99.min.toFixed(2)}–${bareP99.max.toFixed(2)} (${bareP99.rounds.length}) | report | |`);
    log(`| scanner_keys_per_s (keys built before the clock) | ${Math.round(keysPerSPrebuilt.median)} | ${Math.round(keysPerSPrebuilt.min)}–${Math.round(keysPerSPrebuilt.max)} (${keysPerSPrebuilt.rounds.length}) | aim >= 1,000,000 | ${keysPerSPrebuilt.median >= 1e6 ? 'yes' : 'no'} |`);
    const usPerKey1m = figure(throughput.materialized.map((k) => 1e6 / k));
    log(`| scanner_us_per_key_1m (in-process scan of 1 M keys, keys built before the clock, no store) | ${usPerKey1m.median.toFixed(2)} | ${usPerKey1m.min.toFixed(2)}–${usPerKey1m.max.toFixed(2)} (${usPerKey1m.rounds.length}) | report | |`);
    log(`| scanner_keys_per_s_lazy_source (source's work included) | ${Math.round(keysPerS.median)} | ${Math.round(keysPerS.min)}–${Math.round(keysPerS.max)} (${keysPerS.rounds.length}) | report | |`);
    log(`| api_paging_ms (10,000 items, limit 200) | ${paging.median.toFixed(1)} | ${paging.min.toFixed(1)}–${paging.max.toFixed(1)} (${paging.rounds.length}) | report | |`);
    log(`| api_paging_default_limit_ms (limit 100) | ${pagingDefault.median.toFixed(1)} | ${pagingDefault.min.toFixed(1)}–${pagingDefault.max.toFixed(1)} (${pagingDefault.rounds.length}) | report | |`);
    for (const line of consumer.rows) log(line);
    for (const line of stanza.rows) log(line);
    for (const line of fleet.rows) log(line);
    log('\n| keys | objects | ranges | gaps | backups | peak RSS MiB (median) | heap retained KiB (median) |');
    log('|---|---|---|---|---|---|---|');
    for (const n of sizes) {
      const m = memory[n];
      if (m === undefined) continue;
      log(`| ${n} | ${m.keys} | ${m.ranges} | ${m.gaps} | ${m.backups} | ${(median(m.rss) / 2 ** 20).toFixed(1)} | ${(median(m.heap) / 1024).toFixed(1)} |`);
    }
    for (const line of stanza.memoryRows) log(line);
    log('\n| case | median s | rounds |');
    log('|---|---|---|');
    for (const n of names) log(`| ${n} | ${median(times[n] as number[]).toFixed(2)} | ${(times[n] as number[]).map((t) => t.toFixed(2)).join(' ')} |`);
    for (const line of stanza.caseRows) log(line);
    for (const line of fleet.caseRows) log(line);

    const results = {
      generated_at: new Date().toISOString(),
      quick: QUICK,
      machine: { cores: cpus().length, node: process.version, load_at_start: loadavg()[0] },
      corpus: { ...spec, objects: truth.objects, wal_keys: walKeys, segments_present: truth.segments, gaps: truth.gaps.length, backups: truth.backups, timelines: truth.timelines },
      rounds: ROUNDS,
      ratios: { ...Object.fromEntries(Object.entries(ratios).map(([k, f]) => [k, round3(f.median)])), ...stanza.results['ratios'] as Record<string, number> },
      pgbackrest: stanza.results['pgbackrest'],
      fleet: fleet.results['fleet'],
      api_p99_ms: round3(p99.median),
      scanner_keys_per_s: Math.round(keysPerSPrebuilt.median),
      scanner_keys_per_s_lazy_source: Math.round(keysPerS.median),
      scanner_us_per_key_1m: round3(1e6 / keysPerSPrebuilt.median),
      api_paging_ms: round3(paging.median),
      api_paging_default_limit_ms: round3(pagingDefault.median),
      ...consumer.results,
      api_rps: { evidence: Math.round(median(api.evidence.map((e) => e.rps))), bare: Math.round(median(api.bare.map((e) => e.rps))), bare_p99_ms: round3(median(api.bare.map((e) => e.p99_ms))) },
      spread: Object.fromEntries(
        ([...Object.entries(ratios), ['api_p99_ms', p99], ['api_bare_p99_ms', bareP99], ['scanner_keys_per_s', keysPerSPrebuilt], ['scanner_keys_per_s_lazy_source', keysPerS], ['api_paging_ms', paging], ...consumer.spread, ...stanza.spread, ...fleet.spread] as [string, Figure][]).map(([k, f]) => [k, { min: round3(f.min), max: round3(f.max), rounds: f.rounds.map(round3) }]),
      ),
      seconds: Object.fromEntries(names.map((n) => [n, (times[n] as number[]).map(round3)])),
      cpu_seconds: Object.fromEntries(names.map((n) => [n, (rounds.cpu[n] as number[]).map(round3)])),
      peak_rss_mib: Object.fromEntries(names.map((n) => [n, (rounds.rss[n] as number[]).map(round3)])),
      memory: Object.fromEntries(
        sizes.map((n) => {
          const m = memory[n] as { rss: number[]; heap: number[]; keys: number; ranges: number; gaps: number; backups: number };
          return [String(n), { objects: m.keys, ranges: m.ranges, gaps: m.gaps, backups: m.backups, peak_rss_bytes: median(m.rss), heap_retained_bytes: median(m.heap), heap_flags: HEAP_FLAGS.join(' ') }];
        }),
      ),
      notes: [
        'barman-cloud-check-wal-archive runs with the upstream paginated S3 listing swapped in (bench/barman-check-paginated.py); Debian 3.4 lists only the first 1,000 keys',
        'each store case is a whole process timed from spawn to exit; ratios pair runs of the same round',
      ],
    };
    writeFileSync(join(HERE, 'results.json'), `${JSON.stringify(results, null, 2)}\n`);
    log(`\nwrote bench/results.json (bench store data kept in ${BENCH_DIR})`);
  } finally {
    for (const stop of stops) stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (ONLY === undefined) await main();
else if (ONLY === 'consumer') await consumerOnly();
else if (ONLY === 'pgbackrest') await onePart('--only=pgbackrest', measureStanza);
else if (ONLY === 'fleet') await onePart('--only=fleet', measureFleet);
else fail(`--only=${ONLY}: the parts that run alone are consumer, pgbackrest and fleet`);
