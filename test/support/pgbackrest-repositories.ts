/**
 * Test access to the real pgBackRest repository: PostgreSQL 15 and Debian's pgBackRest 2.45 wrote
 * it (test/support/make-pgbackrest-repos.sh, built once by prepare.sh like the Barman ones) as a
 * posix repository, which was then copied object for object into the Swift store under
 * `s3://<bucket>/<prefix>/`. What pgBackRest itself said about it (`info --output=json`, `verify`)
 * and the facts of the build (labels by kind, the deleted segment, the timeline switch, the
 * encrypted stanza) come back too, as the oracle a scanner is compared with. The posix tree stays
 * on disk (`posixRoot`, `files()`, `bytes()`) for tests that copy the same repository into Azurite
 * or the GCS emulator.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

const BASE = process.env['VIEWER_TEST_DIR'] ?? '/var/tmp/viewer-test';
const OUT = join(BASE, 'pgbackrest', 'out');

/** One backup in `pgbackrest info --output=json` (2.45). */
export interface PgBackRestInfoBackup {
  readonly label: string;
  readonly type: 'full' | 'diff' | 'incr';
  /** First and last WAL segment the backup needs to be consistent. */
  readonly archive: { readonly start: string; readonly stop: string };
  readonly backrest: { readonly format: number; readonly version: string };
  readonly database: { readonly id: number; readonly 'repo-key': number };
  readonly error: boolean;
  readonly info: {
    readonly size: number;
    readonly delta: number;
    readonly repository: { readonly size: number; readonly delta: number };
  };
  readonly lsn: { readonly start: string; readonly stop: string };
  readonly prior: string | null;
  readonly reference: readonly string[] | null;
  /** Epoch seconds. */
  readonly timestamp: { readonly start: number; readonly stop: number };
}

/** One stanza in `pgbackrest info --output=json` (2.45). */
export interface PgBackRestInfoStanza {
  readonly name: string;
  /** `none` or `aes-256-cbc`. */
  readonly cipher: string;
  readonly status: { readonly code: number; readonly message: string; readonly lock: { readonly backup: { readonly held: boolean } } };
  /** Archive ids with their lowest and highest WAL segment (never gaps). */
  readonly archive: readonly { readonly id: string; readonly min: string | null; readonly max: string | null; readonly database: { readonly id: number; readonly 'repo-key': number } }[];
  readonly backup: readonly PgBackRestInfoBackup[];
  /** `system-id` is a 64-bit integer that JSON.parse rounds: use the stanza facts' systemId. */
  readonly db: readonly { readonly id: number; readonly 'repo-key': number; readonly 'system-id': number; readonly version: string }[];
  readonly repo: readonly { readonly key: number; readonly cipher: string; readonly status: { readonly code: number; readonly message: string } }[];
}

/** What kind of backup a label is in the repository: listed in backup.info, expired, or interrupted. */
export type PgBackRestBackupKind = 'full' | 'diff' | 'incr' | 'expired' | 'interrupted';

/** One backup the build made (backups.tsv). */
export interface PgBackRestBackupFact {
  readonly stanza: string;
  readonly label: string;
  readonly kind: PgBackRestBackupKind;
  /** The backup's own type (an expired or interrupted one keeps it). */
  readonly type: 'full' | 'diff' | 'incr';
  /** `option-compress-type` of its manifest (`gz`, `zst`); for the encrypted stanza, what was asked for. */
  readonly compress: string;
  /** `backup-bundle` of its manifest (repo1-bundle=y). */
  readonly bundled: boolean;
  /** From pgBackRest's info (before the expire for expired backups); null for the interrupted one. */
  readonly archiveStart: string | null;
  readonly archiveStop: string | null;
}

/** A file of the posix repository: what an object store holds as one object. */
export interface RepositoryFile {
  /** Path relative to the repository root, `/`-separated: the object key without the prefix. */
  readonly key: string;
  /** Absolute path on disk. */
  readonly path: string;
  readonly size: number;
}

export interface ListedObject {
  readonly key: string;
  readonly size: number;
  readonly lastModified: string;
}

