/**
 * Run by console-restore.test.ts inside a private mount namespace (`unshare -m`, as root), never
 * directly: a tmpfs on /run gives the real fixed socket path `/var/run/viewer/evidence.sock` to the
 * real `viewer` sidecar, scanning Barman 3.4's pg-main in the real S3 store (two timelines, the
 * first backup's path cut by the deleted timeline-1 segment, a failed backup, an abandoned backup
 * directory without backup.info). The real `viewer console` reads it, and its backup to restore
 * from must be the one the real standalone page names for that scope and `viewer scan --output
 * text` prints, and the one derived here from the scan JSON's items by the rule itself; once the
 * sidecar stops, it is unknown (the console keeps only a retained projection).
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { unixSocketTransport } from '../../src/client/index.ts';
import { SIDECAR_SOCKET_PATH } from '../../src/contract/values.ts';
import { expectedGapStatus } from '../support/gap-age.ts';
import { realRepositories, type RealRepositories } from '../support/real-repositories.ts';
import { SECRETS, SIDECAR_TOKEN, TOKEN_FILE, until, writeSidecarFiles } from '../support/sidecar-scenario.ts';
import { runViewer, startConsole, startStandalone, VIEWER_BIN, type RunningConsole, type RunningViewer, type ScanDocument } from '../support/run-viewer.ts';

const SERVER = 'pg-main';

interface Restore {
  known: boolean;
  reason?: string;
  timeline?: number | null;
  backup?: { backup_id: string; path: { stop: string; frontier_wal: string | null } } | null;
  none?: unknown;
  passed_over?: { backup_id: string; why: string; reason_code: string | null; time_unknown: boolean }[];
}
interface ConsoleJson {
  source: { state: string; reason: string };
  projection: { revision: number; evidence_generation: number } | null;
  restore: Restore;
}

/**
 * The rule, derived here from the scan document alone (not restore-choice.ts): on the newest
 * timeline with WAL, the newest structurally usable backup (by end, else begin time) whose path to
 * that timeline reaches the frontier with a usable state; passed over, every other backup that is
 * newer or has no time.
 */
function expectedFromScan(scan: ScanDocument): { timeline: number; chosen: string; passedOver: string[] } {
  const usable = (s: unknown) => s === 'healthy' || s === 'warning';
  const timeline = Math.max(...scan.wal_ranges.map((r) => r['timeline'] as number));
  const time = (b: Record<string, unknown>) => (b['end_at'] ?? b['begin_at']) as string | null;
  const reaches = scan.backups.filter((b) => usable(b['state']) && scan.recovery_paths.some((p) => p['backup_id'] === b['backup_id'] && p['target_timeline'] === timeline && p['stop'] === 'frontier' && usable(p['state'])));
  assert.ok(reaches.length > 0 && reaches.every((b) => time(b) !== null), 'pg-main has a backup whose path reaches the newest WAL, each with a time');
  const chosen = reaches.reduce((m, b) => (Date.parse(time(b) ?? '') > Date.parse(time(m) ?? '') ? b : m));
  const at = Date.parse(time(chosen) ?? '');
  const passedOver = scan.backups.filter((b) => b !== chosen && (time(b) === null || Date.parse(time(b) ?? '') > at)).map((b) => b['backup_id'] as string);
  return { timeline, chosen: chosen['backup_id'] as string, passedOver: passedOver.sort() };
}

