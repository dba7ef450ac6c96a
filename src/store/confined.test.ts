/**
 * Confinement: no request leaves the scope's roots, one root or several (a format whose scope
 * spans two areas), and a listed key outside them is refused rather than trusted.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { confine } from './confined.ts';
import type { StoreDriver } from './driver.ts';
import { MemoryStore } from './memory/memory-driver.ts';

const signal = new AbortController().signal;
const category = async (p: Promise<unknown>) => p.then(() => 'ok', (e: unknown) => (e as { category?: string }).category ?? 'thrown');

describe('confinement', () => {
  const store = new MemoryStore();
  for (const k of ['dest/archive/main/archive.info', 'dest/backup/main/backup.info', 'dest/other/x']) store.put(k, 'x');
  const two = confine(store, ['dest/archive/main/', 'dest/backup/main/']);

  it('lists and reads inside every root, nothing outside', async () => {
    assert.deepEqual((await two.listPage({ prefix: 'dest/archive/main/', signal })).objects.map((o) => o.key), ['dest/archive/main/archive.info']);
    assert.equal((await two.read({ key: 'dest/backup/main/backup.info', maxBytes: 10, signal })).status, 'found');
    assert.equal(await category(two.listPage({ prefix: 'dest/', signal })), 'invalid_configuration');
    assert.equal(await category(two.read({ key: 'dest/other/x', maxBytes: 10, signal })), 'invalid_configuration');
    assert.equal(await category(two.listPage({ prefix: 'dest/archive/main/', startAfter: 'dest/other/', signal })), 'invalid_configuration');
  });

  it('passes an object behind a customer-provided key on as key-required, whole or streamed, listed as usual (D-92)', async () => {
    const sealed = new MemoryStore();
    sealed.put('dest/backup/main/backup.info', 'x'.repeat(7));
    sealed.sealWithCustomerKey('dest/backup/main/backup.info');
    const c = confine(sealed, 'dest/backup/main/');
    assert.deepEqual(await c.read({ key: 'dest/backup/main/backup.info', maxBytes: 10, signal }), { status: 'key-required' });
    assert.deepEqual(await c.readStream({ key: 'dest/backup/main/backup.info', maxBytes: 10, signal }), { status: 'key-required' });
    assert.deepEqual((await c.listPage({ prefix: 'dest/backup/main/', signal })).objects.map((o) => [o.key, o.size]), [['dest/backup/main/backup.info', 7]]);
  });

  it('refuses a listing that strays outside the roots, and roots that are not prefixes', async () => {
    const careless: StoreDriver = { listPage: (r) => store.listPage({ ...r, prefix: 'dest/' }), read: (r) => store.read(r), readStream: (r) => store.readStream(r), close: () => undefined };
    assert.equal(await category(confine(careless, 'dest/archive/main/').listPage({ prefix: 'dest/archive/main/', signal })), 'incompatible_format');
    assert.throws(() => confine(store, []), TypeError);
    assert.throws(() => confine(store, ['dest/archive']), TypeError);
  });

  it("carries the page's store time through as given; one the wire cannot carry becomes unknown, never another clock", async () => {
    const at = new Date('2026-03-03T10:00:00Z');
    let clock: Date | null = at;
    const timed = new MemoryStore({ storeClock: () => clock });
    timed.put('dest/archive/main/archive.info', 'x', new Date(0));
    const confined = confine(timed, 'dest/archive/main/');
    const page = await confined.listPage({ prefix: 'dest/archive/main/', signal });
    assert.equal(page.storeTime, at);
    // Rebuilding the page for an odd receipt time keeps the store time.
    assert.deepEqual([page.objects[0]?.lastModified, page.storeTime], [null, at]);
    for (const odd of [new Date(Number.NaN), new Date(0), new Date(Date.UTC(12000, 0, 1)), null]) {
      clock = odd;
      assert.equal((await confined.listPage({ prefix: 'dest/archive/main/', signal })).storeTime, null, String(odd));
    }
    // Without a clock of its own the memory store reports none.
    assert.equal((await confine(store, 'dest/archive/main/').listPage({ prefix: 'dest/archive/main/', signal })).storeTime, null);
  });
});
