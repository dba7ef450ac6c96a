/**
 * Every reason code viewer can publish has advice, and no advice is left for a code nothing
 * publishes. The codes are derived from the code that emits them: the exported tables (the scope's
 * messages, each format's backup reasons), the reason tables the evidence modules keep to
 * themselves (read from their source, so a new code there fails this test until it has advice),
 * every `sr(…)`/`reasonFor(…)`/`reason(…)` call with a literal code, and the publication's
 * `refresh-<category>` reasons for every failure category. Per format: each registered format's
 * own advice covers exactly the codes it emits that the common table does not hold, the common
 * table holds no code only one format emits, and no two formats advise on one code.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { FAILURE_CATEGORIES } from '../contract/values.ts';
import { MESSAGES } from '../evidence/summary.ts';
import { REASONS as ARCHIVE_CLOUD_REASONS } from '../format/barman-cloud/backups.ts';
import { archiveCloud } from '../format/barman-cloud/format.ts';
import { registeredFormats, registerFormat } from '../format/registry.ts';
import { REASONS as STANZA_REASONS } from '../format/stanza-repository/backups.ts';
import { stanzaRepository } from '../format/stanza-repository/format.ts';
import { adviceFor, allAdvice, COMMON_ADVICE, needsNoAction } from './advice.ts';

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

/** The codes each format emits, by format id: a registered format missing here fails below. */
const FORMAT_CODES: ReadonlyMap<string, ReadonlySet<string>> = new Map([
  [archiveCloud.id, new Set(Object.keys(ARCHIVE_CLOUD_REASONS))],
  [stanzaRepository.id, new Set(Object.keys(STANZA_REASONS))],
]);

/** The codes the publication and the evidence layer emit, whatever the format. */
function neutralCodes(): Set<string> {
  return new Set<string>([
    ...Object.keys(MESSAGES),
    ...tableKeys('evidence/recovery-paths.ts'),
    ...tableKeys('evidence/backups.ts'),
    ...literalCodes('evidence/summary.ts'),
    ...literalCodes('publication/publisher.ts'),
    ...FAILURE_CATEGORIES.map((c) => `refresh-${c.replaceAll('_', '-')}`),
  ]);
}

function emittedCodes(): Set<string> {
  return new Set([...neutralCodes(), ...[...FORMAT_CODES.values()].flatMap((c) => [...c])]);
}

/** The format ids that emit a code. */
const emitters = (code: string) => [...FORMAT_CODES].filter(([, codes]) => codes.has(code)).map(([id]) => id);

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
    const stale = Object.keys(allAdvice()).filter((c) => !codes.has(c)).sort();
    assert.deepEqual(stale, []);
  });

  it('advice is one bounded, printable sentence or two, ending with a full stop', () => {
    for (const [code, text] of Object.entries(allAdvice())) {
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

describe('advice per format', () => {
  const neutral = neutralCodes();

  it('knows the codes of every registered format (a new format adds its emitting module here)', () => {
    assert.deepEqual(registeredFormats().map((f) => f.id).sort(), [...FORMAT_CODES.keys()].sort());
    for (const [id, codes] of FORMAT_CODES) assert.ok(codes.size >= 10, `${id}: only ${codes.size} codes found`);
  });

  it('the common table holds the neutral codes and those more than one format emits, never a code of one format only', () => {
    const own = Object.keys(COMMON_ADVICE).filter((c) => !neutral.has(c) && emitters(c).length === 1).map((c) => `${c} (${emitters(c).join()})`).sort();
    assert.deepEqual(own, []);
    const shared = [...emittedCodes()].filter((c) => emitters(c).length > 1 && !Object.hasOwn(COMMON_ADVICE, c)).sort();
    assert.deepEqual(shared, []);
    assert.ok(Object.hasOwn(COMMON_ADVICE, 'unrecognized-objects'), 'a code both formats emit is common (the check can fail)');
  });

  it('each format\'s advice covers exactly the codes it emits that the common table does not hold', () => {
    for (const f of registeredFormats()) {
      const codes = FORMAT_CODES.get(f.id) ?? new Set<string>();
      const expected = [...codes].filter((c) => !Object.hasOwn(COMMON_ADVICE, c)).sort();
      assert.deepEqual(Object.keys(f.advice).sort(), expected, f.id);
      assert.ok(expected.length > 0, `${f.id} has advice of its own (the check can fail)`);
      for (const c of codes) assert.notEqual(adviceFor(c, f.tool, f.id), null, `${f.id}: ${c}`);
    }
  });

  it('no two formats advise on one code, so no look-up depends on the format', () => {
    const seen = new Map<string, string>();
    const twice: string[] = [];
    for (const f of registeredFormats()) {
      for (const c of Object.keys(f.advice)) {
        const first = seen.get(c);
        if (first === undefined) seen.set(c, f.id);
        else twice.push(`${c}: ${first}, ${f.id}`);
      }
    }
    assert.deepEqual(twice, []);
  });

  it('publication/advice.ts names no format', () => {
    assert.doesNotMatch(source('publication/advice.ts'), /barman|pgbackrest|stanza|archive-cloud/i);
  });

  it('includes a format registered later, and the format a look-up names decides a code two formats advise on', () => {
    const code = Object.keys(archiveCloud.advice)[0] ?? '';
    const toy = { ...archiveCloud, id: 'toy-advice', tool: 'Toy', advice: { 'toy-only-code': 'Ask {tool} about it.', [code]: 'Ask {tool} instead.', 'wal-continuous': 'Do something.' } };
    assert.equal(adviceFor('toy-only-code', 'Toy'), null);
    const remove = registerFormat(toy);
    try {
      assert.equal(adviceFor('toy-only-code', 'Toy'), 'Ask Toy about it.');
      assert.equal(allAdvice()['toy-only-code'], 'Ask {tool} about it.');
      // Without a format, the first registered format that knows the code answers; with one, that format.
      assert.equal(adviceFor(code), adviceFor(code, null, archiveCloud.id));
      assert.equal(adviceFor(code, 'Toy', 'toy-advice'), 'Ask Toy instead.');
      assert.equal(allAdvice('toy-advice')[code], 'Ask {tool} instead.');
      // Another format's codes are not that format's advice; the common table is not overridden.
      assert.equal(adviceFor(Object.keys(stanzaRepository.advice)[0] ?? '', null, 'toy-advice'), null);
      assert.equal(adviceFor('wal-continuous', null, 'toy-advice'), 'Nothing to do.');
      assert.ok(needsNoAction('wal-continuous', 'toy-advice') && !needsNoAction('toy-only-code', 'toy-advice'));
    } finally {
      remove();
    }
    assert.equal(adviceFor('toy-only-code'), null);
  });
});
