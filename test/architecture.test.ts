/**
 * The layering of docs/architecture.md, enforced: a module imports only from its own layer or from
 * layers below it; evidence, publication and surfaces reach a repository format only through the
 * format seam and the registry, and no module outside the formats, the contract and the consumer
 * library names a format; cloud SDKs are imported only by store drivers; only the command line
 * reads the environment. A violation names the file and the import or the words.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve, dirname, sep } from 'node:path';
import { describe, it } from 'node:test';
import ts from 'typescript';
import { registeredFormats } from '../src/format/registry.ts';
import { loadedFrom, ROOT, runtimeEntries, valueClosure, valueSpecifiersOf } from './support/import-graph.ts';

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

/** What the layers above the formats may import of `src/format/`: the seam's types and the registry (issue 27). */
const SEAM = new Set([join('format', 'seam.ts'), join('format', 'registry.ts'), join('format', 'demo.ts')]);

/**
 * The words that name a format: each registered format's id, its payload key and its tool, and the
 * name of each folder under src/format/ (a format's own modules); and `DONE`, the wire's completed
 * status, which only the contract defines (`isCompleted`). Matched case-insensitively, `-` and `_`
 * ignored, against code tokens only (identifiers, strings, template text; never comments).
 */
function formatWords(): string[] {
  const words = new Set<string>();
  for (const f of registeredFormats()) for (const w of [f.id, f.tool]) words.add(w);
  for (const e of readdirSync(join(SRC, 'format'), { withFileTypes: true })) if (e.isDirectory()) words.add(e.name);
  return [...words].map(folded);
}
const folded = (w: string) => w.toLowerCase().replaceAll(/[-_]/g, '');

/** Tokens after which a `/` divides; after any other it starts a regular expression. */
const ENDS_OPERAND = new Set([ts.SyntaxKind.Identifier, ts.SyntaxKind.NumericLiteral, ts.SyntaxKind.StringLiteral, ts.SyntaxKind.CloseParenToken, ts.SyntaxKind.CloseBracketToken, ts.SyntaxKind.CloseBraceToken, ts.SyntaxKind.NoSubstitutionTemplateLiteral, ts.SyntaxKind.TemplateTail, ts.SyntaxKind.ThisKeyword]);
const TEXT = new Set([ts.SyntaxKind.Identifier, ts.SyntaxKind.StringLiteral, ts.SyntaxKind.NoSubstitutionTemplateLiteral, ts.SyntaxKind.TemplateHead, ts.SyntaxKind.TemplateMiddle, ts.SyntaxKind.TemplateTail, ts.SyntaxKind.RegularExpressionLiteral]);

/** The code tokens of a TypeScript file (identifiers, string, template and regular-expression text), comments skipped. */
function codeTokens(file: string): string[] {
  const scanner = ts.createScanner(ts.ScriptTarget.Latest, true, ts.LanguageVariant.Standard, readFileSync(file, 'utf8'));
  const out: string[] = [];
  // Open braces inside each template substitution being scanned: its `}` resumes the template.
  const braces: number[] = [];
  let previous = ts.SyntaxKind.Unknown;
  for (let t = scanner.scan(); t !== ts.SyntaxKind.EndOfFileToken; t = scanner.scan()) {
    if (t === ts.SyntaxKind.OpenBraceToken && braces.length > 0) braces[braces.length - 1] = (braces.at(-1) ?? 0) + 1;
    if (t === ts.SyntaxKind.CloseBraceToken && braces.length > 0) {
      if (braces.at(-1) === 0) {
        t = scanner.reScanTemplateToken(false);
        if (t === ts.SyntaxKind.TemplateTail) braces.pop();
      } else braces[braces.length - 1] = (braces.at(-1) ?? 1) - 1;
    }
    if (t === ts.SyntaxKind.TemplateHead) braces.push(0);
    if ((t === ts.SyntaxKind.SlashToken || t === ts.SyntaxKind.SlashEqualsToken) && !ENDS_OPERAND.has(previous)) t = scanner.reScanSlashToken();
    if (TEXT.has(t)) out.push(t === ts.SyntaxKind.RegularExpressionLiteral ? scanner.getTokenText() : scanner.getTokenValue());
    previous = t;
  }
  return out;
}

