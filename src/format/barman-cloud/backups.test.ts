/**
 * A backup's sizes are those of validated artifacts only (spec "Backup item": `stored_artifact_bytes`
 * is the exact visible bytes of validated artifacts): whenever rules 11–14 refuse an archive (missing,
 * below its floor, a part missing), `stored_artifact_bytes`, `artifact_count` and `compression` are
 * null, never the sum of whatever was listed (D-79). An archive that is only unexpected (rule 20, a
 * warning) is not refused.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseBackupInfo } from './backup-info.ts';
import { formatBackup } from './backups.ts';
import { BackupCatalog, type BackupDirectory } from './catalog.ts';
import { classifyKey } from './classify.ts';

const ID = '20261121T132821';

const INFO = (tablespaces: string) => `begin_offset=40
begin_time=2026-11-21 13:28:21.272854+00:00
begin_wal=000000010000000000000004
begin_xlog=0/4000028
compression=None
deduplicated_size=None
end_offset=256
end_time=2026-11-21 13:28:21.793918+00:00
end_wal=000000010000000000000004
end_xlog=0/4000100
error=None
mode=None
server_name=cloud
size=None
status=DONE
systemid=7710616049254876324
tablespaces=${tablespaces}
timeline=1
version=150018
xlog_segment_size=16777216
`;

/** One backup directory holding `objects` (file name → size) beside its backup.info. */
function backupOf(objects: Record<string, number>, tablespaces = 'None') {
  const catalog = new BackupCatalog(10);
  const info = INFO(tablespaces);
  for (const [name, size] of Object.entries({ 'backup.info': info.length, ...objects })) {
    const key = `base/${ID}/${name}`;
    catalog.add(classifyKey(key), key, size);
  }
  const dir = catalog.directories.get(ID) as BackupDirectory;
  return formatBackup(dir, parseBackupInfo(new TextEncoder().encode(info)), null);
}

const sizes = (b: ReturnType<typeof backupOf>) => [b.fields.stored_artifact_bytes, b.fields.artifact_count, b.fields.compression];

describe('sizes of validated artifacts only', () => {
  it('counts every archive when none is refused', () => {
    const b = backupOf({ 'data.tar.gz': 20_000, 'data_0001.tar.gz': 10_000 });
    assert.equal(b.decided, null);
    assert.deepEqual(sizes(b), [30_000, 2, 'gzip']);
  });

  it('an archive below its floor (archive-too-small): null, not the bytes listed', () => {
    const b = backupOf({ 'data.tar': 512 });
    assert.equal(b.decided?.code, 'archive-too-small');
    assert.deepEqual(sizes(b), [null, null, null]);
    // One part too small among valid ones refuses the whole set too.
    const part = backupOf({ 'data.tar.gz': 20_000, 'data_0001.tar.gz': 5 });
    assert.equal(part.decided?.code, 'archive-too-small');
    assert.deepEqual(sizes(part), [null, null, null]);
  });

  it('a numbered part missing (archive-chunk-missing): null', () => {
    const b = backupOf({ 'data.tar': 20_000, 'data_0002.tar': 20_000 });
    assert.equal(b.decided?.code, 'archive-chunk-missing');
    assert.deepEqual(sizes(b), [null, null, null]);
  });

  it('the data archive or a declared tablespace archive missing: null, never 0', () => {
    const none = backupOf({});
    assert.equal(none.decided?.code, 'data-archive-missing');
    assert.deepEqual(sizes(none), [null, null, null]);
    const tablespace = backupOf({ 'data.tar': 20_000 }, "[('tbs', 16385, '/var/lib/tbs')]");
    assert.equal(tablespace.decided?.code, 'tablespace-archive-missing');
    assert.deepEqual(sizes(tablespace), [null, null, null]);
  });

  it('an archive for an undeclared tablespace is a warning, not a refusal: counted', () => {
    const b = backupOf({ 'data.tar': 20_000, '16385.tar': 4_000 });
    assert.equal(b.decided, null);
    assert.equal(b.otherwise.code, 'unexpected-archive');
    assert.deepEqual(sizes(b), [24_000, 2, 'none']);
  });
});
