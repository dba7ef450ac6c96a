/**
 * `viewer scan --fail-on LEVEL` with the real executable against real Barman repositories: after
 * printing its document as usual (any --output), a complete scan exits 2 when the scope's state is
 * at or beyond LEVEL in viewer's severity order (healthy < warning < unknown < unhealthy), 0
 * otherwise, and without the option exactly as before. `pg-wal1m` is healthy, `pg-main` a warning
 * while its deleted segment is a candidate gap and unhealthy once confirmed (an hour after the
 * build: test/support/gap-age.ts), and a server with nothing stored is unhealthy (`scope-empty`). An unknown
 * level is named in one line before the usage.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { atOrBeyond } from '../../src/cli/commands/scan.ts';
import { EXIT } from '../../src/cli/exit-codes.ts';
import { realRepositories, type RealRepositories } from '../support/real-repositories.ts';
import { runViewer, s3CredentialFiles, type ScanDocument } from '../support/run-viewer.ts';
import { expectedGapStatus, expectedGapStatusNow } from '../support/gap-age.ts';

describe('viewer scan --fail-on', () => {
  let repos: RealRepositories;
  let credentials: ReturnType<typeof s3CredentialFiles>;
  const env = (server: string) => ({
    DESTINATION_PATH: `s3://${repos.bucket}/${repos.prefix}`,
    ARCHIVE_SERVER_NAMES: server,
    STORE_ENDPOINT_URL: repos.endpoint,
    ...credentials.env,
  });
  before(() => {
    repos = realRepositories();
    credentials = s3CredentialFiles(repos);
  });
  after(() => credentials.remove());

  it('ranks unknown above warning, as viewer\'s severity does', () => {
    const states = ['healthy', 'warning', 'unknown', 'unhealthy'] as const;
    const levels = ['warning', 'unknown', 'unhealthy'] as const;
    const table = levels.map((level) => states.filter((s) => atOrBeyond(s, level)));
    assert.deepEqual(table, [['warning', 'unknown', 'unhealthy'], ['unknown', 'unhealthy'], ['unhealthy']]);
  });

  it('exits 2 after printing the document when the state is at or beyond the level, 0 below it', async () => {
    const main = JSON.parse((await runViewer(['scan'], env('pg-main'))).stdout) as ScanDocument;
    const confirmed = expectedGapStatus(repos.objects('pg-main'), repos.facts['DELETED_WAL'] ?? '', main.observations) === 'confirmed';
    const cases = [
      { server: 'pg-wal1m', state: 'healthy', codes: { warning: 0, unknown: 0, unhealthy: 0 } },
      confirmed ? { server: 'pg-main', state: 'unhealthy', codes: { warning: 2, unknown: 2, unhealthy: 2 } } : { server: 'pg-main', state: 'warning', codes: { warning: 2, unknown: 0, unhealthy: 0 } },
      { server: 'pg-nothing-stored', state: 'unhealthy', codes: { warning: 2, unknown: 2, unhealthy: 2 } },
    ] as const;
    assert.equal(EXIT.degraded, 2);
    await Promise.all(
      cases.map(async ({ server, state, codes }) => {
        const plain = await runViewer(['scan'], env(server));
        assert.equal(plain.status, 0, `${server} without --fail-on: ${plain.stderr}`);
        assert.equal((JSON.parse(plain.stdout) as ScanDocument).snapshot['state'], state, server);
        for (const [level, code] of Object.entries(codes)) {
          const r = await runViewer(['scan', `--fail-on=${level}`], env(server));
          assert.equal(r.status, code, `${server} --fail-on ${level}: ${r.stderr}`);
          const doc = JSON.parse(r.stdout) as ScanDocument;
          assert.equal(doc.snapshot['state'], state, 'the document is printed as usual');
          // Last on stderr, after what the scan itself says (an empty scope's location and hints).
          if (code === 2) assert.match(r.stderr, new RegExp(`(^|\\n)viewer: scan found the scope ${state} \\(--fail-on ${level}\\)\\n$`));
          else assert.equal(r.stderr, '');
        }
      }),
    );
  });

  it('prints any output as usual before the exit code, --save included', async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'viewer-fail-on-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const state = join(dir, 'state.json');
    const metrics = await runViewer(['scan', '--fail-on', 'warning', '--save', state, '--output', 'openmetrics'], env('pg-main'));
    assert.equal(metrics.status, 2, metrics.stderr);
    assert.ok(metrics.stdout.endsWith('\n# EOF\n'));
    const shown = /^viewer_state\{server="pg-main",state="(warning|unhealthy)"\} 1$/m.exec(metrics.stdout)?.[1];
    assert.ok(shown !== undefined, 'pg-main is a warning (candidate gap) or unhealthy (confirmed)');
    const gap = expectedGapStatusNow(repos.objects('pg-main'), repos.facts['DELETED_WAL'] ?? '');
    if (gap !== null) assert.equal(shown, gap === 'confirmed' ? 'unhealthy' : 'warning');
    const text = await runViewer(['scan', '--previous', state, '--output', 'text', '--fail-on', 'unhealthy'], env('pg-nothing-stored'));
    assert.equal(text.status, 78, 'a state file of another server is still refused before any scan');
    const summary = await runViewer(['scan', '--output', 'text', '--fail-on', 'unhealthy'], env('pg-nothing-stored'));
    assert.equal(summary.status, 2, summary.stderr);
    assert.match(summary.stdout, /unhealthy/);
  });

  it('names an unknown level in one line before the usage, before reading the environment', async () => {
    for (const level of ['healthy', 'Warning', 'critical', 'degraded']) {
      const r = await runViewer(['scan', '--fail-on', level], { DESTINATION_PATH: 'not a destination' });
      assert.equal(r.status, 64, `${level}: ${r.stderr}`);
      assert.equal(r.stdout, '');
      const [first, second] = r.stderr.split('\n');
      assert.equal(first, 'viewer: scan --fail-on takes warning, unknown or unhealthy');
      assert.match(second ?? '', /^usage: viewer/);
    }
    for (const args of [['--fail-on'], ['--fail-on='], ['--fail-on', 'warning', '--fail-on', 'unhealthy']]) {
      const r = await runViewer(['scan', ...args], {});
      assert.equal(r.status, 64, args.join(' '));
      // The mistake in one line (a missing value, an option given twice), then the usage.
      assert.match(r.stderr, /^viewer: scan --fail-on (?:needs a value|is given twice)\nusage: viewer/);
    }
  });
});
