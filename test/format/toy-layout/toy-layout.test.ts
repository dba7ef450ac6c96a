/**
 * The format seam proven end to end (issue 27): the made-up Toytool layout of `format.ts`, which no
 * file under src/ knows, is registered from this test (`registerFormat`), discovered, scanned
 * through `scanScope`, published, rendered on the standalone page and the WAL browser, printed by
 * `viewer scan --output text`, and accepted by the configuration while registered (refused once
 * unregistered, and in sidecar mode). Other formats recognise it through the registry alone.
 *
 * The repository (destination prefix `toys`, one ledger `pg-toy`): timeline 1's segments 1–9 with
 * segment 6 deleted, a switch to timeline 2 inside segment 9 and its segments 9–12; a sealed backup
 * at 2–3 (its WAL all there, a path only up to the gap), a broken one at 4, a sealed one at 7–8,
 * an open one on timeline 2, a ledger that is no JSON, and strays: a README in the stream, notes
 * beside the areas and a README beside the scope.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join, relative, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import ts from 'typescript';
import { textFacts } from '../../../src/cli/commands/scan.ts';
import { scanText } from '../../../src/cli/commands/scan-text.ts';
import { parseConfig } from '../../../src/cli/config/config.ts';
import { createLogger } from '../../../src/common/log.ts';
import { requireCommonSummary } from '../../../src/contract/details-view.ts';
import { discoverScopes } from '../../../src/evidence/discovery.ts';
import { memoryDocument, readMemory } from '../../../src/evidence/memory.ts';
import { BudgetMeter } from '../../../src/evidence/listing.ts';
import { scanScope, type ScopeEvidence } from '../../../src/evidence/scope-scan.ts';
import { archiveCloud } from '../../../src/format/barman-cloud/format.ts';
import { SyntheticRepository } from '../../../src/format/barman-cloud/synthetic-repository.ts';
import { formatById, formatIds, registerFormat } from '../../../src/format/registry.ts';
import type { RepositoryFormat } from '../../../src/format/seam.ts';
import { stanzaRepository } from '../../../src/format/stanza-repository/format.ts';
import { DEFAULT_SEGMENT_SIZE, geometry, walName } from '../../../src/postgres/wal.ts';
import { allAdvice } from '../../../src/publication/advice.ts';
import type { Publication, Publisher } from '../../../src/publication/publisher.ts';
import { confine } from '../../../src/store/confined.ts';
import { MemoryStore } from '../../../src/store/memory/memory-driver.ts';
import { createStandaloneServer } from '../../../src/surface/ui/server.ts';
import { scopeView } from '../../../src/surface/ui/scope-view.ts';
import { STANDALONE_CLUSTER, testPublisher } from '../../support/publication-fixture.ts';
import { MAX_LEDGER_BYTES, parseLedger, REASONS, TOY_ID, TOY_TOOL, toyFormat } from './format.ts';

const PREFIX = 'toys';
const SCOPE = 'pg-toy';
const ROOT = toyFormat.scopeRoots(PREFIX, SCOPE).base;
const G = geometry(DEFAULT_SEGMENT_SIZE);
const T0 = Date.parse('2026-11-21T10:00:00Z');
const at = (minutes: number) => new Date(T0 + minutes * 60_000);
const iso = (minutes: number) => at(minutes).toISOString();
const wal = (timeline: number, position: number) => walName(timeline, position, G);
/** The LSN 0x28 bytes into a segment (PostgreSQL's first record after the page header). */
const lsn = (position: number) => `0/${(position * DEFAULT_SEGMENT_SIZE + 0x28).toString(16).toUpperCase()}`;

const SEALED_EARLY = '20261121T100200';
const BROKEN = '20261121T100400';
const SEALED_LATE = '20261121T100700';
const OPEN = '20261121T101100';
const MALFORMED = '20261121T101200';

