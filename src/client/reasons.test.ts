/**
 * The client's reason vocabulary against the producer it ships beside. Every code the producer can
 * put on the wire is gathered from where the producer keeps it: its reason tables, imported where
 * they are exported (summary's MESSAGES, barman-cloud's backup REASONS, `refreshReason` over every
 * failure category), and its source text scanned for the literal contexts codes are emitted in
 * (`sr(state, code)`, `verdict(state, code)`, `reasonFor(code)`, `reason(code, message)`,
 * `[state, code]` tuples, the other REASONS tables). A code the producer gains without the client
 * learning it turns this red; so does a code the client lists that the producer never emits (a
 * typo, or a rename left behind). Then the codes of real publications (the embedded demo's scan,
 * its golden fixture, and the generation-0, failed and stale overlays) are checked as the wire
 * carries them, and `explainReason` on known and unknown codes.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { scanDocument } from '../cli/commands/scan.ts';
import { FAILURE_CATEGORIES, REASON_CODE_PATTERN } from '../contract/values.ts';
import { BudgetMeter } from '../evidence/listing.ts';
import { scanScope } from '../evidence/scope-scan.ts';
import { MESSAGES } from '../evidence/summary.ts';
import { REASONS as FORMAT_BACKUP_REASONS } from '../format/barman-cloud/backups.ts';
import { DEMO_PREFIX, DEMO_SERVER, demoRepository } from '../format/barman-cloud/demo-repository.ts';
import { archiveCloud, scopeRoot } from '../format/barman-cloud/format.ts';
import { refreshReason, type Attempt, type Publisher } from '../publication/publisher.ts';
import { confine } from '../store/confined.ts';
import { explainReason, GENERIC_REASON_EXPLANATION, isRecognizedReasonCode, RECOGNIZED_REASON_CODES } from './reasons.ts';
import { STANDALONE_CLUSTER, testPublisher } from '../../test/support/publication-fixture.ts';

const SRC = resolve(import.meta.dirname, '..');
const GOLDEN = resolve(import.meta.dirname, '..', '..', 'test', 'fixtures', 'demo-scan.json');
/** The producer's layers: a wire reason is built nowhere else. */
const PRODUCER_DIRS = ['evidence', 'publication', 'format'];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') ? [join(dir, e.name)] : [],
  );
}

const STATE = `'(?:healthy|warning|unhealthy|unknown)'`;
/**
 * The contexts the producer writes a code literal in, each with the fewest hits it has today, so a
 * pattern that silently stops matching (a rename of `sr`, a new quoting style) fails here instead
 * of passing on an empty set. The capture is any quoted text, not only kebab-case, so a malformed
 * code is reported as unrecognized rather than skipped.
 */
const CONTEXTS: readonly { readonly name: string; readonly re: RegExp; readonly min: number }[] = [
  { name: 'sr(state, code) / verdict(state, code)', re: new RegExp(`\\b(?:sr|verdict)\\(\\s*${STATE},\\s*'([^']*)'`, 'g'), min: 60 },
  { name: 'reasonFor(code) / reason(code, message)', re: /\b(?:reasonFor|reason)\(\s*'([^']*)'/g, min: 4 },
  { name: '[state, code] tuples', re: new RegExp(`\\[\\s*${STATE},\\s*'([^']*)'\\s*\\]`, 'g'), min: 7 },
  { name: 'code: literal', re: /\bcode: '([^']*)'/g, min: 0 },
];
/** A reason table: `const REASONS = { … }` or `const MESSAGES: … = { … }`, keys one per line. */
const TABLE = /\bconst (?:[A-Z_]*REASONS|MESSAGES)\b[^=]*=\s*\{([\s\S]*?)\n\}/g;
const TABLE_KEY = /^\s*'([^']*)':/gm;
/** A code built from a template (`reason(\`refresh-${…}\`…)`): its fixed prefix. */
const DYNAMIC = new RegExp(`\\b(?:sr|verdict|reasonFor|reason)\\(\\s*(?:${STATE},\\s*)?\`([^\`$]*)\\$\\{`, 'g');
/** Every dynamic prefix the producer uses, expanded through the producer's own function. */
const EXPANSIONS: Readonly<Record<string, readonly string[]>> = {
  'refresh-': FAILURE_CATEGORIES.map((c) => refreshReason(c).code),
};

