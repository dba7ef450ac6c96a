/**
 * The fleet file (`FLEET_FILE`, issue 25): a YAML list of repositories for one standalone process.
 * Each entry's fields are mapped onto the variables of one repository and judged by `parseConfig`
 * with the process-wide variables of the environment, so an entry follows exactly the rules of a
 * single-repository configuration. A refusal names the entry by position and name and the field,
 * never a value (docs/configuration.md, "The fleet file").
 */
import { open } from 'node:fs/promises';
import { LineCounter, parseDocument } from 'yaml';
import { destinationFingerprint } from '../../publication/fingerprint.ts';
import type { Destination } from '../../store/destination.ts';
import { editDistance } from './near-miss.ts';
import {
  KNOWN_VARIABLES,
  MAX_METRICS_LABELS,
  metricLabelRule,
  parseConfig,
  REPOSITORY_VARIABLES,
  type ConfigViolation,
  type Env,
  type MetricsLabel,
  type StandaloneConfig,
} from './config.ts';

export interface FleetRepository {
  /** Display name and the `repository` metric label. */
  readonly name: string;
  /** The entry's own metric labels (validated like METRICS_LABELS), in file order. */
  readonly labels: readonly MetricsLabel[];
  /** The entry's settings as one repository's standalone configuration (destination never null, fleetFile null, metricsListen null). */
  readonly config: StandaloneConfig & { readonly destination: Destination };
}

export type FleetLoad = { readonly ok: true; readonly repositories: readonly FleetRepository[] } | { readonly ok: false; readonly violations: readonly ConfigViolation[] };

/** The largest fleet file read, in bytes. */
export const MAX_FLEET_FILE_BYTES = 1024 * 1024;
export const MAX_FLEET_REPOSITORIES = 500;
/** yaml's bound on alias expansion (uses of an anchor times the aliases inside it): a YAML bomb is refused. */
const MAX_ALIAS_COUNT = 10_000;
/** More refusals than this are counted, not listed: the first ones say what is wrong. */
const MAX_VIOLATIONS = 50;
const VARIABLE = 'FLEET_FILE';

/** Each field of an entry and the variable of one repository it stands for. */
const FIELD_VARIABLES = {
  destination: 'DESTINATION_PATH',
  format: 'REPOSITORY_FORMAT',
  provider: 'PROVIDER',
  servers: 'ARCHIVE_SERVER_NAMES',
  endpoint_url: 'STORE_ENDPOINT_URL',
  region: 'STORE_REGION',
  credential_mode: 'STORE_CREDENTIAL_MODE',
  access_key_id_file: 'STORE_ACCESS_KEY_ID_FILE',
  secret_access_key_file: 'STORE_SECRET_ACCESS_KEY_FILE',
  session_token_file: 'STORE_SESSION_TOKEN_FILE',
  web_identity_token_file: 'STORE_WEB_IDENTITY_TOKEN_FILE',
  role_arn: 'STORE_ROLE_ARN',
  connection_string_file: 'STORE_CONNECTION_STRING_FILE',
  service_account_key_file: 'STORE_SERVICE_ACCOUNT_KEY_FILE',
  expected_retention_policy: 'EXPECTED_RETENTION_POLICY',
  expected_minimum_redundancy: 'EXPECTED_MINIMUM_REDUNDANCY',
  expected_max_archive_lag: 'EXPECTED_MAX_ARCHIVE_LAG',
} as const;
type MappedField = keyof typeof FIELD_VARIABLES;
const FIELDS: readonly string[] = ['name', ...Object.keys(FIELD_VARIABLES), 'labels'];
const FIELD_OF_VARIABLE = new Map<string, string>(Object.entries(FIELD_VARIABLES).map(([field, variable]) => [variable, field]));
/** A variable's name inside a rule of `parseConfig` (`… with STORE_CREDENTIAL_MODE=static-files`). */
const VARIABLE_IN_RULE = new RegExp(`\\b(?:${[...FIELD_OF_VARIABLE.keys()].join('|')})\\b`, 'g');

/** Secrets by their usual names: each has a `_file` field that names the file holding it. */
const INLINE_SECRETS = new Set(['access_key_id', 'secret_access_key', 'session_token', 'web_identity_token', 'connection_string', 'service_account_key']);
/** Any other name that says it holds a secret, unless it ends in `_file`. */
const SECRET_WORDS = /secret|passw|token|key|credential|connection_?string|sas|signature|auth/;
const FILE_FIELDS = Object.keys(FIELD_VARIABLES).filter((f) => f.endsWith('_file'));

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/;
const TEXT_RULE = 'must be text (quote it: YAML reads 1.10 as a number and true as a boolean)';

