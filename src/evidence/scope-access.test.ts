/** The counting scope access: recent objects newest first, ties with the later key on top, whatever the listing order. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MemoryStore } from '../store/memory/memory-driver.ts';
import { BudgetMeter } from './listing.ts';
import { CountingScopeAccess, RECENT_OBJECTS } from './scope-access.ts';

describe('recent objects', () => {
  it('keeps the newest, and of WAL received in the same second the later segments, later key first', async () => {
    const store = new MemoryStore();
    const second = new Date('2026-11-20T05:16:00Z');
    const names = Array.from({ length: RECENT_OBJECTS + 5 }, (_, i) => `wals/0000000100000000/0000000100000000000000${(i + 16).toString(16).toUpperCase().padStart(2, '0')}`);
    for (const n of names) store.put(`pg/srv/${n}`, new Uint8Array(1), second);
    store.put('pg/srv/wals/old', new Uint8Array(1), new Date('2026-11-20T05:00:00Z'));
    const access = new CountingScopeAccess({ driver: store, base: 'pg/srv/', signal: new AbortController().signal, meter: new BudgetMeter({ maxPages: 100, maxObjects: 1000 }), concurrency: 1 });
    for await (const page of access.objects('wals/')) void page;
    assert.deepEqual(access.recent.map((r) => r.key), [...names].reverse().slice(0, RECENT_OBJECTS));
  });
});
