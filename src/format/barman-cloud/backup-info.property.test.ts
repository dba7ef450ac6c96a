/**
 * Property tests of barman-cloud's `backup.info` parser and its Python-literal reader (issue 19):
 * - arbitrary bytes, and arbitrary `key=value` text over Barman's field names with arbitrary
 *   values, are a typed result — never an exception — and every field reported lies within its
 *   declared bounds; problems are fixed codes, and no text of the file reaches the result except
 *   the allowlisted backup name;
 * - a generated file (each field absent, `None`, valid, or out of shape, in any order, among
 *   unknown keys, comments, blank lines, CRLF and padding) parses to exactly what an independent
 *   model of Barman's fields says, problems included;
 * - Python literals written as `repr()` writes them read back to the values written.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { BACKUP_STATUSES, BACKUP_TYPES } from '../../contract/values.ts';
import { formatLsn, isValidSegmentSize } from '../../postgres/wal.ts';
import { ERROR_TEXT_MAX, MAX_BACKUP_INFO_BYTES, MAX_BACKUP_NAME_CHARS, READ_FIELDS, parseBackupInfo, type BackupInfo, type BackupInfoProblem, type ReadField } from './backup-info.ts';
import { parsePythonLiteral, type PyValue } from './python-literal.ts';

const enc = (s: string) => new TextEncoder().encode(s);
const FAILURES = ['backup-info-too-large', 'backup-info-not-utf8', 'backup-info-malformed'];
const INFO_KEYS = [
  'status', 'backupType', 'timeline', 'systemId', 'version', 'segmentSize', 'beginWal', 'endWal', 'beginLsn', 'endLsn', 'beginAt', 'endAt',
  'clusterSize', 'deduplicatedSize', 'encryption', 'tablespaceOids', 'hasError', 'errorText', 'name', 'problems',
].sort();
const UNPRINTABLE = /[\p{C}\p{Zl}\p{Zp}]/u;
const SIZES = Array.from({ length: 11 }, (_, i) => 2 ** (20 + i));
/** Fields Barman writes that viewer does not read (tolerated unread). */
const OTHER_FIELDS = ['backup_label', 'begin_offset', 'end_offset', 'compression', 'config_file', 'copy_stats', 'hba_file', 'ident_file', 'included_files', 'pgdata', 'server_name', 'backup_id', 'children_backup_ids', 'data_checksums', 'summarize_wal', 'cluster_size_x'];
const LEAK = 'LEAKMARK';

