/**
 * backup.manifest read incrementally: the header facts, the aggregate of `[target:file]` for
 * unbundled, bundled, referencing and block-incremental backups, the early copy of an unfinished
 * backup, the ceilings, chunking at any boundary, the cost of a 10,000-table database, and hostile
 * entries — which are counted as problems, never thrown and never echoed.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { MANIFEST_FIELDS, MANIFEST_LIMITS, ManifestParser, parseManifest, type Manifest, type ManifestParseOptions, type ManifestProblem } from './manifest.ts';
import { clusterFiles, enc, manifestText, seal, unsealed, type ManifestFileEntry, type ManifestShape } from '../../../test/support/synthetic/stanza-fixtures.ts';

const FULL = '20261121-132726F';
const INCR = '20261121-132726F_20261121-132731I';
const DIFF = '20261121-132726F_20261121-132733D';
const SHA = 'da39a3ee5e6b4b0d3255bfef95601890afd80709';

function read(m: ManifestShape | string, options: ManifestParseOptions = {}): Manifest {
  const r = parseManifest(enc(typeof m === 'string' ? m : manifestText(m)), options);
  if (!r.ok) assert.fail(`refused: ${r.reason} at ${String(r.line)}`);
  return r;
}

const file = (name: string, size: number, extra: Record<string, unknown> = {}): ManifestFileEntry => [name, { checksum: SHA, size, timestamp: 1795267640, ...extra }];
const problems = (m: Manifest): ManifestProblem[] => [...m.problems];

describe('an unbundled full backup', () => {
  const m = read({
    label: FULL,
    files: [file('pg_data/PG_VERSION', 3, { 'repo-size': 23 }), file('pg_data/base/1/112', 8192, { 'repo-size': 83 }), ['pg_data/base/1/113', { size: 0, timestamp: 1 }], file('pg_tblspc/16385/PG_15_202209061/5/16386', 16384, { 'repo-size': 99 })],
  });

  it('reads the header, the database and the options', () => {
    assert.equal(m.checksum, 'valid');
    assert.equal(m.loadable, true);
    assert.deepEqual(m.backup, {
      label: FULL, type: 'full', prior: null, reference: [FULL], archiveStart: '000000010000000000000003', archiveStop: '000000010000000000000003',
      lsnStart: 0x3000028n, lsnStop: 0x3000100n, timestampStart: 1795267646, timestampCopyStart: 1795267647, timestampStop: 1795267650,
      bundle: null, bundleRaw: null, blockIncr: null,
    });
    assert.deepEqual(m.db, { id: 1, systemId: '7710615802719085140', version: '15', catalogVersion: 202209061, controlVersion: 1300 });
    assert.deepEqual(m.options, { compressType: 'gz', compressLevel: 6, archiveCheck: true, archiveCopy: false, backupStandby: false, checksumPage: false, delta: false, hardlink: false, online: true, processMax: 1, bufferSize: 1048576 });
    assert.deepEqual(problems(m), []);
  });

  it('counts the tablespaces its targets link, and keeps none of their paths', () => {
    assert.equal(m.tablespaces, 0, 'only pg_data among the targets');
    const linked = seal(
      unsealed(manifestText({ label: FULL, files: [file('pg_data/PG_VERSION', 3)] })).replace(
        'pg_data={"path":"/var/lib/postgresql/15/main","type":"path"}',
        'pg_data={"path":"/var/lib/postgresql/15/main","type":"path"}\npg_data/pg_wal={"path":"/srv/secret-wal","type":"link"}\npg_tblspc/16385={"path":"/srv/secret-ts1","tablespace-id":"16385","tablespace-name":"ts1","type":"link"}\npg_tblspc/16390={"path":"/srv/secret-ts2","tablespace-id":"16390","tablespace-name":"ts2","type":"link"}',
      ),
    );
    const t = read(linked);
    assert.equal(t.checksum, 'valid');
    assert.equal(t.tablespaces, 2);
    assert.doesNotMatch(JSON.stringify(t, (_, v: unknown) => (typeof v === 'bigint' ? String(v) : v instanceof Map ? [...v] : v)), /secret/);
  });

  it('lists every file as an object of this backup, zero-length ones included, with the compression extension', () => {
    assert.deepEqual(m.files.stored, {
      objects: [
        { key: 'pg_data/PG_VERSION.gz', repoSize: 23 },
        { key: 'pg_data/base/1/112.gz', repoSize: 83 },
        { key: 'pg_data/base/1/113.gz', repoSize: 0 },
        { key: 'pg_tblspc/16385/PG_15_202209061/5/16386.gz', repoSize: 99 },
      ],
      total: 4,
      truncated: false,
    });
    assert.equal(m.files.files, 4);
    assert.equal(m.files.size, 3 + 8192 + 16384);
    assert.equal(m.files.repoSize, 23 + 83 + 99);
    assert.equal(m.files.storedRepoSize, m.files.repoSize);
    assert.equal(m.files.zeroLength, 1);
    assert.equal(m.files.withoutChecksum, 0, 'a zero-length file carries no checksum by design');
  });

  it('takes repo-size to be size when absent, and names objects without extension when uncompressed', () => {
    const plain = read({ label: FULL, compressType: 'none', files: [file('pg_data/PG_VERSION', 3)] });
    assert.deepEqual(plain.files.stored?.objects, [{ key: 'pg_data/PG_VERSION', repoSize: 3 }]);
  });
});

describe('a bundled backup', () => {
  const m = read({
    label: FULL,
    bundle: true,
    compressType: 'zst',
    files: [
      file('pg_data/PG_VERSION', 3, { bni: 1, bno: 0, 'repo-size': 12 }),
      file('pg_data/backup_label', 240, { 'repo-size': 188 }),
      file('pg_data/base/1/112', 8192, { bni: 1, bno: 12, 'repo-size': 83 }),
      ['pg_data/base/1/113', { size: 0, timestamp: 1 }],
      file('pg_data/base/5/16396', 3 << 20, { 'repo-size': 374058 }),
      file('pg_data/global/1262', 8192, { bni: 2, 'repo-size': 70 }),
    ],
  });

  it('keeps per bundle the length it must have, and lists only the separate objects', () => {
    assert.deepEqual([...m.files.bundles], [[1, 95], [2, 70]]);
    assert.deepEqual(m.files.stored, { objects: [{ key: 'pg_data/backup_label.zst', repoSize: 188 }, { key: 'pg_data/base/5/16396.zst', repoSize: 374058 }], total: 2, truncated: false });
    assert.equal(m.files.storedRepoSize, 12 + 188 + 83 + 374058 + 70);
    assert.equal(m.backup.bundle, true);
  });

  it('flags a bundle offset without a bundle id', () => {
    const odd = read({ label: FULL, files: [file('pg_data/a', 1, { bno: 4 })] });
    assert.deepEqual(problems(odd), [{ section: 'target:file', field: 'bno', problem: 'inconsistent', count: 1 }]);
  });

  it('stores block-incremental files apart under .pgbi', () => {
    const b = read({ label: FULL, bundle: true, files: [file('pg_data/base/5/16396', 3 << 20, { bi: 1, bic: 6, bim: 120, 'repo-size': 400000 })] });
    assert.deepEqual(b.files.stored?.objects, [{ key: 'pg_data/base/5/16396.pgbi', repoSize: 400000 }]);
    assert.equal(b.files.blockIncremental, 1);
  });
});

describe('a backup that references earlier ones', () => {
  const files = [
    file('pg_data/PG_VERSION', 3, { reference: FULL, 'repo-size': 23 }),
    file('pg_data/backup_label', 240, { 'repo-size': 194 }),
    file('pg_data/base/1/112', 8192, { reference: FULL, 'repo-size': 83 }),
    file('pg_data/base/5/1259', 65536, { reference: INCR, 'repo-size': 13082 }),
  ];

  it('counts referenced files and their labels apart from what it stores', () => {
    const m = read({ label: '20261121-132726F_20261121-140000I', type: 'incr', prior: INCR, reference: `${FULL},${INCR},20261121-132726F_20261121-140000I`, files });
    assert.equal(m.files.referencedFiles, 3);
    assert.equal(m.files.referencedRepoSize, 23 + 83 + 13082);
    assert.deepEqual(m.files.references, [FULL, INCR]);
    assert.deepEqual(m.files.stored?.objects, [{ key: 'pg_data/backup_label.gz', repoSize: 194 }]);
    assert.deepEqual(m.backup.reference, [FULL, INCR, '20261121-132726F_20261121-140000I']);
    assert.deepEqual(problems(m), []);
  });

  it('flags references to a later backup, another set, or outside backup-reference', () => {
    const m = read({ label: DIFF, type: 'diff', prior: FULL, reference: `${FULL},${DIFF}`, files });
    // INCR is earlier than DIFF and of its set, but not in DIFF's reference list.
    assert.deepEqual(problems(m), [{ section: 'target:file', field: 'reference', problem: 'inconsistent', count: 1 }]);
    const other = read({ label: DIFF, type: 'diff', prior: FULL, reference: `${FULL},${DIFF}`, files: [file('pg_data/a', 1, { reference: '20261120-000000F' }), file('pg_data/b', 1, { reference: '20261121-132726F_20261121-150000I' })] });
    assert.equal(problems(other)[0]?.count, 2);
    const fullWithReference = read({ label: FULL, files: [file('pg_data/a', 1, { reference: FULL }), file('pg_data/b', 1, { reference: '20261120-000000F' })] });
    assert.deepEqual(problems(fullWithReference), [{ section: 'target:file', field: 'reference', problem: 'inconsistent', count: 2 }]);
  });

  it('flags a prior and reference list that do not fit the label', () => {
    const m = read({ label: DIFF, type: 'incr', prior: '20261120-000000F', reference: 'x', files: [] });
    assert.deepEqual(problems(m), [
      { section: 'backup', field: 'backup-reference', problem: 'invalid', count: 1 },
      { section: 'backup', field: 'backup-type', problem: 'inconsistent', count: 1 },
      { section: 'backup', field: 'backup-prior', problem: 'inconsistent', count: 1 },
    ]);
    const noPrior = read({ label: INCR, type: 'incr', reference: `${FULL},${INCR}`, files: [] });
    assert.deepEqual(problems(noPrior), [{ section: 'backup', field: 'backup-prior', problem: 'missing', count: 1 }]);
    const selfless = read({ label: INCR, type: 'incr', prior: FULL, reference: FULL, files: [] });
    assert.deepEqual(problems(selfless), [{ section: 'backup', field: 'backup-reference', problem: 'inconsistent', count: 1 }]);
  });
});

describe('the early copy of a backup that never finished', () => {
  it('reads what is there: no WAL, no LSNs, stop 0, database 0, files without checksums', () => {
    const text = manifestText({ label: FULL, timestampStop: 0, dbId: 0, files: [['pg_data/base/1/112', { size: 8192, timestamp: 1 }]] })
      .replace(/backup-archive-st(art|op)=.*\n/g, '')
      .replace(/backup-lsn-st(art|op)=.*\n/g, '')
      .replace('db-system-id=7710615802719085140', 'db-system-id=0');
    const m = read(seal(unsealed(text)));
    assert.equal(m.backup.archiveStart, null);
    assert.equal(m.backup.lsnStart, null);
    assert.equal(m.backup.timestampStop, 0);
    assert.equal(m.db.id, 0);
    assert.equal(m.db.systemId, '0');
    assert.equal(m.files.withoutChecksum, 1);
    assert.deepEqual(problems(m), []);
  });
});

describe('options', () => {
  it('falls back to the boolean compress option when no type is written, and flags an unknown type', () => {
    const withoutType = (compress: string) => read(seal(unsealed(manifestText({ label: FULL, files: [file('pg_data/a', 1)] })).replace(/option-compress-type=.*\n/, '').replace('option-compress=true', `option-compress=${compress}`)));
    assert.equal(withoutType('true').options.compressType, 'gz');
    assert.equal(withoutType('false').options.compressType, 'none');
    const unknown = read({ label: FULL, compressType: 'snappy', files: [file('pg_data/a', 1)] });
    assert.equal(unknown.options.compressType, null);
    assert.equal(unknown.files.stored, null, 'no key can be formed without the extension');
    assert.deepEqual(problems(unknown), [{ section: 'backup:option', field: 'option-compress-type', problem: 'invalid', count: 1 }]);
    for (const c of ['bz2', 'lz4', 'zst', 'xz']) assert.equal(read({ label: FULL, compressType: c, files: [file('pg_data/a', 1)] }).files.stored?.objects[0]?.key, `pg_data/a.${c}`);
  });

  it('ignores unknown header keys and refuses a known one twice', () => {
    const text = unsealed(manifestText({ label: FULL, files: [] }));
    assert.deepEqual(problems(read(seal(text.replace('[backup]\n', '[backup]\nbackup-future-key="LEAKMARK"\n')))), []);
    const r = parseManifest(enc(seal(text.replace('[backup]\n', '[backup]\nbackup-label="20261121-132726F"\n'))));
    assert.deepEqual(r, { ok: false, reason: 'duplicate-key', line: 9 });
  });

  it('reports missing required header fields', () => {
    const text = unsealed(manifestText({ label: FULL, files: [] })).replace(/backup-label=.*\n/, '').replace(/db-version=.*\n/, '');
    assert.deepEqual(problems(read(seal(text))), [
      { section: 'backup', field: 'backup-label', problem: 'missing', count: 1 },
      { section: 'backup:db', field: 'db-version', problem: 'missing', count: 1 },
    ]);
  });
});

describe('file entries out of shape', () => {
  it('counts them as invalid, by field, and keeps them out of every sum', () => {
    const m = read({
      label: FULL,
      files: [
        ['pg_data/a', { timestamp: 1 }],
        ['pg_data/b', { size: -1, timestamp: 1 }],
        ['pg_data/c', { size: 2 ** 53, timestamp: 1 }],
        ['pg_data/d', { size: 1, 'repo-size': '1', timestamp: 1 }],
        ['pg_data/e', { size: 1, reference: 'LEAKMARK', timestamp: 1 }],
        ['pg_data/f', { bni: 0, size: 1, timestamp: 1 }],
        ['pg_data/g', { bni: 1, bno: -5, size: 1, timestamp: 1 }],
        ['pg_data/h', { bim: 'x', size: 1, timestamp: 1 }],
        ['pg_data/i', { bi: true, size: 1, timestamp: 1 }],
        ['pg_data/j', { checksum: 'LEAKMARK', size: 1, timestamp: 1 }],
        ['pg_data/k', { size: 1 }],
        ['pg_data/l', { size: 1, timestamp: 'x' }],
      ],
    });
    assert.equal(m.files.files, 12);
    assert.equal(m.files.invalid, 9);
    assert.equal(m.files.size, 3);
    assert.deepEqual(m.files.stored?.objects.map((o) => o.key), ['pg_data/j.gz', 'pg_data/k.gz', 'pg_data/l.gz']);
    assert.deepEqual(problems(m), [
      { section: 'target:file', field: 'size', problem: 'missing', count: 1 },
      { section: 'target:file', field: 'size', problem: 'invalid', count: 2 },
      { section: 'target:file', field: 'repo-size', problem: 'invalid', count: 1 },
      { section: 'target:file', field: 'reference', problem: 'invalid', count: 1 },
      { section: 'target:file', field: 'bni', problem: 'invalid', count: 1 },
      { section: 'target:file', field: 'bno', problem: 'invalid', count: 1 },
      { section: 'target:file', field: 'bim', problem: 'invalid', count: 1 },
      { section: 'target:file', field: 'bi', problem: 'invalid', count: 1 },
      { section: 'target:file', field: 'checksum', problem: 'invalid', count: 1 },
      { section: 'target:file', field: 'timestamp', problem: 'missing', count: 1 },
      { section: 'target:file', field: 'timestamp', problem: 'invalid', count: 1 },
    ]);
    assert.ok(!JSON.stringify(m, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v instanceof Map ? [...(v as Map<unknown, unknown>)] : v)).includes('LEAKMARK'));
  });

  it('refuses names that would leave the backup directory or are not pgBackRest’s', () => {
    const names = ['pg_data/../../other/x', 'pg_data/./x', 'pg_data//x', 'pg_data/', 'pg_data/x/', 'other/x', '/pg_data/x', 'pg_data/a\tb', 'pg_data/a\x7fb', 'pg_tblspc/..', 'pg_datax/y'];
    const m = read({ label: FULL, files: names.sort().map((n) => file(n, 1)) });
    assert.equal(m.files.invalid, names.length);
    assert.deepEqual(problems(m), [{ section: 'target:file', field: 'name', problem: 'invalid', count: names.length }]);
  });

  it('lists UTF-8 names as text, and counts names that are not UTF-8 as invalid', () => {
    const utf8 = read({ label: FULL, files: [file('pg_data/café', 1)] });
    assert.deepEqual(utf8.files.stored?.objects, [{ key: 'pg_data/café.gz', repoSize: 1 }]);
    const text = manifestText({ label: FULL, files: [file('pg_data/zz', 1)] });
    const bytes = Buffer.from(text.replace('pg_data/zz=', 'pg_data/\u00ff='), 'latin1');
    const r = parseManifest(bytes);
    assert.ok(r.ok);
    assert.equal(r.checksum, 'invalid');
    assert.deepEqual(problems(r), [{ section: 'target:file', field: 'name', problem: 'invalid', count: 1 }]);
  });

  it('flags names out of pgBackRest’s order (duplicates, splices)', () => {
    const m = read({ label: FULL, files: [file('pg_data/b', 1), file('pg_data/a', 1), file('pg_data/a', 1), file('pg_data/c', 1)] });
    assert.deepEqual(problems(m), [{ section: 'target:file', field: 'order', problem: 'inconsistent', count: 2 }]);
  });

  it('never throws on hostile entries; problems name listed fields only', () => {
    const json = fc.letrec((tie) => ({
      v: fc.oneof({ depthSize: 'small' }, fc.constant(null), fc.boolean(), fc.integer(), fc.bigInt({ min: -(1n << 63n), max: (1n << 64n) - 1n }), fc.string(), fc.array(tie('v'), { maxLength: 2 }), fc.dictionary(fc.string(), tie('v'), { maxKeys: 2 })),
    })).v;
    const entry = fc.dictionary(fc.constantFrom('size', 'repo-size', 'reference', 'bni', 'bno', 'bi', 'bim', 'checksum', 'timestamp', 'user', 'LEAKMARK'), json, { maxKeys: 6 });
    const render = (v: unknown): string =>
      typeof v === 'bigint' ? String(v) : Array.isArray(v) ? `[${v.map(render).join(',')}]` : v !== null && typeof v === 'object' ? `{${Object.entries(v).map(([k, x]) => `${JSON.stringify(k)}:${render(x)}`).join(',')}}` : JSON.stringify(v);
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.string({ minLength: 1, maxLength: 12 }), entry), { maxLength: 6 }), (entries) => {
        const text = unsealed(manifestText({ label: FULL, files: [] })).replace('[target:file]\n', `[target:file]\n${entries.map(([n, e]) => `pg_data/${n.replace(/[\n=[\]]/g, '_')}=${render(e)}`).join('\n')}\n`);
        const r = parseManifest(enc(text));
        if (!r.ok) return;
        for (const p of r.problems) assert.ok((MANIFEST_FIELDS as readonly string[]).includes(p.field));
        assert.ok(r.files.invalid <= r.files.files);
      }),
      { numRuns: 1000 },
    );
  });
});

describe('streaming and ceilings', () => {
  const text = manifestText({ label: FULL, bundle: true, files: clusterFiles(20).map(([n, v], i) => [n, i % 3 === 0 ? v : { ...v, bni: 1 + (i % 5), bno: i * 100 }] as const) });
  const whole = read(text);

  it('gives the same result for any chunking', () => {
    const bytes = enc(text);
    fc.assert(
      fc.property(fc.array(fc.nat(bytes.length), { maxLength: 40 }), (cuts) => {
        const at = [...new Set([0, ...cuts, bytes.length])].sort((a, b) => a - b);
        const p = new ManifestParser();
        for (let i = 1; i < at.length; i++) p.push(bytes.subarray(at[i - 1], at[i]));
        assert.deepEqual(p.end(), whole);
      }),
      { numRuns: 60 },
    );
    assert.equal(whole.checksum, 'valid');
  });

  it('lists at most maxStoredObjects objects, still counting them all', () => {
    const m = read(text, { maxStoredObjects: 5 });
    assert.equal(m.files.stored?.objects.length, 5);
    assert.equal(m.files.stored?.truncated, true);
    assert.equal(m.files.stored?.total, whole.files.stored?.total);
    const b = read(text, { maxBundles: 2 });
    assert.equal(b.files.bundles.size, 2);
    assert.equal(b.files.bundlesTruncated, true);
  });

  it('refuses a manifest beyond its byte ceiling, and stops reading once refused', () => {
    const p = new ManifestParser({ limits: { ...MANIFEST_LIMITS, maxBytes: 10_000 } });
    const bytes = enc(text);
    assert.equal(p.push(bytes.subarray(0, 8000)), true);
    assert.equal(p.push(bytes.subarray(8000, 16000)), false);
    assert.equal(p.push(bytes.subarray(16000)), false);
    assert.deepEqual(p.end(), { ok: false, reason: 'too-large', line: null });
    assert.equal(MANIFEST_LIMITS.maxBytes, 64 * 1024 * 1024);
  });

  it('recognises an encrypted manifest and reports the passphrase only as a fact', () => {
    assert.deepEqual(parseManifest(new Uint8Array([...enc('Salted__'), 1, 2, 3])), { ok: false, reason: 'encrypted', line: null });
    const withCipher = read(seal(unsealed(manifestText({ label: FULL, files: [] })).replace('[backup]\n', '[cipher]\ncipher-pass="SECRET"\n\n[backup]\n')));
    assert.equal(withCipher.encrypted, true);
    assert.ok(!JSON.stringify(withCipher, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v)).includes('SECRET'));
  });

  it('reads a 10,000-table database’s manifest (61,003 files, ~10 MiB) in 64 KiB chunks', () => {
    const big = enc(manifestText({ label: FULL, files: clusterFiles(10_000) }));
    const started = performance.now();
    const p = new ManifestParser();
    for (let at = 0; at < big.length; at += 64 * 1024) p.push(big.subarray(at, at + 64 * 1024));
    const m = p.end();
    const ms = performance.now() - started;
    assert.ok(m.ok);
    assert.equal(m.checksum, 'valid');
    assert.equal(m.files.files, 61_003);
    assert.equal(m.files.stored?.total, 61_003);
    assert.ok(big.length > 9 * 1024 * 1024 && big.length < 12 * 1024 * 1024, String(big.length));
    assert.ok(ms < 20_000, `${String(ms)} ms`);
  });
});
