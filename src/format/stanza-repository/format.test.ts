/**
 * The stanza-repository format end to end over synthetic pgBackRest stanzas in an in-memory store
 * (synthetic-repository.ts), through the evidence layer as a scan runs it: the catalog's kinds
 * (listed, interrupted, unlisted, expired), the structural checks (a stored file missing or of the
 * wrong size, a bundle too short, a referenced backup missing), the info files' copies (a bad
 * checksum on the main file, copies that differ), hostile keys, the WAL plan, retention holes,
 * discovery and the retention-policy syntax. Every publication must pass the wire validator.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BudgetMeter } from '../../evidence/listing.ts';
import { scanScope, type ScopeEvidence } from '../../evidence/scope-scan.ts';
import { freshMemory } from '../../evidence/memory.ts';

/** Nothing remembered, for a stanza of this test's repository (the publisher below is of the same scope). */
const fresh = (stanza: string) => freshMemory({ fingerprint: `sha256:${'0'.repeat(64)}`, format: 'stanza-repository', server: stanza });
import { discoverScopes } from '../../evidence/discovery.ts';
import { StoreError } from '../../common/errors.ts';
import { confine } from '../../store/confined.ts';
import type { StoreDriver } from '../../store/driver.ts';
import { CountingScopeAccess } from '../../evidence/scope-access.ts';
import { MemoryStore } from '../../store/memory/memory-driver.ts';
import { geometry } from '../../postgres/wal.ts';
import { stanzaRepository } from './format.ts';
import { SyntheticRepository } from '../barman-cloud/synthetic-repository.ts';
import { parseRetentionPolicy, classifyGaps } from './retention.ts';
import { SyntheticStanza, type SyntheticBackup } from '../../../test/support/synthetic/stanza-repository.ts';
import { DATABASES_CLUSTER, testPublisher } from '../../../test/support/publication-fixture.ts';

const PREFIX = 'repo';
const STANZA = 'main';
const T0 = Date.parse('2026-11-21T13:28:00Z');
const at = (minutes: number) => new Date(T0 + minutes * 60_000);

async function scan(store: MemoryStore, stanza = STANZA): Promise<ScopeEvidence> {
  const { base, roots } = stanzaRepository.scopeRoots(PREFIX, stanza);
  return scanScope({
    format: stanzaRepository,
    server: stanza,
    root: base,
    driver: confine(store, roots),
    signal: new AbortController().signal,
    meter: new BudgetMeter({ maxPages: 1000, maxObjects: 1_000_000 }),
    concurrency: 4,
    previous: fresh(stanza),
  });
}

function publish(e: ScopeEvidence) {
  const p = testPublisher({
    identity: { cluster: DATABASES_CLUSTER, fingerprint: `sha256:${'0'.repeat(64)}`, server: e.server, format: stanzaRepository },
    expectations: { minimumRedundancy: 1 },
    freshnessMs: 900_000,
  }).complete(e, { startedAt: at(60), finishedAt: at(61), pages: 3, objects: e.objectCount });
  assert.deepEqual(p.violations, []);
  return p;
}

const F = '20261121-132800F';
const D = `${F}_20261121-133000D`;
const I = `${F}_20261121-133200I`;
const F2 = '20261121-134000F';

const full: SyntheticBackup = { label: F, type: 'full', timeline: 1, beginPosition: 3, endPosition: 4, beginTime: at(0), endTime: at(1) };
const diff: SyntheticBackup = { label: D, type: 'diff', prior: F, reference: [F], timeline: 1, beginPosition: 6, endPosition: 7, beginTime: at(2), endTime: at(3), bundled: true };
const incr: SyntheticBackup = { label: I, type: 'incr', prior: D, reference: [F, D], timeline: 1, beginPosition: 9, endPosition: 10, beginTime: at(4), endTime: at(5) };

/** A stanza of three backups of one set on timeline 1, WAL 3..12 (one missing when asked). */
function stanza(options: { missing?: readonly number[]; backups?: readonly SyntheticBackup[]; info?: Parameters<SyntheticStanza['info']>[0] } = {}) {
  const store = new MemoryStore();
  const repo = new SyntheticStanza(store, `${PREFIX}/`, STANZA);
  repo.segments(1, 3, 12, at(0), { stepMs: 30_000, missing: options.missing ?? [] });
  for (const b of options.backups ?? [full, diff, incr]) repo.backup(b);
  repo.info(options.info);
  return { store, repo };
}

