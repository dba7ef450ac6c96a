/**
 * The info-file format: real files written by pgBackRest 2.45 (checksums verified), the line
 * grammar of pgBackRest's strict INI reader, its JSON subset, the `.copy` rule, and hostile input
 * of every kind — which yields a typed failure, never an exception and never text of its own.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  INFO_FILE_LIMITS, InfoStream, chooseInfoCopy, parseInfoFile, parseJsonValue, renderJsonString, utf8Text,
  type InfoFailure, type InfoFile, type InfoFileResult, type JsonValue,
} from './info-file.ts';
import { REAL_ARCHIVE_INFO, REAL_BACKUP_INFO, enc, seal, unsealed } from '../../../test/support/synthetic/stanza-fixtures.ts';

const FAILURES: readonly InfoFailure[] = [
  'too-large', 'too-many-lines', 'line-too-long', 'too-many-sections', 'binary', 'encrypted', 'bad-section',
  'outside-section', 'missing-equals', 'invalid-json', 'empty-key', 'key-too-long', 'duplicate-key', 'invalid-value',
];

function ok(text: string | Uint8Array): InfoFile {
  const r = parseInfoFile(typeof text === 'string' ? enc(text) : text);
  if (!r.ok) assert.fail(`refused: ${r.reason} at ${String(r.line)}`);
  return r;
}

function refused(text: string | Uint8Array, limits = INFO_FILE_LIMITS): InfoFailure {
  const r = parseInfoFile(typeof text === 'string' ? enc(text) : text, limits);
  if (r.ok) assert.fail('accepted');
  return r.reason;
}

/** Every string reachable from a result, keys included (bigints as text). */
function textOf(r: InfoFileResult): string {
  return JSON.stringify(r, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v instanceof Map ? [...(v as Map<string, unknown>)] : v));
}

describe('real info files written by pgBackRest 2.45', () => {
  it('reads archive.info: sections, values, a valid checksum, format 5, version 2.45', () => {
    const f = ok(REAL_ARCHIVE_INFO);
    assert.equal(f.checksum, 'valid');
    assert.equal(f.format, 5);
    assert.equal(f.version, '2.45');
    assert.equal(f.loadable, true);
    assert.equal(f.cipherPass, false);
    assert.deepEqual([...f.sections.keys()], ['backrest', 'db', 'db:history']);
    // A system identifier beyond 2^53 stays exact.
    assert.equal(f.sections.get('db')?.get('db-system-id'), 7710615802719085140n);
    const h = f.sections.get('db:history')?.get('1');
    assert.ok(h instanceof Map);
    assert.equal(h.get('db-id'), 7710615802719085140n);
    assert.equal(h.get('db-version'), '15');
    assert.match(f.digest, /^[0-9a-f]{40}$/);
  });

  it('reads backup.info with a valid checksum over its three backups', () => {
    const f = ok(REAL_BACKUP_INFO);
    assert.equal(f.checksum, 'valid');
    assert.deepEqual([...(f.sections.get('backup:current')?.keys() ?? [])], ['20261121-132726F', '20261121-132726F_20261121-132731I', '20261121-132726F_20261121-132733D']);
  });

  it('reads the same file pushed one byte at a time', () => {
    const values: string[] = [];
    const s = new InfoStream(INFO_FILE_LIMITS, (section, key) => {
      values.push(`${section}/${key}`);
      return null;
    });
    for (const b of enc(REAL_BACKUP_INFO)) s.push(Uint8Array.of(b));
    const end = s.end();
    assert.ok(end.ok);
    assert.equal(end.checksum, 'valid');
    assert.equal(end.digest, ok(REAL_BACKUP_INFO).digest);
    assert.equal(values.length, 12);
    assert.deepEqual(s.end(), end, 'end() is idempotent');
  });
});

