/**
 * The standalone pages, rendered on the server from the last publication of each scope: `/` (the
 * inventory, inventory-page.ts: the repository's display name, what structural evidence is and one
 * observed recovery window per server; with more than one server a table of them first; per server
 * the operator's four questions at the top, then its facts, a timeline picture, the backup catalog,
 * observed recovery coverage per timeline and the recently received objects), `/wals` (the compact
 * WAL evidence with filters, wal-browser.ts) and, in a fleet, the fleet page (fleet-page.ts). Byte
 * counts in binary units, exact bytes in a title; wide tables scroll inside themselves so a 390 px
 * screen never scrolls the page sideways. Plain HTML and one stylesheet whose hash the
 * Content-Security-Policy names; no script (layout.ts).
 * While a publication is stale or holds no complete generation, every item's state is shown as
 * retained historical evidence, never as current health (the wire keeps the item states). Until
 * the first discovery of the destination has ended, every page says discovery is in progress, and
 * the server scopes are unknown, never "0"; while a first scan runs, every page shows its progress
 * (pages and objects listed so far).
 *
 * Every section renders a view model only and names no format: what is a format's own (its facts,
 * the statuses its catalog keeps apart, its layout's words) comes from the repository's format in
 * the page context (`PageContext.format`). This module is the pages' public face: what the server
 * and the command line use of them.
 */
export { fleetPage, SERVER_SUMMARY_HEADINGS, serverSummaryCells, type FleetRepositoryView } from './fleet-page.ts';
export { inventoryPage } from './inventory-page.ts';
export { layout, STYLE, STYLE_HASH } from './layout.ts';
export {
  gapKey,
  PAGE_BOUNDS,
  repositoryQuery,
  type Dependency,
  type DestinationFacts,
  type PageContext,
  type PageFormat,
  type ScopeView,
  type StoreClock,
  type Switchpoint,
} from './page-context.ts';
export { parseWalFilter, rejectedFilterPage, WAL_CLASSES, walsPage, type WalClass, type WalFilter, type WalFilterResult } from './wal-browser.ts';
