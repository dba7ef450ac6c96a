/**
 * `STORE_CA_FILE`: a PEM bundle of certificate authorities added to the roots this process trusts
 * for its TLS connections, the store's of every provider included (the equivalent of
 * CloudNativePG's `endpointCA`; `NODE_EXTRA_CA_CERTS` does the same when set before Node starts).
 * Added to, never replacing, Node's default roots (its bundle, `NODE_EXTRA_CA_CERTS`, and the
 * system's with `--use-system-ca`), once per process: a store behind a private CA and a public one
 * (its credential service, another fleet repository) both work. A file that cannot be read or
 * holds no certificate is `invalid_configuration` naming the variable and the system's code, never
 * the path or the file's contents.
 */
import { readFile } from 'node:fs/promises';
import { getCACertificates, setDefaultCACertificates } from 'node:tls';
import { failureDetail, StoreError } from '../common/errors.ts';

const CERTIFICATE = /-----BEGIN CERTIFICATE-----\r?\n[A-Za-z0-9+/=\r\n]+-----END CERTIFICATE-----/g;
const MAX_BYTES = 1024 * 1024;

const trusted = new Set<string>();

function refused(rule: string, cause?: unknown): StoreError {
  return new StoreError('invalid_configuration', 'the store CA file is not usable', { cause, detail: failureDetail({ localCause: `STORE_CA_FILE ${rule}` }) });
}

/** Adds the certificates of the PEM file at `path` to the default trusted roots (once per path). */
export async function trustCaFile(path: string): Promise<void> {
  if (trusted.has(path)) return;
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (cause) {
    const code = (cause as { code?: unknown }).code;
    throw refused(`could not be read (${typeof code === 'string' && /^[A-Z0-9_]{1,32}$/.test(code) ? code : 'error'})`, cause);
  }
  if (Buffer.byteLength(text) > MAX_BYTES) throw refused('is larger than 1 MiB');
  const certificates = text.match(CERTIFICATE) ?? [];
  if (certificates.length === 0) throw refused('holds no PEM certificate (-----BEGIN CERTIFICATE-----)');
  try {
    setDefaultCACertificates([...getCACertificates('default'), ...certificates]);
  } catch (cause) {
    throw refused('holds a certificate that does not parse', cause);
  }
  trusted.add(path);
}
