/**
 * The files a program loads, found by following relative module specifiers from its entry points:
 * static `import`/`export … from`, side-effect `import '…'`, dynamic `import('…')`, and
 * `createRequire(import.meta.url)('…')` / `require('…')` (the precompiled validators). Bare
 * specifiers (packages, `node:` builtins) are not followed. The architecture test uses it to find
 * modules under src/ that nothing at run time loads; the package test to prove that `npm pack` ships
 * exactly what runs. `valueClosure` follows only the imports that load a module at run time (no
 * `import type`), read with TypeScript's own parser, for what a process really loads.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';

export const ROOT = resolve(import.meta.dirname, '..', '..');

const SPECIFIER = /(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+'([^']+)'|(?:^|\n)\s*import\s+'([^']+)'|\bimport\(\s*'([^']+)'\s*\)|\brequire\(\s*'([^']+)'\s*\)|createRequire\([^)]*\)\(\s*'([^']+)'\s*\)/g;

/** Every module specifier `file` names, relative or bare, in order of appearance. */
export function specifiersOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(SPECIFIER)].map((m) => m[1] ?? m[2] ?? m[3] ?? m[4] ?? m[5] ?? '').filter((s) => s !== '');
}

/**
 * Every existing file reached from `entries` (absolute paths) through relative specifiers, entries
 * included (a specifier naming no file, e.g. in a comment, is dropped: the typecheck catches a real one).
 */
export function loadedFrom(entries: readonly string[]): Set<string> {
  const seen = new Set<string>();
  const stack = [...entries];
  while (stack.length > 0) {
    const file = stack.pop() as string;
    if (seen.has(file) || !existsSync(file)) continue;
    seen.add(file);
    for (const spec of specifiersOf(file)) if (spec.startsWith('.')) stack.push(resolve(dirname(file), spec));
  }
  return seen;
}

interface PackageManifest {
  readonly bin?: Record<string, string>;
  readonly exports?: Record<string, string | Record<string, string>>;
}

/** The package's entry points: its executables (`bin`) and the code of its subpath exports. */
export function runtimeEntries(): string[] {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as PackageManifest;
  const targets = Object.values(pkg.exports ?? {}).flatMap((t) => (typeof t === 'string' ? [t] : Object.values(t)));
  return [...new Set([...Object.values(pkg.bin ?? {}), ...targets].filter((t) => /\.(?:[cm]?js|ts)$/.test(t)).map((t) => resolve(ROOT, t)))];
}

/** What the package loads at run time, as paths relative to the repository root ('/'-separated). */
export function runtimeFiles(): Set<string> {
  return new Set([...loadedFrom(runtimeEntries())].map((f) => relative(ROOT, f).split(sep).join('/')));
}

/** Every file under `dir` (absolute), recursively. */
export function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? filesUnder(join(dir, e.name)) : [join(dir, e.name)]));
}

/**
 * The module specifiers `file` loads at run time: static imports and re-exports that are not
 * type-only (an import whose every name is `type` loads nothing once types are stripped; one
 * `import { type A, b }` still loads the module), side-effect imports, dynamic `import('…')` of a
 * literal, and `require('…')` / `createRequire(…)('…')`.
 */
export function valueSpecifiersOf(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const out: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      const named = clause?.namedBindings;
      const typeOnly = clause !== undefined && (clause.isTypeOnly || (clause.name === undefined && named !== undefined && ts.isNamedImports(named) && named.elements.length > 0 && named.elements.every((e) => e.isTypeOnly)));
      if (!typeOnly) out.push(node.moduleSpecifier.text);
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier !== undefined && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.exportClause;
      const typeOnly = node.isTypeOnly || (clause !== undefined && ts.isNamedExports(clause) && clause.elements.length > 0 && clause.elements.every((e) => e.isTypeOnly));
      if (!typeOnly) out.push(node.moduleSpecifier.text);
    } else if (ts.isCallExpression(node) && node.arguments.length === 1) {
      const [arg] = node.arguments;
      const callee = node.expression;
      const loads = callee.kind === ts.SyntaxKind.ImportKeyword || (ts.isIdentifier(callee) && callee.text === 'require') || (ts.isCallExpression(callee) && ts.isIdentifier(callee.expression) && callee.expression.text === 'createRequire');
      if (loads && arg !== undefined && ts.isStringLiteralLike(arg)) out.push(arg.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

/** The files and packages a process starting at `entries` loads (through `valueSpecifiersOf`). */
export function valueClosure(entries: readonly string[]): { readonly files: Set<string>; readonly packages: Set<string> } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const stack = [...entries];
  while (stack.length > 0) {
    const file = stack.pop() as string;
    if (files.has(file) || !existsSync(file)) continue;
    files.add(file);
    for (const spec of valueSpecifiersOf(file)) {
      if (spec.startsWith('.')) stack.push(resolve(dirname(file), spec));
      else if (!spec.startsWith('node:')) packages.add(spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : (spec.split('/')[0] as string));
    }
  }
  return { files, packages };
}
