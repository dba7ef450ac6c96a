import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { mapLimit } from './concurrency.ts';

const tick = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('mapLimit', () => {
  it('keeps order and never has more than the limit in flight', async () => {
    let inFlight = 0;
    let most = 0;
    const out = await mapLimit([5, 1, 4, 2, 3, 0, 6], 3, async (x) => {
      inFlight += 1;
      most = Math.max(most, inFlight);
      await tick(x);
      inFlight -= 1;
      return x * 10;
    });
    assert.deepEqual(out, [50, 10, 40, 20, 30, 0, 60]);
    assert.equal(most, 3);
  });

  it('after a failure takes no other item, and answers only once the items in flight have settled', async () => {
    const started: number[] = [];
    const settled: number[] = [];
    await assert.rejects(
      mapLimit([0, 1, 2, 3, 4, 5], 2, async (x) => {
        started.push(x);
        if (x === 1) throw new Error('denied');
        await tick(20);
        settled.push(x);
        return x;
      }),
      /denied/,
    );
    // Item 0 was in flight when item 1 failed: it settled before the answer, and no other item started.
    assert.deepEqual(started, [0, 1]);
    assert.deepEqual(settled, [0]);
  });
});
