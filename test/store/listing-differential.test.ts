/**
 * viewer's ListObjectsV2 parser against the SDK's own (issue 28): the same requests, sent by the
 * same client, once with the SDK's `ListObjectsV2Command` and once with
 * `ViewerListObjectsV2Command`, and every key, size, receipt time, common prefix and token
 * compared, page by page:
 * - on the Swift S3 store's real repositories (every key of the bucket, in pages of 1,000 and of
 *   7, and the delimiter listings of each level);
 * - on keys written for this test under a fresh prefix and removed after it: one for every byte
 *   0x01–0x7F, non-ASCII names (two-, three- and four-byte UTF-8, U+FEFF, U+FFFD, U+FFFE, U+FFFF)
 *   and 1,024-byte keys, listed flat, in small pages, after a start key and by delimiter;
 * - on answers no real store sends but XML allows (entities, CDATA, line ends, comments,
 *   attributes, elements in another order), served by a local HTTP server.
 * And on answers that are no complete listing (cut short, another document, a field missing):
 * the SDK's parser may hand those over as a shorter page; viewer's refuses each one as a
 * `StoreError` `incompatible_format`. Error answers (403, 404, a 200 carrying S3's error document)
 * keep the SDK's own error names.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { DeleteObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client, type ListObjectsV2CommandInput } from '@aws-sdk/client-s3';
import { StoreError } from '../../src/common/errors.ts';
import { toStoreError } from '../../src/store/s3/classify.ts';
import { ViewerListObjectsV2Command } from '../../src/store/s3/list-command.ts';
import { listedName } from '../../src/store/s3/listing-names.ts';
import { realRepositories } from '../support/real-repositories.ts';

interface Page {
  readonly objects: readonly (readonly [string, number, number | null])[];
  readonly prefixes: readonly string[];
  readonly token: string | null;
}

function s3Client(endpoint: string, accessKeyId = 'test:tester', secretAccessKey = 'testing', maxAttempts = 3): S3Client {
  return new S3Client({ endpoint, forcePathStyle: true, region: 'us-east-1', credentials: { accessKeyId, secretAccessKey }, maxAttempts, requestChecksumCalculation: 'WHEN_REQUIRED' });
}

/** One page through the SDK's parser, as s3-driver.ts read it: names decoded, a size missing as NaN. */
async function sdkPage(s3: S3Client, input: ListObjectsV2CommandInput): Promise<Page> {
  const out = await s3.send(new ListObjectsV2Command({ ...input, EncodingType: 'url' }));
  const name = (n: string) => listedName(n, out.EncodingType);
  return {
    objects: (out.Contents ?? []).map((o) => [name(o.Key ?? '<no key>'), o.Size ?? Number.NaN, o.LastModified?.getTime() ?? null] as const),
    prefixes: (out.CommonPrefixes ?? []).map((p) => name(p.Prefix ?? '<no prefix>')),
    token: out.IsTruncated === true ? (out.NextContinuationToken ?? null) : null,
  };
}

async function viewerPage(s3: S3Client, input: ListObjectsV2CommandInput): Promise<Page> {
  const command = new ViewerListObjectsV2Command(input);
  await s3.send(command);
  const l = command.listing;
  return { objects: l.objects.map((o) => [o.key, o.size, o.lastModified?.getTime() ?? null] as const), prefixes: l.prefixes, token: l.nextContinuationToken };
}

/** Lists with both parsers page by page (the SDK's token leads); returns what was compared. */
async function compareListing(s3: S3Client, input: ListObjectsV2CommandInput): Promise<{ keys: string[]; prefixes: string[]; pages: number }> {
  const keys: string[] = [];
  const prefixes: string[] = [];
  let token: string | undefined;
  let pages = 0;
  do {
    const request = { ...input, ...(token === undefined ? {} : { ContinuationToken: token }) };
    const [sdk, viewer] = [await sdkPage(s3, request), await viewerPage(s3, request)];
    assert.deepEqual(viewer, sdk, `page ${pages + 1} of ${JSON.stringify(input)}`);
    keys.push(...sdk.objects.map((o) => o[0]));
    prefixes.push(...sdk.prefixes);
    token = sdk.token ?? undefined;
    pages += 1;
  } while (token !== undefined && pages < 5000);
  return { keys, prefixes, pages };
}

