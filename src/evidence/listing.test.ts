/**
 * The paged listing's prefetch: the next page is requested before the current one is handed over,
 * except after the last page and once a page reaches past the caller's stopping key.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MemoryStore } from '../store/memory/memory-driver.ts';
import { SafetyLimitError } from '../common/errors.ts';
import { BudgetMeter, listPages } from './listing.ts';

function store(n: number): MemoryStore {
  const s = new MemoryStore();
  for (let i = 0; i < n; i++) s.put(`p/${String(i).padStart(6, '0')}`, '');
  return s;
}
const meter = () => new BudgetMeter({ maxPages: 1_000, maxObjects: 1_000_000 });
const signal = new AbortController().signal;

describe('listPages', () => {
  it('prefetches every page of a listing and nothing after the last', async () => {
    const s = store(3_500);
    const keys: string[] = [];
    for await (const page of listPages(s, { prefix: 'p/', signal, meter: meter(), pageSize: 1_000 })) keys.push(...page.objects.map((o) => o.key));
    assert.equal(keys.length, 3_500);
    assert.equal(s.requests.filter((r) => r.op === 'list').length, 4);
  });

  it('requests no page after one that reaches past stopAfter', async () => {
    const s = store(5_000);
    let pages = 0;
    for await (const page of listPages(s, { prefix: 'p/', stopAfter: 'p/001500', signal, meter: meter(), pageSize: 1_000 })) {
      pages += 1;
      assert.ok(page.objects.length > 0);
    }
    // Pages 1 (keys 0–999) and 2 (1000–1999, past the stop); without stopAfter the prefetch of page 3 would also go out.
    assert.equal(pages, 2);
    assert.equal(s.requests.filter((r) => r.op === 'list').length, 2);
  });

  it('never counts more pages or objects than the budgets allow', async () => {
    for (const [budget, pageSize, expected] of [
      [{ maxPages: 100, maxObjects: 10 }, 31, { pages: 0, objects: 0, limit: 'objects' }],
      [{ maxPages: 100, maxObjects: 40 }, 31, { pages: 1, objects: 31, limit: 'objects' }],
      [{ maxPages: 2, maxObjects: 1_000 }, 31, { pages: 2, objects: 62, limit: 'pages' }],
      [{ maxPages: 4, maxObjects: 100 }, 25, { pages: 4, objects: 100, limit: null }],
    ] as const) {
      const m = new BudgetMeter(budget);
      let limit: string | null = null;
      try {
        for await (const page of listPages(store(100), { prefix: 'p/', signal, meter: m, pageSize })) assert.ok(page.objects.length > 0);
      } catch (error) {
        assert.ok(error instanceof SafetyLimitError);
        limit = error.limit;
      }
      assert.deepEqual({ pages: m.pages, objects: m.objects, limit }, expected);
      assert.ok(m.pages <= budget.maxPages && m.objects <= budget.maxObjects);
    }
  });
});
