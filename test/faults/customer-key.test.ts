/**
 * Objects encrypted with a customer-provided key, read without it (issue 24, D-92), through each
 * real driver: the S3 driver against the real Swift store holding the repository Barman wrote,
 * the Azure driver against Azurite, the Cloud Storage driver against its emulator, each behind the
 * fault proxy. Swift's S3 API cannot store an SSE-C object (it takes an upload's SSE-C headers,
 * ignores them, and serves the object to a GetObject without the key), and the emulators are not
 * relied on for their providers' answer, so the proxy stands in for each provider's exact answer
 * (test/support/customer-key-answers.ts: AWS's 400 `InvalidRequest` with its message, Azure's
 * 409 `BlobUsesCustomerSpecifiedEncryption` on HEAD and GET, Cloud Storage's `customerEncryption`
 * metadata and 400 `resourceIsEncryptedWithCustomerEncryptionKey`); everything else is the real
 * store.
 *
 * What is proven: such a read is the outcome `key-required`, whole and streamed, asked once (no
 * retry), never an error; the object beside it reads as ever; the same answer to a listing keeps
 * failing as it did, with viewer's own message and none of the provider's text.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { BlobServiceClient } from '@azure/storage-blob';
import { Storage } from '@google-cloud/storage';
import { StoreError } from '../../src/common/errors.ts';
import type { StoreDriver } from '../../src/store/driver.ts';
import { createAzureDriver } from '../../src/store/azure/azure-driver.ts';
import { createGcsDriver } from '../../src/store/gcs/gcs-driver.ts';
import { createS3Driver } from '../../src/store/s3/s3-driver.ts';
import { AZURITE_ACCOUNT, AZURITE_KEY, startAzurite, type Azurite } from '../support/azurite.ts';
import { azureCustomerKeyAnswer, gcsCustomerEncryptedMetadata, gcsCustomerKeyAnswer, s3CustomerKeyAnswer } from '../support/customer-key-answers.ts';
import { azure, CANARY, gcs, s3, startFaultProxy, type FaultProxy, type RequestLine } from '../support/fault-proxy.ts';
import { startGcsEmulator, type GcsEmulator } from '../support/gcs-emulator.ts';
import { realRepositories, type RealRepositories } from '../support/real-repositories.ts';

const signal = () => new AbortController().signal;

/** The failure a call ends with, checked to carry viewer's text only. */
async function failure(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return 'none';
  } catch (e) {
    assert.ok(e instanceof StoreError, String(e));
    assert.ok(!e.message.includes(CANARY) && !/Server Side Encryption|customer|BlobUses|resourceIs/i.test(e.message), e.message);
    return e.category;
  }
}

/** A read whole and as a stream: both `key-required`. */
async function bothKeyRequired(driver: StoreDriver, key: string): Promise<void> {
  assert.deepEqual(await driver.read({ key, maxBytes: 1 << 20, signal: signal() }), { status: 'key-required' });
  assert.deepEqual(await driver.readStream({ key, maxBytes: 1 << 20, signal: signal() }), { status: 'key-required' });
}

