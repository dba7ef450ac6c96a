/**
 * What every real-sidecar scenario (run inside a private mount namespace by private-run.ts) shares:
 * the bearer token and the files the sidecar and the console read under /run, written as the pod
 * mounts them, and the wait for a condition the processes reach on their own.
 */
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RealRepositories } from './real-repositories.ts';

export const SIDECAR_TOKEN = 'q1aKFo9oVbP3rJ7Ztl0cKjYc2yU8m1Q0xW5nA4bZr-E';
export const SECRETS = '/run/secrets';
export const TOKEN_FILE = join(SECRETS, 'token');

/** The store's credential files, the token (0440, as the shared group reads it) and the socket's setgid directory. */
export function writeSidecarFiles(repos: RealRepositories): void {
  mkdirSync(SECRETS, { recursive: true });
  writeFileSync(join(SECRETS, 'id'), `${repos.accessKeyId}\n`);
  writeFileSync(join(SECRETS, 'secret'), `${repos.secretAccessKey}\n`);
  writeFileSync(TOKEN_FILE, SIDECAR_TOKEN);
  chmodSync(TOKEN_FILE, 0o440);
  mkdirSync('/run/viewer', { recursive: true });
  chmodSync('/run/viewer', 0o2770);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `probe` until it gives a value (a throw counts as not yet), or fails naming `what`. */
export async function until<T>(what: string, probe: () => Promise<T | null> | T | null, timeoutMs = 60_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await Promise.resolve().then(probe).catch(() => null);
    if (v !== null) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(250);
  }
}
