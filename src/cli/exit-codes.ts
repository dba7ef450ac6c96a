/**
 * The process exit codes of `viewer`, the one table every command returns from (documented in
 * docs/configuration.md; tests and scripts rely on the numbers). sysexits(3) numbers where one
 * applies. It lives beside `main.ts` rather than in it because `main.ts` runs the command line
 * when imported.
 */
export const EXIT = {
  ok: 0,
  /** `viewer scan` published a failed attempt (its document is still printed); `viewer probe` found no live sidecar. */
  failed: 1,
  /** `viewer scan --fail-on LEVEL` completed and found the scope's state at or beyond LEVEL (its document is still printed). */
  degraded: 2,
  /** EX_USAGE: an unknown command, extra arguments, or a `scan` without exactly one scope. */
  usage: 64,
  /** EX_SOFTWARE: `viewer scan` built a publication its own validator refused (nothing on stdout). */
  internal: 70,
  /** EX_CONFIG: the configuration or a startup gate refused, or `LISTEN_ADDR` could not be bound. */
  config: 78,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];
