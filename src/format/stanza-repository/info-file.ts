/**
 * pgBackRest's info-file format, shared by `backup.info`, `archive.info` and `backup.manifest`:
 * INI-like `[section]` lines and `key=<JSON value>` lines, closed by `[backrest]
 * backrest-checksum`. This module owns the line grammar, the JSON values, the checksum, the
 * `[backrest]` and `[cipher]` sections, the size and shape limits, and the rule for choosing
 * between a file and its `.copy` twin. `parseInfoFile` reads a whole small info file; the
 * manifest streams through the same `InfoStream`.
 *
 * Every input is untrusted and bounded by the limits below; a failure is a typed reason, never
 * an exception and never text from the file. Facts: shared/research/pgbackrest-format.md §2,
 * and pgBackRest's `src/common/ini.c` (strict mode), `src/common/type/json.c` and
 * `src/info/info.c` (checksum, `infoLoad`), read at 2.45 and at 2.59.1; see
 * docs/design/stanza-repository.md.
 *
 * Text is handled as byte strings: each byte of the file is one UTF-16 unit (latin1), so line
 * splitting, the checksum and key order are exact for any bytes pgBackRest may have written
 * (file names in a manifest need not be UTF-8). Every string this module hands out — section
 * names, keys, JSON strings — is such a byte string; `utf8Text` turns one into text.
 */
import { createHash, type Hash } from 'node:crypto';

/** A JSON value as pgBackRest writes it: integers only (as `bigint`), byte strings, arrays, objects. */
export type JsonValue = null | boolean | bigint | string | JsonArray | JsonObject;
export type JsonArray = readonly JsonValue[];
/** A JSON object; a `Map` so that no key from a file can reach a prototype. */
export type JsonObject = ReadonlyMap<string, JsonValue>;

/** The limits one info stream is read under. */
export interface InfoLimits {
  /** Bytes of the whole file. */
  readonly maxBytes: number;
  readonly maxLines: number;
  /** Bytes of one line, without its newline. */
  readonly maxLineBytes: number;
  /** Bytes of one key (left of its `=`). */
  readonly maxKeyBytes: number;
  /** Section header lines. */
  readonly maxSections: number;
}

/** Nesting of one JSON value: pgBackRest writes at most 3 (page-checksum error lists). */
export const JSON_MAX_DEPTH = 16;
/** Longest section name: pgBackRest's are at most 19 bytes (`target:link:default`). */
export const MAX_SECTION_NAME_BYTES = 64;
/** pgBackRest's repository format; loading any other is an error (`src/info/info.c`). */
export const REPOSITORY_FORMAT = 5;

/**
 * Limits of `backup.info` and `archive.info`. backup.info holds one line (~0.8 KiB, more with
 * annotations) per backup that has not expired: 16 MiB is some 20,000 backups. A line may carry
 * a user's annotations, hence 1 MiB; keys there are labels and history ids.
 */
export const INFO_FILE_LIMITS: InfoLimits = {
  maxBytes: 16 * 1024 * 1024,
  maxLines: 100_000,
  maxLineBytes: 1024 * 1024,
  maxKeyBytes: 1024,
  maxSections: 64,
};

export type InfoFailure =
  /** More bytes, lines or section headers than the limits allow. */
  | 'too-large'
  | 'too-many-lines'
  | 'line-too-long'
  | 'too-many-sections'
  /** A NUL byte: no text pgBackRest writes holds one. */
  | 'binary'
  /** Starts with OpenSSL's `Salted__`: an encrypted repository's file, unreadable without its passphrase. */
  | 'encrypted'
  /** A `[name]` line whose name is empty, too long or outside `[A-Za-z0-9:._-]`. */
  | 'bad-section'
  /** A `key=value` line before any section. */
  | 'outside-section'
  | 'missing-equals'
  /** No `=` on the line leaves a valid JSON value right of it (pgBackRest retries at each `=`). */
  | 'invalid-json'
  | 'empty-key'
  | 'key-too-long'
  /** The same key twice in one section (sections of one name are merged). */
  | 'duplicate-key'
  /** A value the reader of a particular file refused. */
  | 'invalid-value';

