/**
 * The real executable refuses a broken configuration before anything starts: exit code 78, one
 * stderr line per violated rule naming the variable, and not one configured value echoed, on
 * stdout or stderr. `check-config` prints a summary that carries no destination, path or identity.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, it } from 'node:test';

const BIN = join(import.meta.dirname, '..', '..', 'bin', 'viewer.js');

const SIDECAR = {
  RUNTIME_MODE: 'sidecar',
  REPOSITORY_FORMAT: 'archive-cloud',
  PROVIDER: 'store-a',
  DESTINATION_PATH: 's3://acme-backups/postgres/prod',
  ARCHIVE_SERVER_NAMES: 'pg-main',
  EVIDENCE_TOKEN_FILE: '/var/run/secrets/viewer/token',
  CLUSTER_NAMESPACE: 'databases',
  CLUSTER_UID: '6f1c2a7e-3b9d-4e8f-a1c2-9d8e7f6a5b4c',
  STORE_CREDENTIAL_MODE: 'static-files',
  STORE_ACCESS_KEY_ID_FILE: '/var/run/secrets/store/access-key-id',
  STORE_SECRET_ACCESS_KEY_FILE: '/var/run/secrets/store/secret-access-key',
};
const SECRET_LOOKING = ['acme-backups', 'postgres/prod', '/var/run/secrets', 'pg-main', 'databases', '6f1c2a7e', 'hunter2'];

function run(env: Record<string, string>, args: string[] = []) {
  const result = spawnSync(process.execPath, [BIN, ...args], { env: { PATH: process.env['PATH'] ?? '', ...env }, encoding: 'utf8', timeout: 20_000 });
  for (const text of [result.stdout, result.stderr]) {
    for (const s of SECRET_LOOKING) assert.ok(!text.includes(s), `output repeats a configured value (${s.length} chars)`);
  }
  return result;
}

describe('viewer executable', () => {
  it('refuses a sidecar with LISTEN_ADDR set empty: exit 78 and exactly one line naming it', () => {
    const r = run({ ...SIDECAR, LISTEN_ADDR: '' });
    assert.equal(r.status, 78);
    assert.equal(r.stdout, '');
    assert.deepEqual(r.stderr.trimEnd().split('\n'), ['viewer: configuration refused: LISTEN_ADDR: must not be set in sidecar mode (the API is served on the Unix socket only)']);
  });

  it('names every violated rule on its own line', () => {
    const r = run({ ...SIDECAR, DESTINATION_PATH: 's3://AKIA:hunter2@acme-backups/x', ALLOW_DOWNLOAD: 'true', ARCHIVE_SERVER_NAMES: 'pg-main,pg-b' });
    assert.equal(r.status, 78);
    const vars = r.stderr.trimEnd().split('\n').map((l) => /^viewer: configuration refused: ([A-Z_]+): /.exec(l)?.[1]);
    assert.deepEqual(vars.sort(), ['ALLOW_DOWNLOAD', 'ARCHIVE_SERVER_NAMES', 'DESTINATION_PATH']);
  });

  it('check-config prints a summary without destination, paths or identity', () => {
    const r = run(SIDECAR, ['check-config']);
    assert.equal(r.status, 0, r.stderr);
    const summary = JSON.parse(r.stdout) as Record<string, unknown>;
    assert.equal(summary['mode'], 'sidecar');
    assert.equal(summary['credentials'], 'static-files');
    assert.equal(summary['destination'], 'configured');
  });

  it('an unknown command is a usage error, not a start', () => {
    const r = run({}, ['restore']);
    assert.equal(r.status, 64);
    assert.match(r.stderr, /^usage: viewer/);
  });

  it('runs on Node 24', () => {
    assert.match(process.version, /^v24\./);
  });
});
