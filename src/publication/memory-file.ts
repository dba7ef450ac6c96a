/**
 * The state files of `STATE_DIR` (D-81): the memory of each scope (`evidence/memory.ts`), written
 * after every complete generation and read once at start, so a restarted process forgets nothing
 * the earlier one proved (D-66) and continues its generation count (D-82).
 *
 * - One file per scope, `memory-<hash>.json`, the hash of (destination fingerprint, format, server):
 *   nothing of the repository is in the name. Its text is the memory document, which holds the
 *   fingerprint (itself a hash), the format, the server name and the evidence: no credential, token
 *   or destination URL.
 * - Written atomically (`atomic-file.ts`: a temporary file in the same directory, flushed, renamed,
 *   the directory flushed): a reader finds the previous memory or the new one, never a part. A
 *   process killed before the rename leaves a temporary file, which is never read and is removed
 *   the next time the scope's memory is read.
 * - Read whole or refused (`readMemoryFile`): a file that is not a regular file, too large, not
 *   UTF-8, not JSON, not a valid memory document of this version, or one of another destination,
 *   format or server is refused with a typed reason, and the caller starts afresh; nothing of a
 *   refused file is used.
 * - Before anything else, the directory is checked (`checkStateDir`): an existing directory (not a
 *   link) this process can create files in; otherwise startup is refused (a gate, like the socket's).
 */
import { createHash, randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { lstat, open, readdir, rm, unlink, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { GateError } from '../common/errors.ts';
import { parseMemory, serializeMemory, type EvidenceMemory, type MemoryIdentity, type MemoryRefusal } from '../evidence/memory.ts';
import { isTemporaryOf, writeFileAtomic } from './atomic-file.ts';

/** The largest state file read: far above a memory within the scan's ceilings (100,000 gaps are about 25 MB). */
export const MEMORY_FILE_MAX_BYTES = 64 * 1024 * 1024;

/** The file of a scope's memory in the state directory: a hash of its identity, nothing else. */
export function memoryFileName(identity: MemoryIdentity): string {
  const hash = createHash('sha256').update(['viewer-memory-v1', identity.fingerprint, identity.format, identity.server].join('\n'), 'utf8').digest('hex');
  return `memory-${hash.slice(0, 32)}.json`;
}

/** Why a state file is not used; typed, never a value of the file or its path. */
export type MemoryFileRefusal =
  | MemoryRefusal
  /** It cannot be opened or read (permissions, I/O). */
  | 'unreadable'
  /** A link, a directory, a device: anything but a regular file. */
  | 'not-a-file'
  | 'too-large'
  | 'not-utf8';

export type MemoryFileRead =
  | { readonly status: 'absent' }
  | { readonly status: 'loaded'; readonly memory: EvidenceMemory }
  /** `errorCode`: the system's code (`EACCES`, `EIO`) when the file could not be read. */
  | { readonly status: 'refused'; readonly reason: MemoryFileRefusal; readonly errorCode?: string };

const codeOf = (error: unknown): string => (error as NodeJS.ErrnoException).code ?? 'error';

/** Temporary files a killed writer of this scope left behind: never read, removed here. */
async function removeLeftovers(dir: string, name: string): Promise<void> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return;
  }
  await Promise.all(names.filter((n) => isTemporaryOf(name, n)).map((n) => rm(join(dir, n), { force: true }).catch(() => undefined)));
}

