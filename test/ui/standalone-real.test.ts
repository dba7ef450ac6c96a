/**
 * Standalone mode on the real repositories in Swift: scopes discovered under the destination when
 * ARCHIVE_SERVER_NAMES is unset, readiness from a prefix-scoped listing, a client that sends its
 * headers too slowly is cut off (read-header timeout, 5 s), and SIGTERM shuts down gracefully.
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { realRepositories, type RealRepositories } from '../support/real-repositories.ts';
import { startStandalone, type RunningViewer } from '../support/run-viewer.ts';
import { expectedGapStatusNow } from '../support/gap-age.ts';

describe('standalone mode on a real S3-compatible store', () => {
  let child: ChildProcess;
  let base = '';
  let dir = '';
  let viewer: RunningViewer;
  let repos: RealRepositories;

  before(async () => {
    repos = realRepositories();
    dir = mkdtempSync(join(tmpdir(), 'viewer-standalone-'));
    writeFileSync(join(dir, 'id'), repos.accessKeyId);
    writeFileSync(join(dir, 'secret'), repos.secretAccessKey);
    viewer = await startStandalone({
      DESTINATION_PATH: `s3://${repos.bucket}/${repos.prefix}`,
      STORE_ENDPOINT_URL: repos.endpoint,
      STORE_ACCESS_KEY_ID_FILE: join(dir, 'id'),
      STORE_SECRET_ACCESS_KEY_FILE: join(dir, 'secret'),
    });
    child = viewer.child;
    base = viewer.base;
    for (let i = 0; i < 100 && (viewer.logs().match(/"generation":1/g) ?? []).length < 2; i++) await new Promise((r) => setTimeout(r, 100));
  });
  after(() => {
    if (child.exitCode === null) child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it('discovers both server scopes and shows their evidence', async () => {
    const page = await (await fetch(base)).text();
    assert.match(page, /2 server scopes: <code>pg-main<\/code>, <code>pg-wal1m<\/code>/);
    // Discovery listed the whole destination: nothing there belongs to no scope.
    assert.match(page, /belong to no server scope: 0\./);
    assert.match(page, /Server <code>pg-wal1m<\/code> <span class="state/);
    // The deleted segment is a candidate gap (pg-main warning) in the build's first hour and a
    // confirmed one (unhealthy) after it (test/support/gap-age.ts); never one with the other's state.
    const wals = await (await fetch(new URL('/wals?server=pg-main&class=segment&timeline=1', base))).text();
    const shown = /<strong>missing<\/strong> 1 segment \((candidate|confirmed) gap\)/.exec(wals)?.[1];
    assert.ok(shown !== undefined, 'the WAL browser shows the deleted segment as a gap');
    const expected = expectedGapStatusNow(repos.objects('pg-main'), repos.facts['DELETED_WAL'] ?? '');
    if (expected !== null) assert.equal(shown, expected);
    // The failed backup's error text, exactly as barman-cloud-backup-list shows it (escaped on the page).
    const recorded = repos.backupList('pg-main').find((b) => b.status === 'FAILED') as { error?: string } | undefined;
    assert.ok(typeof recorded?.error === 'string' && recorded.error !== '', 'Barman recorded an error for the failed backup');
    const escaped = recorded.error.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;').replaceAll("'", '&#39;');
    assert.ok(page.includes(`Recorded error: <q>${escaped}</q>`), 'the page shows the recorded error');
    const state = shown === 'confirmed' ? 'unhealthy' : 'warning';
    assert.match(page, new RegExp(`Server <code>pg-main</code> <span class="state ${state}">${state}</span>`));
  });

  it('is ready once a prefix-scoped listing succeeded', async () => {
    let status = 0;
    for (let i = 0; i < 50 && status !== 200; i++) {
      status = (await fetch(new URL('/readyz', base))).status;
      if (status !== 200) await new Promise((r) => setTimeout(r, 100));
    }
    assert.equal(status, 200);
  });

  it('cuts off a client that does not finish its headers within 5 s', async () => {
    const url = new URL(base);
    const started = Date.now();
    await new Promise<void>((resolve) => {
      const socket = connect(Number(url.port), url.hostname, () => socket.write('GET / HTTP/1.1\r\nHost: x\r\n'));
      socket.on('data', () => undefined);
      socket.on('close', () => resolve());
    });
    const took = Date.now() - started;
    assert.ok(took >= 4_000 && took < 9_000, `closed after ${took} ms`);
  });

  it('shuts down gracefully on SIGTERM', async () => {
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    assert.equal(await exited, 0);
    assert.doesNotMatch(viewer.logs(), /fixtures|acme|tester|testing/);
  });
});
