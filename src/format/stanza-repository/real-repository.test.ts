/**
 * The parsers against the real repository pgBackRest 2.45 wrote for PostgreSQL 15
 * (test/support/make-pgbackrest-repos.sh; its posix tree under $VIEWER_TEST_DIR/pgbackrest/out/repo
 * and what pgBackRest reported in facts.env). Skipped when it has not been built. Read-only.
 *
 * It checks that every info file and manifest passes its checksum and that copies match, that the
 * typed views agree with each other and with the facts, that every object a manifest says its
 * backup stores exists with exactly its size (bundles at least as long as their members need), that
 * the sizes sum to backup.info's, that every WAL key classifies, and that the segment size comes
 * out as 16 MiB.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { describe, it } from 'node:test';
import { chooseInfoCopy, parseInfoFile, type InfoFileResult } from './info-file.ts';
import { readBackupInfo } from './backup-info.ts';
import { readArchiveInfo } from './archive-info.ts';
import { parseManifest, type Manifest } from './manifest.ts';
import { classifyWalKey } from './wal-keys.ts';
import { inferSegmentSize } from './segment-size.ts';

const OUT = join(process.env['VIEWER_TEST_DIR'] ?? '/var/tmp/viewer-test', 'pgbackrest', 'out');
const REPO = join(OUT, 'repo');
const built = existsSync(join(OUT, 'facts.env')) && existsSync(REPO);
const skip = built ? false : 'the real pgBackRest repository is not built (test/support/make-pgbackrest-repos.sh)';

function facts(): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of readFileSync(join(OUT, 'facts.env'), 'utf8').split('\n')) {
    const eq = line.indexOf('=');
    if (eq > 0) out.set(line.slice(0, eq), line.slice(eq + 1));
  }
  return out;
}
const fact = (f: Map<string, string>, k: string): string => f.get(k) ?? assert.fail(`fact ${k}`);
const list = (f: Map<string, string>, k: string): string[] => (f.get(k) ?? '').split(' ').filter((s) => s !== '');

function info(path: string): InfoFileResult | null {
  return existsSync(path) ? parseInfoFile(readFileSync(path)) : null;
}

function manifest(path: string): Manifest {
  const r = parseManifest(readFileSync(path));
  if (!r.ok) assert.fail(`${path}: ${r.reason}`);
  return r;
}

/** Every regular file under `dir`, relative to it. */
function files(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => relative(dir, join(e.parentPath, e.name)));
}

