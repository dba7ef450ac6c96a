/**
 * The consumer library and `viewer console` against the real `viewer` sidecar on the real fixed
 * socket path, inside a private mount namespace (`unshare -m`; CI runs as root) so the host's /run
 * is never touched. The cases live in consumer-sidecar.scenario.ts, which runs in the namespace
 * with node's test runner; this file starts it there and requires every case to pass.
 */
import { describe, it } from 'node:test';
import { PRIVATE_RUN_SKIP, runScenario } from '../support/private-run.ts';

describe('consumer against the real sidecar on the fixed socket', { skip: PRIVATE_RUN_SKIP }, () => {
  it('every scenario passes inside a private mount namespace', () => {
    runScenario('test/client/consumer-sidecar.scenario.ts', 7, 240_000);
  });
});
