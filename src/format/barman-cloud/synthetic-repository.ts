/**
 * Writes synthetic barman-cloud repositories into a store, key for key and file for file as
 * Barman 3.x lays them out (backup.info in Barman's field-list syntax, hash directories, history
 * files). Runtime code: the embedded demo (demo-repository.ts, what `npm start` serves without a
 * destination) is written with it, so it ships; the benchmark's in-process source and many tests use
 * it too. The real-repository tests use real Barman instead. pgBackRest's synthetic stanza is
 * test-only and lives in test/support/synthetic/.
 */
import { gzipSync } from 'node:zlib';
import type { MemoryStore } from '../../store/memory/memory-driver.ts';
import { formatLsn, geometry, walName, type WalGeometry } from '../../postgres/wal.ts';
import type { ArchiveCompression, WalCompression } from './classify.ts';
import { minimumArchiveBytes, minimumSegmentBytes } from './size-floors.ts';

const WAL_SUFFIXES: Record<string, WalCompression> = { '.gz': 'gzip', '.bz2': 'bzip2', '.xz': 'xz', '.snappy': 'snappy', '.zst': 'zstd', '.lz4': 'lz4' };
const ARCHIVE_SUFFIXES: Record<string, ArchiveCompression> = { '': 'none', '.gz': 'gzip', '.bz2': 'bzip2', '.snappy': 'snappy', '.lz4': 'lz4', '.zst': 'zstd' };
/** The listed size of a synthetic archive: Python's tarfile pads every archive to 10 KiB records. */
const SYNTHETIC_TAR_BYTES = 20 * 1024;

export interface SyntheticBackup {
  readonly id: string;
  readonly timeline: number;
  readonly beginPosition: number;
  readonly endPosition: number;
  readonly status?: 'DONE' | 'FAILED';
  /** Archive suffix after `.tar` (`''`, `.gz`, `.bz2`). */
  readonly archiveSuffix?: string;
  /** Omit backup.info (an in-progress or abandoned backup). */
  readonly withoutInfo?: boolean;
  readonly keep?: 'full' | 'standalone';
  readonly tablespaces?: readonly number[];
  readonly beginTime: Date;
  readonly endTime: Date;
  readonly systemId?: string;
  readonly version?: number;
  /** `backup_name`, written as Barman writes it (`str()`, the line only when named: `barman-cloud-backup -n`). */
  readonly name?: string;
}

const two = (n: number) => String(n).padStart(2, '0');
/** Python `str(datetime)` of an aware UTC datetime, as Barman writes it. */
function pythonTime(d: Date): string {
  const micro = String(d.getUTCMilliseconds() * 1000).padStart(6, '0');
  return `${d.getUTCFullYear()}-${two(d.getUTCMonth() + 1)}-${two(d.getUTCDate())} ${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())}.${micro}+00:00`;
}

export class SyntheticRepository {
  readonly root: string;
  readonly geometry: WalGeometry;
  readonly #store: MemoryStore;

  constructor(store: MemoryStore, root: string, segmentSize = 16 << 20, version: number | null = 150018) {
    this.#store = store;
    this.root = root;
    this.geometry = geometry(segmentSize, version);
  }

  /**
   * One segment object. Without `bytes` it is sparse and listed at the size a real one has (the
   * segment size, or its compression's floor: `size-floors.ts`); with `bytes` it is exactly them.
   */
  segment(timeline: number, position: number, received: Date, suffix = '', bytes?: Uint8Array | string): string {
    const name = walName(timeline, position, this.geometry);
    const key = `${this.root}wals/${name.slice(0, 16)}/${name}${suffix}`;
    if (bytes !== undefined) this.#store.put(key, bytes, received);
    else this.#store.put(key, 'wal', received, minimumSegmentBytes(WAL_SUFFIXES[suffix] ?? null, this.geometry.segmentSize));
    return key;
  }

  /** Segments `from`..`to` inclusive, received one `stepMs` apart from `start`, skipping `missing`. */
  segments(timeline: number, from: number, to: number, start: Date, options: { stepMs?: number; suffix?: string; missing?: readonly number[] } = {}): Date {
    let t = start.getTime();
    for (let p = from; p <= to; p++) {
      if (options.missing?.includes(p) !== true) this.segment(timeline, p, new Date(t), options.suffix ?? '');
      t += options.stepMs ?? 60_000;
    }
    return new Date(t);
  }

