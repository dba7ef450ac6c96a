/**
 * The benchmark's deterministic pgBackRest corpus: one stanza as pgBackRest 2.45 lays it out
 * (src/format/stanza-repository/layout.ts, wal-keys.ts) with N WAL segments, the same size and
 * shape of history as the barman-cloud corpus (bench/corpus.ts): two timelines with the history
 * file and the `.partial` of the promotion, a few missing runs, compression that changes over the
 * archive's life — every compression pgBackRest writes (gz first, its default, then zst, lz4, bz2,
 * xz by era) and two uncompressed segments at exactly 16 MiB — and a few full/diff/incr sets, each
 * backup's `.backup` file beside its first segment. Keys are
 * `archive/<stanza>/15-1/<16 hex>/<24 hex>-<sha1>.<ext>`; the 40-hex suffix is derived from the
 * name by a cheap seeded mix (it only has to look like pgBackRest's SHA-1 of the file: the scanner
 * checks its shape, never its value), so 1 M keys cost no hashing.
 *
 * The backup area and the info files are written by the format's synthetic stanza writer
 * (test/support/synthetic/stanza-repository.ts: valid checksums, manifests and their
 * copies, bundles or separate files, history manifests) into a small MemoryStore, and read back as
 * groups; the WAL is kept as one group per segment directory, built when a listing reaches it, so
 * memory is O(directories) as in the barman corpus.
 */
import type { MemoryStore } from '../src/store/memory/memory-driver.ts';
import { SyntheticStanza, type SyntheticBackup, type SyntheticCompress, type SyntheticFile } from '../test/support/synthetic/stanza-repository.ts';
import { minimumSegmentBytes } from '../src/format/stanza-repository/wal-plan.ts';
import type { WalCompression } from '../src/format/stanza-repository/wal-keys.ts';
import type { WalCounts } from '../src/evidence/wal-archive.ts';
import { geometry, walName } from '../src/postgres/wal.ts';
import { eraAt, GroupedCorpus, prng, type CorpusObject, type CorpusTruth, type GapTruth, type Group } from './corpus.ts';

/** Bump when the keys or bodies change: the bench store reloads a corpus whose marker differs. */
export const STANZA_GENERATOR_VERSION = 1;

export interface StanzaCorpusSpec {
  /** The repository root (the destination prefix and a slash), e.g. `bench-pgbackrest/`. */
  readonly root: string;
  readonly stanza: string;
  readonly segments: number;
  readonly seed: number;
}

const PER_LOG = 256;
const SEGMENT_SIZE = 16 << 20;
const ARCHIVE_ID = '15-1';
/** Compressed WAL: the floor of pgBackRest's stream plus a few bytes (gz's floor is ~16 KiB at 16 MiB). */
const SLACK = 16;
const ERA_COMPRESSIONS: readonly { ext: WalCompression; weight: number }[] = [
  { ext: 'zst', weight: 40 },
  { ext: 'lz4', weight: 25 },
  { ext: 'bz2', weight: 20 },
  { ext: 'xz', weight: 15 },
];
/** The stanza starts with pgBackRest's default (gz) for this many segments, then the operator picks another. */
const GZ_SEGMENTS = 256;


/** 40 lowercase hex digits from (timeline, position): five rounds of a 32-bit mix, no hashing. */
function sha1Looking(seed: number, timeline: number, position: number): string {
  let h = (seed ^ Math.imul(timeline, 0x9e3779b1) ^ Math.imul(position, 0x85ebca6b)) >>> 0;
  let out = '';
  for (let i = 0; i < 5; i++) {
    h = Math.imul(h ^ (h >>> 16), 0x7feb352d);
    h = Math.imul(h ^ (h >>> 15), 0x846ca68b);
    h = (h ^ (h >>> 16)) >>> 0;
    out += h.toString(16).padStart(8, '0');
    h = (h + 0x6d2b79f5 + i) >>> 0;
  }
  return out;
}