describe('the checksum (src/info/info.c)', () => {
  const body = unsealed(REAL_ARCHIVE_INFO);

  it('is invalid once any value changes, missing when absent', () => {
    assert.equal(ok(REAL_ARCHIVE_INFO.replace('db-version="15"\n', 'db-version="16"\n')).checksum, 'invalid');
    assert.equal(ok(body).checksum, 'missing');
    assert.equal(ok(body).loadable, false);
  });

  it('is compared as lowercase hex text, as pgBackRest writes it', () => {
    assert.equal(ok(REAL_ARCHIVE_INFO.replace('b7d89e982470d756b0b95fcb197e852f3bfde816', 'B7D89E982470D756B0B95FCB197E852F3BFDE816')).checksum, 'invalid');
    assert.equal(ok(REAL_ARCHIVE_INFO.replace('"b7d89e982470d756b0b95fcb197e852f3bfde816"', '12345')).checksum, 'invalid');
  });

  it('covers raw value text: whitespace inside a value counts, blank lines do not', () => {
    const spaced = seal(body.replace('db-id=1\n', 'db-id= 1\n'));
    assert.equal(ok(spaced).checksum, 'valid');
    assert.equal(ok(spaced.replace('db-id= 1\n', 'db-id=1\n')).checksum, 'invalid');
    assert.equal(ok(REAL_ARCHIVE_INFO.replace('\n\n[db]', '\n\n\n\n[db]')).checksum, 'valid');
  });

  it('renders a section again when it comes back, exactly as pgBackRest streams it', () => {
    const split = seal('[backrest]\nbackrest-format=5\n\n[db]\ndb-id=1\n\n[backrest]\nbackrest-version="2.45"\n');
    const f = ok(split);
    assert.equal(f.checksum, 'valid');
    assert.equal(f.version, '2.45');
  });

  it('splits a key holding `=` at the first `=` that leaves JSON on its right', () => {
    const text = seal('[target:file]\npg_data/a=b={"size":0,"timestamp":1}\npg_data/c==={"size":1}\n');
    const f = ok(text);
    assert.equal(f.checksum, 'valid');
    assert.deepEqual([...(f.sections.get('target:file')?.keys() ?? [])], ['pg_data/a=b', 'pg_data/c==']);
  });

  it('escapes keys as pgBackRest writes JSON strings', () => {
    // A quote, a backslash and a tab in a key are escaped in the rendering; other bytes stay raw.
    const text = seal('[target:file]\npg_data/q"\\\tx={"size":0}\n');
    // seal() uses JSON.stringify, which escapes the same three characters the same way.
    assert.equal(ok(text).checksum, 'valid');
    assert.equal(renderJsonString('a"b\\c\n\r\t\b\f\x01é'), '"a\\"b\\\\c\\n\\r\\t\\b\\f\x01é"');
  });

  it('is exact over bytes that are not UTF-8', () => {
    const prefix = enc('[target:file]\npg_data/');
    const rest = enc('={"size":0}\n');
    const bytes = new Uint8Array([...prefix, 0xe9, 0xff, ...rest]);
    const canonical = Buffer.concat([Buffer.from('{"target:file":{"pg_data/'), Buffer.from([0xe9, 0xff]), Buffer.from('":{"size":0}}}')]);
    const sum = createHash('sha1').update(canonical).digest('hex');
    const file = new Uint8Array([...bytes, ...enc(`\n[backrest]\nbackrest-checksum="${sum}"\n`)]);
    const f = ok(file);
    assert.equal(f.checksum, 'valid');
    const [name] = f.sections.get('target:file')?.keys() ?? [];
    assert.equal(name, 'pg_data/\u00e9\u00ff', 'a byte string: one unit per byte');
    assert.equal(utf8Text(name ?? ''), null);
  });
});

