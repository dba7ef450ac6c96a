/**
 * `viewer scan --previous`: the memory a scan's document carries (`observations.memory`, the memory
 * module's document), read back exactly (the continuation's memory equals what `Publisher.nextScan`
 * of a long-running process hands on: gaps, vanished losses, frontiers, completed backups, the
 * generation), a resumed publisher, and every refusal: the wire validator for the snapshot and the
 * items, the observations' schema, the memory module for the memory, and what ties them together.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { StoreError } from '../common/errors.ts';
import { BudgetMeter } from '../evidence/listing.ts';
import { memoryDocument } from '../evidence/memory.ts';
import { scanScope, type ScopeEvidence } from '../evidence/scope-scan.ts';
import { archiveCloud } from '../format/barman-cloud/format.ts';
import { SyntheticRepository } from '../format/barman-cloud/synthetic-repository.ts';
import type { Publication, Publisher } from '../publication/publisher.ts';
import { confine } from '../store/confined.ts';
import type { StoreDriver } from '../store/driver.ts';
import { MemoryStore } from '../store/memory/memory-driver.ts';
import { walName } from '../postgres/wal.ts';
import { scanDocument } from './commands/scan.ts';
import { loadPreviousScan, readPreviousScan, REFUSALS, type Continuation, type ExpectedScope } from './previous-scan.ts';
import { requireCommonSummary } from '../contract/details-view.ts';
import { DATABASES_CLUSTER, testPublisher } from '../../test/support/publication-fixture.ts';

const ROOT = 'p/pg-main/';
const T0 = Date.parse('2026-11-21T13:00:00Z');
const at = (min: number) => new Date(T0 + min * 60_000);
const FINGERPRINT = `sha256:${'a'.repeat(64)}`;
const EXPECTED: ExpectedScope = { fingerprint: FINGERPRINT, server: 'pg-main', provider: 'store-a', format: 'archive-cloud' };

function newPublisher(revisionBase = 0) {
  return testPublisher({ identity: { cluster: { ...DATABASES_CLUSTER, name: 'pg-main' }, fingerprint: FINGERPRINT, server: 'pg-main' }, freshnessMs: 15 * 60_000, revisionBase });
}

const scan = (driver: StoreDriver, p: Publisher): Promise<ScopeEvidence> =>
  scanScope({ format: archiveCloud, server: 'pg-main', root: ROOT, driver: confine(driver, ROOT), signal: new AbortController().signal, meter: new BudgetMeter({ maxPages: 100, maxObjects: 10_000 }), concurrency: 2, ...p.nextScan });

const attempt = (min: number) => ({ startedAt: at(min), finishedAt: at(min + 1), pages: 2, objects: 20 });

/** The document `viewer scan` prints; a run without a complete scan of its own prints the observations it continued from. */
function documentOf(p: Publication, evidence: ScopeEvidence | null, continuation: Continuation | null = null): string {
  return scanDocument(p, evidence, null, continuation?.observations ?? null);
}

/** One complete generation of `p` over `store`, and its document. */
async function generation(store: StoreDriver, p: Publisher, min: number, continuation: Continuation | null = null): Promise<{ publication: Publication; evidence: ScopeEvidence; text: string }> {
  const evidence = await scan(store, p);
  const publication = p.complete(evidence, attempt(min));
  assert.deepEqual(publication.violations, []);
  return { publication, evidence, text: documentOf(publication, p.evidence, continuation) };
}

function read(text: string, expected: ExpectedScope = EXPECTED): Continuation {
  const r = readPreviousScan(text, expected);
  assert.ok(r.ok, r.ok ? '' : r.reason);
  return r.continuation;
}

/** A document with its revision set aside: the one thing a resumed process numbers differently. */
function withoutRevision(text: string): Doc {
  const doc = JSON.parse(text) as Doc;
  return { ...doc, snapshot: { ...doc.snapshot, revision: 0 } };
}

/** The continuation hands on exactly what the long-running publisher's `nextScan` does, and so does a publisher resumed from it. */
function assertSameMemory(c: Continuation, p: Publisher) {
  const next = p.nextScan;
  assert.equal(c.generation, next.previous.generation);
  assert.deepEqual(c.memory, next.previous);
  const resumed = newPublisher();
  resumed.resume(c);
  assert.deepEqual(resumed.nextScan, next);
}

