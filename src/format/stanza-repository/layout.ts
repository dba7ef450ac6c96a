/**
 * Where a stanza's files are in a pgBackRest repository (research pgbackrest-format.md §1): the
 * stanza is the scope, and its two areas `archive/<stanza>/` (archive.info, the WAL) and
 * `backup/<stanza>/` (backup.info, the backups, the history manifests) sit under the repository
 * root, which is the destination prefix. The scope's base is that root, so keys handed to the
 * format are `archive/<stanza>/…` and `backup/<stanza>/…`, and every request stays under the two
 * areas (confinement).
 */

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
