/**
 * One source for "what to do": the alert rules' descriptions carry, verbatim, the advice
 * src/publication/advice.ts gives for each reason code the rule pages on (the sentence the page's
 * "What to do" list and `viewer scan --output text` print), so an operator reading the alert or
 * the page sees the same first check, and a change to either fails here until both agree.
 *
 * Which codes a rule pages on: the positive `reason="…"` / `reason=~"…"` matchers of its
 * expression (not those on the right of `unless` or `and`, which keep it silent), or, for a rule
 * that pages on series instead of reason labels, the small table BY_SERIES below. Every rule is
 * exactly one of: reason-labelled, in BY_SERIES, the catch-all (which carries the code as a label
 * and points at the page's advice for it), or in NO_CODE (a rule about something viewer publishes
 * no reason code for, with why).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { parse } from 'yaml';
import { adviceFor, allAdvice, needsNoAction } from '../../src/publication/advice.ts';

const RULES = join(resolve(import.meta.dirname, '..', '..'), 'deploy', 'monitoring', 'viewer-alerts.yaml');

/** The catch-all: it pages every other code, with the code as its `reason` label. */
const CATCH_ALL = 'ViewerStateDegraded';

/** The failed refresh's reasons (`refresh-<category>`, `refresh-invalid-publication`): viewer_scan_success 0 is any of them. */
const REFRESH = Object.keys(allAdvice()).filter((c) => c.startsWith('refresh-'));

/**
 * Rules that page on series rather than reason labels, and the codes viewer publishes for the same
 * cause (test/monitoring/catch-all-exclusions.test.ts fires each code's rule from its series).
 */
const BY_SERIES: Readonly<Record<string, readonly string[]>> = {
  ViewerArchiveLagOverExpectation: ['archive-lag-over-expectation'],
  // The same lag judged against the default 1h: without EXPECTED_MAX_ARCHIVE_LAG viewer publishes
  // no code for it, and the first check is the expectation's.
  ViewerArchiveLagOverDefault: ['archive-lag-over-expectation'],
  ViewerConsoleArchiveLagOverDefault: ['archive-lag-over-expectation'],
  // coverage-path-wal-lost: the catch-all leaves it to this rule while a confirmed gap explains it.
  ViewerWalGapConfirmed: ['wal-gap-confirmed', 'coverage-path-wal-lost'],
  ViewerWalGapCandidatePersisting: ['wal-gap-candidate', 'coverage-candidate-limited'],
  ViewerCompletedBackupNotUsable: ['latest-backup-not-usable', 'older-backup-not-usable', 'completed-backup-not-usable', 'completed-backup-unhealthy', 'dependency-chain-broken'],
  ViewerRetentionExpectationNotMet: ['minimum-redundancy-not-met', 'redundancy-policy-not-met', 'recovery-window-not-covered'],
  ViewerNoUsableBackup: ['no-usable-backup', 'scope-empty'],
  ViewerEvidenceStale: ['evidence-stale'],
  ViewerScanFailing: REFRESH,
};

/** Rules about something viewer publishes no reason code for. */
const NO_CODE: Readonly<Record<string, string>> = {
  ViewerNewestBackupTooOld: 'the backup schedule is the alert\'s threshold, not a judgement viewer publishes',
  ViewerMetricsAbsent: 'the series are missing, so there is no code to read',
  ViewerTextfileNotUpdated: 'node_exporter\'s file, not viewer\'s evidence',
  ViewerConsoleSourceUnavailable: 'the console\'s source state (docs/consumer.md), not a reason code',
};

interface Rule {
  readonly alert: string;
  readonly expr: string;
  readonly description: string;
}

function rules(): Rule[] {
  const doc = parse(readFileSync(RULES, 'utf8')) as { groups: { rules: { alert?: string; expr: string; annotations?: { description?: string } }[] }[] };
  return doc.groups.flatMap((g) => g.rules.filter((r) => r.alert !== undefined).map((r) => ({ alert: r.alert ?? '', expr: r.expr, description: r.annotations?.description ?? '' })));
}

