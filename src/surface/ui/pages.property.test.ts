/**
 * Property tests of the standalone `/wals` filter (issue 19): for arbitrary query strings and
 * arbitrary parameter lists over the filter's names, `parseWalFilter` is a typed accept or reject
 * — never an exception — that agrees with an independent model of the filter's rules (D-46); an
 * accepted filter lies within its bounds; a rejection's problems are bounded fixed sentences that
 * echo no value (a name at most, cut to 20 characters); and both answers render as pages whose
 * markup no input can open.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { WAL_CLASSES, parseWalFilter, rejectedFilterPage, walsPage, type PageContext, type WalFilter } from './pages.ts';

const NAMES = ['server', 'class', 'timeline', 'from', 'to', 'page'] as const;
const WAL = /^[0-9A-F]{24}$/;
const MARK = '<x-leak>';
const ctx: PageContext = { scopes: [], destination: null, format: null, identity: null, retentionPolicy: null, minimumRedundancy: null, maxArchiveLagSeconds: null, demo: false };

/** The rules of D-46, written independently: the filter, or null when anything is refused. */
function model(params: readonly (readonly [string, string])[], servers: readonly string[]): WalFilter | null {
  const names = params.map(([n]) => n);
  if (names.some((n) => !(NAMES as readonly string[]).includes(n))) return null;
  if (NAMES.some((n) => names.filter((m) => m === n).length > 1)) return null;
  const get = (n: string) => {
    const v = params.find(([m]) => m === n)?.[1];
    return v === undefined || v === '' ? null : v;
  };
  const server = get('server');
  const walClass = get('class');
  const timeline = get('timeline');
  const from = get('from');
  const to = get('to');
  const page = get('page');
  if (server !== null && !servers.includes(server)) return null;
  if (walClass !== null && !(WAL_CLASSES as readonly string[]).includes(walClass)) return null;
  if (timeline !== null && (!/^[1-9][0-9]*$/.test(timeline) || timeline.length > 10 || Number(timeline) > 0xffffffff)) return null;
  if (from !== null && !WAL.test(from)) return null;
  if (to !== null && !WAL.test(to)) return null;
  if (from !== null && to !== null && from > to) return null;
  if (page !== null && (!/^[1-9][0-9]*$/.test(page) || page.length > 7)) return null;
  return {
    server,
    walClass: walClass as WalFilter['walClass'],
    timeline: timeline === null ? null : Number(timeline),
    from,
    to,
    page: page === null ? 1 : Number(page),
  };
}

const walName = fc.string({ unit: fc.constantFrom(...'0123456789ABCDEF'), minLength: 24, maxLength: 24 });
const serversArb = fc.uniqueArray(fc.oneof(fc.constantFrom('pg-main', 'pg-b', 'ünïcode', ''), fc.string({ maxLength: 12 })), { maxLength: 4 });

/** A value for a name: often one the filter accepts, otherwise anything. */
function valueFor(name: string, servers: readonly string[]): fc.Arbitrary<string> {
  const any = fc.oneof(fc.string({ maxLength: 30 }), fc.string({ unit: 'binary', maxLength: 30 }), fc.constant(''), fc.constant(MARK));
  const good: Record<string, fc.Arbitrary<string>> = {
    server: servers.length === 0 ? fc.constant('pg-main') : fc.constantFrom(...servers),
    class: fc.constantFrom(...WAL_CLASSES, 'SEGMENT', 'segment '),
    timeline: fc.oneof(fc.integer({ min: 1, max: 0xffffffff }).map(String), fc.constantFrom('0', '01', '4294967296', '99999999999', '+1', '1e3', ' 1', '１')),
    from: fc.oneof(walName, walName.map((w) => w.toLowerCase()), walName.map((w) => w.slice(1))),
    to: fc.oneof(walName, fc.constantFrom('FFFFFFFFFFFFFFFFFFFFFFFF', '000000000000000000000000')),
    page: fc.oneof(fc.integer({ min: 1, max: 9_999_999 }).map(String), fc.constantFrom('0', '10000000', '-1', '1.0', '٣')),
  };
  // (Own keys only: a generated name may be `constructor` or `__proto__`.)
  return fc.oneof({ weight: 3, arbitrary: (Object.hasOwn(good, name) ? good[name] : undefined) ?? any }, { weight: 1, arbitrary: any });
}

