/**
 * Info files written by pgBackRest 2.45 for PostgreSQL 15 (research real-repository.md, "pgBackRest
 * 2.45 against s3rver"), byte for byte, and a helper that seals hand-made variants with a checksum
 * computed independently of src/format/stanza-repository/info-file.ts (the rule of research
 * pgbackrest-format.md §2), for that format's tests.
 */
import { createHash } from 'node:crypto';

export const REAL_ARCHIVE_INFO = `[backrest]
backrest-format=5
backrest-version="2.45"

[db]
db-id=1
db-system-id=7710615802719085140
db-version="15"

[db:history]
1={"db-id":7710615802719085140,"db-version":"15"}

[backrest]
backrest-checksum="b7d89e982470d756b0b95fcb197e852f3bfde816"
`;

export const REAL_BACKUP_INFO = `[backrest]
backrest-format=5
backrest-version="2.45"

[backup:current]
20261121-132726F={"backrest-format":5,"backrest-version":"2.45","backup-archive-start":"000000010000000000000003","backup-archive-stop":"000000010000000000000003","backup-error":false,"backup-info-repo-size":3890341,"backup-info-repo-size-delta":3890341,"backup-info-size":38860514,"backup-info-size-delta":38860514,"backup-lsn-start":"0/3000028","backup-lsn-stop":"0/3000100","backup-timestamp-start":1795267646,"backup-timestamp-stop":1795267650,"backup-type":"full","db-id":1,"option-archive-check":true,"option-archive-copy":false,"option-backup-standby":false,"option-checksum-page":false,"option-compress":true,"option-hardlink":false,"option-online":true}
20261121-132726F_20261121-132731I={"backrest-format":5,"backrest-version":"2.45","backup-archive-start":"000000010000000000000005","backup-archive-stop":"000000010000000000000006","backup-error":false,"backup-info-repo-size":3918230,"backup-info-repo-size-delta":973602,"backup-info-size":38934242,"backup-info-size-delta":16621834,"backup-lsn-start":"0/5000028","backup-lsn-stop":"0/6000050","backup-prior":"20261121-132726F","backup-reference":["20261121-132726F"],"backup-timestamp-start":1795267651,"backup-timestamp-stop":1795267652,"backup-type":"incr","db-id":1,"option-archive-check":true,"option-archive-copy":false,"option-backup-standby":false,"option-checksum-page":false,"option-compress":true,"option-hardlink":false,"option-online":true}
20261121-132726F_20261121-132733D={"backrest-format":5,"backrest-version":"2.45","backup-archive-start":"000000010000000000000007","backup-archive-stop":"000000010000000000000008","backup-error":false,"backup-info-repo-size":3918229,"backup-info-repo-size-delta":973601,"backup-info-size":38934242,"backup-info-size-delta":16621834,"backup-lsn-start":"0/7000028","backup-lsn-stop":"0/8000050","backup-prior":"20261121-132726F","backup-reference":["20261121-132726F"],"backup-timestamp-start":1795267653,"backup-timestamp-stop":1795267655,"backup-type":"diff","db-id":1,"option-archive-check":true,"option-archive-copy":false,"option-backup-standby":false,"option-checksum-page":false,"option-compress":true,"option-hardlink":false,"option-online":true}

[db]
db-catalog-version=202209061
db-control-version=1300
db-id=1
db-system-id=7710615802719085140
db-version="15"

[db:history]
1={"db-catalog-version":202209061,"db-control-version":1300,"db-system-id":7710615802719085140,"db-version":"15"}

[backrest]
backrest-checksum="50541718ecd2f847f035ab16ea5f18b8f2f65cf0"
`;

export const enc = (s: string): Uint8Array => new TextEncoder().encode(s);

/**
 * `text` (an info file without its closing checksum section, ASCII keys) closed with the
 * checksum pgBackRest would write: SHA-1 of `{"section":{"key":raw value,...},...}` over every
 * value in file order, a section opened again whenever it changes.
 */
