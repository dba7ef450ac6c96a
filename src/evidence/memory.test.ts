/**
 * The memory between generations as a document (memory.ts): the precompiled validators are what
 * the schemas generate; a memory survives its document exactly (round trip, canonical); a document
 * of another destination, format or server, of another version, damaged, truncated at any byte, or
 * contradicting itself is refused whole with its typed reason. And the property the document exists
 * for: generations that restart from it between every scan publish exactly what one long-running
 * process publishes (but for the revision), for each rule of evidence over time: a confirmed gap
 * stays confirmed with its first observed generation, a loss at the newest end stays
 * `wal-frontier-regressed`, a vanished loss stays `wal-gap-vanished`, an unexplained hole stays
 * unexplained, and the generation count goes on.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { archiveCloud } from '../format/barman-cloud/format.ts';
import { SyntheticRepository } from '../format/barman-cloud/synthetic-repository.ts';
import type { Publication, Publisher } from '../publication/publisher.ts';
import { confine } from '../store/confined.ts';
import { MemoryStore } from '../store/memory/memory-driver.ts';
import { requireCommonSummary } from '../contract/details-view.ts';
import { BudgetMeter } from './listing.ts';
import { freshMemory, memoryDocument, parseMemory, readMemory, serializeMemory, type EvidenceMemory, type MemoryIdentity } from './memory.ts';
import { MEMORY_VALIDATOR_MODULE, memoryValidatorSource } from './memory-validator-build.ts';
import { scanScope } from './scope-scan.ts';
import { DB_CLUSTER, testPublisher } from '../../test/support/publication-fixture.ts';

const ROOT_DIR = join(import.meta.dirname, '..', '..');
const IDENTITY: MemoryIdentity = { fingerprint: `sha256:${'5'.repeat(64)}`, format: 'archive-cloud', server: 'pg-main' };
const T0 = Date.parse('2026-11-21T10:00:00Z');
const at = (minutes: number) => new Date(T0 + minutes * 60_000);

/** A memory with every kind of part: two timelines' frontiers, gaps of each status and class (one vanished), backups. */
const SAMPLE: EvidenceMemory = {
  identity: IDENTITY,
  generation: 7,
  gaps: [
    { timeline: 2, start: 40, end: 41, firstObservedGeneration: 7, lastObservedGeneration: 7, firstObservedAt: null, status: 'candidate', class: 'unexplained' },
    { timeline: 1, start: 12, end: 12, firstObservedGeneration: 3, lastObservedGeneration: 7, firstObservedAt: Date.parse('2026-11-21T10:04:05.123Z'), status: 'confirmed', class: 'unexplained' },
    { timeline: 1, start: 3, end: 8, firstObservedGeneration: 1, lastObservedGeneration: 7, firstObservedAt: T0, status: 'confirmed', class: 'retention-expected' },
    { timeline: 1, start: 20, end: 20, firstObservedGeneration: 2, lastObservedGeneration: 5, firstObservedAt: T0, status: 'confirmed', class: 'unexplained' },
  ],
  frontiers: { segmentSize: 16 << 20, last: new Map([[2, 45], [1, 30]]) },
  completedBackups: new Set(['20261121T101000', '20261121T100100']),
};

const sortedGaps = (m: EvidenceMemory) => [...m.gaps].sort((a, b) => a.timeline - b.timeline || a.start - b.start);
const text = (change: (d: Record<string, unknown> & ReturnType<typeof memoryDocument>) => void) => {
  const d = JSON.parse(serializeMemory(SAMPLE)) as Record<string, unknown> & ReturnType<typeof memoryDocument>;
  change(d);
  return JSON.stringify(d);
};
const refusal = (t: string, identity: MemoryIdentity = IDENTITY) => {
  const r = parseMemory(t, identity);
  return r.ok ? 'accepted' : r.reason;
};