/** Segments 1..30 of timeline 1 a minute apart, 12 missing; a completed, a failed and an abandoned backup. */
function repository() {
  const store = new MemoryStore();
  const repo = new SyntheticRepository(store, ROOT);
  repo.segments(1, 1, 30, at(0), { missing: [12] });
  repo.backup({ id: '20261121T130100', timeline: 1, beginPosition: 2, endPosition: 3, beginTime: at(1), endTime: at(2) });
  repo.backup({ id: '20261121T130500', timeline: 1, beginPosition: 6, endPosition: 7, beginTime: at(5), endTime: at(6), status: 'FAILED' });
  repo.backup({ id: '20261121T131500', timeline: 1, beginPosition: 16, endPosition: 17, beginTime: at(15), endTime: at(16), withoutInfo: true });
  return { store, repo };
}

/** A valid generation-1 document with a gap (and its parsed form, to damage in tests). */
async function validDocument(): Promise<{ text: string; doc: Doc }> {
  const { store } = repository();
  const { text } = await generation(store, newPublisher(), 40);
  return { text, doc: JSON.parse(text) as Doc };
}

type Obj = Record<string, unknown>;
interface MemoryDoc extends Obj {
  identity: Obj;
  generation: number;
  segment_size_bytes: number | null;
  frontiers: Obj[];
  gaps: Obj[];
  completed_backups: string[];
}
interface Doc {
  snapshot: { revision: number; evidence_generation: number; identity: { repository: { scope: { name: string } } } } & Obj;
  backups: Obj[];
  wal_ranges: Obj[];
  wal_gaps: Obj[];
  recovery_paths: Obj[];
  observations: (Obj & { wal_gap_classes: Obj[]; memory: MemoryDoc }) | null;
}

function refused(text: string, reason: string, expected: ExpectedScope = EXPECTED) {
  const r = readPreviousScan(text, expected);
  assert.equal(r.ok, false, `accepted, expected: ${reason}`);
  if (!r.ok) assert.equal(r.reason, reason);
}

describe('observations.memory', () => {
  it('is the memory module\'s document of the generation: its scope, the gap, the frontier, the completed backups (DONE only)', async () => {
    const { store } = repository();
    const p = newPublisher();
    const { text } = await generation(store, p, 40);
    const memory = (JSON.parse(text) as Doc).observations?.memory;
    assert.deepEqual(memory, memoryDocument(p.memory));
    assert.deepEqual(memory, {
      kind: 'EvidenceMemory',
      version: 1,
      identity: { destination_fingerprint: FINGERPRINT, format: 'archive-cloud', server: 'pg-main' },
      generation: 1,
      segment_size_bytes: 16 << 20,
      frontiers: [{ timeline: 1, last_position: 30 }],
      gaps: [{ timeline: 1, start_position: 12, end_position: 12, first_observed_generation: 1, last_observed_generation: 1, first_observed_at: null, status: 'candidate', class: 'unexplained' }],
      completed_backups: ['20261121T130100'],
    });
  });
});

