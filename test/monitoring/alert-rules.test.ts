/**
 * deploy/monitoring/ checked: `promtool check rules` and `promtool test rules` pass; every metric
 * name the rules and the dashboard's queries use is one src/metrics/openmetrics.ts defines (or one
 * listed below as pending or external); the dashboard's queries parse as PromQL; every panel has a
 * title and a query; every alert has a severity, a summary naming the server, a description saying
 * what to check first, and unit tests where it fires and where it does not.
 *
 * promtool is the Debian package `prometheus`, which .ci/run installs, so in CI nothing here
 * skips; elsewhere the promtool checks skip, saying so, when the command is not installed.
 *
 * The YAML files are read by the small reader of rules-file.ts, which knows the subset they are
 * written in (block mappings and sequences, plain, quoted and `|`/`>` scalars): the repository has
 * no YAML parser of its own, and promtool validates their full syntax.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { alertRules, field, list, readYaml, str } from './rules-file.ts';

const ROOT = resolve(import.meta.dirname, '..', '..');
const DIR = join(ROOT, 'deploy', 'monitoring');
const RULES = join(DIR, 'viewer-alerts.yaml');
const RULE_TESTS = join(DIR, 'viewer-alerts.test.yaml');
const DASHBOARD = join(DIR, 'viewer-dashboard.json');
const METRICS_MODULE = join(ROOT, 'src', 'metrics', 'openmetrics.ts');
/** The consumer's own series beside the module's, for the console's rules (docs/consumer.md, Metrics). */
const CONSUMER_METRICS_MODULE = join(ROOT, 'src', 'client', 'metrics.ts');

/**
 * Series the rules and the dashboard may use before src/metrics/openmetrics.ts defines them: a
 * name another change is adding at the same time, removed from here once it is in the module (a
 * test below fails while a pending name is defined already). Empty now:
 * `viewer_expected_max_archive_lag_seconds` (the configured EXPECTED_MAX_ARCHIVE_LAG, present only
 * when configured), which ViewerArchiveLagOverExpectation was written against before it existed,
 * was listed here until the module defined it (commit 775eee2).
 */
const PENDING: ReadonlySet<string> = new Set<string>([]);

/** Series of other exporters, each for a stated reason. */
const EXTERNAL: ReadonlySet<string> = new Set([
  // node_exporter's textfile collector: when viewer-<server>.prom was last written (ViewerTextfileNotUpdated).
  'node_textfile_mtime_seconds',
]);

/** The metric names the modules define: their families are written `name: 'viewer_…'`. */
function definedNames(): ReadonlySet<string> {
  const source = [METRICS_MODULE, CONSUMER_METRICS_MODULE].map((f) => readFileSync(f, 'utf8')).join('\n');
  return new Set([...source.matchAll(/\bname: '(viewer_[a-z0-9_]+)'/g)].map((m) => m[1] ?? ''));
}

// ------------------------------------------------------------------ PromQL names

