import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { mapLimit, Turns } from './concurrency.ts';

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

describe('Turns', () => {
  it('grants at most the limit, one per lane, first come first served among free lanes', async () => {
    const turns = new Turns(2);
    const order: string[] = [];
    const a1 = await turns.take('a');
    const b1 = await turns.take('b');
    // Both turns are held: the next takes wait; a's second waits for a's first even when a turn frees.
    const a2 = turns.take('a').then((r) => (order.push('a2'), r));
    const c1 = turns.take('c').then((r) => (order.push('c1'), r));
    await tick(1);
    assert.deepEqual([order, turns.held], [[], 2]);
    b1();
    await tick(1);
    // The freed turn goes to c (a still holds one), not to a's earlier request.
    assert.deepEqual(order, ['c1']);
    a1();
    await tick(1);
    assert.deepEqual(order, ['c1', 'a2']);
    (await a2)();
    (await c1)();
    assert.equal(turns.held, 0);
  });

  it('lets a waiter leave the queue on abort, and a release twice frees one turn', async () => {
    const turns = new Turns(1);
    const first = await turns.take('x');
    const stop = new AbortController();
    const waiting = turns.take('y', stop.signal);
    stop.abort(new Error('shutdown'));
    await assert.rejects(waiting, /shutdown/);
    first();
    first();
    assert.equal(turns.held, 0);
    const again = await turns.take('z');
    assert.equal(turns.held, 1);
    again();
  });

  it('one lane that never gives its turn back holds one turn, not the others', async () => {
    const turns = new Turns(2);
    await turns.take('hung');
    let done = 0;
    for (let i = 0; i < 20; i++) {
      const release = await turns.take(`lane-${i}`);
      done += 1;
      release();
    }
    assert.equal(done, 20);
  });
});
