/**
 * Every reason code the catch-all ViewerStateDegraded leaves out is paged by a specific rule. The
 * codes are read from deploy/monitoring/viewer-alerts.yaml (the `reason!~"…"` lists of the
 * catch-all's expression, one list for the scope, the parts and the capabilities); for each one a
 * scenario below gives the series viewer publishes with that cause (the code on the scope, the part
 * and the capability that carry it, and the counts that go with it, under the real metric names),
 * held in `promtool test rules`, and exactly the specific rule named fires (the catch-all not).
 * A code left out without a scenario fails the test: add a rule that pages it, and its scenario.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { firingTest, PROMTOOL_SKIP, promtoolTest, seriesText } from './promtool-harness.ts';
import { alertRules } from './rules-file.ts';

/** Long enough for the longest `for` of the rules concerned (ViewerBackupCatalogIncomplete's 6h). */
const EVAL_MINUTES = 375;
/** Rules evaluated every 5m: every `for` concerned is a multiple of it. */
const EVALUATION = '5m';
const SERVER = 'pg-x';

type State = 'warning' | 'unhealthy';
interface Scenario {
  /** The alert that must fire, alone. */
  readonly alert: string;
  readonly state: State;
  /** Where viewer publishes the code: the scope's reason, a part's, a capability's. */
  readonly scope?: boolean;
  readonly part?: 'wal' | 'timeline' | 'coverage' | 'retention';
  readonly capability?: string;
  /** The other series of the cause: name, labels beside server, value. */
  readonly with: readonly (readonly [name: string, labels: Record<string, string>, value: number])[];
}

const usable = (n: number) => ['viewer_structurally_usable_backups', {}, n] as const;
const gaps = (confirmed: number, candidate: number) => [['viewer_wal_gaps', { status: 'confirmed' }, confirmed] as const, ['viewer_wal_gaps', { status: 'candidate' }, candidate] as const];
const notUsable = (n: number) => ['viewer_completed_backups_not_usable', {}, n] as const;

/** The cause of each code as viewer publishes it (src/evidence/summary.ts), with the rule that pages it. */
const SCENARIOS: Readonly<Record<string, readonly Scenario[]>> = {
  'wal-gap-confirmed': [{ alert: 'ViewerWalGapConfirmed', state: 'unhealthy', scope: true, part: 'wal', capability: 'wal-continuity', with: [usable(2), ...gaps(1, 0)] }],
  'wal-gap-candidate': [{ alert: 'ViewerWalGapCandidatePersisting', state: 'warning', scope: true, part: 'wal', capability: 'wal-continuity', with: [usable(2), ...gaps(0, 1)] }],
  'coverage-candidate-limited': [{ alert: 'ViewerWalGapCandidatePersisting', state: 'warning', scope: true, part: 'coverage', capability: 'observed-recovery-coverage', with: [usable(2), ...gaps(0, 1)] }],
  'coverage-gap-limited': [{ alert: 'ViewerNoCoverageToNewestWal', state: 'unhealthy', scope: true, part: 'coverage', capability: 'observed-recovery-coverage', with: [usable(2), ...gaps(1, 0)] }],
  'latest-timeline-not-covered': [{ alert: 'ViewerNoCoverageToNewestWal', state: 'unhealthy', scope: true, part: 'coverage', capability: 'observed-recovery-coverage', with: [usable(2), ...gaps(0, 0)] }],
  'coverage-target-wal-missing': [{ alert: 'ViewerNoCoverageToNewestWal', state: 'unhealthy', scope: true, part: 'coverage', capability: 'observed-recovery-coverage', with: [usable(2), ...gaps(0, 0)] }],
  'no-usable-backup': [{ alert: 'ViewerNoUsableBackup', state: 'unhealthy', scope: true, part: 'coverage', capability: 'structural-artifact-validation', with: [usable(0)] }],
  'scope-empty': [{ alert: 'ViewerNoUsableBackup', state: 'unhealthy', scope: true, part: 'coverage', with: [usable(0)] }],
  'archive-lag-over-expectation': [
    // viewer scan: the lag and the expectation are series.
    { alert: 'ViewerArchiveLagOverExpectation', state: 'warning', scope: true, part: 'wal', capability: 'wal-continuity', with: [usable(2), ['viewer_archive_lag_seconds', {}, 7200], ['viewer_expected_max_archive_lag_seconds', {}, 3600]] },
    // the console: only the verdict is on the wire.
    { alert: 'ViewerConsoleArchiveLagOverExpectation', state: 'warning', scope: true, part: 'wal', capability: 'wal-continuity', with: [usable(2)] },
  ],
  'minimum-redundancy-not-met': [{ alert: 'ViewerRetentionExpectationNotMet', state: 'unhealthy', scope: true, part: 'retention', capability: 'retention-expectation-comparison', with: [usable(1)] }],
  'redundancy-policy-not-met': [{ alert: 'ViewerRetentionExpectationNotMet', state: 'warning', scope: true, part: 'retention', capability: 'retention-expectation-comparison', with: [usable(1)] }],
  'recovery-window-not-covered': [{ alert: 'ViewerRetentionExpectationNotMet', state: 'warning', scope: true, part: 'retention', capability: 'retention-expectation-comparison', with: [usable(1)] }],
  'latest-backup-not-usable': [{ alert: 'ViewerCompletedBackupNotUsable', state: 'warning', scope: true, with: [usable(1), notUsable(1)] }],
  'older-backup-not-usable': [{ alert: 'ViewerCompletedBackupNotUsable', state: 'warning', scope: true, with: [usable(1), notUsable(1)] }],
  'completed-backup-not-usable': [{ alert: 'ViewerCompletedBackupNotUsable', state: 'warning', scope: true, with: [usable(1), notUsable(1)] }],
  'completed-backup-unhealthy': [{ alert: 'ViewerCompletedBackupNotUsable', state: 'unhealthy', capability: 'structural-artifact-validation', with: [usable(1), notUsable(1)] }],
  'dependency-chain-broken': [{ alert: 'ViewerCompletedBackupNotUsable', state: 'unhealthy', capability: 'dependency-chain-validation', with: [usable(1), notUsable(1)] }],
  // WAL only an older usable backup's path needed, lost: left out only while a confirmed gap explains it.
  'coverage-path-wal-lost': [{ alert: 'ViewerWalGapConfirmed', state: 'warning', part: 'coverage', capability: 'observed-recovery-coverage', with: [usable(2), ...gaps(1, 0)] }],
  'catalog-incomplete': [{ alert: 'ViewerBackupCatalogIncomplete', state: 'warning', capability: 'catalog-listing', with: [usable(2)] }],
};

