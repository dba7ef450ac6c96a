/**
 * The GCS driver's listing against a local HTTP server standing in for the JSON API: a 200 that is
 * not an `objects.list` answer is `incompatible_format`, never an empty listing, and a listing the
 * store never answers ends as soon as its signal aborts (`canceled` on shutdown, `timeout` at a
 * deadline), although the SDK takes no signal. (The same faults against the emulator: test/faults/.)
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { StoreError } from '../../common/errors.ts';
import type { StoreDriver } from '../driver.ts';
import { createGcsDriver } from './gcs-driver.ts';

describe('GCS listing answers', () => {
  let server: Server;
  let driver: StoreDriver;
  let answer: string | null = null;
  let requests = 0;

  before(async () => {
    server = createServer((req, res) => {
      requests += 1;
      req.resume();
      if (answer === null) return; // never answers
      res.writeHead(200, { 'content-type': 'application/json; charset=UTF-8', 'content-length': String(Buffer.byteLength(answer)) });
      res.end(answer);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    driver = await createGcsDriver({ bucket: 'b', endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, credentials: { mode: 'ambient' } });
  });
  after(() => {
    driver.close();
    server.close();
    server.closeAllConnections();
  });

  const category = async (signal: AbortSignal = new AbortController().signal) => {
    const e: unknown = await driver.listPage({ prefix: 'p/', signal }).then(() => null, (x: unknown) => x);
    assert.ok(e instanceof StoreError, 'the listing was not refused');
    return e.category;
  };

  it('an objects.list answer is read, an empty one too', async () => {
    answer = JSON.stringify({ kind: 'storage#objects', items: [{ name: 'p/a', size: '3', updated: '2026-01-01T00:00:00Z' }], nextPageToken: 't' });
    const page = await driver.listPage({ prefix: 'p/', signal: new AbortController().signal });
    assert.deepEqual([page.objects.map((o) => o.key), page.nextToken], [['p/a'], 't']);
    answer = JSON.stringify({ kind: 'storage#objects' });
    assert.deepEqual((await driver.listPage({ prefix: 'p/', signal: new AbortController().signal })).objects, []);
  });

  it('a 200 that is some other JSON document is incompatible_format, never an empty listing', async () => {
    answer = JSON.stringify({ kind: 'storage#buckets' });
    assert.equal(await category(), 'incompatible_format');
    answer = '[]';
    assert.equal(await category(), 'incompatible_format');
  });

  it('a listing the store never answers ends when its signal aborts: canceled, or timeout at a deadline', async () => {
    answer = null;
    const before = requests;
    const shutdown = new AbortController();
    const pending = category(shutdown.signal);
    while (requests === before) await new Promise((r) => setTimeout(r, 10));
    shutdown.abort();
    assert.equal(await pending, 'canceled');
    assert.equal(await category(AbortSignal.timeout(200)), 'timeout');
  });
});
