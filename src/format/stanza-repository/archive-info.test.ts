/**
 * The typed view of archive.info: the real file written by pgBackRest 2.45, archive ids across a
 * stanza-upgrade, the `db-id` naming trap of its history entries, and invalid values.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseInfoFile, type InfoFile } from './info-file.ts';
import { archiveIdOf, readArchiveInfo } from './archive-info.ts';
import { REAL_ARCHIVE_INFO, enc } from '../../../test/support/synthetic/stanza-fixtures.ts';

function file(text: string): InfoFile {
  const r = parseInfoFile(enc(text));
  if (!r.ok) assert.fail(`refused: ${r.reason}`);
  return r;
}

describe('archive.info', () => {
  it('reads the real file: the system id under history `db-id`, archive id 15-1', () => {
    const a = readArchiveInfo(file(REAL_ARCHIVE_INFO));
    assert.deepEqual(a, {
      db: { id: 1, systemId: '7710615802719085140', version: '15', catalogVersion: null, controlVersion: null },
      currentArchiveId: '15-1',
      history: [{ id: 1, systemId: '7710615802719085140', version: '15', catalogVersion: null, controlVersion: null, archiveId: '15-1' }],
      encrypted: false,
      problems: [],
    });
  });

  it('names every history entry by its archive id, in id order, after a stanza-upgrade', () => {
    const a = readArchiveInfo(file(`[db]
db-id=2
db-system-id=7800000000000000001
db-version="16"

[db:history]
2={"db-id":7800000000000000001,"db-version":"16"}
1={"db-id":7710615802719085140,"db-version":"9.6"}
`));
    assert.equal(a.currentArchiveId, '16-2');
    assert.deepEqual(a.history.map((h) => [h.id, h.archiveId, h.systemId]), [[1, '9.6-1', '7710615802719085140'], [2, '16-2', '7800000000000000001']]);
    assert.deepEqual(a.problems, []);
  });

  it('does not read backup.info’s key for the system id: `db-system-id` there is missing `db-id`', () => {
    const a = readArchiveInfo(file('[db]\ndb-id=1\ndb-system-id=5\ndb-version="15"\n\n[db:history]\n1={"db-system-id":5,"db-version":"15"}\n'));
    assert.equal(a.history[0]?.systemId, null);
    assert.deepEqual(a.problems, [{ section: 'db:history', entry: '1', field: 'db-id', problem: 'missing' }]);
  });

  it('leaves the archive id unknown when the version is invalid, and flags what contradicts', () => {
    const a = readArchiveInfo(file('[db]\ndb-id=1\ndb-system-id=5\ndb-version="15/../x"\n\n[db:history]\n1={"db-id":6,"db-version":"15"}\n'));
    assert.equal(a.currentArchiveId, null);
    assert.equal(a.history[0]?.archiveId, '15-1');
    assert.deepEqual(a.problems, [
      { section: 'db', entry: null, field: 'db-version', problem: 'invalid' },
      { section: 'db', entry: null, field: 'db-system-id', problem: 'inconsistent' },
    ]);
    assert.equal(archiveIdOf(null, 1), null);
    assert.equal(archiveIdOf('15', null), null);
  });

  it('reports a current id with no history entry', () => {
    const a = readArchiveInfo(file('[db]\ndb-id=3\ndb-system-id=5\ndb-version="15"\n'));
    assert.deepEqual(a.history, []);
    assert.deepEqual(a.problems, [{ section: 'db', entry: null, field: 'db-id', problem: 'inconsistent' }]);
  });
});
