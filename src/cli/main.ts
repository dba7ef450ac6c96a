/**
 * The `viewer` command line: parses the configuration before anything else starts and dispatches
 * the command. Owns the fixed production paths; the process exit codes are the table in
 * `exit-codes.ts` (docs/configuration.md).
 */
import { homedir } from 'node:os';
import { SIDECAR_SOCKET_PATH } from '../contract/values.ts';
import { PRODUCER_VERSION } from './identity.ts';
import { parseConfig, probeTokenFile, type Config } from './config/config.ts';
import type { FleetRepository } from './config/fleet-file.ts';
import { describeConfig } from './config/describe.ts';
import { nearMisses } from './config/near-miss.ts';
import { EXIT, type ExitCode } from './exit-codes.ts';
import type { FailOnLevel, ScanOptions, ScanOutput } from './commands/scan.ts';

// Each command's modules (and through them the cloud SDKs) load only when that command runs: a
// `viewer scan` or `probe` pays for what it uses, not for the web UI or the other servers.
const commands = {
  scan: async () => (await import('./commands/scan.ts')).runScan,
  standalone: async () => (await import('./commands/standalone.ts')).runStandalone,
  sidecar: async () => (await import('./commands/sidecar.ts')).runSidecar,
  probe: async () => (await import('./commands/probe.ts')).runProbe,
  console: async () => (await import('./commands/console.ts')).runConsole,
};

const USAGE = `usage: viewer [command]

viewer publishes read-only evidence about one PostgreSQL backup repository in an object store.
Modes (RUNTIME_MODE): standalone (the default; web pages on LISTEN_ADDR, the embedded demo without
DESTINATION_PATH) and sidecar (the JSON API on the Unix socket ${SIDECAR_SOCKET_PATH}).
Configuration: docs/configuration.md (every variable); the API: docs/api.md; integrating a console:
docs/consumer.md.

commands:
  (none)        start the mode RUNTIME_MODE selects (standalone by default)
  check-config  validate the configuration and print a summary without secrets
  scan          scan the configured scope once and print the evidence as JSON
                (--output json, the default), as OpenMetrics text (--output openmetrics) or as
                a short summary for a terminal (--output text); --previous FILE continues
                from the JSON document of the previous run (generation and gap memory);
                --save FILE also writes that JSON document to FILE (whatever --output prints);
                --fail-on warning|unknown|unhealthy exits 2 after printing when the scope's
                state is at or beyond that level (healthy < warning < unknown < unhealthy)
  console       the reference consumer: polls the sidecar over its socket and serves its cached
                projection as a page, JSON and OpenMetrics on LISTEN_ADDR (docs/consumer.md)
  probe         liveness check of a running sidecar (reads only EVIDENCE_TOKEN_FILE)
  version       print the version (also --version)
  help          print this text
`;

const SCAN_OUTPUTS = { json: true, openmetrics: true, text: true } as const satisfies Record<ScanOutput, true>;
const FAIL_ON_LEVELS = { warning: true, unknown: true, unhealthy: true } as const satisfies Record<FailOnLevel, true>;

const COMMANDS = ['check-config', 'scan', 'console', 'probe', 'version', 'help'] as const;
const SCAN_OPTIONS = ['--output', '--previous', '--save', '--fail-on'] as const;

/** A word the operator typed, shown back only when it is a plain word (never a path or a secret-like text). */
const shown = (word: string): string => (/^-{0,2}[A-Za-z][A-Za-z0-9-]{0,31}$/.test(word) ? `"${word}"` : 'given');

/** ` (did you mean scan?)` when `word` is within two edits of one of `known`. */
function meant(word: string, known: readonly string[]): string {
  const [best] = nearMisses(word, known);
  return best === undefined ? '' : ` (did you mean ${best}?)`;
}

/**
 * `viewer scan`'s options: `--output <format>`, `--previous <file>`, `--save <file>` and
 * `--fail-on <level>`, each at most once, as `--name value` or `--name=value`; otherwise the one
 * line naming the mistake (printed before the usage).
 */
function scanOptions(args: readonly string[]): ScanOptions | string {
  const given = new Map<string, string>();
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? '';
    const m = /^--(output|previous|save|fail-on)(?:=(.*))?$/.exec(arg);
    if (m === null) {
      const option = /^(--?[^=]*)/.exec(arg)?.[1];
      return option === undefined ? `scan takes no argument ${shown(arg)}; it takes only options` : `scan has no option ${shown(option)}${meant(option, SCAN_OPTIONS)}`;
    }
    const name = m[1] ?? '';
    const value = m[2] ?? args[++i];
    if (value === undefined || value === '') return `scan --${name} needs a value`;
    if (given.has(name)) return `scan --${name} is given twice`;
    given.set(name, value);
  }
  const output = given.get('output') ?? 'json';
  if (!Object.hasOwn(SCAN_OUTPUTS, output)) return `scan --output ${shown(output)} is no output format: json, openmetrics or text${meant(output, Object.keys(SCAN_OUTPUTS))}`;
  const failOn = given.get('fail-on') ?? null;
  if (failOn !== null && !Object.hasOwn(FAIL_ON_LEVELS, failOn)) return 'scan --fail-on takes warning, unknown or unhealthy';
  return { output: output as ScanOutput, previous: given.get('previous') ?? null, save: given.get('save') ?? null, failOn: failOn as FailOnLevel | null };
}

