/**
 * Discovery of the server scopes under a destination prefix (standalone mode without
 * ARCHIVE_SERVER_NAMES): one delimiter listing; every "directory" whose name passes the server-name
 * allowlist is a scope. Names that fail it never become scopes.
 */
import { SERVER_NAME_PATTERN } from '../contract/primitives.ts';
import type { StoreDriver } from '../store/driver.ts';
import { listPages, type BudgetMeter } from './listing.ts';

const NAME = new RegExp(SERVER_NAME_PATTERN);

export async function discoverServers(driver: StoreDriver, destinationPrefix: string, signal: AbortSignal, meter: BudgetMeter): Promise<string[]> {
  const prefix = destinationPrefix === '' ? '' : `${destinationPrefix}/`;
  const names: string[] = [];
  for await (const page of listPages(driver, { prefix, delimiter: '/', signal, meter })) {
    for (const p of page.prefixes) {
      const name = p.slice(prefix.length, -1);
      if (NAME.test(name)) names.push(name);
    }
  }
  return names.sort();
}
