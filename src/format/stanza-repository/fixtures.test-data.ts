/**
 * Info files written by pgBackRest 2.45 for PostgreSQL 15 (research real-repository.md, "pgBackRest
 * 2.45 against s3rver"), byte for byte, and a helper that seals hand-made variants with a checksum
 * computed independently of info-file.ts (the rule of research pgbackrest-format.md §2), for the
 * tests of this folder.
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
