/**
 * Issue 23, on the repository pgBackRest 2.45 and PostgreSQL 15 wrote (stanza `main`: timeline 1
 * with one segment between F2 and D2 deleted; a point-in-time restore onto timeline 2 at the
 * switch its history records, timeline 1's WAL going on past it; the current backups F2, D2, I2 on
 * timeline 1 and F3, I3 on timeline 2; an interrupted full; stanza `encrypted` behind aes-256-cbc):
 * a copy of stanza `main`'s two areas in the same Swift store, one object edited after pgBackRest
 * wrote it, scanned by the real scanner through the real S3 driver and published as production
 * does. The pgBackRest counterpart of edges-barman.test.ts: for each case, the items say what the
 * edit did and no summary is healthier than its items (the publisher refuses a generation that
 * disagrees: `evidence/agreement.ts`). Receipt times are the copy's, so "an hour ago" is reached by
 * shortening the settle thresholds, never by waiting.
 *
 * Every WAL position is the build's own (a fresh machine builds the repository anew, and real
 * PostgreSQL and pgBackRest runs need not land on the same segments twice): the switch and
 * timeline 2's first segment from the facts and the history, the deleted segment from the facts,
 * each backup's archive start and stop from backups.tsv, the segments of both timelines from the
 * copy's own listing. `before` checks each has the shape the cases need, so a build that cannot
 * show a case fails there, by name, instead of passing without showing it.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, afterEach, before, describe, it } from 'node:test';
import { GetObjectCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import { stanzaRepositoryFacts } from '../../src/contract/details-view.ts';
import { archiveLagSeconds, archiveLagUnknownReason } from '../../src/evidence/summary.ts';
import { stanzaRepository } from '../../src/format/stanza-repository/format.ts';
import type { Publication } from '../../src/publication/publisher.ts';
import { pgbackrestRepository, type PgBackRestRepository } from '../support/pgbackrest-repositories.ts';
import { startFaultProxy } from '../support/fault-proxy.ts';
import { ScopeCopy, type ScanOptions } from '../support/scope-copy.ts';
import { AT_ONCE, backup, capability, notHealthy, path, SEVERITY, sr, summary, wal } from '../support/publication-reading.ts';

const STANZA = 'main';

const gaps = (p: Publication) => p.walGaps.map((g) => [g.timeline, g.first_wal, g.last_wal, g.status]);

/** WAL segment size: initdb's default, which the build keeps (16 MiB). */
const SEGMENT = 0x100_0000;
/** The position of a segment named for `timeline` below log 1 (what `wal` names); fails on any other name. */
function positionOf(name: string, timeline: number): number {
  const m = new RegExp(`^${wal(timeline, 0).slice(0, 22)}([0-9A-F]{2})$`).exec(name);
  assert.ok(m, `${name} is a WAL segment of timeline ${timeline} below log 1`);
  return parseInt(m[1] as string, 16);
}
/** An LSN below 1/0 as the segment holding it and its offset there. */
function lsnParts(lsn: string): { segment: number; offset: number } {
  const m = /^0\/([0-9A-F]{1,8})$/.exec(lsn);
  assert.ok(m, `${lsn} is an LSN below 1/0`);
  const at = parseInt(m[1] as string, 16);
  return { segment: Math.floor(at / SEGMENT), offset: at % SEGMENT };
}
/** The LSN `offset` bytes into segment `segment` (below 1/0), written as PostgreSQL writes it (`%X/%X`). */
const lsnAt = (segment: number, offset: number) => `0/${(segment * SEGMENT + offset).toString(16).toUpperCase()}`;
/** A WAL segment's name in an archive key `…/<name>-<sha1>[.<ext>]` (history and backup-label files have none). */
const SEGMENT_KEY = /\/([0-9A-F]{24})-[0-9a-f]{40}(\.[a-z0-9]+)?$/;

/**
 * An info file sealed with pgBackRest's checksum (`INFO_CHECKSUM_*` in src/info/info.c): SHA-1 of
 * `{"<section>":{"<key>":<value>,…},…}` over every value in file order but the checksum itself,
 * a section rendered again whenever it changes. Written here apart from info-file.ts; the test
 * first checks it reproduces the checksum pgBackRest wrote.
 */
