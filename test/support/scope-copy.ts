/**
 * A real repository's scope copied, object by object (server-side copies), to a fresh prefix of
 * the same Swift S3 store, so a test can edit one object after the tools wrote it (delete it,
 * replace its body, add one beside it, receive it again), scan the copy with the real scanner
 * through the real S3 driver, publish it as production does, and put the object back. The source
 * is never touched; `dispose` removes the copy.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CopyObjectCommand, DeleteObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { BudgetMeter } from '../../src/evidence/listing.ts';
import { scanScope, type ScopeEvidence } from '../../src/evidence/scope-scan.ts';
import type { Expectations } from '../../src/evidence/summary.ts';
import type { GapSettle } from '../../src/evidence/gaps.ts';
import type { RepositoryFormat } from '../../src/format/seam.ts';
import { destinationFingerprint } from '../../src/publication/fingerprint.ts';
import type { Publication, Publisher } from '../../src/publication/publisher.ts';
import { confine } from '../../src/store/confined.ts';
import type { StoreDriver } from '../../src/store/driver.ts';
import { createS3Driver } from '../../src/store/s3/s3-driver.ts';
import { STANDALONE_CLUSTER, testPublisher } from './publication-fixture.ts';

export interface StoreAccount {
  readonly endpoint: string;
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly bucket: string;
}

/** Keys under `prefix` (full keys), in key order. */
async function listKeys(s3: S3Client, bucket: string, prefix: string): Promise<string[]> {
  const keys: string[] = [];
  for (let token: string | undefined; ; ) {
    const page = await s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token }));
    for (const o of page.Contents ?? []) if (o.Key !== undefined) keys.push(o.Key);
    token = page.NextContinuationToken;
    if (token === undefined) return keys;
  }
}

async function inBatches<T>(items: readonly T[], size: number, f: (item: T) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < items.length; i += size) await Promise.all(items.slice(i, i + size).map(f));
}

export interface ScanOptions {
  readonly format: RepositoryFormat;
  /** The server (barman-cloud) or stanza (pgBackRest). */
  readonly scope: string;
  /** The scope's root under the copy's prefix, e.g. `scopeRoot(copy.prefix, server)`. */
  readonly root: string;
  /** The roots the scan is confined to (default: `[root]`). */
  readonly roots?: readonly string[];
  readonly expectations?: Expectations;
  readonly gapSettle?: GapSettle;
  /** The attempt's start, as the publisher's clock for the retention window (default: now). */
  readonly startedAt?: Date;
  /** Another endpoint in front of the same store (a fault proxy); default the store's own. */
  readonly endpoint?: string;
}

export class ScopeCopy {
  readonly s3: S3Client;
  /** The copy's prefix in the bucket, without a trailing slash. */
  readonly prefix: string;
  readonly #account: StoreAccount;
  readonly #source: string;
  readonly #dir: string;
  #driver: StoreDriver | null = null;
  #added = new Set<string>();
  #changed = new Set<string>();

