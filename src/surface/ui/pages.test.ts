/**
 * The catalog's shelves: every backup reason lands on the shelf the spec names (completed,
 * in-progress, failed, malformed, unsupported and structurally incomplete kept separate); and the
 * inventory page stays bounded on a huge scope.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BudgetMeter } from '../../evidence/listing.ts';
import { scanScope } from '../../evidence/scope-scan.ts';
import { freshMemory } from '../../evidence/memory.ts';
import { SyntheticRepository } from '../../format/barman-cloud/synthetic-repository.ts';
import { MemoryStore } from '../../store/memory/memory-driver.ts';
import { inventoryPage, PAGE_BOUNDS, parseWalFilter, walsPage, type PageContext } from './pages.ts';
import { scopeView } from './scope-view.ts';
import { parseRetentionPolicy } from '../../format/barman-cloud/retention-policy.ts';
import { archiveCloud } from '../../format/barman-cloud/format.ts';
import { stanzaRepository } from '../../format/stanza-repository/format.ts';
import { SyntheticStanza, type SyntheticBackup } from '../../../test/support/synthetic/stanza-repository.ts';
import { confine } from '../../store/confined.ts';
import { testPublisher } from '../../../test/support/publication-fixture.ts';


describe('backup shelves', () => {
  it('the page puts each backup on the shelf its evidence decided, never by reading reason codes', async () => {
    const store = new MemoryStore();
    const repo = new SyntheticRepository(store, 'pg/srv/');
    const t = new Date('2026-01-01T00:00:00Z');
    repo.segments(1, 1, 10, t);
    repo.backup({ id: '20260101T000100', timeline: 1, beginPosition: 2, endPosition: 3, beginTime: t, endTime: new Date(t.getTime() + 1000) });
    repo.backup({ id: '20260101T000200', timeline: 1, beginPosition: 4, endPosition: 4, status: 'FAILED', beginTime: t, endTime: t });
    repo.backup({ id: '20260101T000300', timeline: 1, beginPosition: 5, endPosition: 5, withoutInfo: true, beginTime: t, endTime: t });
    const publisher = testPublisher();
    const e = await scanScope({ format: archiveCloud, server: 'srv', root: 'pg/srv/', driver: store, signal: new AbortController().signal, meter: new BudgetMeter({ maxPages: 1e4, maxObjects: 1e6 }), concurrency: 2, ...publisher.nextScan });
    const view = scopeView('srv', publisher.complete(e, { startedAt: t, finishedAt: t, pages: 1, objects: 1 }), e);
    assert.deepEqual([...view.shelves], [['20260101T000100', 'completed'], ['20260101T000200', 'failed'], ['20260101T000300', 'in progress or abandoned']]);
    const page = inventoryPage({ scopes: [view], destination: null, format: archiveCloud, identity: null, retentionPolicy: null, minimumRedundancy: null, maxArchiveLagSeconds: null, demo: false });
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
    const e = await scanScope({ format: archiveCloud, server: 'srv', root: 'pg/srv/', driver: store, signal: new AbortController().signal, meter: new BudgetMeter({ maxPages: 1e6, maxObjects: 1e9 }), concurrency: 4, previous: freshMemory({ fingerprint: `sha256:${'0'.repeat(64)}`, format: 'archive-cloud', server: 'srv' }) });
    const publisher = testPublisher();
    const p = publisher.complete(e, { startedAt: t, finishedAt: t, pages: 1, objects: 1 });
    assert.deepEqual([p.walRanges.length, p.walGaps.length, p.recoveryPaths.length], [3_000, 2_999, 60]);
    const page = inventoryPage({ scopes: [scopeView('srv', p, e)], destination: null, format: archiveCloud, identity: null, retentionPolicy: null, minimumRedundancy: null, maxArchiveLagSeconds: null, demo: false });
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
  async function scanned(build: (repo: SyntheticRepository, store: MemoryStore) => void) {
    const store = new MemoryStore();
    build(new SyntheticRepository(store, 'pg/srv/'), store);
    const publisher = testPublisher();
    const e = await scanScope({ format: archiveCloud, server: 'srv', root: 'pg/srv/', driver: store, signal: new AbortController().signal, meter: new BudgetMeter({ maxPages: 1e4, maxObjects: 1e6 }), concurrency: 2, ...publisher.nextScan });
    return { publisher, e, p: publisher.complete(e, { startedAt: minute(100), finishedAt: minute(101), pages: 1, objects: 1 }) };
  }
  const render = (v: ReturnType<typeof scopeView>, destination: Parameters<typeof inventoryPage>[0]['destination'] = null) => inventoryPage({ scopes: [v], destination, format: archiveCloud, identity: null, retentionPolicy: null, minimumRedundancy: null, maxArchiveLagSeconds: null, demo: false });
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
    const [top = '', rest = ''] = page.split('</dl>');
    assert.equal(rest.match(/class="state retained"/g)?.length, items);
    // The top facts judge from the same retained evidence: their badges are retained too.
    assert.match(top.slice(top.indexOf('<dl class="top">')), /class="state retained"/);
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
    assert.match(render(scopeView('srv', p, e), { unscopedObjects: 3, foreignFormat: null, discoveryFailure: null, discoveryPending: false }), /belong to no server scope: 3\./);
    const foreign = render(scopeView('srv', p, e), { unscopedObjects: null, foreignFormat: 'stanza-repository', discoveryFailure: null, discoveryPending: false });
    assert.match(foreign, /looks like a pgBackRest repository \(REPOSITORY_FORMAT=stanza-repository\)/);
    assert.match(foreign, /belong to no server scope: <span class="muted">unknown<\/span>/);
  });
});

describe("the operator's four questions at the top of each server", () => {
  const T = new Date('2026-11-21T10:00:00Z');
  const minute = (n: number) => new Date(T.getTime() + n * 60_000);
  type Expect = { policyText: string | null; minimumRedundancy: number | null };
  async function view(build: (repo: SyntheticRepository, store: MemoryStore) => void, o: { clock?: Date | null; server?: string; expect?: Expect } = {}) {
    const server = o.server ?? 'srv';
    const store = new MemoryStore({ storeClock: () => (o.clock === undefined ? minute(25) : o.clock) });
    build(new SyntheticRepository(store, `pg/${server}/`), store);
    const x = o.expect ?? { policyText: null, minimumRedundancy: null };
    const publisher = testPublisher({ identity: { server }, expectations: { ...x, policy: x.policyText === null ? null : parseRetentionPolicy(x.policyText) } });
    const e = await scanScope({ format: archiveCloud, server, root: `pg/${server}/`, driver: store, signal: new AbortController().signal, meter: new BudgetMeter({ maxPages: 1e4, maxObjects: 1e6 }), concurrency: 2, ...publisher.nextScan });
    const p = publisher.complete(e, { startedAt: minute(100), finishedAt: minute(101), pages: 1, objects: 1 });
    assert.deepEqual(p.violations, []);
    return scopeView(server, p, e);
  }
  const ctx = (scopes: PageContext['scopes'], more: Partial<PageContext> = {}): PageContext => ({ scopes, destination: null, format: archiveCloud, identity: null, retentionPolicy: null, minimumRedundancy: null, maxArchiveLagSeconds: null, demo: false, ...more });
  /** The top facts as text: tags dropped, entities decoded, whitespace collapsed. */
  const topText = (page: string) => {
    const top = /<dl class="top">([\s\S]*?)<\/dl>/.exec(page)?.[1] ?? '';
    return top.replace(/<\/?(dt|dd|li|ul|div)>/g, ' ').replace(/<[^>]+>/g, '').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&#39;/g, "'").replace(/&quot;/g, '"').replace(/&amp;/g, '&').replace(/\s+/g, ' ').trim();
  };
  // Segments 1..20 received a minute apart from minute 0 (the newest at minute 19); the store's clock says minute 25.
  const HOSTILE = '<script>alert(1)</script>';
  const healthy = (repo: SyntheticRepository) => {
    repo.segments(1, 1, 20, minute(0));
    repo.backup({ id: '20261121T100100', timeline: 1, beginPosition: 2, endPosition: 3, beginTime: minute(1), endTime: minute(3), name: HOSTILE, keep: 'full' });
    repo.backup({ id: '20261121T100800', timeline: 1, beginPosition: 8, endPosition: 9, status: 'FAILED', beginTime: minute(8), endTime: minute(9) });
    repo.backup({ id: '20261121T101500', timeline: 1, beginPosition: 15, endPosition: 15, withoutInfo: true, beginTime: minute(15), endTime: minute(15) });
  };

  it('names the newest WAL by the store clock, the backup to restore from, why not the newer ones, and how far coverage reaches', async () => {
    const page = inventoryPage(ctx([await view(healthy)]));
    assert.equal(
      topText(page),
      'Newest WAL received 2026-11-21 10:19:00Z (store time), 6 min before the scan by the store\'s clock ' +
        'Archive lag 6 min; no maximum is configured (EXPECTED_MAX_ARCHIVE_LAG), so it is shown, not judged ' +
        'Backup to restore from (timeline 1) 20261121T100100 <script>alert(1)</script> keep:full, ended 2026-11-21 10:03:00Z healthy: the newest structurally usable backup whose observed recovery coverage reaches the newest WAL of timeline 1. ' +
        'Not a newer one: 20261121T101500 (time unknown): not structurally usable (backup-info-missing) 20261121T100800: not structurally usable (backup-failed) ' +
        'Observed recovery coverage reaches WAL received up to 2026-11-21 10:19:00Z (store time; a receipt time, not a transaction time), segment 000000010000000000000014 on timeline 1, from 20261121T100100 <script>alert(1)</script> keep:full',
    );
    assert.doesNotMatch(page, /restorable until|exact recovery window|restore guaranteed|restore verified/i);
  });

  it('shows each backup by its name and keep status, escaped; the wire items carry neither', async () => {
    const v = await view(healthy);
    const page = inventoryPage(ctx([v]));
    assert.doesNotMatch(page, /<script/i);
    assert.match(page, /<tr><td><code>20261121T100100<\/code><\/td><td>&lt;script&gt;alert\(1\)&lt;\/script&gt;<\/td><td>full<\/td>/);
    assert.match(page, /<tr><td><code>20261121T100800<\/code><\/td><td>-<\/td><td>-<\/td>/);
    for (const b of v.publication.backups) assert.doesNotMatch(JSON.stringify(b), /script|label|backup_name|"keep"/);
  });

  it('when no path reaches the frontier it says so and names the furthest path and its stop', async () => {
    const v = await view((repo) => {
      repo.segments(1, 1, 20, minute(0), { missing: [12] });
      repo.backup({ id: '20261121T100100', timeline: 1, beginPosition: 2, endPosition: 3, beginTime: minute(1), endTime: minute(3) });
      repo.backup({ id: '20261121T100500', timeline: 1, beginPosition: 5, endPosition: 6, beginTime: minute(5), endTime: minute(6), name: 'before-migration' });
    });
    const text = topText(inventoryPage(ctx([v])));
    const confirmed = v.publication.walGaps[0]?.status === 'confirmed';
    const stop = confirmed ? 'missing WAL after 00000001000000000000000B (gap-limited)' : 'a candidate gap after 00000001000000000000000B (candidate-limited)';
    assert.match(text, new RegExp(`Backup to restore from \\(timeline 1\\) ${confirmed ? 'unhealthy' : 'warning'} none: no backup's observed recovery coverage reaches the newest WAL of timeline 1\\. The furthest path, from 20261121T100500 before-migration, stops at ${stop.replace(/[()]/g, '\\$&')}\\.`));
    assert.match(text, /Why not each backup: 20261121T100500 before-migration: its path stops at .* 20261121T100100: its path stops at /);
    assert.match(text, /Observed recovery coverage reaches only to WAL received at 2026-11-21 10:10:00Z \(store time\), segment 00000001000000000000000B, from 20261121T100500 before-migration: short of the newest WAL/);
  });

  it('judges the lag only against a configured expectation, and never calls an unmeasured lag zero', async () => {
    const v = await view(healthy);
    const lag = (max: number | null, w = v) => /Archive lag (.*?) Backup to restore/.exec(topText(inventoryPage(ctx([w], { maxArchiveLagSeconds: max }))))?.[1];
    assert.equal(lag(60), "warning 6 min, over the expected maximum of 1 min (archive-lag-over-expectation): by the store's clock the newest WAL is 6 min old. A database with no writes archives nothing, so this says look at the archiving, not that it failed.");
    assert.equal(lag(3_600), 'healthy 6 min, within the expected maximum of 1 h');
    assert.equal(lag(null), '6 min; no maximum is configured (EXPECTED_MAX_ARCHIVE_LAG), so it is shown, not judged');
    const noClock = await view(healthy, { clock: null });
    assert.equal(lag(null, noClock), 'unknown unknown: the store sent no clock reading, so the age of the newest WAL cannot be measured');
    assert.equal(lag(60, noClock), 'unknown unknown: the store sent no clock reading, so the age of the newest WAL cannot be measured; the expected maximum of 1 min cannot be checked (archive-lag-unknown)');
    assert.match(topText(inventoryPage(ctx([noClock]))), /Newest WAL received 2026-11-21 10:19:00Z \(store time\), how long before the scan is unknown: the store sent no clock reading/);
    // The store's clock behind its own newest receipt (D-86): skew, never a lag of 0.
    const skewed = await view(healthy, { clock: minute(10) });
    assert.equal(lag(60, skewed), "unknown unknown: a WAL object was received after the store's own clock at the scan, so the store's clocks disagree and the age of the newest WAL cannot be measured; the expected maximum of 1 min cannot be checked (archive-receipt-after-store-clock)");
    assert.match(topText(inventoryPage(ctx([skewed]))), /how long before the scan is unknown: it was received after the store's own clock at the scan/);
  });

  it('lists recent objects newest first, and on one receipt time the later key (the newer segment) first', async () => {
    const v = await view((repo) => {
      repo.segments(1, 1, 3, minute(0));
      // Four segments stamped in the same second, as an archiver catching up sends them.
      repo.segments(1, 4, 7, minute(5), { stepMs: 0 });
    });
    assert.deepEqual(v.recentObjects.map((o) => [o.key, o.receivedAt.slice(11, 19)]), [
      ['wals/0000000100000000/000000010000000000000007', '10:05:00'],
      ['wals/0000000100000000/000000010000000000000006', '10:05:00'],
      ['wals/0000000100000000/000000010000000000000005', '10:05:00'],
      ['wals/0000000100000000/000000010000000000000004', '10:05:00'],
      ['wals/0000000100000000/000000010000000000000003', '10:02:00'],
      ['wals/0000000100000000/000000010000000000000002', '10:01:00'],
      ['wals/0000000100000000/000000010000000000000001', '10:00:00'],
    ]);
    const page = inventoryPage(ctx([v]));
    const shown = [...page.matchAll(/<tr><td><code>wals\/0000000100000000\/(\w+)<\/code>/g)].map((m) => m[1]?.slice(-2));
    assert.deepEqual(shown, ['07', '06', '05', '04', '03', '02', '01']);
  });

  it('states a failed discovery with its category instead of "0 server scopes"', () => {
    const page = inventoryPage(ctx([], { destination: { unscopedObjects: null, foreignFormat: null, discoveryFailure: 'not_found', discoveryPending: false } }));
    assert.match(page, /Server scopes: <span class="muted">unknown<\/span>, discovery failed\./);
    assert.match(page, /<strong>Discovery failed \(not_found\):<\/strong> the bucket or container does not exist; check DESTINATION_PATH\. No server scope is known/);
    assert.doesNotMatch(page, /0 server scopes/);
    assert.match(inventoryPage(ctx([], { destination: { unscopedObjects: null, foreignFormat: null, discoveryFailure: 'authorization', discoveryPending: false } })), /Discovery failed \(authorization\):<\/strong> the credentials may not list the destination/);
    // Found nothing, and said so: an empty destination is not a failure.
    assert.match(inventoryPage(ctx([], { destination: { unscopedObjects: 0, foreignFormat: null, discoveryFailure: null, discoveryPending: false } })), /0 server scopes\./);
  });

  it('while the first discovery runs, says so on every page instead of "0 server scopes"', () => {
    const c = ctx([], { destination: { unscopedObjects: null, foreignFormat: null, discoveryFailure: null, discoveryPending: true } });
    const page = inventoryPage(c);
    assert.match(page, /Server scopes: <span class="muted">unknown<\/span>, discovery in progress\./);
    assert.match(page, /<strong>Discovery in progress:<\/strong>/);
    assert.doesNotMatch(page, /0 server scopes/);
    const filter = parseWalFilter(new URLSearchParams(), []);
    assert.ok(filter.ok);
    assert.match(walsPage(c, filter.filter, 200), /<strong>Discovery in progress:<\/strong>/);
    // Once it has ended, the notice is gone.
    assert.doesNotMatch(inventoryPage(ctx([], { destination: { unscopedObjects: 0, foreignFormat: null, discoveryFailure: null, discoveryPending: false } })), /Discovery in progress/);
  });

  it('shows the retention verdict beside the expectation it is about', async () => {
    const policy = { policyText: 'RECOVERY WINDOW OF 7 DAYS', minimumRedundancy: 1 };
    const v = await view(healthy, { expect: policy });
    const page = inventoryPage(ctx([v], { retentionPolicy: policy.policyText, minimumRedundancy: 1 }));
    assert.match(page, /<span>Expected retention<\/span><span>RECOVERY WINDOW OF 7 DAYS <span class="state warning">warning<\/span> No usable backup covers the configured recovery window\.<\/span>/);
    assert.match(page, /<span>Minimum redundancy<\/span><span>1 expected, 1 structurally usable<\/span>/);
    const unmet = await view(healthy, { expect: { policyText: null, minimumRedundancy: 3 } });
    const page2 = inventoryPage(ctx([unmet], { minimumRedundancy: 3 }));
    assert.match(page2, /<span>Expected retention<\/span><span>not configured<\/span>/);
    assert.match(page2, /<span>Minimum redundancy<\/span><span>3 expected, 1 structurally usable <span class="state unhealthy">unhealthy<\/span> Fewer structurally usable backups than the configured minimum\.<\/span>/);
  });

  it('many servers: a fleet table first, one row per server linking to its section', async () => {
    const views = [];
    for (let i = 0; i < 30; i++) {
      const server = `pg-${String(i).padStart(2, '0')}`;
      views.push(await view((repo) => {
        repo.segments(1, 1, 10, minute(i), { missing: i % 7 === 3 ? [6] : [] });
        repo.backup({ id: '20261121T100100', timeline: 1, beginPosition: 2, endPosition: 3, beginTime: minute(1), endTime: minute(3), ...(i % 2 === 0 ? { name: `nightly-${i}` } : {}) });
      }, { server }));
    }
    const page = inventoryPage(ctx(views, { maxArchiveLagSeconds: 15 * 60 }));
    const fleet = /<table class="fleet">([\s\S]*?)<\/table>/.exec(page)?.[1] ?? '';
    const rows = [...fleet.matchAll(/<tr><td><a href="#server-([\w-]+)">/g)].map((m) => m[1]);
    assert.deepEqual(rows, views.map((v) => v.server));
    for (const v of views) assert.match(page, new RegExp(`<section id="server-${v.server}"`));
    assert.ok(page.indexOf('class="fleet"') < page.indexOf('<section id="server-'), 'the fleet table comes first');
    // pg-00: newest WAL at minute 9, clock at minute 25: 16 min, over 15 min. pg-03 lost segment 6.
    assert.match(fleet, /<a href="#server-pg-00"><code>pg-00<\/code><\/a><\/td><td><span class="state [a-z]+">[a-z]+<\/span> <code class="reason">[a-z-]+<\/code><\/td>\n<td><code>20261121T100100<\/code> <span class="label" title="backup name">nightly-0<\/span> <span class="state healthy">healthy<\/span> <span class="muted">ended <time datetime="[^"]+">2026-11-21 10:03:00Z<\/time><\/span><\/td>\n<td>16 min <span class="state warning">warning<\/span> over 15 min<\/td>\n<td>none<\/td>/);
    assert.match(fleet, /<a href="#server-pg-03">[\s\S]*?<td>13 min<\/td>\n<td>1 (candidate|confirmed)<\/td>/);
    // Each state with the reason code that explains it.
    assert.match(fleet, /<a href="#server-pg-03"><code>pg-03<\/code><\/a><\/td><td><span class="state (warning|unhealthy)">\1<\/span> <code class="reason">wal-gap-(candidate|confirmed)<\/code>/);
    const single = inventoryPage(ctx([views[0] ?? assert.fail()]));
    assert.doesNotMatch(single, /class="fleet"/);
  });
});

