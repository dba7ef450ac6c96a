/**
 * The empty-scope hints read every rule from the formats' layouts: the lines for the two formats
 * as operators know them, and the same rules for a format only a test registers.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { archiveCloud } from '../../format/barman-cloud/format.ts';
import { registerFormat } from '../../format/registry.ts';
import type { LayoutShape, RepositoryFormat } from '../../format/seam.ts';
import { stanzaRepository } from '../../format/stanza-repository/format.ts';
import type { Destination } from '../../store/destination.ts';
import { MemoryStore } from '../../store/memory/memory-driver.ts';
import { emptyScopeHints } from './empty-scope.ts';

const store = (keys: readonly string[]) => {
  const s = new MemoryStore();
  for (const k of keys) s.put(k, 'x');
  return s;
};
const at = (prefix: string): Destination => ({ provider: 'store-a', bucket: 'bk', account: null, emulatorOrigin: null, prefix });
const hints = (keys: readonly string[], format: Pick<RepositoryFormat, 'id' | 'layout'>, prefix: string, server: string) =>
  emptyScopeHints(store(keys), { format, destination: at(prefix), server }, new AbortController().signal);

const BARMAN = ['pg/pg-main/base/20261120T001500/backup.info', 'pg/pg-main/wals/0000000100000000/000000010000000000000001', 'pg/pg-other/base/x/backup.info'];
const PGBACKREST = ['repo/archive/main/archive.info', 'repo/backup/main/backup.info', 'repo/backup/second/backup.info'];

describe('empty-scope hints', () => {
  it('a misspelt server: where it looked, the names beside it and the closest', async () => {
    assert.deepEqual(await hints(BARMAN, archiveCloud, 'pg', 'pg-mian'), [
      'scope pg-mian is empty: nothing under s3://bk/pg/pg-mian/',
      'hint: names one level under s3://bk/pg/: pg-main, pg-other',
      'hint: did you mean ARCHIVE_SERVER_NAMES=pg-main?',
    ]);
  });

  it('a prefix that already names a server, found one level up', async () => {
    assert.deepEqual(await hints(BARMAN, archiveCloud, 'pg/pg-main', 'pg-main'), [
      'scope pg-main is empty: nothing under s3://bk/pg/pg-main/pg-main/',
      'hint: this prefix already names a server (pg-main holds base/ or wals/): DESTINATION_PATH=s3://bk/pg with ARCHIVE_SERVER_NAMES=pg-main',
      'hint: pg-main exists one level up: DESTINATION_PATH=s3://bk/pg',
    ]);
  });

  it('a misspelt stanza: both areas where it looked, the stanzas under them and the closest', async () => {
    assert.deepEqual(await hints(PGBACKREST, stanzaRepository, 'repo', 'mian'), [
      'scope mian is empty: nothing under s3://bk/repo/archive/mian/ or s3://bk/repo/backup/mian/',
      'hint: stanzas one level under s3://bk/repo/{archive,backup}/: main, second',
      'hint: did you mean ARCHIVE_SERVER_NAMES=main?',
    ]);
  });

  it('a stanza one level down, and none found next to it', async () => {
    assert.deepEqual(await hints(PGBACKREST, stanzaRepository, '', 'main'), [
      'scope main is empty: nothing under s3://bk/archive/main/ or s3://bk/backup/main/',
      'hint: main exists one level down: DESTINATION_PATH=s3://bk/repo',
    ]);
    assert.deepEqual(await hints(['repo/x/y'], stanzaRepository, 'repo', 'main'), ['scope main is empty: nothing under s3://bk/repo/archive/main/ or s3://bk/repo/backup/main/', 'hint: no stanza named like main was found next to it']);
  });

  it('the other format, from its layout', async () => {
    assert.deepEqual((await hints(PGBACKREST, archiveCloud, 'repo', 'main')).slice(0, 2), [
      'scope main is empty: nothing under s3://bk/repo/main/',
      'hint: this looks like a pgBackRest repository: REPOSITORY_FORMAT=stanza-repository (its stanzas are ARCHIVE_SERVER_NAMES)',
    ]);
    assert.deepEqual(await hints(BARMAN, stanzaRepository, 'pg', 'pg-main'), [
      'scope pg-main is empty: nothing under s3://bk/pg/archive/pg-main/ or s3://bk/pg/backup/pg-main/',
      'hint: this looks like a Barman cloud repository: REPOSITORY_FORMAT=archive-cloud',
    ]);
  });

  it('a format only a test registers: its areas, its noun and its hint', async () => {
    const layout: LayoutShape = { describedAs: 'a toy repository', scopeNoun: 'drawer', rootAreas: ['shelf'], scopeAreas: [], holdsAt: () => Promise.resolve(false), ownsKey: () => false };
    const toy: RepositoryFormat = { ...stanzaRepository, id: 'toy-shelf', sidecar: false, layout };
    const remove = registerFormat(toy);
    try {
      const keys = ['t/shelf/top/meta', 't/shelf/bottom/meta'];
      assert.deepEqual((await hints(keys, archiveCloud, 't', 'top')).slice(0, 2), [
        'scope top is empty: nothing under s3://bk/t/top/',
        'hint: this looks like a toy repository: REPOSITORY_FORMAT=toy-shelf (its drawers are ARCHIVE_SERVER_NAMES)',
      ]);
      assert.deepEqual(await hints(keys, toy, 't', 'tpo'), [
        'scope tpo is empty: nothing under s3://bk/t/shelf/tpo/',
        'hint: drawers one level under s3://bk/t/shelf/: bottom, top',
        'hint: did you mean ARCHIVE_SERVER_NAMES=top?',
      ]);
    } finally {
      remove();
    }
  });
});