/** The memory of `identity` kept in `dir`, or why there is none to use. */
export async function readMemoryFile(dir: string, identity: MemoryIdentity): Promise<MemoryFileRead> {
  const name = memoryFileName(identity);
  await removeLeftovers(dir, name);
  let handle: FileHandle;
  try {
    // No link is followed, and a FIFO put there cannot hold the start up.
    handle = await open(join(dir, name), constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    const code = codeOf(error);
    if (code === 'ENOENT') return { status: 'absent' };
    if (code === 'ELOOP') return { status: 'refused', reason: 'not-a-file' };
    return { status: 'refused', reason: 'unreadable', errorCode: code };
  }
  let bytes: Buffer;
  try {
    const st = await handle.stat();
    if (!st.isFile()) return { status: 'refused', reason: 'not-a-file' };
    if (st.size > MEMORY_FILE_MAX_BYTES) return { status: 'refused', reason: 'too-large' };
    bytes = await handle.readFile();
  } catch (error) {
    return { status: 'refused', reason: 'unreadable', errorCode: codeOf(error) };
  } finally {
    await handle.close();
  }
  if (bytes.length > MEMORY_FILE_MAX_BYTES) return { status: 'refused', reason: 'too-large' };
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return { status: 'refused', reason: 'not-utf8' };
  }
  const read = parseMemory(text, identity);
  return read.ok ? { status: 'loaded', memory: read.memory } : { status: 'refused', reason: read.reason };
}

/**
 * Writes the memory of its scope to `dir`, atomically. The document is read back through the same
 * reader first: a memory the next start would refuse is never written (the error says so).
 */
export async function writeMemoryFile(dir: string, memory: EvidenceMemory): Promise<void> {
  const text = serializeMemory(memory);
  const check = parseMemory(text, memory.identity);
  if (!check.ok) throw Object.assign(new Error('the memory does not read back'), { code: `memory-${check.reason}` });
  await writeFileAtomic(join(dir, memoryFileName(memory.identity)), text, 0o600);
}

/** How a write of the keeper ended: the generation written, or the system's code of the failure. */
export type KeptResult = { readonly ok: true; readonly generation: number } | { readonly ok: false; readonly errorCode: string };

/**
 * Writes one scope's memory after each complete generation, one write at a time: a memory handed
 * over while a write is in flight is written next, and only the newest one waiting is (an older one
 * waiting is superseded). A failed write is reported and the process goes on (the next generation
 * writes again); the memory in the process is never affected.
 */
export class MemoryKeeper {
  readonly #dir: string;
  readonly #onResult: (r: KeptResult) => void;
  #waiting: EvidenceMemory | null = null;
  #writing: Promise<void> | null = null;

  constructor(dir: string, onResult: (r: KeptResult) => void = () => undefined) {
    this.#dir = dir;
    this.#onResult = onResult;
  }

  /** Hands over a memory to write (the newest wins). */
  keep(memory: EvidenceMemory): void {
    this.#waiting = memory;
    this.#writing ??= this.#drain();
  }

  async #drain(): Promise<void> {
    for (let m = this.#waiting; m !== null; m = this.#waiting) {
      this.#waiting = null;
      try {
        await writeMemoryFile(this.#dir, m);
        this.#onResult({ ok: true, generation: m.generation });
      } catch (error) {
        this.#onResult({ ok: false, errorCode: codeOf(error) });
      }
    }
    this.#writing = null;
  }

  /** Resolves once nothing is waiting or being written (on shutdown: the last generation is on disk). */
  async flush(): Promise<void> {
    while (this.#writing !== null) await this.#writing;
  }
}

/**
 * The state directory's gate: an existing directory, not a symbolic link, in which this process can
 * create (and remove) a file. Refusals are `GateError`s naming the rule, never the path.
 */
export async function checkStateDir(dir: string): Promise<void> {
  let st;
  try {
    st = await lstat(dir);
  } catch (error) {
    throw new GateError(`state directory: cannot be examined (${codeOf(error)})`);
  }
  if (st.isSymbolicLink()) throw new GateError('state directory: is a symbolic link');
  if (!st.isDirectory()) throw new GateError('state directory: is not a directory');
  // A real write, not only the mode bits: a read-only mount or another owner refuses it here.
  const probe = join(dir, `.viewer-probe.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    const handle = await open(probe, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
    await handle.close();
    await unlink(probe);
  } catch (error) {
    await rm(probe, { force: true }).catch(() => undefined);
    throw new GateError(`state directory: this process cannot create files in it (${codeOf(error)})`);
  }
}
