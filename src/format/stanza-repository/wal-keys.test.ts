/**
 * Classification of keys under `archive/<stanza>/`: the real keys pgBackRest 2.45 wrote (research
 * real-repository.md and pgbackrest-format.md §1, §4), every compression extension, partials,
 * backup history and timeline history files, and everything near them that is not pgBackRest's.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { WAL_COMPRESSIONS, classifyWalKey, isArchiveId, splitArchiveId, type WalKey } from './wal-keys.ts';

const SHA = '106ecfb6b54b1414d5754f7187d6a74ba0d25951';
const UNKNOWN: WalKey = { kind: 'unknown' };

describe('keys pgBackRest writes', () => {
  it('classifies the real listing', () => {
    assert.deepEqual(classifyWalKey(`15-1/0000000100000000/000000010000000000000001-${SHA}.gz`), { kind: 'segment', archiveId: '15-1', walName: '000000010000000000000001', compression: 'gz' });
    assert.deepEqual(classifyWalKey('15-1/0000000100000000/000000010000000000000003.00000028.backup'), { kind: 'backup-history', archiveId: '15-1', walName: '000000010000000000000003', offset: 0x28 });
    assert.deepEqual(classifyWalKey('15-1/00000002.history'), { kind: 'history', archiveId: '15-1', timeline: 2 });
    assert.deepEqual(classifyWalKey('archive.info'), { kind: 'archive-info', copy: false });
    assert.deepEqual(classifyWalKey('archive.info.copy'), { kind: 'archive-info', copy: true });
  });

  it('reads every compression extension, and none', () => {
    for (const c of WAL_COMPRESSIONS) assert.deepEqual(classifyWalKey(`15-1/000000010000000A/000000010000000A000000FF-${SHA}.${c}`), { kind: 'segment', archiveId: '15-1', walName: '000000010000000A000000FF', compression: c });
    assert.deepEqual(classifyWalKey(`15-1/0000000100000000/000000010000000000000001-${SHA}`), { kind: 'segment', archiveId: '15-1', walName: '000000010000000000000001', compression: null });
    assert.deepEqual(WAL_COMPRESSIONS, ['gz', 'bz2', 'lz4', 'zst', 'xz']);
  });

  it('reads partial segments with their checksum and compression', () => {
    assert.deepEqual(classifyWalKey(`15-1/0000000100000000/000000010000000000000009.partial-${SHA}.zst`), { kind: 'partial', archiveId: '15-1', walName: '000000010000000000000009', compression: 'zst' });
    assert.deepEqual(classifyWalKey(`15-1/0000000100000000/000000010000000000000009.partial-${SHA}`), { kind: 'partial', archiveId: '15-1', walName: '000000010000000000000009', compression: null });
  });

  it('reads archive ids of every version form, and several of them', () => {
    for (const id of ['9.6-1', '10-2', '15-3', '9.4-12', '8.3.1-1']) {
      assert.equal(isArchiveId(id), true, id);
      assert.equal(classifyWalKey(`${id}/00000003.history`).kind, 'history', id);
    }
    assert.deepEqual(splitArchiveId('9.6-12'), { version: '9.6', historyId: 12 });
    for (const id of ['15', '15-', '-1', '15-1a', 'v15-1', '15.-1', '15-1-1', '12345-1', '15-1234567890']) {
      assert.equal(isArchiveId(id), false, id);
      assert.equal(splitArchiveId(id), null, id);
    }
  });

  it('never hands out the checksum', () => {
    const k = classifyWalKey(`15-1/0000000100000000/000000010000000000000001-${SHA}.gz`);
    assert.ok(!JSON.stringify(k).includes(SHA));
  });
});

describe('keys that are not pgBackRest’s', () => {
  const cases = [
    // A segment outside the directory its first 16 characters name.
    `15-1/0000000100000001/000000010000000000000001-${SHA}.gz`,
    `15-1/0000000200000000/000000010000000000000001-${SHA}.gz`,
    // Directly in the archive id, or in the stanza.
    `15-1/000000010000000000000001-${SHA}.gz`,
    `000000010000000000000001-${SHA}.gz`,
    // Lowercase WAL hex, uppercase or short checksum, timeline 0.
    `15-1/0000000100000000/00000001000000000000000a-${SHA}.gz`,
    `15-1/0000000100000000/000000010000000000000001-${SHA.toUpperCase()}.gz`,
    `15-1/0000000100000000/000000010000000000000001-${SHA.slice(1)}.gz`,
    `15-1/0000000000000000/000000000000000000000001-${SHA}.gz`,
    // No checksum, unknown or doubled extension, Barman's names.
    '15-1/0000000100000000/000000010000000000000001',
    '15-1/0000000100000000/000000010000000000000001.gz',
    `15-1/0000000100000000/000000010000000000000001-${SHA}.snappy`,
    `15-1/0000000100000000/000000010000000000000001-${SHA}.gz.gz`,
    `15-1/0000000100000000/000000010000000000000001-${SHA}.`,
    '15-1/0000000100000000/000000010000000000000001.partial',
    `15-1/0000000100000000/000000010000000000000001.partial-${SHA.slice(2)}`,
    // Backup history: compressed, lowercase offset, in the archive id.
    '15-1/0000000100000000/000000010000000000000003.00000028.backup.gz',
    '15-1/0000000100000000/000000010000000000000003.0000002a.backup',
    '15-1/000000010000000000000003.00000028.backup',
    // Timeline history: compressed, in a segment directory, timeline 0, lowercase.
    '15-1/00000002.history.gz',
    '15-1/0000000100000000/00000002.history',
    '15-1/00000000.history',
    '15-1/0000000a.history',
    // Deeper, empty parts, odd archive ids, the info files elsewhere.
    `15-1/0000000100000000/x/000000010000000000000001-${SHA}.gz`,
    `15-1//000000010000000000000001-${SHA}.gz`,
    `/15-1/0000000100000000/000000010000000000000001-${SHA}.gz`,
    `15/0000000100000000/000000010000000000000001-${SHA}.gz`,
    '15-1/archive.info',
    'archive.info.tmp',
    'archive.info.copy.copy',
    '',
    '15-1',
    '15-1/',
  ];
  for (const key of cases) it(`is unknown: ${JSON.stringify(key)}`, () => assert.deepEqual(classifyWalKey(key), UNKNOWN));

  it('never throws on arbitrary keys, and returns only validated fields', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.constantFrom(...cases).chain((c) => fc.nat(c.length).map((n) => c.slice(0, n) + c.slice(n + 1)))), (key) => {
        const k = classifyWalKey(key);
        if (k.kind === 'segment' || k.kind === 'partial' || k.kind === 'backup-history') {
          assert.match(k.walName, /^[0-9A-F]{24}$/);
          assert.ok(isArchiveId(k.archiveId));
        }
      }),
      { numRuns: 5000 },
    );
  });
});
