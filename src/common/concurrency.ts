/**
 * Bounded concurrency for store work: a scan reads many small objects (backup metadata, history
 * files) and must not have more requests in flight than its configured concurrency.
 */

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
  const lanes = await Promise.allSettled(Array.from({ length: Math.min(limit, items.length) }, lane));
  const rejected = lanes.find((l) => l.status === 'rejected');
  if (rejected !== undefined) throw rejected.reason;
  return out;
}
