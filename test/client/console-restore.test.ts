/**
 * The console's backup to restore from against the real `viewer` sidecar on the real fixed socket
 * path, inside a private mount namespace (`unshare -m`; CI runs as root) so the host's /run is never
 * touched. The cases live in console-restore.scenario.ts, which runs in the namespace with node's
 * test runner; this file starts it there and requires every case to pass.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { realRepositories } from '../support/real-repositories.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const available = spawnSync('unshare', ['-m', 'true']).status === 0;

describe('the console\'s backup to restore from on the real sidecar', { skip: available ? false : 'unshare -m is not permitted here' }, () => {
  it('every scenario passes inside a private mount namespace', () => {
    realRepositories(); // built once, before the namespace (prepare.sh is serialised)
    const script = `mount -t tmpfs tmpfs /run && exec "$NODE" --test --test-reporter=spec test/client/console-restore.scenario.ts`;
    const r = spawnSync('unshare', ['-m', 'bash', '-c', script], {
      cwd: ROOT,
      env: { PATH: process.env['PATH'] ?? '', NODE: process.execPath, ...(process.env['VIEWER_TEST_DIR'] === undefined ? {} : { VIEWER_TEST_DIR: process.env['VIEWER_TEST_DIR'] }) },
      encoding: 'utf8',
      timeout: 180_000,
    });
    const out = r.stdout + r.stderr;
    assert.equal(r.status, 0, out);
    assert.match(out, /ℹ pass 2\n/, out);
    assert.match(out, /ℹ fail 0\n/, out);
  });
});
