/**
 * The sidecar's token-file gate (spec "Authentication › Sidecar" rule 4): the file is opened
 * without following links and judged on the opened descriptor (no race between check and read):
 * a regular file, mode exactly 0440 (so no setuid, setgid or sticky bit), at most 128 bytes,
 * holding one canonical 43-character unpadded base64url token (32 random bytes). One trailing
 * newline is accepted (D-40): files written by `echo` and many secret tools end with one.
 * Refusals name the rule, never the path's contents.
 */
import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { GateError } from '../../common/errors.ts';
import { TOKEN_FILE_MAX_BYTES, tokenOfFileText } from '../../contract/token.ts';

export async function readTokenFile(path: string): Promise<string> {
  let handle;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') throw new GateError('token file: is a symbolic link');
    throw new GateError(`token file: cannot be opened (${code ?? 'error'})`);
  }
  try {
    const st = await handle.stat();
    if (!st.isFile()) throw new GateError('token file: is not a regular file');
    if ((st.mode & 0o7777) !== 0o440) throw new GateError('token file: mode must be exactly 0440');
    if (st.size > TOKEN_FILE_MAX_BYTES) throw new GateError(`token file: larger than ${TOKEN_FILE_MAX_BYTES} bytes`);
    const buffer = Buffer.alloc(TOKEN_FILE_MAX_BYTES + 1);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    if (bytesRead > TOKEN_FILE_MAX_BYTES) throw new GateError(`token file: larger than ${TOKEN_FILE_MAX_BYTES} bytes`);
    const token = tokenOfFileText(buffer.subarray(0, bytesRead));
    if (token === null) throw new GateError('token file: must hold one canonical 43-character unpadded base64url token');
    return token;
  } finally {
    await handle.close();
  }
}
