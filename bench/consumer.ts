/**
 * The consumer figures: what the consumer library (`viewer/client`) costs to assemble a
 * publication of about 10,000 items, beside what the sidecar spends serving the same walk. Three
 * kinds of process (bench/consumer-child.ts), so no figure counts another's work:
 *   - one sidecar (`serve`): the evidence API over the publication, its request log to a file;
 *   - per round, one library process (`assemble`, --expose-gc): readSnapshot and assembleProjection
 *     at limit 200, every page validated; its wall time, peak heap above the heap before it, and
 *     the heap the finished projection retains;
 *   - per round, one bare client (`bare`): the same requests, bodies only parsed to follow the
 *     cursor; its wall time.
 * Each child walks once to warm up, then says `ready`; the driver reads the sidecar's
 * `process.cpuUsage()` (over IPC), lets the child walk once more, and reads it again when the
 * child is done: the sidecar's CPU for exactly one walk. The two clients alternate which goes
 * first each round; the ratio pairs the library's time with the bare walk of the same round.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { openSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ChildMessage } from './consumer-child.ts';

const CHILD = join(import.meta.dirname, 'consumer-child.ts');
/** 4,995 single missing segments: 4,995 gaps and 4,996 ranges; 5 backups and their 5 recovery paths. */
const GAPS = 4_995;
const BACKUPS = 5;

export interface ConsumerCounts {
  readonly objects: number;
  readonly backups: number;
  readonly 'wal-ranges': number;
  readonly 'wal-gaps': number;
  readonly 'recovery-paths': number;
}

export interface ConsumerRounds {
  readonly counts: ConsumerCounts;
  /** Requests of one walk (the snapshot and every page), the same for both clients. */
  readonly requests: number;
  readonly assemblyMs: number[];
  readonly assemblyColdMs: number[];
  readonly peakHeapBytes: number[];
  readonly retainedHeapBytes: number[];
  /** The sidecar's CPU (user + system) for the library's walk, for comparison with the bare one. */
  readonly serveCpuMsLibrary: number[];
  readonly bareWalkMs: number[];
  readonly serveCpuMs: number[];
}

/** A child's IPC messages in order, each awaited by type; a child that dies rejects every wait. */
function channel(child: ChildProcess, name: string) {
  const queue: ChildMessage[] = [];
  const waiting: { type: ChildMessage['type']; resolve: (m: ChildMessage) => void; reject: (e: Error) => void }[] = [];
  let stderr = '';
  let dead: Error | null = null;
  child.stderr?.on('data', (c: Buffer) => (stderr = (stderr + c.toString()).slice(-2_000)));
  const deliver = () => {
    for (let i = 0; i < waiting.length; i++) {
      const w = waiting[i] as (typeof waiting)[number];
      const at = queue.findIndex((m) => m.type === w.type);
      if (at === -1) continue;
      w.resolve(queue.splice(at, 1)[0] as ChildMessage);
      waiting.splice(i--, 1);
    }
  };
  child.on('message', (m: ChildMessage) => {
    queue.push(m);
    deliver();
  });
  child.on('exit', (code) => {
    dead = new Error(`consumer ${name} exited (${String(code)}): ${stderr.trim().slice(-500)}`);
    for (const w of waiting.splice(0)) w.reject(dead);
  });
  const next = <T extends ChildMessage['type']>(type: T) =>
    new Promise<Extract<ChildMessage, { type: T }>>((resolve, reject) => {
      if (dead !== null) return reject(dead);
      waiting.push({ type, resolve: resolve as (m: ChildMessage) => void, reject });
      deliver();
    });
  const exited = new Promise<number | null>((resolve) => (child.exitCode !== null ? resolve(child.exitCode) : child.once('exit', resolve)));
  return { next, exited, stderr: () => stderr };
}

