/**
 * The bearer token's shape (spec "Authentication › Sidecar" rule 4), shared by both ends of the
 * socket: the sidecar's token-file gate and the consumer library read the same mounted file.
 * One canonical 43-character unpadded base64url token (32 random bytes) in at most 128 bytes,
 * one trailing newline accepted (D-40).
 */
export const TOKEN_FILE_MAX_BYTES = 128;
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

/** True for the canonical unpadded base64url text of exactly 32 bytes. */
export function isCanonicalToken(text: string): boolean {
  return TOKEN.test(text) && Buffer.from(text, 'base64url').toString('base64url') === text;
}

/** The token text of a token file's bytes (one trailing newline dropped), or null when it is not one canonical token. */
export function tokenOfFileText(bytes: Buffer): string | null {
  if (bytes.length > TOKEN_FILE_MAX_BYTES) return null;
  let text = bytes.toString('latin1');
  if (text.endsWith('\n')) text = text.slice(0, -1);
  return isCanonicalToken(text) ? text : null;
}
