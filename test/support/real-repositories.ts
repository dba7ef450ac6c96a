/**
 * Test access to the real parts: the Swift S3 store and the repositories real PostgreSQL and
 * Barman wrote into it (test/support/prepare.sh builds them once; calling it again is cheap and
 * serialised, so any test file may ask). What Barman itself reported about the repositories comes
 * back too, as the oracle the scanner is compared with: `pg-main` and `pg-wal1m` under `prefix`, the
 * scenario servers `pg-retention`, `pg-standalone` and `pg-damaged` under `scenarioPrefix`.
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

/** A run of missing WAL segments between two archived ones of one timeline, as make-barman-repos.sh computed it. */
export interface WalHole {
  readonly first: string;
  readonly last: string;
}

/**
 * Server `pg-retention` (under the scenario prefix): backups A, B, C with WAL between, A marked
 * keep standalone, then `barman-cloud-backup-delete -r "REDUNDANCY 1"` deleted B and WAL.
 */
export interface RetentionFacts {
  readonly backupA: string;
  readonly backupB: string;
  readonly backupC: string;
  readonly beginWalA: string;
  readonly endWalA: string;
  readonly beginWalB: string;
  readonly endWalB: string;
  readonly beginWalC: string;
  readonly endWalC: string;
  /** The policy given to barman-cloud-backup-delete -r. */
  readonly policy: string;
  /** Every key Barman deleted (listing before minus listing after), sorted. */
  readonly deletedKeys: readonly string[];
  /** The WAL segment names among them (compression suffix stripped). */
  readonly deletedWals: readonly string[];
  /** The backup-history file names among them (`<segment>.<offset>.backup`). */
  readonly deletedBackupHistory: readonly string[];
  /** Holes strictly between archived segments after the delete, per timeline, in order. */
  readonly holes: readonly WalHole[];
}

/** Server `pg-standalone`: backup S (keep standalone), WAL, backup N, WAL; one segment between them deleted. */
export interface StandaloneFacts {
  readonly backupS: string;
  readonly backupN: string;
  readonly beginWalS: string;
  readonly endWalS: string;
  readonly beginWalN: string;
  readonly endWalN: string;
  readonly lostWal: string;
  readonly lostKey: string;
  /** Holes between archived segments: exactly the lost segment. */
  readonly holes: readonly WalHole[];
}

/** Server `pg-damaged`: D1, D2, D3; D1's data.tar deleted, D2's begin_wal segment cut to its first bytes. */
export interface DamagedFacts {
  readonly backup1: string;
  readonly backup2: string;
  readonly backup3: string;
  readonly beginWal2: string;
  readonly endWal2: string;
  /** D1's deleted data.tar key. */
  readonly deletedKey: string;
  readonly truncatedWal: string;
  readonly truncatedKey: string;
  /** Size of the cut object in bytes. */
  readonly truncatedSize: number;
  /** Size of the segment before it was cut (16 MiB, plain WAL). */
  readonly truncatedOriginalSize: number;
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
  /** Backup ids and the deleted segment (facts.env of make-barman-repos.sh), all servers' facts raw. */
  readonly facts: Readonly<Record<string, string>>;
  /** Prefix of the scenario servers (pg-retention, pg-standalone, pg-damaged): `s3://<bucket>/<scenarioPrefix>`. */
  readonly scenarioPrefix: string;
  readonly retention: RetentionFacts;
  readonly standalone: StandaloneFacts;
  readonly damaged: DamagedFacts;
  /** `barman-cloud-backup-list --format json`, any server. */
  backupList(server: string): BarmanBackup[];
  /** `barman-cloud-backup-list` console output (with `KEEP:…` archival status), scenario servers. */
  backupListText(server: string): string;
  /** The raw listing of `<prefix>/<server>/` after the build. */
  objects(server: string): ListedObject[];
  /**
   * Another file of the out directory, e.g. `retention-keys-before.txt`, `retention-keys-after.txt`,
   * `retention-deleted-keys.txt`, `retention-delete-dry-run.txt`, `keep-status-pg-retention-A.txt`,
   * `backup-list-pg-retention-before-delete.txt`.
   */
  outText(name: string): string;
  readonly history2: string;
}