/** A sized body of zeros after the format's first bytes, built when asked and shared by its size. */
const MAGIC: Readonly<Record<WalCompression, readonly number[]>> = {
  gz: [0x1f, 0x8b, 0x08, 0x00],
  bz2: [0x42, 0x5a, 0x68, 0x39],
  xz: [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00],
  zst: [0x28, 0xb5, 0x2f, 0xfd],
  lz4: [0x04, 0x22, 0x4d, 0x18],
};
interface Body {
  readonly size: number;
  readonly body: () => Uint8Array;
}
function shared(size: number, magic: readonly number[]): Body {
  let bytes: Uint8Array | null = null;
  return {
    size,
    body: () => {
      if (bytes === null) {
        bytes = new Uint8Array(size);
        bytes.set(magic);
      }
      return bytes;
    },
  };
}
const SEGMENT_BODIES = new Map<WalCompression | null, Body>([
  [null, shared(SEGMENT_SIZE, [])],
  ...ERA_COMPRESSIONS.map((c) => c.ext)
    .concat(['gz'])
    .map((c): [WalCompression, Body] => [c, shared(minimumSegmentBytes(c, SEGMENT_SIZE, false) + SLACK, MAGIC[c])]),
]);
const segmentBody = (c: WalCompression | null) => SEGMENT_BODIES.get(c) as Body;

/** A full backup's files: a small cluster's catalog (about 1,000 files), bundled or not. */
function clusterFiles(): SyntheticFile[] {
  const files: SyntheticFile[] = [
    { name: 'pg_data/PG_VERSION', size: 3, repoSize: 23 },
    { name: 'pg_data/backup_label', size: 240, repoSize: 180 },
    { name: 'pg_data/global/pg_control', size: 8192, repoSize: 400 },
  ];
  for (let i = 0; i < 1_000; i++) files.push({ name: `pg_data/base/5/${1200 + i}`, size: 8192 * (1 + (i % 4)), repoSize: 300 + (i % 7) * 40 });
  return files;
}

export class StanzaCorpus extends GroupedCorpus {
  readonly spec: StanzaCorpusSpec;
  readonly truth: CorpusTruth;

