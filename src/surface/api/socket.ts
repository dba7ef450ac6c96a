/**
 * The sidecar's socket gates (spec "Authentication › Sidecar" rule 5) and the listening socket.
 * The directory must be a real directory (not a link), setgid, with at least rwx for owner and
 * group (02770), and owned by a group this process is in. At the socket path, a link or anything
 * but a socket is refused; a socket is removed only after a dial proves nothing listens on it.
 * The socket is created with mode 0660 (umask set for the bind, so there is no window with wider
 * bits) and inherits the directory's group through the setgid bit.
 */
import { lstat, unlink } from 'node:fs/promises';
import type { Server } from 'node:http';
import { connect } from 'node:net';
import { dirname } from 'node:path';
import { GateError } from '../../common/errors.ts';

export async function checkSocketDirectory(socketPath: string): Promise<void> {
  const dir = dirname(socketPath);
  let st;
  try {
    st = await lstat(dir);
  } catch (e) {
    throw new GateError(`socket directory: cannot be examined (${(e as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  if (st.isSymbolicLink()) throw new GateError('socket directory: is a symbolic link');
  if (!st.isDirectory()) throw new GateError('socket directory: is not a directory');
  if ((st.mode & 0o2000) === 0) throw new GateError('socket directory: is not setgid');
  if ((st.mode & 0o770) !== 0o770) throw new GateError('socket directory: mode must be at least 02770');
  const groups = new Set([process.getegid?.(), ...(process.getgroups?.() ?? [])]);
  if (!groups.has(st.gid)) throw new GateError("socket directory: its group is not one of this process's groups");
}

function listening(path: string): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const socket = connect(path);
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new GateError('socket path: a dial neither connected nor failed in time'));
    }, 2_000);
    socket.once('connect', () => {
      clearTimeout(timer);
      socket.destroy();
      resolve(true);
    });
    socket.once('error', (e: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      if (e.code === 'ECONNREFUSED') resolve(false);
      else reject(new GateError(`socket path: dial failed (${e.code ?? 'error'})`));
    });
  });
}

/** Clears the way for the socket: nothing there, or a stale socket no one listens on. */
export async function prepareSocketPath(socketPath: string): Promise<void> {
  let st;
  try {
    st = await lstat(socketPath);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw new GateError(`socket path: cannot be examined (${(e as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  if (st.isSymbolicLink()) throw new GateError('socket path: is a symbolic link');
  if (!st.isSocket()) throw new GateError('socket path: exists and is not a socket');
  if (await listening(socketPath)) throw new GateError('socket path: another process is listening');
  await unlink(socketPath);
}

/** Binds `server` to `socketPath` with mode 0660. */
export async function listenOnSocket(server: Server, socketPath: string): Promise<void> {
  const previous = process.umask(0o117);
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(socketPath, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } finally {
    process.umask(previous);
  }
}
