/**
 * Keys any writer can create that a listing has to carry through untouched: one per C0 control
 * byte 0x01–0x1F and DEL 0x7F, the characters URL and XML encodings treat specially (`+`, space,
 * `%`, `&`, `<`, …), and U+FFFE/U+FFFF, which XML cannot carry either. The suite asserts, for a
 * driver whose store holds them (each object's body is its own key): the listing completes at
 * every page size, each key comes back byte for byte with its exact size, start-after works from
 * each of them, the `/` delimiter groups "directories" named with them, and each reads back.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { StoreDriver } from '../../src/store/driver.ts';

const hex = (b: number) => b.toString(16).padStart(2, '0');
export const CONTROL_BYTES = [...Array.from({ length: 0x1f }, (_, i) => i + 1), 0x7f];

/** Keys relative to the suite's prefix. */
export const ODD_KEYS: readonly string[] = [
  ...CONTROL_BYTES.map((b) => `ctl/${hex(b)}-${String.fromCharCode(b)}-end`),
  ...CONTROL_BYTES.map((b) => `dir${String.fromCharCode(b)}${hex(b)}/inner`),
  '\x01at-the-start',
  'odd/plus+sign',
  'odd/space name',
  'odd/ leading and trailing ',
  'odd/percent%',
  'odd/percent%41',
  'odd/percent%2B+%20',
  'odd/amp&amp;',
  'odd/lt<gt>',
  'odd/quotes"\'',
  'odd/é-accent',
  'odd/\ufffe-and-\uffff',
  'plus+dir/inner',
  'space dir/inner',
  'pct%25dir/inner',
  'plain/last',
];

const byteOrder = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));
const signal = () => new AbortController().signal;

interface Listed {
  readonly keys: string[];
  readonly sizes: number[];
  readonly prefixes: string[];
  readonly pages: number;
}

async function listAll(driver: StoreDriver, prefix: string, maxKeys: number, extra: { delimiter?: '/'; startAfter?: string } = {}): Promise<Listed> {
  const out: Listed = { keys: [], sizes: [], prefixes: [], pages: 0 };
  let token: string | undefined;
  let pages = 0;
  do {
    const page = await driver.listPage({ prefix, maxKeys, signal: signal(), ...extra, ...(token === undefined ? {} : { continuationToken: token }) });
    out.keys.push(...page.objects.map((o) => o.key));
    out.sizes.push(...page.objects.map((o) => o.size));
    out.prefixes.push(...page.prefixes);
    token = page.nextToken ?? undefined;
    pages += 1;
  } while (token !== undefined && pages < 1000);
  return { ...out, pages };
}

/** Hex of each key's UTF-8 bytes: a failing comparison then shows the bytes, and strings compare byte-exact. */
const bytes = (keys: readonly string[]) => keys.map((k) => Buffer.from(k).toString('hex'));

/** Registers the odd-key tests; `setup` returns a driver and the prefix under which ODD_KEYS were put, each with its own key as body. */
export function oddKeySuite(name: string, setup: () => Promise<{ driver: StoreDriver; prefix: string }>): void {
  it(`${name}: lists every odd key once, byte-exact, with its exact size, at every page size`, async () => {
    const { driver, prefix } = await setup();
    const expected = ODD_KEYS.map((k) => prefix + k).sort(byteOrder);
    for (const size of [1000, 7, 1]) {
      const r = await listAll(driver, prefix, size);
      assert.deepEqual(bytes(r.keys), bytes(expected), `page size ${size}`);
      assert.deepEqual(r.sizes, expected.map((k) => Buffer.byteLength(k)), `page size ${size}`);
      if (size === 1) assert.ok(r.pages >= expected.length, `${r.pages} pages`);
    }
  });

  it(`${name}: starts after each odd key, excluding it`, async () => {
    const { driver, prefix } = await setup();
    const ctl = ODD_KEYS.filter((k) => k.startsWith('ctl/')).map((k) => prefix + k).sort(byteOrder);
    for (const [i, after] of ctl.entries()) {
      const r = await listAll(driver, `${prefix}ctl/`, 3, { startAfter: after });
      assert.deepEqual(bytes(r.keys), bytes(ctl.slice(i + 1)), `after ${Buffer.from(after).toString('hex')}`);
    }
    const odd = ODD_KEYS.filter((k) => k.startsWith('odd/')).map((k) => prefix + k).sort(byteOrder);
    for (const [i, after] of odd.entries()) {
      const r = await listAll(driver, `${prefix}odd/`, 2, { startAfter: after });
      assert.deepEqual(bytes(r.keys), bytes(odd.slice(i + 1)), `after ${Buffer.from(after).toString('hex')}`);
    }
  });

  it(`${name}: groups "directories" named with odd characters under the / delimiter`, async () => {
    const { driver, prefix } = await setup();
    const dirs = [...new Set(ODD_KEYS.filter((k) => k.includes('/')).map((k) => prefix + k.slice(0, k.indexOf('/') + 1)))].sort(byteOrder);
    const top = ODD_KEYS.filter((k) => !k.includes('/')).map((k) => prefix + k);
    for (const size of [1000, 2]) {
      const r = await listAll(driver, prefix, size, { delimiter: '/' });
      assert.deepEqual(bytes(r.prefixes), bytes(dirs), `page size ${size}`);
      assert.deepEqual(bytes(r.keys), bytes(top), `page size ${size}`);
    }
  });

  it(`${name}: reads each odd key back`, async () => {
    const { driver, prefix } = await setup();
    for (const k of ODD_KEYS) {
      const r = await driver.read({ key: prefix + k, maxBytes: 1000, signal: signal() });
      assert.equal(r.status === 'found' && Buffer.from(r.bytes).toString('hex'), Buffer.from(prefix + k).toString('hex'));
    }
  });
}
