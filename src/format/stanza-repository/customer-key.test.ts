/**
 * A pgBackRest stanza the store keeps encrypted with a customer-provided key (pgBackRest 2.52+
 * `repo1-s3-sse-customer-key`, S3 SSE-C; D-92), scanned without the key: every object is listed
 * with its size, every read answers `key-required` (the memory store's `sealWithCustomerKey`, as
 * the real drivers answer it: test/faults/customer-key.test.ts). Like the `aes-256-cbc` stanza it
 * is shown by names and sizes, each backup `unknown` with its own reason
 * (`backup-metadata-customer-key-required`); WAL ranges, gaps, counts and the inventory exactly
 * those of the same stanza read in the clear.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BudgetMeter } from '../../evidence/listing.ts';
import { freshMemory } from '../../evidence/memory.ts';
import { scanScope, type ScopeEvidence } from '../../evidence/scope-scan.ts';
import { confine } from '../../store/confined.ts';
import { MemoryStore } from '../../store/memory/memory-driver.ts';
import { REASONS } from './backups.ts';
import { stanzaRepository } from './format.ts';
import { SyntheticStanza, type SyntheticBackup } from '../../../test/support/synthetic/stanza-repository.ts';
import { DATABASES_CLUSTER, testPublisher } from '../../../test/support/publication-fixture.ts';

const PREFIX = 'repo';
const STANZA = 'main';
const T0 = Date.parse('2026-11-21T13:28:00Z');
const at = (minutes: number) => new Date(T0 + minutes * 60_000);

function scan(store: MemoryStore): Promise<ScopeEvidence> {
  const { base, roots } = stanzaRepository.scopeRoots(PREFIX, STANZA);
  return scanScope({
    format: stanzaRepository,
    server: STANZA,
    root: base,
    driver: confine(store, roots),
    signal: new AbortController().signal,
    meter: new BudgetMeter({ maxPages: 1000, maxObjects: 1_000_000 }),
    concurrency: 4,
    previous: freshMemory({ fingerprint: `sha256:${'0'.repeat(64)}`, format: 'stanza-repository', server: STANZA }),
  });
}

function publish(e: ScopeEvidence) {
  const p = testPublisher({
    identity: { cluster: DATABASES_CLUSTER, fingerprint: `sha256:${'0'.repeat(64)}`, server: e.server, format: stanzaRepository },
    expectations: { minimumRedundancy: 1 },
    freshnessMs: 900_000,
  }).complete(e, { startedAt: at(60), finishedAt: at(61), pages: 3, objects: e.objectCount });
  assert.deepEqual(p.violations, []);
  return p;
}

const F = '20261121-132800F';
const D = `${F}_20261121-133000D`;
const I = `${F}_20261121-133200I`;
const full: SyntheticBackup = { label: F, type: 'full', timeline: 1, beginPosition: 3, endPosition: 4, beginTime: at(0), endTime: at(1) };
const diff: SyntheticBackup = { label: D, type: 'diff', prior: F, reference: [F], timeline: 1, beginPosition: 6, endPosition: 7, beginTime: at(2), endTime: at(3), bundled: true };
const incr: SyntheticBackup = { label: I, type: 'incr', prior: D, reference: [F, D], timeline: 1, beginPosition: 9, endPosition: 10, beginTime: at(4), endTime: at(5) };

/** Three backups of one set on timeline 1, WAL 3..12 without 11, and timeline 2 from 12 with its history. */
function stanza(): MemoryStore {
  const store = new MemoryStore();
  const repo = new SyntheticStanza(store, `${PREFIX}/`, STANZA);
  repo.segments(1, 3, 12, at(0), { stepMs: 30_000, missing: [11] });
  repo.history(2, [{ parent: 1, switchpoint: repo.switchpoint(12) }], at(8));
  repo.segments(2, 12, 14, at(9));
  for (const b of [full, diff, incr]) repo.backup(b);
  repo.info();
  return store;
}

async function keysOf(store: MemoryStore): Promise<string[]> {
  const out: string[] = [];
  for (let token: string | undefined; ; ) {
    const page = await store.listPage({ prefix: '', signal: new AbortController().signal, ...(token === undefined ? {} : { continuationToken: token }) });
    out.push(...page.objects.map((o) => o.key));
    if (page.nextToken === null) return out;
    token = page.nextToken;
  }
}

async function seal(store: MemoryStore, which: RegExp = /./): Promise<void> {
  for (const k of await keysOf(store)) if (which.test(k)) store.sealWithCustomerKey(k);
}