/** Every key of the store under `prefix`. */
async function keysOf(store: MemoryStore, prefix = ''): Promise<string[]> {
  const out: string[] = [];
  for (let token: string | undefined; ; ) {
    const page = await store.listPage({ prefix, signal: new AbortController().signal, ...(token === undefined ? {} : { continuationToken: token }) });
    out.push(...page.objects.map((o) => o.key));
    if (page.nextToken === null) return out;
    token = page.nextToken;
  }
}

const row = (e: ScopeEvidence, id: string) => {
  const b = e.backups.find((x) => x.item.backup_id === id);
  return [b?.item.status, b?.item.backup_type, b?.item.state, b?.item.reason.code, b?.shelf];
};

describe('the stanza-repository format over a synthetic stanza', () => {
  it('labels a backup with its annotations, as pgbackrest info lists them (pages only, never on the wire)', async () => {
    const long = 'x'.repeat(200);
    const { store } = stanza({ backups: [{ ...full, annotation: { source: 'nightly', 'change-ticket': 'CHG-42' } }, { ...diff, annotation: { note: long } }, incr] });
    const e = await scan(store);
    assert.deepEqual(e.backups.map((b) => b.label), [
      { name: 'change-ticket=CHG-42, source=nightly', keep: null },
      { name: `note=${long}`.slice(0, 127) + '…', keep: null },
      { name: null, keep: null },
    ]);
    for (const b of e.backups) assert.doesNotMatch(JSON.stringify(b.item), /nightly|CHG-42|note=/);
  });

  it('reads a full, a diff and an incr as pgBackRest lists them, with their WAL and chains', async () => {
    const { store } = stanza();
    const e = await scan(store);
    assert.deepEqual(e.backups.map((b) => [b.item.backup_id, b.item.status, b.item.backup_type, b.item.state, b.item.begin_wal, b.item.end_wal, b.item.timeline, b.item.compression, b.chain]), [
      [F, 'DONE', 'full', 'healthy', '000000010000000000000003', '000000010000000000000004', 1, 'zstd', null],
      [D, 'DONE', 'diff', 'healthy', '000000010000000000000006', '000000010000000000000007', 1, 'zstd', 'healthy'],
      [I, 'DONE', 'incr', 'healthy', '000000010000000000000009', '00000001000000000000000A', 1, 'zstd', 'healthy'],
    ]);
    assert.equal(e.geometry?.segmentSize, 16 << 20);
    // The major version pgBackRest records ("15") as its first release's number; no tablespace target in these manifests.
    assert.deepEqual(e.backups.map((b) => [b.item.artifact_count, b.item.encryption, b.item.postgresql_version, b.item.tablespace_count]), [[4, 'none', 150000, 0], [1, 'none', 150000, 0], [3, 'none', 150000, 0]]);
    assert.deepEqual(e.ranges.map((r) => [r.first_wal, r.last_wal]), [['000000010000000000000003', '00000001000000000000000C']]);
    assert.deepEqual(e.walCounts, { segment: 10, partial: 0, history: 0, backup_history: 3, unknown: 0, duplicate: 0 });
    assert.equal(e.tool, 'pgBackRest');
    const p = publish(e);
    const d = p.snapshot.details;
    assert.equal(d.type, 'stanza-repository/v1alpha1');
    if (d.type !== 'stanza-repository/v1alpha1') return;
    assert.deepEqual([d.stanza_repository.backup_types, d.stanza_repository.interrupted_backups, d.stanza_repository.encrypted, d.stanza_repository.dependency_chain.reason.code], [{ full: 1, diff: 1, incr: 1 }, 0, false, 'dependency-chains-complete']);
    assert.equal(p.snapshot.identity.repository.format, 'stanza-repository');
  });

  it('keeps an interrupted backup apart, unknown, and never counts an expired one as a backup', async () => {
    const interrupted: SyntheticBackup = { label: '20261121-134500F', type: 'full', timeline: 1, beginPosition: 11, endPosition: 11, beginTime: at(6), endTime: at(7), manifest: 'copy-only', listed: false };
    const expired: SyntheticBackup = { label: '20261120-010000F', type: 'full', timeline: 1, beginPosition: 1, endPosition: 1, beginTime: at(-600), endTime: at(-599), expired: true, listed: false };
    const { store } = stanza({ backups: [expired, full, diff, incr, interrupted] });
    const e = await scan(store);
    assert.deepEqual(e.backups.map((b) => b.item.backup_id), [F, D, I, interrupted.label]);
    assert.deepEqual(row(e, interrupted.label), ['INTERRUPTED', 'full', 'unknown', 'backup-interrupted', 'in progress or abandoned']);
    const b = e.backups.find((x) => x.item.backup_id === interrupted.label);
    assert.deepEqual([b?.completed, b?.item.timeline, b?.item.begin_wal, b?.item.begin_at], [false, null, null, null]);
    // The expired backup's .backup file is WAL evidence like any other; its history manifest is the catalog's own.
    assert.equal(e.walCounts.backup_history, 4);
    assert.equal(e.unknownObjects, 0);
    const p = publish(e);
    if (p.snapshot.details.type === 'stanza-repository/v1alpha1') assert.equal(p.snapshot.details.stanza_repository.interrupted_backups, 1);
  });

  it('calls a manifest backup.info does not list unlisted, kept apart', async () => {
    const orphan: SyntheticBackup = { label: F2, type: 'full', timeline: 1, beginPosition: 11, endPosition: 12, beginTime: at(6), endTime: at(7), listed: false };
    const { store } = stanza({ backups: [full, diff, incr, orphan] });
    const e = await scan(store);
    assert.deepEqual(row(e, F2), ['UNLISTED', 'full', 'unknown', 'backup-unlisted', 'in progress or abandoned']);
    assert.equal(e.backups.find((x) => x.item.backup_id === F2)?.item.begin_wal, '00000001000000000000000B');
    publish(e);
  });

  it('makes an incr unusable when a backup it references is missing, and the chain capability says so', async () => {
    // The diff is listed in backup.info, the incr references it, and the diff's directory is gone.
    const { store, repo } = stanza();
    for (const k of await keysOf(store, `${repo.backupDir}${D}/`)) store.delete(k);
    const e = await scan(store);
    assert.deepEqual(row(e, D), ['DONE', 'diff', 'unhealthy', 'backup-directory-missing', 'structurally incomplete']);
    assert.deepEqual(row(e, I), ['DONE', 'incr', 'unhealthy', 'dependency-not-usable', 'structurally incomplete']);
    assert.equal(e.backups.find((x) => x.item.backup_id === I)?.chain, 'unhealthy');
    const p = publish(e);
    const cap = p.snapshot.capabilities.find((c) => c.id === 'dependency-chain-validation');
    assert.deepEqual([cap?.support, cap?.state, cap?.reason.code], ['supported', 'unhealthy', 'dependency-chain-broken']);
  });

  it('calls a dependency the catalog does not hold at all missing', async () => {
    const { store } = stanza({ backups: [{ ...incr, reference: [F, D] }, full] });
    const e = await scan(store);
    assert.deepEqual(row(e, I), ['DONE', 'incr', 'unhealthy', 'dependency-missing', 'structurally incomplete']);
    publish(e);
  });

  it('finds a stored file missing, one of the wrong size, a bundle too short, and unexpected objects', async () => {
    const { store, repo } = stanza();
    store.delete(`${repo.backupDir}${F}/pg_data/base/1/1259.zst`);
    store.put(`${repo.backupDir}${I}/pg_data/base/1/1259.zst`, 'x', at(5), 699);
    store.put(`${repo.backupDir}${D}/bundle/1`, 'x', at(3), 10);
    let e = await scan(store);
    assert.deepEqual(row(e, F), ['DONE', 'full', 'unhealthy', 'backup-file-missing', 'structurally incomplete']);
    assert.deepEqual(row(e, D), ['DONE', 'diff', 'unhealthy', 'backup-bundle-too-short', 'structurally incomplete']);
    assert.deepEqual(row(e, I), ['DONE', 'incr', 'unhealthy', 'backup-file-size-mismatch', 'structurally incomplete']);
    // Sizes of validated artifacts only (D-79): a refused structure has none, never a partial sum.
    for (const id of [F, D, I]) {
      const item = e.backups.find((x) => x.item.backup_id === id)?.item;
      assert.deepEqual([item?.stored_artifact_bytes, item?.artifact_count, item?.compression], [null, null, null], id);
    }
    publish(e);

    const clean = stanza().store;
    clean.put(`repo/backup/main/${F}/pg_data/stranger`, 'x', at(1), 5);
    e = await scan(clean);
    assert.deepEqual(row(e, F), ['DONE', 'full', 'warning', 'unrecognized-objects', 'completed']);
  });

  it('reads the copy when the main backup.info has a bad checksum, and reports copies that differ', async () => {
    const good = stanza().repo.backupInfo();
    const bad = good.replace(/backrest-checksum="[0-9a-f]{40}"/, `backrest-checksum="${'0'.repeat(40)}"`);
    let e = await scan(stanza({ info: { backupMain: bad } }).store);
    assert.deepEqual(row(e, F), ['DONE', 'full', 'warning', 'backup-info-from-copy', 'completed']);
    // Both load, and differ: pgBackRest uses the main file; verify reports the mismatch.
    const other = stanza({ backups: [full, diff] }).repo.backupInfo();
    e = await scan(stanza({ info: { backupCopy: other } }).store);
    assert.deepEqual(row(e, I), ['DONE', 'incr', 'warning', 'backup-info-copy-mismatch', 'completed']);
    // Neither loads: whether anything completed is not known.
    e = await scan(stanza({ info: { backupMain: bad, backupCopy: null } }).store);
    assert.deepEqual(row(e, F), [null, 'full', 'unknown', 'backup-catalog-unreadable', 'malformed']);
    assert.equal(e.geometryIssue, 'unknown');
    publish(e);
  });

  it('reports a main manifest that does not load and uses its copy', async () => {
    const { store, repo } = stanza();
    store.put(`${repo.backupDir}${F}/backup.manifest`, 'garbage', at(1));
    const e = await scan(store);
    // The copy stands in (pgBackRest's rule), and the backup carries that as a warning.
    assert.deepEqual(row(e, F), ['DONE', 'full', 'warning', 'backup-manifest-from-copy', 'completed']);
  });

  it('reports a failed early geometry only once the catalog beside it has settled', async () => {
    const { store } = stanza();
    const { base, roots } = stanzaRepository.scopeRoots(PREFIX, STANZA);
    let catalogSettled = false;
    const format = {
      ...stanzaRepository,
      readGeometry: () => Promise.reject(new StoreError('authorization', 'denied')),
      readCatalog: async (...args: Parameters<typeof stanzaRepository.readCatalog>) => {
        await new Promise((resolve) => setTimeout(resolve, 50));
        try {
          return await stanzaRepository.readCatalog(...args);
        } finally {
          catalogSettled = true;
        }
      },
    };
    await assert.rejects(
      scanScope({ format, server: STANZA, root: base, driver: confine(store, roots), signal: new AbortController().signal, meter: new BudgetMeter({ maxPages: 1000, maxObjects: 1_000_000 }), concurrency: 4, previous: fresh(STANZA) }),
      (e: unknown) => (e as { category?: string }).category === 'authorization',
    );
    assert.equal(catalogSettled, true);
  });

  it('parses a manifest as its chunks arrive and stops reading one that is refused', async () => {
    const { store, repo } = stanza();
    // 2 MiB whose first line breaks the grammar: a whole read would fetch all 33 chunks.
    store.put(`${repo.backupDir}${F}/backup.manifest`, Buffer.concat([Buffer.from('no section header\n'), Buffer.alloc(2 << 20, 'x')]), at(1));
    const { base, roots } = stanzaRepository.scopeRoots(PREFIX, STANZA);
    const inner = confine(store, roots);
    const pulled = new Map<string, number>();
    const driver: StoreDriver = {
      listPage: (r) => inner.listPage(r),
      read: (r) => inner.read(r),
      readStream: async (r) => {
        const opened = await inner.readStream(r);
        if (opened.status !== 'found') return opened;
        const counted = `${r.key.includes(`${F}/`) ? 'F' : 'other'}/${r.key.slice(r.key.lastIndexOf('/') + 1)}`;
        return {
          ...opened,
          chunks: (async function* () {
            for await (const chunk of opened.chunks) {
              pulled.set(counted, (pulled.get(counted) ?? 0) + 1);
              yield chunk;
            }
          })(),
        };
      },
      close: () => inner.close(),
    };
    const e = await scanScope({ format: stanzaRepository, server: STANZA, root: base, driver, signal: new AbortController().signal, meter: new BudgetMeter({ maxPages: 1000, maxObjects: 1_000_000 }), concurrency: 4, previous: fresh(STANZA) });
    assert.equal(pulled.get('F/backup.manifest'), 1);
    // The copy stands in and was read whole, chunk by chunk.
    assert.ok((pulled.get('F/backup.manifest.copy') ?? 0) >= 1);
    assert.deepEqual(row(e, F), ['DONE', 'full', 'warning', 'backup-manifest-from-copy', 'completed']);
  });

  it('lets the manifest reads in flight settle before a failed listing of the backup area is reported', async () => {
    const { store } = stanza();
    const { base, roots } = stanzaRepository.scopeRoots(PREFIX, STANZA);
    const inner = confine(store, roots);
    let pages = 0;
    let reading = 0;
    const driver: StoreDriver = {
      // The backup area in pages of 5 keys; its third page fails.
      listPage: async (r) => {
        if (!r.prefix.endsWith('/backup/main/') || r.delimiter !== undefined) return inner.listPage(r);
        pages += 1;
        if (pages === 3) throw new StoreError('unavailable', 'the store connection failed');
        return inner.listPage({ ...r, maxKeys: 5 });
      },
      read: (r) => inner.read(r),
      readStream: async (r) => {
        reading += 1;
        try {
          await new Promise((resolve) => setTimeout(resolve, 50));
          return await inner.readStream(r);
        } finally {
          reading -= 1;
        }
      },
      close: () => inner.close(),
    };
    await assert.rejects(
      scanScope({ format: stanzaRepository, server: STANZA, root: base, driver, signal: new AbortController().signal, meter: new BudgetMeter({ maxPages: 1000, maxObjects: 1_000_000 }), concurrency: 4, previous: fresh(STANZA) }),
      (e: unknown) => (e as { category?: string }).category === 'unavailable',
    );
    assert.equal(pages, 3);
    assert.equal(reading, 0);
  });

  it('shows an encrypted stanza by names and sizes only', async () => {
    const { store, repo } = stanza();
    const salted = Buffer.concat([Buffer.from('Salted__'), Buffer.alloc(40, 7)]);
    for (const k of await keysOf(store)) if (/(backup|archive)\.info(\.copy)?$|backup\.manifest(\.copy)?$/.test(k)) store.put(k, salted, at(1));
    const e = await scan(store);
    assert.deepEqual(e.backups.map((b) => [b.item.backup_id, b.item.status, b.item.backup_type, b.item.state, b.item.reason.code, b.item.encryption, b.shelf]), [
      [F, null, 'full', 'unknown', 'backup-metadata-encrypted', 'aes-256-cbc', 'unsupported'],
      [D, null, 'diff', 'unknown', 'backup-metadata-encrypted', 'aes-256-cbc', 'unsupported'],
      [I, null, 'incr', 'unknown', 'backup-metadata-encrypted', 'aes-256-cbc', 'unsupported'],
    ]);
    assert.equal(e.geometryIssue, 'unknown');
    assert.equal(e.walCounts.segment, 10);
    assert.ok(e.objectCount > 20);
    void repo;
    const p = publish(e);
    assert.equal(p.snapshot.details.type, 'stanza-repository/v1alpha1');
    if (p.snapshot.details.type === 'stanza-repository/v1alpha1') {
      assert.equal(p.snapshot.details.stanza_repository.encrypted, true);
      // Whether these backups are listed is behind the cipher: their counts by type are unknown, never 0.
      assert.deepEqual([p.snapshot.details.stanza_repository.backup_types, p.snapshot.details.stanza_repository.interrupted_backups], [null, null]);
    }
    const capability = p.snapshot.capabilities.find((c) => c.id === 'encrypted-metadata');
    assert.deepEqual([capability?.support, capability?.state, capability?.reason.code], ['supported', 'unknown', 'metadata-encrypted']);
  });

  it('calls an encrypted history file unread: the ancestry is unknown, never unhealthy', async () => {
    const { store, repo } = stanza();
    repo.history(2, [{ parent: 1, switchpoint: repo.switchpoint(12) }], at(8));
    repo.segments(2, 12, 14, at(9));
    for (const k of await keysOf(store)) if (k.endsWith('.history')) store.put(k, Buffer.concat([Buffer.from('Salted__'), Buffer.alloc(40, 7)]), at(8));
    const e = await scan(store);
    assert.equal(e.histories.get(2)?.status, 'unread');
    const p = publish(e);
    const timeline = p.snapshot.capabilities.find((c) => c.id === 'timeline-history-traversal');
    assert.deepEqual([timeline?.state, timeline?.reason.code], ['unknown', 'timeline-history-unread']);
  });

  it('judges readable metadata healthy for the encrypted-metadata capability', async () => {
    const { store } = stanza();
    const p = publish(await scan(store));
    const capability = p.snapshot.capabilities.find((c) => c.id === 'encrypted-metadata');
    assert.deepEqual([capability?.support, capability?.state, capability?.reason.code], ['supported', 'healthy', 'metadata-readable']);
  });

  it('counts hostile keys as unknown, never as backups or WAL', async () => {
    const { store } = stanza();
    for (const k of ['repo/backup/main/..%2f/x', 'repo/backup/main/20261121-132800X/backup.manifest', 'repo/backup/main/backup.history/2027/20261121-132800F.manifest.gz', 'repo/archive/main/15-1/0000000100000000/000000010000000000000005-NOTASHA.zst', 'repo/archive/main/15-1/0000000200000000/000000010000000000000005-' + 'a'.repeat(40), 'repo/archive/main/stray', 'repo/archive/main/15-1/00000001.history\u0007']) store.put(k, 'x', at(2), 1);
    const e = await scan(store);
    assert.deepEqual(e.backups.map((b) => b.item.backup_id), [F, D, I]);
    assert.equal(e.unknownObjects, 3 + 4);
    assert.equal(e.walCounts.unknown, 4);
    publish(e);
  });

  it('examines many directories a few at a time while the listing goes on', async () => {
    const many: SyntheticBackup[] = Array.from({ length: 40 }, (_, i) => ({ ...full, label: `20261121-13${String(10 + i).padStart(2, '0')}00F` }));
    const { store } = stanza({ backups: many });
    const e = await scan(store);
    assert.deepEqual([e.backups.length, new Set(e.backups.map((b) => b.item.state))], [40, new Set(['healthy'])]);
    assert.equal(store.requests.filter((r) => r.op === 'read' && r.prefix.endsWith('backup.manifest')).length, 40);
  });

  it('judges a backup whose manifest exceeds the ceiling unknown, with a typed reason', async () => {
    const { store, repo } = stanza();
    store.put(`${repo.backupDir}${F}/backup.manifest`, 'x', at(1), 64 * 1024 * 1024 + 1);
    const e = await scan(store);
    assert.deepEqual(row(e, F), ['DONE', 'full', 'unknown', 'backup-manifest-too-large', 'unsupported']);
    // Its diff and incr depend on it: not proven usable either.
    assert.deepEqual(row(e, D), ['DONE', 'diff', 'unknown', 'dependency-not-usable', 'structurally incomplete']);
    publish(e);
  });

  it('reads only the current database generation as WAL; an earlier archive id is counted, not read', async () => {
    const { store, repo } = stanza();
    // A stanza-upgrade's earlier cluster: its own archive id with WAL at colliding positions.
    for (let p = 1; p <= 20; p++) store.put(repo.segmentKey(1, p).replace('/15-1/', '/14-0/'), 'wal', at(-100), 4096);
    store.put(`${repo.archive}14-0/00000002.history`, '1\t0/5000090\tearlier\n', at(-100));
    const e = await scan(store);
    assert.deepEqual(e.ranges.map((r) => [r.first_wal, r.last_wal]), [['000000010000000000000003', '00000001000000000000000C']]);
    assert.deepEqual([e.walCounts.segment, e.walCounts.history, e.walCounts.unknown, e.unknownObjects], [10, 0, 0, 0]);
    const plain = await scan(stanza().store);
    assert.deepEqual([e.objectCount - plain.objectCount, e.storedBytes - plain.storedBytes], [21, 20 * 4096 + 20]);
  });

  it('judges listed segment sizes once the segment size is known: an uncompressed one must be whole', async () => {
    const { store, repo } = stanza();
    repo.segment(1, 13, at(9), '', 1234);
    repo.segment(1, 14, at(9.5), '');
    repo.segment(1, 15, at(10), '.gz', 5);
    const e = await scan(store);
    assert.equal(e.geometry?.segmentSize, 16 << 20);
    assert.deepEqual([e.walCounts.segment, e.implausibleSegments], [11, 2]);
    assert.deepEqual(e.gaps.map((g) => [g.first_wal, g.last_wal]), [['00000001000000000000000D', '00000001000000000000000D']]);
  });

  it('reports a deleted segment as a gap, and a hole between backups shaped by archive retention as expected', async () => {
    let e = await scan(stanza({ missing: [8] }).store);
    assert.deepEqual(e.gaps.map((g) => [g.first_wal, g.last_wal]), [['000000010000000000000008', '000000010000000000000008']]);
    assert.deepEqual(e.gapClasses, ['unexplained']);
    // repo-retention-archive-type=diff: only the full's own WAL 3..4 is kept below the diff's start.
    e = await scan(stanza({ missing: [5] }).store);
    assert.deepEqual(e.gapClasses, ['retention-expected']);
    publish(e);
  });

  it('declares the geometry early exactly as its catalog settles it, whatever backup.info holds', async () => {
    const good = stanza().repo.backupInfo();
    const cases = [
      stanza(),
      stanza({ info: { backupMain: null, backupCopy: null } }),
      stanza({ info: { backupMain: good.replace(/backrest-checksum="[0-9a-f]{40}"/, `backrest-checksum="${'0'.repeat(40)}"`), backupCopy: null } }),
      stanza({ backups: [] }),
    ];
    const seen: unknown[] = [];
    for (const { store } of cases) {
      const { base, roots } = stanzaRepository.scopeRoots(PREFIX, STANZA);
      const access = new CountingScopeAccess({ driver: confine(store, roots), base, signal: new AbortController().signal, meter: new BudgetMeter({ maxPages: 100, maxObjects: 10_000 }), concurrency: 2 });
      const early = await stanzaRepository.readGeometry?.(access, STANZA);
      const catalog = await stanzaRepository.readCatalog(access, 100, STANZA);
      assert.deepEqual(early, { geometry: catalog.geometry, geometryIssue: catalog.geometryIssue });
      seen.push(early?.geometry?.segmentSize ?? early?.geometryIssue);
    }
    assert.deepEqual(seen, [16 << 20, 'unknown', 'unknown', 'unknown']);
  });

  it('lists the WAL while the manifests are still being read', async () => {
    const { store } = stanza();
    const { roots } = stanzaRepository.scopeRoots(PREFIX, STANZA);
    const inner = confine(store, roots);
    const events: string[] = [];
    let walListed: () => void = () => undefined;
    const walStarted = new Promise<void>((resolve) => (walListed = resolve));
    // Manifest reads wait for the WAL listing (or 2 s): a scan that lists WAL only after its
    // catalog would read every manifest late and record that order.
    const driver: StoreDriver = {
      listPage: (r) => {
        if (r.delimiter === undefined && r.prefix.endsWith('/archive/main/15-1/')) {
          events.push('wal');
          walListed();
        }
        return inner.listPage(r);
      },
      read: (r) => inner.read(r),
      readStream: async (r) => {
        if (r.key.endsWith('/backup.manifest')) {
          await Promise.race([walStarted, new Promise((resolve) => setTimeout(resolve, 2_000))]);
          events.push('manifest');
        }
        return inner.readStream(r);
      },
      close: () => inner.close(),
    };
    const { base } = stanzaRepository.scopeRoots(PREFIX, STANZA);
    const e = await scanScope({ format: stanzaRepository, server: STANZA, root: base, driver, signal: new AbortController().signal, meter: new BudgetMeter({ maxPages: 1000, maxObjects: 1_000_000 }), concurrency: 4, previous: fresh(STANZA) });
    assert.equal(events[0], 'wal');
    assert.equal(events.filter((x) => x === 'manifest').length, 3);
    assert.deepEqual(e.backups.map((b) => b.item.state), ['healthy', 'healthy', 'healthy']);
  });

  it('follows a timeline switch through its history file, one level above the segments', async () => {
    const { store, repo } = stanza();
    repo.history(2, [{ parent: 1, switchpoint: repo.switchpoint(12) }], at(8));
    repo.segments(2, 12, 14, at(9));
    const e = await scan(store);
    assert.equal(e.histories.get(2)?.status, 'valid');
    assert.deepEqual(e.ranges.map((r) => [r.timeline, r.first_wal, r.last_wal]), [[1, '000000010000000000000003', '00000001000000000000000C'], [2, '00000002000000000000000C', '00000002000000000000000E']]);
    assert.ok(e.paths.some((p) => p.backup_id === F && p.target_timeline === 2 && p.stop === 'frontier'));
    publish(e);
  });
});

