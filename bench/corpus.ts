/**
 * The benchmark's deterministic barman-cloud corpus: one server scope of N WAL segments laid out
 * as Barman 3.x writes it (hash directories of 256 16 MiB segments, two timelines with a history
 * file and a `.partial` at the promotion, backups with `backup.info`, backup-history files, a few
 * missing runs, compression that changes over the archive's life, two duplicate segments). The
 * same spec and seed give the same keys, bodies and times, and the generator's truth (object
 * count, stored bytes, gaps) to check the scan against.
 *
 * The key list is never held: keys are kept as sorted groups (one per backup directory, per hash
 * directory and per history file) with their counts, and a group's keys are built when a listing
 * reaches it. Memory is O(hash directories), so the in-process source stays flat at 1 M keys and
 * the memory figures measure the scanner, not the source.
 */
import { gzipSync } from 'node:zlib';
import { MemoryStore } from '../src/store/memory/memory-driver.ts';
import { SyntheticRepository, type SyntheticBackup } from '../src/format/barman-cloud/synthetic-repository.ts';
import { formatLsn, geometry, walName } from '../src/postgres/wal.ts';

export const GENERATOR_VERSION = 1;

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
  readonly body: Uint8Array;
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
  readonly segments: number;
  readonly gaps: readonly GapTruth[];
  readonly backups: number;
  readonly timelines: number;
}

const G = geometry(16 << 20, 150018);
const PER_LOG = 256;
const SEGMENT_HEX = Array.from({ length: PER_LOG }, (_, i) => i.toString(16).toUpperCase().padStart(8, '0'));
const EMPTY = new Uint8Array(0);
/** Backup archives must not be empty (an empty one is evidence of a broken backup); one tar block. */
const TAR_BLOCK = new Uint8Array(512);
const SUFFIXES: readonly { suffix: string; weight: number }[] = [
  { suffix: '.gz', weight: 50 },
  { suffix: '', weight: 20 },
  { suffix: '.bz2', weight: 10 },
  { suffix: '.zst', weight: 10 },
  { suffix: '.lz4', weight: 5 },
  { suffix: '.xz', weight: 5 },
];

/** mulberry32: small, seeded, good enough to place gaps and eras reproducibly. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Group {
  /** The group's first key: groups are sorted by it and never interleave. */
  readonly first: string;
  /** Every key of the group starts with this (a directory) or equals it (a single file). */
  readonly prefix: string;
  readonly count: number;
  readonly build: () => CorpusObject[];
}

interface Timeline {
  readonly id: number;
  readonly from: number;
  /** Last full segment position. */
  readonly to: number;
}

export class Corpus {
  readonly spec: CorpusSpec;
  readonly truth: CorpusTruth;
  readonly #groups: Group[] = [];
  /** Index of each group's first object in the whole sorted listing. */
  readonly #offsets: number[] = [];
  /** Recently built groups: one per parallel listing in flight, bounded. */
  readonly #cache = new Map<number, CorpusObject[]>();
  #all: CorpusObject[][] | null = null;

  constructor(spec: CorpusSpec) {
    this.spec = spec;
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

    // Compression eras: the operator changes `--compression` now and then.
    const eras: { from: number; suffix: string }[] = [];
    for (let p = first; p <= timelines[1]!.to; p += 2_000 + Math.floor(random() * 20_000)) {
      let pick = random() * 100;
      const s = SUFFIXES.find((x) => (pick -= x.weight) < 0) ?? SUFFIXES[0]!;
      eras.push({ from: p, suffix: s.suffix });
    }
    const suffixAt = (p: number) => {
      let lo = 0;
      let hi = eras.length - 1;
      while (lo < hi) {
        const mid = (lo + hi + 1) >> 1;
        if ((eras[mid] as { from: number }).from <= p) lo = mid;
        else hi = mid - 1;
      }
      return (eras[lo] as { suffix: string }).suffix;
    };

    // Backups spread over both timelines; the last but one failed, the last is still running.
    const repo = new SyntheticRepository(new MemoryStore(), spec.root, G.segmentSize, 150018);
    const backupCount = Math.max(3, Math.min(20, Math.floor(spec.segments / 5_000)));
    const backups: (SyntheticBackup & { history: boolean })[] = [];
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
      backups.push({
        id,
        timeline: t.id,
        beginPosition: begin,
        endPosition: begin + 1,
        status,
        archiveSuffix: '.gz',
        withoutInfo: i === backupCount - 1,
        beginTime: when,
        endTime: new Date(when.getTime() + 90_000),
        history: status === 'DONE' && i !== backupCount - 1,
      });
    }
    for (const b of backups) {
      const dir = `${spec.root}base/${b.id}/`;
      const info = b.withoutInfo === true ? null : new TextEncoder().encode(repo.backupInfo(b));
      const build = () => {
        const out: CorpusObject[] = [];
        if (info !== null) out.push({ key: `${dir}backup.info`, body: info, lastModified: b.endTime });
        out.push({ key: `${dir}data.tar.gz`, body: TAR_BLOCK, lastModified: b.endTime });
        return out;
      };
      this.#groups.push({ first: `${dir}backup.info`, prefix: dir, count: info === null ? 1 : 2, build });
    }

