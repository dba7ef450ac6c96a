/**
 * Property tests of the WAL-area key classifier (issue 19): every key pgBackRest writes under
 * `archive/<stanza>/` — segments and partials with their SHA-1 and any compression, backup
 * history files, timeline history files, archive.info and its copy — is classified as what it is,
 * with exactly its fields; arbitrary strings and one-character changes of real keys are
 * classified without throwing, and anything not `unknown` carries only validated fields taken
 * from where the layout puts them.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { WAL_COMPRESSIONS, classifyWalKey, isArchiveId, splitArchiveId, type WalKey } from './wal-keys.ts';

const HEX = '0123456789ABCDEF';
const hex8 = (n: number) => n.toString(16).toUpperCase().padStart(8, '0');

const archiveIdArb = fc
  .tuple(fc.array(fc.integer({ min: 0, max: 9999 }), { minLength: 1, maxLength: 3 }), fc.integer({ min: 0, max: 999_999_999 }))
  .map(([parts, id]) => ({ text: `${parts.join('.')}-${String(id)}`, version: parts.join('.'), historyId: id }));
const walNameArb = fc.tuple(fc.integer({ min: 1, max: 0xffffffff }), fc.integer({ min: 0, max: 0xffffffff }), fc.integer({ min: 0, max: 0xffffffff })).map(([t, l, s]) => hex8(t) + hex8(l) + hex8(s));
const shaArb = fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength: 40, maxLength: 40 });
const compressionArb = fc.constantFrom(null, ...WAL_COMPRESSIONS);

/** A key pgBackRest writes, and what it is. */
interface Case { readonly key: string; readonly expected: WalKey }
const keyArb: fc.Arbitrary<Case> = fc.oneof(
  fc.constantFrom<Case>({ key: 'archive.info', expected: { kind: 'archive-info', copy: false } }, { key: 'archive.info.copy', expected: { kind: 'archive-info', copy: true } }),
  fc.tuple(archiveIdArb, walNameArb, shaArb, compressionArb).map(([a, w, sha, c]): Case => ({
    key: `${a.text}/${w.slice(0, 16)}/${w}-${sha}${c === null ? '' : `.${c}`}`,
    expected: { kind: 'segment', archiveId: a.text, walName: w, compression: c },
  })),
  fc.tuple(archiveIdArb, walNameArb, shaArb, compressionArb).map(([a, w, sha, c]): Case => ({
    key: `${a.text}/${w.slice(0, 16)}/${w}.partial-${sha}${c === null ? '' : `.${c}`}`,
    expected: { kind: 'partial', archiveId: a.text, walName: w, compression: c },
  })),
  fc.tuple(archiveIdArb, walNameArb, fc.integer({ min: 0, max: 0xffffffff })).map(([a, w, offset]): Case => ({
    key: `${a.text}/${w.slice(0, 16)}/${w}.${hex8(offset)}.backup`,
    expected: { kind: 'backup-history', archiveId: a.text, walName: w, offset },
  })),
  fc.tuple(archiveIdArb, fc.integer({ min: 1, max: 0xffffffff })).map(([a, timeline]): Case => ({
    key: `${a.text}/${hex8(timeline)}.history`,
    expected: { kind: 'history', archiveId: a.text, timeline },
  })),
);

/** The fields of a classification are validated and sit where the layout puts them in the key. */
function checkKey(key: string, k: WalKey): void {
  switch (k.kind) {
    case 'unknown':
      assert.deepEqual(Object.keys(k), ['kind']);
      return;
    case 'archive-info':
      assert.equal(key, k.copy ? 'archive.info.copy' : 'archive.info');
      return;
    case 'history':
      assert.ok(isArchiveId(k.archiveId));
      assert.ok(Number.isInteger(k.timeline) && k.timeline >= 1 && k.timeline <= 0xffffffff);
      assert.equal(key, `${k.archiveId}/${hex8(k.timeline)}.history`);
      return;
    default: {
      assert.ok(isArchiveId(k.archiveId));
      assert.match(k.walName, /^[0-9A-F]{24}$/);
      assert.notEqual(k.walName.slice(0, 8), '00000000');
      const prefix = `${k.archiveId}/${k.walName.slice(0, 16)}/${k.walName}`;
      assert.ok(key.startsWith(prefix), key);
      const rest = key.slice(prefix.length);
      if (k.kind === 'backup-history') {
        assert.ok(Number.isInteger(k.offset) && k.offset >= 0 && k.offset <= 0xffffffff);
        assert.equal(rest, `.${hex8(k.offset)}.backup`);
      } else {
        const ext = k.compression === null ? '' : `.${k.compression}`;
        assert.match(rest, new RegExp(`^${k.kind === 'partial' ? '\\.partial-' : '-'}[0-9a-f]{40}${ext.replace('.', '\\.')}$`));
      }
    }
  }
}

describe('pgBackRest WAL-area keys', () => {
  it('classify every key pgBackRest writes as what it is, with exactly its fields', () => {
    fc.assert(
      fc.property(keyArb, ({ key, expected }) => {
        assert.deepEqual(classifyWalKey(key), expected);
        checkKey(key, expected);
      }),
      { numRuns: 3000 },
    );
  });

  it('split every archive id into its version and history id', () => {
    fc.assert(
      fc.property(archiveIdArb, (a) => {
        assert.deepEqual(splitArchiveId(a.text), { version: a.version, historyId: a.historyId });
      }),
      { numRuns: 1000 },
    );
  });

  it('classify arbitrary strings and one-character changes of real keys without throwing, fields only where the layout puts them', () => {
    const changed = fc.tuple(keyArb, fc.nat(), fc.oneof(fc.constantFrom(...HEX, ...'abcdef/.-_ 0g\u0000é'), fc.string({ maxLength: 2 })), fc.constantFrom('replace', 'insert', 'delete')).map(([{ key }, at, c, how]) => {
      const i = at % (key.length + 1);
      return how === 'replace' ? key.slice(0, i) + c + key.slice(i + 1) : how === 'insert' ? key.slice(0, i) + c + key.slice(i) : key.slice(0, i) + key.slice(i + 1);
    });
    fc.assert(
      fc.property(fc.oneof(fc.string({ maxLength: 120 }), fc.string({ unit: 'binary', maxLength: 120 }), changed), (key) => checkKey(key, classifyWalKey(key))),
      { numRuns: 3000 },
    );
  });
});