export type InfoChecksum = 'valid' | 'invalid' | 'missing';

/** What the closing of a stream tells beyond its values. */
export interface InfoTrailer {
  /** `backrest-checksum` against the SHA-1 of the canonical rendering of every other value. */
  readonly checksum: InfoChecksum;
  /** `backrest-format`; null when absent or not an integer. */
  readonly format: number | null;
  /** `backrest-version` (e.g. `2.45`, `2.60dev`); null when absent or out of shape. */
  readonly version: string | null;
  /** What pgBackRest's own load would accept: checksum valid, format absent or 5. */
  readonly loadable: boolean;
  /** A `[cipher] cipher-pass` was present (its value is never kept): the dependent files are encrypted. */
  readonly cipherPass: boolean;
  /** SHA-1 (hex) of the file's bytes: what `pgbackrest verify` compares between a file and its copy. */
  readonly digest: string;
}

export type InfoStreamEnd = ({ readonly ok: true } & InfoTrailer) | { readonly ok: false; readonly reason: InfoFailure; readonly line: number | null };

/** Called once per value in file order, except `[cipher]` values; a reason refuses the file. */
export type InfoValueSink = (section: string, key: string, value: JsonValue) => InfoFailure | null;

// ---------------------------------------------------------------------------------------------
// JSON values (src/common/type/json.c): what pgBackRest's reader accepts, and no more.

const JSON_FAIL = Symbol('json-fail');
type Parsed = JsonValue | typeof JSON_FAIL;
const UINT64_MAX = (1n << 64n) - 1n;
const INT64_MIN = -(1n << 63n);

class JsonReader {
  pos: number;
  readonly #s: string;
  readonly #end: number;
  constructor(s: string, from: number, end: number) {
    this.#s = s;
    this.pos = from;
    this.#end = end;
  }

  /** The code unit at `i`, NaN beyond the value's end. */
  at(i: number): number {
    return i < this.#end ? this.#s.charCodeAt(i) : Number.NaN;
  }