const KEYWORDS = new Set(['and', 'or', 'unless', 'bool', 'offset', 'by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'inf', 'nan', 'atan2']);

/**
 * The metric names a PromQL expression selects: identifiers left once strings, label matchers,
 * ranges, grouping lists and Grafana variables are removed, except functions (followed by `(`),
 * keywords and the letters of numbers and durations.
 */
function metricNames(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`/g, '""')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ')
    .replace(/\$\{[^}]*\}|\$\w+/g, ' ');
  const names = [...bare.matchAll(/(?<![\w.:$])([a-zA-Z_:][\w:]*)(?![\w:]|\s*\()/g)].map((m) => m[1] ?? '');
  return [...new Set(names.filter((n) => !KEYWORDS.has(n.toLowerCase())))];
}

/** The names neither defined by the module nor listed as pending or external. */
function unknownNames(names: readonly string[], defined: ReadonlySet<string>): string[] {
  return names.filter((n) => !defined.has(n) && !PENDING.has(n) && !EXTERNAL.has(n));
}

// ------------------------------------------------------------------ the dashboard

interface Target {
  readonly expr?: unknown;
  readonly datasource?: { readonly uid?: unknown };
}
interface Panel {
  readonly id?: unknown;
  readonly type?: unknown;
  readonly title?: unknown;
  readonly datasource?: { readonly uid?: unknown };
  readonly targets?: readonly Target[];
  readonly panels?: readonly Panel[];
  readonly gridPos?: { readonly x: number; readonly w: number };
}
interface Dashboard {
  readonly schemaVersion?: unknown;
  readonly __inputs?: readonly { readonly name?: unknown; readonly pluginId?: unknown }[];
  readonly templating?: { readonly list?: readonly { readonly name?: unknown; readonly query?: unknown; readonly definition?: unknown }[] };
  readonly panels?: readonly Panel[];
}

function dashboard(): Dashboard {
  return JSON.parse(readFileSync(DASHBOARD, 'utf8')) as Dashboard;
}

/** Every panel, those inside rows included. */
function panels(d: Dashboard): Panel[] {
  return (d.panels ?? []).flatMap((p) => [p, ...(p.panels ?? [])]);
}

/** The dashboard's PromQL: its targets' and its variables' queries. */
function dashboardQueries(d: Dashboard): { where: string; expr: string }[] {
  const targets = panels(d).flatMap((p) => (p.targets ?? []).map((t) => ({ where: `panel ${String(p.title)}`, expr: typeof t.expr === 'string' ? t.expr : '' })));
  const variables = (d.templating?.list ?? []).map((v) => {
    const q = v.query;
    const text = typeof q === 'string' ? q : typeof q === 'object' && q !== null && 'query' in q && typeof q.query === 'string' ? q.query : '';
    // `label_values(metric, label)` names a metric as its first argument.
    const m = /^label_values\(\s*([^,]+?)\s*,\s*\w+\s*\)$/.exec(text);
    return { where: `variable ${String(v.name)}`, expr: m?.[1] ?? text };
  });
  return [...targets, ...variables];
}

// ------------------------------------------------------------------ promtool

const probe = spawnSync('promtool', ['--version'], { encoding: 'utf8' });
const promtoolMissing = (probe.error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT';
const SKIP = promtoolMissing ? 'promtool is not installed (Debian package prometheus; CI installs it through .ci/run, where this never skips)' : false;

function promtool(...args: string[]): { status: number | null; output: string } {
  const r = spawnSync('promtool', args, { encoding: 'utf8', cwd: ROOT });
  assert.equal(r.error, undefined, `promtool ${args.join(' ')} could not run: ${String(r.error)}`);
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}

// ------------------------------------------------------------------ tests

describe('deploy/monitoring: the alert rules', () => {
  it('promtool check rules accepts every rule', { skip: SKIP }, () => {
    const { status, output } = promtool('check', 'rules', RULES);
    assert.equal(status, 0, output);
    assert.match(output, new RegExp(`SUCCESS: ${alertRules().length} rules found`), output);
  });

  it('promtool test rules passes every unit test', { skip: SKIP }, () => {
    const { status, output } = promtool('test', 'rules', RULE_TESTS);
    assert.equal(status, 0, output);
    assert.match(output, /SUCCESS/, output);
    assert.doesNotMatch(output, /FAILED/, output);
  });

  it('reads the rules: the alerts the issue asks for, each once', () => {
    const names = alertRules().map((r) => r.alert);
    assert.equal(new Set(names).size, names.length, `an alert name repeats: ${names.join(', ')}`);
    for (const required of [
      'ViewerArchiveLagOverExpectation',
      'ViewerArchiveLagOverDefault',
      'ViewerWalGapConfirmed',
      'ViewerWalGapCandidatePersisting',
      'ViewerNoUsableBackup',
      'ViewerCompletedBackupNotUsable',
      'ViewerNoCoverageToNewestWal',
      'ViewerRetentionExpectationNotMet',
      'ViewerStateDegraded',
      'ViewerNewestBackupTooOld',
      'ViewerScanFailing',
      'ViewerEvidenceStale',
    ]) {
      assert.ok(names.includes(required), `${required} is missing`);
    }
    for (const r of alertRules()) assert.notEqual(r.expr.trim(), '', `${r.alert} has no expr`);
  });

  it('every alert has a severity, a summary naming the server and a description saying what to check first', () => {
    for (const r of alertRules()) {
      // A fixed severity, or the one template that takes it from the state (unhealthy: critical).
      assert.match(str(field(r.labels, 'severity')), /^(warning|critical|\{\{ if eq \$labels\.state "unhealthy" \}\}critical\{\{ else \}\}warning\{\{ end \}\})$/, `${r.alert}: severity`);
      assert.match(str(field(r.annotations, 'summary')), /\{\{ \$labels\.server \}\}/, `${r.alert}: summary must name {{ $labels.server }}`);
      const description = str(field(r.annotations, 'description'));
      assert.notEqual(description.trim(), '', `${r.alert} has no description annotation`);
      assert.match(description, /Check first/, `${r.alert}: the description must say what to check first`);
      assert.doesNotMatch(`${description} ${str(field(r.annotations, 'summary'))}`, /guarantee/i, `${r.alert}: viewer observes coverage, it guarantees no restore`);
    }
  });

  it('every metric the rules read is defined by src/metrics/openmetrics.ts (or pending, or external)', () => {
    const defined = definedNames();
    assert.ok(defined.has('viewer_state') && defined.has('viewer_archive_lag_seconds'), 'the metrics module no longer writes its names as name: ...');
    for (const r of alertRules()) {
      const names = metricNames(r.expr);
      assert.ok(names.length > 0, `${r.alert}: no metric found in ${r.expr}`);
      assert.deepEqual(unknownNames(names, defined), [], `${r.alert} reads metrics the module does not define`);
    }
  });

  it('every alert has a unit test where it fires and one where it does not, and a healthy input fires none', () => {
    const tests = list(field(readYaml(readFileSync(RULE_TESTS, 'utf8')), 'tests'));
    const cases = tests.flatMap((t) =>
      list(field(t, 'alert_rule_test')).map((c) => ({ test: str(field(t, 'name')), alert: str(field(c, 'alertname')), fires: list(field(c, 'exp_alerts')).length > 0 })),
    );
    const healthy = cases.filter((c) => /healthy/.test(c.test));
    for (const { alert } of alertRules()) {
      assert.ok(cases.some((c) => c.alert === alert && c.fires), `${alert}: no case where it fires`);
      assert.ok(cases.some((c) => c.alert === alert && !c.fires), `${alert}: no case where it does not fire`);
      assert.ok(healthy.some((c) => c.alert === alert && !c.fires), `${alert}: not checked silent on the healthy input`);
    }
    assert.ok(
      tests.some((t) => /without a configured expectation/.test(str(field(t, 'name'))) && list(field(t, 'input_series')).every((s) => !str(field(s, 'series')).includes('viewer_expected_max_archive_lag_seconds'))),
      'a lag without an expectation series must be tested silent',
    );
    assert.ok(tests.some((t) => /only candidate gaps/.test(str(field(t, 'name')))), 'candidate gaps alone must be tested silent');
  });
});

describe('deploy/monitoring: the dashboard', () => {
  it('parses, takes its data source as the DS_PROMETHEUS input, and has the server variable', () => {
    const d = dashboard();
    assert.equal(typeof d.schemaVersion, 'number');
    assert.ok((d.schemaVersion as number) >= 36, 'schemaVersion');
    assert.ok(d.__inputs?.some((i) => i.name === 'DS_PROMETHEUS' && i.pluginId === 'prometheus'), '__inputs names DS_PROMETHEUS');
    const server = d.templating?.list?.find((v) => v.name === 'server');
    assert.ok(server !== undefined, 'a server variable');
    assert.equal(server.definition, 'label_values(viewer_state, server)');
  });

  it('takes the target labels: a variable for each identifying label, every query filtered by all, no grouping that merges same-named servers', () => {
    const d = dashboard();
    for (const name of ['repository', 'namespace', 'cluster']) {
      const v = d.templating?.list?.find((x) => x.name === name);
      assert.ok(v !== undefined, `a ${name} variable`);
      assert.equal(v.definition, `label_values(viewer_state, ${name})`);
    }
    const queries = panels(d).flatMap((p) => (p.targets ?? []).map((t) => ({ title: String(p.title), expr: typeof t.expr === 'string' ? t.expr : '' })));
    assert.ok(queries.length >= 20);
    for (const { title, expr } of queries) {
      // `max by (server)` would merge pg-main of two repositories or namespaces into one line.
      assert.doesNotMatch(expr, /\bby\s*\(\s*server\s*\)/, `${title}: ${expr}`);
      assert.doesNotMatch(expr, /\b(?:by|on)\s*\(/, `${title}: group with without(), keeping every identifying label: ${expr}`);
      for (const selector of expr.matchAll(/\bviewer_[a-z_]+\{([^}]*)\}/g)) {
        for (const name of ['repository', 'namespace', 'cluster', 'server']) assert.match(selector[1] ?? '', new RegExp(`\\b${name}=~"\\$${name}"`), `${title}: ${selector[0]}`);
      }
    }
  });

  it('drops the revision graph and has the recovery-window and per-backup panels', () => {
    const all = panels(dashboard());
    const exprs = (p: (typeof all)[number]) => (p.targets ?? []).map((t) => (typeof t.expr === 'string' ? t.expr : '')).join('\n');
    assert.ok(!all.some((p) => /viewer_publication_revision|viewer_evidence_generation/.test(exprs(p))), 'no revision graph');
    const window = all.find((p) => /viewer_recovery_coverage_start_timestamp_seconds/.test(exprs(p)));
    assert.ok(window !== undefined && /viewer_newest_wal_receipt_timestamp_seconds/.test(exprs(window)), 'a recovery-window panel with the coverage start and the newest WAL receipt');
    const backups = all.find((p) => /viewer_backup_state/.test(exprs(p)));
    assert.ok(backups !== undefined && /status="DONE"/.test(exprs(backups)) && /status!="DONE"/.test(exprs(backups)), 'completed backups apart from the others');
  });

  it('every panel has a title and at least one query on ${DS_PROMETHEUS}', () => {
    const all = panels(dashboard());
    assert.ok(all.length >= 10, `only ${all.length} panels`);
    const ids = all.map((p) => p.id);
    assert.equal(new Set(ids).size, ids.length, 'panel ids repeat');
    for (const p of all) {
      assert.ok(typeof p.title === 'string' && p.title.trim() !== '', `panel ${String(p.id)} has no title`);
      assert.ok((p.targets ?? []).length >= 1, `${p.title}: no target`);
      assert.equal(p.datasource?.uid, '${DS_PROMETHEUS}', `${p.title}: data source`);
      for (const t of p.targets ?? []) {
        assert.ok(typeof t.expr === 'string' && t.expr.trim() !== '', `${p.title}: a target without expr`);
        assert.equal(t.datasource?.uid, '${DS_PROMETHEUS}', `${p.title}: target data source`);
      }
      assert.ok(p.gridPos !== undefined && p.gridPos.x + p.gridPos.w <= 24, `${p.title}: gridPos inside 24 columns`);
    }
  });

  it('every metric its queries read is defined by src/metrics/openmetrics.ts (or pending)', () => {
    const defined = definedNames();
    for (const { where, expr } of dashboardQueries(dashboard())) {
      const names = metricNames(expr);
      assert.ok(names.length > 0, `${where}: no metric found in ${expr}`);
      assert.deepEqual(unknownNames(names, defined), [], `${where} reads metrics the module does not define`);
    }
  });

  it('every query parses as PromQL (promtool check rules on them as recording rules)', { skip: SKIP }, () => {
    const queries = dashboardQueries(dashboard());
    // Grafana's variables substituted as a multi-value "All" would be.
    const rules = queries.map((q, n) => ({ record: `viewer_dashboard_query_${n}`, expr: q.expr.replace(/\$\{server\}|\$server/g, '.*') }));
    const dir = mkdtempSync(join(tmpdir(), 'viewer-dashboard-'));
    try {
      const file = join(dir, 'queries.json');
      // JSON is YAML: promtool reads it as a rules file.
      writeFileSync(file, JSON.stringify({ groups: [{ name: 'dashboard', rules }] }));
      const { status, output } = promtool('check', 'rules', file);
      assert.equal(status, 0, output);
      assert.match(output, new RegExp(`SUCCESS: ${rules.length} rules found`), output);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the checks themselves can fail', () => {
  it('metricNames finds selectors, not functions, keywords, labels, strings or durations', () => {
    assert.deepEqual(
      metricNames('max by (job, server) (max_over_time(viewer_state{state="x"}[24h])) unless on(server) viewer_tpyo offset 1h > 2e3 * foo:bar'),
      ['viewer_state', 'viewer_tpyo', 'foo:bar'],
    );
    assert.deepEqual(metricNames('label_replace(time() - node_textfile_mtime_seconds{file=~"a"}, "server", "$1", "file", "viewer-(.+)")'), ['node_textfile_mtime_seconds']);
    assert.deepEqual(metricNames('viewer_stale{server=~"$server"} == bool 1'), ['viewer_stale']);
  });

  it('a misspelt or foreign name is reported', () => {
    const defined = definedNames();
    assert.deepEqual(unknownNames(['viewer_state', 'viewer_tpyo', 'up', 'node_textfile_mtime_seconds'], defined), ['viewer_tpyo', 'up']);
  });

  it('no pending name is defined already (remove it from PENDING once the module has it)', () => {
    const defined = definedNames();
    assert.deepEqual([...PENDING].filter((n) => defined.has(n)), []);
  });

  it('the YAML reader reads block scalars, sequences and quoted scalars', () => {
    const y = readYaml(['a:', '  - alert: X', "    expr: 'up == 0'", '    annotations:', '      description: >-', '        one', '        two', '  - alert: Y', '    expr: |', '      x', '      or y', 'b: []', ''].join('\n'));
    assert.deepEqual(y, { a: [{ alert: 'X', expr: 'up == 0', annotations: { description: 'one two' } }, { alert: 'Y', expr: 'x\nor y\n' }], b: [] });
  });

  it('promtool test rules fails a rule file whose alert no longer fires', { skip: SKIP }, () => {
    const dir = mkdtempSync(join(tmpdir(), 'viewer-rules-'));
    try {
      // The same tests against rules whose confirmed-gap alert looks at candidate gaps instead.
      const broken = readFileSync(RULES, 'utf8').replace('viewer_wal_gaps{status="confirmed"} > 0', 'viewer_wal_gaps{status="candidate"} > 0');
      assert.notEqual(broken, readFileSync(RULES, 'utf8'));
      writeFileSync(join(dir, 'viewer-alerts.yaml'), broken);
      writeFileSync(join(dir, 'viewer-alerts.test.yaml'), readFileSync(RULE_TESTS, 'utf8'));
      const { status, output } = promtool('test', 'rules', join(dir, 'viewer-alerts.test.yaml'));
      assert.notEqual(status, 0, output);
      assert.match(output, /FAILED/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
