/**
 * store-b in `ambient` credential mode, through the real executable. Barman's own source comes
 * first (`AZURE_STORAGE_CONNECTION_STRING`); without it the driver asks the SDK's default chain
 * (`DefaultAzureCredential`) for a token for the destination's account.
 *
 * Nothing here may leave loopback. The full chain's managed identity would probe the instance
 * metadata address 169.254.169.254, so every run restricts the chain with AZURE_TOKEN_CREDENTIALS
 * (`dev`: editor, CLI and broker credentials only; or the Azure CLI alone), points PATH and HOME
 * at directories of this test (no real `az`, `pwsh` or `azd`; a fake `az` where one is wanted),
 * and runs under the loopback guard, which refuses and records any connection or DNS lookup
 * beyond loopback: every test asserts that the record stays empty. The successful token path runs
 * against Azurite over https on 127.0.0.1 with bearer tokens enabled, the token coming from the
 * fake `az` through the chain.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getCACertificates, setDefaultCACertificates } from 'node:tls';
import { after, before, describe, it } from 'node:test';
import { BlobServiceClient } from '@azure/storage-blob';
import { DEMO_PREFIX, DEMO_SERVER } from '../../src/format/barman-cloud/demo-repository.ts';
import { demoObjects } from '../support/demo-objects.ts';
import { startAzurite, AZURITE_ACCOUNT, AZURITE_KEY, type Azurite } from '../support/azurite.ts';
import { LOOPBACK_GUARD } from '../support/loopback-guard.ts';
import { runViewer, startStandalone } from '../support/run-viewer.ts';

const CLOUD_DESTINATION = `https://viewerprobe.blob.core.windows.net/barman/${DEMO_PREFIX}`;
const TOKEN_RESOURCE = 'https://storage.azure.com';

/** Texts that must appear on no line of any output: the destination, the chain's and the SDK's words, tokens. */
const LEAKS = [
  'viewerprobe', 'blob.core.windows.net', '169.254', 'microsoftonline', 'storage.azure.com', AZURITE_ACCOUNT, AZURITE_KEY,
  'Credential', 'ChainedToken', 'Azure CLI', 'az login', 'aka.ms', 'AZURE_', 'Bearer', 'not permitted', 'TLS', 'eyJ',
];

/** Provider text, tokens and the chain's messages: never anywhere, the detail of a failure included. */
const NEVER = ['169.254', 'microsoftonline', 'storage.azure.com', AZURITE_KEY, 'aka.ms', 'Bearer', 'not permitted', 'eyJ', 'Please run'];

/**
 * The detail of a failure (issue 26) names the SDK's error name, the endpoint's host:port and
 * viewer's own local cause (which names the variables to set): on the `viewer: detail:` line and
 * the log's `error_name`, `endpoint` and `local_cause` fields, and on the standalone page in the
 * parentheses after a failed attempt's category. Those are checked against NEVER only; every other
 * line and field against LEAKS too.
 */
function assertNoLeak(...outputs: string[]): void {
  for (const raw of outputs.join('\n').split('\n')) {
    for (const s of NEVER) assert.ok(!raw.includes(s), `output line carries ${s}: ${raw.slice(0, 160)}`);
    let line = raw.startsWith('viewer: detail: ') ? '' : raw.replace(/( — failed: [a-z_]+) \([^<]*\)<\/span>/, '$1</span>');
    if (line.startsWith('{')) {
      const entry = JSON.parse(line) as Record<string, unknown>;
      for (const k of ['error_name', 'endpoint', 'local_cause']) delete entry[k];
      line = JSON.stringify(entry);
    }
    for (const s of LEAKS) assert.ok(!line.includes(s), `output line carries ${s}: ${line.slice(0, 160)}`);
  }
}

