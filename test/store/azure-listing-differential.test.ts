/**
 * viewer's List Blobs parser against the SDK's own path (issue 28): the same listings read once by
 * a plain `ContainerClient` (fast-xml-parser and core-client's mapper, names decoded by the SDK, as
 * the driver read them before) and once by viewer's Azure driver (its parser in the pipeline), and
 * every key, size, receipt time, prefix and marker compared, page by page:
 * - on Azurite answering as Azure (names XML cannot carry come `Encoded="true"`): every byte
 *   0x01–0x7F in names, non-ASCII names (two-, three- and four-byte UTF-8, U+FEFF, U+FFFD) and
 *   1,024-byte names, listed flat in pages of 5,000 and of 7, under a prefix and by delimiter;
 * - on answers no real service sends but XML allows (entities, character references, CDATA,
 *   comments, fields in another order, elements viewer does not read, line ends), served by a local
 *   HTTP server.
 * And on answers that are no complete listing (cut short, another document, a name missing, a
 * malformed encoding): viewer's parser refuses each one as `StoreError` `incompatible_format`.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { BlobServiceClient, type ContainerClient } from '@azure/storage-blob';
import { StoreError } from '../../src/common/errors.ts';
import { createAzureDriver } from '../../src/store/azure/azure-driver.ts';
import type { StoreDriver } from '../../src/store/driver.ts';
import { AZURITE_KEY, startAzurite, type Azurite } from '../support/azurite.ts';
import { ODD_KEYS } from './odd-keys.ts';

interface Page {
  readonly objects: readonly (readonly [string, number, number | null])[];
  readonly prefixes: readonly string[];
  readonly marker: string | null;
}

/** One page through the SDK's own parser, mapped as the driver mapped it before viewer's parser. */
async function sdkPage(container: ContainerClient, prefix: string, maxPageSize: number, marker: string | undefined, delimiter?: string): Promise<Page> {
  const pages = delimiter === undefined ? container.listBlobsFlat({ prefix }).byPage({ maxPageSize, ...(marker === undefined ? {} : { continuationToken: marker }) }) : container.listBlobsByHierarchy(delimiter, { prefix }).byPage({ maxPageSize, ...(marker === undefined ? {} : { continuationToken: marker }) });
  const page = (await pages.next()).value as { segment: { blobItems?: { name: string; properties: { contentLength?: number; lastModified?: Date } }[]; blobPrefixes?: { name: string }[] }; continuationToken?: string };
  const next = page.continuationToken;
  return {
    objects: (page.segment.blobItems ?? []).map((b) => [b.name, b.properties.contentLength ?? Number.NaN, b.properties.lastModified?.getTime() ?? null] as const),
    prefixes: (page.segment.blobPrefixes ?? []).map((p) => p.name),
    marker: typeof next === 'string' && next !== '' ? next : null,
  };
}

async function viewerPage(driver: StoreDriver, prefix: string, maxKeys: number, marker: string | undefined, delimiter?: '/'): Promise<Page> {
  const page = await driver.listPage({ prefix, maxKeys, signal: new AbortController().signal, ...(delimiter === undefined ? {} : { delimiter }), ...(marker === undefined ? {} : { continuationToken: marker }) });
  return { objects: page.objects.map((o) => [o.key, o.size, o.lastModified?.getTime() ?? null] as const), prefixes: page.prefixes, marker: page.nextToken };
}

/** Lists with both, page by page, asserting each pair equal; returns the number of keys. */
async function compareAll(container: ContainerClient, driver: StoreDriver, prefix: string, pageSize: number, delimiter?: '/'): Promise<number> {
  let marker: string | undefined;
  let keys = 0;
  let pages = 0;
  do {
    const sdk = await sdkPage(container, prefix, pageSize, marker, delimiter);
    const ours = await viewerPage(driver, prefix, pageSize, marker, delimiter);
    assert.deepEqual(ours, sdk, `page ${pages} of ${prefix} (${pageSize}${delimiter === undefined ? '' : ', by delimiter'})`);
    keys += ours.objects.length + ours.prefixes.length;
    marker = ours.marker ?? undefined;
    pages += 1;
  } while (marker !== undefined && pages < 10_000);
  return keys;
}

