/**
 * `viewer console`: the reference consumer. Polls the sidecar through the consumer library
 * (`viewer/client`), keeps its projection, correlates the orchestrator's Backup records read from
 * `BACKUP_RECORDS_FILE` (re-read after every poll), and serves its page, JSON, metrics, health and
 * readiness on `LISTEN_ADDR` until SIGTERM or SIGINT. Ready as soon as it listens, whatever the
 * sidecar does (consumer rule 4). Logs say what the source did, never a token, path, identity,
 * backup ID or body.
 */
import { readFile } from 'node:fs/promises';
import { correlate, EvidenceSource, EXPECTED_WIRE, projectionMetrics, type CorrelationResult, type OrchestratorBackup } from '../../client/index.ts';
import { createLogger } from '../../common/log.ts';
import { closeGracefully } from '../../surface/close-server.ts';
import type { ConsoleView } from '../../surface/console/page.ts';
import { createConsoleServer } from '../../surface/console/server.ts';
import { SERVER_TIMEOUTS } from '../../surface/page-server.ts';
import type { ConsoleConfig } from '../config/console-config.ts';
import { EXIT, type ExitCode } from '../exit-codes.ts';
import { listenOnTcp } from '../tcp-listen.ts';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const optionalString = (v: unknown): v is string | undefined => v === undefined || typeof v === 'string';

/** One Backup record with the typed fields correlation reads, or null when its shape is not a Backup's. */
function backupRecord(v: unknown): OrchestratorBackup | null {
  if (!isObject(v) || !isObject(v['metadata']) || !isObject(v['spec'])) return null;
  const { metadata: m, spec: s } = v;
  const status = v['status'];
  if (typeof m['name'] !== 'string' || typeof m['namespace'] !== 'string' || !optionalString(m['uid'])) return null;
  if (!isObject(s['cluster']) || typeof s['cluster']['name'] !== 'string' || !optionalString(s['method'])) return null;
  const owners = m['ownerReferences'];
  if (owners !== undefined && (!Array.isArray(owners) || !owners.every((o) => isObject(o) && ['apiVersion', 'kind', 'name', 'uid'].every((k) => typeof o[k] === 'string')))) return null;
  const plugin = s['pluginConfiguration'];
  if (plugin !== undefined && !(isObject(plugin) && typeof plugin['name'] === 'string')) return null;
  if (status !== undefined && !(isObject(status) && optionalString(status['backupId']) && optionalString(status['method']))) return null;
  return v as unknown as OrchestratorBackup;
}

/** The records of a `BackupList` (or a bare array); `invalid` when any item is not a Backup. */
export function backupRecordsOf(text: string): OrchestratorBackup[] | 'invalid' {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    return 'invalid';
  }
  const items = Array.isArray(doc) ? doc : isObject(doc) && Array.isArray(doc['items']) ? doc['items'] : null;
  if (items === null) return 'invalid';
  const records = items.map(backupRecord);
  return records.every((r) => r !== null) ? (records) : 'invalid';
}

export async function runConsole(config: ConsoleConfig, stop: AbortSignal, onListening?: (url: string) => void): Promise<ExitCode> {
  const log = createLogger(config.logLevel);
  const evidence = config.evidence;
  let records: OrchestratorBackup[] = [];
  let recordsProblem: ConsoleView['recordsProblem'] = null;
  let correlation: CorrelationResult[] | null = null;

  const source = evidence.enabled
    ? new EvidenceSource({
        config: evidence,
        intervalMs: config.pollIntervalSeconds * 1000,
        onEvent: (e) => {
          if (e.type === 'failed') log.warn({ reason: e.reason }, 'repository source failed');
          else if (e.type === 'restart') log.info({ cause: e.cause }, 'publication moved during the walk; restarting from the snapshot');
          else if (e.type === 'assembled') log.info({ revision: e.revision, generation: e.generation }, 'projection assembled');
          void refreshCorrelation();
        },
      })
    : null;

  async function refreshCorrelation(): Promise<void> {
    if (config.target === null || config.backupRecordsFile === null || !evidence.enabled || source === null) return;
    try {
      const read = backupRecordsOf(await readFile(config.backupRecordsFile, 'utf8'));
      recordsProblem = read === 'invalid' ? 'invalid' : null;
      if (read !== 'invalid') records = read;
    } catch {
      recordsProblem = 'unreadable';
    }
    const projection = source.projection();
    correlation = correlate({
      target: config.target,
      // The wire the consumer library accepts from the sidecar (consumer rule 2): the console is a
      // consumer of the library, not of viewer's format registry.
      mapping: { fingerprint: evidence.expectedFingerprint, server: evidence.server, provider: EXPECTED_WIRE.provider, format: EXPECTED_WIRE.format },
      projections: projection === null ? [] : [projection],
      records,
    });
  }

  const idle = { state: 'unknown', reason: 'not-yet-polled', since: new Date(), lastPollAt: null, restarts: { 'publication-changed': 0, 'cursor-rejected': 0 }, polls: 0 } as const;
  const view = (): ConsoleView => ({
    enabled: evidence.enabled,
    status: source?.status() ?? idle,
    projection: source?.projection() ?? null,
    correlation: config.target !== null && config.backupRecordsFile !== null ? (correlation ?? []) : null,
    recordsProblem,
    now: new Date(),
  });
  const server = createConsoleServer({
    view,
    metrics: () => projectionMetrics(source?.projection() ?? null, source?.status() ?? idle, evidence.enabled ? evidence.server : null, new Date()),
    logger: log,
  });
  const listened = await listenOnTcp(server, config.listen);
  if (!listened.ok) return EXIT.config;
  const url = listened.url;
  process.stderr.write(`viewer: console on ${url}${evidence.enabled ? '' : ' (repository evidence not configured)'}\n`);
  onListening?.(url);
  source?.start();

  await new Promise<void>((resolve) => (stop.aborted ? resolve() : stop.addEventListener('abort', () => resolve(), { once: true })));
  log.info({}, 'shutting down');
  await source?.stop();
  await closeGracefully(server, SERVER_TIMEOUTS.shutdownMs);
  return EXIT.ok;
}
