/**
 * Concurrency for store work: a scan reads many small objects (backup metadata, history files)
 * and must not have more requests in flight than its configured concurrency; and work run side by
 * side answers only once all of it has settled, so nothing keeps reading the store behind an
 * answer (a failure is reported after the rest has stopped).
 */

/** Every promise settled, then the first failure in the given order, or all the values. */
export async function settleAll<T extends readonly unknown[]>(promises: { readonly [K in keyof T]: Promise<T[K]> }): Promise<T> {
  const settled = await Promise.allSettled(promises);
  const values: unknown[] = [];
  for (const r of settled) {
    if (r.status === 'rejected') throw r.reason;
    values.push(r.value);
  }
  return values as unknown as T;
}

/**
 * Runs `work` over `items` with at most `limit` in flight, keeping order. After a failure no lane
 * takes another item, and the failure is reported only once the items in flight have settled:
 * nothing keeps reading the store after the caller has its answer.
 */
export async function mapLimit<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array<R>(items.length);
  let next = 0;
  let failed = false;
  const lane = async () => {
    while (!failed && next < items.length) {
      const i = next++;
      try {
        out[i] = await work(items[i] as T);
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  };
  await settleAll(Array.from({ length: Math.min(limit, items.length) }, lane));
  return out;
}

/**
 * Turns of a bounded resource shared by many lanes (a fleet's scans: one lane per repository): at
 * most `limit` held at once, at most one per lane, granted first come first served among the lanes
 * that hold none. One lane that never gives its turn back (a store that hangs until the scan's
 * deadline) holds one turn, never the others' queue. `take` resolves with the release function; an
 * abort while waiting rejects with the signal's reason and leaves the queue.
 */
export class Turns {
  readonly #limit: number;
  readonly #busy = new Set<string>();
  readonly #waiting: { readonly lane: string; readonly grant: () => void }[] = [];

  constructor(limit: number) {
    if (!Number.isSafeInteger(limit) || limit < 1) throw new RangeError('a turn limit is a positive integer');
    this.#limit = limit;
  }

  /** Turns held now. */
  get held(): number {
    return this.#busy.size;
  }

  /** Waits for a turn of `lane`; resolves with its release (idempotent). */
  take(lane: string, signal?: AbortSignal): Promise<() => void> {
    return new Promise((resolve, reject) => {
      if (signal?.aborted === true) return reject(signal.reason as Error);
      const waiter = {
        lane,
        grant: () => {
          signal?.removeEventListener('abort', onAbort);
          this.#busy.add(lane);
          let released = false;
          resolve(() => {
            if (released) return;
            released = true;
            this.#busy.delete(lane);
            this.#next();
          });
        },
      };
      const onAbort = () => {
        const i = this.#waiting.indexOf(waiter);
        if (i >= 0) this.#waiting.splice(i, 1);
        reject(signal?.reason as Error);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#waiting.push(waiter);
      this.#next();
    });
  }

  #next(): void {
    while (this.#busy.size < this.#limit) {
      const i = this.#waiting.findIndex((w) => !this.#busy.has(w.lane));
      if (i < 0) return;
      const [w] = this.#waiting.splice(i, 1);
      w?.grant();
    }
  }
}
