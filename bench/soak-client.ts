/**
 * A soak client process (bench/soak.ts): a share of the flood's keep-alive clients, each on its
 * own connection to the sidecar's socket, until the end time. Two kinds:
 *   eager  one request at a time, each answer read at once: the snapshot, health and readiness,
 *          single collection pages (with or without the revision of the last snapshot seen),
 *          and whole walks of a collection (the snapshot, then every page at its revision
 *          following next_cursor; on 409 the walk is dropped and restarts from the snapshot after
 *          a bounded backoff, as the spec's pagination rule 4 says). A 429 is retried after 1 to
 *          10 ms, not after the second its Retry-After asks for: that is what makes this a flood.
 *   slow   a stalled consumer: stops reading, pipelines enough requests for the largest pages
 *          (about 100-110 KB) to fill the server's send buffer, then 1 to 4 more spread over a
 *          stall of 0.1 to 1 s, then reads every answer, pauses up to 1 s, and again. The answers
 *          behind a full buffer hold requests open on the server; these are what fill the
 *          sidecar's budget of 16 (an eager client's answer leaves the handler at once and fits
 *          the socket's send buffer: eager clients alone never had two requests in flight).
 *
 * Every answer is checked: the media type; a 200 body parses and is valid against its kind's
 * JSON Schema and invariants (`wireViolations`); a 429 is `busy` with a Retry-After of whole
 * seconds; a 409 is `publication-changed`; and every page of one walk carries the snapshot's
 * (revision, evidence_generation), the same total, and together the pages make one sorted
 * collection exactly as long as that total and as the snapshot's own count. Anything else is a
 * torn answer or an unexpected status, counted with a sample of what was wrong.
 *
 * Usage (forked, with an IPC channel): node bench/soak-client.ts <socket> <token file> <eager> <slow> <end epoch ms> <seed>
 * Sends its ClientStats when the end time has passed and every client has stopped.
 */
import { readFileSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { BackupItem, RecoveryPathItem, WalGapItem, WalRangeItem } from '../src/contract/collections.ts';
import type { WireKind } from '../src/contract/kinds.ts';
import { compareBackups, compareRecoveryPaths, compareWalRuns, firstOutOfOrder } from '../src/contract/order.ts';
import { MEDIA_TYPE } from '../src/contract/values.ts';
import { COLLECTIONS, HEALTH_PATH, READY_PATH, SNAPSHOT_PATH, type CollectionRoute } from '../src/contract/routes.ts';
import type { RepositoryEvidenceSnapshot } from '../src/contract/snapshot.ts';
import { wireViolations } from '../src/contract/validate.ts';
import { detailsView } from '../src/publication/details.ts';
import { prng } from './corpus.ts';
import { Histogram, type HistogramData } from './soak-histogram.ts';
import { KeepAliveConnection, type HttpAnswer } from './soak-http.ts';

export interface ClientStats {
  readonly type: 'client-stats';
  readonly requests: number;
  readonly byStatus: Record<string, number>;
  /** Requests whose connection failed before their answer was complete. */
  readonly connectionErrors: number;
  /** Answers that were not what they claim: a 200 that does not parse or validate, a walk mixing publications, a malformed 429 or 409. */
  readonly torn: number;
  /** 429s that were a valid `busy` error with a Retry-After of whole seconds. */
  readonly busyVerified: number;
  /** Statuses no request of the flood should get (anything but 200, 409 on a revision, 429). */
  readonly unexpected: number;
  /** Up to 10 descriptions of torn or unexpected answers (no bodies). */
  readonly samples: readonly string[];
  /** Eager clients' answers, from writing the request to the last body byte. */
  readonly admitted: HistogramData;
  readonly busy: HistogramData;
  /** Slow readers' answers (their own stall included), for the record only. */
  readonly slow: HistogramData;
  /** Answers that took longer than the 5-second deadline, as seen by an eager client. */
  readonly pastDeadline: number;
  readonly walks: { readonly started: number; readonly completed: number; readonly restarts: number; readonly completedAfterRestart: number; readonly starved: number; readonly pages: number };
  readonly singlePages409: number;
  /** This process's event-loop delay while it ran (how late its own timers and reads ran). */
  readonly loopDelay: { readonly p99_ms: number; readonly max_ms: number };
}

const DEADLINE_MS = 5_000;
/** Marks a slow reader's requests, so the server's figures can tell them apart (the API ignores it). */
export const SLOW_HEADER = 'X-Soak-Client: slow';
const PAGE_SIZES = [10, 25, 50, 100, 200] as const;
/**
 * The server's send buffer on a Unix socket (the kernel's default, which Node keeps): what an
 * answer may fill before the server has to wait for the reader. A slow reader asks for enough
 * 100–110 KB pages to fill it.
 */
const SEND_BUFFER = (() => {
  try {
    return Number(readFileSync('/proc/sys/net/core/wmem_default', 'utf8').trim()) || 212_992;
  } catch {
    return 212_992;
  }
})();
/** A walk that had to restart this many times in a row gives up (counted as starved). */
const MAX_RESTARTS = 50;

type Item = BackupItem | WalRangeItem | WalGapItem | RecoveryPathItem;
const ORDER: Record<CollectionRoute, (a: Item, b: Item) => number> = {
  backups: (a, b) => compareBackups(a as BackupItem, b as BackupItem),
  'wal-ranges': (a, b) => compareWalRuns(a as WalRangeItem, b as WalRangeItem),
  'wal-gaps': (a, b) => compareWalRuns(a as WalGapItem, b as WalGapItem),
  'recovery-paths': (a, b) => compareRecoveryPaths(a as RecoveryPathItem, b as RecoveryPathItem),
};

interface Page {
  readonly revision: number;
  readonly evidence_generation: number;
  readonly total_items: number | null;
  readonly items: Item[];
  readonly next_cursor: string | null;
}

export async function runClients(o: { socketPath: string; token: string; eager: number; slow: number; endAt: number; seed: number }): Promise<ClientStats> {
  let requests = 0;
  let connectionErrors = 0;
  let torn = 0;
  let unexpected = 0;
  let pastDeadline = 0;
  let singlePages409 = 0;
  let busyVerified = 0;
  const byStatus: Record<string, number> = {};
  const samples: string[] = [];
  const admitted = new Histogram();
  const busy = new Histogram();
  const slow = new Histogram();
  const walks = { started: 0, completed: 0, restarts: 0, completedAfterRestart: 0, starved: 0, pages: 0 };
  const running = () => Date.now() < o.endAt;
  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  const sample = (what: string) => {
    if (samples.length < 10) samples.push(what);
  };
  const tear = (what: string) => {
    torn += 1;
    sample(`torn: ${what}`);
  };

  /**
   * Checks one answer of the kind a 200 should have; returns its body when it is a valid 200, a
   * valid 409 or a valid 429 (then `null` body), and counts everything else.
   */
  const judge = (path: string, a: HttpAnswer, kind: WireKind, allow409: boolean): { status: number; body: unknown } | null => {
    requests += 1;
    byStatus[a.status] = (byStatus[a.status] ?? 0) + 1;
    const route = path.split('?')[0] ?? path;
    if (a.headers.get('content-type') !== MEDIA_TYPE) {
      tear(`${route} ${a.status}: media type ${a.headers.get('content-type') ?? 'missing'}`);
      return null;
    }
    let body: unknown;
    try {
      body = JSON.parse(a.body.toString('utf8'));
    } catch {
      tear(`${route} ${a.status}: body is not JSON (${a.body.length} bytes)`);
      return null;
    }
    const expectError = (code: string): boolean => {
      const v = wireViolations('EvidenceAPIError', body);
      if (v.length > 0 || (body as { code: string }).code !== code) {
        tear(`${route} ${a.status}: not a valid ${code} error`);
        return false;
      }
      return true;
    };
    if (a.status === 200) {
      const v = wireViolations(kind, body);
      if (v.length > 0) {
        tear(`${route} 200: ${kind} invalid at ${v[0]?.path ?? ''} (${v[0]?.rule ?? ''})`);
        return null;
      }
      return { status: 200, body };
    }
    if (a.status === 429) {
      if (!/^[1-9][0-9]*$/.test(a.headers.get('retry-after') ?? '')) tear(`${route} 429: Retry-After ${a.headers.get('retry-after') ?? 'missing'}`);
      else if (expectError('busy')) {
        busyVerified += 1;
        return { status: 429, body };
      }
      return null;
    }
    if (a.status === 409 && allow409) return expectError('publication-changed') ? { status: 409, body } : null;
    unexpected += 1;
    sample(`unexpected: ${route} ${a.status} ${(body as { code?: string }).code ?? ''}`);
    return null;
  };

  // ---- eager clients -------------------------------------------------------------------------
  async function eager(index: number): Promise<void> {
    const random = prng(o.seed * 1_000 + index);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)] as T;
    let conn = new KeepAliveConnection(o.socketPath, o.token);
    const last: { snapshot: RepositoryEvidenceSnapshot | null } = { snapshot: null };

    /** One request, repeated while it is refused with 429; null when the run ends or it fails. */
    const call = async (path: string, kind: WireKind, allow409: boolean): Promise<{ status: number; body: unknown } | null> => {
      while (running()) {
        if (!conn.usable) conn = new KeepAliveConnection(o.socketPath, o.token);
        const t0 = process.hrtime.bigint();
        let a: HttpAnswer;
        try {
          a = await conn.get(path);
        } catch (error) {
          connectionErrors += 1;
          sample(`connection: ${path.split('?')[0] ?? ''} ${error instanceof Error ? error.message : 'error'}`);
          return null;
        }
        const ms = Number(process.hrtime.bigint() - t0) / 1e6;
        if (ms > DEADLINE_MS) pastDeadline += 1;
        (a.status === 429 ? busy : admitted).record(ms);
        const r = judge(path, a, kind, allow409);
        if (r?.status !== 429) return r;
        await sleep(1 + Math.floor(random() * 10));
      }
      return null;
    };

    const snapshot = async (): Promise<RepositoryEvidenceSnapshot | null> => {
      const r = await call(SNAPSHOT_PATH, 'RepositoryEvidenceSnapshot', false);
      if (r?.status !== 200) return null;
      last.snapshot = r.body as RepositoryEvidenceSnapshot;
      return last.snapshot;
    };

    const walk = async (): Promise<void> => {
      walks.started += 1;
      const c = pick(COLLECTIONS);
      const limit = pick(PAGE_SIZES);
      for (let restarts = 0; restarts <= MAX_RESTARTS; restarts++) {
        if (restarts > 0) {
          walks.restarts += 1;
          // Bounded backoff: 5, 10, 20, ... up to 160 ms, with jitter.
          await sleep(Math.min(160, 5 * 2 ** (restarts - 1)) * (0.5 + random()));
        }
        const s = await snapshot();
        if (s === null) return;
        const declared = detailsView(s.details).routeTotals[c.route];
        const items: Item[] = [];
        let total: number | null | undefined;
        let cursor: string | null = null;
        let moved = false;
        for (;;) {
          const path: string = `${c.path}?revision=${s.revision}${cursor === null ? `&limit=${limit}` : `&cursor=${cursor}`}`;
          const r = await call(path, c.kind, true);
          if (r === null) return;
          if (r.status === 409) {
            moved = true;
            break;
          }
          walks.pages += 1;
          const page = r.body as Page;
          if (page.revision !== s.revision || page.evidence_generation !== s.evidence_generation) return tear(`${c.route}: a page of (${page.revision}, ${page.evidence_generation}) in a walk of (${s.revision}, ${s.evidence_generation})`);
          if (total !== undefined && page.total_items !== total) return tear(`${c.route}: total_items changed within a walk`);
          if (page.items.length > limit || (page.next_cursor !== null && page.items.length !== limit)) return tear(`${c.route}: a page of ${page.items.length} items at limit ${limit}`);
          total = page.total_items;
          items.push(...page.items);
          if (page.next_cursor === null) break;
          cursor = page.next_cursor;
        }
        if (moved) continue;
        if (firstOutOfOrder(items, ORDER[c.route]) !== -1) return tear(`${c.route}: the pages of one walk are not one sorted collection`);
        if (total !== null && total !== items.length) return tear(`${c.route}: ${items.length} items walked, total_items ${total}`);
        if (declared !== null && declared !== items.length) return tear(`${c.route}: ${items.length} items walked, the snapshot counts ${declared}`);
        walks.completed += 1;
        if (restarts > 0) walks.completedAfterRestart += 1;
        return;
      }
      walks.starved += 1;
    };

    while (running()) {
      const r = random();
      if (r < 0.05) await (random() < 0.5 ? call(HEALTH_PATH, 'HealthStatus', false) : call(READY_PATH, 'ReadinessStatus', false));
      else if (r < 0.3) await snapshot();
      else if (r < 0.5) {
        const c = pick(COLLECTIONS);
        const s = last.snapshot;
        const q = `limit=${pick(PAGE_SIZES)}${s === null || random() < 0.5 ? '' : `&revision=${s.revision}`}`;
        const a = await call(`${c.path}?${q}`, c.kind, s !== null);
        if (a?.status === 409) singlePages409 += 1;
      } else await walk();
    }
    conn.close();
  }

  // ---- slow readers --------------------------------------------------------------------------
  const LARGE = COLLECTIONS.filter((c) => c.route === 'backups' || c.route === 'recovery-paths');
  async function slowReader(index: number): Promise<void> {
    const random = prng(o.seed * 1_000 + 500 + index);
    let conn = new KeepAliveConnection(o.socketPath, o.token, SLOW_HEADER);
    while (running()) {
      if (!conn.usable) conn = new KeepAliveConnection(o.socketPath, o.token, SLOW_HEADER);
      conn.pause();
      const t0 = process.hrtime.bigint();
      const sent: Promise<void>[] = [];
      const ask = () => {
        const c = LARGE[Math.floor(random() * LARGE.length)] ?? COLLECTIONS[0];
        const path = `${c.path}?limit=200`;
        sent.push(
          conn.get(path).then(
            (a) => {
              slow.record(Number(process.hrtime.bigint() - t0) / 1e6);
              judge(path, a, c.kind, false);
            },
            (error: unknown) => {
              connectionErrors += 1;
              sample(`connection (slow reader): ${error instanceof Error ? error.message : 'error'}`);
            },
          ),
        );
      };
      // Enough answers at once to fill the send buffer, then one more every so often while the
      // stall lasts: those can only wait, each holding a share of the budget until it is read.
      for (let i = 0; i < Math.ceil(SEND_BUFFER / 100_000); i++) ask();
      const stallMs = 100 + random() * 900;
      const more = 1 + Math.floor(random() * 4);
      for (let i = 0; i < more; i++) {
        await sleep(stallMs / more);
        if (conn.usable) ask();
      }
      conn.resume();
      await Promise.all(sent);
      await sleep(random() * 1_000);
    }
    conn.close();
  }

  await Promise.all([...Array.from({ length: o.eager }, (_, i) => eager(i)), ...Array.from({ length: o.slow }, (_, i) => slowReader(i))]);
  return {
    type: 'client-stats',
    requests,
    byStatus,
    connectionErrors,
    torn,
    busyVerified,
    unexpected,
    samples,
    admitted: admitted.toData(),
    busy: busy.toData(),
    slow: slow.toData(),
    pastDeadline,
    walks,
    singlePages409,
    loopDelay: { p99_ms: Math.round(loop.percentile(99) / 1e4) / 100, max_ms: Math.round(loop.max / 1e4) / 100 },
  };
}

if (import.meta.main) {
  const [socketPath, tokenFile, eagerText, slowText, endText, seedText] = process.argv.slice(2);
  if (socketPath === undefined || tokenFile === undefined || process.send === undefined) {
    process.stderr.write('usage (forked): soak-client.ts <socket> <token file> <eager> <slow> <end epoch ms> <seed>\n');
    process.exit(64);
  }
  // The soak that started this process is gone: nobody will read the figures.
  process.on('disconnect', () => process.exit(0));
  const stats = await runClients({ socketPath, token: readFileSync(tokenFile, 'utf8').trim(), eager: Number(eagerText), slow: Number(slowText), endAt: Number(endText), seed: Number(seedText) });
  process.send(stats, () => process.exit(0));
}
