/**
 * Every reason code viewer can publish has advice, and no advice is left for a code nothing
 * publishes. The codes are derived from the code that emits them: the exported tables (the scope's
 * messages, each format's backup reasons), the reason tables the evidence modules keep to
 * themselves (read from their source, so a new code there fails this test until it has advice),
 * every `sr(…)`/`reasonFor(…)`/`reason(…)` call with a literal code, and the publication's
 * `refresh-<category>` reasons for every failure category.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { FAILURE_CATEGORIES } from '../contract/primitives.ts';
import { MESSAGES } from '../evidence/summary.ts';
import { REASONS as BARMAN } from '../format/barman-cloud/backups.ts';
import { REASONS as STANZA } from '../format/stanza-repository/backups.ts';
import { ADVICE, adviceFor, needsNoAction } from './advice.ts';

const SRC = join(import.meta.dirname, '..');
const source = (path: string) => readFileSync(join(SRC, path), 'utf8');

/** The keys of a `const REASONS = { … } as const;` table a module does not export. */
function tableKeys(path: string): string[] {
  const text = source(path);
  const start = text.indexOf('const REASONS = {');
  const end = text.indexOf('} as const;', start);
  assert.ok(start >= 0 && end > start, `${path} holds a REASONS table`);
  return [...text.slice(start, end).matchAll(/^\s*'([a-z0-9-]+)':/gm)].map((m) => m[1] ?? '');
}

/** Codes passed as literals to the reason makers of a module. */
function literalCodes(path: string): string[] {
  const text = source(path);
  return [...text.matchAll(/\b(?:sr\('[a-z]+',\s*|reasonFor\(|reason\()'([a-z0-9-]+)'/g)].map((m) => m[1] ?? '');
}

function emittedCodes(): Set<string> {
  const codes = new Set<string>([
    ...Object.keys(MESSAGES),
    ...Object.keys(BARMAN),
    ...Object.keys(STANZA),
    ...tableKeys('evidence/recovery-paths.ts'),
    ...tableKeys('evidence/backups.ts'),
    ...literalCodes('evidence/summary.ts'),
    ...literalCodes('publication/publisher.ts'),
    ...FAILURE_CATEGORIES.map((c) => `refresh-${c.replaceAll('_', '-')}`),
  ]);
  return codes;
}

describe('advice per reason code', () => {
  const codes = emittedCodes();

  it('finds the codes where they are emitted (the derivation can fail)', () => {
    // One from each source: if a pattern stops matching, the list shrinks and this fails.
    for (const c of ['wal-gap-confirmed', 'data-archive-missing', 'backup-bundle-missing', 'consistency-not-reached', 'required-wal-missing', 'no-completed-scan', 'evidence-stale', 'refresh-safety-limit']) assert.ok(codes.has(c), c);
    assert.ok(codes.size > 120, `only ${codes.size} codes found`);
  });

  it('every code viewer publishes has advice', () => {
    const missing = [...codes].filter((c) => adviceFor(c) === null).sort();
    assert.deepEqual(missing, []);
  });

  it('no advice is kept for a code nothing publishes', () => {
    const stale = Object.keys(ADVICE).filter((c) => !codes.has(c)).sort();
    assert.deepEqual(stale, []);
  });

  it('advice is one bounded, printable sentence or two, ending with a full stop', () => {
    for (const [code, text] of Object.entries(ADVICE)) {
      assert.ok(text.length >= 12 && text.length <= 320, `${code}: ${text.length} characters`);
      assert.match(text, /^[A-Z][^\n\r\t]*\.$/, code);
    }
  });

  it('fills in the tool and knows nothing of an unknown code', () => {
    assert.match(adviceFor('wal-unknown-objects', 'Barman') ?? '', /Barman does not write/);
    assert.match(adviceFor('wal-unknown-objects') ?? '', /the backup tool does not write/);
    assert.equal(adviceFor('no-such-code'), null);
    assert.equal(adviceFor('constructor'), null);
  });

  it('healthy reasons need no action, problems do', () => {
    assert.ok(needsNoAction('evidence-healthy') && needsNoAction('coverage-to-frontier') && needsNoAction('wal-continuous-except-retention') && needsNoAction('no-expectation-configured'));
    assert.ok(!needsNoAction('no-such-code'));
    assert.ok(!needsNoAction('wal-gap-confirmed') && !needsNoAction('backup-failed'));
  });
});
