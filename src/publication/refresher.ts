/**
 * The background refresher of one scope: one scan at a time, the next started a jittered interval
 * after the previous one started (at once if it ran longer), each result published (a complete
 * generation or a failed attempt), the freshness threshold watched by its own timer (a scan in
 * flight, however long, does not keep old evidence looking fresh), and everything cancellable on
 * shutdown. After failed attempts the interval backs off (D-74): doubled after each consecutive
 * failure, at most `MAX_BACKOFF_FACTOR` times, back to the interval after a complete scan. When a
 * scan settles its signal is aborted, so store requests it left running (the other lanes of a
 * bounded-concurrency read, a listing's prefetched page) are canceled and none starts after it.
 */
import { categoryOf } from '../common/errors.ts';
import { BudgetMeter, type ScanBudget } from '../evidence/listing.ts';
import type { ScopeEvidence } from '../evidence/scope-scan.ts';
import type { Publication, Publisher } from './publisher.ts';

/** Runs one scan, charging `meter`; failures are thrown as typed errors. */
export type ScanFunction = (signal: AbortSignal, next: Publisher['nextScan'], meter: BudgetMeter) => Promise<ScopeEvidence>;

/** The longest a failed store makes the refresher wait: this many intervals (D-74). */
export const MAX_BACKOFF_FACTOR = 4;

export interface RefresherOptions {
  readonly publisher: Publisher;
  readonly scan: ScanFunction;
  readonly budget: ScanBudget;
  readonly intervalMs: number;
  /** Fraction of the interval added or removed at random (0.1 = ±10 %). */
  readonly jitter?: number;
  /** Scans that outlive this are aborted as `timeout`. */
  readonly scanTimeoutMs: number;
  readonly onPublish?: (p: Publication) => void;
  /**
   * Waits for this scope's turn among scans that share the store work (a fleet's, D-100); resolves
   * with its release. The scan's deadline and times start once the turn is granted: waiting in the
   * queue is no part of the scan.
   */
  readonly turn?: (signal: AbortSignal) => Promise<() => void>;
  readonly random?: () => number;
  readonly now?: () => Date;
}

export class Refresher {
  readonly #o: RefresherOptions;
  readonly #stop = new AbortController();
  #timer: NodeJS.Timeout | null = null;
  #freshnessTimer: NodeJS.Timeout | null = null;
  #running: Promise<void> | null = null;
  /** Failed attempts since the last complete scan: the backoff's exponent. */
  #failures = 0;

  constructor(options: RefresherOptions) {
    this.#o = options;
  }

  /** Starts the first scan now; later ones follow on the jittered interval. */
  start(): void {
    this.#schedule(0);
  }

  /** Runs one refresh now (also used by `start`); resolves when its result is published. */
  refreshNow(): Promise<void> {
    this.#running ??= this.#refresh().finally(() => {
      this.#running = null;
    });
    return this.#running;
  }

  /** Aborts the scan in flight, cancels the schedule and waits for the abort to settle. */
  async stop(): Promise<void> {
    this.#stop.abort();
    if (this.#timer !== null) clearTimeout(this.#timer);
    if (this.#freshnessTimer !== null) clearTimeout(this.#freshnessTimer);
    await this.#running;
  }

  #now(): Date {
    return (this.#o.now ?? (() => new Date()))();
  }

  /** Hands a publication on, then arms the timer for the moment it turns stale. */
  #publish(p: Publication): void {
    this.#o.onPublish?.(p);
    if (this.#freshnessTimer !== null) clearTimeout(this.#freshnessTimer);
    this.#freshnessTimer = null;
    const at = this.#o.publisher.staleAt();
    if (at === null || this.#stop.signal.aborted) return;
    this.#freshnessTimer = setTimeout(() => {
      const next = this.#o.publisher.checkFreshness(this.#now());
      if (next !== p) this.#publish(next);
    }, Math.max(0, at - this.#now().getTime()));
    this.#freshnessTimer.unref();
  }

  #schedule(delayMs: number): void {
    if (this.#stop.signal.aborted) return;
    this.#timer = setTimeout(() => {
      // The interval runs from start to start (the spec's REFRESH_INTERVAL_SECONDS); a scan that
      // outlasted it is followed at once.
      const started = this.#now().getTime();
      void this.refreshNow().then(() => this.#schedule(Math.max(0, started + this.#nextDelay() - this.#now().getTime())));
    }, delayMs);
    this.#timer.unref();
  }

  /** The jittered interval, times the backoff factor: 2^failures, at most MAX_BACKOFF_FACTOR. */
  #nextDelay(): number {
    const j = this.#o.jitter ?? 0.1;
    const r = this.#o.random ?? Math.random;
    const factor = Math.min(2 ** this.#failures, MAX_BACKOFF_FACTOR);
    return Math.max(0, Math.round(this.#o.intervalMs * factor * (1 + j * (2 * r() - 1))));
  }

  async #refresh(): Promise<void> {
    const now = () => this.#now();
    const { publisher } = this.#o;
    const publish = (p: Publication) => this.#publish(p);
    publish(publisher.checkFreshness(now()));
    if (this.#stop.signal.aborted) return;
    let release: () => void = () => undefined;
    if (this.#o.turn !== undefined) {
      try {
        release = await this.#o.turn(this.#stop.signal);
      } catch {
        return; // Only a shutdown ends the wait.
      }
    }
    try {
      await this.#attempt(now);
    } finally {
      release();
    }
  }

  async #attempt(now: () => Date): Promise<void> {
    const { publisher } = this.#o;
    const publish = (p: Publication) => this.#publish(p);
    const startedAt = now();
    const deadline = AbortSignal.timeout(this.#o.scanTimeoutMs);
    // Aborted once the scan has settled: what it left running against the store stops there.
    const settled = new AbortController();
    const signal = AbortSignal.any([this.#stop.signal, deadline, settled.signal]);
    const meter = new BudgetMeter(this.#o.budget);
    try {
      const evidence = await this.#o.scan(signal, publisher.nextScan, meter);
      settled.abort();
      const p = publisher.complete(evidence, { startedAt, finishedAt: now(), pages: meter.pages, objects: meter.objects });
      // A truncated scan is published as a failure, and backs off like one.
      this.#failures = p.generation > 0 && p.snapshot.inventory.last_failure_category === null ? 0 : this.#failures + 1;
      publish(p);
    } catch (error) {
      settled.abort();
      // A shutdown is not a refresh result: nothing is published for it.
      if (this.#stop.signal.aborted) return;
      const category = deadline.aborted ? 'timeout' : categoryOf(error);
      this.#failures += 1;
      publish(publisher.fail(category, { startedAt, finishedAt: now(), pages: meter.pages, objects: meter.objects }));
    }
  }
}
