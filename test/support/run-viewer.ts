/** Runs the real `viewer` executable with a given environment and collects what it printed. */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const VIEWER_BIN = join(import.meta.dirname, '..', '..', 'bin', 'viewer.js');

/**
 * An S3 credential file pair for the executable's static-files mode, in a directory of its own:
 * the variables that name it, and how to remove it.
 */
export function s3CredentialFiles(account: { readonly accessKeyId: string; readonly secretAccessKey: string }): { readonly env: { STORE_ACCESS_KEY_ID_FILE: string; STORE_SECRET_ACCESS_KEY_FILE: string }; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'viewer-s3-credentials-'));
  writeFileSync(join(dir, 'id'), account.accessKeyId);
  writeFileSync(join(dir, 'secret'), account.secretAccessKey);
  return { env: { STORE_ACCESS_KEY_ID_FILE: join(dir, 'id'), STORE_SECRET_ACCESS_KEY_FILE: join(dir, 'secret') }, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

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

export interface RunningViewer {
  readonly child: ChildProcess;
  /** Base URL the standalone server printed, with `localhost` replaced by 127.0.0.1. */
  readonly base: string;
  /** Everything written to stdout so far (the JSON log lines). */
  readonly logs: () => string;
  /** The `/metrics` URL of METRICS_ADDR's listener, when it printed one. */
  readonly metrics: string | null;
  /** Everything written to stderr so far. */
  readonly stderr: () => string;
}

/** Starts the executable in standalone mode and resolves once it printed its URL. */
export function startStandalone(env: Record<string, string>): Promise<RunningViewer> {
  const child = spawn(process.execPath, [VIEWER_BIN], { env: { PATH: process.env['PATH'] ?? '', LISTEN_ADDR: '127.0.0.1:0', ...env } });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  return new Promise<RunningViewer>((resolve, reject) => {
    let err = '';
    child.stderr.on('data', (c: Buffer) => {
      err += c.toString();
      const m = /standalone UI on (http:\/\/[^ \n]+)[^\n]*\n/.exec(err);
      const metrics = m === null ? null : (/; metrics on (http:\/\/[^ \n]+)/.exec(m[0])?.[1] ?? null);
      if (m?.[1] !== undefined) resolve({ child, base: m[1].replace('localhost', '127.0.0.1'), logs: () => out, metrics: metrics?.replace('localhost', '127.0.0.1') ?? null, stderr: () => err });
    });
    child.once('exit', () => reject(new Error(err)));
  });
}

/** A running `viewer console`. */
export interface RunningConsole {
  readonly child: ChildProcess;
  /** The URL it printed. */
  readonly url: string;
  /** Everything it wrote so far, stdout and stderr together. */
  readonly log: () => string;
}

/** Starts `viewer console` on a free loopback port and resolves once it printed its URL. */
export function startConsole(env: Record<string, string>): Promise<RunningConsole> {
  const child = spawn(process.execPath, [VIEWER_BIN, 'console'], { env: { PATH: process.env['PATH'] ?? '', LISTEN_ADDR: '127.0.0.1:0', ...env } });
  let log = '';
  child.stdout.on('data', (c: Buffer) => (log += c.toString()));
  return new Promise<RunningConsole>((resolve, reject) => {
    child.stderr.on('data', (c: Buffer) => {
      log += c.toString();
      const m = /console on (http:\/\/[^ \n]+)/.exec(log);
      if (m?.[1] !== undefined) resolve({ child, url: m[1], log: () => log });
    });
    child.once('exit', () => reject(new Error(log)));
  });
}

/* eslint-disable @typescript-eslint/no-explicit-any --
   the scan document is checked against the wire schemas; tests then read its items loosely. */
/** The document `viewer scan` prints: the wire items, and beside them its `observations`. */
export interface ScanDocument {
  snapshot: Record<string, any>;
  backups: Record<string, any>[];
  wal_ranges: Record<string, any>[];
  wal_gaps: Record<string, any>[];
  recovery_paths: Record<string, any>[];
  observations: { wal_gap_classes: { timeline: number; start_position: number; class: string }[]; store_time_at_scan: string | null; newest_wal_received_at: string | null } | null;
}
/* eslint-enable @typescript-eslint/no-explicit-any */
