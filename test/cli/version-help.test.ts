/** `viewer --version`, `viewer version` and `viewer help`: what an operator types first. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { runViewer } from '../support/run-viewer.ts';

const VERSION = (JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', 'package.json'), 'utf8')) as { version: string }).version;

describe('version and help', () => {
  for (const args of [['--version'], ['version']]) {
    it(`viewer ${args.join(' ')} prints the package version`, async () => {
      const r = await runViewer(args, {});
      assert.equal(r.status, 0);
      assert.equal(r.stdout, `viewer ${VERSION}\n`);
    });
  }
  it('viewer version takes no argument', async () => assert.equal((await runViewer(['version', 'x'], {})).status, 64));
  it('viewer help names the modes, the configuration document and every command', async () => {
    const r = await runViewer(['help'], {});
    assert.equal(r.status, 0);
    for (const word of ['standalone', 'sidecar', 'docs/configuration.md', 'docs/consumer.md', 'check-config', 'scan', 'console', 'probe', 'version']) assert.ok(r.stdout.includes(word), word);
  });
});
