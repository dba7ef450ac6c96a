/**
 * The consumer library's poller against viewer's own evidence API served in-process on a real
 * Unix socket (a temporary path; the fixed path and the real executable are in
 * consumer-sidecar.test.ts). Where the real producer cannot be made to misbehave (an incompatible
 * schema version, an unknown details type, a publication that changes on every request, a
 * timeout) a transport wrapper stands in for it and says what it changes. Every case checks the
 * source state and reason, and that a failed poll never replaces the last assembled projection.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Writable } from 'node:stream';
import { assembleProjection, readSnapshot } from '../../src/client/assembly.ts';
import type { ConsumerConfig } from '../../src/client/config.ts';
import { backoffDelay, EvidenceSource, jitteredDelay, type SourceEvent } from '../../src/client/source.ts';
import { TransportFailure, unixSocketTransport, type Transport } from '../../src/client/transport.ts';
import { createLogger } from '../../src/common/log.ts';
import { BudgetMeter } from '../../src/evidence/listing.ts';
import { scanScope } from '../../src/evidence/scope-scan.ts';
import { archiveCloud } from '../../src/format/barman-cloud/format.ts';
import { SyntheticRepository } from '../../src/format/barman-cloud/synthetic-repository.ts';
import type { Publisher} from '../../src/publication/publisher.ts';
import { type Publication } from '../../src/publication/publisher.ts';
import { confine } from '../../src/store/confined.ts';
import { MemoryStore } from '../../src/store/memory/memory-driver.ts';
import { createEvidenceApi } from '../../src/surface/api/evidence-api.ts';
import { listenOnSocket } from '../../src/surface/api/socket.ts';
import { testPublisher } from '../support/publication-fixture.ts';

const TOKEN = 'q1aKFo9oVbP3rJ7Ztl0cKjYc2yU8m1Q0xW5nA4bZr-E';
const WRONG = 'r1aKFo9oVbP3rJ7Ztl0cKjYc2yU8m1Q0xW5nA4bZr-E';
const ROOT = 'secret-prefix/pg-main/';
const FINGERPRINT = `sha256:${'b'.repeat(64)}`;
const CLUSTER = { namespace: 'databases', uid: '6f1c2a7e-3b9d-4e8f-a1c2-9d8e7f6a5b4c', name: null };

async function scanned(publisher: Publisher, gaps: number, backups = 5): Promise<Publication> {
  const store = new MemoryStore();
  const repo = new SyntheticRepository(store, ROOT);
  const t0 = Date.parse('2026-11-21T00:00:00Z');
  repo.segments(1, 1, 400, new Date(t0), { stepMs: 1000, missing: Array.from({ length: gaps }, (_, i) => 10 + i * 3) });
  for (let i = 0; i < backups; i++) repo.backup({ id: `20261121T${String(i).padStart(6, '0')}`, timeline: 1, beginPosition: 2 + i, endPosition: 2 + i, beginTime: new Date(t0 + i * 1000), endTime: new Date(t0 + i * 1000 + 500) });
  const e = await scanScope({ format: archiveCloud, server: 'pg-main', root: ROOT, driver: confine(store, ROOT), signal: new AbortController().signal, meter: new BudgetMeter({ maxPages: 1000, maxObjects: 1e6 }), concurrency: 4, ...publisher.nextScan });
  return publisher.complete(e, { startedAt: new Date(t0 + 3_600_000), finishedAt: new Date(t0 + 3_601_000), pages: 2, objects: e.objectCount });
}

/** One producer: the real evidence API on a temporary socket, its publication swappable. */
class Producer {
  readonly dir = mkdtempSync(join(tmpdir(), 'viewer-client-'));
  readonly socketPath = join(this.dir, 'evidence.sock');
  readonly publisher = testPublisher({ identity: { cluster: CLUSTER, fingerprint: FINGERPRINT, server: 'pg-main' }, freshnessMs: 900_000 });
  current: Publication = this.publisher.current;
  pageBytes: number | undefined;
  readonly logs: string[] = [];
  #server = this.#create();