export interface PgBackRestRepository {
  readonly endpoint: string;
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly bucket: string;
  /** The repository root in the bucket, without a trailing slash: keys are `<prefix>/<relative path>`. */
  readonly prefix: string;
  /** The posix repository the objects were copied from (repo1-path). */
  readonly posixRoot: string;
  /** Every stanza of the repository root, in the order built: `main`, `encrypted`. */
  readonly stanzas: readonly string[];
  /** All facts of the build (facts.env), raw. */
  readonly facts: Readonly<Record<string, string>>;
  /**
   * Stanza `main`: timeline 1 (pgbench data), then a point-in-time restore to the restore point
   * `incident` onto timeline 2. Labels by kind, as the repository holds them after the build.
   */
  readonly main: {
    readonly stanza: string;
    readonly systemId: string;
    readonly archiveId: string;
    /** Current full backups (in backup.info), oldest first: F2 (zst, bundled, timeline 1), F3 (gz, timeline 2). */
    readonly full: readonly string[];
    /** D2 (zst, bundled). */
    readonly diff: readonly string[];
    /** I2 (zst, bundled), I3 (gz, timeline 2). */
    readonly incr: readonly string[];
    /** The backups made with repo1-bundle=y (F2's set). */
    readonly bundled: readonly string[];
    /** F1 (gz), D1, I1: expired by `expire --repo1-retention-full=2`; only their history manifests remain. */
    readonly expired: readonly string[];
    /** A full killed with SIGKILL: its directory holds backup.manifest.copy and no backup.manifest. */
    readonly interrupted: string;
    /** Keys (relative) of files the killed backup was writing, removed as an object store would never show them. */
    readonly interruptedPartialRemoved: readonly string[];
    /** Current backups on timeline 1 and on timeline 2. */
    readonly timeline1: readonly string[];
    readonly timeline2: readonly string[];
    readonly restorePoint: string;
    /** Switch point of timeline 2 (from 00000002.history), e.g. `0/16000090`. */
    readonly switchLsn: string;
    /** Timeline 2's first archived segment (the one holding the switch point). */
    readonly firstTimeline2Wal: string;
  };
  /** Stanza `encrypted` (its own cluster): repo1-cipher-type=aes-256-cbc; a full, a diff and an incr, zst, bundled. */
  readonly encrypted: {
    readonly stanza: string;
    readonly systemId: string;
    readonly cipherType: string;
    readonly cipherPass: string;
    readonly full: readonly string[];
    readonly diff: readonly string[];
    readonly incr: readonly string[];
  };
  /** The timeline-1 segment deleted after the build: the middle one of three between F2's archive stop and D2's archive start, so its hole has no retention shape. */
  readonly deletedWal: string;
  /** Its full object key (with the prefix); absent from the store and from the posix tree. */
  readonly deletedKey: string;
  /** `pgbackrest verify` on stanza main after the deletion: exit code and text output, plain and --verbose at detail level. */
  readonly verify: { readonly exitCode: number; readonly output: string; readonly detailExitCode: number; readonly detailOutput: string };
  /** Every backup the build made, both stanzas, with kind, compression, bundling and archive start/stop. */
  readonly backups: readonly PgBackRestBackupFact[];
  /** `pgbackrest info --output=json` for the stanza after the build. */
  info(stanza: string): PgBackRestInfoStanza;
  /** The same for stanza main before the expire (the expired backups are still listed). */
  readonly infoBeforeExpire: PgBackRestInfoStanza;
  /** The listing of `<prefix>/` in the store after the upload. */
  objects(): ListedObject[];
  /** The posix repository's files (symlinks and empty directories left out, as an object store would), in key order. */
  files(): RepositoryFile[];
  /** A file's bytes by its relative key. */
  bytes(key: string): Buffer;
  /** Timeline 2's history file, as archived. */
  readonly history2: string;
  /**
   * Another file of the out directory: `info-<stanza>.txt`, `expire-main.txt`, `verify-main.txt`,
   * `verify-main-detail.txt`, `backup-main-interrupted.log`, `info-main-timeline-1.json`, `pgbackrest.conf`.
   */
  outText(name: string): string;
}

function readFacts(): Readonly<Record<string, string>> {
  return Object.fromEntries(
    readFileSync(join(OUT, 'facts.env'), 'utf8')
      .split('\n')
      .filter((l) => l.includes('='))
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );
}

const words = (value: string): string[] => value.split(' ').filter(Boolean);

function readInfo(name: string): PgBackRestInfoStanza {
  const parsed = JSON.parse(readFileSync(join(OUT, name), 'utf8')) as PgBackRestInfoStanza[];
  const stanza = parsed[0];
  if (stanza === undefined || parsed.length !== 1) throw new Error(`${name}: expected one stanza`);
  return stanza;
}