export async function measureConsumer(o: { readonly dir: string; readonly rounds: number; readonly log: (line: string) => void }): Promise<ConsumerRounds> {
  const socket = join(o.dir, 'consumer.sock');
  const token = join(o.dir, 'consumer-token');
  writeFileSync(token, randomBytes(32).toString('base64url'), { mode: 0o600 });
  const server = fork(CHILD, ['serve', socket, token, String(GAPS), String(BACKUPS)], { execArgv: [], stdio: ['ignore', openSync(join(o.dir, 'consumer-sidecar.log'), 'w'), 'pipe', 'ipc'] });
  const sidecar = channel(server, 'sidecar');
  try {
    const ready = await new Promise<{ fingerprint: string; server: string } & ConsumerCounts>((resolve, reject) => {
      let seen = '';
      server.stderr?.on('data', (c: Buffer) => {
        seen += c.toString();
        const m = /ready (\{.*\})\n/.exec(seen);
        if (m !== null) resolve(JSON.parse(m[1] as string) as { fingerprint: string; server: string } & ConsumerCounts);
      });
      server.once('exit', (code) => reject(new Error(`consumer sidecar exited (${String(code)}): ${seen.trim().slice(-500)}`)));
    });
    const { fingerprint, server: serverName, ...counts } = ready;
    const items = counts.backups + counts['wal-ranges'] + counts['wal-gaps'] + counts['recovery-paths'];
    o.log(`consumer: ${o.rounds} rounds over a publication of ${items} items (${counts.backups} backups, ${counts['wal-ranges']} wal-ranges, ${counts['wal-gaps']} wal-gaps, ${counts['recovery-paths']} recovery-paths; ${counts.objects} objects scanned), limit 200, Unix socket`);

    const cpuMs = async () => {
      server.send('cpu');
      const c = await sidecar.next('cpu');
      return (c.user_us + c.system_us) / 1000;
    };
    /** One measured walk of a fresh client process: its messages, and the sidecar's CPU during the walk. */
    const walk = async (role: 'assemble' | 'bare') => {
      const child = fork(CHILD, role === 'assemble' ? [role, socket, token, fingerprint, serverName] : [role, socket, token], { execArgv: role === 'assemble' ? ['--expose-gc'] : [], stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
      const c = channel(child, role);
      await c.next('ready');
      const before = await cpuMs();
      child.send('go');
      const done = await c.next('done');
      const serveCpu = (await cpuMs()) - before;
      const heap = role === 'assemble' ? await c.next('heap') : null;
      const code = await c.exited;
      if (code !== 0) throw new Error(`consumer ${role} exited ${String(code)}: ${c.stderr().trim().slice(-500)}`);
      for (const k of ['backups', 'wal-ranges', 'wal-gaps', 'recovery-paths'] as const) {
        if (done.items[k] !== counts[k]) throw new Error(`consumer ${role} saw ${String(done.items[k])} ${k}, the sidecar serves ${counts[k]}`);
      }
      return { done, heap, serveCpu };
    };

    const r: ConsumerRounds = { counts, requests: 0, assemblyMs: [], assemblyColdMs: [], peakHeapBytes: [], retainedHeapBytes: [], serveCpuMsLibrary: [], bareWalkMs: [], serveCpuMs: [] };
    let requests = 0;
    for (let round = 0; round < o.rounds; round++) {
      const order = round % 2 === 0 ? (['assemble', 'bare'] as const) : (['bare', 'assemble'] as const);
      for (const role of order) {
        const w = await walk(role);
        if (requests !== 0 && w.done.requests !== requests) throw new Error(`consumer ${role} made ${w.done.requests} requests, the other walk ${requests}`);
        requests = w.done.requests;
        if (role === 'bare') {
          r.bareWalkMs.push(w.done.ms);
          r.serveCpuMs.push(w.serveCpu);
        } else {
          r.assemblyMs.push(w.done.ms);
          r.serveCpuMsLibrary.push(w.serveCpu);
          r.assemblyColdMs.push(w.heap?.cold_ms ?? NaN);
          r.peakHeapBytes.push(w.heap?.peak_above_baseline_bytes ?? NaN);
          r.retainedHeapBytes.push(w.heap?.retained_bytes ?? NaN);
        }
      }
      const mib = (x: number | undefined) => ((x ?? NaN) / 2 ** 20).toFixed(1);
      o.log(
        `  round ${round + 1}: library ${r.assemblyMs[round]?.toFixed(1)} ms (first walk of its process ${r.assemblyColdMs[round]?.toFixed(1)} ms), peak heap +${mib(r.peakHeapBytes[round])} MiB, retained ${mib(r.retainedHeapBytes[round])} MiB, sidecar CPU ${r.serveCpuMsLibrary[round]?.toFixed(1)} ms; ` +
          `bare walk ${r.bareWalkMs[round]?.toFixed(1)} ms, sidecar CPU ${r.serveCpuMs[round]?.toFixed(1)} ms`,
      );
    }
    return { ...r, requests };
  } finally {
    server.kill('SIGTERM');
    await sidecar.exited;
  }
}