describe('readPreviousScan reads back exactly what a long-running process remembers', () => {
  it('after one generation: the gap with its class and generations, the frontier, the completed backups', async () => {
    const { store } = repository();
    const p = newPublisher();
    const { text, publication } = await generation(store, p, 40);
    const c = read(text);
    assert.equal(c.revision, publication.revision);
    assert.equal(c.generation, 1);
    assert.equal(c.completedAt, at(41).toISOString());
    assert.deepEqual([...c.memory.completedBackups], ['20261121T130100']);
    assert.deepEqual(c.memory.gaps, [{ timeline: 1, start: 12, end: 12, firstObservedGeneration: 1, lastObservedGeneration: 1, firstObservedAt: null, status: 'candidate', class: 'unexplained' }]);
    assertSameMemory(c, p);
  });

  it('after a loss vanished and a frontier regressed: the vanished loss and the high-water mark', async () => {
    const { store, repo } = repository();
    const p = newPublisher();
    // Segment 13 was received 17 minutes before the newest: confirmed only in an earlier generation.
    await generation(store, p, 40);
    const second = await generation(store, p, 45);
    assert.equal(second.publication.walGaps[0]?.status, 'confirmed');
    // Everything after the loss goes (no backup deleted): no gap any more, but a loss still.
    for (let pos = 13; pos <= 30; pos++) {
      const name = walName(1, pos, repo.geometry);
      store.delete(`${repo.root}wals/${name.slice(0, 16)}/${name}`);
    }
    const third = await generation(store, p, 50);
    assert.equal(third.evidence.vanishedGaps, 1);
    assert.equal(third.evidence.frontierRegressed, true);
    assert.deepEqual(third.publication.walGaps, []);
    const memory = memoryDocument(third.evidence.memory);
    // The vanished loss keeps the generations it was last observed in; the frontier its high-water mark.
    assert.deepEqual([memory.generation, memory.segment_size_bytes, memory.frontiers], [3, 16 << 20, [{ timeline: 1, last_position: 30 }]]);
    assert.deepEqual(memory.gaps.map((g) => [g.start_position, g.end_position, g.status, g.class, g.first_observed_generation, g.last_observed_generation]), [[12, 12, 'confirmed', 'unexplained', 1, 2]]);
    const c = read(third.text);
    assert.equal(c.generation, 3);
    assertSameMemory(c, p);
    // And one more generation on from each remembers the same again.
    const fourth = await generation(store, p, 55);
    const resumed = newPublisher();
    resumed.resume(c);
    const chained = await generation(store, resumed, 55, c);
    assert.deepEqual(chained.evidence.memory, fourth.evidence.memory);
    assert.equal(requireCommonSummary(chained.publication.snapshot.details).wal.reason.code, 'wal-frontier-regressed');
    assert.equal(chained.evidence.vanishedGaps, 1);
    assert.deepEqual(withoutRevision(chained.text), withoutRevision(fourth.text));
  });

  it('without a known geometry: no segment size, no frontiers', async () => {
    const store = new MemoryStore();
    const repo = new SyntheticRepository(store, ROOT);
    repo.segments(1, 1, 10, at(0), { missing: [5] });
    const p = newPublisher();
    const { evidence, text } = await generation(store, p, 40);
    assert.deepEqual([memoryDocument(evidence.memory).segment_size_bytes, memoryDocument(evidence.memory).frontiers], [null, []]);
    const c = read(text);
    assert.equal(c.memory.frontiers, null);
    assertSameMemory(c, p);
  });

  it('a failed run continues from the generation it retained, with its items and observations', async () => {
    const { store } = repository();
    const p = newPublisher();
    const first = await generation(store, p, 40);
    const failed = p.fail('throttled', attempt(45));
    const text = documentOf(failed, p.evidence);
    const c = read(text);
    assert.equal(c.generation, 1);
    assert.equal(c.revision, failed.revision);
    assert.deepEqual(c.observations, (JSON.parse(first.text) as Doc).observations);
    assertSameMemory(c, p);
    // A resumed run that fails too prints what the long-running process prints, but for the revision.
    const resumed = newPublisher();
    resumed.resume(c);
    const again = resumed.fail('unavailable', attempt(50));
    const longRunning = p.fail('unavailable', attempt(50));
    assert.deepEqual(again.violations, []);
    assert.deepEqual(withoutRevision(documentOf(again, resumed.evidence, c)), withoutRevision(documentOf(longRunning, p.evidence)));
    assert.ok(again.revision > c.revision);
    // And the document of that second failure continues as well.
    assertSameMemory(read(documentOf(again, resumed.evidence, c)), p);
  });

  it('a run with no complete generation carries only its revision', async () => {
    const failing: StoreDriver = { listPage: () => Promise.reject(new StoreError('unavailable', 'down')), read: () => Promise.reject(new StoreError('unavailable', 'down')), readStream: () => Promise.reject(new StoreError('unavailable', 'down')), close: () => undefined };
    const p = newPublisher(1000);
    await assert.rejects(scan(failing, p));
    const failed = p.fail('unavailable', attempt(40));
    const text = documentOf(failed, null);
    assert.equal((JSON.parse(text) as Doc).observations, null);
    const c = read(text);
    assert.equal(c.generation, 0);
    assert.equal(c.revision, 1001);
    assert.equal(c.observations, null);
    assertSameMemory(c, p);
    const resumed = newPublisher(0);
    resumed.resume(c);
    const { store } = repository();
    const { publication } = await generation(store, resumed, 45, c);
    assert.equal(publication.generation, 1);
    assert.equal(publication.revision, 1002);
  });
});

