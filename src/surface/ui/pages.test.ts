/**
 * The catalog's shelves: every backup reason lands on the shelf the spec names (completed,
 * in-progress, failed, malformed, unsupported and structurally incomplete kept separate); and the
 * inventory page stays bounded on a huge scope.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BudgetMeter } from '../../evidence/listing.ts';
import { scanScope } from '../../evidence/scope-scan.ts';
import { SyntheticRepository } from '../../format/barman-cloud/synthetic-repository.ts';
import { Publisher } from '../../publication/publisher.ts';
import { MemoryStore } from '../../store/memory/memory-driver.ts';
import { inventoryPage, PAGE_BOUNDS } from './pages.ts';
import { scopeView } from './scope-view.ts';
import { archiveCloud } from '../../format/barman-cloud/format.ts';


describe('backup shelves', () => {
  it('the page puts each backup on the shelf its evidence decided, never by reading reason codes', async () => {
    const store = new MemoryStore();
    const repo = new SyntheticRepository(store, 'pg/srv/');
    const t = new Date('2026-01-01T00:00:00Z');
    repo.segments(1, 1, 10, t);
    repo.backup({ id: '20260101T000100', timeline: 1, beginPosition: 2, endPosition: 3, beginTime: t, endTime: new Date(t.getTime() + 1000) });
    repo.backup({ id: '20260101T000200', timeline: 1, beginPosition: 4, endPosition: 4, status: 'FAILED', beginTime: t, endTime: t });
    repo.backup({ id: '20260101T000300', timeline: 1, beginPosition: 5, endPosition: 5, withoutInfo: true, beginTime: t, endTime: t });
    const publisher = new Publisher({ cluster: { namespace: 'n', uid: '00000000-0000-4000-8000-000000000000', name: null }, provider: 'store-a', fingerprint: `sha256:${'0'.repeat(64)}`, server: 'srv', producerVersion: '0.1.0', format: archiveCloud }, { policyText: null, policy: null, minimumRedundancy: null }, 3_600_000);
    const e = await scanScope({ format: archiveCloud, server: 'srv', root: 'pg/srv/', driver: store, signal: new AbortController().signal, meter: new BudgetMeter({ maxPages: 1e4, maxObjects: 1e6 }), concurrency: 2, ...publisher.nextScan });
    const view = scopeView('srv', publisher.complete(e, { startedAt: t, finishedAt: t, pages: 1, objects: 1 }), e);
    assert.deepEqual([...view.shelves], [['20260101T000100', 'completed'], ['20260101T000200', 'failed'], ['20260101T000300', 'in progress or abandoned']]);
    const page = inventoryPage({ scopes: [view], destination: null, identity: null, retentionPolicy: null, minimumRedundancy: null, demo: false });
    for (const shelf of ['Completed (1)', 'Failed (1)', 'In progress or abandoned (1)']) assert.match(page, new RegExp(`<h3>${shelf.replace(/[()]/g, '\\$&')}</h3>`));
  });
});

describe('inventory page bounds', () => {
  it('draws and lists a bounded part of a huge scope and says what it left out', async () => {
    const store = new MemoryStore();
    const repo = new SyntheticRepository(store, 'pg/srv/');
    const t = new Date('2026-01-01T00:00:00Z');
    // 60 backups, then 3,000 segments with every other one missing: 3,000 ranges, 2,999 gaps.
    for (let b = 0; b < 60; b++) repo.backup({ id: `20260101T0000${String(b).padStart(2, '0')}`, timeline: 1, beginPosition: 2 * b, endPosition: 2 * b, beginTime: t, endTime: new Date(t.getTime() + 1000) });
    for (let i = 0; i < 3_000; i++) repo.segment(1, 2 * i, t);
    const e = await scanScope({ format: archiveCloud, server: 'srv', root: 'pg/srv/', driver: store, signal: new AbortController().signal, meter: new BudgetMeter({ maxPages: 1e6, maxObjects: 1e9 }), concurrency: 4, generation: 1, previousGaps: [] });
    const publisher = new Publisher({ cluster: { namespace: 'n', uid: '00000000-0000-4000-8000-000000000000', name: null }, provider: 'store-a', fingerprint: `sha256:${'0'.repeat(64)}`, server: 'srv', producerVersion: '0.1.0', format: archiveCloud }, { policyText: null, policy: null, minimumRedundancy: null }, 3_600_000);
    const p = publisher.complete(e, { startedAt: t, finishedAt: t, pages: 1, objects: 1 });
    assert.deepEqual([p.walRanges.length, p.walGaps.length, p.recoveryPaths.length], [3_000, 2_999, 60]);
    const page = inventoryPage({ scopes: [scopeView('srv', p, e)], destination: null, identity: null, retentionPolicy: null, minimumRedundancy: null, demo: false });
    assert.equal(page.match(/class="gap-/g)?.length, PAGE_BOUNDS.gaps);
    assert.equal(page.match(/class="range"/g)?.length, 1, 'one bar for a lane with more ranges than the picture can show');
    assert.match(page, /Not drawn: 1999 later gaps/);
    assert.match(page, /The 50 newest of 60 paths\./);
    assert.equal(page.match(/<tr><td><code>20260101T0000/g)?.length, 50 + 60, '50 paths and the 60-row backup catalog');
  });
});

describe('what the inventory page says of the evidence', () => {
  const T = new Date('2026-11-21T10:00:00Z');
  const minute = (n: number) => new Date(T.getTime() + n * 60_000);
  const identity = { cluster: { namespace: 'n', uid: '00000000-0000-4000-8000-000000000000', name: null }, provider: 'store-a' as const, fingerprint: `sha256:${'0'.repeat(64)}`, server: 'srv', producerVersion: '0.1.0', format: archiveCloud };
  async function scanned(build: (repo: SyntheticRepository, store: MemoryStore) => void) {
    const store = new MemoryStore();
    build(new SyntheticRepository(store, 'pg/srv/'), store);
    const publisher = new Publisher(identity, { policyText: null, policy: null, minimumRedundancy: null }, 3_600_000);
    const e = await scanScope({ format: archiveCloud, server: 'srv', root: 'pg/srv/', driver: store, signal: new AbortController().signal, meter: new BudgetMeter({ maxPages: 1e4, maxObjects: 1e6 }), concurrency: 2, ...publisher.nextScan });
    return { publisher, e, p: publisher.complete(e, { startedAt: minute(100), finishedAt: minute(101), pages: 1, objects: 1 }) };
  }
  const render = (v: ReturnType<typeof scopeView>, destination: Parameters<typeof inventoryPage>[0]['destination'] = null) => inventoryPage({ scopes: [v], destination, identity: null, retentionPolicy: null, minimumRedundancy: null, demo: false });
  // A keep:standalone backup at 4–5, the hole retention leaves up to the next backup at 10, then a lost segment at 14.
  const repository = (repo: SyntheticRepository) => {
    repo.segments(1, 4, 5, minute(4));
    repo.segments(1, 10, 20, minute(10), { missing: [14] });
    repo.backup({ id: '20261121T100400', timeline: 1, beginPosition: 4, endPosition: 5, beginTime: minute(4), endTime: minute(5), keep: 'standalone' });
    repo.backup({ id: '20261121T101000', timeline: 1, beginPosition: 10, endPosition: 11, beginTime: minute(10), endTime: minute(11) });
  };

  it('a hole with the retention shape is drawn and listed as expected; a lost segment is not', async () => {
    const { e, p } = await scanned(repository);
    const page = render(scopeView('srv', p, e));
    assert.equal(page.match(/class="gap-retention"/g)?.length, 1);
    assert.equal(page.match(/class="gap-candidate"/g)?.length, 1);
    assert.match(page, /candidate gap with the shape Barman&#39;s retention leaves \(expected\): 000000010000000000000006 to 000000010000000000000009/);
    assert.doesNotMatch(page, /class="state retained"/);
  });

  it('while the publication is stale every item is retained evidence, never a green badge', async () => {
    const { publisher, e } = await scanned(repository);
    const failed = publisher.fail('unavailable', { startedAt: minute(200), finishedAt: minute(201), pages: 0, objects: 0 });
    const page = render(scopeView('srv', failed, e));
    const items = failed.backups.length + failed.recoveryPaths.length;
    assert.equal(page.match(/class="state retained"/g)?.length, items);
    assert.doesNotMatch(page, /class="state healthy"/);
    assert.match(page, /retained from generation 1/);
  });

  it('an empty location says nothing was found there; keys with control characters are not shown', async () => {
    const { e, p } = await scanned(() => undefined);
    assert.match(render(scopeView('srv', p, e)), /No backup directory and no WAL were found at this server&#39;s location/);
    const withKey = await scanned((repo, store) => {
      repository(repo);
      store.put('pg/srv/wals/zqx\u0007key', 'x', minute(300));
    });
    const page = render(scopeView('srv', withKey.p, withKey.e));
    assert.match(page, /a key holding control characters \(not shown\)/);
    assert.doesNotMatch(page, /zqx/);
  });

  it('discovery facts: the objects beside the scopes, and another format recognised', async () => {
    const { e, p } = await scanned(repository);
    assert.match(render(scopeView('srv', p, e), { unscopedObjects: 3, foreignFormat: null }), /belong to no server scope: 3\./);
    const foreign = render(scopeView('srv', p, e), { unscopedObjects: null, foreignFormat: 'stanza-repository' });
    assert.match(foreign, /looks like a pgBackRest repository \(REPOSITORY_FORMAT=stanza-repository\)/);
    assert.match(foreign, /belong to no server scope: <span class="muted">unknown<\/span>/);
  });
});
