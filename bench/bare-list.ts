/**
 * The listing floors `viewer scan` is measured against, each run as its own process with the same
 * SDK the scanner uses and nothing else: `flat` is one ListObjectsV2 loop over every key of the
 * scope; `ranges` is the research note's parallel strategy (base/ flat, the hash directories from
 * one delimiter listing of wals/, then N contiguous key ranges listed flat at once, keys past a
 * range's end dropped). Prints `{"keys": n, "requests": n}`; the bench checks `keys` against the
 * corpus's truth, so a floor that missed keys would show up rather than look fast.
 *
 * Usage: node bench/bare-list.ts <flat|ranges> <endpoint> <bucket> <scope root> [concurrency]
 */
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { client } from './s3.ts';

const [mode, endpoint, bucket, root, concurrencyText = '8'] = process.argv.slice(2);
if ((mode !== 'flat' && mode !== 'ranges') || endpoint === undefined || bucket === undefined || root === undefined) {
  process.stderr.write('usage: bare-list.ts <flat|ranges> <endpoint> <bucket> <scope root> [concurrency]\n');
  process.exit(64);
}
const s3 = client(endpoint);
let requests = 0;

/** Lists flat from `startAfter`; counts keys up to and including `end`. */
async function listFlat(prefix: string, startAfter?: string, end?: string): Promise<number> {
  let keys = 0;
  let token: string | undefined;
  do {
    requests += 1;
    const page = await s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, MaxKeys: 1000, ContinuationToken: token, StartAfter: token === undefined ? startAfter : undefined }));
    for (const o of page.Contents ?? []) {
      if (end !== undefined && (o.Key ?? '') > end) return keys;
      keys += 1;
    }
    token = page.IsTruncated === true ? page.NextContinuationToken : undefined;
  } while (token !== undefined);
  return keys;
}

async function listRanges(n: number): Promise<number> {
  const dirs: string[] = [];
  let token: string | undefined;
  do {
    requests += 1;
    const page = await s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: `${root}wals/`, Delimiter: '/', MaxKeys: 1000, ContinuationToken: token }));
    dirs.push(...(page.CommonPrefixes ?? []).map((p) => p.Prefix ?? ''));
    token = page.IsTruncated === true ? page.NextContinuationToken : undefined;
  } while (token !== undefined);
  const parts = Math.max(1, Math.min(n, Math.floor(dirs.length / 4)));
  const starts = Array.from({ length: parts }, (_, i) => (i === 0 ? undefined : dirs[Math.floor((i * dirs.length) / parts)]?.slice(0, -1)));
  const [base, ...wal] = await Promise.all([listFlat(`${root}base/`), ...starts.map((s, i) => listFlat(`${root}wals/`, s, starts[i + 1]))]);
  // Top-level history files fall inside whichever range covers their place in key order.
  return (base ?? 0) + wal.reduce((a, b) => a + b, 0);
}

const keys = mode === 'flat' ? await listFlat(root) : await listRanges(Number(concurrencyText));
s3.destroy();
process.stdout.write(`${JSON.stringify({ keys, requests })}\n`);
