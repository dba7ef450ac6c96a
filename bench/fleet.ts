/**
 * The fleet figures (issue 25, "Measure it"): 100 repositories of 3 barman-cloud servers each in the
 * bench store, one standalone process (`bin/viewer.js` with FLEET_FILE, METRICS_ADDR and
 * REFRESH_INTERVAL_SECONDS=60). Each round spawns the process and reads its JSON log (to a file)
 * every 250 ms until every one of the 300 scopes has published generation 1 (the first complete
 * fleet), then generation 2 (one further full refresh cycle). The times are the log's own stamps
 * of the publication that completed each (spawn to it, to the millisecond); the process's CPU
 * (utime + stime of /proc/<pid>/stat) and RSS (/proc/<pid>/status) are read at the poll that saw
 * it, up to 250 ms later. /metrics is not what is polled: one scrape of 300 scopes costs the
 * process a tenth of a second or more of CPU, and a scrape every 250 ms would measure the poller.
 * After each milestone one scrape must name exactly the 300 scopes (discovery found each
 * discovered repository's three servers), each with one current `viewer_state`, its
 * `viewer_evidence_generation` at the milestone's, and its object count, stored bytes and missing
 * WAL segments equal to the generator's truth: nothing is timed that got the fleet wrong. Last,
 * 20 scrapes in a row measure what one costs.
 *
 * The corpus: each scope is bench/corpus.ts's barman-cloud generator at 300 segments (two
 * timelines with the history file and the `.partial` of the promotion, two missing runs, changing
 * compression, two duplicated segments, three backups: one done, one failed, one still running),
 * its own seed, under `bench-fleet/fleet-NNN/<server>/`. The base-backup archives are cut to their
 * first 64 KiB (the format's header, above every size floor): the scanner reads only their sizes,
 * and 900 archives of a few MiB would put 3.7 GB in the store for nothing. 91,786 objects, loaded
 * once and reused while the marker's generator version, seed and size match.
 */
import { spawn } from 'node:child_process';
import { closeSync, openSync, readSync, writeFileSync } from 'node:fs';
import { Corpus, GENERATOR_VERSION, GroupedCorpus, type CorpusObject, type Group } from './corpus.ts';
import { cpuSeconds, statusBytes } from './proc.ts';
import { BUCKET, ENDPOINT } from './s3.ts';

/** Bump when the fleet's keys or bodies change; the marker also carries corpus.ts's GENERATOR_VERSION. */
export const FLEET_GENERATOR_VERSION = 1;
/** The loader's marker takes one number: this fleet generator's version and corpus.ts's, together. */
export const FLEET_MARKER_VERSION = FLEET_GENERATOR_VERSION * 1000 + GENERATOR_VERSION;

export const FLEET_SPEC = {
  root: 'bench-fleet/',
  repositories: 100,
  servers: ['pg-main', 'pg-orders', 'pg-reports'],
  /** WAL segments per server scope, before its gaps and duplicates. */
  segments: 300,
  seed: 20261125,
} as const;

/** Archives are cut to this: the format's first bytes, above every archive floor. */
const ARCHIVE_BYTES = 64 * 1024;
const ARCHIVE = /\/base\/[^/]+\/data\.tar(\.[a-z0-9]+)?$/;

export interface FleetScope {
  readonly repository: string;
  readonly server: string;
  readonly objects: number;
  readonly bytes: number;
  readonly missingSegments: number;
}

/** The whole fleet as one loadable corpus: one group per server scope, in key order. */
export class FleetCorpus extends GroupedCorpus {
  readonly spec: { readonly root: string; readonly seed: number; readonly segments: number };
  readonly scopes: readonly FleetScope[];
  readonly repositories: readonly string[];

