/**
 * The real executable refuses a broken configuration before anything starts: exit code 78, one
 * stderr line per violated rule naming the variable, and not one configured value echoed, on
 * stdout or stderr. `check-config` prints a summary that carries no destination, path or identity.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';

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
    assert.match(r.stderr, /^viewer: unknown command "restore"\nusage: viewer/);
  });

  it('runs on Node 24', () => {
    assert.match(process.version, /^v24\./);
  });

  describe('with a fleet file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'viewer-fleet-refusal-'));
    after(() => rmSync(dir, { recursive: true, force: true }));
    const file = (name: string, text: string) => {
      writeFileSync(join(dir, name), text);
      return join(dir, name);
    };
    const entry = (name: string, more = '') => `  - name: ${name}\n    destination: s3://acme-backups/postgres/prod/${name}\n    access_key_id_file: /var/run/secrets/store/access-key-id\n    secret_access_key_file: /var/run/secrets/store/secret-access-key\n${more}`;

    it('refuses a broken entry at start, naming the entry and the field, never a value (exit 78)', () => {
      const broken = file('broken.yaml', `repositories:\n${entry('fleet-a')}${entry('fleet-b', '    endpoint_url: http://hunter2@store:9000\n')}`);
      const r = run({ FLEET_FILE: broken });
      assert.equal(r.status, 78);
      assert.equal(r.stdout, '');
      assert.deepEqual(r.stderr.trimEnd().split('\n').map((l) => /^viewer: configuration refused: FLEET_FILE: (repositories\[\d+\] \([\w-]+\): [a-z_]+):/.exec(l)?.[1]), ['repositories[1] (fleet-b): endpoint_url']);
    });

    it('check-config counts the fleet without naming anything in it; scan refuses it for one repository', () => {
      const good = file('good.yaml', `repositories:\n${entry('fleet-a', '    servers: [one, two]\n')}${entry('fleet-b', '    servers: [three]\n')}`);
      const r = run({ FLEET_FILE: good, METRICS_ADDR: '127.0.0.1:9464' }, ['check-config']);
      assert.equal(r.status, 0, r.stderr);
      const summary = JSON.parse(r.stdout) as Record<string, unknown>;
      assert.deepEqual([summary['destination'], summary['repositories'], summary['scopes'], summary['fleet_concurrency'], summary['metrics_listen']], ['fleet-file', 2, 3, 4, 'configured']);
      assert.ok(!r.stdout.includes('fleet-a') && !r.stdout.includes(dir), 'check-config names a repository or the file');
      const scan = run({ FLEET_FILE: good }, ['scan']);
      assert.equal(scan.status, 64);
      assert.match(scan.stderr, /scan reads one repository: unset FLEET_FILE/);
    });
  });
});
