/**
 * The S3 driver's reading of listing answers, against a local HTTP server that answers
 * ListObjectsV2 with crafted bodies: a listing is complete only when the store says so. An answer
 * without `IsTruncated` (an HTML page or another XML document with status 200, an empty body), a
 * truncated page without a continuation token, and XML cut short are `incompatible_format`, never
 * an empty or last page; an empty page that is truncated and carries a token is a real S3 answer
 * and is followed. (The same faults against the real store: test/faults/.)
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { StoreError } from '../../common/errors.ts';
import type { StoreDriver } from '../driver.ts';
import { createS3Driver } from './s3-driver.ts';

const HEAD = '<?xml version="1.0" encoding="UTF-8"?>\n<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>b</Name><Prefix>p/</Prefix><KeyCount>1</KeyCount><MaxKeys>1000</MaxKeys><EncodingType>url</EncodingType>';
const ONE = '<Contents><Key>p/a</Key><LastModified>2026-01-01T00:00:00.000Z</LastModified><Size>3</Size></Contents>';

describe('S3 listing answers', () => {
  let server: Server;
  let driver: StoreDriver;
  let dir: string;
  let body = '';

  before(async () => {
    server = createServer((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'application/xml', 'content-length': String(Buffer.byteLength(body)) });
      res.end(body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    dir = mkdtempSync(join(tmpdir(), 'viewer-s3-answers-'));
    writeFileSync(join(dir, 'id'), 'AKIDEXAMPLE');
    writeFileSync(join(dir, 'secret'), 'secret-example');
    driver = await createS3Driver({
      bucket: 'b',
      region: null,
      endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      credentials: { mode: 'static-files', accessKeyIdFile: join(dir, 'id'), secretAccessKeyFile: join(dir, 'secret'), sessionTokenFile: null },
      maxAttempts: 1,
    });
  });
  after(() => {
    driver.close();
    server.close();
    server.closeAllConnections();
    rmSync(dir, { recursive: true, force: true });
  });

  const list = (answer: string) => {
    body = answer;
    return driver.listPage({ prefix: 'p/', signal: new AbortController().signal });
  };
  const refused = async (answer: string) => {
    const e: unknown = await list(answer).then(() => null, (x: unknown) => x);
    assert.ok(e instanceof StoreError, `not refused: ${answer.slice(0, 60)}`);
    return e.category;
  };

  it('a complete page and a truncated one with its token are read', async () => {
    const last = await list(`${HEAD}<IsTruncated>false</IsTruncated>${ONE}</ListBucketResult>`);
    assert.deepEqual([last.objects.map((o) => o.key), last.nextToken], [['p/a'], null]);
    const more = await list(`${HEAD}<IsTruncated>true</IsTruncated><NextContinuationToken>tok</NextContinuationToken>${ONE}</ListBucketResult>`);
    assert.equal(more.nextToken, 'tok');
  });

  it('an empty page that is truncated and names its next page is followed, not taken as the end', async () => {
    const empty = await list(`${HEAD}<IsTruncated>true</IsTruncated><NextContinuationToken>tok2</NextContinuationToken></ListBucketResult>`);
    assert.deepEqual([empty.objects.length, empty.nextToken], [0, 'tok2']);
  });

  it('a truncated page without a continuation token is incompatible_format, never the last page', async () => {
    assert.equal(await refused(`${HEAD}<IsTruncated>true</IsTruncated>${ONE}</ListBucketResult>`), 'incompatible_format');
    assert.equal(await refused(`${HEAD}<IsTruncated>true</IsTruncated><NextContinuationToken></NextContinuationToken>${ONE}</ListBucketResult>`), 'incompatible_format');
  });

  it('a 200 that is no listing (HTML, another document, nothing) is incompatible_format, never an empty listing', async () => {
    assert.equal(await refused('<html><body><h1>Bad Gateway</h1></body></html>'), 'incompatible_format');
    assert.equal(await refused('<?xml version="1.0"?><Other><Thing>1</Thing></Other>'), 'incompatible_format');
    assert.equal(await refused(''), 'incompatible_format');
  });

  it('listing XML cut short is incompatible_format', async () => {
    const whole = `${HEAD}<IsTruncated>false</IsTruncated>${ONE}</ListBucketResult>`;
    assert.equal(await refused(whole.slice(0, Math.floor(whole.length / 2))), 'incompatible_format');
    assert.equal(await refused('not xml {'), 'incompatible_format');
  });
});
