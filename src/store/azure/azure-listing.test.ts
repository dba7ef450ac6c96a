/**
 * The Azure driver's listing against a local HTTP server standing in for Blob Storage: a 200 whose
 * body is no blob listing (an HTML page, another XML document) or XML cut short is
 * `incompatible_format`, never an empty listing. (The same faults against Azurite: test/faults/.)
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { StoreError } from '../../common/errors.ts';
import type { StoreDriver } from '../driver.ts';
import { createAzureDriver } from './azure-driver.ts';

// Azurite's documented development key (public): the fake server checks no signature.
const KEY = 'Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==';
const LISTING = (blobs: string) =>
  `<?xml version="1.0" encoding="utf-8"?><EnumerationResults ServiceEndpoint="http://x/" ContainerName="c"><Prefix>p/</Prefix><MaxResults>1000</MaxResults><Blobs>${blobs}</Blobs><NextMarker/></EnumerationResults>`;
const BLOB = '<Blob><Name>p/a</Name><Properties><Last-Modified>Thu, 01 Jan 2026 00:00:00 GMT</Last-Modified><Content-Length>3</Content-Length><BlobType>BlockBlob</BlobType></Properties></Blob>';

describe('Azure listing answers', () => {
  let server: Server;
  let driver: StoreDriver;
  let body = '';

  before(async () => {
    server = createServer((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'application/xml', 'content-length': String(Buffer.byteLength(body)), 'x-ms-version': '2025-01-05' });
      res.end(body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}/devstoreaccount1`;
    driver = await createAzureDriver({ container: 'c', credentials: { mode: 'connection-string', value: `DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=${KEY};BlobEndpoint=${endpoint};` } });
  });
  after(() => {
    driver.close();
    server.close();
    server.closeAllConnections();
  });

  const list = (answer: string) => {
    body = answer;
    return driver.listPage({ prefix: 'p/', signal: new AbortController().signal });
  };
  const category = async (answer: string) => {
    const e: unknown = await list(answer).then(() => null, (x: unknown) => x);
    assert.ok(e instanceof StoreError, `not refused: ${answer.slice(0, 60)}`);
    return e.category;
  };

  it('a blob listing is read', async () => {
    assert.deepEqual((await list(LISTING(BLOB))).objects.map((o) => o.key), ['p/a']);
  });

  it('a 200 that is no blob listing is incompatible_format, never an empty listing', async () => {
    assert.equal(await category('<html><body><h1>Bad Gateway</h1></body></html>'), 'incompatible_format');
    assert.equal(await category('<?xml version="1.0"?><Other><Thing>1</Thing></Other>'), 'incompatible_format');
  });

  it('listing XML cut short is incompatible_format', async () => {
    const whole = LISTING(BLOB);
    assert.equal(await category(whole.slice(0, Math.floor(whole.length / 2))), 'incompatible_format');
  });
});
