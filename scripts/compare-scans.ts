/**
 * compare-scans (issue 27's "done when"): proves `viewer scan` prints the same bytes before and
 * after a refactor on every real repository the tests build, revision and the scan's own times
 * aside. This file owns only itself; it reads the builds' facts under VIEWER_TEST_DIR
 * (/var/tmp/viewer-test: test/support/prepare.sh builds them, this never does) and writes nothing
 * but a temporary credential pair.
 *
 *   node_modules/.bin/node scripts/compare-scans.ts <baseline-viewer-dir> [<candidate-viewer-dir>=.]
 *
 * Each dir is a checkout with node_modules. Per scope (every Barman server, every pgBackRest
 * stanza, the current-tools repositories) and per output (json, text, openmetrics) it runs the
 * baseline's and then at once the candidate's `bin/viewer.js scan` with the same environment (as
 * test/support/run-viewer.ts does: PATH and the scope's variables), so an age boundary of the
 * evidence cannot fall between the two. The embedded demo has no `viewer scan` (it needs
 * DESTINATION_PATH): its standalone pages and metrics are compared instead. Prints one line per
 * (scope, output), a short diff for a difference, and exits 1 when anything differs.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

type Env = Record<string, string>;
interface Run { readonly status: number | null; readonly stdout: string; readonly stderr: string }

const [baselineArg, candidateArg = '.'] = process.argv.slice(2);
if (baselineArg === undefined) {
  console.error('usage: compare-scans.ts <baseline-viewer-dir> [<candidate-viewer-dir>=.]');
  process.exit(64);
}
const sides = [{ name: 'baseline', dir: resolve(baselineArg) }, { name: 'candidate', dir: resolve(candidateArg) }] as const;
const BASE = process.env['VIEWER_TEST_DIR'] ?? '/var/tmp/viewer-test';

function facts(path: string): Env {
  const lines = readFileSync(join(BASE, path), 'utf8').split('\n').filter((l) => l.includes('='));
  return Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
}
const fact = (f: Env, name: string): string => {
  const v = f[name];
  if (v === undefined) throw new Error(`facts.env has no ${name}: build with test/support/prepare.sh`);
  return v;
};

/** Every scope the tests scan: name and the variables that select it (credentials added later). */
function scopes(): { name: string; env: Env }[] {
  const out: { name: string; env: Env }[] = [];
  const add = (f: Env, prefix: string, server: string, format: string | null) =>
    out.push({
      name: `${format ?? 'archive-cloud'} s3://${fact(f, 'BUCKET')}/${prefix} ${server}`,
      env: { ...(format === null ? {} : { REPOSITORY_FORMAT: format }), DESTINATION_PATH: `s3://${fact(f, 'BUCKET')}/${prefix}`, ARCHIVE_SERVER_NAMES: server, STORE_ENDPOINT_URL: fact(f, 'S3_ENDPOINT') },
    });
  // Barman 3.4: one objects-<server>.tsv per server; its keys start with the server's prefix (fixtures, scenarios).
  const barman = facts('repos/out/facts.env');
  for (const file of readdirSync(join(BASE, 'repos/out')).filter((n) => /^objects-.+\.tsv$/.test(n)).sort()) {
    const server = file.slice('objects-'.length, -'.tsv'.length);
    const key = readFileSync(join(BASE, 'repos/out', file), 'utf8').split('\t', 1)[0] ?? '';
    add(barman, key.slice(0, key.indexOf(`/${server}/`)), server, null);
  }
  const backrest = facts('pgbackrest/out/facts.env');
  for (const stanza of fact(backrest, 'STANZAS').split(' ').filter(Boolean)) add(backrest, fact(backrest, 'PREFIX'), stanza, 'stanza-repository');
  const current = facts('current/out/barman/facts.env');
  add(current, fact(current, 'PREFIX'), fact(current, 'SERVER'), null);
  const currentBackrest = facts('current/out/pgbackrest/facts.env');
  for (const stanza of fact(currentBackrest, 'STANZAS').split(' ').filter(Boolean)) add(currentBackrest, fact(currentBackrest, 'PREFIX'), stanza, 'stanza-repository');
  return out;
}

function run(dir: string, args: readonly string[], env: Env): Promise<Run> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [join(dir, 'bin', 'viewer.js'), ...args], { env: { PATH: process.env['PATH'] ?? '', ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', fail);
    child.on('close', (status) => done({ status, stdout, stderr }));
  });
}

