/**
 * Retention, a lost segment beside a standalone backup, and damaged artifacts, each made by
 * Barman's own tools in a real repository (make-barman-repos.sh, scenario servers under
 * `s3://barman/scenarios`):
 *
 * - `pg-retention`: backups A, B, C; A kept standalone; `barman-cloud-backup-delete -r "REDUNDANCY 1"`
 *   deleted B and every WAL below C's begin_wal outside A's begin_wal..end_wal. The hole it left
 *   between A and C is Barman's own doing: viewer must call it expected, not lost WAL.
 * - `pg-standalone`: one segment lost between a standalone backup S and the next backup N, with
 *   archived segments on both sides: not a shape retention leaves, so a real gap.
 * - `pg-damaged`: D1 without its data.tar; a segment D2 needs cut to 100 bytes.
 *
 * First what Barman itself says and did (checkable against the build's records), then viewer's
 * verdicts on the same repositories.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { wireViolations } from '../../src/contract/validate.ts';
import { realRepositories, type RealRepositories, type WalHole } from '../support/real-repositories.ts';
import { runViewer, type ScanDocument } from '../support/run-viewer.ts';

// ---------------------------------------------------------------- viewer's codes
const V = {
  backupHealthy: 'healthy',
  /** Continuous but for the hole retention left (docs/design/evidence.md §States). */
  walHealthy: ['healthy', 'wal-continuous-except-retention'],
  /** The class of a gap with exactly the shape Barman's retention leaves (`observations`). */
  gapClassRetention: 'retention-expected',
  /** The stop follows the hole's lifecycle status (a fresh hole is still a candidate). */
  standalonePath: ['warning', 'standalone-retention-limited'],
  pathToFrontier: ['healthy', 'coverage-to-frontier', 'frontier'],
  topLevelHealthy: 'healthy',
  /** Accepted `wal` verdicts for a lost segment between archived ones. */
  walGap: [
    ['warning', 'wal-gap-candidate'],
    ['unhealthy', 'wal-gap-confirmed'],
  ],
  dataArchiveMissing: ['unhealthy', 'data-archive-missing'],
  /** Accepted verdicts for a backup whose required WAL is cut. */
  requiredWalBroken: [
    ['unhealthy', 'required-wal-missing'],
    ['unknown', 'required-wal-candidate-gap'],
  ],
  structuralCapability: ['structural-artifact-validation', 'unhealthy'],
} as const;

/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-member-access,
   @typescript-eslint/no-unsafe-return, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-argument --
   the scan document is checked against the wire schemas; the assertions then read it loosely. */

const SEGMENT = /^([0-9A-F]{8})([0-9A-F]{8})([0-9A-F]{8})$/;
/** Position of a 16 MiB segment name (log * 256 + segment) and its timeline. */
function place(name: string): { timeline: number; position: number } {
  const m = SEGMENT.exec(name);
  assert.ok(m !== null, name);
  return { timeline: Number.parseInt(m[1] ?? '', 16), position: Number.parseInt(m[2] ?? '', 16) * 256 + Number.parseInt(m[3] ?? '', 16) };
}
function nameAt(timeline: number, position: number): string {
  const hex = (n: number) => n.toString(16).toUpperCase().padStart(8, '0');
  return hex(timeline) + hex(Math.floor(position / 256)) + hex(position % 256);
}
/** The WAL name of a key under wals/, as Barman reads it (one compression suffix stripped). */
function walName(key: string): string | null {
  if (!key.includes('/wals/')) return null;
  const base = key.slice(key.lastIndexOf('/') + 1).replace(/\.(gz|bz2|snappy)$/, '');
  return /^[0-9A-F]{8}(?:[0-9A-F]{16}(?:\.[0-9A-F]{8}\.backup|\.partial)?|\.history)$/.test(base) ? base : null;
}
const lines = (text: string): string[] => text.split('\n').filter(Boolean);
const segmentNames = (keys: readonly string[]): string[] => keys.map(walName).filter((n): n is string => n !== null && SEGMENT.test(n));
/** The console list's rows: id and archival status (`KEEP:…` or empty). */
function consoleRows(text: string): [string, string][] {
  return lines(text)
    .slice(1)
    .map((l) => {
      // Backup ID, End Time (date and time), Begin Wal, Archival Status (may be empty), Name.
      const [id = '', , , , status = ''] = l.trim().split(/\s+/);
      return [id, status.startsWith('KEEP:') ? status : ''];
    });
}