function seal(text: string): string {
  let canonical = '';
  let section = '';
  let open = '';
  for (const line of text.split('\n')) {
    if (line === '') continue;
    if (line.startsWith('[') && line.endsWith(']')) {
      section = line.slice(1, -1);
      continue;
    }
    // Keys of backup.info are labels and plain names: the first `=` ends them.
    const eq = line.indexOf('=');
    const key = line.slice(0, eq);
    if (section === 'backrest' && key === 'backrest-checksum') continue;
    canonical += open === section ? ',' : `${open === '' ? '{' : '},'}"${section}":{`;
    open = section;
    canonical += `${JSON.stringify(key)}:${line.slice(eq + 1)}`;
  }
  const sum = createHash('sha1').update(`${canonical}}}`, 'latin1').digest('hex');
  return text.replace(/^backrest-checksum=.*$/m, `backrest-checksum="${sum}"`);
}

describe('summaries at the edges of timelines, on the repository pgBackRest wrote (one object edited)', () => {
  let pg: PgBackRestRepository;
  let copy: ScopeCopy;
  let options: ScanOptions;
  let archiveId: string;
  let f2: string;
  let d2: string;
  let i2: string;
  let f3: string;
  let i3: string;
  let timeline1: readonly string[];
  let timeline2: readonly string[];
  /** The copy's WAL segments as pgBackRest stored them, by name: their keys relative to the repository root. */
  let segments: Map<string, string[]>;
  /** Timeline 2's segments in the copy, oldest first: consecutive from the one holding the switch. */
  let timeline2Wal: string[];
  /** The position of the switch's segment (timeline 2's first), and the switch's offset in it (kept when a test moves the switch). */
  let switchAt: number;
  let switchOffset: number;
  /** The position of the deleted timeline-1 segment. */
  let lost: number;
  /** D2's archive stop on timeline 1, both of its neighbours archived. */
  let d2Stop: number;
  /** A timeline-2 segment after its first, halfway along its listing: where a contradicted history puts the switch. */
  let contradictedAt: number;
  /** The key (relative to the repository root) under which pgBackRest stored a WAL segment: `<name>-<sha1>.<ext>`. */
  const segmentKey = (name: string) => {
    const keys = segments.get(name) ?? [];
    assert.equal(keys.length, 1, `pgBackRest stored ${name} once`);
    return keys[0] as string;
  };
  const segmentsOf = (timeline: number) => [...segments.keys()].filter((n) => n.startsWith(wal(timeline, 0).slice(0, 8))).sort();
  /** A current backup's archive start and stop (backups.tsv) as positions on `timeline`. */
  const archiveWindow = (label: string, timeline: number) => {
    const fact = pg.backups.find((b) => b.stanza === STANZA && b.label === label);
    assert.ok(fact, `backups.tsv lists ${label}`);
    const { archiveStart, archiveStop } = fact;
    assert.ok(archiveStart !== null && archiveStop !== null, `backups.tsv gives ${label}'s archive start and stop`);
    return { start: positionOf(archiveStart, timeline), stop: positionOf(archiveStop, timeline) };
  };
  const historyKey = () => `archive/${STANZA}/${archiveId}/00000002.history`;
  const backupInfo = `backup/${STANZA}/backup.info`;
  const read = async (relative: string) => {
    const r = await copy.s3.send(new GetObjectCommand({ Bucket: pg.bucket, Key: `${copy.prefix}/${relative}` }));
    return Buffer.from(await (r.Body as { transformToByteArray(): Promise<Uint8Array> }).transformToByteArray());
  };

  before(async () => {
    pg = pgbackrestRepository();
    copy = await ScopeCopy.create({ endpoint: pg.endpoint, accessKeyId: pg.accessKeyId, secretAccessKey: pg.secretAccessKey, bucket: pg.bucket }, pg.prefix, [`archive/${STANZA}/`, `backup/${STANZA}/`]);
    const { base, roots } = stanzaRepository.scopeRoots(copy.prefix, STANZA);
    options = { format: stanzaRepository, scope: STANZA, root: base, roots };
    archiveId = pg.main.archiveId;
    [f2 = '', f3 = ''] = pg.main.full;
    [d2 = ''] = pg.main.diff;
    [i2 = '', i3 = ''] = pg.main.incr;
    timeline1 = pg.main.timeline1;
    timeline2 = pg.main.timeline2;
    // The repository as the tests' facts describe it: F2, D2, I2 on timeline 1, F3, I3 on timeline 2.
    assert.deepEqual([...timeline1], [f2, d2, i2]);
    assert.deepEqual([...timeline2], [f3, i3]);
    // The copy's own listing of the archive, before any edit.
    segments = new Map();
    const under = `${copy.prefix}/archive/${STANZA}/${archiveId}/`;
    for (let token: string | undefined; ; ) {
      const page = await copy.s3.send(new ListObjectsV2Command({ Bucket: pg.bucket, Prefix: under, ContinuationToken: token }));
      for (const { Key: key } of page.Contents ?? []) {
        const name = key === undefined ? undefined : SEGMENT_KEY.exec(key)?.[1];
        if (key !== undefined && name !== undefined) segments.set(name, [...(segments.get(name) ?? []), key.slice(copy.prefix.length + 1)]);
      }
      token = page.NextContinuationToken;
      if (token === undefined) break;
    }
    // The switch: the history's only entry, in the segment timeline 2's listing begins with.
    assert.ok(pg.history2.startsWith(`1\t${pg.main.switchLsn}\t`), `00000002.history switches from timeline 1 at ${pg.main.switchLsn} first`);
    assert.equal(pg.history2.split(pg.main.switchLsn).length, 2, 'the history names the switch once, so replacing it moves the switch');
    ({ segment: switchAt, offset: switchOffset } = lsnParts(pg.main.switchLsn));
    assert.equal(pg.main.firstTimeline2Wal, wal(2, switchAt), `timeline 2's first segment holds the switch ${pg.main.switchLsn}`);
    timeline2Wal = segmentsOf(2);
    assert.ok(timeline2Wal.length >= 2, `timeline 2 has at least two segments (a head to lose and one after it): ${timeline2Wal.join(' ')}`);
    assert.deepEqual(timeline2Wal, timeline2Wal.map((_, i) => wal(2, switchAt + i)), "timeline 2's segments are consecutive from the switch's");
    contradictedAt = positionOf(timeline2Wal[Math.max(1, Math.floor((timeline2Wal.length - 1) / 2))] as string, 2);
    // The lost segment: on timeline 1, gone from the copy, both neighbours there.
    lost = positionOf(pg.deletedWal, 1);
    const onTimeline1 = new Set(segmentsOf(1).map((n) => positionOf(n, 1)));
    assert.ok(!onTimeline1.has(lost), `the deleted ${pg.deletedWal} is not in the copy`);
    assert.ok(onTimeline1.has(lost - 1) && onTimeline1.has(lost + 1), `the deleted ${pg.deletedWal} has both neighbours archived (its successor received after it)`);
    // The backups' archive windows against the lost segment and the switch.
    const windowOfF2 = archiveWindow(f2, 1);
    assert.ok(windowOfF2.stop < lost, `F2's archive stop ${wal(1, windowOfF2.stop)} lies before the deleted segment (F2's paths stop there)`);
    for (const id of [d2, i2]) {
      const { start, stop } = archiveWindow(id, 1);
      assert.ok(lost + 1 < start, `${id}'s archive start ${wal(1, start)} lies after the deleted segment's successor (the hole has no retention shape, and ${id} needs none of F2's WAL)`);
      assert.ok(stop < switchAt - 1, `${id}'s archive stop ${wal(1, stop)} lies before the segment before the switch (a switch declared one segment earlier still follows it)`);
    }
    // F2's stop may be the first segment expire left (then losing it is no gap, only WAL before the archive's start); D2's is never.
    d2Stop = archiveWindow(d2, 1).stop;
    assert.ok(archiveWindow(i2, 1).start > d2Stop, `I2's archive start lies after D2's stop ${wal(1, d2Stop)} (I2 needs none of D2's WAL)`);
    for (let position = windowOfF2.start; position < switchAt; position++)
      if (position !== lost) assert.ok(onTimeline1.has(position), `timeline 1 is archived from F2's archive start to the switch but for the deleted segment: ${wal(1, position)}`);
    for (const id of timeline2) assert.ok(archiveWindow(id, 2).start > switchAt, `${id} needs nothing of timeline 2's head ${pg.main.firstTimeline2Wal}`);
  });
  afterEach(() => copy.restore());
  after(() => copy?.dispose());

  it('the copy as pgBackRest left it: every backup but F2 reaches the newest WAL on timeline 2; the deleted segment is an unexplained gap', async () => {
    const fresh = (await copy.scan(options)).publication;
    assert.deepEqual(gaps(fresh), [[1, wal(1, lost), wal(1, lost), 'candidate']]);
    for (const id of [...timeline1, ...timeline2]) assert.deepEqual(sr(backup(fresh, id)), ['healthy', 'structurally-usable'], id);
    assert.deepEqual(sr(summary(fresh).coverage), ['healthy', 'coverage-to-frontier']);
    assert.deepEqual(sr(summary(fresh).wal), ['warning', 'wal-gap-candidate']);
    const { publication: p } = await copy.scan({ ...options, gapSettle: AT_ONCE });
    assert.deepEqual(gaps(p), [[1, wal(1, lost), wal(1, lost), 'confirmed']]);
    for (const id of [d2, i2, f3, i3]) assert.deepEqual([path(p, id, 2).stop, ...sr(path(p, id, 2))], ['frontier', 'healthy', 'coverage-to-frontier'], id);
    assert.deepEqual(sr(summary(p).timeline), ['healthy', 'timelines-consistent']);
    // F2's paths stop at the lost segment: part of the window only F2 covered is gone.
    for (const t of [1, 2]) assert.deepEqual([path(p, f2, t).stop, ...sr(path(p, f2, t))], ['gap-limited', 'unhealthy', 'coverage-gap-limited']);
    assert.deepEqual(sr(summary(p).coverage), ['warning', 'coverage-path-wal-lost']);
    assert.deepEqual(sr(summary(p).wal), ['unhealthy', 'wal-gap-confirmed']);
  });

  it('1. the head of timeline 2 lost: a gap from the switchpoint, the paths crossing it stop there, and no summary is healthy', async () => {
    await copy.remove(segmentKey(pg.main.firstTimeline2Wal));
    const candidate = (await copy.scan(options)).publication;
    assert.deepEqual(gaps(candidate), [[1, wal(1, lost), wal(1, lost), 'candidate'], [2, wal(2, switchAt), wal(2, switchAt), 'candidate']]);
    for (const id of [d2, i2]) assert.deepEqual([path(candidate, id, 2).stop, ...sr(path(candidate, id, 2))], ['candidate-limited', 'warning', 'coverage-candidate-limited'], id);
    assert.notEqual(summary(candidate).wal.state, 'healthy');
    const { publication: p } = await copy.scan({ ...options, gapSettle: AT_ONCE });
    // The head gap is an item of its own: timeline 2 from its switchpoint to before its first observed segment (the next one).
    assert.deepEqual(gaps(p), [[1, wal(1, lost), wal(1, lost), 'confirmed'], [2, wal(2, switchAt), wal(2, switchAt), 'confirmed']]);
    for (const id of timeline1) assert.deepEqual([path(p, id, 2).stop, ...sr(path(p, id, 2))], ['gap-limited', 'unhealthy', 'coverage-gap-limited'], id);
    // D2 and I2 stop at the switch (the last position covered is timeline 1's segment before it), F2 earlier at the lost one.
    for (const id of [d2, i2]) assert.equal(path(p, id, 2).frontier_wal, wal(1, switchAt - 1), id);
    assert.equal(path(p, f2, 2).frontier_wal, wal(1, lost - 1));
    // Timeline 2's own backups need nothing before its second segment.
    for (const id of timeline2) assert.deepEqual(sr(path(p, id, 2)), ['healthy', 'coverage-to-frontier'], id);
    assert.deepEqual(sr(summary(p).wal), ['unhealthy', 'wal-gap-confirmed']);
    assert.deepEqual(sr(summary(p).coverage), ['warning', 'coverage-path-wal-lost']);
    assert.deepEqual(sr(capability(p, 'observed-recovery-coverage')), ['warning', 'coverage-path-wal-lost']);
    assert.deepEqual(sr(p.snapshot), ['unhealthy', 'wal-gap-confirmed']);
    notHealthy(p, 'wal', 'coverage');
  });

  it('1. a history declaring an earlier switch than the first segment shows: the positions between are missing too', async () => {
    const stored = await read(historyKey());
    // pgBackRest stores history files as PostgreSQL wrote them, never compressed.
    assert.equal(stored.toString('utf8'), pg.history2);
    // The same switch one segment earlier.
    await copy.put(historyKey(), pg.history2.replace(pg.main.switchLsn, lsnAt(switchAt - 1, switchOffset)));
    const { publication: p } = await copy.scan({ ...options, gapSettle: AT_ONCE });
    assert.deepEqual(gaps(p), [[1, wal(1, lost), wal(1, lost), 'confirmed'], [2, wal(2, switchAt - 1), wal(2, switchAt - 1), 'confirmed']]);
    for (const id of [d2, i2]) assert.deepEqual([path(p, id, 2).stop, ...sr(path(p, id, 2)), path(p, id, 2).frontier_wal], ['gap-limited', 'unhealthy', 'coverage-gap-limited', wal(1, switchAt - 2)], id);
    assert.deepEqual(sr(summary(p).timeline), ['healthy', 'timelines-consistent']);
    notHealthy(p, 'wal', 'coverage');
  });

  it('2. a history the listing contradicts (the switch after segments timeline 2 already has): timeline and the paths across it are not healthy', async () => {
    const stored = await read(historyKey());
    assert.equal(stored.toString('utf8'), pg.history2, 'plain text, as PostgreSQL wrote it');
    // Timeline 2 has segments from the switch's on; a switch declared at one halfway along them is contradicted by those before it.
    await copy.put(historyKey(), pg.history2.replace(pg.main.switchLsn, lsnAt(contradictedAt, switchOffset)));
    const { publication: p } = await copy.scan(options);
    assert.deepEqual(sr(summary(p).timeline), ['unhealthy', 'timeline-history-contradicted']);
    assert.deepEqual(sr(capability(p, 'timeline-history-traversal')), ['unhealthy', 'timeline-history-contradicted']);
    for (const id of timeline1) assert.deepEqual([path(p, id, 2).stop, ...sr(path(p, id, 2))], ['unknown-limited', 'unknown', 'coverage-history-contradicted'], id);
    // Along their own timeline, timeline 2's backups need no history.
    for (const id of timeline2) assert.deepEqual(sr(path(p, id, 2)), ['healthy', 'coverage-to-frontier'], id);
    assert.deepEqual(gaps(p), [[1, wal(1, lost), wal(1, lost), 'candidate']]);
    assert.deepEqual(sr(summary(p).coverage), ['warning', 'coverage-path-wal-lost']);
    assert.deepEqual(sr(p.snapshot), ['unhealthy', 'timeline-history-contradicted']);
    notHealthy(p, 'timeline', 'coverage');
  });

  it('3. timeline 2 with its history and no segment: not covered, and less evidence never improves the verdict', async () => {
    for (const name of timeline2Wal) await copy.remove(segmentKey(name));
    const fresh = (await copy.scan(options)).publication;
    assert.ok(!fresh.walRanges.some((r) => r.timeline === 2), 'no timeline-2 segment left');
    for (const id of [d2, i2]) assert.deepEqual([path(fresh, id, 2).stop, ...sr(path(fresh, id, 2))], ['frontier', 'unknown', 'target-timeline-not-archived'], id);
    // F2 stops before, at the lost segment (a candidate in a first generation).
    assert.deepEqual([path(fresh, f2, 2).stop, ...sr(path(fresh, f2, 2))], ['candidate-limited', 'warning', 'coverage-candidate-limited']);
    // Timeline 2's backups need WAL no one archived yet: not usable, and their paths never reach consistency.
    for (const id of timeline2) assert.deepEqual(sr(backup(fresh, id)), ['unknown', 'required-wal-not-yet-archived'], id);
    for (const id of timeline2) assert.deepEqual([path(fresh, id, 2).stop, ...sr(path(fresh, id, 2))], ['frontier', 'unknown', 'consistency-not-reached'], id);
    assert.deepEqual(sr(summary(fresh).coverage), ['unknown', 'coverage-target-not-archived']);
    // An hour of the store's clock after the history file, still nothing: the timeline's WAL is lost.
    const old = (await copy.scan({ ...options, gapSettle: AT_ONCE })).publication;
    for (const id of [d2, i2]) assert.deepEqual([path(old, id, 2).stop, ...sr(path(old, id, 2))], ['gap-limited', 'unhealthy', 'target-timeline-wal-missing'], id);
    assert.deepEqual([path(old, f2, 2).stop, ...sr(path(old, f2, 2))], ['gap-limited', 'unhealthy', 'coverage-gap-limited']);
    assert.deepEqual(sr(summary(old).coverage), ['unhealthy', 'coverage-target-wal-missing']);
    assert.deepEqual(sr(summary(old).wal), ['unhealthy', 'wal-timeline-not-archived']);
    // …and the WAL timeline 2's own backups need is as lost as the timeline's (D-88): missing, not pending.
    for (const id of timeline2) assert.deepEqual(sr(backup(old, id)), ['unhealthy', 'required-wal-missing'], id);
    notHealthy(old, 'wal', 'coverage');
    await copy.restore();
    // With some timeline-2 segments but its head lost (case 1), the same repository is no worse.
    await copy.remove(segmentKey(pg.main.firstTimeline2Wal));
    const some = (await copy.scan({ ...options, gapSettle: AT_ONCE })).publication;
    for (const part of ['wal', 'coverage'] as const) assert.ok(SEVERITY[summary(old)[part].state] >= SEVERITY[summary(some)[part].state], `${part}: fewer segments, no better`);
    assert.ok(SEVERITY[old.snapshot.state] >= SEVERITY[some.snapshot.state], 'top: fewer segments, no better');
  });

  it('4. a second database system id in the stanza (backup.info against archive.info): every conclusion that attributes WAL to a system is unknown', async () => {
    const text = (await read(backupInfo)).toString('latin1');
    assert.equal(seal(text), text, 'the seal reproduces the checksum pgBackRest wrote');
    assert.equal(text.split(pg.main.systemId).length - 1, 2, 'db-system-id in [db] and in [db:history]');
    // [db] and its history entry agree on the other id; archive.info keeps the real one. pgBackRest
    // loads backup.info.copy when backup.info fails: both are the edited file, with a valid checksum.
    const other = '7000000000000000001';
    const edited = seal(text.replaceAll(pg.main.systemId, other));
    assert.notEqual(edited, text.replaceAll(pg.main.systemId, other), 'the checksum changed with the content');
    await copy.put(backupInfo, edited);
    await copy.put(`${backupInfo}.copy`, edited);
    const { publication: p } = await copy.scan(options);
    assert.deepEqual(sr(summary(p).wal), ['unknown', 'multiple-system-ids']);
    for (const id of [...timeline1, ...timeline2]) assert.deepEqual([backup(p, id).system_id, ...sr(backup(p, id))], [other, 'unknown', 'required-wal-system-ambiguous'], id);
    assert.ok(p.recoveryPaths.length > 0);
    for (const r of p.recoveryPaths) assert.deepEqual(sr(r), ['unknown', 'coverage-system-ambiguous'], `${r.backup_id} to ${r.target_timeline}`);
    assert.deepEqual(sr(summary(p).coverage), ['unknown', 'multiple-system-ids']);
    // The chains are about artifacts: every backup a diff or incr depends on is whole, whatever its WAL.
    assert.deepEqual(sr(capability(p, 'dependency-chain-validation')), ['healthy', 'dependency-chains-complete']);
    for (const id of ['observed-recovery-coverage', 'structural-artifact-validation', 'wal-continuity']) assert.deepEqual(sr(capability(p, id)), ['unknown', 'multiple-system-ids'], id);
    assert.deepEqual(sr(p.snapshot), ['unknown', 'multiple-system-ids']);
  });

  it('5. a stanza whose status is behind the cipher: no backup is proven, and neither the structure nor the top level is healthy', async () => {
    // Nothing is edited: stanza `encrypted` is read where pgBackRest wrote it (read-only).
    const { base, roots } = stanzaRepository.scopeRoots(pg.prefix, pg.encrypted.stanza);
    const { publication: p } = await copy.scan({ format: stanzaRepository, scope: pg.encrypted.stanza, root: base, roots });
    const ids = [...pg.encrypted.full, ...pg.encrypted.diff, ...pg.encrypted.incr];
    assert.deepEqual(p.backups.map((b) => b.backup_id).sort(), [...ids].sort());
    for (const id of ids) assert.deepEqual([backup(p, id).status, backup(p, id).encryption, ...sr(backup(p, id))], [null, 'aes-256-cbc', 'unknown', 'backup-metadata-encrypted'], id);
    // Each holds backup.manifest, written only at completion: counted as completed.
    assert.equal(summary(p).retention.visible_backups, ids.length);
    assert.deepEqual(sr(capability(p, 'structural-artifact-validation')), ['unhealthy', 'no-usable-backup']);
    assert.deepEqual(sr(p.snapshot), ['unhealthy', 'no-usable-backup']);
    assert.deepEqual(sr(capability(p, 'encrypted-metadata')), ['unknown', 'metadata-encrypted']);
    assert.deepEqual(sr(summary(p).wal), ['unknown', 'wal-segment-size-unknown']);
  });

  it('5. backup.info and its copy unreadable (0 bytes): the backups with a manifest count as completed for the summaries', async () => {
    const before = (await copy.scan(options)).publication;
    assert.deepEqual(sr(capability(before, 'structural-artifact-validation')), ['healthy', 'backups-usable']);
    await copy.put(backupInfo, Buffer.alloc(0));
    await copy.put(`${backupInfo}.copy`, Buffer.alloc(0));
    const { publication: p } = await copy.scan(options);
    for (const id of [...timeline1, ...timeline2]) assert.deepEqual([backup(p, id).status, ...sr(backup(p, id))], [null, 'unknown', 'backup-catalog-unreadable'], id);
    // The killed full has backup.manifest.copy alone: interrupted, not completed.
    assert.deepEqual([backup(p, pg.main.interrupted).status, ...sr(backup(p, pg.main.interrupted))], ['INTERRUPTED', 'unknown', 'backup-interrupted']);
    assert.equal(summary(p).retention.visible_backups, timeline1.length + timeline2.length);
    assert.equal(stanzaRepositoryFacts(p.snapshot.details)?.backup_types, null, 'types of listed backups unknown, never zero');
    assert.deepEqual(sr(capability(p, 'catalog-listing')), ['warning', 'catalog-incomplete']);
    assert.deepEqual(sr(capability(p, 'structural-artifact-validation')), ['unhealthy', 'no-usable-backup']);
    assert.deepEqual(sr(p.snapshot), ['unhealthy', 'no-usable-backup']);
  });

  it('6. a recovery window is met only by an older backup whose own path reaches the newest frontier', async () => {
    // Where the window starts is the test's choice: placed by the backups' own end times.
    const plain = (await copy.scan(options)).publication;
    const end = (id: string) => Date.parse(backup(plain, id).end_at ?? '');
    const [lastOnTimeline1, firstOnTimeline2] = [Math.max(...timeline1.map(end)), Math.min(...timeline2.map(end))];
    assert.ok(lastOnTimeline1 < firstOnTimeline2, 'timeline 1 backups ended before timeline 2 ones');
    // The window starts between I2's end and F3's: F2, D2 and I2 completed before it, F3 and I3 after.
    const startedAt = new Date(lastOnTimeline1 + (firstOnTimeline2 - lastOnTimeline1) / 2 + 86_400_000);
    const expectations = { policyText: 'RECOVERY WINDOW OF 1 DAYS', policy: { kind: 'recovery-window', amount: 1, unit: 'days' }, minimumRedundancy: null } as const;
    const met = (await copy.scan({ ...options, expectations, startedAt })).publication;
    // D2 and I2 reach the newest frontier on timeline 2 (F2 stops at the candidate lost segment).
    for (const id of [d2, i2]) assert.deepEqual([path(met, id, 2).stop, path(met, id, 2).state], ['frontier', 'healthy'], id);
    assert.deepEqual(sr(summary(met).coverage), ['healthy', 'coverage-to-frontier']);
    assert.deepEqual(sr(summary(met).retention), ['healthy', 'retention-met']);
    // Timeline 2's head lost: every timeline-1 backup stops on its way to timeline 2; only F3 and I3 (inside the window) reach it.
    await copy.remove(segmentKey(pg.main.firstTimeline2Wal));
    const { publication: p } = await copy.scan({ ...options, expectations, startedAt });
    for (const id of timeline1) assert.equal(backup(p, id).state, 'healthy', id);
    for (const id of [d2, i2]) assert.equal(path(p, id, 2).stop, 'candidate-limited', id);
    assert.deepEqual(sr(summary(p).retention), ['warning', 'recovery-window-not-covered']);
    assert.deepEqual(sr(capability(p, 'retention-expectation-comparison')), ['warning', 'recovery-window-not-covered']);
    assert.notEqual(p.snapshot.state, 'healthy');
  });

  it('7. a segment stored under two checksums: archive-get refuses it, so the position is missing for the backup that needs it', async () => {
    // D2 needs its archive start through its stop; a second copy of the stop segment with another
    // SHA-1 in its name, of a size a gzip segment can have, so only the two checksums make it unrestorable.
    // Its neighbours are archived (before: after the deleted segment's successor, before the switch's predecessor).
    assert.ok(lost + 1 < d2Stop && d2Stop + 1 < switchAt);
    const name = wal(1, d2Stop);
    const key = segmentKey(name);
    const body = Buffer.alloc(20_000, 7);
    const sha = createHash('sha1').update(body).digest('hex');
    assert.ok(!key.includes(sha));
    await copy.put(`${key.slice(0, key.lastIndexOf('/') + 1)}${name}-${sha}.gz`, body);
    const { evidence, publication: p } = await copy.scan(options);
    assert.deepEqual([evidence.unrestorableSegments, evidence.implausibleSegments, evidence.walCounts.duplicate], [1, 0, 1]);
    assert.deepEqual(gaps(p), [[1, wal(1, lost), wal(1, lost), 'candidate'], [1, wal(1, d2Stop), wal(1, d2Stop), 'candidate']]);
    assert.deepEqual(sr(backup(p, d2)), ['unknown', 'required-wal-candidate-gap']);
    // F2 needs none of D2's WAL; I2 depends on D2's artifacts, not on its consistency WAL.
    for (const id of [f2, i2]) assert.deepEqual(sr(backup(p, id)), ['healthy', 'structurally-usable'], id);
    // The gap rule comes before the copy rule in the WAL state: a gap is the graver finding.
    assert.deepEqual(sr(summary(p).wal), ['warning', 'wal-gap-candidate']);
    assert.deepEqual(sr(capability(p, 'structural-artifact-validation')), ['unknown', 'completed-backup-unknown']);
    notHealthy(p, 'wal');
    // Once the archive has moved past it, the position is lost WAL.
    const { publication: confirmed } = await copy.scan({ ...options, gapSettle: AT_ONCE });
    assert.deepEqual(sr(backup(confirmed, d2)), ['unhealthy', 'required-wal-missing']);
    assert.deepEqual(sr(summary(confirmed).wal), ['unhealthy', 'wal-gap-confirmed']);
    assert.deepEqual(sr(capability(confirmed, 'structural-artifact-validation')), ['unhealthy', 'completed-backup-unhealthy']);
  });

  it("8. a receipt after the store's own clock: the lag is unknown with its own reason, and the gap it follows is confirmed on the store's clock", async () => {
    const proxy = await startFaultProxy(pg.endpoint);
    try {
      // The segment after the lost one is listed as received a year from now.
      const successor = segmentKey(wal(1, lost + 1)).split('/').at(-1) ?? '';
      const future = new Date(Date.now() + 365 * 86_400_000).toISOString();
      let rewritten = 0;
      proxy.inject((r) => r.method === 'GET' && r.query.has('list-type'), {
        kind: 'rewrite-body',
        rewrite: (body) =>
          body.replace(new RegExp(`(<Key>[^<]*${successor}</Key>\\s*<LastModified>)[^<]*(</LastModified>)`), (_, open: string, close: string) => {
            rewritten += 1;
            return `${open}${future}${close}`;
          }),
      });
      const expectations = { policyText: null, policy: null, minimumRedundancy: null, maxArchiveLagSeconds: 3600 };
      const o = { ...options, endpoint: proxy.url, expectations, gapSettle: { settleMs: 1_500, longSettleMs: 3_600_000 } };
      const publisher = copy.publisher(o);
      const first = await copy.scan(o, publisher);
      assert.ok(rewritten >= 1, 'the listing carried the future receipt');
      assert.equal(archiveLagSeconds(first.evidence), null);
      assert.equal(archiveLagUnknownReason(first.evidence), 'receipt-after-store-clock');
      assert.deepEqual(sr(summary(first.publication).wal), ['unknown', 'archive-receipt-after-store-clock']);
      assert.equal(first.publication.walGaps.find((g) => g.first_wal === wal(1, lost))?.status, 'candidate');
      // The store's clock moves on past the first observation: the future stamp holds it no longer.
      await sleep(3_500);
      const second = await copy.scan(o, publisher);
      const gap = second.publication.walGaps.find((g) => g.first_wal === wal(1, lost));
      assert.deepEqual([gap?.status, gap?.first_observed_generation, gap?.last_observed_generation], ['confirmed', 1, 2]);
      // The lag stays unknown; the confirmed gap is the graver finding of the WAL state now.
      assert.equal(archiveLagUnknownReason(second.evidence), 'receipt-after-store-clock');
      assert.deepEqual(sr(summary(second.publication).wal), ['unhealthy', 'wal-gap-confirmed']);
    } finally {
      await proxy.close();
    }
  });

  it("9. an archive that stopped: a gap whose successor was received long before the store's clock is confirmed in the first generation", async () => {
    // The successor received again, now the newest object: "the archive moved on past it" by
    // receipts alone can never hold; only the store's clock can say the hole is old.
    await copy.touch(segmentKey(wal(1, lost + 1)));
    await sleep(3_500);
    const { publication: p } = await copy.scan({ ...options, gapSettle: { settleMs: 5 * 60_000, longSettleMs: 2_000 } });
    const gap = p.walGaps.find((g) => g.first_wal === wal(1, lost));
    assert.deepEqual([gap?.status, p.snapshot.evidence_generation], ['confirmed', 1]);
    assert.deepEqual(sr(summary(p).wal), ['unhealthy', 'wal-gap-confirmed']);
  });
});