describe('the real pgBackRest 2.45 repository', { skip }, () => {
  it('reads backup.info and archive.info of stanza main and their identical copies', () => {
    const f = facts();
    const b = chooseInfoCopy(info(join(REPO, 'backup/main/backup.info')), info(join(REPO, 'backup/main/backup.info.copy')));
    const a = chooseInfoCopy(info(join(REPO, 'archive/main/archive.info')), info(join(REPO, 'archive/main/archive.info.copy')));
    for (const c of [b, a]) {
      assert.equal(c.chosen, 'main');
      assert.equal(c.copy, 'loadable');
      assert.equal(c.differ, false);
      assert.equal(c.file?.checksum, 'valid');
      assert.equal(c.file?.version, '2.45');
    }
    assert.ok(b.file && a.file);
    const bi = readBackupInfo(b.file);
    const ai = readArchiveInfo(a.file);
    assert.deepEqual(bi.problems, []);
    assert.deepEqual(ai.problems, []);
    assert.equal(bi.db.systemId, fact(f, 'MAIN_SYSTEM_ID'));
    assert.equal(ai.history[0]?.systemId, fact(f, 'MAIN_SYSTEM_ID'));
    assert.equal(ai.currentArchiveId, fact(f, 'MAIN_ARCHIVE_ID'));
    assert.deepEqual(bi.backups.map((x) => x.label).sort(), [...list(f, 'MAIN_FULL'), ...list(f, 'MAIN_DIFF'), ...list(f, 'MAIN_INCR')].sort());
    for (const x of bi.backups) assert.equal(x.type, list(f, 'MAIN_FULL').includes(x.label) ? 'full' : list(f, 'MAIN_DIFF').includes(x.label) ? 'diff' : 'incr');
    assert.deepEqual(inferSegmentSize(bi.backups), { kind: 'known', segmentSize: 16 * 1024 * 1024 });
  });

  it('finds every object each current backup stores, with the sizes backup.info sums', () => {
    const f = facts();
    const bi = info(join(REPO, 'backup/main/backup.info'));
    assert.ok(bi?.ok);
    for (const b of readBackupInfo(bi).backups) {
      const dir = join(REPO, 'backup/main', b.label);
      const m = manifest(join(dir, 'backup.manifest'));
      const copy = manifest(join(dir, 'backup.manifest.copy'));
      assert.equal(m.checksum, 'valid', b.label);
      assert.equal(copy.digest, m.digest, `${b.label}: the copy is the same file`);
      assert.deepEqual(m.problems, [], b.label);
      assert.deepEqual([m.backup.label, m.backup.type, m.backup.prior, m.backup.archiveStart, m.backup.archiveStop, m.backup.lsnStart, m.backup.lsnStop], [b.label, b.type, b.prior, b.archiveStart, b.archiveStop, b.lsnStart, b.lsnStop]);
      assert.equal(m.backup.bundle === true, list(f, 'MAIN_BUNDLED').includes(b.label), b.label);
      assert.equal(m.files.size, b.size, `${b.label}: size`);
      assert.equal(m.files.repoSize, b.repoSize, `${b.label}: repo size of the set`);
      assert.equal(m.files.storedRepoSize, b.repoSizeDelta, `${b.label}: repo size of its own files`);
      assert.deepEqual(m.files.references, (b.reference ?? []).filter((l) => m.files.references.includes(l)));
      assert.ok(m.files.stored !== null && !m.files.stored.truncated);
      for (const o of m.files.stored.objects) assert.equal(statSync(join(dir, o.key)).size, o.repoSize, `${b.label}/${o.key}`);
      for (const [id, need] of m.files.bundles) assert.ok(statSync(join(dir, 'bundle', String(id))).size >= need, `${b.label}/bundle/${String(id)}`);
      // Nothing else is stored there: the manifest accounts for every object of the directory.
      const listed = new Set([...m.files.stored.objects.map((o) => o.key), ...[...m.files.bundles.keys()].map((id) => `bundle/${String(id)}`), 'backup.manifest', 'backup.manifest.copy']);
      assert.deepEqual(files(dir).filter((k) => !listed.has(k)), [], b.label);
    }
  });

  it('reads the interrupted backup’s early copy: no manifest, no WAL, stop 0, database 0', () => {
    const label = fact(facts(), 'MAIN_INTERRUPTED');
    const dir = join(REPO, 'backup/main', label);
    assert.equal(existsSync(join(dir, 'backup.manifest')), false);
    const m = manifest(join(dir, 'backup.manifest.copy'));
    assert.equal(m.checksum, 'valid');
    assert.deepEqual([m.backup.label, m.backup.archiveStart, m.backup.lsnStart, m.backup.timestampStop, m.db.id, m.db.systemId], [label, null, null, 0, 0, '0']);
  });

  it('reads the history manifests, the expired backups’ included', () => {
    const f = facts();
    const dir = join(REPO, 'backup/main/backup.history');
    const labels: string[] = [];
    for (const k of files(dir)) {
      const m = parseManifest(gunzipSync(readFileSync(join(dir, k))));
      assert.ok(m.ok && m.checksum === 'valid', k);
      assert.equal(k.split('/')[1], `${m.backup.label ?? ''}.manifest.gz`);
      labels.push(m.backup.label ?? '');
    }
    for (const l of [...list(f, 'MAIN_EXPIRED'), ...list(f, 'MAIN_FULL')]) assert.ok(labels.includes(l), l);
  });

  it('classifies every key of both WAL areas; the deleted segment is not among them', () => {
    const f = facts();
    for (const stanza of list(f, 'STANZAS')) {
      const keys = files(join(REPO, 'archive', stanza));
      const classes = keys.map((k) => classifyWalKey(k));
      assert.deepEqual(keys.filter((_k, i) => classes[i]?.kind === 'unknown'), [], stanza);
      const segments = classes.flatMap((c) => (c.kind === 'segment' ? [c.walName] : []));
      assert.ok(segments.length > 5, stanza);
      if (stanza === fact(f, 'MAIN_STANZA')) {
        assert.ok(!segments.includes(fact(f, 'DELETED_WAL')));
        assert.ok(segments.includes(fact(f, 'MAIN_FIRST_TIMELINE_2_WAL')));
        assert.ok(classes.some((c) => c.kind === 'history' && c.timeline === 2 && c.archiveId === fact(f, 'MAIN_ARCHIVE_ID')));
        assert.deepEqual([...new Set(classes.flatMap((c) => (c.kind === 'segment' ? [c.compression] : [])))].sort(), ['gz', 'zst']);
      }
    }
  });

  it('recognises every info file and manifest of the encrypted stanza as encrypted', () => {
    const f = facts();
    const stanza = fact(f, 'CIPHER_STANZA');
    const paths = [join(REPO, 'archive', stanza, 'archive.info'), join(REPO, 'backup', stanza, 'backup.info'), ...[...list(f, 'ENCRYPTED_FULL'), ...list(f, 'ENCRYPTED_DIFF'), ...list(f, 'ENCRYPTED_INCR')].map((l) => join(REPO, 'backup', stanza, l, 'backup.manifest'))];
    for (const p of paths) {
      assert.deepEqual(parseInfoFile(readFileSync(p)), { ok: false, reason: 'encrypted', line: null }, p);
      assert.deepEqual(parseManifest(readFileSync(p)), { ok: false, reason: 'encrypted', line: null }, p);
    }
  });
});
