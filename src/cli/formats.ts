/**
 * The repository formats viewer reads, by their `REPOSITORY_FORMAT` value: the one place the
 * command line turns a configured format into the seam's `RepositoryFormat` (its layout, its
 * rules, its retention-policy syntax): barman-cloud's `archive-cloud` and pgBackRest's
 * `stanza-repository`.
 */
import { FORMAT_ARCHIVE_CLOUD, FORMAT_STANZA_REPOSITORY } from '../contract/primitives.ts';
import { archiveCloud } from '../format/barman-cloud/format.ts';
import type { RepositoryFormat } from '../format/seam.ts';
import { stanzaRepository } from '../format/stanza-repository/format.ts';

/** Standalone mode reads both; the configuration refuses all but `archive-cloud` in sidecar mode. */
export const FORMATS = { [FORMAT_ARCHIVE_CLOUD]: archiveCloud, [FORMAT_STANZA_REPOSITORY]: stanzaRepository } as const satisfies Record<string, RepositoryFormat>;

/**
 * The format a `REPOSITORY_FORMAT` value names. An unknown or missing value is already a refused
 * configuration by then; `archive-cloud` (the default) stands in so the rest of the variables
 * are still checked and every violation is reported at once.
 */
export function formatNamed(name: string | undefined): RepositoryFormat {
  return name !== undefined && Object.hasOwn(FORMATS, name) ? FORMATS[name as keyof typeof FORMATS] : FORMATS[FORMAT_ARCHIVE_CLOUD];
}