/** Every bound the result type declares; `text` is the file, for the leak check. */
function checkInfo(info: BackupInfo, text: string | null): void {
  assert.deepEqual(Object.keys(info).sort(), INFO_KEYS);
  assert.ok(info.status === null || (BACKUP_STATUSES as readonly string[]).includes(info.status));
  assert.ok(info.backupType === null || (BACKUP_TYPES as readonly string[]).includes(info.backupType));
  assert.ok(info.timeline === null || (Number.isInteger(info.timeline) && info.timeline >= 1 && info.timeline <= 0xffffffff));
  assert.ok(info.systemId === null || (/^(?:0|[1-9][0-9]*)$/.test(info.systemId) && BigInt(info.systemId) < 1n << 64n));
  assert.ok(info.version === null || (Number.isInteger(info.version) && info.version >= 0 && info.version <= 9_999_999));
  assert.ok(info.segmentSize === null || isValidSegmentSize(info.segmentSize));
  for (const wal of [info.beginWal, info.endWal]) assert.ok(wal === null || /^[0-9A-F]{24}$/.test(wal));
  for (const lsn of [info.beginLsn, info.endLsn]) {
    assert.ok(lsn === null || (typeof lsn === 'bigint' && lsn >= 0n && lsn < 1n << 64n));
    if (lsn !== null) assert.match(formatLsn(lsn), /^[0-9A-F]{1,8}\/[0-9A-F]{1,8}$/);
  }
  for (const at of [info.beginAt, info.endAt]) {
    if (at === null) continue;
    assert.match(at, /^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]{1,6})?Z$/);
    const ms = Date.parse(at);
    assert.ok(Number.isFinite(ms));
    assert.equal(new Date(ms).toISOString().slice(0, 19), at.slice(0, 19));
    const year = Number(at.slice(0, 4));
    assert.ok(year >= 1971 && year <= 9999);
  }
  for (const n of [info.clusterSize, info.deduplicatedSize]) assert.ok(n === null || (Number.isSafeInteger(n) && n >= 0));
  assert.ok(info.encryption === null || info.encryption === 'none' || info.encryption === 'gpg');
  if (info.tablespaceOids !== null) {
    info.tablespaceOids.forEach((oid, i) => {
      assert.ok(Number.isInteger(oid) && oid >= 1 && oid <= 0xffffffff);
      if (i > 0) assert.ok(oid > (info.tablespaceOids?.[i - 1] ?? 0));
    });
  }
  assert.equal(typeof info.hasError, 'boolean');
  // The recorded error text is handed on as written, bounded, and only when there is one.
  assert.ok(info.errorText === null || (info.errorText !== '' && info.errorText.length <= ERROR_TEXT_MAX));
  assert.equal(info.errorText !== null, info.hasError);
  if (info.name !== null) {
    assert.ok(info.name !== '' && [...info.name].length <= MAX_BACKUP_NAME_CHARS && !UNPRINTABLE.test(info.name) && info.name === info.name.trim());
  }
  const seen = new Set<string>();
  for (const p of info.problems) {
    assert.deepEqual(Object.keys(p).sort(), ['field', 'problem']);
    assert.ok((READ_FIELDS as readonly string[]).includes(p.field));
    assert.ok(p.problem === 'invalid' || p.problem === 'missing');
    assert.ok(!seen.has(p.field), `${p.field} reported twice`);
    seen.add(p.field);
  }
  if (text !== null) {
    // Nothing of the file but the backup name and the recorded error text travels: a marker in any other value never reaches the result.
    const out = JSON.stringify({ ...info, name: null, errorText: null }, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
    assert.ok(!out.includes(LEAK), `file text reached the result: ${out.slice(0, 200)}`);
  }
}

function check(bytes: Uint8Array, text: string | null): void {
  const r = parseBackupInfo(bytes);
  if (!r.ok) {
    assert.ok(FAILURES.includes(r.reason));
    assert.deepEqual(Object.keys(r).sort(), ['ok', 'reason']);
    return;
  }
  checkInfo(r.info, text);
}

// ---------------------------------------------------------------------------------------------
// Generated files and their model.

type Field = (typeof READ_FIELDS)[number];
/** How one field appears: not at all, as `None`, as a valid value (with what it means), or out of shape. */
type State<T> = { readonly kind: 'absent' } | { readonly kind: 'none' } | { readonly kind: 'valid'; readonly text: string; readonly value: T } | { readonly kind: 'garbage'; readonly text: string };

/** One line of text, never starting a value any field accepts (`~`), never blank. */
const garbageText = fc.string({ maxLength: 30 }).map((s) => `~${s.replace(/[\r\n]/g, ' ')}${LEAK}`);

function stateOf<T>(valid: fc.Arbitrary<readonly [string, T]>): fc.Arbitrary<State<T>> {
  return fc.oneof(
    { weight: 1, arbitrary: fc.constant({ kind: 'absent' } as const) },
    { weight: 1, arbitrary: fc.constant({ kind: 'none' } as const) },
    { weight: 5, arbitrary: valid.map(([text, value]) => ({ kind: 'valid', text, value }) as const) },
    { weight: 1, arbitrary: garbageText.map((text) => ({ kind: 'garbage', text }) as const) },
  );
}