/**
 * The class viewer gives each published gap, in wal_gaps order: `viewer scan` prints them beside the
 * wire items as `observations.wal_gap_classes` (`{timeline, start_position, class}` per gap).
 */
function gapClasses(doc: ScanDocument): unknown[] {
  const observed = ((doc['observations'] as Record<string, any> | null)?.['wal_gap_classes'] ?? []) as Record<string, any>[];
  return doc.wal_gaps.map((g) => observed.find((o) => o['timeline'] === g['timeline'] && o['start_position'] === g['start_position'])?.['class']);
}

describe('real repositories after Barman retention and damage', () => {
  let repos: RealRepositories;
  let dir: string;
  const docs = new Map<string, Promise<ScanDocument>>();

  before(() => {
    repos = realRepositories();
    dir = mkdtempSync(join(tmpdir(), 'viewer-retention-'));
    writeFileSync(join(dir, 'id'), `${repos.accessKeyId}\n`);
    writeFileSync(join(dir, 'secret'), `${repos.secretAccessKey}\n`);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  /** One scan per server, shared by the tests of this file. */
  function scan(server: string): Promise<ScanDocument> {
    let doc = docs.get(server);
    if (doc === undefined) {
      doc = (async () => {
        const r = await runViewer(['scan'], {
          DESTINATION_PATH: `s3://${repos.bucket}/${repos.scenarioPrefix}`,
          ARCHIVE_SERVER_NAMES: server,
          STORE_ENDPOINT_URL: repos.endpoint,
          STORE_ACCESS_KEY_ID_FILE: join(dir, 'id'),
          STORE_SECRET_ACCESS_KEY_FILE: join(dir, 'secret'),
        });
        assert.equal(r.status, 0, r.stderr);
        const parsed = JSON.parse(r.stdout) as ScanDocument;
        assert.deepEqual(wireViolations('RepositoryEvidenceSnapshot', parsed.snapshot), []);
        return parsed;
      })();
      docs.set(server, doc);
    }
    return doc;
  }
  const backup = (doc: ScanDocument, id: string) => doc.backups.find((b) => b['backup_id'] === id);
  const verdict = (item: Record<string, any> | undefined) => [item?.['state'], item?.['reason']?.['code']];
  const holesOf = (doc: ScanDocument): WalHole[] => doc.wal_gaps.map((g) => ({ first: g['first_wal'], last: g['last_wal'] }));

  describe('pg-retention: what Barman did', () => {
    it('lists B no more, and A as KEEP:STANDALONE', () => {
      const r = repos.retention;
      assert.deepEqual(consoleRows(repos.backupListText('pg-retention')), [
        [r.backupA, 'KEEP:STANDALONE'],
        [r.backupC, ''],
      ]);
      assert.deepEqual(consoleRows(repos.outText('backup-list-pg-retention-before-delete.txt')), [
        [r.backupA, 'KEEP:STANDALONE'],
        [r.backupB, ''],
        [r.backupC, ''],
      ]);
      assert.deepEqual(
        repos.backupList('pg-retention').map((b) => [b.backup_id, b.status]),
        [
          [r.backupA, 'DONE'],
          [r.backupC, 'DONE'],
        ],
      );
      assert.equal(repos.outText('keep-status-pg-retention-A.txt').trim(), 'Keep: standalone');
      assert.equal(r.policy, 'REDUNDANCY 1');
    });

    it('deleted exactly the recorded keys, and nothing else changed', () => {
      const r = repos.retention;
      const keysBefore = lines(repos.outText('retention-keys-before.txt'));
      const keysAfter = lines(repos.outText('retention-keys-after.txt'));
      assert.deepEqual(lines(repos.outText('retention-deleted-keys.txt')), r.deletedKeys);
      assert.deepEqual(
        keysBefore.filter((k) => !keysAfter.includes(k)),
        r.deletedKeys,
      );
      assert.deepEqual(
        keysAfter.filter((k) => !keysBefore.includes(k)),
        [],
      );
      assert.deepEqual(
        repos.objects('pg-retention').map((o) => o.key),
        keysAfter,
      );
      // Barman's dry run announced the same objects (backup first, then WAL).
      const announced = [...repos.outText('retention-delete-dry-run.txt').matchAll(/'([^']+)'/g)].map((m) => m[1]);
      assert.deepEqual([...announced].sort(), [...r.deletedKeys].sort());
      assert.deepEqual(r.deletedWals, segmentNames(r.deletedKeys));
      assert.ok(r.deletedWals.includes(r.beginWalB) && r.deletedWals.includes(r.endWalB));
    });

    it('followed the rule: every WAL name below C.begin_wal outside A.begin_wal..end_wal, history kept', () => {
      const r = repos.retention;
      const before = lines(repos.outText('retention-keys-before.txt'));
      const expected = before.filter((k) => {
        if (k.includes(`/base/${r.backupB}/`)) return true;
        const n = walName(k);
        if (n === null || n.endsWith('.history')) return false;
        const check = n.endsWith('.backup') ? n.slice(0, 24) : n;
        return !(check >= r.beginWalA && check <= r.endWalA) && n < r.beginWalC;
      });
      assert.deepEqual(r.deletedKeys, expected);
      // A's own WAL and C's begin_wal stayed.
      const after = segmentNames(lines(repos.outText('retention-keys-after.txt')));
      assert.ok(after.includes(r.beginWalA) && after.includes(r.endWalA) && after.includes(r.beginWalC));
    });

    it('left one hole, from after A.end_wal to before C.begin_wal', () => {
      const r = repos.retention;
      const a = place(r.endWalA);
      const c = place(r.beginWalC);
      assert.deepEqual(r.holes, [{ first: nameAt(a.timeline, a.position + 1), last: nameAt(c.timeline, c.position - 1) }]);
    });
  });

  describe('pg-retention: viewer', () => {
    it('publishes exactly the holes retention left, and calls them expected', async () => {
      const doc = await scan('pg-retention');
      assert.deepEqual(holesOf(doc), repos.retention.holes);
      assert.deepEqual(gapClasses(doc), repos.retention.holes.map(() => V.gapClassRetention));
    });

    it('judges the WAL healthy and the top level undegraded by the retention hole', async () => {
      const doc = await scan('pg-retention');
      const ac = doc.snapshot['details']['archive_cloud'];
      assert.deepEqual(verdict(ac['wal']), V.walHealthy);
      assert.equal(doc.snapshot['state'], V.topLevelHealthy);
    });

    it('A is healthy, its path stops at the hole as a standalone backup should; C reaches the frontier', async () => {
      const doc = await scan('pg-retention');
      const r = repos.retention;
      assert.equal(backup(doc, r.backupA)?.['state'], V.backupHealthy);
      assert.equal(backup(doc, r.backupB), undefined);
      const pathsA = doc.recovery_paths.filter((p) => p['backup_id'] === r.backupA);
      const holeStatus = doc.wal_gaps[0]?.['status'];
      assert.deepEqual(
        pathsA.map((p) => [p['state'], p['reason']['code'], p['stop']]),
        [[...V.standalonePath, holeStatus === 'confirmed' ? 'gap-limited' : 'candidate-limited']],
      );
      assert.equal(pathsA[0]?.['frontier_wal'], r.endWalA);
      const timelineC = place(r.beginWalC).timeline;
      const pathsC = doc.recovery_paths.filter((p) => p['backup_id'] === r.backupC && p['target_timeline'] === timelineC);
      assert.deepEqual(
        pathsC.map((p) => [p['state'], p['reason']['code'], p['stop']]),
        [V.pathToFrontier],
      );
    });
  });

  describe('pg-standalone', () => {
    it('Barman: S is KEEP:STANDALONE and the lost segment has archived segments on both sides', () => {
      const s = repos.standalone;
      assert.deepEqual(consoleRows(repos.backupListText('pg-standalone')), [
        [s.backupS, 'KEEP:STANDALONE'],
        [s.backupN, ''],
      ]);
      const keys = repos.objects('pg-standalone').map((o) => o.key);
      assert.ok(!keys.includes(s.lostKey));
      assert.equal(walName(s.lostKey), s.lostWal);
      const lost = place(s.lostWal);
      const archived = new Set(segmentNames(keys));
      assert.ok(archived.has(nameAt(lost.timeline, lost.position - 1)) && archived.has(nameAt(lost.timeline, lost.position + 1)));
      assert.ok(lost.position > place(s.endWalS).position && place(s.beginWalN).position - lost.position >= 2);
      assert.deepEqual(s.holes, [{ first: s.lostWal, last: s.lostWal }]);
    });

    it('viewer: one gap item, exactly the lost segment, and the WAL not healthy', async () => {
      const doc = await scan('pg-standalone');
      const s = repos.standalone;
      assert.deepEqual(
        doc.wal_gaps.map((g) => [g['timeline'], g['first_wal'], g['last_wal'], g['segment_count']]),
        [[place(s.lostWal).timeline, s.lostWal, s.lostWal, 1]],
      );
      const wal = verdict(doc.snapshot['details']['archive_cloud']['wal']);
      assert.ok(
        V.walGap.some((v) => v[0] === wal[0] && v[1] === wal[1]),
        JSON.stringify(wal),
      );
    });
  });

  describe('pg-damaged', () => {
    it('Barman lists three completed backups; the listing lacks D1 data.tar and holds the cut segment', () => {
      const d = repos.damaged;
      assert.deepEqual(
        repos.backupList('pg-damaged').map((b) => [b.backup_id, b.status]),
        [
          [d.backup1, 'DONE'],
          [d.backup2, 'DONE'],
          [d.backup3, 'DONE'],
        ],
      );
      const objects = repos.objects('pg-damaged');
      assert.equal(d.deletedKey, `${repos.scenarioPrefix}/pg-damaged/base/${d.backup1}/data.tar`);
      assert.ok(!objects.some((o) => o.key === d.deletedKey));
      assert.deepEqual(
        objects.filter((o) => o.key === d.truncatedKey).map((o) => o.size),
        [d.truncatedSize],
      );
      assert.deepEqual([d.truncatedSize, d.truncatedOriginalSize], [100, 16 * 1024 * 1024]);
      assert.equal(walName(d.truncatedKey), d.truncatedWal);
      assert.ok(d.truncatedWal >= d.beginWal2 && d.truncatedWal <= d.endWal2);
    });

    it('viewer: D1 lacks its data archive, D2 its WAL; structural validation and the top level are not healthy', async () => {
      const doc = await scan('pg-damaged');
      const d = repos.damaged;
      assert.deepEqual(verdict(backup(doc, d.backup1)), V.dataArchiveMissing);
      const d2 = verdict(backup(doc, d.backup2));
      assert.ok(
        V.requiredWalBroken.some((v) => v[0] === d2[0] && v[1] === d2[1]),
        JSON.stringify(d2),
      );
      const capability = (doc.snapshot['capabilities'] as Record<string, any>[]).find((c) => c['id'] === V.structuralCapability[0]);
      assert.equal(capability?.['state'], V.structuralCapability[1]);
      assert.notEqual(doc.snapshot['state'], V.topLevelHealthy);
    });

    it('viewer: counts the cut segment as the one unknown WAL object, and every WAL object once', async () => {
      const doc = await scan('pg-damaged');
      const counts = doc.snapshot['details']['archive_cloud']['wal_counts'];
      assert.equal(counts.unknown, 1);
      const walKeys = repos.objects('pg-damaged').filter((o) => o.key.includes('/wals/'));
      assert.equal(counts.segment + counts.partial + counts.history + counts.backup_history + counts.unknown + counts.duplicate, walKeys.length);
    });
  });
});
