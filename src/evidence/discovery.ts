/**
 * Discovery of the server scopes under a destination prefix (standalone mode without
 * ARCHIVE_SERVER_NAMES): one delimiter listing; every "directory" whose name passes the server-name
 * allowlist is a scope. Everything else under the destination (objects beside the scopes, folders
 * whose names fail the allowlist) belongs to no scope: it is listed and counted, never lost, and
 * never turned into a scope. A destination laid out as a pgBackRest repository (`archive/<stanza>/
 * archive.info`, `backup/<stanza>/backup.info`) is recognised as that format instead of being
 * read as two barman-cloud servers named `archive` and `backup`.
 */
import { SERVER_NAME_PATTERN } from '../contract/primitives.ts';
import type { StoreDriver } from '../store/driver.ts';
import { listPages, type BudgetMeter } from './listing.ts';

const NAME = new RegExp(SERVER_NAME_PATTERN);

/** Another repository format recognised at the destination (named as its REPOSITORY_FORMAT would be, D-60). */
export type ForeignFormat = 'stanza-repository';

export interface Discovery {
  /** Server scopes, sorted; empty when the destination holds another format. */
  readonly servers: readonly string[];
  /**
   * Objects under the destination outside every scope, counted exactly; null beside another
   * format's areas, which are recognised but not listed whole (a pgBackRest archive can hold
   * millions of objects, none of them evidence viewer reads).
   */
  readonly unscopedObjects: number | null;
  readonly foreignFormat: ForeignFormat | null;
}

/** At most this many stanzas are looked into to recognise pgBackRest's layout. */
const STANZAS_CHECKED = 8;

/** Whether `<root><area>/<stanza>/<area>.info` exists for some stanza (pgBackRest's own metadata). */
async function hasStanzaInfo(driver: StoreDriver, root: string, area: 'archive' | 'backup', signal: AbortSignal, meter: BudgetMeter): Promise<boolean> {
  const stanzas: string[] = [];
  for await (const page of listPages(driver, { prefix: `${root}${area}/`, delimiter: '/', signal, meter })) {
    stanzas.push(...page.prefixes);
    if (stanzas.length >= STANZAS_CHECKED) break;
  }
  for (const stanza of stanzas.slice(0, STANZAS_CHECKED)) {
    for await (const page of listPages(driver, { prefix: stanza, delimiter: '/', signal, meter })) {
      if (page.objects.some((o) => o.key === `${stanza}${area}.info` || o.key === `${stanza}${area}.info.copy`)) return true;
    }
  }
  return false;
}

export async function discoverServers(driver: StoreDriver, destinationPrefix: string, signal: AbortSignal, meter: BudgetMeter): Promise<Discovery> {
  const root = destinationPrefix === '' ? '' : `${destinationPrefix}/`;
  const names: string[] = [];
  const others: string[] = [];
  let unscopedObjects = 0;
  for await (const page of listPages(driver, { prefix: root, delimiter: '/', signal, meter })) {
    unscopedObjects += page.objects.length;
    for (const p of page.prefixes) {
      const name = p.slice(root.length, -1);
      if (NAME.test(name)) names.push(name);
      else others.push(p);
    }
  }
  const pgBackRest =
    (names.includes('archive') && (await hasStanzaInfo(driver, root, 'archive', signal, meter))) || (names.includes('backup') && (await hasStanzaInfo(driver, root, 'backup', signal, meter)));
  for (const prefix of others) {
    for await (const page of listPages(driver, { prefix, signal, meter })) unscopedObjects += page.objects.length;
  }
  // pgBackRest's two areas are not servers.
  const servers = pgBackRest ? names.filter((n) => n !== 'archive' && n !== 'backup') : names;
  return { servers: servers.sort(), unscopedObjects: pgBackRest ? null : unscopedObjects, foreignFormat: pgBackRest ? 'stanza-repository' : null };
}