describe('the memory document', () => {
  it('its validators are committed exactly as generated (npm run contract after a change)', () => {
    assert.equal(readFileSync(join(ROOT_DIR, MEMORY_VALIDATOR_MODULE), 'utf8'), memoryValidatorSource(), `${MEMORY_VALIDATOR_MODULE} is out of date`);
  });

  it('round trip: the memory read back is the memory written, and its document is canonical', () => {
    const r = parseMemory(serializeMemory(SAMPLE), IDENTITY);
    assert.ok(r.ok);
    assert.deepEqual(r.memory, { ...SAMPLE, gaps: sortedGaps(SAMPLE) });
    assert.equal(serializeMemory(r.memory), serializeMemory(SAMPLE));
    const d = memoryDocument(SAMPLE);
    assert.deepEqual([d.kind, d.version, d.generation, d.segment_size_bytes], ['EvidenceMemory', 1, 7, 16 << 20]);
    assert.deepEqual(d.identity, { destination_fingerprint: IDENTITY.fingerprint, format: 'archive-cloud', server: 'pg-main' });
    assert.deepEqual(d.frontiers, [{ timeline: 1, last_position: 30 }, { timeline: 2, last_position: 45 }]);
    assert.deepEqual(d.gaps.map((g) => [g.timeline, g.start_position]), [[1, 3], [1, 12], [1, 20], [2, 40]]);
    assert.equal(d.gaps[1]?.first_observed_at, '2026-11-21T10:04:05.123Z');
    assert.deepEqual(d.completed_backups, ['20261121T100100', '20261121T101000']);
    // Without a geometry ever known: no segment size, no frontiers.
    const none = parseMemory(serializeMemory({ ...SAMPLE, frontiers: null }), IDENTITY);
    assert.ok(none.ok && none.memory.frontiers === null);
  });

  it('only a complete generation is remembered: a fresh memory has no document', () => {
    assert.throws(() => memoryDocument(freshMemory(IDENTITY)), /complete generation/);
  });

  it('refuses a memory of another destination, format or server', () => {
    const good = serializeMemory(SAMPLE);
    assert.equal(refusal(good), 'accepted');
    assert.equal(refusal(good, { ...IDENTITY, fingerprint: `sha256:${'6'.repeat(64)}` }), 'other-destination');
    assert.equal(refusal(good, { ...IDENTITY, format: 'stanza-repository' }), 'other-format');
    assert.equal(refusal(good, { ...IDENTITY, server: 'pg-other' }), 'other-server');
  });

  it('refuses a truncated document at every length, and damaged bytes, whole', () => {
    const good = serializeMemory(SAMPLE);
    for (let n = 0; n < good.length; n++) {
      const r = refusal(good.slice(0, n));
      assert.notEqual(r, 'accepted', `a document cut at byte ${n} was accepted`);
    }
    assert.equal(refusal(''), 'not-json');
    assert.equal(refusal(good.replace('"gaps":[', '"gaps":[[')), 'not-json');
    assert.equal(refusal(good.replace('"candidate"', '"candidat"')), 'schema');
    assert.equal(refusal(good.replace('"generation":7', '"generation":"7"')), 'schema');
  });

  it('refuses what is not a memory, another version, and what its schema refuses', () => {
    assert.equal(refusal('[]'), 'not-memory');
    assert.equal(refusal('null'), 'not-memory');
    // The memory an earlier viewer wrote into its scan documents (D-71's first shape).
    assert.equal(refusal(JSON.stringify({ segment_size_bytes: 16 << 20, frontiers: [], vanished_gaps: [] })), 'not-memory');
    assert.equal(refusal(text((d) => (d.version = 2 as 1))), 'other-version');
    assert.equal(refusal(text((d) => delete (d as Record<string, unknown>)['version'])), 'other-version');
    const schema: ((d: Record<string, unknown> & ReturnType<typeof memoryDocument>) => void)[] = [
      (d) => (d['extra'] = true),
      (d) => delete (d as Record<string, unknown>)['completed_backups'],
      (d) => (d.generation = 0),
      (d) => (d.generation = 1.5),
      (d) => (d.segment_size_bytes = 1000 as 1048576),
      (d) => (d.identity = { ...d.identity, destination_fingerprint: 's3://bucket/prefix' }),
      (d) => (d.identity = { ...d.identity, server: 'pg/main' }),
      (d) => (d.frontiers[0] = { timeline: 0, last_position: 3 }),
      (d) => (d.frontiers[0] = { timeline: 1, last_position: -1 }),
      (d) => (d.gaps[0] = { ...d.gaps[0]!, status: 'lost' as 'confirmed' }),
      (d) => (d.gaps[0] = { ...d.gaps[0]!, class: 'fine' as 'unexplained' }),
      (d) => (d.gaps[0] = { ...d.gaps[0]!, first_observed_at: '1970-01-01T00:00:00Z' }),
      (d) => (d.gaps[0] = { ...d.gaps[0]!, first_observed_generation: 0 }),
      (d) => (d.completed_backups = ['../etc/passwd']),
    ];
    for (const [i, change] of schema.entries()) assert.equal(refusal(text(change)), 'schema', `schema case ${i}`);
  });

  it('refuses a memory whose parts contradict each other', () => {
    const inconsistent: ((d: ReturnType<typeof memoryDocument>) => void)[] = [
      (d) => (d.segment_size_bytes = null),
      (d) => d.frontiers.reverse(),
      (d) => d.frontiers.push({ timeline: 2, last_position: 50 }),
      (d) => d.gaps.reverse(),
      (d) => (d.gaps[0] = { ...d.gaps[0]!, start_position: 9, end_position: 8 }),
      (d) => (d.gaps[0] = { ...d.gaps[0]!, end_position: 12 }),
      (d) => (d.gaps[1] = { ...d.gaps[1]!, first_observed_generation: 7, last_observed_generation: 6 }),
      (d) => (d.gaps[1] = { ...d.gaps[1]!, last_observed_generation: 8 }),
      (d) => d.completed_backups.reverse(),
      (d) => d.completed_backups.push('20261121T101000'),
    ];
    for (const [i, change] of inconsistent.entries()) assert.equal(refusal(text(change)), 'inconsistent', `inconsistent case ${i}`);
  });

  it('readMemory takes a parsed document as parseMemory takes its text', () => {
    assert.deepEqual(readMemory(JSON.parse(serializeMemory(SAMPLE)), IDENTITY), parseMemory(serializeMemory(SAMPLE), IDENTITY));
  });
});

