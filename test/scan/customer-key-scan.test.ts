/**
 * `viewer scan`, the real executable, on the real repositories Barman (server pg-main) and
 * pgBackRest (stanza main) wrote into the Swift store, as a scan without the key sees them when
 * the store keeps them encrypted with a customer-provided key (Barman 3.20 `--sse-customer-key`,
 * pgBackRest 2.52+ `repo1-s3-sse-customer-key`; issue 24, D-92): the fault proxy answers every
 * object read as AWS answers a GetObject of an SSE-C object without the key (400 `InvalidRequest`,
 * its message), and lets every listing through, as SSE-C leaves listings alone. Swift's s3api
 * cannot store SSE-C objects (it takes the SSE-C headers on an upload, ignores them, and serves the
 * object to a GetObject without the key), so the proxy standing in for AWS's answer is the only way
 * here.
 *
 * Proven: the scan completes (exit 0, no failed attempt); every backup with metadata is `unknown`
 * with the new reason, the others keep theirs; WAL ranges, gaps and the inventory are exactly
 * those of a scan of the same repository in the clear; no provider text reaches stdout or stderr.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { wireViolations } from '../../src/contract/validate.ts';
import { S3_SSE_C_MESSAGE, s3CustomerKeyAnswer } from '../support/customer-key-answers.ts';
import { CANARY, s3, startFaultProxy, type FaultProxy } from '../support/fault-proxy.ts';
import { pgbackrestRepository } from '../support/pgbackrest-repositories.ts';
import { realRepositories } from '../support/real-repositories.ts';
import { runViewer, type ScanDocument } from '../support/run-viewer.ts';

/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-explicit-any,
   @typescript-eslint/no-unsafe-return --
   the scan document is checked against the wire schemas; the assertions then read it loosely. */

interface Store {
  readonly endpoint: string;
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
}

/** The facts that must not depend on whether metadata could be read: listings alone give them. */
const listed = (doc: ScanDocument) => ({
  ranges: doc.wal_ranges,
  // Whole items but their status (below): positions and the generations that observed them.
  gaps: doc.wal_gaps.map((g) => ({ ...g, status: undefined })),
  classes: doc.observations?.wal_gap_classes,
  inventory: [doc.snapshot['inventory']['object_count'], doc.snapshot['inventory']['stored_bytes']],
  backups: doc.backups.map((b) => b['backup_id']).sort(),
});

