/**
 * The format seam must change nothing users see: the embedded demo's `viewer scan` document is
 * compared byte for byte with the one recorded before the seam (test/fixtures/demo-scan.json),
 * with only what differs by construction set aside: the revision (drawn per process, D-59) and
 * the attempt's own times. `UPDATE_GOLDEN=1` rewrites the file, for a change that means to alter
 * the evidence (say so in the commit).
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { scanDocument } from '../../src/cli/commands/scan.ts';
import { BudgetMeter } from '../../src/evidence/listing.ts';
import { scanScope } from '../../src/evidence/scope-scan.ts';
import { DEMO_PREFIX, DEMO_SERVER, demoRepository } from '../../src/format/barman-cloud/demo-repository.ts';
import { confine } from '../../src/store/confined.ts';
import { archiveCloud, scopeRoot } from '../../src/format/barman-cloud/format.ts';
import { STANDALONE_CLUSTER, testPublisher } from '../support/publication-fixture.ts';

const GOLDEN = join(import.meta.dirname, '..', 'fixtures', 'demo-scan.json');
const startedAt = new Date('2026-11-20T06:00:00Z');

async function demoDocument(): Promise<string> {
  const root = scopeRoot(DEMO_PREFIX, DEMO_SERVER);
  const publisher = testPublisher({
    identity: { cluster: STANDALONE_CLUSTER, fingerprint: `sha256:${'0'.repeat(64)}`, server: DEMO_SERVER },
    expectations: { policyText: 'RECOVERY WINDOW OF 7 DAYS', policy: { kind: 'recovery-window', amount: 7, unit: 'days' }, minimumRedundancy: 2 },
    freshnessMs: 900_000,
    revisionBase: 0,
  });
  const evidence = await scanScope({ format: archiveCloud, server: DEMO_SERVER, root, driver: confine(demoRepository(), root), signal: new AbortController().signal, meter: new BudgetMeter({ maxPages: 1_000, maxObjects: 100_000 }), concurrency: 4, ...publisher.nextScan });
  const p = publisher.complete(evidence, { startedAt, finishedAt: new Date(startedAt.getTime() + 1_000), pages: 7, objects: evidence.objectCount });
  assert.deepEqual(p.violations, []);
  return `${JSON.stringify(JSON.parse(scanDocument(p, publisher.evidence)), null, 1)}\n`;
}

describe('the demo scan document', () => {
  it('is byte for byte the one recorded before the format seam', async () => {
    const now = await demoDocument();
    if (process.env['UPDATE_GOLDEN'] === '1') writeFileSync(GOLDEN, now);
    assert.equal(now, readFileSync(GOLDEN, 'utf8'));
  });
});
