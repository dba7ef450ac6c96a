/** The in-memory store passes the same driver contract as the real drivers. */
import { describe } from 'node:test';
import { MemoryStore } from '../../src/store/memory/memory-driver.ts';
import { BIG_KEY, BIG_SIZE, CONTRACT_KEYS, storeContract } from './contract.ts';

describe('memory store contract', () => {
  // The contract asks every page for the store's clock, an HTTP-date in whole seconds; the memory
  // store has none of its own (its default is null), so this one is given this machine's.
  const store = new MemoryStore({ storeClock: () => new Date(Math.floor(Date.now() / 1000) * 1000) });
  const prefix = 'contract/';
  for (const k of CONTRACT_KEYS) store.put(prefix + k, k, new Date('2026-11-21T13:00:00Z'));
  store.put(prefix + BIG_KEY, Buffer.alloc(BIG_SIZE), new Date('2026-11-21T13:00:00Z'));
  store.put('contract-sibling/a/1', 'outside the prefix');
  storeContract('memory', () => Promise.resolve({ driver: store, prefix }));
});
