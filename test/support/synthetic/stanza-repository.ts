/**
 * Writes a synthetic pgBackRest stanza into a store, key for key and file for file as pgBackRest
 * 2.45 lays one out (research pgbackrest-format.md §1–§5): backup.info and archive.info with their
 * copies and valid checksums, each backup's directory with its manifest (and copy), its separate
 * files or bundles, its history manifest and its `.backup` file, WAL segments named
 * `<24 hex>-<sha1>[.<ext>]` under their 16-hex directories, timeline history files one level up.
 * For the unit tests of src/format/stanza-repository/ (hostile and broken variants included), the
 * pages' tests and the benchmark's stanza corpus; the real-repository tests use pgBackRest itself.
 * Test-only: nothing under src/ outside tests imports it.
 */
import { createHash } from 'node:crypto';
import { formatLsn, geometry, walName, type WalGeometry } from '../../../src/postgres/wal.ts';
import type { MemoryStore } from '../../../src/store/memory/memory-driver.ts';
import { renderJsonString } from '../../../src/format/stanza-repository/info-file.ts';
import { archiveArea, backupArea } from '../../../src/format/stanza-repository/layout.ts';

/** One section of an info file: its name and its `key=value` lines, values as raw JSON text. */
export type InfoSection = readonly [name: string, lines: readonly (readonly [key: string, value: string])[]];

/** An info file's text with its closing checksum: SHA-1 over every value in file order (research §2). */
export function renderInfo(sections: readonly InfoSection[]): string {
  const all: InfoSection[] = [['backrest', [['backrest-format', '5'], ['backrest-version', '"2.45"']]], ...sections];
  let canonical = '{';
  let first = true;
  for (const [name, lines] of all) {
    if (lines.length === 0) continue;
    canonical += `${first ? '' : '},'}${renderJsonString(name)}:{`;
    canonical += lines.map(([k, v]) => `${renderJsonString(k)}:${v}`).join(',');
    first = false;
  }
  canonical += '}}';
  const checksum = createHash('sha1').update(Buffer.from(canonical, 'latin1')).digest('hex');
  const text = all.map(([name, lines]) => `[${name}]\n${lines.map(([k, v]) => `${k}=${v}\n`).join('')}`).join('\n');
  return `${text}\n[backrest]\nbackrest-checksum="${checksum}"\n`;
}

const json = (v: unknown): string => JSON.stringify(v);
const sha1 = (s: string): string => createHash('sha1').update(s).digest('hex');
const seconds = (d: Date): number => Math.floor(d.getTime() / 1000);

export type SyntheticCompress = 'none' | 'gz' | 'zst';

/** One file of a backup's manifest. */
export interface SyntheticFile {
  /** `pg_data/...`. */
  readonly name: string;
  readonly size: number;
  /** Bytes stored (after compression); the size when absent. */
  readonly repoSize?: number;
  /** The earlier backup of the set that stores it. */
  readonly reference?: string;
}

export interface SyntheticBackup {
  readonly label: string;
  readonly type: 'full' | 'diff' | 'incr';
  readonly prior?: string;
  /** backup.info's `backup-reference` (every earlier backup whose files it uses). */
  readonly reference?: readonly string[];
  readonly timeline: number;
  readonly beginPosition: number;
  readonly endPosition: number;
  readonly beginTime: Date;
  readonly endTime: Date;
  readonly compress?: SyntheticCompress;
  /** Store the files with content in `bundle/1` (repo-bundle). */
  readonly bundled?: boolean;
  /** The manifest's files; a few small ones when absent (an earlier backup's referenced when it is a diff or incr). */
  readonly files?: readonly SyntheticFile[];
  /** Listed in backup.info (default true). */
  readonly listed?: boolean;
  /** `final`: backup.manifest and its copy (default); `copy-only`: the early copy of an interrupted backup; `none`. */
  readonly manifest?: 'final' | 'copy-only' | 'none';
  /** backup.info's `backup-annotation` (`pgbackrest backup --annotation key=value`). */
  readonly annotation?: Readonly<Record<string, string>>;
  /** The directory is gone (an expired backup): only its history manifest and `.backup` file remain. */
  readonly expired?: boolean;
  /** backup.info's `backup-error` (page checksum errors). */
  readonly error?: boolean;
}

