/** The consumer's four inputs: every refusal of the contract, and the accepted form. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConsumerConfigError, consumerConfigFrom } from './config.ts';

const GOOD = {
  REPOSITORY_EVIDENCE_URL: 'unix:///var/run/viewer/evidence.sock',
  REPOSITORY_EVIDENCE_TOKEN_FILE: '/var/run/secrets/viewer/token',
  REPOSITORY_EXPECTED_FINGERPRINT: `sha256:${'a1'.repeat(32)}`,
  REPOSITORY_BARMAN_SERVER: 'pg-main',
};

function refusal(env: Record<string, string | undefined>): string[] {
  try {
    consumerConfigFrom(env);
  } catch (e) {
    assert.ok(e instanceof ConsumerConfigError);
    return e.violations.map((v) => v.variable);
  }
  assert.fail('accepted');
}

describe('consumer configuration', () => {
  it('accepts the four inputs and keeps them exactly', () => {
    assert.deepEqual(consumerConfigFrom(GOOD), { enabled: true, socketPath: '/var/run/viewer/evidence.sock', tokenFile: GOOD.REPOSITORY_EVIDENCE_TOKEN_FILE, expectedFingerprint: GOOD.REPOSITORY_EXPECTED_FINGERPRINT, server: 'pg-main' });
  });

  it('is disabled only when none of the four is present', () => {
    assert.deepEqual(consumerConfigFrom({ PATH: '/usr/bin' }), { enabled: false });
  });

  it('requires all four once any is present (rule 1)', () => {
    for (const name of Object.keys(GOOD)) assert.deepEqual(refusal({ ...GOOD, [name]: undefined }), [name], name);
    assert.deepEqual(refusal({ REPOSITORY_BARMAN_SERVER: 'pg-main' }), ['REPOSITORY_EVIDENCE_URL', 'REPOSITORY_EVIDENCE_TOKEN_FILE', 'REPOSITORY_EXPECTED_FINGERPRINT']);
    assert.deepEqual(refusal({ ...GOOD, REPOSITORY_EVIDENCE_TOKEN_FILE: '' }), ['REPOSITORY_EVIDENCE_TOKEN_FILE']);
  });

  const badUrls = [
    'http://127.0.0.1:8080',
    'http://localhost/api',
    'tcp://127.0.0.1:9000',
    'http://[::1]:80',
    '127.0.0.1:9000',
    'unix:///tmp/evidence.sock',
    'unix:/var/run/viewer/evidence.sock',
    'unix:///var/run/viewer/evidence.sock/',
    'unix:///var/run/viewer/../viewer/evidence.sock',
    'UNIX:///var/run/viewer/evidence.sock',
    ' unix:///var/run/viewer/evidence.sock',
    'https://sidecar.databases.svc:443',
  ];
  for (const url of badUrls) {
    it(`refuses the evidence URL ${JSON.stringify(url)}`, () => assert.deepEqual(refusal({ ...GOOD, REPOSITORY_EVIDENCE_URL: url }), ['REPOSITORY_EVIDENCE_URL']));
  }

  for (const path of ['token', './token', '/var/run/../secrets/token', '/var/run//token', '/var/run/secrets/', 'C:\\token']) {
    it(`refuses the token file path ${JSON.stringify(path)}`, () => assert.deepEqual(refusal({ ...GOOD, REPOSITORY_EVIDENCE_TOKEN_FILE: path }), ['REPOSITORY_EVIDENCE_TOKEN_FILE']));
  }

  for (const fp of ['sha256:abc', `sha256:${'A1'.repeat(32)}`, `sha1:${'a'.repeat(64)}`, 'a'.repeat(64), `sha256:${'a'.repeat(65)}`]) {
    it(`refuses the fingerprint ${fp.slice(0, 12)}…`, () => assert.deepEqual(refusal({ ...GOOD, REPOSITORY_EXPECTED_FINGERPRINT: fp }), ['REPOSITORY_EXPECTED_FINGERPRINT']));
  }

  for (const server of ['pg main', '../pg', 'pg/main', '-pg', 'x'.repeat(129)]) {
    it(`refuses the server name ${JSON.stringify(server.slice(0, 12))}`, () => assert.deepEqual(refusal({ ...GOOD, REPOSITORY_BARMAN_SERVER: server }), ['REPOSITORY_BARMAN_SERVER']));
  }

  it('never puts a value into its message', () => {
    const secret = '/very/secret/path/../token';
    try {
      consumerConfigFrom({ ...GOOD, REPOSITORY_EVIDENCE_TOKEN_FILE: secret, REPOSITORY_EVIDENCE_URL: 'http://10.0.0.7:1' });
      assert.fail('accepted');
    } catch (e) {
      assert.ok(e instanceof ConsumerConfigError && !e.message.includes('secret') && !e.message.includes('10.0.0.7'));
    }
  });
});
