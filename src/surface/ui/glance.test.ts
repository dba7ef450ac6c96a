/**
 * The page's answers at a glance on real scans of synthetic repositories: the display name, the
 * structural-evidence sentence, one observed recovery window per server (derived from the paths,
 * never a fixed text), "what to do" for each reason code shown, byte units with the exact count in
 * a title, the bulk-copy note (a repository whose objects were all received days after its backups
 * ended, against the same repository as archived), the first scan's progress, the switchpoint of a
 * history and the gaps-only WAL filter; and the pure helpers' edges.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BudgetMeter } from '../../evidence/listing.ts';
import { scanScope } from '../../evidence/scope-scan.ts';
import { archiveCloud } from '../../format/barman-cloud/format.ts';
import { SyntheticRepository } from '../../format/barman-cloud/synthetic-repository.ts';
import { adviceFor } from '../../publication/advice.ts';
import type { StoreDriver } from '../../store/driver.ts';
import { MemoryStore } from '../../store/memory/memory-driver.ts';
import { formatLsn } from '../../postgres/wal.ts';
import { bytesText, copiedReceipts, displayNameOf, ERROR_TEXT_MAX, observedWindow, recordedErrorText } from './glance.ts';
import { escape } from './html.ts';
import { inventoryPage, parseWalFilter, walsPage, type PageContext } from './pages.ts';
import { scopeView } from './scope-view.ts';
import { testPublisher } from '../../../test/support/publication-fixture.ts';

const T = Date.parse('2026-11-21T10:00:00Z');
const minute = (n: number) => new Date(T + n * 60_000);
const DAY = 86_400_000;

/** The same listing, every object received at `copiedAt` plus a second per object: what a bulk copy leaves. */
function copied(store: MemoryStore, copiedAt: number): StoreDriver {
  let n = 0;
  return {
    listPage: async (r) => {
      const page = await store.listPage(r);
      return { ...page, objects: page.objects.map((o) => ({ ...o, lastModified: new Date(copiedAt + (n++ % 20) * 1000) })) };
    },
    read: (r) => store.read(r),
    readStream: (r) => store.readStream(r),
    close: () => store.close(),
  };
}

/** Two backups on timeline 1, a lost segment, then timeline 2 after a promotion; a failed backup. */
function build(store: MemoryStore): bigint {
  const repo = new SyntheticRepository(store, 'pg/srv/');
  repo.segments(1, 1, 12, minute(1), { missing: [9] });
  repo.history(2, [{ parent: 1, switchpoint: repo.switchpoint(12), reason: 'promotion' }], minute(40));
  repo.segments(2, 12, 16, minute(41));
  repo.backup({ id: '20261121T100100', timeline: 1, beginPosition: 2, endPosition: 3, beginTime: minute(2), endTime: minute(3), archiveSuffix: '.gz' });
  repo.backup({ id: '20261121T100600', timeline: 1, beginPosition: 10, endPosition: 11, beginTime: minute(10), endTime: minute(11) });
  repo.backup({ id: '20261121T100700', timeline: 1, beginPosition: 11, endPosition: 11, status: 'FAILED', beginTime: minute(11), endTime: minute(12) });
  return repo.switchpoint(12);
}

async function scanned(driver: StoreDriver) {
  const publisher = testPublisher();
  const e = await scanScope({ format: archiveCloud, server: 'srv', root: 'pg/srv/', driver, signal: new AbortController().signal, meter: new BudgetMeter({ maxPages: 1e4, maxObjects: 1e6 }), concurrency: 2, ...publisher.nextScan });
  const p = publisher.complete(e, { startedAt: minute(100), finishedAt: minute(101), pages: 1, objects: 1 });
  return { p, e, view: scopeView('srv', p, e) };
}

const ctxOf = (views: PageContext['scopes'], extra: Partial<PageContext> = {}): PageContext => ({ scopes: views, destination: null, format: archiveCloud, identity: null, retentionPolicy: null, minimumRedundancy: null, maxArchiveLagSeconds: null, demo: false, ...extra });
const text = (html: string) => html.replace(/<[^>]+>/g, '').replace(/\s+/g, ' ');

