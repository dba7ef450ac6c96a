/**
 * `viewer scan --previous`: the memory a scan's document carries (`observations.memory`), read back
 * exactly (the continuation equals what `Publisher.nextScan` of a long-running process hands on:
 * gaps, vanished losses, frontiers, completed backups), a resumed publisher, and every refusal.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { StoreError } from '../common/errors.ts';
import type { GapMemory } from '../evidence/gaps.ts';
import { BudgetMeter } from '../evidence/listing.ts';
import { scanScope, type ScopeEvidence } from '../evidence/scope-scan.ts';
import { archiveCloud } from '../format/barman-cloud/format.ts';
import { SyntheticRepository } from '../format/barman-cloud/synthetic-repository.ts';
import { Publisher, type Publication } from '../publication/publisher.ts';
import { confine } from '../store/confined.ts';
import type { StoreDriver } from '../store/driver.ts';
import { MemoryStore } from '../store/memory/memory-driver.ts';
import { walName } from '../postgres/wal.ts';
import { scanDocument } from './commands/scan.ts';
import { loadPreviousScan, memoryObservation, readPreviousScan, REFUSALS, type Continuation, type ExpectedScope } from './previous-scan.ts';
import { requireCommonSummary } from '../contract/details-view.ts';

const ROOT = 'p/pg-main/';
const T0 = Date.parse('2026-11-21T13:00:00Z');
const at = (min: number) => new Date(T0 + min * 60_000);
const FINGERPRINT = `sha256:${'a'.repeat(64)}`;
const EXPECTED: ExpectedScope = { fingerprint: FINGERPRINT, server: 'pg-main', provider: 'store-a', format: 'archive-cloud' };

function newPublisher(revisionBase = 0) {
  return new Publisher(
    { cluster: { namespace: 'databases', uid: '6f1c2a7e-3b9d-4e8f-a1c2-9d8e7f6a5b4c', name: 'pg-main' }, provider: 'store-a', fingerprint: FINGERPRINT, server: 'pg-main', producerVersion: '0.1.0', format: archiveCloud },
    { policyText: null, policy: null, minimumRedundancy: null },
    15 * 60_000,
    { revisionBase },
  );
}

const scan = (driver: StoreDriver, p: Publisher): Promise<ScopeEvidence> =>
  scanScope({ format: archiveCloud, server: 'pg-main', root: ROOT, driver: confine(driver, ROOT), signal: new AbortController().signal, meter: new BudgetMeter({ maxPages: 100, maxObjects: 10_000 }), concurrency: 2, ...p.nextScan });

const attempt = (min: number) => ({ startedAt: at(min), finishedAt: at(min + 1), pages: 2, objects: 20 });

/**
 * The document `viewer scan` prints, with the wiring proposed for scan.ts: `memory` beside the gap
 * classes, and a run without a complete scan of its own printing the observations it continued from.
 */
