/**
 * Discovery of the stanzas of a pgBackRest repository (standalone mode without
 * ARCHIVE_SERVER_NAMES): the repository root is the destination, and every folder of `backup/` or
 * `archive/` whose name passes the server-name allowlist is a stanza (one that has only one of the
 * two areas is still one: the scan says what is missing). Everything else under the destination —
 * objects beside the two areas or directly in them, other folders, folders whose names fail the
 * allowlist — belongs to no scope: it is listed and counted, never lost, never turned into a
 * scope. A destination without any stanza is asked of every other registered format (its own
 * `holdsAt`), so a Barman cloud repository is named as such. Keys are relative to the destination
 * (the access's base).
 */
import { SERVER_NAME_PATTERN } from '../../contract/values.ts';
import type { Discovery, ForeignLayout, ScopeAccess } from '../seam.ts';

const NAME = new RegExp(SERVER_NAME_PATTERN);
const AREAS = new Set(['archive/', 'backup/']);

export async function discoverStanzas(access: ScopeAccess, others: readonly ForeignLayout[]): Promise<Discovery> {
  const stanzas = new Set<string>();
  const unscoped: string[] = [];
  let unscopedObjects = 0;
  for await (const page of access.level('')) {
    unscopedObjects += page.objects.length;
    for (const folder of page.folders) {
      if (!AREAS.has(folder)) {
        unscoped.push(folder);
        continue;
      }
      for await (const inner of access.level(folder)) {
        unscopedObjects += inner.objects.length;
        for (const f of inner.folders) {
          const name = f.slice(folder.length, -1);
          if (NAME.test(name)) stanzas.add(name);
          else unscoped.push(f);
        }
      }
    }
  }
  for (const folder of unscoped) {
    for await (const page of access.objects(folder)) unscopedObjects += page.length;
  }
  // No stanza at all: another registered format's layout may be what lies here (asked by its own `holdsAt`).
  let foreignFormat: string | null = null;
  if (stanzas.size === 0) {
    const names = unscoped.filter((f) => f.indexOf('/') === f.length - 1).map((f) => f.slice(0, -1));
    for (const other of others) {
      if (await other.layout.holdsAt(access, names)) {
        foreignFormat = other.id;
        break;
      }
    }
  }
  return { servers: [...stanzas].sort(), unscopedObjects, foreignFormat };
}
