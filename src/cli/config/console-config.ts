/**
 * `viewer console`'s configuration: the consumer library's four inputs (validated by the library,
 * `consumerConfigFrom`), where the console listens, the target cluster its correlation is about,
 * where it reads the orchestrator's Backup records, and how often it polls. The console holds no
 * object-store credential (spec "Authentication › Sidecar" rule 8): any store credential or
 * destination variable in its environment refuses the start, so a mis-composed pod is found at once.
 */
import { ConsumerConfigError, consumerConfigFrom, type ConsumerSetting } from '../../client/index.ts';
import { NAMESPACE_PATTERN, UID_PATTERN } from '../../contract/values.ts';
import { LOG_LEVELS, parseListen, type LogLevel } from './config.ts';
import { EnvReader, type ConfigViolation, type Env } from './env-reader.ts';

export interface ConsoleConfig {
  readonly evidence: ConsumerSetting;
  readonly listen: { readonly host: string | null; readonly port: number };
  /** The cluster whose Backup records are correlated (rule 6(a)); null shows no correlation. */
  readonly target: { readonly namespace: string; readonly uid: string } | null;
  /** A JSON `BackupList` (e.g. `kubectl get backups -o json`), re-read on every poll; null for none. */
  readonly backupRecordsFile: string | null;
  readonly pollIntervalSeconds: number;
  readonly logLevel: LogLevel;
}

export const CONSOLE_DEFAULTS = { pollIntervalSeconds: 15, logLevel: 'info' } as const;

/** Variables that would put an object-store credential or destination into the console's container. */
export const STORE_VARIABLES = [
  'DESTINATION_PATH', 'STORE_CREDENTIAL_MODE', 'STORE_ACCESS_KEY_ID_FILE', 'STORE_SECRET_ACCESS_KEY_FILE', 'STORE_SESSION_TOKEN_FILE',
  'STORE_WEB_IDENTITY_TOKEN_FILE', 'STORE_ROLE_ARN', 'AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN',
  'AWS_WEB_IDENTITY_TOKEN_FILE', 'AZURE_STORAGE_CONNECTION_STRING', 'AZURE_STORAGE_KEY', 'AZURE_STORAGE_SAS_TOKEN',
  'AZURE_CLIENT_SECRET', 'GOOGLE_APPLICATION_CREDENTIALS', 'EVIDENCE_TOKEN_FILE',
] as const;

export type ConsoleConfigResult = { readonly ok: true; readonly config: ConsoleConfig } | { readonly ok: false; readonly violations: readonly ConfigViolation[] };

export function parseConsoleConfig(env: Env): ConsoleConfigResult {
  const r = new EnvReader(env);
  for (const name of STORE_VARIABLES) {
    if (r.isSet(name)) r.violate(name, 'must not be set for the console: it holds no object-store credential and is no sidecar');
  }
  let evidence: ConsumerSetting = { enabled: false };
  try {
    evidence = consumerConfigFrom(env);
  } catch (error) {
    if (!(error instanceof ConsumerConfigError)) throw error;
    for (const v of error.violations) r.violate(v.variable, v.rule);
  }
  const listen = parseListen(r);
  const namespace = r.pattern('CLUSTER_NAMESPACE', new RegExp(NAMESPACE_PATTERN), 'a Kubernetes namespace name');
  const uid = r.pattern('CLUSTER_UID', new RegExp(UID_PATTERN), 'a lower-case Kubernetes UID');
  if (r.isSet('CLUSTER_NAMESPACE') !== r.isSet('CLUSTER_UID')) {
    r.violate(r.isSet('CLUSTER_NAMESPACE') ? 'CLUSTER_UID' : 'CLUSTER_NAMESPACE', 'CLUSTER_NAMESPACE and CLUSTER_UID are set together (the target cluster of correlation)');
  }
  const backupRecordsFile = r.absolutePath('BACKUP_RECORDS_FILE') ?? null;
  if (backupRecordsFile !== null && (namespace === undefined || uid === undefined)) r.violate('BACKUP_RECORDS_FILE', 'needs CLUSTER_NAMESPACE and CLUSTER_UID (the target cluster)');
  const pollIntervalSeconds = r.integer('POLL_INTERVAL_SECONDS', 5, 3_600) ?? CONSOLE_DEFAULTS.pollIntervalSeconds;
  const logLevel = r.oneOf('LOG_LEVEL', LOG_LEVELS) ?? CONSOLE_DEFAULTS.logLevel;
  if (r.violations.length > 0 || listen === undefined) return { ok: false, violations: r.violations };
  return {
    ok: true,
    config: { evidence, listen, target: namespace !== undefined && uid !== undefined ? { namespace, uid } : null, backupRecordsFile, pollIntervalSeconds, logLevel },
  };
}
