/**
 * Test access to the repositories the tools people run today wrote into the Swift S3 store:
 * PostgreSQL 18 with Barman 3.20 (barman-cli-cloud) under `s3://barman/current-barman`, and
 * PostgreSQL 18 with pgBackRest 2.60 under `s3://barman/current-pgbackrest`, both built inside a
 * Debian sid root (test/support/make-current-root.sh, make-current-barman-repos.sh,
 * make-current-pgbackrest-repos.sh; prepare.sh builds them once per machine, and calling it again
 * is cheap and serialised). What the tools themselves reported comes back too, as the oracle the
 * scanner is compared with: `barman-cloud-backup-list --format json`, `barman-cloud-backup-show
 * --format json` per backup, `pgbackrest info --output=json` per stanza, each manifest's options
 * read back with `pgbackrest repo-get`, the key listings and the facts of the builds.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const BASE = process.env['VIEWER_TEST_DIR'] ?? '/var/tmp/viewer-test';
const OUT = join(BASE, 'current', 'out');

export interface ListedObject {
  readonly key: string;
  readonly size: number;
  readonly lastModified: string;
}

/** The versions inside the root, as its build printed them (versions.txt). */
export interface CurrentVersions {
  /** `18.6` */
  readonly postgresql: string;
  /** `3.20.1` */
  readonly barman: string;
  /** `2.60.0` */
  readonly pgbackrest: string;
  /** Every line of versions.txt, `name=value`: debian, postgresql, barman-cli-cloud, pgbackrest, python, snappy-workaround. */
  readonly raw: Readonly<Record<string, string>>;
}

/**
 * One backup as Barman 3.20 reports it (`barman-cloud-backup-list --format json`'s
 * `backups_list`, or the one value of `barman-cloud-backup-show --format json`): backup.info's
 * keys, `None` as null, plus `backup_id`, `begin_time_iso` and `end_time_iso`.
 */
export interface BarmanCurrentBackup {
  readonly backup_id: string;
  readonly status: string;
  readonly begin_wal: string | null;
  readonly end_wal: string | null;
  readonly begin_xlog: string | null;
  readonly end_xlog: string | null;
  readonly begin_time_iso: string | null;
  readonly end_time_iso: string | null;
  readonly timeline: number | null;
  readonly systemid: string | null;
  /** PostgreSQL's server_version_num, e.g. 180006. */
  readonly version: number;
  readonly xlog_segment_size: number;
  /** Keys Barman 3.4 never wrote. */
  readonly cluster_size: number | null;
  readonly data_checksums: string | null;
  readonly summarize_wal: string | null;
  readonly parent_backup_id: string | null;
  readonly children_backup_ids: readonly string[] | null;
  readonly encryption: string | null;
  /** `None` for every barman-cloud backup (3.20 writes `mode=None`). */
  readonly mode: string | null;
  /** Always `None` for barman-cloud backups, whatever the tar compression. */
  readonly compression: string | null;
  readonly backup_name?: string | null;
  /** `[name, oid, location]` per tablespace, or null. */
  readonly tablespaces: readonly (readonly [string, number, string])[] | null;
  readonly [key: string]: unknown;
}

/** Server `pg18` under `s3://barman/current-barman` (see make-current-barman-repos.sh). */
export interface CurrentBarmanRepository {
  readonly bucket: string;
  /** `current-barman`: DESTINATION_PATH is `s3://<bucket>/<prefix>`. */
  readonly prefix: string;
  readonly server: string;
  /** Every fact of the build (facts.env), raw. */
  readonly facts: Readonly<Record<string, string>>;
  readonly systemId: string;
  /** The four backups in order: B1 --lz4, B2 --zstd (tablespace ts1), B3 --gzip in parts (named before-incident, kept), B4 --snappy on timeline 2 (named after-pitr). */
  readonly backups: { readonly lz4: string; readonly zstd: string; readonly gzipParts: string; readonly snappy: string };
  readonly ids: readonly string[];
  readonly timeline1: readonly string[];
  readonly timeline2: readonly string[];
  /** backup id → name given with `--name`. */
  readonly names: Readonly<Record<string, string>>;
  readonly keep: { readonly backupId: string; readonly target: string; readonly status: string };
  readonly tablespace: { readonly name: string; readonly oid: number; readonly firstBackup: string };
  /** How many `data[_NNNN].tar.gz` parts B3 has (`--max-archive-size`). */
  readonly gzipDataParts: number;
  /** The timeline-1 segment deleted after the build (xz; between B2's end_wal and B3's begin_wal, archived neighbours on both sides). */
  readonly deletedWal: string;
  readonly deletedKey: string;
  /** Timeline 2's switch point (`0/F000090`) and first segment. */
  readonly switchLsn: string;
  readonly firstTimeline2Wal: string;
  /** `barman-cloud-backup-list --format json` after the build. */
  backupList(): BarmanCurrentBackup[];
  /** `barman-cloud-backup-show --format json` of one backup. */
  backupShow(id: string): BarmanCurrentBackup;
  /** The listing of `<prefix>/` after the build (the deleted segment absent). */
  objects(): ListedObject[];
  /** Timeline 2's history file, decompressed (it is archived as `00000002.history.zst`). */
  readonly history2: string;
  /** Another file of its out directory: `backup-list.txt`, `backup-show-<id>.txt`, `keep-<id>.txt`. */
  outText(name: string): string;
}