describe('ListObjectsV2 with viewer’s parser and with the SDK’s, on the Swift S3 store', () => {
  let s3: S3Client;
  let bucket: string;
  before(() => {
    const repos = realRepositories();
    bucket = repos.bucket;
    s3 = s3Client(repos.endpoint, repos.accessKeyId, repos.secretAccessKey);
  });
  after(() => s3.destroy());

  it('agree on every key, size and time of the real repositories, in pages of 1,000 and of 7', async () => {
    const all = await compareListing(s3, { Bucket: bucket, MaxKeys: 1000 });
    assert.ok(all.keys.length > 1000, `${all.keys.length} keys`);
    const small = await compareListing(s3, { Bucket: bucket, MaxKeys: 7 });
    assert.deepEqual(small.keys, all.keys);
    assert.ok(small.pages > 100, `${small.pages} pages`);
  });

  it('agree on every level of the real repositories listed by delimiter', async () => {
    const levels = [''];
    let compared = 0;
    while (levels.length > 0 && compared < 200) {
      const prefix = levels.shift() as string;
      const { prefixes } = await compareListing(s3, { Bucket: bucket, Prefix: prefix, Delimiter: '/', MaxKeys: 1000 });
      levels.push(...prefixes);
      compared += 1;
    }
    assert.ok(compared > 10, `${compared} levels`);
  });
});

describe('ListObjectsV2 with both parsers on odd keys (a fresh prefix, removed after)', () => {
  let s3: S3Client;
  const prefix = `listing-differential-${process.pid}-${Date.now()}/`;
  const hex = (b: number) => b.toString(16).padStart(2, '0');
  const keys: string[] = [];
  for (let b = 0x01; b <= 0x7f; b++) keys.push(`byte/${hex(b)}-${String.fromCharCode(b)}-end`);
  for (let b = 0x01; b <= 0x7f; b++) if (b !== 0x2f) keys.push(`dir${String.fromCharCode(b)}${hex(b)}/inner`);
  keys.push('utf8/é-ß-ñ', 'utf8/한글-漢字', 'utf8/😀-𝄞', 'utf8/\u00a0nbsp', 'utf8/\u2028line', 'utf8/\ufeffbom', 'utf8/\ufffdreplacement', 'utf8/\ufffe-\uffff', 'utf8/%ED%95%9C-not-encoded', 'utf8/a+b%2B');
  const long = (fill: string) => {
    let k = `long/${fill}`;
    while (Buffer.byteLength(prefix + k + fill) <= 1024) k += fill;
    return k + 'x'.repeat(1024 - Buffer.byteLength(prefix + k));
  };
  keys.push(long('a'), long('é'), long('한'), long('%'), long('&'));

  before(async () => {
    const repos = realRepositories();
    s3 = s3Client(repos.endpoint, repos.accessKeyId, repos.secretAccessKey);
    for (const k of keys) await s3.send(new PutObjectCommand({ Bucket: 'viewer-test', Key: prefix + k, Body: k }));
  });
  after(async () => {
    for (const k of keys) await s3.send(new DeleteObjectCommand({ Bucket: 'viewer-test', Key: prefix + k }));
    s3.destroy();
  });

  it('agree on every key, size and time, flat, in small pages and after a start key', async () => {
    for (const k of keys.filter((k) => k.startsWith('long/'))) assert.equal(Buffer.byteLength(prefix + k), 1024);
    const flat = await compareListing(s3, { Bucket: 'viewer-test', Prefix: prefix, MaxKeys: 1000 });
    assert.deepEqual([...flat.keys].sort(), keys.map((k) => prefix + k).sort());
    await compareListing(s3, { Bucket: 'viewer-test', Prefix: prefix, MaxKeys: 5 });
    for (const k of [keys[0], keys[0x26], keys[0x3c], keys.at(-7)] as string[]) await compareListing(s3, { Bucket: 'viewer-test', Prefix: prefix, StartAfter: prefix + k, MaxKeys: 50 });
  });

  it('agree on the directories named with every byte', async () => {
    const level = await compareListing(s3, { Bucket: 'viewer-test', Prefix: prefix, Delimiter: '/', MaxKeys: 1000 });
    assert.equal(level.prefixes.filter((p) => p.startsWith(`${prefix}dir`)).length, 0x7e);
    await compareListing(s3, { Bucket: 'viewer-test', Prefix: prefix, Delimiter: '/', MaxKeys: 9 });
  });
});

