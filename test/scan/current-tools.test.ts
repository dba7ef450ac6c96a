/**
 * `viewer scan`, the real executable, on real repositories written by the tools people run today
 * (test/support/current-repositories.ts): PostgreSQL 18 with Barman 3.20 (barman-cli-cloud) and
 * PostgreSQL 18 with pgBackRest 2.60, both from Debian sid, in the Swift S3 store. The truth is
 * what the tools themselves say (`barman-cloud-backup-list` / `-show --format json`, `pgbackrest
 * info --output=json`, each manifest read back with `pgbackrest repo-get`) and the key listing,
 * read the way the tools read it (Barman's CloudBackupCatalog.get_backup_files for the archives of
 * a backup); never viewer's own output.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { wireViolations } from '../../src/contract/validate.ts';
import { currentRepositories, type CurrentRepositories, type ListedObject } from '../support/current-repositories.ts';
import { runViewer, s3CredentialFiles, type ScanDocument } from '../support/run-viewer.ts';
import { expectedGapStatus, type GapStatus } from '../support/gap-age.ts';

/**
 * What the deleted segment's gap makes of a scan, by its status (candidate in the build's first
 * hour, confirmed after: test/support/gap-age.ts): the gap's status, the stop and state of a path
 * that runs into it, the `wal` part, the coverage part (a confirmed gap is WAL lost on a usable
 * backup's path) and the top level.
 */
function gapVerdicts(status: GapStatus) {
  return status === 'confirmed'
    ? { status, path: ['gap-limited', 'unhealthy'], wal: ['unhealthy', 'wal-gap-confirmed'], coverage: ['warning', 'coverage-path-wal-lost'], top: ['unhealthy', 'wal-gap-confirmed'] }
    : { status, path: ['candidate-limited', 'warning'], wal: ['warning', 'wal-gap-candidate'], coverage: ['healthy', 'coverage-to-frontier'], top: ['warning', 'wal-gap-candidate'] };
}

/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-explicit-any,
   @typescript-eslint/no-unsafe-return, @typescript-eslint/no-unsafe-assignment --
   the scan document is checked against the wire schemas; the assertions then read it loosely. */

/** The position of a 24-hex WAL name with 16 MiB segments (256 per log). */
const position = (wal: string): number => Number.parseInt(wal.slice(8, 16), 16) * 256 + Number.parseInt(wal.slice(16, 24), 16);
const walName = (timeline: number, pos: number): string =>
  [timeline, Math.floor(pos / 256), pos % 256].map((n) => n.toString(16).toUpperCase().padStart(8, '0')).join('');

/** Runs of consecutive archived segments per timeline, in order: [timeline, first, last]. */
function runs(segments: readonly string[]): [number, string, string][] {
  const byTimeline = new Map<number, number[]>();
  for (const s of new Set(segments)) {
    const tli = Number.parseInt(s.slice(0, 8), 16);
    byTimeline.set(tli, [...(byTimeline.get(tli) ?? []), position(s)]);
  }
  const out: [number, string, string][] = [];
  for (const [tli, positions] of [...byTimeline].sort(([a], [b]) => a - b)) {
    positions.sort((a, b) => a - b);
    let first = positions[0] ?? 0;
    for (const [i, p] of positions.entries()) {
      const next = positions[i + 1];
      if (next !== p + 1) {
        out.push([tli, walName(tli, first), walName(tli, p)]);
        if (next !== undefined) first = next;
      }
    }
  }
  return out;
}

/** `0/F000090` → its segment's position (16 MiB segments). */
const lsnPosition = (lsn: string): number => {
  const [hi = '0', lo = '0'] = lsn.split('/');
  return Number((BigInt(`0x${hi}`) * 2n ** 32n + BigInt(`0x${lo}`)) / 16777216n);
};

/** Barman's ISO time (`+00:00`, microseconds) as the wire writes it (`Z`). */
const isoZ = (iso: string | null): string | null => (iso === null ? null : iso.replace(/\+00:00$/, 'Z'));

