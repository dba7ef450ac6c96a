/**
 * The benchmark's deterministic barman-cloud corpus: one server scope of N WAL segments laid out
 * as Barman 3.x writes it (hash directories of 256 16 MiB segments, two timelines with a history
 * file and a `.partial` at the promotion, backups with `backup.info`, backup-history files, a few
 * missing runs, compression that changes over the archive's life, two duplicate segments). The
 * same spec and seed give the same keys, bodies and times, and the generator's truth (object
 * count, stored bytes, WAL class counts, gaps) to check the scan against.
 *
 * Sizes are evidence to the scanner (src/format/barman-cloud/size-floors.ts): an object named as a
 * segment must have a size some segment can have, an archive at least its format's floor. A real
 * 16 MiB segment costs too much to load 100 k times, so WAL is written only in compressions whose
 * floor is a few dozen bytes (zstd, bzip2, lz4, xz, snappy), each body its floor plus a few bytes;
 * gzip, whose floor is 16 KiB, appears only as the second copy of the two duplicated segments.
 * Bodies are the format's magic number padded with zeros: the scanner judges their sizes and
 * never reads them. The files it reads (backup.info, the timeline history) are real. Archives have
 * the sizes of a small cluster's PGDATA tar in each compression, a few MiB.
 *
 * The key list is never held: keys are kept as sorted groups (one per backup directory, per hash
 * directory and per history file) with their counts, and a group's keys are built when a listing
 * reaches it. Memory is O(hash directories), so the in-process source stays flat at 1 M keys and
 * the memory figures measure the scanner, not the source.
 */
import { gzipSync, zstdCompressSync } from 'node:zlib';
import { MemoryStore } from '../src/store/memory/memory-driver.ts';
import type { ArchiveCompression, WalCompression } from '../src/format/barman-cloud/classify.ts';
import { minimumArchiveBytes, minimumSegmentBytes } from '../src/format/barman-cloud/size-floors.ts';
import { SyntheticRepository, type SyntheticBackup } from '../src/format/barman-cloud/synthetic-repository.ts';
import type { WalCounts } from '../src/evidence/wal-archive.ts';
import { formatLsn, geometry, walName } from '../src/postgres/wal.ts';

/** Bump when the keys or bodies change: the bench store reloads a corpus whose marker differs. */
export const GENERATOR_VERSION = 2;

export interface CorpusSpec {
  /** `<prefix>/<server>/` of the scope, e.g. `bench/main/`. */
  readonly root: string;
  /** WAL segment objects (full segments, compressed or not), before duplicates. */
  readonly segments: number;
  readonly seed: number;
  /** Receipt time of the first segment; later objects one minute apart. */
  readonly start?: Date;
  /** Every other segment missing: one range and one gap per two segments (the paging corpus). */
  readonly sparse?: boolean;
}

export interface CorpusObject {
  readonly key: string;
  /** The listed size: the length of what `body` returns. */
  readonly size: number;
  /** The object's bytes, built when asked: only the store loader and reads need them, never a listing. */
  readonly body: () => Uint8Array;
  readonly lastModified: Date;
}

export interface GapTruth {
  readonly timeline: number;
  readonly first: string;
  readonly last: string;
  readonly segments: number;
}

export interface CorpusTruth {
  readonly objects: number;
  readonly bytes: number;
  /** WAL segment objects present, duplicate copies included. */
  readonly segments: number;
  /** What the scan must count under `wals/`: every segment plausible, no unknown object. */
  readonly walCounts: WalCounts;
  readonly gaps: readonly GapTruth[];
  readonly backups: number;
  readonly timelines: number;
}

