/**
 * Sidecar credential rules 1–3 against a real store: with valid AWS_* variables, a valid shared
 * credentials file and config in the environment, a sidecar whose static files hold a wrong
 * secret fails as `authentication` — it never falls back to the ambient chain. The control runs
 * prove the ambient values were valid (standalone mode uses them) and the static files work.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { LOOPBACK_GUARD } from '../support/loopback-guard.ts';
import { realRepositories, type RealRepositories } from '../support/real-repositories.ts';
import { runViewer } from '../support/run-viewer.ts';

describe('sidecar credentials never fall back to the ambient chain', () => {
  let repos: RealRepositories;
  let dir: string;
  let ambient: Record<string, string>;
  let sidecar: (secretFile: string) => Record<string, string>;

  before(() => {
    repos = realRepositories();
    dir = mkdtempSync(join(tmpdir(), 'viewer-cred-'));
    mkdirSync(join(dir, 'home', '.aws'), { recursive: true });
    const profile = `[default]\naws_access_key_id = ${repos.accessKeyId}\naws_secret_access_key = ${repos.secretAccessKey}\n`;
    writeFileSync(join(dir, 'home', '.aws', 'credentials'), profile);
    writeFileSync(join(dir, 'home', '.aws', 'config'), `[default]\nregion = us-east-1\nendpoint_url = ${repos.endpoint}\n`);
    writeFileSync(join(dir, 'id'), repos.accessKeyId);
    writeFileSync(join(dir, 'good-secret'), repos.secretAccessKey);
    writeFileSync(join(dir, 'wrong-secret'), 'definitely-not-the-secret');
    ambient = {
      HOME: join(dir, 'home'),
      AWS_ACCESS_KEY_ID: repos.accessKeyId,
      AWS_SECRET_ACCESS_KEY: repos.secretAccessKey,
      AWS_REGION: 'us-east-1',
      AWS_ENDPOINT_URL: repos.endpoint,
      AWS_SHARED_CREDENTIALS_FILE: join(dir, 'home', '.aws', 'credentials'),
      AWS_CONFIG_FILE: join(dir, 'home', '.aws', 'config'),
      AWS_PROFILE: 'default',
    };
    sidecar = (secretFile) => ({
      ...ambient,
      RUNTIME_MODE: 'sidecar',
      REPOSITORY_FORMAT: 'archive-cloud',
      PROVIDER: 'store-a',
      DESTINATION_PATH: `s3://${repos.bucket}/${repos.prefix}`,
      ARCHIVE_SERVER_NAMES: 'pg-wal1m',
      EVIDENCE_TOKEN_FILE: join(dir, 'token'),
      CLUSTER_NAMESPACE: 'databases',
      CLUSTER_UID: '6f1c2a7e-3b9d-4e8f-a1c2-9d8e7f6a5b4c',
      STORE_CREDENTIAL_MODE: 'static-files',
      STORE_ACCESS_KEY_ID_FILE: join(dir, 'id'),
      STORE_SECRET_ACCESS_KEY_FILE: join(dir, secretFile),
      STORE_ENDPOINT_URL: repos.endpoint,
    });
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('control: the ambient values are valid (standalone mode uses them)', async () => {
    const r = await runViewer(['scan'], { ...ambient, DESTINATION_PATH: `s3://${repos.bucket}/${repos.prefix}`, ARCHIVE_SERVER_NAMES: 'pg-wal1m', STORE_ENDPOINT_URL: repos.endpoint });
    assert.equal(r.status, 0, r.stderr);
  });

  it('control: the sidecar works with the right static files', async () => {
    const r = await runViewer(['scan'], sidecar('good-secret'));
    assert.equal(r.status, 0, r.stderr);
  });

  it('a wrong static secret fails as authentication although valid ambient credentials are all around', async () => {
    const r = await runViewer(['scan'], sidecar('wrong-secret'));
    assert.equal(r.status, 1);
    assert.match(r.stderr, /scan failed: authentication/);
    const snapshot = (JSON.parse(r.stdout) as { snapshot: { inventory: { last_failure_category: string } } }).snapshot;
    assert.equal(snapshot.inventory.last_failure_category, 'authentication');
    for (const s of [repos.secretAccessKey, 'definitely-not-the-secret', repos.accessKeyId]) assert.ok(!r.stdout.includes(s) && !r.stderr.includes(s));
  });

  it('without STORE_ENDPOINT_URL, explicit credentials never go to an endpoint from AWS_ENDPOINT_URL or the shared config', async () => {
    // Both ambient sources name the real store, so following either would succeed. Unset, the
    // endpoint is AWS's own: the loopback guard refuses it and records the attempt.
    const guardLog = join(dir, 'guard.log');
    const env = sidecar('good-secret');
    delete env['STORE_ENDPOINT_URL'];
    const r = await runViewer(['scan'], { ...env, AWS_ENDPOINT_URL_S3: repos.endpoint, NODE_OPTIONS: `--import=${LOOPBACK_GUARD}`, LOOPBACK_GUARD_LOG: guardLog });
    assert.equal(r.status, 1, r.stdout);
    assert.match(r.stderr, /scan failed: unavailable/);
    const attempts = existsSync(guardLog) ? readFileSync(guardLog, 'utf8') : '';
    assert.match(attempts, /amazonaws\.com/);
  });
});
