/**
 * The consumer's four inputs (spec "Consumer contract"), validated before the consumer listens:
 * `REPOSITORY_EVIDENCE_URL` exactly `unix:///var/run/viewer/evidence.sock` (the socket path is the
 * server boundary, so loopback and every TCP form are refused), `REPOSITORY_EVIDENCE_TOKEN_FILE`
 * an absolute clean path, `REPOSITORY_EXPECTED_FINGERPRINT` a full `sha256:` fingerprint and
 * `REPOSITORY_BARMAN_SERVER` an exact server name. Evidence is enabled when any of the four is
 * set; then all four are required (rule 1). The library never reads the process environment itself: the
 * caller hands it the environment, so an integrator may take the values from anywhere.
 * Refusals name the variable and the rule, never the value.
 */
import { posix } from 'node:path';
import { SERVER_NAME_PATTERN, SIDECAR_SOCKET_PATH } from '../contract/values.ts';

export const CONSUMER_INPUTS = [
  'REPOSITORY_EVIDENCE_URL',
  'REPOSITORY_EVIDENCE_TOKEN_FILE',
  'REPOSITORY_EXPECTED_FINGERPRINT',
  'REPOSITORY_BARMAN_SERVER',
] as const;
export type ConsumerInput = (typeof CONSUMER_INPUTS)[number];

/** The only accepted evidence URL. */
export const EVIDENCE_URL = `unix://${SIDECAR_SOCKET_PATH}`;

/** The wire constants a consumer checks the sidecar's identity against (rule 2). */
export const EXPECTED_WIRE = { provider: 'store-a', format: 'archive-cloud', scopeKind: 'archive-server' } as const;

export interface ConsumerConfig {
  readonly socketPath: string;
  readonly tokenFile: string;
  readonly expectedFingerprint: string;
  readonly server: string;
}

export type ConsumerSetting = { readonly enabled: false } | ({ readonly enabled: true } & ConsumerConfig);

/** One refused input: the variable and the rule it breaks. */
export interface ConsumerConfigViolation {
  readonly variable: ConsumerInput;
  readonly rule: string;
}

export class ConsumerConfigError extends Error {
  readonly violations: readonly ConsumerConfigViolation[];
  constructor(violations: readonly ConsumerConfigViolation[]) {
    super(`repository evidence configuration refused: ${violations.map((v) => `${v.variable} ${v.rule}`).join('; ')}`);
    this.name = 'ConsumerConfigError';
    this.violations = violations;
  }
}

const FINGERPRINT = /^sha256:[0-9a-f]{64}$/;
const SERVER = new RegExp(SERVER_NAME_PATTERN);

function urlRule(url: string): string | null {
  if (url === EVIDENCE_URL) return null;
  if (/^unix:/i.test(url)) return `must be exactly ${EVIDENCE_URL}`;
  return `must be exactly ${EVIDENCE_URL}; TCP, loopback and any other address are refused`;
}

/**
 * The consumer's setting from an environment. Evidence is disabled only when none of the four
 * inputs is present; a partial or invalid set throws `ConsumerConfigError` listing every violation.
 */
export function consumerConfigFrom(env: Readonly<Record<string, string | undefined>>): ConsumerSetting {
  const value = (name: ConsumerInput) => (Object.hasOwn(env, name) ? env[name] : undefined);
  if (CONSUMER_INPUTS.every((name) => value(name) === undefined)) return { enabled: false };
  const violations: ConsumerConfigViolation[] = [];
  const check = (variable: ConsumerInput, rule: (v: string) => string | null): string => {
    const v = value(variable);
    if (v === undefined || v === '') {
      violations.push({ variable, rule: 'is required when repository evidence is enabled' });
      return '';
    }
    const broken = rule(v);
    if (broken !== null) violations.push({ variable, rule: broken });
    return v;
  };
  check('REPOSITORY_EVIDENCE_URL', urlRule);
  const tokenFile = check('REPOSITORY_EVIDENCE_TOKEN_FILE', (v) =>
    posix.isAbsolute(v) && posix.normalize(v) === v && !v.endsWith('/') ? null : 'must be an absolute, clean file path',
  );
  const expectedFingerprint = check('REPOSITORY_EXPECTED_FINGERPRINT', (v) => (FINGERPRINT.test(v) ? null : 'must be sha256: followed by 64 lowercase hex digits'));
  const server = check('REPOSITORY_BARMAN_SERVER', (v) => (SERVER.test(v) ? null : 'must be a valid archive server name (exact, case-sensitive)'));
  if (violations.length > 0) throw new ConsumerConfigError(violations);
  return { enabled: true, socketPath: SIDECAR_SOCKET_PATH, tokenFile, expectedFingerprint, server };
}