describe('Publisher.resume', () => {
  it('continues above the previous revision whichever base is greater, generation + 1, and keeps producer and cluster its own', async () => {
    const { text, doc } = await validDocument();
    const low = newPublisher(0);
    low.resume(read(text));
    assert.equal(low.current.revision, doc.snapshot.revision);
    assert.equal(low.nextScan.previous.generation, 1);
    const high = newPublisher(doc.snapshot.revision + 1000);
    high.resume(read(text));
    assert.equal(high.current.revision, doc.snapshot.revision + 1000);
    const { store } = repository();
    const next = await generation(store, low, 50);
    assert.equal(next.publication.revision, doc.snapshot.revision + 1);
    assert.equal(next.publication.generation, 2);

    const upgraded = testPublisher({
      identity: { cluster: { namespace: 'other', uid: '00000000-0000-0000-0000-000000000001', name: null }, fingerprint: FINGERPRINT, server: 'pg-main', producerVersion: '0.2.0' },
      freshnessMs: 15 * 60_000,
    });
    const current = upgraded.resume(read(text));
    assert.equal(current.snapshot.producer.version, '0.2.0');
    assert.equal(current.snapshot.identity.cluster.namespace, 'other');
    assert.deepEqual(current.walGaps, doc.wal_gaps);
  });

  it('only once, only before any attempt, only of its own scope', async () => {
    const { text } = await validDocument();
    const twice = newPublisher();
    twice.resume(read(text));
    assert.throws(() => twice.resume(read(text)), /before its first attempt/);
    const tried = newPublisher();
    tried.fail('unavailable', attempt(1));
    assert.throws(() => tried.resume(read(text)), /before its first attempt/);
    const other = testPublisher({ identity: { cluster: DATABASES_CLUSTER, fingerprint: `sha256:${'b'.repeat(64)}`, server: 'pg-main' }, freshnessMs: 15 * 60_000 });
    assert.throws(() => other.resume(read(text)), /of its own scope/);
  });
});

