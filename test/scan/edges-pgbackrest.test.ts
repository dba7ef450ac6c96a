/**
 * Issue 23, on the repository pgBackRest 2.45 and PostgreSQL 15 wrote (stanza `main`: timeline 1
 * with segment …0F deleted; a point-in-time restore onto timeline 2 at 0/17000090, timeline 1's
 * WAL going on through …17; the current backups F2, D2, I2 on timeline 1 and F3, I3 on timeline
 * 2; an interrupted full; stanza `encrypted` behind aes-256-cbc): a copy of stanza `main`'s two
 * areas in the same Swift store, one object edited after pgBackRest wrote it, scanned by the real
 * scanner through the real S3 driver and published as production does. The pgBackRest counterpart
 * of edges-barman.test.ts: for each case, the items say what the edit did and no summary is
 * healthier than its items (the publisher refuses a generation that disagrees:
 * `evidence/agreement.ts`). Receipt times are the copy's, so "an hour ago" is reached by shortening
 * the settle thresholds, never by waiting.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, afterEach, before, describe, it } from 'node:test';
import { GetObjectCommand } from '@aws-sdk/client-s3';
import { requireCommonSummary, stanzaRepositoryFacts } from '../../src/contract/details-view.ts';
import type { State } from '../../src/contract/primitives.ts';
import { archiveLagSeconds, archiveLagUnknownReason } from '../../src/evidence/summary.ts';
import { stanzaRepository } from '../../src/format/stanza-repository/format.ts';
import type { Publication } from '../../src/publication/publisher.ts';
import { pgbackrestRepository, type PgBackRestRepository } from '../support/pgbackrest-repositories.ts';
import { startFaultProxy } from '../support/fault-proxy.ts';
import { ScopeCopy, type ScanOptions } from '../support/scope-copy.ts';

const STANZA = 'main';
const SEVERITY: Record<State, number> = { healthy: 0, warning: 1, unknown: 2, unhealthy: 3 };
/** Every gap the archive moved past is confirmed at once: what an hour of the store's clock does. */
const AT_ONCE = { settleMs: 5 * 60_000, longSettleMs: 0 };

