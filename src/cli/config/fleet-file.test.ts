/**
 * The fleet file: a valid fleet becomes one standalone configuration per entry by the rules of the
 * environment; every refusal names the entry and the field and never a value; YAML's dangerous
 * corners (aliases, tags, duplicate keys, size) are refused. The shipped example parses.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, describe, it } from 'node:test';
import type { Env } from './config.ts';
import { loadFleet, MAX_FLEET_FILE_BYTES, parseFleet, type FleetLoad, type FleetRepository } from './fleet-file.ts';

const EXAMPLE = resolve(import.meta.dirname, '..', '..', '..', 'docs', 'examples', 'fleet.yaml');

function accepted(load: FleetLoad): readonly FleetRepository[] {
  if (!load.ok) assert.fail(`refused: ${load.violations.map((v) => `${v.variable}: ${v.rule}`).join('\n')}`);
  return load.repositories;
}

/** The refusal lines, each checked to be FLEET_FILE's. */
function refused(load: FleetLoad): string[] {
  assert.equal(load.ok, false, 'the fleet must be refused');
  if (load.ok) throw new Error('unreachable');
  for (const v of load.violations) assert.equal(v.variable, 'FLEET_FILE', v.rule);
  return load.violations.map((v) => v.rule);
}

/** The one refusal of `text` (as an entry list when it starts with `- `). */
function refusal(text: string, env: Env = {}): string {
  const rules = refused(parseFleet(text.startsWith('- ') ? `repositories:\n${text.replace(/^/gm, '  ')}` : text, env));
  assert.equal(rules.length, 1, rules.join('\n'));
  return rules[0] ?? '';
}

const S3 = '- name: prod-main\n  destination: s3://acme-backups/postgres/prod\n';

