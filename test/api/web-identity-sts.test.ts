/**
 * Sidecar rules 2–3 for `web-identity`: the projected token goes only to AWS's regional STS
 * endpoint of the configured region. The AWS SDK would otherwise send the STS call to
 * AWS_ENDPOINT_URL_STS, AWS_ENDPOINT_URL or a shared config's `endpoint_url` (per profile or in a
 * `services` section), and take FIPS, dual-stack and the global endpoint from the environment or
 * that file. Here every one of them is set, the endpoints pointing at a recording listener on
 * 127.0.0.1, and `viewer scan` runs under the loopback guard: the listener must receive nothing,
 * and the only connection attempted (refused by the guard, so no STS is ever reached) must be to
 * `sts.<STORE_REGION>.amazonaws.com`. Without network the scan fails with a typed category.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { LOOPBACK_GUARD } from '../support/loopback-guard.ts';
import { runViewer } from '../support/run-viewer.ts';

const REGION = 'eu-west-1';
const TOKEN = 'eyJwcm9qZWN0ZWQtdG9rZW4iOiJ2aWV3ZXItdGVzdCJ9.not-a-real-token';

describe('web-identity: the STS call goes to the regional endpoint only', () => {
  let dir: string;
  let recorder: Server;
  let received: string[];
  let base: string;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'viewer-sts-'));
    received = [];
    recorder = createServer((req, res) => {
      received.push(`${req.method ?? ''} ${req.url ?? ''}`);
      req.resume();
      res.writeHead(400, { 'content-type': 'text/xml' }).end('<ErrorResponse><Error><Code>InvalidIdentityToken</Code></Error></ErrorResponse>');
    });
    await new Promise<void>((resolve) => recorder.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(recorder.address() as AddressInfo).port}`;
    writeFileSync(join(dir, 'token'), TOKEN);
    writeFileSync(join(dir, 'credentials'), '[default]\naws_access_key_id = AKIAVIEWERTESTAMBIENT\naws_secret_access_key = ambient-secret\n');
  });

  /** The shared config: a `[default]` profile (region us-east-1) with `profile` lines, then `extra` sections. */
  function writeConfig(profile: string[], extra: string[]): void {
    writeFileSync(join(dir, 'config'), ['[default]', 'region = us-east-1', ...profile, '', ...extra, ''].join('\n'));
  }

  after(async () => {
    await new Promise<void>((resolve) => recorder.close(() => resolve()));
    rmSync(dir, { recursive: true, force: true });
  });

  /** `viewer scan` in sidecar web-identity mode with `ambient` added to its environment, under the loopback guard. */
  async function scan(ambient: Record<string, string>): Promise<{ status: number | null; stdout: string; stderr: string; attempts: string[] }> {
    const guardLog = join(dir, 'guard.log');
    rmSync(guardLog, { force: true });
    const r = await runViewer(['scan'], {
      HOME: dir,
      RUNTIME_MODE: 'sidecar',
      REPOSITORY_FORMAT: 'archive-cloud',
      PROVIDER: 'store-a',
      DESTINATION_PATH: 's3://viewer-sts-probe/fixtures',
      ARCHIVE_SERVER_NAMES: 'pg-main',
      EVIDENCE_TOKEN_FILE: join(dir, 'evidence-token'),
      CLUSTER_NAMESPACE: 'databases',
      CLUSTER_UID: '6f1c2a7e-3b9d-4e8f-a1c2-9d8e7f6a5b4c',
      STORE_CREDENTIAL_MODE: 'web-identity',
      STORE_WEB_IDENTITY_TOKEN_FILE: join(dir, 'token'),
      STORE_ROLE_ARN: 'arn:aws:iam::123456789012:role/viewer-reader',
      STORE_REGION: REGION,
      AWS_CONFIG_FILE: join(dir, 'config'),
      AWS_SHARED_CREDENTIALS_FILE: join(dir, 'credentials'),
      AWS_PROFILE: 'default',
      ...ambient,
      NODE_OPTIONS: `--import=${LOOPBACK_GUARD}`,
      LOOPBACK_GUARD_LOG: guardLog,
    });
    return { ...r, attempts: (existsSync(guardLog) ? readFileSync(guardLog, 'utf8') : '').split('\n').filter(Boolean) };
  }

  /** A typed failure (no network), nothing secret printed, and the regional endpoint the only one tried. */
  function assertRegionalOnly(r: Awaited<ReturnType<typeof scan>>): void {
    assert.equal(r.status, 1, r.stderr);
    assert.match(r.stderr, /scan failed: (authentication|unavailable)\n/);
    const doc = JSON.parse(r.stdout) as { snapshot: { inventory: { last_failure_category: string } } };
    assert.match(doc.snapshot.inventory.last_failure_category, /^(authentication|unavailable)$/);
    assert.ok(r.attempts.length > 0, 'the regional STS endpoint was not even tried');
    assert.deepEqual([...new Set(r.attempts)], [`connect sts.${REGION}.amazonaws.com:443`]);
    assert.equal(r.attempts.length, 3, "the driver's 3 attempts, not the environment's 7");
    for (const out of [r.stdout, r.stderr]) assert.ok(!out.includes(TOKEN) && !out.includes('127.0.0.1') && !out.includes('ambient-secret'));
  }

  it('never sends the token to AWS_ENDPOINT_URL_STS, AWS_ENDPOINT_URL or a shared config endpoint_url', async () => {
    // The profile and its `services` section both name the recorder; so do both variables.
    writeConfig([`endpoint_url = ${base}/config-profile`, 'services = elsewhere'], ['[services elsewhere]', 'sts =', `  endpoint_url = ${base}/config-services-sts`]);
    const r = await scan({ AWS_ENDPOINT_URL_STS: `${base}/env-sts`, AWS_ENDPOINT_URL: `${base}/env-all` });
    assert.deepEqual(received, [], 'the token went to an endpoint from the environment');
    assertRegionalOnly(r);
    // The shared config's endpoint alone, too.
    const fromFile = await scan({});
    assert.deepEqual(received, [], 'the token went to the shared config endpoint');
    assertRegionalOnly(fromFile);
  });

  it('takes no FIPS, dual-stack, global-endpoint, region, retry or signing setting from the environment or the shared config', async () => {
    writeConfig(['use_fips_endpoint = true', 'use_dualstack_endpoint = true', 'sts_regional_endpoints = legacy', 'max_attempts = 7', 'retry_mode = adaptive', 'auth_scheme_preference = sigv4a'], []);
    assertRegionalOnly(await scan({}));
    writeConfig([], []);
    assertRegionalOnly(await scan({ AWS_USE_FIPS_ENDPOINT: 'true', AWS_USE_DUALSTACK_ENDPOINT: 'true', AWS_STS_REGIONAL_ENDPOINTS: 'legacy', AWS_REGION: 'us-east-1', AWS_DEFAULT_REGION: 'us-east-1', AWS_MAX_ATTEMPTS: '7', AWS_RETRY_MODE: 'adaptive', AWS_AUTH_SCHEME_PREFERENCE: 'sigv4a' }));
  });
});
