/**
 * The soak's driver (bench/soak.ts, test/api/flood.test.ts): starts the sidecar's evidence API in
 * a process of its own (bench/soak-server.ts) on a Unix socket in a fresh temporary directory,
 * floods it from other processes (bench/soak-client.ts) with keep-alive clients for the given
 * time while the server republishes every few seconds, samples the server's RSS and open file
 * descriptors from /proc every second, then gathers every process's counts and judges them.
 *
 * Invariants (each broken one is a line of `violations`):
 * - no torn answer (see soak-client.ts), no unexpected status, no connection failing mid-answer;
 * - at most 16 admitted requests open at the server at once, and the API's own count agreeing
 *   with the server's wrapper (no 429 with room, no admission over the limit);
 * - no request past the 5-second deadline, seen from either side, and no answer cut short;
 * - flat (judged when the run outlasts its warm-up): the last sample under load has at most
 *   8 descriptors more than the first sample after the warm-up, and an RSS at most 1.5 times
 *   that sample's; once the clients are gone the server is back within 8 descriptors of where it
 *   was before they came;
 * - the run exercised what it claims: at least one swap, one 429, one walk restarted on 409 and
 *   one completed walk.
 * Cleans up after itself: every process it started is stopped and its directory removed.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ClientStats } from './soak-client.ts';
import { Histogram, type Percentiles } from './soak-histogram.ts';
import type { ServerStats } from './soak-server.ts';

export interface SoakOptions {
  readonly durationMs: number;
  /** Keep-alive clients in all, slow readers included. */
  readonly clients: number;
  readonly slowReaders: number;
  readonly clientProcesses: number;
  readonly swapEveryMs: number;
  /** Samples before this much time under load are not the "start" of the flatness figures. */
  readonly warmupMs: number;
  readonly seed: number;
  /** Called about every `progressEveryMs` with a line of progress. */
  readonly progress?: (line: string) => void;
  readonly progressEveryMs?: number;
}

/** The spec's limits the soak holds the API to (spec "Limits"), written out: not the API's own constants, which it checks. */
export const SPEC_LIMITS = { maxInFlight: 16, deadlineMs: 5_000 } as const;

export const SOAK_DEFAULTS = { clients: 64, slowReaders: 16, clientProcesses: 2, swapEveryMs: 3_000, seed: 19 } as const;

/** How far "flat" may move: descriptors added, RSS growth factor (docs/performance.md). */
export const FLAT = { fds: 8, rssFactor: 1.5 } as const;

interface Sample {
  readonly atMs: number;
  readonly rssKiB: number;
  readonly fds: number;
}

export interface ResourceFigures {
  /** Before the clients came. */
  readonly idle: number;
  /** The first sample after the warm-up (null when the run was shorter than its warm-up). */
  readonly start: number | null;
  readonly peak: number;
  /** The last sample under load. */
  readonly end: number;
  /** Once the clients were gone. */
  readonly after: number;
}

export interface SoakReport {
  readonly soak: { readonly server_node_options: string; readonly seconds: number; readonly clients: number; readonly slow_readers: number; readonly client_processes: number; readonly swap_every_ms: number; readonly warmup_s: number };
  readonly requests: number;
  readonly requests_per_s: number;
  readonly status: { readonly '200': number; readonly '409': number; readonly '429': number; readonly other: number };
  /** 429s that were a valid `busy` error with a Retry-After of whole seconds (all of them, or some are torn). */
  readonly busy_verified: number;
  readonly connection_errors: number;
  /** Eager clients' view, from the request written to the last body byte. */
  readonly busy_latency: Percentiles;
  readonly admitted_latency: Percentiles;
  /** The server's view, from the request received to the answer's last byte handed to the socket. */
  readonly server_admitted: Percentiles;
  readonly server_busy: Percentiles;
  /** The slow readers' requests, admitted or not, at the server and as they saw them (their own stall included). */
  readonly server_slow_reader: Percentiles;
  readonly slow_reader_latency: Percentiles;
  /** The client processes' event-loop delay (the highest p99 and max among them): how far their own load delays what they measure. */
  readonly client_loop_delay: { readonly p99_ms: number; readonly max_ms: number };
  readonly server_requests: number;
  readonly max_in_flight: number;
  readonly max_open: number;
  readonly busy_with_room: number;
  readonly admitted_over_limit: number;
  readonly unfinished: number;
  readonly rss_mib: { readonly [K in keyof ResourceFigures]: ResourceFigures[K] };
  readonly fds: ResourceFigures;
  /** The server's heap used after a full collection: after the warm-up (null if the run was shorter) and once the clients were gone. */
  readonly heap_after_gc_mib: { readonly start: number | null; readonly after: number };
  readonly swaps: number;
  readonly swap_ms: Percentiles;
  readonly walks: { readonly started: number; readonly completed: number; readonly restarted_on_409: number; readonly completed_after_restart: number; readonly starved: number; readonly pages: number };
  readonly single_pages_409: number;
  readonly torn: number;
  readonly unexpected: number;
  readonly past_deadline: number;
  readonly samples: readonly string[];
  readonly violations: readonly string[];
}

