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
