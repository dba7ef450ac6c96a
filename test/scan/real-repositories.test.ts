/**
 * `viewer scan`, the real executable, on the real repositories PostgreSQL 15 and Barman 3.4 wrote
 * into a real S3-compatible store (OpenStack Swift): it must report exactly Barman's backups, the
 * deleted segment as a gap, both timelines with the fork, recovery stops that match the gap, and
 * exact object and byte counts; every request it sends must stay under the server's prefix.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { wireViolations } from '../../src/contract/validate.ts';
import { realRepositories, type RealRepositories } from '../support/real-repositories.ts';
import { startFaultProxy } from '../support/fault-proxy.ts';
import { runViewer, type ScanDocument } from '../support/run-viewer.ts';
import { expectedGapStatus } from '../support/gap-age.ts';


/* eslint-disable @typescript-eslint/no-unsafe-member-access,
   @typescript-eslint/no-unsafe-return, @typescript-eslint/no-unsafe-assignment --
   the scan document is checked against the wire schemas; the assertions then read it loosely. */


describe('viewer scan on real barman-cloud repositories', () => {
  let repos: RealRepositories;
  let dir: string;
  let env: (server: string, endpoint?: string) => Record<string, string>;

  before(() => {
    repos = realRepositories();
    dir = mkdtempSync(join(tmpdir(), 'viewer-scan-'));
    writeFileSync(join(dir, 'id'), `${repos.accessKeyId}\n`);
    writeFileSync(join(dir, 'secret'), `${repos.secretAccessKey}\n`);
    env = (server, endpoint = repos.endpoint) => ({
      DESTINATION_PATH: `s3://${repos.bucket}/${repos.prefix}`,
      ARCHIVE_SERVER_NAMES: server,
      STORE_ENDPOINT_URL: endpoint,
      STORE_ACCESS_KEY_ID_FILE: join(dir, 'id'),
      STORE_SECRET_ACCESS_KEY_FILE: join(dir, 'secret'),
    });
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  async function scan(server: string, endpoint?: string): Promise<ScanDocument> {
    const r = await runViewer(['scan'], env(server, endpoint));
    assert.equal(r.status, 0, r.stderr);
    const doc = JSON.parse(r.stdout) as ScanDocument;
    assert.deepEqual(wireViolations('RepositoryEvidenceSnapshot', doc.snapshot), []);
    return doc;
  }

  it('reports exactly the backups Barman lists, with the abandoned directory kept apart', async () => {
    const doc = await scan('pg-main');
    const barman = repos.backupList('pg-main');
    const ours = doc.backups.filter((b) => b['status'] !== null);
    assert.deepEqual(
      ours.map((b) => [b['backup_id'], b['status'], b['begin_wal'], b['end_wal'], b['timeline'], b['system_id']]),
      barman.map((b) => [b.backup_id, b.status, b.begin_wal, b.end_wal, b.timeline, b.systemid]),
    );
    const abandoned = doc.backups.find((b) => b['backup_id'] === repos.facts['ABANDONED_BACKUP']);
    assert.deepEqual([abandoned?.['state'], abandoned?.['reason']['code']], ['unknown', 'backup-info-missing']);
    const failed = doc.backups.find((b) => b['backup_id'] === repos.facts['FAILED_BACKUP']);
    assert.deepEqual([failed?.['state'], failed?.['reason']['code']], ['unhealthy', 'backup-failed']);
    for (const id of [repos.facts['BACKUP_1'], repos.facts['BACKUP_2'], repos.facts['BACKUP_3']]) {
      const b = doc.backups.find((x) => x['backup_id'] === id);
      assert.deepEqual([b?.['state'], b?.['reason']['code']], ['healthy', 'structurally-usable'], String(id));
    }
    const compression = (id: string | undefined) => doc.backups.find((b) => b['backup_id'] === id)?.['compression'] as unknown;
    assert.deepEqual(
      [repos.facts['BACKUP_1'], repos.facts['BACKUP_2'], repos.facts['BACKUP_3'], repos.facts['FAILED_BACKUP'], repos.facts['ABANDONED_BACKUP']].map(compression),
      // The abandoned directory has no backup.info: its archive is no validated artifact (spec).
      ['none', 'gzip', 'bzip2', null, null],
    );
    assert.deepEqual([abandoned?.['stored_artifact_bytes'], abandoned?.['artifact_count']], [null, null]);
  });

  it('finds the deleted segment as the only gap, both timelines, and the fork', async () => {
    const doc = await scan('pg-main');
    const deleted = repos.facts['DELETED_WAL'] ?? '';
    // Candidate in the build's first hour, confirmed after (test/support/gap-age.ts).
    const status = expectedGapStatus(repos.objects('pg-main'), deleted, doc.observations);
    assert.deepEqual(doc.wal_gaps.map((g) => [g['timeline'], g['first_wal'], g['last_wal'], g['segment_count'], g['status']]), [[1, deleted, deleted, 1, status]]);
    // Beside the wire items: a lost segment between two backups is no hole retention leaves.
    assert.deepEqual(doc.observations?.wal_gap_classes, [{ timeline: 1, start_position: doc.wal_gaps[0]?.['start_position'], class: 'unexplained' }]);
    assert.deepEqual([...new Set(doc.wal_ranges.map((r) => r['timeline']))], [1, 2]);
    // Timeline 2 starts at the segment holding the switchpoint; timeline 1 continues past it: a fork.
    const switchpoint = /^1\t([0-9A-F]+)\/([0-9A-F]+)\t/.exec(repos.history2);
    assert.ok(switchpoint !== null, repos.history2);
    const switchPosition = Number((BigInt(`0x${switchpoint[1]}`) * 2n ** 32n + BigInt(`0x${switchpoint[2]}`)) / 16777216n);
    const tl2 = doc.wal_ranges.filter((r) => r['timeline'] === 2);
    assert.equal(tl2[0]?.['start_position'], switchPosition);
    const tl1Last = doc.wal_ranges.filter((r) => r['timeline'] === 1).at(-1);
    assert.ok((tl1Last?.['end_position'] as number) >= switchPosition);
    assert.equal(doc.snapshot['details']['archive_cloud']['timeline']['state'], 'healthy');
  });

  it('stops recovery paths at the gap exactly where it is, and reaches the frontier elsewhere', async () => {
    const doc = await scan('pg-main');
    const deleted = repos.facts['DELETED_WAL'] ?? '';
    const position = Number.parseInt(deleted.slice(16), 16);
    const fromBackup1 = doc.recovery_paths.filter((p) => p['backup_id'] === repos.facts['BACKUP_1']);
    const confirmed = expectedGapStatus(repos.objects('pg-main'), deleted, doc.observations) === 'confirmed';
    const stop = confirmed ? 'gap-limited' : 'candidate-limited';
    assert.deepEqual(fromBackup1.map((p) => [p['target_timeline'], p['stop'], p['frontier_position']]), [[1, stop, position - 1], [2, stop, position - 1]]);
    const fromBackup2 = doc.recovery_paths.filter((p) => p['backup_id'] === repos.facts['BACKUP_2']);
    assert.deepEqual(fromBackup2.map((p) => [p['target_timeline'], p['stop'], p['state']]), [[1, 'frontier', 'healthy'], [2, 'frontier', 'healthy']]);
    const toTl2 = fromBackup2.find((p) => p['target_timeline'] === 2);
    assert.equal(toTl2?.['frontier_timeline'], 2);
    assert.ok((toTl2?.['assumption_codes'] as string[]).includes('history-content-trusted'));
    assert.deepEqual(doc.recovery_paths.filter((p) => p['backup_id'] === repos.facts['FAILED_BACKUP']), []);
    const ac = doc.snapshot['details']['archive_cloud'];
    // A confirmed gap is lost WAL: the oldest usable backup's path loses it, so coverage is no longer healthy.
    assert.deepEqual(
      [ac['wal']['state'], ac['wal']['reason']['code'], ac['coverage']['state'], ac['coverage']['reason']['code']],
      confirmed ? ['unhealthy', 'wal-gap-confirmed', 'warning', 'coverage-path-wal-lost'] : ['warning', 'wal-gap-candidate', 'healthy', 'coverage-to-frontier'],
    );
  });

  it('counts every object and byte exactly, as the raw listing shows them', async () => {
    const doc = await scan('pg-main');
    const listed = repos.objects('pg-main');
    assert.equal(doc.snapshot['inventory']['object_count'], listed.length);
    assert.equal(doc.snapshot['inventory']['stored_bytes'], listed.reduce((n, o) => n + o.size, 0));
    const counts = doc.snapshot['details']['archive_cloud']['wal_counts'];
    const walKeys = listed.filter((o) => o.key.includes('/wals/'));
    assert.equal(counts.segment + counts.partial + counts.history + counts.backup_history + counts.unknown + counts.duplicate, walKeys.length);
    assert.equal(counts.history, 1);
  });

  it('reads a repository with 1 MiB WAL segments', async () => {
    const doc = await scan('pg-wal1m');
    const barman = repos.backupList('pg-wal1m');
    assert.deepEqual(doc.backups.map((b) => [b['backup_id'], b['status'], b['begin_wal'], b['end_wal'], b['wal_segment_size_bytes'], b['state']]), barman.map((b) => [b.backup_id, b.status, b.begin_wal, b.end_wal, 1048576, 'healthy']));
    assert.deepEqual(doc.wal_gaps, []);
    assert.equal(doc.snapshot['details']['archive_cloud']['wal']['state'], 'healthy');
    // One continuous range from log 0 (segment 0FFC) into log 1: the hash-directory seam is no gap.
    assert.equal(doc.wal_ranges.length, 1);
    assert.equal(doc.wal_ranges[0]?.['first_wal'], '000000010000000000000FFC');
    assert.match(doc.wal_ranges[0]?.['last_wal'] as string, /^0000000100000001/);
  });

  it('sends every request under <prefix>/<server>/ (recorded at a proxy in front of the store)', async () => {
    // The fault proxy with no fault: a pass-through that logs every request.
    const proxy = await startFaultProxy(repos.endpoint);
    try {
      await scan('pg-main', proxy.url);
    } finally {
      await proxy.close();
    }
    assert.ok(proxy.log.length >= 5);
    const root = `${repos.prefix}/pg-main/`;
    for (const { method, path, query } of proxy.log) {
      const line = `${method} ${path}?${query.toString()}`;
      const url = { pathname: path, searchParams: query };
      if (method === 'GET' && url.searchParams.get('list-type') === '2') {
        assert.match(url.pathname, new RegExp(`^/${repos.bucket}/?$`));
        assert.ok((url.searchParams.get('prefix') ?? '').startsWith(root), line);
        const after = url.searchParams.get('start-after');
        if (after !== null) assert.ok(after.startsWith(root), line);
      } else {
        assert.equal(method, 'GET', line);
        assert.ok(decodeURIComponent(url.pathname).startsWith(`/${repos.bucket}/${root}`), line);
      }
    }
  });
});