  ws(): void {
    while (this.pos < this.#end) {
      const c = this.#s.charCodeAt(this.pos);
      // pgBackRest skips space, tab, newline and carriage return (a CRLF file's values end in \r).
      if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) return;
      this.pos++;
    }
  }

  /** One whole value with only whitespace around it, from `pos` to the end. */
  document(): Parsed {
    const v = this.value(0);
    if (v === JSON_FAIL) return v;
    this.ws();
    return this.pos === this.#end ? v : JSON_FAIL;
  }

  value(depth: number): Parsed {
    if (depth >= JSON_MAX_DEPTH) return JSON_FAIL;
    this.ws();
    const c = this.at(this.pos);
    if (c === 0x22) return this.string();
    if (c === 0x7b) return this.object(depth);
    if (c === 0x5b) return this.array(depth);
    if (c === 0x2d || (c >= 0x30 && c <= 0x39)) return this.number();
    if (this.word('true')) return true;
    if (this.word('false')) return false;
    if (this.word('null')) return null;
    return JSON_FAIL;
  }

  word(w: string): boolean {
    if (!this.#s.startsWith(w, this.pos) || this.pos + w.length > this.#end) return false;
    this.pos += w.length;
    return true;
  }

  /** Integers only, as pgBackRest reads them into 64 bits; no fraction, no exponent. */
  number(): Parsed {
    const start = this.pos;
    if (this.at(this.pos) === 0x2d) this.pos++;
    const digitsFrom = this.pos;
    while (this.pos < this.#end) {
      const c = this.#s.charCodeAt(this.pos);
      if (c < 0x30 || c > 0x39) break;
      this.pos++;
    }
    const digits = this.pos - digitsFrom;
    if (digits === 0 || digits > 20) return JSON_FAIL;
    const n = BigInt(this.#s.slice(start, this.pos));
    return n > UINT64_MAX || n < INT64_MIN ? JSON_FAIL : n;
  }

  string(): Parsed {
    this.pos++; // opening quote
    let out = '';
    let from = this.pos;
    while (this.pos < this.#end) {
      const c = this.#s.charCodeAt(this.pos);
      if (c === 0x22) {
        out += this.#s.slice(from, this.pos);
        this.pos++;
        return out;
      }
      if (c !== 0x5c) {
        this.pos++;
        continue;
      }
      out += this.#s.slice(from, this.pos);
      const e = this.pos + 1 < this.#end ? this.#s[this.pos + 1] : undefined;
      const simple = e === undefined ? undefined : ESCAPES.get(e);
      if (simple !== undefined) {
        out += simple;
        this.pos += 2;
      } else if (e === 'u' && /^00[0-9]{2}$/.test(this.#s.slice(this.pos + 2, this.pos + 6)) && this.pos + 6 <= this.#end) {
        // pgBackRest validates four decimal digits and decodes "00" plus two hex digits: only
        // \u0000–\u0099 with decimal digits passes both, decoded as hex like pgBackRest does.
        out += String.fromCharCode(Number.parseInt(this.#s.slice(this.pos + 4, this.pos + 6), 16));
        this.pos += 6;
      } else {
        return JSON_FAIL;
      }
      from = this.pos;
    }
    return JSON_FAIL;
  }

  array(depth: number): Parsed {
    this.pos++;
    const out: JsonValue[] = [];
    this.ws();
    if (this.at(this.pos) === 0x5d) {
      this.pos++;
      return out;
    }
    for (;;) {
      const v = this.value(depth + 1);
      if (v === JSON_FAIL) return v;
      out.push(v);
      this.ws();
      const c = this.at(this.pos++);
      if (c === 0x5d) return out;
      if (c !== 0x2c) return JSON_FAIL;
    }
  }

  object(depth: number): Parsed {
    this.pos++;
    const out = new Map<string, JsonValue>();
    this.ws();
    if (this.at(this.pos) === 0x7d) {
      this.pos++;
      return out;
    }
    for (;;) {
      this.ws();
      if (this.at(this.pos) !== 0x22) return JSON_FAIL;
      const key = this.string();
      if (key === JSON_FAIL || typeof key !== 'string' || out.has(key)) return JSON_FAIL;
      this.ws();
      if (this.at(this.pos++) !== 0x3a) return JSON_FAIL;
      const v = this.value(depth + 1);
      if (v === JSON_FAIL) return v;
      out.set(key, v);
      this.ws();
      const c = this.at(this.pos++);
      if (c === 0x7d) return out;
      if (c !== 0x2c) return JSON_FAIL;
    }
  }
}

const ESCAPES = new Map([['"', '"'], ['\\', '\\'], ['/', '/'], ['n', '\n'], ['r', '\r'], ['t', '\t'], ['b', '\b'], ['f', '\f']]);

/** Narrows a value to an object (`instanceof Map` alone would widen it to `Map<any, any>`). */
export function isJsonObject(v: JsonValue | undefined): v is JsonObject {
  return v instanceof Map;
}

/**
 * One JSON value spanning `text` from `from` to `end` (whitespace around it allowed), or
 * `undefined`. `scanned` receives how far the reader got, for the caller's work budget.
 */
export function parseJsonValue(text: string, from = 0, end = text.length, scanned?: { n: number }): JsonValue | undefined {
  const r = new JsonReader(text, from, end);
  const v = r.document();
  if (scanned !== undefined) scanned.n += Math.max(0, r.pos - from);
  return v === JSON_FAIL ? undefined : v;
}

/** pgBackRest's JSON string writer (`jsonWriteStr`): escapes `"`, `\`, \n, \r, \t, \b, \f; every other byte raw. */
export function renderJsonString(s: string): string {
  return `"${s.replace(/["\\\n\r\t\b\f]/g, (c) => WRITE_ESCAPES[c] ?? c)}"`;
}
const WRITE_ESCAPES: Readonly<Record<string, string>> = { '"': '\\"', '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t', '\b': '\\b', '\f': '\\f' };

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/** A byte string (one unit per byte) as Unicode text, or null when its bytes are not UTF-8. */
export function utf8Text(bytes: string): string | null {
  // eslint-disable-next-line no-control-regex -- ASCII needs no decoding
  if (/^[\x00-\x7f]*$/.test(bytes)) return bytes;
  try {
    return UTF8.decode(Buffer.from(bytes, 'latin1'));
  } catch {
    return null;
  }
}

// ---------------------------------------------------------------------------------------------
// The line grammar and the checksum, one chunk at a time.

const SECTION_NAME = /^[A-Za-z0-9][A-Za-z0-9:._-]*$/;
const VERSION = /^[0-9]{1,3}\.[0-9]{1,3}(?:\.[0-9]{1,3})?(?:dev)?$/;
const CHECKSUM_HEX = /^[0-9a-f]{40}$/;
const SALTED = 'Salted__';
/** Canonical text buffered before it is hashed: fewer, larger hash updates. */
const HASH_FLUSH = 64 * 1024;
/**
 * JSON scanning allowed per stream, beyond one pass over its bytes: pgBackRest retries a
 * line's split at every `=` until the right side is JSON, which hostile lines could make
 * quadratic. Real files need one pass (a key holding `=` fails at once on the next character).
 */
const JSON_WORK_FACTOR = 4;
const JSON_WORK_CONSTANT = 1024 * 1024;

/**
 * An info file read incrementally: `push` bytes as they come, then `end`. Each value goes to the
 * sink in file order; nothing but the current line and the checksum state is held.
 */
export class InfoStream {
  readonly #limits: InfoLimits;
  readonly #sink: InfoValueSink;
  readonly #digest: Hash = createHash('sha1');
  readonly #canonical: Hash = createHash('sha1');
  #pending = '';
  #canonicalBuffer = '{';
  #bytes = 0;
  #lines = 0;
  #sections = 0;
  #section = '';
  /** The last section that contributed to the checksum (pgBackRest's `sectionLast`). */
  #checksumSection = '';
  #head = '';
  #failure: { reason: InfoFailure; line: number | null } | null = null;
  #jsonWork = 0;
  #checksumValue: JsonValue | undefined;
  #formatValue: JsonValue | undefined;
  #versionValue: JsonValue | undefined;
  #cipherPass = false;
  readonly #backrestKeys = new Set<string>();
  #ended: InfoStreamEnd | undefined;

  constructor(limits: InfoLimits, sink: InfoValueSink) {
    this.#limits = limits;
    this.#sink = sink;
  }

  /** Whether the stream has failed; a failed stream ignores further input. */
  get failed(): boolean {
    return this.#failure !== null;
  }

  /** Bytes pushed so far. */
  get bytes(): number {
    return this.#bytes;
  }

  push(chunk: Uint8Array): boolean {
    if (this.#failure !== null) return false;
    this.#bytes += chunk.byteLength;
    if (this.#bytes > this.#limits.maxBytes) return this.#fail('too-large', null);
    const text = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength).toString('latin1');
    // Checked before anything else: ciphertext holds NUL bytes and newlines at random.
    if (this.#head.length < SALTED.length) {
      this.#head += text.slice(0, SALTED.length - this.#head.length);
      if (this.#head === SALTED) return this.#fail('encrypted', null);
    }
    if (chunk.indexOf(0) !== -1) return this.#fail('binary', null);
    this.#digest.update(chunk);
    let from = 0;
    for (;;) {
      const nl = text.indexOf('\n', from);
      if (nl === -1) break;
      const line = this.#pending === '' ? text.slice(from, nl) : this.#pending + text.slice(from, nl);
      this.#pending = '';
      if (!this.#line(line)) return false;
      from = nl + 1;
    }
    if (from < text.length) {
      if (this.#pending.length + (text.length - from) > this.#limits.maxLineBytes) return this.#fail('line-too-long', this.#lines + 1);
      this.#pending += text.slice(from);
    }
    return true;
  }

  end(): InfoStreamEnd {
    this.#ended ??= this.#finish();
    return this.#ended;
  }

  #finish(): InfoStreamEnd {
    // pgBackRest reads a last line without its newline as a line.
    if (this.#failure === null && this.#pending !== '') {
      const line = this.#pending;
      this.#pending = '';
      this.#line(line);
    }
    if (this.#failure !== null) return { ok: false, reason: this.#failure.reason, line: this.#failure.line };
    this.#canonicalBuffer += '}}';
    this.#canonical.update(this.#canonicalBuffer, 'latin1');
    const actual = this.#canonical.digest('hex');
    const expected = this.#checksumValue;
    const checksum: InfoChecksum = expected === undefined ? 'missing' : typeof expected === 'string' && CHECKSUM_HEX.test(expected) && expected === actual ? 'valid' : 'invalid';
    const f = this.#formatValue;
    const format = typeof f === 'bigint' && f <= 0xffff_ffffn && f >= 0n ? Number(f) : null;
    const v = this.#versionValue;
    const version = typeof v === 'string' && VERSION.test(v) ? v : null;
    return {
      ok: true,
      checksum,
      format,
      version,
      loadable: checksum === 'valid' && (f === undefined || format === REPOSITORY_FORMAT),
      cipherPass: this.#cipherPass,
      digest: this.#digest.digest('hex'),
    };
  }

  #fail(reason: InfoFailure, line: number | null): false {
    this.#failure = { reason, line };
    this.#pending = '';
    return false;
  }

  #line(line: string): boolean {
    const n = ++this.#lines;
    if (n > this.#limits.maxLines) return this.#fail('too-many-lines', null);
    if (line.length > this.#limits.maxLineBytes) return this.#fail('line-too-long', n);
    // Strict mode (src/common/ini.c): nothing is trimmed; only an empty line is skipped.
    if (line === '') return true;
    if (line.charCodeAt(0) === 0x5b && line.charCodeAt(line.length - 1) === 0x5d && line.length >= 2) {
      const name = line.slice(1, -1);
      if (name === '' || name.length > MAX_SECTION_NAME_BYTES || !SECTION_NAME.test(name)) return this.#fail('bad-section', n);
      if (++this.#sections > this.#limits.maxSections) return this.#fail('too-many-sections', n);
      this.#section = name;
      return true;
    }
    if (this.#section === '') return this.#fail('outside-section', n);
    let eq = line.indexOf('=');
    if (eq === -1) return this.#fail('missing-equals', n);
    // The key ends at the first `=` that leaves valid JSON on its right (a key may hold `=`).
    const budget = JSON_WORK_FACTOR * this.#bytes + JSON_WORK_CONSTANT;
    const scanned = { n: 0 };
    let value: JsonValue | undefined;
    for (;;) {
      if (eq > this.#limits.maxKeyBytes) return this.#fail('key-too-long', n);
      value = parseJsonValue(line, eq + 1, line.length, scanned);
      this.#jsonWork += scanned.n;
      scanned.n = 0;
      if (this.#jsonWork > budget) return this.#fail('invalid-json', n);
      if (value !== undefined) break;
      eq = line.indexOf('=', eq + 1);
      if (eq === -1) return this.#fail('invalid-json', n);
    }
    if (eq === 0) return this.#fail('empty-key', n);
    const key = line.slice(0, eq);
    const raw = line.slice(eq + 1);
    const section = this.#section;

    if (section === 'backrest') {
      if (this.#backrestKeys.has(key)) return this.#fail('duplicate-key', n);
      this.#backrestKeys.add(key);
      if (key === 'backrest-checksum') {
        this.#checksumValue = value;
        return this.#sinkValue(section, key, value, n);
      }
      if (key === 'backrest-format') this.#formatValue = value;
      else if (key === 'backrest-version') this.#versionValue = value;
    }
    this.#checksumAdd(section, key, raw);
    if (section === 'cipher') {
      // The passphrase of the dependent files: counted in the checksum, never kept or passed on.
      if (key === 'cipher-pass' && typeof value === 'string') this.#cipherPass = true;
      return true;
    }
    return this.#sinkValue(section, key, value, n);
  }

  #sinkValue(section: string, key: string, value: JsonValue, n: number): boolean {
    const refused = this.#sink(section, key, value);
    return refused === null ? true : this.#fail(refused, n);
  }

  /** pgBackRest's rendering (`INFO_CHECKSUM_*` in src/info/info.c): `{"section":{"key":value,...},...}`. */
  #checksumAdd(section: string, key: string, raw: string): void {
    let piece: string;
    if (this.#checksumSection !== section) {
      // The section name is written between quotes as it is, not escaped (names are [A-Za-z0-9:._-]).
      piece = `${this.#checksumSection === '' ? '' : '},'}"${section}":{`;
      this.#checksumSection = section;
    } else {
      piece = ',';
    }
    this.#canonicalBuffer += `${piece}${renderJsonString(key)}:${raw}`;
    if (this.#canonicalBuffer.length >= HASH_FLUSH) {
      this.#canonical.update(this.#canonicalBuffer, 'latin1');
      this.#canonicalBuffer = '';
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Whole small info files, and the `.copy` rule.

/** A read info file: its sections (same-named sections merged, `[cipher]` left out) and trailer. */
export interface InfoFile extends InfoTrailer {
  readonly sections: ReadonlyMap<string, ReadonlyMap<string, JsonValue>>;
}

export type InfoFileResult = ({ readonly ok: true } & InfoFile) | { readonly ok: false; readonly reason: InfoFailure; readonly line: number | null };

/** Reads one whole info file (`backup.info`, `archive.info` or a copy) under `limits`. */
export function parseInfoFile(bytes: Uint8Array, limits: InfoLimits = INFO_FILE_LIMITS): InfoFileResult {
  const sections = new Map<string, Map<string, JsonValue>>();
  const stream = new InfoStream(limits, (section, key, value) => {
    let entries = sections.get(section);
    if (entries === undefined) {
      entries = new Map();
      sections.set(section, entries);
    }
    if (entries.has(key)) return 'duplicate-key';
    entries.set(key, value);
    return null;
  });
  stream.push(bytes);
  const end = stream.end();
  if (!end.ok) return end;
  return { ...end, sections };
}

/** How one of a pair of info files stands. */
export type InfoFileStatus = 'loadable' | 'absent' | 'unloadable';

export interface CopyChoice {
  /** The file pgBackRest would load: the main file when it loads, else the copy when it loads. */
  readonly chosen: 'main' | 'copy' | null;
  readonly file: InfoFile | null;
  readonly main: InfoFileStatus;
  readonly copy: InfoFileStatus;
  /** Both load but their bytes differ (what `pgbackrest verify` reports as "copy does not match"). */
  readonly differ: boolean;
}

function statusOf(r: InfoFileResult | null): InfoFileStatus {
  if (r === null) return 'absent';
  return r.ok && r.loadable ? 'loadable' : 'unloadable';
}

/**
 * pgBackRest's rule (`infoLoad` in src/info/info.c, with the load callbacks of infoBackup.c and
 * infoArchive.c): try the main file, and only when it cannot be loaded — missing, unreadable,
 * wrong format, bad checksum — the copy. `null` stands for an object that is not there.
 */
export function chooseInfoCopy(main: InfoFileResult | null, copy: InfoFileResult | null): CopyChoice {
  const m = statusOf(main);
  const c = statusOf(copy);
  const differ = main !== null && copy !== null && main.ok && copy.ok && m === 'loadable' && c === 'loadable' && main.digest !== copy.digest;
  if (m === 'loadable' && main !== null && main.ok) return { chosen: 'main', file: main, main: m, copy: c, differ };
  if (c === 'loadable' && copy !== null && copy.ok) return { chosen: 'copy', file: copy, main: m, copy: c, differ };
  return { chosen: null, file: null, main: m, copy: c, differ };
}