describe('format, version and the cipher section', () => {
  it('is loadable only with format 5 or no format at all', () => {
    assert.equal(ok(seal('[backrest]\nbackrest-format=4\n')).loadable, false);
    assert.equal(ok(seal('[backrest]\nbackrest-format=4\n')).format, 4);
    assert.equal(ok(seal('[backrest]\nbackrest-format="5"\n')).loadable, false);
    assert.equal(ok(seal('[db]\ndb-id=1\n')).loadable, true);
    assert.equal(ok(seal('[db]\ndb-id=1\n')).format, null);
  });

  it('keeps only versions shaped like pgBackRest versions', () => {
    assert.equal(ok(seal('[backrest]\nbackrest-version="2.60dev"\n')).version, '2.60dev');
    assert.equal(ok(seal('[backrest]\nbackrest-version="<script>"\n')).version, null);
    assert.equal(ok(seal('[backrest]\nbackrest-version=2\n')).version, null);
  });

  it('counts a cipher passphrase in the checksum but never keeps or passes it on', () => {
    const r = parseInfoFile(enc(seal('[backrest]\nbackrest-format=5\n\n[cipher]\ncipher-pass="TOPSECRET-passphrase"\n\n[db]\ndb-id=1\n')));
    assert.ok(r.ok);
    assert.equal(r.checksum, 'valid');
    assert.equal(r.cipherPass, true);
    assert.equal(r.sections.has('cipher'), false);
    assert.ok(!textOf(r).includes('TOPSECRET'));
  });
});

describe('the line grammar (strict mode of src/common/ini.c)', () => {
  it('accepts a last line without its newline', () => {
    assert.equal(ok(REAL_ARCHIVE_INFO.slice(0, -1)).checksum, 'valid');
  });

  it('reads an empty file as a file without checksum', () => {
    const f = ok('');
    assert.equal(f.checksum, 'missing');
    assert.equal(f.sections.size, 0);
  });

  it('trims nothing: CRLF section lines are not sections', () => {
    assert.equal(refused(REAL_ARCHIVE_INFO.replaceAll('\n', '\r\n')), 'outside-section');
    assert.equal(refused('[db]\r\n'), 'outside-section');
    // A value may end in \r (JSON whitespace), and the \r is part of its checksummed text.
    const crValue = ok(seal('[db]\ndb-id=1\r\n'));
    assert.equal(crValue.checksum, 'valid');
    assert.equal(crValue.sections.get('db')?.get('db-id'), 1n);
  });

  it('refuses lines pgBackRest refuses', () => {
    assert.equal(refused('db-id=1\n'), 'outside-section');
    assert.equal(refused('[db]\nno equals here\n'), 'missing-equals');
    assert.equal(refused('[db]\n# comment\n'), 'missing-equals');
    assert.equal(refused('[db]\n \n'), 'missing-equals');
    assert.equal(refused('[db]\n=1\n'), 'empty-key');
    assert.equal(refused('[db]\nk=not json\n'), 'invalid-json');
    assert.equal(refused('[db]\nk=\n'), 'invalid-json');
    assert.equal(refused('[]\n'), 'bad-section');
  });

  it('refuses section names outside a safe alphabet (their rendering is not escaped)', () => {
    for (const name of ['a b', 'x"y', 'é', 'a\\b', '-x', 'a'.repeat(65)]) assert.equal(refused(`[${name}]\n`), 'bad-section', name);
    assert.ok(ok('[target:link:default]\n[a.b_c-1]\n'));
  });

  it('refuses a key twice in one section, also across a repeated section', () => {
    assert.equal(refused('[db]\nk=1\nk=2\n'), 'duplicate-key');
    assert.equal(refused('[db]\nk=1\n[x]\na=1\n[db]\nk=2\n'), 'duplicate-key');
    assert.equal(refused('[backrest]\nbackrest-checksum="a"\nbackrest-checksum="b"\n'), 'duplicate-key');
  });

  it('bounds bytes, lines, line length, key length and sections', () => {
    const small = { ...INFO_FILE_LIMITS, maxBytes: 100 };
    assert.equal(refused(REAL_ARCHIVE_INFO, small), 'too-large');
    assert.equal(refused(REAL_ARCHIVE_INFO, { ...INFO_FILE_LIMITS, maxLines: 5 }), 'too-many-lines');
    assert.equal(refused(REAL_ARCHIVE_INFO, { ...INFO_FILE_LIMITS, maxLineBytes: 20 }), 'line-too-long');
    assert.equal(refused('[db]\nabcdef=1\n', { ...INFO_FILE_LIMITS, maxKeyBytes: 4 }), 'key-too-long');
    assert.equal(refused('[a]\n[b]\n[c]\n', { ...INFO_FILE_LIMITS, maxSections: 2 }), 'too-many-sections');
    assert.equal(refused(`[db]\nk="${'x'.repeat(INFO_FILE_LIMITS.maxLineBytes)}"`), 'line-too-long');
  });

  it('refuses a NUL byte and recognises an encrypted file', () => {
    assert.equal(refused(new Uint8Array([...enc('[db]\nk="a'), 0, ...enc('"\n')])), 'binary');
    assert.equal(refused(new Uint8Array([...enc('Salted__'), 0, 1, 2, 0x0a, 0xff, 0x5b])), 'encrypted');
    // Split across pushes, the header is still seen.
    const s = new InfoStream(INFO_FILE_LIMITS, () => null);
    s.push(enc('Salt'));
    s.push(enc('ed__\x00'));
    const end = s.end();
    assert.ok(!end.ok && end.reason === 'encrypted');
  });

  it('passes on the sink’s refusal with its line number', () => {
    const s = new InfoStream(INFO_FILE_LIMITS, (_s, key) => (key === 'bad' ? 'invalid-value' : null));
    s.push(enc('[x]\na=1\nbad=2\nc=3\n'));
    assert.deepEqual(s.end(), { ok: false, reason: 'invalid-value', line: 3 });
    assert.equal(s.push(enc('more')), false, 'a failed stream ignores input');
  });
});