/** An unsigned JWT of the kind Azurite's basic OAuth accepts (audience, Microsoft issuer, lifetime). */
function fakeToken(lifetimeSeconds: number): { token: string; expiresOn: number } {
  const now = Math.floor(Date.now() / 1000);
  const b64 = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
  const exp = now + lifetimeSeconds;
  const token = `${b64({ alg: 'none', typ: 'JWT' })}.${b64({ aud: TOKEN_RESOURCE, iss: 'https://sts.windows.net/72f988bf-86f1-41af-91ab-2d7cd011db47/', iat: now - 600, nbf: now - 600, exp, oid: 'viewer-test' })}.`;
  return { token, expiresOn: exp };
}

describe('store-b ambient credentials: the connection string first, then the SDK default chain', () => {
  let dir: string;
  let guardLog: string;
  let azCalls: string;
  let emptyBin: string;
  let fakeBin: string;
  let home: string;

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'viewer-azure-ambient-'));
    guardLog = join(dir, 'guard.log');
    azCalls = join(dir, 'az-calls');
    emptyBin = join(dir, 'empty-bin');
    fakeBin = join(dir, 'fake-bin');
    home = join(dir, 'home');
    for (const d of [emptyBin, fakeBin, home]) mkdirSync(d);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  /** A fake `az` (shell builtins only: PATH holds nothing else) that records its arguments, then answers. */
  function fakeAz(answer: string): void {
    writeFileSync(join(fakeBin, 'az'), `#!/bin/sh\nprintf '%s\\n' "$*" >> '${azCalls}'\n${answer}\n`, { mode: 0o755 });
  }

  function ambient(env: Record<string, string>): Record<string, string> {
    rmSync(guardLog, { force: true });
    rmSync(azCalls, { force: true });
    return {
      PATH: emptyBin,
      HOME: home,
      NODE_OPTIONS: `--import=${LOOPBACK_GUARD}`,
      LOOPBACK_GUARD_LOG: guardLog,
      // The SDK's own logging asked for as loudly as it goes: none of it may reach an output (D-53).
      AZURE_LOG_LEVEL: 'verbose',
      DEBUG: '*',
      PROVIDER: 'store-b',
      DESTINATION_PATH: CLOUD_DESTINATION,
      ARCHIVE_SERVER_NAMES: DEMO_SERVER,
      ...env,
    };
  }

  const attempts = () => (existsSync(guardLog) ? readFileSync(guardLog, 'utf8') : '');
  const azInvocations = () => (existsSync(azCalls) ? readFileSync(azCalls, 'utf8').trimEnd().split('\n') : []);

  function failed(r: { status: number | null; stdout: string; stderr: string }, category: string): void {
    assert.equal(r.status, 1, r.stderr);
    // The category, then at most one line pointing at the cause (issue 26: an error name, a status, a local cause).
    assert.match(r.stderr, new RegExp(`^viewer: scan failed: ${category}\\n(?:viewer: detail: [^\\n]+\\n)?$`));
    const snapshot = (JSON.parse(r.stdout) as { snapshot: { inventory: { last_failure_category: string }; reason: { code: string } } }).snapshot;
    assert.equal(snapshot.inventory.last_failure_category, category);
    assert.equal(snapshot.reason.code, `refresh-${category.replace('_', '-')}`);
  }

  it('control: the guard refuses and records a connection to the metadata address and a lookup of a public name', () => {
    const probe = `const s = require('node:net').connect(80, '169.254.169.254'); s.on('error', (e) => { console.log(e.code); require('node:dns').lookup('login.microsoftonline.com', (e2) => console.log(e2.code)); });`;
    const r = spawnSync(process.execPath, ['-e', probe], { env: { NODE_OPTIONS: `--import=${LOOPBACK_GUARD}`, LOOPBACK_GUARD_LOG: guardLog }, encoding: 'utf8', timeout: 10_000 });
    assert.equal(r.stdout, 'ECONNREFUSED\nENOTFOUND\n', r.stderr);
    assert.equal(attempts(), 'connect 169.254.169.254:80\nlookup login.microsoftonline.com\n');
    rmSync(guardLog);
  });

  it('without a connection string and no usable credential in the chain, the scan fails as authentication, leaking nothing', async () => {
    const r = await runViewer(['scan'], ambient({ AZURE_TOKEN_CREDENTIALS: 'dev' }));
    failed(r, 'authentication');
    assert.equal(attempts(), '', 'a connection or lookup beyond loopback was attempted');
    assertNoLeak(r.stdout, r.stderr);
  });

  it('the chain is the one consulted: its Azure CLI credential asks `az` for a storage token, and a refusal is authentication', async () => {
    fakeAz(`echo "ERROR: Please run 'az login' to setup account." >&2; exit 1`);
    const r = await runViewer(['scan'], ambient({ AZURE_TOKEN_CREDENTIALS: 'AzureCliCredential', PATH: fakeBin }));
    failed(r, 'authentication');
    assert.deepEqual(azInvocations(), [`account get-access-token --output json --resource ${TOKEN_RESOURCE}`]);
    assert.equal(attempts(), '');
    assertNoLeak(r.stdout, r.stderr);
  });

  it('standalone mode publishes the authentication failure, is not ready, and logs nothing of the chain', async () => {
    const viewer = await startStandalone(ambient({ AZURE_TOKEN_CREDENTIALS: 'dev', REFRESH_INTERVAL_SECONDS: '10' }));
    let stderr = '';
    viewer.child.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
    try {
      const deadline = Date.now() + 20_000;
      const failure = () => viewer.logs().split('\n').filter((l) => l.includes('"msg":"published"')).find((l) => !l.includes('"code":"no-completed-scan"'));
      while (failure() === undefined && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      assert.match(failure() ?? viewer.logs(), /"revision":\d+,"generation":0,"code":"refresh-authentication"/);
      const ready = await fetch(`${viewer.base}readyz`);
      assert.equal(ready.status, 503);
      const page = await (await fetch(viewer.base)).text();
      assert.match(page, /authentication/);
      assertNoLeak(page, await ready.text());
    } finally {
      const exited = new Promise((r) => viewer.child.once('exit', r));
      viewer.child.kill('SIGTERM');
      await exited;
    }
    assert.equal(attempts(), '');
    assertNoLeak(viewer.logs(), stderr);
  });

  for (const [what, env] of [
    ['an unknown AZURE_TOKEN_CREDENTIALS value (the SDK would echo it)', { AZURE_TOKEN_CREDENTIALS: 'AzureCliCredentialz-sekrit' }],
    ['an http emulator destination (bearer tokens need https)', { AZURE_TOKEN_CREDENTIALS: 'dev', DESTINATION_PATH: `http://127.0.0.1:9/${AZURITE_ACCOUNT}/barman/${DEMO_PREFIX}` }],
    ['an AZURE_STORAGE_CONNECTION_STRING that is set but empty (no fall-through to the chain)', { AZURE_TOKEN_CREDENTIALS: 'dev', AZURE_STORAGE_CONNECTION_STRING: '' }],
  ] as const) {
    it(`${what} is invalid_configuration, before any request`, async () => {
      const r = await runViewer(['scan'], ambient(env));
      failed(r, 'invalid_configuration');
      assert.equal(attempts(), '');
      assertNoLeak(r.stdout, r.stderr);
      assert.ok(!r.stderr.includes('sekrit') && !r.stdout.includes('sekrit'));
    });
  }

  describe('against Azurite over https on 127.0.0.1, with bearer tokens accepted', () => {
    let azurite: Azurite;
    let certFile: string;
    let destination: string;
    let expected: { objects: number };

    before(async () => {
      certFile = join(dir, 'cert.pem');
      const keyFile = join(dir, 'key.pem');
      execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '2', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', keyFile, '-out', certFile], { stdio: 'ignore' });
      // This test process uploads over the same https port: trust the certificate here too.
      setDefaultCACertificates([...getCACertificates('default'), readFileSync(certFile, 'utf8')]);
      azurite = await startAzurite({ tls: { certFile, keyFile } });
      destination = `${azurite.blobEndpoint}/barman/${DEMO_PREFIX}`;
      const container = BlobServiceClient.fromConnectionString(azurite.connectionString()).getContainerClient('barman');
      await container.create();
      const objects = await demoObjects();
      for (const o of objects) await container.getBlockBlobClient(o.key).upload(o.body, o.body.length);
      expected = { objects: objects.length };
    });
    after(() => azurite.stop());

    function demoEvidence(r: { status: number | null; stdout: string; stderr: string }): void {
      assert.equal(r.status, 0, r.stderr);
      const doc = JSON.parse(r.stdout) as { snapshot: { identity: { repository: { provider: string } }; inventory: { object_count: number } }; backups: { state: string }[]; wal_gaps: { first_wal: string }[]; wal_ranges: unknown[] };
      assert.equal(doc.snapshot.identity.repository.provider, 'store-b');
      assert.equal(doc.snapshot.inventory.object_count, expected.objects);
      assert.deepEqual(doc.backups.map((b) => b.state), ['healthy', 'healthy', 'unhealthy', 'healthy', 'unknown']);
      assert.deepEqual(doc.wal_gaps.map((g) => g.first_wal), ['000000010000000000000005', '000000010000000000000016']);
      assert.equal(doc.wal_ranges.length, 4);
    }

    it('a token from the chain reads the repository: the same evidence as the in-memory scan', async () => {
      const { token, expiresOn } = fakeToken(3600);
      fakeAz(`printf '%s' '${JSON.stringify({ accessToken: token, expiresOn: new Date(expiresOn * 1000).toISOString(), expires_on: expiresOn, tokenType: 'Bearer' })}'`);
      const r = await runViewer(['scan'], ambient({ AZURE_TOKEN_CREDENTIALS: 'AzureCliCredential', PATH: fakeBin, NODE_EXTRA_CA_CERTS: certFile, DESTINATION_PATH: destination }));
      demoEvidence(r);
      assert.deepEqual(azInvocations(), [`account get-access-token --output json --resource ${TOKEN_RESOURCE}`]);
      assert.equal(attempts(), '');
      assert.ok(!r.stdout.includes(token) && !r.stderr.includes(token));
    });

    it('a token the service refuses (expired) is authentication', async () => {
      const { token, expiresOn } = fakeToken(-60);
      // The CLI's own expiry is in the future, so the SDK sends the token and the service judges it.
      fakeAz(`printf '%s' '${JSON.stringify({ accessToken: token, expires_on: expiresOn + 7200, tokenType: 'Bearer' })}'`);
      const r = await runViewer(['scan'], ambient({ AZURE_TOKEN_CREDENTIALS: 'AzureCliCredential', PATH: fakeBin, NODE_EXTRA_CA_CERTS: certFile, DESTINATION_PATH: destination }));
      failed(r, 'authentication');
      assert.equal(attempts(), '');
      assertNoLeak(r.stdout, r.stderr);
    });

    it('AZURE_STORAGE_CONNECTION_STRING comes first: the chain is not consulted', async () => {
      fakeAz(`echo "ERROR: Please run 'az login' to setup account." >&2; exit 1`);
      const env = { AZURE_TOKEN_CREDENTIALS: 'AzureCliCredential', PATH: fakeBin, NODE_EXTRA_CA_CERTS: certFile, DESTINATION_PATH: destination, AZURE_STORAGE_CONNECTION_STRING: azurite.connectionString() };
      const r = await runViewer(['scan'], ambient(env));
      demoEvidence(r);
      assert.deepEqual(azInvocations(), []);
      assert.equal(attempts(), '');
    });
  });
});
