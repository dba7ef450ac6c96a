/**
 * The S3 driver against a real S3-compatible store (OpenStack Swift with s3api): the shared driver
 * contract, then every failure category a real server can produce, each with viewer's own message
 * and never the provider's text.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { StoreError } from '../../src/common/errors.ts';
import type { StoreDriver } from '../../src/store/driver.ts';
import { createS3Driver } from '../../src/store/s3/s3-driver.ts';
import { realRepositories, type RealRepositories } from '../support/real-repositories.ts';
import { BIG_KEY, BIG_SIZE, CONTRACT_KEYS, storeContract } from './contract.ts';

const BUCKET = 'viewer-test';

describe('S3 driver against OpenStack Swift', () => {
  let repos: RealRepositories;
  let driver: StoreDriver;
  let dir: string;
  const prefix = `contract-${process.pid}/`;
  const files = (id: string, secret: string) => {
    writeFileSync(join(dir, `${id.replace(':', '_')}.id`), id);
    writeFileSync(join(dir, `${id.replace(':', '_')}.secret`), secret);
    return { mode: 'static-files' as const, accessKeyIdFile: join(dir, `${id.replace(':', '_')}.id`), secretAccessKeyFile: join(dir, `${id.replace(':', '_')}.secret`), sessionTokenFile: null };
  };

  before(async () => {
    repos = realRepositories();
    dir = mkdtempSync(join(tmpdir(), 'viewer-s3-'));
    // The tests write their own keys with the SDK; the driver itself has no write method.
    const writer = new S3Client({ endpoint: repos.endpoint, forcePathStyle: true, region: 'us-east-1', credentials: { accessKeyId: repos.accessKeyId, secretAccessKey: repos.secretAccessKey }, requestChecksumCalculation: 'WHEN_REQUIRED' });
    const when = new Date();
    for (const k of CONTRACT_KEYS) await writer.send(new PutObjectCommand({ Bucket: BUCKET, Key: prefix + k, Body: k }));
    await writer.send(new PutObjectCommand({ Bucket: BUCKET, Key: prefix + BIG_KEY, Body: Buffer.alloc(BIG_SIZE) }));
    await writer.send(new PutObjectCommand({ Bucket: BUCKET, Key: `contract-${process.pid}-sibling/a/1`, Body: 'outside' }));
    writer.destroy();
    assert.ok(Date.now() - when.getTime() < 600_000);
    driver = await createS3Driver({ bucket: BUCKET, region: null, endpoint: repos.endpoint, credentials: files(repos.accessKeyId, repos.secretAccessKey) });
  });
  after(() => {
    driver.close();
    rmSync(dir, { recursive: true, force: true });
  });

  storeContract('s3', () => Promise.resolve({ driver, prefix }));

  async function category(make: () => Promise<StoreDriver>, bucketPrefix = prefix): Promise<string> {
    const d = await make();
    try {
      await d.listPage({ prefix: bucketPrefix, signal: new AbortController().signal });
      return 'none';
    } catch (e) {
      assert.ok(e instanceof StoreError);
      assert.ok(!/Signature|AccessDenied|NoSuchBucket|ECONNREFUSED|tester|reader/.test(e.message), e.message);
      return e.category;
    } finally {
      d.close();
    }
  }

  it('a wrong secret is authentication', async () => {
    assert.equal(await category(() => createS3Driver({ bucket: BUCKET, region: null, endpoint: repos.endpoint, credentials: files(repos.accessKeyId, 'not-the-secret') })), 'authentication');
  });

  it('a valid user without rights is authorization', async () => {
    assert.equal(await category(() => createS3Driver({ bucket: BUCKET, region: null, endpoint: repos.endpoint, credentials: files(repos.otherAccessKeyId, repos.otherSecretAccessKey) })), 'authorization');
  });

  it('a missing bucket is not_found', async () => {
    assert.equal(await category(() => createS3Driver({ bucket: 'no-such-bucket-here', region: null, endpoint: repos.endpoint, credentials: files(repos.accessKeyId, repos.secretAccessKey) })), 'not_found');
  });

  it('a store nobody listens on is unavailable', async () => {
    assert.equal(await category(() => createS3Driver({ bucket: BUCKET, region: null, endpoint: 'http://127.0.0.1:9', credentials: files(repos.accessKeyId, repos.secretAccessKey), maxAttempts: 1 })), 'unavailable');
  });

  it('an unreadable credential file is invalid_configuration, before any request', async () => {
    await assert.rejects(
      createS3Driver({ bucket: BUCKET, region: null, endpoint: repos.endpoint, credentials: { mode: 'static-files', accessKeyIdFile: join(dir, 'missing'), secretAccessKeyFile: join(dir, 'missing'), sessionTokenFile: null } }),
      (e: unknown) => e instanceof StoreError && e.category === 'invalid_configuration',
    );
  });
});