describe('JSON values (src/common/type/json.c)', () => {
  const v = (t: string): JsonValue | undefined => parseJsonValue(t);

  it('reads integers as exact bigints in 64 bits, and nothing fractional', () => {
    assert.equal(v('18446744073709551615'), 18446744073709551615n);
    assert.equal(v('-9223372036854775808'), -9223372036854775808n);
    assert.equal(v('007'), 7n);
    for (const t of ['18446744073709551616', '-9223372036854775809', '1.5', '1e3', '-', '+1', '0x10', '123456789012345678901']) assert.equal(v(t), undefined, t);
  });

  it('reads strings with the escapes pgBackRest reads', () => {
    assert.equal(v('"a\\"b\\\\c\\/d\\n\\r\\t\\b\\f"'), 'a"b\\c/d\n\r\t\b\f');
    assert.equal(v('"\\u0041"'), 'A');
    for (const t of ['"\\u00e9"', '"\\u1234"', '"\\x"', '"abc', '"\\', '"\\u00"']) assert.equal(v(t), undefined, t);
    assert.equal(v('"raw\x01control"'), 'raw\x01control');
  });

  it('reads objects as maps, refusing duplicate keys; no key reaches a prototype', () => {
    const o = v('{"__proto__":{"polluted":true},"constructor":1}');
    assert.ok(o instanceof Map);
    assert.equal(({} as Record<string, unknown>)['polluted'], undefined);
    assert.equal(v('{"a":1,"a":2}'), undefined);
    assert.deepEqual(v(' [ 1 , true , null , false , "x" , { } , [ ] ] '), [1n, true, null, false, 'x', new Map(), []]);
  });

  it('refuses trailing text, bad separators and nesting beyond 16', () => {
    for (const t of ['1 2', '[1,]', '[,1]', '{"a" 1}', '{"a":1,}', '{a:1}', 'tru', 'nul', '[1', '{"a":1']) assert.equal(v(t), undefined, t);
    assert.ok(v(`${'['.repeat(16)}${']'.repeat(16)}`) !== undefined);
    assert.equal(v(`${'['.repeat(17)}${']'.repeat(17)}`), undefined);
    assert.equal(v('['.repeat(100_000)), undefined);
  });

  it('stays within a sub-range of its text', () => {
    assert.equal(parseJsonValue('xx[1]yy', 2, 5) instanceof Array, true);
    assert.equal(parseJsonValue('xx[1', 2, 4), undefined);
    assert.equal(parseJsonValue('"ab"', 0, 3), undefined);
  });
});

