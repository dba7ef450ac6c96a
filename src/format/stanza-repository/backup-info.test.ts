/**
 * The typed view of backup.info: the real file written by pgBackRest 2.45, every field's
 * validation (invalid → null with a problem, missing required → a problem), the agreements
 * between label, type, prior and references, and hostile content, which never throws and never
 * lets text that failed validation out.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { parseInfoFile, type InfoFile } from './info-file.ts';
import {
  INFO_FIELDS, annotationsOf, isLabel, labelType, pgVersionNum, readBackupInfo,
  type BackupInfo, type CurrentBackup, type InfoProblem,
} from './backup-info.ts';
import { REAL_BACKUP_INFO, enc } from '../../../test/support/synthetic/stanza-fixtures.ts';

function file(text: string): InfoFile {
  const r = parseInfoFile(enc(text));
  if (!r.ok) assert.fail(`refused: ${r.reason}`);
  return r;
}

const DB = `[db]
db-catalog-version=202209061
db-control-version=1300
db-id=1
db-system-id=7710615802719085140
db-version="15"

[db:history]
1={"db-catalog-version":202209061,"db-control-version":1300,"db-system-id":7710615802719085140,"db-version":"15"}
`;

const FULL = '20261121-132726F';
const INCR = '20261121-132726F_20261121-132731I';
const DIFF = '20261121-132726F_20261121-132733D';

const BASE: Record<string, unknown> = {
  'backrest-format': 5, 'backrest-version': '2.45', 'backup-archive-start': '000000010000000000000003', 'backup-archive-stop': '000000010000000000000003',
  'backup-error': false, 'backup-info-repo-size': 3890341, 'backup-info-repo-size-delta': 3890341, 'backup-info-size': 38860514, 'backup-info-size-delta': 38860514,
  'backup-lsn-start': '0/3000028', 'backup-lsn-stop': '0/3000100', 'backup-timestamp-start': 1795267646, 'backup-timestamp-stop': 1795267650,
  'backup-type': 'full', 'db-id': 1, 'option-archive-check': true, 'option-archive-copy': false, 'option-backup-standby': false,
  'option-checksum-page': false, 'option-compress': true, 'option-hardlink': false, 'option-online': true,
};

/** backup.info with the given `[backup:current]` entries (values as JSON text or objects). */
function info(entries: Record<string, unknown>, db = DB): BackupInfo {
  const lines = Object.entries(entries).map(([label, v]) => `${label}=${typeof v === 'string' ? v : JSON.stringify(v)}`);
  return readBackupInfo(file(`[backrest]\nbackrest-format=5\n\n[backup:current]\n${lines.join('\n')}\n\n${db}`));
}

function one(entry: Record<string, unknown>, label = FULL): { readonly b: CurrentBackup; readonly problems: readonly InfoProblem[] } {
  const i = info({ [label]: entry });
  const [b] = i.backups;
  assert.ok(b);
  return { b, problems: i.problems };
}

const problem = (field: InfoProblem['field'], p: InfoProblem['problem'], entry: string | null = FULL): InfoProblem => ({ section: 'backup:current', entry, field, problem: p });

describe('backup.info written by pgBackRest 2.45', () => {
  const i = readBackupInfo(file(REAL_BACKUP_INFO));

  it('reads the database and its history', () => {
    assert.deepEqual(i.db, { id: 1, systemId: '7710615802719085140', version: '15', catalogVersion: 202209061, controlVersion: 1300 });
    assert.deepEqual(i.history, [{ id: 1, systemId: '7710615802719085140', version: '15', catalogVersion: 202209061, controlVersion: 1300 }]);
    assert.deepEqual(i.problems, []);
    assert.equal(i.invalidLabels, 0);
    assert.equal(i.encrypted, false);
  });

  it('reads the full, the incr and the diff with every field', () => {
    assert.deepEqual(i.backups.map((b) => [b.label, b.type, b.prior, b.reference]), [
      [FULL, 'full', null, null],
      [INCR, 'incr', FULL, [FULL]],
      [DIFF, 'diff', FULL, [FULL]],
    ]);
    assert.deepEqual(i.backups[0], {
      label: FULL, type: 'full', prior: null, reference: null,
      archiveStart: '000000010000000000000003', archiveStop: '000000010000000000000003',
      lsnStart: 0x3000028n, lsnStop: 0x3000100n, timestampStart: 1795267646, timestampStop: 1795267650,
      size: 38860514, sizeDelta: 38860514, repoSize: 3890341, repoSizeDelta: 3890341, repoSizeMap: null, repoSizeMapDelta: null,
      error: false, dbId: 1,
      options: { archiveCheck: true, archiveCopy: false, backupStandby: false, checksumPage: false, compress: true, hardlink: false, online: true },
      annotations: null, backrestFormat: 5, backrestVersion: '2.45',
    });
    assert.equal(i.backups[2]?.lsnStop, 0x8000050n);
  });
});

