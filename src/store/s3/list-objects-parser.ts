/**
 * A purpose-built parser of S3 ListObjectsV2 answers (issue 28): it reads only what the scanner
 * uses (each object's `Key`, `Size` and `LastModified`, each `CommonPrefixes/Prefix`,
 * `IsTruncated`, `NextContinuationToken`, `KeyCount`, `EncodingType`) straight from the body's
 * bytes, chunk by chunk as they arrive, and builds one `StoreObject` per listed object and nothing
 * else per key: no tag strings, no intermediate tree, no text for the elements it skips, and one
 * `Date` per distinct receipt time in a row (objects written in the same second share it; nothing
 * mutates a listed time).
 *
 * What it gives is what the SDK's own deserializer gives (`@aws-sdk/xml-builder` then the
 * schema's shape deserializer, what `s3-driver.ts` read before), on every well-formed answer:
 * - texts as the SDK's parser makes them: line ends normalised (`\r\n` and `\r` become `\n`),
 *   the five predefined entities and character references decoded, CDATA sections and text
 *   concatenated, comments and processing instructions dropped, a text of only whitespace that
 *   holds a line end read as empty; the body decoded as UTF-8 (bytes that are not become U+FFFD);
 * - keys and common prefixes decoded from `EncodingType=url` exactly as `listing-names.ts` does,
 *   and only when the answer says `<EncodingType>url</EncodingType>` (wherever in the document);
 * - `LastModified` by the SDK's RFC 3339 rule (`_parseRfc3339DateTimeWithOffset`, restated here:
 *   the same pattern, range checks, fraction rounding and offset), with a fast path for the
 *   `YYYY-MM-DDTHH:MM:SS[.fff]Z` every store sends.
 *
 * Where the SDK would guess, it refuses, so that no answer can pass for a shorter listing: each
 * refusal is a `StoreError` `incompatible_format` (never a page with fewer objects). Refused: a
 * body cut short (the root element not closed), a root other than `ListBucketResult`, a tag not
 * closed by its own name, a DOCTYPE (entity definitions), an unknown entity, an object without a
 * `Key`, a common prefix without a `Prefix`, an element given twice where the SDK takes one (two
 * keys of one object, two `IsTruncated`), a field with attributes or child elements, an
 * `IsTruncated` that is neither `true` nor `false` (the SDK reads anything else as false: a
 * last page), a truncated answer without a continuation token, a `LastModified` the SDK's rule
 * refuses, a url-encoded name that is not well formed, anything but whitespace, comments and
 * processing instructions after the root, elements nested deeper than 32. A `Size` that is not
 * decimal digits becomes NaN (the SDK: `Number(text)`, so `""` would be 0), which the confined
 * driver refuses like a missing one. Character references above U+FFFF are decoded as code points
 * (the SDK cuts them to 16 bits, a bug no store's url-encoded listing can reach).
 */
import { StoreError } from '../../common/errors.ts';
import type { StoreObject } from '../driver.ts';
import { STORE_MESSAGES } from '../messages.ts';
import { listedName } from './listing-names.ts';
import { decodeXmlReferences } from '../xml-text.ts';

/** One ListObjectsV2 answer as the driver uses it; keys and prefixes decoded. */
export interface ParsedListing {
  readonly objects: StoreObject[];
  readonly prefixes: string[];
  readonly isTruncated: boolean;
  /** The token of the next page; `null` on the last page (and never `''` on a truncated one). */
  readonly nextContinuationToken: string | null;
  readonly keyCount: number | null;
  readonly encodingType: string | null;
}

/** The refusal every malformed answer gets; `reason` is viewer's own text (never body bytes). */
export function malformedListing(reason: string): StoreError {
  return new StoreError('incompatible_format', STORE_MESSAGES.incompatible_format, { cause: new Error(`ListObjectsV2 answer refused: ${reason}`) });
}