export function seal(text: string): string {
  let canonical = '{';
  let last = '';
  let section = '';
  for (const line of text.split('\n')) {
    if (line === '') continue;
    if (line.startsWith('[') && line.endsWith(']')) {
      section = line.slice(1, -1);
      continue;
    }
    // The key ends at the first `=` that leaves JSON on its right (keys may hold `=`).
    let eq = line.indexOf('=');
    while (!isJson(line.slice(eq + 1))) eq = line.indexOf('=', eq + 1);
    const key = line.slice(0, eq);
    canonical += last === section ? ',' : `${last === '' ? '' : '},'}"${section}":{`;
    last = section;
    canonical += `${JSON.stringify(key)}:${line.slice(eq + 1)}`;
  }
  canonical += '}}';
  const sum = createHash('sha1').update(canonical, 'utf8').digest('hex');
  return `${text.endsWith('\n') ? text : `${text}\n`}\n[backrest]\nbackrest-checksum="${sum}"\n`;
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** The text of an info file before its closing `[backrest]` checksum section. */
export function unsealed(text: string): string {
  const at = text.lastIndexOf('\n[backrest]\nbackrest-checksum=');
  return at === -1 ? text : text.slice(0, at);
}

/** One `[target:file]` entry: its name and JSON object (keys are written sorted, as pgBackRest does). */
export type ManifestFileEntry = readonly [name: string, value: Readonly<Record<string, unknown>>];

export interface ManifestShape {
  readonly label: string;
  readonly type?: 'full' | 'diff' | 'incr';
  readonly prior?: string;
  /** `backup-reference` as written: comma-separated. */
  readonly reference?: string;
  readonly bundle?: boolean;
  readonly compressType?: string;
  readonly archiveStart?: string;
  readonly lsnStart?: string;
  readonly timestampStop?: number;
  readonly dbId?: number;
  readonly files: Iterable<ManifestFileEntry>;
}

const sortedJson = (o: Readonly<Record<string, unknown>>): string => JSON.stringify(Object.fromEntries(Object.entries(o).sort(([a], [b]) => (a < b ? -1 : 1))));

/** A sealed `backup.manifest` in pgBackRest 2.45's layout (sections and keys as it writes them). */
export function manifestText(m: ManifestShape): string {
  const q = (s: string) => JSON.stringify(s);
  const backup = [
    `backup-archive-start=${q(m.archiveStart ?? '000000010000000000000003')}`,
    'backup-archive-stop="000000010000000000000003"',
    ...(m.bundle === undefined ? [] : [`backup-bundle=${String(m.bundle)}`]),
    `backup-label=${q(m.label)}`,
    `backup-lsn-start=${q(m.lsnStart ?? '0/3000028')}`,
    'backup-lsn-stop="0/3000100"',
    ...(m.prior === undefined ? [] : [`backup-prior=${q(m.prior)}`]),
    `backup-reference=${q(m.reference ?? m.label)}`,
    'backup-timestamp-copy-start=1795267647',
    'backup-timestamp-start=1795267646',
    `backup-timestamp-stop=${String(m.timestampStop ?? 1795267650)}`,
    `backup-type=${q(m.type ?? 'full')}`,
  ];
  const files: string[] = [];
  for (const [name, value] of m.files) files.push(`${name}=${sortedJson(value)}`);
  return seal(`[backrest]
backrest-format=5
backrest-version="2.45"

[backup]
${backup.join('\n')}

[backup:db]
db-catalog-version=202209061
db-control-version=1300
db-id=${String(m.dbId ?? 1)}
db-system-id=7710615802719085140
db-version="15"

[backup:option]
option-archive-check=true
option-archive-copy=false
option-backup-standby=false
option-buffer-size=1048576
option-checksum-page=false
option-compress=true
option-compress-level=6
option-compress-type=${q(m.compressType ?? 'gz')}
option-delta=false
option-hardlink=false
option-online=true
option-process-max=1

[backup:target]
pg_data={"path":"/var/lib/postgresql/15/main","type":"path"}

[db]
postgres={"db-id":5,"db-last-system-id":16383}

[target:file]
${files.join('\n')}

[target:file:default]
group="postgres"
mode="0600"
user="postgres"

[target:path]
pg_data={}
pg_data/base={}

[target:path:default]
group="postgres"
mode="0700"
user="postgres"
`);
}

/**
 * The `[target:file]` entries of a cluster with `tables` user tables in database 16384, as a
 * 2.45 full backup without bundling records them: per table its heap, free-space map and
 * visibility map, a primary-key index, a TOAST table and its index (six files), plus ~1,000
 * files of the catalogs; names sorted as pgBackRest sorts them (byte order). Lines have the
 * shape of a real 2.45 manifest's (~177 bytes for a file with content, ~110 for an empty one).
 */
export function clusterFiles(tables: number): ManifestFileEntry[] {
  const files: ManifestFileEntry[] = [];
  const sha = (n: number) => createHash('sha1').update(String(n)).digest('hex');
  let n = 0;
  const add = (name: string, size: number) => {
    n++;
    // As pgBackRest 2.45 writes them with gz: a repository checksum and size on every file, even an empty one (a 20-byte gz stream).
    files.push([name, size === 0 ? { rck: sha(0), 'repo-size': 20, size: 0, timestamp: 1795267640 } : { checksum: sha(n), rck: sha(-n), 'repo-size': Math.max(20, Math.floor(size / 9)), size, timestamp: 1795267640 + (n % 97) }]);
  };
  add('pg_data/PG_VERSION', 3);
  add('pg_data/backup_label', 240);
  for (let oid = 1; oid <= 1000; oid++) add(`pg_data/base/1/${String(1000 + oid)}`, oid % 6 === 0 ? 0 : 8192 * (1 + (oid % 7)));
  for (let t = 0; t < tables; t++) {
    const rel = 20000 + t * 6;
    add(`pg_data/base/16384/${String(rel)}`, 8192 * 128);
    add(`pg_data/base/16384/${String(rel)}_fsm`, 24576);
    add(`pg_data/base/16384/${String(rel)}_vm`, 8192);
    add(`pg_data/base/16384/${String(rel + 1)}`, 8192 * 32);
    add(`pg_data/base/16384/${String(rel + 2)}`, 0);
    add(`pg_data/base/16384/${String(rel + 3)}`, 8192);
  }
  add('pg_data/global/pg_control', 8192);
  return files.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}
