/**
 * What the monitoring tests share: reading OpenMetrics samples, holding them as `promtool test
 * rules` input series, and running promtool on a test file that asserts which alerts fire. Used
 * by real-alerts.test.ts (`viewer scan`), console-alerts.test.ts (the console's /metrics),
 * catch-all-exclusions.test.ts and real-coverage-start.test.ts.
 *
 * `PROMTOOL_SKIP` is false where promtool is installed (CI installs Debian's `prometheus`), else
 * the reason a test skips.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const ROOT = join(import.meta.dirname, '..', '..');
export const RULES = join(ROOT, 'deploy', 'monitoring', 'viewer-alerts.yaml');

const probe = spawnSync('promtool', ['--version'], { encoding: 'utf8' });
export const PROMTOOL_SKIP: string | false = (probe.error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT' ? 'promtool is not installed (Debian package prometheus; CI installs it)' : false;

export interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

/** The samples of an OpenMetrics text (comments and `# EOF` left out). */
export function parseSamples(text: string): Sample[] {
  return text
    .split('\n')
    .filter((l) => l !== '' && !l.startsWith('#'))
    .map((line) => {
      const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
      assert.ok(m?.[1] !== undefined && m[3] !== undefined, `not a sample line: ${line}`);
      const labels = Object.fromEntries([...(m[2] ?? '').matchAll(/([a-zA-Z_]\w*)="((?:[^"\\]|\\.)*)"/g)].map((l) => [l[1] ?? '', l[2] ?? '']));
      return { name: m[1], labels, value: Number(m[3]) };
    });
}

/** The value of the first sample of `name` whose labels include `labels`; undefined when none. */
export const sampleValue = (all: readonly Sample[], name: string, labels: Record<string, string> = {}): number | undefined =>
  all.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value;

/** A series selector of one sample, as promtool's input series take it (label values kept escaped). */
export function seriesText(s: Pick<Sample, 'name' | 'labels'>): string {
  const labels = Object.entries(s.labels).map(([k, v]) => `${k}="${v}"`);
  return `${s.name}{${labels.join(', ')}}`;
}

/**
 * The samples as input series held unchanged for `minutes` at a 1m interval. Timestamps
 * (`*_timestamp_seconds`) are shifted by `-origin`, so promtool's time 0 is `origin` (say the
 * store's clock at the scan): at `minutes`, `time()` is that many minutes after it.
 */
export function heldSeries(all: readonly Sample[], minutes: number, origin = 0): { series: string; values: string }[] {
  return all.map((s) => {
    const v = s.name.endsWith('_timestamp_seconds') ? s.value - origin : s.value;
    return { series: seriesText(s), values: `${String(v)}+0x${minutes}` };
  });
}

/** One alert expected firing: its name and the labels `by` names (say `server`). */
export type ExpectedAlert = Readonly<Record<string, string>> & { readonly alertname: string };

/**
 * At `minutes`, exactly the `expected` alerts fire, counted by `alertname` and the labels in `by`;
 * with `only`, among the alerts of that name alone.
 */
export interface FiringCheck {
  readonly minutes: number;
  readonly by: readonly string[];
  readonly expected: readonly ExpectedAlert[];
  readonly only?: string;
}

/**
 * A `promtool test rules` document over RULES: the input series (1m apart) and the firing checks,
 * the rules evaluated every `evaluation` (a coarser one makes long holds cheaper).
 */
export function firingTest(name: string, input: readonly { series: string; values: string }[], checks: readonly FiringCheck[], evaluation = '1m'): unknown {
  const quote = (v: string) => JSON.stringify(v);
  return {
    rule_files: [RULES],
    evaluation_interval: evaluation,
    tests: [
      {
        name,
        interval: '1m',
        input_series: input,
        promql_expr_test: checks.map((c) => {
          const keys = ['alertname', ...c.by];
          const only = c.only === undefined ? '' : `, alertname=${quote(c.only)}`;
          return {
            expr: `count by (${keys.join(', ')}) (ALERTS{alertstate="firing"${only}})`,
            eval_time: `${c.minutes}m`,
            exp_samples: c.expected.map((a) => ({ labels: `{${keys.map((k) => `${k}=${quote(a[k] ?? '')}`).join(', ')}}`, value: 1 })),
          };
        }),
      },
    ],
  };
}

/** Writes `doc` to `dir/file` and runs `promtool test rules` on it: ok, or what promtool said. */
export function promtoolTest(dir: string, file: string, doc: unknown): { readonly ok: boolean; readonly output: string } {
  const path = join(dir, file);
  writeFileSync(path, JSON.stringify(doc, null, 1));
  const out = spawnSync('promtool', ['test', 'rules', path], { encoding: 'utf8' });
  return { ok: out.status === 0, output: `${out.stdout}${out.stderr}` };
}
