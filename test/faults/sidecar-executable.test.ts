/**
 * One store fault end to end through the real executable: `bin/viewer.js` in sidecar mode on the
 * fixed socket path inside a private mount namespace (`unshare -m`, as test/api/sidecar-e2e.test.ts;
 * CI runs as root), its store the real Swift S3 endpoint behind the fault proxy, the real `pg-main`
 * repository, REFRESH_INTERVAL_SECONDS at its minimum (10). The API is read with curl inside the
 * child's mount namespace (`nsenter`). Healthy generation 1; then a sustained 503 SlowDown on
 * every request: the next refresh publishes `refresh-throttled` with generation 1 served byte for
 * byte, stale, `/readyz` 503; the fault lifted, the refresh after it (backed off to twice the
 * interval, D-74) publishes generation 2 and `/readyz` is 200 again; SIGTERM exits 0. Nothing of the
 * provider's answers, the store or the credentials reaches a response or a log line.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { COLLECTIONS } from '../../src/contract/routes.ts';
import { s3, s3Error, startFaultProxy, type FaultProxy } from '../support/fault-proxy.ts';
import { realRepositories } from '../support/real-repositories.ts';
import { assertNoLeak, forbiddenText, TOKEN, withoutRevision } from './harness.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const available = spawnSync('unshare', ['-m', 'true']).status === 0 && spawnSync('nsenter', ['--version']).status === 0;

const SCRIPT = `
set -eu
mount -t tmpfs tmpfs /run
mkdir -p /run/viewer /run/secrets
chmod 2770 /run/viewer
printf '%s' "$TOKEN" > /run/secrets/token && chmod 0440 /run/secrets/token
printf '%s\\n' "$KEY_ID" > /run/secrets/id && printf '%s\\n' "$SECRET" > /run/secrets/secret
unset TOKEN KEY_ID SECRET
export RUNTIME_MODE=sidecar REPOSITORY_FORMAT=archive-cloud PROVIDER=store-a
export EVIDENCE_TOKEN_FILE=/run/secrets/token CLUSTER_NAMESPACE=databases
export CLUSTER_UID=6f1c2a7e-3b9d-4e8f-a1c2-9d8e7f6a5b4c STORE_CREDENTIAL_MODE=static-files
export STORE_ACCESS_KEY_ID_FILE=/run/secrets/id STORE_SECRET_ACCESS_KEY_FILE=/run/secrets/secret
export REFRESH_INTERVAL_SECONDS=10 READINESS_WINDOW_SECONDS=10 LOG_LEVEL=debug
exec "$NODE" bin/viewer.js
`;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('the sidecar executable under a store fault', { skip: available ? false : 'unshare -m and nsenter are not permitted here', timeout: 120_000 }, () => {
  let proxy: FaultProxy;
  let child: ChildProcess;
  let stdout = '';
  let stderr = '';
  const responses: string[] = [];

  /** GET over the socket inside the child's mount namespace: status and body. */
  const get = (path: string): { status: number; body: string } => {
    const r = spawnSync('nsenter', ['-t', String(child.pid), '-m', '--', 'curl', '-s', '-w', '\n%{http_code}', '--unix-socket', '/var/run/viewer/evidence.sock', '-H', `Authorization: Bearer ${TOKEN}`, `http://sidecar${path}`], { encoding: 'utf8', timeout: 10_000 });
    const cut = r.stdout.lastIndexOf('\n');
    const reply = { status: Number(r.stdout.slice(cut + 1)), body: r.stdout.slice(0, Math.max(0, cut)) };
    responses.push(reply.body);
    return reply;
  };
  const snapshot = () => JSON.parse(get('/api/v1alpha1/snapshot').body || '{}') as { revision?: number; evidence_generation?: number; stale?: boolean; reason?: { code: string }; inventory?: { last_failure_category: string | null } };
  const until = async (what: string, ms: number, ok: () => boolean) => {
    const end = Date.now() + ms;
    while (Date.now() < end) {
      if (ok()) return;
      await sleep(250);
    }
    assert.fail(`${what} within ${ms} ms; log:\n${stdout.slice(-2000)}${stderr}`);
  };
  const collections = (revision: number) =>
    Object.fromEntries(COLLECTIONS.map(({ route, path }) => {
      const r = get(`${path}?revision=${revision}&limit=200`);
      assert.equal(r.status, 200, r.body);
      return [route, [r.body]];
    }));

  before(async () => {
    const repos = realRepositories();
    proxy = await startFaultProxy(repos.endpoint);
    child = spawn('unshare', ['-m', 'bash', '-c', SCRIPT], {
      cwd: ROOT,
      env: { PATH: process.env['PATH'] ?? '', NODE: process.execPath, TOKEN, KEY_ID: repos.accessKeyId, SECRET: repos.secretAccessKey, DESTINATION_PATH: `s3://${repos.bucket}/${repos.prefix}`, ARCHIVE_SERVER_NAMES: 'pg-main', STORE_ENDPOINT_URL: proxy.url },
    });
    child.stdout?.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
  });
  after(async () => {
    if (child.exitCode === null) child.kill('SIGKILL');
    await proxy.close();
  });

  it('keeps generation 1 through a throttled refresh, then publishes generation 2 once the store answers', async () => {
    await until('generation 1 published', 30_000, () => snapshot().evidence_generation === 1);
    const healthy = snapshot();
    const before = collections(healthy.revision ?? 0);
    await until('/readyz ready', 15_000, () => get('/readyz').status === 200);

    const rule = proxy.inject(s3.any, s3Error(503, 'SlowDown', { bucket: 'barman' }));
    await until('a throttled refresh published', 25_000, () => snapshot().inventory?.last_failure_category === 'throttled');
    const failed = snapshot();
    assert.deepEqual([failed.evidence_generation, failed.stale, failed.reason?.code], [1, true, 'refresh-throttled']);
    assert.ok((failed.revision ?? 0) > (healthy.revision ?? 0));
    assert.deepEqual(withoutRevision(collections(failed.revision ?? 0)), withoutRevision(before), 'generation 1 is served byte for byte');
    await until('/readyz not ready', 20_000, () => get('/readyz').status === 503);
    // Every request of the fault was tried at most maxAttempts times.
    assert.ok(proxy.log.every((r) => r.attempt === null || r.attempt.n <= 3));

    rule.lift();
    await until('generation 2 published', 40_000, () => snapshot().evidence_generation === 2);
    const recovered = snapshot();
    assert.deepEqual([recovered.stale, recovered.inventory?.last_failure_category], [false, null]);
    await until('/readyz ready again', 20_000, () => get('/readyz').status === 200);

    child.kill('SIGTERM');
    const code = await new Promise<number | null>((resolve) => (child.exitCode !== null ? resolve(child.exitCode) : child.once('exit', resolve)));
    assert.equal(code, 0, stderr);
    assertNoLeak([...responses, ...stdout.split('\n'), stderr], forbiddenText(proxy), 'response or log line of the executable');
    assert.match(stdout, /"failure_category":"throttled"/, 'the failure is logged, by category');
  });
});