  constructor() {
    super();
    const groups: Group[] = [];
    const scopes: FleetScope[] = [];
    const repositories: string[] = [];
    let seed = FLEET_SPEC.seed;
    for (let r = 0; r < FLEET_SPEC.repositories; r++) {
      const repository = `fleet-${String(r).padStart(3, '0')}`;
      repositories.push(repository);
      for (const server of FLEET_SPEC.servers) {
        const root = `${FLEET_SPEC.root}${repository}/${server}/`;
        const corpus = scope(root, () => seed++);
        const objects = [...corpus.objects()].map((o) => (ARCHIVE.test(o.key) && o.size > ARCHIVE_BYTES ? cut(o) : o));
        const bytes = objects.reduce((n, o) => n + o.size, 0);
        groups.push({ first: (objects[0] as CorpusObject).key, prefix: root, count: objects.length, bytes, build: () => objects });
        scopes.push({ repository, server, objects: objects.length, bytes, missingSegments: corpus.truth.gaps.reduce((n, g) => n + g.segments, 0) });
      }
    }
    this.seal(groups);
    this.spec = { root: FLEET_SPEC.root, seed: FLEET_SPEC.seed, segments: FLEET_SPEC.segments };
    this.scopes = scopes;
    this.repositories = repositories;
  }
}

/**
 * One scope's corpus from the next seed the generator accepts: at 300 segments a missing run can
 * fall on a segment it duplicates, and it refuses that seed; the next one is taken (deterministic).
 */
function scope(root: string, nextSeed: () => number): Corpus {
  for (let tries = 0; ; tries++) {
    try {
      return new Corpus({ root, segments: FLEET_SPEC.segments, seed: nextSeed() });
    } catch (error) {
      if (tries >= 20) throw error;
    }
  }
}

function cut(o: CorpusObject): CorpusObject {
  return { key: o.key, size: ARCHIVE_BYTES, lastModified: o.lastModified, body: () => o.body().subarray(0, ARCHIVE_BYTES) };
}

/**
 * The fleet file: one entry per repository, the even ones with their servers listed, the odd ones
 * discovered; every entry on the bench store with the bench's credential files.
 */
export function writeFleetFile(path: string, corpus: FleetCorpus, credentials: { readonly id: string; readonly secret: string }): void {
  const entries = corpus.repositories.map((name, i) => {
    const servers = i % 2 === 0 ? `    servers: [${FLEET_SPEC.servers.join(', ')}]\n` : '';
    return `  - name: ${name}\n    destination: s3://${BUCKET}/${FLEET_SPEC.root}${name}\n${servers}    endpoint_url: ${ENDPOINT}\n    access_key_id_file: ${credentials.id}\n    secret_access_key_file: ${credentials.secret}\n    labels: {tier: ${i % 3 === 0 ? 'gold' : 'silver'}}\n`;
  });
  writeFileSync(path, `repositories:\n${entries.join('')}`);
}

/** One round's figures for one process. */
export interface FleetRun {
  readonly concurrency: number;
  /** Spawn to the log's time of the publication that completed the first fleet (every scope at generation >= 1). */
  readonly firstFleetS: number;
  /** The process's CPU (user + system) from spawn to the poll that saw it. */
  readonly firstFleetCpuS: number;
  /** Scans completed by then (a scope may have begun its second). */
  readonly firstFleetScans: number;
  /** From the first complete fleet to every scope at generation >= 2; null when not measured. */
  readonly cycleS: number | null;
  readonly cycleCpuS: number | null;
  readonly cycleScans: number | null;
  /** CPU and time of one scrape of the whole fleet's /metrics, averaged over 20 in a row. */
  readonly scrapeCpuMs: number | null;
  readonly scrapeMs: number | null;
  /** VmHWM at the end of the process's watch (before its last scrapes), and VmRSS at the first complete fleet. */
  readonly peakRssBytes: number;
  readonly rssAtFirstFleetBytes: number;
  readonly scopes: number;
}

const POLL_MS = 250;
interface Sample {
  readonly name: string;
  readonly repository: string;
  readonly server: string;
  readonly status: string | undefined;
  readonly value: number;
}

/** The samples of the metric families the round reads; the rest of the text is skipped. */
const READ = /^(viewer_evidence_generation|viewer_state|viewer_objects|viewer_stored_bytes|viewer_wal_missing_segments)\{([^}]*)\} (\S+)$/gm;
function samples(text: string): Sample[] {
  const out: Sample[] = [];
  for (const m of text.matchAll(READ)) {
    const labels = m[2] as string;
    const label = (name: string) => new RegExp(`(?:^|,)${name}="([^"]*)"`).exec(labels)?.[1];
    out.push({ name: m[1] as string, repository: label('repository') ?? '', server: label('server') ?? '', status: label('status') ?? label('state'), value: Number(m[3]) });
  }
  return out;
}