/** The variables every entry takes from the process environment. */
function processWide(env: Env): Record<string, string> {
  const own = new Set<string>([...REPOSITORY_VARIABLES, 'RUNTIME_MODE', 'FLEET_FILE']);
  const out: Record<string, string> = {};
  for (const name of KNOWN_VARIABLES) {
    const value = env[name];
    if (value !== undefined && !own.has(name)) out[name] = value;
  }
  return out;
}

/** Parses fleet-file text; `env` is the process environment (its process-wide variables apply to every entry). Never throws, never echoes a value. */
export function parseFleet(text: string, env: Env): FleetLoad {
  const refuse = (...rules: string[]): FleetLoad => ({ ok: false, violations: rules.map((rule) => ({ variable: VARIABLE, rule })) });
  if (Buffer.byteLength(text, 'utf8') > MAX_FLEET_FILE_BYTES) return refuse(`must be at most ${MAX_FLEET_FILE_BYTES} bytes (1 MiB)`);

  // The process-wide variables are judged once, by their own names; the per-repository ones of the
  // environment are not read (beside FLEET_FILE, parseConfig refuses them).
  const shared = processWide(env);
  const base = parseConfig({ ...shared, RUNTIME_MODE: 'standalone' });
  if (!base.ok) return { ok: false, violations: base.violations };
  const inherited = new Set(base.config.metricsLabels.map(([name]) => name));
  const entryShared = Object.fromEntries(Object.entries(shared).filter(([name]) => name !== 'METRICS_ADDR'));

  const read = readYaml(text);
  if (!read.ok) return refuse(read.rule);
  const top = read.value;
  if (!(top instanceof Map)) return refuse('must be a YAML mapping holding one key, repositories');
  const keys = [...top.keys()];
  const other = keys.findIndex((k) => k !== 'repositories');
  if (other >= 0) return refuse(`must hold only the key repositories at the top (key ${other + 1} is another)`);
  const list: unknown = top.get('repositories');
  if (!Array.isArray(list)) return refuse('repositories: must be a list of repository entries');
  if (list.length === 0) return refuse('repositories: must hold at least one repository');
  if (list.length > MAX_FLEET_REPOSITORIES) return refuse(`repositories: must hold at most ${MAX_FLEET_REPOSITORIES} repositories`);

  const violations: string[] = [];
  const repositories: FleetRepository[] = [];
  const names = new Map<string, number>();
  const scopes: { index: number; name: string; key: string; servers: readonly string[] | null }[] = [];
  list.forEach((item: unknown, index) => {
    const entry = readEntry(item, index, names, inherited);
    violations.push(...entry.violations);
    // A field of the wrong kind is not passed on: judging the rest would judge a guess.
    if (entry.env === null) return;
    const result = parseConfig({ ...entryShared, RUNTIME_MODE: 'standalone', ...entry.env });
    if (!result.ok) {
      for (const v of result.violations) violations.push(`${entry.where}: ${FIELD_OF_VARIABLE.get(v.variable) ?? v.variable}: ${v.rule.replace(VARIABLE_IN_RULE, (m) => FIELD_OF_VARIABLE.get(m) ?? m)}`);
      return;
    }
    const config = result.config;
    if (entry.violations.length > 0 || entry.name === null || config.mode !== 'standalone' || config.destination === null) return;
    const where = entry.where;
    // Two entries must not scan one scope: they would share its memory (and its STATE_DIR file).
    const key = `${config.format}\n${destinationFingerprint(config.destination, config.endpointUrl)}`;
    const twin = scopes.find((s) => s.key === key && (s.servers === null || config.serverNames === null || s.servers.some((n) => config.serverNames?.includes(n) === true)));
    if (twin !== undefined) {
      violations.push(`${where}: destination: must not name a repository and server that repositories[${twin.index}] (${twin.name}) scans already (the same destination, endpoint and format, and a server of both or discovery)`);
      return;
    }
    scopes.push({ index, name: entry.name, key, servers: config.serverNames });
    repositories.push({ name: entry.name, labels: entry.labels, config: { ...config, destination: config.destination } });
  });
  if (violations.length > 0) {
    const shown = violations.length > MAX_VIOLATIONS ? [...violations.slice(0, MAX_VIOLATIONS), `and ${violations.length - MAX_VIOLATIONS} more refusals`] : violations;
    return refuse(...shown);
  }
  return { ok: true, repositories };
}

