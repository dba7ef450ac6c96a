/**
 * The files a program loads, found by following relative module specifiers from its entry points:
 * static `import`/`export … from`, side-effect `import '…'`, dynamic `import('…')`, and
 * `createRequire(import.meta.url)('…')` / `require('…')` (the precompiled validators). Bare
 * specifiers (packages, `node:` builtins) are not followed. The architecture test uses it to find
 * modules under src/ that nothing at run time loads; the package test to prove that `npm pack` ships
 * exactly what runs.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

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