const G = geometry(16 << 20, 150018);
const PER_LOG = 256;
const SEGMENT_HEX = Array.from({ length: PER_LOG }, (_, i) => i.toString(16).toUpperCase().padStart(8, '0'));
/** WAL compressions of the eras: only those whose floor is tiny (gzip's is 16 KiB, none's 16 MiB). */
const SUFFIXES: readonly { suffix: string; weight: number }[] = [
  { suffix: '.zst', weight: 35 },
  { suffix: '.bz2', weight: 25 },
  { suffix: '.lz4', weight: 20 },
  { suffix: '.xz', weight: 10 },
  { suffix: '.snappy', weight: 10 },
];
const WAL_SUFFIX: Readonly<Record<string, WalCompression>> = { '.bz2': 'bzip2', '.gz': 'gzip', '.lz4': 'lz4', '.snappy': 'snappy', '.xz': 'xz', '.zst': 'zstd' };
/** The second copy of each duplicated segment (the first has its era's compression). */
const DUPLICATE_SUFFIX = '.gz';

/** The first bytes of each format, so a body is what its name says at a glance; zeros follow. */
const MAGIC: Readonly<Record<WalCompression, readonly number[]>> = {
  gzip: [0x1f, 0x8b, 0x08, 0x00],
  bzip2: [0x42, 0x5a, 0x68, 0x39], // BZh9
  xz: [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00],
  snappy: [0xff, 0x06, 0x00, 0x00, 0x73, 0x4e, 0x61, 0x50, 0x70, 0x59], // the framing format's stream identifier
  zstd: [0x28, 0xb5, 0x2f, 0xfd],
  lz4: [0x04, 0x22, 0x4d, 0x18],
};
/** A tar's first header carries `ustar\0` and version `00` at offset 257. */
const USTAR = [0x75, 0x73, 0x74, 0x61, 0x72, 0x00, 0x30, 0x30];

function stream(format: WalCompression | ArchiveCompression, size: number): Uint8Array {
  const bytes = new Uint8Array(size);
  if (format === 'none') bytes.set(USTAR, 257);
  else bytes.set(MAGIC[format]);
  return bytes;
}

interface Body {
  readonly size: number;
  readonly body: () => Uint8Array;
}
/** One body shared by every object that has it, built the first time it is asked for. */
function shared(format: WalCompression, size: number): Body {
  let bytes: Uint8Array | null = null;
  return { size, body: () => (bytes ??= stream(format, size)) };
}
const exact = (bytes: Uint8Array): Body => ({ size: bytes.byteLength, body: () => bytes });
const object = (key: string, b: Body, lastModified: Date): CorpusObject => ({ key, size: b.size, body: b.body, lastModified });

/** Bytes past a compression's floor: a stream holding a little content, not the smallest possible one. */
const STREAM_SLACK = 16;
/** A segment (or `.partial`: PostgreSQL pads it to the segment size) stored with each suffix. */
const SEGMENT_BODIES: ReadonlyMap<string, Body> = new Map(
  Object.entries(WAL_SUFFIX).map(([suffix, c]) => [suffix, shared(c, minimumSegmentBytes(c, G.segmentSize) + STREAM_SLACK)]),
);
const segmentBody = (suffix: string) => SEGMENT_BODIES.get(suffix) as Body;
/** What one era segment may cost to load: should a floor grow past it, the generator says so instead of loading megabytes. */
const ERA_SEGMENT_BUDGET = 256;
for (const { suffix } of SUFFIXES) {
  if (segmentBody(suffix).size > ERA_SEGMENT_BUDGET) throw new Error(`corpus: a ${suffix} segment would take ${segmentBody(suffix).size} bytes, over the ${ERA_SEGMENT_BUDGET}-byte budget`);
}
/** A backup-history file: a few hundred bytes of `START WAL LOCATION: …` text, compressed. */
const BACKUP_HISTORY_BODIES: ReadonlyMap<string, Body> = new Map(Object.entries(WAL_SUFFIX).map(([suffix, c]) => [suffix, shared(c, 200)]));
/** The timeline history is read by the scanner: compressed for real where Node can (else stored plain). */
const HISTORY_ENCODERS: Readonly<Record<string, (text: string) => Uint8Array>> = { '.gz': (t) => gzipSync(t), '.zst': (t) => zstdCompressSync(t) };

/**
 * Base-backup archives: `barman-cloud-backup`'s compression changes over the backups like WAL's,
 * each over a PGDATA tar of a small cluster (Python's tarfile writes 10 KiB records) that grows a
 * little from one backup to the next, shrunk by the format's usual ratio, never below its floor.
 */
