/**
 * End to end: a real barman-cloud scope (Barman's `pg-wal1m` server, copied inside the Swift store)
 * with keys holding every control byte and the characters encodings treat specially, in `base/`,
 * in `wals/` (at its top and inside a hash directory) and at the scope root. The real scanner
 * completes, counts each of them as exactly one unknown object with its exact size, and derives
 * the same WAL and backup evidence as without them; `viewer scan` completes with the exact
 * inventory and none of the keys in what it prints.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CopyObjectCommand, DeleteObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { BudgetMeter } from '../../src/evidence/listing.ts';
import { scanScope, type ScopeEvidence } from '../../src/evidence/scope-scan.ts';
import { freshMemory } from '../../src/evidence/memory.ts';
import { confine } from '../../src/store/confined.ts';
import { createS3Driver } from '../../src/store/s3/s3-driver.ts';
import { realRepositories, type RealRepositories } from '../support/real-repositories.ts';
import { runViewer } from '../support/run-viewer.ts';
import { CONTROL_BYTES } from './odd-keys.ts';
import { archiveCloud, scopeRoot } from '../../src/format/barman-cloud/format.ts';

const BUCKET = 'viewer-test';
const SERVER = 'pg-wal1m';
const AREAS = ['', 'base/', 'wals/', 'wals/0000000100000000/'] as const;

/** Scope-relative odd keys, each with a marker (`zq<n>q`) that must never show in viewer's output. */
const ODD = [
  ...CONTROL_BYTES.map((b, i) => `${AREAS[i % AREAS.length] ?? ''}${String.fromCharCode(b)}zq${i}q`),
  'dir\x01zq40q/inner',
  'base/2026\x02zq41q/backup.info',
  'base/zq42q plus+percent%25/x',
  'wals/zq43q\x03dir/x',
  'zq44q space+plus%2B&amp<lt',
  'wals/0000000100000000/zq45q\x7f',
].map((key, i) => ({ key, size: 100 + i }));

describe('a barman-cloud scope holding keys with control characters (Swift)', () => {
  let repos: RealRepositories;
  let writer: S3Client;
  let dir: string;
  const prefix = `odd-scan-${process.pid}`;
  const root = scopeRoot(prefix, SERVER);
  let credentials: { mode: 'static-files'; accessKeyIdFile: string; secretAccessKeyFile: string; sessionTokenFile: null };

  async function scan(): Promise<ScopeEvidence> {
    const driver = confine(await createS3Driver({ bucket: BUCKET, region: null, endpoint: repos.endpoint, credentials, maxAttempts: 1 }), root);
    try {
      return await scanScope({ format: archiveCloud, server: SERVER, root, driver, signal: AbortSignal.timeout(60_000), meter: new BudgetMeter({ maxPages: 10_000, maxObjects: 1e6 }), concurrency: 4, previous: freshMemory({ fingerprint: `sha256:${'0'.repeat(64)}`, format: 'archive-cloud', server: SERVER }) });
    } finally {
      driver.close();
    }
  }

  const viewerScan = () =>
    runViewer(['scan'], {
      DESTINATION_PATH: `s3://${BUCKET}/${prefix}`,
      ARCHIVE_SERVER_NAMES: SERVER,
      STORE_ENDPOINT_URL: repos.endpoint,
      STORE_CREDENTIAL_MODE: 'static-files',
      STORE_ACCESS_KEY_ID_FILE: credentials.accessKeyIdFile,
      STORE_SECRET_ACCESS_KEY_FILE: credentials.secretAccessKeyFile,
    });

  before(async () => {
    repos = realRepositories();
    dir = mkdtempSync(join(tmpdir(), 'viewer-odd-scan-'));
    writeFileSync(join(dir, 'id'), repos.accessKeyId);
    writeFileSync(join(dir, 'secret'), repos.secretAccessKey);
    credentials = { mode: 'static-files', accessKeyIdFile: join(dir, 'id'), secretAccessKeyFile: join(dir, 'secret'), sessionTokenFile: null };
    writer = new S3Client({ endpoint: repos.endpoint, forcePathStyle: true, region: 'us-east-1', credentials: { accessKeyId: repos.accessKeyId, secretAccessKey: repos.secretAccessKey }, requestChecksumCalculation: 'WHEN_REQUIRED' });
    // The scope as Barman wrote it, copied inside the store.
    const from = `${repos.prefix}/${SERVER}/`;
    for (const o of repos.objects(SERVER)) {
      assert.ok(o.key.startsWith(from));
      await writer.send(new CopyObjectCommand({ Bucket: BUCKET, Key: root + o.key.slice(from.length), CopySource: `${repos.bucket}/${o.key.split('/').map(encodeURIComponent).join('/')}` }));
    }
  });
  after(() => {
    writer.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  it('counts every odd key as one unknown object of its exact size, and the rest of the evidence is unchanged', async () => {
    for (const o of ODD) await writer.send(new DeleteObjectCommand({ Bucket: BUCKET, Key: root + o.key }));
    const clean = await scan();
    const cleanRun = await viewerScan();
    assert.equal(cleanRun.status, 0, cleanRun.stderr);

    for (const o of ODD) await writer.send(new PutObjectCommand({ Bucket: BUCKET, Key: root + o.key, Body: Buffer.alloc(o.size, 0x61) }));
    const odd = await scan();
    assert.equal(odd.objectCount, clean.objectCount + ODD.length);
    assert.equal(odd.unknownObjects, clean.unknownObjects + ODD.length);
    assert.equal(odd.storedBytes, clean.storedBytes + ODD.reduce((s, o) => s + o.size, 0));
    assert.deepEqual(odd.ranges, clean.ranges);
    assert.deepEqual(odd.gaps, clean.gaps);
    assert.deepEqual(odd.backups, clean.backups);
    assert.deepEqual(odd.paths, clean.paths);

    // The command: a complete scan with the exact inventory, and no key in anything it printed.
    const r = await viewerScan();
    assert.equal(r.status, 0, r.stderr);
    const doc = JSON.parse(r.stdout) as { snapshot: { completeness: string; inventory: { object_count: number; stored_bytes: number; unscoped_object_count: number } }; wal_ranges: unknown[] };
    const cleanDoc = JSON.parse(cleanRun.stdout) as typeof doc;
    assert.equal(doc.snapshot.completeness, 'complete');
    assert.equal(doc.snapshot.inventory.object_count, cleanDoc.snapshot.inventory.object_count + ODD.length);
    assert.equal(doc.snapshot.inventory.stored_bytes, cleanDoc.snapshot.inventory.stored_bytes + ODD.reduce((s, o) => s + o.size, 0));
    assert.equal(doc.snapshot.inventory.unscoped_object_count, 0);
    assert.deepEqual(doc.wal_ranges, cleanDoc.wal_ranges);
    for (const out of [r.stdout, r.stderr]) {
      assert.ok(!/zq\d+q/.test(out), 'a key reached the output');
      assert.ok(![...out].some((c) => c !== '\n' && (c < ' ' || c === '\x7f')), 'a control character reached the output');
    }
  });
});
