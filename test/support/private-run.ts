/**
 * Real sidecars in tests: the sidecar's socket path is fixed (`/var/run/viewer/evidence.sock`), so
 * a scenario that starts one runs inside a private mount namespace (`unshare -m`, a tmpfs mounted
 * on /run; CI runs as root) and the host's /run is never touched. `runScenario` starts a scenario
 * file there with node's test runner and requires every one of its cases to pass.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { realRepositories } from './real-repositories.ts';

const ROOT = join(import.meta.dirname, '..', '..');

/** Whether a private mount namespace can be made here; a skip reason otherwise. */
export const PRIVATE_RUN_SKIP: false | string = spawnSync('unshare', ['-m', 'true']).status === 0 ? false : 'unshare -m is not permitted here';

/** Runs `scenario` (a path from the repository root) in a private mount namespace; asserts it exits 0 with exactly `passes` passing cases and none failing. */
export function runScenario(scenario: string, passes: number, timeoutMs: number): void {
  realRepositories(); // built once, before the namespace (prepare.sh is serialised)
  const script = `mount -t tmpfs tmpfs /run && exec "$NODE" --test --test-reporter=spec ${scenario}`;
  const r = spawnSync('unshare', ['-m', 'bash', '-c', script], {
    cwd: ROOT,
    env: { PATH: process.env['PATH'] ?? '', NODE: process.execPath, ...(process.env['VIEWER_TEST_DIR'] === undefined ? {} : { VIEWER_TEST_DIR: process.env['VIEWER_TEST_DIR'] }) },
    encoding: 'utf8',
    timeout: timeoutMs,
  });
  const out = r.stdout + r.stderr;
  assert.equal(r.status, 0, out);
  assert.match(out, new RegExp(`ℹ pass ${passes}\\n`), out);
  assert.match(out, /ℹ fail 0\n/, out);
}
