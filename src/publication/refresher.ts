/**
 * The background refresher of one scope: one scan at a time, started again a jittered interval
 * after the previous start, each result published (a complete generation or a failed attempt),
 * the freshness threshold checked between scans, and everything cancellable on shutdown.
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
    await this.#running;
  }

  #schedule(delayMs: number): void {
    if (this.#stop.signal.aborted) return;
    this.#timer = setTimeout(() => {
      void this.refreshNow().then(() => this.#schedule(this.#nextDelay()));
    }, delayMs);
    this.#timer.unref();
  }

  #nextDelay(): number {
    const j = this.#o.jitter ?? 0.1;
    const r = this.#o.random ?? Math.random;
    return Math.max(0, Math.round(this.#o.intervalMs * (1 + j * (2 * r() - 1))));
  }

  async #refresh(): Promise<void> {
    const now = this.#o.now ?? (() => new Date());
    const { publisher } = this.#o;
    const publish = (p: Publication) => this.#o.onPublish?.(p);
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