/** The document as plain values (mappings as `Map`), or the rule it breaks. */
function readYaml(text: string): { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly rule: string } {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, {
    schema: 'core',
    customTags: [],
    resolveKnownTags: false,
    merge: false,
    uniqueKeys: true,
    strict: true,
    prettyErrors: false,
    lineCounter,
  });
  const at = (offset: number | undefined) => {
    const { line, col } = lineCounter.linePos(offset ?? 0);
    return `line ${line}, column ${col}`;
  };
  // yaml's messages may quote the text; only their codes and positions are repeated.
  const fail = (rule: string) => ({ ok: false, rule }) as const;
  const error = doc.errors[0];
  if (error !== undefined) return fail(`is not valid YAML (${at(error.pos[0])}: ${error.code})`);
  const warning = doc.warnings[0];
  if (warning !== undefined) {
    return fail(warning.code === 'TAG_RESOLVE_FAILED'
      ? `uses a YAML tag viewer does not read (${at(warning.pos[0])}): only plain text, numbers, lists and mappings`
      : `is not valid YAML (${at(warning.pos[0])}: ${warning.code})`);
  }
  try {
    return { ok: true, value: doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT, mapAsMap: true }) };
  } catch (e) {
    const message = e instanceof Error ? e.message : '';
    if (message.startsWith('Excessive alias count')) return fail(`uses YAML aliases that expand too far (at most ${MAX_ALIAS_COUNT} alias expansions)`);
    if (message.startsWith('Unresolved alias')) return fail('has a YAML alias without its anchor');
    return fail('could not be read as YAML');
  }
}

interface Entry {
  /** `repositories[i]`, with the name when it is a valid one. */
  readonly where: string;
  /** `null` when the name is missing or broken. */
  readonly name: string | null;
  readonly labels: MetricsLabel[];
  /** The fields as variables; `null` when a field's value is of the wrong kind or the destination is missing. */
  readonly env: Record<string, string> | null;
  readonly violations: string[];
}

/**
 * One entry's shape: its name, its labels and its other fields as variables. The values' own rules
 * are `parseConfig`'s.
 */
function readEntry(item: unknown, index: number, names: Map<string, number>, inherited: ReadonlySet<string>): Entry {
  const violations: string[] = [];
  if (!(item instanceof Map)) return { where: `repositories[${index}]`, name: null, labels: [], env: null, violations: [`repositories[${index}]: must be a mapping of fields`] };
  const nameValue: unknown = item.get('name');
  let where = `repositories[${index}]`;
  let name: string | null = null;
  if (!item.has('name')) violations.push(`${where}: name: is required`);
  else if (typeof nameValue !== 'string') violations.push(`${where}: name: ${TEXT_RULE}`);
  else if (!NAME.test(nameValue)) violations.push(`${where}: name: must be 1 to 63 letters, digits, ., _ or -, starting with a letter or digit`);
  else {
    name = nameValue;
    where = `${where} (${name})`;
    const first = names.get(name);
    if (first !== undefined) violations.push(`${where}: name: must be unique in the file (repositories[${first}] has it too)`);
    else names.set(name, index);
  }
  const fail = (field: string, rule: string) => violations.push(`${where}: ${field}: ${rule}`);

  const env: Record<string, string> = {};
  let wellFormed = true;
  let labels: MetricsLabel[] = [];
  let position = 0;
  for (const [key, value] of item as Map<unknown, unknown>) {
    position += 1;
    if (typeof key !== 'string' || !FIELDS.includes(key)) {
      unknownField(key, position, fail);
      continue;
    }
    if (key === 'name') continue;
    if (key === 'labels') {
      labels = readLabels(value, inherited, fail);
      continue;
    }
    const text = fieldText(key as MappedField, value, fail);
    if (text !== undefined) env[FIELD_VARIABLES[key as MappedField]] = text;
    else wellFormed = false;
  }
  if (!item.has('destination')) {
    fail('destination', 'is required');
    wellFormed = false;
  }
  return { where, name, labels, env: wellFormed ? env : null, violations };
}

