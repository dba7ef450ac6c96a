/**
 * Issue 23, "Nothing proved is forgotten across a restart", with the real executable: `bin/viewer.js`
 * in sidecar mode on the fixed socket path inside a private mount namespace (`unshare -m`, as
 * sidecar-executable.test.ts), `STATE_DIR` set, over the real Swift S3 store and a copy of the real
 * `pg-main` repository Barman wrote (server-side copies to a fresh prefix, so objects can be
 * deleted; the source is never touched). The sidecar is stopped (SIGTERM) and started again between
 * generations:
 *
 * 0. Generations 1 and 2 are made in-process by the same wiring as the executable's, with one
 *    difference: the five-minute confirmation is shortened to nothing (the executable has no such
 *    knob, and copies are all received in the same second), so the segment Barman's fixture lost
 *    is a confirmed gap. Its memory is written to STATE_DIR by the production writer.
 * 1. The executable starts from it: its first generation is 3, the gap still `confirmed` with first
 *    observed generation 1 (without the memory: `candidate`, generation 1); WAL unhealthy.
 * 2. The newest segment is deleted while it is stopped. Restarted: WAL `wal-frontier-regressed`
 *    (without the memory the archive would just end one segment earlier), the generation goes on.
 * 3. Restarted again: still `wal-frontier-regressed`, the gap still confirmed from generation 1.
 * 4. The state file is damaged (cut in half): refused with a warning log line and its typed reason,
 *    and the process starts afresh: generation 1, the gap a candidate, no regression remembered;
 *    its first generation writes a valid state file again.
 *
 * Every response, every log line and the state file are searched for the destination, the bucket,
 * the prefix, the endpoint and the credentials: none may appear.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parseConfig, type SidecarConfig } from '../../src/cli/config/config.ts';
import { scanBudget, wireScope } from '../../src/cli/scope-wiring.ts';
import { createDriver } from '../../src/cli/store-factory.ts';
import type { WalGapItem } from '../../src/contract/collections.ts';
import { BudgetMeter } from '../../src/evidence/listing.ts';
import { scanScope } from '../../src/evidence/scope-scan.ts';
import { archiveCloud } from '../../src/format/barman-cloud/format.ts';
import { writeMemoryFile } from '../../src/publication/memory-file.ts';
import { confine } from '../../src/store/confined.ts';
import { realRepositories, type RealRepositories } from '../support/real-repositories.ts';
import { ScopeCopy } from '../support/scope-copy.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const TOKEN = 'q1aKFo9oVbP3rJ7Ztl0cKjYc2yU8m1Q0xW5nA4bZr-E';
const available = spawnSync('unshare', ['-m', 'true']).status === 0 && spawnSync('nsenter', ['--version']).status === 0;

const SCRIPT = `
set -eu
mount -t tmpfs tmpfs /run
mkdir -p /run/viewer /run/secrets
chmod 2770 /run/viewer
printf '%s' "$TOKEN" > /run/secrets/token && chmod 0440 /run/secrets/token
printf '%s' "$KEY_ID" > /run/secrets/id && printf '%s' "$SECRET" > /run/secrets/secret
unset TOKEN KEY_ID SECRET
export RUNTIME_MODE=sidecar REPOSITORY_FORMAT=archive-cloud PROVIDER=store-a ARCHIVE_SERVER_NAMES=pg-main
export EVIDENCE_TOKEN_FILE=/run/secrets/token CLUSTER_NAMESPACE=databases
export CLUSTER_UID=6f1c2a7e-3b9d-4e8f-a1c2-9d8e7f6a5b4c STORE_CREDENTIAL_MODE=static-files
export STORE_ACCESS_KEY_ID_FILE=/run/secrets/id STORE_SECRET_ACCESS_KEY_FILE=/run/secrets/secret
export REFRESH_INTERVAL_SECONDS=3600 LOG_LEVEL=debug
exec "$NODE" bin/viewer.js
`;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Snapshot {
  revision: number;
  evidence_generation: number;
  details: { archive_cloud: { wal: { state: string; reason: { code: string } } } };
}

describe('the sidecar executable with STATE_DIR, restarted between generations', { skip: available ? false : 'unshare -m and nsenter are not permitted here', timeout: 240_000 }, () => {
  let repos: RealRepositories;
  let copy: ScopeCopy;
  let stateDir = '';
  let secrets = '';
  const responses: string[] = [];
  const logs: string[] = [];

  before(async () => {
    repos = realRepositories();
    copy = await ScopeCopy.create({ endpoint: repos.endpoint, accessKeyId: repos.accessKeyId, secretAccessKey: repos.secretAccessKey, bucket: repos.bucket }, repos.prefix, ['pg-main/']);
    stateDir = mkdtempSync(join(tmpdir(), 'viewer-state-dir-'));
    secrets = mkdtempSync(join(tmpdir(), 'viewer-state-secrets-'));
  });
  after(async () => {
    await copy?.dispose();
    rmSync(stateDir, { recursive: true, force: true });
    rmSync(secrets, { recursive: true, force: true });
  });

  /** The sidecar's configuration as the executable parses it (the files it names are the test's own). */
  function sidecarConfig(): SidecarConfig {
    writeFileSync(join(secrets, 'token'), TOKEN, { mode: 0o440 });
    writeFileSync(join(secrets, 'id'), repos.accessKeyId);
    writeFileSync(join(secrets, 'secret'), repos.secretAccessKey);
    const parsed = parseConfig({
      RUNTIME_MODE: 'sidecar', REPOSITORY_FORMAT: 'archive-cloud', PROVIDER: 'store-a', ARCHIVE_SERVER_NAMES: 'pg-main',
      DESTINATION_PATH: `s3://${repos.bucket}/${copy.prefix}`, STORE_ENDPOINT_URL: repos.endpoint, STATE_DIR: stateDir,
      EVIDENCE_TOKEN_FILE: join(secrets, 'token'), CLUSTER_NAMESPACE: 'databases', CLUSTER_UID: '6f1c2a7e-3b9d-4e8f-a1c2-9d8e7f6a5b4c',
      STORE_CREDENTIAL_MODE: 'static-files', STORE_ACCESS_KEY_ID_FILE: join(secrets, 'id'), STORE_SECRET_ACCESS_KEY_FILE: join(secrets, 'secret'),
    });
    if (!parsed.ok || parsed.config.mode !== 'sidecar') throw new Error(`configuration refused: ${JSON.stringify(parsed)}`);
    return parsed.config;
  }

  /** One run of the executable until `stop()`: its API read inside its mount namespace. */
  function startSidecar() {
    const child: ChildProcess = spawn('unshare', ['-m', 'bash', '-c', SCRIPT], {
      cwd: ROOT,
      env: { PATH: process.env['PATH'] ?? '', NODE: process.execPath, TOKEN, KEY_ID: repos.accessKeyId, SECRET: repos.secretAccessKey, DESTINATION_PATH: `s3://${repos.bucket}/${copy.prefix}`, STORE_ENDPOINT_URL: repos.endpoint, STATE_DIR: stateDir },
    });
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
    const get = (path: string): { status: number; body: string } => {
      const r = spawnSync('nsenter', ['-t', String(child.pid), '-m', '--', 'curl', '-s', '-w', '\n%{http_code}', '--unix-socket', '/var/run/viewer/evidence.sock', '-H', `Authorization: Bearer ${TOKEN}`, `http://sidecar${path}`], { encoding: 'utf8', timeout: 10_000 });
      const cut = r.stdout.lastIndexOf('\n');
      const reply = { status: Number(r.stdout.slice(cut + 1)), body: r.stdout.slice(0, Math.max(0, cut)) };
      responses.push(reply.body);
      return reply;
    };
    const snapshot = (): Snapshot | null => {
      const r = get('/api/v1alpha1/snapshot');
      return r.status === 200 ? (JSON.parse(r.body) as Snapshot) : null;
    };
    return {
      snapshot,
      lines: () => stdout.split('\n').filter(Boolean),
      /** The first generation this run publishes (a complete scan), polled over the socket. */
      async published(): Promise<Snapshot> {
        const end = Date.now() + 60_000;
        while (Date.now() < end) {
          const s = child.exitCode === null ? snapshot() : null;
          if (s !== null && s.evidence_generation > 0) return s;
          if (child.exitCode !== null) break;
          await sleep(250);
        }
        assert.fail(`no generation published; log:\n${stdout.slice(-3000)}${stderr}`);
      },
      gaps(s: Snapshot): WalGapItem[] {
        const r = get(`/api/v1alpha1/wal-gaps?revision=${s.revision}&limit=200`);
        assert.equal(r.status, 200, r.body);
        return (JSON.parse(r.body) as { items: WalGapItem[] }).items;
      },
      async stop(): Promise<void> {
        child.kill('SIGTERM');
        const code = await new Promise<number | null>((resolve) => (child.exitCode !== null ? resolve(child.exitCode) : child.once('exit', resolve)));
        logs.push(...stdout.split('\n'), stderr);
        assert.equal(code, 0, `exit code; stderr: ${stderr}`);
      },
    };
  }

  const stateFiles = () => readdirSync(stateDir).filter((n) => n.startsWith('memory-'));
  const stateFile = () => {
    const files = stateFiles();
    assert.equal(files.length, 1, `one state file: ${files.join(', ')}`);
    return join(stateDir, files[0] ?? '');
  };
  const remembered = () => JSON.parse(readFileSync(stateFile(), 'utf8')) as { generation: number; gaps: { start_position: number; status: string; first_observed_generation: number }[] };
  const logged = (run: ReturnType<typeof startSidecar>, code: string) => run.lines().map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l['code'] === code);
  const wal = (s: Snapshot) => [s.details.archive_cloud.wal.state, s.details.archive_cloud.wal.reason.code];

  it('keeps a confirmed gap, a frontier regression and the generation count; refuses a damaged state file and starts afresh', async () => {
    const lost = repos.facts['DELETED_WAL'] ?? '';
    assert.match(lost, /^[0-9A-F]{24}$/, 'the fixture lost one segment');
    const lostGap = (gaps: readonly WalGapItem[]) => gaps.filter((g) => g.first_wal <= lost && lost <= g.last_wal).map((g) => [g.status, g.first_observed_generation]);

    // 0. Two generations in-process, the second confirming the lost segment; their memory to STATE_DIR.
    const config = sidecarConfig();
    const wiring = wireScope(config, { server: config.serverName, destination: config.destination, endpointUrl: config.endpointUrl });
    const driver = confine(await createDriver(config), wiring.roots);
    try {
      for (let minute = 0; minute < 2; minute++) {
        const meter = new BudgetMeter(scanBudget(config));
        const evidence = await scanScope({ format: archiveCloud, server: 'pg-main', root: wiring.root, driver, signal: AbortSignal.timeout(60_000), meter, concurrency: 4, ...wiring.publisher.nextScan, gapSettle: { settleMs: 0, longSettleMs: 3_600_000 } });
        const p = wiring.publisher.complete(evidence, { startedAt: new Date(), finishedAt: new Date(), pages: meter.pages, objects: meter.objects });
        assert.deepEqual([p.violations, p.snapshot.completeness], [[], 'complete']);
        assert.deepEqual(lostGap(p.walGaps), [[minute === 0 ? 'candidate' : 'confirmed', 1]]);
      }
    } finally {
      driver.close();
    }
    await writeMemoryFile(stateDir, wiring.publisher.memory);
    assert.equal(remembered().generation, 2);

    // 1. The executable continues: generation 3, the gap confirmed since generation 1.
    const first = startSidecar();
    const g3 = await first.published();
    assert.equal(g3.evidence_generation, 3, 'the first generation after a restart is the remembered one + 1');
    assert.deepEqual(lostGap(first.gaps(g3)), [['confirmed', 1]]);
    assert.deepEqual(wal(g3), ['unhealthy', 'wal-gap-confirmed']);
    assert.deepEqual(logged(first, 'memory-restored').map((l) => l['generation']), [2]);
    await first.stop();
    assert.equal(remembered().generation, 3, 'generation 3 is on disk when the process has ended');

    // 2. The newest segment goes while the sidecar is down.
    const newest = repos.objects('pg-main').map((o) => o.key).filter((k) => /\/wals\/[0-9A-F]{16}\/[0-9A-F]{24}(\.[a-z0-9]+)?$/.test(k)).sort((a, b) => (a.slice(a.lastIndexOf('/') + 1) < b.slice(b.lastIndexOf('/') + 1) ? -1 : 1)).at(-1) ?? '';
    assert.ok(newest !== '', 'the repository has WAL');
    await copy.remove(newest.slice(repos.prefix.length + 1));
    const second = startSidecar();
    const g4 = await second.published();
    assert.equal(g4.evidence_generation, 4);
    assert.deepEqual(wal(g4), ['unhealthy', 'wal-frontier-regressed'], 'the newest segment lost while the sidecar was down');
    assert.deepEqual(lostGap(second.gaps(g4)), [['confirmed', 1]]);
    await second.stop();

    // 3. Once more: nothing forgotten.
    const third = startSidecar();
    const g5 = await third.published();
    assert.deepEqual([g5.evidence_generation, wal(g5)], [5, ['unhealthy', 'wal-frontier-regressed']]);
    assert.deepEqual(lostGap(third.gaps(g5)), [['confirmed', 1]]);
    await third.stop();
    const kept = remembered();
    assert.equal(kept.generation, 5);

    // 4. A damaged state file: refused, logged, and the process starts afresh.
    const path = stateFile();
    const text = readFileSync(path, 'utf8');
    writeFileSync(path, text.slice(0, Math.floor(text.length / 2)));
    const fourth = startSidecar();
    const g1 = await fourth.published();
    assert.equal(g1.evidence_generation, 1, 'a refused memory is not used: generation 1');
    assert.deepEqual(lostGap(fourth.gaps(g1)), [['candidate', 1]]);
    assert.notEqual(wal(g1)[1], 'wal-frontier-regressed', 'nothing of the refused memory is used');
    const refusals = logged(fourth, 'state-file-refused');
    assert.equal(refusals.length, 1, fourth.lines().join('\n'));
    assert.deepEqual([refusals[0]?.['level'], refusals[0]?.['reason']], [40, 'not-json']);
    assert.deepEqual(logged(fourth, 'memory-restored'), []);
    await fourth.stop();
    assert.equal(remembered().generation, 1, 'the first generation after the refusal wrote a valid state file');

    // Nothing of the store, the destination or the credentials in any response, log line or state file.
    const forbidden: (string | RegExp)[] = [repos.accessKeyId, repos.secretAccessKey, TOKEN, `s3://${repos.bucket}`, `/${repos.bucket}/`, `"${repos.bucket}"`, copy.prefix, repos.endpoint, repos.endpoint.replace(/^https?:\/\//, ''), stateDir, /(?:base|wals)\/[0-9A-F]{8}|\d{8}T\d{6}\/(?:backup\.info|data)/];
    const texts = [...responses, ...logs, readFileSync(stateFile(), 'utf8'), ...stateFiles()];
    for (const [i, t] of texts.entries()) {
      for (const f of forbidden) assert.ok(typeof f === 'string' ? !t.includes(f) : !f.test(t), `text #${i} carries ${String(f)}: ${t.slice(0, 300)}`);
    }
    // The sidecar's log lines name no scope (spec Authentication, Sidecar, rule 9).
    for (const line of logs.filter((l) => l.startsWith('{'))) assert.ok(!line.includes('pg-main'), line);
  });

  it('refuses to start with a state directory it cannot use: one line naming the gate, exit 78, no socket', () => {
    // Each case prepares STATE_DIR inside the namespace (a read-only mount for the last), then starts.
    const cases: [string, string, string][] = [
      ['missing', 'export STATE_DIR=/var/tmp/viewer-no-such-state-dir', 'state directory: cannot be examined (ENOENT)'],
      ['a file', 'export STATE_DIR=/run/state-file; : > /run/state-file', 'state directory: is not a directory'],
      ['a link', 'mkdir -p /run/real-state; ln -s /run/real-state /run/state-link; export STATE_DIR=/run/state-link', 'state directory: is a symbolic link'],
      ['read-only', 'mkdir -p /run/ro-state; mount -t tmpfs -o ro tmpfs /run/ro-state; export STATE_DIR=/run/ro-state', 'state directory: this process cannot create files in it (EROFS)'],
    ];
    for (const [what, prepare, gate] of cases) {
      const script = SCRIPT.replace('exec "$NODE" bin/viewer.js', `${prepare}\ncode=0; "$NODE" bin/viewer.js || code=$?; echo "exit=$code"; [ -e /var/run/viewer/evidence.sock ] && echo socket=left || echo socket=none`);
      const r = spawnSync('unshare', ['-m', 'bash', '--norc', '-c', script], { cwd: ROOT, env: { PATH: process.env['PATH'] ?? '', NODE: process.execPath, TOKEN, KEY_ID: 'AKIAEXAMPLEKEY', SECRET: 'example-secret-value', DESTINATION_PATH: 's3://acme-bucket/secret-prefix', STORE_ENDPOINT_URL: 'http://127.0.0.1:9' }, encoding: 'utf8', timeout: 30_000 });
      assert.deepEqual(r.stderr.trimEnd().split('\n'), [`viewer: sidecar refused to start: ${gate}`], what);
      assert.match(r.stdout, /^exit=78\nsocket=none\n$/, what);
    }
  });
});