describe('labels', () => {
  it('follows backupRegExp and the type letter', () => {
    assert.equal(labelType(FULL), 'full');
    assert.equal(labelType(INCR), 'incr');
    assert.equal(labelType(DIFF), 'diff');
    for (const bad of ['20261121-132726', '20261121-132726I', `${FULL}_20261121-132731F`, `${FULL}_20261121-132731X`, `x${FULL}`, `${FULL} `, '2026112-132726F']) {
      assert.equal(isLabel(bad), false, bad);
      assert.equal(labelType(bad), null, bad);
    }
  });

  it('drops an entry whose key is no label, counting it without its text', () => {
    const i = info({ 'LEAKMARK-not-a-label': BASE, [FULL]: BASE });
    assert.equal(i.invalidLabels, 1);
    assert.deepEqual(i.backups.map((b) => b.label), [FULL]);
    assert.ok(!JSON.stringify(i, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v)).includes('LEAKMARK'));
  });

  it('flags an entry whose value is not an object', () => {
    const i = info({ [FULL]: '[1,2]' });
    assert.deepEqual(i.backups, []);
    assert.deepEqual(i.problems, [problem('label', 'invalid')]);
  });
});

describe('field validation', () => {
  it('turns each out-of-shape value into null with an invalid problem', () => {
    const cases: [string, unknown, keyof CurrentBackup | null][] = [
      ['backup-archive-start', '00000001000000000000000a', 'archiveStart'],
      ['backup-archive-start', '000000000000000000000003', 'archiveStart'],
      ['backup-archive-stop', 3, 'archiveStop'],
      ['backup-lsn-start', '0/3000028a', 'lsnStart'],
      ['backup-lsn-start', '0/300002a', 'lsnStart'],
      ['backup-lsn-stop', '123456789/0', 'lsnStop'],
      ['backup-timestamp-start', -1, 'timestampStart'],
      ['backup-timestamp-stop', 253402300800, 'timestampStop'],
      ['backup-info-size', 2 ** 53, 'size'],
      ['backup-info-repo-size', '3890341', 'repoSize'],
      ['backup-error', 'no', 'error'],
      ['backup-type', 'FULL', 'type'],
      ['db-id', 0, 'dbId'],
      ['backrest-version', '2.45; rm', 'backrestVersion'],
    ];
    for (const [field, value, prop] of cases) {
      const { b, problems } = one({ ...BASE, [field]: value });
      assert.equal(prop === null ? null : b[prop], null, field);
      assert.deepEqual(problems.filter((p) => p.problem === 'invalid'), [problem(field as InfoProblem['field'], 'invalid')], field);
    }
  });

  it('reads uppercase LSNs as PostgreSQL prints them, also with eight digits after the slash', () => {
    assert.equal(one({ ...BASE, 'backup-lsn-start': '1/2A000028', 'backup-lsn-stop': '1/0A000100' }).b.lsnStart, 0x12a000028n);
  });

  it('reports required fields that are missing, and leaves optional ones null without a problem', () => {
    const rest = Object.fromEntries(Object.entries(BASE).filter(([k]) => !['backup-info-size', 'option-online', 'backup-archive-start', 'backup-error'].includes(k)));
    const { b, problems } = one(rest);
    assert.deepEqual(problems, [problem('backup-info-size', 'missing'), problem('option-online', 'missing')]);
    assert.equal(b.archiveStart, null);
    assert.equal(b.error, null);
  });

  it('reads block-incremental map sizes, the delta required with the map', () => {
    const { b, problems } = one({ ...BASE, 'backup-info-repo-size-map': 10 });
    assert.equal(b.repoSizeMap, 10);
    assert.deepEqual(problems, [problem('backup-info-repo-size-map-delta', 'missing')]);
  });

  it('reads annotations as printable UTF-8 text only', () => {
    assert.deepEqual(one({ ...BASE, 'backup-annotation': { reason: 'before upgrade ✓', ticket: 'OPS-1' } }).b.annotations, new Map([['reason', 'before upgrade ✓'], ['ticket', 'OPS-1']]));
    for (const bad of [{ k: 'a\u202eb' }, { k: 1 }, { '': 'x' }, { k: 'x'.repeat(1025) }, 'text', Object.fromEntries(Array.from({ length: 65 }, (_, n) => [`k${n}`, 'v']))]) {
      const { b, problems } = one({ ...BASE, 'backup-annotation': bad });
      assert.equal(b.annotations, null);
      assert.deepEqual(problems, [problem('backup-annotation', 'invalid')]);
    }
    // Bytes that are not UTF-8 (a byte string from the file) are no text.
    assert.equal(annotationsOf(new Map([['k', '\u00ff\u00fe']])), null);
  });
});