/** An unknown field, a secret written inline or a merge key: named by position, its name only when it is viewer's vocabulary. */
function unknownField(key: unknown, position: number, fail: (field: string, rule: string) => void): void {
  const field = `field ${position}`;
  if (key === '<<') return fail(field, 'is a YAML merge key (<<), which viewer does not read: write each field in the entry');
  const normal = typeof key === 'string' ? key.toLowerCase().replaceAll('-', '_') : '';
  if (INLINE_SECRETS.has(normal)) return fail(normal, `is a secret written in the fleet file: secrets go in files; name the file that holds it with ${normal}_file`);
  const near = typeof key === 'string' ? nearestField(normal) : null;
  const hint = near === null ? '' : ` (did you mean ${near}?)`;
  if (SECRET_WORDS.test(normal) && !normal.endsWith('_file')) {
    return fail(field, `looks like a secret written in the fleet file: secrets go in files, named by the fields ${FILE_FIELDS.join(', ')}${hint}`);
  }
  fail(field, `is not a fleet-file field${hint}`);
}

/** The known field within edit distance 2 of `key`, if one is nearest. */
function nearestField(key: string): string | null {
  let best: string | null = null;
  let bestDistance = 3;
  for (const field of FIELDS) {
    const d = editDistance(key, field, bestDistance);
    if (d < bestDistance) [best, bestDistance] = [field, d];
  }
  return best;
}

/** A field's value as its variable's text; refusals for values of the wrong kind. */
function fieldText(field: MappedField, value: unknown, fail: (field: string, rule: string) => void): string | undefined {
  if (value === null) return void fail(field, 'must have a value (leave the field out for the default)');
  if (field === 'expected_minimum_redundancy' && typeof value === 'number') {
    return Number.isSafeInteger(value) && value >= 0 ? String(value) : void fail(field, 'must be an integer from 0 to 10000');
  }
  if (field === 'servers' && Array.isArray(value)) {
    if (value.length === 0) return void fail(field, 'must name at least one server (leave the field out to discover them)');
    const bad = value.findIndex((n) => typeof n !== 'string' || n.includes(','));
    if (bad >= 0) return void fail(field, `item ${bad + 1}: must be one server name, as text`);
    return value.join(',');
  }
  if (typeof value !== 'string') return void fail(field, field === 'servers' ? 'must be a list of server names (or one comma-separated text)' : TEXT_RULE);
  return value;
}

/** `labels`: a mapping of label names to values, judged as METRICS_LABELS entries are. */
function readLabels(value: unknown, inherited: ReadonlySet<string>, fail: (field: string, rule: string) => void): MetricsLabel[] {
  if (!(value instanceof Map)) {
    fail('labels', 'must be a mapping of label names to values');
    return [];
  }
  if (value.size > MAX_METRICS_LABELS) {
    fail('labels', `must hold at most ${MAX_METRICS_LABELS} labels`);
    return [];
  }
  const labels: MetricsLabel[] = [];
  const seen = new Set<string>();
  let position = 0;
  for (const [name, text] of value as Map<unknown, unknown>) {
    position += 1;
    if (typeof name !== 'string') {
      fail('labels', `entry ${position}: the name must be a Prometheus label name ([a-zA-Z_][a-zA-Z0-9_]*, at most 64 characters)`);
      continue;
    }
    if (typeof text !== 'string') {
      fail('labels', `entry ${position}: the value ${TEXT_RULE}`);
      continue;
    }
    const rule = metricLabelRule(name, text, seen, inherited);
    seen.add(name);
    if (rule !== null) fail('labels', `entry ${position}: ${rule}`);
    else labels.push([name, text]);
  }
  return labels;
}

/** Reads (at most 1 MiB; refused beyond) and parses the file. */
export async function loadFleet(file: string, env: Env): Promise<FleetLoad> {
  const refuse = (rule: string): FleetLoad => ({ ok: false, violations: [{ variable: VARIABLE, rule }] });
  let bytes: Buffer;
  try {
    const handle = await open(file, 'r');
    try {
      if (!(await handle.stat()).isFile()) return refuse('must name a regular file');
      // One byte more than the limit tells a file over it, without reading the rest.
      const buffer = Buffer.alloc(MAX_FLEET_FILE_BYTES + 1);
      let length = 0;
      for (;;) {
        const { bytesRead } = await handle.read(buffer, length, buffer.length - length, null);
        if (bytesRead === 0) break;
        length += bytesRead;
        if (length === buffer.length) break;
      }
      if (length > MAX_FLEET_FILE_BYTES) return refuse(`must be at most ${MAX_FLEET_FILE_BYTES} bytes (1 MiB)`);
      bytes = buffer.subarray(0, length);
    } finally {
      await handle.close();
    }
  } catch (e) {
    const code = (e as { code?: unknown }).code;
    return refuse(`could not be read (${typeof code === 'string' && /^E[A-Z0-9]+$/.test(code) ? code : 'error'})`);
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return refuse('must be UTF-8 text');
  }
  return parseFleet(text, env);
}
