/**
 * STATE_DIR in standalone mode, with the real executable on the embedded demo repository: the
 * first run writes the scope's memory after its first generation; a restarted run logs that it
 * restored it and publishes generation 2 (the count goes on), with the demo's lost segment still
 * first observed in generation 1; a memory of another server in the scope's file is refused with a
 * warning and the run starts afresh (and writes a valid file again); a state directory that does not exist refuses the start (exit 78, one line, no
 * path echoed).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { runViewer, startStandalone, type RunningViewer } from '../support/run-viewer.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

type Line = Record<string, unknown>;
const lines = (v: RunningViewer): Line[] => v.logs().split('\n').filter(Boolean).map((l) => JSON.parse(l) as Line);

async function until(v: RunningViewer, what: string, ok: (l: Line) => boolean): Promise<Line> {
  const end = Date.now() + 30_000;
  while (Date.now() < end) {
    const found = lines(v).find(ok);
    if (found !== undefined) return found;
    await sleep(100);
  }
  assert.fail(`${what}; log:\n${v.logs()}`);
}

async function stop(v: RunningViewer): Promise<void> {
  v.child.kill('SIGTERM');
  const code = await new Promise<number | null>((resolve) => (v.child.exitCode !== null ? resolve(v.child.exitCode) : v.child.once('exit', resolve)));
  assert.equal(code, 0);
}

describe('standalone with STATE_DIR', { timeout: 120_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'viewer-standalone-state-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const env = { STATE_DIR: dir, LOG_LEVEL: 'debug' };

  it('continues the demo scope\'s generations across a restart, and refuses a memory of another server', async () => {
    const first = await startStandalone(env);
    await until(first, 'no memory at the first start', (l) => l['code'] === 'memory-absent' && l['server'] === 'pg-main');
    const g1 = await until(first, 'generation 1 published', (l) => l['msg'] === 'published' && l['generation'] === 1);
    assert.equal(g1['server'], 'pg-main');
    await until(first, 'generation 1 written', (l) => l['code'] === 'memory-written' && l['generation'] === 1);
    await stop(first);
    const [file, ...others] = readdirSync(dir);
    assert.deepEqual(others, []);
    const memory = JSON.parse(readFileSync(join(dir, file ?? ''), 'utf8')) as { generation: number; identity: { server: string }; gaps: { first_observed_generation: number }[] };
    assert.deepEqual([memory.generation, memory.identity.server], [1, 'pg-main']);
    assert.ok(memory.gaps.length > 0, 'the demo\'s lost segment is remembered');

    const second = await startStandalone(env);
    const restored = await until(second, 'memory restored', (l) => l['code'] === 'memory-restored');
    assert.deepEqual([restored['server'], restored['generation'], restored['level']], ['pg-main', 1, 30]);
    await until(second, 'generation 2 published', (l) => l['msg'] === 'published' && l['generation'] === 2);
    await stop(second);
    const after2 = JSON.parse(readFileSync(join(dir, file ?? ''), 'utf8')) as typeof memory;
    assert.equal(after2.generation, 2);
    assert.deepEqual(after2.gaps.map((g) => g.first_observed_generation), memory.gaps.map((g) => g.first_observed_generation), 'first observed in generation 1, still');

    // A memory of another server in this scope's file: refused with a warning, and the run starts afresh.
    const text = readFileSync(join(dir, file ?? ''), 'utf8');
    writeFileSync(join(dir, file ?? ''), text.replace('"server":"pg-main"', '"server":"pg-other"'));
    const third = await startStandalone(env);
    const refused = await until(third, 'the file refused', (l) => l['code'] === 'state-file-refused');
    assert.deepEqual([refused['server'], refused['reason'], refused['level']], ['pg-main', 'other-server', 40]);
    await until(third, 'generation 1 published afresh', (l) => l['msg'] === 'published' && l['generation'] === 1);
    await until(third, 'a valid file written again', (l) => l['code'] === 'memory-written' && l['generation'] === 1);
    await stop(third);
    assert.equal((JSON.parse(readFileSync(join(dir, file ?? ''), 'utf8')) as typeof memory).identity.server, 'pg-main');
  });

  it('refuses to start when the state directory does not exist', async () => {
    const r = await runViewer([], { STATE_DIR: join(dir, 'missing'), LISTEN_ADDR: '127.0.0.1:0' });
    assert.equal(r.status, 78);
    assert.equal(r.stderr, 'viewer: standalone refused to start: state directory: cannot be examined (ENOENT)\n');
    assert.ok(!r.stdout.includes(dir) && !r.stderr.includes(dir));
  });
});