// ---- Normalisation: only values of the scan itself (revision, its clock readings, durations); the
// archive lag only where it is exactly the store's time at the scan minus the newest receipt. ----
const DURATION = String.raw`\d+ (?:s|min|h(?: \d+ min)?|d(?: \d+ h)?)`;
const ISO = String.raw`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z`;
const lagFits = (lag: number, store: number, newest: number) => Math.abs(lag - Math.max(0, store - newest)) < 0.002;

function normaliseJson(raw: string): string {
  type Obj = Record<string, unknown>;
  let doc: Obj;
  try {
    doc = JSON.parse(raw) as Obj;
  } catch {
    return raw;
  }
  // Compared pretty-printed, but only when the document is exactly what JSON.stringify makes of it.
  if (`${JSON.stringify(doc)}\n` !== raw) return raw;
  const snapshot = doc['snapshot'] as Obj | undefined;
  if (snapshot !== undefined) {
    snapshot['revision'] = '<revision>';
    for (const k of ['started_at', 'completed_at', 'last_attempt_at']) if (typeof snapshot[k] === 'string') snapshot[k] = '<scan time>';
  }
  const o = doc['observations'] as Obj | null | undefined;
  const store = o?.['store_time_at_scan'];
  if (o != null && typeof store === 'string') {
    const newest = o['newest_wal_received_at'];
    const lag = o['archive_lag_seconds'];
    if (typeof lag === 'number' && typeof newest === 'string' && lagFits(lag, Date.parse(store) / 1000, Date.parse(newest) / 1000)) o['archive_lag_seconds'] = '<store time at scan - newest_wal_received_at>';
    o['store_time_at_scan'] = '<store time at scan>';
    // A first run's gap memory is first observed at this scan's store time.
    for (const g of ((o['memory'] as Obj | null)?.['gaps'] ?? []) as Obj[]) if (g['first_observed_at'] === store) g['first_observed_at'] = '<store time at scan>';
  }
  return `${JSON.stringify(doc, null, 1)}\n`;
}

function normaliseText(raw: string): string {
  return raw
    .replace(new RegExp(`(, scanned )${ISO} to ${ISO};`, 'g'), '$1<scan time> to <scan time>;')
    .replace(new RegExp(`\\(${DURATION} before the scan by the store's clock\\)`, 'g'), "(<lag> before the scan by the store's clock)")
    .replace(new RegExp(`^(  archive lag  )${DURATION}( by the store's clock)`, 'gm'), '$1<lag>$2');
}

function normaliseMetrics(raw: string): string {
  const sample = (name: string) => new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(raw)?.[1];
  const store = Number(sample('viewer_store_time_at_scan_timestamp_seconds'));
  const newest = Number(sample('viewer_newest_wal_receipt_timestamp_seconds'));
  return raw
    .replace(/^(viewer_(?:scan_duration_seconds|scan_attempt_duration_seconds)(?:\{[^}]*\})?) \S+$/gm, '$1 <duration>')
    .replace(/^(viewer_publication_revision(?:\{[^}]*\})?) \d+$/gm, '$1 <revision>')
    .replace(/^(viewer_store_time_at_scan_timestamp_seconds(?:\{[^}]*\})?) \S+$/gm, '$1 <store time at scan>')
    .replace(/^(viewer_archive_lag_seconds(?:\{[^}]*\})?) (\S+)$/gm, (line, head: string, lag: string) => (lagFits(Number(lag), store, newest) ? `${head} <store time at scan - newest receipt>` : line));
}

function normalisePage(raw: string): string {
  return raw
    .replace(/\(revision \d+\)/g, '(revision <revision>)')
    .replace(new RegExp(`(<span>(?:Scan started|Scan completed|Last attempt)</span><span>)<time datetime="${ISO}">[^<]*</time>`, 'g'), '$1<scan time>');
}

