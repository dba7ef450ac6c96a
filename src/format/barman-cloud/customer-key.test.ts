/**
 * A barman-cloud repository the store keeps encrypted with a customer-provided key (Barman 3.20's
 * `--sse-customer-key`, S3 SSE-C; D-92), scanned without the key: every object is listed with its
 * size, every read answers `key-required` (the memory store's `sealWithCustomerKey`, as the real
 * drivers answer it: test/faults/customer-key.test.ts). The backups are `unknown` with their own
 * reason, counted as may-have-completed, kept names unknown, the timeline history unread; WAL
 * ranges, gaps, counts and the inventory exactly those of the same repository read in the clear.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BudgetMeter } from '../../evidence/listing.ts';
import { freshMemory } from '../../evidence/memory.ts';
import { scanScope, type ScopeEvidence } from '../../evidence/scope-scan.ts';
import { confine } from '../../store/confined.ts';
import { MemoryStore } from '../../store/memory/memory-driver.ts';
import { archiveCloud } from './format.ts';
import { REASONS } from './backups.ts';
import { SyntheticRepository } from './synthetic-repository.ts';
import { DATABASES_CLUSTER, testPublisher } from '../../../test/support/publication-fixture.ts';

const ROOT = 'fixtures/pg-main/';
const T0 = Date.parse('2026-11-21T13:28:00Z');
const at = (minutes: number) => new Date(T0 + minutes * 60_000);
const FRESH = freshMemory({ fingerprint: `sha256:${'0'.repeat(64)}`, format: 'archive-cloud', server: 'pg-main' });

function scan(store: MemoryStore): Promise<ScopeEvidence> {
  return scanScope({
    format: archiveCloud,
    server: 'pg-main',
    root: ROOT,
    driver: confine(store, ROOT),
    signal: new AbortController().signal,
    meter: new BudgetMeter({ maxPages: 1000, maxObjects: 1_000_000 }),
    concurrency: 4,
    previous: FRESH,
  });
}

function publish(e: ScopeEvidence) {
  const p = testPublisher({
    identity: { cluster: DATABASES_CLUSTER, fingerprint: `sha256:${'0'.repeat(64)}`, server: 'pg-main', format: archiveCloud },
    expectations: { minimumRedundancy: 1 },
    freshnessMs: 900_000,
  }).complete(e, { startedAt: at(60), finishedAt: at(61), pages: 3, objects: e.objectCount });
  assert.deepEqual(p.violations, []);
  return p;
}

const B1 = '20261121T132821';
const B2 = '20261121T132829';
const B3 = '20261121T132845';

/** Two timelines, a deleted segment (6), a keep:standalone backup, a history file. */
function repository(): MemoryStore {
  const store = new MemoryStore();
  const repo = new SyntheticRepository(store, ROOT);
  repo.segments(1, 1, 12, at(0), { stepMs: 30_000, missing: [6] });
  repo.segment(1, 4, at(1), '.00000028.backup');
  repo.history(2, [{ parent: 1, switchpoint: 0xd000090n, reason: 'at restore point "incident"' }], at(8), true);
  repo.segments(2, 13, 17, at(9), { suffix: '.gz', stepMs: 30_000 });
  repo.backup({ id: B1, timeline: 1, beginPosition: 4, endPosition: 4, beginTime: at(0.5), endTime: at(0.6), keep: 'standalone' });
  repo.backup({ id: B2, timeline: 1, beginPosition: 10, endPosition: 10, archiveSuffix: '.gz', beginTime: at(5), endTime: at(5.5) });
  repo.backup({ id: B3, timeline: 2, beginPosition: 15, endPosition: 15, archiveSuffix: '.gz', beginTime: at(10), endTime: at(10.5) });
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

/** Every object stored with a customer-provided key, as `barman-cloud-* --sse-customer-key` uploads them all. */
async function sealAll(store: MemoryStore): Promise<void> {
  for (const k of await keysOf(store)) store.sealWithCustomerKey(k);
}

const wal = (e: ScopeEvidence) => ({
  ranges: e.ranges.map((r) => [r.timeline, r.first_wal, r.last_wal, r.segment_count]),
  gaps: e.gaps.map((g) => [g.timeline, g.first_wal, g.last_wal, g.segment_count]),
  counts: e.walCounts,
  inventory: [e.objectCount, e.storedBytes, e.unknownObjects],
});

describe('barman-cloud behind a customer-provided key (SSE-C) the scan does not hold', () => {
  it('every backup unknown with its own reason, may-have-completed; WAL, gaps and inventory as in the clear', async () => {
    const clear = await scan(repository());
    const store = repository();
    await sealAll(store);
    const e = await scan(store);
    assert.deepEqual(
      e.backups.map((b) => [b.item.backup_id, b.item.status, b.item.backup_type, b.item.state, b.item.reason.code, b.item.reason.message, b.shelf, b.label]),
      [B1, B2, B3].map((id) => [id, null, null, 'unknown', 'backup-info-customer-key-required', REASONS['backup-info-customer-key-required'], 'unsupported', { name: null, keep: null }]),
    );
    assert.match(REASONS['backup-info-customer-key-required'], /customer-provided key/);
    // Their status cannot be read: each may be a completed backup, none is one for certain.
    assert.deepEqual(e.backups.map((b) => [b.completed, b.mayHaveCompleted, b.usable, b.standalone]), [B1, B2, B3].map(() => [false, true, false, false]));
    // Read in the clear, the same repository's backups are what the key hides.
    assert.deepEqual(clear.backups.map((b) => [b.item.status, b.label.keep]), [['DONE', 'standalone'], ['DONE', null], ['DONE', null]]);
    assert.deepEqual(wal(e), wal(clear));
    assert.deepEqual(e.gaps.map((g) => [g.timeline, g.first_wal]), [[1, '000000010000000000000006']]);
    // The history is there and unread: timeline 2's ancestry is unknown, never broken.
    assert.equal(e.histories.get(2)?.status, 'unread');
    assert.equal(e.geometryIssue, 'unknown');
    const p = publish(e);
    const capability = (id: string) => p.snapshot.capabilities.find((c) => c.id === id);
    assert.deepEqual([capability('timeline-history-traversal')?.state, capability('timeline-history-traversal')?.reason.code], ['unknown', 'timeline-history-unread']);
    // Unreadable status: counted as possibly completed, so the catalog is incomplete and no backup is proven usable.
    assert.deepEqual([capability('catalog-listing')?.state, capability('catalog-listing')?.reason.code], ['warning', 'catalog-incomplete']);
    assert.equal(p.snapshot.state === 'healthy', false);
    assert.deepEqual([p.snapshot.inventory.last_failure_category, p.snapshot.completeness], [null, 'complete']);
  });

  it('a backup.info behind the key: that backup alone is unknown; the others are judged as ever', async () => {
    const store = repository();
    store.sealWithCustomerKey(`${ROOT}base/${B2}/backup.info`);
    const e = await scan(store);
    assert.deepEqual(e.backups.map((b) => [b.item.backup_id, b.item.state, b.item.reason.code]), [
      [B1, 'healthy', 'structurally-usable'],
      [B2, 'unknown', 'backup-info-customer-key-required'],
      [B3, 'healthy', 'structurally-usable'],
    ]);
    assert.equal(e.geometry?.segmentSize, 16 << 20);
    publish(e);
  });

  it('a keep annotation behind the key: whether the backup is kept is unknown, a warning, never standalone', async () => {
    const store = repository();
    store.sealWithCustomerKey(`${ROOT}base/${B1}/annotations/keep`);
    const e = await scan(store);
    const b1 = e.backups.find((b) => b.item.backup_id === B1);
    assert.deepEqual([b1?.item.state, b1?.item.reason.code, b1?.label.keep], ['warning', 'keep-annotation-customer-key-required', null]);
    publish(e);
  });
});
