/**
 * A typed view of pgBackRest's `archive.info` (already read by info-file.ts): the current
 * database and its history, each history entry named by the archive id its WAL lives under
 * (`<db-version>-<history id>`, e.g. `15-1`; `infoPgArchiveId` in `src/info/infoPg.c`).
 *
 * The naming trap (research pgbackrest-format.md §2): inside archive.info's `[db:history]`
 * objects the key `db-id` holds the system identifier, not the history id (`infoPgLoadCallback`
 * reads `db-id` there for archive files, `db-system-id` for backup files); readPg handles it.
 * Values are validated like backup-info.ts does: invalid → null with a typed problem.
 */
import type { InfoFile } from './info-file.ts';
import { readPg, type InfoProblem, type PgCurrent, type PgHistoryEntry } from './backup-info.ts';

export interface ArchiveHistoryEntry extends PgHistoryEntry {
  /** The directory under `archive/<stanza>/` holding this database's WAL; null when the version is invalid. */
  readonly archiveId: string | null;
}

export interface ArchiveInfo {
  readonly db: PgCurrent;
  /** The current database's archive id (where new WAL goes); null when unknown. */
  readonly currentArchiveId: string | null;
  /** By history id, ascending. */
  readonly history: readonly ArchiveHistoryEntry[];
  /** The file carries a `[cipher]` passphrase: the WAL is encrypted. */
  readonly encrypted: boolean;
  readonly problems: readonly InfoProblem[];
}

export function archiveIdOf(version: string | null, id: number | null): string | null {
  return version === null || id === null ? null : `${version}-${id}`;
}

/** The typed view of a loaded `archive.info`. */
export function readArchiveInfo(file: InfoFile): ArchiveInfo {
  const problems: InfoProblem[] = [];
  const { current, history } = readPg(file, problems, 'archive');
  return {
    db: current,
    currentArchiveId: archiveIdOf(current.version, current.id),
    history: history.map((h) => ({ ...h, archiveId: archiveIdOf(h.version, h.id) })),
    encrypted: file.cipherPass,
    problems,
  };
}