function documentOf(p: Publication, evidence: ScopeEvidence | null, continuation: Continuation | null = null): string {
  const doc = JSON.parse(scanDocument(p, evidence)) as { observations: Record<string, unknown> | null };
  if (evidence !== null && doc.observations !== null && doc.observations['memory'] === undefined) doc.observations = { ...doc.observations, memory: memoryObservation(evidence) };
  if (evidence === null && p.generation > 0) doc.observations = continuation?.observations ?? null;
  return JSON.stringify(doc);
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

const byPosition = (gaps: readonly GapMemory[]) => [...gaps].sort((a, b) => a.timeline - b.timeline || a.start - b.start);

/** The continuation hands on exactly what the long-running publisher's `nextScan` does. */
function assertSameMemory(c: Continuation, p: Publisher) {
  const next = p.nextScan;
  assert.equal(c.generation + 1, next.generation);
  assert.deepEqual(byPosition(c.previousGaps), byPosition(next.previousGaps));
  assert.deepEqual(c.previousFrontiers, next.previousFrontiers);
  assert.deepEqual(c.previousCompletedBackups, next.previousCompletedBackups);
  const resumed = newPublisher();
  resumed.resume(c);
  const again = resumed.nextScan;
  assert.equal(again.generation, next.generation);
  assert.deepEqual(byPosition(again.previousGaps), byPosition(next.previousGaps));
  assert.deepEqual(again.previousFrontiers, next.previousFrontiers);
  assert.deepEqual(again.previousCompletedBackups, next.previousCompletedBackups);
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

interface Doc {
  snapshot: { revision: number; evidence_generation: number; identity: { repository: { scope: { name: string } } } } & Record<string, unknown>;
  backups: Record<string, unknown>[];
  wal_ranges: Record<string, unknown>[];
  wal_gaps: Record<string, unknown>[];
  recovery_paths: Record<string, unknown>[];
  observations: (Record<string, unknown> & { wal_gap_classes: Record<string, unknown>[]; memory: { segment_size_bytes: number | null; frontiers: Record<string, unknown>[]; vanished_gaps: Record<string, unknown>[] } & Record<string, unknown> }) | null;
}

function refused(text: string, reason: string, expected: ExpectedScope = EXPECTED) {
  const r = readPreviousScan(text, expected);
  assert.equal(r.ok, false, `accepted, expected: ${reason}`);
  if (!r.ok) assert.equal(r.reason, reason);
}

describe('observations.memory', () => {
  it('carries the segment size, the frontiers by timeline and no vanished gap after a plain scan', async () => {
    const { store } = repository();
    const { evidence } = await generation(store, newPublisher(), 40);
    assert.deepEqual(memoryObservation(evidence), { segment_size_bytes: 16 << 20, frontiers: [{ timeline: 1, last_position: 30 }], vanished_gaps: [] });
    assert.deepEqual(Object.keys(memoryObservation(evidence)), ['segment_size_bytes', 'frontiers', 'vanished_gaps']);
  });
});

describe('readPreviousScan reads back exactly what a long-running process remembers', () => {
  it('after one generation: the gap with its class and generations, the frontier, the completed backups (DONE only)', async () => {
    const { store } = repository();
    const p = newPublisher();
    const { text, publication } = await generation(store, p, 40);
    const c = read(text);
    assert.equal(c.revision, publication.revision);
    assert.equal(c.generation, 1);
    assert.equal(c.completedAt, at(41).toISOString());
    assert.deepEqual([...c.previousCompletedBackups], ['20261121T130100']);
    assert.deepEqual(c.previousGaps, [{ timeline: 1, start: 12, end: 12, firstObservedGeneration: 1, status: 'candidate', class: 'unexplained' }]);
    assert.deepEqual(c.previousCompletedBackups, p.evidence?.completedBackupIds);
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
    const memory = memoryObservation(third.evidence);
    assert.deepEqual(memory, { segment_size_bytes: 16 << 20, frontiers: [{ timeline: 1, last_position: 30 }], vanished_gaps: [{ timeline: 1, start_position: 12, end_position: 12, first_observed_generation: 1 }] });
    const c = read(third.text);
    assert.equal(c.generation, 3);
    assertSameMemory(c, p);
    // And one more generation on from each remembers the same again.
    const fourth = await generation(store, p, 55);
    const resumed = newPublisher();
    resumed.resume(c);
    const chained = await generation(store, resumed, 55, c);
    assert.deepEqual(memoryObservation(chained.evidence), memoryObservation(fourth.evidence));
    assert.equal(requireCommonSummary(chained.publication.snapshot.details).wal.reason.code, 'wal-frontier-regressed');
    assert.equal(chained.evidence.vanishedGaps, 1);
    assert.deepEqual(withoutRevision(chained.text), withoutRevision(fourth.text));
  });

  it('without a known geometry: no segment size, no frontiers (and nothing to check them against)', async () => {
    const store = new MemoryStore();
    const repo = new SyntheticRepository(store, ROOT);
    repo.segments(1, 1, 10, at(0), { missing: [5] });
    const p = newPublisher();
    const { evidence, text } = await generation(store, p, 40);
    assert.deepEqual(memoryObservation(evidence), { segment_size_bytes: null, frontiers: [], vanished_gaps: [] });
    const c = read(text);
    assert.equal(c.previousFrontiers, null);
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
    assert.equal(low.nextScan.generation, 2);
    const high = newPublisher(doc.snapshot.revision + 1000);
    high.resume(read(text));
    assert.equal(high.current.revision, doc.snapshot.revision + 1000);
    const { store } = repository();
    const next = await generation(store, low, 50);
    assert.equal(next.publication.revision, doc.snapshot.revision + 1);
    assert.equal(next.publication.generation, 2);

    const upgraded = new Publisher(
      { cluster: { namespace: 'other', uid: '00000000-0000-0000-0000-000000000001', name: null }, provider: 'store-a', fingerprint: FINGERPRINT, server: 'pg-main', producerVersion: '0.2.0', format: archiveCloud },
      { policyText: null, policy: null, minimumRedundancy: null },
      15 * 60_000,
    );
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
    const other = new Publisher(
      { cluster: { namespace: 'databases', uid: '6f1c2a7e-3b9d-4e8f-a1c2-9d8e7f6a5b4c', name: null }, provider: 'store-a', fingerprint: `sha256:${'b'.repeat(64)}`, server: 'pg-main', producerVersion: '0.1.0', format: archiveCloud },
      { policyText: null, policy: null, minimumRedundancy: null },
      15 * 60_000,
    );
    assert.throws(() => other.resume(read(text)), /of its own scope/);
  });
});

describe('readPreviousScan refuses, whole and with a fixed sentence', () => {
  const damage = async (reason: string, change: (d: Doc) => void, expected: ExpectedScope = EXPECTED) => {
    const { doc } = await validDocument();
    change(doc);
    refused(JSON.stringify(doc), reason, expected);
  };

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

  it('a generation 0 document with items or observations; a complete one without observations or memory', async () => {
    const p = newPublisher();
    const zero = JSON.parse(documentOf(p.fail('unavailable', attempt(1)), null)) as Doc;
    const { doc } = await validDocument();
    refused(JSON.stringify({ ...zero, wal_ranges: doc.wal_ranges }), REFUSALS.itemsBeforeScan);
    refused(JSON.stringify({ ...zero, observations: doc.observations }), REFUSALS.observationsBeforeScan);
    refused(JSON.stringify({ ...zero, observations: {} }), REFUSALS.observationsBeforeScan);
    await damage(REFUSALS.noObservations, (d) => (d.observations = null));
    await damage(REFUSALS.noMemory, (d) => {
      if (d.observations !== null) delete (d.observations as Record<string, unknown>)['memory'];
    });
  });

  it('observations of the wrong shape', async () => {
    const obs = (change: (o: NonNullable<Doc['observations']>) => void) => damage(REFUSALS.observations, (d) => d.observations !== null && change(d.observations));
    await damage(REFUSALS.observations, (d) => (d.observations = [] as unknown as Doc['observations']));
    await obs((o) => (o['unknown_key'] = 1));
    await obs((o) => (o['store_time_at_scan'] = 'yesterday'));
    await obs((o) => (o['archive_lag_seconds'] = -1));
    await obs((o) => (o.wal_gap_classes[0] = { ...o.wal_gap_classes[0], class: 'fine' }));
    await obs((o) => (o.wal_gap_classes[0] = { ...o.wal_gap_classes[0], extra: 1 }));
    await obs((o) => (o.memory = { ...o.memory, completed_backup_ids: [] } as typeof o.memory));
    await obs((o) => (o.memory.segment_size_bytes = 1000));
    await obs((o) => (o.memory.segment_size_bytes = null));
    await obs((o) => o.memory.frontiers.push({ timeline: 1, last_position: 40 }));
    await obs((o) => (o.memory.frontiers[0] = { timeline: 1, last_position: 1.5 }));
    await obs((o) => o.memory.vanished_gaps.push({ timeline: 1, start_position: 5, end_position: 4, first_observed_generation: 1 }));
    // Vanished losses were observed in an earlier generation than the document's.
    await obs((o) => o.memory.vanished_gaps.push({ timeline: 1, start_position: 40, end_position: 40, first_observed_generation: 1 }));
  });

  it('gaps not of the generation, and classes that do not match the gaps one to one', async () => {
    await damage(REFUSALS.gapGenerations, (d) => (d.wal_gaps[0] = { ...d.wal_gaps[0], last_observed_generation: 2 }));
    await damage(REFUSALS.gapClasses, (d) => d.observations?.wal_gap_classes.pop());
    await damage(REFUSALS.gapClasses, (d) => d.observations?.wal_gap_classes.push({ timeline: 1, start_position: 20, class: 'unexplained' }));
    await damage(REFUSALS.gapClasses, (d) => d.observations !== null && (d.observations.wal_gap_classes[0] = { timeline: 1, start_position: 11, class: 'unexplained' }));
  });

  it('frontiers inconsistent with the WAL ranges, vanished gaps inconsistent with gaps and ranges', async () => {
    await damage(REFUSALS.frontiers, (d) => d.observations !== null && (d.observations.memory.frontiers = [{ timeline: 1, last_position: 29 }]));
    await damage(REFUSALS.frontiers, (d) => d.observations !== null && (d.observations.memory.frontiers = []));
    await damage(REFUSALS.frontiers, (d) => d.observations !== null && (d.observations.memory.segment_size_bytes = 1 << 20));
    // A higher high-water mark and another timeline's are the memory's own.
    const { doc } = await validDocument();
    if (doc.observations !== null) doc.observations.memory.frontiers = [{ timeline: 1, last_position: 99 }, { timeline: 7, last_position: 3 }];
    assert.ok(readPreviousScan(JSON.stringify(doc), EXPECTED).ok);
    // Hand-made generation 2 documents (a vanished loss is from an earlier generation).
    const second = (change: (d: Doc) => void) =>
      damage(REFUSALS.vanished, (d) => {
        d.snapshot.evidence_generation = 2;
        d.wal_gaps = d.wal_gaps.map((g) => ({ ...g, last_observed_generation: 2 }));
        change(d);
      });
    await second((d) => d.observations?.memory.vanished_gaps.push({ timeline: 1, start_position: 12, end_position: 12, first_observed_generation: 1 }));
    await second((d) => d.observations?.memory.vanished_gaps.push({ timeline: 1, start_position: 3, end_position: 4, first_observed_generation: 1 }));
    await second((d) => d.observations?.memory.vanished_gaps.push({ timeline: 1, start_position: 10, end_position: 13, first_observed_generation: 1 }));
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
