/**
 * Every configuration rule, one at a time: starting from a valid environment, a change that breaks
 * exactly one rule is refused and the refusal names that rule's variable, and nothing else. No
 * refusal ever repeats a configured value.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseConfig, probeTokenFile, REPOSITORY_VARIABLES, type Env } from './config.ts';

const SIDECAR_STATIC: Env = {
  RUNTIME_MODE: 'sidecar',
  REPOSITORY_FORMAT: 'archive-cloud',
  PROVIDER: 'store-a',
  DESTINATION_PATH: 's3://acme-backups/postgres/prod',
  ARCHIVE_SERVER_NAMES: 'pg-main',
  EVIDENCE_TOKEN_FILE: '/var/run/secrets/viewer/token',
  CLUSTER_NAMESPACE: 'databases',
  CLUSTER_UID: '6f1c2a7e-3b9d-4e8f-a1c2-9d8e7f6a5b4c',
  CLUSTER_NAME: 'pg-main',
  STORE_CREDENTIAL_MODE: 'static-files',
  STORE_ACCESS_KEY_ID_FILE: '/var/run/secrets/store/access-key-id',
  STORE_SECRET_ACCESS_KEY_FILE: '/var/run/secrets/store/secret-access-key',
};

const SIDECAR_WEB: Env = {
  ...SIDECAR_STATIC,
  STORE_CREDENTIAL_MODE: 'web-identity',
  STORE_ACCESS_KEY_ID_FILE: undefined,
  STORE_SECRET_ACCESS_KEY_FILE: undefined,
  STORE_WEB_IDENTITY_TOKEN_FILE: '/var/run/secrets/eks.amazonaws.com/serviceaccount/token',
  STORE_ROLE_ARN: 'arn:aws:iam::123456789012:role/viewer-reader',
  STORE_REGION: 'eu-west-1',
};

const STANDALONE: Env = { DESTINATION_PATH: 's3://acme-backups/postgres/prod' };

/** Wire and enum constants may legitimately appear in a rule; configured values may not. */
const CONSTANTS = new Set(['sidecar', 'standalone', 'archive-cloud', 'store-a', 'store-b', 'store-c', 'static-files', 'web-identity', 'ambient', 'true', 'false']);

function refused(env: Env) {
  const result = parseConfig(env);
  assert.equal(result.ok, false, 'the configuration must be refused');
  if (result.ok) throw new Error('unreachable');
  for (const v of result.violations) {
    for (const value of Object.values(env)) {
      if (value !== undefined && value.length >= 4 && !CONSTANTS.has(value)) {
        assert.ok(!v.rule.includes(value), `a rule repeats a configured value: ${v.variable}`);
      }
    }
  }
  return result.violations;
}

function accepted(env: Env) {
  const result = parseConfig(env);
  if (!result.ok) assert.fail(`refused: ${result.violations.map((v) => `${v.variable}: ${v.rule}`).join('; ')}`);
  return result.config;
}

/** [what is broken, base, change, the one variable the refusal must name] */
type Case = readonly [string, Env, Env, string];

