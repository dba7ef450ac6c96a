/**
 * The exit-code table is the documented one, and the commands return from it rather than from
 * numbers of their own.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { EXIT } from './exit-codes.ts';

const ROOT = join(import.meta.dirname, '..', '..');

describe('exit codes', () => {
  it('are the numbers docs/configuration.md documents, and only those', () => {
    const doc = readFileSync(join(ROOT, 'docs', 'configuration.md'), 'utf8');
    const start = doc.indexOf('Exit codes of `viewer`:');
    assert.ok(start >= 0, 'the documentation has its exit-code paragraph');
    const paragraph = doc.slice(start, doc.indexOf('\n\n', start));
    const documented = [...paragraph.matchAll(/(?:: |; )([0-9]+)\s/g)].map((m) => Number(m[1]));
    assert.deepEqual(documented, [0, 1, 2, 64, 70, 78]);
    assert.deepEqual(Object.values(EXIT).sort((a, b) => a - b), documented);
  });

  it('are returned by name: no command returns a number of its own', () => {
    const dir = join(ROOT, 'src', 'cli');
    const files = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts') && f !== 'exit-codes.ts');
    const literal = files.filter((f) => /\breturn [0-9]+;|exitCode = [0-9]/.test(readFileSync(join(dir, f), 'utf8')));
    assert.deepEqual(literal, []);
  });
});
