/**
 * `npm start` with no configuration: the real scanner over the embedded demo repository. The
 * demo's situations must all be found, and the publication must be valid.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { demoPublication } from '../../src/cli/commands/demo.ts';
import { parseConfig } from '../../src/cli/config/config.ts';

describe('embedded demo', () => {
  it('finds every situation the demo holds, in a valid publication', async () => {
    const config = parseConfig({});
    assert.ok(config.ok && config.config.mode === 'standalone');
    if (!config.ok || config.config.mode !== 'standalone') return;
    const p = await demoPublication(config.config, new Date('2026-11-21T00:00:00Z'));
    assert.deepEqual(p.violations, []);
    assert.deepEqual(p.backups.map((b) => b.reason.code), ['structurally-usable', 'structurally-usable', 'backup-failed', 'structurally-usable', 'backup-info-missing']);
    assert.deepEqual(p.walGaps.map((g) => [g.first_wal, g.status]), [['000000010000000000000016', 'confirmed']]);
    assert.deepEqual([...new Set(p.walRanges.map((r) => r.timeline))], [1, 2]);
    assert.ok(p.recoveryPaths.some((r) => r.stop === 'frontier' && r.target_timeline === 2));
    assert.ok(p.recoveryPaths.some((r) => r.stop === 'gap-limited' && r.state === 'unhealthy'));
  });

  it('npm start (the executable with no environment) prints the report and exits 0', () => {
    const r = spawnSync(process.execPath, [join(import.meta.dirname, '..', '..', 'bin', 'viewer.js')], { env: { PATH: process.env['PATH'] ?? '' }, encoding: 'utf8', timeout: 30_000 });
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /^viewer demo: server pg-main, generation 1/);
    assert.match(r.stdout, /gap on timeline 1: 000000010000000000000016\.\.000000010000000000000016 \(1 missing, confirmed\)/);
  });
});