    const historyText = `1\t${formatLsn(BigInt(switchAt) * BigInt(G.segmentSize) + 0x90n)}\tno recovery target specified\n`;
    const historyKey = `${spec.root}wals/00000002.history${suffixAt(switchAt) === '.gz' ? '.gz' : ''}`;
    const historyBody = historyKey.endsWith('.gz') ? gzipSync(historyText) : new TextEncoder().encode(historyText);
    this.#groups.push({ first: historyKey, prefix: historyKey, count: 1, build: () => [{ key: historyKey, body: historyBody, lastModified: at(switchAt) }] });

    const duplicates = new Set([first + 100, switchAt + 100]);
    const extras = new Map<string, { name: string; at: Date }[]>();
    const addExtra = (t: number, p: number, name: string) => {
      const dir = walName(t, p, G).slice(0, 16);
      const list = extras.get(`${t}:${dir}`) ?? [];
      list.push({ name, at: at(p) });
      extras.set(`${t}:${dir}`, list);
    };
    addExtra(1, switchAt, `${walName(1, switchAt, G)}.partial${suffixAt(switchAt)}`);
    for (const b of backups) if (b.history) addExtra(b.timeline, b.beginPosition, `${walName(b.timeline, b.beginPosition, G)}.00000028.backup${suffixAt(b.beginPosition)}`);

    for (const t of timelines) {
      const set = missing.get(t.id) as Set<number>;
      for (let log = Math.floor(t.from / PER_LOG); log <= Math.floor(t.to / PER_LOG); log++) {
        const lo = Math.max(t.from, log * PER_LOG);
        const hi = Math.min(t.to, log * PER_LOG + PER_LOG - 1);
        const dir = walName(t.id, lo, G).slice(0, 16);
        const extra = extras.get(`${t.id}:${dir}`) ?? [];
        let count = extra.length;
        for (let p = lo; p <= hi; p++) if (!set.has(p)) count += duplicates.has(p) ? 2 : 1;
        const prefix = `${spec.root}wals/${dir}/`;
        const build = () => {
          const out: CorpusObject[] = extra.map((e) => ({ key: `${prefix}${e.name}`, body: EMPTY, lastModified: e.at }));
          const namePrefix = `${prefix}${dir}`;
          for (let p = lo; p <= hi; p++) {
            if (set.has(p)) continue;
            const name = `${namePrefix}${SEGMENT_HEX[p % PER_LOG] as string}`;
            const suffix = suffixAt(p);
            const received = at(p);
            if (duplicates.has(p)) {
              // The same segment twice, uncompressed and gzip-compressed: key order puts the bare name first.
              out.push({ key: name, body: EMPTY, lastModified: received }, { key: `${name}.gz`, body: EMPTY, lastModified: at(p + 1) });
            } else out.push({ key: `${name}${suffix}`, body: EMPTY, lastModified: received });
          }
          return extra.length === 0 ? out : out.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
        };
        this.#groups.push({ first: `${prefix}${walName(t.id, lo, G)}`, prefix, count, build });
      }
    }

    this.#groups.sort((a, b) => (a.first < b.first ? -1 : a.first > b.first ? 1 : 0));
    let objects = 0;
    let bytes = 0;
    for (const g of this.#groups) {
      this.#offsets.push(objects);
      objects += g.count;
      if (g.count <= 2) for (const o of g.build()) bytes += o.body.byteLength; // WAL bodies are empty
    }
    this.truth = { objects, bytes, segments: spec.segments - gaps.reduce((s, g) => s + g.segments, 0) + duplicates.size, gaps, backups: backupCount, timelines: 2 };
  }

  get size(): number {
    return this.truth.objects;
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

/** The corpora the bench loads into its store: the full run's and the quick run's. */
export const STORE_CORPORA = {
  full: { root: 'bench/main/', segments: 100_000, seed: 20261123 },
  quick: { root: 'bench/quick/', segments: 20_000, seed: 20261123 },
} as const satisfies Record<string, CorpusSpec>;
