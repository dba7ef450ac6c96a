/**
 * The listing floors `viewer scan` is measured against, each run as its own process with the same
 * SDK the scanner uses and nothing else: `flat` is one ListObjectsV2 loop over every key of the
 * scope; `ranges` is the research note's parallel strategy (base/ flat, the hash directories from
 * one delimiter listing of wals/, then N contiguous key ranges listed flat at once, keys past a
 * range's end dropped). Prints `{"keys": n, "requests": n}`; the bench checks `keys` against the
 * corpus's truth, so a floor that missed keys would show up rather than look fast.
 *
 * `stanza-flat` and `stanza-ranges` are the same two floors over a pgBackRest stanza (the scope
 * root is then the repository root): the flat one lists `backup/<stanza>/` then `archive/<stanza>/`;
 * the ranged one lists the backup area flat beside the archive area's own level (archive.info, the
 * archive ids), the current archive id's segment directories and N contiguous key ranges of it.
 *
 * Usage: node bench/bare-list.ts <flat|ranges|stanza-flat|stanza-ranges> <endpoint> <bucket> <scope root> [concurrency] [stanza]
 */
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { client } from './s3.ts';

const [mode, endpoint, bucket, root, concurrencyText = '8', stanza = 'main'] = process.argv.slice(2);
if (!['flat', 'ranges', 'stanza-flat', 'stanza-ranges'].includes(mode ?? '') || endpoint === undefined || bucket === undefined || root === undefined) {
  process.stderr.write('usage: bare-list.ts <flat|ranges|stanza-flat|stanza-ranges> <endpoint> <bucket> <scope root> [concurrency] [stanza]\n');
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

/** One delimiter listing: the objects at that level (counted) and its folders. */
async function listLevel(prefix: string): Promise<{ objects: number; dirs: string[] }> {
  const dirs: string[] = [];
  let objects = 0;
  let token: string | undefined;
  do {
    requests += 1;
    const page = await s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, Delimiter: '/', MaxKeys: 1000, ContinuationToken: token }));
    dirs.push(...(page.CommonPrefixes ?? []).map((p) => p.Prefix ?? ''));
    objects += page.Contents?.length ?? 0;
    token = page.IsTruncated === true ? page.NextContinuationToken : undefined;
  } while (token !== undefined);
  return { objects, dirs };
}

/** `base` flat beside `wal` (a level of directories) as N contiguous ranges. */
async function listRanges(n: number, base: string, wal: string): Promise<number> {
  const { dirs } = await listLevel(wal);
  const parts = Math.max(1, Math.min(n, Math.floor(dirs.length / 4)));
  const starts = Array.from({ length: parts }, (_, i) => (i === 0 ? undefined : dirs[Math.floor((i * dirs.length) / parts)]?.slice(0, -1)));
  const [backups, ...ranges] = await Promise.all([listFlat(base), ...starts.map((s, i) => listFlat(wal, s, starts[i + 1]))]);
  // Top-level history files fall inside whichever range covers their place in key order.
  return (backups ?? 0) + ranges.reduce((a, b) => a + b, 0);
}

async function listStanzaRanges(n: number): Promise<number> {
  const area = `${root}archive/${stanza}/`;
  // The area's level first (archive.info and the archive ids), as the scan does; then the current id.
  const level = await listLevel(area);
  const ids = level.dirs;
  const current = ids.at(-1) ?? `${area}none/`;
  const others = await Promise.all(ids.filter((d) => d !== current).map((d) => listFlat(d)));
  return level.objects + others.reduce((a, b) => a + b, 0) + (await listRanges(n, `${root}backup/${stanza}/`, current));
}

const n = Number(concurrencyText);
const keys =
  mode === 'flat'
    ? await listFlat(root)
    : mode === 'ranges'
      ? await listRanges(n, `${root}base/`, `${root}wals/`)
      : mode === 'stanza-flat'
        ? (await listFlat(`${root}backup/${stanza}/`)) + (await listFlat(`${root}archive/${stanza}/`))
        : await listStanzaRanges(n);
s3.destroy();
process.stdout.write(`${JSON.stringify({ keys, requests })}\n`);
