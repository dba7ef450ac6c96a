/**
 * Issue 23, on the repository Barman 3.4 and PostgreSQL 15 wrote (`pg-main`: timeline 1 with one
 * segment deleted between backups B1 and B2, a point-in-time recovery onto timeline 2 with
 * timeline 1 going on, B3 on timeline 2). Positions differ from build to build (real PostgreSQL
 * decides when segments switch), so every one is read from the build's facts and listing, and the
 * shape each case needs is asserted first. A copy in the same Swift store, one
 * object edited after the tools wrote it, scanned by the real scanner through the real S3 driver
 * and published as production does. For each case, the items say what the edit did and no summary
 * is healthier than its items (the publisher refuses a generation that disagrees:
 * `evidence/agreement.ts`). The cases are the numbered ones; receipt times are the copy's,
 * so "an hour ago" is reached by shortening the settle thresholds, never by waiting.
 */
import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, afterEach, before, describe, it } from 'node:test';
import { GetObjectCommand } from '@aws-sdk/client-s3';
import { archiveLagSeconds, archiveLagUnknownReason } from '../../src/evidence/summary.ts';
import { archiveCloud, scopeRoot } from '../../src/format/barman-cloud/format.ts';
import { realRepositories, type RealRepositories } from '../support/real-repositories.ts';
import { startFaultProxy } from '../support/fault-proxy.ts';
import { ScopeCopy, type ScanOptions } from '../support/scope-copy.ts';
import { AT_ONCE, backup, capability, notHealthy, path, SEVERITY, sr, summary, wal } from '../support/publication-reading.ts';

const SERVER = 'pg-main';
const SEGMENT = 16 * 1024 * 1024;
/** The position of a 24-hex WAL name (log and segment of a 16 MiB-segment cluster). */
const positionOf = (name: string) => Number.parseInt(name.slice(8, 16), 16) * 256 + Number.parseInt(name.slice(16, 24), 16);
/** An LSN inside `position`, where PostgreSQL's switch records lie (0x90 into the segment). */
const switchLsn = (position: number) => `${Math.floor(position / 256).toString(16).toUpperCase()}/${((position % 256) * SEGMENT + 0x90).toString(16).toUpperCase()}`;


