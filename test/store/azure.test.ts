/**
 * The Azure Blob Storage driver (`store-b`) against Azurite: the shared driver contract (with
 * start-after emulated by the driver) and the failure categories a real service can produce.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { BlobServiceClient } from '@azure/storage-blob';
import { StoreError } from '../../src/common/errors.ts';
import type { StoreDriver } from '../../src/store/driver.ts';
import { createAzureDriver } from '../../src/store/azure/azure-driver.ts';
import { startAzurite, type Azurite } from '../support/azurite.ts';
import { BIG_KEY, BIG_SIZE, CONTRACT_KEYS, storeContract } from './contract.ts';

const CONTAINER = 'backups';

describe('Azure driver against Azurite', () => {
  let azurite: Azurite;
  let driver: StoreDriver;
  let dir: string;
  const prefix = 'contract/';

  before(async () => {
    azurite = await startAzurite();
    dir = mkdtempSync(join(tmpdir(), 'viewer-azure-'));
    const container = BlobServiceClient.fromConnectionString(azurite.connectionString()).getContainerClient(CONTAINER);
    await container.create();
    for (const k of CONTRACT_KEYS) await container.getBlockBlobClient(prefix + k).upload(k, Buffer.byteLength(k));
    await container.getBlockBlobClient(prefix + BIG_KEY).upload(Buffer.alloc(BIG_SIZE), BIG_SIZE);
    await container.getBlockBlobClient('contract-sibling/a/1').upload('x', 1);
    writeFileSync(join(dir, 'conn'), `${azurite.connectionString()}\n`);
    driver = await createAzureDriver({ container: CONTAINER, credentials: { mode: 'connection-string-file', file: join(dir, 'conn') } });
  });
  after(() => {
    azurite.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  storeContract('azure', () => Promise.resolve({ driver, prefix }));

  it('says that start-after is emulated, so the scanner lists in one range', () => {
    assert.equal(driver.capabilities?.startAfter, 'emulated');
  });

  async function category(container: string, connection: string): Promise<string> {
    const d = await createAzureDriver({ container, credentials: { mode: 'connection-string', value: connection } });
    try {
      await d.listPage({ prefix, signal: new AbortController().signal });
      return 'none';
    } catch (e) {
      assert.ok(e instanceof StoreError);
      assert.ok(!/AuthenticationFailed|ContainerNotFound|ECONNREFUSED|devstoreaccount1/.test(e.message), e.message);
      return e.category;
    }
  }

  it('a wrong account key is refused (Azurite says 403 AuthorizationFailure where Azure says AuthenticationFailed)', async () => {
    assert.equal(await category(CONTAINER, azurite.connectionString(Buffer.alloc(64, 7).toString('base64'))), 'authorization');
  });

  it('a missing container is not_found', async () => {
    assert.equal(await category('no-such-container', azurite.connectionString()), 'not_found');
  });

  it('an endpoint nobody listens on is unavailable', async () => {
    assert.equal(await category(CONTAINER, azurite.connectionString().replace(/127\.0\.0\.1:\d+/, '127.0.0.1:9')), 'unavailable');
  });
});

describe('viewer scan on a barman-cloud repository in Azure Blob Storage (Azurite)', () => {
  it('reports the same evidence as the in-memory scan of the same repository', async () => {
    const { DEMO_PREFIX, DEMO_SERVER } = await import('../../src/format/barman-cloud/demo-repository.ts');
    const { demoObjects } = await import('../support/demo-objects.ts');
    const { runViewer } = await import('../support/run-viewer.ts');
    const azurite = await startAzurite();
    const dir = mkdtempSync(join(tmpdir(), 'viewer-azure-scan-'));
    try {
      const container = BlobServiceClient.fromConnectionString(azurite.connectionString()).getContainerClient('barman');
      await container.create();
      const objects = await demoObjects();
      for (const o of objects) await container.getBlockBlobClient(o.key).upload(o.body, o.body.length);
      writeFileSync(join(dir, 'conn'), azurite.connectionString());
      const r = await runViewer(['scan'], {
        PROVIDER: 'store-b',
        DESTINATION_PATH: `${azurite.blobEndpoint}/barman/${DEMO_PREFIX}`,
        ARCHIVE_SERVER_NAMES: DEMO_SERVER,
        STORE_CONNECTION_STRING_FILE: join(dir, 'conn'),
      });
      assert.equal(r.status, 0, r.stderr);
      const doc = JSON.parse(r.stdout) as { snapshot: { identity: { repository: { provider: string } }; inventory: { object_count: number } }; backups: { backup_id: string; state: string }[]; wal_gaps: { first_wal: string }[]; wal_ranges: unknown[] };
      assert.equal(doc.snapshot.identity.repository.provider, 'store-b');
      assert.equal(doc.snapshot.inventory.object_count, objects.length);
      assert.deepEqual(doc.backups.map((b) => b.state), ['healthy', 'healthy', 'unhealthy', 'healthy', 'unknown']);
      assert.deepEqual(doc.wal_gaps.map((g) => g.first_wal), ['000000010000000000000005', '000000010000000000000016']);
      assert.equal(doc.wal_ranges.length, 4);

      // The SDK logs request URLs (account, container, object keys) and the service's answers to
      // stderr when AZURE_LOG_LEVEL or DEBUG ask it to: the driver keeps it silent (D-53).
      const loud = await runViewer(['scan'], {
        PROVIDER: 'store-b',
        DESTINATION_PATH: `${azurite.blobEndpoint}/barman/${DEMO_PREFIX}`,
        ARCHIVE_SERVER_NAMES: DEMO_SERVER,
        STORE_CONNECTION_STRING_FILE: join(dir, 'conn'),
        AZURE_LOG_LEVEL: 'verbose',
        TYPESPEC_RUNTIME_LOG_LEVEL: 'verbose',
        DEBUG: '*',
      });
      assert.equal(loud.status, 0, loud.stderr);
      assert.equal((JSON.parse(loud.stdout) as typeof doc).snapshot.inventory.object_count, objects.length);
      for (const line of loud.stderr.split('\n')) {
        for (const leak of ['azure:', 'devstoreaccount1', '127.0.0.1', DEMO_PREFIX, 'barman/', 'x-ms-']) assert.ok(!line.includes(leak), `stderr carries ${leak}: ${line.slice(0, 160)}`);
      }
    } finally {
      azurite.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
