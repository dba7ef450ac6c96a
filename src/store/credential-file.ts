/**
 * Reads a credential a driver was given as a file (S3 key files, an Azure connection string):
 * one trailing newline dropped (secrets mounted from Kubernetes or written by editors may end with
 * one), then the text checked against what the credential may contain. Failures are
 * `invalid_configuration` with fixed messages and a local cause naming the variable that names the
 * file and the system's code (`STORE_ACCESS_KEY_ID_FILE could not be read (ENOENT)`): neither the
 * path nor the file's content ever reaches an error.
 */
import { access, constants, readFile } from 'node:fs/promises';
import { failureDetail, StoreError } from '../common/errors.ts';

const SYSTEM_CODE = /^[A-Z0-9_]{1,32}$/;

function unreadable(variable: string, cause: unknown): StoreError {
  const code = (cause as { code?: unknown } | null)?.code;
  const shown = typeof code === 'string' && SYSTEM_CODE.test(code) ? code : 'error';
  return new StoreError('invalid_configuration', 'a credential file could not be read', {
    cause,
    detail: failureDetail({ localCause: `${variable} could not be read (${shown})` }),
  });
}

export async function readCredentialFile(path: string, allowed: RegExp, variable: string): Promise<string> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (cause) {
    throw unreadable(variable, cause);
  }
  const value = text.endsWith('\n') ? text.slice(0, -1) : text;
  if (!allowed.test(value)) {
    throw new StoreError('invalid_configuration', 'a credential file is empty or malformed', { detail: failureDetail({ localCause: `${variable} names a file that is empty or malformed` }) });
  }
  return value;
}

/** Refuses, as `readCredentialFile` does, a credential file this process cannot read (for SDKs that read the file themselves). */
export async function checkCredentialFile(path: string, variable: string): Promise<void> {
  try {
    await access(path, constants.R_OK);
  } catch (cause) {
    throw unreadable(variable, cause);
  }
}