/**
 * The reason codes an expression pages on: the `reason="x"` and `reason=~"x|y"` matchers of its
 * selectors, except those of a selector on the right of `unless` or `and` (at its own level of
 * parentheses or an enclosing one; `or` binds loosest, so an `or` before it ends that level's search).
 */
function pagedCodes(expr: string): string[] {
  // Strings blanked, so their contents are neither keywords nor parentheses.
  const masked = expr.replace(/"(?:[^"\\]|\\.)*"/g, (s) => `"${' '.repeat(s.length - 2)}"`);
  const tokens = [...masked.matchAll(/\(|\)|\b(?:or|and|unless)\b|\{[^}]*\}/g)].map((m) => ({ text: m[0], at: m.index }));
  const codes: string[] = [];
  tokens.forEach((t, k) => {
    if (!t.text.startsWith('{')) return;
    const matchers = expr.slice(t.at, t.at + t.text.length);
    const found = [...matchers.matchAll(/\breason(=~|=)"([^"]*)"/g)].flatMap((m) => (m[1] === '=~' ? (m[2] ?? '').split('|') : [m[2] ?? '']));
    if (found.length === 0) return;
    let depth = 0;
    let level = 0;
    for (let j = k - 1; j >= 0; j--) {
      const x = tokens[j]?.text ?? '';
      if (x === ')') depth++;
      else if (x === '(') {
        depth--;
        level = Math.min(level, depth);
      } else if (depth === level && (x === 'unless' || x === 'and')) return;
      else if (depth === level && x === 'or') level--;
    }
    codes.push(...found);
  });
  return [...new Set(codes)];
}

/** The codes each specific rule pages on. */
function codesByRule(all: readonly Rule[]): Map<string, readonly string[]> {
  return new Map(all.filter((r) => r.alert !== CATCH_ALL && !Object.hasOwn(NO_CODE, r.alert)).map((r) => [r.alert, BY_SERIES[r.alert] ?? pagedCodes(r.expr)]));
}

/** Each specific rule's description without the advice of a code it pages on: `rule: code`. */
function mismatches(all: readonly Rule[], advice: (code: string) => string | null): string[] {
  const byRule = codesByRule(all);
  return all.flatMap((r) => (byRule.get(r.alert) ?? []).filter((c) => !r.description.includes(advice(c) ?? `no advice for ${c}`)).map((c) => `${r.alert}: ${c}`));
}