/** Why the metrics disagree with the corpus, or null when every scope is there and right. */
function verify(all: readonly Sample[], corpus: FleetCorpus): string | null {
  const expected = new Map(corpus.scopes.map((s) => [`${s.repository}/${s.server}`, s]));
  const seen = new Set(all.filter((s) => s.name === 'viewer_evidence_generation').map((s) => `${s.repository}/${s.server}`));
  if (seen.size !== expected.size || [...seen].some((k) => !expected.has(k))) return `the metrics name ${seen.size} scopes, the fleet has ${expected.size}`;
  const per = new Map<string, { state: number; objects?: number; bytes?: number; missing: number }>();
  for (const s of all) {
    const k = `${s.repository}/${s.server}`;
    const e = per.get(k) ?? { state: 0, missing: 0 };
    if (s.name === 'viewer_state' && s.value === 1) e.state += 1;
    else if (s.name === 'viewer_objects') e.objects = s.value;
    else if (s.name === 'viewer_stored_bytes') e.bytes = s.value;
    else if (s.name === 'viewer_wal_missing_segments') e.missing += s.value;
    per.set(k, e);
  }
  for (const [k, truth] of expected) {
    const e = per.get(k);
    if (e === undefined || e.state !== 1) return `${k}: no viewer_state (or more than one current state)`;
    if (e.objects !== truth.objects || e.bytes !== truth.bytes || e.missing !== truth.missingSegments) return `${k}: objects ${String(e.objects)}, bytes ${String(e.bytes)}, missing segments ${e.missing}; the corpus has ${truth.objects}, ${truth.bytes}, ${truth.missingSegments}`;
  }
  return null;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The process's JSON log, read as it grows: each `published` line names its scope and generation,
 * and a generation higher than the scope's last is a completed scan, stamped with the log's time.
 */
class LogWatch {
  readonly #fd: number;
  #rest = '';
  readonly #generation = new Map<string, number>();
  /** When each scope first reached each generation (ms since the epoch), by generation. */
  readonly #reached = new Map<number, number[]>();
  scans = 0;

  constructor(path: string) {
    this.#fd = openSync(path, 'r');
  }

  read(): void {
    const buffer = Buffer.alloc(1 << 20);
    for (let n = readSync(this.#fd, buffer); n > 0; n = readSync(this.#fd, buffer)) {
      const lines = (this.#rest + buffer.subarray(0, n).toString()).split('\n');
      this.#rest = lines.pop() ?? '';
      for (const line of lines) {
        const m = /"time":"([^"]+)".*"repository":"([^"]+)","server":"([^"]+)","revision":\d+,"generation":(\d+),.*"msg":"published"/.exec(line);
        if (m === null) continue;
        const scope = `${m[2]}/${m[3]}`;
        const generation = Number(m[4]);
        const last = this.#generation.get(scope) ?? 0;
        if (generation <= last) continue;
        this.#generation.set(scope, generation);
        const at = Date.parse(m[1] as string);
        for (let g = last + 1; g <= generation; g++) (this.#reached.get(g) ?? this.#reached.set(g, []).get(g))?.push(at);
        this.scans += generation - last;
      }
    }
  }

  /** Scopes at `generation` or later, and the log's time of the last of them to get there. */
  reached(generation: number): { scopes: number; at: number } {
    const times = this.#reached.get(generation) ?? [];
    return { scopes: times.length, at: Math.max(...times) };
  }

  close(): void {
    closeSync(this.#fd);
  }
}

/**
 * One process: spawned, watched to the first complete fleet and (with `cycle`) to the end of one
 * further refresh cycle; the metrics checked at each; then the CPU of 20 scrapes in a row, and SIGTERM.
 */
export async function runFleet(options: { readonly node: string; readonly viewer: string; readonly fleetFile: string; readonly logFile: string; readonly concurrency: number; readonly cycle: boolean; readonly corpus: FleetCorpus }): Promise<FleetRun> {
  const total = options.corpus.scopes.length;
  const spawnedAt = Date.now();
  const child = spawn(options.node, [options.viewer], {
    env: {
      PATH: process.env['PATH'] ?? '',
      HOME: process.env['HOME'] ?? '/root',
      LISTEN_ADDR: '127.0.0.1:0',
      METRICS_ADDR: '127.0.0.1:0',
      FLEET_FILE: options.fleetFile,
      FLEET_CONCURRENCY: String(options.concurrency),
      REFRESH_INTERVAL_SECONDS: '60',
    },
    // The JSON log (a line per publication) goes to a file, read from there: through a pipe it would cost this process CPU beside the one measured.
    stdio: ['ignore', openSync(options.logFile, 'w'), 'pipe'],
  });
  const log = new LogWatch(options.logFile);
  const pid = child.pid as number;
  let stderr = '';
  let exited: number | null = null;
  child.on('exit', (code) => (exited = code ?? -1));
  try {
    const url = await new Promise<string>((resolve, reject) => {
      child.stderr?.on('data', (c: Buffer) => {
        stderr += c.toString();
        const m = /; metrics on (http:\/\/[^ \n]+)/.exec(stderr);
        if (m?.[1] !== undefined) resolve(m[1].replace('localhost', '127.0.0.1'));
      });
      child.once('exit', (code) => reject(new Error(`viewer exited ${String(code)}: ${stderr.trim().slice(-400)}`)));
    });
    const scrape = async () => {
      const r = await fetch(url);
      if (r.status !== 200) throw new Error(`/metrics answered ${r.status}`);
      return samples(await r.text());
    };
    /** Reads the log every POLL_MS until every scope reached `generation`; then the CPU, and the scans completed so far. */
    const until = async (generation: number, deadlineS: number) => {
      for (;;) {
        log.read();
        const r = log.reached(generation);
        if (r.scopes >= total) return { at: (r.at - spawnedAt) / 1000, cpu: cpuSeconds(pid), scans: log.scans };
        if (exited !== null) throw new Error(`viewer exited ${String(exited)}: ${stderr.trim().slice(-400)}`);
        if ((Date.now() - spawnedAt) / 1000 > deadlineS) throw new Error(`after ${deadlineS} s, ${r.scopes} of ${total} scopes reached generation ${generation}`);
        await sleep(POLL_MS);
      }
    };
    /** One scrape after the CPU was read: the metrics must agree with the corpus and the log. */
    const check = async (generation: number, what: string) => {
      const all = await scrape();
      const behind = all.filter((s) => s.name === 'viewer_evidence_generation' && s.value < generation).length;
      const wrong = verify(all, options.corpus) ?? (behind > 0 ? `${behind} scopes below generation ${generation} in /metrics` : null);
      if (wrong !== null) throw new Error(`${what} disagrees with the corpus: ${wrong}`);
    };
    const first = await until(1, 900);
    const rssAtFirst = statusBytes(pid, 'VmRSS');
    const hwmAtFirst = statusBytes(pid, 'VmHWM');
    await check(1, 'the first complete fleet');
    const base = { concurrency: options.concurrency, firstFleetS: first.at, firstFleetCpuS: first.cpu, firstFleetScans: first.scans, rssAtFirstFleetBytes: rssAtFirst, scopes: total };
    if (!options.cycle) return { ...base, cycleS: null, cycleCpuS: null, cycleScans: null, scrapeCpuMs: null, scrapeMs: null, peakRssBytes: hwmAtFirst };
    const cpuAfterCheck = cpuSeconds(pid);
    const second = await until(2, first.at + 900);
    const peak = statusBytes(pid, 'VmHWM');
    await check(2, 'the further cycle');
    // The cost of one scrape of the whole fleet's metrics, for scale: 20 in a row.
    const before = cpuSeconds(pid);
    const t = Date.now();
    for (let i = 0; i < 20; i++) await scrape();
    return { ...base, cycleS: second.at - first.at, cycleCpuS: second.cpu - cpuAfterCheck, cycleScans: second.scans - first.scans, scrapeCpuMs: ((cpuSeconds(pid) - before) / 20) * 1000, scrapeMs: (Date.now() - t) / 20, peakRssBytes: peak };
  } finally {
    if (exited === null) {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    }
    log.close();
  }
}
