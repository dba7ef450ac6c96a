/**
 * Discovery through barman-cloud: servers are the folders whose names pass the allowlist; everything else under the
 * destination is counted as belonging to no scope; pgBackRest's layout is recognised, never read
 * as servers named `archive` and `backup`.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { archiveCloud } from '../format/barman-cloud/format.ts';
import { MemoryStore } from '../store/memory/memory-driver.ts';
import { discoverScopes } from './discovery.ts';
import { BudgetMeter } from './listing.ts';

const discover = (store: MemoryStore, prefix = 'dest') => discoverScopes(archiveCloud, store, prefix, new AbortController().signal, new BudgetMeter({ maxPages: 100, maxObjects: 10_000 }));

describe('discovery', () => {
  it('finds the servers and counts every object that belongs to none', async () => {
    const store = new MemoryStore();
    store.put('dest/pg-main/wals/0000000100000000/000000010000000000000001', 'x');
    store.put('dest/pg-other/base/20261121T000000/backup.info', 'x');
    store.put('dest/README', 'x');
    store.put('dest/.hidden/a', 'x');
    store.put('dest/.hidden/b/c', 'x');
    store.put('dest/bad name!/x', 'x');
    store.put('elsewhere/pg-x/wals/y', 'x');
    assert.deepEqual(await discover(store), { servers: ['pg-main', 'pg-other'], unscopedObjects: 4, foreignFormat: null });
  });

  it('recognises a pgBackRest repository instead of inventing two servers', async () => {
    const store = new MemoryStore();
    store.put('dest/archive/main/archive.info', '[db]');
    store.put('dest/archive/main/archive.info.copy', '[db]');
    store.put('dest/archive/main/15-1/0000000100000000/000000010000000000000001-0123456789abcdef0123456789abcdef01234567.gz', 'x');
    store.put('dest/backup/main/backup.info', '[db]');
    store.put('dest/backup/main/backup.info.copy', '[db]');
    assert.deepEqual(await discover(store), { servers: [], unscopedObjects: null, foreignFormat: 'stanza-repository' });
  });

  it('a barman-cloud server named archive stays a server', async () => {
    const store = new MemoryStore();
    store.put('dest/archive/wals/0000000100000000/000000010000000000000001', 'x');
    store.put('dest/archive/base/20261121T000000/backup.info', 'x');
    assert.deepEqual(await discover(store), { servers: ['archive'], unscopedObjects: 0, foreignFormat: null });
  });
});
