/**
 * Property tests of pgBackRest's info-file format (issue 19):
 * - arbitrary bytes (and INI-shaped byte text) are a typed result, never an exception, whatever
 *   reads them next (the backup.info and archive.info views, the `.copy` rule);
 * - a generated info file — any sections, byte-string keys (`=` and all) and JSON values, closed
 *   with the checksum computed here independently (SHA-1 of pgBackRest's canonical rendering) —
 *   reads back to exactly its sections, with a valid checksum, in any chunking;
 * - no single-byte change or truncation of such a file keeps a valid checksum, except where
 *   pgBackRest's own reader cannot tell (white space after the checksum's value, the last newline);
 * - JSON values as pgBackRest writes them read back to themselves.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { INFO_FIELDS, readBackupInfo } from './backup-info.ts';
import { readArchiveInfo } from './archive-info.ts';
import { InfoStream, INFO_FILE_LIMITS, chooseInfoCopy, parseInfoFile, parseJsonValue, type InfoFailure, type InfoFileResult, type JsonValue } from './info-file.ts';

const FAILURES: readonly InfoFailure[] = [
  'too-large', 'too-many-lines', 'line-too-long', 'too-many-sections', 'binary', 'encrypted', 'bad-section',
  'outside-section', 'missing-equals', 'invalid-json', 'empty-key', 'key-too-long', 'duplicate-key', 'invalid-value',
];
const INT64_MIN = -(1n << 63n);
const UINT64_MAX = (1n << 64n) - 1n;
const latin1 = (s: string) => Buffer.from(s, 'latin1');

/** Checks a result's shape; for a loaded file, that the typed views read it without throwing. */
function checkResult(r: InfoFileResult): void {
  if (!r.ok) {
    assert.ok(FAILURES.includes(r.reason));
    assert.ok(r.line === null || (Number.isInteger(r.line) && r.line >= 1));
    assert.deepEqual(Object.keys(r).sort(), ['line', 'ok', 'reason']);
    return;
  }
  assert.ok(['valid', 'invalid', 'missing'].includes(r.checksum));
  assert.match(r.digest, /^[0-9a-f]{40}$/);
  assert.ok(r.format === null || (Number.isInteger(r.format) && r.format >= 0));
  assert.equal(r.loadable, r.checksum === 'valid' && (r.format === 5 || !(r.sections.get('backrest')?.has('backrest-format') ?? false)));
  assert.equal(r.sections.has('cipher'), false);
  for (const view of [readBackupInfo(r), readArchiveInfo(r)]) {
    for (const p of view.problems) assert.ok((INFO_FIELDS as readonly string[]).includes(p.field), p.field);
  }
}

// ---------------------------------------------------------------------------------------------
// Generated files.

/** A byte string: one UTF-16 unit per byte, any byte but NUL. */
const bytesOf = (arb: fc.Arbitrary<number>, constraints: { minLength?: number; maxLength?: number } = {}) => fc.string({ unit: arb.map((c) => String.fromCharCode(c)), ...constraints });
const anyByte = fc.oneof({ weight: 4, arbitrary: fc.integer({ min: 0x20, max: 0x7e }) }, { weight: 1, arbitrary: fc.integer({ min: 1, max: 0xff }) });

const jsonArb: fc.Arbitrary<JsonValue> = fc.letrec<{ v: JsonValue }>((tie) => ({
  v: fc.oneof(
    { depthSize: 'small', maxDepth: 4 },
    fc.constantFrom<JsonValue>(null, true, false),
    fc.oneof(fc.bigInt({ min: INT64_MIN, max: UINT64_MAX }), fc.bigInt({ min: -1000n, max: 1000n }), fc.constantFrom(INT64_MIN, UINT64_MAX)),
    bytesOf(anyByte, { maxLength: 16 }),
    fc.array(tie('v'), { maxLength: 4 }),
    fc.uniqueArray(fc.tuple(bytesOf(anyByte, { maxLength: 8 }), tie('v')), { selector: ([k]) => k, maxLength: 4 }).map((kv): JsonValue => new Map(kv)),
  ),
})).v;

