/**
 * What a large pgBackRest manifest costs through the format's real read path: one stanza in a
 * MemoryStore (test/support/synthetic/stanza-repository.ts) with one bundled full backup
 * of a database of <tables> tables — six files per table (heap, free-space map, visibility map, a
 * primary-key index, a TOAST table and its index) plus 1,003 catalog files, the shape
 * docs/design/stanza-repository.md measured with the parser alone — and a few WAL segments, scanned
 * by scanScope with the stanza-repository format (the catalog streams the manifest, at most 64 MiB,
 * and parses it incrementally). Prints one JSON line: manifest bytes, scan time, peak RSS, the
 * backup's verdict. Run with --expose-gc; compare 0 tables with 10,000.
 *
 * Usage: node --expose-gc bench/stanza-manifest.ts <tables>
 */
import { MemoryStore } from '../src/store/memory/memory-driver.ts';
import { SyntheticStanza, type SyntheticFile } from '../test/support/synthetic/stanza-repository.ts';
import { stanzaRepository } from '../src/format/stanza-repository/format.ts';
import { PRODUCER_VERSION, standaloneCluster } from '../src/cli/identity.ts';
import { BudgetMeter } from '../src/evidence/listing.ts';
import { scanScope } from '../src/evidence/scope-scan.ts';
import { Publisher } from '../src/publication/publisher.ts';

const tables = Number(process.argv[2]);
if (!Number.isInteger(tables) || tables < 0) {
  process.stderr.write('usage: stanza-manifest.ts <tables>\n');
  process.exit(64);
}
const files: SyntheticFile[] = [];
for (let i = 0; i < 1_000; i++) files.push({ name: `pg_data/base/1/${1000 + i}`, size: 8192, repoSize: 400 });
files.push({ name: 'pg_data/PG_VERSION', size: 3, repoSize: 23 }, { name: 'pg_data/backup_label', size: 240, repoSize: 180 }, { name: 'pg_data/global/pg_control', size: 8192, repoSize: 400 });
for (let t = 0; t < tables; t++) {
  const oid = 16384 + t * 4;
  for (const [name, size] of [[`${oid}`, 81920], [`${oid}_fsm`, 24576], [`${oid}_vm`, 8192], [`${oid + 1}`, 16384], [`${oid + 2}`, 0], [`${oid + 3}`, 8192]] as const) {
    files.push({ name: `pg_data/base/5/${name}`, size, repoSize: size === 0 ? 0 : Math.ceil(size / 8) });
  }
}
const store = new MemoryStore();
const stanza = new SyntheticStanza(store, 'repo/', 'main');
const begin = 0x10 * 256 + 0x40;
const at = new Date('2026-11-20T00:00:00Z');
stanza.segments(1, begin - 4, begin + 8, new Date(at.getTime() - 4 * 60_000));
stanza.backup({ label: '20261120-000000F', type: 'full', timeline: 1, beginPosition: begin, endPosition: begin + 1, beginTime: at, endTime: new Date(at.getTime() + 90_000), bundled: true, files });
stanza.info();
const manifestBytes = Buffer.byteLength(stanza.manifest({ label: '20261120-000000F', type: 'full', timeline: 1, beginPosition: begin, endPosition: begin + 1, beginTime: at, endTime: new Date(at.getTime() + 90_000), bundled: true, files }));

(globalThis as { gc?: () => void }).gc?.();
const rssBefore = process.memoryUsage().rss;
const publisher = new Publisher({ cluster: standaloneCluster, provider: 'store-a', fingerprint: `sha256:${'f'.repeat(64)}`, server: 'main', producerVersion: PRODUCER_VERSION, format: stanzaRepository }, { policyText: null, policy: null, minimumRedundancy: null }, 15 * 60_000);
const meter = new BudgetMeter({ maxPages: 1e9, maxObjects: 1e12 });
const t0 = process.hrtime.bigint();
const evidence = await scanScope({ format: stanzaRepository, server: 'main', root: 'repo/', driver: store, signal: new AbortController().signal, meter, concurrency: 8, ...publisher.nextScan });
const ms = Number(process.hrtime.bigint() - t0) / 1e6;
const backup = evidence.backups[0];
process.stdout.write(`${JSON.stringify({ tables, files: files.length, manifest_bytes: manifestBytes, scan_ms: ms, rss_before_scan_bytes: rssBefore, peak_rss_bytes: process.resourceUsage().maxRSS * 1024, backups: evidence.backups.length, usable: backup?.usable ?? null })}\n`);