const caseArb = serversArb.chain((servers) =>
  fc.tuple(
    fc.constant(servers),
    fc.array(
      fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...NAMES) }, { weight: 1, arbitrary: fc.oneof(fc.string({ maxLength: 40 }), fc.constantFrom('Server', 'page[]', '__proto__', 'constructor', MARK, `${MARK}${'x'.repeat(30)}`)) }).chain((name) => valueFor(name, servers).map((v) => [name, v] as const)),
      { maxLength: 8 },
    ),
  ),
);

function checkResult(params: URLSearchParams, servers: readonly string[]): void {
  const r = parseWalFilter(params, servers);
  if (r.ok) {
    const f = r.filter;
    assert.deepEqual(Object.keys(f).sort(), ['from', 'page', 'server', 'timeline', 'to', 'walClass']);
    assert.ok(f.server === null || servers.includes(f.server));
    assert.ok(f.walClass === null || (WAL_CLASSES as readonly string[]).includes(f.walClass));
    assert.ok(f.timeline === null || (Number.isInteger(f.timeline) && f.timeline >= 1 && f.timeline <= 0xffffffff));
    for (const w of [f.from, f.to]) assert.ok(w === null || WAL.test(w));
    if (f.from !== null && f.to !== null) assert.ok(f.from <= f.to);
    assert.ok(Number.isInteger(f.page) && f.page >= 1 && f.page <= 9_999_999);
    const html = walsPage(ctx, f, 50);
    assert.ok(!html.includes(MARK));
    return;
  }
  assert.ok(Array.isArray(r.problems) && r.problems.length > 0);
  for (const p of r.problems) {
    assert.equal(typeof p, 'string');
    const unknown = /^unknown filter ([\s\S]*)$/.exec(p);
    if (unknown !== null) assert.ok((unknown[1] ?? '').length <= 20);
    else assert.ok(p.length <= 90 && /^[a-z][A-Za-z0-9 ,-]+$/.test(p), p);
  }
  const html = rejectedFilterPage(ctx, r.problems);
  assert.ok(!html.includes('<x-leak'), 'input opened markup');
}

describe('the /wals filter', () => {
  it('agrees with a model of its rules for arbitrary parameter lists, never throwing', () => {
    let accepted = 0;
    fc.assert(
      fc.property(caseArb, ([servers, params]) => {
        const search = new URLSearchParams(params.map(([n, v]): [string, string] => [n, v]));
        const r = parseWalFilter(search, servers);
        // URLSearchParams turns lone surrogates into U+FFFD: the model sees what the parser sees.
        const expected = model([...search], servers);
        if (expected === null) assert.equal(r.ok, false, JSON.stringify(params));
        else assert.deepEqual(r, { ok: true, filter: expected });
        if (r.ok) accepted++;
        checkResult(search, servers);
      }),
      { numRuns: 3000 },
    );
    // Both answers must be exercised, not only the refusal.
    assert.ok(accepted > 300, `only ${String(accepted)} filters accepted`);
  });

  it('answers arbitrary raw query strings as the server parses them, never throwing', () => {
    const raw = fc.oneof(
      fc.string({ maxLength: 120 }),
      fc.string({ unit: 'binary', maxLength: 120 }),
      fc.string({ unit: fc.constantFrom(...'&=?%+;#/ 0123456789ABCDEFabcdefghijklmnopqrstuvwxyz'), maxLength: 120 }),
      fc.array(fc.tuple(fc.constantFrom(...NAMES, 'x', ''), fc.string({ unit: fc.constantFrom(...'%0123456789ABCDEF+-'), maxLength: 30 })), { maxLength: 6 }).map((ps) => ps.map(([n, v]) => `${n}=${v}`).join('&')),
    );
    fc.assert(
      fc.property(raw, serversArb, (query, servers) => {
        const target = `/wals?${query}`;
        // The server answers 400 itself for a target the URL parser refuses; the rest reaches the filter.
        if (!URL.canParse(target, 'http://standalone')) return;
        const url = new URL(target, 'http://standalone');
        checkResult(url.searchParams, servers);
        const expected = model([...url.searchParams], servers);
        assert.equal(parseWalFilter(url.searchParams, servers).ok, expected !== null);
      }),
      { numRuns: 5000 },
    );
  });
});
