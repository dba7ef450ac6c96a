/**
 * `npm run soak`: the sidecar's socket under a flood (issue 19, "Load on the socket"). 64
 * keep-alive clients (16 of them slow readers) in two processes against the evidence API in a
 * third, on a Unix socket in a temporary directory, for 10 minutes, while the server republishes
 * every 3 seconds; then the figures, as text and as one JSON line, and exit status 1 if an
 * invariant broke (bench/soak-run.ts lists them). Method and latest figures: docs/performance.md.
 *
 * Usage: npm run soak [-- --minutes=N | --seconds=N] [--clients=64] [--slow-readers=16]
 *        [--client-processes=2] [--swap-ms=3000] [--warmup-seconds=S] [--seed=19] [--progress-seconds=60]
 *        (SOAK_MINUTES=N in the environment does what --minutes=N does)
 */
import { runSoak, SOAK_DEFAULTS, FLAT, type SoakReport } from './soak-run.ts';
import type { Percentiles } from './soak-histogram.ts';

function options(argv: readonly string[]) {
  const given = new Map<string, number>();
  for (const arg of argv) {
    const m = /^--([a-z-]+)=([0-9]+(?:\.[0-9]+)?)$/.exec(arg);
    if (m === null) throw new Error(`unknown argument ${arg}`);
    given.set(m[1] ?? '', Number(m[2]));
  }
  const known = new Set(['minutes', 'seconds', 'clients', 'slow-readers', 'client-processes', 'swap-ms', 'warmup-seconds', 'seed', 'progress-seconds']);
  for (const k of given.keys()) if (!known.has(k)) throw new Error(`unknown option --${k}`);
  const envMinutes = process.env['SOAK_MINUTES'];
  const minutes = given.get('minutes') ?? (envMinutes === undefined ? 10 : Number(envMinutes));
  const durationMs = (given.get('seconds') ?? minutes * 60) * 1000;
  if (!(durationMs >= 1000)) throw new Error('the soak must last at least a second');
  const clients = given.get('clients') ?? SOAK_DEFAULTS.clients;
  const slowReaders = given.get('slow-readers') ?? SOAK_DEFAULTS.slowReaders;
  if (slowReaders > clients) throw new Error('more slow readers than clients');
  return {
    durationMs,
    clients,
    slowReaders,
    clientProcesses: given.get('client-processes') ?? SOAK_DEFAULTS.clientProcesses,
    swapEveryMs: given.get('swap-ms') ?? SOAK_DEFAULTS.swapEveryMs,
    // 30 s, or a fifth of a shorter run.
    warmupMs: (given.get('warmup-seconds') ?? Math.min(30, durationMs / 5000)) * 1000,
    seed: given.get('seed') ?? SOAK_DEFAULTS.seed,
    progressEveryMs: (given.get('progress-seconds') ?? 60) * 1000,
  };
}

const ms = (p: Percentiles) => (p.count === 0 ? 'none' : `p50 ${p.p50_ms} ms, p99 ${p.p99_ms} ms, max ${p.max_ms} ms (${p.count})`);

function text(r: SoakReport): string {
  const f = (x: { idle: number; start: number | null; peak: number; end: number; after: number }) => `before ${x.idle}, start ${x.start ?? 'not reached'}, peak ${x.peak}, end ${x.end}, after ${x.after}`;
  return [
    `soak: ${r.soak.seconds} s, ${r.soak.clients} keep-alive clients (${r.soak.slow_readers} slow readers) in ${r.soak.client_processes} processes, a swap every ${r.soak.swap_every_ms} ms, warm-up ${r.soak.warmup_s} s; server ${r.soak.server_node_options}`,
    `requests          ${r.requests} (${r.requests_per_s}/s; the server counted ${r.server_requests})`,
    `by status         200: ${r.status['200']}, 409: ${r.status['409']}, 429: ${r.status['429']} (${r.busy_verified} checked busy with Retry-After), other: ${r.status.other}; connection errors: ${r.connection_errors}`,
    `429 latency       ${ms(r.busy_latency)}   [eager clients' view]`,
    `admitted latency  ${ms(r.admitted_latency)}   [eager clients' view]`,
    `server, admitted  ${ms(r.server_admitted)}   [eager clients' requests, received to last byte handed to the socket]`,
    `server, 429       ${ms(r.server_busy)}`,
    `slow readers      ${ms(r.slow_reader_latency)}; at the server ${ms(r.server_slow_reader)}   [their own stall included]`,
    `client loop delay p99 ${r.client_loop_delay.p99_ms} ms, max ${r.client_loop_delay.max_ms} ms   [how late the clients' own event loops ran: part of their latencies]`,
    `in flight         admitted at most ${r.max_in_flight} (limit 16); open at most ${r.max_open} (429s being written included); 429 with room ${r.busy_with_room}, admitted over the limit ${r.admitted_over_limit}`,
    `server RSS (MiB)  ${f(r.rss_mib)}`,
    `server fds        ${f(r.fds)}`,
    `server heap (MiB) after a full collection: start ${r.heap_after_gc_mib.start ?? 'not reached'}, after ${r.heap_after_gc_mib.after}`,
    `swaps             ${r.swaps} (${ms(r.swap_ms)})`,
    `walks             started ${r.walks.started}, completed ${r.walks.completed} (${r.walks.pages} pages), restarted on 409 ${r.walks.restarted_on_409}, completed after a restart ${r.walks.completed_after_restart}, starved ${r.walks.starved}; single pages answered 409: ${r.single_pages_409}`,
    `torn              ${r.torn}`,
    `past deadline     ${r.past_deadline}; answers cut short ${r.unfinished}`,
    `flat means        end fds <= start fds + ${FLAT.fds}, end RSS <= ${FLAT.rssFactor} x start RSS (start: the first sample after the warm-up), fds after <= fds before + ${FLAT.fds}`,
    ...r.samples.map((s) => `sample            ${s}`),
    r.violations.length === 0 ? 'every invariant held' : `INVARIANTS BROKEN:\n${r.violations.map((v) => `  - ${v}`).join('\n')}`,
  ].join('\n');
}

let o;
try {
  o = options(process.argv.slice(2));
} catch (error) {
  process.stderr.write(`soak: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(64);
}
process.stderr.write(`soak: ${o.durationMs / 1000} s of flood; progress every ${o.progressEveryMs / 1000} s\n`);
const report = await runSoak({ ...o, progress: (line) => process.stderr.write(`soak: ${line}\n`) });
process.stdout.write(`${text(report)}\n${JSON.stringify(report)}\n`);
process.exit(report.violations.length === 0 ? 0 : 1);
