/** `viewer console`'s configuration: the library's four inputs, its own variables, and no store credential. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseConsoleConfig, STORE_VARIABLES } from './console-config.ts';

const EVIDENCE = {
  REPOSITORY_EVIDENCE_URL: 'unix:///var/run/viewer/evidence.sock',
  REPOSITORY_EVIDENCE_TOKEN_FILE: '/var/run/secrets/viewer/token',
  REPOSITORY_EXPECTED_FINGERPRINT: `sha256:${'0'.repeat(64)}`,
  REPOSITORY_BARMAN_SERVER: 'pg-main',
};
const refused = (env: Record<string, string>) => {
  const r = parseConsoleConfig(env);
  return r.ok ? [] : r.violations.map((v) => v.variable);
};

describe('console configuration', () => {
  it('defaults: evidence off, :3000, no correlation, 15 s', () => {
    const r = parseConsoleConfig({});
    assert.ok(r.ok);
    assert.deepEqual(r.config, { evidence: { enabled: false }, listen: { host: null, port: 3000 }, target: null, backupRecordsFile: null, pollIntervalSeconds: 15, logLevel: 'info' });
  });
  it('takes the four inputs, the target cluster and the records file', () => {
    const r = parseConsoleConfig({ ...EVIDENCE, CLUSTER_NAMESPACE: 'databases', CLUSTER_UID: '6f1c2a7e-3b9d-4e8f-a1c2-9d8e7f6a5b4c', BACKUP_RECORDS_FILE: '/etc/backups.json', POLL_INTERVAL_SECONDS: '30' });
    assert.ok(r.ok);
    assert.equal(r.config.evidence.enabled, true);
    assert.deepEqual(r.config.target, { namespace: 'databases', uid: '6f1c2a7e-3b9d-4e8f-a1c2-9d8e7f6a5b4c' });
    assert.equal(r.config.pollIntervalSeconds, 30);
  });
  it('refuses every object-store credential and destination variable', () => {
    for (const name of STORE_VARIABLES) assert.deepEqual(refused({ ...EVIDENCE, [name]: 'x' }), [name], name);
  });
  it('refuses the library\'s violations, a half target, records without a target, bad intervals', () => {
    assert.deepEqual(refused({ ...EVIDENCE, REPOSITORY_EVIDENCE_URL: 'http://127.0.0.1:80' }), ['REPOSITORY_EVIDENCE_URL']);
    assert.deepEqual(refused({ CLUSTER_NAMESPACE: 'databases' }), ['CLUSTER_UID']);
    assert.deepEqual(refused({ BACKUP_RECORDS_FILE: '/etc/b.json' }), ['BACKUP_RECORDS_FILE']);
    assert.deepEqual(refused({ POLL_INTERVAL_SECONDS: '1' }), ['POLL_INTERVAL_SECONDS']);
    assert.deepEqual(refused({ LISTEN_ADDR: 'nowhere' }), ['LISTEN_ADDR']);
  });
});
