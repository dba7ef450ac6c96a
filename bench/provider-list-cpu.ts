/**
 * `node bench/provider-list-cpu.ts [--keys=N] [--rounds=N]`: the client's CPU per listed key of
 * viewer's Azure Blob and Cloud Storage drivers (issue 28: whether a parser of viewer's own would
 * pay there as it did for S3, D-117), measured as `bench/list-cpu.ts` measures S3's.
 *
 * Azurite (in memory) and the firebase-tools Cloud Storage emulator are started on loopback and
 * loaded with N keys shaped like the bench corpus's WAL keys (default 20,000). Each case is a
 * process of its own under GNU time, round-robin: `<provider>_start` creates the driver and lists
 * nothing; `<provider>_list` lists the N keys flat through the driver's `listPage`, as a scan's
 * listing does. CPU per key is the listing's CPU above the start's, over N; the figure to hold
 * against is list-cpu's `viewer_us_per_key` (S3 with viewer's parser) and `sdk_us_per_key` (S3 with
 * the SDK's). The emulators' answers carry what the services' do (Azurite every blob property,
 * the emulator every object resource field), so the parsing share is representative; their own
 * CPU is not counted.
 *
 * Child mode: `node bench/provider-list-cpu.ts child <azure|gcs> <start|list> <endpoint-or-connection-file> <prefix>`.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AZURITE_KEY, startAzurite } from '../test/support/azurite.ts';
import { startGcsEmulator } from '../test/support/gcs-emulator.ts';

const NODE = process.execPath;
const SELF = import.meta.filename;
const CONTAINER = 'viewer-bench';
const PREFIX = 'bench/main/';

/** The N keys: WAL segment names under one server, as barman-cloud writes them. */
function keys(n: number): string[] {
  return Array.from({ length: n }, (_, i) => {
    const log = Math.floor(i / 256).toString(16).toUpperCase().padStart(8, '0');
    const seg = (i % 256).toString(16).toUpperCase().padStart(8, '0');
    return `${PREFIX}wals/00000001${log}/00000001${log}${seg}.gz`;
  });
}

async function child(provider: string, mode: string, target: string, prefix: string): Promise<void> {
  const signal = new AbortController().signal;
  const driver =
    provider === 'azure'
      ? await (await import('../src/store/azure/azure-driver.ts')).createAzureDriver({ container: CONTAINER, credentials: { mode: 'connection-string-file', file: target } })
      : await (await import('../src/store/gcs/gcs-driver.ts')).createGcsDriver({ bucket: CONTAINER, endpoint: target, credentials: { mode: 'ambient' } });
  let listed = 0;
  if (mode === 'list') {
    let token: string | undefined;
    do {
      const page = await driver.listPage({ prefix, signal, ...(token === undefined ? {} : { continuationToken: token }) });
      listed += page.objects.length;
      token = page.nextToken ?? undefined;
    } while (token !== undefined);
  }
  process.stdout.write(`${JSON.stringify({ keys: listed })}\n`);
}

interface Measured {
  readonly cpu: number;
  readonly rssMiB: number;
  readonly keys: number;
}

