/**
 * Test access to the real parts: the Swift S3 store and the repositories real PostgreSQL and
 * Barman wrote into it (test/support/prepare.sh builds them once; calling it again is cheap and
 * serialised, so any test file may ask). What Barman itself reported about the repositories comes
 * back too, as the oracle the scanner is compared with.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const BASE = process.env['VIEWER_TEST_DIR'] ?? '/var/tmp/viewer-test';
const OUT = join(BASE, 'repos', 'out');

export interface BarmanBackup {
  readonly backup_id: string;
  readonly status: string;
  readonly begin_wal: string | null;
  readonly end_wal: string | null;
  readonly timeline: number | null;
  readonly systemid: string | null;
  readonly xlog_segment_size: number;
  readonly version: number;
}

export interface ListedObject {
  readonly key: string;
  readonly size: number;
  readonly lastModified: string;
}

export interface RealRepositories {
  readonly endpoint: string;
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  /** A valid user of the same store without rights on the test buckets. */
  readonly otherAccessKeyId: string;
  readonly otherSecretAccessKey: string;
  readonly bucket: string;
  readonly prefix: string;
  /** Backup ids and the deleted segment (facts.env of make-barman-repos.sh). */
  readonly facts: Readonly<Record<string, string>>;
  backupList(server: string): BarmanBackup[];
  objects(server: string): ListedObject[];
  readonly history2: string;
}

let cached: RealRepositories | undefined;

export function realRepositories(): RealRepositories {
  if (cached !== undefined) return cached;
  execFileSync('bash', [join(import.meta.dirname, 'prepare.sh')], { stdio: ['ignore', 'ignore', 'inherit'], timeout: 20 * 60_000 });
  const facts = Object.fromEntries(
    readFileSync(join(OUT, 'facts.env'), 'utf8')
      .split('\n')
      .filter((l) => l.includes('='))
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );
  cached = {
    endpoint: facts['S3_ENDPOINT'] ?? 'http://127.0.0.1:18080',
    accessKeyId: 'test:tester',
    secretAccessKey: 'testing',
    otherAccessKeyId: 'other:reader',
    otherSecretAccessKey: 'readerpass',
    bucket: facts['BUCKET'] ?? 'barman',
    prefix: facts['PREFIX'] ?? 'fixtures',
    facts,
    backupList: (server) => (JSON.parse(readFileSync(join(OUT, `backup-list-${server}.json`), 'utf8')) as { backups_list: BarmanBackup[] }).backups_list,
    objects: (server) =>
      readFileSync(join(OUT, `objects-${server}.tsv`), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => {
          const [key = '', size = '0', lastModified = ''] = l.split('\t');
          return { key, size: Number(size), lastModified };
        }),
    history2: readFileSync(join(OUT, 'history-2.txt'), 'utf8'),
  };
  return cached;
}