const pad2 = (n: number) => String(n).padStart(2, '0');

/** Python's str(datetime) with a UTC offset, and the RFC 3339 UTC text it means. */
const timestampArb = fc
  .tuple(
    fc.integer({ min: Date.UTC(1971, 0, 2), max: Date.UTC(9999, 11, 30) }),
    fc.oneof(fc.constant(0), fc.integer({ min: -(23 * 60 + 59), max: 23 * 60 + 59 })),
    fc.option(fc.string({ unit: fc.constantFrom(...'0123456789'), minLength: 1, maxLength: 6 })),
  )
  .map(([ms, offsetMinutes, frac]): readonly [string, string] => {
    const utc = Math.floor(ms / 1000) * 1000;
    const local = new Date(utc + offsetMinutes * 60_000);
    const abs = Math.abs(offsetMinutes);
    const text =
      `${String(local.getUTCFullYear()).padStart(4, '0')}-${pad2(local.getUTCMonth() + 1)}-${pad2(local.getUTCDate())} ` +
      `${pad2(local.getUTCHours())}:${pad2(local.getUTCMinutes())}:${pad2(local.getUTCSeconds())}${frac === null ? '' : `.${frac}`}` +
      `${offsetMinutes < 0 ? '-' : '+'}${pad2(Math.floor(abs / 60))}:${pad2(abs % 60)}`;
    const iso = new Date(utc).toISOString().slice(0, 19);
    return [text, frac === null ? `${iso}Z` : `${iso}.${frac}Z`];
  });

const walArb = fc.string({ unit: fc.constantFrom(...'0123456789ABCDEF'), minLength: 24, maxLength: 24 }).map((w) => [w, w] as const);
const lsnArb = fc.tuple(fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }), fc.boolean()).map(([v, lower]) => [lower ? formatLsn(v).toLowerCase() : formatLsn(v), v] as const);
const sizeArb = fc.oneof(fc.nat(), fc.maxSafeNat()).map((n) => [String(n), n] as const);

/** repr([tuple(t) for t in tablespaces]): (name, oid, location) tuples with distinct OIDs. */
const tablespacesArb = fc
  .uniqueArray(fc.tuple(fc.stringMatching(/^[a-z][a-z0-9_]{0,10}$/), fc.integer({ min: 1, max: 0xffffffff }), fc.stringMatching(/^\/[a-z0-9/_]{0,20}$/)), { selector: ([, oid]) => oid, maxLength: 5 })
  .map((ts) => [`[${ts.map(([n, oid, loc]) => `('${n}', ${String(oid)}, '${loc}')`).join(', ')}]`, ts.map(([, oid]) => oid).sort((a, b) => a - b)] as const);

/** A name an operator would give: printable, possibly padded with spaces (trimmed), sometimes too long. */
const nameArb = fc.oneof(
  fc.string({ unit: fc.constantFrom(...'abcXYZ019 -_.:/é漢🙂'), minLength: 1, maxLength: 40 }).map((s) => [s, s.trim() === '' ? null : s.trim()] as const),
  fc.string({ unit: fc.constantFrom(...'ab漢🙂'), minLength: MAX_BACKUP_NAME_CHARS + 1, maxLength: MAX_BACKUP_NAME_CHARS + 5 }).map((s) => [s, null] as const),
  fc.tuple(fc.string({ maxLength: 5 }), fc.constantFrom('\u0000', '\u0007', '\u200e', '\u202e', '\u2028', '\ue000', '\ufeff'), fc.string({ maxLength: 5 })).map(([a, c, b]) => [`x${a.replace(/[\r\n]/g, '')}${c}${b.replace(/[\r\n]/g, '')}x`, null] as const),
);