/* ------------------------------------------------------------------ Barman's reading of a backup's archives */

/**
 * Barman 3.20's CloudBackupCatalog.get_backup_files (barman/cloud.py): under `base/<id>/`, the
 * archive of PGDATA is `data` and each tablespace's is its OID (from backup.info's
 * `tablespaces`), each followed by `.` (the main file) or `_` (an additional part of
 * `--max-archive-size`); the extension after it must be `tar`, `tar.gz`, `tar.bz2`,
 * `tar.snappy`, `tar.lz4` or `tar.zst` (anything else: "Skipping unknown extension"). The
 * compression names are Barman's: None, gzip, bzip2, snappy, lz4, zstd.
 */
const BARMAN_ARCHIVE_EXTENSIONS: Record<string, string> = { tar: 'none', 'tar.gz': 'gzip', 'tar.bz2': 'bzip2', 'tar.snappy': 'snappy', 'tar.lz4': 'lz4', 'tar.zst': 'zstd' };

function barmanArchives(objects: readonly ListedObject[], root: string, backupId: string, tablespaceOids: readonly number[]): { key: string; size: number; compression: string }[] {
  const dir = `${root}base/${backupId}/`;
  const bases = ['data', ...tablespaceOids.map(String)];
  const out: { key: string; size: number; compression: string }[] = [];
  for (const o of objects) {
    if (!o.key.startsWith(dir)) continue;
    const name = o.key.slice(dir.length);
    for (const base of bases) {
      if (!name.startsWith(base)) continue;
      const suffix = name.slice(base.length);
      if (suffix === '' || (suffix[0] !== '.' && suffix[0] !== '_')) continue;
      const ext = suffix[0] === '_' ? suffix.split('.').slice(1).join('.') : suffix.slice(1);
      const compression = BARMAN_ARCHIVE_EXTENSIONS[ext];
      if (compression !== undefined) out.push({ key: o.key, size: o.size, compression });
      break;
    }
  }
  return out;
}

/** WAL names as Barman's get_wal_paths reads keys: a basename, at most one compression suffix. */
const BARMAN_WAL = /\/wals\/(?:[0-9A-F]{16}\/)?([0-9A-F]{24}(?:\.partial|\.[0-9A-F]{8}\.backup)?|[0-9A-F]{8}\.history)(?:\.(?:gz|bz2|xz|snappy|zst|lz4))?$/;

