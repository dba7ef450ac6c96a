/**
 * The repositories today's tools wrote (test/support/current-repositories.ts: Barman 3.20 server
 * `pg18` under s3://barman/current-barman and pgBackRest 2.60 stanza `main` under
 * s3://barman/current-pgbackrest, both with PostgreSQL 18, in the Swift S3 store) give the same
 * evidence on S3, Azure and GCS. Neither has a posix tree: each object is listed and read from the
 * S3 store with the AWS SDK and put, byte for byte, under one fresh prefix into the same S3 store
 * (store-a), Azurite (store-b) and the Cloud Storage emulator (store-c) in the same minutes, so that
 * every copy's receipts are equally old (a gap's status depends on its successor's age on the
 * store's clock, and the tools wrote the originals up to hours before); then the real executable
 * scans all three copies. As in
 * test/scan/pgbackrest-providers.test.ts, only what differs by construction is set aside: the
 * revision, the identity's provider and destination fingerprint, the scan's own times and every
 * store-clock fact (receipt times and first observations: each upload stamps its own; the store's
 * clock at the scan, the archive lag). The S3 scan is anchored to what the tools themselves said
 * (test/scan/current-tools.test.ts checks it in full), so the comparison is not vacuous.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { DeleteObjectCommand, GetObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { BlobServiceClient, type ContainerClient } from '@azure/storage-blob';
import { Storage, type Bucket } from '@google-cloud/storage';
import { wireViolations } from '../../src/contract/validate.ts';
import { startAzurite, type Azurite } from '../support/azurite.ts';
import { currentRepositories, type CurrentRepositories, type ListedObject } from '../support/current-repositories.ts';
import { startGcsEmulator, type GcsEmulator } from '../support/gcs-emulator.ts';
import { runViewer, type ScanDocument } from '../support/run-viewer.ts';
import { comparable, pool } from '../support/provider-comparison.ts';

/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-return --
   the scan documents are checked against the wire schemas, then read loosely. */


/** Every key and size under `prefix` in the S3 store, in key order. */
async function listS3(s3: S3Client, bucket: string, prefix: string): Promise<{ key: string; size: number }[]> {
  const out: { key: string; size: number }[] = [];
  for (let token: string | undefined; ; ) {
    const page = await s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token }));
    for (const o of page.Contents ?? []) if (o.Key !== undefined) out.push({ key: o.Key, size: o.Size ?? -1 });
    token = page.NextContinuationToken;
    if (token === undefined) return out;
  }
}

const sizes = (objects: readonly { key: string; size: number }[]): [string, number][] => objects.map((o) => [o.key, o.size]);
const total = (objects: readonly { size: number }[]): number => objects.reduce((n, o) => n + o.size, 0);