/** One backup in `pgbackrest info --output=json` (2.60). */
export interface PgBackRestCurrentInfoBackup {
  readonly label: string;
  readonly type: 'full' | 'diff' | 'incr';
  readonly archive: { readonly start: string; readonly stop: string };
  readonly lsn: { readonly start: string; readonly stop: string };
  readonly prior: string | null;
  readonly reference: readonly string[] | null;
  readonly timestamp: { readonly start: number; readonly stop: number };
  readonly annotation?: Readonly<Record<string, string>>;
  readonly error: boolean;
  /** `repository.size` is no longer printed when backup.info has the size maps (2.53+). */
  readonly info: {
    readonly size: number;
    readonly delta: number;
    readonly repository: { readonly delta: number; readonly 'delta-map'?: number; readonly 'size-map'?: number; readonly size?: number };
  };
  readonly backrest: { readonly format: number; readonly version: string };
}

/** One stanza in `pgbackrest info --output=json` (2.60). */
export interface PgBackRestCurrentInfoStanza {
  readonly name: string;
  readonly cipher: string;
  readonly status: { readonly code: number; readonly message: string };
  readonly archive: readonly { readonly id: string; readonly min: string | null; readonly max: string | null }[];
  readonly backup: readonly PgBackRestCurrentInfoBackup[];
  /** `system-id` is a 64-bit integer that JSON.parse rounds: use the stanza's systemId. */
  readonly db: readonly { readonly id: number; readonly 'system-id': number; readonly version: string }[];
}

/** Per current backup, what its manifest says (read back with `pgbackrest repo-get`, decrypted for the cipher stanza). */
export interface PgBackRestManifestFact {
  readonly stanza: string;
  readonly label: string;
  readonly type: 'full' | 'diff' | 'incr';
  readonly prior: string | null;
  /** `option-compress-type`: `zst` here. */
  readonly compress: string;
  readonly bundle: boolean;
  readonly blockIncr: boolean;
  /** `[backup:db] db-version`: `18`. */
  readonly dbVersion: string;
  /** Entries of `[backup:target]` with a `tablespace-id`. */
  readonly tablespaces: number;
  /** `key=value,...` of its annotation, or empty. */
  readonly annotation: string;
}

/** Repository path `/current-pgbackrest` in the bucket (see make-current-pgbackrest-repos.sh). */
export interface CurrentPgBackRestRepository {
  readonly bucket: string;
  /** `current-pgbackrest`: keys are `<prefix>/archive/...` and `<prefix>/backup/...`. */
  readonly prefix: string;
  readonly stanzas: readonly string[];
  readonly facts: Readonly<Record<string, string>>;
  readonly main: {
    readonly stanza: string;
    readonly systemId: string;
    readonly archiveId: string;
    /** Current backups after the expire, oldest first: F2 (annotated), D2, I2, I3 (timeline 2, its chain on timeline 1), F3, I4. */
    readonly backups: readonly string[];
    readonly full: readonly string[];
    readonly diff: readonly string[];
    readonly incr: readonly string[];
    /** F1, D1, I1, expired by `expire --repo1-retention-full=2`. */
    readonly expired: readonly string[];
    readonly annotated: string;
    /** `purpose=before the incident`. */
    readonly annotation: string;
    readonly timeline1: readonly string[];
    readonly timeline2: readonly string[];
    /** I3: an incr on timeline 2 whose prior and references lie on timeline 1. */
    readonly crossTimelineIncr: string;
    readonly switchLsn: string;
    readonly firstTimeline2Wal: string;
    /** How many `.pgbi` objects (block incremental) the whole repository holds. */
    readonly pgbiObjects: number;
  };
  readonly encrypted: {
    readonly stanza: string;
    readonly systemId: string;
    readonly cipherType: string;
    readonly cipherPass: string;
    readonly full: readonly string[];
    readonly diff: readonly string[];
    readonly incr: readonly string[];
  };
  /** The timeline-1 segment of stanza main deleted after the build: the middle one of three between F2's archive stop and D2's archive start. */
  readonly deletedWal: string;
  readonly deletedKey: string;
  /** `pgbackrest verify` on stanza main after the deletion: its exit code (0: it does not see the hole) and output. */
  readonly verify: { readonly exitCode: number; readonly output: string };
  info(stanza: string): PgBackRestCurrentInfoStanza;
  readonly infoBeforeExpire: PgBackRestCurrentInfoStanza;
  readonly manifests: readonly PgBackRestManifestFact[];
  objects(): ListedObject[];
  /** Timeline 2's history file of stanza main. */
  readonly history2: string;
  /** Another file of its out directory: `info-<stanza>.txt`, `expire-main.txt`, `verify-main.txt`, `pgbackrest.conf`. */
  outText(name: string): string;
}

