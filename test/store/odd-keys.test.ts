/**
 * Keys with control characters and the characters encodings treat specially, on each real store:
 * S3 on OpenStack Swift (listed with `EncodingType=url`: raw, Swift cannot even write such a key
 * into its XML and answers 500), Azure on Azurite (made to answer as Azure does for names XML
 * cannot carry: `Encoded="true"`, see test/support/azurite-encoded-names.ts) and GCS on the
 * Cloud Storage emulator (JSON carries every key). One key must never fail a listing.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe } from 'node:test';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { BlobServiceClient } from '@azure/storage-blob';
import { Storage } from '@google-cloud/storage';
import type { StoreDriver } from '../../src/store/driver.ts';
import { createAzureDriver } from '../../src/store/azure/azure-driver.ts';
import { createGcsDriver } from '../../src/store/gcs/gcs-driver.ts';
import { createS3Driver } from '../../src/store/s3/s3-driver.ts';
import { startAzurite, type Azurite } from '../support/azurite.ts';
import { startGcsEmulator, type GcsEmulator } from '../support/gcs-emulator.ts';
import { realRepositories } from '../support/real-repositories.ts';
import { ODD_KEYS, oddKeySuite } from './odd-keys.ts';

describe('odd keys on S3 (OpenStack Swift)', () => {
  let driver: StoreDriver;
  let dir: string;
  const prefix = `odd-keys-${process.pid}/`;

  before(async () => {
    const repos = realRepositories();
    dir = mkdtempSync(join(tmpdir(), 'viewer-odd-s3-'));
    const writer = new S3Client({ endpoint: repos.endpoint, forcePathStyle: true, region: 'us-east-1', credentials: { accessKeyId: repos.accessKeyId, secretAccessKey: repos.secretAccessKey }, requestChecksumCalculation: 'WHEN_REQUIRED' });
    for (const k of ODD_KEYS) await writer.send(new PutObjectCommand({ Bucket: 'viewer-test', Key: prefix + k, Body: prefix + k }));
    writer.destroy();
    writeFileSync(join(dir, 'id'), repos.accessKeyId);
    writeFileSync(join(dir, 'secret'), repos.secretAccessKey);
    driver = await createS3Driver({ bucket: 'viewer-test', region: null, endpoint: repos.endpoint, credentials: { mode: 'static-files', accessKeyIdFile: join(dir, 'id'), secretAccessKeyFile: join(dir, 'secret'), sessionTokenFile: null } });
  });
  after(() => {
    driver.close();
    rmSync(dir, { recursive: true, force: true });
  });

  oddKeySuite('s3', () => Promise.resolve({ driver, prefix }));
});

describe('odd keys on Azure (Azurite answering as Azure)', () => {
  let azurite: Azurite;
  let driver: StoreDriver;
  const prefix = 'odd/';

  before(async () => {
    azurite = await startAzurite({ encodedNames: true });
    const container = BlobServiceClient.fromConnectionString(azurite.connectionString()).getContainerClient('odd-keys');
    await container.create();
    for (const k of ODD_KEYS) await container.getBlockBlobClient(prefix + k).upload(prefix + k, Buffer.byteLength(prefix + k));
    driver = await createAzureDriver({ container: 'odd-keys', credentials: { mode: 'connection-string', value: azurite.connectionString() } });
  });
  after(() => azurite.stop());

  oddKeySuite('azure', () => Promise.resolve({ driver, prefix }));
});

describe('odd keys on GCS (Cloud Storage emulator)', () => {
  let emulator: GcsEmulator;
  let driver: StoreDriver;
  const prefix = 'odd/';

  before(async () => {
    emulator = await startGcsEmulator();
    const bucket = new Storage({ apiEndpoint: emulator.endpoint, projectId: 'viewer' }).bucket('odd-keys');
    for (const k of ODD_KEYS) await bucket.file(prefix + k).save(prefix + k, { resumable: false });
    driver = await createGcsDriver({ bucket: 'odd-keys', endpoint: emulator.endpoint, credentials: { mode: 'ambient' } });
  });
  after(() => emulator.stop());

  oddKeySuite('gcs', () => Promise.resolve({ driver, prefix }));
});