describe('alert descriptions and the page share one "what to do"', () => {
  const all = rules();

  it('reads every rule and its description', () => {
    assert.ok(all.length >= 18, `only ${all.length} rules`);
    for (const r of all) assert.notEqual(r.description, '', `${r.alert} has no description`);
  });

  it('every rule is reason-labelled, in the series table, the catch-all or a rule of no code, exactly one', () => {
    const names = new Set(all.map((r) => r.alert));
    assert.ok(names.has(CATCH_ALL), 'the catch-all exists');
    for (const name of [...Object.keys(BY_SERIES), ...Object.keys(NO_CODE)]) assert.ok(names.has(name), `${name} is in a table here and no rule of that name exists`);
    for (const r of all) {
      const labelled = r.alert !== CATCH_ALL && pagedCodes(r.expr).length > 0;
      const kinds = [labelled, Object.hasOwn(BY_SERIES, r.alert), r.alert === CATCH_ALL, Object.hasOwn(NO_CODE, r.alert)].filter(Boolean).length;
      assert.equal(kinds, 1, `${r.alert}: pages on ${JSON.stringify(pagedCodes(r.expr))} by its expression; it must be exactly one of reason-labelled, BY_SERIES, the catch-all, NO_CODE`);
    }
  });

  it('each code a specific rule pages on has advice that asks for something', () => {
    for (const [alert, codes] of codesByRule(all)) {
      assert.ok(codes.length > 0, `${alert} pages on no code`);
      for (const c of codes) {
        assert.notEqual(adviceFor(c), null, `${alert}: ${c} has no advice`);
        assert.ok(!needsNoAction(c), `${alert}: ${c}'s advice says there is nothing to do`);
      }
    }
  });

  it('every code the catch-all leaves out is one a specific rule carries the advice of', () => {
    const catchAll = all.find((r) => r.alert === CATCH_ALL);
    const excluded = new Set([...(catchAll?.expr ?? '').matchAll(/reason!~"([^"]*)"/g)].flatMap((m) => (m[1] ?? '').split('|')));
    assert.ok(excluded.size >= 10, 'the catch-all names the codes it leaves out');
    const carried = new Set([...codesByRule(all).values()].flat());
    assert.deepEqual([...excluded].filter((c) => !carried.has(c)).sort(), []);
  });

  it('each specific rule\'s description contains, verbatim, the advice of each code it pages on', () => {
    assert.deepEqual(mismatches(all, (c) => adviceFor(c)), []);
  });

  it('the catch-all points at the page\'s advice for its reason label and repeats no advice itself', () => {
    const d = all.find((r) => r.alert === CATCH_ALL)?.description ?? '';
    assert.match(d, /\{\{ \$labels\.reason \}\}/);
    assert.match(d, /Check first the advice for that reason code on viewer's page/);
    assert.match(d, /`viewer scan --output text`/);
    const repeated = Object.entries(allAdvice()).filter(([c, a]) => !needsNoAction(c) && d.includes(a)).map(([c]) => c);
    assert.deepEqual(repeated, []);
  });
});

describe('the one-source check can fail', () => {
  const all = rules();

  it('reads paged codes, not those on the right of unless or and', () => {
    assert.deepEqual(pagedCodes('a{reason="x"} or b unless c{reason="y"}'), ['x']);
    assert.deepEqual(pagedCodes('(a{reason="x"} unless ignoring(r) (c{reason="y"} == 1)) or d{part="p", reason=~"z|w"}'), ['x', 'z', 'w']);
    assert.deepEqual(pagedCodes('a unless b{reason="x"} or c{reason!~"y|z"} and d{reason="v"}'), []);
    assert.deepEqual(pagedCodes('a{reason="x"} unless b or c{reason="y"}'), ['x', 'y']);
    const expr = (alert: string) => all.find((r) => r.alert === alert)?.expr ?? '';
    // The gap rule names coverage-gap-limited only to stay silent on it.
    assert.deepEqual(pagedCodes(expr('ViewerWalGapConfirmed')), []);
    assert.deepEqual(pagedCodes(expr('ViewerConsoleArchiveLagOverDefault')), []);
    assert.deepEqual(pagedCodes(expr('ViewerNoCoverageToNewestWal')).sort(), ['coverage-gap-limited', 'coverage-target-wal-missing', 'latest-timeline-not-covered']);
  });

  it('an advice sentence that drifts is caught in every rule that carries it', () => {
    for (const [alert, codes] of codesByRule(all)) {
      const drifted = codes[0] ?? '';
      const found = mismatches(all, (c) => (c === drifted ? `${adviceFor(c) ?? ''} (reworded)` : adviceFor(c)));
      assert.ok(found.includes(`${alert}: ${drifted}`), `${alert}: a drift of ${drifted}'s advice goes unnoticed`);
    }
  });

  it('a description that drifts is caught', () => {
    for (const [alert, codes] of codesByRule(all)) {
      // One word of the first code's sentence changed in this rule's description only.
      const advice = adviceFor(codes[0] ?? '') ?? '';
      const edited = all.map((r) => (r.alert === alert ? { ...r, description: r.description.replace(advice, advice.replace(/\b(\w+)\.$/, '$1s.')) } : r));
      assert.ok(mismatches(edited, (c) => adviceFor(c)).includes(`${alert}: ${codes[0] ?? ''}`), `${alert}: an edited description goes unnoticed`);
    }
  });
});