export interface CurrentRepositories {
  readonly endpoint: string;
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly bucket: string;
  readonly versions: CurrentVersions;
  readonly barman: CurrentBarmanRepository;
  readonly pgbackrest: CurrentPgBackRestRepository;
}

const words = (value: string): string[] => value.split(' ').filter(Boolean);

function keyValues(text: string): Record<string, string> {
  return Object.fromEntries(
    text
      .split('\n')
      .filter((l) => l.includes('='))
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );
}

function listing(text: string): ListedObject[] {
  return text
    .split('\n')
    .filter(Boolean)
    .map((l) => {
      const [key = '', size = '0', lastModified = ''] = l.split('\t');
      return { key, size: Number(size), lastModified };
    });
}

function factReader(facts: Readonly<Record<string, string>>, where: string): (name: string) => string {
  return (name) => {
    const value = facts[name];
    if (value === undefined) throw new Error(`${where} facts.env has no ${name}: rebuild with test/support/prepare.sh`);
    return value;
  };
}

function barmanRepository(): CurrentBarmanRepository {
  const dir = join(OUT, 'barman');
  const outText = (name: string): string => readFileSync(join(dir, name), 'utf8');
  const facts = keyValues(outText('facts.env'));
  const fact = factReader(facts, 'current Barman');
  const names = Object.fromEntries(words(fact('NAMED_BACKUPS')).map((p) => [p.slice(0, p.indexOf(':')), p.slice(p.indexOf(':') + 1)]));
  const keepId = fact('KEEP_BACKUP');
  return {
    bucket: fact('BUCKET'),
    prefix: fact('PREFIX'),
    server: fact('SERVER'),
    facts,
    systemId: fact('SYSTEM_ID'),
    backups: { lz4: fact('BACKUP_LZ4'), zstd: fact('BACKUP_ZSTD'), gzipParts: fact('BACKUP_GZIP_PARTS'), snappy: fact('BACKUP_SNAPPY') },
    ids: words(fact('BACKUPS')),
    timeline1: words(fact('TIMELINE_1_BACKUPS')),
    timeline2: words(fact('TIMELINE_2_BACKUPS')),
    names,
    keep: { backupId: keepId, target: fact('KEEP_TARGET'), status: outText(`keep-${keepId}.txt`).trim() },
    tablespace: { name: fact('TABLESPACE_NAME'), oid: Number(fact('TABLESPACE_OID')), firstBackup: fact('TABLESPACE_BACKUP') },
    gzipDataParts: Number(fact('GZIP_DATA_PARTS')),
    deletedWal: fact('DELETED_WAL'),
    deletedKey: fact('DELETED_KEY'),
    switchLsn: fact('SWITCH_LSN'),
    firstTimeline2Wal: fact('FIRST_TIMELINE_2_WAL'),
    backupList: () => (JSON.parse(outText('backup-list.json')) as { backups_list: BarmanCurrentBackup[] }).backups_list,
    backupShow: (id) => {
      // Keyed by the server name backup.info holds ("cloud" for every barman-cloud backup).
      const values = Object.values(JSON.parse(outText(`backup-show-${id}.json`)) as Record<string, BarmanCurrentBackup>);
      if (values.length !== 1 || values[0] === undefined) throw new Error(`backup-show-${id}.json: expected one backup`);
      return values[0];
    },
    objects: () => listing(outText('objects.tsv')),
    history2: outText('history-2.txt'),
    outText,
  };
}