const SIDECAR_CASES: Case[] = [
  ['LISTEN_ADDR set', SIDECAR_STATIC, { LISTEN_ADDR: ':3000' }, 'LISTEN_ADDR'],
  ['LISTEN_ADDR set empty', SIDECAR_STATIC, { LISTEN_ADDR: '' }, 'LISTEN_ADDR'],
  ['TRUSTED_USER_HEADER set', SIDECAR_STATIC, { TRUSTED_USER_HEADER: 'X-Forwarded-User' }, 'TRUSTED_USER_HEADER'],
  ['TRUSTED_USER_HEADER set empty', SIDECAR_STATIC, { TRUSTED_USER_HEADER: '' }, 'TRUSTED_USER_HEADER'],
  ['ALLOW_DOWNLOAD=true', SIDECAR_STATIC, { ALLOW_DOWNLOAD: 'true' }, 'ALLOW_DOWNLOAD'],
  ['provider other than store-a', SIDECAR_STATIC, { PROVIDER: 'store-b' }, 'PROVIDER'],
  ['provider missing', SIDECAR_STATIC, { PROVIDER: undefined }, 'PROVIDER'],
  ['format other than archive-cloud', SIDECAR_STATIC, { REPOSITORY_FORMAT: 'archive-other' }, 'REPOSITORY_FORMAT'],
  ['format missing', SIDECAR_STATIC, { REPOSITORY_FORMAT: undefined }, 'REPOSITORY_FORMAT'],
  ['stanza-repository in sidecar mode (archive-cloud only, D-72)', SIDECAR_STATIC, { REPOSITORY_FORMAT: 'stanza-repository' }, 'REPOSITORY_FORMAT'],
  ['two server names', SIDECAR_STATIC, { ARCHIVE_SERVER_NAMES: 'pg-main,pg-other' }, 'ARCHIVE_SERVER_NAMES'],
  ['no server name', SIDECAR_STATIC, { ARCHIVE_SERVER_NAMES: undefined }, 'ARCHIVE_SERVER_NAMES'],
  ['empty server names', SIDECAR_STATIC, { ARCHIVE_SERVER_NAMES: '' }, 'ARCHIVE_SERVER_NAMES'],
  ['server name with a slash', SIDECAR_STATIC, { ARCHIVE_SERVER_NAMES: 'pg/main' }, 'ARCHIVE_SERVER_NAMES'],
  ['credential mode missing', SIDECAR_STATIC, { STORE_CREDENTIAL_MODE: undefined }, 'STORE_CREDENTIAL_MODE'],
  ['credential mode ambient', SIDECAR_STATIC, { STORE_CREDENTIAL_MODE: 'ambient' }, 'STORE_CREDENTIAL_MODE'],
  ['credential mode unknown', SIDECAR_STATIC, { STORE_CREDENTIAL_MODE: 'instance-profile' }, 'STORE_CREDENTIAL_MODE'],
  ['rule 1: static-files without the secret file', SIDECAR_STATIC, { STORE_SECRET_ACCESS_KEY_FILE: undefined }, 'STORE_SECRET_ACCESS_KEY_FILE'],
  ['rule 1: static-files without the key id file', SIDECAR_STATIC, { STORE_ACCESS_KEY_ID_FILE: undefined }, 'STORE_ACCESS_KEY_ID_FILE'],
  ['rule 1: static-files with a role', SIDECAR_STATIC, { STORE_ROLE_ARN: 'arn:aws:iam::123456789012:role/x' }, 'STORE_ROLE_ARN'],
  ['rule 1: static-files with a web-identity token', SIDECAR_STATIC, { STORE_WEB_IDENTITY_TOKEN_FILE: '/var/run/token' }, 'STORE_WEB_IDENTITY_TOKEN_FILE'],
  ['rule 1: relative key id file', SIDECAR_STATIC, { STORE_ACCESS_KEY_ID_FILE: 'secrets/access-key-id' }, 'STORE_ACCESS_KEY_ID_FILE'],
  ['rule 2: web-identity with a static key file', SIDECAR_WEB, { STORE_ACCESS_KEY_ID_FILE: '/var/run/secrets/store/access-key-id' }, 'STORE_ACCESS_KEY_ID_FILE'],
  ['rule 2: web-identity with a session token file', SIDECAR_WEB, { STORE_SESSION_TOKEN_FILE: '/var/run/secrets/store/session' }, 'STORE_SESSION_TOKEN_FILE'],
  ['rule 2: web-identity without region', SIDECAR_WEB, { STORE_REGION: undefined }, 'STORE_REGION'],
  ['rule 2: web-identity without role', SIDECAR_WEB, { STORE_ROLE_ARN: undefined }, 'STORE_ROLE_ARN'],
  ['rule 2: web-identity with a malformed role', SIDECAR_WEB, { STORE_ROLE_ARN: 'viewer-reader' }, 'STORE_ROLE_ARN'],
  ['rule 2: web-identity without token file', SIDECAR_WEB, { STORE_WEB_IDENTITY_TOKEN_FILE: undefined }, 'STORE_WEB_IDENTITY_TOKEN_FILE'],
  ['web-identity token path relative', SIDECAR_WEB, { STORE_WEB_IDENTITY_TOKEN_FILE: 'serviceaccount/token' }, 'STORE_WEB_IDENTITY_TOKEN_FILE'],
  ['web-identity token path with ..', SIDECAR_WEB, { STORE_WEB_IDENTITY_TOKEN_FILE: '/var/run/secrets/../token' }, 'STORE_WEB_IDENTITY_TOKEN_FILE'],
  ['web-identity token path with //', SIDECAR_WEB, { STORE_WEB_IDENTITY_TOKEN_FILE: '/var/run//token' }, 'STORE_WEB_IDENTITY_TOKEN_FILE'],
  ['web-identity token path with trailing /', SIDECAR_WEB, { STORE_WEB_IDENTITY_TOKEN_FILE: '/var/run/token/' }, 'STORE_WEB_IDENTITY_TOKEN_FILE'],
  ['web-identity token path with ./', SIDECAR_WEB, { STORE_WEB_IDENTITY_TOKEN_FILE: '/var/run/./token' }, 'STORE_WEB_IDENTITY_TOKEN_FILE'],
  ['rule 3: another provider credential file', SIDECAR_STATIC, { STORE_CONNECTION_STRING_FILE: '/var/run/secrets/conn' }, 'STORE_CONNECTION_STRING_FILE'],
  ['cluster namespace missing', SIDECAR_STATIC, { CLUSTER_NAMESPACE: undefined }, 'CLUSTER_NAMESPACE'],
  ['cluster namespace invalid', SIDECAR_STATIC, { CLUSTER_NAMESPACE: 'Databases_Prod' }, 'CLUSTER_NAMESPACE'],
  ['cluster UID missing', SIDECAR_STATIC, { CLUSTER_UID: undefined }, 'CLUSTER_UID'],
  ['cluster UID invalid', SIDECAR_STATIC, { CLUSTER_UID: 'not-a-uid-at-all' }, 'CLUSTER_UID'],
  ['cluster name invalid', SIDECAR_STATIC, { CLUSTER_NAME: 'PG Main' }, 'CLUSTER_NAME'],
  ['token file missing', SIDECAR_STATIC, { EVIDENCE_TOKEN_FILE: undefined }, 'EVIDENCE_TOKEN_FILE'],
  ['token file relative', SIDECAR_STATIC, { EVIDENCE_TOKEN_FILE: 'token' }, 'EVIDENCE_TOKEN_FILE'],
  ['destination missing', SIDECAR_STATIC, { DESTINATION_PATH: undefined }, 'DESTINATION_PATH'],
  ['destination of another provider', SIDECAR_STATIC, { DESTINATION_PATH: 'gs://acme-backups/postgres' }, 'DESTINATION_PATH'],
  ['destination with credentials', SIDECAR_STATIC, { DESTINATION_PATH: 's3://AKIAEXAMPLE:hunter2secret@acme-backups/p' }, 'DESTINATION_PATH'],
  ['destination with a query', SIDECAR_STATIC, { DESTINATION_PATH: 's3://acme-backups/p?versionId=1' }, 'DESTINATION_PATH'],
  ['destination with ..', SIDECAR_STATIC, { DESTINATION_PATH: 's3://acme-backups/a/../b' }, 'DESTINATION_PATH'],
  ['destination with an invalid bucket', SIDECAR_STATIC, { DESTINATION_PATH: 's3://Acme_Backups/p' }, 'DESTINATION_PATH'],
  ['mode misspelled', SIDECAR_STATIC, { RUNTIME_MODE: 'Sidecar' }, 'RUNTIME_MODE'],
  ['endpoint with credentials', SIDECAR_STATIC, { STORE_ENDPOINT_URL: 'http://minio:minio123@127.0.0.1:9000' }, 'STORE_ENDPOINT_URL'],
  ['endpoint with a path', SIDECAR_STATIC, { STORE_ENDPOINT_URL: 'https://s3.example.com/bucket' }, 'STORE_ENDPOINT_URL'],
  ['region malformed', SIDECAR_STATIC, { STORE_REGION: 'EU West' }, 'STORE_REGION'],
  ['refresh interval not an integer', SIDECAR_STATIC, { REFRESH_INTERVAL_SECONDS: '5m' }, 'REFRESH_INTERVAL_SECONDS'],
  ['freshness shorter than refresh', SIDECAR_STATIC, { REFRESH_INTERVAL_SECONDS: '600', FRESHNESS_THRESHOLD_SECONDS: '300' }, 'FRESHNESS_THRESHOLD_SECONDS'],
  ['scan concurrency zero', SIDECAR_STATIC, { SCAN_CONCURRENCY: '0' }, 'SCAN_CONCURRENCY'],
  ['log level unknown', SIDECAR_STATIC, { LOG_LEVEL: 'verbose' }, 'LOG_LEVEL'],
  ['state directory relative', SIDECAR_STATIC, { STATE_DIR: 'var/lib/viewer' }, 'STATE_DIR'],
  ['state directory with a trailing /', SIDECAR_STATIC, { STATE_DIR: '/var/lib/viewer/' }, 'STATE_DIR'],
  ['state directory with ..', SIDECAR_STATIC, { STATE_DIR: '/var/lib/../viewer' }, 'STATE_DIR'],
  ['state directory empty', SIDECAR_STATIC, { STATE_DIR: '' }, 'STATE_DIR'],
  ['state directory the root', SIDECAR_STATIC, { STATE_DIR: '/' }, 'STATE_DIR'],
  ['state directory the socket directory', SIDECAR_STATIC, { STATE_DIR: '/var/run/viewer' }, 'STATE_DIR'],
  ['state directory under the socket directory', SIDECAR_STATIC, { STATE_DIR: '/var/run/viewer/state' }, 'STATE_DIR'],
  ['state directory the socket directory through /run', SIDECAR_STATIC, { STATE_DIR: '/run/viewer' }, 'STATE_DIR'],
  ['FLEET_FILE in sidecar mode', SIDECAR_STATIC, { FLEET_FILE: '/etc/viewer/fleet.yaml' }, 'FLEET_FILE'],
  ['FLEET_FILE set empty in sidecar mode', SIDECAR_STATIC, { FLEET_FILE: '' }, 'FLEET_FILE'],
  ['METRICS_ADDR in sidecar mode', SIDECAR_STATIC, { METRICS_ADDR: ':9100' }, 'METRICS_ADDR'],
  ['FLEET_CONCURRENCY in sidecar mode', SIDECAR_STATIC, { FLEET_CONCURRENCY: '4' }, 'FLEET_CONCURRENCY'],
];

