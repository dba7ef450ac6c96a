/**
 * `viewer_recovery_coverage_start_timestamp_seconds` on real scans: `viewer scan --output
 * openmetrics` on the Barman 3.4 servers, and the series must be the end time Barman itself
 * reports (`barman-cloud-backup-list`) of the backup the repository's known damage leaves as the
 * earliest one whose WAL reaches the newest timeline's end (test/support/README.md):
 * - pg-main: backup 1's WAL is cut by the deleted timeline-1 segment, so backup 2, whose timeline
 *   1 runs on to timeline 2's switch point (the restore point after it), starts the window on
 *   timeline 2; backup 3 is newer;
 * - pg-wal1m: its one backup, healthy;
 * - pg-standalone: S's WAL stops at the deleted segment before N, so N;
 * - pg-damaged: D1 lost its data.tar (not usable), D2's begin_wal segment is cut short, so D3;
 * - pg-retention: A's WAL ends at the hole Barman's retention left (keep:standalone), so C.
 * Barman prints an end time in the cluster's time zone without its offset, so it is compared
 * within a second modulo whole half-hours, and exactly one backup of the server may match.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { realRepositories, type RealRepositories } from '../support/real-repositories.ts';
import { runViewer, s3CredentialFiles } from '../support/run-viewer.ts';
import { parseSamples } from './promtool-harness.ts';

const START = 'viewer_recovery_coverage_start_timestamp_seconds';
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** Barman's `ctime()` text (`Fri Nov 27 06:13:54 2026`) as Unix seconds read as if it were UTC. */
function ctimeSeconds(text: string): number {
  const m = /^\w{3} (\w{3}) +(\d{1,2}) (\d\d):(\d\d):(\d\d) (\d{4})$/.exec(text);
  assert.ok(m !== null, `not a ctime: ${text}`);
  const [, mon = '', day = '', h = '', min = '', s = '', y = ''] = m;
  return Date.UTC(Number(y), MONTHS.indexOf(mon), Number(day), Number(h), Number(min), Number(s)) / 1000;
}

/** Whether `at` (Unix seconds, fractional) falls in the second Barman printed, modulo whole half-hours. */
function sameSecond(at: number, barman: number): boolean {
  const d = (((Math.floor(at) - barman) % 1800) + 1800) % 1800;
  return d === 0;
}

describe('the start of observed recovery coverage on real scans', () => {
  let real: RealRepositories;
  let creds: ReturnType<typeof s3CredentialFiles>;
  before(() => {
    real = realRepositories();
    creds = s3CredentialFiles(real);
  });
  after(() => creds.remove());

  const cases: { server: string; scenario: boolean; timeline: string; expected: (r: RealRepositories) => string }[] = [
    { server: 'pg-main', scenario: false, timeline: '2', expected: (r) => r.facts['BACKUP_2'] ?? '' },
    { server: 'pg-wal1m', scenario: false, timeline: '1', expected: (r) => r.backupList('pg-wal1m').find((b) => b.status === 'DONE')?.backup_id ?? '' },
    { server: 'pg-standalone', scenario: true, timeline: '1', expected: (r) => r.standalone.backupN },
    { server: 'pg-damaged', scenario: true, timeline: '1', expected: (r) => r.damaged.backup3 },
    { server: 'pg-retention', scenario: true, timeline: '1', expected: (r) => r.retention.backupC },
  ];

  it('is the end of the earliest backup the damage leaves reaching the newest WAL, as Barman reports it', async () => {
    const failures: string[] = [];
    for (const c of cases) {
      const prefix = c.scenario ? real.scenarioPrefix : real.prefix;
      const r = await runViewer(['scan', '--output', 'openmetrics'], { ...creds.env, STORE_ENDPOINT_URL: real.endpoint, DESTINATION_PATH: `s3://${real.bucket}/${prefix}`, ARCHIVE_SERVER_NAMES: c.server });
      assert.equal(r.status, 0, `${c.server}: ${r.stderr}`);
      const starts = parseSamples(r.stdout).filter((s) => s.name === START);
      const list = real.backupList(c.server).filter((b) => b.status === 'DONE');
      const expected = c.expected(real);
      assert.ok(list.some((b) => b.backup_id === expected), `${c.server}: ${expected} is one of Barman's completed backups`);
      if (starts.length !== 1) {
        failures.push(`${c.server}: ${starts.length} samples`);
        continue;
      }
      const [start] = starts;
      const ends = (real.backupList(c.server) as unknown as { backup_id: string; end_time: string | null; status: string }[]).filter((b) => b.status === 'DONE' && b.end_time !== null);
      const matching = ends.filter((b) => sameSecond(start?.value ?? Number.NaN, ctimeSeconds(b.end_time ?? ''))).map((b) => b.backup_id);
      if (JSON.stringify(matching) !== JSON.stringify([expected]) || start?.labels['timeline'] !== c.timeline) {
        failures.push(`${c.server}: start ${String(start?.value)} on timeline ${String(start?.labels['timeline'])} matches [${matching.join(', ')}], expected ${expected} on ${c.timeline}`);
      }
    }
    assert.deepEqual(failures, []);
  });
});
