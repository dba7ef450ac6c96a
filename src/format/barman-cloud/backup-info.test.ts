/**
 * backup.info parsing: a real file written by Barman 3.4 (real-repository.md), Barman 3.17's
 * generated sample (barman-cloud-format.md §2.3), and hostile content of every kind. Hostile
 * input yields a typed failure or field problems, never an exception and never leaked text.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseBackupInfo, pythonTimestampToUtc, type BackupInfo } from './backup-info.ts';
import { parsePythonLiteral } from './python-literal.ts';

const REAL = `backup_label='START WAL LOCATION: 0/4000028 (file 000000010000000000000004)\\nCHECKPOINT LOCATION: 0/4000060\\nBACKUP METHOD: streamed\\nBACKUP FROM: primary\\nSTART TIME: 2026-11-21 13:28:21 UTC\\nLABEL: Barman backup cloud 20261121T132821\\nSTART TIMELINE: 1\\n'
begin_offset=40
begin_time=2026-11-21 13:28:21.272854+00:00
begin_wal=000000010000000000000004
begin_xlog=0/4000028
compression=None
config_file=/var/lib/postgresql/15/main/postgresql.conf
copy_stats={'total_time': 2.825105, 'number_of_workers': 2, 'analysis_time': 0, 'analysis_time_per_item': {'data': 0}, 'copy_time_per_item': {'data': 2.641148}, 'serialized_copy_time_per_item': {'data': 0.444247}, 'copy_time': 2.641148, 'serialized_copy_time': 0.444247}
deduplicated_size=None
end_offset=256
end_time=2026-11-21 13:28:21.793918+00:00
end_wal=000000010000000000000004
end_xlog=0/4000100
error=None
hba_file=/var/lib/postgresql/15/main/pg_hba.conf
ident_file=/var/lib/postgresql/15/main/pg_ident.conf
included_files=['/var/lib/postgresql/15/main/postgresql.auto.conf']
mode=None
pgdata=/var/lib/postgresql/15/main
server_name=cloud
size=None
status=DONE
systemid=7710616049254876324
tablespaces=None
timeline=1
version=150018
xlog_segment_size=16777216
`;

const enc = (s: string) => new TextEncoder().encode(s);

function parsed(text: string): BackupInfo {
  const r = parseBackupInfo(enc(text));
  if (!r.ok) assert.fail(`rejected: ${r.reason}`);
  return r.info;
}

const withField = (field: string, value: string | null) => {
  const lines = REAL.split('\n').filter((l) => !l.startsWith(`${field}=`) && l !== '');
  if (value !== null) lines.push(`${field}=${value}`);
  return `${lines.join('\n')}\n`;
};

describe('backup.info from real Barman output', () => {
  it('reads every fact of the real Barman 3.4 file', () => {
    assert.deepEqual(parsed(REAL), {
      status: 'DONE',
      backupType: 'full',
      timeline: 1,
      systemId: '7710616049254876324',
      version: 150018,
      segmentSize: 16777216,
      beginWal: '000000010000000000000004',
      endWal: '000000010000000000000004',
      beginLsn: 0x4000028n,
      endLsn: 0x4000100n,
      beginAt: '2026-11-21T13:28:21.272854Z',
      endAt: '2026-11-21T13:28:21.793918Z',
      clusterSize: null,
      deduplicatedSize: null,
      encryption: null,
      tablespaceOids: [],
      hasError: false,
      errorText: null,
      name: null,
      problems: [],
    });
  });

  it("reads Barman 3.17's sample: tablespaces, encryption=None, an offset time, cluster size", () => {
    const info = parsed(withField('tablespaces', "[('tbs1', 16385, '/var/lib/tbs1'), ('tbs0', 16384, '/t0')]")
      .replace('end_time=2026-11-21 13:28:21.793918+00:00', 'end_time=2026-11-21 15:28:22+02:00') + 'encryption=None\ncluster_size=48071936\nsummarize_wal=None\n');
    assert.deepEqual(info.tablespaceOids, [16384, 16385]);
    assert.equal(info.encryption, 'none');
    assert.equal(info.endAt, '2026-11-21T13:28:22Z');
    assert.equal(info.clusterSize, 48071936);
    assert.deepEqual(info.problems, []);
  });

  it('tolerates unknown keys, comments, blank lines and spaces around =', () => {
    const info = parsed(`# written by a newer Barman\n\n${REAL}some_future_field = {'a': [1, 2, (3, 4)]}\nanother=<not even a literal>\n`);
    assert.equal(info.status, 'DONE');
    assert.deepEqual(info.problems, []);
  });

  it('a FAILED backup with an error text and no end', () => {
    const info = parsed(withField('status', 'FAILED').replace(/^end_(wal|xlog|time)=.*$/gm, 'end_$1=None').replace('error=None', "error=failure uploading data (connection reset)"));
    assert.equal(info.status, 'FAILED');
    assert.equal(info.hasError, true);
    assert.equal(info.endWal, null);
    assert.equal(info.endAt, null);
    assert.deepEqual(info.problems, []);
  });

  it('derives the backup type as Barman does', () => {
    assert.equal(parsed(withField('mode', 'rsync-concurrent')).backupType, 'rsync');
    assert.equal(parsed(withField('mode', 'snapshot-concurrent')).backupType, 'snapshot');
    assert.equal(parsed(`${REAL}snapshots_info={'provider': 'gcp'}\n`).backupType, 'snapshot');
    assert.equal(parsed(withField('parent_backup_id', '20261120T010000')).backupType, 'incremental');
    assert.equal(parsed(withField('mode', 'postgres')).backupType, 'full');
    const odd = parsed(withField('mode', 'teleport'));
    assert.equal(odd.backupType, null);
    assert.deepEqual(odd.problems, [{ field: 'mode', problem: 'invalid' }]);
  });
});

describe('backup_name: what operators know a backup by', () => {
  const named = (value: string) => parsed(withField('backup_name', value));

  it('reads the name as Barman writes it (str(), not repr()): the real file of backup before-incident', () => {
    assert.equal(named('before-incident').name, 'before-incident');
    // The CNPG plugin's names, and a name with spaces; the line is stripped like every value.
    assert.equal(named('backup-20251024022604').name, 'backup-20251024022604');
    assert.equal(parsed(`${REAL}backup_name =  nightly full \n`).name, 'nightly full');
    // Quotes are part of a str() name, never taken as a literal's.
    assert.equal(named("'quoted'").name, "'quoted'");
    assert.equal(named('None').name, null);
    assert.equal(parsed(REAL).name, null);
  });

  it("keeps hostile text only as text: escaping is the page's, the parser keeps it printable and bounded", () => {
    assert.equal(named('<script>alert(1)</script>').name, '<script>alert(1)</script>');
    assert.equal(named('x'.repeat(128)).name, 'x'.repeat(128));
    assert.equal(named('é'.repeat(128)).name, 'é'.repeat(128), 'characters, not bytes');
  });

  it('drops a name that is too long or not printable, and nothing else of the file', () => {
    for (const bad of ['x'.repeat(129), 'a\u0007b', 'a\u009bb', 'a\u007fb', 'evil\u202egnp.exe', 'a\u2028b', 'zero\u200bwidth', 'private\ue000use']) {
      const info = named(bad);
      assert.equal(info.name, null, JSON.stringify(bad));
      assert.equal(info.status, 'DONE');
      assert.equal(info.endWal, '000000010000000000000004');
      assert.deepEqual(info.problems, [], 'a bad name is no problem of the metadata');
    }
  });

  it('a second backup_name line makes the file malformed, like any repeated key', () => {
    assert.deepEqual(parseBackupInfo(enc(`${REAL}backup_name=a\nbackup_name=b\n`)), { ok: false, reason: 'backup-info-malformed' });
  });
});

describe('backup.info field problems become null values, never guesses', () => {
  const cases: [string, string | null, keyof BackupInfo][] = [
    ['status', 'RUNNING', 'status'],
    ['status', 'done', 'status'],
    ['begin_wal', '00000001000000000000000g', 'beginWal'],
    ['begin_wal', 'fixture/pg-main/wals/x', 'beginWal'],
    ['begin_xlog', '0/4000028; rm -rf /', 'beginLsn'],
    ['timeline', '0', 'timeline'],
    ['timeline', '-1', 'timeline'],
    ['timeline', "'1'", 'timeline'],
    ['systemid', '18446744073709551616', 'systemId'],
    ['systemid', '7710616049254876324.0', 'systemId'],
    ['xlog_segment_size', '3145728', 'segmentSize'],
    ['xlog_segment_size', '16777216.0', 'segmentSize'],
    ['version', '[150018]', 'version'],
    ['begin_time', '2026-11-21 13:28:21.272854', 'beginAt'],
    ['begin_time', '2026-02-30 13:28:21+00:00', 'beginAt'],
    ['begin_time', 'Sat Nov 21 13:28:21 2026', 'beginAt'],
    ['begin_time', '1970-01-01 00:00:00+00:00', 'beginAt'],
    ['tablespaces', "[('tbs1', 'x', '/p')]", 'tablespaceOids'],
    ['tablespaces', "[('tbs1', 16385, '/p'), ('tbs2', 16385, '/q')]", 'tablespaceOids'],
    ['tablespaces', "[('unterminated", 'tablespaceOids'],
  ];
  for (const [field, value, key] of cases) {
    it(`${field}=${String(value).slice(0, 30)}`, () => {
      const info = parsed(withField(field, value));
      assert.equal(info[key], null);
      assert.ok(info.problems.some((p) => p.field === field && p.problem === 'invalid'), JSON.stringify(info.problems));
    });
  }

  it('missing required fields are listed as missing', () => {
    const info = parsed(withField('begin_wal', null).replace(/^status=.*\n/m, ''));
    assert.deepEqual(info.problems.filter((p) => p.problem === 'missing').map((p) => p.field).sort(), ['begin_wal', 'status']);
  });
});

describe('hostile backup.info files are rejected with a typed reason', () => {
  const cases: [string, Uint8Array, string][] = [
    ['10 MB of data', new Uint8Array(10 * 1024 * 1024).fill(0x61), 'backup-info-too-large'],
    ['one huge line', enc(`status=DONE\nbackup_label='${'x'.repeat(70 * 1024)}'\n`), 'backup-info-malformed'],
    ['invalid UTF-8', Uint8Array.from([0x73, 0x3d, 0xff, 0xfe, 0x0a]), 'backup-info-not-utf8'],
    ['a line without =', enc(`${REAL}garbage line\n`), 'backup-info-malformed'],
    ['a duplicated key', enc(`${REAL}status=FAILED\n`), 'backup-info-malformed'],
    ['a key with odd characters', enc(`${REAL}St\u0007tus=DONE\n`), 'backup-info-malformed'],
    ['a tar archive instead', enc('data.tar\u0000\u0000\u0000ustar  \u0000root'), 'backup-info-malformed'],
  ];
  for (const [what, bytes, reason] of cases) {
    it(what, () => assert.deepEqual(parseBackupInfo(bytes), { ok: false, reason }));
  }

  it('an empty file parses to nothing known, each required field missing (mode among them: Barman always writes it)', () => {
    const r = parseBackupInfo(new Uint8Array());
    assert.ok(r.ok);
    assert.equal(r.ok && r.info.problems.length, 9);
    assert.equal(r.ok && r.info.backupType, null);
    assert.ok(r.ok && r.info.problems.some((p) => p.field === 'mode' && p.problem === 'missing'));
  });

  it('a file without a mode line is no full backup: its type is unknown', () => {
    const withoutMode = new TextDecoder().decode(enc(REAL)).split('\n').filter((l) => !l.startsWith('mode=')).join('\n');
    const r = parseBackupInfo(enc(withoutMode));
    assert.ok(r.ok);
    assert.equal(r.ok && r.info.backupType, null);
    assert.equal(r.ok && r.info.status, 'DONE');
  });
});

describe('Python literals', () => {
  it('reads what repr() writes', () => {
    assert.deepEqual(parsePythonLiteral("'a\\'b\\n\\x41\\u00e9\\\\'"), "a'b\nAé\\");
    assert.deepEqual(parsePythonLiteral('"it\'s"'), "it's");
    assert.deepEqual(parsePythonLiteral("[('tbs1', 16385, '/var/lib/tbs1')]"), [['tbs1', 16385, '/var/lib/tbs1']]);
    assert.deepEqual(parsePythonLiteral("{'a': None, 'b': [True, False, -1.5e3], 1: ()}"), { dict: [['a', null], ['b', [true, false, -1500]], [1, []]] });
    assert.equal(parsePythonLiteral('18446744073709551615'), 18446744073709551615n);
  });

  it('refuses what is not exactly one literal', () => {
    for (const t of ["'open", "'a' 'b'", '[1, 2', '{1: }', 'os.system("x")', '__import__', "'\\q'", "'\\x4'", '1 +', '[' .repeat(100) + ']'.repeat(100), '']) {
      assert.equal(parsePythonLiteral(t), undefined, t);
    }
  });
});

describe('Python timestamps', () => {
  it('converts offsets to UTC and keeps the fraction as written', () => {
    assert.equal(pythonTimestampToUtc('2025-01-01 12:00:05+02:00'), '2025-01-01T10:00:05Z');
    assert.equal(pythonTimestampToUtc('2025-12-31 23:30:00.5-01:00'), '2026-01-01T00:30:00.5Z');
    assert.equal(pythonTimestampToUtc('2025-01-01 12:00:05+05:30:15'), '2025-01-01T06:29:50Z');
  });

  it('refuses offsets Python never writes (minutes or seconds of 60 and more)', () => {
    for (const t of ['2025-01-01 12:00:05+00:99', '2025-01-01 12:00:05+00:60', '2025-01-01 12:00:05+01:00:60']) assert.equal(pythonTimestampToUtc(t), null, t);
  });
});