// Element names the parser knows, by id; anything else is skipped by its name's text.
const NAMES = [
  'ListBucketResult', 'Contents', 'CommonPrefixes', 'Key', 'Size', 'LastModified', 'Prefix', 'IsTruncated', 'NextContinuationToken', 'KeyCount', 'EncodingType',
  'ETag', 'StorageClass', 'Owner', 'ID', 'DisplayName', 'Name', 'MaxKeys', 'Delimiter', 'ContinuationToken', 'StartAfter', 'ChecksumAlgorithm', 'ChecksumType', 'RestoreStatus',
] as const;
const N_ROOT = 0, N_CONTENTS = 1, N_COMMON = 2, N_KEY = 3, N_SIZE = 4, N_MODIFIED = 5, N_PREFIX = 6, N_TRUNCATED = 7, N_TOKEN = 8, N_KEYCOUNT = 9, N_ENCODING = 10;
const NAME_BYTES = NAMES.map((n) => Buffer.from(n, 'latin1'));
const UNKNOWN = -1;

// What an open element is to the parser.
const R_ROOT = 1, R_CONTENTS = 2, R_COMMON = 3, R_SKIP = 4, R_LEAF = 5;
// Which field a leaf fills.
const F_KEY = 1, F_SIZE = 2, F_MODIFIED = 3, F_CP_PREFIX = 4, F_TRUNCATED = 5, F_TOKEN = 6, F_KEYCOUNT = 7, F_ENCODING = 8;

const MAX_DEPTH = 32;
const LT = 0x3c, GT = 0x3e, SLASH = 0x2f, QMARK = 0x3f, BANG = 0x21, AMP = 0x26, CR = 0x0d, LF = 0x0a, TAB = 0x09, SPACE = 0x20, QUOT = 0x22, APOS = 0x27;
const PERCENT = 0x25, PLUS = 0x2b;
const COMMENT_OPEN = Buffer.from('<!--'), COMMENT_CLOSE = Buffer.from('-->');
const CDATA_OPEN = Buffer.from('<![CDATA['), CDATA_CLOSE = Buffer.from(']]>');
const PI_CLOSE = Buffer.from('?>');

const isSpace = (c: number) => c === SPACE || c === TAB || c === LF || c === CR;

/** A piece of a leaf's text: bytes [start, end) of the current buffer, text or CDATA. */
const P_TEXT = 0, P_CDATA = 1;

interface MutableObject {
  key: string;
  size: number;
  lastModified: Date | null;
}

export class ListObjectsParser {
  #buf: Buffer = Buffer.alloc(0);
  #pos = 0;
  // Open elements: name id (or UNKNOWN with its text in #unknown), role, and for leaves the field.
  readonly #names = new Int32Array(MAX_DEPTH);
  readonly #roles = new Int32Array(MAX_DEPTH);
  readonly #unknown: (string | null)[] = [];
  #depth = 0;
  #rootClosed = false;
  #rootSeen = false;
  #errorDocument = false;
  // The open leaf: its field and its text pieces (start, end, kind), in the current buffer.
  #field = 0;
  #pieces: number[] = [];
  // The object being read.
  #key: string | null = null;
  #keyEncoded = false;
  #size = Number.NaN;
  #sizeSeen = false;
  #modified: Date | null = null;
  #modifiedSeen = false;
  #cpPrefix: string | null = null;
  // The previous receipt time's bytes and its Date, shared by the objects that repeat it.
  readonly #lastTime = Buffer.alloc(24);
  #lastTimeLength = 0;
  #lastDate: Date | null = null;
  // The answer.
  readonly #objects: MutableObject[] = [];
  readonly #prefixes: string[] = [];
  readonly #encodedObjects: number[] = [];
  readonly #encodedPrefixes: number[] = [];
  #isTruncated: boolean | null = null;
  #token: string | null = null;
  #tokenSeen = false;
  #keyCount: number | null = null;
  #encodingType: string | null = null;
  #encodingSeen = false;