describe('the page at a glance', () => {
  it('names the repository and says what structural evidence is', async () => {
    const store = new MemoryStore();
    build(store);
    const { view } = await scanned(store);
    const name = displayNameOf({ provider: 'store-b', bucket: 'backups', prefix: 'prod/eu' });
    const page = inventoryPage(ctxOf([view], { name }));
    assert.match(page, /<title>Inventory · backups\/prod\/eu \(Azure Blob Storage\) · viewer<\/title>/);
    assert.match(page, /<h2>Repository <span class="name">backups\/prod\/eu \(Azure Blob Storage\)<\/span><\/h2>/);
    assert.match(text(page), /never reads the contents of backups or WAL segments/);
    // Unnamed: neither the title nor the heading invents one.
    assert.match(inventoryPage(ctxOf([view])), /<title>Inventory · viewer<\/title>/);
  });

  it('gives one observed recovery window per server, from the paths', async () => {
    const store = new MemoryStore();
    build(store);
    const { p, view } = await scanned(store);
    const w = observedWindow(p.backups, p.recoveryPaths);
    // The lost segment 9 cuts the first backup's path: the window starts at the second backup's end.
    assert.ok(w !== null);
    assert.equal(w.timeline, 2);
    assert.equal(w.fromBackup, '20261121T100600');
    assert.equal(Date.parse(w.from), minute(11).getTime());
    assert.equal(w.to, p.walRanges.filter((r) => r.timeline === 2).at(-1)?.end_receipt_at);
    const page = inventoryPage(ctxOf([view]));
    const line = /<ul class="windows"><li>(.*?)<\/li><\/ul>/s.exec(page)?.[1] ?? '';
    assert.match(text(line), new RegExp(`srv: observed recovery coverage from ${w.from.slice(0, 10)} .* to ${(w.to ?? '').slice(0, 10)} .* on timeline 2 \\(from the end of backup 20261121T100600`));
  });

  it('says what to do for each reason code the server shows, from the one advice table', async () => {
    const store = new MemoryStore();
    build(store);
    const { p, view } = await scanned(store);
    const page = inventoryPage(ctxOf([view]));
    const items = [...(/<ul class="todo">(.*?)<\/ul>/s.exec(page)?.[1] ?? '').matchAll(/<li><code class="reason">([^<]+)<\/code>[^:]*:\s*(.*?)<\/li>/gs)].map((m) => [m[1], m[2]]);
    const codes = items.map(([c]) => c);
    assert.ok(codes.includes(p.snapshot.reason.code), `${p.snapshot.reason.code} in ${codes.join(', ')}`);
    assert.ok(codes.includes('backup-failed'));
    for (const [code, advice] of items) assert.equal(advice, escape(adviceFor(code ?? '', 'Barman') ?? ''));
    // No line for a reason that needs no action.
    assert.ok(!codes.includes('structurally-usable') && !codes.includes('timelines-consistent'));
  });

  it('shows byte counts in units with the exact count in a title', async () => {
    const store = new MemoryStore();
    build(store);
    const { p, view } = await scanned(store);
    const total = p.snapshot.inventory.stored_bytes ?? 0;
    const page = inventoryPage(ctxOf([view]));
    assert.ok(total > 1024);
    assert.ok(page.includes(`<span>Stored bytes</span><span><span class="bytes" title="${total.toLocaleString('en-US')} bytes">${bytesText(total).text}</span>`));
  });

  it('says receipt times are copy times when every object arrived days after the backups ended, and not otherwise', async () => {
    const store = new MemoryStore();
    build(store);
    const archived = await scanned(store);
    assert.equal(copiedReceipts(archived.p.backups, archived.view.receipts), null);
    assert.doesNotMatch(inventoryPage(ctxOf([archived.view])), /copy times/);
    const copy = await scanned(copied(store, T + 9 * DAY));
    const c = copiedReceipts(copy.p.backups, copy.view.receipts);
    assert.ok(c !== null);
    // Every backup with an end time ended over a day before the first receipt; the oldest is named first.
    const ended = copy.p.backups.filter((b) => b.end_at !== null).map((b) => b.backup_id).sort();
    assert.ok(ended.length >= 2);
    assert.deepEqual(c.backups.map((b) => b.id), ended);
    assert.equal(c.oneBatch, true);
    const page = text(inventoryPage(ctxOf([copy.view])));
    assert.match(page, new RegExp(`Receipt times here are copy times, not archiving times\\. ${ended.length} backups, e\\.g\\. ${ended.slice(0, 3).join(', ')} ended 8 d 23 h before the first object of this server was received`));
    assert.match(page, /a copy time: see the note on receipt times/);
  });

  it('shows a failed backup\'s recorded error, sanitised and escaped, when its format hands one over', async () => {
    const store = new MemoryStore();
    build(store);
    const { p, e } = await scanned(store);
    const failed = '20261121T100700';
    // barman-cloud hands over the text its backup.info records; a hostile one replaces it here.
    const withError = { ...e, backups: e.backups.map((b) => (b.item.backup_id === failed ? { ...b, label: { ...b.label, error: 'failure running backup:\n<script>x</script>\u0007 disk full' } } : b)) };
    const page = inventoryPage(ctxOf([scopeView('srv', p, withError)]));
    assert.match(page, /<div class="recorded-error">Recorded error: <q>failure running backup: &lt;script&gt;x&lt;\/script&gt; disk full<\/q><\/div>/);
    assert.equal(page.match(/class="recorded-error"/g)?.length, 1);
    // As scanned: the synthetic repository's own recorded text, through the format (backup.info `error`).
    assert.match(inventoryPage(ctxOf([scopeView('srv', p, e)])), /<div class="recorded-error">Recorded error: <q>failure uploading data \(connection reset\)<\/q><\/div>/);
    const withoutError = { ...e, backups: e.backups.map((b) => ({ ...b, label: { name: b.label.name, keep: b.label.keep } })) };
    assert.doesNotMatch(inventoryPage(ctxOf([scopeView('srv', p, withoutError)])), /class="recorded-error"/);
  });

  it('shows the first scan\'s progress while it runs', async () => {
    const store = new MemoryStore();
    build(store);
    const { view } = await scanned(store);
    assert.match(text(inventoryPage(ctxOf([view], { progress: { pages: 3, objects: 2_345 } }))), /Scanning: 3 pages, 2,345 objects so far/);
    assert.doesNotMatch(inventoryPage(ctxOf([view], { progress: null })), /Scanning:/);
  });

  it('lists each history\'s switchpoint and filters the WAL browser to gaps only', async () => {
    const store = new MemoryStore();
    const switchpoint = build(store);
    const { view } = await scanned(store);
    const filter = (q: string) => {
      const f = parseWalFilter(new URLSearchParams(q), ['srv']);
      assert.ok(f.ok);
      return walsPage(ctxOf([view]), f.filter, 100);
    };
    assert.match(text(filter('class=history')), new RegExp(`history file \\(valid\\): switches from timeline 1 at LSN ${formatLsn(switchpoint)}, in segment 00000001000000000000000C`));
    const gaps = filter('class=gap');
    assert.match(gaps, /1 row, page 1 of 1/);
    assert.match(text(gaps), /srv1000000010000000000000009000000010000000000000009missing 1 segment/);
    assert.doesNotMatch(gaps, /archived segment/);
    assert.match(filter(''), /href="\/wals\?class=gap">Show only the gaps/);
  });
});

