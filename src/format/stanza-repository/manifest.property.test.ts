/**
 * Property tests of pgBackRest's `backup.manifest` reader (issue 19): a generated manifest — any
 * backup of a set (full, diff, incr), bundled or not, any compression, files stored here, in
 * bundles, as block-incremental maps or referenced from earlier backups — is read to exactly the
 * aggregate a model of pgBackRest's layout computes, with a valid checksum and no problem, in any
 * chunking; arbitrary bytes and one-byte changes of such a manifest are a typed result, never an
 * exception, whose counts stay consistent and whose problems name listed fields only.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { MANIFEST_FIELDS, ManifestParser, parseManifest, type ManifestResult, type StoredObject } from './manifest.ts';
import { enc, manifestText, type ManifestFileEntry } from '../../../test/support/synthetic/stanza-fixtures.ts';

const FULL = '20261121-132726F';
const SHA = 'da39a3ee5e6b4b0d3255bfef95601890afd80709';
const COMPRESS = ['none', 'gz', 'bz2', 'lz4', 'zst', 'xz'] as const;
const FAILURES = [
  'too-large', 'too-many-lines', 'line-too-long', 'too-many-sections', 'binary', 'encrypted', 'bad-section',
  'outside-section', 'missing-equals', 'invalid-json', 'empty-key', 'key-too-long', 'duplicate-key', 'invalid-value',
];

/** Counts that hold for any manifest read, however hostile. */
function checkResult(r: ManifestResult): void {
  if (!r.ok) {
    assert.ok(FAILURES.includes(r.reason));
    assert.deepEqual(Object.keys(r).sort(), ['line', 'ok', 'reason']);
    return;
  }
  const f = r.files;
  for (const n of [f.files, f.invalid, f.storedFiles, f.referencedFiles, f.zeroLength, f.blockIncremental, f.withoutChecksum]) assert.ok(Number.isSafeInteger(n) && n >= 0);
  // Every entry is exactly one of: invalid, referenced, stored here.
  assert.equal(f.files, f.invalid + f.referencedFiles + f.storedFiles);
  assert.ok(f.zeroLength <= f.files - f.invalid);
  for (const p of r.problems) {
    assert.ok((MANIFEST_FIELDS as readonly string[]).includes(p.field), p.field);
    assert.ok(['missing', 'invalid', 'inconsistent'].includes(p.problem));
    assert.ok(Number.isInteger(p.count) && p.count >= 1);
  }
  assert.deepEqual(f.references, [...f.references].sort());
  if (f.stored !== null) assert.ok(f.stored.objects.length <= f.stored.total && f.stored.total <= f.storedFiles);
}

interface FileSpec {
  readonly name: string;
  readonly size: number;
  readonly repoSize: number | null;
  readonly reference: string | null;
  readonly bundle: { readonly id: number; readonly offset: number } | null;
  readonly blockIncr: number | null;
  readonly checksum: boolean;
}

/** A backup of the set begun by FULL, its prior and its reference list, as pgBackRest labels them. */
const backupArb = fc
  .tuple(fc.constantFrom('full', 'diff', 'incr'), fc.uniqueArray(fc.integer({ min: 0, max: 99 }), { minLength: 1, maxLength: 4 }))
  .map(([type, stamps]) => {
    const labels = stamps.sort((a, b) => a - b).map((s) => `${FULL}_20261121-1328${String(s).padStart(2, '0')}I`);
    if (type === 'full') return { type, label: FULL, prior: undefined, earlier: [] as string[] };
    const own = type === 'diff' ? `${FULL}_20261121-1329${String(stamps[0] ?? 0).padStart(2, '0')}D` : (labels.at(-1) ?? '');
    // A diff's prior is its full; an incr's any earlier backup of the set.
    const earlier = type === 'diff' ? [FULL] : [FULL, ...labels.slice(0, -1)];
    return { type, label: own, prior: type === 'diff' ? FULL : earlier.at(-1), earlier };
  });

const nameArb = fc
  .array(fc.stringMatching(/^[a-z0-9_]{1,6}$/), { minLength: 1, maxLength: 3 })
  .chain((parts) => fc.constantFrom('pg_data/', 'pg_tblspc/16385/').map((root) => root + parts.join('/')));

function filesArb(earlier: readonly string[], bundled: boolean): fc.Arbitrary<FileSpec[]> {
  const size = fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 1 << 20 }), fc.integer({ min: 0, max: 2 ** 40 }));
  const spec = fc.record(
    {
      size,
      repoSize: fc.option(fc.integer({ min: 0, max: 2 ** 40 })),
      reference: earlier.length === 0 ? fc.constant(null) : fc.option(fc.constantFrom(...earlier), { freq: 3 }),
      bundle: bundled ? fc.option(fc.record({ id: fc.integer({ min: 1, max: 5 }), offset: fc.integer({ min: 0, max: 2 ** 32 }) }), { freq: 4 }) : fc.constant(null),
      blockIncr: fc.option(fc.integer({ min: 0, max: 8192 }), { freq: 5 }),
      checksum: fc.oneof({ weight: 9, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }),
    },
    { noNullPrototype: true },
  );
  return fc
    .uniqueArray(nameArb, { maxLength: 25 })
    .chain((names) => fc.tuple(...names.sort().map((name) => spec.map((s): FileSpec => ({ ...s, name, checksum: s.size === 0 ? false : s.checksum })))))
    .map((specs) => specs);
}

