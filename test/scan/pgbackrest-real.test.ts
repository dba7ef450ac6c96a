/**
 * `viewer scan`, the real executable, with REPOSITORY_FORMAT=stanza-repository on the real
 * repository PostgreSQL 15 and pgBackRest 2.45 wrote into a real S3-compatible store (OpenStack
 * Swift; test/support/pgbackrest-repositories.ts), compared with what pgBackRest itself says of it
 * (`info --output=json`, `verify`): exactly its current backups with their types and archive
 * start/stop, the interrupted backup kept apart, the expired ones not backups, the deleted segment
 * as a gap (which `verify` does not report), both timelines and the recovery paths with their
 * stops, the encrypted stanza as names and sizes, exact object and byte counts, every request
 * under the stanza's two areas, and documents the wire schemas accept.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { wireViolations } from '../../src/contract/validate.ts';
import { pgbackrestRepository, type PgBackRestRepository } from '../support/pgbackrest-repositories.ts';
import { startFaultProxy } from '../support/fault-proxy.ts';
import { runViewer, startStandalone, type ScanDocument } from '../support/run-viewer.ts';
import { expectedGapStatus } from '../support/gap-age.ts';

/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-explicit-any,
   @typescript-eslint/no-unsafe-return, @typescript-eslint/no-unsafe-assignment --
   the scan document is checked against the wire schemas; the assertions then read it loosely. */

/** The position of a 24-hex WAL name with 16 MiB segments (256 per log). */
const position = (wal: string): number => Number.parseInt(wal.slice(8, 16), 16) * 256 + Number.parseInt(wal.slice(16, 24), 16);