const fieldsArb = fc.record(
  {
    status: stateOf(fc.constantFrom(...BACKUP_STATUSES).map((s) => [s, s] as const)),
    mode: stateOf(fc.constantFrom('postgres', 'concurrent', 'exclusive', 'passive', 'rsync-exclusive', 'rsync-concurrent', 'snapshot-concurrent').map((m) => [m, m] as const)),
    parent_backup_id: stateOf(fc.constant(['20261120T000000', '20261120T000000'] as const)),
    snapshots_info: stateOf(fc.constant(["{'provider': 'gcp', 'snapshots': []}", true] as const)),
    timeline: stateOf(fc.integer({ min: 1, max: 0xffffffff }).map((n) => [String(n), n] as const)),
    systemid: stateOf(fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }).map((n) => [String(n), String(n)] as const)),
    version: stateOf(fc.integer({ min: 0, max: 9_999_999 }).map((n) => [String(n), n] as const)),
    xlog_segment_size: stateOf(fc.constantFrom(...SIZES).map((n) => [String(n), n] as const)),
    begin_wal: stateOf(walArb),
    end_wal: stateOf(walArb),
    begin_xlog: stateOf(lsnArb),
    end_xlog: stateOf(lsnArb),
    begin_time: stateOf(timestampArb),
    end_time: stateOf(timestampArb),
    cluster_size: stateOf(sizeArb),
    size: stateOf(sizeArb),
    deduplicated_size: stateOf(sizeArb),
    encryption: stateOf(fc.constant(['gpg', 'gpg'] as const)),
    tablespaces: stateOf(tablespacesArb),
    error: stateOf(fc.string({ minLength: 1, maxLength: 20 }).filter((s) => !/[\r\n]/.test(s) && s.trim() !== '').map((s) => [s, true] as const)),
    backup_name: stateOf(nameArb),
  },
  { noNullPrototype: true },
);
type FieldStates = typeof fieldsArb extends fc.Arbitrary<infer F> ? F : never;

/** What Barman's fields mean, written independently of the parser. */
function model(f: FieldStates): BackupInfo {
  const problems: BackupInfoProblem[] = [];
  const REQUIRED = new Set<Field>(['status', 'timeline', 'systemid', 'version', 'xlog_segment_size', 'begin_wal', 'begin_xlog', 'begin_time']);
  function typed<T>(field: ReadField, s: State<T>): T | null {
    if (s.kind === 'valid') return s.value;
    if (s.kind === 'garbage') problems.push({ field, problem: 'invalid' });
    else if (REQUIRED.has(field)) problems.push({ field, problem: 'missing' });
    return null;
  }
  const present = (s: State<unknown>) => s.kind === 'valid' || s.kind === 'garbage';
  const status = typed('status', f.status);
  let backupType: BackupInfo['backupType'];
  const mode = f.mode.kind === 'valid' ? f.mode.value : f.mode.kind === 'garbage' ? f.mode.text : null;
  if (present(f.snapshots_info) || mode?.startsWith('snapshot') === true) backupType = 'snapshot';
  else if (mode?.startsWith('rsync') === true) backupType = 'rsync';
  else if (present(f.parent_backup_id)) backupType = 'incremental';
  else if (f.mode.kind === 'absent') {
    // Barman always writes the line (mode=None for a cloud backup): without it the type is unknown.
    backupType = null;
    problems.push({ field: 'mode', problem: 'missing' });
  } else if (f.mode.kind !== 'garbage') backupType = 'full';
  else {
    backupType = null;
    problems.push({ field: 'mode', problem: 'invalid' });
  }
  let encryption: BackupInfo['encryption'] = null;
  if (f.encryption.kind === 'none') encryption = 'none';
  else if (f.encryption.kind === 'valid') encryption = 'gpg';
  else if (f.encryption.kind === 'garbage') problems.push({ field: 'encryption', problem: 'invalid' });
  const timeline = typed('timeline', f.timeline);
  const systemId = typed('systemid', f.systemid);
  const version = typed('version', f.version);
  const segmentSize = typed('xlog_segment_size', f.xlog_segment_size);
  const beginWal = typed('begin_wal', f.begin_wal);
  const endWal = typed('end_wal', f.end_wal);
  const beginLsn = typed('begin_xlog', f.begin_xlog);
  const endLsn = typed('end_xlog', f.end_xlog);
  const beginAt = typed('begin_time', f.begin_time);
  const endAt = typed('end_time', f.end_time);
  // `size` is read only when `cluster_size` gives nothing.
  const clusterSize = typed('cluster_size', f.cluster_size) ?? typed('size', f.size);
  const deduplicatedSize = typed('deduplicated_size', f.deduplicated_size);
  const tablespaceOids = f.tablespaces.kind === 'none' ? [] : f.tablespaces.kind === 'absent' ? null : typed('tablespaces', f.tablespaces);
  const hasError = f.error.kind === 'valid' || f.error.kind === 'garbage';
  // The recorded text as written (surrounding white space is the line's, not the text's), bounded.
  const errorText = f.error.kind === 'valid' || f.error.kind === 'garbage' ? f.error.text.trim().slice(0, ERROR_TEXT_MAX) : null;
  // Out-of-shape text is still a name when it is printable and short enough (a name is a label, never evidence).
  const garbageName = f.backup_name.kind === 'garbage' ? f.backup_name.text : null;
  const name = f.backup_name.kind === 'valid' ? f.backup_name.value : garbageName !== null && [...garbageName].length <= MAX_BACKUP_NAME_CHARS && !UNPRINTABLE.test(garbageName) ? garbageName : null;
  return {
    status, backupType, timeline, systemId, version, segmentSize, beginWal, endWal, beginLsn, endLsn, beginAt, endAt, clusterSize, deduplicatedSize,
    encryption, tablespaceOids, hasError, errorText, name, problems,
  };
}

