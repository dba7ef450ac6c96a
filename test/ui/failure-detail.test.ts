/**
 * The standalone page says what points at a failure's cause beside its category (issue 26): the
 * store's error name and HTTP status, never the endpoint, a key or the provider's text. The real
 * executable on Barman 3.4's fixtures in Swift, behind the fault proxy answering every request
 * with S3's AccessDenied: once with a configured server (its scan fails), once discovering (the
 * discovery fails).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CANARY, s3Error, startFaultProxy, type FaultProxy } from '../support/fault-proxy.ts';
import { realRepositories } from '../support/real-repositories.ts';
import { s3CredentialFiles, startStandalone, type RunningViewer } from '../support/run-viewer.ts';

describe('a failure on the standalone page names its cause', () => {
  let proxy: FaultProxy;
  let creds: ReturnType<typeof s3CredentialFiles>;
  const running: RunningViewer[] = [];
  const repos = () => realRepositories();

  before(async () => {
    proxy = await startFaultProxy(repos().endpoint);
    creds = s3CredentialFiles(repos());
    proxy.inject(() => true, s3Error(403, 'AccessDenied', { bucket: repos().bucket }), { name: 'denied' });
  });
  after(async () => {
    for (const v of running) if (v.child.exitCode === null) v.child.kill('SIGKILL');
    await proxy?.close();
    creds?.remove();
  });

  async function pageWhen(env: Record<string, string>, ready: RegExp): Promise<string> {
    const viewer = await startStandalone({ DESTINATION_PATH: `s3://${repos().bucket}/${repos().prefix}`, STORE_ENDPOINT_URL: proxy.url, ...creds.env, ...env });
    running.push(viewer);
    let page = '';
    for (let i = 0; i < 100 && !ready.test(page); i++) {
      await new Promise((r) => setTimeout(r, 100));
      page = await (await fetch(viewer.base)).text();
    }
    return page;
  }

  it("a scope's failed scan: the category, the error name and the HTTP status", async () => {
    const page = await pageWhen({ ARCHIVE_SERVER_NAMES: 'pg-main' }, /failed: authorization/);
    assert.match(page, /<span>Last attempt<\/span><span><time[^>]*>[^<]*<\/time> — failed: authorization \(AccessDenied, HTTP 403\)<\/span>/);
    for (const secret of [CANARY, `127.0.0.1:${proxy.port}`, repos().accessKeyId]) assert.ok(!page.includes(secret), `the page shows ${secret}`);
  });

  it('a failed discovery: the category, the error name and the HTTP status', async () => {
    const page = await pageWhen({}, /Discovery failed/);
    assert.match(page, /<strong>Discovery failed \(authorization: AccessDenied, HTTP 403\):<\/strong>/);
    for (const secret of [CANARY, `127.0.0.1:${proxy.port}`, repos().accessKeyId]) assert.ok(!page.includes(secret), `the page shows ${secret}`);
  });
});