describe('what label, type, prior and references must agree on', () => {
  const incr = { ...BASE, 'backup-type': 'incr', 'backup-prior': FULL, 'backup-reference': [FULL] };

  it('accepts the real shapes without a problem', () => {
    assert.deepEqual(one(incr, INCR).problems, []);
    assert.deepEqual(one({ ...incr, 'backup-type': 'diff' }, DIFF).problems, []);
    const incrOnIncr = { ...incr, 'backup-prior': INCR, 'backup-reference': [FULL, INCR] };
    assert.deepEqual(one(incrOnIncr, '20261121-132726F_20261121-140000I').problems, []);
  });

  it('flags a type its label does not declare, keeping both', () => {
    const { b, problems } = one({ ...BASE, 'backup-type': 'incr' });
    assert.equal(b.type, 'incr');
    assert.ok(problems.some((p) => p.field === 'backup-type' && p.problem === 'inconsistent'));
  });

  it('flags a full with a prior or references, and a diff or incr without', () => {
    assert.deepEqual(one({ ...BASE, 'backup-prior': FULL, 'backup-reference': [FULL] }).problems, [problem('backup-prior', 'inconsistent'), problem('backup-reference', 'inconsistent')]);
    assert.deepEqual(one({ ...BASE, 'backup-type': 'incr' }, INCR).problems, [problem('backup-prior', 'missing', INCR), problem('backup-reference', 'missing', INCR)]);
  });

  it('flags a prior outside the set, not earlier, or (for a diff) not the full', () => {
    assert.deepEqual(one({ ...incr, 'backup-prior': '20261120-000000F', 'backup-reference': ['20261120-000000F'] }, INCR).problems, [problem('backup-prior', 'inconsistent', INCR), problem('backup-reference', 'inconsistent', INCR)]);
    assert.deepEqual(one({ ...incr, 'backup-prior': DIFF, 'backup-reference': [FULL, DIFF] }, INCR).problems, [problem('backup-prior', 'inconsistent', INCR), problem('backup-reference', 'inconsistent', INCR)]);
    assert.deepEqual(one({ ...incr, 'backup-type': 'diff', 'backup-prior': INCR, 'backup-reference': [FULL, INCR] }, DIFF).problems, [problem('backup-prior', 'inconsistent', DIFF)]);
    assert.deepEqual(one({ ...incr, 'backup-reference': [INCR] }, DIFF.replace('D', 'I')).problems, [problem('backup-reference', 'inconsistent', DIFF.replace('D', 'I'))]);
  });

  it('refuses a reference list with a repeated or invalid label', () => {
    assert.deepEqual(one({ ...incr, 'backup-reference': [FULL, FULL] }, INCR).problems, [problem('backup-reference', 'invalid', INCR)]);
    assert.deepEqual(one({ ...incr, 'backup-reference': FULL }, INCR).problems, [problem('backup-reference', 'invalid', INCR)]);
  });

  it('flags stops before starts and a db-id outside the history', () => {
    assert.deepEqual(one({ ...BASE, 'backup-lsn-stop': '0/3000000' }).problems, [problem('backup-lsn-stop', 'inconsistent')]);
    assert.deepEqual(one({ ...BASE, 'backup-timestamp-stop': 1 }).problems, [problem('backup-timestamp-stop', 'inconsistent')]);
    assert.deepEqual(one({ ...BASE, 'db-id': 2 }).problems, [problem('db-id', 'inconsistent')]);
  });
});

