/**
 * Errors that point at the cause (issue 26), through the real executable against the real Swift
 * S3 store and real Barman repositories: every mistake an operator makes in the first hour is
 * named by its cause, and nothing printed carries a secret, a signed URL or a provider's text.
 * - a custom endpoint without a region scans (the documented default, us-east-1);
 * - a store behind a private CA: the untrusted certificate is named (invalid_configuration, TLS),
 *   and STORE_CA_FILE or NODE_EXTRA_CA_CERTS make it scan;
 * - a uid without a passwd entry and without HOME (systemd's DynamicUser) scans, static and ambient;
 * - missing credential files are named by their variable (S3 keys, Cloud Storage's key file);
 * - a store's refusal prints its error name, HTTP status and endpoint, never its message;
 * - an empty scope prints the location looked at and what exists beside it;
 * - near-miss variables, provider identifiers, other tools' URL forms, unknown commands and outputs;
 * - the start line names the bound address; check-config prints the destination fingerprint.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer as createTlsServer } from 'node:tls';
import { after, before, describe, it } from 'node:test';
import { CANARY, s3, s3Error, startFaultProxy, type FaultProxy } from '../support/fault-proxy.ts';
import { realRepositories, type RealRepositories } from '../support/real-repositories.ts';
import { pgbackrestRepository } from '../support/pgbackrest-repositories.ts';
import { runViewer, startStandalone, VIEWER_BIN, type ScanDocument } from '../support/run-viewer.ts';

/** Texts that must never be printed: the store's secret key, provider text, signing material. */
const NEVER = ['testing', CANARY, 'X-Amz-Signature', 'AWS4-HMAC-SHA256', 'Credential=', 'BEGIN CERTIFICATE', 'BEGIN PRIVATE KEY'];

function clean(...texts: string[]): void {
  for (const text of texts) for (const s of NEVER) assert.ok(!text.includes(s), `output carries ${s.slice(0, 4)}…`);
}

async function scan(env: Record<string, string>, args: string[] = ['scan']) {
  const r = await runViewer(args, env);
  clean(r.stdout, r.stderr);
  return r;
}