const NON_ASCII = ['utf8/é', 'utf8/ß€', 'utf8/日本語', 'utf8/😀-four-bytes', 'utf8/\ufeff-bom', 'utf8/\ufffd-replacement', 'utf8/mixed é€😀 end'];
const LONG = ['long/' + 'a'.repeat(1019), 'long/' + 'é'.repeat(509) + 'x'];

describe('List Blobs with viewer\'s parser and with the SDK\'s, on Azurite', () => {
  let azurite: Azurite;
  let container: ContainerClient;
  let driver: StoreDriver;
  const keys = [...ODD_KEYS.map((k) => `odd/${k}`), ...Array.from({ length: 0x7f }, (_, i) => `byte/${(i + 1).toString(16).padStart(2, '0')}-${String.fromCharCode(i + 1)}`), ...NON_ASCII, ...LONG, ...Array.from({ length: 40 }, (_, i) => `plain/d${i % 4}/k${i}`)];

  before(async () => {
    azurite = await startAzurite({ encodedNames: true });
    container = BlobServiceClient.fromConnectionString(azurite.connectionString()).getContainerClient('differential');
    await container.create();
    for (const [i, k] of keys.entries()) await container.getBlockBlobClient(k).upload('x'.repeat(i % 5), i % 5);
    driver = await createAzureDriver({ container: 'differential', credentials: { mode: 'connection-string', value: azurite.connectionString() } });
  });
  after(() => azurite.stop());

  it('agree on every key, size and time, flat in pages of 5,000 and of 7', async () => {
    assert.equal(await compareAll(container, driver, '', 5000), keys.length);
    assert.equal(await compareAll(container, driver, '', 7), keys.length);
  });

  it('agree under each prefix and by delimiter, at every level', async () => {
    for (const prefix of ['odd/', 'byte/', 'utf8/', 'long/', 'plain/', 'plain/d1/']) {
      assert.ok((await compareAll(container, driver, prefix, 5000)) > 0, prefix);
      await compareAll(container, driver, prefix, 3, '/');
    }
    assert.ok((await compareAll(container, driver, '', 5000, '/')) >= 5);
  });

  it('reads names Azure percent-encodes (the comparison above can fail)', async () => {
    const page = await viewerPage(driver, 'byte/', 5000, undefined);
    assert.ok(page.objects.some(([k]) => k === 'byte/01-\x01'), 'a control character in a name comes back decoded');
    assert.ok(page.objects.some(([k]) => k === 'byte/26-&'));
  });
});