  #create() {
    const sink = new Writable({ write: (c: Buffer, _e, cb) => { this.logs.push(c.toString()); cb(); } });
    return createEvidenceApi({ token: TOKEN, publication: () => this.current, ready: () => true, logger: createLogger('info', sink), ...(this.pageBytes === undefined ? {} : { sizeLimits: { pageBytes: this.pageBytes, snapshotBytes: 256 * 1024 } }) });
  }
  async start() { await listenOnSocket(this.#server, this.socketPath); }
  async stop() {
    await new Promise<void>((resolve) => { this.#server.close(() => resolve()); this.#server.closeAllConnections(); });
  }
  /** A new process: a new cursor secret (and the same publication). */
  async restart() {
    await this.stop();
    this.#server = this.#create();
    await this.start();
  }
  transport(token = TOKEN): Transport { return unixSocketTransport({ socketPath: this.socketPath, token }); }
  cleanup() { rmSync(this.dir, { recursive: true, force: true }); }
}

const config = (socketPath: string, overrides: Partial<ConsumerConfig> = {}): ConsumerConfig => ({ socketPath, tokenFile: '/nonexistent/token', expectedFingerprint: FINGERPRINT, server: 'pg-main', ...overrides });

/** Wraps a transport, counting requests per route and letting a test act before a request. */
function spy(inner: Transport, before?: (path: string, n: number) => Promise<void> | void) {
  const paths: string[] = [];
  const transport: Transport = async (path, signal) => {
    paths.push(path);
    await before?.(path, paths.length);
    return inner(path, signal);
  };
  return { transport, paths, collectionRequests: () => paths.filter((p) => !p.endsWith('/snapshot')).length };
}

function sourceOf(p: Producer, transport: Transport, extra: { maxRestarts?: number; pageLimit?: number; expected?: Partial<ConsumerConfig> } = {}) {
  const events: SourceEvent[] = [];
  const source = new EvidenceSource({ config: config(p.socketPath, extra.expected), transport, pageLimit: extra.pageLimit ?? 7, backoffBaseMs: 1, backoffMaxMs: 5, maxRestarts: extra.maxRestarts ?? 5, onEvent: (e) => events.push(e) });
  return { source, events };
}

function assertEqualsPublication(source: EvidenceSource, p: Publication) {
  const projection = source.projection();
  assert.ok(projection !== null);
  assert.equal(projection.revision, p.revision);
  assert.equal(projection.evidenceGeneration, p.generation);
  const { details, ...envelope } = JSON.parse(p.snapshotJson) as { details: { archive_cloud: unknown } };
  assert.deepEqual(projection.snapshot, envelope);
  assert.deepEqual(projection.details, { type: 'archive-cloud/v1alpha1', known: true, archive_cloud: details.archive_cloud });
  assert.deepEqual(projection.collections.backups, { known: true, items: p.backups });
  assert.deepEqual(projection.collections['wal-ranges'], { known: true, items: p.walRanges });
  assert.deepEqual(projection.collections['wal-gaps'], { known: true, items: p.walGaps });
  assert.deepEqual(projection.collections['recovery-paths'], { known: true, items: p.recoveryPaths });
}

describe('consumer poller against the evidence API', () => {
  const p = new Producer();
  before(async () => {
    p.current = await scanned(p.publisher, 60);
    await p.start();
  });
  after(async () => {
    await p.stop();
    p.cleanup();
  });

  it('assembles every page of one revision, then skips collections while the publication is unchanged', async () => {
    assert.ok(p.current.walGaps.length > 7 * 3, 'the gaps span several pages');
    const s = spy(p.transport());
    const { source, events } = sourceOf(p, s.transport);
    assert.deepEqual([source.status().state, source.status().reason], ['unknown', 'not-yet-polled']);
    await source.poll();
    assert.deepEqual([source.status().state, source.status().reason], ['available', 'current']);
    assertEqualsPublication(source, p.current);
    const pages = (n: number) => Math.max(1, Math.ceil(n / 7));
    assert.equal(s.collectionRequests(), pages(p.current.backups.length) + pages(p.current.walRanges.length) + pages(p.current.walGaps.length) + pages(p.current.recoveryPaths.length));
    assert.ok(s.paths.filter((x) => !x.endsWith('/snapshot')).every((x) => x.includes(`revision=${p.current.revision}&limit=7`)));
    const before = s.collectionRequests();
    await source.poll();
    assert.equal(s.collectionRequests(), before, 'no collection request for an unchanged (revision, evidence_generation)');
    assert.deepEqual(events.map((e) => e.type), ['assembled', 'unchanged']);
  });

  it('takes the newer envelope of an unchanged publication identity (staleness without a new revision)', async () => {
    const stand = p.transport();
    let stale = false;
    // Stand-in: the real producer keeps its snapshot until the freshness threshold elapses (15 min here).
    const transport: Transport = async (path, signal) => {
      const r = await stand(path, signal);
      if (!stale || !path.endsWith('/snapshot')) return r;
      const body = structuredClone(r.body) as Record<string, unknown> & { details: { archive_cloud: Record<string, { state: string }> }; capabilities: { state: string }[] };
      Object.assign(body, { stale: true, state: 'unknown' });
      for (const c of body.capabilities) c.state = 'unknown';
      for (const k of ['wal', 'timeline', 'coverage', 'retention']) (body.details.archive_cloud[k] as { state: string }).state = 'unknown';
      return { ...r, body };
    };
    const { source } = sourceOf(p, transport);
    await source.poll();
    assert.equal(source.projection()?.snapshot.stale, false);
    stale = true;
    await source.poll();
    assert.equal(source.projection()?.snapshot.stale, true);
    assert.equal(source.projection()?.snapshot.state, 'unknown');
    assert.equal(source.projection()?.collections.backups.known, true);
  });

  it('a publication change in the middle of a walk: the partial walk is discarded and the next revision assembled', async () => {
    const first = p.current;
    let swapped = false;
    const s = spy(p.transport(), async (path) => {
      if (!swapped && path.includes('/wal-gaps') && path.includes('cursor=')) {
        swapped = true;
        p.current = await scanned(p.publisher, 61);
      }
    });
    const { source, events } = sourceOf(p, s.transport);
    await source.poll();
    assert.ok(swapped);
    assert.notEqual(p.current.revision, first.revision);
    assert.deepEqual(source.status().restarts, { 'publication-changed': 1, 'cursor-rejected': 0 });
    assert.deepEqual(events.map((e) => e.type), ['restart', 'assembled']);
    assertEqualsPublication(source, p.current);
    const gaps = source.projection()?.collections['wal-gaps'];
    assert.equal(gaps?.known === true ? gaps.items.length : null, 61);
  });

  it('a producer restart mid-walk (cursors from the old process): restart from the snapshot', async () => {
    let restarted = false;
    const s = spy(p.transport(), async (path) => {
      if (!restarted && path.includes('/wal-gaps') && path.includes('cursor=')) {
        restarted = true;
        await p.restart();
      }
    });
    const { source, events } = sourceOf(p, s.transport);
    await source.poll();
    assert.ok(restarted);
    assert.deepEqual(source.status().restarts, { 'publication-changed': 0, 'cursor-rejected': 1 }, 'the same revision, a cursor the new process refuses with 400');
    assert.deepEqual(events.map((e) => e.type), ['restart', 'assembled']);
    assertEqualsPublication(source, p.current);
  });

  it('a collection answered 413 response-limit is unknown; the rest of the projection stays usable', async () => {
    const q = new Producer();
    try {
      q.current = await scanned(q.publisher, 3, 150);
      const full = (items: readonly unknown[]) => Buffer.byteLength(JSON.stringify(items));
      // A page limit between the backups page (150 large items) and every other page: only backups exceeds it.
      const others = Math.max(full(q.current.walGaps), full(q.current.walRanges), full(q.current.recoveryPaths));
      q.pageBytes = Math.floor((others + full(q.current.backups)) / 2);
      assert.ok(full(q.current.backups) > q.pageBytes + 1_000 && q.pageBytes > others + 1_000);
      await q.restart();
      const { source } = sourceOf(q, q.transport(), { pageLimit: 200 });
      await source.poll();
      assert.deepEqual([source.status().state, source.status().reason], ['available', 'current']);
      const c = source.projection()?.collections;
      assert.deepEqual(c?.backups, { known: false, reason: 'response-limit' });
      assert.deepEqual(c?.['wal-gaps'], { known: true, items: q.current.walGaps });
      assert.deepEqual(c?.['wal-ranges'], { known: true, items: q.current.walRanges });
      assert.deepEqual(c?.['recovery-paths'], { known: true, items: q.current.recoveryPaths });
    } finally {
      await q.stop();
      q.cleanup();
    }
  });

  it('an unrecognized details type keeps the bounded tag only and marks format details unknown', async () => {
    const real = p.transport();
    // Stand-in: a producer of a newer details version (the real one publishes only archive-cloud/v1alpha1).
    const transport: Transport = async (path, signal) => {
      const r = await real(path, signal);
      if (!path.endsWith('/snapshot')) return r;
      const body = structuredClone(r.body) as Record<string, unknown>;
      body['details'] = { type: 'archive-cloud/v2', archive_cloud_v2: { secret_field: 'must be dropped', counts: [1, 2] } };
      return { ...r, body };
    };
    const { source } = sourceOf(p, transport);
    await source.poll();
    assert.deepEqual([source.status().state, source.status().reason], ['available', 'current']);
    assert.deepEqual(source.projection()?.details, { type: 'archive-cloud/v2', known: false });
    assert.ok(!JSON.stringify(source.projection()).includes('must be dropped'));
    assert.equal(source.projection()?.collections.backups.known, true);
  });

  describe('failures keep the last projection and move the source state', () => {
    const cases: { name: string; state: string; reason: string; transport: (real: Transport) => Transport; expected?: Partial<ConsumerConfig> }[] = [
      { name: 'wrong token (real 401)', state: 'unavailable', reason: 'authentication', transport: () => p.transport(WRONG) },
      {
        name: 'incompatible schema version (stand-in: api_version v1beta1)',
        state: 'unknown',
        reason: 'schema-incompatible',
        transport: (real) => async (path, signal) => {
          const r = await real(path, signal);
          return { ...r, body: { ...(r.body as object), api_version: 'evidence.viewer.io/v1beta1' } };
        },
      },
      {
        name: 'a page that breaks the schema (stand-in: a negative position)',
        state: 'unknown',
        reason: 'schema-incompatible',
        transport: (real) => async (path, signal) => {
          const r = await real(path, signal);
          if (!path.includes('/wal-gaps')) return r;
          const body = structuredClone(r.body) as { items: { start_position: number }[] };
          if (body.items[0] !== undefined) body.items[0].start_position = -1;
          return { ...r, body };
        },
      },
      {
        name: 'pages that disagree with the snapshot count (stand-in: an item dropped)',
        state: 'unknown',
        reason: 'invalid-publication',
        transport: (real) => async (path, signal) => {
          const r = await real(path, signal);
          if (!path.includes('/backups')) return r;
          const body = structuredClone(r.body) as { items: unknown[] };
          body.items.pop();
          return { ...r, body };
        },
      },
      { name: 'the producer answers 500 invalid-publication (stand-in)', state: 'unknown', reason: 'invalid-publication', transport: () => () => Promise.resolve({ status: 500, mediaTypeOk: true, body: { api_version: 'evidence.viewer.io/v1alpha1', kind: 'EvidenceAPIError', code: 'invalid-publication', message: 'x' } }) },
      { name: 'the producer is busy (stand-in 429)', state: 'unavailable', reason: 'busy', transport: () => () => Promise.resolve({ status: 429, mediaTypeOk: true, body: { api_version: 'evidence.viewer.io/v1alpha1', kind: 'EvidenceAPIError', code: 'busy', message: 'x' } }) },
      { name: 'another fingerprint than expected (real identity)', state: 'unknown', reason: 'identity-mismatch', transport: (real) => real, expected: { expectedFingerprint: `sha256:${'c'.repeat(64)}` } },
      { name: 'another server than expected (real identity)', state: 'unknown', reason: 'identity-mismatch', transport: (real) => real, expected: { server: 'pg-other' } },
      { name: 'a stopped sidecar (nothing listens on the socket)', state: 'unavailable', reason: 'transport', transport: () => unixSocketTransport({ socketPath: join(p.dir, 'nothing.sock'), token: TOKEN }) },
      {
        name: 'a publication that changes on every request (stand-in: each page is 409)',
        state: 'unknown',
        reason: 'publication-churn',
        transport: (real) => async (path, signal) => (path.endsWith('/snapshot') ? real(path, signal) : { status: 409, mediaTypeOk: true, body: { api_version: 'evidence.viewer.io/v1alpha1', kind: 'EvidenceAPIError', code: 'publication-changed', message: 'x' } }),
      },
    ];
    for (const c of cases) {
      it(c.name, async () => {
        let failing = false;
        const real = p.transport();
        const broken = c.transport(real);
        const { source, events } = sourceOf(p, (path, signal) => (failing ? broken(path, signal) : real(path, signal)), c.expected === undefined ? {} : { expected: {} });
        await source.poll();
        const good = source.projection();
        assert.ok(good !== null);
        failing = true;
        if (c.expected !== undefined) {
          // The identity is checked against a source configured otherwise: a fresh source, no projection.
          const other = sourceOf(p, broken, { expected: c.expected });
          await other.source.poll();
          assert.deepEqual([other.source.status().state, other.source.status().reason], [c.state, c.reason]);
          assert.equal(other.source.projection(), null);
          return;
        }
        // Force a new walk so collection requests happen: the producer publishes a new revision.
        p.current = await scanned(p.publisher, 60);
        await source.poll();
        assert.deepEqual([source.status().state, source.status().reason], [c.state, c.reason]);
        assert.equal(source.projection(), good, 'the last assembled projection stays');
        assert.equal(events.at(-1)?.type, 'failed');
        failing = false;
        await source.poll();
        assert.deepEqual([source.status().state, source.status().reason], ['available', 'current'], 'recovers on the next good poll');
        assertEqualsPublication(source, p.current);
      });
    }
  });

  it('a sidecar that accepts and never answers is a timeout', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'viewer-client-mute-'));
    const path = join(dir, 'mute.sock');
    const mute: Server = createServer(() => {});
    await new Promise<void>((resolve) => mute.listen(path, resolve));
    try {
      const transport = unixSocketTransport({ socketPath: path, token: TOKEN, timeoutMs: 200 });
      await assert.rejects(transport('/api/v1alpha1/snapshot', new AbortController().signal), (e) => e instanceof TransportFailure && e.kind === 'timeout' && !e.message.includes(path));
      const { source } = sourceOf(p, transport);
      await source.poll();
      assert.deepEqual([source.status().state, source.status().reason], ['unavailable', 'timeout']);
    } finally {
      mute.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('an unreadable token file is its own reason, and a readable one is used', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'viewer-client-token-'));
    try {
      const missing = new EvidenceSource({ config: config(p.socketPath, { tokenFile: join(dir, 'token') }) });
      await missing.poll();
      assert.deepEqual([missing.status().state, missing.status().reason], ['unavailable', 'token-unreadable']);
      writeFileSync(join(dir, 'bad'), 'not a token\n');
      const bad = new EvidenceSource({ config: config(p.socketPath, { tokenFile: join(dir, 'bad') }) });
      await bad.poll();
      assert.equal(bad.status().reason, 'token-unreadable');
      // The sidecar refuses a token followed by a newline (D-78); the consumer reads the same file the same way.
      writeFileSync(join(dir, 'newline'), `${TOKEN}\n`);
      const newline = new EvidenceSource({ config: config(p.socketPath, { tokenFile: join(dir, 'newline') }) });
      await newline.poll();
      assert.equal(newline.status().reason, 'token-unreadable');
      writeFileSync(join(dir, 'token'), TOKEN);
      await missing.poll();
      assert.deepEqual([missing.status().state, missing.status().reason], ['available', 'current']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the library leaks no token, key or destination into what it hands out', async () => {
    const { source, events } = sourceOf(p, p.transport());
    await source.poll();
    const out = JSON.stringify({ projection: source.projection(), status: source.status(), events });
    for (const secret of [TOKEN, 'secret-prefix', 'acme-bucket', p.socketPath]) assert.ok(!out.includes(secret), `${secret.slice(0, 8)} leaked`);
  });

  it('readSnapshot and assembleProjection are usable alone', async () => {
    const read = await readSnapshot(p.transport(), { fingerprint: FINGERPRINT, server: 'pg-main' }, new AbortController().signal);
    const projection = await assembleProjection(p.transport(), read, new AbortController().signal, { limit: 200 });
    assert.equal(projection.revision, p.current.revision);
  });
});

describe('poll timing', () => {
  it('jitter stays within ±jitter of the interval and is clamped to 0.5', () => {
    assert.equal(jitteredDelay(10_000, 0.2, 0), 8_000);
    assert.equal(jitteredDelay(10_000, 0.2, 1), 12_000);
    assert.equal(jitteredDelay(10_000, 0.2, 0.5), 10_000);
    assert.equal(jitteredDelay(10_000, 3, 0), 5_000);
    assert.equal(jitteredDelay(10_000, -1, 0), 10_000);
  });
  it('backoff doubles, caps, and never waits less than half', () => {
    assert.deepEqual([0, 1, 2, 3, 10].map((n) => backoffDelay(n, 250, 5_000, 1)), [250, 500, 1_000, 2_000, 5_000]);
    assert.equal(backoffDelay(3, 250, 5_000, 0), 1_000);
  });
});