describe('summaries at the edges of timelines, on the repository Barman wrote (one object edited)', () => {
  let repos: RealRepositories;
  let copy: ScopeCopy;
  let options: ScanOptions;
  let b1: string;
  let b2: string;
  let b3: string;
  /** Timeline 2's first position (the segment holding the switch), its segments, the deleted timeline-1 position. */
  let fork: number;
  let tl2: number[];
  let lost: number;
  /** B1's last and B2's first segment. */
  let b1End: number;
  let b2Begin: number;
  /** Barman's own history file line of timeline 2, after its switch LSN. */
  let historyTail: string;
  /** The key (relative to the copy) under which Barman stored a WAL name or file. */
  const keyOf = (name: string) => {
    const k = repos.objects(SERVER).map((o) => o.key).find((key) => key.split('/').at(-1)?.startsWith(name) === true && !key.includes('.backup'));
    assert.ok(k !== undefined, `Barman stored ${name}`);
    return k.slice(repos.prefix.length + 1);
  };
  const read = async (relative: string) => {
    const r = await copy.s3.send(new GetObjectCommand({ Bucket: repos.bucket, Key: `${copy.prefix}/${relative}` }));
    return Buffer.from(await (r.Body as { transformToByteArray(): Promise<Uint8Array> }).transformToByteArray());
  };
  const infoKey = (id: string) => `${SERVER}/base/${id}/backup.info`;

  before(async () => {
    repos = realRepositories();
    copy = await ScopeCopy.create({ endpoint: repos.endpoint, accessKeyId: repos.accessKeyId, secretAccessKey: repos.secretAccessKey, bucket: repos.bucket }, repos.prefix, [`${SERVER}/`]);
    options = { format: archiveCloud, scope: SERVER, root: scopeRoot(copy.prefix, SERVER) };
    [b1, b2, b3] = [repos.facts['BACKUP_1'] ?? '', repos.facts['BACKUP_2'] ?? '', repos.facts['BACKUP_3'] ?? ''];
    // The repository as this build wrote it, and the shape every case relies on.
    const history = /^1\t([0-9A-F]+)\/([0-9A-F]+)(\t.*\n)$/.exec(repos.history2);
    assert.ok(history !== null, 'timeline 2 forked from timeline 1');
    fork = Number.parseInt(history[1] ?? '', 16) * 256 + Math.floor(Number.parseInt(history[2] ?? '', 16) / SEGMENT);
    historyTail = history[3] ?? '';
    tl2 = repos.objects(SERVER).flatMap((o) => /\/wals\/0000000200000000\/(00000002[0-9A-F]{16})(\.[a-z0-9]+)?$/.exec(o.key)?.[1] ?? []).map(positionOf).sort((a, b) => a - b);
    assert.equal(tl2[0], fork, 'timeline 2 begins with the segment holding its switch');
    assert.ok(tl2.length >= 2, 'timeline 2 archived more than its first segment');
    assert.deepEqual(tl2, tl2.map((_, i) => fork + i), "timeline 2's segments are consecutive from the switch's (its lost head is exactly the switch's segment)");
    lost = positionOf(repos.facts['DELETED_WAL'] ?? '');
    const list = repos.backupList(SERVER);
    const placed = (id: string) => list.find((b) => b.backup_id === id);
    const [e1, e2, e3] = [placed(b1), placed(b2), placed(b3)];
    assert.ok(e1?.timeline === 1 && e2?.timeline === 1 && e3?.timeline === 2, 'B1 and B2 on timeline 1, B3 on timeline 2');
    [b1End, b2Begin] = [positionOf(e1.end_wal ?? ''), positionOf(e2.begin_wal ?? '')];
    assert.ok(b1End < lost && lost < b2Begin, 'the deleted segment lies between B1 and B2');
    assert.ok(positionOf(e3.begin_wal ?? '') > fork, "B3 begins after timeline 2's first segment (it needs nothing of the head the cases lose)");
    assert.ok(positionOf(e2.end_wal ?? '') + 1 < fork, 'B2 ended more than a segment before the switch');
    assert.ok(repos.objects(SERVER).some((o) => o.key.endsWith(`/${wal(1, lost + 1)}.gz`) || o.key.endsWith(`/${wal(1, lost + 1)}`)), 'the deleted segment has a successor');
  });
  afterEach(() => copy.restore());
  after(() => copy?.dispose());

  it('the copy as the tools left it: B2 reaches the newest WAL on timeline 2; the deleted segment is an unexplained gap', async () => {
    const { publication: p } = await copy.scan({ ...options, gapSettle: AT_ONCE });
    assert.deepEqual(sr(path(p, b2, 2)), ['healthy', 'coverage-to-frontier']);
    assert.deepEqual(sr(path(p, b3, 2)), ['healthy', 'coverage-to-frontier']);
    assert.deepEqual(p.walGaps.map((g) => [g.timeline, g.first_wal, g.last_wal, g.status]), [[1, wal(1, lost), wal(1, lost), 'confirmed']]);
    assert.deepEqual(sr(summary(p).timeline), ['healthy', 'timelines-consistent']);
    // B1's path stops at the lost segment: part of the window only B1 covered is gone.
    assert.deepEqual(sr(path(p, b1, 1)), ['unhealthy', 'coverage-gap-limited']);
    assert.deepEqual(sr(summary(p).coverage), ['warning', 'coverage-path-wal-lost']);
  });

  it('1. the head of timeline 2 lost: a gap from the switchpoint, the paths crossing it stop there, and no summary is healthy', async () => {
    await copy.remove(keyOf(wal(2, fork)));
    const candidate = (await copy.scan(options)).publication;
    assert.ok(candidate.walGaps.some((g) => g.timeline === 2 && g.first_wal === wal(2, fork) && g.last_wal === wal(2, fork) && g.status === 'candidate'));
    assert.equal(path(candidate, b2, 2).stop, 'candidate-limited');
    assert.notEqual(summary(candidate).wal.state, 'healthy');
    const { publication: p } = await copy.scan({ ...options, gapSettle: AT_ONCE });
    assert.ok(p.walGaps.some((g) => g.timeline === 2 && g.first_wal === wal(2, fork) && g.status === 'confirmed'));
    assert.deepEqual([path(p, b2, 2).stop, ...sr(path(p, b2, 2))], ['gap-limited', 'unhealthy', 'coverage-gap-limited']);
    assert.deepEqual([path(p, b1, 2).stop, path(p, b1, 2).state], ['gap-limited', 'unhealthy']);
    assert.deepEqual(sr(summary(p).wal), ['unhealthy', 'wal-gap-confirmed']);
    assert.deepEqual(sr(summary(p).coverage), ['warning', 'coverage-path-wal-lost']);
    notHealthy(p, 'wal', 'coverage');
  });

  it('1. a history declaring an earlier switch than the first segment shows: the positions between are missing too', async () => {
    await copy.put(keyOf('00000002.history'), gzipSync(`1\t${switchLsn(fork - 1)}${historyTail}`));
    const { publication: p } = await copy.scan({ ...options, gapSettle: AT_ONCE });
    assert.ok(p.walGaps.some((g) => g.timeline === 2 && g.first_wal === wal(2, fork - 1) && g.last_wal === wal(2, fork - 1) && g.status === 'confirmed'));
    assert.deepEqual(sr(path(p, b2, 2)), ['unhealthy', 'coverage-gap-limited']);
    notHealthy(p, 'wal', 'coverage');
  });

  it('2. a history the listing contradicts (the switch after segments timeline 2 already has): timeline and the paths across it are not healthy', async () => {
    // The switch declared at timeline 2's last segment, after the ones it already has.
    await copy.put(keyOf('00000002.history'), gzipSync(`1\t${switchLsn(tl2.at(-1) ?? fork)}${historyTail}`));
    const { publication: p } = await copy.scan(options);
    assert.deepEqual(sr(summary(p).timeline), ['unhealthy', 'timeline-history-contradicted']);
    assert.deepEqual(sr(capability(p, 'timeline-history-traversal')), ['unhealthy', 'timeline-history-contradicted']);
    assert.deepEqual(sr(path(p, b2, 2)), ['unknown', 'coverage-history-contradicted']);
    assert.deepEqual(sr(path(p, b1, 2)), ['unknown', 'coverage-history-contradicted']);
    notHealthy(p, 'timeline', 'coverage');
  });

  it('3. timeline 2 with its history and no segment: not covered, and less evidence never improves the verdict', async () => {
    for (const p of tl2) await copy.remove(keyOf(wal(2, p)));
    const fresh = (await copy.scan(options)).publication;
    assert.deepEqual(sr(path(fresh, b2, 2)), ['unknown', 'target-timeline-not-archived']);
    assert.deepEqual(sr(summary(fresh).coverage), ['unknown', 'coverage-target-not-archived']);
    // An hour of the store's clock after the history file, still nothing: the timeline's WAL is lost.
    const old = (await copy.scan({ ...options, gapSettle: AT_ONCE })).publication;
    assert.deepEqual([path(old, b2, 2).stop, ...sr(path(old, b2, 2))], ['gap-limited', 'unhealthy', 'target-timeline-wal-missing']);
    assert.deepEqual(sr(summary(old).coverage), ['unhealthy', 'coverage-target-wal-missing']);
    assert.deepEqual(sr(summary(old).wal), ['unhealthy', 'wal-timeline-not-archived']);
    // B3, on timeline 2, needs WAL the timeline never archived: pending at first, missing an hour on.
    assert.deepEqual(sr(backup(fresh, b3)), ['unknown', 'required-wal-not-yet-archived']);
    assert.deepEqual(sr(backup(old, b3)), ['unhealthy', 'required-wal-missing']);
    await copy.restore();
    // With some timeline-2 segments but its head lost, the same repository is no worse.
    await copy.remove(keyOf(wal(2, fork)));
    const some = (await copy.scan({ ...options, gapSettle: AT_ONCE })).publication;
    for (const part of ['wal', 'coverage'] as const) assert.ok(SEVERITY[summary(old)[part].state] >= SEVERITY[summary(some)[part].state], `${part}: fewer segments, no better`);
    assert.ok(SEVERITY[old.snapshot.state] >= SEVERITY[some.snapshot.state]);
  });

  it('4. a second database system id in the server prefix: every conclusion that attributes WAL to a system is unknown', async () => {
    const text = (await read(infoKey(b1))).toString('utf8');
    assert.match(text, /^systemid=\d+$/m);
    await copy.put(infoKey(b1), text.replace(/^systemid=\d+$/m, 'systemid=7000000000000000001'));
    const { publication: p } = await copy.scan(options);
    assert.deepEqual(sr(summary(p).wal), ['unknown', 'multiple-system-ids']);
    for (const id of [b1, b2, b3]) assert.deepEqual(sr(backup(p, id)), ['unknown', 'required-wal-system-ambiguous'], id);
    for (const r of p.recoveryPaths) assert.equal(r.state, 'unknown');
    assert.deepEqual(sr(summary(p).coverage), ['unknown', 'multiple-system-ids']);
    for (const id of ['observed-recovery-coverage', 'structural-artifact-validation', 'wal-continuity']) assert.equal(capability(p, id).state, 'unknown', id);
    assert.equal(p.snapshot.state, 'unknown');
  });

  it('5. a backup whose backup.info is empty counts as a completed backup for the summaries', async () => {
    const before = (await copy.scan(options)).publication;
    assert.equal(capability(before, 'structural-artifact-validation').state, 'healthy');
    await copy.put(infoKey(b2), '');
    const { publication: p } = await copy.scan(options);
    assert.equal(backup(p, b2).state, 'unknown');
    assert.deepEqual(sr(capability(p, 'structural-artifact-validation')), ['unknown', 'completed-backup-unknown']);
    assert.notEqual(p.snapshot.state, 'healthy');
  });

  it('5. a backup.info without a mode line has no backup type: unknown, never full', async () => {
    const text = (await read(infoKey(b3))).toString('utf8');
    assert.match(text, /^mode=None$/m, 'Barman writes mode=None for a cloud backup');
    await copy.put(infoKey(b3), text.replace(/^mode=None\n/m, ''));
    const { publication: p } = await copy.scan(options);
    assert.deepEqual([backup(p, b3).backup_type, ...sr(backup(p, b3))], [null, 'unknown', 'backup-type-unknown']);
    assert.equal(capability(p, 'structural-artifact-validation').state, 'unknown');
  });

  it('6. a recovery window is met only by an older backup whose own path reaches the newest frontier', async () => {
    // Where the window starts is the test's choice: placed by the backups' own end times.
    const plain = (await copy.scan(options)).publication;
    const end = (id: string) => Date.parse(backup(plain, id).end_at ?? '');
    const [e2, e3] = [end(b2), end(b3)];
    assert.ok(e2 < e3, 'B2 ended before B3');
    // The window starts between B2's end and B3's: B1 and B2 completed before it, B3 after.
    const startedAt = new Date(e2 + (e3 - e2) / 2 + 86_400_000);
    const expectations = { policyText: 'RECOVERY WINDOW OF 1 DAYS', policy: { kind: 'recovery-window', amount: 1, unit: 'days' }, minimumRedundancy: null } as const;
    const met = (await copy.scan({ ...options, expectations, startedAt })).publication;
    assert.deepEqual(sr(summary(met).retention), ['healthy', 'retention-met'], 'B2 reaches the newest frontier');
    // Timeline 2's head lost: B1 and B2 both stop on their way to timeline 2, only B3 (inside the window) reaches it.
    await copy.remove(keyOf(wal(2, fork)));
    const { publication: p } = await copy.scan({ ...options, expectations, startedAt });
    assert.equal(backup(p, b2).state, 'healthy');
    assert.deepEqual(sr(summary(p).retention), ['warning', 'recovery-window-not-covered']);
  });

  it('7. a valid segment beside an implausible copy the restore tool would take first is not present', async () => {
    // B1 needs segment 3, stored uncompressed; barman-cloud-wal-restore takes a suffixed copy first.
    const bare = keyOf(wal(1, b1End));
    assert.ok(bare.endsWith(wal(1, b1End)), 'B1 ended in a segment stored uncompressed');
    await copy.put(`${bare}.gz`, Buffer.alloc(30, 1));
    const { publication: p } = await copy.scan(options);
    assert.ok(p.walGaps.some((g) => g.timeline === 1 && g.start_position <= b1End && b1End <= g.end_position), 'B1\'s last segment is missing now');
    assert.deepEqual(sr(backup(p, b1)), ['unknown', 'required-wal-candidate-gap']);
    notHealthy(p, 'wal');
  });

  it('7. an implausible bare copy beside a valid compressed one the restore tool takes: the position stays present', async () => {
    const gz = keyOf(wal(1, b2Begin));
    assert.ok(gz.endsWith('.gz'));
    await copy.put(gz.slice(0, -3), Buffer.alloc(30, 1));
    const { publication: p } = await copy.scan(options);
    assert.ok(!p.walGaps.some((g) => g.timeline === 1 && g.start_position <= b2Begin && g.end_position >= b2Begin));
    assert.deepEqual(sr(backup(p, b2)), ['healthy', 'structurally-usable']);
    assert.deepEqual(sr(summary(p).wal), ['warning', 'wal-gap-candidate']);
  });

  it('8. a receipt after the store\'s own clock: the lag is unknown with its own reason, and the gap it follows is confirmed on the store\'s clock', async () => {
    const proxy = await startFaultProxy(repos.endpoint);
    try {
      // The segment after the lost one is listed as received a year from now.
      const successor = keyOf(wal(1, lost + 1)).split('/').at(-1) ?? '';
      const future = new Date(Date.now() + 365 * 86_400_000).toISOString();
      proxy.inject((r) => r.method === 'GET' && r.query.has('list-type'), { kind: 'rewrite-body', rewrite: (body) => body.replace(new RegExp(`(<Key>[^<]*${successor}</Key>\\s*<LastModified>)[^<]*(</LastModified>)`), `$1${future}$2`) });
      const expectations = { policyText: null, policy: null, minimumRedundancy: null, maxArchiveLagSeconds: 3600 };
      const o = { ...options, endpoint: proxy.url, expectations, gapSettle: { settleMs: 1_500, longSettleMs: 3_600_000 } };
      const publisher = copy.publisher(o);
      const first = await copy.scan(o, publisher);
      assert.equal(archiveLagSeconds(first.evidence), null);
      assert.equal(archiveLagUnknownReason(first.evidence), 'receipt-after-store-clock');
      assert.deepEqual(sr(summary(first.publication).wal), ['unknown', 'archive-receipt-after-store-clock']);
      assert.equal(first.publication.walGaps.find((g) => g.first_wal === wal(1, lost))?.status, 'candidate');
      // The store's clock moves on past the first observation: the future stamp holds it no longer.
      await sleep(3_500);
      const second = await copy.scan(o, publisher);
      const gap = second.publication.walGaps.find((g) => g.first_wal === wal(1, lost));
      assert.deepEqual([gap?.status, gap?.first_observed_generation, gap?.last_observed_generation], ['confirmed', 1, 2]);
    } finally {
      await proxy.close();
    }
  });

  it('9. an archive that stopped: a gap whose successor was received long before the store\'s clock is confirmed in the first generation', async () => {
    // The successor received again, now the newest object: "the archive moved on past it" by
    // receipts alone can never hold; only the store's clock can say the hole is old.
    await copy.touch(keyOf(wal(1, lost + 1)));
    await sleep(3_500);
    const { publication: p } = await copy.scan({ ...options, gapSettle: { settleMs: 5 * 60_000, longSettleMs: 2_000 } });
    const gap = p.walGaps.find((g) => g.first_wal === wal(1, lost));
    assert.deepEqual([gap?.status, p.snapshot.evidence_generation], ['confirmed', 1]);
    assert.deepEqual(sr(summary(p).wal), ['unhealthy', 'wal-gap-confirmed']);
  });
});
