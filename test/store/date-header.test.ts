/**
 * Each real driver (S3, Azure Blob, Cloud Storage) takes a page's `storeTime` from the `Date`
 * header of that listing's own HTTP response, and from nothing else: against a local server that
 * answers a listing in the provider's format with a chosen `Date` header (a date far from ours, a
 * garbled one, one sent twice, none at all), the page reports exactly that date or `null`.
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createAzureDriver } from '../../src/store/azure/azure-driver.ts';
import type { StoreDriver } from '../../src/store/driver.ts';
import { createGcsDriver } from '../../src/store/gcs/gcs-driver.ts';
import { createS3Driver } from '../../src/store/s3/s3-driver.ts';

/** A date no clock of this machine reads now: a page carrying it took it from the header. */
const FAR = 'Tue, 03 Mar 2015 10:20:30 GMT';
const FAR_ISO = '2015-03-03T10:20:30.000Z';

/** What the server sends as `Date`: none, one value, or the header twice. */
type DateMode = { readonly send: 'none' } | { readonly send: 'value'; readonly value: string | string[] };

const S3_LISTING = `<?xml version="1.0" encoding="UTF-8"?>
<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>b</Name><Prefix>p/</Prefix><KeyCount>1</KeyCount><MaxKeys>1000</MaxKeys><EncodingType>url</EncodingType><IsTruncated>false</IsTruncated><Contents><Key>p/a</Key><LastModified>2026-01-01T00:00:00.000Z</LastModified><Size>1</Size></Contents></ListBucketResult>`;

const azureListing = (origin: string) => `<?xml version="1.0" encoding="utf-8"?>
<EnumerationResults ServiceEndpoint="${origin}/devstoreaccount1/" ContainerName="c"><Prefix>p/</Prefix><MaxResults>1000</MaxResults><Blobs><Blob><Name>p/a</Name><Properties><Last-Modified>Thu, 01 Jan 2026 00:00:00 GMT</Last-Modified><Etag>0x1</Etag><Content-Length>1</Content-Length><BlobType>BlockBlob</BlobType></Properties></Blob></Blobs><NextMarker /></EnumerationResults>`;

const GCS_LISTING = JSON.stringify({ kind: 'storage#objects', items: [{ kind: 'storage#object', name: 'p/a', bucket: 'b', size: '1', updated: '2026-01-01T00:00:00.000Z' }] });

describe("a listing page's storeTime is its response's Date header, or null", () => {
  let server: Server;
  let origin: string;
  let dir: string;
  let mode: DateMode = { send: 'none' };
  /** Statuses to answer before the listing itself (a retried request). */
  let failFirst: { status: number; date: string }[] = [];
  const seen: string[] = [];

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'viewer-store-time-'));
    server = createServer((req: IncomingMessage, res: ServerResponse) => {
      req.resume();
      seen.push(`${req.method} ${req.url}`);
      const failure = failFirst.shift();
      if (failure !== undefined) {
        res.setHeader('Date', failure.date);
        res.writeHead(failure.status, { 'content-type': 'application/xml' }).end('<?xml version="1.0" encoding="UTF-8"?><Error><Code>ServiceUnavailable</Code><Message>busy</Message></Error>');
        return;
      }
      res.sendDate = false;
      if (mode.send === 'value') res.setHeader('Date', mode.value);
      const url = new URL(req.url ?? '/', origin);
      if (url.pathname.startsWith('/storage/v1/')) res.writeHead(200, { 'content-type': 'application/json' }).end(GCS_LISTING);
      else if (url.pathname.startsWith('/devstoreaccount1/')) res.writeHead(200, { 'content-type': 'application/xml', 'x-ms-version': '2025-11-05' }).end(azureListing(origin));
      else res.writeHead(200, { 'content-type': 'application/xml' }).end(S3_LISTING);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    writeFileSync(join(dir, 'id'), 'AKIDEXAMPLE');
    writeFileSync(join(dir, 'secret'), 'not-a-real-secret');
  });
  after(() => {
    server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const drivers: Record<string, () => Promise<StoreDriver>> = {
    s3: () => createS3Driver({ bucket: 'b', region: 'us-east-1', endpoint: origin, credentials: { mode: 'static-files', accessKeyIdFile: join(dir, 'id'), secretAccessKeyFile: join(dir, 'secret'), sessionTokenFile: null } }),
    azure: () =>
      createAzureDriver({
        container: 'c',
        credentials: {
          mode: 'connection-string',
          value: `DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=${Buffer.from('not-a-real-key').toString('base64')};BlobEndpoint=${origin}/devstoreaccount1;`,
        },
      }),
    gcs: () => createGcsDriver({ bucket: 'b', endpoint: origin, credentials: { mode: 'ambient' } }),
  };

  async function storeTime(name: string, m: DateMode): Promise<Date | null> {
    mode = m;
    const driver = await (drivers[name] as () => Promise<StoreDriver>)();
    try {
      const page = await driver.listPage({ prefix: 'p/', signal: new AbortController().signal });
      assert.deepEqual(page.objects.map((o) => [o.key, o.size]), [['p/a', 1]]);
      return page.storeTime;
    } finally {
      driver.close();
    }
  }

  for (const name of ['s3', 'azure', 'gcs']) {
    it(`${name}: the header's date, however far from this machine's clock`, async () => {
      assert.equal((await storeTime(name, { send: 'value', value: FAR }))?.toISOString(), FAR_ISO);
    });

    it(`${name}: no header, a garbled one, a lenient-looking one or one sent twice is null`, async () => {
      assert.equal(await storeTime(name, { send: 'none' }), null);
      assert.equal(await storeTime(name, { send: 'value', value: 'not a date' }), null);
      assert.equal(await storeTime(name, { send: 'value', value: '1' }), null);
      assert.equal(await storeTime(name, { send: 'value', value: [FAR, 'Tue, 03 Mar 2015 10:20:31 GMT'] }), null);
    });
  }

  it('s3: a retried listing takes the Date of the response it was built from, not an earlier attempt', async () => {
    failFirst = [{ status: 503, date: FAR }];
    seen.length = 0;
    assert.equal(await storeTime('s3', { send: 'none' }), null);
    assert.equal(seen.length, 2, 'the listing was retried once');
    failFirst = [{ status: 503, date: 'Sun, 06 Nov 1994 08:49:37 GMT' }];
    seen.length = 0;
    assert.equal((await storeTime('s3', { send: 'value', value: FAR }))?.toISOString(), FAR_ISO);
    assert.equal(seen.length, 2, 'the listing was retried once');
  });

  it('s3: concurrent listings each keep their own response\'s Date', async () => {
    const driver = await (drivers['s3'] as () => Promise<StoreDriver>)();
    try {
      // The server answers with whatever `mode` holds when each request arrives, so the two
      // listings are sent in turn but awaited together.
      mode = { send: 'value', value: FAR };
      const first = driver.listPage({ prefix: 'p/', signal: new AbortController().signal });
      await new Promise((resolve) => setTimeout(resolve, 100));
      mode = { send: 'value', value: 'Sun, 06 Nov 1994 08:49:37 GMT' };
      const second = driver.listPage({ prefix: 'p/', signal: new AbortController().signal });
      const [a, b] = await Promise.all([first, second]);
      assert.deepEqual([a.storeTime?.toISOString(), b.storeTime?.toISOString()], [FAR_ISO, '1994-11-06T08:49:37.000Z']);
    } finally {
      driver.close();
    }
  });
});