function sampleOf(pid: number, atMs: number): Sample | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const rss = /^VmRSS:\s+([0-9]+) kB$/m.exec(status);
    return { atMs, rssKiB: Number(rss?.[1] ?? NaN), fds: readdirSync(`/proc/${pid}/fd`).length };
  } catch {
    return null;
  }
}

/** Resolves with the first message of `type` from `child`; rejects if it exits or the time runs out. */
function messageOf<T>(child: ChildProcess, type: string, timeoutMs: number, stderr: () => string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => done(new Error(`no ${type} message within ${timeoutMs} ms`)), timeoutMs);
    const onMessage = (m: { type?: string }) => {
      if (m.type === type) done(null, m as T);
    };
    const onExit = (code: number | null) => done(new Error(`process exited (${code ?? 'signal'}) before its ${type} message: ${stderr().slice(-500)}`));
    const done = (error: Error | null, value?: T) => {
      clearTimeout(timer);
      child.off('message', onMessage);
      child.off('exit', onExit);
      if (error === null) resolve(value as T);
      else reject(error);
    };
    child.on('message', onMessage);
    child.on('exit', onExit);
  });
}

function forkNode(script: string, args: readonly string[], execArgv: string[] = []): { child: ChildProcess; stderr: () => string } {
  let err = '';
  const child = fork(join(import.meta.dirname, script), args, { stdio: ['ignore', 'ignore', 'pipe', 'ipc'], execArgv });
  // Failures reach the soak through exit codes and missing messages; an IPC write error is not one.
  child.on('error', () => undefined);
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (c: string) => (err = (err + c).slice(-4_000)));
  return { child, stderr: () => err };
}

async function stopProcess(child: ChildProcess, graceMs: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  // A child on its way out may have closed its channel already: then a signal.
  if (child.connected) child.send({ type: 'stop' }, (error) => error !== null && child.kill('SIGTERM'));
  else child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}

/** The sidecar container's NODE_OPTIONS in the Kubernetes manifest: the soak's server runs with the pod's heap. */
export function podHeapFlags(): string[] {
  const manifest = readFileSync(join(import.meta.dirname, '..', 'deploy', 'kubernetes', 'base', 'deployment.yaml'), 'utf8');
  const m = /- name: NODE_OPTIONS\n\s+value: (.+)\n/.exec(manifest);
  if (m === null) throw new Error('deploy/kubernetes/base/deployment.yaml sets no NODE_OPTIONS');
  return (m[1] ?? '').trim().split(/\s+/);
}

const mib = (kib: number) => Math.round((kib / 1024) * 10) / 10;