// Restarts: each generation in a process of its own, starting from the document the last one wrote.

const ROOT = 'pg/pg-main/';
const segmentKey = (position: number) => `${ROOT}wals/0000000100000000/0000000100000000${position.toString(16).toUpperCase().padStart(8, '0')}`;

function newPublisher(): Publisher {
  return testPublisher({ identity: { cluster: DB_CLUSTER, fingerprint: IDENTITY.fingerprint, server: 'pg-main' }, freshnessMs: 900_000 });
}

/**
 * Two ways to run successive generations over one store: one long-running publisher, and a
 * publisher per generation that starts from the memory document the previous one's memory became.
 * Each step returns both publications; they must be the same but for the revision.
 */
function twoWays(store: MemoryStore) {
  const longRunning = newPublisher();
  let document: string | null = null;
  let minute = 300;
  const generation = async (p: Publisher): Promise<Publication> => {
    const e = await scanScope({ format: archiveCloud, server: 'pg-main', root: ROOT, driver: confine(store, ROOT), signal: new AbortController().signal, meter: new BudgetMeter({ maxPages: 1e4, maxObjects: 1e7 }), concurrency: 2, ...p.nextScan });
    const pub = p.complete(e, { startedAt: at(minute), finishedAt: at(minute + 1), pages: 1, objects: e.objectCount });
    assert.deepEqual(pub.violations, []);
    assert.equal(pub.snapshot.completeness, 'complete');
    return pub;
  };
  return async () => {
    minute += 10;
    const restarted = newPublisher();
    if (document !== null) {
      const read = parseMemory(document, restarted.memoryIdentity);
      assert.ok(read.ok, read.ok ? '' : read.reason);
      restarted.remember(read.memory);
      // Before its first scan a restarted process publishes generation 0, as any new process.
      assert.equal(restarted.current.generation, 0);
    }
    const fresh = await generation(restarted);
    const kept = await generation(longRunning);
    document = serializeMemory(restarted.memory);
    assert.equal(document, serializeMemory(longRunning.memory), 'the same memory either way');
    const strip = (p: Publication) => ({ ...p.snapshot, revision: 0 });
    assert.deepEqual(strip(fresh), strip(kept), 'the same snapshot but for the revision');
    assert.deepEqual([fresh.walGaps, fresh.backups, fresh.walRanges, fresh.recoveryPaths], [kept.walGaps, kept.backups, kept.walRanges, kept.recoveryPaths]);
    const wal = requireCommonSummary(fresh.snapshot.details).wal;
    return { p: fresh, wal: [wal.state, wal.reason.code] as const };
  };
}

