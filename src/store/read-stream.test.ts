import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { StoreError } from '../common/errors.ts';
import { boundedBody, chunksOf, readWhole } from './read-stream.ts';

async function* body(parts: readonly string[], failAfter?: number): AsyncGenerator<Uint8Array> {
  for (const [i, p] of parts.entries()) {
    if (i === failAfter) throw Object.assign(new Error('socket hang up: provider text'), { code: 'ECONNRESET' });
    await Promise.resolve();
    yield Buffer.from(p);
  }
}

const toError = () => new StoreError('unavailable', 'the store connection failed');

async function drain(chunks: AsyncIterable<Uint8Array>): Promise<string> {
  let out = '';
  for await (const c of chunks) out += Buffer.from(c).toString();
  return out;
}

const category = (e: unknown) => (e as { category?: string }).category;

describe('streamed reads', () => {
  it('hands the body over as it arrives, exactly as declared', async () => {
    assert.equal(await drain(boundedBody(body(['ab', 'cd', 'e']), 5, toError, () => assert.fail('released'))), 'abcde');
  });

  it('fails a body longer than declared as incompatible_format, and one cut short as unavailable', async () => {
    let released = 0;
    await assert.rejects(drain(boundedBody(body(['abc', 'def']), 4, toError, () => (released += 1))), (e) => category(e) === 'incompatible_format');
    await assert.rejects(drain(boundedBody(body(['ab']), 5, toError, () => (released += 1))), (e) => category(e) === 'unavailable');
    // The longer body was abandoned mid-way: its connection is released; the short one ended by itself.
    assert.equal(released, 1);
  });

  it("turns a failure in the middle of the body into the provider's category, without its text", async () => {
    let released = 0;
    await assert.rejects(drain(boundedBody(body(['ab', 'cd', 'ef'], 1), 6, toError, () => (released += 1))), (e) => category(e) === 'unavailable' && !String((e as Error).message).includes('provider'));
    assert.equal(released, 1);
  });

  it('releases the body when the reader stops early', async () => {
    let released = 0;
    for await (const c of boundedBody(body(['ab', 'cd']), 4, toError, () => (released += 1))) if (c.byteLength > 0) break;
    assert.equal(released, 1);
  });

  it('reads a stream whole, and passes absence and refusal through', async () => {
    const bytes = Buffer.alloc(200_000, 7);
    const whole = await readWhole(Promise.resolve({ status: 'found', size: bytes.byteLength, chunks: chunksOf(bytes) }));
    assert.ok(whole.status === 'found' && Buffer.from(whole.bytes).equals(bytes));
    assert.deepEqual(await readWhole(Promise.resolve({ status: 'absent' })), { status: 'absent' });
    assert.deepEqual(await readWhole(Promise.resolve({ status: 'too-large', size: 9 })), { status: 'too-large', size: 9 });
    // An object behind a customer-provided key the reader does not hold is an answer, passed on as it is (D-92).
    assert.deepEqual(await readWhole(Promise.resolve({ status: 'key-required' })), { status: 'key-required' });
  });
});
