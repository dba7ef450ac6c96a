/**
 * Discovery of the server scopes under a destination prefix (standalone mode without
 * ARCHIVE_SERVER_NAMES): one delimiter listing; every "directory" whose name passes the server-name
 * allowlist is a barman-cloud server. Everything else under the destination (objects beside the
 * servers, folders whose names fail the allowlist) belongs to no scope: it is listed and counted,
 * never lost, and never turned into a scope. A destination laid out as another registered format
 * whose scopes lie in areas of its own (pgBackRest's `archive/` and `backup/`) is recognised as
 * that format by its own `holdsAt`, instead of its areas being read as servers. Keys are relative
 * to the destination (the access's base).
 */
import { SERVER_NAME_PATTERN } from '../../contract/values.ts';
import type { Discovery, ForeignLayout, ScopeAccess } from '../seam.ts';

const NAME = new RegExp(SERVER_NAME_PATTERN);

/**
 * The first other format whose areas lie directly under the destination and whose own metadata is
 * there (its `holdsAt`); only a format with areas of its own among `names` is asked, so a plain
 * barman-cloud destination costs no listing more.
 */
async function heldLayout(access: ScopeAccess, names: readonly string[], others: readonly ForeignLayout[]): Promise<ForeignLayout | null> {
  for (const other of others) {
    if (other.layout.rootAreas.some((a) => names.includes(a)) && (await other.layout.holdsAt(access, names))) return other;
  }
  return null;
}

export async function discoverServers(access: ScopeAccess, others: readonly ForeignLayout[]): Promise<Discovery> {
  const names: string[] = [];
  const unnamed: string[] = [];
  let unscopedObjects = 0;
  for await (const page of access.level('')) {
    unscopedObjects += page.objects.length;
    for (const folder of page.folders) {
      const name = folder.slice(0, -1);
      if (NAME.test(name)) names.push(name);
      else unnamed.push(folder);
    }
  }
  const foreign = await heldLayout(access, names, others);
  for (const folder of unnamed) {
    for await (const page of access.objects(folder)) unscopedObjects += page.length;
  }
  // Another format's areas are not servers.
  const servers = foreign === null ? names : names.filter((n) => !foreign.layout.rootAreas.includes(n));
  return { servers: servers.sort(), unscopedObjects: foreign === null ? unscopedObjects : null, foreignFormat: foreign?.id ?? null };
}
