/**
 * While the first scan runs, the standalone page says how far it got ("Scanning: N pages, M
 * objects so far", the scan's own listing meter), and says nothing of it once the first
 * generation is published. The real executable on Barman 3.4's pg-main in Swift, behind the fault
 * proxy: every object read waits 5 s, so the listings have counted their pages while the scan
 * cannot complete yet.
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { realRepositories } from '../support/real-repositories.ts';
import { s3, startFaultProxy, type FaultProxy } from '../support/fault-proxy.ts';
import { s3CredentialFiles, startStandalone, type RunningViewer } from '../support/run-viewer.ts';

describe('the first scan in progress on the standalone page', () => {
  let proxy: FaultProxy;
  let viewer: RunningViewer;
  let child: ChildProcess;
  let creds: ReturnType<typeof s3CredentialFiles>;

  before(async () => {
    const repos = realRepositories();
    proxy = await startFaultProxy(repos.endpoint);
    creds = s3CredentialFiles(repos);
    proxy.inject(s3.get, { kind: 'delay', ms: 5_000 }, { name: 'reads slow' });
    viewer = await startStandalone({ DESTINATION_PATH: `s3://${repos.bucket}/${repos.prefix}`, ARCHIVE_SERVER_NAMES: 'pg-main', STORE_ENDPOINT_URL: proxy.url, ...creds.env });
    child = viewer.child;
  });
  after(async () => {
    if (child?.exitCode === null) child.kill('SIGKILL');
    await proxy?.close();
    creds?.remove();
  });

  it('counts the pages and objects listed so far, then shows the evidence instead', async () => {
    let page = '';
    for (let i = 0; i < 100; i++) {
      page = await (await fetch(viewer.base)).text();
      if (/Scanning:<\/strong> [1-9]/.test(page)) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const m = /<strong>Scanning:<\/strong> ([\d,]+) pages?, ([\d,]+) objects? so far/.exec(page);
    assert.ok(m !== null, 'no progress line while the first scan runs');
    const pages = Number((m[1] ?? '').replaceAll(',', ''));
    const listed = Number((m[2] ?? '').replaceAll(',', ''));
    // The listings ran before the reads hung: what they counted, never more than pg-main holds.
    assert.ok(pages >= 1 && listed >= 1 && listed <= realRepositories().objects('pg-main').length, `${pages} pages, ${listed} objects counted`);
    assert.equal(proxy.count((r) => r.fault === 'reads slow') > 0, true);
    for (let i = 0; i < 200 && !/"generation":1/.test(viewer.logs()); i++) await new Promise((r) => setTimeout(r, 100));
    const after = await (await fetch(viewer.base)).text();
    assert.doesNotMatch(after, /Scanning:/);
    assert.match(after, /Server <code>pg-main<\/code>/);
  });
});