describe('errors that point at the cause (issue 26)', () => {
  let repos: RealRepositories;
  let dir: string;
  let keys: { STORE_ACCESS_KEY_ID_FILE: string; STORE_SECRET_ACCESS_KEY_FILE: string };
  const destination = () => `s3://${repos.bucket}/${repos.prefix}`;
  const staticEnv = (more: Record<string, string> = {}) => ({ DESTINATION_PATH: destination(), ARCHIVE_SERVER_NAMES: 'pg-main', STORE_ENDPOINT_URL: repos.endpoint, ...keys, ...more });

  before(() => {
    repos = realRepositories();
    dir = mkdtempSync(join(tmpdir(), 'viewer-cause-'));
    // Readable by another uid (the HOME-less test runs as one).
    chmodSync(dir, 0o755);
    writeFileSync(join(dir, 'id'), repos.accessKeyId, { mode: 0o644 });
    writeFileSync(join(dir, 'secret'), repos.secretAccessKey, { mode: 0o644 });
    keys = { STORE_ACCESS_KEY_ID_FILE: join(dir, 'id'), STORE_SECRET_ACCESS_KEY_FILE: join(dir, 'secret') };
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  describe('region', () => {
    it('a custom endpoint without a region scans with the documented default (ambient chain too)', async () => {
      const ambient = await scan({ DESTINATION_PATH: destination(), ARCHIVE_SERVER_NAMES: 'pg-main', STORE_ENDPOINT_URL: repos.endpoint, HOME: dir, AWS_ACCESS_KEY_ID: repos.accessKeyId, AWS_SECRET_ACCESS_KEY: repos.secretAccessKey });
      assert.equal(ambient.status, 0, ambient.stderr);
      assert.equal((JSON.parse(ambient.stdout) as ScanDocument).snapshot['evidence_generation'], 1, 'a complete scan');
    });

    it('AWS itself without any region names the missing region, as configuration, before any request', async () => {
      const r = await scan({ DESTINATION_PATH: destination(), ARCHIVE_SERVER_NAMES: 'pg-main', HOME: dir, AWS_ACCESS_KEY_ID: 'AKIAEXAMPLE', AWS_SECRET_ACCESS_KEY: repos.secretAccessKey });
      assert.equal(r.status, 1);
      assert.match(r.stderr, /^viewer: scan failed: invalid_configuration\nviewer: detail: no region: set STORE_REGION \(or AWS_REGION for the ambient chain\)\n$/m);
    });
  });

  describe('a store behind a private CA', () => {
    let tls: Server;
    let endpoint: string;
    let caFile: string;
    before(async () => {
      execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2', '-subj', '/CN=viewer-test-store', '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')], { stdio: 'ignore' });
      caFile = join(dir, 'cert.pem');
      const swift = new URL(repos.endpoint);
      // TLS in front of Swift: the self-signed certificate, then the bytes passed on.
      tls = createTlsServer({ key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(caFile) }, (socket) => {
        const upstream = connect(Number(swift.port), swift.hostname);
        socket.pipe(upstream).pipe(socket);
        const end = () => {
          socket.destroy();
          upstream.destroy();
        };
        socket.on('error', end);
        upstream.on('error', end);
      });
      await new Promise<void>((resolve) => tls.listen(0, '127.0.0.1', resolve));
      const address = tls.address();
      endpoint = `https://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`;
    });
    after(() => tls.close());

    it('an untrusted certificate is named: invalid_configuration, TLS verification, the code and the endpoint', async () => {
      const r = await scan(staticEnv({ STORE_ENDPOINT_URL: endpoint }));
      assert.equal(r.status, 1);
      const port = new URL(endpoint).port;
      assert.match(r.stderr, new RegExp(`^viewer: scan failed: invalid_configuration\\nviewer: detail: TLS verification failed: self-signed or unknown CA \\(add the CA with STORE_CA_FILE or NODE_EXTRA_CA_CERTS\\), DEPTH_ZERO_SELF_SIGNED_CERT, from 127\\.0\\.0\\.1:${port}\\n$`, 'm'));
    });

    it('STORE_CA_FILE adds the CA and the scan completes; so does NODE_EXTRA_CA_CERTS', async () => {
      const withCa = await scan(staticEnv({ STORE_ENDPOINT_URL: endpoint, STORE_CA_FILE: caFile }));
      assert.equal(withCa.status, 0, withCa.stderr);
      assert.equal((JSON.parse(withCa.stdout) as ScanDocument).snapshot['evidence_generation'], 1, 'a complete scan');
      const extra = await scan(staticEnv({ STORE_ENDPOINT_URL: endpoint, NODE_EXTRA_CA_CERTS: caFile }));
      assert.equal(extra.status, 0, extra.stderr);
    });

    it('a STORE_CA_FILE that cannot be read is refused by its variable, never its path', async () => {
      const r = await scan(staticEnv({ STORE_ENDPOINT_URL: endpoint, STORE_CA_FILE: join(dir, 'absent-ca.pem') }));
      assert.equal(r.status, 1);
      assert.match(r.stderr, /viewer: detail: STORE_CA_FILE could not be read \(ENOENT\)\n/);
      assert.ok(!r.stderr.includes('absent-ca'));
    });
  });

  describe('a process without a home directory (a uid without a passwd entry, HOME unset or empty)', () => {
    const root = process.getuid?.() === 0;
    const asNobody = (env: Record<string, string>, args = ['scan']) =>
      new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
        // A uid of its own: 4321 has no passwd entry on the test machine, and HOME is not passed.
        // It keeps the one capability to read and search directories, so that the checkout can sit
        // under a private directory (CI clones into mktemp -d, mode 0700): what this proves is about
        // HOME and the passwd entry, not file permissions.
        const setpriv = ['--reuid=4321', '--regid=4321', '--clear-groups', '--inh-caps=+dac_read_search', '--ambient-caps=+dac_read_search', '--', process.execPath, VIEWER_BIN, ...args];
        const child = spawn('setpriv', setpriv, { env: { PATH: process.env['PATH'] ?? '', ...env } });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
        child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
        child.on('close', (status) => resolve({ status, stdout, stderr }));
      });

    it('static files (HOME unset or empty) and the ambient chain scan', { skip: !root && 'needs root to run as a uid without a passwd entry' }, async () => {
      assert.throws(() => execFileSync('getent', ['passwd', '4321']), 'uid 4321 must have no passwd entry');
      const statics = await asNobody(staticEnv());
      clean(statics.stdout, statics.stderr);
      assert.equal(statics.status, 0, statics.stderr);
      const emptyHome = await asNobody(staticEnv({ HOME: '' }));
      assert.equal(emptyHome.status, 0, emptyHome.stderr);
      const ambient = await asNobody({ DESTINATION_PATH: destination(), ARCHIVE_SERVER_NAMES: 'pg-main', STORE_ENDPOINT_URL: repos.endpoint, AWS_ACCESS_KEY_ID: repos.accessKeyId, AWS_SECRET_ACCESS_KEY: repos.secretAccessKey });
      clean(ambient.stdout, ambient.stderr);
      assert.equal(ambient.status, 0, ambient.stderr);
      assert.doesNotMatch(ambient.stderr, /homedir|SystemError/);
    });
  });

  describe('credential files', () => {
    it('a missing S3 key file is invalid_configuration naming STORE_ACCESS_KEY_ID_FILE, not unavailable', async () => {
      const r = await scan(staticEnv({ STORE_ACCESS_KEY_ID_FILE: join(dir, 'absent-id') }));
      assert.equal(r.status, 1);
      assert.match(r.stderr, /^viewer: scan failed: invalid_configuration\nviewer: detail: STORE_ACCESS_KEY_ID_FILE could not be read \(ENOENT\)\n$/m);
      assert.ok(!r.stderr.includes('absent-id'));
    });

    it('a missing service-account key file is named, not unavailable', async () => {
      const r = await scan({ DESTINATION_PATH: 'gs://acme-ledger/pg', ARCHIVE_SERVER_NAMES: 'pg-main', STORE_SERVICE_ACCOUNT_KEY_FILE: join(dir, 'absent-key.json') });
      assert.equal(r.status, 1);
      assert.match(r.stderr, /^viewer: scan failed: invalid_configuration\nviewer: detail: STORE_SERVICE_ACCOUNT_KEY_FILE could not be read \(ENOENT\)\n$/m);
      writeFileSync(join(dir, 'not-json.json'), 'acme\n');
      const bad = await scan({ DESTINATION_PATH: 'gs://acme-ledger/pg', ARCHIVE_SERVER_NAMES: 'pg-main', STORE_SERVICE_ACCOUNT_KEY_FILE: join(dir, 'not-json.json') });
      assert.match(bad.stderr, /viewer: detail: STORE_SERVICE_ACCOUNT_KEY_FILE names a file that is not a JSON key\n/);
    });

    it('standalone refuses to start naming the file\'s variable on a detail line', async () => {
      const r = await scan(staticEnv({ STORE_SECRET_ACCESS_KEY_FILE: join(dir, 'absent-secret'), LISTEN_ADDR: '127.0.0.1:0' }), []);
      assert.equal(r.status, 78);
      assert.equal(r.stderr, 'viewer: standalone refused to start: store: invalid_configuration\nviewer: detail: STORE_SECRET_ACCESS_KEY_FILE could not be read (ENOENT)\n');
    });
  });

  describe('the store\'s refusal', () => {
    let proxy: FaultProxy;
    before(async () => {
      proxy = await startFaultProxy(repos.endpoint);
    });
    after(() => proxy.close());

    it('viewer scan prints the error code, the HTTP status and the endpoint, never the provider\'s text', async () => {
      proxy.liftAll();
      proxy.inject(s3.list, s3Error(403, 'AccessDenied', { bucket: repos.bucket, key: 'fixtures/pg-main/' }));
      const r = await scan(staticEnv({ STORE_ENDPOINT_URL: proxy.url }));
      assert.equal(r.status, 1);
      assert.match(r.stderr, new RegExp(`^viewer: scan failed: authorization\\nviewer: detail: AccessDenied, HTTP 403, from 127\\.0\\.0\\.1:${proxy.port}\\n$`, 'm'));
    });

    it('standalone logs a discovery failure with its detail fields', async () => {
      proxy.liftAll();
      proxy.inject(s3.list, s3Error(403, 'AccessDenied', { bucket: repos.bucket }));
      const discovering = Object.fromEntries(Object.entries(staticEnv({ STORE_ENDPOINT_URL: proxy.url })).filter(([k]) => k !== 'ARCHIVE_SERVER_NAMES'));
      const viewer = await startStandalone(discovering);
      try {
        const deadline = Date.now() + 15_000;
        while (!viewer.logs().includes('discovery failed') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
        const line = viewer.logs().split('\n').find((l) => l.includes('discovery failed')) ?? '';
        const entry = JSON.parse(line) as Record<string, unknown>;
        assert.equal(entry['failure_category'], 'authorization');
        assert.equal(entry['error_name'], 'AccessDenied');
        assert.equal(entry['http_status'], 403);
        assert.equal(entry['endpoint'], `127.0.0.1:${proxy.port}`);
        clean(viewer.logs(), viewer.stderr());
      } finally {
        viewer.child.kill('SIGTERM');
        await new Promise((r) => viewer.child.once('exit', r));
      }
    });
  });

  describe('an empty scope says where it looked and what is beside it', () => {
    it('a misspelt server: the servers under the prefix and the closest name', async () => {
      const r = await scan(staticEnv({ ARCHIVE_SERVER_NAMES: 'pg-mian' }), ['scan', '--output', 'text']);
      assert.equal(r.status, 0, r.stderr);
      assert.ok(r.stderr.includes(`viewer: scope pg-mian is empty: nothing under ${destination()}/pg-mian/\n`), r.stderr);
      assert.match(r.stderr, /viewer: hint: names one level under s3:\/\/[^ ]+\/: [^\n]*pg-main/);
      assert.match(r.stderr, /viewer: hint: did you mean ARCHIVE_SERVER_NAMES=pg-main\?\n/);
    });

    it('a prefix that already names the server, and the server one level up', async () => {
      const r = await scan(staticEnv({ DESTINATION_PATH: `${destination()}/pg-main` }));
      assert.equal(r.status, 0, r.stderr);
      assert.ok(r.stderr.includes(`viewer: hint: this prefix already names a server (pg-main holds base/ or wals/): DESTINATION_PATH=${destination()} with ARCHIVE_SERVER_NAMES=pg-main\n`), r.stderr);
      assert.ok(r.stderr.includes(`viewer: hint: pg-main exists one level up: DESTINATION_PATH=${destination()}\n`), r.stderr);
    });

    it('a prefix one segment short: the server one level down', async () => {
      const r = await scan(staticEnv({ DESTINATION_PATH: `s3://${repos.bucket}` }));
      assert.equal(r.status, 0, r.stderr);
      assert.ok(r.stderr.includes(`viewer: hint: pg-main exists one level down: DESTINATION_PATH=${destination()}\n`), r.stderr);
    });

    it('a pgBackRest repository read as archive-cloud says which REPOSITORY_FORMAT it is', async () => {
      const pgbr = pgbackrestRepository();
      const r = await scan(staticEnv({ DESTINATION_PATH: `s3://${pgbr.bucket}/${pgbr.prefix}`, ARCHIVE_SERVER_NAMES: pgbr.main.stanza }));
      assert.equal(r.status, 0, r.stderr);
      assert.match(r.stderr, /viewer: hint: this looks like a pgBackRest repository: REPOSITORY_FORMAT=stanza-repository/);
    });

    it('a misspelt stanza: the stanzas of the repository and the closest name', async () => {
      const pgbr = pgbackrestRepository();
      const r = await scan(staticEnv({ DESTINATION_PATH: `s3://${pgbr.bucket}/${pgbr.prefix}`, ARCHIVE_SERVER_NAMES: 'mian', REPOSITORY_FORMAT: 'stanza-repository' }));
      assert.equal(r.status, 0, r.stderr);
      assert.match(r.stderr, /viewer: scope mian is empty: nothing under s3:\/\/[^ ]+\/archive\/mian\/ or s3:\/\/[^ ]+\/backup\/mian\/\n/);
      assert.match(r.stderr, /viewer: hint: did you mean ARCHIVE_SERVER_NAMES=main\?\n/);
    });
  });

  describe('configuration mistakes', () => {
    it('a near-miss variable of any prefix is a warning naming the variable meant', async () => {
      const r = await scan({ ...staticEnv(), REPOSITRY_FORMAT: 'stanza-repository', LISTEN_ADR: ':8080' }, ['check-config']);
      assert.equal(r.status, 0, r.stderr);
      assert.match(r.stderr, /^viewer: warning: LISTEN_ADR: not a viewer variable; ignored \(did you mean LISTEN_ADDR\?\)$/m);
      assert.match(r.stderr, /^viewer: warning: REPOSITRY_FORMAT: not a viewer variable; ignored \(did you mean REPOSITORY_FORMAT\?\)$/m);
      assert.ok(!r.stderr.includes('stanza-repository'), 'the value is never echoed');
    });

    it('PROVIDER messages say what each neutral identifier is', async () => {
      const r = await scan({ DESTINATION_PATH: 's3://acme-backups/pg', PROVIDER: 'azure' }, ['check-config']);
      assert.equal(r.status, 78);
      assert.equal(r.stderr, 'viewer: configuration refused: PROVIDER: must be store-a (S3 and S3-compatible stores), store-b (Azure Blob Storage) or store-c (Google Cloud Storage)\n');
    });

    it('other tools\' URL forms get the form viewer expects, never the URL back', async () => {
      const forms: [string, RegExp][] = [
        ['azure://acmeacct/backups/pg', /must be written https:\/\/<account>\.blob\.core\.windows\.net\/<container>\[\/path\] \(store-b, Azure Blob Storage\)/],
        ['wasbs://backups@acmeacct.blob.core.windows.net/pg', /Hadoop wasbs:\/\/<container>@<account>\.blob\.core\.windows\.net\/<path> URL names the same place/],
        ['s3a://acme-backups/pg', /must be written s3:\/\/bucket\[\/path\] \(store-a, S3 and S3-compatible stores/],
        ['https://storage.googleapis.com/acme-backups/pg', /must be written gs:\/\/bucket\[\/path\] \(store-c, Google Cloud Storage\), not as an HTTPS object URL/],
      ];
      for (const [url, rule] of forms) {
        const r = await scan({ DESTINATION_PATH: url }, ['check-config']);
        assert.equal(r.status, 78, url);
        assert.match(r.stderr, /^viewer: configuration refused: DESTINATION_PATH: /, url);
        assert.match(r.stderr, rule, url);
        assert.doesNotMatch(r.stderr, /PROVIDER is required|acme/, url);
      }
    });

    it('an unknown command or --output names the mistake in one line before the usage', async () => {
      const command = await scan({}, ['sacn']);
      assert.equal(command.status, 64);
      assert.match(command.stderr, /^viewer: unknown command "sacn" \(did you mean scan\?\)\nusage: viewer/);
      const output = await scan(staticEnv(), ['scan', '--output', 'jsno']);
      assert.equal(output.status, 64);
      assert.match(output.stderr, /^viewer: scan --output "jsno" is no output format: json, openmetrics or text \(did you mean json\?\)\nusage: viewer/);
      const option = await scan(staticEnv(), ['scan', '--ouput=text']);
      assert.match(option.stderr, /^viewer: scan has no option "--ouput" \(did you mean --output\?\)\nusage: viewer/);
    });

    it('check-config prints the destination fingerprint the scan publishes', async () => {
      const check = await scan(staticEnv(), ['check-config']);
      assert.equal(check.status, 0, check.stderr);
      const summary = JSON.parse(check.stdout) as Record<string, unknown>;
      assert.match(String(summary['destination_fingerprint']), /^sha256:[0-9a-f]{64}$/);
      assert.ok(!check.stdout.includes(repos.bucket) && !check.stdout.includes('pg-main'));
      const run = await scan(staticEnv());
      const identity = (JSON.parse(run.stdout) as ScanDocument).snapshot['identity'] as { repository: { destination_fingerprint: string } };
      assert.equal(summary['destination_fingerprint'], identity.repository.destination_fingerprint);
    });
  });

  describe('the start line', () => {
    const firstLine = async (listen: string) => {
      const viewer = await startStandalone({ LISTEN_ADDR: listen });
      viewer.child.kill('SIGTERM');
      await new Promise((r) => viewer.child.once('exit', r));
      return viewer.stderr().split('\n')[0] ?? '';
    };

    it('names 0.0.0.0 and all interfaces when LISTEN_ADDR has no host, never localhost', async () => {
      assert.match(await firstLine(':0'), /^viewer: standalone UI on http:\/\/0\.0\.0\.0:\d+\/ \(all interfaces\) \(embedded demo repository\)$/);
    });

    it('names the bound host when LISTEN_ADDR gives one', async () => {
      assert.match(await firstLine('127.0.0.1:0'), /^viewer: standalone UI on http:\/\/127\.0\.0\.1:\d+\/ \(embedded demo repository\)$/);
    });
  });
});
