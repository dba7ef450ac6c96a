/**
 * A latency histogram of fixed size for the soak (bench/soak.ts): logarithmic buckets 1 % wide
 * from 10 µs to 100 s, so a ten-minute flood of millions of requests costs the same few kilobytes
 * as a short one (the server's own memory is one of the soak's figures: keeping every sample
 * would grow it). Quantiles are the upper bound of their bucket (at most 1 % above the sample),
 * the maximum is exact. Histograms cross process boundaries as their non-empty buckets.
 */
const MIN_MS = 0.01;
const GROWTH = 1.01;
const BUCKETS = Math.ceil(Math.log(100_000 / MIN_MS) / Math.log(GROWTH)) + 1;

export interface HistogramData {
  readonly count: number;
  readonly maxMs: number;
  /** [bucket index, count] of every non-empty bucket. */
  readonly buckets: readonly (readonly [number, number])[];
}

export interface Percentiles {
  readonly count: number;
  readonly p50_ms: number | null;
  readonly p99_ms: number | null;
  readonly max_ms: number | null;
}

const bucketOf = (ms: number) => (ms <= MIN_MS ? 0 : Math.min(BUCKETS - 1, Math.ceil(Math.log(ms / MIN_MS) / Math.log(GROWTH))));
const upperBound = (bucket: number) => MIN_MS * GROWTH ** bucket;

export class Histogram {
  readonly #counts = new Float64Array(BUCKETS);
  #count = 0;
  #maxMs = 0;

  record(ms: number): void {
    const b = bucketOf(ms);
    this.#counts[b] = (this.#counts[b] ?? 0) + 1;
    this.#count += 1;
    if (ms > this.#maxMs) this.#maxMs = ms;
  }

  get count(): number {
    return this.#count;
  }

  /** How many samples were above `ms` (exact to the bucket: a sample within 1 % of `ms` may be counted). */
  countAbove(ms: number): number {
    let n = 0;
    for (let b = bucketOf(ms) + 1; b < BUCKETS; b++) n += this.#counts[b] ?? 0;
    return n;
  }

  /** The smallest bucket bound at or above the q-quantile's sample, never above the maximum. */
  quantile(q: number): number | null {
    if (this.#count === 0) return null;
    const rank = Math.max(1, Math.ceil(q * this.#count));
    let seen = 0;
    for (let b = 0; b < BUCKETS; b++) {
      seen += this.#counts[b] ?? 0;
      if (seen >= rank) return Math.min(upperBound(b), this.#maxMs);
    }
    return this.#maxMs;
  }

  percentiles(): Percentiles {
    const round = (v: number | null) => (v === null ? null : Math.round(v * 1000) / 1000);
    return { count: this.#count, p50_ms: round(this.quantile(0.5)), p99_ms: round(this.quantile(0.99)), max_ms: this.#count === 0 ? null : round(this.#maxMs) };
  }

  toData(): HistogramData {
    const buckets: [number, number][] = [];
    this.#counts.forEach((n, b) => {
      if (n > 0) buckets.push([b, n]);
    });
    return { count: this.#count, maxMs: this.#maxMs, buckets };
  }

  merge(d: HistogramData): this {
    for (const [b, n] of d.buckets) this.#counts[b] = (this.#counts[b] ?? 0) + n;
    this.#count += d.count;
    if (d.maxMs > this.#maxMs) this.#maxMs = d.maxMs;
    return this;
  }
}