/** The one line naming a usage mistake outside `scan`'s options, or `null` when the command line is usable. */
function usageMistake(command: string | undefined, rest: readonly string[]): string | null {
  if (command === undefined || command === 'scan') return null;
  if (!(COMMANDS as readonly string[]).includes(command)) return `unknown command ${shown(command)}${meant(command, COMMANDS)}`;
  return rest.length > 0 ? `${command} takes no arguments` : null;
}

function loadConfig(): Config | null {
  const result = parseConfig(process.env);
  if (!result.ok) {
    for (const v of result.violations) process.stderr.write(`viewer: configuration refused: ${v.variable}: ${v.rule}\n`);
    return null;
  }
  for (const w of result.warnings) process.stderr.write(`viewer: warning: ${w}\n`);
  return result.config;
}

/** FLEET_FILE's repositories, or false after printing why the file is refused (each entry and field named, never a value). */
async function loadFleetFile(file: string): Promise<readonly FleetRepository[] | false> {
  const { loadFleet } = await import('./config/fleet-file.ts');
  const result = await loadFleet(file, process.env);
  if (!result.ok) {
    for (const v of result.violations) process.stderr.write(`viewer: configuration refused: ${v.variable}: ${v.rule}\n`);
    return false;
  }
  return result.repositories;
}

/** The console reads its own variables (docs/consumer.md), none of the scanner's. */
async function runConsoleCommand(): Promise<ExitCode> {
  // Loaded only for this command: it brings the consumer library, which no other command needs.
  const { parseConsoleConfig } = await import('./config/console-config.ts');
  const result = parseConsoleConfig(process.env);
  if (!result.ok) {
    for (const v of result.violations) process.stderr.write(`viewer: configuration refused: ${v.variable}: ${v.rule}\n`);
    return EXIT.config;
  }
  const stop = new AbortController();
  process.once('SIGINT', () => stop.abort());
  process.once('SIGTERM', () => stop.abort());
  return (await commands.console())(result.config, stop.signal);
}

async function main(argv: readonly string[]): Promise<ExitCode> {
  const [command, ...rest] = argv;
  if (command === 'help' || command === '--help' || command === '-h') {
    process.stdout.write(USAGE);
    return EXIT.ok;
  }
  if ((command === 'version' || command === '--version') && rest.length === 0) {
    process.stdout.write(`viewer ${PRODUCER_VERSION}\n`);
    return EXIT.ok;
  }
  // Only `scan` takes arguments; a usage error is found before the environment is read, named in
  // one line before the usage.
  const scan = command === 'scan' ? scanOptions(rest) : null;
  const mistake = typeof scan === 'string' ? scan : usageMistake(command, rest);
  if (mistake !== null) {
    process.stderr.write(`viewer: ${mistake}\n${USAGE}`);
    return EXIT.usage;
  }
  // The probe reads nothing but the token file: it must work in any environment.
  if (command === 'probe') return (await commands.probe())(probeTokenFile(process.env), SIDECAR_SOCKET_PATH);
  if (command === 'console') return runConsoleCommand();
  const config = loadConfig();
  if (config === null) return EXIT.config;
  // FLEET_FILE is configuration too: read and judged before anything starts, check-config included.
  const fleet = config.mode === 'standalone' && config.fleetFile !== null && command !== 'scan' ? await loadFleetFile(config.fleetFile) : null;
  if (fleet === false) return EXIT.config;
  if (command === 'check-config') {
    process.stdout.write(`${JSON.stringify(describeConfig(config, fleet), null, 2)}\n`);
    return EXIT.ok;
  }
  const stop = new AbortController();
  process.once('SIGINT', () => stop.abort());
  process.once('SIGTERM', () => stop.abort());
  if (command === 'scan') return (await commands.scan())(config, stop.signal, typeof scan === 'object' && scan !== null ? scan : undefined);
  const code = config.mode === 'sidecar' ? await (await commands.sidecar())(config, SIDECAR_SOCKET_PATH, stop.signal) : await (await commands.standalone())(config, stop.signal, fleet === null ? {} : { fleet });
  // The server has shut down. A store request its SDK cannot cancel (Cloud Storage's takes no
  // signal) would keep the process alive until the SDK's own timeouts, past the grace period: once
  // the last log lines have had a moment to drain, the process ends whatever is still open.
  setTimeout(() => process.exit(code), SHUTDOWN_DRAIN_MS).unref();
  return code;
}

/** How long a shut-down server waits for its last writes before the process ends. */
const SHUTDOWN_DRAIN_MS = 500;

/**
 * A process without a home directory (HOME unset or empty, and a uid without a passwd entry:
 * systemd's DynamicUser, an arbitrary container uid) gets `HOME=/nonexistent`, the conventional
 * home of users without one (D-103). The cloud SDKs' ambient chains look for their shared files
 * under the home (`~/.aws`, `~/.azure`, `~/.config/gcloud`); asked for a home that cannot be found,
 * the AWS SDK throws from a promise nobody awaits and the process dies. With this they find no
 * shared file, which is the truth. Explicit credential modes never look (s3-driver.ts).
 */
function provideHome(): void {
  if ((process.env['HOME'] ?? '') !== '') return;
  try {
    homedir();
  } catch {
    process.env['HOME'] = '/nonexistent';
  }
}

provideHome();
process.exitCode = await main(process.argv.slice(2));