const EXTENSION: Record<SyntheticCompress, string> = { none: '', gz: '.gz', zst: '.zst' };

export class SyntheticStanza {
  readonly geometry: WalGeometry;
  readonly systemId: string;
  readonly archiveId: string;
  readonly #store: MemoryStore;
  /** `<root>archive/<stanza>/`, `<root>backup/<stanza>/`. */
  readonly archive: string;
  readonly backupDir: string;
  readonly #entries: [string, string][] = [];

  constructor(store: MemoryStore, root: string, stanza: string, options: { segmentSize?: number; systemId?: string; version?: string } = {}) {
    this.#store = store;
    this.geometry = geometry(options.segmentSize ?? 16 << 20);
    this.systemId = options.systemId ?? '7711532080153385332';
    this.archiveId = `${options.version ?? '15'}-1`;
    this.archive = `${root}${archiveArea(stanza)}`;
    this.backupDir = `${root}${backupArea(stanza)}`;
  }

  /** The key of a segment object (`<sha1>` from the name, so the same segment has the same key). */
  segmentKey(timeline: number, position: number, ext = '.zst'): string {
    const name = walName(timeline, position, this.geometry);
    return `${this.archive}${this.archiveId}/${name.slice(0, 16)}/${name}-${sha1(name)}${ext}`;
  }

  /** One segment: compressed at a plausible size, or uncompressed at exactly the segment size. */
  segment(timeline: number, position: number, received: Date, ext = '.zst', size?: number): string {
    const key = this.segmentKey(timeline, position, ext);
    this.#store.put(key, 'wal', received, size ?? (ext === '' ? this.geometry.segmentSize : 4096));
    return key;
  }

  /** Segments `from`..`to`, received one `stepMs` apart from `start`, skipping `missing`. */
  segments(timeline: number, from: number, to: number, start: Date, options: { stepMs?: number; ext?: string; missing?: readonly number[] } = {}): Date {
    let t = start.getTime();
    for (let p = from; p <= to; p++) {
      if (options.missing?.includes(p) !== true) this.segment(timeline, p, new Date(t), options.ext ?? '.zst');
      t += options.stepMs ?? 60_000;
    }
    return new Date(t);
  }

  /** A timeline history file, one level above the segment directories, stored as PostgreSQL wrote it. */
  history(timeline: number, entries: readonly { parent: number; switchpoint: bigint }[], received: Date): void {
    const text = entries.map((e) => `${e.parent}\t${formatLsn(e.switchpoint)}\tno recovery target specified\n`).join('\n');
    this.#store.put(`${this.archive}${this.archiveId}/${timeline.toString(16).toUpperCase().padStart(8, '0')}.history`, text, received);
  }

  /** The switchpoint LSN inside `position`. */
  switchpoint(position: number): bigint {
    return BigInt(position) * BigInt(this.geometry.segmentSize) + 0x90n;
  }

