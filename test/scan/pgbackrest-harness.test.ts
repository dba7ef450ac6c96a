/**
 * Self-checks of the real pgBackRest repository the harness builds (make-pgbackrest-repos.sh): the
 * store and the posix tree must hold what the build says it made, and pgBackRest's own view must
 * be what the facts claim, before any scanner is compared with it. Each check fails if the build
 * drifts: a backup kind missing from info, an interrupted backup that completed, an expired label
 * still listed, the deleted segment back (or its neighbours gone), verify starting to report the
 * hole, the encrypted stanza readable as text, one timeline, one compression type, no bundle.
 */
import assert from 'node:assert/strict';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { after, before, describe, it } from 'node:test';
import { pgbackrestRepository, type PgBackRestRepository } from '../support/pgbackrest-repositories.ts';

const SEGMENT = /^([0-9A-F]{8})([0-9A-F]{8})([0-9A-F]{8})$/;
const hex8 = (n: number): string => n.toString(16).toUpperCase().padStart(8, '0');
/** The segment `delta` positions away on the same timeline (16 MiB segments: 256 per log). */
function segmentAt(name: string, delta: number): string {
  const m = SEGMENT.exec(name);
  assert.ok(m !== null, name);
  const position = Number.parseInt(m[2] ?? '', 16) * 256 + Number.parseInt(m[3] ?? '', 16) + delta;
  return `${m[1] ?? ''}${hex8(Math.floor(position / 256))}${hex8(position % 256)}`;
}
/** WAL segment names (24 hex) of archive keys, `<24 hex>-<sha1>[.ext]`. */
const WAL_KEY = /\/([0-9A-F]{24})-[0-9a-f]{40}(?:\.(gz|zst))?$/;

