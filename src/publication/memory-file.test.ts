/**
 * The state files of STATE_DIR (memory-file.ts, atomic-file.ts) on the real filesystem: a scope's
 * memory written and read back; a name that says nothing of the repository; a file of another
 * destination, format or server, a damaged, truncated, empty, oversized, linked or non-regular
 * file refused with its typed reason; a temporary file a killed writer left behind ignored (and
 * removed), and a writer killed at random moments (SIGKILL, a real child process) never leaves a
 * partial state file; the keeper writing one memory at a time, the newest winning; and the state
 * directory's gate.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { GateError } from '../common/errors.ts';
import { serializeMemory, type EvidenceMemory, type MemoryIdentity } from '../evidence/memory.ts';
import { checkStateDir, MEMORY_FILE_MAX_BYTES, MemoryKeeper, memoryFileName, readMemoryFile, writeMemoryFile, type KeptResult } from './memory-file.ts';
import { writeFileAtomic } from './atomic-file.ts';

const IDENTITY: MemoryIdentity = { fingerprint: `sha256:${'7'.repeat(64)}`, format: 'archive-cloud', server: 'pg-secret-server-name' };
const T0 = Date.parse('2026-11-21T10:00:00Z');

function memory(generation: number, gaps = 1, identity: MemoryIdentity = IDENTITY): EvidenceMemory {
  return {
    identity,
    generation,
    gaps: Array.from({ length: gaps }, (_, i) => ({ timeline: 1, start: 10 + 3 * i, end: 11 + 3 * i, firstObservedGeneration: 1, lastObservedGeneration: generation, firstObservedAt: T0, status: 'confirmed' as const, class: 'unexplained' as const })),
    frontiers: { segmentSize: 16 << 20, last: new Map([[1, 20 + 3 * gaps]]) },
    completedBackups: new Set(['20261121T100500']),
  };
}

const base = mkdtempSync(join(tmpdir(), 'viewer-state-'));
after(() => rmSync(base, { recursive: true, force: true }));
let n = 0;
const freshDir = () => {
  const dir = join(base, `d${n++}`);
  mkdirSync(dir);
  return dir;
};

describe('a scope\'s state file', () => {
  it('is written and read back; its name is a hash of the scope; its mode 0600; nothing of the destination in it', async () => {
    const dir = freshDir();
    assert.deepEqual(await readMemoryFile(dir, IDENTITY), { status: 'absent' });
    await writeMemoryFile(dir, memory(4));
    const read = await readMemoryFile(dir, IDENTITY);
    assert.equal(read.status, 'loaded');
    assert.deepEqual(read.status === 'loaded' && read.memory, memory(4));
    const [name, ...others] = readdirSync(dir);
    assert.deepEqual(others, [], 'one file, no temporary left');
    assert.equal(name, memoryFileName(IDENTITY));
    assert.match(name ?? '', /^memory-[0-9a-f]{32}\.json$/);
    assert.ok(!(name ?? '').includes('pg-secret') && !(name ?? '').includes('7777'), 'the name says nothing of the scope');
    assert.equal(statSync(join(dir, name ?? '')).mode & 0o777, 0o600);
    // Its own identity per scope: another server, format or destination is another file.
    for (const other of [{ ...IDENTITY, server: 'pg-other' }, { ...IDENTITY, format: 'stanza-repository' }, { ...IDENTITY, fingerprint: `sha256:${'8'.repeat(64)}` }]) assert.notEqual(memoryFileName(other), name);
    // Replaced whole by the next generation.
    await writeMemoryFile(dir, memory(5, 3));
    const again = await readMemoryFile(dir, IDENTITY);
    assert.ok(again.status === 'loaded' && again.memory.generation === 5 && again.memory.gaps.length === 3);
  });

  it('a file of another destination, format or server is refused (copied under this scope\'s name)', async () => {
    const dir = freshDir();
    const others: [MemoryIdentity, string][] = [
      [{ ...IDENTITY, fingerprint: `sha256:${'8'.repeat(64)}` }, 'other-destination'],
      [{ ...IDENTITY, format: 'stanza-repository' }, 'other-format'],
      [{ ...IDENTITY, server: 'pg-other' }, 'other-server'],
    ];
    for (const [identity, reason] of others) {
      writeFileSync(join(dir, memoryFileName(IDENTITY)), serializeMemory(memory(3, 1, identity)));
      assert.deepEqual(await readMemoryFile(dir, IDENTITY), { status: 'refused', reason });
    }
  });

  it('a damaged, truncated, empty, oversized, linked or non-regular file is refused with its reason', async () => {
    const dir = freshDir();
    const path = join(dir, memoryFileName(IDENTITY));
    const good = serializeMemory(memory(3, 5));
    const cases: [string, () => void, string][] = [
      ['empty', () => writeFileSync(path, ''), 'not-json'],
      ['truncated', () => writeFileSync(path, good.slice(0, Math.floor(good.length / 2))), 'not-json'],
      ['cut one byte short', () => writeFileSync(path, good.slice(0, -1)), 'not-json'],
      ['a flipped byte', () => writeFileSync(path, good.replace('"confirmed"', '"confirmes"')), 'schema'],
      ['not UTF-8', () => writeFileSync(path, Buffer.concat([Buffer.from(good.slice(0, 20)), Buffer.from([0xff, 0xfe]), Buffer.from(good.slice(20))])), 'not-utf8'],
      ['another version', () => writeFileSync(path, good.replace('"version":1', '"version":2')), 'other-version'],
      ['not a memory', () => writeFileSync(path, '{"kind":"Something"}'), 'not-memory'],
      ['contradicting itself', () => writeFileSync(path, good.replace('"generation":3', '"generation":2')), 'inconsistent'],
      ['larger than any memory', () => {
        writeFileSync(path, good);
        truncateSync(path, MEMORY_FILE_MAX_BYTES + 1);
      }, 'too-large'],
      ['a symbolic link to a good file', () => {
        writeFileSync(join(dir, 'elsewhere.json'), good);
        symlinkSync(join(dir, 'elsewhere.json'), path);
      }, 'not-a-file'],
      ['a directory', () => mkdirSync(path), 'not-a-file'],
      ['a FIFO', () => assert.equal(spawnSync('mkfifo', [path]).status, 0), 'not-a-file'],
    ];
    for (const [what, make, reason] of cases) {
      rmSync(path, { recursive: true, force: true });
      make();
      assert.deepEqual(await readMemoryFile(dir, IDENTITY), { status: 'refused', reason }, what);
    }
  });

  it('a temporary file a killed writer left behind is never read, and is removed', async () => {
    const dir = freshDir();
    await writeMemoryFile(dir, memory(6));
    const name = memoryFileName(IDENTITY);
    // What a writer killed between its write and its rename leaves: half of the next memory.
    const next = serializeMemory(memory(7, 4));
    const leftover = join(dir, `.${name}.4242.0123456789ab.tmp`);
    writeFileSync(leftover, next.slice(0, next.length / 2));
    // Another scope's leftover is not this scope's to remove.
    const foreign = join(dir, `.${memoryFileName({ ...IDENTITY, server: 'pg-other' })}.4242.0123456789ab.tmp`);
    writeFileSync(foreign, 'x');
    const read = await readMemoryFile(dir, IDENTITY);
    assert.ok(read.status === 'loaded' && read.memory.generation === 6, 'the last complete write is read');
    assert.equal(existsSync(leftover), false);
    assert.equal(existsSync(foreign), true);
    // Without any complete write, a leftover alone is no memory.
    const empty = freshDir();
    writeFileSync(join(empty, `.${name}.1.aa.tmp`), next);
    assert.deepEqual(await readMemoryFile(empty, IDENTITY), { status: 'absent' });
  });

  it('a writer killed at any moment leaves the previous memory or the new one, never a part', { timeout: 120_000 }, async () => {
    const dir = freshDir();
    const path = join(dir, 'memory.json');
    // A large document (about 8 MB) so that kills land in the middle of writes.
    const big = serializeMemory(memory(2, 40_000));
    writeFileSync(join(dir, 'source.json'), big);
    await writeFileAtomic(path, serializeMemory(memory(1)));
    const child = `
      import { readFileSync } from 'node:fs';
      import { writeFileAtomic } from ${JSON.stringify(join(import.meta.dirname, 'atomic-file.ts'))};
      const text = readFileSync(process.argv[1] + '/source.json', 'utf8');
      process.stdout.write('ready\\n');
      for (;;) await writeFileAtomic(process.argv[1] + '/memory.json', text);
    `;
    const outcomes = new Set<number>();
    for (let round = 0; round < 12; round++) {
      const p = spawn(process.execPath, ['--input-type=module', '-e', child, dir], { stdio: ['ignore', 'pipe', 'inherit'] });
      await new Promise<void>((resolve) => p.stdout.once('data', () => resolve()));
      await new Promise((r) => setTimeout(r, 5 + Math.floor(Math.random() * 60)));
      p.kill('SIGKILL');
      await new Promise((r) => p.once('exit', r));
      const text = readFileSync(path, 'utf8');
      const generation = (JSON.parse(text) as { generation: number }).generation;
      assert.ok(text === big || generation === 1, `round ${round}: a partial state file`);
      outcomes.add(generation);
    }
    assert.ok(outcomes.has(2), 'the big memory was written at least once');
    // Whatever the kills left behind beside it is only temporary files.
    for (const name of readdirSync(dir)) assert.ok(['memory.json', 'source.json'].includes(name) || /^\.memory\.json\.\d+\.[0-9a-f]{12}\.tmp$/.test(name), name);
  });
});

describe('the keeper', () => {
  it('writes one memory at a time, the newest waiting one next, and flushes on demand', async () => {
    const dir = freshDir();
    const results: KeptResult[] = [];
    const keeper = new MemoryKeeper(dir, (r) => results.push(r));
    keeper.keep(memory(1, 2000));
    keeper.keep(memory(2));
    keeper.keep(memory(3));
    await keeper.flush();
    assert.deepEqual(results, [{ ok: true, generation: 1 }, { ok: true, generation: 3 }], 'generation 2 was superseded while 1 was written');
    const read = await readMemoryFile(dir, IDENTITY);
    assert.ok(read.status === 'loaded' && read.memory.generation === 3);
    await keeper.flush();
  });

  it('reports a failed write by its system code, and goes on', async () => {
    const dir = freshDir();
    const results: KeptResult[] = [];
    const keeper = new MemoryKeeper(join(dir, 'gone'), (r) => results.push(r));
    keeper.keep(memory(1));
    await keeper.flush();
    assert.deepEqual(results, [{ ok: false, errorCode: 'ENOENT' }]);
  });
});

describe('the state directory\'s gate', () => {
  const refused = async (dir: string, message: RegExp) => {
    await assert.rejects(checkStateDir(dir), (e: unknown) => e instanceof GateError && message.test(e.message) && !e.message.includes(dir));
  };

  it('an existing directory this process can write in, not a link; nothing left behind', async () => {
    const dir = freshDir();
    await checkStateDir(dir);
    assert.deepEqual(readdirSync(dir), [], 'the probe is removed');
    await refused(join(dir, 'missing'), /^state directory: cannot be examined \(ENOENT\)$/);
    writeFileSync(join(dir, 'file'), '');
    await refused(join(dir, 'file'), /^state directory: is not a directory$/);
    symlinkSync(dir, join(base, `link${n++}`));
    await refused(join(base, `link${n - 1}`), /^state directory: is a symbolic link$/);
  });

  it('refuses a directory this process cannot create files in', { skip: process.getuid?.() === 0 ? false : 'needs root to drop its own file-permission override' }, () => {
    // Root without CAP_DAC_OVERRIDE is held to the mode bits like anyone: its own directory without
    // write permission refuses it. (Running as another user instead needs every directory above the
    // checkout to be traversable by that user, which a clone in a private temporary directory is not.)
    const dir = freshDir();
    chmodSync(dir, 0o555);
    const script = `import { checkStateDir } from ${JSON.stringify(join(import.meta.dirname, 'memory-file.ts'))}; checkStateDir(process.argv[1]).then(() => console.log('accepted'), (e) => console.log(e.message));`;
    const withoutOverride = ['--bounding-set=-dac_override,-dac_read_search', '--inh-caps=-dac_override,-dac_read_search'];
    const r = spawnSync('setpriv', [...withoutOverride, process.execPath, '--input-type=module', '-e', script, dir], { encoding: 'utf8', cwd: '/' });
    chmodSync(dir, 0o755);
    assert.equal(r.stdout.trim(), 'state directory: this process cannot create files in it (EACCES)', r.stderr);
  });
});