describe('a valid fleet', () => {
  it('the shipped example (docs/examples/fleet.yaml) gives one configuration per entry, of all three providers and both formats', async () => {
    const repos = accepted(await loadFleet(EXAMPLE, {}));
    assert.deepEqual(repos.map((r) => [r.name, r.config.provider, r.config.format, r.config.credentials.mode]), [
      ['prod-main', 'store-a', 'archive-cloud', 'static-files'],
      ['staging', 'store-a', 'archive-cloud', 'static-files'],
      ['billing', 'store-a', 'stanza-repository', 'web-identity'],
      ['analytics', 'store-b', 'archive-cloud', 'ambient'],
      ['ledger', 'store-c', 'archive-cloud', 'service-account-file'],
    ]);
    const [prod, staging, billing, analytics, ledger] = repos;
    assert.deepEqual(prod?.config.destination, { provider: 'store-a', bucket: 'acme-backups', account: null, emulatorOrigin: null, prefix: 'postgres/prod' });
    assert.deepEqual(prod?.config.serverNames, ['pg-main', 'pg-reporting']);
    assert.equal(prod?.config.region, 'eu-west-1');
    assert.deepEqual(prod?.config.credentials, { mode: 'static-files', accessKeyIdFile: '/run/secrets/prod/access-key-id', secretAccessKeyFile: '/run/secrets/prod/secret-access-key', sessionTokenFile: null });
    assert.deepEqual(prod?.config.retention, { policyText: 'RECOVERY WINDOW OF 14 DAYS', policy: { kind: 'recovery-window', amount: 14, unit: 'days' }, minimumRedundancy: 2, maxArchiveLagSeconds: 900 });
    assert.deepEqual(prod?.labels, [['namespace', 'databases'], ['cluster', 'main']]);
    assert.equal(staging?.config.endpointUrl, 'http://minio.internal:9000');
    assert.equal(staging?.config.serverNames, null);
    assert.deepEqual(staging?.labels, [['namespace', 'staging']]);
    assert.deepEqual(billing?.config.credentials, { mode: 'web-identity', tokenFile: '/var/run/secrets/eks.amazonaws.com/serviceaccount/token', roleArn: 'arn:aws:iam::123456789012:role/viewer-reader' });
    assert.deepEqual(billing?.config.retention.policy, { kind: 'recovery-window', amount: 7, unit: 'days' });
    assert.deepEqual(billing?.config.serverNames, ['main']);
    assert.deepEqual(analytics?.config.destination, { provider: 'store-b', bucket: 'postgres', account: 'acmebackups', emulatorOrigin: null, prefix: 'analytics' });
    assert.deepEqual(analytics?.labels, []);
    assert.deepEqual(ledger?.config.credentials, { mode: 'service-account-file', file: '/run/secrets/ledger/service-account.json' });
    assert.deepEqual(ledger?.config.serverNames, ['pg-ledger']);
    for (const r of repos) {
      assert.equal(r.config.mode, 'standalone');
      assert.equal(r.config.fleetFile, null);
      assert.equal(r.config.metricsListen, null);
    }
  });

  it('the process-wide variables apply to every entry, EXPECTED_* as defaults an entry overrides; the repository variables of the environment are not read', () => {
    const env: Env = {
      FLEET_FILE: '/etc/viewer/fleet.yaml', METRICS_ADDR: '127.0.0.1:9100', LISTEN_ADDR: '127.0.0.1:8080', REFRESH_INTERVAL_SECONDS: '600', FLEET_CONCURRENCY: '2',
      METRICS_LABELS: 'env=prod', EXPECTED_MAX_ARCHIVE_LAG: '1h', EXPECTED_MINIMUM_REDUNDANCY: '1', STATE_DIR: '/var/lib/viewer', SCAN_CONCURRENCY: '16',
      DESTINATION_PATH: 'gs://somewhere-else/x', PROVIDER: 'store-c', ARCHIVE_SERVER_NAMES: 'other',
    };
    const repos = accepted(parseFleet(`repositories:\n  - {name: a, destination: "s3://bucket-a/p", expected_max_archive_lag: 5m}\n  - {name: b, destination: "s3://bucket-b"}\n`, env));
    assert.deepEqual(repos.map((r) => [r.config.retention.maxArchiveLagSeconds, r.config.retention.minimumRedundancy]), [[300, 1], [3600, 1]]);
    for (const r of repos) {
      assert.equal(r.config.provider, 'store-a');
      assert.equal(r.config.serverNames, null);
      assert.equal(r.config.refreshIntervalSeconds, 600);
      assert.equal(r.config.fleetConcurrency, 2);
      assert.equal(r.config.scan.concurrency, 16);
      assert.equal(r.config.stateDir, '/var/lib/viewer');
      assert.deepEqual(r.config.listen, { host: '127.0.0.1', port: 8080 });
      assert.deepEqual(r.config.metricsLabels, [['env', 'prod']]);
      assert.equal(r.config.metricsListen, null);
      assert.equal(r.config.fleetFile, null);
    }
  });

  it('servers as a list or one comma-separated text; numbers where the variable is an integer; YAML anchors within bounds', () => {
    const repos = accepted(parseFleet([
      'repositories:',
      '  - {name: a, destination: "s3://bucket-a", servers: "pg-1,pg-2", expected_minimum_redundancy: "3"}',
      '  - {name: b, destination: "s3://bucket-b", servers: [pg-1], expected_minimum_redundancy: 0, labels: &common {team: data}}',
      '  - {name: c, destination: "s3://bucket-c", labels: *common, endpoint_url: &ep "http://127.0.0.1:9000"}',
      '  - {name: d, destination: "s3://bucket-d", endpoint_url: *ep}',
    ].join('\n'), {}));
    assert.deepEqual(repos.map((r) => r.config.serverNames), [['pg-1', 'pg-2'], ['pg-1'], null, null]);
    assert.deepEqual(repos.map((r) => r.config.retention.minimumRedundancy), [3, 0, null, null]);
    assert.deepEqual(repos.map((r) => r.labels), [[], [['team', 'data']], [['team', 'data']], []]);
    assert.deepEqual(repos.map((r) => r.config.endpointUrl), [null, null, 'http://127.0.0.1:9000', 'http://127.0.0.1:9000']);
  });

  it('500 entries are accepted, each using a shared anchor', () => {
    const entries = Array.from({ length: 500 }, (_, i) => `  - {name: r${i}, destination: "s3://bucket-${i}", endpoint_url: ${i === 0 ? '&ep ' : '*ep'}${i === 0 ? '"http://127.0.0.1:9000"' : ''}, labels: ${i === 0 ? '&l {team: data}' : '*l'}}`);
    const repos = accepted(parseFleet(`repositories:\n${entries.join('\n')}\n`, {}));
    assert.equal(repos.length, 500);
    assert.equal(repos[499]?.config.endpointUrl, 'http://127.0.0.1:9000');
  });

  it('the same destination twice is accepted for disjoint servers, and on another endpoint or in another format', () => {
    const repos = accepted(parseFleet([
      'repositories:',
      '  - {name: a, destination: "s3://bucket-a/p", servers: [pg-1]}',
      '  - {name: b, destination: "s3://bucket-a/p", servers: [pg-2]}',
      '  - {name: c, destination: "s3://bucket-a/p", endpoint_url: "http://127.0.0.1:9000"}',
      '  - {name: d, destination: "s3://bucket-a/p", format: stanza-repository}',
    ].join('\n'), {}));
    assert.equal(repos.length, 4);
  });
});

