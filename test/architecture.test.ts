/**
 * The layering of docs/architecture.md, enforced: a module imports only from its own layer or from
 * layers below it; evidence, publication and surfaces reach a repository format only through the
 * format seam; cloud SDKs are imported only by store drivers; only the command line reads the
 * environment. A violation names the file and the import.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve, dirname, sep } from 'node:path';
import { describe, it } from 'node:test';
import { loadedFrom, ROOT, runtimeEntries } from './support/import-graph.ts';

const SRC = resolve(import.meta.dirname, '..', 'src');

/** Rank of each layer folder under src/; equal ranks may not import each other. */
const LAYERS: Record<string, number> = {
  contract: 0,
  common: 1,
  postgres: 2,
  store: 2,
  metrics: 2,
  client: 3,
  format: 3,
  evidence: 4,
  publication: 5,
  surface: 6,
  cli: 7,
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

const layerOf = (file: string) => relative(SRC, file).split(sep)[0] ?? '';
const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+'([^']+)'|import\(\s*'([^']+)'\s*\)/g;

function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(IMPORT)].map((m) => m[1] ?? m[2] ?? '');
}

describe('architecture', () => {
  const files = sourceFiles(SRC);

  it('every folder under src/ is a known layer', () => {
    for (const f of files) assert.ok(layerOf(f) in LAYERS, `${relative(SRC, f)} is outside the known layers`);
  });

  it('imports go to the same layer or downward only (tests beside code may reach up to check wiring)', () => {
    const bad: string[] = [];
    for (const f of files.filter((f) => !f.endsWith('.test.ts'))) {
      const from = layerOf(f);
      for (const spec of importsOf(f)) {
        if (!spec.startsWith('.')) continue;
        const to = layerOf(resolve(dirname(f), spec));
        const ok = to === from || (LAYERS[to] ?? 99) < (LAYERS[from] ?? -1);
        if (!ok) bad.push(`${relative(SRC, f)} imports ${spec}`);
      }
    }
    assert.deepEqual(bad, []);
  });

  it('evidence, publication and surfaces know formats only through the seam (format/seam.ts)', () => {
    const bad: string[] = [];
    for (const f of files.filter((f) => !f.endsWith('.test.ts') && ['evidence', 'publication', 'surface'].includes(layerOf(f)))) {
      for (const spec of importsOf(f)) {
        if (!spec.startsWith('.')) continue;
        const target = relative(SRC, resolve(dirname(f), spec));
        if (layerOf(resolve(dirname(f), spec)) === 'format' && target !== join('format', 'seam.ts')) bad.push(`${relative(SRC, f)} imports ${spec}`);
      }
    }
    assert.deepEqual(bad, []);
  });

  it('the consumer library (client/) stands on the wire alone: contract, common, metrics', () => {
    const allowed = new Set(['contract', 'common', 'metrics', 'client']);
    const bad: string[] = [];
    for (const f of files.filter((f) => !f.endsWith('.test.ts') && ['client', 'metrics'].includes(layerOf(f)))) {
      for (const spec of importsOf(f)) {
        if (spec.startsWith('.') && !allowed.has(layerOf(resolve(dirname(f), spec)))) bad.push(`${relative(SRC, f)} imports ${spec}`);
      }
    }
    assert.deepEqual(bad, []);
  });

  it('cloud SDKs are imported by store drivers only', () => {
    const bad = files.filter((f) => layerOf(f) !== 'store' && importsOf(f).some((s) => /^@(aws-sdk|azure|google-cloud|smithy)\//.test(s)));
    assert.deepEqual(bad.map((f) => relative(SRC, f)), []);
  });

  it('only the command line reads the environment', () => {
    const bad = files.filter((f) => layerOf(f) !== 'cli' && !f.endsWith('.test.ts') && /process\.env/.test(readFileSync(f, 'utf8')));
    assert.deepEqual(bad.map((f) => relative(SRC, f)), []);
  });

  it('modules under src/ import nothing outside src/ (no test/, bench/ or scripts/ module at run time)', () => {
    const bad: string[] = [];
    for (const f of files.filter((f) => !f.endsWith('.test.ts'))) {
      for (const spec of importsOf(f)) {
        if (spec.startsWith('.') && relative(SRC, resolve(dirname(f), spec)).startsWith('..')) bad.push(`${relative(SRC, f)} imports ${spec}`);
      }
    }
    assert.deepEqual(bad, []);
  });

  it('every module under src/ runs (loaded by the executable or viewer/client) or builds the contract; test-only modules live under test/support/', () => {
    const loaded = loadedFrom([...runtimeEntries(), ...sourceFiles(join(ROOT, 'scripts'))]);
    const bad = files.filter((f) => !f.endsWith('.test.ts') && !loaded.has(f)).map((f) => relative(SRC, f));
    assert.deepEqual(bad, []);
    assert.ok(loaded.has(join(SRC, 'format', 'barman-cloud', 'synthetic-repository.ts')), 'the demo writes its repository with it (the check can fail)');
  });

  it('finds imports (the check can fail)', () => {
    const main = files.find((f) => relative(SRC, f) === join('cli', 'main.ts'));
    assert.ok(main !== undefined && importsOf(main).includes('./config/config.ts'));
  });
});
