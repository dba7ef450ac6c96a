/**
 * The lightweight reachability check behind `/readyz`: one listing call of at most one key under
 * the scope root, on an interval, never a scan. Ready means the last success is within the
 * readiness window; the failure category is kept for logs, never for a response body.
 */
import { categoryOf } from '../common/errors.ts';
import type { FailureCategory } from '../contract/primitives.ts';
import type { StoreDriver } from '../store/driver.ts';

export interface ReachabilityOptions {
  readonly driver: StoreDriver;
  readonly root: string;
  readonly windowMs: number;
  readonly now?: () => number;
  readonly onResult?: (category: FailureCategory | null) => void;
}

export class Reachability {
  readonly #o: ReachabilityOptions;
  readonly #stop = new AbortController();
  #lastSuccess: number | null = null;
  #timer: NodeJS.Timeout | null = null;

  constructor(options: ReachabilityOptions) {
    this.#o = options;
  }

  ready(): boolean {
    const now = (this.#o.now ?? Date.now)();
    return this.#lastSuccess !== null && now - this.#lastSuccess <= this.#o.windowMs;
  }

  async check(): Promise<void> {
    const timeout = AbortSignal.any([this.#stop.signal, AbortSignal.timeout(Math.max(1_000, Math.floor(this.#o.windowMs / 3)))]);
    try {
      await this.#o.driver.listPage({ prefix: this.#o.root, maxKeys: 1, signal: timeout });
      this.#lastSuccess = (this.#o.now ?? Date.now)();
      this.#o.onResult?.(null);
    } catch (error) {
      this.#o.onResult?.(categoryOf(error));
    }
  }

  /** Checks now, then every third of the window. */
  start(): void {
    const loop = () => {
      if (this.#stop.signal.aborted) return;
      void this.check().then(() => {
        if (this.#stop.signal.aborted) return;
        this.#timer = setTimeout(loop, Math.max(1_000, Math.floor(this.#o.windowMs / 3)));
        this.#timer.unref();
      });
    };
    loop();
  }

  stop(): void {
    this.#stop.abort();
    if (this.#timer !== null) clearTimeout(this.#timer);
  }
}