const summary = (p: Publication) => requireCommonSummary(p.snapshot.details);
const capability = (p: Publication, id: string) => {
  const c = p.snapshot.capabilities.find((x) => x.id === id);
  assert.ok(c, `capability ${id} is published`);
  return c;
};
const backup = (p: Publication, id: string) => {
  const b = p.backups.find((x) => x.backup_id === id);
  assert.ok(b, `backup ${id} is published`);
  return b;
};
const path = (p: Publication, id: string, target: number) => {
  const x = p.recoveryPaths.find((r) => r.backup_id === id && r.target_timeline === target);
  assert.ok(x, `a path from ${id} to timeline ${target}`);
  return x;
};
const sr = (s: { state: State; reason: { code: string } }) => [s.state, s.reason.code];
const gaps = (p: Publication) => p.walGaps.map((g) => [g.timeline, g.first_wal, g.last_wal, g.status]);
/** The named summaries, and the top level, are not healthy. */
function notHealthy(p: Publication, ...parts: ('wal' | 'timeline' | 'coverage')[]): void {
  assert.notEqual(p.snapshot.state, 'healthy');
  for (const part of parts) assert.notEqual(summary(p)[part].state, 'healthy', part);
}
/** A WAL name with 16 MiB segments (every position here is below 256: log 0). */
const wal = (tli: number, position: number) => `${tli.toString(16).toUpperCase().padStart(8, '0')}00000000${position.toString(16).toUpperCase().padStart(8, '0')}`;

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
  /** The key (relative to the repository root) under which pgBackRest stored a WAL segment: `<name>-<sha1>.<ext>`. */
  const segmentKey = (name: string) => {
    const under = `${pg.prefix}/archive/${STANZA}/${archiveId}/${name.slice(0, 16)}/${name}-`;
    const keys = pg.objects().map((o) => o.key).filter((k) => k.startsWith(under));
    assert.equal(keys.length, 1, `pgBackRest stored ${name} once`);
    return (keys[0] as string).slice(pg.prefix.length + 1);
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
    // The repository as the tests' facts describe it: F2, D2, I2 on timeline 1, F3, I3 on timeline
    // 2; the switch at 0/17000090, timeline 2's first segment …17; segment …0F of timeline 1 deleted.
    assert.deepEqual([...timeline1], [f2, d2, i2]);
    assert.deepEqual([...timeline2], [f3, i3]);
    assert.equal(pg.main.switchLsn, '0/17000090');
    assert.match(pg.history2, /^1\t0\/17000090\t/);
    assert.equal(pg.main.firstTimeline2Wal, wal(2, 0x17));
    assert.equal(pg.deletedWal, wal(1, 0x0f));
  });
  afterEach(() => copy.restore());
  after(() => copy?.dispose());

  it('the copy as pgBackRest left it: every backup but F2 reaches the newest WAL on timeline 2; the deleted segment is an unexplained gap', async () => {
    const fresh = (await copy.scan(options)).publication;
    assert.deepEqual(gaps(fresh), [[1, wal(1, 0x0f), wal(1, 0x0f), 'candidate']]);
    for (const id of [...timeline1, ...timeline2]) assert.deepEqual(sr(backup(fresh, id)), ['healthy', 'structurally-usable'], id);
    assert.deepEqual(sr(summary(fresh).coverage), ['healthy', 'coverage-to-frontier']);
    assert.deepEqual(sr(summary(fresh).wal), ['warning', 'wal-gap-candidate']);
    const { publication: p } = await copy.scan({ ...options, gapSettle: AT_ONCE });
    assert.deepEqual(gaps(p), [[1, wal(1, 0x0f), wal(1, 0x0f), 'confirmed']]);
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
    assert.deepEqual(gaps(candidate), [[1, wal(1, 0x0f), wal(1, 0x0f), 'candidate'], [2, wal(2, 0x17), wal(2, 0x17), 'candidate']]);
    for (const id of [d2, i2]) assert.deepEqual([path(candidate, id, 2).stop, ...sr(path(candidate, id, 2))], ['candidate-limited', 'warning', 'coverage-candidate-limited'], id);
    assert.notEqual(summary(candidate).wal.state, 'healthy');
    const { publication: p } = await copy.scan({ ...options, gapSettle: AT_ONCE });
    // The head gap is an item of its own: timeline 2 from its switchpoint (…17) to before its first observed segment (…18).
    assert.deepEqual(gaps(p), [[1, wal(1, 0x0f), wal(1, 0x0f), 'confirmed'], [2, wal(2, 0x17), wal(2, 0x17), 'confirmed']]);
    for (const id of timeline1) assert.deepEqual([path(p, id, 2).stop, ...sr(path(p, id, 2))], ['gap-limited', 'unhealthy', 'coverage-gap-limited'], id);
    // D2 and I2 stop at the switch (the last position covered is timeline 1's …16), F2 earlier at the lost …0F.
    for (const id of [d2, i2]) assert.equal(path(p, id, 2).frontier_wal, wal(1, 0x16), id);
    assert.equal(path(p, f2, 2).frontier_wal, wal(1, 0x0e));
    // Timeline 2's own backups need nothing before …18.
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
    await copy.put(historyKey(), pg.history2.replace('0/17000090', '0/16000090'));
    const { publication: p } = await copy.scan({ ...options, gapSettle: AT_ONCE });
    assert.deepEqual(gaps(p), [[1, wal(1, 0x0f), wal(1, 0x0f), 'confirmed'], [2, wal(2, 0x16), wal(2, 0x16), 'confirmed']]);
    for (const id of [d2, i2]) assert.deepEqual([path(p, id, 2).stop, ...sr(path(p, id, 2)), path(p, id, 2).frontier_wal], ['gap-limited', 'unhealthy', 'coverage-gap-limited', wal(1, 0x15)], id);
    assert.deepEqual(sr(summary(p).timeline), ['healthy', 'timelines-consistent']);
    notHealthy(p, 'wal', 'coverage');
  });

  it('2. a history the listing contradicts (the switch after segments timeline 2 already has): timeline and the paths across it are not healthy', async () => {
    const stored = await read(historyKey());
    assert.equal(stored.toString('utf8'), pg.history2, 'plain text, as PostgreSQL wrote it');
    // Timeline 2 has segments …17 to …1E; a switch at …1A is contradicted by …17, …18, …19.
    await copy.put(historyKey(), pg.history2.replace('0/17000090', '0/1A000090'));
    const { publication: p } = await copy.scan(options);
    assert.deepEqual(sr(summary(p).timeline), ['unhealthy', 'timeline-history-contradicted']);
    assert.deepEqual(sr(capability(p, 'timeline-history-traversal')), ['unhealthy', 'timeline-history-contradicted']);
    for (const id of timeline1) assert.deepEqual([path(p, id, 2).stop, ...sr(path(p, id, 2))], ['unknown-limited', 'unknown', 'coverage-history-contradicted'], id);
    // Along their own timeline, timeline 2's backups need no history.
    for (const id of timeline2) assert.deepEqual(sr(path(p, id, 2)), ['healthy', 'coverage-to-frontier'], id);
    assert.deepEqual(gaps(p), [[1, wal(1, 0x0f), wal(1, 0x0f), 'candidate']]);
    assert.deepEqual(sr(summary(p).coverage), ['warning', 'coverage-path-wal-lost']);
    assert.deepEqual(sr(p.snapshot), ['unhealthy', 'timeline-history-contradicted']);
    notHealthy(p, 'timeline', 'coverage');
  });

  it('3. timeline 2 with its history and no segment: not covered, and less evidence never improves the verdict', async () => {
    for (let position = 0x17; position <= 0x1e; position++) await copy.remove(segmentKey(wal(2, position)));
    const fresh = (await copy.scan(options)).publication;
    assert.ok(!fresh.walRanges.some((r) => r.timeline === 2), 'no timeline-2 segment left');
    for (const id of [d2, i2]) assert.deepEqual([path(fresh, id, 2).stop, ...sr(path(fresh, id, 2))], ['frontier', 'unknown', 'target-timeline-not-archived'], id);
    // F2 stops before, at the lost …0F (a candidate in a first generation).
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
    // D2 and I2 reach the newest frontier on timeline 2 (F2 stops at the candidate …0F).
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
    // F2 needs …0C and …0D (its archive start and stop); a second …0D with another SHA-1 in its
    // name, of a size a gzip segment can have, so only the two checksums make it unrestorable.
    const name = wal(1, 0x0d);
    const stored = segmentKey(name);
    const body = Buffer.alloc(20_000, 7);
    const sha = createHash('sha1').update(body).digest('hex');
    assert.ok(!stored.includes(sha));
    await copy.put(`${stored.slice(0, stored.lastIndexOf('/') + 1)}${name}-${sha}.gz`, body);
    const { evidence, publication: p } = await copy.scan(options);
    assert.deepEqual([evidence.unrestorableSegments, evidence.implausibleSegments, evidence.walCounts.duplicate], [1, 0, 1]);
    assert.deepEqual(gaps(p), [[1, wal(1, 0x0d), wal(1, 0x0d), 'candidate'], [1, wal(1, 0x0f), wal(1, 0x0f), 'candidate']]);
    assert.deepEqual(sr(backup(p, f2)), ['unknown', 'required-wal-candidate-gap']);
    // D2 and I2 depend on F2's artifacts, not on its consistency WAL.
    for (const id of [d2, i2]) assert.deepEqual(sr(backup(p, id)), ['healthy', 'structurally-usable'], id);
    // The gap rule comes before the copy rule in the WAL state: a gap is the graver finding.
    assert.deepEqual(sr(summary(p).wal), ['warning', 'wal-gap-candidate']);
    assert.deepEqual(sr(capability(p, 'structural-artifact-validation')), ['unknown', 'completed-backup-unknown']);
    notHealthy(p, 'wal');
    // Once the archive has moved past it, the position is lost WAL.
    const { publication: confirmed } = await copy.scan({ ...options, gapSettle: AT_ONCE });
    assert.deepEqual(sr(backup(confirmed, f2)), ['unhealthy', 'required-wal-missing']);
    assert.deepEqual(sr(summary(confirmed).wal), ['unhealthy', 'wal-gap-confirmed']);
    assert.deepEqual(sr(capability(confirmed, 'structural-artifact-validation')), ['unhealthy', 'completed-backup-unhealthy']);
  });

  it("8. a receipt after the store's own clock: the lag is unknown with its own reason, and the gap it follows is confirmed on the store's clock", async () => {
    const proxy = await startFaultProxy(pg.endpoint);
    try {
      // The segment after the lost one is listed as received a year from now.
      const successor = segmentKey(wal(1, 0x10)).split('/').at(-1) ?? '';
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
      assert.equal(first.publication.walGaps.find((g) => g.first_wal === wal(1, 0x0f))?.status, 'candidate');
      // The store's clock moves on past the first observation: the future stamp holds it no longer.
      await sleep(3_500);
      const second = await copy.scan(o, publisher);
      const gap = second.publication.walGaps.find((g) => g.first_wal === wal(1, 0x0f));
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
    await copy.touch(segmentKey(wal(1, 0x10)));
    await sleep(3_500);
    const { publication: p } = await copy.scan({ ...options, gapSettle: { settleMs: 5 * 60_000, longSettleMs: 2_000 } });
    const gap = p.walGaps.find((g) => g.first_wal === wal(1, 0x0f));
    assert.deepEqual([gap?.status, p.snapshot.evidence_generation], ['confirmed', 1]);
    assert.deepEqual(sr(summary(p).wal), ['unhealthy', 'wal-gap-confirmed']);
  });
});