  /** Whether the body is S3's `<Error>` document rather than a listing (known once its root was read). */
  get errorDocument(): boolean {
    return this.#errorDocument;
  }

  /** Hands the parser the next bytes of the body. Throws a `StoreError` as soon as the bytes are no listing. */
  push(chunk: Uint8Array): void {
    const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    // What the last chunk left unread: a cut token, and the open field's text read so far.
    const keep = this.#pieces.length > 0 ? Math.min(this.#pos, this.#pieces[0] as number) : this.#pos;
    if (keep >= this.#buf.length) {
      this.#buf = bytes;
      this.#pos = 0;
    } else {
      for (let i = 0; i < this.#pieces.length; i += 3) {
        this.#pieces[i] = (this.#pieces[i] as number) - keep;
        this.#pieces[i + 1] = (this.#pieces[i + 1] as number) - keep;
      }
      this.#buf = Buffer.concat([this.#buf.subarray(keep), bytes]);
      this.#pos -= keep;
    }
    this.#run();
  }

  /** The listing, once the whole body was pushed. */
  end(): ParsedListing {
    if (!this.#rootClosed) throw malformedListing(this.#rootSeen ? 'the body ends before the listing does' : 'no listing element');
    // After the listing only whitespace may be left unread (comments and processing instructions were read).
    this.#outsideText(this.#buf, this.#pos, this.#buf.length);
    if (this.#isTruncated === null) throw malformedListing('no IsTruncated');
    if (this.#isTruncated && (this.#token === null || this.#token === '')) throw malformedListing('truncated without a continuation token');
    const url = this.#encodingType === 'url';
    if (url) {
      try {
        for (const i of this.#encodedObjects) {
          const o = this.#objects[i] as MutableObject;
          o.key = listedName(o.key, 'url');
        }
        for (const i of this.#encodedPrefixes) this.#prefixes[i] = listedName(this.#prefixes[i] as string, 'url');
      } catch {
        throw malformedListing('a name that is no url encoding');
      }
    }
    return {
      objects: this.#objects,
      prefixes: this.#prefixes,
      isTruncated: this.#isTruncated,
      nextContinuationToken: this.#isTruncated ? this.#token : null,
      keyCount: this.#keyCount,
      encodingType: this.#encodingType,
    };
  }

  #run(): void {
    const b = this.#buf;
    const n = b.length;
    let i = this.#pos;
    while (i < n) {
      if (b[i] !== LT) {
        // Text up to the next tag.
        const j = indexOfByte(b, LT, i, n);
        if (j === -1) break;
        if (this.#field !== 0) this.#pieces.push(i, j, P_TEXT);
        else if (this.#depth === 0) this.#outsideText(b, i, j);
        i = j;
        continue;
      }
      if (i + 1 >= n) break;
      const c = b[i + 1] as number;
      if (c === SLASH) {
        const e = indexOfByte(b, GT, i + 2, n);
        if (e === -1) break;
        this.#close(b, i + 2, e);
        i = e + 1;
      } else if (c === BANG) {
        if (i + 3 >= n) break;
        if (b[i + 2] === 0x2d) {
          if (!startsWith(b, i, COMMENT_OPEN)) throw malformedListing('a broken comment');
          const e = b.indexOf(COMMENT_CLOSE, i + 4);
          if (e === -1) break;
          i = e + 3;
        } else if (b[i + 2] === 0x5b) {
          if (i + CDATA_OPEN.length > n) break;
          if (!startsWith(b, i, CDATA_OPEN)) throw malformedListing('a broken CDATA section');
          const e = b.indexOf(CDATA_CLOSE, i + CDATA_OPEN.length);
          if (e === -1) break;
          if (this.#field !== 0) this.#pieces.push(i + CDATA_OPEN.length, e, P_CDATA);
          else if (this.#depth === 0) throw malformedListing('text outside the listing');
          i = e + 3;
        } else {
          throw malformedListing('a DOCTYPE or other declaration');
        }
      } else if (c === QMARK) {
        const e = b.indexOf(PI_CLOSE, i + 2);
        if (e === -1) break;
        i = e + 2;
      } else {
        const e = this.#open(b, i + 1, n);
        if (e === -1) break;
        i = e;
      }
    }
    this.#pos = i;
  }

  #outsideText(b: Buffer, s: number, e: number): void {
    for (let k = s; k < e; k++) if (!isSpace(b[k] as number)) throw malformedListing('text outside the listing');
  }

  /** An opening tag from its name's first byte; returns the index after it, or -1 if cut. */
  #open(b: Buffer, s: number, n: number): number {
    if (this.#rootClosed) throw malformedListing('an element after the listing');
    let k = s;
    for (; k < n; k++) {
      const c = b[k] as number;
      if (c === GT || c === SLASH || isSpace(c)) break;
    }
    if (k >= n) return -1;
    const nameEnd = k;
    let attributes = false;
    let selfClosing = false;
    if (b[k] === GT) {
      k += 1;
    } else {
      // Attributes (xmlns on the root): find the end of the tag outside quotes.
      let quote = 0;
      for (; k < n; k++) {
        const c = b[k] as number;
        if (quote !== 0) {
          if (c === quote) quote = 0;
        } else if (c === QUOT || c === APOS) {
          quote = c;
          attributes = true;
        } else if (c === GT) {
          break;
        } else if (!isSpace(c) && c !== SLASH) {
          attributes = true;
        }
      }
      if (k >= n) return -1;
      selfClosing = b[k - 1] === SLASH && quote === 0;
      k += 1;
    }
    if (nameEnd === s) throw malformedListing('a tag without a name');
    const id = nameId(b, s, nameEnd);
    const depth = this.#depth;
    if (depth >= MAX_DEPTH) throw malformedListing('elements nested too deep');
    const parent = depth === 0 ? 0 : (this.#roles[depth - 1] as number);
    let role = R_SKIP;
    let field = 0;
    if (depth === 0) {
      if (this.#rootSeen) throw malformedListing('a second root element');
      if (id !== N_ROOT) {
        this.#errorDocument = b.toString('latin1', s, nameEnd) === 'Error';
        throw malformedListing('a root that is no ListBucketResult');
      }
      this.#rootSeen = true;
      role = R_ROOT;
    } else if (parent === R_ROOT) {
      if (id === N_CONTENTS) role = R_CONTENTS;
      else if (id === N_COMMON) role = R_COMMON;
      else if (id === N_TRUNCATED) field = F_TRUNCATED;
      else if (id === N_TOKEN) field = F_TOKEN;
      else if (id === N_KEYCOUNT) field = F_KEYCOUNT;
      else if (id === N_ENCODING) field = F_ENCODING;
    } else if (parent === R_CONTENTS) {
      if (id === N_KEY) field = F_KEY;
      else if (id === N_SIZE) field = F_SIZE;
      else if (id === N_MODIFIED) field = F_MODIFIED;
    } else if (parent === R_COMMON) {
      if (id === N_PREFIX) field = F_CP_PREFIX;
    } else if (parent === R_LEAF) {
      throw malformedListing('an element inside a field');
    }
    if (field !== 0) {
      role = R_LEAF;
      if (attributes) throw malformedListing('a field with attributes');
    }
    if (role === R_CONTENTS) this.#startObject();
    else if (role === R_COMMON) this.#cpPrefix = null;
    if (selfClosing) {
      if (role === R_LEAF) this.#leaf(field, b);
      else if (role === R_CONTENTS) this.#endObject();
      else if (role === R_COMMON) this.#endCommon();
      else if (role === R_ROOT) this.#rootClosed = true;
      return k;
    }
    this.#names[depth] = id;
    this.#roles[depth] = role;
    this.#unknown[depth] = id === UNKNOWN ? b.toString('utf8', s, nameEnd) : null;
    this.#depth = depth + 1;
    if (role === R_LEAF) {
      this.#field = field;
      this.#pieces.length = 0;
    }
    return k;
  }

  /** A closing tag, its name's bytes [s, e) (the SDK trims whitespace around it). */
  #close(b: Buffer, s: number, e: number): void {
    while (s < e && isSpace(b[s] as number)) s++;
    while (e > s && isSpace(b[e - 1] as number)) e--;
    const depth = this.#depth - 1;
    if (depth < 0) throw malformedListing('a closing tag without its element');
    const open = this.#names[depth] as number;
    if (open === UNKNOWN ? nameId(b, s, e) !== UNKNOWN || this.#unknown[depth] !== b.toString('utf8', s, e) : !isName(b, s, e, open)) throw malformedListing('mismatched tags');
    this.#depth = depth;
    const role = this.#roles[depth] as number;
    if (role === R_LEAF) {
      const field = this.#field;
      this.#field = 0;
      this.#leaf(field, b);
      this.#pieces.length = 0;
    } else if (role === R_CONTENTS) {
      this.#endObject();
    } else if (role === R_COMMON) {
      this.#endCommon();
    } else if (role === R_ROOT) {
      this.#rootClosed = true;
    }
  }

  #startObject(): void {
    this.#key = null;
    this.#keyEncoded = false;
    this.#size = Number.NaN;
    this.#sizeSeen = false;
    this.#modified = null;
    this.#modifiedSeen = false;
  }

  #endObject(): void {
    const key = this.#key;
    if (key === null) throw malformedListing('an object without a key');
    if (this.#keyEncoded) this.#encodedObjects.push(this.#objects.length);
    this.#objects.push({ key, size: this.#size, lastModified: this.#modified });
  }

  #endCommon(): void {
    const p = this.#cpPrefix;
    if (p === null) throw malformedListing('a common prefix without a name');
    if (p.includes('%') || p.includes('+')) this.#encodedPrefixes.push(this.#prefixes.length);
    this.#prefixes.push(p);
  }

  /** A finished leaf: its pieces (none for an empty or self-closed one) become its field. */
  #leaf(field: number, b: Buffer): void {
    const pieces = this.#pieces;
    // The common case: one piece of plain printable ASCII, read without copying through a decoder.
    const simple = pieces.length === 3 && pieces[2] === P_TEXT && plain(b, pieces[0] as number, pieces[1] as number);
    switch (field) {
      case F_KEY: {
        if (this.#key !== null) throw malformedListing('an object with two keys');
        if (simple) {
          const s = pieces[0] as number, e = pieces[1] as number;
          this.#key = b.toString('latin1', s, e);
          this.#keyEncoded = hasEncoding(b, s, e);
        } else {
          const key = this.#text(b);
          this.#key = key;
          this.#keyEncoded = key.includes('%') || key.includes('+');
        }
        return;
      }
      case F_SIZE: {
        if (this.#sizeSeen) throw malformedListing('an object with two sizes');
        this.#sizeSeen = true;
        this.#size = simple ? digits(b, pieces[0] as number, pieces[1] as number) : digitsText(this.#text(b));
        return;
      }
      case F_MODIFIED: {
        if (this.#modifiedSeen) throw malformedListing('an object with two times');
        this.#modifiedSeen = true;
        this.#modified = simple ? this.#time(b, pieces[0] as number, pieces[1] as number) : rfc3339(this.#text(b));
        return;
      }
      case F_CP_PREFIX: {
        if (this.#cpPrefix !== null) throw malformedListing('a common prefix with two names');
        this.#cpPrefix = simple ? b.toString('latin1', pieces[0], pieces[1]) : this.#text(b);
        return;
      }
      case F_TRUNCATED: {
        if (this.#isTruncated !== null) throw malformedListing('two IsTruncated');
        const t = this.#text(b).toLowerCase();
        if (t !== 'true' && t !== 'false') throw malformedListing('an IsTruncated that is neither true nor false');
        this.#isTruncated = t === 'true';
        return;
      }
      case F_TOKEN: {
        if (this.#tokenSeen) throw malformedListing('two continuation tokens');
        this.#tokenSeen = true;
        this.#token = this.#text(b);
        return;
      }
      case F_KEYCOUNT: {
        if (this.#keyCount !== null) throw malformedListing('two KeyCount');
        this.#keyCount = digitsText(this.#text(b));
        return;
      }
      case F_ENCODING: {
        if (this.#encodingSeen) throw malformedListing('two EncodingType');
        this.#encodingSeen = true;
        this.#encodingType = this.#text(b);
        return;
      }
    }
  }

  /** A leaf's text exactly as the SDK's parser makes it. */
  #text(b: Buffer): string {
    const pieces = this.#pieces;
    let text = '';
    for (let k = 0; k < pieces.length; k += 3) {
      const raw = normaliseLineEnds(b.toString('utf8', pieces[k], pieces[k + 1]));
      text += pieces[k + 2] === P_CDATA ? raw : decodeXmlReferences(raw, malformedListing);
    }
    return text.trim() === '' && text.includes('\n') ? '' : text;
  }

  /** A receipt time from plain bytes: the previous Date when the bytes repeat it. */
  #time(b: Buffer, s: number, e: number): Date {
    const length = e - s;
    const last = this.#lastDate;
    if (last !== null && length === this.#lastTimeLength && sameBytes(b, s, this.#lastTime, length)) return last;
    const date = fastRfc3339(b, s, e) ?? rfc3339(b.toString('latin1', s, e));
    if (length <= this.#lastTime.length) {
      b.copy(this.#lastTime, 0, s, e);
      this.#lastTimeLength = length;
      this.#lastDate = date;
    }
    return date;
  }
}

/** Parses one whole ListObjectsV2 body. */
export function parseListObjectsV2(body: Uint8Array): ParsedListing {
  const parser = new ListObjectsParser();
  parser.push(body);
  return parser.end();
}

function startsWith(b: Buffer, at: number, what: Buffer): boolean {
  if (at + what.length > b.length) return false;
  for (let k = 0; k < what.length; k++) if (b[at + k] !== what[k]) return false;
  return true;
}

/** `b.indexOf(byte, from)` below `n`, in JavaScript: for the short runs between tags, cheaper than the native call. */
function indexOfByte(b: Buffer, byte: number, from: number, n: number): number {
  for (let k = from; k < n; k++) if (b[k] === byte) return k;
  return -1;
}

function sameBytes(b: Buffer, s: number, other: Buffer, length: number): boolean {
  for (let k = 0; k < length; k++) if (b[s + k] !== other[k]) return false;
  return true;
}

/** Whether bytes [s, e) are the known name `id`. */
function isName(b: Buffer, s: number, e: number, id: number): boolean {
  const name = NAME_BYTES[id] as Buffer;
  return name.length === e - s && sameBytes(b, s, name, e - s);
}

function nameId(b: Buffer, s: number, e: number): number {
  const length = e - s;
  outer: for (let id = 0; id < NAME_BYTES.length; id++) {
    const name = NAME_BYTES[id] as Buffer;
    if (name.length !== length) continue;
    for (let k = 0; k < length; k++) if (name[k] !== b[s + k]) continue outer;
    return id;
  }
  return UNKNOWN;
}

/** Printable ASCII and tabs only: no entity, no line end, nothing a decoder would change. */
function plain(b: Buffer, s: number, e: number): boolean {
  for (let k = s; k < e; k++) {
    const c = b[k] as number;
    if (c > 0x7e || (c < SPACE && c !== TAB) || c === AMP) return false;
  }
  return true;
}

/** Whether a plain name holds `%` or `+`, the only bytes url decoding changes. */
function hasEncoding(b: Buffer, s: number, e: number): boolean {
  for (let k = s; k < e; k++) {
    const c = b[k] as number;
    if (c === PERCENT || c === PLUS) return true;
  }
  return false;
}

/** A size: decimal digits only, else NaN (refused downstream, never guessed). */
function digits(b: Buffer, s: number, e: number): number {
  if (e === s || e - s > 15) return digitsText(b.toString('latin1', s, e));
  let n = 0;
  for (let k = s; k < e; k++) {
    const d = (b[k] as number) - 0x30;
    if (d < 0 || d > 9) return Number.NaN;
    n = n * 10 + d;
  }
  return n;
}

function digitsText(t: string): number {
  return /^[0-9]+$/.test(t) ? Number(t) : Number.NaN;
}

function normaliseLineEnds(s: string): string {
  return s.includes('\r') ? s.replace(/\r\n?/g, '\n') : s;
}


/** `YYYY-MM-DDTHH:MM:SSZ` or `YYYY-MM-DDTHH:MM:SS.fffZ` as the SDK reads them; null for any other form. */
function fastRfc3339(b: Buffer, s: number, e: number): Date | null {
  const length = e - s;
  if ((length !== 20 && length !== 24) || b[s + 4] !== 0x2d || b[s + 7] !== 0x2d || b[s + 10] !== 0x54 || b[s + 13] !== 0x3a || b[s + 16] !== 0x3a || b[e - 1] !== 0x5a) return null;
  const num = (at: number, count: number): number => {
    let n = 0;
    for (let k = at; k < at + count; k++) {
      const d = (b[s + k] as number) - 0x30;
      if (d < 0 || d > 9) return -1;
      n = n * 10 + d;
    }
    return n;
  };
  const year = num(0, 4), month = num(5, 2), day = num(8, 2), hours = num(11, 2), minutes = num(14, 2), seconds = num(17, 2);
  let ms = 0;
  if (length === 24) {
    if (b[s + 19] !== 0x2e) return null;
    ms = num(20, 3);
  }
  if (year < 0 || month < 1 || month > 12 || day < 1 || day > 31 || hours < 0 || hours > 23 || minutes < 0 || minutes > 59 || seconds < 0 || seconds > 60 || ms < 0) return null;
  const date = new Date(Date.UTC(year, month - 1, day, hours, minutes, seconds, ms));
  date.setUTCFullYear(year);
  return date;
}

const RFC3339_WITH_OFFSET = /^(\d{4})-(\d\d)-(\d\d)[tT](\d\d):(\d\d):(\d\d)(\.(\d+))?(([-+]\d\d:\d\d)|[zZ])$/;

/** The SDK's `_parseRfc3339DateTimeWithOffset` (@smithy/core serde), restated; a refusal is a StoreError. */
function rfc3339(value: string): Date {
  const m = RFC3339_WITH_OFFSET.exec(value);
  if (m === null) throw malformedListing('a LastModified that is no RFC 3339 time');
  const [, year, month, day, hours, minutes, seconds, , fraction, offset] = m as unknown as [string, string, string, string, string, string, string, string, string | undefined, string];
  const inRange = (v: string, lo: number, hi: number) => Number(v) >= lo && Number(v) <= hi;
  if (!inRange(month, 1, 12) || !inRange(day, 1, 31) || !inRange(hours, 0, 23) || !inRange(minutes, 0, 59) || !inRange(seconds, 0, 60)) {
    throw malformedListing('a LastModified out of range');
  }
  const ms = Number(fraction) ? Math.round(parseFloat(`0.${fraction}`) * 1000) : 0;
  const date = new Date(Date.UTC(Number(year), Number(month) - 1, Number(day), Number(hours), Number(minutes), Number(seconds), ms));
  date.setUTCFullYear(Number(year));
  if (offset.toUpperCase() !== 'Z') {
    const [, sign, h, mm] = /([+-])(\d\d):(\d\d)/.exec(offset) as unknown as [string, string, string, string];
    date.setTime(date.getTime() + (sign === '-' ? 1 : -1) * (Number(h) * 3_600_000 + Number(mm) * 60_000));
  }
  return date;
}