  constructor(spec: StanzaCorpusSpec) {
    super();
    this.spec = spec;
    const random = prng(spec.seed);
    const start = new Date('2026-01-05T00:00:00Z').getTime();
    const first = 0x10 * PER_LOG + 0x40;
    const n1 = Math.round(spec.segments * 0.6);
    const switchAt = first + n1;
    const timelines = [
      { id: 1, from: first, to: switchAt - 1 },
      { id: 2, from: switchAt, to: switchAt + (spec.segments - n1) - 1 },
    ];
    const at = (p: number) => new Date(start + (p - first) * 60_000);
    const G = geometry(SEGMENT_SIZE);
    const name = (t: number, p: number) => walName(t, p, G);

    // Missing runs of 1–3 segments, away from the ends and from each other (as the barman corpus).
    const missing = new Map<number, Set<number>>(timelines.map((t) => [t.id, new Set<number>()]));
    const gaps: GapTruth[] = [];
    const gapCount = Math.max(2, Math.min(8, Math.floor(spec.segments / 10_000)));
    for (let i = 0; i < gapCount; i++) {
      const t = timelines[i % 2] as (typeof timelines)[number];
      const length = 1 + Math.floor(random() * 3);
      const lo = t.from + GZ_SEGMENTS + 16 + Math.floor(random() * (t.to - t.from - GZ_SEGMENTS - 40));
      const set = missing.get(t.id) as Set<number>;
      if ([...Array(length + 8).keys()].some((k) => set.has(lo - 4 + k))) continue;
      for (let k = 0; k < length; k++) set.add(lo + k);
      gaps.push({ timeline: t.id, first: name(t.id, lo), last: name(t.id, lo + length - 1), segments: length });
    }
    gaps.sort((a, b) => a.timeline - b.timeline || (a.first < b.first ? -1 : 1));

    // Eras: gz first (pgBackRest's default), then the others by weight, never the one in use; two
    // segments archived while compression was off.
    const eras: { from: number; ext: WalCompression }[] = [{ from: first, ext: 'gz' }];
    const eraLength = Math.max(1, Math.round(spec.segments / 12));
    const order = [...ERA_COMPRESSIONS].map((c) => ({ c, k: random() })).sort((x, y) => x.k - y.k).map((x) => x.c);
    for (let p = first + GZ_SEGMENTS; p <= (timelines[1] as { to: number }).to; p += Math.ceil(eraLength * (0.5 + random()))) {
      const previous = (eras.at(-1) as { ext: WalCompression }).ext;
      let c = order[eras.length - 1];
      if (c === undefined) {
        const others = ERA_COMPRESSIONS.filter((x) => x.ext !== previous);
        let pick = random() * others.reduce((n, x) => n + x.weight, 0);
        c = others.find((x) => (pick -= x.weight) < 0) ?? others[0];
      }
      if (c !== undefined) eras.push({ from: p, ext: c.ext });
    }
    const uncompressed = new Set([first + GZ_SEGMENTS + 10, first + GZ_SEGMENTS + 11]);
    const compressionAt = (p: number): WalCompression | null => {
      if (uncompressed.has(p)) return null;
      return eraAt(eras, p).ext;
    };
    const ext = (c: WalCompression | null) => (c === null ? '' : `.${c}`);

    // The backup area and info files through the format's synthetic writer: sets of a full, a diff
    // and incrs (a new full every sixth backup), compression and bundling varying, the last one
    // interrupted (only its manifest's early copy).
    const recorder = new Recorder();
    const stanza = new SyntheticStanza(recorder as unknown as MemoryStore, spec.root, spec.stanza);
    const backupCount = Math.max(3, Math.min(20, Math.floor(spec.segments / 5_000)));
    const compressions: readonly SyntheticCompress[] = ['gz', 'zst', 'none'];
    const extraKeys = new Set<string>();
    let full: string | null = null;
    let diff: string | null = null;
    let prior: string | null = null;
    let sets = 0;
    let finished = 0;
    for (let i = 0; i < backupCount; i++) {
      const offset = Math.floor(((i + 0.5) * spec.segments) / backupCount);
      const t = offset < n1 ? (timelines[0] as (typeof timelines)[number]) : (timelines[1] as (typeof timelines)[number]);
      let begin = t.from + (offset < n1 ? offset : offset - n1);
      const set = missing.get(t.id) as Set<number>;
      while (set.has(begin) || set.has(begin + 1)) begin += 4;
      begin = Math.min(begin, t.to - 2);
      const when = at(begin);
      const stamp = when.toISOString().slice(0, 19).replace(/-/g, '').replace(/:/g, '').replace('T', '-');
      const kind: 'full' | 'diff' | 'incr' = i % 6 === 0 ? 'full' : i % 6 === 3 ? 'diff' : 'incr';
      let b: Pick<SyntheticBackup, 'label' | 'type' | 'prior' | 'reference' | 'bundled' | 'files'>;
      if (kind === 'full' || full === null) {
        full = `${stamp}F`;
        diff = null;
        sets += 1;
        b = { label: full, type: 'full', bundled: sets % 2 === 1, files: clusterFiles() };
      } else {
        const label = `${full}_${stamp}${kind === 'diff' ? 'D' : 'I'}`;
        const reference = kind === 'diff' ? [full] : diff === null ? (prior === full ? [full] : [full, prior as string]) : prior === diff ? [full, diff] : [full, diff, prior as string];
        b = { label, type: kind, prior: kind === 'diff' ? full : (prior as string), reference: [...new Set(reference)].sort() };
        if (kind === 'diff') diff = label;
      }
      const interrupted = i === backupCount - 1;
      stanza.backup({
        ...b,
        timeline: t.id,
        beginPosition: begin,
        endPosition: begin + 1,
        beginTime: when,
        endTime: new Date(when.getTime() + 90_000),
        compress: compressions[i % compressions.length] as SyntheticCompress,
        ...(interrupted ? { manifest: 'copy-only' as const, listed: false } : {}),
      });
      if (!interrupted) {
        prior = b.label;
        finished += 1;
      }
    }
    stanza.info({ at: at(first) });
    stanza.history(2, [{ parent: 1, switchpoint: stanza.switchpoint(switchAt) }], at(switchAt));

    // Everything the writer put, as one group per object, except what lands in a segment directory
    // (the `.backup` files), which joins that directory's group.
    const groups: Group[] = [];
    const inDir = new Map<string, CorpusObject[]>();
    const archive = `${spec.root}archive/${spec.stanza}/${ARCHIVE_ID}/`;
    let bytesOfWriter = 0;
    const written = recorder.objects;
    for (const o of written) {
      bytesOfWriter += o.size;
      const rest = o.key.startsWith(archive) ? o.key.slice(archive.length) : '';
      const slash = rest.indexOf('/');
      if (slash === 16) {
        const list = inDir.get(rest.slice(0, 16)) ?? [];
        list.push(o);
        inDir.set(rest.slice(0, 16), list);
        extraKeys.add(o.key);
        continue;
      }
      groups.push({ first: o.key, prefix: o.key, count: 1, bytes: o.size, build: () => [o] });
    }
    const backupHistory = [...inDir.values()].reduce((n, l) => n + l.length, 0);

    // The `.partial` of the promotion, in timeline 1's directory of the switch.
    const partialName = name(1, switchAt);
    const partial: CorpusObject = { key: `${archive}${partialName.slice(0, 16)}/${partialName}.partial-${sha1Looking(spec.seed, 1, switchAt)}${ext(compressionAt(switchAt))}`, size: segmentBody(compressionAt(switchAt)).size, body: segmentBody(compressionAt(switchAt)).body, lastModified: at(switchAt) };
    inDir.set(partialName.slice(0, 16), [...(inDir.get(partialName.slice(0, 16)) ?? []), partial]);

    const walCounts: WalCounts = { segment: 0, partial: 1, history: 1, backup_history: backupHistory, unknown: 0, duplicate: 0 };
    let walBytes = 0;
    for (const t of timelines) {
      const set = missing.get(t.id) as Set<number>;
      const top = t.id === 1 ? switchAt : t.to;
      for (let log = Math.floor(t.from / PER_LOG); log <= Math.floor(top / PER_LOG); log++) {
        const lo = Math.max(t.from, log * PER_LOG);
        const hi = Math.min(t.to, log * PER_LOG + PER_LOG - 1);
        const dir = name(t.id, lo).slice(0, 16);
        const extra = inDir.get(dir) ?? [];
        let count = extra.length;
        let bytes = extra.reduce((n, e) => n + e.size, 0);
        for (let p = lo; p <= hi; p++) {
          if (set.has(p)) continue;
          count += 1;
          bytes += segmentBody(compressionAt(p)).size;
          walCounts.segment += 1;
        }
        walBytes += bytes - extra.filter((e) => extraKeys.has(e.key)).reduce((n, e) => n + e.size, 0);
        const prefix = `${archive}${dir}/`;
        const build = () => {
          const out: CorpusObject[] = [...extra];
          for (let p = lo; p <= hi; p++) {
            if (set.has(p)) continue;
            const c = compressionAt(p);
            const b = segmentBody(c);
            out.push({ key: `${prefix}${name(t.id, p)}-${sha1Looking(spec.seed, t.id, p)}${ext(c)}`, size: b.size, body: b.body, lastModified: at(p) });
          }
          return extra.length === 0 ? out : out.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
        };
        groups.push({ first: `${prefix}${name(t.id, lo)}`, prefix, count, bytes, build });
      }
    }
    const { objects, bytes } = this.seal(groups);
    if (bytes !== bytesOfWriter + walBytes) throw new Error(`stanza corpus: ${bytes} bytes in groups, ${bytesOfWriter + walBytes} planned`);
    const segments = spec.segments - gaps.reduce((s, g) => s + g.segments, 0);
    if (segments !== walCounts.segment) throw new Error(`stanza corpus: ${segments} segments planned, ${walCounts.segment} written`);
    this.truth = { objects, bytes, segments, walCounts, gaps, backups: finished, timelines: 2 };
  }
}

/**
 * What the synthetic stanza writer puts, kept as corpus objects: it only ever calls `put`, so a
 * recorder stands in for its MemoryStore. A sparse object (a listed size past its body) gets a
 * body of that size, zeros after its first bytes, built when the store loader asks.
 */
class Recorder {
  readonly objects: CorpusObject[] = [];
  put(key: string, body: Uint8Array | string, lastModified: Date | null = null, size?: number): void {
    const bytes = typeof body === 'string' ? Buffer.from(body) : body;
    const listed = size ?? bytes.length;
    const padded = listed === bytes.length ? () => bytes : () => {
      const out = new Uint8Array(listed);
      out.set(bytes.subarray(0, listed));
      return out;
    };
    this.objects.push({ key, size: listed, body: padded, lastModified: lastModified ?? new Date(0) });
  }
}

/** The pgBackRest corpora the bench loads into its store, beside the barman-cloud ones. */
export const STANZA_STORE_CORPORA = {
  full: { root: 'bench-pgbackrest/', stanza: 'main', segments: 100_000, seed: 20261123 },
  quick: { root: 'bench-pgbackrest-quick/', stanza: 'main', segments: 20_000, seed: 20261123 },
} as const satisfies Record<string, StanzaCorpusSpec>;
