/**
 * The agreement check finds what it is for: a summary healthier than its items. Real summaries of a
 * synthetic repository agree; the same summaries with one part made healthy against its items are
 * each found, by its own code; and the publisher refuses such a generation.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { StateReason } from '../contract/primitives.ts';
import { archiveCloud } from '../format/barman-cloud/format.ts';
import { SyntheticRepository } from '../format/barman-cloud/synthetic-repository.ts';
import { confine } from '../store/confined.ts';
import { MemoryStore } from '../store/memory/memory-driver.ts';
import { disagreements } from './agreement.ts';
import { BudgetMeter } from './listing.ts';
import { freshMemory } from './memory.ts';
import { scanScope, type ScopeEvidence } from './scope-scan.ts';
import { summarize, type ScopeSummary } from './summary.ts';

const ROOT = 'pg/srv/';
const T0 = Date.parse('2026-11-21T10:00:00Z');
const at = (minutes: number) => new Date(T0 + minutes * 60_000);
const HEALTHY: StateReason = { state: 'healthy', reason: { code: 'forged', message: 'forged' } };

/** Timeline 1 with segment 12 lost long ago, an older backup before it and a newer one after it. */
async function scanned(): Promise<{ e: ScopeEvidence; s: ScopeSummary }> {
  const store = new MemoryStore({ storeClock: () => at(200) });
  const repo = new SyntheticRepository(store, ROOT);
  repo.segments(1, 1, 20, at(0), { missing: [12] });
  repo.backup({ id: '20261121T100100', timeline: 1, beginPosition: 2, endPosition: 3, beginTime: at(1), endTime: at(3) });
  repo.backup({ id: '20261121T101500', timeline: 1, beginPosition: 15, endPosition: 16, beginTime: at(15), endTime: at(16) });
  const e = await scanScope({ format: archiveCloud, server: 'srv', root: ROOT, driver: confine(store, ROOT), signal: new AbortController().signal, meter: new BudgetMeter({ maxPages: 1e4, maxObjects: 1e7 }), concurrency: 2, previous: freshMemory({ fingerprint: `sha256:${'1'.repeat(64)}`, format: archiveCloud.id, server: 'srv' }) });
  return { e, s: summarize(e, { policyText: null, policy: null, minimumRedundancy: null }, at(210).getTime(), archiveCloud) };
}

describe('agreement of summaries with their items', () => {
  it('finds nothing in real summaries, and each summary made healthier than its items by its own code', async () => {
    const { e, s } = await scanned();
    assert.deepEqual(disagreements(e, s), []);
    // The lost segment: WAL unhealthy, and the older backup's path lost WAL, so coverage is a warning.
    assert.deepEqual([s.wal.state, s.coverage.state, s.coverage.reason.code], ['unhealthy', 'warning', 'coverage-path-wal-lost']);
    assert.deepEqual(disagreements(e, { ...s, wal: HEALTHY }), ['wal-healthy-beside-an-unexplained-gap']);
    assert.deepEqual(disagreements(e, { ...s, coverage: HEALTHY }), ['coverage-healthy-beside-a-path-that-lost-wal']);
    assert.deepEqual(disagreements(e, { ...s, top: HEALTHY }), ['top-healthier-than-a-part']);
    const structural = s.capabilities.map((c) => (c.id === 'structural-artifact-validation' ? { ...c, ...HEALTHY } : c));
    const broken = { ...e, backups: e.backups.map((b, i) => (i === 0 ? { ...b, item: { ...b.item, state: 'unhealthy' as const } } : b)) };
    assert.ok(disagreements(broken, { ...s, capabilities: structural }).includes('structural-healthier-than-a-backup'));
    const forgedPath = { ...e, paths: e.paths.map((p) => (p.stop === 'frontier' ? p : { ...p, state: 'healthy' as const })) };
    assert.ok(disagreements(forgedPath, s).includes('healthy-path-before-the-frontier'));
  });
});
