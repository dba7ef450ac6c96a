/**
 * Key classification on the keys of a real repository (PostgreSQL 15, Barman 3.4; see
 * shared research real-repository.md) and on keys Barman never writes.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { classifyKey } from './classify.ts';

describe('keys Barman writes', () => {
  const cases: [string, unknown][] = [
    ['base/20261121T132821/backup.info', { kind: 'backup-info', backupId: '20261121T132821' }],
    ['base/20261121T132821/data.tar', { kind: 'backup-archive', backupId: '20261121T132821', tablespaceOid: null, chunk: 0, compression: 'none' }],
    ['base/20261121T132829/data.tar.gz', { kind: 'backup-archive', backupId: '20261121T132829', tablespaceOid: null, chunk: 0, compression: 'gzip' }],
    ['base/20261121T132845/data.tar.bz2', { kind: 'backup-archive', backupId: '20261121T132845', tablespaceOid: null, chunk: 0, compression: 'bzip2' }],
    ['base/b1/data_0001.tar.snappy', { kind: 'backup-archive', backupId: 'b1', tablespaceOid: null, chunk: 1, compression: 'snappy' }],
    ['base/b1/16385.tar.lz4', { kind: 'backup-archive', backupId: 'b1', tablespaceOid: 16385, chunk: 0, compression: 'lz4' }],
    // barman-cloud-backup --zstd (Barman 3.20: CloudBackupCatalog.get_backup_files knows tar.zst).
    ['base/b1/data.tar.zst', { kind: 'backup-archive', backupId: 'b1', tablespaceOid: null, chunk: 0, compression: 'zstd' }],
    ['base/b1/16385_0002.tar.zst', { kind: 'backup-archive', backupId: 'b1', tablespaceOid: 16385, chunk: 2, compression: 'zstd' }],
    ['base/b1/data.tar.xz', { kind: 'backup-other', backupId: 'b1' }],
    ['base/b1/16385_0012.tar', { kind: 'backup-archive', backupId: 'b1', tablespaceOid: 16385, chunk: 12, compression: 'none' }],
    ['base/20261121T132821/annotations/keep', { kind: 'backup-keep', backupId: '20261121T132821' }],
    ['base/snap-1/backup_label', { kind: 'backup-label', backupId: 'snap-1' }],
    ['wals/0000000100000000/000000010000000000000001', { kind: 'wal-segment', walName: '000000010000000000000001', compression: null }],
    ['wals/0000000100000000/000000010000000000000007.gz', { kind: 'wal-segment', walName: '000000010000000000000007', compression: 'gzip' }],
    ['wals/0000000100000000/00000001000000000000000D.bz2', { kind: 'wal-segment', walName: '00000001000000000000000D', compression: 'bzip2' }],
    ['wals/0000000100000000/00000001000000000000000D.zst', { kind: 'wal-segment', walName: '00000001000000000000000D', compression: 'zstd' }],
    ['wals/0000000100000000/00000001000000000000000D.xz', { kind: 'wal-segment', walName: '00000001000000000000000D', compression: 'xz' }],
    ['wals/0000000100000000/000000010000000000000004.00000028.backup', { kind: 'wal-backup-history', walName: '000000010000000000000004', offset: 40, compression: null }],
    ['wals/0000000100000000/00000001000000000000000A.00000028.backup.gz', { kind: 'wal-backup-history', walName: '00000001000000000000000A', offset: 40, compression: 'gzip' }],
    ['wals/0000000100000002/000000010000000200000003.partial', { kind: 'wal-partial', walName: '000000010000000200000003', compression: null }],
    ['wals/0000000100000002/000000010000000200000003.partial.lz4', { kind: 'wal-partial', walName: '000000010000000200000003', compression: 'lz4' }],
    ['wals/00000002.history.gz', { kind: 'wal-history', timeline: 2, compression: 'gzip' }],
    ['wals/0000000A.history', { kind: 'wal-history', timeline: 10, compression: null }],
  ];
  for (const [key, expected] of cases) it(key, () => assert.deepEqual(classifyKey(key), expected));
});

describe('keys Barman does not write are unknown', () => {
  const unknown = [
    '',
    'backup.info',
    'base/',
    'base/20261121T132821',
    'base//backup.info',
    'base/../backup.info',
    'base/.hidden/backup.info',
    'base/id with space/backup.info',
    'base/é/backup.info',
    `base/${'a'.repeat(257)}/backup.info`,
    'wals/0000000100000000/000000010000000000000001.gz.enc',
    'wals/0000000100000000/000000010000000000000001.7z',
    'wals/0000000100000000/0000000100000000000000010',
    'wals/0000000100000000/0000000a0000000000000001',
    'wals/0000000100000000/000000020000000000000001',
    'wals/0000000100000001/000000010000000000000001',
    'wals/0000000000000000/000000000000000000000001',
    'wals/000000010000000/000000010000000000000001',
    'wals/000000010000000000000001',
    'wals/00000001.partial',
    'wals/00000000.history',
    'wals/00000002.history.gz.bak',
    'wals/0000000100000000/000000010000000000000004.28.backup',
    'wals/0000000100000000/sub/000000010000000000000001',
    'other/file',
    'WALS/0000000100000000/000000010000000000000001',
  ];
  for (const key of unknown) it(JSON.stringify(key.slice(0, 80)), () => assert.deepEqual(classifyKey(key), { kind: 'unknown' }));

  it('an unrecognised file in a valid backup directory stays tied to that directory', () => {
    assert.deepEqual(classifyKey('base/20261121T132821/data.tar.xz'), { kind: 'backup-other', backupId: '20261121T132821' });
    assert.deepEqual(classifyKey('base/20261121T132821/data_0000001.tar'), { kind: 'backup-other', backupId: '20261121T132821' });
    assert.deepEqual(classifyKey('base/20261121T132821/data_0000.tar'), { kind: 'backup-other', backupId: '20261121T132821' });
    assert.deepEqual(classifyKey('base/20261121T132821/data_10000.tar')?.kind, 'backup-archive');
    assert.deepEqual(classifyKey('base/20261121T132821/annotations/other'), { kind: 'backup-other', backupId: '20261121T132821' });
  });
});

describe('the hand-written segment fast path', () => {
  // The regular-expression classifier the fast path must agree with, kept here as the reference.
  const WAL_FILE = /^([0-9A-F]{24})(\.partial|\.([0-9A-F]{8})\.backup)?(?:\.(gz|bz2|xz|snappy|zst|lz4))?$/;
  const SUFFIX: Record<string, string> = { gz: 'gzip', bz2: 'bzip2', xz: 'xz', snappy: 'snappy', zst: 'zstd', lz4: 'lz4' };
  function reference(key: string): unknown {
    const rest = key.slice('wals/'.length);
    const slash = rest.indexOf('/');
    const dir = rest.slice(0, slash);
    const m = WAL_FILE.exec(rest.slice(slash + 1));
    if (!/^[0-9A-F]{16}$/.test(dir) || m === null || m[2] !== undefined) return { kind: 'other' };
    const name = m[1] ?? '';
    if (!name.startsWith(dir) || name.startsWith('00000000')) return { kind: 'unknown' };
    return { kind: 'wal-segment', walName: name, compression: m[4] === undefined ? null : SUFFIX[m[4]] };
  }

  it('classifies 20,000 near-miss segment keys exactly as the regular expressions do', async () => {
    const fc = await import('fast-check');
    const hex = fc.oneof({ weight: 30, arbitrary: fc.constantFrom(...'0123456789ABCDEF'.split('')) }, { weight: 1, arbitrary: fc.constantFrom(...'abcdefG/. '.split('')) });
    const block = fc.array(hex, { minLength: 7, maxLength: 9 }).map((a) => a.join(''));
    const suffix = fc.constantFrom('', '.gz', '.bz2', '.xz', '.snappy', '.zst', '.lz4', '.zip', '.', '.GZ', '.partial', '/x');
    const key = fc.tuple(fc.constantFrom('00000001', '00000000', '0000000A', '0000000a'), block, fc.boolean(), block, suffix).map(([tl, log, same, seg, sfx]) => {
      const dir = `${tl}${log}`;
      return `wals/${dir}/${same ? dir : `${tl}00000000`}${seg}${sfx}`;
    });
    fc.assert(
      fc.property(key, (k) => {
        const expected = reference(k);
        const got = classifyKey(k);
        if ((expected as { kind: string }).kind === 'other') assert.notEqual(got.kind, 'wal-segment');
        else assert.deepEqual(got, expected);
      }),
      { numRuns: 20_000, seed: 7 },
    );
  });
});