describe('a process restarted between every generation continues as one long-running process', () => {
  it('a confirmed gap stays confirmed with its first observed generation; the generation count goes on', async () => {
    const store = new MemoryStore();
    const repo = new SyntheticRepository(store, ROOT);
    // 30 minutes of WAL, the segment after the hole 9 minutes before the newest: confirmed on the
    // second look (the five-minute rule), never by the hour rule.
    repo.segments(1, 1, 30, at(1), { missing: [21] });
    repo.backup({ id: '20261121T100500', timeline: 1, beginPosition: 5, endPosition: 6, beginTime: at(5), endTime: at(5.5) });
    const next = twoWays(store);
    const gaps = (p: Publication) => p.walGaps.map((g) => [g.first_wal, g.status, g.first_observed_generation, g.last_observed_generation]);
    const g1 = await next();
    assert.deepEqual([g1.p.generation, gaps(g1.p), g1.wal], [1, [['000000010000000000000015', 'candidate', 1, 1]], ['warning', 'wal-gap-candidate']]);
    const g2 = await next();
    assert.deepEqual([g2.p.generation, gaps(g2.p), g2.wal], [2, [['000000010000000000000015', 'confirmed', 1, 2]], ['unhealthy', 'wal-gap-confirmed']]);
    // Newer WAL arrives: the hole's successor is recent no more; it stays confirmed, first seen in 1.
    repo.segments(1, 31, 35, at(31));
    const g3 = await next();
    assert.deepEqual([g3.p.generation, gaps(g3.p), g3.wal], [3, [['000000010000000000000015', 'confirmed', 1, 3]], ['unhealthy', 'wal-gap-confirmed']]);
    // Filled: forgotten.
    repo.segment(1, 21, at(21));
    const g4 = await next();
    assert.deepEqual([g4.p.generation, gaps(g4.p), g4.wal], [4, [], ['healthy', 'wal-continuous']]);
  });

  it('WAL lost at the newest end stays wal-frontier-regressed until it comes back', async () => {
    const store = new MemoryStore();
    const repo = new SyntheticRepository(store, ROOT);
    repo.segments(1, 1, 25, at(1));
    repo.backup({ id: '20261121T100500', timeline: 1, beginPosition: 5, endPosition: 6, beginTime: at(5), endTime: at(5.5) });
    const next = twoWays(store);
    assert.deepEqual((await next()).wal, ['healthy', 'wal-continuous']);
    store.delete(segmentKey(25));
    assert.deepEqual((await next()).wal, ['unhealthy', 'wal-frontier-regressed']);
    assert.deepEqual((await next()).wal, ['unhealthy', 'wal-frontier-regressed'], 'a restart does not forget it');
    repo.segment(1, 25, at(25));
    assert.deepEqual((await next()).wal, ['healthy', 'wal-continuous']);
  });

  it('a confirmed loss whose neighbours vanished stays wal-gap-vanished', async () => {
    const store = new MemoryStore();
    const repo = new SyntheticRepository(store, ROOT);
    repo.segments(1, 1, 30, at(1), { missing: [2, 3] });
    repo.segment(1, 31, at(200));
    repo.backup({ id: '20261121T100100', timeline: 1, beginPosition: 1, endPosition: 1, beginTime: at(1), endTime: at(1.5) });
    repo.backup({ id: '20261121T101000', timeline: 1, beginPosition: 10, endPosition: 11, beginTime: at(10), endTime: at(10.5) });
    const next = twoWays(store);
    assert.deepEqual((await next()).wal, ['unhealthy', 'wal-gap-confirmed']);
    store.delete(segmentKey(1));
    const g = await next();
    assert.deepEqual([g.p.walGaps.length, g.wal], [0, ['unhealthy', 'wal-gap-vanished']]);
    assert.deepEqual((await next()).wal, ['unhealthy', 'wal-gap-vanished'], 'a restart does not forget it');
  });

  it('a confirmed loss that grows into the retention shape stays unexplained', async () => {
    const store = new MemoryStore();
    const repo = new SyntheticRepository(store, ROOT);
    repo.segments(1, 4, 31, at(4));
    repo.segment(1, 32, at(200));
    repo.backup({ id: '20261121T100400', timeline: 1, beginPosition: 4, endPosition: 5, beginTime: at(4), endTime: at(4.5), keep: 'standalone' });
    repo.backup({ id: '20261121T100700', timeline: 1, beginPosition: 7, endPosition: 7, beginTime: at(7), endTime: at(7.5) });
    repo.backup({ id: '20261121T101000', timeline: 1, beginPosition: 10, endPosition: 11, beginTime: at(10), endTime: at(10.5) });
    const next = twoWays(store);
    store.delete(segmentKey(8));
    store.delete(segmentKey(9));
    assert.deepEqual((await next()).wal, ['unhealthy', 'wal-gap-confirmed']);
    store.delete(segmentKey(6));
    store.delete(segmentKey(7));
    assert.deepEqual((await next()).wal, ['unhealthy', 'wal-gap-confirmed'], 'the shape of retention without a deleted backup is not retention');
  });
});