describe('List Blobs answers served by a local server', () => {
  let server: Server;
  let driver: StoreDriver;
  let container: ContainerClient;
  let body = '';

  before(async () => {
    server = createServer((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'application/xml', 'content-length': String(Buffer.byteLength(body)), 'x-ms-version': '2025-01-05', date: 'Thu, 26 Nov 2026 10:00:00 GMT' });
      res.end(body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}/devstoreaccount1`;
    const connection = `DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=${AZURITE_KEY};BlobEndpoint=${endpoint};`;
    driver = await createAzureDriver({ container: 'c', credentials: { mode: 'connection-string', value: connection } });
    container = BlobServiceClient.fromConnectionString(connection, { retryOptions: { maxTries: 1 } }).getContainerClient('c');
  });
  after(() => {
    driver.close();
    server.close();
    server.closeAllConnections();
  });

  const doc = (inner: string, root = '<EnumerationResults ServiceEndpoint="http://x/" ContainerName="c">') => `<?xml version="1.0" encoding="utf-8"?>${root}${inner}</EnumerationResults>`;
  const blob = (name: string, extra = '') => `<Blob><Name>${name}</Name><Properties><Last-Modified>Wed, 25 Nov 2026 08:09:10 GMT</Last-Modified><Content-Length>17</Content-Length><BlobType>BlockBlob</BlobType>${extra}</Properties></Blob>`;

  const WELL_FORMED: Record<string, string> = {
    plain: doc(`<Prefix>p/</Prefix><MaxResults>5000</MaxResults><Blobs>${blob('p/a')}${blob('p/b')}</Blobs><NextMarker>2!72!MDAwMDE4IXAvYg--</NextMarker>`),
    'last page, empty marker': doc(`<Blobs>${blob('p/a')}</Blobs><NextMarker />`),
    'no marker element': doc(`<Blobs>${blob('p/a')}</Blobs>`),
    'no blobs': doc('<Blobs /><NextMarker/>'),
    entities: doc(`<Blobs>${blob('p/a&amp;b&lt;c&gt;&quot;&apos;')}</Blobs><NextMarker>m&amp;n</NextMarker>`),
    cdata: doc(`<Blobs>${blob('<![CDATA[p/<raw>&]]>')}${blob('p/x<![CDATA[y]]>z')}</Blobs>`),
    comments: doc(`<!-- a --><Blobs><!-- b -->${blob('p/a<!-- inside -->b')}</Blobs><!-- c -->`),
    'encoded names': doc(`<Blobs><Blob><Name Encoded="true">p%2Fa%01b%EF%BF%BE</Name><Properties><Content-Length>3</Content-Length></Properties></Blob><Blob><Name Encoded="false">p/%41</Name><Properties><Content-Length>4</Content-Length></Properties></Blob></Blobs>`),
    'fields in another order': doc(`<Blobs><Blob><Properties><Content-Length>9</Content-Length><Last-Modified>Tue, 24 Nov 2026 00:00:00 GMT</Last-Modified></Properties><Name>p/late-name</Name></Blob></Blobs>`),
    'elements viewer does not read': doc(`<Blobs><Blob><Name>p/m</Name><Deleted>false</Deleted><Properties><Creation-Time>Mon, 23 Nov 2026 00:00:00 GMT</Creation-Time><Last-Modified>Wed, 25 Nov 2026 08:09:10 GMT</Last-Modified><Etag>0x8D</Etag><Content-Length>5</Content-Length></Properties><Metadata><k>v</k><nested><deep>1</deep></nested></Metadata><OrMetadata /><Tags><TagSet><Tag><Key>a</Key><Value>b</Value></Tag></TagSet></Tags></Blob></Blobs>`),
    'blob prefixes': doc(`<Delimiter>/</Delimiter><Blobs><BlobPrefix><Name>p/d1/</Name></BlobPrefix><BlobPrefix><Name Encoded="true">p/d%012/</Name></BlobPrefix>${blob('p/f')}</Blobs><NextMarker/>`),
    'whitespace and line ends between elements': doc(`\n  <Blobs>\n    ${blob('p/a')}\r\n  </Blobs>\n  <NextMarker></NextMarker>\n`),
    'spaces kept in names': doc(`<Blobs>${blob(' p/ leading and trailing ')}</Blobs>`),
    'root attributes in another order': doc(`<Blobs>${blob('p/a')}</Blobs>`, `<EnumerationResults ContainerName='c' ServiceEndpoint='http://x/'>`),
    'processing instruction after the root': `${doc(`<Blobs>${blob('p/a')}</Blobs>`)}<?pi x?>\n`,
  };

  for (const [name, answer] of Object.entries(WELL_FORMED)) {
    it(`agrees with the SDK: ${name}`, async () => {
      body = answer;
      const sdk = await sdkPage(container, 'p/', 5000, undefined, name === 'blob prefixes' ? '/' : undefined);
      const ours = await viewerPage(driver, 'p/', 5000, undefined, name === 'blob prefixes' ? '/' : undefined);
      assert.deepEqual(ours, sdk);
    });
  }

  const MALFORMED: Record<string, string> = {
    'cut in a blob': doc(`<Blobs>${blob('p/a')}${blob('p/b')}</Blobs>`).slice(0, 260),
    'cut before the root closes': doc(`<Blobs>${blob('p/a')}</Blobs>`).replace('</EnumerationResults>', ''),
    'cut in a tag': doc(`<Blobs>${blob('p/a')}</Blobs>`).slice(0, 120),
    'another root': '<?xml version="1.0"?><Error><Code>InternalError</Code></Error>',
    'an HTML page': '<html><body>Bad Gateway</body></html>',
    'mismatched tags': doc(`<Blobs><Blob><Name>p/a</Nam></Blob></Blobs>`),
    'a blob without a name': doc(`<Blobs><Blob><Properties><Content-Length>1</Content-Length></Properties></Blob></Blobs>`),
    'a prefix without a name': doc(`<Blobs><BlobPrefix></BlobPrefix></Blobs>`),
    'a DOCTYPE': `<?xml version="1.0"?><!DOCTYPE x [<!ENTITY e "p/a">]>${doc(`<Blobs>${blob('&e;')}</Blobs>`)}`,
    'an unknown entity': doc(`<Blobs>${blob('p/&nbsp;')}</Blobs>`),
    'a bare ampersand': doc(`<Blobs>${blob('p/a&b')}</Blobs>`),
    'a malformed encoding': doc(`<Blobs><Blob><Name Encoded="true">p/%E0%A4</Name></Blob></Blobs>`),
    'two names': doc(`<Blobs><Blob><Name>p/a</Name><Name>p/b</Name></Blob></Blobs>`),
    'an element in a name': doc(`<Blobs><Blob><Name>p/<b>a</b></Name></Blob></Blobs>`),
    'text outside the listing': `${doc(`<Blobs>${blob('p/a')}</Blobs>`)}trailing`,
    'an element after the listing': `${doc(`<Blobs>${blob('p/a')}</Blobs>`)}<More/>`,
    'an empty body': '',
  };

  for (const [name, answer] of Object.entries(MALFORMED)) {
    it(`refuses as incompatible_format, never a shorter page: ${name}`, async () => {
      body = answer;
      const e: unknown = await viewerPage(driver, 'p/', 5000, undefined).then(() => null, (x: unknown) => x);
      assert.ok(e instanceof StoreError, `not refused: ${String(e)}`);
      assert.equal(e.category, 'incompatible_format');
    });
  }

  it('decodes character references as XML says, where the SDK leaves them as written', async () => {
    body = doc(`<Blobs>${blob('p/&#x41;&#66;&#x1F600;')}</Blobs>`);
    // fast-xml-parser (processEntities, no htmlEntities) decodes only the five named entities.
    assert.deepEqual((await sdkPage(container, 'p/', 5000, undefined)).objects.map(([k]) => k), ['p/&#x41;&#66;&#x1F600;']);
    assert.deepEqual((await viewerPage(driver, 'p/', 5000, undefined)).objects.map(([k]) => k), ['p/AB\u{1F600}']);
  });

  it('a blob without properties has no size and no time (the SDK\'s mapping failed on it)', async () => {
    body = doc(`<Blobs><Blob><Name>p/bare</Name></Blob></Blobs>`);
    assert.deepEqual((await viewerPage(driver, 'p/', 5000, undefined)).objects, [['p/bare', Number.NaN, null]]);
  });

  it('reads sizes and times strictly where the SDK guesses', async () => {
    body = doc(`<Blobs><Blob><Name>p/a</Name><Properties><Content-Length>12abc</Content-Length><Last-Modified>2026-11-25T08:09:10Z</Last-Modified></Properties></Blob></Blobs>`);
    const sdk = await sdkPage(container, 'p/', 5000, undefined);
    const ours = await viewerPage(driver, 'p/', 5000, undefined);
    // The SDK: parseFloat('12abc') is 12, new Date() takes an ISO time. viewer: NaN (refused by
    // confinement) and unknown (no HTTP date), never a guess. Also proves the driver reads with viewer's parser.
    assert.deepEqual(sdk.objects, [['p/a', 12, Date.parse('2026-11-25T08:09:10Z')]]);
    assert.deepEqual(ours.objects, [['p/a', Number.NaN, null]]);
  });
});