describe('[db] and [db:history]', () => {
  it('flags a current database its history entry contradicts', () => {
    const i = info({}, DB.replace('db-system-id=7710615802719085140', 'db-system-id=1').replace('db-version="15"', 'db-version="16"'));
    assert.deepEqual(i.problems, [
      { section: 'db', entry: null, field: 'db-system-id', problem: 'inconsistent' },
      { section: 'db', entry: null, field: 'db-version', problem: 'inconsistent' },
    ]);
    assert.equal(i.db.systemId, '1');
  });

  it('flags history ids and entries out of shape, without their text', () => {
    const i = info({}, `${DB}LEAKMARK={}\n0={}\n01={}\n2=[]\n3={"db-catalog-version":1,"db-control-version":1,"db-system-id":"x","db-version":"16.1"}\n`);
    assert.deepEqual(i.history.map((h) => h.id), [1, 3]);
    assert.deepEqual(i.history[1], { id: 3, systemId: null, version: null, catalogVersion: 1, controlVersion: 1 });
    assert.deepEqual(i.problems, [
      { section: 'db:history', entry: null, field: 'history-id', problem: 'invalid' },
      { section: 'db:history', entry: null, field: 'history-id', problem: 'invalid' },
      { section: 'db:history', entry: null, field: 'history-id', problem: 'invalid' },
      { section: 'db:history', entry: '2', field: 'history-id', problem: 'invalid' },
      { section: 'db:history', entry: '3', field: 'db-system-id', problem: 'invalid' },
      { section: 'db:history', entry: '3', field: 'db-version', problem: 'invalid' },
    ]);
  });

  it('reports a missing [db] once and the current id as unknown', () => {
    const i = info({ [FULL]: BASE }, '');
    assert.deepEqual(i.db, { id: null, systemId: null, version: null, catalogVersion: null, controlVersion: null });
    assert.ok(i.problems.some((p) => p.section === 'db' && p.field === 'db-id' && p.problem === 'missing'));
    assert.ok(i.problems.some((p) => p.entry === FULL && p.field === 'db-id' && p.problem === 'inconsistent'));
  });

  it('converts major versions to server_version_num', () => {
    assert.equal(pgVersionNum('9.6'), 90600);
    assert.equal(pgVersionNum('9.2'), 90200);
    assert.equal(pgVersionNum('15'), 150000);
    assert.equal(pgVersionNum('100'), 1_000_000);
    for (const bad of ['9', '15.2', '09.6', '1000', '', 'x']) assert.equal(pgVersionNum(bad), null, bad);
  });

  it('reports an encrypted repository from the cipher section, never its passphrase', () => {
    const i = readBackupInfo(file(`[cipher]\ncipher-pass="SECRET"\n\n${DB}`));
    assert.equal(i.encrypted, true);
    assert.ok(!JSON.stringify(i).includes('SECRET'));
  });
});

describe('hostile backup entries', () => {
  const json = fc.letrec((tie) => ({
    value: fc.oneof({ depthSize: 'small' }, fc.constant(null), fc.boolean(), fc.integer(), fc.string(), fc.constantFrom('LEAKMARK', '0/1', FULL, 'full', '000000010000000000000001'), fc.array(tie('value'), { maxLength: 3 }), fc.dictionary(fc.string(), tie('value'), { maxKeys: 3 })),
  })).value;

  it('never throws; problems name listed fields only; no unvalidated text comes out', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.constantFrom(...Object.keys(BASE), 'backup-prior', 'backup-reference', 'backup-annotation', 'LEAKMARK'), json), fc.constantFrom(FULL, INCR, DIFF), (entry, label) => {
        const i = info({ [label]: { ...BASE, ...entry } });
        for (const p of i.problems) assert.ok((INFO_FIELDS as readonly string[]).includes(p.field));
        // Annotations are the user's own text: the one free-text field, validated as printable.
        const rest = i.backups.map((b) => ({ ...b, annotations: null }));
        assert.ok(!JSON.stringify(rest, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v)).includes('LEAKMARK'));
      }),
      { numRuns: 1500 },
    );
  });
});