describe('the real pgBackRest repository (harness self-check)', () => {
  let repo: PgBackRestRepository;
  let s3: S3Client;
  /** The store's listing of `<prefix>/`, read now (not the build's record of it). */
  let keys: Map<string, number>;
  const key = (relative: string): string => `${repo.prefix}/${relative}`;

  before(async () => {
    repo = pgbackrestRepository();
    s3 = new S3Client({ endpoint: repo.endpoint, forcePathStyle: true, region: 'us-east-1', credentials: { accessKeyId: repo.accessKeyId, secretAccessKey: repo.secretAccessKey } });
    keys = new Map();
    for (let token: string | undefined; ; ) {
      const page = await s3.send(new ListObjectsV2Command({ Bucket: repo.bucket, Prefix: `${repo.prefix}/`, ContinuationToken: token }));
      for (const o of page.Contents ?? []) keys.set(o.Key ?? '', o.Size ?? -1);
      token = page.NextContinuationToken;
      if (token === undefined) break;
    }
  });
  after(() => s3.destroy());

  it('holds in the store exactly the posix tree, without the latest symlink', () => {
    const files = repo.files();
    assert.ok(files.length > 100, `${files.length} files`);
    assert.deepEqual(new Map(files.map((f) => [key(f.key), f.size])), keys);
    assert.deepEqual(new Map(repo.objects().map((o) => [o.key, o.size])), keys);
    for (const stanza of repo.stanzas) assert.ok(!keys.has(key(`backup/${stanza}/latest`)));
    assert.deepEqual(repo.stanzas, [repo.main.stanza, repo.encrypted.stanza]);
  });

  it("lists full, diff and incr backups in each stanza's info, as the facts say", () => {
    const byType = (stanza: string, type: string): string[] => repo.info(stanza).backup.filter((b) => b.type === type).map((b) => b.label);
    for (const [stanza, facts] of [
      [repo.main.stanza, repo.main],
      [repo.encrypted.stanza, repo.encrypted],
    ] as const) {
      const info = repo.info(stanza);
      assert.equal(info.name, stanza);
      assert.equal(info.status.code, 0, info.status.message);
      assert.deepEqual(new Set(info.backup.map((b) => b.type)), new Set(['full', 'diff', 'incr']), stanza);
      assert.deepEqual(byType(stanza, 'full'), facts.full, stanza);
      assert.deepEqual(byType(stanza, 'diff'), facts.diff, stanza);
      assert.deepEqual(byType(stanza, 'incr'), facts.incr, stanza);
      for (const b of info.backup) {
        assert.ok(keys.has(key(`backup/${stanza}/${b.label}/backup.manifest`)), b.label);
        const fact = repo.backups.find((f) => f.stanza === stanza && f.label === b.label);
        assert.deepEqual([fact?.kind, fact?.archiveStart, fact?.archiveStop], [b.type, b.archive.start, b.archive.stop], b.label);
      }
    }
  });

  it('has an interrupted backup: backup.manifest.copy without backup.manifest, unknown to info', () => {
    const label = repo.main.interrupted;
    assert.match(label, /^\d{8}-\d{6}F$/);
    const dir = key(`backup/${repo.main.stanza}/${label}/`);
    assert.ok(keys.has(`${dir}backup.manifest.copy`));
    assert.ok(!keys.has(`${dir}backup.manifest`));
    assert.ok(!repo.info(repo.main.stanza).backup.some((b) => b.label === label));
    assert.ok(!keys.has(key(`backup/${repo.main.stanza}/backup.history/${label.slice(0, 4)}/${label}.manifest.gz`)));
    // Killed while copying, before pg_backup_stop: no backup history file names its start.
    assert.doesNotMatch(repo.outText('backup-main-interrupted.log'), /backup stop archive/);
    assert.match(repo.bytes(`backup/${repo.main.stanza}/${label}/backup.manifest.copy`).toString('utf8'), /^\[backrest\]/);
    for (const partial of repo.main.interruptedPartialRemoved) assert.ok(!keys.has(key(partial)), partial);
    assert.deepEqual(repo.backups.filter((b) => b.kind === 'interrupted').map((b) => b.label), [label]);
  });

  it('has expired backups: gone from info and their directories, kept in backup.history, their WAL removed', () => {
    const stanza = repo.main.stanza;
    assert.equal(repo.main.expired.length, 3);
    const before = repo.infoBeforeExpire.backup.map((b) => b.label);
    const now = repo.info(stanza).backup.map((b) => b.label);
    for (const label of repo.main.expired) {
      assert.ok(before.includes(label), label);
      assert.ok(!now.includes(label), label);
      assert.ok(![...keys.keys()].some((k) => k.startsWith(key(`backup/${stanza}/${label}/`))), label);
      assert.ok(keys.has(key(`backup/${stanza}/backup.history/${label.slice(0, 4)}/${label}.manifest.gz`)), label);
    }
    assert.deepEqual(
      repo.backups.filter((b) => b.kind === 'expired').map((b) => [b.label, b.type]),
      repo.main.expired.map((l, i) => [l, ['full', 'diff', 'incr'][i]]),
    );
    // Retention removed every segment before the oldest kept backup's archive start.
    const oldestKept = repo.info(stanza).backup[0];
    assert.ok(oldestKept !== undefined);
    assert.equal(oldestKept.label, repo.main.full[0]);
    const wals = [...keys.keys()]
      .filter((k) => k.startsWith(key(`archive/${stanza}/`)))
      .map((k) => WAL_KEY.exec(k)?.[1])
      .filter((n) => n !== undefined);
    assert.ok(wals.length > 10);
    assert.ok(wals.every((n) => n >= oldestKept.archive.start), 'a segment older than the oldest kept backup remains');
    assert.equal(repo.info(stanza).archive[0]?.min, oldestKept.archive.start);
  });

  it('lacks the deleted segment while both its neighbours are archived', () => {
    const wal = repo.deletedWal;
    assert.ok(!keys.has(repo.deletedKey));
    assert.match(repo.deletedKey, new RegExp(`^${repo.prefix}/archive/${repo.main.stanza}/${repo.main.archiveId}/${wal.slice(0, 16)}/${wal}-[0-9a-f]{40}\\.zst$`));
    const names = new Set([...keys.keys()].filter((k) => k.startsWith(key(`archive/${repo.main.stanza}/`))).map((k) => WAL_KEY.exec(k)?.[1]));
    assert.ok(!names.has(wal));
    assert.ok(names.has(segmentAt(wal, -1)), segmentAt(wal, -1));
    assert.ok(names.has(segmentAt(wal, +1)), segmentAt(wal, +1));
    // Between F2's archive stop and D2's archive start: a hole inside the timeline, not retention.
    const f2 = repo.info(repo.main.stanza).backup.find((b) => b.label === repo.main.full[0]);
    const d2 = repo.info(repo.main.stanza).backup.find((b) => b.label === repo.main.diff[0]);
    assert.ok(f2 !== undefined && d2 !== undefined);
    assert.ok(f2.archive.stop < wal && wal < d2.archive.start, `${f2.archive.stop} < ${wal} < ${d2.archive.start}`);
  });

  it('is not reported by pgbackrest verify, which exits 0 and only splits the range at detail level', () => {
    assert.equal(repo.verify.exitCode, 0);
    assert.equal(repo.verify.output, '');
    assert.equal(repo.verify.detailExitCode, 0);
    const detail = repo.verify.detailOutput;
    assert.match(detail, /status: ok/);
    assert.doesNotMatch(detail, /missing: [1-9]/);
    assert.doesNotMatch(detail, /status: invalid/);
    const id = repo.main.archiveId;
    assert.ok(detail.includes(`archiveId: ${id}, wal start: `) && detail.includes(`wal stop: ${segmentAt(repo.deletedWal, -1)}`), detail);
    assert.ok(detail.includes(`archiveId: ${id}, wal start: ${segmentAt(repo.deletedWal, +1)}`), detail);
    assert.match(detail, new RegExp(`backup '${repo.main.interrupted}' appears to be in progress, skipping`));
  });

  it('encrypts every file of the cipher stanza, and only those', () => {
    const enc = repo.encrypted.stanza;
    assert.equal(repo.encrypted.cipherType, 'aes-256-cbc');
    assert.equal(repo.info(enc).cipher, 'aes-256-cbc');
    assert.equal(repo.info(repo.main.stanza).cipher, 'none');
    for (const info of [`backup/${enc}/backup.info`, `backup/${enc}/backup.info.copy`, `archive/${enc}/archive.info`, `archive/${enc}/archive.info.copy`]) {
      const bytes = repo.bytes(info);
      assert.equal(bytes.subarray(0, 8).toString('latin1'), 'Salted__', info);
      assert.ok(!bytes.includes('[backrest]'), info);
    }
    const encFiles = repo.files().filter((f) => f.key.startsWith(`backup/${enc}/`) || f.key.startsWith(`archive/${enc}/`));
    assert.ok(encFiles.length > 10);
    for (const f of encFiles) assert.equal(repo.bytes(f.key).subarray(0, 8).toString('latin1'), 'Salted__', f.key);
    assert.match(repo.bytes(`backup/${repo.main.stanza}/backup.info`).toString('utf8'), /^\[backrest\]\nbackrest-format=5\n/);
    assert.notEqual(repo.encrypted.systemId, repo.main.systemId);
  });

  it('has both timelines: a 00000002.history and WAL on timelines 1 and 2', () => {
    const archive = key(`archive/${repo.main.stanza}/${repo.main.archiveId}/`);
    assert.ok(keys.has(`${archive}00000002.history`));
    assert.equal(repo.bytes(`archive/${repo.main.stanza}/${repo.main.archiveId}/00000002.history`).toString('utf8'), repo.history2);
    assert.match(repo.history2, new RegExp(`^1\\t${repo.main.switchLsn}\\tat restore point "${repo.main.restorePoint}"\\n$`));
    const names = [...keys.keys()].filter((k) => k.startsWith(archive)).map((k) => WAL_KEY.exec(k)?.[1]).filter((n) => n !== undefined);
    assert.ok(names.some((n) => n.startsWith('00000001')));
    assert.ok(names.includes(repo.main.firstTimeline2Wal));
    assert.ok(repo.main.firstTimeline2Wal.startsWith('00000002'));
    const timelineOf = (label: string): string => repo.info(repo.main.stanza).backup.find((b) => b.label === label)?.archive.start.slice(0, 8) ?? '';
    for (const l of repo.main.timeline1) assert.equal(timelineOf(l), '00000001', l);
    for (const l of repo.main.timeline2) assert.equal(timelineOf(l), '00000002', l);
    assert.equal(repo.info(repo.main.stanza).archive[0]?.max?.slice(0, 8), '00000002');
  });

  it('mixes zst and gz among WAL and backup files, and has bundles', () => {
    const all = [...keys.keys()];
    const ext = (where: RegExp, e: string): boolean => all.some((k) => where.test(k) && k.endsWith(`.${e}`));
    for (const e of ['gz', 'zst']) {
      assert.ok(ext(/\/archive\/main\/.*\/[0-9A-F]{24}-/, e), `WAL .${e}`);
      assert.ok(ext(/\/backup\/main\/[^/]+\/pg_data\//, e), `backup file .${e}`);
    }
    const byLabel = new Map(repo.backups.map((b) => [b.label + b.stanza, b]));
    const main = (l: string): { compress: string; bundled: boolean } | undefined => byLabel.get(l + repo.main.stanza);
    for (const l of repo.main.bundled) {
      assert.deepEqual(main(l), { ...main(l), compress: 'zst', bundled: true }, l);
      assert.ok(all.some((k) => k.startsWith(key(`backup/${repo.main.stanza}/${l}/bundle/`))), l);
    }
    for (const l of repo.main.timeline2) assert.deepEqual(main(l), { ...main(l), compress: 'gz', bundled: false }, l);
    for (const l of repo.main.expired) assert.equal(main(l)?.compress, 'gz', l);
    assert.ok(!all.some((k) => k.startsWith(key(`backup/${repo.main.stanza}/${repo.main.timeline2[0] ?? ''}/bundle/`))));
  });
});
