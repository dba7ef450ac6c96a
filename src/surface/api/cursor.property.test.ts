/**
 * Property tests of pagination cursors (issue 19): every valid state round-trips; a cursor is
 * accepted only exactly as it was issued — any tampering (a flipped bit of the record or of the
 * text, truncation, extension, splicing two cursors, re-encoding with padding) and any other
 * string (up to and beyond 4096 bytes) is refused with `null`, never an exception; a cursor of
 * another codec (another process's secret) is refused; and decode never yields a state encode
 * would not have written.
 */
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { PAGE_LIMITS } from '../../contract/values.ts';
import { COLLECTIONS } from '../../contract/routes.ts';
import { CursorCodec, type CursorState } from './cursor.ts';

const ROUTES = COLLECTIONS.map((c) => c.route);
const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

const safe = fc.oneof(fc.nat(), fc.maxSafeNat(), fc.constantFrom(0, 1, 2 ** 32, 2 ** 53 - 1));
const stateArb: fc.Arbitrary<CursorState> = fc.record({
  route: fc.constantFrom(...ROUTES),
  revision: safe,
  generation: safe,
  offset: safe,
  limit: fc.oneof(fc.integer({ min: 1, max: PAGE_LIMITS.maxItems }), fc.integer({ min: 0, max: 0xffff })),
}, { noNullPrototype: true });

const secretArb = fc.uint8Array({ minLength: 32, maxLength: 32 }).map((b) => Buffer.from(b));

