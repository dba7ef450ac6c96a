/**
 * Discovery of a destination's scopes through its format: the format decides what a scope is and
 * what else it recognises there (every other registered format's layout, asked through the
 * registry); listings go through the same counting, budgeted access as a
 * scan's, rooted at the destination instead of a scope.
 */
import { foreignLayouts } from '../format/registry.ts';
import type { Discovery, RepositoryFormat } from '../format/seam.ts';
import type { StoreDriver } from '../store/driver.ts';
import type { BudgetMeter } from './listing.ts';
import { CountingScopeAccess } from './scope-access.ts';

export function discoverScopes(format: RepositoryFormat, driver: StoreDriver, destinationPrefix: string, signal: AbortSignal, meter: BudgetMeter): Promise<Discovery> {
  const base = destinationPrefix === '' ? '' : `${destinationPrefix}/`;
  return format.discoverScopes(new CountingScopeAccess({ driver, base, signal, meter, concurrency: 1 }), foreignLayouts(format));
}