/** pgBackRest's JSON writer, written here independently: no white space, strings with seven escapes. */
function renderString(s: string): string {
  let out = '"';
  for (const c of s) out += c === '"' ? '\\"' : c === '\\' ? '\\\\' : c === '\n' ? '\\n' : c === '\r' ? '\\r' : c === '\t' ? '\\t' : c === '\b' ? '\\b' : c === '\f' ? '\\f' : c;
  return `${out}"`;
}
function render(v: JsonValue): string {
  if (v === null) return 'null';
  if (typeof v === 'boolean' || typeof v === 'bigint') return String(v);
  if (typeof v === 'string') return renderString(v);
  if (Array.isArray(v)) return `[${v.map(render).join(',')}]`;
  return `{${[...(v as ReadonlyMap<string, JsonValue>)].map(([k, x]) => `${renderString(k)}:${render(x)}`).join(',')}}`;
}

/** A key: a byte string with no NUL or newline, not opening a section, `=` allowed. */
const keyArb = bytesOf(fc.oneof({ weight: 6, arbitrary: fc.integer({ min: 0x21, max: 0x7e }) }, { weight: 1, arbitrary: fc.constantFrom(0x3d, 0x20, 0x09, 0x0d, 0x80, 0xe9, 0xff) }), { minLength: 1, maxLength: 20 }).filter((k) => !k.startsWith('['));
const sectionNameArb = fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9:._-]{0,20}$/).filter((n) => n !== 'backrest' && n !== 'cipher');
// pgBackRest writes no empty section (one would be covered by no checksum: its header is no value).
const sectionsArb = fc.uniqueArray(fc.tuple(sectionNameArb, fc.uniqueArray(fc.tuple(keyArb, jsonArb), { selector: ([k]) => k, minLength: 1, maxLength: 6 })), { selector: ([n]) => n, maxLength: 5 });
type Sections = readonly (readonly [string, readonly (readonly [string, JsonValue])[]])[];

/** The file pgBackRest writes, its checksum computed from the canonical rendering of every value. */
function infoFile(sections: Sections, version: string): { text: string; expected: Map<string, Map<string, JsonValue>> } {
  const head: Sections = [['backrest', [['backrest-format', 5n], ['backrest-version', version]]]];
  const all = [...head, ...sections].filter(([, lines]) => lines.length > 0);
  const canonical = `{${all.map(([name, lines]) => `"${name}":{${lines.map(([k, v]) => `${renderString(k)}:${render(v)}`).join(',')}}`).join(',')}}`;
  const checksum = createHash('sha1').update(latin1(canonical)).digest('hex');
  const body = [...head, ...sections].map(([name, lines]) => `[${name}]\n${lines.map(([k, v]) => `${k}=${render(v)}\n`).join('')}`).join('\n');
  const text = `${body}\n[backrest]\nbackrest-checksum=${renderString(checksum)}\n`;
  const expected = new Map(all.map(([name, lines]) => [name, new Map(lines)]));
  expected.get('backrest')?.set('backrest-checksum', checksum);
  return { text, expected };
}

const fileArb = fc.tuple(sectionsArb, fc.constantFrom('2.45', '2.59.1', '2.60dev')).map(([sections, version]) => ({ version, ...infoFile(sections, version) }));

