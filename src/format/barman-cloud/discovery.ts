/**
 * Discovery of the server scopes under a destination prefix (standalone mode without
 * ARCHIVE_SERVER_NAMES): one delimiter listing; every "directory" whose name passes the server-name
 * allowlist is a barman-cloud server. Everything else under the destination (objects beside the
 * servers, folders whose names fail the allowlist) belongs to no scope: it is listed and counted,
 * never lost, and never turned into a scope. A destination laid out as a pgBackRest repository
 * (`archive/<stanza>/archive.info`, `backup/<stanza>/backup.info`) is recognised as that format
 * instead of being read as two servers named `archive` and `backup`. Keys are relative to the
 * destination (the access's base).
 */
import { SERVER_NAME_PATTERN } from '../../contract/primitives.ts';
import type { Discovery, ScopeAccess } from '../seam.ts';

const NAME = new RegExp(SERVER_NAME_PATTERN);

/** At most this many stanzas are looked into to recognise pgBackRest's layout. */
const STANZAS_CHECKED = 8;

/** Whether `<area>/<stanza>/<area>.info` exists for some stanza (pgBackRest's own metadata). */
async function hasStanzaInfo(access: ScopeAccess, area: 'archive' | 'backup'): Promise<boolean> {
  const stanzas = (await access.folders(`${area}/`)).slice(0, STANZAS_CHECKED);
  for (const stanza of stanzas) {
    for await (const page of access.level(stanza)) {
      if (page.objects.some((o) => o.key === `${stanza}${area}.info` || o.key === `${stanza}${area}.info.copy`)) return true;
    }
  }
  return false;
}

export async function discoverServers(access: ScopeAccess): Promise<Discovery> {
  const names: string[] = [];
  const others: string[] = [];
  let unscopedObjects = 0;
  for await (const page of access.level('')) {
    unscopedObjects += page.objects.length;
    for (const folder of page.folders) {
      const name = folder.slice(0, -1);
      if (NAME.test(name)) names.push(name);
      else others.push(folder);
    }
  }
  const pgBackRest = (names.includes('archive') && (await hasStanzaInfo(access, 'archive'))) || (names.includes('backup') && (await hasStanzaInfo(access, 'backup')));
  for (const folder of others) {
    for await (const page of access.objects(folder)) unscopedObjects += page.length;
  }
  // pgBackRest's two areas are not servers.
  const servers = pgBackRest ? names.filter((n) => n !== 'archive' && n !== 'backup') : names;
  return { servers: servers.sort(), unscopedObjects: pgBackRest ? null : unscopedObjects, foreignFormat: pgBackRest ? 'stanza-repository' : null };
}
