/**
 * The sidecar's token-file gate (spec "Authentication › Sidecar" rule 4): the file is opened
 * without following links and judged on the opened descriptor (no race between check and read):
 * a regular file, mode exactly 0440 (so no setuid, setgid or sticky bit), at most 128 bytes,
 * holding one canonical 43-character unpadded base64url token (32 random bytes) and nothing else:
 * a trailing newline is refused (D-78; the spec's rule, superseding D-40), with a refusal that says
 * how to write the file without one. Refusals name the rule, never the path's contents.
 */
import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { GateError } from '../../common/errors.ts';
import { TOKEN_FILE_MAX_BYTES, tokenFileProblem } from '../../contract/token.ts';

/** The refusal of a token that is followed by a line break: how to write the file without one. */
export const TOKEN_LINE_BREAK_REFUSAL =
  "token file: ends with a line break; it must hold exactly the 43-character token and no newline (write it with printf '%s' \"$TOKEN\" > file or echo -n, or create the Secret with kubectl create secret generic --from-literal=token=...)";

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
    const bytes = buffer.subarray(0, bytesRead);
    const problem = tokenFileProblem(bytes);
    if (problem === 'line-break') throw new GateError(TOKEN_LINE_BREAK_REFUSAL);
    if (problem !== null) throw new GateError('token file: must hold one canonical 43-character unpadded base64url token and nothing else');
    return bytes.toString('latin1');
  } finally {
    await handle.close();
  }
}
