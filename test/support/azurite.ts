/**
 * Azurite, Microsoft's Azure Storage emulator from npm, started for a test file on a free port of
 * 127.0.0.1 with in-memory storage (and stopped by it). The API version check is skipped because
 * the SDK speaks a newer version than the emulator knows; telemetry is off. With `tls` it serves
 * https with that certificate and accepts bearer tokens (`--oauth basic`: any unsigned JWT with the
 * storage audience, a Microsoft issuer and a current lifetime), besides the account key.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { join, dirname } from 'node:path';
import { AZURITE_ENCODED_NAMES } from './azurite-encoded-names.ts';

export const AZURITE_ACCOUNT = 'devstoreaccount1';
/** The emulator's well-known development key (public, documented by Microsoft). */
export const AZURITE_KEY = 'Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==';

export interface Azurite {
  readonly blobEndpoint: string;
  connectionString(key?: string): string;
  stop(): void;
}

export interface AzuriteOptions {
  /** PEM files of a certificate for 127.0.0.1 and its key: serve https and accept bearer tokens. */
  readonly tls?: { readonly certFile: string; readonly keyFile: string };
  /** Answer as Azure does for names XML cannot carry (`Encoded="true"`, azurite-encoded-names.ts). */
  readonly encodedNames?: boolean;
}

export async function startAzurite(options: AzuriteOptions = {}): Promise<Azurite> {
  const main = join(dirname(createRequire(import.meta.url).resolve('azurite/package.json')), 'dist', 'src', 'blob', 'main.js');
  const tls = options.tls === undefined ? [] : ['--cert', options.tls.certFile, '--key', options.tls.keyFile, '--oauth', 'basic'];
  const args = [main, '--blobHost', '127.0.0.1', '--blobPort', '0', '--inMemoryPersistence', '--skipApiVersionCheck', '--disableTelemetry', ...tls];
  const env = options.encodedNames === true ? { ...process.env, NODE_OPTIONS: `${process.env['NODE_OPTIONS'] ?? ''} --import=${AZURITE_ENCODED_NAMES}`.trim() } : process.env;
  const child: ChildProcess = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const scheme = options.tls === undefined ? 'http' : 'https';
  const port = await new Promise<string>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`azurite did not start: ${out}`)), 30_000);
    child.stdout?.on('data', (c: Buffer) => {
      out += c.toString();
      const m = new RegExp(`listens on ${scheme}://127\\.0\\.0\\.1:(\\d+)`).exec(out);
      if (m?.[1] !== undefined) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    child.once('exit', () => reject(new Error(`azurite exited: ${out}`)));
  });
  const blobEndpoint = `${scheme}://127.0.0.1:${port}/${AZURITE_ACCOUNT}`;
  return {
    blobEndpoint,
    connectionString: (key = AZURITE_KEY) => `DefaultEndpointsProtocol=${scheme};AccountName=${AZURITE_ACCOUNT};AccountKey=${key};BlobEndpoint=${blobEndpoint};`,
    stop: () => child.kill('SIGTERM'),
  };
}