describe('pagination cursors', () => {
  it('round-trip every valid state, as a base64url token within the size limit', () => {
    fc.assert(
      fc.property(secretArb, stateArb, (secret, state) => {
        const codec = new CursorCodec(secret);
        const text = codec.encode(state);
        assert.match(text, /^[A-Za-z0-9_-]+$/);
        assert.ok(text.length <= PAGE_LIMITS.cursorBytes);
        assert.deepEqual(codec.decode(text), state);
        // A fresh codec over the same secret (the same process) reads it too.
        assert.deepEqual(new CursorCodec(Buffer.from(secret)).decode(text), state);
      }),
      { numRuns: 2000 },
    );
  });

  it('refuse any flipped bit of the record, re-encoded as a well-formed token', () => {
    const codec = new CursorCodec();
    fc.assert(
      fc.property(stateArb, fc.uniqueArray(fc.nat(60 * 8 - 1), { minLength: 1, maxLength: 4 }), (state, bits) => {
        const raw = Buffer.from(codec.encode(state), 'base64url');
        assert.equal(raw.length, 60); // a 28-byte record and its 32-byte HMAC
        for (const bit of bits) raw[bit >> 3] = (raw[bit >> 3] ?? 0) ^ (1 << (bit & 7));
        assert.equal(codec.decode(raw.toString('base64url')), null);
      }),
      { numRuns: 3000 },
    );
  });

  it('refuse any change to the text: a character replaced, removed, inserted; truncation; extension; case', () => {
    const codec = new CursorCodec();
    const edit = fc.oneof(
      fc.record({ kind: fc.constant('replace' as const), at: fc.nat(), c: fc.constantFrom(...BASE64URL, '=', '+', '/', '.', ' ', '%', '\u0000', 'é') }),
      fc.record({ kind: fc.constant('remove' as const), at: fc.nat() }),
      fc.record({ kind: fc.constant('insert' as const), at: fc.nat(), c: fc.constantFrom(...BASE64URL, '=', '\n') }),
      fc.record({ kind: fc.constant('truncate' as const), at: fc.nat() }),
      fc.record({ kind: fc.constant('extend' as const), tail: fc.string({ unit: fc.constantFrom(...BASE64URL, '='), minLength: 1, maxLength: 8 }) }),
      fc.record({ kind: fc.constant('case' as const), at: fc.nat() }),
    );
    fc.assert(
      fc.property(stateArb, fc.array(edit, { minLength: 1, maxLength: 3 }), (state, edits) => {
        const original = codec.encode(state);
        let text = original;
        for (const e of edits) {
          const at = 'at' in e ? e.at % (text.length + 1) : 0;
          if (e.kind === 'replace') text = text.slice(0, at) + e.c + text.slice(at + 1);
          else if (e.kind === 'remove') text = text.slice(0, at) + text.slice(at + 1);
          else if (e.kind === 'insert') text = text.slice(0, at) + e.c + text.slice(at);
          else if (e.kind === 'truncate') text = text.slice(0, at);
          else if (e.kind === 'extend') text += e.tail;
          else {
            const c = text[at] ?? '';
            text = text.slice(0, at) + (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase()) + text.slice(at + 1);
          }
        }
        const decoded = codec.decode(text);
        if (text === original) assert.deepEqual(decoded, state);
        else assert.equal(decoded, null, `accepted a tampered cursor: ${text}`);
      }),
      { numRuns: 5000 },
    );
  });

  it('refuse splices of two issued cursors, and every issued cursor on a codec with another secret', () => {
    fc.assert(
      fc.property(secretArb, secretArb, stateArb, stateArb, fc.nat(), (a, b, s1, s2, cut) => {
        const mine = new CursorCodec(a);
        const other = new CursorCodec(b);
        const c1 = mine.encode(s1);
        const c2 = mine.encode(s2);
        const at = cut % (c1.length + 1);
        const spliced = c1.slice(0, at) + c2.slice(at);
        if (spliced !== c1 && spliced !== c2) assert.equal(mine.decode(spliced), null);
        if (!a.equals(b)) {
          assert.equal(other.decode(c1), null);
          assert.equal(mine.decode(other.encode(s1)), null);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('refuse arbitrary strings up to and beyond 4096 bytes, never throwing; nothing accepted but what was issued', () => {
    const codec = new CursorCodec();
    const issued = codec.encode({ route: 'wal-gaps', revision: 3, generation: 2, offset: 100, limit: 100 });
    const arb = fc.oneof(
      fc.string({ maxLength: 200 }),
      fc.string({ unit: 'binary', maxLength: 200 }),
      fc.string({ unit: fc.constantFrom(...BASE64URL), minLength: 78, maxLength: 82 }),
      fc.string({ unit: fc.constantFrom(...BASE64URL), maxLength: 4200 }),
      fc.integer({ min: PAGE_LIMITS.cursorBytes - 2, max: PAGE_LIMITS.cursorBytes + 2 }).map((n) => issued.padEnd(n, 'A')),
      fc.uint8Array({ minLength: 58, maxLength: 62 }).map((b) => Buffer.from(b).toString('base64url')),
      fc.uint8Array({ minLength: 58, maxLength: 62 }).map((b) => Buffer.from(b).toString('base64')),
      fc.constant(`${issued}=`),
      fc.constant(`${Buffer.from(issued, 'base64url').toString('base64')}`),
    );
    fc.assert(
      fc.property(arb, (text) => {
        const decoded = codec.decode(text);
        if (decoded === null) return;
        // Only a string this codec issued can be accepted, and it is exactly the encoding of its state.
        assert.equal(codec.encode(decoded), text);
      }),
      { numRuns: 3000 },
    );
  });

  it('decode only states encode could have written, for records authenticated under the same secret', () => {
    // An attacker who knew the secret could write any record: decode must still yield a well-typed
    // state or null (safe integers, a known route, a 16-bit limit), never throw.
    const secret = Buffer.alloc(32, 7);
    const codec = new CursorCodec(secret);
    const max = BigInt(Number.MAX_SAFE_INTEGER);
    const u64 = fc.oneof(fc.bigInt({ min: 0n, max }), fc.bigInt({ min: max - 2n, max: max + 2n }), fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }));
    let accepted = 0;
    fc.assert(
      fc.property(fc.constantFrom(0, 1, 1, 1, 2, 255), fc.oneof(fc.integer({ min: 0, max: 5 }), fc.integer({ min: 0, max: 255 })), fc.tuple(u64, u64, u64), fc.integer({ min: 0, max: 0xffff }), (version, route, [revision, generation, offset], limit) => {
        const b = Buffer.alloc(28);
        b.writeUInt8(version, 0);
        b.writeUInt8(route, 1);
        b.writeBigUInt64BE(revision, 2);
        b.writeBigUInt64BE(generation, 10);
        b.writeBigUInt64BE(offset, 18);
        b.writeUInt16BE(limit, 26);
        const text = Buffer.concat([b, createHmac('sha256', secret).update(b).digest()]).toString('base64url');
        const state = codec.decode(text);
        if (state === null) return;
        assert.ok(ROUTES.includes(state.route));
        for (const n of [state.revision, state.generation, state.offset]) assert.ok(Number.isSafeInteger(n) && n >= 0);
        assert.ok(Number.isInteger(state.limit) && state.limit >= 0 && state.limit <= 0xffff);
        assert.equal(codec.encode(state), text);
        accepted++;
      }),
      { numRuns: 2000 },
    );
    assert.ok(accepted > 50, `only ${String(accepted)} records were well-typed: the generator misses the accepting path`);
  });
});