describe('readPreviousScan refuses, whole and with a fixed sentence', () => {
  const damage = async (reason: string, change: (d: Doc) => void, expected: ExpectedScope = EXPECTED) => {
    const { doc } = await validDocument();
    change(doc);
    refused(JSON.stringify(doc), reason, expected);
  };
  /** Damages the memory of a valid document. */
  const memory = (reason: string, change: (m: MemoryDoc) => void) => damage(reason, (d) => d.observations !== null && change(d.observations.memory));

  it('what is not a scan document', async () => {
    refused('', REFUSALS.notJson);
    refused('{"snapshot": ', REFUSALS.notJson);
    refused('viewer: scan failed', REFUSALS.notJson);
    refused('[]', REFUSALS.notDocument);
    refused('null', REFUSALS.notDocument);
    const { doc } = await validDocument();
    refused(JSON.stringify({ ...doc, extra: 1 }), REFUSALS.notDocument);
    const partial: Partial<Doc> = { ...doc };
    delete partial.observations;
    refused(JSON.stringify(partial), REFUSALS.notDocument);
    refused(JSON.stringify({ ...doc, backups: {} }), REFUSALS.notDocument);
    refused(JSON.stringify({ ...doc, snapshot: { ...doc.snapshot, state: 'fine' } }), REFUSALS.snapshot);
    refused(JSON.stringify({ ...doc, snapshot: null }), REFUSALS.snapshot);
  });

  it('a document of another format, provider, destination or server', async () => {
    const { text } = await validDocument();
    refused(text, REFUSALS.format, { ...EXPECTED, format: 'stanza-repository' });
    refused(text, REFUSALS.provider, { ...EXPECTED, provider: 'store-b' });
    refused(text, REFUSALS.destination, { ...EXPECTED, fingerprint: `sha256:${'c'.repeat(64)}` });
    refused(text, REFUSALS.server, { ...EXPECTED, server: 'pg-other' });
    await damage(REFUSALS.server, (d) => (d.snapshot.identity.repository.scope.name = 'pg-other'));
  });

  it('items the wire refuses, of another server, or not as many as the snapshot counts', async () => {
    await damage(REFUSALS.items, (d) => (d.wal_ranges[0] = { ...d.wal_ranges[0], end_position: -1 }));
    await damage(REFUSALS.items, (d) => d.wal_ranges.reverse());
    await damage(REFUSALS.items, (d) => (d.backups[0] = { ...d.backups[0], surprise: true }));
    await damage(REFUSALS.items, (d) => (d.wal_gaps[0] = { ...d.wal_gaps[0], first_observed_generation: 2, last_observed_generation: 1 }));
    await damage(REFUSALS.itemServer, (d) => (d.backups[0] = { ...d.backups[0], server: 'pg-other' }));
    await damage(REFUSALS.counts, (d) => d.wal_ranges.pop());
    await damage(REFUSALS.counts, (d) => d.recovery_paths.pop());
  });

  it('a generation 0 document with items or observations; a complete one without observations or a memory this viewer reads', async () => {
    const p = newPublisher();
    const zero = JSON.parse(documentOf(p.fail('unavailable', attempt(1)), null)) as Doc;
    const { doc } = await validDocument();
    refused(JSON.stringify({ ...zero, wal_ranges: doc.wal_ranges }), REFUSALS.itemsBeforeScan);
    refused(JSON.stringify({ ...zero, observations: doc.observations }), REFUSALS.observationsBeforeScan);
    refused(JSON.stringify({ ...zero, observations: {} }), REFUSALS.observationsBeforeScan);
    await damage(REFUSALS.noObservations, (d) => (d.observations = null));
    await damage(REFUSALS.noMemory, (d) => {
      if (d.observations !== null) delete (d.observations as Obj)['memory'];
    });
    // The memory an earlier viewer recorded (D-71's first shape), and a memory of another version.
    await damage(REFUSALS.noMemory, (d) => d.observations !== null && ((d.observations as Obj)['memory'] = { segment_size_bytes: 16 << 20, frontiers: [{ timeline: 1, last_position: 30 }], vanished_gaps: [] }));
    await memory(REFUSALS.noMemory, (m) => (m['version'] = 2));
  });

  it('observations that fail their schema', async () => {
    const obs = (change: (o: NonNullable<Doc['observations']>) => void) => damage(REFUSALS.observations, (d) => d.observations !== null && change(d.observations));
    await damage(REFUSALS.observations, (d) => (d.observations = [] as unknown as Doc['observations']));
    await obs((o) => (o['unknown_key'] = 1));
    await obs((o) => (o['store_time_at_scan'] = 'yesterday'));
    await obs((o) => (o['archive_lag_seconds'] = -1));
    await obs((o) => delete o['newest_wal_received_at']);
    await obs((o) => (o.wal_gap_classes[0] = { ...o.wal_gap_classes[0], class: 'fine' }));
    await obs((o) => (o.wal_gap_classes[0] = { ...o.wal_gap_classes[0], extra: 1 }));
  });

  it('a memory that fails its schema, contradicts itself, or is of another scope or generation', async () => {
    // Its schema.
    await memory(REFUSALS.memory, (m) => (m['completed_backup_ids'] = []));
    await memory(REFUSALS.memory, (m) => (m.segment_size_bytes = 1000));
    await memory(REFUSALS.memory, (m) => (m.frontiers[0] = { timeline: 1, last_position: 1.5 }));
    await memory(REFUSALS.memory, (m) => (m.gaps[0] = { ...m.gaps[0], status: 'lost' }));
    await memory(REFUSALS.memory, (m) => (m.gaps[0] = { ...m.gaps[0], first_observed_at: 'yesterday' }));
    await memory(REFUSALS.memory, (m) => (m.identity = { ...m.identity, destination_fingerprint: 's3://bucket/prefix' }));
    // Its own rules: frontiers without a segment size, out of order; gaps reversed, overlapping, or observed after the memory's generation.
    await memory(REFUSALS.memoryInconsistent, (m) => (m.segment_size_bytes = null));
    await memory(REFUSALS.memoryInconsistent, (m) => m.frontiers.unshift({ timeline: 2, last_position: 3 }));
    await memory(REFUSALS.memoryInconsistent, (m) => (m.gaps[0] = { ...m.gaps[0], start_position: 13, end_position: 12 }));
    await memory(REFUSALS.memoryInconsistent, (m) => m.gaps.push({ ...m.gaps[0], start_position: 12, end_position: 14, status: 'confirmed' }));
    await memory(REFUSALS.memoryInconsistent, (m) => m.gaps.push({ ...m.gaps[0], start_position: 20, end_position: 20, last_observed_generation: 2 }));
    await memory(REFUSALS.memoryInconsistent, (m) => m.completed_backups.unshift('20261121T135900'));
    // Its scope (the snapshot's already matched) and its generation.
    await memory(REFUSALS.memoryScope, (m) => (m.identity = { ...m.identity, server: 'pg-other' }));
    await memory(REFUSALS.memoryScope, (m) => (m.identity = { ...m.identity, destination_fingerprint: `sha256:${'c'.repeat(64)}` }));
    await memory(REFUSALS.memoryGeneration, (m) => (m.generation = 2));
  });

  it('gaps not of the generation, classes that do not match the gaps one to one, gaps the memory remembers otherwise', async () => {
    await damage(REFUSALS.gapGenerations, (d) => (d.wal_gaps[0] = { ...d.wal_gaps[0], last_observed_generation: 2 }));
    await damage(REFUSALS.gapClasses, (d) => d.observations?.wal_gap_classes.pop());
    await damage(REFUSALS.gapClasses, (d) => d.observations?.wal_gap_classes.push({ timeline: 1, start_position: 20, class: 'unexplained' }));
    await damage(REFUSALS.gapClasses, (d) => d.observations !== null && (d.observations.wal_gap_classes[0] = { timeline: 1, start_position: 11, class: 'unexplained' }));
    await damage(REFUSALS.memoryGaps, (d) => d.observations !== null && (d.observations.wal_gap_classes[0] = { ...d.observations.wal_gap_classes[0], class: 'retention-expected' }));
    await memory(REFUSALS.memoryGaps, (m) => (m.gaps[0] = { ...m.gaps[0], status: 'confirmed' }));
    await memory(REFUSALS.memoryGaps, (m) => (m.gaps[0] = { ...m.gaps[0], end_position: 13 }));
    await memory(REFUSALS.memoryGaps, (m) => m.gaps.pop());
    // A loss the memory remembers beside the items (a vanished one) is the memory's own.
    const { doc } = await validDocument();
    doc.observations?.memory.gaps.push({ ...doc.observations.memory.gaps[0], start_position: 20, end_position: 20, status: 'confirmed' });
    assert.ok(readPreviousScan(JSON.stringify(doc), EXPECTED).ok);
  });

  it('a revision that cannot advance', async () => {
    await damage(REFUSALS.exhausted, (d) => (d.snapshot.revision = Number.MAX_SAFE_INTEGER));
  });

  it('never echoes the document: every reason is one of the fixed sentences', async () => {
    const { doc } = await validDocument();
    doc.snapshot.identity.repository.scope.name = 'secret-server-name';
    const r = readPreviousScan(JSON.stringify(doc), EXPECTED);
    assert.ok(!r.ok && (Object.values(REFUSALS) as string[]).includes(r.reason) && !r.reason.includes('secret'));
  });
});

describe('loadPreviousScan', () => {
  const dir = mkdtempSync(join(tmpdir(), 'viewer-previous-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('reads a file, and refuses one that is missing or not UTF-8 without naming it', async () => {
    const { text } = await validDocument();
    const good = join(dir, 'previous.json');
    writeFileSync(good, `${text}\n`);
    const r = await loadPreviousScan(good, EXPECTED);
    assert.ok(r.ok);
    assert.deepEqual(await loadPreviousScan(join(dir, 'missing.json'), EXPECTED), { ok: false, reason: REFUSALS.unreadable });
    assert.deepEqual(await loadPreviousScan(dir, EXPECTED), { ok: false, reason: REFUSALS.unreadable });
    const latin = join(dir, 'latin1.json');
    writeFileSync(latin, Buffer.from([0x7b, 0xe9, 0x7d]));
    assert.deepEqual(await loadPreviousScan(latin, EXPECTED), { ok: false, reason: REFUSALS.notUtf8 });
  });
});