describe('glance helpers', () => {
  it('derives a display name from bucket and prefix only', () => {
    assert.equal(displayNameOf({ provider: 'store-a', bucket: 'b', prefix: '' }), 'b (S3)');
    assert.equal(displayNameOf({ provider: 'store-c', bucket: 'b', prefix: '/x/y/' }), 'b/x/y (Google Cloud Storage)');
    // A full destination's account and emulator origin never appear.
    const d = { provider: 'store-b' as const, bucket: 'c', account: 'secretaccount', emulatorOrigin: 'http://127.0.0.1:10000', prefix: 'p' };
    assert.equal(displayNameOf(d), 'c/p (Azure Blob Storage)');
  });

  it('writes bytes in binary units, never rounding up', () => {
    assert.deepEqual(bytesText(0), { text: '0 B', exact: '0 bytes' });
    assert.equal(bytesText(1023).text, '1023 B');
    assert.equal(bytesText(1024).text, '1.00 KiB');
    assert.equal(bytesText(1536).text, '1.50 KiB');
    assert.equal(bytesText(1024 * 1024 - 1).text, '1023 KiB');
    assert.equal(bytesText(16 * 1024 * 1024).text, '16.0 MiB');
    assert.deepEqual(bytesText(5_000_000_000), { text: '4.65 GiB', exact: '5,000,000,000 bytes' });
  });

  it('bounds and sanitises a recorded error text', () => {
    assert.equal(recordedErrorText(null), null);
    assert.equal(recordedErrorText(42), null);
    assert.equal(recordedErrorText(' \u0000\u0007 '), null);
    assert.equal(recordedErrorText('failure running\nbackup:\u001b[31m\tboom\u202e'), 'failure running backup:[31m boom');
    const long = recordedErrorText('x'.repeat(5_000)) ?? '';
    assert.equal([...long].length, ERROR_TEXT_MAX);
    assert.ok(long.endsWith('…'));
  });
});
