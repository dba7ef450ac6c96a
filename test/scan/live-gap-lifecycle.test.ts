/**
 * Issue 13, watched live: a WAL gap in a repository that real PostgreSQL 15 is archiving into with
 * Barman's own `barman-cloud-wal-archive`, scanned in-process by the real scanner against the Swift
 * store, with a real `Publisher` carrying generations and the gap memory between scans as in
 * production. The gap is confirmed, then widened towards the recent end (the segment after it is
 * now one of the newest: by the settle rule alone it would fall back to `candidate`), then widened
 * backwards, then split by a late upload of a segment in its middle (two gaps, both confirmed),
 * and finally filled. "A confirmed gap stays confirmed until it is filled"; the WAL state stays
 * unhealthy and the top-level state never improves while any part of the gap remains.
 *
 * Its own cluster (1 MiB segments, to keep uploads small), its own port and socket directory, its
 * own prefix `s3://viewer-test/live-<random>`; all of it removed afterwards, even on failure.
 * Confirmation thresholds are shortened (`gapSettle`) and the test waits real seconds, since
 * receipt times are the store's own clock.
 */
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { accessSync, chmodSync, chownSync, constants, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { DeleteObjectCommand, GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import type { State } from '../../src/contract/primitives.ts';
import { BudgetMeter } from '../../src/evidence/listing.ts';
import { scanScope } from '../../src/evidence/scope-scan.ts';
import { destinationFingerprint } from '../../src/publication/fingerprint.ts';
import type { Publication } from '../../src/publication/publisher.ts';
import { confine } from '../../src/store/confined.ts';
import type { StoreDriver } from '../../src/store/driver.ts';
import { createS3Driver } from '../../src/store/s3/s3-driver.ts';
import { realRepositories, type RealRepositories } from '../support/real-repositories.ts';
import { STANDALONE_CLUSTER, testPublisher } from '../support/publication-fixture.ts';
import { archiveCloud, scopeRoot } from '../../src/format/barman-cloud/format.ts';
import { requireCommonSummary } from '../../src/contract/details-view.ts';

const run = promisify(execFile);

const PG = '/usr/lib/postgresql/15/bin';
const BASE = process.env['VIEWER_TEST_DIR'] ?? '/var/tmp/viewer-test';
const BUCKET = 'viewer-test';
const SERVER = 'pg-live';
/** The settle rule's thresholds for this test: seconds, not minutes. */
const SETTLE_MS = 3_000;
const LONG_SETTLE_MS = 10 * 60_000;
/** Ports make-barman-repos.sh's clusters use (the socket directory is ours anyway). */
const TAKEN_PORTS = new Set([55432, 55433, 55434, 55435, 55436, 55437]);

const SEVERITY: Record<State, number> = { healthy: 0, warning: 1, unknown: 2, unhealthy: 3 };

/** Everything this test needs must be installed: a missing binary is a failure, never a skip. */
function requireBinaries(): void {
  const missing: string[] = [];
  for (const b of ['initdb', 'pg_ctl', 'psql', 'postgres']) {
    try {
      accessSync(join(PG, b), constants.X_OK);
    } catch {
      missing.push(join(PG, b));
    }
  }
  for (const b of ['barman-cloud-wal-archive', 'barman-cloud-backup', 'runuser']) {
    try {
      execFileSync('sh', ['-c', `command -v ${b}`], { stdio: 'ignore' });
    } catch {
      missing.push(b);
    }
  }
  if (missing.length > 0) throw new Error(`required binaries are missing (CI installs postgresql-15 and barman-cli-cloud): ${missing.join(', ')}`);
}

/** A free TCP port outside the fixture clusters' range (only the socket file's name uses it). */
async function freePort(): Promise<number> {
  for (;;) {
    const port = await new Promise<number>((resolve, reject) => {
      const s = createServer();
      s.once('error', reject);
      s.listen(0, '127.0.0.1', () => {
        const a = s.address();
        s.close(() => resolve(typeof a === 'object' && a !== null ? a.port : 0));
      });
    });
    if (port > 0 && !TAKEN_PORTS.has(port)) return port;
  }
}

describe('a WAL gap watched live while PostgreSQL archives with barman-cloud', () => {
  let repos: RealRepositories;
  let dir = '';
  let data = '';
  let sock = '';
  let kept = '';
  let port = 0;
  let prefix = '';
  let root = '';
  let s3: S3Client | undefined;
  let driver: StoreDriver | undefined;
  let pgStarted = false;
  const awsVars = () => [`AWS_ACCESS_KEY_ID=${repos.accessKeyId}`, `AWS_SECRET_ACCESS_KEY=${repos.secretAccessKey}`, 'AWS_DEFAULT_REGION=us-east-1'];

  // Commands run as postgres inherit the working directory: the test's own directory, which postgres owns.
  const asPg = (args: readonly string[]) => run('runuser', ['-u', 'postgres', '--', ...args], { cwd: dir, maxBuffer: 16 << 20 });
  const sql = async (query: string) => (await asPg([join(PG, 'psql'), '-h', sock, '-p', String(port), '-U', 'postgres', '-d', 'postgres', '-qAtX', '-c', query])).stdout.trim();
  const pgLog = () => {
    try {
      return readFileSync(join(dir, 'postgres.log'), 'utf8').split('\n').slice(-30).join('\n');
    } catch {
      return '(no log)';
    }
  };

  /** A little write, a switch, and a wait until the archiver has nothing left to send. Returns the archived names. */
  async function archive(count: number): Promise<string[]> {
    const names: string[] = [];
    for (let i = 0; i < count; i++) {
      names.push(await sql('insert into live values (default); select pg_walfile_name(pg_switch_wal())'));
      const deadline = Date.now() + 30_000;
      while ((await sql("select count(*) from pg_ls_archive_statusdir() where name like '%.ready'")) !== '0') {
        if (Date.now() > deadline) throw new Error(`archiving stalled: ${await sql('select failed_count, last_failed_wal from pg_stat_archiver')}\n${pgLog()}`);
        await sleep(50);
      }
    }
    return names;
  }

  const walKey = (name: string) => `${root}wals/${name.slice(0, 16)}/${name}`;

  /** Deletes segments from the store, keeping their bytes in a local file named as the segment. */
  async function take(names: readonly string[]): Promise<void> {
    const client = s3 as S3Client;
    for (const name of names) {
      const got = await client.send(new GetObjectCommand({ Bucket: BUCKET, Key: walKey(name) }));
      const bytes = await got.Body?.transformToByteArray();
      assert.ok(bytes !== undefined && bytes.length > 0, `${name} read back`);
      writeFileSync(join(kept, name), bytes);
      await client.send(new DeleteObjectCommand({ Bucket: BUCKET, Key: walKey(name) }));
    }
  }

  /** The late uploads: Barman's own archiver, from the kept copies. */
  async function putBack(names: readonly string[]): Promise<void> {
    await Promise.all(names.map((name) => run('env', [...awsVars(), 'barman-cloud-wal-archive', '--endpoint-url', repos.endpoint, `s3://${BUCKET}/${prefix}`, SERVER, join(kept, name)])));
  }

  /** Receipt time (store clock, epoch ms) of each WAL segment in the store. */
  async function receipts(): Promise<Map<string, number>> {
    const page = await (driver as StoreDriver).listPage({ prefix: `${root}wals/`, signal: AbortSignal.timeout(30_000), maxKeys: 1000 });
    assert.equal(page.nextToken, null);
    return new Map(page.objects.map((o) => [o.key.slice(o.key.lastIndexOf('/') + 1), o.lastModified?.getTime() ?? Number.NaN]));
  }

  before(async () => {
    requireBinaries();
    repos = realRepositories();
    port = await freePort();
    mkdirSync(BASE, { recursive: true });
    dir = mkdtempSync(join(BASE, 'live-'));
    prefix = `live-${dir.slice(dir.lastIndexOf('-') + 1)}-${process.pid}`;
    root = scopeRoot(prefix, SERVER);
    data = join(dir, 'data');
    sock = join(dir, 'sock');
    kept = join(dir, 'kept');
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    for (const d of [sock, kept, join(dir, 'bin')]) mkdirSync(d);
    for (const d of [dir, sock]) chownSync(d, uid, gid);
    chmodSync(dir, 0o755);
    writeFileSync(join(dir, 'id'), repos.accessKeyId, { mode: 0o600 });
    writeFileSync(join(dir, 'secret'), repos.secretAccessKey, { mode: 0o600 });
    // archive_command runs in the postmaster's environment: credentials and endpoint live here.
    const wrapper = join(dir, 'bin', 'archive.sh');
    writeFileSync(
      wrapper,
      [
        '#!/bin/sh',
        `export AWS_ACCESS_KEY_ID='${repos.accessKeyId}' AWS_SECRET_ACCESS_KEY='${repos.secretAccessKey}' AWS_DEFAULT_REGION=us-east-1`,
        `exec barman-cloud-wal-archive --endpoint-url '${repos.endpoint}' 's3://${BUCKET}/${prefix}' ${SERVER} "$1"`,
        '',
      ].join('\n'),
    );
    chmodSync(join(dir, 'bin'), 0o755);
    chmodSync(wrapper, 0o755);

    s3 = new S3Client({ endpoint: repos.endpoint, forcePathStyle: true, region: 'us-east-1', credentials: { accessKeyId: repos.accessKeyId, secretAccessKey: repos.secretAccessKey }, requestChecksumCalculation: 'WHEN_REQUIRED' });
    driver = confine(
      await createS3Driver({ bucket: BUCKET, region: 'us-east-1', endpoint: repos.endpoint, credentials: { mode: 'static-files', accessKeyIdFile: join(dir, 'id'), secretAccessKeyFile: join(dir, 'secret'), sessionTokenFile: null } }),
      root,
    );

    await asPg([join(PG, 'initdb'), '-D', data, '-A', 'trust', '-U', 'postgres', '--wal-segsize=1', '--no-sync']);
    writeFileSync(
      join(data, 'postgresql.auto.conf'),
      [
        `port = ${port}`,
        "listen_addresses = ''",
        `unix_socket_directories = '${sock}'`,
        'wal_level = replica',
        'archive_mode = on',
        `archive_command = '${wrapper} %p'`,
        'fsync = off',
        'autovacuum = off',
        '',
      ].join('\n'),
      { flag: 'a' },
    );
    pgStarted = true; // from here on, after() stops it (a failed start may still leave a postmaster)
    await asPg([join(PG, 'pg_ctl'), '-D', data, '-l', join(dir, 'postgres.log'), '-w', 'start']);
    await sql('create table live (id serial primary key, at timestamptz default now())');
    // One real backup: its backup.info declares the segment size; without it no gap is confirmed.
    await asPg(['env', ...awsVars(), 'barman-cloud-backup', '--endpoint-url', repos.endpoint, '--immediate-checkpoint', '-h', sock, '-p', String(port), '-U', 'postgres', `s3://${BUCKET}/${prefix}`, SERVER]);
  });

  after(async () => {
    if (pgStarted) await asPg([join(PG, 'pg_ctl'), '-D', data, '-m', 'immediate', '-w', 'stop']).catch((e: unknown) => console.error('pg_ctl stop:', e));
    driver?.close();
    if (s3 !== undefined && prefix !== '') {
      try {
        for (let token: string | undefined; ; ) {
          const page = await s3.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: `${prefix}/`, ContinuationToken: token }));
          for (const o of page.Contents ?? []) if (o.Key !== undefined) await s3.send(new DeleteObjectCommand({ Bucket: BUCKET, Key: o.Key }));
          token = page.NextContinuationToken;
          if (token === undefined) break;
        }
      } catch (e) {
        console.error('bucket cleanup:', e);
      }
      s3.destroy();
    }
    if (dir !== '') rmSync(dir, { recursive: true, force: true });
  });

  it('keeps a gap confirmed while it widens on either side and splits on a late upload, until filled', async () => {
    const publisher = testPublisher({
      identity: {
        cluster: STANDALONE_CLUSTER,
        fingerprint: destinationFingerprint({ provider: 'store-a', bucket: BUCKET, account: null, emulatorOrigin: null, prefix }, repos.endpoint),
        server: SERVER,
      },
      freshnessMs: 15 * 60_000,
    });
    /** One refresh as production runs it: the publisher's next generation and gap memory in, its publication out. */
    async function scan(): Promise<Publication> {
      const meter = new BudgetMeter({ maxPages: 10_000, maxObjects: 1_000_000 });
      const startedAt = new Date();
      const evidence = await scanScope({ format: archiveCloud,
        server: SERVER,
        root,
        driver: driver as StoreDriver,
        signal: AbortSignal.timeout(60_000),
        meter,
        concurrency: 4,
        ...publisher.nextScan,
        gapSettle: { settleMs: SETTLE_MS, longSettleMs: LONG_SETTLE_MS },
      });
      const p = publisher.complete(evidence, { startedAt, finishedAt: new Date(), pages: meter.pages, objects: meter.objects });
      assert.deepEqual(p.violations, [], `generation ${p.generation}: the publication is valid`);
      assert.equal(p.snapshot.completeness, 'complete');
      return p;
    }

    let previousTop: State | null = null;
    let confirmedSeen = false;
    /** One step: the gaps as [first, last, status, first observed generation], and the state rules. */
    async function expectGaps(step: string, expected: readonly (readonly [string, string, 'candidate' | 'confirmed', number])[]): Promise<Publication> {
      const p = await scan();
      const gaps = p.walGaps.map((g) => [g.first_wal, g.last_wal, g.status, g.first_observed_generation] as const);
      assert.deepEqual(gaps, expected, `${step}: gaps`);
      assert.ok(
        p.walGaps.every((g) => g.last_observed_generation === p.generation),
        `${step}: last observed now`,
      );
      const wal = requireCommonSummary(p.snapshot.details).wal;
      const top = p.snapshot.state;
      if (expected.length === 0) return p;
      if (expected.some(([, , status]) => status === 'confirmed')) confirmedSeen = true;
      if (confirmedSeen) assert.deepEqual([wal.state, wal.reason.code], ['unhealthy', 'wal-gap-confirmed'], `${step}: WAL state once confirmed`);
      else assert.deepEqual([wal.state, wal.reason.code], ['warning', 'wal-gap-candidate'], `${step}: WAL state of a candidate`);
      if (previousTop !== null) assert.ok(SEVERITY[top] >= SEVERITY[previousTop], `${step}: top-level state ${top} is healthier than the previous step's ${previousTop} while a gap remains`);
      previousTop = top;
      return p;
    }

    const t0 = Date.now();
    // Six segments after the backup, archived by PostgreSQL; then a baseline without any gap.
    const s = await archive(6);
    const stored = await receipts();
    for (const name of s) assert.ok(stored.has(name), `${name} archived into the store`);
    const baseline = await scan();
    assert.deepEqual(baseline.walGaps, []);
    assert.deepEqual([requireCommonSummary(baseline.snapshot.details).wal.state, baseline.snapshot.state], ['healthy', 'healthy']);
    const g = baseline.generation + 1; // the generation that first sees the gap
    const at = (i: number) => s[i] as string;

    // 1. One segment lost in the middle: a candidate (first seen in this generation).
    await take([at(2)]);
    await expectGaps('1. one segment deleted', [[at(2), at(2), 'candidate', g]]);

    // 2. The archive moves on past it by more than the settle time: confirmed. The store is on
    //    this host, so its receipt of the segment after the gap tells how long is left to wait.
    const nextReceipt = (await receipts()).get(at(3)) as number;
    await sleep(Math.max(0, nextReceipt + SETTLE_MS + 1_000 - Date.now()));
    s.push(...(await archive(2)));
    await expectGaps('2. archive moved on', [[at(2), at(2), 'confirmed', g]]);

    // 3. Widened towards the recent end: everything after it is lost but the newest segment, so
    //    the segment after the gap is the newest. By the settle rule alone it is a candidate again.
    await take([3, 4, 5, 6].map(at));
    const r = await receipts();
    assert.equal(Math.max(...r.values()), r.get(at(7)), 'premise: the segment after the widened gap is the newest');
    await expectGaps('3. widened towards the recent end', [[at(2), at(6), 'confirmed', g]]);

    // 4. Widened backwards: the segment before it is lost too.
    await take([at(1)]);
    await expectGaps('4. widened backwards', [[at(1), at(6), 'confirmed', g]]);

    // 5. A late upload in the middle of the hole (the real segment, by barman-cloud-wal-archive):
    //    two gaps, each part of the confirmed one, so both confirmed, with its history.
    await putBack([at(4)]);
    await expectGaps('5. narrowed by a late upload', [
      [at(1), at(3), 'confirmed', g],
      [at(5), at(6), 'confirmed', g],
    ]);

    // 6. Everything back: no gap, and the WAL is healthy again.
    await putBack([1, 2, 3, 5, 6].map(at));
    const filled = await expectGaps('6. filled', []);
    assert.deepEqual([requireCommonSummary(filled.snapshot.details).wal.state, requireCommonSummary(filled.snapshot.details).wal.reason.code], ['healthy', 'wal-continuous']);
    assert.equal(filled.snapshot.state, 'healthy');
    console.log(`live gap lifecycle: ${((Date.now() - t0) / 1000).toFixed(1)} s after setup`);
  });
});