const ARCHIVE_FORMATS: readonly { suffix: string; compression: ArchiveCompression; ratio: number }[] = [
  { suffix: '.gz', compression: 'gzip', ratio: 4 },
  { suffix: '', compression: 'none', ratio: 1 },
  { suffix: '.bz2', compression: 'bzip2', ratio: 5 },
  { suffix: '.snappy', compression: 'snappy', ratio: 2.5 },
  { suffix: '.gz', compression: 'gzip', ratio: 4 },
  { suffix: '.lz4', compression: 'lz4', ratio: 3 },
];
const TAR_RECORD = 10_240;
const FIRST_TAR_BYTES = 800 * TAR_RECORD;
const TAR_GROWTH = 25 * TAR_RECORD;
function archive(index: number): { suffix: string; body: Body } {
  const f = ARCHIVE_FORMATS[index % ARCHIVE_FORMATS.length] as (typeof ARCHIVE_FORMATS)[number];
  const tar = FIRST_TAR_BYTES + index * TAR_GROWTH;
  const size = Math.max(minimumArchiveBytes(f.compression), f.compression === 'none' ? tar : Math.ceil(tar / f.ratio));
  // Not shared and not kept: a few MiB each, built only by the store loader.
  return { suffix: f.suffix, body: { size, body: () => stream(f.compression, size) } };
}

/** The era position `p` falls in: the last of `eras` (ascending by `from`) that starts at or before it. */
export function eraAt<E extends { readonly from: number }>(eras: readonly E[], p: number): E {
  let lo = 0;
  let hi = eras.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if ((eras[mid] as E).from <= p) lo = mid;
    else hi = mid - 1;
  }
  return eras[lo] as E;
}

/** mulberry32: small, seeded, good enough to place gaps and eras reproducibly (both corpora use it). */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface Group {
  /** The group's first key: groups are sorted by it and never interleave. */
  readonly first: string;
  /** Every key of the group starts with this (a directory) or equals it (a single file). */
  readonly prefix: string;
  readonly count: number;
  /** Stored bytes of the group's objects, known without building them. */
  readonly bytes: number;
  readonly build: () => CorpusObject[];
}

interface Timeline {
  readonly id: number;
  readonly from: number;
  /** Last full segment position. */
  readonly to: number;
}

/**
 * A generated listing kept as sorted groups of keys (a directory's, or one file) with their counts
 * and bytes, each group's keys built when a listing reaches it: the in-process listing source
 * (corpus-driver.ts) and the store loader read a corpus through this, whatever its format.
 */
export abstract class GroupedCorpus {
  #groups: readonly Group[] = [];
  /** Index of each group's first object in the whole sorted listing. */
  readonly #offsets: number[] = [];
  /** Recently built groups: one per parallel listing in flight, bounded. */
  readonly #cache = new Map<number, CorpusObject[]>();
  #all: CorpusObject[][] | null = null;
  #size = 0;

  /** Takes the corpus's groups (once, from the constructor): sorts them, returns the objects and bytes they hold. */
  protected seal(groups: Group[]): { objects: number; bytes: number } {
    groups.sort((a, b) => (a.first < b.first ? -1 : a.first > b.first ? 1 : 0));
    let objects = 0;
    let bytes = 0;
    for (const g of groups) {
      this.#offsets.push(objects);
      objects += g.count;
      bytes += g.bytes;
    }
    this.#groups = groups;
    this.#size = objects;
    return { objects, bytes };
  }

  get size(): number {
    return this.#size;
  }


  /**
   * Builds every group once and keeps them: listing then costs almost nothing, so a throughput
   * figure measures the scanner rather than the generator. Memory grows with the keys: never for
   * the memory figures.
   */
  materialize(): void {
    this.#all = this.#groups.map((g) => g.build());
  }