interface Scan {
  readonly codes: Map<string, string>; // code -> where it was first seen
  readonly hits: Map<string, number>; // context name -> hits
  readonly tables: Map<string, string[]>; // file -> its table keys
  readonly dynamicPrefixes: Set<string>;
}

function scanProducer(): Scan {
  const scan: Scan = { codes: new Map(), hits: new Map(CONTEXTS.map((c) => [c.name, 0])), tables: new Map(), dynamicPrefixes: new Set() };
  const add = (code: string, where: string) => {
    if (!scan.codes.has(code)) scan.codes.set(code, where);
  };
  for (const dir of PRODUCER_DIRS) {
    for (const file of sourceFiles(join(SRC, dir))) {
      const text = readFileSync(file, 'utf8');
      const name = relative(SRC, file);
      for (const c of CONTEXTS) {
        for (const m of text.matchAll(c.re)) {
          add(m[1] ?? '', `${name} (${c.name})`);
          scan.hits.set(c.name, (scan.hits.get(c.name) ?? 0) + 1);
        }
      }
      for (const t of text.matchAll(TABLE)) {
        const keys = [...(t[1] ?? '').matchAll(TABLE_KEY)].map((k) => k[1] ?? '');
        scan.tables.set(name, [...(scan.tables.get(name) ?? []), ...keys]);
        for (const k of keys) add(k, `${name} (table)`);
      }
      for (const m of text.matchAll(DYNAMIC)) scan.dynamicPrefixes.add(m[1] ?? '');
    }
  }
  return scan;
}

/** Every `{ code, message }` object anywhere in a JSON value: reasons wherever the wire puts them. */
function reasonsIn(value: unknown, out: { code: string; message: string }[] = []): { code: string; message: string }[] {
  if (Array.isArray(value)) {
    for (const v of value) reasonsIn(v, out);
  } else if (typeof value === 'object' && value !== null) {
    const o = value as Record<string, unknown>;
    const { code, message } = o;
    if (typeof code === 'string' && typeof message === 'string') out.push({ code, message });
    for (const v of Object.values(o)) reasonsIn(v, out);
  }
  return out;
}

const unrecognized = (codes: Iterable<string>) => [...new Set(codes)].filter((c) => !isRecognizedReasonCode(c)).sort();

const startedAt = new Date('2026-11-20T06:00:00Z');
const attempt: Attempt = { startedAt, finishedAt: new Date(startedAt.getTime() + 1_000), pages: 7, objects: 0 };

function demoPublisher(): Publisher {
  return testPublisher({
    identity: { cluster: STANDALONE_CLUSTER, fingerprint: `sha256:${'0'.repeat(64)}`, server: DEMO_SERVER },
    expectations: { policyText: 'RECOVERY WINDOW OF 7 DAYS', policy: { kind: 'recovery-window', amount: 7, unit: 'days' }, minimumRedundancy: 2 },
    freshnessMs: 900_000,
    revisionBase: 0,
  });
}

/** The embedded demo's `viewer scan` document, built as test/scan/demo-golden.test.ts builds it. */
async function demoScan(publisher: Publisher): Promise<unknown> {
  const root = scopeRoot(DEMO_PREFIX, DEMO_SERVER);
  const evidence = await scanScope({ format: archiveCloud, server: DEMO_SERVER, root, driver: confine(demoRepository(), root), signal: new AbortController().signal, meter: new BudgetMeter({ maxPages: 1_000, maxObjects: 100_000 }), concurrency: 4, ...publisher.nextScan });
  const p = publisher.complete(evidence, { ...attempt, objects: evidence.objectCount });
  assert.deepEqual(p.violations, []);
  return JSON.parse(scanDocument(p, publisher.evidence));
}

