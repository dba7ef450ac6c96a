/**
 * The background refresher of one scope: one scan at a time, the next started a jittered interval
 * after the previous one started (at once if it ran longer), each result published (a complete
 * generation or a failed attempt), the freshness threshold watched by its own timer (a scan in
 * flight, however long, does not keep old evidence looking fresh), and everything cancellable on
 * shutdown.
 */
import { categoryOf } from '../common/errors.ts';
import { BudgetMeter, type ScanBudget } from '../evidence/listing.ts';
import type { ScopeEvidence } from '../evidence/scope-scan.ts';
import type { Publication, Publisher } from './publisher.ts';

/** Runs one scan, charging `meter`; failures are thrown as typed errors. */
export type ScanFunction = (signal: AbortSignal, next: Publisher['nextScan'], meter: BudgetMeter) => Promise<ScopeEvidence>;

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
  readonly random?: () => number;
  readonly now?: () => Date;
}

export class Refresher {
  readonly #o: RefresherOptions;
  readonly #stop = new AbortController();
  #timer: NodeJS.Timeout | null = null;
  #freshnessTimer: NodeJS.Timeout | null = null;
  #running: Promise<void> | null = null;

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

  #nextDelay(): number {
    const j = this.#o.jitter ?? 0.1;
    const r = this.#o.random ?? Math.random;
    return Math.max(0, Math.round(this.#o.intervalMs * (1 + j * (2 * r() - 1))));
  }

  async #refresh(): Promise<void> {
    const now = () => this.#now();
    const { publisher } = this.#o;
    const publish = (p: Publication) => this.#publish(p);
    publish(publisher.checkFreshness(now()));
    if (this.#stop.signal.aborted) return;
    const startedAt = now();
    const signal = AbortSignal.any([this.#stop.signal, AbortSignal.timeout(this.#o.scanTimeoutMs)]);
    const meter = new BudgetMeter(this.#o.budget);
    try {
      const evidence = await this.#o.scan(signal, publisher.nextScan, meter);
      publish(publisher.complete(evidence, { startedAt, finishedAt: now(), pages: meter.pages, objects: meter.objects }));
    } catch (error) {
      // A shutdown is not a refresh result: nothing is published for it.
      if (this.#stop.signal.aborted) return;
      const category = signal.aborted ? 'timeout' : categoryOf(error);
      publish(publisher.fail(category, { startedAt, finishedAt: now(), pages: meter.pages, objects: meter.objects }));
    }
  }
}
