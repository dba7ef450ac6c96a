/**
 * Where a stanza's files are in a pgBackRest repository (research pgbackrest-format.md §1): the
 * stanza is the scope, and its two areas `archive/<stanza>/` (archive.info, the WAL) and
 * `backup/<stanza>/` (backup.info, the backups, the history manifests) sit under the repository
 * root, which is the destination prefix. The scope's base is that root, so keys handed to the
 * format are `archive/<stanza>/…` and `backup/<stanza>/…`, and every request stays under the two
 * areas (confinement). `stanzaLayout` is how other formats and the hints recognise the layout.
 */
import type { LayoutShape, ScopeAccess } from '../seam.ts';

/** The WAL area of a stanza, relative to the repository root. */
export function archiveArea(stanza: string): string {
  return `archive/${stanza}/`;
}

/** The backup area of a stanza, relative to the repository root. */
export function backupArea(stanza: string): string {
  return `backup/${stanza}/`;
}

/** The base a stanza's keys are relative to (the repository root), and the two areas a scan of it may touch. */
export function stanzaRoots(destinationPrefix: string, stanza: string): { readonly base: string; readonly roots: readonly string[] } {
  const base = destinationPrefix === '' ? '' : `${destinationPrefix}/`;
  return { base, roots: [`${base}${backupArea(stanza)}`, `${base}${archiveArea(stanza)}`] };
}

/** The repository root's two areas, which hold the stanzas one level down. */
const AREAS = ['archive', 'backup'] as const;

/** At most this many stanzas are looked into to recognise the layout. */
const STANZAS_CHECKED = 8;

/**
 * A stanza's own metadata (`archive/<stanza>/archive.info`, `backup/<stanza>/backup.info`, either
 * copy), relative to the repository root; the first segment is where an area would be, whatever
 * its name (an area copied or moved under another name is still pgBackRest's).
 */
const STANZA_FILE = /^[^/]+\/[^/]+\/(?:archive|backup)\.info(?:\.copy)?$/;

/** Whether `<area>/<stanza>/<area>.info` (or its copy) exists for one of the first stanzas of `area`. */
async function hasStanzaInfo(access: ScopeAccess, area: (typeof AREAS)[number]): Promise<boolean> {
  const stanzas = (await access.folders(`${area}/`)).slice(0, STANZAS_CHECKED);
  for (const stanza of stanzas) {
    for await (const page of access.level(stanza)) {
      if (page.objects.some((o) => o.key === `${stanza}${area}.info` || o.key === `${stanza}${area}.info.copy`)) return true;
    }
  }
  return false;
}

/** pgBackRest's layout as other formats and the hints see it: the two areas under the root, a stanza's info files in them. */
export const stanzaLayout: LayoutShape = {
  describedAs: 'a pgBackRest repository',
  scopeNoun: 'stanza',
  rootAreas: AREAS,
  scopeAreas: [],
  async holdsAt(access, names) {
    for (const area of AREAS) if (names.includes(area) && (await hasStanzaInfo(access, area))) return true;
    return false;
  },
  ownsKey: (key) => STANZA_FILE.test(key),
};
