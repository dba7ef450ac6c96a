/**
 * `viewer scan --previous FILE` with the real executable against a real Barman repository: the
 * second run continues the first (generation 2, a greater revision, the gap first observed in
 * generation 1), its own output chains again, and a document of another server, a damaged one or a
 * missing file is refused before any scan, with a fixed message and nothing on stdout.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { realRepositories, type RealRepositories } from '../support/real-repositories.ts';
import { runViewer, type ScanDocument } from '../support/run-viewer.ts';

describe('viewer scan --previous', () => {
  let repos: RealRepositories;
  let dir: string;
  const env = (server: string) => ({
    DESTINATION_PATH: `s3://${repos.bucket}/${repos.scenarioPrefix}`,
    ARCHIVE_SERVER_NAMES: server,
    STORE_ENDPOINT_URL: repos.endpoint,
    STORE_ACCESS_KEY_ID_FILE: join(dir, 'id'),
    STORE_SECRET_ACCESS_KEY_FILE: join(dir, 'secret'),
  });
  before(() => {
    repos = realRepositories();
    dir = mkdtempSync(join(tmpdir(), 'viewer-previous-'));
    writeFileSync(join(dir, 'id'), `${repos.accessKeyId}\n`);
    writeFileSync(join(dir, 'secret'), `${repos.secretAccessKey}\n`);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('continues the previous run: generation, revision and gap memory', async () => {
    const first = await runViewer(['scan'], env('pg-standalone'));
    assert.equal(first.status, 0, first.stderr);
    writeFileSync(join(dir, 'run1.json'), first.stdout);
    const one = JSON.parse(first.stdout) as ScanDocument;
    assert.equal(one.snapshot['evidence_generation'], 1);
    assert.ok(one.wal_gaps.length > 0, 'the lost segment is a gap');

    const second = await runViewer(['scan', '--previous', join(dir, 'run1.json')], env('pg-standalone'));
    assert.equal(second.status, 0, second.stderr);
    const two = JSON.parse(second.stdout) as ScanDocument;
    assert.equal(two.snapshot['evidence_generation'], 2);
    assert.ok((two.snapshot['revision'] as number) > (one.snapshot['revision'] as number));
    for (const gap of two.wal_gaps) {
      assert.equal(gap['first_observed_generation'], 1);
      assert.equal(gap['last_observed_generation'], 2);
    }
    writeFileSync(join(dir, 'run2.json'), second.stdout);
    const third = await runViewer(['scan', '--previous=' + join(dir, 'run2.json'), '--output', 'text'], env('pg-standalone'));
    assert.equal(third.status, 0, third.stderr);
    assert.match(third.stdout, /generation 3, complete/);
  });

  it('--save keeps the chain while another output is printed (the cron form of deploy/monitoring)', async () => {
    const state = join(dir, 'state.json');
    const first = await runViewer(['scan', '--save', state, '--output', 'openmetrics'], env('pg-standalone'));
    assert.equal(first.status, 0, first.stderr);
    assert.match(first.stdout, /^viewer_evidence_generation\{server="pg-standalone"\} 1$/m);
    const second = await runViewer(['scan', '--previous', state, '--save', state, '--output', 'openmetrics'], env('pg-standalone'));
    assert.equal(second.status, 0, second.stderr);
    assert.match(second.stdout, /^viewer_evidence_generation\{server="pg-standalone"\} 2$/m);
    const unwritable = await runViewer(['scan', '--save', join(dir, 'no', 'such', 'dir.json')], env('pg-standalone'));
    assert.equal(unwritable.status, 78);
    assert.equal(unwritable.stdout, '', 'a refused save prints nothing');
  });

  it('refuses a document of another server, a damaged one and a missing file, before any scan', async () => {
    const other = await runViewer(['scan'], env('pg-damaged'));
    assert.equal(other.status, 0, other.stderr);
    writeFileSync(join(dir, 'other.json'), other.stdout);
    writeFileSync(join(dir, 'damaged.json'), other.stdout.slice(0, other.stdout.length / 2));
    for (const file of ['other.json', 'damaged.json', 'missing.json']) {
      const r = await runViewer(['scan', '--previous', join(dir, file)], env('pg-standalone'));
      assert.equal(r.status, 78, `${file}: ${r.stderr}`);
      assert.equal(r.stdout, '');
      assert.match(r.stderr, /^viewer: scan --previous refused: the previous scan document [^\n]+\n$/);
      assert.ok(!r.stderr.includes(dir), 'the path is not echoed');
    }
  });

  it('takes each option once, with a value', async () => {
    for (const args of [['--previous'], ['--previous', 'a', '--previous', 'b'], ['--output', 'json', '--output', 'text'], ['--previous='], ['--save'], ['--verbose']]) {
      assert.equal((await runViewer(['scan', ...args], {})).status, 64, args.join(' '));
    }
  });
});