function timed(args: readonly string[], dir: string): Promise<Measured> {
  const report = join(dir, 'time.txt');
  return new Promise((resolve, reject) => {
    const p = spawn('/usr/bin/time', ['-f', '%U %S %M', '-o', report, NODE, ...args], { env: { PATH: process.env['PATH'] ?? '' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    p.stdout.on('data', (c: Buffer) => (out += c.toString()));
    p.stderr.on('data', (c: Buffer) => (err += c.toString()));
    p.on('error', reject);
    p.on('close', (status) => {
      if (status !== 0) return reject(new Error(`${args.join(' ')} exited ${String(status)}: ${err.slice(-300)}`));
      const [user = NaN, sys = NaN, rss = NaN] = readFileSync(report, 'utf8').trim().split('\n').at(-1)?.split(' ').map(Number) ?? [];
      resolve({ cpu: user + sys, rssMiB: rss / 1024, keys: (JSON.parse(out) as { keys: number }).keys });
    });
  });
}

/** Runs `work` over `items` in 16 lanes. */
async function lanes<T>(items: readonly T[], work: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < items.length) await work(items[next++] as T);
  };
  await Promise.all(Array.from({ length: 16 }, lane));
}

const median = (xs: readonly number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
};

async function main(): Promise<void> {
  const n = Number(process.argv.find((a) => a.startsWith('--keys='))?.slice('--keys='.length) ?? 20_000);
  const rounds = Number(process.argv.find((a) => a.startsWith('--rounds='))?.slice('--rounds='.length) ?? 3);
  const dir = mkdtempSync(join(tmpdir(), 'viewer-provider-cpu-'));
  const azurite = await startAzurite();
  const gcs = await startGcsEmulator();
  try {
    const all = keys(n);
    const { BlobServiceClient } = await import('@azure/storage-blob');
    const container = BlobServiceClient.fromConnectionString(azurite.connectionString()).getContainerClient(CONTAINER);
    await container.create();
    let t = Date.now();
    await lanes(all, (k) => container.getBlockBlobClient(k).upload('x', 1));
    process.stdout.write(`Azurite: ${n} keys loaded in ${((Date.now() - t) / 1000).toFixed(0)} s\n`);
    const { Storage } = await import('@google-cloud/storage');
    const bucket = new Storage({ apiEndpoint: gcs.endpoint, projectId: 'viewer' }).bucket(CONTAINER);
    t = Date.now();
    await lanes(all, (k) => bucket.file(k).save('x', { resumable: false }));
    process.stdout.write(`GCS emulator: ${n} keys loaded in ${((Date.now() - t) / 1000).toFixed(0)} s\n`);
    const connection = join(dir, 'conn');
    writeFileSync(connection, `${azurite.connectionString(AZURITE_KEY)}\n`);
    const target = { azure: connection, gcs: gcs.endpoint } as const;
    const cases = (['azure', 'gcs'] as const).flatMap((p) => (['start', 'list'] as const).map((m) => ({ name: `${p}_${m}`, args: [SELF, 'child', p, m, target[p], PREFIX], expect: m === 'list' ? n : 0 })));
    const runs: Record<string, Measured[]> = Object.fromEntries(cases.map((c) => [c.name, []]));
    for (let round = 0; round < rounds; round++) {
      for (let i = 0; i < cases.length; i++) {
        const c = cases[(i + round) % cases.length] as (typeof cases)[number];
        const m = await timed(c.args, dir);
        if (m.keys !== c.expect) throw new Error(`${c.name} listed ${m.keys} keys, ${c.expect} expected`);
        (runs[c.name] as Measured[]).push(m);
      }
      process.stdout.write(`  round ${round + 1}: ${cases.map((c) => `${c.name} ${(runs[c.name] as Measured[])[round]?.cpu.toFixed(2)} s`).join(', ')}\n`);
    }
    process.stdout.write(`\n| figure (${n} keys, ${rounds} rounds) | median | spread |\n|---|---|---|\n`);
    for (const p of ['azure', 'gcs']) {
      const start = runs[`${p}_start`] as Measured[];
      const list = runs[`${p}_list`] as Measured[];
      const perKey = list.map((m, i) => ((m.cpu - (start[i] as Measured).cpu) / n) * 1e6);
      process.stdout.write(`| ${p}_us_per_key (CPU per listed key above start-up) | ${median(perKey).toFixed(2)} | ${Math.min(...perKey).toFixed(2)}–${Math.max(...perKey).toFixed(2)} |\n`);
      process.stdout.write(`| ${p}_start_cpu_s | ${median(start.map((m) => m.cpu)).toFixed(2)} | |\n`);
      process.stdout.write(`| ${p}_list_peak_rss_mib | ${median(list.map((m) => m.rssMiB)).toFixed(1)} | |\n`);
    }
  } finally {
    azurite.stop();
    gcs.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[2] === 'child') {
  const [, , , provider = '', mode = '', target = '', prefix = ''] = process.argv;
  await child(provider, mode, target, prefix);
} else {
  await main();
}