describe('S3 SSE-C: the S3 driver against the real Swift store behind the fault proxy answering as AWS does', () => {
  let repos: RealRepositories;
  let proxy: FaultProxy;
  let driver: StoreDriver;
  let dir: string;
  let infos: string[];

  before(async () => {
    repos = realRepositories();
    proxy = await startFaultProxy(repos.endpoint);
    dir = mkdtempSync(join(tmpdir(), 'viewer-sse-c-'));
    writeFileSync(join(dir, 'id'), repos.accessKeyId);
    writeFileSync(join(dir, 'secret'), repos.secretAccessKey);
    driver = await createS3Driver({ bucket: repos.bucket, region: null, endpoint: proxy.url, credentials: { mode: 'static-files', accessKeyIdFile: join(dir, 'id'), secretAccessKeyFile: join(dir, 'secret'), sessionTokenFile: null } });
    infos = repos.objects('pg-main').filter((o) => o.key.endsWith('/backup.info')).map((o) => o.key);
    assert.ok(infos.length >= 2, 'pg-main holds two backup.info at least');
  });
  after(async () => {
    driver.close();
    await proxy.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("a GetObject answered 400 InvalidRequest with AWS's SSE-C message: key-required, asked once; the object beside it reads as ever", async () => {
    const [sealed = '', other = ''] = infos;
    const rule = proxy.inject(s3.getEnding(sealed), s3CustomerKeyAnswer(), { name: 'sse-c' });
    try {
      proxy.clearLog();
      await bothKeyRequired(driver, sealed);
      // Two reads, one attempt each: a 400 is not retried by the SDK.
      assert.equal(rule.hits, 2);
      assert.deepEqual(proxy.log.filter((r) => r.fault === 'sse-c').map((r) => r.attempt?.n), [1, 1]);
      const beside = await driver.read({ key: other, maxBytes: 1 << 20, signal: signal() });
      assert.equal(beside.status, 'found');
      if (beside.status === 'found') assert.match(Buffer.from(beside.bytes).toString('utf8'), /^status=[A-Z_]+$/m);
    } finally {
      rule.lift();
    }
    // Without the proxy's answer the same object is the store's again.
    assert.equal((await driver.read({ key: sealed, maxBytes: 1 << 20, signal: signal() })).status, 'found');
  });

  it('the same 400 InvalidRequest on a listing fails as it always did: invalid_configuration, nothing of the provider', async () => {
    const rule = proxy.inject(s3.list, s3CustomerKeyAnswer(), { name: 'list' });
    try {
      assert.equal(await failure(driver.listPage({ prefix: `${repos.prefix}/pg-main/base/`, signal: signal() })), 'invalid_configuration');
      assert.ok(rule.hits >= 1);
    } finally {
      rule.lift();
    }
  });

  it('another InvalidRequest on a GetObject stays a failure (only the SSE-C answer is key-required)', async () => {
    const [sealed = ''] = infos;
    const other = s3CustomerKeyAnswer();
    const fault = other.kind === 'respond' ? { ...other, body: other.body.replace(/<Message>[^<]*<\/Message>/, '<Message>The authorization mechanism you have provided is not supported. Please use AWS4-HMAC-SHA256.</Message>') } : other;
    const rule = proxy.inject(s3.getEnding(sealed), fault);
    try {
      assert.equal(await failure(driver.read({ key: sealed, maxBytes: 1 << 20, signal: signal() })), 'invalid_configuration');
    } finally {
      rule.lift();
    }
  });
});

describe('Azure customer-provided keys: the Azure driver against Azurite behind the fault proxy', () => {
  let azurite: Azurite;
  let proxy: FaultProxy;
  let driver: StoreDriver;
  const sealed = 'cpk/pg-main/base/20261121T132821/backup.info';
  const other = 'cpk/pg-main/base/20261121T132829/backup.info';
  const blob = (name: string) => (r: RequestLine) => decodeURIComponent(r.path).endsWith(`/barman/${name}`);

  before(async () => {
    azurite = await startAzurite();
    const container = BlobServiceClient.fromConnectionString(azurite.connectionString()).getContainerClient('barman');
    await container.create();
    for (const name of [sealed, other]) await container.getBlockBlobClient(name).upload('status=DONE\n', 12);
    proxy = await startFaultProxy(new URL(azurite.blobEndpoint).origin);
    const endpoint = `${proxy.url}/${AZURITE_ACCOUNT}`;
    driver = await createAzureDriver({ container: 'barman', credentials: { mode: 'connection-string', value: `DefaultEndpointsProtocol=http;AccountName=${AZURITE_ACCOUNT};AccountKey=${AZURITE_KEY};BlobEndpoint=${endpoint};` } });
  });
  after(async () => {
    driver.close();
    await proxy.close();
    azurite.stop();
  });

  it('409 BlobUsesCustomerSpecifiedEncryption on Get Blob Properties (a HEAD without body) and Get Blob: key-required, asked once', async () => {
    const head = proxy.inject((r) => r.method === 'HEAD' && azure.read(r) && blob(sealed)(r), azureCustomerKeyAnswer('HEAD'), { name: 'cpk-head' });
    const get = proxy.inject((r) => r.method === 'GET' && azure.read(r) && blob(sealed)(r), azureCustomerKeyAnswer('GET'), { name: 'cpk-get' });
    try {
      await bothKeyRequired(driver, sealed);
      // The properties are refused first: the blob's bytes are never asked for, and nothing is retried.
      assert.deepEqual([head.hits, get.hits], [2, 0]);
      assert.equal((await driver.read({ key: other, maxBytes: 1 << 20, signal: signal() })).status, 'found');
    } finally {
      head.lift();
      get.lift();
    }
  });

  it('Get Blob alone refused (its properties given): key-required', async () => {
    const get = proxy.inject((r) => r.method === 'GET' && azure.read(r) && blob(sealed)(r), azureCustomerKeyAnswer('GET'), { name: 'cpk-get' });
    try {
      await bothKeyRequired(driver, sealed);
      assert.equal(get.hits, 2);
    } finally {
      get.lift();
    }
    assert.equal((await driver.read({ key: sealed, maxBytes: 1 << 20, signal: signal() })).status, 'found');
  });

  it('the same 409 on a listing fails as it always did (unavailable), nothing of the provider', async () => {
    const rule = proxy.inject(azure.list, azureCustomerKeyAnswer('GET'));
    try {
      assert.equal(await failure(driver.listPage({ prefix: 'cpk/pg-main/', signal: signal() })), 'unavailable');
      assert.ok(rule.hits >= 1);
    } finally {
      rule.lift();
    }
  });
});

describe('Cloud Storage customer-supplied keys: the GCS driver against the emulator behind the fault proxy', () => {
  let emulator: GcsEmulator;
  let proxy: FaultProxy;
  let driver: StoreDriver;
  const sealed = 'csek/pg-main/base/20261121T132821/backup.info';
  const other = 'csek/pg-main/base/20261121T132829/backup.info';
  const object = (name: string) => (r: RequestLine) => decodeURIComponent(r.path).endsWith(`/${name}`);
  const media = (r: RequestLine) => gcs.read(r) && (r.path.startsWith('/download/') || r.query.get('alt') === 'media');
  const metadata = (r: RequestLine) => gcs.read(r) && !media(r);

  before(async () => {
    emulator = await startGcsEmulator();
    const bucket = new Storage({ apiEndpoint: emulator.endpoint, projectId: 'viewer' }).bucket('barman');
    for (const name of [sealed, other]) await bucket.file(name).save(Buffer.from('status=DONE\n'), { resumable: false });
    proxy = await startFaultProxy(emulator.endpoint);
    driver = await createGcsDriver({ bucket: 'barman', endpoint: proxy.url, credentials: { mode: 'ambient' } });
  });
  after(async () => {
    driver.close();
    await proxy.close();
    emulator.stop();
  });

  it("the object's metadata says customerEncryption (as Cloud Storage gives it without the key): key-required, its bytes never asked for", async () => {
    const rule = proxy.inject((r) => metadata(r) && object(sealed)(r), { kind: 'rewrite-body', rewrite: gcsCustomerEncryptedMetadata }, { name: 'csek-metadata' });
    try {
      proxy.clearLog();
      await bothKeyRequired(driver, sealed);
      assert.equal(rule.hits, 2);
      assert.equal(proxy.count((r) => media(r)), 0);
      assert.equal((await driver.read({ key: other, maxBytes: 1 << 20, signal: signal() })).status, 'found');
    } finally {
      rule.lift();
    }
  });

  it('the download refused with 400 resourceIsEncryptedWithCustomerEncryptionKey: key-required, not a failure in the middle of the body', async () => {
    const rule = proxy.inject((r) => media(r) && object(sealed)(r), gcsCustomerKeyAnswer(), { name: 'csek-media' });
    try {
      await bothKeyRequired(driver, sealed);
      assert.equal(rule.hits, 2);
    } finally {
      rule.lift();
    }
    assert.equal((await driver.read({ key: sealed, maxBytes: 1 << 20, signal: signal() })).status, 'found');
  });

  it('the metadata request refused the same way: key-required', async () => {
    const rule = proxy.inject((r) => gcs.read(r) && object(sealed)(r), gcsCustomerKeyAnswer(), { name: 'csek-all' });
    try {
      await bothKeyRequired(driver, sealed);
      assert.ok(rule.hits >= 2);
    } finally {
      rule.lift();
    }
  });

  it('the same 400 on a listing fails as it always did (invalid_configuration), nothing of the provider', async () => {
    const rule = proxy.inject(gcs.list, gcsCustomerKeyAnswer());
    try {
      assert.equal(await failure(driver.listPage({ prefix: 'csek/pg-main/', signal: signal() })), 'invalid_configuration');
      assert.ok(rule.hits >= 1);
    } finally {
      rule.lift();
    }
  });
});
