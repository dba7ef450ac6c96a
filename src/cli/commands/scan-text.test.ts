/** `viewer scan --output text` on the embedded demo (fixed receipt times and store clock), and its durations. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { stanzaBackupPage, stanzaSnapshotComplete } from '../../contract/examples.ts';
import { BudgetMeter } from '../../evidence/listing.ts';
import { scanScope } from '../../evidence/scope-scan.ts';
import { DEMO_PREFIX, DEMO_SERVER, demoRepository } from '../../format/barman-cloud/demo-repository.ts';
import { archiveCloud, scopeRoot } from '../../format/barman-cloud/format.ts';
import { Publisher, type Publication } from '../../publication/publisher.ts';
import { confine } from '../../store/confined.ts';
import { textFacts } from './scan.ts';
import { humanDuration, scanText } from './scan-text.ts';

async function demoText(maxLag: number | null): Promise<string> {
  const root = scopeRoot(DEMO_PREFIX, DEMO_SERVER);
  const publisher = new Publisher(
    { cluster: { namespace: 'standalone', uid: '00000000-0000-0000-0000-000000000000', name: null }, provider: 'store-a', fingerprint: `sha256:${'0'.repeat(64)}`, server: DEMO_SERVER, producerVersion: '0.1.0', format: archiveCloud },
    { policyText: null, policy: null, minimumRedundancy: 2, maxArchiveLagSeconds: maxLag },
    900_000,
  );
  const e = await scanScope({ format: archiveCloud, server: DEMO_SERVER, root, driver: confine(demoRepository(), root), signal: new AbortController().signal, meter: new BudgetMeter({ maxPages: 1_000, maxObjects: 100_000 }), concurrency: 4, ...publisher.nextScan });
  const p = publisher.complete(e, { startedAt: new Date('2026-11-20T06:00:00Z'), finishedAt: new Date('2026-11-20T06:00:01Z'), pages: 7, objects: e.objectCount });
  return scanText(p, textFacts(e, maxLag));
}

describe('viewer scan --output text', () => {
  it('answers the operator\'s questions for the demo', async () => {
    const text = await demoText(null);
    const line = (label: string) => text.split('\n').find((l) => l.startsWith(`  ${label}`)) ?? '';
    assert.match(text, /^server pg-main \(archive-cloud\)\n/);
    assert.match(line('wal'), /newest received 2026-11-20T05:16:00Z \(4 min before the scan by the store's clock\)$/);
    assert.equal(line('archive lag'), "  archive lag  4 min by the store's clock (no expectation configured)");
    assert.match(line('gaps'), /^ {2}gaps {9}\d+ confirmed \(\d+ segments?\), \d+ candidate \(\d+ segments?\); 1 of them with exactly the shape Barman's retention leaves$/);
    assert.match(line('backups'), /^ {2}backups {6}5 \(3 completed, \d structurally usable\)$/);
    assert.match(text, /observed recovery coverage of timeline 2:/);
    assert.match(text, /20261120T040000 +\w+ +reaches 00000002[0-9A-F]{16} \(received 2026-11-20T05:16:00.000Z\), stop frontier/);
    assert.doesNotMatch(text, /restorable|guaranteed|exact recovery/i);
  });

  it('judges the lag only against a configured expectation', async () => {
    assert.match(await demoText(60), /archive lag {2}4 min by the store's clock, over the expectation of 1 min/);
    assert.match(await demoText(600), /archive lag {2}4 min by the store's clock, within the expectation of 10 min/);
  });

  it('reads a stanza-repository publication through the common summary, with pgBackRest\'s own facts', () => {
    const s = stanzaSnapshotComplete;
    const p: Publication = { revision: s.revision, generation: s.evidence_generation, snapshot: s, snapshotJson: '', backups: stanzaBackupPage.items, walRanges: [], walGaps: [], recoveryPaths: [], violations: [] };
    const text = scanText(p, { storeTimeAtScan: null, newestWalReceipt: null, archiveLagSeconds: null, expectedMaxArchiveLagSeconds: null, retentionExpectedGaps: 0, tool: 'pgBackRest' });
    assert.match(text, /^server main \(stanza-repository\)\n/);
    assert.match(text, /^ {2}backups {6}4 \(3 completed, 3 structurally usable\)$/m);
    assert.match(text, /^ {2}backup sets {2}1 full, 1 diff, 1 incr listed in backup\.info; 1 interrupted; repository cipher none$/m);
    assert.match(text, /^ {2}dependencies healthy \(dependency-chains-complete\)$/m);
    assert.match(text, /^ {2}wal {10}healthy \(wal-continuous\)/m);
    assert.match(text, /^ {2}retention {4}healthy \(no-expectation-configured\)$/m);
    // pgBackRest's labels differ in length (a full's 16 characters, a dependent's 33): one column for the status.
    const rows = text.split('\n').filter((l) => stanzaBackupPage.items.some((b) => l.trimStart().startsWith(`${b.backup_id} `)));
    assert.equal(rows.length, stanzaBackupPage.items.length);
    assert.ok(new Set(stanzaBackupPage.items.map((b) => b.backup_id.length)).size > 1);
    assert.equal(new Set(rows.map((l) => l.search(/ (DONE|INTERRUPTED|unknown) /))).size, 1);
  });

  it('writes durations as operators read them', () => {
    assert.deepEqual([0, 59, 60, 3_599, 3_600, 5_400, 172_799, 172_800, 187_200].map(humanDuration), ['0 s', '59 s', '1 min', '59 min', '1 h', '1 h 30 min', '47 h 59 min', '2 d', '2 d 4 h']);
  });
});
