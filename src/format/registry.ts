/**
 * The registry of repository formats: the one list of the formats viewer reads, by their
 * `REPOSITORY_FORMAT` value. Every layer that needs "each format" iterates it (the configuration's
 * allowed values, the recognition of a foreign layout, the hints) instead of naming formats; adding
 * a format is its folder and one line here (docs/architecture.md, "How to add a format").
 *
 * The first entry is the default format (the embedded demo's). Tests register a format of their own
 * with `registerFormat` (test/format/toy-layout: the seam proven without any file outside its folder
 * knowing it) and remove it again with the function it returns.
 */
import { archiveCloud } from './barman-cloud/format.ts';
import type { ForeignLayout, RepositoryFormat } from './seam.ts';
import { stanzaRepository } from './stanza-repository/format.ts';

const FORMATS: RepositoryFormat[] = [archiveCloud, stanzaRepository];

/** Every registered format, the default first. */
export function registeredFormats(): readonly RepositoryFormat[] {
  return FORMATS;
}

/** The ids of every registered format, in registry order (the values `REPOSITORY_FORMAT` accepts). */
export function formatIds(): readonly string[] {
  return FORMATS.map((f) => f.id);
}

/** The format the configuration uses when `REPOSITORY_FORMAT` is unset (standalone mode). */
export function defaultFormat(): RepositoryFormat {
  const first = FORMATS[0];
  if (first === undefined) throw new TypeError('no repository format is registered');
  return first;
}

/** The registered format of an id; null for one that is not registered. */
export function formatById(id: string | undefined): RepositoryFormat | null {
  return FORMATS.find((f) => f.id === id) ?? null;
}

/**
 * The format a `REPOSITORY_FORMAT` value names. An unknown or missing value is already a refused
 * configuration by then; the default stands in so the rest of the variables are still checked and
 * every violation is reported at once.
 */
export function formatNamed(id: string | undefined): RepositoryFormat {
  return formatById(id) ?? defaultFormat();
}

/** Every registered format's layout but `format`'s own: what its discovery and scope reading recognise. */
export function foreignLayouts(format: Pick<RepositoryFormat, 'id'>): readonly ForeignLayout[] {
  return FORMATS.filter((f) => f.id !== format.id).map((f) => ({ id: f.id, layout: f.layout }));
}

/** Adds a format to the registry (tests); the returned function removes it again. An id already registered is refused. */
export function registerFormat(format: RepositoryFormat): () => void {
  if (FORMATS.some((f) => f.id === format.id)) throw new TypeError(`format ${format.id} is already registered`);
  FORMATS.push(format);
  return () => {
    const i = FORMATS.indexOf(format);
    if (i >= 0) FORMATS.splice(i, 1);
  };
}