const sortProblems = (ps: readonly BackupInfoProblem[]) => [...ps].sort((a, b) => (a.field < b.field ? -1 : a.field > b.field ? 1 : 0));

/** Unknown keys Barman may add, with any one-line value. */
const otherLinesArb = fc.uniqueArray(
  fc.tuple(fc.oneof(fc.constantFrom(...OTHER_FIELDS), fc.stringMatching(/^[a-z][a-z0-9_]{0,63}$/)), fc.string({ maxLength: 60 }).map((v) => v.replace(/[\r\n]/g, ' '))),
  { selector: ([k]) => k, maxLength: 8 },
).map((ls) => ls.filter(([k]) => !(READ_FIELDS as readonly string[]).includes(k)));

const layoutArb = fc.record({ crlf: fc.boolean(), padding: fc.constantFrom('', ' ', '\t', '  '), comments: fc.nat(3), blanks: fc.nat(3), order: fc.array(fc.nat(), { minLength: 40, maxLength: 40 }) });

describe("barman-cloud backup.info", () => {
  it('parses arbitrary bytes to a typed result within its bounds, never throwing', () => {
    fc.assert(
      fc.property(fc.oneof(fc.uint8Array({ maxLength: 2000 }), fc.string({ unit: 'binary', maxLength: 600 }).map(enc)), (bytes) => check(bytes, null)),
      { numRuns: 3000 },
    );
  });

  it("parses arbitrary key=value text over Barman's field names to a typed result within bounds, leaking nothing", () => {
    const value = fc.oneof(
      fc.string({ maxLength: 40 }),
      fc.string({ unit: 'binary', maxLength: 40 }),
      fc.constantFrom('None', 'True', '0', '-1', '1e3', '16777216', '000000010000000000000001', '0/1', 'ffffffff/ffffffff', '[]', "[('a', 1, '/x')]", '2026-11-21 13:28:21+00:00', 'gpg', 'DONE', "''", '1' + '0'.repeat(20)),
      fc.tuple(fc.string({ maxLength: 10 }), fc.string({ maxLength: 10 })).map(([a, b]) => `${a}${LEAK}${b}`),
    );
    const line = fc.tuple(fc.oneof({ weight: 5, arbitrary: fc.constantFrom(...READ_FIELDS) }, { weight: 1, arbitrary: fc.constantFrom(...OTHER_FIELDS) }, { weight: 1, arbitrary: fc.string({ maxLength: 8 }) }), value, fc.constantFrom('=', ' = ', '=='));
    fc.assert(
      fc.property(fc.array(line, { maxLength: 30 }), fc.boolean(), (lines, unique) => {
        const kept = unique ? lines.filter(([k], i) => lines.findIndex(([k2]) => k2 === k) === i) : lines;
        const text = kept.map(([k, v, eq]) => `${k}${eq}${v}`).join('\n');
        check(enc(text), text);
      }),
      { numRuns: 3000 },
    );
  });

  it('parses a generated file to exactly what a model of its fields says, problems included', () => {
    fc.assert(
      fc.property(fieldsArb, otherLinesArb, layoutArb, fc.array(fc.string({ maxLength: 20 }), { maxLength: 3 }), (fields, others, layout, commentTexts) => {
        const lines: string[] = [];
        for (const [key, s] of Object.entries(fields) as [Field, State<unknown>][]) {
          if (s.kind === 'absent') continue;
          lines.push(`${key}${layout.padding}=${layout.padding}${s.kind === 'none' ? 'None' : s.text}`);
        }
        for (const [k, v] of others) lines.push(`${k}=${v}`);
        for (const c of commentTexts.slice(0, layout.comments)) lines.push(`#${c.replace(/[\r\n]/g, ' ')}`);
        for (let i = 0; i < layout.blanks; i++) lines.push(layout.padding);
        // Any order: Barman writes fields sorted, but nothing depends on it.
        const keyed = lines.map((l, i) => [layout.order[i] ?? i, l] as const).sort((a, b) => a[0] - b[0]).map(([, l]) => l);
        const text = `${keyed.join(layout.crlf ? '\r\n' : '\n')}\n`;
        const r = parseBackupInfo(enc(text));
        assert.ok(r.ok, text);
        const expected = model(fields);
        checkInfo(r.info, null);
        assert.deepEqual({ ...r.info, problems: sortProblems(r.info.problems) }, { ...expected, problems: sortProblems(expected.problems) }, text);
        // No garbage marker (file text out of shape) travels, except as the operator's name and the recorded error text.
        const out = JSON.stringify({ ...r.info, name: null, errorText: null }, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
        assert.ok(!out.includes(LEAK));
      }),
      { numRuns: 2000 },
    );
  });

  it('refuses files over the size bound, and repeated keys, as typed failures', () => {
    fc.assert(
      fc.property(fc.constantFrom(...READ_FIELDS, ...OTHER_FIELDS), fc.string({ maxLength: 10 }), fc.string({ maxLength: 10 }), (key, a, b) => {
        const one = (v: string) => `${key}=${v.replace(/[\r\n]/g, '')}`;
        assert.deepEqual(parseBackupInfo(enc(`${one(a)}\n${one(b)}\n`)), { ok: false, reason: 'backup-info-malformed' });
        assert.deepEqual(parseBackupInfo(new Uint8Array(MAX_BACKUP_INFO_BYTES + 1).fill(0x23)), { ok: false, reason: 'backup-info-too-large' });
      }),
      { numRuns: 50 },
    );
  });
});

// ---------------------------------------------------------------------------------------------
// Python literals as repr() writes them.

/** Python's repr of a str: single quotes unless the text holds one and no double quote. */
function reprString(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of s) {
    const c = ch.codePointAt(0) ?? 0;
    if (ch === quote || ch === '\\') out += `\\${ch}`;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (c < 0x20 || c === 0x7f) out += `\\x${c.toString(16).padStart(2, '0')}`;
    else if (c >= 0x80 && c <= 0xa0) out += `\\x${c.toString(16)}`;
    else if (c >= 0xd800 && c <= 0xdfff) out += `\\u${c.toString(16)}`;
    else if (c >= 0xe000 && c <= 0xf8ff) out += `\\u${c.toString(16)}`;
    else if (c >= 0xf0000) out += `\\U${c.toString(16).padStart(8, '0')}`;
    else out += ch;
  }
  return out + quote;
}

