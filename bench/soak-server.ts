/**
 * The soak's server process (bench/soak.ts): the sidecar's evidence API (`createEvidenceApi` with
 * its default limits, the token-file and socket-directory gates and the request log at the default
 * level, to standard output, which the soak points at /dev/null) on a Unix socket, over the soak's
 * publication (bench/soak-publication.ts), republished every `swap ms` as the refresher would.
 *
 * Its request handler is wrapped, outside the API, to count what the API does: requests open
 * (received, answer not yet closed), those among them the API admitted (any answer but 429), the
 * highest of each, how long each answer took from the request to its last byte handed to the
 * socket (the slow readers' requests, marked by a header, apart), and answers that closed before
 * they finished (a connection cut, the deadline). The wrapper's count of admitted requests open is
 * the API's budget counted independently: every 429 must come with 16 of them open and every
 * admission with fewer, so a count the API lost or kept too long shows (D-73).
 *
 * Usage (forked, with an IPC channel): node bench/soak-server.ts <socket> <token file> <swap ms>
 * Sends {type:'ready'}; answers {type:'stats'} with its counters; exits on {type:'stop'}.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createLogger } from '../src/common/log.ts';
import { createEvidenceApi } from '../src/surface/api/evidence-api.ts';
import { checkSocketDirectory, listenOnSocket, prepareSocketPath } from '../src/surface/api/socket.ts';
import { readTokenFile } from '../src/surface/api/token-file.ts';
import { closeGracefully } from '../src/surface/close-server.ts';
import { Histogram, type HistogramData } from './soak-histogram.ts';
import { soakPublication } from './soak-publication.ts';
import { SPEC_LIMITS } from './soak-run.ts';

export interface ServerStats {
  readonly type: 'stats';
  readonly requests: number;
  readonly byStatus: Record<string, number>;
  /** Highest number of admitted requests (any answer but 429) open at once. */
  readonly maxAdmittedInFlight: number;
  /** Highest number of requests open at once, 429s being written included. */
  readonly maxOpen: number;
  /** 429s answered while fewer than 16 admitted requests were open (the API's count ran high): must be 0. */
  readonly busyWithRoom: number;
  /** Requests admitted while 16 admitted ones were open (the API's count ran low): must be 0. */
  readonly admittedOverLimit: number;
  /** Answers that closed before their last byte was handed to the socket: must be 0. */
  readonly unfinished: number;
  /** Requests still open when the stats were taken. */
  readonly openNow: number;
  /** From the request received to the answer's last byte handed to the socket; eager clients' requests. */
  readonly admitted: HistogramData;
  readonly busy: HistogramData;
  /** The same for the slow readers' requests (their stall included). */
  readonly slowAdmitted: HistogramData;
  readonly slowBusy: HistogramData;
  readonly swaps: number;
  readonly swapMs: HistogramData;
  readonly revision: number;
  readonly generation: number;
  /** `process.memoryUsage()` in MiB, after a full collection when one was asked for (and the process runs with --expose-gc). */
  readonly memory: { readonly rss: number; readonly heapUsed: number; readonly heapTotal: number; readonly external: number; readonly arrayBuffers: number; readonly collected: boolean };
}

const [socketPath, tokenFile, swapText] = process.argv.slice(2);
const swapMs = Number(swapText);
if (socketPath === undefined || tokenFile === undefined || !(swapMs > 0) || process.send === undefined) {
  process.stderr.write('usage (forked): soak-server.ts <socket> <token file> <swap ms>\n');
  process.exit(64);
}
const send = (m: object) => process.send?.(m);

const token = await readTokenFile(tokenFile);
await checkSocketDirectory(socketPath);
await prepareSocketPath(socketPath);
const publication = await soakPublication();
const server = createEvidenceApi({ token, publication: publication.current, ready: () => true, logger: createLogger('info') });