describe('stanza discovery', () => {
  it('lists the stanzas under backup/ and archive/ and counts what belongs to none', async () => {
    const store = new MemoryStore();
    new SyntheticStanza(store, 'repo/', 'main').info();
    new SyntheticStanza(store, 'repo/', 'other').info();
    store.put('repo/archive/only-archive/archive.info', 'x');
    store.put('repo/README', 'x');
    store.put('repo/backup/stray', 'x');
    store.put('repo/elsewhere/a', 'x');
    store.put('repo/backup/bad name/x', 'x');
    const d = await discoverScopes(stanzaRepository, store, 'repo', new AbortController().signal, new BudgetMeter({ maxPages: 100, maxObjects: 1000 }));
    assert.deepEqual(d, { servers: ['main', 'only-archive', 'other'], unscopedObjects: 4, foreignFormat: null });
  });

  it('names the Barman cloud repository it finds instead of a stanza, by that format\'s own layout (the registry)', async () => {
    const meter = () => new BudgetMeter({ maxPages: 100, maxObjects: 1000 });
    const barman = new MemoryStore();
    new SyntheticRepository(barman, 'pg/srv/').segments(1, 1, 3, new Date('2026-11-20T00:00:00Z'));
    const d = await discoverScopes(stanzaRepository, barman, 'pg', new AbortController().signal, meter());
    assert.deepEqual([d.servers, d.foreignFormat], [[], 'archive-cloud']);
    // Folders without base/ or wals/ are no Barman servers: nothing is named.
    const plain = new MemoryStore();
    plain.put('pg/srv/notes/a', 'x');
    assert.equal((await discoverScopes(stanzaRepository, plain, 'pg', new AbortController().signal, meter())).foreignFormat, null);
  });
});