function reprFloat(x: number): string {
  if (Object.is(x, -0)) return '-0.0';
  const s = String(x);
  return /[.e]/.test(s) ? s : `${s}.0`;
}

/** A value and how it reads back: tuples and lists are both arrays; floats are numbers. */
type Gen = { readonly repr: string; readonly value: PyValue };
const pyArb: fc.Arbitrary<Gen> = fc.letrec<{ v: Gen }>((tie) => ({
  v: fc.oneof(
    { depthSize: 'small', maxDepth: 6 },
    fc.constantFrom<Gen>({ repr: 'None', value: null }, { repr: 'True', value: true }, { repr: 'False', value: false }),
    fc.maxSafeInteger().map((n): Gen => ({ repr: String(n), value: n })),
    fc.bigInt({ min: -(1n << 80n), max: 1n << 80n }).map((n): Gen => ({ repr: String(n), value: n >= BigInt(Number.MIN_SAFE_INTEGER) && n <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : n })),
    fc.double({ noNaN: true, noDefaultInfinity: true }).map((x): Gen => ({ repr: reprFloat(x), value: x })),
    fc.string({ unit: 'binary', maxLength: 12 }).map((s): Gen => ({ repr: reprString(s), value: s })),
    fc.array(tie('v'), { maxLength: 4 }).map((xs): Gen => ({ repr: `[${xs.map((x) => x.repr).join(', ')}]`, value: xs.map((x) => x.value) })),
    fc.array(tie('v'), { maxLength: 4 }).map((xs): Gen => ({ repr: xs.length === 1 ? `(${xs[0]?.repr ?? ''},)` : `(${xs.map((x) => x.repr).join(', ')})`, value: xs.map((x) => x.value) })),
    fc.array(fc.tuple(tie('v'), tie('v')), { maxLength: 3 }).map((kv): Gen => ({ repr: `{${kv.map(([k, v]) => `${k.repr}: ${v.repr}`).join(', ')}}`, value: { dict: kv.map(([k, v]) => [k.value, v.value] as const) } })),
  ),
})).v;