  #lsns(b: SyntheticBackup): { start: bigint; stop: bigint } {
    const size = BigInt(this.geometry.segmentSize);
    return { start: BigInt(b.beginPosition) * size + 0x28n, stop: BigInt(b.endPosition) * size + 0x100n };
  }

  #files(b: SyntheticBackup): SyntheticFile[] {
    if (b.files !== undefined) return [...b.files].sort((x, y) => (x.name < y.name ? -1 : 1));
    const full = b.label.slice(0, 16);
    const mine: SyntheticFile[] = [
      { name: 'pg_data/PG_VERSION', size: 3, repoSize: 23, ...(b.type === 'full' ? {} : { reference: full }) },
      { name: 'pg_data/backup_label', size: 240, repoSize: 180 },
      { name: 'pg_data/base/1/1259', size: 8192, repoSize: 700 },
      { name: 'pg_data/global/pg_control', size: 8192, repoSize: 400 },
    ];
    return mine;
  }

  /** The manifest text of `b` (`early`: the copy an interrupted backup leaves). */
  manifest(b: SyntheticBackup, early = false): string {
    const { start, stop } = this.#lsns(b);
    const g = this.geometry;
    const compress = b.compress ?? 'zst';
    const own = [...(b.reference ?? []), b.label].join(',');
    const header: [string, string][] = [
      ...(early ? [] : ([['backup-archive-start', json(walName(b.timeline, b.beginPosition, g))], ['backup-archive-stop', json(walName(b.timeline, b.endPosition, g))]] as [string, string][])),
      ...(b.bundled === true ? ([['backup-bundle', 'true']] as [string, string][]) : []),
      ['backup-label', json(b.label)],
      ...(early ? [] : ([['backup-lsn-start', json(formatLsn(start))], ['backup-lsn-stop', json(formatLsn(stop))]] as [string, string][])),
      ...(b.prior === undefined ? [] : ([['backup-prior', json(b.prior)]] as [string, string][])),
      ['backup-reference', json(own)],
      ['backup-timestamp-copy-start', String(seconds(b.beginTime))],
      ['backup-timestamp-start', String(seconds(b.beginTime))],
      ['backup-timestamp-stop', early ? '0' : String(seconds(b.endTime))],
      ['backup-type', json(b.type)],
    ];
    const db: [string, string][] = [
      ['db-catalog-version', '202209061'],
      ['db-control-version', '1300'],
      ['db-id', early ? '0' : '1'],
      ['db-system-id', early ? '0' : this.systemId],
      ['db-version', json('15')],
    ];
    const options: [string, string][] = [
      ['option-archive-check', 'true'],
      ['option-archive-copy', 'false'],
      ['option-backup-standby', 'false'],
      ['option-buffer-size', '1048576'],
      ['option-checksum-page', 'false'],
      ['option-compress', compress === 'none' ? 'false' : 'true'],
      ['option-compress-level', '3'],
      ['option-compress-type', json(compress)],
      ['option-delta', 'false'],
      ['option-hardlink', 'false'],
      ['option-online', 'true'],
      ['option-process-max', '1'],
    ];
    let offset = 0;
    const files: [string, string][] = this.#files(b).map((f) => {
      const repoSize = f.repoSize ?? f.size;
      const v: Record<string, unknown> = { checksum: sha1(f.name), size: f.size, timestamp: seconds(b.beginTime) };
      if (repoSize !== f.size) v['repo-size'] = repoSize;
      if (f.reference !== undefined) v['reference'] = f.reference;
      else if (b.bundled === true && f.size > 0) {
        v['bni'] = 1;
        v['bno'] = offset;
        offset += repoSize;
      }
      return [f.name, json(Object.fromEntries(Object.entries(v).sort(([x], [y]) => (x < y ? -1 : 1))))];
    });
    return renderInfo([
      ['backup', header],
      ['backup:db', db],
      ['backup:option', options],
      ['target:file', files],
    ]);
  }

  /** A backup: its directory (unless expired), manifest, files, history manifest, `.backup` file and backup.info entry. */
  backup(b: SyntheticBackup): void {
    const dir = `${this.backupDir}${b.label}/`;
    const g = this.geometry;
    const kind = b.manifest ?? 'final';
    const compress = b.compress ?? 'zst';
    const finished = kind === 'final';
    if (finished) {
      // What PostgreSQL's pg_backup_stop leaves, pushed by archive-push beside the segments.
      const begin = walName(b.timeline, b.beginPosition, g);
      this.#store.put(`${this.archive}${this.archiveId}/${begin.slice(0, 16)}/${begin}.00000028.backup`, 'START WAL LOCATION', b.endTime);
      this.#store.put(`${this.backupDir}backup.history/${b.label.slice(0, 4)}/${b.label}.manifest.gz`, 'gz', b.endTime);
    }
    if (b.expired !== true) {
      if (kind === 'final') {
        const text = this.manifest(b);
        this.#store.put(`${dir}backup.manifest`, text, b.endTime);
        this.#store.put(`${dir}backup.manifest.copy`, text, b.endTime);
      } else if (kind === 'copy-only') this.#store.put(`${dir}backup.manifest.copy`, this.manifest(b, true), b.beginTime);
      let bundle = 0;
      for (const f of this.#files(b)) {
        if (f.reference !== undefined) continue;
        const repoSize = f.repoSize ?? f.size;
        if (b.bundled === true) {
          if (f.size > 0) bundle += repoSize;
          continue;
        }
        this.#store.put(`${dir}${f.name}${EXTENSION[compress]}`, 'file', b.endTime, repoSize);
      }
      if (bundle > 0) this.#store.put(`${dir}bundle/1`, 'bundle', b.endTime, bundle);
    }
    if (b.listed !== false && finished) this.#entries.push([b.label, this.#entry(b)]);
  }

  #entry(b: SyntheticBackup): string {
    const { start, stop } = this.#lsns(b);
    const g = this.geometry;
    const files = this.#files(b);
    const repo = files.reduce((n, f) => n + (f.repoSize ?? f.size), 0);
    const delta = files.filter((f) => f.reference === undefined).reduce((n, f) => n + (f.repoSize ?? f.size), 0);
    const size = files.reduce((n, f) => n + f.size, 0);
    return json({
      'backrest-format': 5,
      'backrest-version': '2.45',
      ...(b.annotation === undefined ? {} : { 'backup-annotation': b.annotation }),
      'backup-archive-start': walName(b.timeline, b.beginPosition, g),
      'backup-archive-stop': walName(b.timeline, b.endPosition, g),
      'backup-error': b.error ?? false,
      'backup-info-repo-size': repo,
      'backup-info-repo-size-delta': delta,
      'backup-info-size': size,
      'backup-info-size-delta': size,
      'backup-lsn-start': formatLsn(start),
      'backup-lsn-stop': formatLsn(stop),
      ...(b.prior === undefined ? {} : { 'backup-prior': b.prior }),
      ...(b.reference === undefined ? {} : { 'backup-reference': b.reference }),
      'backup-timestamp-start': seconds(b.beginTime),
      'backup-timestamp-stop': seconds(b.endTime),
      'backup-type': b.type,
      'db-id': 1,
      'option-archive-check': true,
      'option-archive-copy': false,
      'option-backup-standby': false,
      'option-checksum-page': false,
      'option-compress': (b.compress ?? 'zst') !== 'none',
      'option-hardlink': false,
      'option-online': true,
    });
  }

  /** backup.info's text as pgBackRest writes it, from the backups listed so far. */
  backupInfo(): string {
    return renderInfo([
      ['backup:current', [...this.#entries].sort(([a], [b]) => (a < b ? -1 : 1))],
      ['db', [['db-catalog-version', '202209061'], ['db-control-version', '1300'], ['db-id', '1'], ['db-system-id', this.systemId], ['db-version', '"15"']]],
      ['db:history', [['1', `{"db-catalog-version":202209061,"db-control-version":1300,"db-system-id":${this.systemId},"db-version":"15"}`]]],
    ]);
  }

  archiveInfo(): string {
    return renderInfo([
      ['db', [['db-id', '1'], ['db-system-id', this.systemId], ['db-version', '"15"']]],
      ['db:history', [['1', `{"db-id":${this.systemId},"db-version":"15"}`]]],
    ]);
  }

  /**
   * Writes backup.info, archive.info and their copies; `main`/`copy` replace a file's bytes (a
   * broken main file, a differing copy), `null` leaves it out.
   */
  info(o: { backupMain?: string | Uint8Array | null; backupCopy?: string | Uint8Array | null; archiveMain?: string | Uint8Array | null; archiveCopy?: string | Uint8Array | null; at?: Date } = {}): void {
    const at = o.at ?? new Date('2026-11-20T00:00:00Z');
    const put = (key: string, given: string | Uint8Array | null | undefined, text: string) => {
      if (given === null) return;
      this.#store.put(key, given ?? text, at);
    };
    put(`${this.backupDir}backup.info`, o.backupMain, this.backupInfo());
    put(`${this.backupDir}backup.info.copy`, o.backupCopy, this.backupInfo());
    put(`${this.archive}archive.info`, o.archiveMain, this.archiveInfo());
    put(`${this.archive}archive.info.copy`, o.archiveCopy, this.archiveInfo());
  }
}
