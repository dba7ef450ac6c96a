/**
 * `viewer probe`, the orchestrator liveness command: reads only EVIDENCE_TOKEN_FILE, calls
 * authenticated `/healthz` on the fixed socket within two seconds, and exits 0 when the sidecar
 * answers `live`, 1 otherwise. It prints no token, no body and no transport error text.
 */
import { request } from 'node:http';
import { HEALTH_PATH } from '../../contract/routes.ts';
import { readTokenFile } from '../../surface/api/token-file.ts';
import { EXIT, type ExitCode } from '../exit-codes.ts';

export const PROBE_CEILING_MS = 2_000;

export async function runProbe(tokenFile: string | undefined, socketPath: string): Promise<ExitCode> {
  const deadline = AbortSignal.timeout(PROBE_CEILING_MS);
  try {
    if (tokenFile === undefined || tokenFile === '') throw new Error('no token file');
    const token = await readTokenFile(tokenFile);
    const live = await new Promise<boolean>((resolve) => {
      const req = request({ socketPath, path: HEALTH_PATH, method: 'GET', headers: { authorization: `Bearer ${token}` }, signal: deadline }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c.length + body.length <= 4096 ? c : ''));
        res.on('end', () => resolve(res.statusCode === 200 && /"status":"live"/.test(body)));
        res.on('error', () => resolve(false));
      });
      req.on('error', () => resolve(false));
      req.end();
    });
    if (live) return EXIT.ok;
  } catch {
    // Nothing is printed from the failure itself: it may name paths or carry transport detail.
  }
  process.stderr.write('viewer probe: not live\n');
  return EXIT.failed;
}
