/**
 * Archive freshness (docs/design/evidence.md §Archive freshness): the lag is the store's clock at
 * the scan minus the newest WAL receipt, both the store's, so viewer's own clock changes nothing;
 * `EXPECTED_MAX_ARCHIVE_LAG` turns it into a WAL verdict that joins continuity by severity, and
 * unset it is never judged.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { archiveCloud } from '../format/barman-cloud/format.ts';
import { SyntheticRepository } from '../format/barman-cloud/synthetic-repository.ts';
import { confine } from '../store/confined.ts';
import { MemoryStore } from '../store/memory/memory-driver.ts';
import { BudgetMeter } from './listing.ts';
import { scanScope, type ScopeEvidence } from './scope-scan.ts';
import { freshMemory } from './memory.ts';
import { archiveLagSeconds, archiveLagUnknownReason, summarize } from './summary.ts';
import { requireCommonSummary } from '../contract/details-view.ts';
import { DB_CLUSTER, testPublisher } from '../../test/support/publication-fixture.ts';

const ROOT = 'pg/srv/';
const T0 = Date.parse('2026-11-21T10:00:00Z');
const at = (minutes: number) => new Date(T0 + minutes * 60_000);

/** A healthy archive, segments 1..20 five minutes apart (the newest at minute 95), and a backup. */
async function scanned(clock: Date | null, options: { missing?: number[] } = {}): Promise<ScopeEvidence> {
  const store = new MemoryStore({ storeClock: () => clock });
  const repo = new SyntheticRepository(store, ROOT);
  repo.segments(1, 1, 20, at(0), { stepMs: 5 * 60_000, missing: options.missing ?? [] });
  repo.backup({ id: '20261121T100000', timeline: 1, beginPosition: 2, endPosition: 2, beginTime: at(5), endTime: at(6) });
  return scanScope({ format: archiveCloud, server: 'srv', root: ROOT, driver: confine(store, ROOT), signal: new AbortController().signal, meter: new BudgetMeter({ maxPages: 1e4, maxObjects: 1e7 }), concurrency: 2, previous: freshMemory({ fingerprint: `sha256:${'1'.repeat(64)}`, format: 'archive-cloud', server: 'srv' }) });
}

const expect = (maxArchiveLagSeconds: number | null) => ({ policyText: null, policy: null, minimumRedundancy: null, maxArchiveLagSeconds });
const walOf = (e: ScopeEvidence, max: number | null, now = at(200).getTime()) => {
  const s = summarize(e, expect(max), now, archiveCloud).wal;
  return [s.state, s.reason.code];
};

describe('archive lag', () => {
  it('is the store clock minus the newest receipt, and null without a store clock', async () => {
    assert.equal(archiveLagSeconds(await scanned(at(99))), 4 * 60);
    assert.equal(archiveLagSeconds(await scanned(null)), null);
    // A receipt stamped within the second of the store's reading is no lag, never negative.
    assert.equal(archiveLagSeconds(await scanned(new Date(at(95).getTime() - 1_000))), 0);
  });

  it('a receipt after the store\'s own clock proves skew: the lag is unknown with its own reason, never 0', async () => {
    // The newest segment was stamped at minute 95; the store says it is minute 94.
    const skewed = await scanned(at(94));
    assert.equal(archiveLagSeconds(skewed), null);
    assert.equal(archiveLagUnknownReason(skewed), 'receipt-after-store-clock');
    assert.deepEqual(walOf(skewed, 10 * 60), ['unknown', 'archive-receipt-after-store-clock']);
    // Unset, nothing is judged, but the reason stays visible.
    assert.deepEqual(walOf(skewed, null), ['healthy', 'wal-continuous']);
    assert.equal(archiveLagUnknownReason(await scanned(null)), 'no-store-clock');
  });

  it('unset, the lag is never judged', async () => {
    assert.deepEqual(walOf(await scanned(at(500)), null), ['healthy', 'wal-continuous']);
    assert.deepEqual(walOf(await scanned(null), null), ['healthy', 'wal-continuous']);
  });

  it('over the expectation: a warning of its own; within it: no change', async () => {
    const e = await scanned(at(99));
    assert.deepEqual(walOf(e, 10 * 60), ['healthy', 'wal-continuous']);
    assert.deepEqual(walOf(e, 3 * 60), ['warning', 'archive-lag-over-expectation']);
    assert.deepEqual(walOf(e, 4 * 60), ['healthy', 'wal-continuous'], 'exactly the expectation is within it');
  });

  it('judges on the store\'s clock only: viewer\'s clock, however far off, changes nothing', async () => {
    const e = await scanned(at(99));
    for (const now of [0, at(-100_000).getTime(), at(100).getTime(), at(1_000_000).getTime()]) {
      assert.deepEqual(walOf(e, 3 * 60, now), ['warning', 'archive-lag-over-expectation']);
      assert.deepEqual(walOf(e, 10 * 60, now), ['healthy', 'wal-continuous']);
    }
  });

  it('an expectation that cannot be checked is unknown, never met', async () => {
    assert.deepEqual(walOf(await scanned(null), 10 * 60), ['unknown', 'archive-lag-unknown']);
  });

  it('joins continuity by severity: a gap keeps its reason, the top level follows', async () => {
    const gap = await scanned(at(99), { missing: [10] });
    assert.deepEqual(walOf(gap, 3 * 60), ['warning', 'wal-gap-candidate'], 'continuity first on a tie');
    const e = await scanned(at(99));
    const publisher = testPublisher({ identity: { cluster: DB_CLUSTER, fingerprint: `sha256:${'1'.repeat(64)}`, server: 'srv' }, expectations: expect(3 * 60), freshnessMs: 900_000 });
    const p = publisher.complete(e, { startedAt: at(100), finishedAt: at(101), pages: 1, objects: e.objectCount });
    assert.deepEqual(p.violations, []);
    assert.equal(requireCommonSummary(p.snapshot.details).wal.reason.code, 'archive-lag-over-expectation');
    assert.equal(p.snapshot.capabilities.find((c) => c.id === 'wal-continuity')?.state, 'warning');
    assert.notEqual(p.snapshot.state, 'healthy', 'no top level healthier than its WAL');
  });
});