describe('viewer scan of real repositories behind a customer-provided key (S3 SSE-C) it does not hold', () => {
  let proxy: FaultProxy;
  let dir: string;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'viewer-sse-c-scan-'));
    // Both repositories live in the one Swift store.
    proxy = await startFaultProxy(realRepositories().endpoint);
  });
  after(async () => {
    await proxy.close();
    rmSync(dir, { recursive: true, force: true });
  });

  function env(store: Store, endpoint: string, extra: Record<string, string>): Record<string, string> {
    writeFileSync(join(dir, 'id'), `${store.accessKeyId}\n`);
    writeFileSync(join(dir, 'secret'), `${store.secretAccessKey}\n`);
    return { STORE_ENDPOINT_URL: endpoint, STORE_ACCESS_KEY_ID_FILE: join(dir, 'id'), STORE_SECRET_ACCESS_KEY_FILE: join(dir, 'secret'), ...extra };
  }

  /** The clear scan, then the scan with every object read answered as AWS answers it for an SSE-C object. */
  async function scanBoth(store: Store, extra: Record<string, string>): Promise<{ clear: ScanDocument; sealed: ScanDocument; reads: number }> {
    const clearRun = await runViewer(['scan'], env(store, store.endpoint, extra));
    assert.equal(clearRun.status, 0, clearRun.stderr);
    const rule = proxy.inject(s3.get, s3CustomerKeyAnswer(), { name: 'sse-c' });
    try {
      proxy.clearLog();
      const r = await runViewer(['scan'], env(store, proxy.url, extra));
      assert.equal(r.status, 0, r.stderr);
      for (const text of [r.stdout, r.stderr]) {
        assert.ok(!text.includes(CANARY), 'provider text in the output');
        assert.ok(!text.includes(S3_SSE_C_MESSAGE.slice(0, 40)), "AWS's message in the output");
      }
      const sealed = JSON.parse(r.stdout) as ScanDocument;
      assert.deepEqual(wireViolations('RepositoryEvidenceSnapshot', sealed.snapshot), []);
      // Every object read was answered by the stand-in for AWS, none by the store; listings all reached it.
      const reads = proxy.count((x) => s3.get(x));
      assert.equal(proxy.count((x) => s3.get(x) && x.fault !== 'sse-c'), 0);
      assert.ok(proxy.count((x) => s3.list(x) && x.fault === null) > 0);
      return { clear: JSON.parse(clearRun.stdout) as ScanDocument, sealed, reads };
    } finally {
      rule.lift();
    }
  }

  it('Barman (pg-main): complete, every backup with a backup.info unknown with backup-info-customer-key-required; WAL, gaps, inventory as in the clear', async () => {
    const repos = realRepositories();
    const { clear, sealed, reads } = await scanBoth(repos, { DESTINATION_PATH: `s3://${repos.bucket}/${repos.prefix}`, ARCHIVE_SERVER_NAMES: 'pg-main' });
    assert.deepEqual([sealed.snapshot['completeness'], sealed.snapshot['inventory']['last_failure_category']], ['complete', null]);
    assert.deepEqual(listed(sealed), listed(clear));
    // Without metadata the segment size is unknown, so no gap can be confirmed (gaps.ts): a
    // candidate, whatever the clear scan could confirm once its successor was an hour old.
    assert.deepEqual(sealed.wal_gaps.map((g) => g['status']), sealed.wal_gaps.map(() => 'candidate'));
    assert.ok(sealed.wal_ranges.length > 0 && sealed.wal_gaps.length > 0, 'the repository has ranges and a gap to compare');
    const withInfo = new Set(repos.objects('pg-main').flatMap((o) => (o.key.endsWith('/backup.info') ? [o.key.split('/').at(-2)] : [])));
    assert.ok(withInfo.size >= 3);
    for (const b of sealed.backups) {
      const id = String(b['backup_id']);
      const expected = withInfo.has(id) ? ['unknown', 'backup-info-customer-key-required', null] : ['unknown', 'backup-info-missing', null];
      assert.deepEqual([b['state'], b['reason']['code'], b['status']], expected, id);
    }
    assert.match(String(sealed.backups.find((b) => withInfo.has(String(b['backup_id'])))?.['reason']['message']), /customer-provided key/);
    // Every backup.info, the keep annotation and timeline 2's history were asked for, once each.
    assert.equal(reads, withInfo.size + 2);
    const capability = (id: string) => (sealed.snapshot['capabilities'] as Record<string, any>[]).find((c) => c['id'] === id) ?? {};
    assert.deepEqual([capability('timeline-history-traversal')['state'], capability('timeline-history-traversal')['reason']['code']], ['unknown', 'timeline-history-unread']);
    assert.deepEqual([capability('catalog-listing')['state'], capability('catalog-listing')['reason']['code']], ['warning', 'catalog-incomplete']);
  });

  it('pgBackRest (stanza main): complete, every completed backup unknown with backup-metadata-customer-key-required; WAL, gaps, inventory as in the clear', async () => {
    const repo = pgbackrestRepository();
    const { clear, sealed } = await scanBoth(repo, { REPOSITORY_FORMAT: 'stanza-repository', DESTINATION_PATH: `s3://${repo.bucket}/${repo.prefix}`, ARCHIVE_SERVER_NAMES: repo.main.stanza });
    assert.deepEqual([sealed.snapshot['completeness'], sealed.snapshot['inventory']['last_failure_category']], ['complete', null]);
    assert.deepEqual(listed(sealed), listed(clear));
    // Without metadata the segment size is unknown, so no gap can be confirmed (gaps.ts): a
    // candidate, whatever the clear scan could confirm once its successor was an hour old.
    assert.deepEqual(sealed.wal_gaps.map((g) => g['status']), sealed.wal_gaps.map(() => 'candidate'));
    assert.ok(sealed.wal_ranges.length > 0 && sealed.wal_gaps.length > 0, 'the stanza has ranges and a gap to compare');
    const completed = [...repo.main.full, ...repo.main.diff, ...repo.main.incr].sort();
    assert.deepEqual(
      sealed.backups.filter((b) => b['backup_id'] !== repo.main.interrupted).map((b) => [b['backup_id'], b['status'], b['state'], b['reason']['code'], b['encryption']]),
      completed.map((id) => [id, null, 'unknown', 'backup-metadata-customer-key-required', null]),
    );
    // The interrupted backup is told by its listing alone (a manifest copy without the manifest).
    const interrupted = sealed.backups.find((b) => b['backup_id'] === repo.main.interrupted);
    assert.deepEqual([interrupted?.['status'], interrupted?.['reason']['code']], ['INTERRUPTED', 'backup-interrupted']);
    // Backup types read from the labels, as for the aes-256-cbc stanza.
    assert.deepEqual(
      sealed.backups.map((b) => b['backup_type']),
      clear.backups.map((b) => b['backup_type']),
    );
    const capability = (id: string) => (sealed.snapshot['capabilities'] as Record<string, any>[]).find((c) => c['id'] === id) ?? {};
    assert.deepEqual([capability('encrypted-metadata')['state'], capability('encrypted-metadata')['reason']['code']], ['unknown', 'metadata-encryption-unknown']);
    assert.deepEqual([capability('timeline-history-traversal')['state'], capability('timeline-history-traversal')['reason']['code']], ['unknown', 'timeline-history-unread']);
  });
});