/**
 * Layers that may name formats: the formats themselves, the wire's definitions, and the consumer
 * library, which reads the sidecar's wire (archive-cloud, by the spec) and maps CloudNativePG's
 * objects by their own field names (D-125).
 */
const NAMING_FORMATS = new Set(['format', 'contract', 'client']);

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

  it('evidence, publication and surfaces know formats only through the seam and the registry (format/seam.ts, format/registry.ts)', () => {
    const bad: string[] = [];
    for (const f of files.filter((f) => !f.endsWith('.test.ts') && ['evidence', 'publication', 'surface'].includes(layerOf(f)))) {
      for (const spec of importsOf(f)) {
        if (!spec.startsWith('.')) continue;
        const target = relative(SRC, resolve(dirname(f), spec));
        if (layerOf(resolve(dirname(f), spec)) === 'format' && !SEAM.has(target)) bad.push(`${relative(SRC, f)} imports ${spec}`);
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

  it('no module outside src/format/, src/contract/ and src/client/ names a format (issue 27: a format is one folder)', () => {
    const words = formatWords();
    const bad: string[] = [];
    for (const f of files.filter((f) => !f.endsWith('.test.ts') && !NAMING_FORMATS.has(layerOf(f)))) {
      const hits = new Set<string>();
      for (const token of codeTokens(f)) {
        const t = folded(token);
        for (const w of words) if (t.includes(w)) hits.add(w);
        if (/\bDONE\b/.test(token)) hits.add('DONE');
      }
      if (hits.size > 0) bad.push(`${relative(SRC, f)}: ${[...hits].sort().join(', ')}`);
    }
    assert.deepEqual(bad, []);
  });

  it('finds format names in code and not in comments (the check can fail)', () => {
    const words = formatWords();
    assert.ok(words.includes('archivecloud') && words.includes('barman') && words.includes('pgbackrest'), words.join(' '));
    const probe = join(SRC, 'format', 'barman-cloud', 'format.ts');
    const tokens = codeTokens(probe).map(folded);
    assert.ok(tokens.some((t) => t.includes('barman')), 'the tool name in code is found');
    assert.ok(!codeTokens(join(SRC, 'format', 'seam.ts')).some((t) => folded(t).includes('barman')), 'names in comments are not code');
    // Template text after a substitution, a regular expression after a division, and nothing of a comment.
    const dir = mkdtempSync(join(tmpdir(), 'arch-'));
    try {
      const file = join(dir, 'probe.ts');
      writeFileSync(file, "// barman\nconst a = `x ${f({ y: 1 })} pgBackRest`; /* stanza-repository */\nconst d = a.length / 2 / 1;\nconst r = /archive_cloud/;\n");
      const found = codeTokens(file).map(folded);
      assert.deepEqual(['barman', 'pgbackrest', 'stanzarepository', 'archivecloud'].map((w) => found.some((t) => t.includes(w))), [false, true, false, true], found.join(' '));
    } finally {
      rmSync(dir, { recursive: true });
    }
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

  it('nothing the executable or viewer/client loads at run time imports TypeBox: the schemas only build the contract files and validators (issue 28)', () => {
    const { files: loaded, packages } = valueClosure(runtimeEntries());
    const schemas = [...loaded].filter((f) => valueSpecifiersOf(f).includes('@sinclair/typebox')).map((f) => relative(ROOT, f));
    assert.equal(packages.has('@sinclair/typebox'), false, `schema modules loaded at run time: ${schemas.join(', ')} (import their values from contract/values.ts, their types with import type)`);
    assert.ok(loaded.has(join(SRC, 'contract', 'values.ts')) && loaded.has(join(SRC, 'contract', 'validate.ts')), 'the values and the precompiled validators are loaded');
    // The check can fail: the schemas themselves reach TypeBox, and so would any module that imports a value of theirs.
    assert.ok(valueClosure([join(SRC, 'contract', 'snapshot.ts')]).packages.has('@sinclair/typebox'));
    assert.ok(valueClosure([join(SRC, 'evidence', 'memory-schema.ts')]).packages.has('@sinclair/typebox'));
  });

  it('finds imports (the check can fail)', () => {
    const main = files.find((f) => relative(SRC, f) === join('cli', 'main.ts'));
    assert.ok(main !== undefined && importsOf(main).includes('./config/config.ts'));
  });
});
