/**
 * The concurrency budget under a stalled consumer (issue 19, found by `npm run soak`): a client
 * pipelines more requests than the budget and stops reading. The API admits 16 of them and
 * refuses the rest with 429; the refusals' answers wait on the connection behind the admitted
 * answers that cannot be written. Those refusals must take no share of the budget: once some of
 * the admitted answers have been written, another client is admitted, even though the stalled
 * client's 429s are still unwritten. Before the fix a refusal counted as in flight until its
 * answer was written, so one stalled client could hold the whole API closed with refusals alone.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { request, type IncomingMessage, type ServerResponse } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createLogger } from '../../common/log.ts';
import { BudgetMeter } from '../../evidence/listing.ts';
import { scanScope } from '../../evidence/scope-scan.ts';
import { archiveCloud } from '../../format/barman-cloud/format.ts';
import { SyntheticRepository } from '../../format/barman-cloud/synthetic-repository.ts';
import { type Publication } from '../../publication/publisher.ts';
import { confine } from '../../store/confined.ts';
import { MemoryStore } from '../../store/memory/memory-driver.ts';
import { createEvidenceApi, LIMITS } from './evidence-api.ts';
import { listenOnSocket } from './socket.ts';
import { DATABASES_CLUSTER, testPublisher } from '../../../test/support/publication-fixture.ts';

const TOKEN = 'q1aKFo9oVbP3rJ7Ztl0cKjYc2yU8m1Q0xW5nA4bZr-E';
const ROOT = 'prefix/pg-main/';
/** About 50 KB an answer: 16 of them are far more than a Unix socket's send buffer holds. */
const PAGE = '/api/v1alpha1/wal-gaps?limit=200';
const STALLED_REQUESTS = 40;

async function publication(): Promise<Publication> {
  const publisher = testPublisher({ identity: { cluster: DATABASES_CLUSTER, fingerprint: `sha256:${'b'.repeat(64)}`, server: 'pg-main' }, freshnessMs: 900_000 });
  const store = new MemoryStore();
  const repo = new SyntheticRepository(store, ROOT);
  const t0 = Date.parse('2026-11-21T00:00:00Z');
  repo.segments(1, 1, 900, new Date(t0), { stepMs: 1000, missing: Array.from({ length: 280 }, (_, i) => 10 + i * 3) });
  repo.backup({ id: '20261121T000000', timeline: 1, beginPosition: 2, endPosition: 2, beginTime: new Date(t0), endTime: new Date(t0 + 500) });
  const e = await scanScope({ format: archiveCloud, server: 'pg-main', root: ROOT, driver: confine(store, ROOT), signal: new AbortController().signal, meter: new BudgetMeter({ maxPages: 1000, maxObjects: 1e6 }), concurrency: 4, ...publisher.nextScan });
  return publisher.complete(e, { startedAt: new Date(t0 + 3_600_000), finishedAt: new Date(t0 + 3_601_000), pages: 1, objects: e.objectCount });
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

function status(socketPath: string, path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ socketPath, path, agent: false, headers: { authorization: `Bearer ${TOKEN}` } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('the concurrency budget', () => {
  const dir = mkdtempSync(join(tmpdir(), 'viewer-budget-'));
  const socketPath = join(dir, 'evidence.sock');
  let current: Publication;
  const api = createEvidenceApi({ token: TOKEN, publication: () => current, ready: () => true, logger: createLogger('silent') });
  /** Every answer in the order the requests arrived, as the server wrote it. */
  const answers: { status: number; finished: boolean; closed: boolean }[] = [];
  /** The stalled client's answers not yet written when each later request arrived. */
  const openAtArrival: { admitted: number; refused: number }[] = [];

  before(async () => {
    current = await publication();
    api.prependListener('request', () => {
      const stalled = answers.slice(0, STALLED_REQUESTS).filter((a) => !a.finished);
      if (answers.length >= STALLED_REQUESTS) openAtArrival.push({ admitted: stalled.filter((a) => a.status !== 429).length, refused: stalled.filter((a) => a.status === 429).length });
    });
    api.on('request', (_req: IncomingMessage, res: ServerResponse) => {
      const answer = { status: res.statusCode, finished: false, closed: false };
      answers.push(answer);
      res.once('finish', () => (answer.finished = true));
      res.once('close', () => (answer.closed = true));
    });
    await listenOnSocket(api, socketPath);
  });
  after(() => {
    api.close();
    api.closeAllConnections();
    rmSync(dir, { recursive: true, force: true });
  });

  it("admits a request once fewer than 16 are in flight, whatever a stalled client's refusals still wait for", async () => {
    const stalled = connect(socketPath);
    stalled.pause();
    await new Promise((resolve) => stalled.once('connect', resolve));
    stalled.write(`GET ${PAGE} HTTP/1.1\r\nHost: sidecar\r\nAuthorization: Bearer ${TOKEN}\r\n\r\n`.repeat(STALLED_REQUESTS));
    while (answers.length < STALLED_REQUESTS) await turn();
    // Admitted up to the budget, the rest refused.
    assert.equal(answers.filter((a) => a.status === 200).length, LIMITS.maxInFlight);
    assert.equal(answers.filter((a) => a.status === 429).length, STALLED_REQUESTS - LIMITS.maxInFlight);

    assert.equal(await status(socketPath, PAGE), 200);
    // What that request met: some of the stalled client's admitted answers written (so there was
    // room), the others and every refusal still waiting on its connection.
    const met = openAtArrival[0];
    assert.ok(met !== undefined && met.admitted < LIMITS.maxInFlight && met.admitted > 0, `admitted answers still unwritten: ${met?.admitted}`);
    assert.equal(met.refused, STALLED_REQUESTS - LIMITS.maxInFlight);

    // The stalled client goes away: every answer it was owed closes, and all of the budget is free again.
    stalled.destroy();
    while (answers.slice(0, STALLED_REQUESTS).some((a) => !a.closed)) await turn();
    const burst = await Promise.all(Array.from({ length: LIMITS.maxInFlight }, () => status(socketPath, '/healthz')));
    assert.deepEqual(new Set(burst), new Set([200]));
  });
});