describe('utf8Text', () => {
  it('decodes UTF-8 byte strings and refuses others', () => {
    assert.equal(utf8Text('plain'), 'plain');
    assert.equal(utf8Text(Buffer.from('héllo ✓', 'utf8').toString('latin1')), 'héllo ✓');
    assert.equal(utf8Text('\u00ff\u00fe'), null);
  });
});

describe('the .copy rule (infoLoad)', () => {
  const good = parseInfoFile(enc(REAL_ARCHIVE_INFO));
  const other = parseInfoFile(enc(REAL_ARCHIVE_INFO.replace('\n\n[db]', '\n\n\n[db]')));
  const badSum = parseInfoFile(enc(REAL_ARCHIVE_INFO.replace('db-id=1', 'db-id=2')));
  const broken = parseInfoFile(enc('[db]\nnope\n'));

  it('prefers the main file whenever it loads, and reports a copy that differs', () => {
    assert.deepEqual(chooseInfoCopy(good, good), { chosen: 'main', file: good, main: 'loadable', copy: 'loadable', differ: false });
    const c = chooseInfoCopy(good, other);
    assert.equal(c.chosen, 'main');
    assert.equal(c.differ, true);
    assert.equal(chooseInfoCopy(good, badSum).copy, 'unloadable');
    assert.equal(chooseInfoCopy(good, null).copy, 'absent');
  });

  it('falls back to the copy when the main file is absent, unreadable or fails its checksum', () => {
    for (const main of [null, broken, badSum]) {
      const c = chooseInfoCopy(main, good);
      assert.equal(c.chosen, 'copy');
      assert.equal(c.file, good);
      assert.equal(c.differ, false);
    }
  });

  it('chooses nothing when neither loads', () => {
    assert.deepEqual(chooseInfoCopy(null, null), { chosen: null, file: null, main: 'absent', copy: 'absent', differ: false });
    assert.equal(chooseInfoCopy(badSum, broken).chosen, null);
  });
});

describe('hostile input', () => {
  const MARK = 'LEAKMARK';

  it('never throws, and a refusal is a known reason that carries no text', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 400 }), (bytes) => {
        const r = parseInfoFile(bytes);
        if (!r.ok) assert.ok(FAILURES.includes(r.reason));
      }),
      { numRuns: 3000 },
    );
  });

  it('never throws on mutations of a real file', () => {
    const base = enc(REAL_BACKUP_INFO);
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.nat(base.length - 1), fc.integer({ min: 0, max: 255 })), { maxLength: 8 }), fc.nat(base.length), (edits, cut) => {
        const b = base.slice(0, cut);
        for (const [at, byte] of edits) if (at < b.length) b[at] = byte;
        const r = parseInfoFile(b);
        if (!r.ok) assert.ok(FAILURES.includes(r.reason));
        else assert.ok(['valid', 'invalid', 'missing'].includes(r.checksum));
      }),
      { numRuns: 2000 },
    );
  });

  it('puts no text of a refused file into its failure', () => {
    for (const text of [`[${MARK} x]\n`, `${MARK}=1\n`, `[db]\n${MARK}\n`, `[db]\nk=${MARK}\n`, `[db]\nk="${MARK}`, `[db]\n${MARK}=1\n${MARK}=2\n`]) {
      const r = parseInfoFile(enc(text));
      assert.ok(!r.ok);
      assert.ok(!textOf(r).includes(MARK));
    }
  });

  it('stays linear on lines built to make the `=` retry quadratic', () => {
    const lines = [`k${'="x'.repeat(300_000)}`, `k${'=['.repeat(300_000)}`, `k=["${'=[1,'.repeat(200_000)}`, `k${'= '.repeat(400)}${'x'.repeat(900_000)}`];
    for (const line of lines) {
      const started = performance.now();
      const r = parseInfoFile(enc(`[db]\n${line}\n`));
      assert.ok(!r.ok);
      assert.ok(performance.now() - started < 2000, 'bounded work');
    }
    // A key of a thousand `=` is a key (its value is the first JSON on the right).
    const r = parseInfoFile(enc(`[db]\n${'='.repeat(1000)}"x"\n`));
    assert.ok(r.ok);
    assert.equal(r.sections.get('db')?.get('='.repeat(999)), 'x');
  });
});
