/**
 * The same pgBackRest repository on S3, Azure and GCS gives the same evidence: stanza `main` of the
 * real repository pgBackRest 2.45 wrote (test/support/pgbackrest-repositories.ts), its posix tree
 * copied object for object under one fresh prefix into the Swift S3 store (store-a), Azurite
 * (store-b) and the Cloud Storage emulator (store-c) in the same minute, so that every copy's
 * receipts are equally old (a gap's status depends on its successor's age on the store's clock:
 * the harness's own copy may be hours older than the other two), each scanned by the real executable
 * with REPOSITORY_FORMAT=stanza-repository. Only what differs by construction is set aside: the
 * revision, the identity's provider and destination fingerprint (the destinations differ), the
 * scan's start, end and attempt times, and every store-clock fact (receipt times: each upload
 * stamps its own; the store's clock at the scan, the archive lag). Everything else — backups with
 * their types, WAL and stored bytes, ranges, gaps and their classes, recovery paths, inventory,
 * the stanza-repository payload, capabilities and states — must be identical.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { BlobServiceClient } from '@azure/storage-blob';
import { Storage } from '@google-cloud/storage';
import { DeleteObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { startAzurite, type Azurite } from '../support/azurite.ts';
import { startGcsEmulator, type GcsEmulator } from '../support/gcs-emulator.ts';
import { pgbackrestRepository, type PgBackRestRepository } from '../support/pgbackrest-repositories.ts';
import { runViewer, type ScanDocument } from '../support/run-viewer.ts';
import { comparable, pool } from '../support/provider-comparison.ts';

/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-return --
   the scan documents are read loosely, as test/scan/pgbackrest-real.test.ts reads them. */


describe('one pgBackRest repository on S3, Azure and GCS gives one evidence', () => {
  let repo: PgBackRestRepository;
  let azurite: Azurite;
  let gcs: GcsEmulator;
  let dir: string;
  let s3: S3Client;
  let uploaded: string[] = [];
  const prefix = `pgbackrest-cross-${process.pid}`;

  before(async () => {
    repo = pgbackrestRepository();
    [azurite, gcs] = await Promise.all([startAzurite(), startGcsEmulator()]);
    dir = mkdtempSync(join(tmpdir(), 'viewer-pgbackrest-cross-'));
    writeFileSync(join(dir, 'id'), repo.accessKeyId);
    writeFileSync(join(dir, 'secret'), repo.secretAccessKey);
    writeFileSync(join(dir, 'conn'), azurite.connectionString());
    const container = BlobServiceClient.fromConnectionString(azurite.connectionString()).getContainerClient('pgbackrest');
    await container.create();
    const bucket = new Storage({ apiEndpoint: gcs.endpoint, projectId: 'viewer' }).bucket('pgbackrest');
    s3 = new S3Client({ endpoint: repo.endpoint, region: 'us-east-1', forcePathStyle: true, credentials: { accessKeyId: repo.accessKeyId, secretAccessKey: repo.secretAccessKey }, requestChecksumCalculation: 'WHEN_REQUIRED' });
    await bucket.create().catch(() => undefined);
    // Stanza main's two areas (about a thousand objects): the other stanza is not scanned here.
    const stanza = repo.main.stanza;
    const files = repo.files().filter((f) => f.key.startsWith(`archive/${stanza}/`) || f.key.startsWith(`backup/${stanza}/`));
    uploaded = files.map((f) => `${prefix}/${f.key}`);
    await pool(files, 16, async (f) => {
      const body = repo.bytes(f.key);
      const key = `${prefix}/${f.key}`;
      await Promise.all([
        s3.send(new PutObjectCommand({ Bucket: repo.bucket, Key: key, Body: body })),
        container.getBlockBlobClient(key).upload(body, body.length),
        bucket.file(key).save(body, { resumable: false }),
      ]);
    });
  });
  after(async () => {
    await pool(uploaded, 16, async (Key) => {
      await s3.send(new DeleteObjectCommand({ Bucket: repo.bucket, Key }));
    });
    s3.destroy();
    azurite.stop();
    gcs.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("gives the S3 scan's backups, WAL ranges, gaps, paths, inventory, payload and states on Azure and GCS", async () => {
    const base = { REPOSITORY_FORMAT: 'stanza-repository', ARCHIVE_SERVER_NAMES: repo.main.stanza };
    const runs = await Promise.all([
      runViewer(['scan'], { ...base, DESTINATION_PATH: `s3://${repo.bucket}/${prefix}`, STORE_ENDPOINT_URL: repo.endpoint, STORE_ACCESS_KEY_ID_FILE: join(dir, 'id'), STORE_SECRET_ACCESS_KEY_FILE: join(dir, 'secret') }),
      runViewer(['scan'], { ...base, PROVIDER: 'store-b', DESTINATION_PATH: `${azurite.blobEndpoint}/pgbackrest/${prefix}`, STORE_CONNECTION_STRING_FILE: join(dir, 'conn') }),
      runViewer(['scan'], { ...base, DESTINATION_PATH: `gs://pgbackrest/${prefix}`, STORE_ENDPOINT_URL: gcs.endpoint }),
    ]);
    for (const r of runs) assert.equal(r.status, 0, r.stderr);
    const docs = runs.map((r) => JSON.parse(r.stdout) as ScanDocument);
    const [s3, azure, google] = docs as [ScanDocument, ScanDocument, ScanDocument];
    assert.deepEqual(docs.map((d) => d.snapshot['identity']['repository']['provider']), ['store-a', 'store-b', 'store-c']);
    // The copies hold exactly the stanza's objects the S3 store holds.
    for (const d of docs) assert.equal(d.snapshot['inventory']['object_count'], uploaded.length);
    // Not vacuous: the S3 scan is the evidence pgBackRest's own info describes.
    const info = repo.info(repo.main.stanza);
    assert.deepEqual(s3.backups.filter((b) => b['status'] === 'DONE').map((b) => [b['backup_id'], b['backup_type']]), info.backup.map((b) => [b.label, b.type]));
    assert.deepEqual(s3.wal_gaps.map((g) => g['first_wal']), [repo.deletedWal]);
    const a = comparable(s3);
    assert.deepEqual(comparable(azure), a);
    assert.deepEqual(comparable(google), a);
    // Receipt times are each store's own clock, so they differ; the backups' own times are pgBackRest's and do not.
    assert.deepEqual(azure.backups.map((b) => [b['begin_at'], b['end_at']]), s3.backups.map((b) => [b['begin_at'], b['end_at']]));
  });
});
