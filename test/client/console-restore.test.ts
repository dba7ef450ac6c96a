/**
 * The console's backup to restore from against the real `viewer` sidecar on the real fixed socket
 * path, inside a private mount namespace (`unshare -m`; CI runs as root) so the host's /run is never
 * touched. The cases live in console-restore.scenario.ts, which runs in the namespace with node's
 * test runner; this file starts it there and requires every case to pass.
 */
import { describe, it } from 'node:test';
import { PRIVATE_RUN_SKIP, runScenario } from '../support/private-run.ts';

describe('the console\'s backup to restore from on the real sidecar', { skip: PRIVATE_RUN_SKIP }, () => {
  it('every scenario passes inside a private mount namespace', () => {
    runScenario('test/client/console-restore.scenario.ts', 2, 180_000);
  });
});