function readBackups(): PgBackRestBackupFact[] {
  const [header = '', ...rows] = readFileSync(join(OUT, 'backups.tsv'), 'utf8').split('\n').filter(Boolean);
  const columns = header.split('\t');
  return rows.map((row) => {
    const cells = row.split('\t');
    const get = (name: string): string => cells[columns.indexOf(name)] ?? '';
    return {
      stanza: get('stanza'),
      label: get('label'),
      kind: get('kind') as PgBackRestBackupKind,
      type: get('type') as PgBackRestBackupFact['type'],
      compress: get('compress'),
      bundled: get('bundle') === 'y',
      archiveStart: get('archive_start') || null,
      archiveStop: get('archive_stop') || null,
    };
  });
}

/** Files under root as relative keys, skipping symlinks; directories contribute only their files. */
export function listRepositoryFiles(root: string): RepositoryFile[] {
  const out: RepositoryFile[] = [];
  const walk = (dir: string, rel: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      const key = rel === '' ? entry.name : `${rel}/${entry.name}`;
      if (entry.isDirectory()) walk(path, key);
      else if (entry.isFile()) out.push({ key, path, size: statSync(path).size });
    }
  };
  walk(root, '');
  return out.sort((a, b) => Buffer.compare(Buffer.from(a.key), Buffer.from(b.key)));
}

let cached: PgBackRestRepository | undefined;

export function pgbackrestRepository(): PgBackRestRepository {
  if (cached !== undefined) return cached;
  execFileSync('bash', [join(import.meta.dirname, 'prepare.sh')], { stdio: ['ignore', 'ignore', 'inherit'], timeout: 20 * 60_000 });
  const facts = readFacts();
  const fact = (name: string): string => {
    const value = facts[name];
    if (value === undefined) throw new Error(`pgBackRest facts.env has no ${name}: rebuild with test/support/prepare.sh`);
    return value;
  };
  const outText = (name: string): string => readFileSync(join(OUT, name), 'utf8');
  const posixRoot = fact('POSIX_ROOT');
  const infos = new Map<string, PgBackRestInfoStanza>();
  cached = {
    endpoint: fact('S3_ENDPOINT'),
    accessKeyId: 'test:tester',
    secretAccessKey: 'testing',
    bucket: fact('BUCKET'),
    prefix: fact('PREFIX'),
    posixRoot,
    stanzas: words(fact('STANZAS')),
    facts,
    main: {
      stanza: fact('MAIN_STANZA'),
      systemId: fact('MAIN_SYSTEM_ID'),
      archiveId: fact('MAIN_ARCHIVE_ID'),
      full: words(fact('MAIN_FULL')),
      diff: words(fact('MAIN_DIFF')),
      incr: words(fact('MAIN_INCR')),
      bundled: words(fact('MAIN_BUNDLED')),
      expired: words(fact('MAIN_EXPIRED')),
      interrupted: fact('MAIN_INTERRUPTED'),
      interruptedPartialRemoved: words(fact('MAIN_INTERRUPTED_PARTIAL_REMOVED')),
      timeline1: words(fact('MAIN_TIMELINE_1')),
      timeline2: words(fact('MAIN_TIMELINE_2')),
      restorePoint: fact('MAIN_RESTORE_POINT'),
      switchLsn: fact('MAIN_SWITCH_LSN'),
      firstTimeline2Wal: fact('MAIN_FIRST_TIMELINE_2_WAL'),
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
    verify: {
      exitCode: Number(fact('VERIFY_EXIT')),
      output: outText('verify-main.txt'),
      detailExitCode: Number(fact('VERIFY_DETAIL_EXIT')),
      detailOutput: outText('verify-main-detail.txt'),
    },
    backups: readBackups(),
    info: (stanza) => {
      let info = infos.get(stanza);
      if (info === undefined) infos.set(stanza, (info = readInfo(`info-${stanza}.json`)));
      return info;
    },
    infoBeforeExpire: readInfo(`info-${fact('MAIN_STANZA')}-before-expire.json`),
    objects: () =>
      outText('objects.tsv')
        .split('\n')
        .filter(Boolean)
        .map((l) => {
          const [key = '', size = '0', lastModified = ''] = l.split('\t');
          return { key, size: Number(size), lastModified };
        }),
    files: () => listRepositoryFiles(posixRoot),
    bytes: (key) => readFileSync(join(posixRoot, ...key.split('/'))),
    history2: outText('history-2.txt'),
    outText,
  };
  return cached;
}
