/**
 * The store driver contract, as one suite every driver runs: the in-memory store
 * (memory.test.ts), S3 against a real OpenStack Swift (s3.test.ts), Azure against Azurite
 * (azure.test.ts, start-after emulated by the driver) and Cloud Storage against the firebase-tools
 * emulator (gcs.test.ts). It covers listing order and pagination across page boundaries, exact
 * sizes and receipt times, start-after, the `/` delimiter, an empty prefix, keys with spaces,
 * `+`, `%`, accents and `~`, bounded reads (whole and streamed), absence as a value, cancellation, and the store's
 * clock on every page. Keys no XML listing can carry are odd-keys.test.ts's.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { StoreDriver } from '../../src/store/driver.ts';

/** Keys the suite expects under its prefix, in UTF-8 byte order once sorted. */
export const CONTRACT_KEYS = [
  'a/1',
  'a/2',
  'a/sub/3',
  'b',
  'odd/space name',
  'odd/plus+percent%25',
  'odd/é-accent',
  'odd/~tilde',
  ...Array.from({ length: 23 }, (_, i) => `many/${String(i).padStart(3, '0')}`),
];
export const BIG_KEY = 'big/object';
export const BIG_SIZE = 5000;

const byteOrder = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));

/**
 * How far a page's store time may be from this machine's clock. Every store under test runs on
 * this machine, so their clocks agree with ours within seconds: this checks the plumbing of the
 * `Date` header, not any claim about clocks.
 */
const STORE_CLOCK_WINDOW_MS = 5 * 60_000;

async function listAll(driver: StoreDriver, prefix: string, maxKeys: number, extra: { delimiter?: '/'; startAfter?: string } = {}) {
  const keys: string[] = [];
  const prefixes: string[] = [];
  let token: string | undefined;
  let pages = 0;
  do {
    const page = await driver.listPage({ prefix, maxKeys, signal: new AbortController().signal, ...extra, ...(token === undefined ? {} : { continuationToken: token }) });
    keys.push(...page.objects.map((o) => o.key));
    prefixes.push(...page.prefixes);
    token = page.nextToken ?? undefined;
    pages += 1;
  } while (token !== undefined && pages < 1000);
  return { keys, prefixes, pages };
}

