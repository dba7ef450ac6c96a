/**
 * The Google Cloud Storage driver (`store-c`) against the firebase-tools Cloud Storage emulator:
 * the shared driver contract and viewer scan on a barman-cloud repository stored there. (The
 * emulator creates buckets on first use, so a missing bucket cannot be shown with it; the error
 * table is tested on recorded shapes in src/store/gcs/classify.test.ts.)
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Storage } from '@google-cloud/storage';
import type { StoreDriver } from '../../src/store/driver.ts';
import { createGcsDriver } from '../../src/store/gcs/gcs-driver.ts';
import { startGcsEmulator, type GcsEmulator } from '../support/gcs-emulator.ts';
import { runViewer } from '../support/run-viewer.ts';
import { BIG_KEY, BIG_SIZE, CONTRACT_KEYS, storeContract } from './contract.ts';

describe('GCS driver against the Cloud Storage emulator', () => {
  let emulator: GcsEmulator;
  let driver: StoreDriver;
  const prefix = 'contract/';

  before(async () => {
    emulator = await startGcsEmulator();
    const bucket = new Storage({ apiEndpoint: emulator.endpoint, projectId: 'viewer' }).bucket('viewer-backups');
    for (const k of CONTRACT_KEYS) await bucket.file(prefix + k).save(k, { resumable: false });
    await bucket.file(prefix + BIG_KEY).save(Buffer.alloc(BIG_SIZE), { resumable: false });
    await bucket.file('contract-sibling/a/1').save('x', { resumable: false });
    driver = await createGcsDriver({ bucket: 'viewer-backups', endpoint: emulator.endpoint, credentials: { mode: 'ambient' } });
  });
  after(() => emulator.stop());

  storeContract('gcs', () => Promise.resolve({ driver, prefix }));

  it('viewer scan reads a barman-cloud repository in Cloud Storage', async () => {
    const { DEMO_PREFIX, DEMO_SERVER } = await import('../../src/format/barman-cloud/demo-repository.ts');
    const { demoObjects } = await import('../support/demo-objects.ts');
    const bucket = new Storage({ apiEndpoint: emulator.endpoint, projectId: 'viewer' }).bucket('barman');
    const objects = await demoObjects();
    for (const o of objects) await bucket.file(o.key).save(Buffer.from(o.body), { resumable: false });
    const r = await runViewer(['scan'], { DESTINATION_PATH: `gs://barman/${DEMO_PREFIX}`, ARCHIVE_SERVER_NAMES: DEMO_SERVER, STORE_ENDPOINT_URL: emulator.endpoint });
    assert.equal(r.status, 0, r.stderr);
    const doc = JSON.parse(r.stdout) as { snapshot: { identity: { repository: { provider: string } }; inventory: { object_count: number } }; backups: { state: string }[]; wal_gaps: { first_wal: string }[] };
    assert.equal(doc.snapshot.identity.repository.provider, 'store-c');
    assert.equal(doc.snapshot.inventory.object_count, objects.length);
    assert.deepEqual(doc.backups.map((b) => b.state), ['healthy', 'healthy', 'unhealthy', 'healthy', 'unknown']);
    assert.deepEqual(doc.wal_gaps.map((g) => g.first_wal), ['000000010000000000000005', '000000010000000000000016']);

    // Google's client libraries log requests and answers to stderr when GOOGLE_SDK_NODE_LOGGING
    // (or DEBUG, for their dependencies) asks them to: none of it may reach viewer's output (D-53).
    const loud = await runViewer(['scan'], { DESTINATION_PATH: `gs://barman/${DEMO_PREFIX}`, ARCHIVE_SERVER_NAMES: DEMO_SERVER, STORE_ENDPOINT_URL: emulator.endpoint, GOOGLE_SDK_NODE_LOGGING: '*', DEBUG: '*' });
    assert.equal(loud.status, 0, loud.stderr);
    assert.equal((JSON.parse(loud.stdout) as typeof doc).snapshot.inventory.object_count, objects.length);
    for (const line of loud.stderr.split('\n')) {
      for (const leak of ['barman', DEMO_PREFIX, '127.0.0.1', 'googleapis', 'gaxios', 'auth']) assert.ok(!line.includes(leak), `stderr carries ${leak}: ${line.slice(0, 160)}`);
    }
  });
});
