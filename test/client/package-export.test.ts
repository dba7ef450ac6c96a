/**
 * `viewer/client` is a subpath export of the package: typed when imported by name (a
 * self-reference here), and importable from another project that depends on the package through a
 * `file:` dependency (npm links it; Node 24 strips the types of the linked source, D-68).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import * as client from 'viewer/client';

const ROOT = join(import.meta.dirname, '..', '..');

describe('the viewer/client subpath export', () => {
  it('resolves by package name with its types', () => {
    const setting: client.ConsumerSetting = client.consumerConfigFrom({});
    assert.deepEqual(setting, { enabled: false });
    assert.equal(client.EVIDENCE_URL, 'unix:///var/run/viewer/evidence.sock');
    assert.equal(typeof client.EvidenceSource, 'function');
    assert.equal(typeof client.correlate, 'function');
  });

  it('is importable from a project that depends on the package', () => {
    const dir = mkdtempSync(join(tmpdir(), 'viewer-integrator-'));
    try {
      mkdirSync(join(dir, 'node_modules'));
      symlinkSync(ROOT, join(dir, 'node_modules', 'viewer'), 'dir');
      writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'console', type: 'module', dependencies: { viewer: `file:${ROOT}` } }));
      writeFileSync(join(dir, 'main.js'), "const c = await import('viewer/client');\nconsole.log(JSON.stringify(Object.keys(c).sort()));\n");
      const r = spawnSync(process.execPath, ['main.js'], { cwd: dir, encoding: 'utf8' });
      assert.equal(r.status, 0, r.stderr);
      const names = JSON.parse(r.stdout) as string[];
      for (const name of ['EvidenceSource', 'consumerConfigFrom', 'correlate', 'explainReason', 'projectionMetrics', 'readSnapshot', 'assembleProjection']) assert.ok(names.includes(name), name);
      const deep = spawnSync(process.execPath, ['-e', "import('viewer/src/store/s3/s3-driver.ts').then(() => console.log('reachable'))"], { cwd: dir, encoding: 'utf8' });
      assert.notEqual(deep.status, 0, 'only the exported subpaths are reachable');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