describe("today's tools' repositories (Barman 3.20, pgBackRest 2.60) on S3, Azure and GCS give one evidence", () => {
  let repos: CurrentRepositories;
  let azurite: Azurite;
  let gcs: GcsEmulator;
  let s3: S3Client;
  let container: ContainerClient;
  let bucket: Bucket;
  let dir: string;
  /** The copies' container (Azure) and bucket (GCS), and the prefix the store's keys go under there. */
  const target = 'current';
  const copyPrefix = `current-providers-${process.pid}`;
  /** What was copied, per format: the S3 store's keys and sizes. */
  const copied = new Map<'barman' | 'pgbackrest', { key: string; size: number }[]>();
  /** The S3 copies (bucket and key), removed after. */
  const s3Copies: { bucket: string; key: string }[] = [];

  before(async () => {
    repos = currentRepositories();
    [azurite, gcs] = await Promise.all([startAzurite(), startGcsEmulator()]);
    dir = mkdtempSync(join(tmpdir(), 'viewer-current-providers-'));
    writeFileSync(join(dir, 'id'), repos.accessKeyId);
    writeFileSync(join(dir, 'secret'), repos.secretAccessKey);
    writeFileSync(join(dir, 'conn'), azurite.connectionString());
    s3 = new S3Client({
      endpoint: repos.endpoint,
      forcePathStyle: true,
      region: 'us-east-1',
      credentials: { accessKeyId: repos.accessKeyId, secretAccessKey: repos.secretAccessKey },
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
    container = BlobServiceClient.fromConnectionString(azurite.connectionString()).getContainerClient(target);
    await container.create();
    bucket = new Storage({ apiEndpoint: gcs.endpoint, projectId: 'viewer' }).bucket(target);
    await bucket.create().catch(() => undefined);

    // Barman: everything under the destination (server pg18 only). pgBackRest: stanza main's two
    // areas (the encrypted stanza is not scanned here).
    const stanza = repos.pgbackrest.main.stanza;
    const barman = await listS3(s3, repos.barman.bucket, `${repos.barman.prefix}/`);
    const pgbackrest = [
      ...(await listS3(s3, repos.pgbackrest.bucket, `${repos.pgbackrest.prefix}/archive/${stanza}/`)),
      ...(await listS3(s3, repos.pgbackrest.bucket, `${repos.pgbackrest.prefix}/backup/${stanza}/`)),
    ];
    copied.set('barman', barman);
    copied.set('pgbackrest', pgbackrest);
    const all = [...barman.map((o) => ({ ...o, from: repos.barman.bucket })), ...pgbackrest.map((o) => ({ ...o, from: repos.pgbackrest.bucket }))];
    await pool(all, 8, async (o) => {
      const r = await s3.send(new GetObjectCommand({ Bucket: o.from, Key: o.key }));
      const body = Buffer.from(await (r.Body as { transformToByteArray(): Promise<Uint8Array> }).transformToByteArray());
      assert.equal(body.length, o.size, o.key);
      const key = `${copyPrefix}/${o.key}`;
      s3Copies.push({ bucket: o.from, key });
      await Promise.all([
        s3.send(new PutObjectCommand({ Bucket: o.from, Key: key, Body: body })),
        container.getBlockBlobClient(key).upload(body, body.length),
        bucket.file(key).save(body, { resumable: false }),
      ]);
    });
  });
  after(async () => {
    await pool(s3Copies, 8, (c) => s3.send(new DeleteObjectCommand({ Bucket: c.bucket, Key: c.key })));
    s3?.destroy();
    azurite?.stop();
    gcs?.stop();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  /** `viewer scan` of one repository path on all three providers, side by side: S3, Azure, GCS. */
  async function scanAll(bucketName: string, path: string, env: Record<string, string>): Promise<[ScanDocument, ScanDocument, ScanDocument]> {
    const runs = await Promise.all([
      runViewer(['scan'], { ...env, DESTINATION_PATH: `s3://${bucketName}/${copyPrefix}/${path}`, STORE_ENDPOINT_URL: repos.endpoint, STORE_ACCESS_KEY_ID_FILE: join(dir, 'id'), STORE_SECRET_ACCESS_KEY_FILE: join(dir, 'secret') }),
      runViewer(['scan'], { ...env, PROVIDER: 'store-b', DESTINATION_PATH: `${azurite.blobEndpoint}/${target}/${copyPrefix}/${path}`, STORE_CONNECTION_STRING_FILE: join(dir, 'conn') }),
      runViewer(['scan'], { ...env, DESTINATION_PATH: `gs://${target}/${copyPrefix}/${path}`, STORE_ENDPOINT_URL: gcs.endpoint }),
    ]);
    for (const r of runs) assert.equal(r.status, 0, r.stderr);
    const docs = runs.map((r) => JSON.parse(r.stdout) as ScanDocument);
    for (const d of docs) assert.deepEqual(wireViolations('RepositoryEvidenceSnapshot', d.snapshot), []);
    assert.deepEqual(docs.map((d) => d.snapshot['identity']['repository']['provider']), ['store-a', 'store-b', 'store-c']);
    return docs as [ScanDocument, ScanDocument, ScanDocument];
  }

  /** The copies hold exactly what was copied, and each scan counts exactly that. */
  function assertInventory(docs: readonly ScanDocument[], objects: readonly { key: string; size: number }[]): void {
    for (const d of docs) assert.deepEqual([d.snapshot['inventory']['object_count'], d.snapshot['inventory']['stored_bytes']], [objects.length, total(objects)]);
  }

  /** Azure and GCS equal S3 but for store clocks and scan times; the backups' own times (the tools') match too. */
  function assertSameEvidence([s3doc, azure, google]: readonly [ScanDocument, ScanDocument, ScanDocument]): void {
    const a = comparable(s3doc);
    assert.deepEqual(comparable(azure), a);
    assert.deepEqual(comparable(google), a);
    for (const d of [azure, google]) assert.deepEqual(d.backups.map((b) => [b['begin_at'], b['end_at']]), s3doc.backups.map((b) => [b['begin_at'], b['end_at']]));
  }

  it("Barman 3.20 server pg18: Barman's backups and the deleted segment on S3, and the same evidence on Azure and GCS", async () => {
    const barman = repos.barman;
    const objects = copied.get('barman') ?? [];
    // What was copied is what the build recorded the store holding (the deleted segment absent).
    assert.deepEqual(sizes(objects), sizes(barman.objects()));
    assert.ok(objects.length > 0 && !objects.some((o) => o.key === barman.deletedKey));
    const docs = await scanAll(barman.bucket, barman.prefix, { ARCHIVE_SERVER_NAMES: barman.server });
    assertInventory(docs, objects);
    const [s3doc] = docs;
    // Not vacuous: the S3 scan is the evidence barman-cloud-backup-list describes.
    const list = barman.backupList();
    assert.deepEqual(list.map((b) => b.backup_id), barman.ids);
    assert.deepEqual(s3doc.backups.map((b) => [b['backup_id'], b['status'], b['begin_wal'], b['end_wal']]), list.map((b) => [b.backup_id, b.status, b.begin_wal, b.end_wal]));
    assert.deepEqual(s3doc.wal_gaps.map((g) => [g['timeline'], g['first_wal'], g['last_wal'], g['segment_count']]), [[1, barman.deletedWal, barman.deletedWal, 1]]);
    assert.deepEqual([...new Set(s3doc.wal_ranges.map((r) => r['timeline']))], [1, 2]);
    assert.deepEqual([s3doc.snapshot['state'], s3doc.snapshot['reason']['code']], ['warning', 'wal-gap-candidate']);
    assertSameEvidence(docs);
  });

  it("pgBackRest 2.60 stanza main: pgBackRest's backups and the deleted segment on S3, and the same evidence on Azure and GCS", async () => {
    const pg = repos.pgbackrest;
    const stanza = pg.main.stanza;
    const objects = copied.get('pgbackrest') ?? [];
    const recorded = pg.objects().filter((o: ListedObject) => o.key.startsWith(`${pg.prefix}/archive/${stanza}/`) || o.key.startsWith(`${pg.prefix}/backup/${stanza}/`));
    assert.deepEqual(sizes(objects), sizes(recorded));
    assert.ok(objects.length > 0 && !objects.some((o) => o.key === pg.deletedKey));
    const docs = await scanAll(pg.bucket, pg.prefix, { REPOSITORY_FORMAT: 'stanza-repository', ARCHIVE_SERVER_NAMES: stanza });
    assertInventory(docs, objects);
    const [s3doc] = docs;
    // Not vacuous: the S3 scan is the evidence `pgbackrest info` describes.
    const info = pg.info(stanza);
    assert.deepEqual(info.backup.map((b) => b.label), pg.main.backups);
    assert.deepEqual(
      s3doc.backups.map((b) => [b['backup_id'], b['status'], b['backup_type'], b['begin_wal'], b['end_wal']]),
      info.backup.map((b) => [b.label, 'DONE', b.type, b.archive.start, b.archive.stop]),
    );
    assert.deepEqual(s3doc.wal_gaps.map((g) => [g['timeline'], g['first_wal'], g['last_wal'], g['segment_count']]), [[1, pg.deletedWal, pg.deletedWal, 1]]);
    assert.deepEqual([s3doc.wal_ranges[0]?.['first_wal'], s3doc.wal_ranges.at(-1)?.['last_wal']], [info.archive[0]?.min, info.archive[0]?.max]);
    assert.deepEqual([s3doc.snapshot['state'], s3doc.snapshot['reason']['code']], ['warning', 'wal-gap-candidate']);
    assertSameEvidence(docs);
  });
});
