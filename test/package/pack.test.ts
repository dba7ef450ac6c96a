/**
 * What the package ships (issue 26): `npm pack --dry-run --json` lists exactly what runs — the
 * executable, every module it and the `viewer/client` export load, the precompiled validators —
 * plus the licence, the notice, the README, the changelog and the docs; no test, no test-only
 * module, nothing of test/, bench/ or scripts/. The image's app/ is staged from the same package
 * (scripts/build-image.sh --stage-app), so it carries none of them either.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { describe, it } from 'node:test';
import { filesUnder, ROOT, runtimeFiles } from '../support/import-graph.ts';

interface PackEntry {
  readonly path: string;
  readonly mode: number;
}

function packed(): PackEntry[] {
  const r = spawnSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: ROOT, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const [pack] = JSON.parse(r.stdout) as { files: PackEntry[] }[];
  assert.ok(pack !== undefined);
  return pack.files;
}

const CODE = /\.(?:[cm]?js|ts)$/;

describe('npm pack', () => {
  const files = packed();
  const paths = files.map((f) => f.path);
  const runtime = runtimeFiles();

  it('ships no test, nothing of test/, bench/ or scripts/', () => {
    assert.deepEqual(paths.filter((p) => /\.test\.ts$|\.scenario\.ts$/.test(p) || /^(test|bench|scripts|test-artifacts|examples)\//.test(p)), []);
  });

  it('ships every file the executable and viewer/client load', () => {
    assert.deepEqual([...runtime].filter((p) => !paths.includes(p)), []);
  });

  it('ships no module that nothing at run time loads (no test-only module, no build tool)', () => {
    assert.deepEqual(paths.filter((p) => CODE.test(p) && !runtime.has(p)), []);
  });

  it('ships the licence, the notice, the README, the changelog and an executable bin', () => {
    for (const p of ['LICENSE', 'NOTICE', 'README.md', 'CHANGELOG.md', 'package.json']) assert.ok(paths.includes(p), p);
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { license?: string; private?: boolean; bin?: Record<string, string> };
    assert.equal(pkg.license, 'Apache-2.0');
    assert.equal(pkg.private, undefined, 'publishable');
    assert.deepEqual(pkg.bin, { viewer: 'bin/viewer.js' });
    const bin = files.find((f) => f.path === 'bin/viewer.js');
    assert.ok(bin !== undefined && (bin.mode & 0o111) !== 0, 'bin/viewer.js is executable');
    assert.ok(readFileSync(join(ROOT, 'LICENSE'), 'utf8').includes('Apache License\n                           Version 2.0, January 2004'));
  });

  it('the walk finds what runs (the checks can fail)', () => {
    for (const p of ['bin/viewer.js', 'src/cli/main.ts', 'src/client/index.ts', 'src/contract/wire-validators.generated.cjs', 'src/evidence/memory-validators.generated.cjs', 'src/format/barman-cloud/demo-repository.ts']) {
      assert.ok(runtime.has(p), p);
    }
    assert.ok(!runtime.has('src/contract/files.ts'), 'the contract generator is a build tool');
  });
});

describe('installed from the tarball (under node_modules, where Node strips no types)', () => {
  it('the executable runs, and viewer/client imports with viewer/register', () => {
    const dir = mkdtempSync(join(tmpdir(), 'viewer-installed-'));
    try {
      const r = spawnSync('npm', ['pack', '--ignore-scripts', '--pack-destination', dir, '--json'], { cwd: ROOT, encoding: 'utf8' });
      assert.equal(r.status, 0, r.stderr);
      const [{ filename }] = JSON.parse(r.stdout) as [{ filename: string }];
      const pkg = join(dir, 'node_modules', 'viewer');
      mkdirSync(pkg, { recursive: true });
      const x = spawnSync('tar', ['-xzf', join(dir, filename), '-C', pkg, '--strip-components=1'], { encoding: 'utf8' });
      assert.equal(x.status, 0, x.stderr);
      // The dependencies as an install would place them; the repository's own copies stand in.
      symlinkSync(join(ROOT, 'node_modules'), join(pkg, 'node_modules'), 'dir');
      writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'integrator', private: true, type: 'module' }));
      const help = spawnSync(process.execPath, [join(pkg, 'bin', 'viewer.js'), 'help'], { cwd: dir, encoding: 'utf8' });
      assert.equal(help.status, 0, help.stderr);
      assert.match(help.stdout, /^usage: viewer/);
      const bare = spawnSync(process.execPath, ['-e', "import('viewer/client')"], { cwd: dir, encoding: 'utf8' });
      assert.match(bare.stderr, /ERR_UNSUPPORTED_NODE_MODULES_TYPE_STRIPPING/, 'without the hook Node refuses (the check can fail)');
      const client = spawnSync(process.execPath, ['--import', 'viewer/register', '-e', "import('viewer/client').then((c) => console.log(typeof c.EvidenceSource))"], { cwd: dir, encoding: 'utf8' });
      assert.equal(client.status, 0, client.stderr);
      assert.equal(client.stdout.trim(), 'function');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("the image's app/", () => {
  it('is staged from the package: its files, without docs, and none of test/ or any test-only module', () => {
    const dir = mkdtempSync(join(tmpdir(), 'viewer-stage-'));
    try {
      const r = spawnSync('bash', [join(ROOT, 'scripts', 'build-image.sh'), '--stage-app', dir], { cwd: ROOT, encoding: 'utf8' });
      assert.equal(r.status, 0, r.stderr);
      const staged = filesUnder(dir).map((f) => relative(dir, f).split(sep).join('/')).sort();
      const expected = packed().map((f) => f.path).filter((p) => !/^(docs\/|README\.md$|CHANGELOG\.md$)/.test(p)).sort();
      assert.deepEqual(staged, expected);
      assert.deepEqual(staged.filter((p) => CODE.test(p) && !runtimeFiles().has(p)), []);
      for (const p of ['LICENSE', 'NOTICE', 'bin/viewer.js', 'package.json']) assert.ok(staged.includes(p), p);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