function ledger(store: MemoryStore, id: string, status: string, timeline: number, begin: number, end: number | null, minutes: number): void {
  const body = {
    status,
    timeline,
    begin_wal: wal(timeline, begin),
    begin_lsn: lsn(begin),
    begin_time: iso(minutes),
    system_id: '7301234567890123456',
    ...(end === null ? {} : { end_wal: wal(timeline, end), end_lsn: lsn(end), end_time: iso(minutes + 1) }),
  };
  store.put(`${ROOT}ledger/${id}.json`, JSON.stringify(body), at(minutes + 1));
}

/** The toy repository, and beside it under `barman/` a barman-cloud server (`pg-main`). */
function repository(): MemoryStore {
  const store = new MemoryStore();
  // Sparse 16 MiB segments: listed at a segment's size, never read.
  const segment = (timeline: number, position: number) => store.put(`${ROOT}stream/${wal(timeline, position)}`, new Uint8Array(0), at(position), DEFAULT_SEGMENT_SIZE);
  for (let p = 1; p <= 9; p++) if (p !== 6) segment(1, p);
  store.put(`${ROOT}stream/00000002.history`, `1\t${lsn(9)}\tno recovery target specified\n`, at(9.5));
  for (let p = 9; p <= 12; p++) segment(2, p);
  ledger(store, SEALED_EARLY, 'SEALED', 1, 2, 3, 2);
  ledger(store, BROKEN, 'BROKEN', 1, 4, 4, 4);
  ledger(store, SEALED_LATE, 'SEALED', 1, 7, 8, 7);
  ledger(store, OPEN, 'OPEN', 2, 11, null, 11);
  store.put(`${ROOT}ledger/${MALFORMED}.json`, '{"status": "SEALED", "timeline": ', at(12));
  store.put(`${ROOT}stream/README`, 'not a segment', at(13));
  store.put(`${ROOT}notes.txt`, 'an operator left this here', at(13));
  store.put(`${PREFIX}/README.md`, 'beside the scope', at(13));
  const barman = new SyntheticRepository(store, 'barman/pg-main/');
  barman.segments(1, 1, 4, at(0));
  barman.backup({ id: '20261121T100100', timeline: 1, beginPosition: 2, endPosition: 3, beginTime: at(1), endTime: at(2) });
  return store;
}

const meter = () => new BudgetMeter({ maxPages: 1_000, maxObjects: 100_000 });
const discover = (format: RepositoryFormat, store: MemoryStore, prefix: string) => discoverScopes(format, store, prefix, new AbortController().signal, meter());

const EXPECTATIONS = { policyText: 'KEEP 2', policy: toyFormat.parseRetentionPolicy('KEEP 2') };
const publisher = () => testPublisher({ identity: { cluster: STANDALONE_CLUSTER, server: SCOPE, format: toyFormat }, expectations: EXPECTATIONS });

async function scan(format: RepositoryFormat, store: MemoryStore, p = publisher()): Promise<ScopeEvidence> {
  const { base, roots } = format.scopeRoots(PREFIX, SCOPE);
  assert.deepEqual(roots, [ROOT]);
  return scanScope({ format, server: SCOPE, root: base, driver: confine(store, base), signal: new AbortController().signal, meter: meter(), concurrency: 4, ...p.nextScan });
}

async function published(): Promise<{ e: ScopeEvidence; p: Publication; publisher: Publisher }> {
  const pub = publisher();
  const e = await scan(toyFormat, repository(), pub);
  return { e, p: pub.complete(e, { startedAt: at(20), finishedAt: at(21), pages: 5, objects: e.objectCount }), publisher: pub };
}

