/**
 * The bearer token's shape (spec "Authentication › Sidecar" rule 4), shared by both ends of the
 * socket: the sidecar's token-file gate and the consumer library read the same mounted file.
 * One canonical 43-character unpadded base64url token (32 random bytes) in at most 128 bytes, and
 * nothing else: a trailing newline is refused like any other byte (D-78, superseding D-40).
 */
export const TOKEN_FILE_MAX_BYTES = 128;
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

/** True for the canonical unpadded base64url text of exactly 32 bytes. */
export function isCanonicalToken(text: string): boolean {
  return TOKEN.test(text) && Buffer.from(text, 'base64url').toString('base64url') === text;
}

/**
 * What is wrong with a token file's bytes, or null when they are exactly one canonical token.
 * `line-break`: a canonical token followed by one `\n` or `\r\n` (what `echo` and most editors
 * write), told apart so that the refusal can say how to write the file without it.
 */
export type TokenFileProblem = 'too-large' | 'line-break' | 'not-canonical';

export function tokenFileProblem(bytes: Buffer): TokenFileProblem | null {
  if (bytes.length > TOKEN_FILE_MAX_BYTES) return 'too-large';
  const text = bytes.toString('latin1');
  if (isCanonicalToken(text)) return null;
  return isCanonicalToken(text.replace(/\r?\n$/, '')) ? 'line-break' : 'not-canonical';
}

/** The token of a token file's bytes, or null when they are not exactly one canonical token. */
export function tokenOfFileText(bytes: Buffer): string | null {
  return tokenFileProblem(bytes) === null ? bytes.toString('latin1') : null;
}