function pgbackrestRepository(): CurrentPgBackRestRepository {
  const dir = join(OUT, 'pgbackrest');
  const outText = (name: string): string => readFileSync(join(dir, name), 'utf8');
  const facts = keyValues(outText('facts.env'));
  const fact = factReader(facts, 'current pgBackRest');
  const readInfo = (name: string): PgBackRestCurrentInfoStanza => {
    const parsed = JSON.parse(outText(name)) as PgBackRestCurrentInfoStanza[];
    if (parsed.length !== 1 || parsed[0] === undefined) throw new Error(`${name}: expected one stanza`);
    return parsed[0];
  };
  const [header = '', ...rows] = outText('manifests.tsv').split('\n').filter(Boolean);
  const columns = header.split('\t');
  const manifests = rows.map((row): PgBackRestManifestFact => {
    const cells = row.split('\t');
    const get = (name: string): string => cells[columns.indexOf(name)] ?? '';
    return {
      stanza: get('stanza'),
      label: get('label'),
      type: get('type') as PgBackRestManifestFact['type'],
      prior: get('prior') || null,
      compress: get('compress'),
      bundle: get('bundle') === 'y',
      blockIncr: get('block_incr') === 'y',
      dbVersion: get('db_version'),
      tablespaces: Number(get('tablespaces')),
      annotation: get('annotation'),
    };
  });
  const infos = new Map<string, PgBackRestCurrentInfoStanza>();
  return {
    bucket: fact('BUCKET'),
    prefix: fact('PREFIX'),
    stanzas: words(fact('STANZAS')),
    facts,
    main: {
      stanza: fact('MAIN_STANZA'),
      systemId: fact('MAIN_SYSTEM_ID'),
      archiveId: fact('MAIN_ARCHIVE_ID'),
      backups: words(fact('MAIN_BACKUPS')),
      full: words(fact('MAIN_FULL')),
      diff: words(fact('MAIN_DIFF')),
      incr: words(fact('MAIN_INCR')),
      expired: words(fact('MAIN_EXPIRED')),
      annotated: fact('MAIN_ANNOTATED'),
      annotation: fact('MAIN_ANNOTATION'),
      timeline1: words(fact('MAIN_TIMELINE_1')),
      timeline2: words(fact('MAIN_TIMELINE_2')),
      crossTimelineIncr: fact('MAIN_CROSS_TIMELINE_INCR'),
      switchLsn: fact('MAIN_SWITCH_LSN'),
      firstTimeline2Wal: fact('MAIN_FIRST_TIMELINE_2_WAL'),
      pgbiObjects: Number(fact('PGBI_OBJECTS')),
    },
    encrypted: {
      stanza: fact('CIPHER_STANZA'),
      systemId: fact('ENCRYPTED_SYSTEM_ID'),
      cipherType: fact('CIPHER_TYPE'),
      cipherPass: fact('CIPHER_PASS'),
      full: words(fact('ENCRYPTED_FULL')),
      diff: words(fact('ENCRYPTED_DIFF')),
      incr: words(fact('ENCRYPTED_INCR')),
    },
    deletedWal: fact('DELETED_WAL'),
    deletedKey: fact('DELETED_KEY'),
    verify: { exitCode: Number(fact('VERIFY_EXIT')), output: outText(`verify-${fact('MAIN_STANZA')}.txt`) },
    info: (stanza) => {
      let info = infos.get(stanza);
      if (info === undefined) infos.set(stanza, (info = readInfo(`info-${stanza}.json`)));
      return info;
    },
    infoBeforeExpire: readInfo(`info-${fact('MAIN_STANZA')}-before-expire.json`),
    manifests,
    objects: () => listing(outText('objects.tsv')),
    history2: outText('history-2.txt'),
    outText,
  };
}

let cached: CurrentRepositories | undefined;

/** Builds (once per machine) and returns the current tools' repositories. */
export function currentRepositories(): CurrentRepositories {
  if (cached !== undefined) return cached;
  execFileSync('bash', [join(import.meta.dirname, 'prepare.sh')], { stdio: ['ignore', 'ignore', 'inherit'], timeout: 20 * 60_000 });
  const raw = keyValues(readFileSync(join(OUT, 'barman', 'versions.txt'), 'utf8'));
  const barman = barmanRepository();
  const pgbackrest = pgbackrestRepository();
  cached = {
    endpoint: barman.facts['S3_ENDPOINT'] ?? 'http://127.0.0.1:18080',
    accessKeyId: 'test:tester',
    secretAccessKey: 'testing',
    bucket: barman.bucket,
    versions: {
      postgresql: barman.facts['POSTGRESQL_VERSION'] ?? '',
      barman: barman.facts['BARMAN_VERSION'] ?? '',
      pgbackrest: pgbackrest.facts['PGBACKREST_VERSION'] ?? '',
      raw,
    },
    barman,
    pgbackrest,
  };
  return cached;
}