describe('pgBackRest info files', () => {
  it('read arbitrary bytes to a typed result, never throwing, whatever reads them next', () => {
    const ini = bytesOf(fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...Buffer.from('[]=\n"{}:,0123456789-abcdekrstuvy\\ ')) }, { weight: 1, arbitrary: fc.integer({ min: 0, max: 255 }) }), { maxLength: 300 });
    fc.assert(
      fc.property(fc.oneof(fc.uint8Array({ maxLength: 500 }), ini.map(latin1)), fc.oneof(fc.uint8Array({ maxLength: 100 }), ini.map(latin1)), (a, b) => {
        const ra = parseInfoFile(a);
        const rb = parseInfoFile(b);
        checkResult(ra);
        checkResult(rb);
        const choice = chooseInfoCopy(ra, rb);
        assert.ok(choice.chosen === null || choice.file !== null);
        chooseInfoCopy(null, rb);
        chooseInfoCopy(ra, null);
      }),
      { numRuns: 3000 },
    );
  });

  it('read a generated file back to exactly its sections, with a valid checksum, format 5 and its version', () => {
    fc.assert(
      fc.property(fileArb, ({ text, expected, version }) => {
        const r = parseInfoFile(latin1(text));
        if (!r.ok) assert.fail(`refused: ${r.reason} at line ${String(r.line)}\n${text}`);
        assert.equal(r.checksum, 'valid', text);
        assert.equal(r.loadable, true);
        assert.equal(r.format, 5);
        assert.equal(r.version, version);
        assert.equal(r.digest, createHash('sha1').update(latin1(text)).digest('hex'));
        assert.deepEqual(r.sections, expected);
        checkResult(r);
      }),
      { numRuns: 2000 },
    );
  });

  it('read a generated file the same in any chunking', () => {
    fc.assert(
      fc.property(fileArb, fc.array(fc.nat(), { maxLength: 20 }), ({ text }, cuts) => {
        const bytes = latin1(text);
        const whole = parseInfoFile(bytes);
        const at = [...new Set([0, ...cuts.map((c) => c % (bytes.length + 1)), bytes.length])].sort((a, b) => a - b);
        const sections = new Map<string, Map<string, JsonValue>>();
        const stream = new InfoStream(INFO_FILE_LIMITS, (section, key, value) => {
          if (!sections.has(section)) sections.set(section, new Map());
          sections.get(section)?.set(key, value);
          return null;
        });
        for (let i = 1; i < at.length; i++) stream.push(bytes.subarray(at[i - 1], at[i]));
        const end = stream.end();
        assert.ok(whole.ok && end.ok);
        assert.deepEqual({ ...end, sections }, whole);
      }),
      { numRuns: 500 },
    );
  });

  it('never keep a valid checksum through a one-byte change or a truncation', () => {
    fc.assert(
      fc.property(fileArb, fc.nat(), fc.integer({ min: 0, max: 255 }), fc.nat(), ({ text }, where, byte, cut) => {
        const bytes = latin1(text);
        const i = where % bytes.length;
        if (bytes[i] !== byte) {
          const changed = Buffer.from(bytes);
          changed[i] = byte;
          const r = parseInfoFile(changed);
          checkResult(r);
          // White space after the checksum's value is the one change no checksum covers (pgBackRest's JSON reader skips it).
          const uncovered = i === bytes.length - 1 && [0x20, 0x09, 0x0d].includes(byte);
          if (!uncovered) assert.ok(!(r.ok && r.checksum === 'valid'), `byte ${String(i)} → ${String(byte)} kept a valid checksum`);
        }
        const n = cut % bytes.length;
        const r = parseInfoFile(bytes.subarray(0, n));
        checkResult(r);
        // The last newline alone may go: a last line without one is read as a line.
        if (n !== bytes.length - 1) assert.ok(!(r.ok && r.checksum === 'valid'), `a truncation to ${String(n)} bytes kept a valid checksum`);
      }),
      { numRuns: 3000 },
    );
  });

  it('read JSON values as pgBackRest writes them back to themselves, and any text without throwing', () => {
    fc.assert(
      fc.property(jsonArb, bytesOf(anyByte, { maxLength: 40 }), (v, noise) => {
        assert.deepEqual(parseJsonValue(render(v)), v);
        assert.deepEqual(parseJsonValue(` \t${render(v)}\r `), v);
        const text = render(v);
        const cut = noise.length % (text.length + 1);
        for (const t of [noise, text.slice(0, cut) + noise + text.slice(cut), text + noise]) {
          // Whatever is accepted is a value that renders and reads back to itself.
          const parsed = parseJsonValue(t);
          if (parsed !== undefined) assert.deepEqual(parseJsonValue(render(parsed)), parsed);
        }
      }),
      { numRuns: 3000 },
    );
  });
});
