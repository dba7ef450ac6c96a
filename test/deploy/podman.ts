/**
 * Rootful podman for the deploy tests, configured by test/deploy/containers.conf (CONTAINERS_CONF;
 * /etc is never touched), and the image they run (ensure-image.sh: built once per content, with
 * its reproducibility check). Without podman or root the tests are skipped, except in CI
 * (CI=true), where .ci/run installs podman and a skip would hide a failure.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';

export const CONTAINERS_CONF = join(import.meta.dirname, 'containers.conf');
const ENV = { ...process.env, CONTAINERS_CONF };

function unavailable(): string | false {
  if (process.getuid?.() !== 0) return 'the pod tests need root (rootful podman)';
  const r = spawnSync('podman', ['--version'], { env: ENV, stdio: 'ignore' });
  if (r.status !== 0) return 'podman is not installed (apt-get install podman runc catatonit mmdebstrap)';
  for (const tool of ['runc', 'catatonit', 'mmdebstrap']) {
    if (spawnSync('sh', ['-c', `command -v ${tool}`], { stdio: 'ignore' }).status !== 0) return `${tool} is not installed`;
  }
  return false;
}

const reason = unavailable();
if (reason !== false && process.env['CI'] === 'true') throw new Error(`deploy tests cannot run in CI: ${reason}`);
/** `false`, or why the podman tests are skipped here. */
export const skipPodman: string | false = reason;

export interface PodmanResult {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

export function podmanRun(args: readonly string[], timeoutMs = 60_000): PodmanResult {
  const r = spawnSync('podman', args, { env: ENV, encoding: 'utf8', timeout: timeoutMs });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** podman with `args`; its stdout, or an error carrying its stderr. */
export function podman(args: readonly string[], timeoutMs = 60_000): string {
  const r = podmanRun(args, timeoutMs);
  if (r.status !== 0) throw new Error(`podman ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return r.stdout;
}

export interface TestImage {
  readonly hash: string;
  readonly tag: string;
  readonly id: string;
  /** The ID of the second build from the same inputs (--no-cache). */
  readonly rebuilt_id: string;
  readonly size: number;
  readonly build_ms: number;
  readonly rebuild_ms: number;
}

let image: TestImage | undefined;

/** The test image of this checkout's content (built, and rebuilt once to compare, only when new). */
export function testImage(): TestImage {
  if (image !== undefined) return image;
  const out = execFileSync('bash', [join(import.meta.dirname, 'ensure-image.sh')], { env: ENV, encoding: 'utf8', timeout: 10 * 60_000, stdio: ['ignore', 'pipe', 'inherit'] });
  image = JSON.parse(out.trim().split('\n').at(-1) ?? '{}') as TestImage;
  return image;
}

/** Peak RSS (VmHWM) and CPU seconds (user + system) of a process seen from the host. */
export function processCost(pid: number): { peakRssKiB: number; cpuSeconds: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  return { peakRssKiB: Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? Number.NaN), cpuSeconds: ticks / 100 };
}

export interface SocketResponse {
  readonly status: number;
  readonly body: unknown;
}

/** GET `path` over the sidecar's socket (as root, from the host side of the mount) with `token`. */
export function socketGet(socketPath: string, path: string, token: string): Promise<SocketResponse> {
  return new Promise((resolve, reject) => {
    const req = request({ socketPath, path, headers: { authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(5_000) }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text === '' ? null : (JSON.parse(text) as unknown) }));
    });
    req.on('error', reject);
    req.end();
  });
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `probe` until it returns non-null (errors count as null), or fails after `timeoutMs`. */
export async function until<T>(what: string, probe: () => Promise<T | null> | T | null, timeoutMs = 30_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await Promise.resolve().then(probe).catch(() => null);
    if (v !== null) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(200);
  }
}