describe('viewer scan on repositories written by the tools people run today (PostgreSQL 18, Barman 3.20, pgBackRest 2.60)', () => {
  let repos: CurrentRepositories;
  let credentials: ReturnType<typeof s3CredentialFiles>;
  const docs = new Map<string, ScanDocument>();

  before(() => {
    repos = currentRepositories();
    credentials = s3CredentialFiles(repos);
  });
  after(() => credentials.remove());

  async function scan(key: string, env: Record<string, string>): Promise<ScanDocument> {
    const known = docs.get(key);
    if (known !== undefined) return known;
    const r = await runViewer(['scan'], {
      STORE_ENDPOINT_URL: repos.endpoint,
      ...credentials.env,
      ...env,
    });
    assert.equal(r.status, 0, r.stderr);
    const doc = JSON.parse(r.stdout) as ScanDocument;
    assert.deepEqual(wireViolations('RepositoryEvidenceSnapshot', doc.snapshot), []);
    docs.set(key, doc);
    return doc;
  }
  const scanBarman = (): Promise<ScanDocument> =>
    scan('barman', { DESTINATION_PATH: `s3://${repos.barman.bucket}/${repos.barman.prefix}`, ARCHIVE_SERVER_NAMES: repos.barman.server });
  const scanStanza = (stanza: string): Promise<ScanDocument> =>
    scan(`pgbackrest:${stanza}`, { REPOSITORY_FORMAT: 'stanza-repository', DESTINATION_PATH: `s3://${repos.pgbackrest.bucket}/${repos.pgbackrest.prefix}`, ARCHIVE_SERVER_NAMES: stanza });

  it('was built by the versions it claims (PostgreSQL 18, Barman 3.20, pgBackRest 2.60)', () => {
    assert.match(repos.versions.postgresql, /^18\./);
    assert.match(repos.versions.barman, /^3\.20\./);
    assert.match(repos.versions.pgbackrest, /^2\.60\./);
    for (const b of repos.barman.backupList()) assert.equal(Math.floor(b.version / 10000), 18, b.backup_id);
    assert.equal(repos.pgbackrest.info(repos.pgbackrest.main.stanza).db[0]?.version, '18');
    for (const b of repos.pgbackrest.info(repos.pgbackrest.main.stanza).backup) assert.match(b.backrest.version, /^2\.60\./, b.label);
    // The build's own record agrees with what the tools list: names, the keep annotation.
    assert.deepEqual(Object.fromEntries(repos.barman.backupList().filter((b) => b.backup_name).map((b) => [b.backup_id, b.backup_name])), repos.barman.names);
    assert.equal(repos.barman.keep.status, `Keep: ${repos.barman.keep.target}`);
  });

  describe('Barman 3.20 (barman-cloud) with PostgreSQL 18', () => {
    const root = (): string => `${repos.barman.prefix}/${repos.barman.server}/`;

    it("reports exactly the backups Barman lists, with Barman's WAL, LSNs, times, timeline, system and version", async () => {
      const doc = await scanBarman();
      const barman = repos.barman.backupList();
      assert.deepEqual(barman.map((b) => b.backup_id), repos.barman.ids);
      assert.deepEqual(
        doc.backups.map((b) => [b['backup_id'], b['status'], b['begin_wal'], b['end_wal'], b['begin_lsn'], b['end_lsn'], b['begin_at'], b['end_at'], b['timeline'], b['system_id'], b['postgresql_version'], b['wal_segment_size_bytes'], b['logical_bytes']]),
        barman.map((b) => [b.backup_id, b.status, b.begin_wal, b.end_wal, b.begin_xlog, b.end_xlog, isoZ(b.begin_time_iso), isoZ(b.end_time_iso), b.timeline, b.systemid, b.version, b.xlog_segment_size, b.cluster_size]),
      );
      // barman-cloud-backup-show says the same of each.
      for (const id of repos.barman.ids) assert.deepEqual(repos.barman.backupShow(id).begin_wal, barman.find((b) => b.backup_id === id)?.begin_wal);
      assert.deepEqual(doc.backups.filter((b) => b['timeline'] === 2).map((b) => b['backup_id']), repos.barman.timeline2);
    });

    it("finds every backup's archives where Barman's get_backup_files finds them (lz4, zstd with a tablespace, gzip in parts, snappy): all usable", async () => {
      const doc = await scanBarman();
      const objects = repos.barman.objects();
      const expected = repos.barman.ids.map((id) => {
        const show = repos.barman.backupShow(id);
        const archives = barmanArchives(objects, root(), id, (show.tablespaces ?? []).map((t) => t[1]));
        const compressions = [...new Set(archives.map((a) => a.compression))];
        assert.equal(compressions.length, 1, `${id}: one compression per backup`);
        return [id, 'healthy', 'structurally-usable', compressions[0], archives.length, archives.reduce((n, a) => n + a.size, 0), (show.tablespaces ?? []).length];
      });
      // What the build asked for, as Barman's reading of the keys confirms.
      assert.deepEqual(expected.map((e) => e[3]), ['lz4', 'zstd', 'gzip', 'snappy']);
      assert.equal(expected[2]?.[4], repos.barman.gzipDataParts + 1);
      assert.ok(repos.barman.gzipDataParts >= 3, `${repos.barman.gzipDataParts} parts`);
      assert.deepEqual(
        doc.backups.map((b) => [b['backup_id'], b['state'], b['reason']['code'], b['compression'], b['artifact_count'], b['stored_artifact_bytes'], b['tablespace_count']]),
        expected,
      );
      const validation = (doc.snapshot['capabilities'] as Record<string, any>[]).find((c) => c['id'] === 'structural-artifact-validation');
      assert.deepEqual([validation?.['state'], validation?.['reason']['code']], ['healthy', 'backups-usable']);
    });

    it('finds the deleted segment as the only gap, both timelines through 00000002.history.zst, and the WAL the listing holds', async () => {
      const doc = await scanBarman();
      const deleted = repos.barman.deletedWal;
      const v = gapVerdicts(expectedGapStatus(repos.barman.objects(), deleted, doc.observations));
      assert.deepEqual(doc.wal_gaps.map((g) => [g['timeline'], g['first_wal'], g['last_wal'], g['segment_count'], g['status']]), [[1, deleted, deleted, 1, v.status]]);
      assert.deepEqual(doc.observations?.wal_gap_classes.map((c) => [c.timeline, c.class]), [[1, 'unexplained']]);
      const names = repos.barman.objects().map((o) => BARMAN_WAL.exec(o.key)?.[1]).filter((n): n is string => n !== undefined);
      const segments = names.filter((n) => /^[0-9A-F]{24}$/.test(n));
      assert.deepEqual(doc.wal_ranges.map((r) => [r['timeline'], r['first_wal'], r['last_wal']]), runs(segments));
      assert.deepEqual([...new Set(doc.wal_ranges.map((r) => r['timeline']))], [1, 2]);
      // Timeline 2 starts at the segment of its switch point; timeline 1 goes on past it (a fork).
      assert.equal(position(repos.barman.firstTimeline2Wal), lsnPosition(repos.barman.switchLsn));
      assert.equal(doc.wal_ranges.find((r) => r['timeline'] === 2)?.['first_wal'], repos.barman.firstTimeline2Wal);
      assert.ok((doc.wal_ranges.filter((r) => r['timeline'] === 1).at(-1)?.['end_position'] as number) >= lsnPosition(repos.barman.switchLsn));
      const ac = doc.snapshot['details']['archive_cloud'];
      assert.deepEqual([ac['timeline']['state'], ac['wal']['state'], ac['wal']['reason']['code']], ['healthy', ...v.wal]);
      assert.deepEqual(ac['wal_counts'], {
        segment: segments.length,
        partial: names.filter((n) => n.endsWith('.partial')).length,
        history: names.filter((n) => n.endsWith('.history')).length,
        backup_history: names.filter((n) => n.endsWith('.backup')).length,
        unknown: 0,
        duplicate: 0,
      });
      assert.deepEqual([ac['wal_counts'].history, ac['wal_counts'].backup_history], [1, 4]);
    });

    it('stops recovery paths at the gap and reaches the frontier elsewhere', async () => {
      const doc = await scanBarman();
      const { lz4, zstd, gzipParts, snappy } = repos.barman.backups;
      const byBackup = (id: string) => doc.recovery_paths.filter((p) => p['backup_id'] === id).map((p) => [p['target_timeline'], p['stop'], p['state'], p['frontier_position']]);
      const stop = position(repos.barman.deletedWal) - 1;
      const v = gapVerdicts(expectedGapStatus(repos.barman.objects(), repos.barman.deletedWal, doc.observations));
      const tl1Last = doc.wal_ranges.filter((r) => r['timeline'] === 1).at(-1)?.['end_position'];
      const tl2Last = doc.wal_ranges.filter((r) => r['timeline'] === 2).at(-1)?.['end_position'];
      // B1 and B2 lie before the lost segment: their WAL runs into it on the way to either timeline.
      assert.deepEqual(byBackup(lz4), [[1, ...v.path, stop], [2, ...v.path, stop]]);
      assert.deepEqual(byBackup(zstd), [[1, ...v.path, stop], [2, ...v.path, stop]]);
      assert.deepEqual(byBackup(gzipParts), [[1, 'frontier', 'healthy', tl1Last], [2, 'frontier', 'healthy', tl2Last]]);
      assert.deepEqual(byBackup(snappy), [[2, 'frontier', 'healthy', tl2Last]]);
      const coverage = doc.snapshot['details']['archive_cloud']['coverage'];
      assert.deepEqual([coverage['state'], coverage['reason']['code']], v.coverage);
    });

    it('names the lost segment at the top: every backup is usable, so it is all that is wrong', async () => {
      const doc = await scanBarman();
      const v = gapVerdicts(expectedGapStatus(repos.barman.objects(), repos.barman.deletedWal, doc.observations));
      assert.deepEqual([doc.snapshot['state'], doc.snapshot['reason']['code']], v.top);
    });

    it('counts every object and byte exactly, as the raw listing shows them', async () => {
      const doc = await scanBarman();
      const listed = repos.barman.objects();
      assert.equal(listed.some((o) => o.key === repos.barman.deletedKey), false);
      assert.deepEqual([doc.snapshot['inventory']['object_count'], doc.snapshot['inventory']['stored_bytes']], [listed.length, listed.reduce((n, o) => n + o.size, 0)]);
    });
  });

  describe('pgBackRest 2.60 with PostgreSQL 18, written straight to S3', () => {
    const main = (): CurrentRepositories['pgbackrest']['main'] => repos.pgbackrest.main;
    const mine = (stanza: string): ListedObject[] =>
      repos.pgbackrest.objects().filter((o) => o.key.startsWith(`${repos.pgbackrest.prefix}/archive/${stanza}/`) || o.key.startsWith(`${repos.pgbackrest.prefix}/backup/${stanza}/`));

    it("reports exactly pgBackRest's current backups: labels, types, WAL, LSNs, times, timelines, system, sizes; all usable", async () => {
      const doc = await scanStanza(main().stanza);
      const info = repos.pgbackrest.info(main().stanza);
      assert.deepEqual(info.backup.map((b) => b.label), main().backups);
      assert.deepEqual(
        doc.backups.map((b) => [b['backup_id'], b['status'], b['backup_type'], b['begin_wal'], b['end_wal'], b['begin_lsn'], b['end_lsn'], b['begin_at'], b['end_at'], b['system_id'], b['state'], b['reason']['code']]),
        info.backup.map((b) => [
          b.label, 'DONE', b.type, b.archive.start, b.archive.stop, b.lsn.start.toUpperCase(), b.lsn.stop.toUpperCase(),
          new Date(b.timestamp.start * 1000).toISOString().replace('.000', ''), new Date(b.timestamp.stop * 1000).toISOString().replace('.000', ''),
          main().systemId, 'healthy', 'structurally-usable',
        ]),
      );
      assert.deepEqual(doc.backups.filter((b) => b['timeline'] === 1).map((b) => b['backup_id']), main().timeline1);
      assert.deepEqual(doc.backups.filter((b) => b['timeline'] === 2).map((b) => b['backup_id']), main().timeline2);
      // Sizes: backup.info's database size and the bytes of the backup's own objects (repo delta),
      // which are exactly its objects in the listing but the manifests (bundles, .pgbi, backup_label).
      assert.deepEqual(doc.backups.map((b) => [b['logical_bytes'], b['stored_artifact_bytes']]), info.backup.map((b) => [b.info.size, b.info.repository.delta]));
      for (const b of info.backup) {
        const own = mine(main().stanza).filter((o) => o.key.startsWith(`${repos.pgbackrest.prefix}/backup/${main().stanza}/${b.label}/`) && !/\/backup\.manifest(\.copy)?$/.test(o.key));
        assert.equal(own.reduce((n, o) => n + o.size, 0), b.info.repository.delta, b.label);
        assert.equal(doc.backups.find((x) => x['backup_id'] === b.label)?.['artifact_count'], own.length, b.label);
      }
      const compression: Record<string, string> = { gz: 'gzip', zst: 'zstd', lz4: 'lz4', bz2: 'bzip2', none: 'none' };
      const manifests = repos.pgbackrest.manifests.filter((m) => m.stanza === main().stanza);
      assert.deepEqual(doc.backups.map((b) => [b['compression'], b['encryption']]), manifests.map((m) => [compression[m.compress], 'none']));
      // The build's shape, as the manifests and the listing confirm it.
      assert.ok(manifests.every((m) => m.bundle && m.blockIncr));
      assert.ok(main().pgbiObjects > 0);
      assert.deepEqual(info.backup.find((b) => b.label === main().annotated)?.annotation, Object.fromEntries([main().annotation.split('=')]));
      const sr = doc.snapshot['details']['stanza_repository'];
      assert.deepEqual(sr['backup_types'], { full: main().full.length, diff: main().diff.length, incr: main().incr.length });
      assert.deepEqual([sr['encrypted'], sr['interrupted_backups'], sr['dependency_chain']['state']], [false, 0, 'healthy']);
    });

    it("reads PostgreSQL's version and the tablespace count each backup's manifest records", async () => {
      const doc = await scanStanza(main().stanza);
      const manifests = repos.pgbackrest.manifests.filter((m) => m.stanza === main().stanza);
      assert.deepEqual(manifests.map((m) => m.tablespaces), main().backups.map(() => 1)); // ts1, created before F2
      // pgBackRest records the major version only (db-version "18"): the item's number must say 18.
      assert.deepEqual(
        doc.backups.map((b) => [b['backup_id'], typeof b['postgresql_version'] === 'number' ? Math.floor(b['postgresql_version'] / 10000) : b['postgresql_version'], b['tablespace_count']]),
        manifests.map((m) => [m.label, Number(m.dbVersion), m.tablespaces]),
      );
    });

    it('keeps the expired backups out and follows an incr on timeline 2 whose chain lies on timeline 1', async () => {
      const doc = await scanStanza(main().stanza);
      for (const label of main().expired) assert.equal(doc.backups.find((b) => b['backup_id'] === label), undefined, label);
      assert.ok(repos.pgbackrest.infoBeforeExpire.backup.some((b) => b.label === main().expired[0]));
      const cross = repos.pgbackrest.info(main().stanza).backup.find((b) => b.label === main().crossTimelineIncr);
      assert.ok(cross?.reference?.every((l) => main().timeline1.includes(l)), JSON.stringify(cross?.reference));
      const item = doc.backups.find((b) => b['backup_id'] === main().crossTimelineIncr);
      assert.deepEqual([item?.['timeline'], item?.['backup_type'], item?.['state']], [2, 'incr', 'healthy']);
    });

    it("finds the deleted segment as the only gap (which verify does not report), both timelines, and stops recovery paths there", async () => {
      const doc = await scanStanza(main().stanza);
      const deleted = repos.pgbackrest.deletedWal;
      const v = gapVerdicts(expectedGapStatus(mine(main().stanza).filter((o) => o.key.startsWith(`${repos.pgbackrest.prefix}/archive/`)), deleted, doc.observations));
      assert.deepEqual(doc.wal_gaps.map((g) => [g['timeline'], g['first_wal'], g['last_wal'], g['segment_count'], g['status']]), [[1, deleted, deleted, 1, v.status]]);
      assert.deepEqual(doc.observations?.wal_gap_classes.map((c) => c.class), ['unexplained']);
      assert.equal(repos.pgbackrest.verify.exitCode, 0);
      const archive = `${repos.pgbackrest.prefix}/archive/${main().stanza}/${main().archiveId}/`;
      const segments = mine(main().stanza).map((o) => o.key.startsWith(archive) ? /\/([0-9A-F]{24})-[0-9a-f]{40}(?:\.\w+)?$/.exec(o.key)?.[1] : undefined).filter((n): n is string => n !== undefined);
      assert.deepEqual(doc.wal_ranges.map((r) => [r['timeline'], r['first_wal'], r['last_wal']]), runs(segments));
      const info = repos.pgbackrest.info(main().stanza);
      assert.deepEqual([doc.wal_ranges[0]?.['first_wal'], doc.wal_ranges.at(-1)?.['last_wal']], [info.archive[0]?.min, info.archive[0]?.max]);
      assert.equal(doc.wal_ranges.find((r) => r['timeline'] === 2)?.['first_wal'], main().firstTimeline2Wal);
      assert.equal(position(main().firstTimeline2Wal), lsnPosition(main().switchLsn));
      const byBackup = (id: string) => doc.recovery_paths.filter((p) => p['backup_id'] === id).map((p) => [p['target_timeline'], p['stop'], p['state']]);
      const [f2, ...rest1] = main().timeline1;
      assert.deepEqual(byBackup(f2 ?? ''), [[1, ...v.path], [2, ...v.path]]);
      assert.equal(doc.recovery_paths.find((p) => p['backup_id'] === f2)?.['frontier_position'], position(deleted) - 1);
      for (const id of rest1) assert.deepEqual(byBackup(id), [[1, 'frontier', 'healthy'], [2, 'frontier', 'healthy']], id);
      for (const id of main().timeline2) assert.deepEqual(byBackup(id), [[2, 'frontier', 'healthy']], id);
      const sr = doc.snapshot['details']['stanza_repository'];
      assert.deepEqual([sr['timeline']['state'], sr['wal']['state'], sr['wal']['reason']['code'], sr['coverage']['state'], sr['coverage']['reason']['code']], ['healthy', ...v.wal, ...v.coverage]);
      assert.deepEqual([doc.snapshot['state'], doc.snapshot['reason']['code']], v.top);
    });

    it('counts every object and byte of the stanza exactly, as the store lists them', async () => {
      const doc = await scanStanza(main().stanza);
      const objects = mine(main().stanza);
      assert.equal(objects.some((o) => o.key === repos.pgbackrest.deletedKey), false);
      assert.deepEqual([doc.snapshot['inventory']['object_count'], doc.snapshot['inventory']['stored_bytes']], [objects.length, objects.reduce((n, o) => n + o.size, 0)]);
      const counts = doc.snapshot['details']['stanza_repository']['wal_counts'];
      assert.deepEqual([counts.history, counts.backup_history, counts.unknown], [1, repos.pgbackrest.info(main().stanza).backup.length, 0]);
    });

    it('shows the aes-256-cbc stanza by names and sizes: the labels and types pgBackRest lists, every backup unknown', async () => {
      const enc = repos.pgbackrest.encrypted;
      const doc = await scanStanza(enc.stanza);
      const info = repos.pgbackrest.info(enc.stanza);
      assert.equal(info.cipher, enc.cipherType);
      assert.deepEqual(info.backup.map((b) => b.label), [...enc.full, ...enc.diff, ...enc.incr]);
      assert.deepEqual(
        doc.backups.map((b) => [b['backup_id'], b['backup_type'], b['state'], b['reason']['code'], b['encryption']]),
        info.backup.map((b) => [b.label, b.type, 'unknown', 'backup-metadata-encrypted', enc.cipherType]),
      );
      assert.deepEqual(doc.wal_ranges.map((r) => [r['first_wal'], r['last_wal']]), [[info.archive[0]?.min, info.archive[0]?.max]]);
      assert.equal(doc.snapshot['details']['stanza_repository']['encrypted'], true);
      const objects = mine(enc.stanza);
      assert.deepEqual([doc.snapshot['inventory']['object_count'], doc.snapshot['inventory']['stored_bytes']], [objects.length, objects.reduce((n, o) => n + o.size, 0)]);
    });
  });
});