describe('RECOGNIZED_REASON_CODES', () => {
  it('is lower-kebab-case, at most 64 bytes, sorted and unique', () => {
    const pattern = new RegExp(REASON_CODE_PATTERN);
    for (const c of RECOGNIZED_REASON_CODES) {
      assert.match(c, pattern, `${c} is not lower-kebab-case`);
      assert.ok(Buffer.byteLength(c, 'utf8') <= 64, `${c} is longer than 64 bytes`);
    }
    assert.deepEqual([...RECOGNIZED_REASON_CODES], [...RECOGNIZED_REASON_CODES].sort(), 'not sorted');
    assert.equal(new Set(RECOGNIZED_REASON_CODES).size, RECOGNIZED_REASON_CODES.length, 'a code is listed twice');
  });

  describe('against the producer source', () => {
    const scan = scanProducer();
    const imported = new Map<string, string>([
      ...Object.keys(MESSAGES).map((c) => [c, 'evidence/summary.ts MESSAGES'] as const),
      ...Object.keys(FORMAT_BACKUP_REASONS).map((c) => [c, 'format/barman-cloud/backups.ts REASONS'] as const),
      ...Object.values(EXPANSIONS).flat().map((c) => [c, 'publication/publisher.ts refreshReason'] as const),
    ]);
    const producer = new Map([...scan.codes, ...imported]);

    it('finds what it looks for: every context, the reason tables, a plausible number of codes', () => {
      for (const c of CONTEXTS) assert.ok((scan.hits.get(c.name) ?? 0) >= c.min, `context ${c.name}: ${scan.hits.get(c.name)} hits, expected at least ${c.min}`);
      // The tables the regex reads must be the tables the producer exports, key for key.
      assert.deepEqual(scan.tables.get(join('evidence', 'summary.ts')), Object.keys(MESSAGES));
      assert.deepEqual(scan.tables.get(join('format', 'barman-cloud', 'backups.ts')), Object.keys(FORMAT_BACKUP_REASONS));
      // The tables that are not exported are read by the scan alone.
      assert.ok((scan.tables.get(join('evidence', 'backups.ts')) ?? []).length >= 5, 'evidence/backups.ts REASONS not found');
      assert.ok((scan.tables.get(join('evidence', 'recovery-paths.ts')) ?? []).length >= 9, 'evidence/recovery-paths.ts REASONS not found');
      assert.ok(scan.codes.size >= 70, `the scan found only ${scan.codes.size} codes`);
    });

    it('expands every code built from a template', () => {
      assert.ok(scan.dynamicPrefixes.size >= 1, 'no templated code found (refreshReason builds refresh-<category>)');
      for (const p of scan.dynamicPrefixes) assert.ok(p in EXPANSIONS, `a code is built from the template prefix '${p}': expand it in EXPANSIONS`);
      for (const [p, codes] of Object.entries(EXPANSIONS)) {
        assert.equal(codes.length, FAILURE_CATEGORIES.length);
        for (const c of codes) assert.ok(c.startsWith(p), `${c} does not start with ${p}`);
      }
    });

    it('recognizes every code the producer emits', () => {
      const missing = unrecognized(producer.keys()).map((c) => `${c} (${producer.get(c)})`);
      assert.deepEqual(missing, [], 'codes the producer emits that the client does not recognize');
    });

    it('lists no code the producer never emits', () => {
      const stray = RECOGNIZED_REASON_CODES.filter((c) => !producer.has(c));
      assert.deepEqual(stray, [], 'codes the client lists that no producer source emits');
    });
  });

  describe('against real publications', () => {
    it('recognizes every reason of the embedded demo scan and of its golden fixture', async () => {
      const live = reasonsIn(await demoScan(demoPublisher()));
      const golden = reasonsIn(JSON.parse(readFileSync(GOLDEN, 'utf8')));
      // The walk must reach the snapshot, capabilities, details, backups and recovery paths.
      for (const found of [live, golden]) {
        assert.ok(new Set(found.map((r) => r.code)).size >= 10, `only ${found.length} reasons found`);
        assert.ok(found.some((r) => r.code === 'structurally-usable'), 'no backup item reason reached');
        assert.ok(found.some((r) => r.code === 'standalone-retention-limited'), 'no recovery-path reason reached');
      }
      assert.deepEqual(unrecognized(live.map((r) => r.code)), []);
      assert.deepEqual(unrecognized(golden.map((r) => r.code)), []);
    });

    it('recognizes the overlays: no completed scan, a failed refresh, stale evidence', async () => {
      const fresh = demoPublisher();
      const initial = reasonsIn(fresh.current.snapshot);
      const failed = reasonsIn(fresh.fail('throttled', attempt).snapshot);
      const aging = demoPublisher();
      await demoScan(aging);
      const stale = reasonsIn(aging.checkFreshness(new Date(startedAt.getTime() + 86_400_000)).snapshot);
      assert.ok(initial.some((r) => r.code === 'no-completed-scan'));
      assert.ok(failed.some((r) => r.code === 'refresh-throttled'));
      assert.ok(stale.some((r) => r.code === 'evidence-stale'));
      assert.deepEqual(unrecognized([...initial, ...failed, ...stale].map((r) => r.code)), []);
    });
  });
});