describe('the Toytool layout behind the seam', () => {
  let unregister: () => void = () => undefined;
  before(() => {
    unregister = registerFormat(toyFormat);
  });
  after(() => unregister());

  it('is registered from the test: the registry lists it after the two real formats', () => {
    assert.deepEqual(formatIds(), ['archive-cloud', 'stanza-repository', TOY_ID]);
    assert.equal(formatById(TOY_ID), toyFormat);
  });

  it('discovery finds the ledger; other formats recognise it, and it recognises them, through the registry', async () => {
    const store = repository();
    assert.deepEqual(await discover(toyFormat, store, PREFIX), { servers: [SCOPE], unscopedObjects: 1, foreignFormat: null });
    // A barman-cloud destination holds no ledger: it is named by barman-cloud's own holdsAt.
    // Its four segments, backup.info and data.tar belong to no ledger.
    assert.deepEqual(await discover(toyFormat, store, 'barman'), { servers: [], unscopedObjects: 4 + 2, foreignFormat: 'archive-cloud' });
    // pgBackRest's discovery finds no stanza at the toy destination (its 20 objects and the README
    // beside it belong to none) and asks every other layout: Toytool's holdsAt names it.
    assert.deepEqual(await discover(stanzaRepository, store, PREFIX), { servers: [], unscopedObjects: 20 + 1, foreignFormat: TOY_ID });
    // barman-cloud's discovery takes any folder for a server (the two layouts look alike one level
    // down); scanning the ledger as a barman-cloud server finds Toytool's own files and refuses it.
    assert.deepEqual((await discover(archiveCloud, store, PREFIX)).servers, [SCOPE]);
    await assert.rejects(scan(archiveCloud, store), (e: Error) => e.name === 'ViewerError' && /another repository format/.test(e.message) && (e as Error & { category?: string }).category === 'incompatible_format');
  });

  it('scanScope judges the ledgers, finds the deleted segment as a gap and the paths around it', async () => {
    const e = await scan(toyFormat, repository());
    assert.equal(e.tool, TOY_TOOL);
    assert.deepEqual(
      e.backups.map((b) => [b.item.backup_id, b.item.status, b.item.state, b.item.reason.code, b.shelf, b.item.begin_wal, b.item.end_wal]),
      [
        [SEALED_EARLY, 'DONE', 'healthy', 'ledger-sealed', 'completed', wal(1, 2), wal(1, 3)],
        [BROKEN, 'FAILED', 'unhealthy', 'ledger-broken', 'failed', wal(1, 4), wal(1, 4)],
        [SEALED_LATE, 'DONE', 'healthy', 'ledger-sealed', 'completed', wal(1, 7), wal(1, 8)],
        [OPEN, 'STARTED', 'unknown', 'ledger-open', 'in progress or abandoned', null, null],
        [MALFORMED, null, 'unknown', 'ledger-malformed', 'malformed', null, null],
      ],
    );
    assert.deepEqual(e.ranges.map((r) => [r.timeline, r.first_wal, r.last_wal, r.segment_count]), [
      [1, wal(1, 1), wal(1, 5), 5],
      [1, wal(1, 7), wal(1, 9), 3],
      [2, wal(2, 9), wal(2, 12), 4],
    ]);
    // No store clock in memory: the gap cannot be confirmed; Toytool's retention explains nothing.
    assert.deepEqual(e.gaps.map((g) => [g.timeline, g.first_wal, g.last_wal, g.segment_count, g.status, g.first_observed_generation]), [[1, wal(1, 6), wal(1, 6), 1, 'candidate', 1]]);
    assert.deepEqual(e.gapClasses, ['unexplained']);
    assert.deepEqual(e.walCounts, { segment: 12, partial: 0, history: 1, backup_history: 0, unknown: 1, duplicate: 0 });
    assert.deepEqual([e.unknownObjects, e.objectCount, e.empty], [2, 5 + 12 + 1 + 1 + 1, false]);
    assert.deepEqual([...e.histories.entries()].map(([t, h]) => [t, h.status]), [[2, 'valid']]);
    assert.deepEqual(e.paths.map((p) => [p.backup_id, p.target_timeline, p.stop, p.state, p.frontier_wal]), [
      [SEALED_EARLY, 1, 'candidate-limited', 'warning', wal(1, 5)],
      [SEALED_EARLY, 2, 'candidate-limited', 'warning', wal(1, 5)],
      [SEALED_LATE, 1, 'frontier', 'healthy', wal(1, 9)],
      [SEALED_LATE, 2, 'frontier', 'healthy', wal(2, 12)],
    ]);
  });

  it('the publication validates against the contract under the archive-cloud wire format', async () => {
    const { p } = await published();
    assert.deepEqual(p.violations, []);
    const s = p.snapshot;
    assert.equal(s.identity.repository.format, 'archive-cloud');
    assert.equal(s.details.type, 'archive-cloud/v1alpha1');
    assert.deepEqual([s.state, s.reason.code], ['warning', 'completed-backup-not-usable']);
    const c = requireCommonSummary(s.details);
    assert.deepEqual([c.backup_items, c.wal_gap_items, c.recovery_path_items, c.structurally_usable_backups, c.retention.visible_backups], [5, 1, 4, 2, 2]);
    assert.deepEqual([c.wal.reason.code, c.coverage.reason.code, c.retention.state, c.retention.reason.code], ['wal-gap-candidate', 'coverage-to-frontier', 'healthy', 'retention-met']);
    const unsupported = s.capabilities.filter((x) => x.support === 'unsupported').map((x) => [x.id, x.state, x.reason.code]);
    assert.deepEqual(unsupported, [
      ['dependency-chain-validation', 'unknown', 'not-in-format'],
      ['encrypted-metadata', 'unknown', 'not-in-format'],
      ['structural-artifact-validation', 'unknown', 'not-in-format'],
    ]);
    // Every code the format emits has its advice, merged through the registry.
    for (const code of Object.keys(REASONS)) assert.ok(allAdvice(TOY_ID)[code] !== undefined, code);
  });

  it('the memory the scan hands on reads back as STATE_DIR keeps it', async () => {
    const { e, publisher: pub } = await published();
    assert.deepEqual(e.memory.identity, { fingerprint: `sha256:${'0'.repeat(64)}`, format: TOY_ID, server: SCOPE });
    const read = readMemory(JSON.parse(JSON.stringify(memoryDocument(e.memory))) as unknown, pub.memoryIdentity);
    assert.deepEqual(read.ok ? { ok: true, generation: read.memory.generation, gaps: read.memory.gaps.length } : read, { ok: true, generation: 1, gaps: 1 });
  });

  it('the standalone server renders its facts, its own heading, its tool and its advice, and the WAL browser', async () => {
    const { e, p } = await published();
    // As standalone mode wires a repository's pages: its scopes and its configured format.
    const server = createStandaloneServer({
      repositories: [{ name: null, format: toyFormat, scopes: () => [scopeView(SCOPE, p, e)], destination: () => null, retentionPolicy: EXPECTATIONS.policyText, minimumRedundancy: null, maxArchiveLagSeconds: null }],
      ready: () => true, trustedUserHeader: null, walPageSize: 50, demo: false, logger: createLogger('silent'),
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    const { port } = server.address() as AddressInfo;
    const get = async (path: string) => {
      const r = await fetch(`http://127.0.0.1:${port}${path}`);
      assert.equal(r.status, 200, path);
      return r.text();
    };
    try {
      const page = await get('/');
      assert.match(page, /<span>Repository<\/span><span>Toytool \(/);
      assert.match(page, /<span>Sealed backups<\/span><span>2<\/span>/);
      // The open ledger under the format's own heading, never among the completed backups.
      const [completed = '', open = ''] = page.split('<h3>Open ledgers (1)</h3>');
      assert.match(completed, /<h3>Completed \(2\)<\/h3>/);
      assert.doesNotMatch(completed.slice(completed.indexOf('<h3>Completed')), new RegExp(OPEN));
      assert.match(open, new RegExp(`^<p class="muted">Ledgers Toytool has opened and not sealed: still running, or abandoned\\.</p>\\n.*?<tr><td><code>${OPEN}</code></td><td><span class="state unknown">unknown</span></td><td>STARTED</td>`, 's'));
      // Its own reason codes' advice, with its tool's name, through the registry.
      assert.match(page, new RegExp(`<code class="reason">ledger-broken</code> <span class="muted">\\(backup ${BROKEN}\\)</span>: Read Toytool&#39;s log of that run`));
      const browser = await get('/wals');
      assert.match(browser, /5 rows, page 1 of 1\./);
      assert.match(browser, new RegExp(`<code>${wal(1, 6)}</code></td><td><code>${wal(1, 6)}</code></td><td><strong>missing</strong> 1 segment \\(candidate gap\\)`));
      assert.match(browser, new RegExp(`history file \\(valid\\): switches from timeline 1 at LSN <code>${lsn(9)}</code>, in segment <code>${wal(1, 9)}</code>`));
    } finally {
      server.close();
    }
  });

  it('the text output prints its facts rows', async () => {
    const { e, p } = await published();
    const text = scanText(p, textFacts(e, null, toyFormat));
    assert.match(text, /^server pg-toy \(archive-cloud\)\n/);
    assert.match(text, /^ {2}ledger {7}2 sealed$/m);
    assert.match(text, /^ {2}backups {6}5 \(2 completed, 2 structurally usable\)$/m);
    assert.match(text, new RegExp(`^ {15}${OPEN} +STARTED +unknown +ended unknown {2}ledger-open$`, 'm'));
  });

  it('the configuration accepts REPOSITORY_FORMAT=toy-layout while it is registered, never in sidecar mode', () => {
    const standalone = parseConfig({ DESTINATION_PATH: 's3://acme-backups/toys', REPOSITORY_FORMAT: TOY_ID, EXPECTED_RETENTION_POLICY: 'KEEP 3' });
    assert.ok(standalone.ok, JSON.stringify(standalone));
    assert.equal(standalone.config.format, TOY_ID);
    // The scope's format reads the policy: Barman's syntax has no KEEP.
    assert.deepEqual(standalone.config.retention.policy, { kind: 'redundancy', count: 3 });
    const barman = parseConfig({ DESTINATION_PATH: 's3://acme-backups/toys', EXPECTED_RETENTION_POLICY: 'KEEP 3' });
    assert.ok(barman.ok);
    assert.deepEqual([barman.config.format, barman.config.retention.policy], ['archive-cloud', null]);
    const sidecar = parseConfig({
      RUNTIME_MODE: 'sidecar', REPOSITORY_FORMAT: TOY_ID, PROVIDER: 'store-a', DESTINATION_PATH: 's3://acme-backups/toys', ARCHIVE_SERVER_NAMES: SCOPE,
      EVIDENCE_TOKEN_FILE: '/var/run/secrets/viewer/token', CLUSTER_NAMESPACE: 'databases', CLUSTER_UID: '6f1c2a7e-3b9d-4e8f-a1c2-9d8e7f6a5b4c', CLUSTER_NAME: 'pg-main',
      STORE_CREDENTIAL_MODE: 'static-files', STORE_ACCESS_KEY_ID_FILE: '/var/run/secrets/store/id', STORE_SECRET_ACCESS_KEY_FILE: '/var/run/secrets/store/secret',
    });
    assert.ok(!sidecar.ok);
    assert.deepEqual(sidecar.violations.map((v) => [v.variable, v.rule]), [['REPOSITORY_FORMAT', 'must be archive-cloud in sidecar mode']]);
  });
});

describe('once unregistered', () => {
  it('the configuration refuses REPOSITORY_FORMAT=toy-layout again', () => {
    const env = { DESTINATION_PATH: 's3://acme-backups/toys', REPOSITORY_FORMAT: TOY_ID };
    const unregister = registerFormat(toyFormat);
    assert.equal(parseConfig(env).ok, true);
    unregister();
    const refused = parseConfig(env);
    assert.ok(!refused.ok);
    assert.deepEqual(refused.violations.map((v) => v.variable), ['REPOSITORY_FORMAT']);
    assert.equal(formatById(TOY_ID), null);
  });
});

describe('the ledger parser', () => {
  const bytes = (s: string) => new TextEncoder().encode(s);
  it('keeps each field only in its shape, and refuses what is not a ledger', () => {
    const r = parseLedger(bytes(JSON.stringify({ status: 'SEALED', timeline: 0, begin_wal: 'xyz', end_lsn: '0/1000028', begin_time: '2026-11-21 10:00', system_id: 7 })));
    assert.deepEqual(r, { ok: true, ledger: { status: 'SEALED', timeline: null, beginWal: null, endWal: null, beginLsn: null, endLsn: 0x1000028n, beginAt: null, endAt: null, systemId: null } });
    for (const bad of ['[]', 'null', '{"status":"DONE"}', '\u00ff', '{']) assert.deepEqual(parseLedger(bytes(bad)), { ok: false, code: 'ledger-malformed' }, bad);
    assert.deepEqual(parseLedger(new Uint8Array([0x7b, 0xff, 0x7d])), { ok: false, code: 'ledger-malformed' });
  });

  it('a ledger over the ceiling is malformed, unread', async () => {
    const unregister = registerFormat(toyFormat);
    try {
      const store = repository();
      store.put(`${ROOT}ledger/${MALFORMED}.json`, `{"status":"SEALED","pad":"${'x'.repeat(MAX_LEDGER_BYTES)}"}`, at(12));
      const e = await scan(toyFormat, store);
      assert.deepEqual(e.backups.filter((b) => b.item.backup_id === MALFORMED).map((b) => [b.item.reason.code, b.shelf]), [['ledger-too-large', 'malformed']]);
    } finally {
      unregister();
    }
  });
});

/** The code text of a TypeScript file (identifiers, strings, templates, regular expressions): what its program can know, comments aside. */
function codeText(source: string): string[] {
  const out: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isIdentifier(node) || ts.isStringLiteralLike(node) || ts.isTemplateLiteralToken(node) || ts.isRegularExpressionLiteral(node)) out.push(node.text);
    ts.forEachChild(node, visit);
  };
  visit(ts.createSourceFile('x.ts', source, ts.ScriptTarget.Latest, true));
  return out;
}

const NAMES = /toy-?layout|toytool/i;
/** The folder's path is the one mention allowed, in a comment pointing at this proof (format/registry.ts's). */
const POINTER = /test\/format\/toy-layout/g;

/** What in a file under src/ knows the toy format: its name in code, or anywhere but as a pointer to this folder. */
function mentions(file: string, source: string): string[] {
  const found: string[] = [];
  if (file.endsWith('.ts') && codeText(source).some((t) => NAMES.test(t))) found.push(`${file}: in code`);
  if (NAMES.test(source.replaceAll(POINTER, ''))) found.push(`${file}: in text`);
  return found;
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? filesUnder(join(dir, e.name)) : [join(dir, e.name)]));
}

describe('nothing under src/ knows the toy format', () => {
  const SRC = resolve(import.meta.dirname, '..', '..', '..', 'src');

  it('no file under src/ names it', () => {
    const files = filesUnder(SRC);
    assert.ok(files.length > 100, `${files.length} files`);
    assert.deepEqual(files.flatMap((f) => mentions(relative(SRC, f), readFileSync(f, 'utf8'))), []);
  });

  it('the check can fail', () => {
    assert.deepEqual(mentions('a.ts', "const id = 'toy-layout';"), ['a.ts: in code', 'a.ts: in text']);
    assert.deepEqual(mentions('a.ts', 'const t = `the ${x} Toytool`;'), ['a.ts: in code', 'a.ts: in text']);
    assert.deepEqual(mentions('a.ts', '// Toytool\nconst x = 1;'), ['a.ts: in text']);
    assert.deepEqual(mentions('a.json', '{"format": "toy-layout"}'), ['a.json: in text']);
    assert.deepEqual(mentions('a.ts', '/** see test/format/toy-layout */\nconst x = 1;'), []);
  });
});
