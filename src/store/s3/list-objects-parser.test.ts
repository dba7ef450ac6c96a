/**
 * The ListObjectsV2 parser on its own: what it reads from a body, that any cut of the body into
 * chunks reads the same, and that every body that is no complete listing is refused as
 * `incompatible_format` (never a shorter page). The comparison with the SDK's own deserializer,
 * on real stores and on odd bodies, is test/store/listing-differential.test.ts.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { StoreError } from '../../common/errors.ts';
import { ListObjectsParser, parseListObjectsV2, type ParsedListing } from './list-objects-parser.ts';

const AWS_BODY = `<?xml version="1.0" encoding="UTF-8"?>
<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>bucket</Name><Prefix>p%2F</Prefix><KeyCount>3</KeyCount><MaxKeys>3</MaxKeys><Delimiter>%2F</Delimiter><EncodingType>url</EncodingType><IsTruncated>true</IsTruncated><ContinuationToken>tok/0</ContinuationToken><NextContinuationToken>1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/wm36Hy4vbOwM=</NextContinuationToken>
<Contents><Key>p/wals/0000000100000000/000000010000000000000001.zst</Key><LastModified>2026-11-23T10:00:01.000Z</LastModified><ETag>&quot;9b2cf535f27731c974343645a3985328&quot;</ETag><ChecksumAlgorithm>CRC64NVME</ChecksumAlgorithm><ChecksumType>FULL_OBJECT</ChecksumType><Size>16777216</Size><Owner><ID>abc</ID><DisplayName>me</DisplayName></Owner><StorageClass>STANDARD</StorageClass></Contents>
<Contents><Key>p/odd/a+b%25c%ED%95%9C%01</Key><LastModified>2026-11-23T10:00:01.000Z</LastModified><Size>0</Size></Contents>
<Contents><Key>p/x</Key><LastModified>2026-11-23T10:00:02.5Z</LastModified><Size>12</Size></Contents>
<CommonPrefixes><Prefix>p/dir+one/</Prefix></CommonPrefixes><CommonPrefixes><Prefix>p/dir2/</Prefix></CommonPrefixes></ListBucketResult>
`;

const EXPECTED = {
  keys: ['p/wals/0000000100000000/000000010000000000000001.zst', 'p/odd/a b%c한\x01', 'p/x'],
  sizes: [16777216, 0, 12],
  times: [Date.parse('2026-11-23T10:00:01.000Z'), Date.parse('2026-11-23T10:00:01.000Z'), Date.parse('2026-11-23T10:00:02.500Z')],
  prefixes: ['p/dir one/', 'p/dir2/'],
  token: '1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/wm36Hy4vbOwM=',
};

const flat = (l: ParsedListing) => ({
  keys: l.objects.map((o) => o.key),
  sizes: l.objects.map((o) => o.size),
  times: l.objects.map((o) => o.lastModified?.getTime() ?? null),
  prefixes: l.prefixes,
  truncated: l.isTruncated,
  token: l.nextContinuationToken,
  keyCount: l.keyCount,
  encodingType: l.encodingType,
});

function inChunks(body: Buffer, cuts: number[]): ParsedListing {
  const p = new ListObjectsParser();
  let at = 0;
  for (const c of [...cuts, body.length]) {
    p.push(body.subarray(at, c));
    at = c;
  }
  return p.end();
}

const refused = (e: unknown) => e instanceof StoreError && e.category === 'incompatible_format';

const listing = (inner: string, tail = '<IsTruncated>false</IsTruncated>') => `<ListBucketResult>${tail}${inner}</ListBucketResult>`;
const one = (key: string, extra = '<Size>1</Size>') => listing(`<Contents><Key>${key}</Key>${extra}</Contents>`);

describe('ListObjectsV2 parser', () => {
  it('reads keys, sizes, times, prefixes and the token; skips everything else; decodes url names wherever EncodingType stands', () => {
    const l = parseListObjectsV2(Buffer.from(AWS_BODY));
    assert.deepEqual(flat(l), { ...EXPECTED, truncated: true, keyCount: 3, encodingType: 'url' });
    // Objects written in the same second share one Date.
    assert.equal(l.objects[0]?.lastModified, l.objects[1]?.lastModified);
    const late = AWS_BODY.replace('<EncodingType>url</EncodingType>', '').replace('</ListBucketResult>', '<EncodingType>url</EncodingType></ListBucketResult>');
    assert.deepEqual(flat(parseListObjectsV2(Buffer.from(late))), flat(l));
  });

  it('reads names as they are when the answer says no encoding', () => {
    const l = parseListObjectsV2(Buffer.from(one('a+b%25')));
    assert.deepEqual(l.objects.map((o) => o.key), ['a+b%25']);
    assert.equal(l.encodingType, null);
  });

  it('reads the same whatever the chunks: every cut in two, and byte by byte', () => {
    const body = Buffer.from(AWS_BODY);
    const whole = flat(parseListObjectsV2(body));
    for (let cut = 0; cut <= body.length; cut++) assert.deepEqual(flat(inChunks(body, [cut])), whole, `cut at ${cut}`);
    assert.deepEqual(flat(inChunks(body, Array.from({ length: body.length }, (_, i) => i))), whole);
    // A leaf whose text is split across a comment and chunks.
    const tricky = Buffer.from(one('a<!--x-->b<![CDATA[<c>]]>d&amp;e'));
    for (let cut = 0; cut <= tricky.length; cut++) assert.deepEqual(flat(inChunks(tricky, [cut])).keys, ['ab<c>d&e'], `cut at ${cut}`);
  });

  it('refuses every body cut short, at every byte: never a shorter page', () => {
    const body = Buffer.from(AWS_BODY.trimEnd());
    const end = body.lastIndexOf('</ListBucketResult>') + '</ListBucketResult>'.length;
    for (let n = 0; n < end; n++) assert.throws(() => parseListObjectsV2(body.subarray(0, n)), refused, `first ${n} bytes`);
  });

  it('reads texts as the SDK does: entities, character references, CDATA, line ends, whitespace', () => {
    const cases: [string, string][] = [
      ['a&amp;b&lt;c&gt;d&quot;e&apos;f', 'a&b<c>d"e\'f'],
      ['&#65;&#x42;&#x1F600;', 'AB\u{1f600}'],
      ['<![CDATA[a&amp;]]>', 'a&amp;'],
      ['a\r\nb\rc', 'a\nb\nc'],
      ['&#13;', '\r'],
      ['  \n  ', ''],
      ['   ', '   '],
      ['', ''],
      ['é한', 'é한'],
      ['\xff', '\xff'],
    ];
    for (const [wire, key] of cases) assert.deepEqual(parseListObjectsV2(Buffer.from(one(wire))).objects.map((o) => o.key), [key], wire);
    // Bytes that are no UTF-8 become U+FFFD, as the SDK's decoding of the body makes them.
    const bad = Buffer.concat([Buffer.from('<ListBucketResult><IsTruncated>false</IsTruncated><Contents><Key>a'), Buffer.from([0xc3]), Buffer.from('</Key></Contents></ListBucketResult>')]);
    assert.deepEqual(parseListObjectsV2(bad).objects.map((o) => o.key), ['a\ufffd']);
  });

  it('reads times by the SDK rule, the fast form and the others alike', () => {
    const time = (t: string) => parseListObjectsV2(Buffer.from(one('k', `<Size>1</Size><LastModified>${t}</LastModified>`))).objects[0]?.lastModified?.getTime();
    assert.equal(time('2026-11-23T10:00:01Z'), Date.parse('2026-11-23T10:00:01Z'));
    assert.equal(time('2026-11-23T10:00:01.123Z'), Date.parse('2026-11-23T10:00:01.123Z'));
    assert.equal(time('2026-11-23t10:00:01.123z'), Date.parse('2026-11-23T10:00:01.123Z'));
    assert.equal(time('2026-11-23T12:00:01.123+02:00'), Date.parse('2026-11-23T10:00:01.123Z'));
    assert.equal(time('2026-11-23T10:00:01.1234567Z'), Date.parse('2026-11-23T10:00:01.123Z'));
    assert.equal(time('2024-02-30T00:00:00Z'), Date.parse('2024-03-01T00:00:00Z'));
    assert.equal(time('0099-01-01T00:00:00.000Z'), Date.parse('0099-01-01T00:00:00.000Z'));
    for (const bad of ['', 'yesterday', '2026-13-01T00:00:00Z', '2026-11-23 10:00:01Z', '2026-11-23T24:00:00.000Z', '2026-11-23T10:00:01.000']) {
      assert.throws(() => time(bad), refused, bad);
    }
    assert.equal(parseListObjectsV2(Buffer.from(one('k'))).objects[0]?.lastModified, null);
  });

  it('passes a size that is no decimal number on as NaN (the confined driver refuses it), never as 0', () => {
    for (const s of ['', ' 1', '1e3', '-1', 'x', '0x10']) assert.ok(Number.isNaN(parseListObjectsV2(Buffer.from(one('k', `<Size>${s}</Size>`))).objects[0]?.size), s);
    assert.ok(Number.isNaN(parseListObjectsV2(Buffer.from(one('k', ''))).objects[0]?.size));
    assert.equal(parseListObjectsV2(Buffer.from(one('k', '<Size>9007199254740991</Size>'))).objects[0]?.size, 9007199254740991);
  });

  it('refuses every body that is no complete listing', () => {
    const bodies = [
      '',
      '   ',
      '<html><body>502 Bad Gateway</body></html>',
      '<Error><Code>InternalError</Code></Error>',
      '<ListBucketResult></ListBucketResult>',
      listing('', '<IsTruncated>maybe</IsTruncated>'),
      listing('', '<IsTruncated>true</IsTruncated>'),
      listing('', '<IsTruncated>true</IsTruncated><NextContinuationToken></NextContinuationToken>'),
      listing('', '<IsTruncated>false</IsTruncated><IsTruncated>false</IsTruncated>'),
      listing('<Contents><Size>1</Size></Contents>'),
      listing('<Contents/>'),
      listing('<Contents><Key>a</Key><Key>b</Key></Contents>'),
      listing('<Contents><Key>a</Key><Size>1</Size><Size>2</Size></Contents>'),
      listing('<Contents><Key a="1">a</Key></Contents>'),
      listing('<Contents><Key>a<b/></Key></Contents>'),
      listing('<Contents><Key>a</Size></Contents>'),
      listing('<Contents><Key>a</Key><Foo>x</Bar></Contents>'),
      listing('<CommonPrefixes></CommonPrefixes>'),
      listing('<Contents><Key>a&bogus;</Key></Contents>'),
      listing('<Contents><Key>a & b</Key></Contents>'),
      listing('<Contents><Key>a&#x110000;</Key></Contents>'),
      '<!DOCTYPE x [<!ENTITY e "k">]>' + listing(''),
      'junk' + listing(''),
      listing('') + 'junk',
      listing('') + listing(''),
      listing('<Contents><Key>secret%zz</Key></Contents><EncodingType>url</EncodingType>'),
      listing('<Contents><Key>secret%C3</Key></Contents><EncodingType>url</EncodingType>'),
      listing('<a>'.repeat(40) + '</a>'.repeat(40)),
    ];
    for (const body of bodies) assert.throws(() => parseListObjectsV2(Buffer.from(body)), (e: unknown) => refused(e) && !(e as Error).message.includes('secret'), JSON.stringify(body.slice(0, 80)));
  });

  it('allows what XML allows around the listing: declaration, comments, processing instructions, whitespace', () => {
    const body = `\n<?xml version="1.0"?>\n<!-- hi -->\n${listing('<!-- c --><Contents><?pi x?><Key>k</Key><Size>3</Size></Contents>')}\n<!-- bye -->\n\n`;
    assert.deepEqual(flat(parseListObjectsV2(Buffer.from(body))).keys, ['k']);
  });

  it('knows S3 error documents apart, for the SDK to name them', () => {
    const p = new ListObjectsParser();
    assert.throws(() => p.push(Buffer.from('<?xml version="1.0"?><Error><Code>SlowDown</Code></Error>')), refused);
    assert.equal(p.errorDocument, true);
  });
});