const STANDALONE_CASES: Case[] = [
  ['WAL_PAGE_SIZE zero', STANDALONE, { WAL_PAGE_SIZE: '0' }, 'WAL_PAGE_SIZE'],
  ['WAL_PAGE_SIZE over 1000', STANDALONE, { WAL_PAGE_SIZE: '1001' }, 'WAL_PAGE_SIZE'],
  ['WAL_PAGE_SIZE a float', STANDALONE, { WAL_PAGE_SIZE: '1.5' }, 'WAL_PAGE_SIZE'],
  ['WAL_PAGE_SIZE with a sign', STANDALONE, { WAL_PAGE_SIZE: '+20' }, 'WAL_PAGE_SIZE'],
  ['WAL_PAGE_SIZE empty', STANDALONE, { WAL_PAGE_SIZE: '' }, 'WAL_PAGE_SIZE'],
  ['WAL_PAGE_SIZE with white space', STANDALONE, { WAL_PAGE_SIZE: ' 20' }, 'WAL_PAGE_SIZE'],
  ['LISTEN_ADDR without a port', STANDALONE, { LISTEN_ADDR: '3000' }, 'LISTEN_ADDR'],
  ['LISTEN_ADDR port out of range', STANDALONE, { LISTEN_ADDR: ':70000' }, 'LISTEN_ADDR'],
  ['LISTEN_ADDR empty', STANDALONE, { LISTEN_ADDR: '' }, 'LISTEN_ADDR'],
  ['LISTEN_ADDR brackets without an IPv6 address', STANDALONE, { LISTEN_ADDR: '[:::::]:3000' }, 'LISTEN_ADDR'],
  ['LISTEN_ADDR IPv4 in brackets', STANDALONE, { LISTEN_ADDR: '[127.0.0.1]:3000' }, 'LISTEN_ADDR'],
  ['LISTEN_ADDR empty DNS label', STANDALONE, { LISTEN_ADDR: 'a..b:3000' }, 'LISTEN_ADDR'],
  ['LISTEN_ADDR label starting with a hyphen', STANDALONE, { LISTEN_ADDR: '-:3000' }, 'LISTEN_ADDR'],
  ['LISTEN_ADDR a lone dot', STANDALONE, { LISTEN_ADDR: '.:0' }, 'LISTEN_ADDR'],
  ['LISTEN_ADDR digits that are no IPv4 address', STANDALONE, { LISTEN_ADDR: '1.2.3:3000' }, 'LISTEN_ADDR'],
  ['ALLOW_DOWNLOAD not a boolean', STANDALONE, { ALLOW_DOWNLOAD: 'yes' }, 'ALLOW_DOWNLOAD'],
  ['sidecar token file in standalone', STANDALONE, { EVIDENCE_TOKEN_FILE: '/var/run/secrets/viewer/token' }, 'EVIDENCE_TOKEN_FILE'],
  ['identity header naming Authorization', STANDALONE, { TRUSTED_USER_HEADER: 'Authorization' }, 'TRUSTED_USER_HEADER'],
  ['identity header not a header name', STANDALONE, { TRUSTED_USER_HEADER: 'X User' }, 'TRUSTED_USER_HEADER'],
  ['provider unknown', STANDALONE, { PROVIDER: 'store-d' }, 'PROVIDER'],
  ['provider not inferable', STANDALONE, { DESTINATION_PATH: 'https://storage.example.com/backups' }, 'PROVIDER'],
  ['provider contradicting the URL', STANDALONE, { PROVIDER: 'store-c' }, 'DESTINATION_PATH'],
  ['format not supported', STANDALONE, { REPOSITORY_FORMAT: 'archive-other' }, 'REPOSITORY_FORMAT'],
  ['stanza-repository without a destination (the demo is archive-cloud)', {}, { REPOSITORY_FORMAT: 'stanza-repository' }, 'DESTINATION_PATH'],
  ['minimum redundancy negative', STANDALONE, { EXPECTED_MINIMUM_REDUNDANCY: '-1' }, 'EXPECTED_MINIMUM_REDUNDANCY'],
  ['retention policy with a control character', STANDALONE, { EXPECTED_RETENTION_POLICY: 'REDUNDANCY 2\n' }, 'EXPECTED_RETENTION_POLICY'],
  ['duplicate server names', STANDALONE, { ARCHIVE_SERVER_NAMES: 'pg-a,pg-a' }, 'ARCHIVE_SERVER_NAMES'],
  ['dot-dot server name', STANDALONE, { ARCHIVE_SERVER_NAMES: '..' }, 'ARCHIVE_SERVER_NAMES'],
  ['empty entry in server names', STANDALONE, { ARCHIVE_SERVER_NAMES: 'pg-a,,pg-b' }, 'ARCHIVE_SERVER_NAMES'],
  ['server names without destination', {}, { ARCHIVE_SERVER_NAMES: 'pg-a' }, 'DESTINATION_PATH'],
  ['web-identity for store-c', { DESTINATION_PATH: 'gs://acme-backups/pg' }, { STORE_CREDENTIAL_MODE: 'web-identity' }, 'STORE_CREDENTIAL_MODE'],
  ['S3 region for store-b', { DESTINATION_PATH: 'https://acme.blob.core.windows.net/backups/pg' }, { STORE_REGION: 'eu-west-1' }, 'STORE_REGION'],
  ['endpoint URL for store-b', { DESTINATION_PATH: 'https://acme.blob.core.windows.net/backups/pg' }, { STORE_ENDPOINT_URL: 'https://acme.privatelink.blob.core.windows.net' }, 'STORE_ENDPOINT_URL'],
  ['S3 key file for store-c', { DESTINATION_PATH: 'gs://acme-backups/pg' }, { STORE_ACCESS_KEY_ID_FILE: '/k' }, 'STORE_ACCESS_KEY_ID_FILE'],
  ['static-files for store-b without its file', { DESTINATION_PATH: 'https://acme.blob.core.windows.net/backups/pg' }, { STORE_CREDENTIAL_MODE: 'static-files' }, 'STORE_CONNECTION_STRING_FILE'],
  ['ambient with a key file', STANDALONE, { STORE_CREDENTIAL_MODE: 'ambient', STORE_ACCESS_KEY_ID_FILE: '/k' }, 'STORE_ACCESS_KEY_ID_FILE'],
  ['only half the S3 file pair', STANDALONE, { STORE_ACCESS_KEY_ID_FILE: '/run/secrets/id' }, 'STORE_SECRET_ACCESS_KEY_FILE'],
  ['a CLUSTER_ identity without its UID', STANDALONE, { CLUSTER_NAMESPACE: 'databases' }, 'CLUSTER_UID'],
  ['FLEET_FILE relative', {}, { FLEET_FILE: 'fleet.yaml' }, 'FLEET_FILE'],
  ['FLEET_FILE with ..', {}, { FLEET_FILE: '/etc/viewer/../fleet.yaml' }, 'FLEET_FILE'],
  ['FLEET_FILE empty', {}, { FLEET_FILE: '' }, 'FLEET_FILE'],
  ['FLEET_CONCURRENCY zero', STANDALONE, { FLEET_CONCURRENCY: '0' }, 'FLEET_CONCURRENCY'],
  ['FLEET_CONCURRENCY over 64', STANDALONE, { FLEET_CONCURRENCY: '65' }, 'FLEET_CONCURRENCY'],
  ['FLEET_CONCURRENCY empty', STANDALONE, { FLEET_CONCURRENCY: '' }, 'FLEET_CONCURRENCY'],
  ['METRICS_ADDR empty', STANDALONE, { METRICS_ADDR: '' }, 'METRICS_ADDR'],
  ['METRICS_ADDR without a port', STANDALONE, { METRICS_ADDR: '9100' }, 'METRICS_ADDR'],
  ['METRICS_ADDR port out of range', STANDALONE, { METRICS_ADDR: ':65536' }, 'METRICS_ADDR'],
  ['METRICS_ADDR IPv4 in brackets', STANDALONE, { METRICS_ADDR: '[127.0.0.1]:9100' }, 'METRICS_ADDR'],
  ['METRICS_ADDR the default LISTEN_ADDR', STANDALONE, { METRICS_ADDR: ':3000' }, 'METRICS_ADDR'],
  ['METRICS_ADDR on one interface of the port LISTEN_ADDR takes on all', STANDALONE, { METRICS_ADDR: '127.0.0.1:3000' }, 'METRICS_ADDR'],
  ['METRICS_ADDR on all interfaces of the port LISTEN_ADDR takes on one', STANDALONE, { LISTEN_ADDR: '127.0.0.1:8080', METRICS_ADDR: ':8080' }, 'METRICS_ADDR'],
  ['METRICS_ADDR the same host and port as LISTEN_ADDR', STANDALONE, { LISTEN_ADDR: 'Localhost:8080', METRICS_ADDR: 'localhost:8080' }, 'METRICS_ADDR'],
  ...REPOSITORY_VARIABLES.map((v): Case => [`${v} beside FLEET_FILE`, { FLEET_FILE: '/etc/viewer/fleet.yaml' }, { [v]: '/run/secrets/x' }, v]),
  ['DESTINATION_PATH set empty beside FLEET_FILE', { FLEET_FILE: '/etc/viewer/fleet.yaml' }, { DESTINATION_PATH: '' }, 'DESTINATION_PATH'],
];

