/** Starts the firebase-tools Cloud Storage emulator (gcs-emulator.cjs) for one test file. */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface GcsEmulator {
  readonly endpoint: string;
  stop(): void;
}

export async function startGcsEmulator(): Promise<GcsEmulator> {
  const dir = mkdtempSync(join(tmpdir(), 'viewer-gcs-'));
  const child = spawn(process.execPath, [join(import.meta.dirname, 'gcs-emulator.cjs')], { env: { PATH: process.env['PATH'] ?? '', TMPDIR: dir }, stdio: ['ignore', 'pipe', 'pipe'] });
  const endpoint = await new Promise<string>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`GCS emulator did not start: ${out}`)), 60_000);
    const seen = (c: Buffer) => {
      out += c.toString();
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m?.[1] !== undefined) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    };
    child.stdout.on('data', seen);
    child.stderr.on('data', seen);
    child.once('exit', () => reject(new Error(`GCS emulator exited: ${out}`)));
  });
  return {
    endpoint,
    stop: () => {
      child.kill('SIGTERM');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