  private constructor(account: StoreAccount, source: string, prefix: string) {
    this.#account = account;
    this.#source = source;
    this.prefix = prefix;
    this.s3 = new S3Client({ endpoint: account.endpoint, forcePathStyle: true, region: 'us-east-1', credentials: { accessKeyId: account.accessKeyId, secretAccessKey: account.secretAccessKey }, requestChecksumCalculation: 'WHEN_REQUIRED' });
    this.#dir = mkdtempSync(join(tmpdir(), 'viewer-scope-copy-'));
    writeFileSync(join(this.#dir, 'id'), account.accessKeyId);
    writeFileSync(join(this.#dir, 'secret'), account.secretAccessKey);
  }

  /**
   * Copies every object under `<source>/<relative>` for each of `under` (relative folders, e.g.
   * `pg-main/`) to `<fresh prefix>/<relative>`.
   */
  static async create(account: StoreAccount, source: string, under: readonly string[]): Promise<ScopeCopy> {
    const copy = new ScopeCopy(account, source, `edited-${process.pid}-${Math.random().toString(36).slice(2, 10)}`);
    const keys = (await Promise.all(under.map((u) => listKeys(copy.s3, account.bucket, `${source}/${u}`)))).flat();
    assert.ok(keys.length > 0, `nothing to copy under ${source}/${under.join(', ')}`);
    await inBatches(keys, 16, (k) => copy.#copyIn(k.slice(source.length + 1)));
    return copy;
  }

  #copyIn(relative: string): Promise<unknown> {
    return this.s3.send(new CopyObjectCommand({ Bucket: this.#account.bucket, Key: `${this.prefix}/${relative}`, CopySource: `${this.#account.bucket}/${this.#source}/${relative}`.split('/').map(encodeURIComponent).join('/'), MetadataDirective: 'COPY' }));
  }

  /** Deletes one object of the copy (relative to the prefix). */
  async remove(relative: string): Promise<void> {
    this.#changed.add(relative);
    await this.s3.send(new DeleteObjectCommand({ Bucket: this.#account.bucket, Key: `${this.prefix}/${relative}` }));
  }

  /** Writes (or replaces) one object of the copy. */
  async put(relative: string, body: Uint8Array | string): Promise<void> {
    if (!this.#changed.has(relative)) {
      const exists = (await listKeys(this.s3, this.#account.bucket, `${this.prefix}/${relative}`)).includes(`${this.prefix}/${relative}`);
      if (exists) this.#changed.add(relative);
      else this.#added.add(relative);
    }
    await this.s3.send(new PutObjectCommand({ Bucket: this.#account.bucket, Key: `${this.prefix}/${relative}`, Body: body }));
  }

  /** Receives one object again, unchanged: a new receipt time, later than every other. */
  async touch(relative: string): Promise<void> {
    this.#changed.add(relative);
    await this.#copyIn(relative);
  }

  /** Puts back what the edits changed: the source's objects, and no object the edits added. */
  async restore(): Promise<void> {
    await inBatches([...this.#changed], 16, (r) => this.#copyIn(r));
    await inBatches([...this.#added], 16, (r) => this.s3.send(new DeleteObjectCommand({ Bucket: this.#account.bucket, Key: `${this.prefix}/${r}` })));
    this.#changed = new Set();
    this.#added = new Set();
  }

  #make(endpoint: string): Promise<StoreDriver> {
    return createS3Driver({
      bucket: this.#account.bucket,
      region: 'us-east-1',
      endpoint,
      credentials: { mode: 'static-files', accessKeyIdFile: join(this.#dir, 'id'), secretAccessKeyFile: join(this.#dir, 'secret'), sessionTokenFile: null },
    });
  }

  /** A publisher of this copy's scope, as production composes one. */
  publisher(o: Pick<ScanOptions, 'format' | 'scope' | 'expectations'>): Publisher {
    return testPublisher({
      identity: {
        cluster: STANDALONE_CLUSTER,
        fingerprint: destinationFingerprint({ provider: 'store-a', bucket: this.#account.bucket, account: null, emulatorOrigin: null, prefix: this.prefix }, this.#account.endpoint),
        server: o.scope,
        format: o.format,
      },
      expectations: o.expectations,
      freshnessMs: 15 * 60_000,
    });
  }

  /**
   * One complete generation of the copy, through the real S3 driver, published by `publisher` (a
   * fresh one unless given: generation 1, nothing remembered). The publication must be valid and
   * complete: a generation whose summaries disagree with its items would be a failed attempt.
   */
  async scan(o: ScanOptions, publisher: Publisher = this.publisher(o)): Promise<{ evidence: ScopeEvidence; publication: Publication }> {
    const meter = new BudgetMeter({ maxPages: 100_000, maxObjects: 10_000_000 });
    const startedAt = o.startedAt ?? new Date();
    const own = o.endpoint === undefined;
    if (own) this.#driver ??= await this.#make(this.#account.endpoint);
    const base = own ? (this.#driver as StoreDriver) : await this.#make(o.endpoint);
    const driver = confine(base, o.roots ?? [o.root]);
    const evidence = await scanScope({
      format: o.format,
      server: o.scope,
      root: o.root,
      driver,
      signal: AbortSignal.timeout(120_000),
      meter,
      concurrency: 4,
      ...publisher.nextScan,
      ...(o.gapSettle === undefined ? {} : { gapSettle: o.gapSettle }),
    });
    if (!own) base.close();
    const publication = publisher.complete(evidence, { startedAt, finishedAt: new Date(startedAt.getTime() + 1_000), pages: meter.pages, objects: meter.objects });
    assert.deepEqual(publication.violations, []);
    assert.equal(publication.snapshot.completeness, 'complete', `a complete generation (a failed one: ${publication.snapshot.reason.code})`);
    assert.equal(publication.snapshot.stale, false, `not a failed attempt: ${publication.snapshot.reason.code}`);
    return { evidence, publication };
  }

  async dispose(): Promise<void> {
    this.#driver?.close();
    const keys = await listKeys(this.s3, this.#account.bucket, `${this.prefix}/`);
    await inBatches(keys, 16, (k) => this.s3.send(new DeleteObjectCommand({ Bucket: this.#account.bucket, Key: k })));
    this.s3.destroy();
    rmSync(this.#dir, { recursive: true, force: true });
  }
}