describe('pgBackRest retention', () => {
  it('recognises only time-based full retention, as a recovery window in days', () => {
    assert.deepEqual(parseRetentionPolicy('repo1-retention-full-type=time repo1-retention-full=14'), { kind: 'recovery-window', amount: 14, unit: 'days' });
    assert.deepEqual(parseRetentionPolicy('retention-full=7, retention-full-type=time'), { kind: 'recovery-window', amount: 7, unit: 'days' });
    for (const t of ['repo1-retention-full=2', 'retention-full-type=count retention-full=2', 'REDUNDANCY 2', 'retention-full-type=time retention-full=0', 'retention-full-type=time retention-full=3 retention-full=4', '']) assert.equal(parseRetentionPolicy(t), null, t);
  });

  it('explains only holes between a backup\'s end and a later backup\'s begin with islands below', () => {
    const g = geometry(16 << 20);
    const placed = (begin: number, end: number) => ({ completed: true, standalone: false, timeline: 1, beginPosition: begin, endPosition: end, beginAt: '2026-11-21T00:00:00Z' });
    const backups = [placed(3, 4), placed(9, 10)];
    const runs = [{ start: 3, end: 4 }, { start: 9, end: 12 }];
    assert.deepEqual(classifyGaps([{ timeline: 1, start: 5, end: 8 }], backups, g, () => runs), ['retention-expected']);
    // WAL survived below the hole outside every backup: not the shape expire leaves.
    assert.deepEqual(classifyGaps([{ timeline: 1, start: 6, end: 8 }], backups, g, () => [{ start: 3, end: 5 }, { start: 9, end: 12 }]), ['unexplained']);
    assert.deepEqual(classifyGaps([{ timeline: 1, start: 5, end: 7 }], backups, g, () => [{ start: 3, end: 4 }, { start: 8, end: 12 }]), ['unexplained']);
    assert.deepEqual(classifyGaps([{ timeline: 1, start: 5, end: 8 }], backups, null, () => runs), ['unexplained']);
  });
});
