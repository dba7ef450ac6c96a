/**
 * Reads a credential a driver was given as a file (S3 key files, an Azure connection string):
 * one trailing newline dropped (secrets mounted from Kubernetes or written by editors may end with
 * one), then the text checked against what the credential may contain. Failures are
 * `invalid_configuration` with fixed messages: the file's content never reaches an error.
 */
import { readFile } from 'node:fs/promises';
import { StoreError } from '../common/errors.ts';

export async function readCredentialFile(path: string, allowed: RegExp): Promise<string> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (cause) {
    throw new StoreError('invalid_configuration', 'a credential file could not be read', { cause });
  }
  const value = text.endsWith('\n') ? text.slice(0, -1) : text;
  if (!allowed.test(value)) throw new StoreError('invalid_configuration', 'a credential file is empty or malformed');
  return value;
}
