/**
 * Typed reads of environment variables that collect every violation instead of stopping at the
 * first, so a refused start can name each broken rule at once. A violation names the variable and
 * the rule, never the value: values may be secrets or paths an operator does not want echoed.
 */
import { posix } from 'node:path';

export interface ConfigViolation {
  readonly variable: string;
  readonly rule: string;
}

export type Env = Readonly<Record<string, string | undefined>>;

const DECIMAL = /^(?:0|[1-9][0-9]*)$/;
// C0 controls, DEL and C1 controls: exactly the characters the rule is about.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

export class EnvReader {
  readonly violations: ConfigViolation[] = [];
  readonly #env: Env;

  constructor(env: Env) {
    this.#env = env;
  }

  violate(variable: string, rule: string): void {
    this.violations.push({ variable, rule });
  }

  /** True when the variable is present, even with an empty value. */
  isSet(name: string): boolean {
    return this.#env[name] !== undefined;
  }

  /**
   * The value exactly as set (empty included), judged by none of the rules here: for a variable
   * whose rules are another tool's (Barman's `AZURE_STORAGE_CONNECTION_STRING`). Never echoed.
   */
  raw(name: string): string | undefined {
    return this.#env[name];
  }

  /**
   * The raw value, or `undefined` when absent. Empty values and values with surrounding white space
   * or control characters are violations: empty never silently means "use the default".
   */
  string(name: string, maxLength = 1024): string | undefined {
    const value = this.#env[name];
    if (value === undefined) return undefined;
    if (value === '') return this.#fail(name, 'must not be empty when set');
    if (value.trim() !== value) return this.#fail(name, 'must not have leading or trailing white space');
    if (CONTROL.test(value)) return this.#fail(name, 'must not contain control characters');
    if (Buffer.byteLength(value) > maxLength) return this.#fail(name, `must be at most ${maxLength} bytes`);
    return value;
  }

  required(name: string, why: string, maxLength?: number): string | undefined {
    if (!this.isSet(name)) return this.#fail(name, `is required ${why}`);
    return this.string(name, maxLength);
  }

  pattern(name: string, re: RegExp, description: string): string | undefined {
    const value = this.string(name);
    if (value === undefined) return undefined;
    return re.test(value) ? value : this.#fail(name, `must be ${description}`);
  }

  oneOf<T extends string>(name: string, allowed: readonly T[]): T | undefined {
    const value = this.string(name);
    if (value === undefined) return undefined;
    return (allowed as readonly string[]).includes(value) ? (value as T) : this.#fail(name, `must be one of ${allowed.join(', ')}`);
  }

  integer(name: string, min: number, max: number): number | undefined {
    const value = this.string(name);
    if (value === undefined) return undefined;
    const n = DECIMAL.test(value) ? Number(value) : Number.NaN;
    if (!Number.isSafeInteger(n) || n < min || n > max) return this.#fail(name, `must be an integer from ${min} to ${max}`);
    return n;
  }

  boolean(name: string): boolean | undefined {
    const value = this.oneOf(name, ['true', 'false'] as const);
    return value === undefined ? undefined : value === 'true';
  }

  /** An absolute, clean path: starts with `/`, no `.`/`..` or empty segments, no trailing `/`. */
  absolutePath(name: string): string | undefined {
    const value = this.string(name, 4096);
    if (value === undefined) return undefined;
    const clean = value.startsWith('/') && value !== '/' && posix.normalize(value) === value && !value.endsWith('/');
    return clean ? value : this.#fail(name, 'must be an absolute, clean path (no ., .., // or trailing /)');
  }

  /** Refuses a variable that must not be present in this configuration, even when empty. */
  forbid(name: string, rule: string): void {
    if (this.isSet(name)) this.violate(name, rule);
  }

  #fail(variable: string, rule: string): undefined {
    this.violate(variable, rule);
    return undefined;
  }
}
