/**
 * Confinement (sidecar rule 4): a driver wrapper that lets no request leave a scope's root
 * prefixes (for barman-cloud the one `<destination prefix>/<server>/`; a format whose scope spans
 * several areas names them all), even when the credential could read more. A request outside
 * it is a programming error and fails before anything is sent; a listed key outside it (a store
 * that ignored the prefix) is refused rather than trusted, and so is a listed object without a
 * size (drivers pass a missing size on as NaN): byte totals are published as exact, so a size the
 * store did not give is never guessed as 0. A receipt time the wire cannot carry becomes unknown,
 * and so does a page's store time (its `Date` header) the wire could not carry. Every scope listing passes through here, so these are the one place such store answers are judged.
 */
import { StoreError } from '../common/errors.ts';
import { TIMESTAMP_PATTERN } from '../contract/values.ts';
import type { ListPage, ListRequest, ReadRequest, ReadResult, StoreDriver, StreamResult } from './driver.ts';

export function confine(driver: StoreDriver, roots: string | readonly string[]): StoreDriver {
  const all = typeof roots === 'string' ? [roots] : roots;
  if (all.length === 0 || !all.every((r) => r.endsWith('/'))) throw new TypeError('confinement needs roots, each ending with /');
  const inside = (key: string) => all.some((r) => key.startsWith(r));
  const refuse = (): never => {
    throw new StoreError('invalid_configuration', 'a store request left the confined prefix');
  };
  return {
    ...(driver.capabilities === undefined ? {} : { capabilities: driver.capabilities }),
    async listPage(request: ListRequest): Promise<ListPage> {
      if (!inside(request.prefix) || (request.startAfter !== undefined && !inside(request.startAfter))) refuse();
      const page = await driver.listPage(request);
      if (!page.objects.every((o) => inside(o.key)) || !page.prefixes.every(inside)) {
        throw new StoreError('incompatible_format', 'the store listed keys outside the requested prefix');
      }
      // One pass over the page (this runs for every listed key): sizes must be there; a receipt
      // time that is no date, or outside what the wire can carry, becomes unknown (null), since one
      // odd object must not make the whole publication invalid.
      let oddTimes = false;
      for (const o of page.objects) {
        if (!Number.isSafeInteger(o.size) || o.size < 0) throw new StoreError('incompatible_format', 'the store listed an object without a valid size');
        if (!receiptTimeUsable(o.lastModified)) oddTimes = true;
      }
      // The store time passes on as the store gave it, or as unknown: never replaced by another clock.
      const storeTime = receiptTimeUsable(page.storeTime) ? page.storeTime : null;
      if (!oddTimes && storeTime === page.storeTime) return page;
      return { ...page, storeTime, objects: oddTimes ? page.objects.map((o) => (receiptTimeUsable(o.lastModified) ? o : { ...o, lastModified: null })) : page.objects };
    },
    // Async like every driver method: a refusal is a rejected promise, never a synchronous throw.
    async read(request: ReadRequest): Promise<ReadResult> {
      if (!inside(request.key)) refuse();
      return driver.read(request);
    },
    async readStream(request: ReadRequest): Promise<StreamResult> {
      if (!inside(request.key)) refuse();
      return driver.readStream(request);
    },
    close: () => driver.close(),
  };
}

const LAST_WIRE_INSTANT = Date.UTC(9999, 11, 31, 23, 59, 59, 999);
const WIRE_TIMESTAMP = new RegExp(TIMESTAMP_PATTERN);

/**
 * Null, or a time the wire's timestamp schema accepts (D-04): not the epoch itself, nor any other
 * "zero" time, nor a year beyond four digits. The fast test covers every ordinary receipt time;
 * the schema's own pattern decides the rest.
 */
function receiptTimeUsable(d: Date | null): boolean {
  if (d === null) return true;
  const t = d.getTime();
  if (t > 0 && t <= LAST_WIRE_INSTANT) return true;
  return Number.isFinite(t) && t <= LAST_WIRE_INSTANT && WIRE_TIMESTAMP.test(d.toISOString());
}