describe('Python literals as Barman writes them with repr()', () => {
  it('read back to the values written', () => {
    fc.assert(
      fc.property(pyArb, (g) => {
        assert.deepEqual(parsePythonLiteral(g.repr), g.value, g.repr);
      }),
      { numRuns: 3000 },
    );
  });

  it('read arbitrary text to a value or undefined, never throwing', () => {
    const textArb = fc.oneof(
      fc.string({ maxLength: 200 }),
      fc.string({ unit: fc.constantFrom(...'[](){}\'",: 0123456789-.eNoneTrueFalse\\xu'), maxLength: 200 }),
      pyArb.chain((g) => fc.tuple(fc.nat(g.repr.length), fc.nat(g.repr.length), fc.string({ maxLength: 3 })).map(([a, b, s]) => g.repr.slice(0, Math.min(a, b)) + s + g.repr.slice(Math.max(a, b)))),
      fc.nat(40).map((n) => '['.repeat(n) + ']'.repeat(n)),
    );
    fc.assert(
      fc.property(textArb, (text) => {
        const v = parsePythonLiteral(text);
        assert.ok(v === undefined || v === null || ['boolean', 'number', 'bigint', 'string', 'object'].includes(typeof v));
        if (typeof v === 'number') assert.ok(Number.isFinite(v));
      }),
      { numRuns: 3000 },
    );
  });
});