export async function runSoak(o: SoakOptions): Promise<SoakReport> {
  const dir = mkdtempSync(join(tmpdir(), 'viewer-soak-'));
  const started: ChildProcess[] = [];
  try {
    // The sidecar's gates, as in a pod: a setgid directory of mode 02770, a token file of mode 0440.
    chmodSync(dir, 0o2770);
    const socketPath = join(dir, 'evidence.sock');
    const tokenFile = join(dir, 'token');
    writeFileSync(tokenFile, randomBytes(32).toString('base64url'), { mode: 0o440 });
    chmodSync(tokenFile, 0o440);

    // The pod's heap flags; --expose-gc lets the soak ask for the heap after a full collection,
    // twice a run (nothing else calls it).
    const server = forkNode('soak-server.ts', [socketPath, tokenFile, String(o.swapEveryMs)], [...podHeapFlags(), '--expose-gc']);
    started.push(server.child);
    await messageOf(server.child, 'ready', 60_000, server.stderr);
    // One question at a time: a reply is recognised by its type only.
    let asking: Promise<unknown> = Promise.resolve();
    const ask = (gc: boolean): Promise<ServerStats> => {
      const reply = asking.then(() => {
        const r = messageOf<ServerStats>(server.child, 'stats', 30_000, server.stderr);
        server.child.send({ type: 'stats', gc });
        return r;
      });
      asking = reply.catch(() => undefined);
      return reply;
    };
    const pid = server.child.pid ?? -1;
    const t0 = Date.now();
    const samples: Sample[] = [];
    const sampleNow = () => {
      const s = sampleOf(pid, Date.now() - t0);
      if (s !== null) samples.push(s);
      return s;
    };
    const idle = sampleNow();
    if (idle === null) throw new Error('cannot read the server process in /proc');

    const endAt = Date.now() + o.durationMs;
    const per = (n: number, i: number) => Math.floor(n / o.clientProcesses) + (i < n % o.clientProcesses ? 1 : 0);
    const clients = Array.from({ length: o.clientProcesses }, (_, i) => {
      const eager = per(o.clients - o.slowReaders, i);
      const slow = per(o.slowReaders, i);
      const c = forkNode('soak-client.ts', [socketPath, tokenFile, String(eager), String(slow), String(endAt), String(o.seed + i)]);
      started.push(c.child);
      return messageOf<ClientStats>(c.child, 'client-stats', o.durationMs + 60_000, c.stderr);
    });
    // Every rejection is awaited below; until then none may go unhandled.
    for (const c of clients) c.catch(() => undefined);

    let lastProgress = Date.now();
    const sampler = setInterval(() => {
      const s = sampleNow();
      if (o.progress !== undefined && s !== null && Date.now() - lastProgress >= (o.progressEveryMs ?? 60_000)) {
        lastProgress = Date.now();
        const progress = o.progress;
        ask(false).then(
          (st) => progress(`${Math.round(s.atMs / 1000)} s: ${st.requests} requests, ${st.swaps} swaps; server RSS ${mib(s.rssKiB)} MiB, heap used ${st.memory.heapUsed} MiB, ${s.fds} descriptors`),
          () => undefined,
        );
      }
    }, 1_000);
    // The heap after a full collection, once after the warm-up (after its RSS sample) and once at the end.
    let warmHeap: ServerStats['memory'] | null = null;
    const warmGc = setTimeout(() => {
      ask(true).then(
        (st) => (warmHeap = st.memory),
        () => undefined,
      );
    }, o.warmupMs + 1_500);
    let clientStats: ClientStats[];
    try {
      clientStats = await Promise.all(clients);
    } finally {
      clearInterval(sampler);
      clearTimeout(warmGc);
    }
    const floodEndMs = endAt - t0;
    const underLoad = samples.filter((s) => s.atMs > 0 && s.atMs <= floodEndMs);
    // Connections close as the client processes exit; wait (at most 10 s) for the server to see it.
    let after = sampleNow() ?? idle;
    for (let i = 0; i < 20 && after.fds > idle.fds; i++) {
      await sleep(500);
      after = sampleNow() ?? after;
    }
    const serverStats = await ask(true);
    await stopProcess(server.child, 5_000);
    return judge(o, clientStats, serverStats, idle, after, underLoad, warmHeap);
  } finally {
    try {
      for (const child of started) await stopProcess(child, 2_000);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
}

function judge(o: SoakOptions, clients: readonly ClientStats[], server: ServerStats, idle: Sample, after: Sample, underLoad: readonly Sample[], warmHeap: ServerStats['memory'] | null): SoakReport {
  const sum = (f: (c: ClientStats) => number) => clients.reduce((n, c) => n + f(c), 0);
  const merged = (f: (c: ClientStats) => Parameters<Histogram['merge']>[0]) => clients.reduce((h, c) => h.merge(f(c)), new Histogram());
  const byStatus: Record<string, number> = {};
  for (const c of clients) for (const [k, v] of Object.entries(c.byStatus)) byStatus[k] = (byStatus[k] ?? 0) + v;
  const requests = sum((c) => c.requests);
  const status = { '200': byStatus['200'] ?? 0, '409': byStatus['409'] ?? 0, '429': byStatus['429'] ?? 0, other: requests - (byStatus['200'] ?? 0) - (byStatus['409'] ?? 0) - (byStatus['429'] ?? 0) };
  const walks = {
    started: sum((c) => c.walks.started),
    completed: sum((c) => c.walks.completed),
    restarted_on_409: sum((c) => c.walks.restarts),
    completed_after_restart: sum((c) => c.walks.completedAfterRestart),
    starved: sum((c) => c.walks.starved),
    pages: sum((c) => c.walks.pages),
  };
  const serverAdmitted = new Histogram().merge(server.admitted);
  const serverBusy = new Histogram().merge(server.busy);
  const serverSlow = new Histogram().merge(server.slowAdmitted).merge(server.slowBusy);
  const last = underLoad.at(-1) ?? after;
  const warm = underLoad.find((s) => s.atMs >= o.warmupMs && s !== last) ?? null;
  const resources = (f: (s: Sample) => number, scale: (n: number) => number): ResourceFigures => ({
    idle: scale(f(idle)),
    start: warm === null ? null : scale(f(warm)),
    peak: scale(Math.max(f(idle), ...underLoad.map(f))),
    end: scale(f(last)),
    after: scale(f(after)),
  });
  const fds = resources((s) => s.fds, (n) => n);
  const rss = resources((s) => s.rssKiB, mib);
  const pastDeadline = sum((c) => c.pastDeadline) + [serverAdmitted, serverBusy, serverSlow].reduce((n, h) => n + h.countAbove(SPEC_LIMITS.deadlineMs), 0);
  const serverOther = Object.entries(server.byStatus).filter(([k]) => !['200', '409', '429'].includes(k));

  const violations: string[] = [];
  const must = (ok: boolean, what: string) => {
    if (!ok) violations.push(what);
  };
  must(sum((c) => c.torn) === 0, `torn answers: ${sum((c) => c.torn)}`);
  must(sum((c) => c.unexpected) === 0 && status.other === 0 && serverOther.length === 0, `unexpected statuses: ${JSON.stringify({ clients: status.other, server: Object.fromEntries(serverOther) })}`);
  must(sum((c) => c.connectionErrors) === 0, `connections failed mid-answer: ${sum((c) => c.connectionErrors)}`);
  must(server.maxAdmittedInFlight <= SPEC_LIMITS.maxInFlight, `admitted requests in flight reached ${server.maxAdmittedInFlight} (limit ${SPEC_LIMITS.maxInFlight})`);
  must(server.busyWithRoom === 0, `429 answered with fewer than ${SPEC_LIMITS.maxInFlight} admitted requests open: ${server.busyWithRoom}`);
  must(server.admittedOverLimit === 0, `admitted with ${SPEC_LIMITS.maxInFlight} admitted requests open: ${server.admittedOverLimit}`);
  must(pastDeadline === 0, `requests past the ${SPEC_LIMITS.deadlineMs} ms deadline: ${pastDeadline}`);
  must(server.unfinished === 0, `answers cut short at the server: ${server.unfinished}`);
  must(after.fds <= idle.fds + FLAT.fds, `descriptors once the clients left: ${after.fds}, before they came: ${idle.fds}`);
  if (fds.start !== null && rss.start !== null) {
    must(fds.end <= fds.start + FLAT.fds, `descriptors not flat: ${fds.start} after the warm-up, ${fds.end} at the end`);
    must(rss.end <= rss.start * FLAT.rssFactor, `RSS not flat: ${rss.start} MiB after the warm-up, ${rss.end} MiB at the end`);
  }
  must(server.swaps > 0, 'no publication swap happened');
  must(status['429'] > 0, 'no request was refused with 429: the budget was never reached');
  must(walks.restarted_on_409 > 0, 'no walk restarted on 409');
  must(walks.completed > 0, 'no walk completed');

  const seconds = o.durationMs / 1000;
  return {
    soak: { server_node_options: podHeapFlags().join(' '), seconds, clients: o.clients, slow_readers: o.slowReaders, client_processes: o.clientProcesses, swap_every_ms: o.swapEveryMs, warmup_s: o.warmupMs / 1000 },
    requests,
    requests_per_s: Math.round(requests / seconds),
    status,
    busy_verified: sum((c) => c.busyVerified),
    connection_errors: sum((c) => c.connectionErrors),
    busy_latency: merged((c) => c.busy).percentiles(),
    admitted_latency: merged((c) => c.admitted).percentiles(),
    server_admitted: serverAdmitted.percentiles(),
    server_busy: serverBusy.percentiles(),
    server_slow_reader: serverSlow.percentiles(),
    client_loop_delay: { p99_ms: Math.max(...clients.map((c) => c.loopDelay.p99_ms)), max_ms: Math.max(...clients.map((c) => c.loopDelay.max_ms)) },
    slow_reader_latency: merged((c) => c.slow).percentiles(),
    server_requests: server.requests,
    max_in_flight: server.maxAdmittedInFlight,
    max_open: server.maxOpen,
    busy_with_room: server.busyWithRoom,
    admitted_over_limit: server.admittedOverLimit,
    unfinished: server.unfinished,
    rss_mib: rss,
    fds,
    heap_after_gc_mib: { start: warmHeap?.collected === true ? warmHeap.heapUsed : null, after: server.memory.heapUsed },
    swaps: server.swaps,
    swap_ms: new Histogram().merge(server.swapMs).percentiles(),
    walks,
    single_pages_409: sum((c) => c.singlePages409),
    torn: sum((c) => c.torn),
    unexpected: sum((c) => c.unexpected),
    past_deadline: pastDeadline,
    samples: clients.flatMap((c) => c.samples).slice(0, 10),
    violations,
  };
}