/** Registers the contract tests; `setup` returns a driver and the prefix under which the keys were put. */
export function storeContract(name: string, setup: () => Promise<{ driver: StoreDriver; prefix: string }>): void {
  const ctx = async () => setup();

  it(`${name}: lists every key once, in byte order, across page boundaries`, async () => {
    const { driver, prefix } = await ctx();
    const expected = [...CONTRACT_KEYS, BIG_KEY].map((k) => prefix + k).sort(byteOrder);
    for (const size of [1000, 7, 1]) {
      const r = await listAll(driver, prefix, size);
      assert.deepEqual(r.keys, expected, `page size ${size}`);
      if (size === 7) assert.ok(r.pages >= 5);
    }
  });

  it(`${name}: reports exact sizes and receipt times`, async () => {
    const { driver, prefix } = await ctx();
    const page = await driver.listPage({ prefix: `${prefix}big/`, signal: new AbortController().signal });
    assert.equal(page.objects.length, 1);
    assert.equal(page.objects[0]?.size, BIG_SIZE);
    assert.ok(page.objects[0]?.lastModified instanceof Date);
  });

  it(`${name}: starts after a key, excluding it`, async () => {
    const { driver, prefix } = await ctx();
    const r = await listAll(driver, `${prefix}many/`, 5, { startAfter: `${prefix}many/019` });
    assert.deepEqual(r.keys, ['020', '021', '022'].map((k) => `${prefix}many/${k}`));
  });

  it(`${name}: groups one level with the / delimiter, paging through prefixes too`, async () => {
    const { driver, prefix } = await ctx();
    const r = await listAll(driver, prefix, 2, { delimiter: '/' });
    assert.deepEqual(r.keys, [`${prefix}b`]);
    assert.deepEqual(r.prefixes, ['a/', 'big/', 'many/', 'odd/'].map((p) => prefix + p));
    const inner = await listAll(driver, `${prefix}a/`, 1000, { delimiter: '/' });
    assert.deepEqual([inner.keys, inner.prefixes], [[`${prefix}a/1`, `${prefix}a/2`], [`${prefix}a/sub/`]]);
  });

  it(`${name}: every page carries the store's clock (its Date header), whole seconds near ours`, async () => {
    const { driver, prefix } = await ctx();
    const before = Date.now();
    const pages = [];
    let token: string | undefined;
    do {
      const page = await driver.listPage({ prefix, maxKeys: 10, signal: new AbortController().signal, ...(token === undefined ? {} : { continuationToken: token }) });
      pages.push(page);
      token = page.nextToken ?? undefined;
    } while (token !== undefined && pages.length < 100);
    const empty = await driver.listPage({ prefix: `${prefix}nothing-here/`, signal: new AbortController().signal });
    const after = Date.now();
    assert.ok(pages.length >= 3);
    for (const page of [...pages, empty]) {
      assert.ok(page.storeTime instanceof Date, 'a page without a store time');
      const t = page.storeTime.getTime();
      // An HTTP-date names whole seconds: the value is the store's header, not a clock the driver read.
      assert.equal(t % 1000, 0, page.storeTime.toISOString());
      assert.ok(t >= before - STORE_CLOCK_WINDOW_MS && t <= after + STORE_CLOCK_WINDOW_MS, page.storeTime.toISOString());
    }
  });

  it(`${name}: an empty prefix lists nothing, successfully`, async () => {
    const { driver, prefix } = await ctx();
    const page = await driver.listPage({ prefix: `${prefix}nothing-here/`, signal: new AbortController().signal });
    assert.deepEqual([page.objects, page.prefixes, page.nextToken], [[], [], null]);
  });

  it(`${name}: reads small objects, refuses large ones, and reports absence as a value`, async () => {
    const { driver, prefix } = await ctx();
    const signal = new AbortController().signal;
    const small = await driver.read({ key: `${prefix}odd/é-accent`, maxBytes: 100, signal });
    assert.equal(small.status === 'found' && Buffer.from(small.bytes).toString(), 'odd/é-accent');
    assert.deepEqual(await driver.read({ key: `${prefix}${BIG_KEY}`, maxBytes: 100, signal }), { status: 'too-large', size: BIG_SIZE });
    assert.deepEqual(await driver.read({ key: `${prefix}missing/key`, maxBytes: 100, signal }), { status: 'absent' });
  });

  it(`${name}: streams a body as chunks, the same bytes as a whole read; stopping early releases it`, async () => {
    const { driver, prefix } = await ctx();
    const signal = new AbortController().signal;
    const whole = await driver.read({ key: `${prefix}${BIG_KEY}`, maxBytes: BIG_SIZE, signal });
    assert.equal(whole.status, 'found');
    const opened = await driver.readStream({ key: `${prefix}${BIG_KEY}`, maxBytes: BIG_SIZE, signal });
    assert.ok(opened.status === 'found' && opened.size === BIG_SIZE);
    const parts: Uint8Array[] = [];
    for await (const chunk of opened.chunks) parts.push(chunk);
    assert.ok(whole.status === 'found' && Buffer.concat(parts).equals(Buffer.from(whole.bytes)));
    assert.deepEqual(await driver.readStream({ key: `${prefix}${BIG_KEY}`, maxBytes: 100, signal }), { status: 'too-large', size: BIG_SIZE });
    assert.deepEqual(await driver.readStream({ key: `${prefix}missing/key`, maxBytes: 100, signal }), { status: 'absent' });
    // A reader that stops after its first chunk, three times over: the driver keeps serving.
    for (let i = 0; i < 3; i++) {
      const early = await driver.readStream({ key: `${prefix}${BIG_KEY}`, maxBytes: BIG_SIZE, signal });
      assert.equal(early.status, 'found');
      if (early.status === 'found') for await (const chunk of early.chunks) if (chunk.byteLength > 0) break;
    }
    const small = await driver.read({ key: `${prefix}odd/é-accent`, maxBytes: 100, signal });
    assert.equal(small.status === 'found' && Buffer.from(small.bytes).toString(), 'odd/é-accent');
  });

  it(`${name}: an aborted call fails as canceled`, async () => {
    const { driver, prefix } = await ctx();
    const aborted = new AbortController();
    aborted.abort();
    await assert.rejects(driver.listPage({ prefix, signal: aborted.signal }), (e: unknown) => (e as { category?: string }).category === 'canceled');
    await assert.rejects(driver.read({ key: `${prefix}b`, maxBytes: 10, signal: aborted.signal }), (e: unknown) => (e as { category?: string }).category === 'canceled');
    await assert.rejects(driver.readStream({ key: `${prefix}b`, maxBytes: 10, signal: aborted.signal }), (e: unknown) => (e as { category?: string }).category === 'canceled');
  });
}