describe('a start with exactly one rule violated is refused and names it', () => {
  for (const [what, base, change, variable] of [...SIDECAR_CASES, ...STANDALONE_CASES]) {
    it(`${what} → ${variable}`, () => {
      accepted(base);
      const violations = refused({ ...base, ...change });
      assert.deepEqual([...new Set(violations.map((v) => v.variable))], [variable], JSON.stringify(violations));
    });
  }
});

describe('valid configurations', () => {
  it('standalone reads a pgBackRest repository with REPOSITORY_FORMAT=stanza-repository', () => {
    const c = accepted({ ...STANDALONE, REPOSITORY_FORMAT: 'stanza-repository', ARCHIVE_SERVER_NAMES: 'main' });
    assert.deepEqual([c.mode, c.format], ['standalone', 'stanza-repository']);
    assert.equal(accepted(STANDALONE).format, 'archive-cloud');
  });

  it('sidecar with static files', () => {
    const c = accepted(SIDECAR_STATIC);
    assert.equal(c.mode, 'sidecar');
    if (c.mode !== 'sidecar') return;
    assert.equal(c.serverName, 'pg-main');
    assert.deepEqual(c.destination, { provider: 'store-a', bucket: 'acme-backups', account: null, emulatorOrigin: null, prefix: 'postgres/prod' });
    assert.deepEqual(c.credentials, {
      mode: 'static-files',
      accessKeyIdFile: '/var/run/secrets/store/access-key-id',
      secretAccessKeyFile: '/var/run/secrets/store/secret-access-key',
      sessionTokenFile: null,
    });
    assert.deepEqual(c.cluster, { namespace: 'databases', uid: '6f1c2a7e-3b9d-4e8f-a1c2-9d8e7f6a5b4c', name: 'pg-main' });
  });

  it('sidecar with web identity, an optional session file being absent', () => {
    const c = accepted(SIDECAR_WEB);
    assert.deepEqual(c.credentials, { mode: 'web-identity', tokenFile: '/var/run/secrets/eks.amazonaws.com/serviceaccount/token', roleArn: 'arn:aws:iam::123456789012:role/viewer-reader' });
    assert.equal(c.region, 'eu-west-1');
  });

  it('sidecar accepts ALLOW_DOWNLOAD=false, a session token file and an S3-compatible endpoint', () => {
    const c = accepted({ ...SIDECAR_STATIC, ALLOW_DOWNLOAD: 'false', STORE_SESSION_TOKEN_FILE: '/var/run/secrets/store/session', STORE_ENDPOINT_URL: 'http://127.0.0.1:9000/' });
    assert.equal(c.endpointUrl, 'http://127.0.0.1:9000');
    assert.equal(c.credentials.mode === 'static-files' && c.credentials.sessionTokenFile, '/var/run/secrets/store/session');
  });

  it('LISTEN_ADDR takes IPv4 and bracketed IPv6 addresses and DNS host names', () => {
    for (const [text, host, port] of [['127.0.0.1:0', '127.0.0.1', 0], ['0.0.0.0:3000', '0.0.0.0', 3000], ['[::1]:8080', '::1', 8080], ['[::]:3000', '::', 3000], ['localhost:3000', 'localhost', 3000], ['viewer-1.internal:443', 'viewer-1.internal', 443]] as const) {
      const c = accepted({ LISTEN_ADDR: text });
      assert.deepEqual(c.mode === 'standalone' ? c.listen : null, { host, port }, text);
    }
  });

  it('standalone with nothing set runs the embedded demo on :3000', () => {
    const c = accepted({});
    assert.equal(c.mode, 'standalone');
    if (c.mode !== 'standalone') return;
    assert.equal(c.destination, null);
    assert.deepEqual(c.listen, { host: null, port: 3000 });
    assert.equal(c.walPageSize, 200);
    assert.equal(c.allowDownload, false);
    assert.deepEqual(c.credentials, { mode: 'ambient' });
    assert.equal(c.refreshIntervalSeconds, 300);
    assert.equal(c.freshnessThresholdSeconds, 900);
  });

  it('standalone accepts ALLOW_DOWNLOAD=true as a frozen no-op and the WAL_PAGE_SIZE bounds', () => {
    for (const size of ['1', '1000']) {
      const c = accepted({ ...STANDALONE, ALLOW_DOWNLOAD: 'true', WAL_PAGE_SIZE: size });
      assert.equal(c.walPageSize, Number(size));
      assert.equal(c.mode === 'standalone' && c.allowDownload, true);
    }
  });

  it('standalone infers static files from the S3 file pair, otherwise the ambient chain', () => {
    assert.equal(accepted({ ...STANDALONE, STORE_ACCESS_KEY_ID_FILE: '/a', STORE_SECRET_ACCESS_KEY_FILE: '/b' }).credentials.mode, 'static-files');
    assert.equal(accepted(STANDALONE).credentials.mode, 'ambient');
    assert.equal(accepted({ DESTINATION_PATH: 'gs://acme-backups/pg', STORE_SERVICE_ACCOUNT_KEY_FILE: '/sa.json' }).credentials.mode, 'service-account-file');
  });

  it("store-b's ambient chain carries Barman's AZURE_STORAGE_CONNECTION_STRING as set, empty included; nothing else reads it", () => {
    const AZURE: Env = { DESTINATION_PATH: 'https://acme.blob.core.windows.net/backups/pg' };
    const cs = 'DefaultEndpointsProtocol=https;AccountName=acme;AccountKey=a2V5;EndpointSuffix=core.windows.net';
    assert.deepEqual(accepted(AZURE).credentials, { mode: 'ambient' });
    assert.deepEqual(accepted({ ...AZURE, AZURE_STORAGE_CONNECTION_STRING: cs }).credentials, { mode: 'ambient', connectionString: cs });
    // Set but empty is no configuration refusal: building the driver refuses it (D-49).
    assert.deepEqual(accepted({ ...AZURE, AZURE_STORAGE_CONNECTION_STRING: '' }).credentials, { mode: 'ambient', connectionString: '' });
    assert.deepEqual(accepted({ ...AZURE, STORE_CONNECTION_STRING_FILE: '/cs', AZURE_STORAGE_CONNECTION_STRING: cs }).credentials, { mode: 'connection-string-file', file: '/cs' });
    assert.deepEqual(accepted({ ...STANDALONE, AZURE_STORAGE_CONNECTION_STRING: cs }).credentials, { mode: 'ambient' });
    assert.deepEqual(accepted({ DESTINATION_PATH: 'gs://acme-backups/pg', AZURE_STORAGE_CONNECTION_STRING: cs }).credentials, { mode: 'ambient' });
    const result = parseConfig({ ...AZURE, AZURE_STORAGE_CONNECTION_STRING: cs });
    assert.ok(result.ok && result.warnings.length === 0);
  });

  it('the probe reads EVIDENCE_TOKEN_FILE alone, as set', () => {
    assert.equal(probeTokenFile({ EVIDENCE_TOKEN_FILE: '/run/token', RUNTIME_MODE: 'nonsense' }), '/run/token');
    assert.equal(probeTokenFile({}), undefined);
  });

  it('standalone parses every destination form of the three providers', () => {
    const dest = (env: Env) => {
      const c = accepted(env);
      return c.destination;
    };
    assert.deepEqual(dest({ DESTINATION_PATH: 's3://acme-backups' }), { provider: 'store-a', bucket: 'acme-backups', account: null, emulatorOrigin: null, prefix: '' });
    assert.deepEqual(dest({ DESTINATION_PATH: 's3://acme-backups/a/b/' }), { provider: 'store-a', bucket: 'acme-backups', account: null, emulatorOrigin: null, prefix: 'a/b' });
    assert.deepEqual(dest({ DESTINATION_PATH: 'https://acme.blob.core.windows.net/backups/pg' }), { provider: 'store-b', bucket: 'backups', account: 'acme', emulatorOrigin: null, prefix: 'pg' });
    assert.deepEqual(dest({ PROVIDER: 'store-b', DESTINATION_PATH: 'http://127.0.0.1:10000/devstoreaccount1/backups/pg' }), { provider: 'store-b', bucket: 'backups', account: 'devstoreaccount1', emulatorOrigin: 'http://127.0.0.1:10000', prefix: 'pg' });
    assert.deepEqual(dest({ DESTINATION_PATH: 'gs://acme-backups/pg' }), { provider: 'store-c', bucket: 'acme-backups', account: null, emulatorOrigin: null, prefix: 'pg' });
    assert.deepEqual(dest({ DESTINATION_PATH: 'https://console.cloud.google.com/storage/browser/acme-backups/pg' }), { provider: 'store-c', bucket: 'acme-backups', account: null, emulatorOrigin: null, prefix: 'pg' });
  });

  it('standalone keeps the retention policy as configured and recognises Barman syntax', () => {
    const r = (text: string) => accepted({ ...STANDALONE, EXPECTED_RETENTION_POLICY: text, EXPECTED_MINIMUM_REDUNDANCY: '2' }).retention;
    assert.deepEqual(r('RECOVERY WINDOW OF 7 DAYS'), { policyText: 'RECOVERY WINDOW OF 7 DAYS', policy: { kind: 'recovery-window', amount: 7, unit: 'days' }, minimumRedundancy: 2, maxArchiveLagSeconds: null });
    assert.deepEqual(r('redundancy 3').policy, { kind: 'redundancy', count: 3 });
    assert.deepEqual(r('keep everything forever'), { policyText: 'keep everything forever', policy: null, minimumRedundancy: 2, maxArchiveLagSeconds: null });
  });

  it('reads EXPECTED_MAX_ARCHIVE_LAG as a duration', () => {
    const lag = (text: string) => accepted({ ...STANDALONE, EXPECTED_MAX_ARCHIVE_LAG: text }).retention.maxArchiveLagSeconds;
    assert.equal(lag('15m'), 900);
    assert.equal(lag('1h30m'), 5_400);
    assert.equal(lag('2d'), 172_800);
    assert.equal(lag('90s'), 90);
    assert.equal(lag('1d2h3m4s'), 93_784);
    for (const bad of ['', '15', 'm', '1m1h', '30s', '31d', '1.5h', '15 m', '-5m', '1w']) {
      assert.deepEqual(refused({ ...STANDALONE, EXPECTED_MAX_ARCHIVE_LAG: bad }).map((v) => v.variable), ['EXPECTED_MAX_ARCHIVE_LAG'], bad);
    }
  });

  it('STATE_DIR: optional in both modes, an absolute clean path (the directory is a startup gate)', () => {
    assert.equal(accepted(SIDECAR_STATIC).stateDir, null);
    assert.equal(accepted(STANDALONE).stateDir, null);
    assert.equal(accepted({ ...SIDECAR_STATIC, STATE_DIR: '/var/lib/viewer' }).stateDir, '/var/lib/viewer');
    assert.equal(accepted({ ...STANDALONE, STATE_DIR: '/var/lib/viewer' }).stateDir, '/var/lib/viewer');
    // The socket directory is the sidecar's rule only; a sibling of it is fine.
    assert.equal(accepted({ ...STANDALONE, STATE_DIR: '/var/run/viewer' }).stateDir, '/var/run/viewer');
    assert.equal(accepted({ ...SIDECAR_STATIC, STATE_DIR: '/var/run/viewer-state' }).stateDir, '/var/run/viewer-state');
    const known = parseConfig({ ...SIDECAR_STATIC, STATE_DIR: '/var/lib/viewer' });
    assert.ok(known.ok && known.warnings.length === 0, 'STATE_DIR is a viewer variable');
  });

  it('METRICS_LABELS: optional in both modes, Prometheus label names and bounded printable values, in order', () => {
    assert.deepEqual(accepted(STANDALONE).metricsLabels, []);
    assert.deepEqual(accepted({ ...STANDALONE, METRICS_LABELS: 'namespace=db,cluster=main,env=prod' }).metricsLabels, [['namespace', 'db'], ['cluster', 'main'], ['env', 'prod']]);
    assert.deepEqual(accepted({ ...SIDECAR_STATIC, METRICS_LABELS: '_team=Data Platform (EU),Zone9=a=b' }).metricsLabels, [['_team', 'Data Platform (EU)'], ['Zone9', 'a=b']]);
    const long = accepted({ ...STANDALONE, METRICS_LABELS: `a=${'v'.repeat(128)},${Array.from({ length: 15 }, (_, i) => `l${i}=x`).join(',')}` });
    assert.equal(long.metricsLabels.length, 16);
    const known = parseConfig({ ...STANDALONE, METRICS_LABELS: 'env=prod' });
    assert.ok(known.ok && known.warnings.length === 0, 'METRICS_LABELS is a viewer variable');
    const near = parseConfig({ ...STANDALONE, METRICS_LABEL: 'env=prod' });
    assert.ok(near.ok);
    if (near.ok) assert.deepEqual(near.warnings, ['METRICS_LABEL: not a viewer variable; ignored (did you mean METRICS_LABELS?)']);
  });

  it('METRICS_LABELS: each broken rule is refused naming the variable, the entry and the rule, never the name or value', () => {
    const cases: [string, RegExp][] = [
      ['', /must not be empty/],
      [' env=prod', /leading or trailing white space/],
      ['env=prod\tx', /control characters/],
      ['env=prod,', /entry 2: must be name=value/],
      ['envprod', /entry 1: must be name=value/],
      ['env=prod,,zone=a', /entry 2: must be name=value/],
      ['9env=prod', /entry 1: the name must be a Prometheus label name/],
      ['env-name=prod', /entry 1: the name must be a Prometheus label name/],
      ['=prod', /entry 1: the name must be a Prometheus label name/],
      [`${'n'.repeat(65)}=prod`, /the name must be a Prometheus label name/],
      ['__secretname=prod', /entry 1: the name must not start with __/],
      ['env=prod,server=other', /entry 2: the name must not be one viewer or Prometheus already uses/],
      ...['state', 'reason', 'part', 'le', 'quantile', 'job', 'instance', 'version', 'format', 'provider', 'backup_id', 'timeline', 'status', 'stop', 'repository'].map((n) => [`${n}=x1234`, /the name must not be one viewer or Prometheus already uses/] as [string, RegExp]),
      ['env=prod,env=test', /entry 2: the name must not repeat an earlier entry/],
      ['env=', /entry 1: the value must be 1 to 128 printable ASCII characters/],
      ['env=prod ,zone=a', /entry 1: the value must be/],
      ['env= prod', /entry 1: the value must be/],
      [`env=${'v'.repeat(129)}`, /entry 1: the value must be/],
      ['env=pröd-secret', /entry 1: the value must be/],
      [Array.from({ length: 17 }, (_, i) => `l${i}=x`).join(','), /must hold at most 16 labels/],
    ];
    for (const [value, rule] of cases) {
      const violations = refused({ ...STANDALONE, METRICS_LABELS: value });
      assert.deepEqual(violations.map((v) => v.variable), violations.map(() => 'METRICS_LABELS'), value);
      assert.ok(violations.length >= 1, value);
      assert.match(violations[0]?.rule ?? '', rule, value);
      for (const v of violations) {
        for (const secret of ['prod', 'secretname', 'pröd', 'x1234', 'env-name', '9env']) assert.ok(!v.rule.includes(secret), `${value}: ${v.rule}`);
      }
    }
  });

  it('FLEET_FILE: the repositories are the fleet file\'s, not the demo; the process-wide variables stay', () => {
    const c = accepted({ FLEET_FILE: '/etc/viewer/fleet.yaml', LISTEN_ADDR: '127.0.0.1:8080', METRICS_ADDR: '127.0.0.1:9100', METRICS_LABELS: 'env=prod', EXPECTED_MAX_ARCHIVE_LAG: '15m', REFRESH_INTERVAL_SECONDS: '600', STATE_DIR: '/var/lib/viewer', FLEET_CONCURRENCY: '8' });
    assert.equal(c.mode, 'standalone');
    if (c.mode !== 'standalone') return;
    assert.equal(c.fleetFile, '/etc/viewer/fleet.yaml');
    assert.equal(c.destination, null);
    assert.equal(c.fleetConcurrency, 8);
    assert.deepEqual(c.metricsListen, { host: '127.0.0.1', port: 9100 });
    assert.deepEqual(c.listen, { host: '127.0.0.1', port: 8080 });
    assert.deepEqual(c.metricsLabels, [['env', 'prod']]);
    assert.equal(c.retention.maxArchiveLagSeconds, 900);
    assert.equal(c.refreshIntervalSeconds, 600);
    assert.equal(c.stateDir, '/var/lib/viewer');
    const known = parseConfig({ FLEET_FILE: '/etc/viewer/fleet.yaml', FLEET_CONCURRENCY: '2', METRICS_ADDR: ':9100' });
    assert.ok(known.ok && known.warnings.length === 0, 'FLEET_FILE, FLEET_CONCURRENCY and METRICS_ADDR are viewer variables');
    const near = parseConfig({ FLEET_FIlE: '/etc/viewer/fleet.yaml', FLEET_FILES: '/etc/viewer/fleet.yaml' });
    assert.ok(near.ok);
    if (near.ok) assert.deepEqual(near.warnings, ['FLEET_FILES: not a viewer variable; ignored (did you mean FLEET_FILE?)', 'FLEET_FIlE: not a viewer variable; ignored (did you mean FLEET_FILE?)']);
  });

  it('FLEET_FILE: every repository variable beside it is refused at once, each with the rule that sends it to the fleet file', () => {
    const env: Env = { FLEET_FILE: '/etc/viewer/fleet.yaml', ...Object.fromEntries(REPOSITORY_VARIABLES.map((v) => [v, 'AKIAIOSFODNN7EXAMPLE'])) };
    const violations = refused(env);
    assert.deepEqual(violations.map((v) => v.variable), [...REPOSITORY_VARIABLES]);
    for (const v of violations) assert.equal(v.rule, 'must not be set with FLEET_FILE: it belongs in the fleet file, in each repository entry');
    // Without FLEET_FILE the same variables are read as ever.
    const one = accepted(STANDALONE);
    assert.equal(one.mode === 'standalone' && one.fleetFile, null);
  });

  it('REPOSITORY_NAME: optional printable text naming the standalone pages; refused beside FLEET_FILE and in sidecar mode', () => {
    const named = accepted({ ...STANDALONE, REPOSITORY_NAME: 'prod backups (eu-west)' });
    assert.equal(named.mode === 'standalone' && named.repositoryName, 'prod backups (eu-west)');
    const unnamed = accepted(STANDALONE);
    assert.equal(unnamed.mode === 'standalone' && unnamed.repositoryName, null);
    for (const bad of ['', ' padded', 'x'.repeat(129), 'tab\there', 'caf\u00e9']) {
      assert.deepEqual(refused({ ...STANDALONE, REPOSITORY_NAME: bad }).map((v) => v.variable), ['REPOSITORY_NAME'], JSON.stringify(bad));
    }
    assert.deepEqual(refused({ FLEET_FILE: '/etc/viewer/fleet.yaml', REPOSITORY_NAME: 'prod' }).map((v) => [v.variable, v.rule]), [['REPOSITORY_NAME', "must not be set with FLEET_FILE: each entry's name names its repository"]]);
  });

  it('FLEET_CONCURRENCY and METRICS_ADDR: defaults and bounds', () => {
    const c = accepted(STANDALONE);
    assert.equal(c.mode === 'standalone' && c.fleetConcurrency, 4);
    assert.equal(c.mode === 'standalone' && c.metricsListen, null);
    for (const n of ['1', '64']) {
      const d = accepted({ ...STANDALONE, FLEET_CONCURRENCY: n });
      assert.equal(d.mode === 'standalone' && d.fleetConcurrency, Number(n));
    }
    for (const [listen, metrics, host, port] of [[undefined, ':9100', null, 9100], [undefined, '[::1]:3001', '::1', 3001], ['127.0.0.1:3000', '127.0.0.2:3000', '127.0.0.2', 3000], [':0', ':0', null, 0], ['[::1]:8080', 'metrics.internal:8081', 'metrics.internal', 8081]] as const) {
      const d = accepted({ ...STANDALONE, LISTEN_ADDR: listen, METRICS_ADDR: metrics });
      assert.deepEqual(d.mode === 'standalone' && d.metricsListen, { host, port }, `${listen} ${metrics}`);
    }
    // A broken LISTEN_ADDR is its own refusal; METRICS_ADDR is not judged against it.
    assert.deepEqual(refused({ ...STANDALONE, LISTEN_ADDR: 'x', METRICS_ADDR: ':3000' }).map((v) => v.variable), ['LISTEN_ADDR']);
  });

  it('a misspelt viewer-looking variable is a warning, not silence', () => {
    const result = parseConfig({ ...STANDALONE, STORE_ACESS_KEY_ID_FILE: '/a' });
    assert.ok(result.ok);
    if (result.ok) assert.deepEqual(result.warnings, ['STORE_ACESS_KEY_ID_FILE: not a viewer variable; ignored (did you mean STORE_ACCESS_KEY_ID_FILE?)']);
  });

  it('lists every violated rule at once', () => {
    const violations = refused({ ...SIDECAR_STATIC, LISTEN_ADDR: '', ALLOW_DOWNLOAD: 'true', CLUSTER_UID: undefined });
    assert.deepEqual(violations.map((v) => v.variable).sort(), ['ALLOW_DOWNLOAD', 'CLUSTER_UID', 'LISTEN_ADDR']);
  });

  it('warns for an unknown variable within two edits of a known one, whatever its prefix (issue 26)', () => {
    const result = parseConfig({ ...STANDALONE, REPOSITRY_FORMAT: 'stanza-repository', LISTEN_ADR: ':8080', HOME: '/root', PATH: '/bin' });
    assert.ok(result.ok);
    if (result.ok) {
      assert.deepEqual(result.warnings, [
        'LISTEN_ADR: not a viewer variable; ignored (did you mean LISTEN_ADDR?)',
        'REPOSITRY_FORMAT: not a viewer variable; ignored (did you mean REPOSITORY_FORMAT?)',
      ]);
    }
  });

  it('names what each neutral provider identifier stands for', () => {
    const [v] = refused({ ...STANDALONE, PROVIDER: 'azure' });
    assert.equal(v?.rule, 'must be store-a (S3 and S3-compatible stores), store-b (Azure Blob Storage) or store-c (Google Cloud Storage)');
    const [w] = refused({ DESTINATION_PATH: 'https://acme.blob.core.windows.net/backups/pg', STORE_REGION: 'eu-west-1' });
    assert.equal(w?.rule, 'applies to store-a (S3 and S3-compatible stores) only (PROVIDER is store-b (Azure Blob Storage))');
  });

  it('answers the URL forms of other tools with the form viewer expects, not "PROVIDER is required"', () => {
    const cases: [string, RegExp][] = [
      ['azure://acme/backups/pg', /^must be written https:\/\/<account>\.blob\.core\.windows\.net\/<container>\[\/path\] \(store-b, Azure Blob Storage\)/],
      ['wasbs://backups@acme.blob.core.windows.net/pg', /Hadoop wasbs:\/\/<container>@<account>/],
      ['s3a://acme-backups/pg', /^must be written s3:\/\/bucket\[\/path\] \(store-a, S3/],
      ['https://storage.googleapis.com/acme-backups/pg', /^must be written gs:\/\/bucket\[\/path\] \(store-c, Google Cloud Storage\), not as an HTTPS object URL$/],
      ['https://acme-backups.s3.eu-west-1.amazonaws.com/pg', /^must be written s3:\/\/bucket/],
    ];
    for (const [url, rule] of cases) {
      const violations = refused({ DESTINATION_PATH: url });
      assert.deepEqual(violations.map((v) => v.variable), ['DESTINATION_PATH'], url);
      assert.match(violations[0]?.rule ?? '', rule, url);
    }
    // With PROVIDER set, the same hint replaces the bare form rule.
    assert.match(refused({ DESTINATION_PATH: 's3a://acme-backups/pg', PROVIDER: 'store-a' })[0]?.rule ?? '', /Hadoop's s3a:\/\/ is s3:\/\/ here$/);
    // The emulator form without PROVIDER says which provider it may be.
    assert.match(refused({ DESTINATION_PATH: 'http://127.0.0.1:10000/devstoreaccount1/backups' })[0]?.rule ?? '', /Azure emulator form: PROVIDER=store-b/);
  });

  it('STORE_CA_FILE: a clean absolute path for any provider, in both modes', () => {
    assert.equal(accepted({ ...STANDALONE, STORE_CA_FILE: '/etc/viewer/ca.pem' }).caFile, '/etc/viewer/ca.pem');
    assert.equal(accepted({ ...SIDECAR_STATIC, STORE_CA_FILE: '/etc/viewer/ca.pem' }).caFile, '/etc/viewer/ca.pem');
    assert.equal(accepted({ DESTINATION_PATH: 'gs://acme-backups/pg', STORE_CA_FILE: '/etc/ca.pem' }).caFile, '/etc/ca.pem');
    assert.equal(accepted(STANDALONE).caFile, null);
    assert.deepEqual(refused({ ...STANDALONE, STORE_CA_FILE: 'ca.pem' }).map((v) => v.variable), ['STORE_CA_FILE']);
  });
});
