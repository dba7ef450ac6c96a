/** `viewer scan --output text` on the embedded demo (fixed receipt times and store clock), and its durations. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { stanzaBackupPage, stanzaSnapshotComplete } from '../../contract/examples.ts';
import { BudgetMeter } from '../../evidence/listing.ts';
import { scanScope } from '../../evidence/scope-scan.ts';
import { DEMO_PREFIX, DEMO_SERVER, demoRepository } from '../../format/barman-cloud/demo-repository.ts';
import { archiveCloud, scopeRoot } from '../../format/barman-cloud/format.ts';
import { stanzaRepository } from '../../format/stanza-repository/format.ts';
import type { Publication } from '../../publication/publisher.ts';
import { confine } from '../../store/confined.ts';
import { SyntheticRepository } from '../../format/barman-cloud/synthetic-repository.ts';
import { adviceFor } from '../../publication/advice.ts';
import { MemoryStore } from '../../store/memory/memory-driver.ts';
import { textFacts } from './scan.ts';
import { humanDuration, scanText } from './scan-text.ts';
import { STANDALONE_CLUSTER, testPublisher } from '../../../test/support/publication-fixture.ts';

async function demoText(maxLag: number | null): Promise<string> {
  const root = scopeRoot(DEMO_PREFIX, DEMO_SERVER);
  const publisher = testPublisher({ identity: { cluster: STANDALONE_CLUSTER, server: DEMO_SERVER }, expectations: { minimumRedundancy: 2, maxArchiveLagSeconds: maxLag }, freshnessMs: 900_000 });
  const e = await scanScope({ format: archiveCloud, server: DEMO_SERVER, root, driver: confine(demoRepository(), root), signal: new AbortController().signal, meter: new BudgetMeter({ maxPages: 1_000, maxObjects: 100_000 }), concurrency: 4, ...publisher.nextScan });
  const p = publisher.complete(e, { startedAt: new Date('2026-11-20T06:00:00Z'), finishedAt: new Date('2026-11-20T06:00:01Z'), pages: 7, objects: e.objectCount });
  return scanText(p, textFacts(e, maxLag, archiveCloud));
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
    const text = scanText(p, { storeTimeAtScan: null, newestWalReceipt: null, archiveLagSeconds: null, expectedMaxArchiveLagSeconds: null, retentionExpectedGaps: 0, tool: 'pgBackRest', format: stanzaRepository });
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

describe('viewer scan --output text: what to restore from and what to do', () => {
  const T = Date.parse('2026-11-21T10:00:00Z');
  const minute = (n: number) => new Date(T + n * 60_000);
  async function scanned(build: (repo: SyntheticRepository) => void) {
    const store = new MemoryStore();
    build(new SyntheticRepository(store, 'pg/srv/'));
    const publisher = testPublisher();
    const e = await scanScope({ format: archiveCloud, server: 'srv', root: 'pg/srv/', driver: store, signal: new AbortController().signal, meter: new BudgetMeter({ maxPages: 1e4, maxObjects: 1e6 }), concurrency: 2, ...publisher.nextScan });
    return { e, p: publisher.complete(e, { startedAt: minute(100), finishedAt: minute(101), pages: 1, objects: 1 }) };
  }
  const line = (text: string, label: string) => text.split('\n').find((l) => l.startsWith(`  ${label.padEnd(13)}`)) ?? '';

  it('names the backup to restore from as the newest usable one whose path reaches the frontier', async () => {
    const { e, p } = await scanned((repo) => {
      repo.segments(1, 1, 20, minute(1));
      repo.backup({ id: '20261121T100200', timeline: 1, beginPosition: 2, endPosition: 3, beginTime: minute(2), endTime: minute(3) });
      repo.backup({ id: '20261121T101000', timeline: 1, beginPosition: 10, endPosition: 11, beginTime: minute(10), endTime: minute(11) });
      repo.backup({ id: '20261121T101500', timeline: 1, beginPosition: 15, endPosition: 15, status: 'FAILED', beginTime: minute(15), endTime: minute(15) });
    });
    const text = scanText(p, textFacts(e, null, archiveCloud));
    const usable = new Set(p.backups.filter((b) => b.state === 'healthy' || b.state === 'warning').map((b) => b.backup_id));
    const reaching = p.recoveryPaths.filter((r) => r.stop === 'frontier' && usable.has(r.backup_id)).map((r) => r.backup_id).sort();
    const newest = reaching.at(-1) ?? '';
    assert.ok(reaching.length >= 2);
    assert.match(line(text, 'restore from'), new RegExp(`^ {2}restore from ${newest} \\(ended .*\\): the newest structurally usable backup whose observed recovery coverage reaches the newest WAL of timeline 1`));
    // The failed backup is newer and passed over, with its reason.
    assert.match(text, /^ {15}not 20261121T101500: not structurally usable \(backup-failed\)$/m);
    const oldest = reaching[0] ?? '';
    const from = p.recoveryPaths.find((r) => r.backup_id === oldest)?.lower_bound_at ?? '';
    assert.match(line(text, 'window'), new RegExp(`observed recovery coverage on timeline 1 from ${from.replace(/[.]/g, '\\.')} \\(end of backup ${oldest}\\) to ${p.walRanges.at(-1)?.end_receipt_at ?? ''}`));
    assert.match(text, /^ {2}evidence .* bytes \(\d+(\.\d+)? (KiB|MiB)\)$/m);
  });

  it('says no backup reaches the newest WAL and names the gap the furthest path stops at', async () => {
    const { e, p } = await scanned((repo) => {
      repo.segments(1, 1, 20, minute(1), { missing: [13, 14] });
      repo.backup({ id: '20261121T101000', timeline: 1, beginPosition: 10, endPosition: 11, beginTime: minute(10), endTime: minute(11) });
    });
    const text = scanText(p, textFacts(e, null, archiveCloud));
    const gap = p.walGaps[0];
    assert.ok(gap !== undefined && p.walGaps.length === 1);
    const path = p.recoveryPaths.find((r) => r.backup_id === '20261121T101000');
    assert.ok(path !== undefined && path.stop !== 'frontier');
    assert.equal(line(text, 'restore from'), `  restore from none: no backup's observed recovery coverage reaches the newest WAL of timeline 1; the furthest path, from 20261121T101000, ${path.stop === 'candidate-limited' ? 'stops at an unconfirmed gap' : 'stops at missing WAL'} after ${path.frontier_wal ?? ''}: ${gap.status} gap ${gap.first_wal}..${gap.last_wal} (2 segments missing)`);
    assert.equal(gap.segment_count, 2);
    assert.equal(line(text, 'window'), '');
    // What to do for the scope's reason, in the advice table's words.
    const todo = text.split('\n').filter((l, i, all) => l.startsWith('  to do') || (l.startsWith(' '.repeat(15)) && all.slice(0, i).some((x) => x.startsWith('  to do'))));
    assert.ok(todo.length >= 1);
    assert.ok(todo.some((l) => l.endsWith(`${p.snapshot.reason.code}: ${adviceFor(p.snapshot.reason.code, 'Barman') ?? ''}`)), todo.join('\n'));
  });

  it('says receipt times are copy times when the first object arrived days after the backups ended', async () => {
    const { e, p } = await scanned((repo) => {
      repo.segments(1, 1, 5, minute(1));
      repo.backup({ id: '20261121T100200', timeline: 1, beginPosition: 2, endPosition: 3, beginTime: minute(2), endTime: minute(3) });
    });
    const archived = scanText(p, textFacts(e, null, archiveCloud));
    assert.equal(line(archived, 'receipts'), '');
    const copied = scanText(p, { ...textFacts(e, null, archiveCloud), earliestReceipt: T + 3 * 86_400_000 });
    assert.match(line(copied, 'receipts'), /^ {2}receipts {5}copy times, not archiving times: 1 backup ended up to 2 d 23 h before the first object was received \(2026-11-24T10:00:00Z\)/);
  });
});