describe('viewer scan on the real pgBackRest repository (REPOSITORY_FORMAT=stanza-repository)', () => {
  let repo: PgBackRestRepository;
  let dir: string;
  const docs = new Map<string, ScanDocument>();

  function env(stanza: string, endpoint = repo.endpoint): Record<string, string> {
    return {
      REPOSITORY_FORMAT: 'stanza-repository',
      DESTINATION_PATH: `s3://${repo.bucket}/${repo.prefix}`,
      ARCHIVE_SERVER_NAMES: stanza,
      STORE_ENDPOINT_URL: endpoint,
      STORE_ACCESS_KEY_ID_FILE: join(dir, 'id'),
      STORE_SECRET_ACCESS_KEY_FILE: join(dir, 'secret'),
    };
  }

  /** The deleted segment's status this scan must give (stanza main's archive in the raw listing). */
  const gapStatus = (doc: ScanDocument) => expectedGapStatus(repo.objects().filter((o) => o.key.startsWith(`${repo.prefix}/archive/${repo.main.stanza}/`)), repo.deletedWal, doc.observations);

  async function scan(stanza: string): Promise<ScanDocument> {
    const known = docs.get(stanza);
    if (known !== undefined) return known;
    const r = await runViewer(['scan'], env(stanza));
    assert.equal(r.status, 0, r.stderr);
    const doc = JSON.parse(r.stdout) as ScanDocument;
    assert.deepEqual(wireViolations('RepositoryEvidenceSnapshot', doc.snapshot), []);
    // Each collection as the API would serve it in one page.
    const page = (kind: string, items: unknown[]) => ({ api_version: doc.snapshot['api_version'], kind, revision: doc.snapshot['revision'], evidence_generation: doc.snapshot['evidence_generation'], total_items: items.length, items, next_cursor: null });
    assert.deepEqual(wireViolations('ArchiveBackupPage', page('ArchiveBackupPage', doc.backups)), []);
    assert.deepEqual(wireViolations('ArchiveWALRangePage', page('ArchiveWALRangePage', doc.wal_ranges)), []);
    assert.deepEqual(wireViolations('ArchiveWALGapPage', page('ArchiveWALGapPage', doc.wal_gaps)), []);
    assert.deepEqual(wireViolations('ArchiveRecoveryPathPage', page('ArchiveRecoveryPathPage', doc.recovery_paths)), []);
    docs.set(stanza, doc);
    return doc;
  }

  before(() => {
    repo = pgbackrestRepository();
    dir = mkdtempSync(join(tmpdir(), 'viewer-pgbackrest-'));
    writeFileSync(join(dir, 'id'), `${repo.accessKeyId}\n`);
    writeFileSync(join(dir, 'secret'), `${repo.secretAccessKey}\n`);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("reports exactly pgBackRest's current backups, with their types, WAL and sets, all usable", async () => {
    const doc = await scan(repo.main.stanza);
    const info = repo.info(repo.main.stanza);
    const done = doc.backups.filter((b) => b['status'] === 'DONE');
    assert.deepEqual(
      done.map((b) => [b['backup_id'], b['backup_type'], b['begin_wal'], b['end_wal'], b['begin_lsn'], b['end_lsn'], b['system_id']]),
      info.backup.map((b) => [b.label, b.type, b.archive.start, b.archive.stop, b.lsn.start.toUpperCase(), b.lsn.stop.toUpperCase(), repo.main.systemId]),
    );
    for (const b of done) assert.deepEqual([b['backup_id'], b['state'], b['reason']['code']], [b['backup_id'], 'healthy', 'structurally-usable']);
    // Times from backup-timestamp-start/-stop (labels are the backup host's local time).
    assert.deepEqual(done.map((b) => [b['begin_at'], b['end_at']]), info.backup.map((b) => [new Date(b.timestamp.start * 1000).toISOString().replace('.000', ''), new Date(b.timestamp.stop * 1000).toISOString().replace('.000', '')]));
    // Timelines as the facts give them; compression as each manifest records it.
    assert.deepEqual(done.filter((b) => b['timeline'] === 1).map((b) => b['backup_id']), repo.main.timeline1);
    assert.deepEqual(done.filter((b) => b['timeline'] === 2).map((b) => b['backup_id']), repo.main.timeline2);
    const compression = { gz: 'gzip', zst: 'zstd' } as Record<string, string>;
    for (const b of done) assert.equal(b['compression'], compression[repo.backups.find((f) => f.label === b['backup_id'])?.compress ?? ''], String(b['backup_id']));
    // The bytes of a backup's own stored objects are backup.info's repo-size-delta.
    assert.deepEqual(done.map((b) => b['stored_artifact_bytes']), info.backup.map((b) => b.info.repository.delta));
    assert.deepEqual(done.map((b) => b['logical_bytes']), info.backup.map((b) => b.info.size));
    const d = doc.snapshot['details'];
    assert.equal(d['type'], 'stanza-repository/v1alpha1');
    const byType = (t: string) => info.backup.filter((b) => b.type === t).length;
    assert.deepEqual(d['stanza_repository']['backup_types'], { full: byType('full'), diff: byType('diff'), incr: byType('incr') });
    assert.deepEqual([d['stanza_repository']['encrypted'], d['stanza_repository']['dependency_chain']['state']], [false, 'healthy']);
    assert.equal(doc.snapshot['identity']['repository']['format'], 'stanza-repository');
    const chain = (doc.snapshot['capabilities'] as Record<string, any>[]).find((c) => c['id'] === 'dependency-chain-validation');
    assert.deepEqual([chain?.['support'], chain?.['state'], chain?.['reason']['code']], ['supported', 'healthy', 'dependency-chains-complete']);
  });

  it('keeps the interrupted backup apart and counts no expired backup', async () => {
    const doc = await scan(repo.main.stanza);
    const interrupted = doc.backups.find((b) => b['backup_id'] === repo.main.interrupted);
    assert.deepEqual([interrupted?.['status'], interrupted?.['backup_type'], interrupted?.['state'], interrupted?.['reason']['code'], interrupted?.['timeline'], interrupted?.['begin_wal']], ['INTERRUPTED', 'full', 'unknown', 'backup-interrupted', null, null]);
    assert.equal(doc.snapshot['details']['stanza_repository']['interrupted_backups'], 1);
    for (const label of repo.main.expired) assert.equal(doc.backups.find((b) => b['backup_id'] === label), undefined, label);
    assert.equal(doc.backups.length, repo.info(repo.main.stanza).backup.length + 1);
    assert.equal(doc.snapshot['details']['stanza_repository']['backup_items'], doc.backups.length);
  });

  it("finds the deleted segment as the only gap, where verify's ranges split, and reports no error verify does not", async () => {
    const doc = await scan(repo.main.stanza);
    assert.deepEqual(doc.wal_gaps.map((g) => [g['timeline'], g['first_wal'], g['last_wal'], g['segment_count']]), [[1, repo.deletedWal, repo.deletedWal, 1]]);
    assert.deepEqual(doc.observations?.wal_gap_classes.map((c) => c.class), ['unexplained']);
    // pgBackRest's verify logs its WAL ranges at detail level only, and its result says nothing wrong.
    const verifyRanges = [...repo.verify.detailOutput.matchAll(/wal start: ([0-9A-F]{24}), wal stop: ([0-9A-F]{24})/g)].map((m) => [m[1], m[2]]);
    assert.deepEqual(doc.wal_ranges.map((r) => [r['first_wal'], r['last_wal']]), verifyRanges);
    assert.equal(repo.verify.exitCode, 0);
    // info's min and max WAL of the archive id are the first and last ranges' ends.
    const archive = repo.info(repo.main.stanza).archive[0];
    assert.deepEqual([doc.wal_ranges[0]?.['first_wal'], doc.wal_ranges.at(-1)?.['last_wal']], [archive?.min, archive?.max]);
    // The WAL expire removed before the oldest backup is no gap: the archive starts at its archive start.
    assert.equal(doc.wal_ranges[0]?.['first_wal'], repo.info(repo.main.stanza).backup[0]?.archive.start);
    const sr = doc.snapshot['details']['stanza_repository'];
    // Candidate in the build's first hour, confirmed after (test/support/gap-age.ts).
    const confirmed = gapStatus(doc) === 'confirmed';
    assert.deepEqual(doc.wal_gaps.map((g) => g['status']), [gapStatus(doc)]);
    assert.deepEqual([sr['wal']['state'], sr['wal']['reason']['code']], confirmed ? ['unhealthy', 'wal-gap-confirmed'] : ['warning', 'wal-gap-candidate']);
    assert.match(String(sr['wal']['reason']['message']), /pgBackRest's retention/);
  });

  it('follows both timelines through 00000002.history and stops recovery paths at the gap', async () => {
    const doc = await scan(repo.main.stanza);
    assert.deepEqual([...new Set(doc.wal_ranges.map((r) => r['timeline']))], [1, 2]);
    assert.equal(doc.snapshot['details']['stanza_repository']['timeline']['state'], 'healthy');
    assert.equal(doc.snapshot['details']['stanza_repository']['wal_counts']['history'], 1);
    const tl2 = doc.wal_ranges.filter((r) => r['timeline'] === 2);
    assert.equal(tl2[0]?.['first_wal'], repo.main.firstTimeline2Wal);
    const [full1, ...rest1] = repo.main.timeline1;
    const byBackup = (id: string) => doc.recovery_paths.filter((p) => p['backup_id'] === id).map((p) => [p['target_timeline'], p['stop'], p['state']]);
    // The oldest full's WAL runs into the deleted segment on the way to either timeline.
    const [stop, state] = gapStatus(doc) === 'confirmed' ? ['gap-limited', 'unhealthy'] : ['candidate-limited', 'warning'];
    assert.deepEqual(byBackup(full1 ?? ''), [[1, stop, state], [2, stop, state]]);
    assert.equal(doc.recovery_paths.find((p) => p['backup_id'] === full1)?.['frontier_position'], position(repo.deletedWal) - 1);
    for (const id of rest1) assert.deepEqual(byBackup(id), [[1, 'frontier', 'healthy'], [2, 'frontier', 'healthy']], id);
    for (const id of repo.main.timeline2) assert.deepEqual(byBackup(id), [[2, 'frontier', 'healthy']], id);
    assert.deepEqual(byBackup(repo.main.interrupted), []);
    // A confirmed gap is lost WAL on the oldest full's path: coverage says so, though the best path reaches the newest WAL.
    const coverage = doc.snapshot['details']['stanza_repository']['coverage'];
    assert.deepEqual([coverage['state'], coverage['reason']['code']], gapStatus(doc) === 'confirmed' ? ['warning', 'coverage-path-wal-lost'] : ['healthy', 'coverage-to-frontier']);
  });

  it('counts every object and byte of the stanza exactly, as the store lists them', async () => {
    const doc = await scan(repo.main.stanza);
    const mine = repo.objects().filter((o) => o.key.startsWith(`${repo.prefix}/archive/${repo.main.stanza}/`) || o.key.startsWith(`${repo.prefix}/backup/${repo.main.stanza}/`));
    assert.equal(doc.snapshot['inventory']['object_count'], mine.length);
    assert.equal(doc.snapshot['inventory']['stored_bytes'], mine.reduce((n, o) => n + o.size, 0));
    const counts = doc.snapshot['details']['stanza_repository']['wal_counts'];
    const wal = mine.filter((o) => o.key.startsWith(`${repo.prefix}/archive/${repo.main.stanza}/${repo.main.archiveId}/`));
    assert.equal(counts.segment + counts.partial + counts.history + counts.backup_history + counts.unknown + counts.duplicate, wal.length);
    assert.equal(counts.unknown, 0);
  });

  it('shows the encrypted stanza by names and sizes: every backup unknown, its type from its label', async () => {
    const doc = await scan(repo.encrypted.stanza);
    const info = repo.info(repo.encrypted.stanza);
    assert.deepEqual(
      doc.backups.map((b) => [b['backup_id'], b['backup_type'], b['state'], b['reason']['code'], b['encryption'], b['begin_wal']]),
      info.backup.map((b) => [b.label, b.type, 'unknown', 'backup-metadata-encrypted', 'aes-256-cbc', null]),
    );
    const sr = doc.snapshot['details']['stanza_repository'];
    assert.deepEqual([sr['encrypted'], sr['wal']['reason']['code'], sr['backup_types']], [true, 'wal-segment-size-unknown', null]);
    // Names are evidence: the WAL ranges are what the keys show.
    const archive = info.archive[0];
    assert.deepEqual(doc.wal_ranges.map((r) => [r['first_wal'], r['last_wal']]), [[archive?.min, archive?.max]]);
    const mine = repo.objects().filter((o) => o.key.startsWith(`${repo.prefix}/archive/${repo.encrypted.stanza}/`) || o.key.startsWith(`${repo.prefix}/backup/${repo.encrypted.stanza}/`));
    assert.equal(doc.snapshot['inventory']['object_count'], mine.length);
    assert.equal(doc.snapshot['inventory']['stored_bytes'], mine.reduce((n, o) => n + o.size, 0));
  });

  it("sends every request under the stanza's two areas (recorded at a proxy in front of the store)", async () => {
    // The fault proxy with no fault: a pass-through that logs every request.
    const proxy = await startFaultProxy(repo.endpoint);
    try {
      const r = await runViewer(['scan'], env(repo.main.stanza, proxy.url));
      assert.equal(r.status, 0, r.stderr);
    } finally {
      await proxy.close();
    }
    assert.ok(proxy.log.length >= 10);
    const areas = [`${repo.prefix}/archive/${repo.main.stanza}/`, `${repo.prefix}/backup/${repo.main.stanza}/`];
    const inside = (key: string) => areas.some((a) => key.startsWith(a));
    for (const { method, path, query } of proxy.log) {
      const line = `${method} ${path}?${query.toString()}`;
      const url = { pathname: path, searchParams: query };
      if (method === 'GET' && url.searchParams.get('list-type') === '2') {
        assert.ok(inside(url.searchParams.get('prefix') ?? ''), line);
        const startAfter = url.searchParams.get('start-after');
        if (startAfter !== null) assert.ok(inside(startAfter), line);
      } else {
        assert.equal(method, 'GET', line);
        assert.ok(inside(decodeURIComponent(url.pathname).slice(`/${repo.bucket}/`.length)), line);
      }
    }
  });

  it('discovers and publishes both stanzas in standalone mode without ARCHIVE_SERVER_NAMES', async () => {
    const discovering = Object.fromEntries(Object.entries(env(repo.main.stanza)).filter(([k]) => k !== 'ARCHIVE_SERVER_NAMES'));
    const viewer = await startStandalone({ ...discovering, REFRESH_INTERVAL_SECONDS: '3600' });
    try {
      const deadline = Date.now() + 60_000;
      // Each stanza's first complete scan.
      const published = () => new Set(viewer.logs().split('\n').filter((l) => l.includes('"published"')).map((l) => JSON.parse(l) as { server: string; generation: number }).filter((l) => l.generation > 0).map((l) => l.server));
      while (published().size < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
      assert.deepEqual([...published()].sort(), [repo.encrypted.stanza, repo.main.stanza].sort());
      const page = await (await fetch(new URL('/', viewer.base))).text();
      assert.ok(page.includes(`2 server scopes: <code>${repo.encrypted.stanza}</code>, <code>${repo.main.stanza}</code>`), page.slice(0, 200));
      assert.ok(page.includes('Objects under the destination that belong to no server scope: 0.'));
    } finally {
      viewer.child.kill();
    }
  });
});