const manifestArb = backupArb.chain((b) =>
  fc.tuple(fc.constant(b), fc.option(fc.boolean()), fc.constantFrom(...COMPRESS)).chain(([backup, bundle, compressType]) =>
    fc.tuple(fc.constant(backup), fc.constant(bundle), fc.constant(compressType), filesArb(backup.earlier, bundle === true)),
  ),
);

function entry(f: FileSpec): ManifestFileEntry {
  const value: Record<string, unknown> = { size: f.size, timestamp: 1795267640 };
  if (f.repoSize !== null && f.repoSize !== f.size) value['repo-size'] = f.repoSize;
  if (f.reference !== null) value['reference'] = f.reference;
  if (f.bundle !== null) {
    value['bni'] = f.bundle.id;
    if (f.bundle.offset !== 0) value['bno'] = f.bundle.offset;
  }
  if (f.blockIncr !== null) {
    value['bi'] = 1;
    value['bim'] = f.blockIncr;
  }
  if (f.checksum) value['checksum'] = SHA;
  return [f.name, value];
}

describe('pgBackRest manifests', () => {
  it('read a generated manifest to exactly the aggregate a model of its files computes', () => {
    fc.assert(
      fc.property(manifestArb, ([backup, bundle, compressType, files]) => {
        const reference = [...backup.earlier.filter((l) => files.some((f) => f.reference === l)), backup.label];
        const text = manifestText({
          label: backup.label,
          type: backup.type,
          ...(backup.prior === undefined ? {} : { prior: backup.prior }),
          reference: [...new Set([...(backup.prior === undefined ? [] : [backup.prior]), ...reference])].sort().join(','),
          ...(bundle === null ? {} : { bundle }),
          compressType,
          files: files.map(entry),
        });
        const r = parseManifest(enc(text));
        if (!r.ok) assert.fail(`refused: ${r.reason} at ${String(r.line)}`);
        checkResult(r);
        assert.equal(r.checksum, 'valid');
        assert.equal(r.loadable, true);
        assert.deepEqual(r.problems, [], text);
        assert.equal(r.backup.label, backup.label);
        assert.equal(r.backup.type, backup.type);

        // The model: pgBackRest's layout of a backup's files (serialize.c.inc, backupFileRepoPath, verify.c).
        const repo = (f: FileSpec) => (f.repoSize === null || f.repoSize === f.size ? f.size : f.repoSize);
        const mine = files.filter((f) => f.reference === null);
        const referenced = files.filter((f) => f.reference !== null);
        const bundles = new Map<number, number>();
        for (const f of mine) if (f.bundle !== null) bundles.set(f.bundle.id, Math.max(bundles.get(f.bundle.id) ?? 0, f.bundle.offset + repo(f)));
        const separate = mine.filter((f) => f.bundle === null && !(bundle === true && f.size === 0));
        const ext = compressType === 'none' ? '' : `.${compressType}`;
        const objects: StoredObject[] = separate.map((f) => ({ key: `${f.name}${f.blockIncr !== null && f.blockIncr !== 0 ? '.pgbi' : ext}`, repoSize: repo(f) }));
        const sum = (fs: readonly FileSpec[], of: (f: FileSpec) => number) => fs.reduce((a, f) => a + of(f), 0);
        assert.deepEqual(r.files, {
          files: files.length,
          invalid: 0,
          size: sum(files, (f) => f.size),
          repoSize: sum(files, repo),
          storedFiles: mine.length,
          storedRepoSize: sum(mine, repo),
          referencedFiles: referenced.length,
          referencedRepoSize: sum(referenced, repo),
          references: [...new Set(referenced.map((f) => f.reference))].sort(),
          zeroLength: files.filter((f) => f.size === 0).length,
          blockIncremental: files.filter((f) => f.blockIncr !== null).length,
          withoutChecksum: files.filter((f) => f.size !== 0 && !f.checksum).length,
          bundles,
          bundlesTruncated: false,
          stored: { objects, total: objects.length, truncated: false },
        });
      }),
      { numRuns: 1500 },
    );
  });

  it('read a generated manifest the same in any chunking', () => {
    fc.assert(
      fc.property(manifestArb, fc.array(fc.nat(), { maxLength: 12 }), ([backup, bundle, compressType, files], cuts) => {
        const bytes = enc(manifestText({ label: backup.label, ...(bundle === null ? {} : { bundle }), compressType, files: files.map(entry) }));
        const whole = parseManifest(bytes);
        const at = [...new Set([0, ...cuts.map((c) => c % (bytes.length + 1)), bytes.length])].sort((a, b) => a - b);
        const p = new ManifestParser();
        for (let i = 1; i < at.length; i++) p.push(bytes.subarray(at[i - 1], at[i]));
        assert.deepEqual(p.end(), whole);
      }),
      { numRuns: 300 },
    );
  });

  it('read arbitrary bytes and one-byte changes of a manifest to a typed result with consistent counts, never throwing', () => {
    const mutated = manifestArb.chain(([backup, bundle, compressType, files]) => {
      const bytes = enc(manifestText({ label: backup.label, ...(bundle === null ? {} : { bundle }), compressType, files: files.map(entry) }));
      return fc.array(fc.tuple(fc.nat(bytes.length - 1), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 4 }).map((edits) => {
        const b = Buffer.from(bytes);
        for (const [i, v] of edits) b[i] = v;
        return new Uint8Array(b);
      });
    });
    fc.assert(
      fc.property(fc.oneof(fc.uint8Array({ maxLength: 600 }), mutated), (bytes) => checkResult(parseManifest(bytes))),
      { numRuns: 2000 },
    );
  });
});