/** The reason codes of each `reason!~"…"` list in the catch-all's expression. */
function excludedLists(): string[][] {
  const rule = alertRules().find((r) => r.alert === 'ViewerStateDegraded');
  assert.ok(rule !== undefined, 'the rules have a catch-all ViewerStateDegraded');
  return [...rule.expr.matchAll(/reason!~"([^"]*)"/g)].map((m) => (m[1] ?? '').split('|'));
}

function input(code: string, s: Scenario): { series: string; values: string }[] {
  const held = (name: string, labels: Record<string, string>, value: number) => ({ series: seriesText({ name, labels: { server: SERVER, ...labels } }), values: `${value}x${EVAL_MINUTES + 10}` });
  return [
    ...(s.scope === true ? [held('viewer_state_reason', { state: s.state, reason: code }, 1)] : []),
    ...(s.part === undefined ? [] : [held('viewer_part_state_reason', { part: s.part, state: s.state, reason: code }, 1)]),
    ...(s.capability === undefined ? [] : [held('viewer_capability_state', { capability: s.capability, state: s.state, reason: code }, 1)]),
    ...s.with.map(([name, labels, value]) => held(name, labels, value)),
  ];
}

describe('the codes the catch-all leaves out', () => {
  let dir: string;
  before(() => (dir = mkdtempSync(join(tmpdir(), 'viewer-catch-all-'))));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('are one list, for the scope, the parts and the capabilities alike', () => {
    const lists = excludedLists();
    assert.equal(lists.length, 3, 'a reason!~ list for the scope, the parts and the capabilities');
    for (const l of lists) assert.deepEqual([...l].sort(), [...(lists[0] ?? [])].sort());
    assert.ok((lists[0] ?? []).length >= 10);
  });

  it('each have a scenario here, and each scenario is a code left out', () => {
    const excluded = new Set(excludedLists().flat());
    const missing = [...excluded].filter((c) => !Object.hasOwn(SCENARIOS, c));
    assert.deepEqual(missing, [], 'codes the catch-all leaves out with no scenario: add a specific rule that pages each, and its scenario here');
    assert.deepEqual(Object.keys(SCENARIOS).filter((c) => !excluded.has(c)), [], 'scenarios of codes the catch-all pages itself');
  });

  it('each fire a specific rule, alone, when viewer publishes them', { skip: PROMTOOL_SKIP }, () => {
    const tests = [...new Set(excludedLists().flat())].flatMap((code) =>
      (SCENARIOS[code] ?? []).map((s, i) => {
        const doc = firingTest(`${code} #${i + 1} pages ${s.alert}`, input(code, s), [{ minutes: EVAL_MINUTES, by: ['server'], expected: [{ alertname: s.alert, server: SERVER }] }], EVALUATION) as { tests: unknown[] };
        return doc.tests[0];
      }),
    );
    assert.ok(tests.length >= Object.keys(SCENARIOS).length);
    const doc = firingTest('', [], [], EVALUATION) as { tests: unknown[] };
    const out = promtoolTest(dir, 'exclusions.json', { ...doc, tests });
    assert.ok(out.ok, out.output);
  });
});