  partial(timeline: number, position: number, received: Date): void {
    const name = walName(timeline, position, this.geometry);
    this.#store.put(`${this.root}wals/${name.slice(0, 16)}/${name}.partial`, 'partial', received);
  }

  /** A history file for `timeline`, gzip-compressed when `gzip` is set. */
  history(timeline: number, entries: readonly { parent: number; switchpoint: bigint; reason?: string }[], received: Date, gzip = false): void {
    const text = entries.map((e) => `${e.parent}\t${formatLsn(e.switchpoint)}\t${e.reason ?? 'no recovery target specified'}\n`).join('\n');
    const name = `${timeline.toString(16).toUpperCase().padStart(8, '0')}.history`;
    this.#store.put(`${this.root}wals/${name}${gzip ? '.gz' : ''}`, gzip ? gzipSync(text) : text, received);
  }

  /** The switchpoint LSN inside `position` (like PostgreSQL's, 0x90 into the segment). */
  switchpoint(position: number): bigint {
    return BigInt(position) * BigInt(this.geometry.segmentSize) + 0x90n;
  }

  backupInfo(b: SyntheticBackup): string {
    const g = this.geometry;
    const failed = b.status === 'FAILED';
    const beginLsn = BigInt(b.beginPosition) * BigInt(g.segmentSize) + 0x28n;
    const endLsn = BigInt(b.endPosition) * BigInt(g.segmentSize) + 0x100n;
    const tablespaces = b.tablespaces === undefined || b.tablespaces.length === 0 ? 'None' : `[${b.tablespaces.map((oid) => `('tbs${oid}', ${oid}, '/var/lib/tbs${oid}')`).join(', ')}]`;
    const fields: Record<string, string> = {
      backup_label: `'START WAL LOCATION: ${formatLsn(beginLsn)} (file ${walName(b.timeline, b.beginPosition, g)})\\nSTART TIMELINE: ${b.timeline}\\n'`,
      begin_offset: '40',
      begin_time: pythonTime(b.beginTime),
      begin_wal: walName(b.timeline, b.beginPosition, g),
      begin_xlog: formatLsn(beginLsn),
      compression: 'None',
      copy_stats: "{'total_time': 2.5, 'copy_time': 2.0}",
      deduplicated_size: 'None',
      end_offset: failed ? 'None' : '256',
      end_time: failed ? 'None' : pythonTime(b.endTime),
      end_wal: failed ? 'None' : walName(b.timeline, b.endPosition, g),
      end_xlog: failed ? 'None' : formatLsn(endLsn),
      error: failed ? 'failure uploading data (connection reset)' : 'None',
      mode: 'None',
      server_name: 'cloud',
      size: 'None',
      status: b.status ?? 'DONE',
      systemid: b.systemId ?? '7710616049254876324',
      tablespaces,
      timeline: String(b.timeline),
      version: String(b.version ?? 150018),
      xlog_segment_size: String(g.segmentSize),
      ...(b.name === undefined ? {} : { backup_name: b.name }),
    };
    return Object.keys(fields).sort().map((k) => `${k}=${fields[k]}\n`).join('');
  }

  backup(b: SyntheticBackup): void {
    const dir = `${this.root}base/${b.id}/`;
    const suffix = b.archiveSuffix ?? '';
    const archiveBytes = Math.max(SYNTHETIC_TAR_BYTES, minimumArchiveBytes(ARCHIVE_SUFFIXES[suffix] ?? 'none'));
    this.#store.put(`${dir}data.tar${suffix}`, 'tar data', b.endTime, archiveBytes);
    for (const oid of b.tablespaces ?? []) this.#store.put(`${dir}${oid}.tar${suffix}`, 'tar tablespace', b.endTime, archiveBytes);
    if (b.withoutInfo !== true) this.#store.put(`${dir}backup.info`, this.backupInfo(b), b.endTime);
    if (b.keep !== undefined) this.#store.put(`${dir}annotations/keep`, b.keep, b.endTime);
  }
}
