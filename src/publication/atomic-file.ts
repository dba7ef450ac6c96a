/**
 * A file replaced whole or not at all: the text is written to a temporary file beside it (same
 * directory, so the same filesystem), flushed to disk, renamed over the file, and the directory
 * flushed so the rename itself survives a crash. A reader sees the old file or the new one, never
 * a partial one; a process killed before the rename leaves only its temporary file, which no
 * reader opens (its name starts with `.` and ends with `.tmp`, never the file's own name).
 * Used for the state files of `STATE_DIR` (`memory-file.ts`) and `viewer scan --save`.
 */
import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { open, rename, rm, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/** The temporary file names `writeFileAtomic` uses for `path`: `.<name>.<pid>.<random>.tmp` beside it. */
export function isTemporaryOf(name: string, candidate: string): boolean {
  return candidate.startsWith(`.${name}.`) && candidate.endsWith('.tmp');
}

/** Flushes a directory's entries (a rename into it) to disk; filesystems that cannot are taken as they are. */
async function syncDirectory(dir: string): Promise<void> {
  let handle: FileHandle | undefined;
  try {
    handle = await open(dir, constants.O_RDONLY | constants.O_DIRECTORY);
    await handle.sync();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EINVAL' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP') throw error;
  } finally {
    await handle?.close();
  }
}

/**
 * Replaces `path` with `text` atomically (file mode `mode` for a new file). On failure nothing of
 * it is left behind and `path` is as it was; the error (a system error with its `code`) is thrown.
 */
export async function writeFileAtomic(path: string, text: string, mode = 0o600): Promise<void> {
  const dir = dirname(path);
  const temporary = join(dir, `.${basename(path)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  let handle: FileHandle | undefined;
  try {
    // O_EXCL and O_NOFOLLOW: never through a link or over a file someone else prepared.
    handle = await open(temporary, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, mode);
    await handle.writeFile(text, 'utf8');
    await handle.sync();
    await handle.close();
    handle = undefined;
    await rename(temporary, path);
  } catch (error) {
    await handle?.close().catch(() => undefined);
    await rm(temporary, { force: true }).catch(() => undefined);
    throw error;
  }
  await syncDirectory(dir);
}