let requests = 0;
let open = 0;
let admittedOpen = 0;
let maxOpen = 0;
let maxAdmittedInFlight = 0;
let busyWithRoom = 0;
let admittedOverLimit = 0;
let unfinished = 0;
const byStatus: Record<string, number> = {};
const admitted = new Histogram();
const busy = new Histogram();
const slowAdmitted = new Histogram();
const slowBusy = new Histogram();
const swapTimes = new Histogram();

const handlers = server.listeners('request') as ((req: IncomingMessage, res: ServerResponse) => void)[];
server.removeAllListeners('request');
server.on('request', (req: IncomingMessage, res: ServerResponse) => {
  const started = process.hrtime.bigint();
  requests += 1;
  open += 1;
  if (open > maxOpen) maxOpen = open;
  let finished = false;
  let closed = false;
  let counted = false;
  res.once('finish', () => (finished = true));
  res.once('close', () => {
    closed = true;
    open -= 1;
    if (counted) admittedOpen -= 1;
    if (!finished) unfinished += 1;
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    byStatus[res.statusCode] = (byStatus[res.statusCode] ?? 0) + 1;
    const slow = req.headers['x-soak-client'] === 'slow';
    (res.statusCode === 429 ? (slow ? slowBusy : busy) : slow ? slowAdmitted : admitted).record(ms);
  });
  // Admitted requests open before this one: the API's budget, counted independently.
  const admittedBefore = admittedOpen;
  for (const h of handlers) h.call(server, req, res);
  // The API answers within its handler: the status is known now. An answer not yet begun would
  // count as admitted, which can only make the figure higher.
  if (res.headersSent && res.statusCode === 429) {
    if (admittedBefore < SPEC_LIMITS.maxInFlight) busyWithRoom += 1;
  } else {
    if (admittedBefore >= SPEC_LIMITS.maxInFlight) admittedOverLimit += 1;
    if (!closed) {
      counted = true;
      admittedOpen += 1;
      if (admittedOpen > maxAdmittedInFlight) maxAdmittedInFlight = admittedOpen;
    }
  }
});

await listenOnSocket(server, socketPath);

let stopping = false;
let timer: NodeJS.Timeout | undefined;
const swapLater = () => {
  timer = setTimeout(() => {
    const t0 = process.hrtime.bigint();
    publication.swap().then(
      () => {
        swapTimes.record(Number(process.hrtime.bigint() - t0) / 1e6);
        if (!stopping) swapLater();
      },
      (error: unknown) => {
        process.stderr.write(`soak server: a swap failed: ${error instanceof Error ? error.message : 'error'}\n`);
        process.exit(1);
      },
    );
  }, swapMs);
};
swapLater();

const collect = (globalThis as { gc?: () => void }).gc;
const mebibytes = (n: number) => Math.round((n / 1024 / 1024) * 10) / 10;

process.on('message', (m: { type?: string; gc?: boolean }) => {
  if (m.type === 'stats') {
    const p = publication.current();
    const collected = m.gc === true && collect !== undefined;
    if (collected) collect();
    const u = process.memoryUsage();
    const stats: ServerStats = {
      type: 'stats',
      requests,
      byStatus,
      maxAdmittedInFlight,
      maxOpen,
      busyWithRoom,
      admittedOverLimit,
      unfinished,
      openNow: open,
      admitted: admitted.toData(),
      busy: busy.toData(),
      slowAdmitted: slowAdmitted.toData(),
      slowBusy: slowBusy.toData(),
      swaps: swapTimes.count,
      swapMs: swapTimes.toData(),
      revision: p.revision,
      generation: p.generation,
      memory: { rss: mebibytes(u.rss), heapUsed: mebibytes(u.heapUsed), heapTotal: mebibytes(u.heapTotal), external: mebibytes(u.external), arrayBuffers: mebibytes(u.arrayBuffers), collected },
    };
    send(stats);
  } else if (m.type === 'stop') {
    stopping = true;
    clearTimeout(timer);
    void closeGracefully(server, 1_000).then(() => process.exit(0));
  }
});
process.on('disconnect', () => process.exit(0));
send({ type: 'ready' });