const wal = (e: ScopeEvidence) => ({
  ranges: e.ranges.map((r) => [r.timeline, r.first_wal, r.last_wal, r.segment_count]),
  gaps: e.gaps.map((g) => [g.timeline, g.first_wal, g.last_wal, g.segment_count]),
  counts: e.walCounts,
  inventory: [e.objectCount, e.storedBytes, e.unknownObjects],
});

const row = (e: ScopeEvidence) => e.backups.map((b) => [b.item.backup_id, b.item.status, b.item.backup_type, b.item.state, b.item.reason.code, b.item.encryption, b.shelf]);

describe('a pgBackRest stanza behind a customer-provided key (SSE-C) the scan does not hold', () => {
  it('every object behind the key: names and sizes, each backup unknown with its own reason; WAL, gaps, inventory as in the clear', async () => {
    const clear = await scan(stanza());
    const store = stanza();
    await seal(store);
    const e = await scan(store);
    assert.deepEqual(row(e), [
      [F, null, 'full', 'unknown', 'backup-metadata-customer-key-required', null, 'unsupported'],
      [D, null, 'diff', 'unknown', 'backup-metadata-customer-key-required', null, 'unsupported'],
      [I, null, 'incr', 'unknown', 'backup-metadata-customer-key-required', null, 'unsupported'],
    ]);
    assert.match(REASONS['backup-metadata-customer-key-required'], /customer-provided key/);
    // backup.manifest is written only at completion: with no readable catalog, that is all there is to go by.
    assert.deepEqual(e.backups.map((b) => [b.mayHaveCompleted, b.usable]), [[true, false], [true, false], [true, false]]);
    assert.deepEqual(wal(e), wal(clear));
    assert.deepEqual(e.gaps.map((g) => [g.timeline, g.first_wal]), [[1, '00000001000000000000000B']]);
    assert.equal(e.histories.get(2)?.status, 'unread');
    assert.equal(e.geometryIssue, 'unknown');
    const p = publish(e);
    const capability = (id: string) => p.snapshot.capabilities.find((c) => c.id === id);
    // Whether pgBackRest's own cipher is in use is behind the key too: unknown, never "readable".
    assert.deepEqual([capability('encrypted-metadata')?.state, capability('encrypted-metadata')?.reason.code], ['unknown', 'metadata-encryption-unknown']);
    assert.deepEqual([capability('timeline-history-traversal')?.state, capability('timeline-history-traversal')?.reason.code], ['unknown', 'timeline-history-unread']);
    assert.deepEqual([p.snapshot.inventory.last_failure_category, p.snapshot.completeness], [null, 'complete']);
    if (p.snapshot.details.type === 'stanza-repository/v1alpha1') {
      const d = p.snapshot.details.stanza_repository;
      assert.deepEqual([d.encrypted, d.backup_types, d.interrupted_backups], [null, null, null]);
    }
  });

  it('manifests alone behind the key: the listed backups keep backup.info\'s facts, each unknown with the reason', async () => {
    const store = stanza();
    await seal(store, /backup\.manifest(\.copy)?$/);
    const e = await scan(store);
    assert.deepEqual(row(e), [
      [F, 'DONE', 'full', 'unknown', 'backup-metadata-customer-key-required', 'none', 'unsupported'],
      [D, 'DONE', 'diff', 'unknown', 'backup-metadata-customer-key-required', 'none', 'unsupported'],
      [I, 'DONE', 'incr', 'unknown', 'backup-metadata-customer-key-required', 'none', 'unsupported'],
    ]);
    assert.deepEqual(e.backups.map((b) => [b.item.begin_wal, b.item.stored_artifact_bytes]), [
      ['000000010000000000000003', null],
      ['000000010000000000000006', null],
      ['000000010000000000000009', null],
    ]);
    assert.equal(e.geometry?.segmentSize, 16 << 20);
    publish(e);
  });

  it('archive.info alone behind the key: the archive id from the listing, every backup warned with the reason', async () => {
    const clear = await scan(stanza());
    const store = stanza();
    await seal(store, /archive\.info(\.copy)?$/);
    const e = await scan(store);
    assert.deepEqual(e.backups.map((b) => [b.item.backup_id, b.item.state, b.item.reason.code]), [
      [F, 'warning', 'archive-info-customer-key-required'],
      [D, 'warning', 'archive-info-customer-key-required'],
      [I, 'warning', 'archive-info-customer-key-required'],
    ]);
    assert.deepEqual(wal(e), wal(clear));
    publish(e);
  });
});