describe('a refused fleet names the entry, its field and the rule', () => {
  const cases: [string, string, string | RegExp][] = [
    ['not YAML', 'repositories: [\n', /^is not valid YAML \(line \d+, column \d+: [A-Z_]+\)$/],
    ['a key twice', `${S3.replace(/^/gm, '  ').replace(/^ {2}$/m, '')}`.replace(/^/, 'repositories:\n') + '    name: again\n', /^is not valid YAML \(line 4, column 5: DUPLICATE_KEY\)$/],
    ['two documents', `repositories: []\n---\nrepositories: []\n`, /^is not valid YAML \(line \d+, column \d+: MULTIPLE_DOCS\)$/],
    ['an unknown tag', 'repositories: !custom []\n', 'uses a YAML tag viewer does not read (line 1, column 15): only plain text, numbers, lists and mappings'],
    ['a YAML 1.1 tag', `- name: a\n  destination: !!binary czM6Ly9iL3A=\n`, /^uses a YAML tag viewer does not read \(line 3, column 18\)/],
    ['an alias without anchor', `- name: a\n  destination: *nowhere\n`, /^(has a YAML alias without its anchor|is not valid YAML .*)$/],
    ['an empty file', '', 'must be a YAML mapping holding one key, repositories'],
    ['a list at the top', '[{name: a, destination: "s3://acme-backups/p"}]\n', 'must be a YAML mapping holding one key, repositories'],
    ['a text at the top', 'hello\n', 'must be a YAML mapping holding one key, repositories'],
    ['another key at the top', 'repositories: []\ndefaults: {}\n', 'must hold only the key repositories at the top (key 2 is another)'],
    ['no repositories key', 'repository: []\n', 'must hold only the key repositories at the top (key 1 is another)'],
    ['repositories not a list', 'repositories: {name: a}\n', 'repositories: must be a list of repository entries'],
    ['repositories null', 'repositories:\n', 'repositories: must be a list of repository entries'],
    ['an empty list', 'repositories: []\n', 'repositories: must hold at least one repository'],
    ['an entry not a mapping', '- s3://acme-backups/p\n', 'repositories[0]: must be a mapping of fields'],
    ['a name missing', '- destination: s3://acme-backups/p\n', 'repositories[0]: name: is required'],
    ['a name a number', '- name: 0123\n  destination: s3://acme-backups/p\n', 'repositories[0]: name: must be text (quote it: YAML reads 1.10 as a number and true as a boolean)'],
    ['a name with a slash', '- name: prod/main\n  destination: s3://acme-backups/p\n', 'repositories[0]: name: must be 1 to 63 letters, digits, ., _ or -, starting with a letter or digit'],
    ['a name too long', `- name: ${'a'.repeat(64)}\n  destination: s3://acme-backups/p\n`, 'repositories[0]: name: must be 1 to 63 letters, digits, ., _ or -, starting with a letter or digit'],
    ['a name repeated', `${S3}- name: prod-main\n  destination: s3://acme-backups/other\n`, 'repositories[1] (prod-main): name: must be unique in the file (repositories[0] has it too)'],
    ['a destination missing', '- name: prod-main\n  servers: [pg-main]\n', 'repositories[0] (prod-main): destination: is required'],
    ['a destination a boolean', '- name: prod-main\n  destination: true\n', 'repositories[0] (prod-main): destination: must be text (quote it: YAML reads 1.10 as a number and true as a boolean)'],
    ['a region a number', `${S3}  region: 1.10\n`, 'repositories[0] (prod-main): region: must be text (quote it: YAML reads 1.10 as a number and true as a boolean)'],
    ['a field without value', `${S3}  region:\n`, 'repositories[0] (prod-main): region: must have a value (leave the field out for the default)'],
    ['servers an empty list', `${S3}  servers: []\n`, 'repositories[0] (prod-main): servers: must name at least one server (leave the field out to discover them)'],
    ['servers with a number', `${S3}  servers: [pg-main, 12]\n`, 'repositories[0] (prod-main): servers: item 2: must be one server name, as text'],
    ['servers with a comma in an item', `${S3}  servers: ["pg-a,pg-b"]\n`, 'repositories[0] (prod-main): servers: item 1: must be one server name, as text'],
    ['servers a mapping', `${S3}  servers: {pg-main: 1}\n`, 'repositories[0] (prod-main): servers: must be a list of server names (or one comma-separated text)'],
    ['minimum redundancy a fraction', `${S3}  expected_minimum_redundancy: 1.5\n`, 'repositories[0] (prod-main): expected_minimum_redundancy: must be an integer from 0 to 10000'],
    ['an unknown field near a known one', `${S3}  regoin: eu-west-1\n`, 'repositories[0] (prod-main): field 3: is not a fleet-file field (did you mean region?)'],
    ['an unknown field near nothing', `${S3}  colour: blue\n`, 'repositories[0] (prod-main): field 3: is not a fleet-file field'],
    ['an unknown field that is no text', `${S3}  42: x\n`, 'repositories[0] (prod-main): field 3: is not a fleet-file field'],
    ['a merge key', `${S3}  <<: {region: eu-west-1}\n`, 'repositories[0] (prod-main): field 3: is a YAML merge key (<<), which viewer does not read: write each field in the entry'],
    ['an inline secret access key', `${S3}  secret_access_key: wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n`, 'repositories[0] (prod-main): secret_access_key: is a secret written in the fleet file: secrets go in files; name the file that holds it with secret_access_key_file'],
    ['an inline access key id', `${S3}  access-key-id: AKIAIOSFODNN7EXAMPLE\n`, 'repositories[0] (prod-main): access_key_id: is a secret written in the fleet file: secrets go in files; name the file that holds it with access_key_id_file'],
    ['an inline connection string', `${S3}  connection_string: DefaultEndpointsProtocol=https\n`, 'repositories[0] (prod-main): connection_string: is a secret written in the fleet file: secrets go in files; name the file that holds it with connection_string_file'],
    ['an inline password', `${S3}  password: hunter2hunter2\n`, /^repositories\[0\] \(prod-main\): field 3: looks like a secret written in the fleet file: secrets go in files, named by the fields access_key_id_file, .*service_account_key_file$/],
    ['an inline token', `${S3}  token: abcdefgh\n`, /^repositories\[0\] \(prod-main\): field 3: looks like a secret written in the fleet file: .*$/],
    ['an inline key', `${S3}  key: abcdefgh\n`, /^repositories\[0\] \(prod-main\): field 3: looks like a secret written in the fleet file: .*$/],
    ['a near-miss of a file field without _file', `${S3}  access_key_id_fil: /run/x\n`, /^repositories\[0\] \(prod-main\): field 3: looks like a secret written in the fleet file: .* \(did you mean access_key_id_file\?\)$/],
    ['labels not a mapping', `${S3}  labels: [env=prod]\n`, 'repositories[0] (prod-main): labels: must be a mapping of label names to values'],
    ['a label name invalid', `${S3}  labels: {env-name: prod}\n`, 'repositories[0] (prod-main): labels: entry 1: the name must be a Prometheus label name ([a-zA-Z_][a-zA-Z0-9_]*, at most 64 characters)'],
    ['a label name reserved', `${S3}  labels: {env: prod, repository: x}\n`, /^repositories\[0\] \(prod-main\): labels: entry 2: the name must not be one viewer or Prometheus already uses \(server, /],
    ['a label name of Prometheus', `${S3}  labels: {__name__: x}\n`, 'repositories[0] (prod-main): labels: entry 1: the name must not start with __ (reserved by Prometheus)'],
    ['a label value a number', `${S3}  labels: {replica: 1}\n`, 'repositories[0] (prod-main): labels: entry 1: the value must be text (quote it: YAML reads 1.10 as a number and true as a boolean)'],
    ['a label value empty', `${S3}  labels: {env: ""}\n`, 'repositories[0] (prod-main): labels: entry 1: the value must be 1 to 128 printable ASCII characters, without a comma or white space at either end'],
    ['too many labels', `${S3}  labels: {${Array.from({ length: 17 }, (_, i) => `l${i}: x`).join(', ')}}\n`, 'repositories[0] (prod-main): labels: must hold at most 16 labels'],
    // The values' own rules are parseConfig's, named by the entry's field.
    ['a destination with credentials', '- name: prod-main\n  destination: s3://AKIAIOSFODNN7EXAMPLE:hunter2@acme-backups/p\n', /^repositories\[0\] \(prod-main\): destination: must /],
    ['a destination of another provider', `${S3}  provider: store-c\n`, /^repositories\[0\] \(prod-main\): destination: must /],
    ['a provider unknown', `${S3}  provider: store-z\n`, 'repositories[0] (prod-main): provider: must be store-a (S3 and S3-compatible stores), store-b (Azure Blob Storage) or store-c (Google Cloud Storage)'],
    ['a format unknown', `${S3}  format: barman\n`, 'repositories[0] (prod-main): format: must be one of archive-cloud, stanza-repository'],
    ['a server name invalid', `${S3}  servers: [pg/main]\n`, /^repositories\[0\] \(prod-main\): servers: must be a comma-separated list of server names/],
    ['a relative credential file', `${S3}  access_key_id_file: run/secrets/id\n  secret_access_key_file: /run/secrets/secret\n`, 'repositories[0] (prod-main): access_key_id_file: must be an absolute, clean path (no ., .., // or trailing /)'],
    ['half a key pair, the rule naming fields', `${S3}  access_key_id_file: /run/secrets/id\n`, 'repositories[0] (prod-main): secret_access_key_file: is required with credential_mode=static-files'],
    ['a role beside static files', `${S3}  credential_mode: static-files\n  access_key_id_file: /a\n  secret_access_key_file: /b\n  role_arn: arn:aws:iam::123456789012:role/x\n`, 'repositories[0] (prod-main): role_arn: must not be set with credential_mode=static-files'],
    ['an endpoint for store-b', '- name: az\n  destination: https://acme.blob.core.windows.net/backups/pg\n  endpoint_url: https://acme.privatelink.blob.core.windows.net\n', 'repositories[0] (az): endpoint_url: does not apply to store-b (Azure Blob Storage): its endpoint comes from destination or the connection string'],
    ['an endpoint with a path', `${S3}  endpoint_url: http://127.0.0.1:9000/bucket\n`, 'repositories[0] (prod-main): endpoint_url: must be an http(s)://host[:port] URL without credentials, path, query or fragment'],
    ['a lag not a duration', `${S3}  expected_max_archive_lag: 15\n`, 'repositories[0] (prod-main): expected_max_archive_lag: must be text (quote it: YAML reads 1.10 as a number and true as a boolean)'],
    ['a lag too short', `${S3}  expected_max_archive_lag: 30s\n`, /^repositories\[0\] \(prod-main\): expected_max_archive_lag: must be a duration/],
    ['a value with white space at an end', `${S3}  region: "eu-west-1 "\n`, 'repositories[0] (prod-main): region: must not have leading or trailing white space'],
    ['one scope in two entries', `${S3}- name: again\n  destination: s3://acme-backups/postgres/prod/\n  servers: [pg-main]\n`, 'repositories[1] (again): destination: must not name a repository and server that repositories[0] (prod-main) scans already (the same destination, endpoint and format, and a server of both or discovery)'],
  ];
  for (const [what, text, rule] of cases) {
    it(what, () => {
      const got = refusal(text);
      if (typeof rule === 'string') assert.equal(got, rule);
      else assert.match(got, rule);
    });
  }

  it('more than 500 entries', () => {
    const entries = Array.from({ length: 501 }, (_, i) => `  - {name: r${i}, destination: "s3://bucket-${i}"}`);
    assert.equal(refusal(`repositories:\n${entries.join('\n')}\n`), 'repositories: must hold at most 500 repositories');
  });

  it('a label METRICS_LABELS already sets', () => {
    assert.equal(refusal(`${S3}  labels: {team: data, env: prod}\n`, { METRICS_LABELS: 'env=prod' }), 'repositories[0] (prod-main): labels: entry 2: the name must not be one METRICS_LABELS already sets');
  });

  it('every broken entry at once, in file order; past 50 refusals the rest are counted', () => {
    const rules = refused(parseFleet(`repositories:\n  - {name: a}\n  - {destination: "s3://bucket-b"}\n  - {name: c, destination: "s3://bucket-c", region: 5}\n`, {}));
    assert.deepEqual(rules, ['repositories[0] (a): destination: is required', 'repositories[1]: name: is required', 'repositories[2] (c): region: must be text (quote it: YAML reads 1.10 as a number and true as a boolean)']);
    const many = refused(parseFleet(`repositories:\n${Array.from({ length: 80 }, (_, i) => `  - {name: r${i}}`).join('\n')}\n`, {}));
    assert.equal(many.length, 51);
    assert.equal(many[50], 'and 30 more refusals');
  });

  it('a broken process-wide variable is refused once, by its own name', () => {
    const load = parseFleet(`repositories:\n  - {name: a, destination: "s3://bucket-a"}\n  - {name: b, destination: "s3://bucket-b"}\n`, { LISTEN_ADDR: 'nowhere', METRICS_LABELS: 'repository=x' });
    assert.equal(load.ok, false);
    if (!load.ok) assert.deepEqual(load.violations.map((v) => v.variable).sort(), ['LISTEN_ADDR', 'METRICS_LABELS']);
  });

  it('a YAML bomb (aliases of aliases) is refused before it expands', () => {
    const levels = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
    for (let i = 1; i < 9; i += 1) {
      const prev = String.fromCharCode(96 + i);
      levels.push(`${String.fromCharCode(97 + i)}: &${String.fromCharCode(97 + i)} [${Array.from({ length: 9 }, () => `*${prev}`).join(',')}]`);
    }
    const bomb = `repositories:\n  - name: a\n    destination: s3://acme-backups/p\n    labels:\n${levels.map((l) => `      ${l.replace(/^(\w): /, 'x$1: ')}`).join('\n')}\n`;
    const started = performance.now();
    assert.equal(refusal(bomb), 'uses YAML aliases that expand too far (at most 10000 alias expansions)');
    assert.ok(performance.now() - started < 2_000);
  });
});

describe('no refusal repeats a value', () => {
  it('secrets, paths, buckets and hosts written anywhere in a broken fleet appear in no refusal', () => {
    const values = [
      'AKIAIOSFODNN7EXAMPLE', 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', 'hunter2hunter2', '/run/secrets/very-private/id', 'very-private',
      'acme-secret-bucket', 'minio.secret.internal', 'pg-secret-server', 'Secret Team', 'secretlabel', 'AccountKey=c2VjcmV0', 'arn:aws:iam::123456789012:role/secret-role',
    ];
    const text = [
      'repositories:',
      '  - name: one',
      '    destination: s3://AKIAIOSFODNN7EXAMPLE:hunter2hunter2@acme-secret-bucket/p',
      '    secret_access_key: wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
      '    AKIAIOSFODNN7EXAMPLE: hunter2hunter2',
      '    access_key_id_file: run/secrets/very-private/id',
      '  - name: two',
      '    destination: gs://acme-secret-bucket/p',
      '    endpoint_url: http://minio.secret.internal:9000/path',
      '    servers: [pg-secret-server, "pg-secret-server/x"]',
      '    labels: {secretlabel-x: Secret Team, __secretlabel: x}',
      '    role_arn: arn:aws:iam::123456789012:role/secret-role',
      '  - name: three',
      '    destination: s3://acme-secret-bucket/q',
      '    connection_string: AccountKey=c2VjcmV0',
      '    password_for_store: hunter2hunter2',
      '    region: "minio.secret.internal "',
      '  - name: "acme-secret-bucket/x"',
      '    destination: 12',
    ].join('\n');
    const rules = refused(parseFleet(text, {}));
    assert.ok(rules.length >= 8, rules.join('\n'));
    for (const rule of rules) {
      for (const value of values) assert.ok(!rule.includes(value), `a refusal repeats ${value}: ${rule}`);
    }
  });
});

describe('loadFleet reads at most 1 MiB of a regular UTF-8 file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'viewer-fleet-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const valid = readFileSync(EXAMPLE, 'utf8');
  const padded = (bytes: number) => {
    const pad = bytes - Buffer.byteLength(valid) - 3;
    return `${valid}# ${'x'.repeat(pad)}\n`;
  };

  it('exactly 1 MiB is read; one byte more is refused, as text or as a file', async () => {
    const full = join(dir, 'full.yaml');
    writeFileSync(full, padded(MAX_FLEET_FILE_BYTES));
    assert.equal(readFileSync(full).length, MAX_FLEET_FILE_BYTES);
    assert.equal(accepted(await loadFleet(full, {})).length, 5);
    const over = join(dir, 'over.yaml');
    writeFileSync(over, padded(MAX_FLEET_FILE_BYTES + 1));
    assert.deepEqual(refused(await loadFleet(over, {})), ['must be at most 1048576 bytes (1 MiB)']);
    assert.deepEqual(refused(parseFleet(padded(MAX_FLEET_FILE_BYTES + 1), {})), ['must be at most 1048576 bytes (1 MiB)']);
    const huge = join(dir, 'huge.yaml');
    writeFileSync(huge, Buffer.alloc(8 * MAX_FLEET_FILE_BYTES, 0x61));
    assert.deepEqual(refused(await loadFleet(huge, {})), ['must be at most 1048576 bytes (1 MiB)']);
  });

  it('a missing file, a directory and bytes that are not UTF-8 are refused without the path', async () => {
    const missing = join(dir, 'secret-name-missing.yaml');
    assert.deepEqual(refused(await loadFleet(missing, {})), ['could not be read (ENOENT)']);
    const sub = join(dir, 'secret-name-dir');
    mkdirSync(sub);
    assert.deepEqual(refused(await loadFleet(sub, {})), ['must name a regular file']);
    const latin1 = join(dir, 'latin1.yaml');
    writeFileSync(latin1, Buffer.from('repositories:\n  - name: caf\xe9\n', 'latin1'));
    assert.deepEqual(refused(await loadFleet(latin1, {})), ['must be UTF-8 text']);
  });
});
