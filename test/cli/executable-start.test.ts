/**
 * How `bin/viewer.js` starts Node (issue 28): the young generation sized for viewer unless the user
 * chose one, in the same process (process.execve keeps the PID), and Node's compile cache in the
 * user's own cache directory, nowhere without a home directory.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { VIEWER_BIN } from '../support/run-viewer.ts';

const dir = mkdtempSync(join(tmpdir(), 'viewer-executable-'));
after(() => rmSync(dir, { recursive: true, force: true }));

// Preloaded with --import: every Node that runs the executable appends its PID and its V8 flags.
const PROBE = join(dir, 'probe.mjs');
writeFileSync(PROBE, `import { appendFileSync } from 'node:fs';\nappendFileSync(process.env.PROBE_LOG, JSON.stringify({ pid: process.pid, execArgv: process.execArgv }) + '\\n');\n`);

interface Start {
  readonly pid: number;
  readonly execArgv: string[];
}

async function version(env: Record<string, string>, nodeFlags: readonly string[] = []): Promise<{ status: number | null; stdout: string; starts: Start[]; pid: number }> {
  const log = join(dir, `probe-${Math.random().toString(36).slice(2)}.log`);
  const child = spawn(process.execPath, [...nodeFlags, `--import=${PROBE}`, VIEWER_BIN, '--version'], { env: { PATH: process.env['PATH'] ?? '', PROBE_LOG: log, ...env } });
  let stdout = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.resume();
  const status = await new Promise<number | null>((resolve) => child.on('close', resolve));
  const starts = readFileSync(log, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Start);
  return { status, stdout, starts, pid: child.pid ?? -1 };
}

describe('the executable starts Node for viewer', () => {
  it('without a chosen young generation, the same process restarts once with --max-semi-space-size=4', async () => {
    const r = await version({});
    assert.equal(r.status, 0);
    assert.match(r.stdout, /^viewer /);
    assert.equal(r.starts.length, 2, 'the first Node and the one it became');
    assert.ok(r.starts.every((s) => s.pid === r.pid), 'one PID throughout: a signal to it reaches viewer');
    assert.deepEqual(r.starts[1]?.execArgv, ['--max-semi-space-size=4', `--import=${PROBE}`], 'the flag, then the user\'s own flags');
  });

  it('a size the user chose, as a flag or in NODE_OPTIONS, is kept and nothing restarts', async () => {
    const flag = await version({}, ['--max-semi-space-size=8']);
    assert.equal(flag.status, 0);
    assert.deepEqual(flag.starts.map((s) => s.execArgv), [['--max-semi-space-size=8', `--import=${PROBE}`]]);
    const options = await version({ NODE_OPTIONS: '--max-old-space-size=96 --max-semi-space-size=4' });
    assert.equal(options.status, 0);
    assert.equal(options.starts.length, 1);
    assert.ok(!options.starts[0]?.execArgv.some((a) => a.includes('semi')));
  });

  it('keeps the compile cache under the user\'s cache directory, and writes none without a home', async () => {
    const home = join(dir, 'home');
    assert.equal((await version({ HOME: home })).status, 0);
    const cache = join(home, '.cache', 'viewer', 'node-compile-cache');
    assert.ok(existsSync(cache) && readdirSync(cache).length > 0, 'a compile cache under HOME/.cache/viewer');
    const xdg = join(dir, 'xdg');
    assert.equal((await version({ HOME: join(dir, 'home2'), XDG_CACHE_HOME: xdg })).status, 0);
    assert.ok(existsSync(join(xdg, 'viewer', 'node-compile-cache')), 'XDG_CACHE_HOME wins over HOME');
    assert.ok(!existsSync(join(dir, 'home2')));
    const cwd = mkdtempSync(join(dir, 'cwd-'));
    const before = readdirSync(tmpdir()).filter((n) => n.includes('compile-cache')).sort();
    const child = spawn(process.execPath, [VIEWER_BIN, '--version'], { cwd, env: { PATH: process.env['PATH'] ?? '' } });
    child.stdout.resume();
    assert.equal(await new Promise((resolve) => child.on('close', resolve)), 0);
    assert.deepEqual(readdirSync(cwd), [], 'nothing in the working directory');
    assert.deepEqual(readdirSync(tmpdir()).filter((n) => n.includes('compile-cache')).sort(), before, 'no shared cache in the temporary directory');
  });
});