describe('explainReason', () => {
  it("gives a recognized code's supplied message as its explanation", () => {
    const message = 'A confirmed gap interrupts the archived WAL, and Barman\'s retention does not explain it.';
    assert.deepEqual(explainReason({ code: 'wal-gap-confirmed', message }), { code: 'wal-gap-confirmed', recognized: true, explanation: message });
    // As supplied: the client does not substitute its own wording for a code it knows.
    assert.equal(explainReason({ code: 'no-completed-scan', message: 'Worded differently by a later producer.' }).explanation, 'Worded differently by a later producer.');
  });

  it('gives an unrecognized code the generic explanation, never the supplied message', () => {
    const message = 'Nothing to worry about: the archive is complete.';
    const r = explainReason({ code: 'wal-gap-reinterpreted', message });
    assert.deepEqual(r, { code: 'wal-gap-reinterpreted', recognized: false, explanation: GENERIC_REASON_EXPLANATION });
    assert.ok(!r.explanation.includes(message));
    assert.equal(explainReason({ code: 'wal-gap-reinterpreted', message: 'Another message.' }).explanation, r.explanation, 'the explanation depends on the message');
  });

  it('recognizes by exact code only', () => {
    for (const code of ['WAL-GAP-CONFIRMED', ' wal-gap-confirmed', 'wal-gap-confirmed ', 'wal-gap', 'constructor', '__proto__', 'toString', '']) {
      const r = explainReason({ code, message: 'supplied' });
      assert.equal(r.recognized, false, JSON.stringify(code));
      assert.equal(r.explanation, GENERIC_REASON_EXPLANATION);
    }
  });

  it('recognizes every listed code, and neither takes nor returns a state', () => {
    for (const code of RECOGNIZED_REASON_CODES) {
      const input = Object.freeze({ code, message: `message of ${code}` });
      const r = explainReason(input);
      assert.deepEqual(Object.keys(r).sort(), ['code', 'explanation', 'recognized']);
      assert.deepEqual(r, { code, recognized: true, explanation: `message of ${code}` });
    }
    // A state handed along with the reason is neither read nor echoed.
    const withState = { code: 'x-unknown-code', message: 'm', state: 'healthy' };
    assert.ok(!('state' in explainReason(withState)));
    assert.equal(withState.state, 'healthy');
  });
});