describe('ListObjectsV2 with both parsers on answers served by a local server', () => {
  let server: Server;
  let s3: S3Client;
  let answer: { status: number; body: string | Buffer; cut?: boolean } = { status: 200, body: '' };
  before(async () => {
    server = createServer((_req, res) => {
      const body = Buffer.isBuffer(answer.body) ? answer.body : Buffer.from(answer.body);
      if (answer.cut === true) {
        // The connection drops in the middle of the body it announced.
        res.writeHead(answer.status, { 'content-type': 'application/xml', 'content-length': String(body.length * 2) });
        res.write(body, () => res.destroy());
        return;
      }
      res.writeHead(answer.status, { 'content-type': 'application/xml', 'content-length': String(body.length), date: new Date().toUTCString() });
      res.end(body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    s3 = s3Client(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, 'id', 'secret', 1);
  });
  after(async () => {
    s3.destroy();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  const input = { Bucket: 'b', Prefix: 'p/', MaxKeys: 1000 };
  const listing = (inner: string, head = '<IsTruncated>false</IsTruncated>') => `<?xml version="1.0" encoding="UTF-8"?>\n<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">${head}${inner}</ListBucketResult>`;
  const contents = (key: string, extra = '<LastModified>2026-11-23T10:00:00.000Z</LastModified><Size>7</Size>') => `<Contents><Key>${key}</Key>${extra}</Contents>`;

  it('agree on answers XML allows but stores rarely send', async () => {
    const bodies = [
      listing(contents('p/a') + contents('p/b&amp;c') + contents('p/&#x41;&#66;') + contents('p/<![CDATA[x<y]]>') + contents('p/a\r\nb') + contents('p/<!-- c -->d')),
      listing(contents('p/%41+%2B') + '<CommonPrefixes><Prefix>p/d+x%2F/</Prefix></CommonPrefixes><EncodingType>url</EncodingType>'),
      listing(`<Name>b</Name>\n  ${contents('p/k', '\n    <Size>0</Size>\n    <ETag>"x"</ETag>\n    <LastModified>2026-11-23T12:00:00+02:00</LastModified>\n    <Owner><ID>o</ID></Owner>\n  ')}\n`, '\n  <IsTruncated>true</IsTruncated><NextContinuationToken>t&amp;1</NextContinuationToken>'),
      listing(contents('p/no-time', '<Size>3</Size>') + contents('p/frac', '<LastModified>2026-11-23T10:00:00.1239Z</LastModified><Size>3</Size>')),
      listing(contents('p/é한😀')),
      listing(''),
    ];
    for (const body of bodies) {
      answer = { status: 200, body };
      assert.deepEqual(await viewerPage(s3, input), await sdkPage(s3, input), body);
    }
  });

  it('refuses, as incompatible_format, every answer that is no complete listing, where the SDK may hand over a shorter page', async () => {
    const whole = listing(contents('p/a') + contents('p/b') + contents('p/c'), '<IsTruncated>true</IsTruncated><NextContinuationToken>t</NextContinuationToken>');
    const bodies: (string | Buffer)[] = [
      '',
      '<html><body>Bad gateway</body></html>',
      '<Other><IsTruncated>false</IsTruncated></Other>',
      listing(contents('p/a'), ''),
      listing(contents('p/a'), '<IsTruncated>yes</IsTruncated>'),
      listing(contents('p/a'), '<IsTruncated>true</IsTruncated>'),
      listing('<Contents><Size>1</Size></Contents>'),
      listing('<CommonPrefixes></CommonPrefixes>'),
      listing(contents('p/%zz') + '<EncodingType>url</EncodingType>'),
      listing(contents('p/a', '<LastModified>yesterday</LastModified>')),
      ...[0.2, 0.5, 0.7, 0.9, 0.99].map((f) => whole.slice(0, Math.floor(whole.length * f))),
      whole.slice(0, whole.lastIndexOf('</ListBucketResult>')),
    ];
    for (const body of bodies) {
      answer = { status: 200, body };
      const refused = await viewerPage(s3, input).then(
        (page) => assert.fail(`a page of ${page.objects.length} objects from ${JSON.stringify(body.slice(0, 60))}`),
        (e: unknown) => toStoreError(e),
      );
      assert.ok(refused instanceof StoreError);
      assert.equal(refused.category, 'incompatible_format', JSON.stringify(body.slice(-60)));
    }
  });

  it('fails a body the connection cut, never hands over a page', async () => {
    answer = { status: 200, body: listing(contents('p/a') + contents('p/b')).slice(0, 150), cut: true };
    const failed = await viewerPage(s3, input).then(
      () => assert.fail('a page from a cut connection'),
      (e: unknown) => toStoreError(e),
    );
    assert.ok(failed instanceof StoreError);
  });

  it('keeps the SDK’s own error names and statuses for error answers', async () => {
    const errorBody = (code: string) => `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>m</Message><RequestId>r</RequestId></Error>`;
    const answers = [
      { status: 403, body: errorBody('AccessDenied') },
      { status: 404, body: errorBody('NoSuchBucket') },
      { status: 503, body: errorBody('SlowDown') },
      { status: 200, body: errorBody('InternalError') },
    ];
    for (const a of answers) {
      answer = a;
      const name = (e: unknown) => [(e as Error).name, (e as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode, toStoreError(e).category];
      const sdk = await sdkPage(s3, input).then(() => assert.fail('no error'), name);
      const viewer = await viewerPage(s3, input).then(() => assert.fail('no error'), name);
      assert.deepEqual(viewer, sdk, a.body);
    }
  });
});