  #group(index: number): CorpusObject[] {
    if (this.#all !== null) return this.#all[index] as CorpusObject[];
    let objects = this.#cache.get(index);
    if (objects === undefined) {
      objects = (this.#groups[index] as Group).build();
      this.#cache.set(index, objects);
      if (this.#cache.size > 64) this.#cache.delete(this.#cache.keys().next().value as number);
    }
    return objects;
  }

  /** Every object in key order, one group at a time. */
  *objects(): Generator<CorpusObject> {
    for (let i = 0; i < this.#groups.length; i++) yield* this.#group(i);
  }

  /** The first object index whose key is greater than `key` (or `>=` when `inclusive`). */
  seek(key: string, inclusive = false): number {
    // The last group whose first key is <= key, then inside it.
    let lo = 0;
    let hi = this.#groups.length - 1;
    let g = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if ((this.#groups[mid] as Group).first <= key) {
        g = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    if (g === -1) return 0;
    const objects = this.#group(g);
    let i = 0;
    while (i < objects.length && ((objects[i] as CorpusObject).key < key || (!inclusive && (objects[i] as CorpusObject).key === key))) i++;
    return (this.#offsets[g] as number) + i;
  }

  /** The object at listing index `index`. */
  at(index: number): CorpusObject | undefined {
    if (index < 0 || index >= this.size) return undefined;
    const g = this.#groupOf(index);
    return this.#group(g)[index - (this.#offsets[g] as number)];
  }

  /** Objects from listing index `index` on, in order, without a search per object. */
  *from(index: number): Generator<CorpusObject> {
    if (index < 0 || index >= this.size) return;
    let g = this.#groupOf(index);
    let i = index - (this.#offsets[g] as number);
    for (; g < this.#groups.length; g++, i = 0) {
      const objects = this.#group(g);
      for (; i < objects.length; i++) yield objects[i] as CorpusObject;
    }
  }

  #groupOf(index: number): number {
    let lo = 0;
    let hi = this.#offsets.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((this.#offsets[mid] as number) <= index) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }
}

export class Corpus extends GroupedCorpus {
  readonly spec: CorpusSpec;
  readonly truth: CorpusTruth;

  constructor(spec: CorpusSpec) {
    super();
    this.spec = spec;
    const groups: Group[] = [];
    const random = prng(spec.seed);
    const start = (spec.start ?? new Date('2026-01-05T00:00:00Z')).getTime();
    const first = 0x10 * PER_LOG + 0x40; // 000000010000001000000040: a cluster with some history
    const n1 = Math.round(spec.segments * 0.6);
    const switchAt = first + n1; // timeline 1 stops before it; the promotion happens inside it
    const timelines: Timeline[] = [
      { id: 1, from: first, to: switchAt - 1 },
      { id: 2, from: switchAt, to: switchAt + (spec.segments - n1) - 1 },
    ];
    const at = (position: number) => new Date(start + (position - first) * 60_000);

    // A few missing runs of 1–3 segments, away from the ends and from each other.
    const missing = new Map<number, Set<number>>(timelines.map((t) => [t.id, new Set<number>()]));
    const gapCount = spec.sparse === true ? 0 : Math.max(2, Math.min(8, Math.floor(spec.segments / 10_000)));
    const gaps: GapTruth[] = [];
    if (spec.sparse === true) {
      for (const t of timelines) {
        for (let p = t.from + 1; p < t.to; p += 2) {
          (missing.get(t.id) as Set<number>).add(p);
          gaps.push({ timeline: t.id, first: walName(t.id, p, G), last: walName(t.id, p, G), segments: 1 });
        }
      }
    }
    for (let i = 0; i < gapCount; i++) {
      const t = timelines[i % 2] as Timeline;
      const span = t.to - t.from;
      const length = 1 + Math.floor(random() * 3);
      const lo = t.from + 16 + Math.floor(random() * (span - 40));
      const set = missing.get(t.id) as Set<number>;
      if ([...Array(length + 8).keys()].some((k) => set.has(lo - 4 + k))) continue;
      for (let k = 0; k < length; k++) set.add(lo + k);
      gaps.push({ timeline: t.id, first: walName(t.id, lo, G), last: walName(t.id, lo + length - 1, G), segments: length });
    }
    gaps.sort((a, b) => a.timeline - b.timeline || (a.first < b.first ? -1 : 1));

    // Compression eras: the operator changes `--compression` now and then, about a dozen times over
    // the archive. The first eras go through every compression once (in a seeded order), so every
    // corpus size has them all; later ones pick by weight, never the compression already in use.
    const eras: { from: number; suffix: string }[] = [];
    const eraLength = Math.max(1, Math.round(spec.segments / 12));
    const firstEras = SUFFIXES.map((s) => ({ s, key: random() })).sort((x, y) => x.key - y.key).map((x) => x.s);
    for (let p = first; p <= timelines[1]!.to; p += Math.ceil(eraLength * (0.5 + random()))) {
      const previous = eras.at(-1)?.suffix;
      let s = firstEras[eras.length];
      if (s === undefined) {
        const others = SUFFIXES.filter((x) => x.suffix !== previous);
        let pick = random() * others.reduce((n, x) => n + x.weight, 0);
        s = others.find((x) => (pick -= x.weight) < 0) ?? others[0]!;
      }
      eras.push({ from: p, suffix: s.suffix });
    }
    const suffixAt = (p: number) => eraAt(eras, p).suffix;

    // Backups spread over both timelines; the last but one failed, the last is still running.
    const repo = new SyntheticRepository(new MemoryStore(), spec.root, G.segmentSize, 150018);
    const backupCount = Math.max(3, Math.min(20, Math.floor(spec.segments / 5_000)));
    const backups: (SyntheticBackup & { history: boolean; archive: Body })[] = [];
    const total = spec.segments;
    for (let i = 0; i < backupCount; i++) {
      const offset = Math.floor(((i + 0.5) * total) / backupCount);
      const t = offset < n1 ? timelines[0]! : timelines[1]!;
      let begin = t.from + (offset < n1 ? offset : offset - n1);
      while (spec.sparse !== true && ((missing.get(t.id) as Set<number>).has(begin) || (missing.get(t.id) as Set<number>).has(begin + 1))) begin += 4;
      begin = Math.min(begin, t.to - 2);
      const when = at(begin);
      const status = i === backupCount - 2 ? 'FAILED' : 'DONE';
      const id = `${when.toISOString().slice(0, 19).replace(/[-:]/g, '')}`;
      const data = archive(i);
      backups.push({
        id,
        timeline: t.id,
        beginPosition: begin,
        endPosition: begin + 1,
        status,
        archiveSuffix: data.suffix,
        archive: data.body,
        withoutInfo: i === backupCount - 1,
        beginTime: when,
        endTime: new Date(when.getTime() + 90_000),
        history: status === 'DONE' && i !== backupCount - 1,
      });
    }
    for (const b of backups) {
      const dir = `${spec.root}base/${b.id}/`;
      const info = b.withoutInfo === true ? null : exact(new TextEncoder().encode(repo.backupInfo(b)));
      const build = () => {
        const out: CorpusObject[] = [];
        if (info !== null) out.push(object(`${dir}backup.info`, info, b.endTime));
        out.push(object(`${dir}data.tar${b.archiveSuffix ?? ''}`, b.archive, b.endTime));
        return out;
      };
      groups.push({ first: `${dir}backup.info`, prefix: dir, count: info === null ? 1 : 2, bytes: (info?.size ?? 0) + b.archive.size, build });
    }

    const historyText = `1\t${formatLsn(BigInt(switchAt) * BigInt(G.segmentSize) + 0x90n)}\tno recovery target specified\n`;
    const encode = HISTORY_ENCODERS[suffixAt(switchAt)];
    const historyKey = `${spec.root}wals/00000002.history${encode === undefined ? '' : suffixAt(switchAt)}`;
    const history = exact(encode === undefined ? new TextEncoder().encode(historyText) : encode(historyText));
    groups.push({ first: historyKey, prefix: historyKey, count: 1, bytes: history.size, build: () => [object(historyKey, history, at(switchAt))] });

    const duplicates = new Set([first + 100, switchAt + 100]);
    const extras = new Map<string, { name: string; at: Date; body: Body }[]>();
    const addExtra = (t: number, p: number, name: string, body: Body) => {
      const dir = walName(t, p, G).slice(0, 16);
      const list = extras.get(`${t}:${dir}`) ?? [];
      list.push({ name, at: at(p), body });
      extras.set(`${t}:${dir}`, list);
    };
    addExtra(1, switchAt, `${walName(1, switchAt, G)}.partial${suffixAt(switchAt)}`, segmentBody(suffixAt(switchAt)));
    for (const b of backups) {
      const suffix = suffixAt(b.beginPosition);
      if (b.history) addExtra(b.timeline, b.beginPosition, `${walName(b.timeline, b.beginPosition, G)}.00000028.backup${suffix}`, BACKUP_HISTORY_BODIES.get(suffix) as Body);
    }
    const walCounts: WalCounts = { segment: 0, partial: 1, history: 1, backup_history: backups.filter((b) => b.history).length, unknown: 0, duplicate: 0 };

    for (const t of timelines) {
      const set = missing.get(t.id) as Set<number>;
      // Timeline 1's `.partial` lies one past its last full segment: when that starts a hash
      // directory, the directory holds the `.partial` alone (as at 1 M segments).
      const top = t.id === 1 ? switchAt : t.to;
      for (let log = Math.floor(t.from / PER_LOG); log <= Math.floor(top / PER_LOG); log++) {
        const lo = Math.max(t.from, log * PER_LOG);
        const hi = Math.min(t.to, log * PER_LOG + PER_LOG - 1);
        const dir = walName(t.id, lo, G).slice(0, 16);
        const extra = extras.get(`${t.id}:${dir}`) ?? [];
        let count = extra.length;
        let bytes = extra.reduce((n, e) => n + e.body.size, 0);
        for (let p = lo; p <= hi; p++) {
          if (set.has(p)) continue;
          count += 1;
          bytes += segmentBody(suffixAt(p)).size;
          walCounts.segment += 1;
          if (duplicates.has(p)) {
            count += 1;
            bytes += segmentBody(DUPLICATE_SUFFIX).size;
            walCounts.duplicate += 1;
          }
        }
        const prefix = `${spec.root}wals/${dir}/`;
        const build = () => {
          const out: CorpusObject[] = extra.map((e) => object(`${prefix}${e.name}`, e.body, e.at));
          const namePrefix = `${prefix}${dir}`;
          for (let p = lo; p <= hi; p++) {
            if (set.has(p)) continue;
            const name = `${namePrefix}${SEGMENT_HEX[p % PER_LOG] as string}`;
            const suffix = suffixAt(p);
            const copy = object(`${name}${suffix}`, segmentBody(suffix), at(p));
            if (duplicates.has(p)) {
              // The same segment twice: archived in its era's compression, then again gzip-compressed.
              const again = object(`${name}${DUPLICATE_SUFFIX}`, segmentBody(DUPLICATE_SUFFIX), at(p + 1));
              if (copy.key < again.key) out.push(copy, again);
              else out.push(again, copy);
            } else out.push(copy);
          }
          return extra.length === 0 ? out : out.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
        };
        groups.push({ first: `${prefix}${walName(t.id, lo, G)}`, prefix, count, bytes, build });
      }
    }

    const { objects, bytes } = this.seal(groups);
    const segments = spec.segments - gaps.reduce((s, g) => s + g.segments, 0) + duplicates.size;
    if (segments !== walCounts.segment + walCounts.duplicate) throw new Error(`corpus: ${segments} segments planned, ${walCounts.segment + walCounts.duplicate} written`);
    this.truth = { objects, bytes, segments, walCounts, gaps, backups: backupCount, timelines: 2 };
  }
}

/** The corpora the bench loads into its store: the full run's and the quick run's. */
export const STORE_CORPORA = {
  full: { root: 'bench/main/', segments: 100_000, seed: 20261123 },
  quick: { root: 'bench/quick/', segments: 20_000, seed: 20261123 },
} as const satisfies Record<string, CorpusSpec>;