/** The embedded demo (no DESTINATION_PATH) in standalone mode: its two pages and its metrics after the first complete scan. */
async function demo(dir: string): Promise<Record<string, string>> {
  const child = spawn(process.execPath, [join(dir, 'bin', 'viewer.js')], { env: { PATH: process.env['PATH'] ?? '', LISTEN_ADDR: '127.0.0.1:0', METRICS_ADDR: '127.0.0.1:0', REFRESH_INTERVAL_SECONDS: '3600' } });
  try {
    let err = '';
    const urls = await new Promise<[string, string]>((done, fail) => {
      child.stderr.on('data', (c: Buffer) => {
        err += c.toString();
        const m = /standalone UI on (http:\/\/\S+?)\/? .*metrics on (http:\/\/\S+)\n/.exec(err);
        if (m?.[1] !== undefined && m[2] !== undefined) done([m[1], m[2]]);
      });
      child.once('exit', () => fail(new Error(`demo exited: ${err}`)));
    });
    const get = async (url: string) => (await fetch(url)).text();
    let metrics = '';
    for (let i = 0; i < 200 && !/^viewer_evidence_generation(?:\{[^}]*\})? [1-9]/m.test(metrics); i++) {
      if (i > 0) await new Promise((r) => setTimeout(r, 50));
      metrics = await get(urls[1]);
    }
    return { 'page /': normalisePage(await get(`${urls[0]}/`)), 'page /wals': normalisePage(await get(`${urls[0]}/wals`)), metrics: normaliseMetrics(metrics) };
  } finally {
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  }
}

/** The first differing lines, as one unified-diff hunk with up to 3 lines of context and 8 lines a side. */
function shortDiff(a: string, b: string): string {
  const x = a.split('\n');
  const y = b.split('\n');
  let start = 0;
  while (start < x.length && start < y.length && x[start] === y[start]) start++;
  let end = 0;
  while (end < x.length - start && end < y.length - start && x[x.length - 1 - end] === y[y.length - 1 - end]) end++;
  const from = Math.max(0, start - 3);
  const cut = (lines: string[], sign: string) => lines.slice(start, lines.length - end).slice(0, 8).map((l) => `${sign}${l.slice(0, 300)}`);
  const minus = cut(x, '-');
  const plus = cut(y, '+');
  const after = x.slice(x.length - end, x.length - end + 3).map((l) => ` ${l}`);
  return ['--- baseline', '+++ candidate', `@@ -${from + 1} +${from + 1} @@`, ...x.slice(from, start).map((l) => ` ${l}`), ...minus, ...plus, ...after].map((l) => `    ${l}`).join('\n');
}

let differences = 0;
function report(what: string, a: string, b: string): void {
  if (a === b) console.log(`identical  ${what}`);
  else {
    differences++;
    console.log(`DIFFERENT  ${what}\n${shortDiff(a, b)}`);
  }
}

const began = performance.now();
const credentials = mkdtempSync(join(tmpdir(), 'compare-scans-'));
try {
  // The accounts test/support/real-repositories.ts and its siblings give every test.
  writeFileSync(join(credentials, 'id'), 'test:tester');
  writeFileSync(join(credentials, 'secret'), 'testing');
  const help = await Promise.all(sides.map((s) => run(s.dir, ['help'], {})));
  const outputs: { kind: string; args: string[]; normalise: (raw: string) => string }[] = [
    { kind: 'json', args: ['scan'], normalise: normaliseJson },
    { kind: 'text', args: ['scan', '--output', 'text'], normalise: normaliseText },
  ];
  if (help.every((h) => h.stdout.includes('--output openmetrics'))) outputs.push({ kind: 'openmetrics', args: ['scan', '--output', 'openmetrics'], normalise: normaliseMetrics });
  else console.log('(no --output openmetrics in both checkouts: not compared)');
  const all = scopes();
  for (const scope of all) {
    const env = { ...scope.env, STORE_ACCESS_KEY_ID_FILE: join(credentials, 'id'), STORE_SECRET_ACCESS_KEY_FILE: join(credentials, 'secret') };
    for (const o of outputs) {
      const runs = [await run(sides[0].dir, o.args, env), await run(sides[1].dir, o.args, env)] as const;
      const [a, b] = runs.map((r) => `exit ${r.status}\n${r.stderr}--- stdout\n${o.normalise(r.stdout)}`);
      report(`${scope.name}  ${o.kind} (exit ${runs.map((r) => r.status).join('/')}, ${runs.map((r) => r.stdout.length).join('/')} bytes)`, a ?? '', b ?? '');
    }
  }
  const [a, b] = [await demo(sides[0].dir), await demo(sides[1].dir)];
  for (const k of Object.keys(a)) report(`embedded demo (standalone, no DESTINATION_PATH)  ${k} (${a[k]?.length ?? 0}/${b[k]?.length ?? 0} bytes)`, a[k] ?? '', b[k] ?? '');
  console.log(`${all.length + 1} scopes, ${differences === 0 ? 'all identical' : `${differences} different`}; ${((performance.now() - began) / 1000).toFixed(1)} s`);
} finally {
  rmSync(credentials, { recursive: true, force: true });
}
process.exitCode = differences === 0 ? 0 : 1;
