/**
 * The same repository content gives the same evidence on all three providers: the embedded demo
 * repository, copied key for key into OpenStack Swift (store-a), Azurite (store-b) and the Cloud
 * Storage emulator (store-c), scanned by the real executable. Only the provider constant and the
 * destination fingerprint may differ.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { BlobServiceClient } from '@azure/storage-blob';
import { Storage } from '@google-cloud/storage';
import { DEMO_PREFIX, DEMO_SERVER } from '../../src/format/barman-cloud/demo-repository.ts';
import { demoObjects } from '../support/demo-objects.ts';
import { startAzurite, type Azurite } from '../support/azurite.ts';
import { startGcsEmulator, type GcsEmulator } from '../support/gcs-emulator.ts';
import { realRepositories } from '../support/real-repositories.ts';
import { runViewer } from '../support/run-viewer.ts';

describe('one repository, three providers, one evidence', () => {
  let azurite: Azurite;
  let gcs: GcsEmulator;
  let dir: string;
  const prefix = `cross-${process.pid}/${DEMO_PREFIX}`;

  before(async () => {
    const repos = realRepositories();
    [azurite, gcs] = await Promise.all([startAzurite(), startGcsEmulator()]);
    dir = mkdtempSync(join(tmpdir(), 'viewer-cross-'));
    const objects = await demoObjects();
    const s3 = new S3Client({ endpoint: repos.endpoint, forcePathStyle: true, region: 'us-east-1', credentials: { accessKeyId: repos.accessKeyId, secretAccessKey: repos.secretAccessKey }, requestChecksumCalculation: 'WHEN_REQUIRED' });
    const blob = BlobServiceClient.fromConnectionString(azurite.connectionString()).getContainerClient('barman');
    await blob.create();
    const bucket = new Storage({ apiEndpoint: gcs.endpoint, projectId: 'viewer' }).bucket('barman');
    for (const o of objects) {
      const key = `cross-${process.pid}/${o.key}`;
      await s3.send(new PutObjectCommand({ Bucket: 'viewer-test', Key: key, Body: o.body }));
      await blob.getBlockBlobClient(key).upload(o.body, o.body.length);
      await bucket.file(key).save(Buffer.from(o.body), { resumable: false });
    }
    s3.destroy();
    writeFileSync(join(dir, 'id'), repos.accessKeyId);
    writeFileSync(join(dir, 'secret'), repos.secretAccessKey);
    writeFileSync(join(dir, 'conn'), azurite.connectionString());
  });
  after(() => {
    azurite.stop();
    gcs.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('gives identical backups, WAL ranges, gaps, recovery paths and states', async () => {
    const repos = realRepositories();
    const runs = await Promise.all([
      runViewer(['scan'], { DESTINATION_PATH: `s3://viewer-test/${prefix}`, ARCHIVE_SERVER_NAMES: DEMO_SERVER, STORE_ENDPOINT_URL: repos.endpoint, STORE_ACCESS_KEY_ID_FILE: join(dir, 'id'), STORE_SECRET_ACCESS_KEY_FILE: join(dir, 'secret') }),
      runViewer(['scan'], { PROVIDER: 'store-b', DESTINATION_PATH: `${azurite.blobEndpoint}/barman/${prefix}`, ARCHIVE_SERVER_NAMES: DEMO_SERVER, STORE_CONNECTION_STRING_FILE: join(dir, 'conn') }),
      runViewer(['scan'], { DESTINATION_PATH: `gs://barman/${prefix}`, ARCHIVE_SERVER_NAMES: DEMO_SERVER, STORE_ENDPOINT_URL: gcs.endpoint }),
    ]);
    for (const r of runs) assert.equal(r.status, 0, r.stderr);
    const docs = runs.map((r) => JSON.parse(r.stdout) as Record<string, unknown> & { snapshot: Record<string, unknown> });
    assert.deepEqual(docs.map((d) => (d.snapshot['identity'] as { repository: { provider: string } }).repository.provider), ['store-a', 'store-b', 'store-c']);
    // Receipt times are each store's own clock; everything else must match exactly.
    const comparable = (d: Record<string, unknown>) =>
      JSON.parse(JSON.stringify(d, (k, v: unknown) => (/_at$|receipt/.test(k) || k === 'identity' || k === 'revision' ? undefined : v))) as unknown;
    const [a, b, c] = docs.map((d) => comparable({ backups: d['backups'], wal_ranges: d['wal_ranges'], wal_gaps: d['wal_gaps'], recovery_paths: d['recovery_paths'], inventory: d.snapshot['inventory'], details: d.snapshot['details'], state: d.snapshot['state'] }));
    assert.deepEqual(b, a);
    assert.deepEqual(c, a);
  });
});
