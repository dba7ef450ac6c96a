/**
 * The alert rules on `viewer console`'s /metrics over real sidecars on real repositories (issue
 * 25). The sidecar's socket path is fixed (`/var/run/viewer/evidence.sock`), so the cases run in
 * a private mount namespace (`unshare -m`, a tmpfs on /run; CI runs as root) and the host's /run
 * is never touched: they live in console-alerts.scenario.ts, which this file starts there with
 * node's test runner, requiring every case to pass.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { realRepositories } from '../support/real-repositories.ts';
import { PROMTOOL_SKIP, ROOT } from './promtool-harness.ts';

const unshare = spawnSync('unshare', ['-m', 'true']).status === 0;
const SKIP = PROMTOOL_SKIP !== false ? PROMTOOL_SKIP : unshare ? false : 'unshare -m is not permitted here';

describe('the alert rules on the console\'s /metrics over real sidecars', { skip: SKIP }, () => {
  it('every case passes inside a private mount namespace', () => {
    realRepositories(); // built once, before the namespace (prepare.sh is serialised)
    const script = `mount -t tmpfs tmpfs /run && exec "$NODE" --test --test-reporter=spec test/monitoring/console-alerts.scenario.ts`;
    const r = spawnSync('unshare', ['-m', 'bash', '-c', script], {
      cwd: ROOT,
      env: { PATH: process.env['PATH'] ?? '', NODE: process.execPath, ...(process.env['VIEWER_TEST_DIR'] === undefined ? {} : { VIEWER_TEST_DIR: process.env['VIEWER_TEST_DIR'] }) },
      encoding: 'utf8',
      timeout: 480_000,
    });
    const out = r.stdout + r.stderr;
    assert.equal(r.status, 0, out);
    assert.match(out, /ℹ pass 1\n/, out);
    assert.match(out, /ℹ fail 0\n/, out);
  });
});