describe('the console\'s backup to restore from on the real sidecar (Barman 3.4 pg-main)', () => {
  let repos: RealRepositories;
  let scan: ScanDocument;
  let scanText = '';
  let standalone: RunningViewer;
  let sidecar: ChildProcess;
  let consoleRun: RunningConsole;
  const transport = unixSocketTransport({ socketPath: SIDECAR_SOCKET_PATH, token: SIDECAR_TOKEN });
  const store = () => ({
    DESTINATION_PATH: `s3://${repos.bucket}/${repos.prefix}`,
    ARCHIVE_SERVER_NAMES: SERVER,
    STORE_ENDPOINT_URL: repos.endpoint,
    STORE_ACCESS_KEY_ID_FILE: join(SECRETS, 'id'),
    STORE_SECRET_ACCESS_KEY_FILE: join(SECRETS, 'secret'),
  });
  const consoleGet = async (path: string) => {
    const r = await fetch(new URL(path, consoleRun.url));
    return { status: r.status, text: await r.text() };
  };
  const consoleJson = async () => JSON.parse((await consoleGet('/projection')).text) as ConsoleJson;

  before(async () => {
    repos = realRepositories();
    writeSidecarFiles(repos);
    const json = await runViewer(['scan'], store());
    assert.equal(json.status, 0, json.stderr);
    scan = JSON.parse(json.stdout) as ScanDocument;
    const text = await runViewer(['scan', '--output', 'text'], store());
    assert.equal(text.status, 0, text.stderr);
    scanText = text.stdout;
    standalone = await startStandalone(store());
    sidecar = spawn(process.execPath, [VIEWER_BIN], {
      env: {
        PATH: process.env['PATH'] ?? '',
        ...store(),
        RUNTIME_MODE: 'sidecar',
        REPOSITORY_FORMAT: 'archive-cloud',
        PROVIDER: 'store-a',
        EVIDENCE_TOKEN_FILE: TOKEN_FILE,
        CLUSTER_NAMESPACE: 'databases',
        CLUSTER_UID: '6f1c2a7e-3b9d-4e8f-a1c2-9d8e7f6a5b4c',
        STORE_CREDENTIAL_MODE: 'static-files',
        REFRESH_INTERVAL_SECONDS: '600',
      },
    });
    await until('the sidecar publishing generation 1', async () => {
      const r = await transport('/api/v1alpha1/snapshot', AbortSignal.timeout(3_000));
      return r.status === 200 && (r.body as { evidence_generation: number }).evidence_generation > 0 ? true : null;
    });
    consoleRun = await startConsole({
      POLL_INTERVAL_SECONDS: '5',
      REPOSITORY_EVIDENCE_URL: `unix://${SIDECAR_SOCKET_PATH}`,
      REPOSITORY_EVIDENCE_TOKEN_FILE: TOKEN_FILE,
      REPOSITORY_EXPECTED_FINGERPRINT: (scan.snapshot as { identity: { repository: { destination_fingerprint: string } } }).identity.repository.destination_fingerprint,
      REPOSITORY_BARMAN_SERVER: SERVER,
    });
  });

  after(() => {
    for (const c of [sidecar, consoleRun.child, standalone.child]) if (c.exitCode === null) c.kill('SIGTERM');
  });

  it('names the backup the standalone page and viewer scan name for pg-main, and why not each newer one', async () => {
    const f = repos.facts;
    const expected = expectedFromScan(scan);
    // The repository's damage, as the scan JSON carries it: the first backup's path to the newest timeline is cut by the deleted segment.
    const first = scan.recovery_paths.find((p) => p['backup_id'] === f['BACKUP_1'] && p['target_timeline'] === expected.timeline);
    // Cut at a candidate gap in the build's first hour, a confirmed one after (test/support/gap-age.ts).
    const status = expectedGapStatus(repos.objects(SERVER), f['DELETED_WAL'] ?? '', scan.observations);
    assert.equal(first?.['stop'], status === 'confirmed' ? 'gap-limited' : 'candidate-limited', JSON.stringify(first));
    assert.ok(scan.wal_gaps.some((g) => g['first_wal'] === f['DELETED_WAL']), 'the deleted segment is a gap');
    assert.ok(scan.backups.some((b) => b['backup_id'] === f['FAILED_BACKUP'] && b['state'] === 'unhealthy'), 'the failed backup is there');
    assert.equal(expected.chosen, f['BACKUP_3']);

    // viewer scan --output text's line and the standalone page for this scope.
    const textChoice = /^ {2}restore from (\S+) /m.exec(scanText)?.[1];
    assert.equal(textChoice, expected.chosen, scanText);
    const page = await until('the standalone page with the choice', async () => {
      const r = await fetch(new URL('/', standalone.base));
      const t = await r.text();
      return /<dt>Backup to restore from \(timeline \d+\)<\/dt>/.test(t) ? t : null;
    });
    const standaloneChoice = /<dt>Backup to restore from \(timeline (\d+)\)<\/dt><dd><code>([^<]+)<\/code>/.exec(page);
    assert.deepEqual([Number(standaloneChoice?.[1]), standaloneChoice?.[2]], [expected.timeline, expected.chosen], page.slice(page.indexOf('Backup to restore from'), page.indexOf('Backup to restore from') + 600));

    // The console, once its projection is the sidecar's current publication.
    const seen = await until('the console current', async () => {
      const j = await consoleJson();
      return j.source.state === 'available' && j.projection !== null ? j : null;
    });
    const r = seen.restore;
    assert.equal(r.known, true, JSON.stringify(r));
    assert.equal(r.timeline, expected.timeline);
    assert.equal(r.backup?.backup_id, expected.chosen);
    assert.equal(r.backup?.path.stop, 'frontier');
    assert.equal(r.none, null);
    assert.deepEqual(r.passed_over?.map((o) => o.backup_id).sort(), expected.passedOver);
    assert.deepEqual(r.passed_over?.map((o) => [o.backup_id, o.why, o.reason_code, o.time_unknown]), [[f['ABANDONED_BACKUP'], 'not-usable', 'backup-info-missing', true]]);
    const html = (await consoleGet('/')).text;
    assert.match(html, new RegExp(`<h2>Backup to restore from \\(timeline ${expected.timeline}\\)</h2><p><code>${expected.chosen}</code>, ended `));
    assert.match(html, new RegExp(`<li><code>${f['ABANDONED_BACKUP']}</code> \\(time unknown\\): not structurally usable \\(<code>backup-info-missing</code>\\)</li>`));
  });

  it('is unknown once the sidecar stops: the retained projection is not the repository now', async () => {
    const exited = new Promise((r) => sidecar.once('exit', r));
    sidecar.kill('SIGTERM');
    await exited;
    const seen = await until('the console unavailable', async () => {
      const j = await consoleJson();
      return j.source.state === 'unavailable' ? j : null;
    });
    assert.ok(seen.projection !== null, 'the projection is retained');
    assert.deepEqual(seen.restore, { known: false, reason: 'source-not-current', collections: [] });
    const html = (await consoleGet('/')).text;
    assert.match(html, /<h2>Backup to restore from<\/h2><p class="state-unknown">Unknown: the publication shown is retained/);
    assert.doesNotMatch(html, /the newest structurally usable backup/);
    assert.equal((await consoleGet('/readyz')).status, 200);
  });
});
