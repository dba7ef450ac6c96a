/** Runs the real `viewer` executable with a given environment and collects what it printed. */
import { spawn } from 'node:child_process';
import { join } from 'node:path';

export const VIEWER_BIN = join(import.meta.dirname, '..', '..', 'bin', 'viewer.js');

export function runViewer(args: readonly string[], env: Record<string, string>): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [VIEWER_BIN, ...args], { env: { PATH: process.env['PATH'] ?? '', ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}
