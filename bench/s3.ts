/**
 * The benchmark's object store: its own Swift S3 instance (test/support/swift-s3.sh on port 18280
 * with a data directory kept across runs, apart from the tests' store), an SDK client for it, and
 * the corpus loader. Loading 100 k keys takes minutes, so a corpus is loaded once: a marker object
 * naming the generator version, seed and size is written last and checked first. A reload first
 * removes the keys of an earlier corpus the new one does not have (another generator version
 * names segments with other suffixes), so the scan sees exactly the corpus.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { DeleteObjectCommand, GetObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { GENERATOR_VERSION, type GroupedCorpus } from './corpus.ts';

/** What the loader needs of a corpus: its root, seed and size for the marker, and its objects. */
export type LoadableCorpus = GroupedCorpus & { readonly spec: { readonly root: string; readonly seed: number; readonly segments: number } };

export const BENCH_DIR = process.env['VIEWER_BENCH_DIR'] ?? '/var/tmp/viewer-bench';
export const PORT = 18280;
export const ENDPOINT = `http://127.0.0.1:${PORT}`;
export const BUCKET = 'viewer-bench';
export const ACCESS_KEY_ID = 'bench:runner';
export const SECRET_ACCESS_KEY = 'benchsecret';
const SWIFT = join(import.meta.dirname, '..', 'test', 'support', 'swift-s3.sh');

export function client(endpoint = ENDPOINT): S3Client {
  return new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true, credentials: { accessKeyId: ACCESS_KEY_ID, secretAccessKey: SECRET_ACCESS_KEY }, maxAttempts: 3 });
}

/** Starts the bench store unless it is already healthy; installs Swift first if it is missing. */
export function ensureStore(log: (line: string) => void): void {
  const env = { ...process.env, PORT: String(PORT), DATA_DIR: join(BENCH_DIR, 'swift'), ACCESS: ACCESS_KEY_ID, SECRET: SECRET_ACCESS_KEY, BUCKETS: BUCKET, RESET: '0', LOG_LEVEL: 'ERROR' };
  if (spawnSync('bash', [SWIFT, 'status'], { env, stdio: 'ignore' }).status === 0) return;
  log(`starting the bench store, Swift S3 on ${ENDPOINT} (Debian's Swift is installed first if missing)`);
  const r = spawnSync('bash', [SWIFT, 'start'], { env, stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`the bench store (Swift S3 on ${ENDPOINT}) did not start: ${r.stderr.trim().split('\n').at(-1) ?? ''}`);
}

async function marker(s3: S3Client, key: string): Promise<string | null> {
  try {
    const r = await s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: key }));
    return (await r.Body?.transformToString()) ?? null;
  } catch {
    return null;
  }
}

/** Runs `work` over `items` in 16 lanes (Swift answers about 165 PUTs/s here, in parallel). */
async function lanes<T>(items: Iterator<T>, work: (item: T) => Promise<unknown>): Promise<void> {
  const lane = async () => {
    for (let next = items.next(); next.done !== true; next = items.next()) await work(next.value);
  };
  await Promise.all(Array.from({ length: 16 }, lane));
}

/** Keys under the corpus's root that the corpus does not have: an earlier corpus's leftovers. */
async function staleKeys(s3: S3Client, corpus: LoadableCorpus): Promise<string[]> {
  const keys = new Set<string>();
  for (const o of corpus.objects()) keys.add(o.key);
  const stale: string[] = [];
  let token: string | undefined;
  do {
    const page = await s3.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: corpus.spec.root, ContinuationToken: token }));
    for (const o of page.Contents ?? []) if (o.Key !== undefined && !keys.has(o.Key)) stale.push(o.Key);
    token = page.IsTruncated === true ? page.NextContinuationToken : undefined;
  } while (token !== undefined);
  return stale;
}

/** Puts every object of `corpus` unless its marker says it is there; returns seconds spent loading. */
export async function loadCorpus(corpus: LoadableCorpus, log: (line: string) => void, generator: number = GENERATOR_VERSION): Promise<number> {
  const s3 = client();
  const markerKey = `markers/${corpus.spec.root.replace(/\//g, '_')}json`;
  const expected = JSON.stringify({ generator, seed: corpus.spec.seed, segments: corpus.spec.segments, objects: corpus.size });
  if ((await marker(s3, markerKey)) === expected) return 0;
  const started = Date.now();
  // The marker goes first: a reload stopped halfway must not pass for a loaded corpus.
  await s3.send(new DeleteObjectCommand({ Bucket: BUCKET, Key: markerKey }));
  const stale = await staleKeys(s3, corpus);
  if (stale.length > 0) {
    log(`removing ${stale.length} objects of an earlier corpus under s3://${BUCKET}/${corpus.spec.root}`);
    await lanes(stale.values(), (key) => s3.send(new DeleteObjectCommand({ Bucket: BUCKET, Key: key })));
  }
  log(`loading ${corpus.size} objects under s3://${BUCKET}/${corpus.spec.root} (once; later runs reuse them)`);
  let done = 0;
  await lanes(corpus.objects(), async (o) => {
    await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: o.key, Body: o.body() }));
    done += 1;
    if (done % 10_000 === 0) log(`  ${done} / ${corpus.size}`);
  });
  await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: markerKey, Body: expected }));
  s3.destroy();
  return (Date.now() - started) / 1000;
}