describe('a pgBackRest stanza on the inventory page', () => {
  const T0 = Date.parse('2026-11-21T13:28:00Z');
  const at = (minutes: number) => new Date(T0 + minutes * 60_000);
  const F = '20261121-132800F';
  const D = `${F}_20261121-133000D`;
  const I = `${F}_20261121-133200I`;
  const full: SyntheticBackup = { label: F, type: 'full', timeline: 1, beginPosition: 3, endPosition: 4, beginTime: at(0), endTime: at(1) };
  const diff: SyntheticBackup = { label: D, type: 'diff', prior: F, reference: [F], timeline: 1, beginPosition: 6, endPosition: 7, beginTime: at(2), endTime: at(3), bundled: true };
  const incr: SyntheticBackup = { label: I, type: 'incr', prior: D, reference: [F, D], timeline: 1, beginPosition: 9, endPosition: 10, beginTime: at(4), endTime: at(5) };
  const interrupted: SyntheticBackup = { label: '20261121-134500F', type: 'full', timeline: 1, beginPosition: 11, endPosition: 11, beginTime: at(6), endTime: at(7), manifest: 'copy-only', listed: false };
  const unlisted: SyntheticBackup = { label: '20261121-134000F', type: 'full', timeline: 1, beginPosition: 11, endPosition: 12, beginTime: at(6), endTime: at(7), listed: false };

  async function page(backups: readonly SyntheticBackup[], damage: (store: MemoryStore, repo: SyntheticStanza) => Promise<void> = () => Promise.resolve()) {
    const store = new MemoryStore();
    const repo = new SyntheticStanza(store, 'repo/', 'main');
    repo.segments(1, 3, 12, at(0), { stepMs: 30_000 });
    for (const b of backups) repo.backup(b);
    repo.info();
    await damage(store, repo);
    const { base, roots } = stanzaRepository.scopeRoots('repo', 'main');
    const publisher = testPublisher({ identity: { server: 'main', format: stanzaRepository } });
    const e = await scanScope({ format: stanzaRepository, server: 'main', root: base, driver: confine(store, roots), signal: new AbortController().signal, meter: new BudgetMeter({ maxPages: 1e4, maxObjects: 1e6 }), concurrency: 2, ...publisher.nextScan });
    const view = scopeView('main', publisher.complete(e, { startedAt: at(60), finishedAt: at(61), pages: 1, objects: 1 }), e);
    // Labels may break after their `_`: the tests read them whole.
    return inventoryPage({ scopes: [view], destination: null, format: stanzaRepository, identity: null, retentionPolicy: null, minimumRedundancy: null, maxArchiveLagSeconds: null, demo: false }).replaceAll('<wbr>', '').replaceAll('<code class="id">', '<code>');
  }
  /** The type cell of a backup's row, tags stripped. */
  const typeOf = (page: string, id: string) => {
    const html = page.replaceAll('&nbsp;', ' ');
    const row = new RegExp(`<tr><td><code>${id}</code></td><td>(.*?)</td>`).exec(html)?.[1];
    return row?.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ').trim();
  };
  /** Backup ids under each h3 of the catalog, in page order. */
  const headings = (html: string) =>
    [...html.matchAll(/<h3>([^<]+)<\/h3>(?:<p class="muted">[^<]*<\/p>)?\s*<div class="scroll"[^>]*><table><thead><tr><th>backup<\/th><th>type<\/th>.*?<\/tbody><\/table>/gs)].map((m) => [m[1], [...(m[0].matchAll(/<tr><td><code>([^<]+)<\/code>/g))].map((r) => r[1])]);

  it('shows each backup type with the backups it depends on, nearest first, and names pgBackRest, never Barman', async () => {
    const html = await page([full, diff, incr]);
    assert.equal(typeOf(html, F), 'full');
    assert.equal(typeOf(html, D), `diff of ${F}`);
    assert.equal(typeOf(html, I), `incr of ${D} ← ${F}`);
    assert.match(html, /<span>Repository<\/span><span>pgBackRest \(<code>stanza-repository<\/code>\)<\/span>/);
    assert.match(html, /<span>Completed backups by type<\/span><span>1 full, 1 diff, 1 incr<\/span>/);
    assert.match(html, /<span>Dependency chains<\/span><span><span class="state healthy">healthy<\/span>/);
    assert.doesNotMatch(html, /Barman/i);
    // pgBackRest lists no names or keep statuses: the catalog has no such columns.
    assert.doesNotMatch(html, /<th>keep<\/th>/);
  });

  it('lists interrupted and unlisted backups each under its own heading, never among completed ones', async () => {
    const html = await page([full, diff, incr, unlisted, interrupted]);
    assert.deepEqual(headings(html), [['Completed (3)', [F, D, I]], ['Interrupted (1)', [interrupted.label]], ['Unlisted (1)', [unlisted.label]]]);
    assert.match(html, /<span>Interrupted backups<\/span><span>1<\/span>/);
    assert.match(html, /not listed by pgBackRest&#39;s own info/);
  });

  it('marks the dependency that breaks a chain: not usable, or missing from the catalog', async () => {
    const broken = await page([full, diff, incr], async (store, repo) => {
      // The diff is listed in backup.info and its directory is gone.
      const listed = await store.listPage({ prefix: `${repo.backupDir}${D}/`, signal: new AbortController().signal });
      for (const o of listed.objects) store.delete(o.key);
    });
    assert.equal(typeOf(broken, I), `incr of ${D} (unhealthy: not usable) ← ${F}`);
    assert.match(broken, /A backup this one depends on is not proven structurally usable\./);
    assert.match(broken, /<span>Dependency chains<\/span><span><span class="state unhealthy">unhealthy<\/span>/);
    const missing = await page([full, { ...incr, reference: [F, D] }]);
    assert.equal(typeOf(missing, I), `incr of ${D} (missing) ← ${F}`);
    assert.match(missing, /A backup this one depends on is missing\./);
  });
});
