/**
 * Collects the objects of one server's `base/` area per backup directory: which metadata,
 * archives and annotations exist, with exact sizes. Directory names that fail the backup-id
 * allowlist never become backups; their objects are counted as unknown. An archive object below
 * the smallest valid archive of its compression is recorded as such (empty and truncated tars).
 */
import type { ArchiveCompression, ClassifiedKey } from './classify.ts';
import { minimumArchiveBytes } from './size-floors.ts';

export interface ArchiveSet {
  /** Chunk numbers seen for this archive name (0 = the first archive). */
  readonly chunks: Set<number>;
  bytes: number;
  /** Objects smaller than any valid archive of their compression (`size-floors.ts`). */
  tooSmall: number;
}

export interface BackupDirectory {
  readonly backupId: string;
  /** Key of `backup.info`, when present (read after listing, never exported). */
  infoKey: string | null;
  infoSize: number;
  keepKey: string | null;
  hasBackupLabel: boolean;
  /** PGDATA archive (`data`) under `null`, tablespace archives under their OID. */
  readonly archives: Map<number | null, ArchiveSet>;
  readonly compressions: Set<ArchiveCompression>;
  /** Objects in the directory Barman does not write. */
  otherObjects: number;
  /** Exact bytes of every object in the directory. */
  bytes: number;
  objects: number;
}

export class BackupCatalog {
  readonly directories = new Map<string, BackupDirectory>();
  unknownObjects = 0;
  truncated = false;
  readonly #maxBackups: number;

  constructor(maxBackups: number) {
    this.#maxBackups = maxBackups;
  }

  add(c: ClassifiedKey, key: string, size: number): void {
    if (!('backupId' in c)) {
      this.unknownObjects += 1;
      return;
    }
    let dir = this.directories.get(c.backupId);
    if (dir === undefined) {
      if (this.directories.size >= this.#maxBackups) {
        this.truncated = true;
        return;
      }
      dir = { backupId: c.backupId, infoKey: null, infoSize: 0, keepKey: null, hasBackupLabel: false, archives: new Map(), compressions: new Set(), otherObjects: 0, bytes: 0, objects: 0 };
      this.directories.set(c.backupId, dir);
    }
    dir.bytes += size;
    dir.objects += 1;
    switch (c.kind) {
      case 'backup-info':
        dir.infoKey = key;
        dir.infoSize = size;
        break;
      case 'backup-keep':
        dir.keepKey = key;
        break;
      case 'backup-label':
        dir.hasBackupLabel = true;
        break;
      case 'backup-archive': {
        let set = dir.archives.get(c.tablespaceOid);
        if (set === undefined) {
          set = { chunks: new Set(), bytes: 0, tooSmall: 0 };
          dir.archives.set(c.tablespaceOid, set);
        }
        set.chunks.add(c.chunk);
        set.bytes += size;
        if (size < minimumArchiveBytes(c.compression)) set.tooSmall += 1;
        dir.compressions.add(c.compression);
        break;
      }
      default:
        dir.otherObjects += 1;
    }
  }
}
