/**
 * The GCS driver keeps Google's client-library logging off. Those libraries log through one
 * backend (google-logging-utils) when GOOGLE_SDK_NODE_LOGGING asks them to; the authorized
 * client's requests and answers go there (its `auth` logger). The emulator the scan tests use is
 * reached without that client, so this runs the real logger in a child process, with and without
 * the driver loaded.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, it } from 'node:test';

const ROOT = join(import.meta.dirname, '..', '..', '..');
const DRIVER = pathToFileURL(join(import.meta.dirname, 'gcs-driver.ts')).href;

/** stderr of a process that asks Google's `auth` logger to log a probe line. */
function probe(loadDriver: boolean): string {
  const script = `${loadDriver ? `await import(${JSON.stringify(DRIVER)});` : ''}
const { log } = await import('google-logging-utils');
log('auth').debug('probe-line %s', 'token-like-text');
log('auth').info('probe-line %s', 'token-like-text');`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT, env: { PATH: process.env['PATH'] ?? '', GOOGLE_SDK_NODE_LOGGING: '*', DEBUG: '*' }, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return r.stderr;
}

describe('store-c driver and the client libraries\' logging', () => {
  it('control: without the driver, GOOGLE_SDK_NODE_LOGGING makes the libraries log to stderr', () => {
    assert.match(probe(false), /probe-line token-like-text/);
  });

  it('with the driver loaded, nothing is logged', () => {
    assert.equal(probe(true), '');
  });
});