function factReader(facts: Readonly<Record<string, string>>): (name: string) => string {
  return (name) => {
    const value = facts[name];
    if (value === undefined) throw new Error(`facts.env has no ${name}: rebuild with test/support/prepare.sh`);
    return value;
  };
}

const words = (value: string): string[] => value.split(' ').filter(Boolean);
const holes = (value: string): WalHole[] =>
  value
    .split(',')
    .filter(Boolean)
    .map((h) => {
      const [first = '', last = ''] = h.split(':');
      return { first, last };
    });

function retentionFacts(fact: (name: string) => string): RetentionFacts {
  return {
    backupA: fact('RETENTION_BACKUP_A'),
    backupB: fact('RETENTION_BACKUP_B'),
    backupC: fact('RETENTION_BACKUP_C'),
    beginWalA: fact('RETENTION_BEGIN_WAL_A'),
    endWalA: fact('RETENTION_END_WAL_A'),
    beginWalB: fact('RETENTION_BEGIN_WAL_B'),
    endWalB: fact('RETENTION_END_WAL_B'),
    beginWalC: fact('RETENTION_BEGIN_WAL_C'),
    endWalC: fact('RETENTION_END_WAL_C'),
    policy: fact('RETENTION_POLICY'),
    deletedKeys: words(fact('RETENTION_DELETED_KEYS')),
    deletedWals: words(fact('RETENTION_DELETED_WALS')),
    deletedBackupHistory: words(fact('RETENTION_DELETED_BACKUP_HISTORY')),
    holes: holes(fact('RETENTION_HOLES')),
  };
}

function standaloneFacts(fact: (name: string) => string): StandaloneFacts {
  return {
    backupS: fact('STANDALONE_BACKUP_S'),
    backupN: fact('STANDALONE_BACKUP_N'),
    beginWalS: fact('STANDALONE_BEGIN_WAL_S'),
    endWalS: fact('STANDALONE_END_WAL_S'),
    beginWalN: fact('STANDALONE_BEGIN_WAL_N'),
    endWalN: fact('STANDALONE_END_WAL_N'),
    lostWal: fact('STANDALONE_LOST_WAL'),
    lostKey: fact('STANDALONE_LOST_KEY'),
    holes: holes(fact('STANDALONE_HOLES')),
  };
}

function damagedFacts(fact: (name: string) => string): DamagedFacts {
  return {
    backup1: fact('DAMAGED_BACKUP_1'),
    backup2: fact('DAMAGED_BACKUP_2'),
    backup3: fact('DAMAGED_BACKUP_3'),
    beginWal2: fact('DAMAGED_BEGIN_WAL_2'),
    endWal2: fact('DAMAGED_END_WAL_2'),
    deletedKey: fact('DAMAGED_DELETED_KEY'),
    truncatedWal: fact('DAMAGED_TRUNCATED_WAL'),
    truncatedKey: fact('DAMAGED_TRUNCATED_KEY'),
    truncatedSize: Number(fact('DAMAGED_TRUNCATED_SIZE')),
    truncatedOriginalSize: Number(fact('DAMAGED_TRUNCATED_ORIGINAL_SIZE')),
  };
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
  const fact = factReader(facts);
  // The scenario facts are read when first asked for, so a test of pg-main alone never depends on them.
  let retention: RetentionFacts | undefined;
  let standalone: StandaloneFacts | undefined;
  let damaged: DamagedFacts | undefined;
  cached = {
    endpoint: facts['S3_ENDPOINT'] ?? 'http://127.0.0.1:18080',
    accessKeyId: 'test:tester',
    secretAccessKey: 'testing',
    otherAccessKeyId: 'other:reader',
    otherSecretAccessKey: 'readerpass',
    bucket: facts['BUCKET'] ?? 'barman',
    prefix: facts['PREFIX'] ?? 'fixtures',
    facts,
    scenarioPrefix: facts['SCENARIO_PREFIX'] ?? 'scenarios',
    get retention() {
      return (retention ??= retentionFacts(fact));
    },
    get standalone() {
      return (standalone ??= standaloneFacts(fact));
    },
    get damaged() {
      return (damaged ??= damagedFacts(fact));
    },
    backupListText: (server) => readFileSync(join(OUT, `backup-list-${server}.txt`), 'utf8'),
    outText: (name) => readFileSync(join(OUT, name), 'utf8'),
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
