/**
 * The alert rules on `viewer console`'s /metrics over real sidecars on real repositories (issue
 * 25). The sidecar's socket path is fixed (`/var/run/viewer/evidence.sock`), so the cases run in
 * a private mount namespace (`unshare -m`, a tmpfs on /run; CI runs as root) and the host's /run
 * is never touched: they live in console-alerts.scenario.ts, which this file starts there with
 * node's test runner, requiring every case to pass.
 */
import { describe, it } from 'node:test';
import { PRIVATE_RUN_SKIP, runScenario } from '../support/private-run.ts';
import { PROMTOOL_SKIP } from './promtool-harness.ts';

const SKIP = PROMTOOL_SKIP !== false ? PROMTOOL_SKIP : PRIVATE_RUN_SKIP;

describe('the alert rules on the console\'s /metrics over real sidecars', { skip: SKIP }, () => {
  it('every case passes inside a private mount namespace', () => {
    runScenario('test/monitoring/console-alerts.scenario.ts', 1, 480_000);
  });
});
