/**
 * A bounded reader for the Python literals Barman writes into `backup.info` with `repr()` and
 * reads back with `ast.literal_eval` (barman/infofile.py: `tablespaces`, a list of
 * `(name, oid, location)` tuples, the one backup-info.ts reads this way; also `included_files`,
 * `backup_label`, `copy_stats` and `snapshots_info`): `None`, `True`, `False`, integers (as
 * `bigint` beyond 2^53), finite floats, strings in single or double quotes with the escapes
 * `repr()` writes, lists, tuples and dicts. Input is untrusted: nesting depth and the number of
 * values are bounded; anything else, or text beyond one literal, is an `undefined` result (`null`
 * is Python's `None`), never an exception.
 */

export type PyValue = null | boolean | number | bigint | string | PyValue[] | PyDict;
export interface PyDict {
  readonly dict: readonly (readonly [PyValue, PyValue])[];
}

const MAX_DEPTH = 16;
const MAX_ITEMS = 10_000;

class Reader {
  pos = 0;
  items = 0;
  readonly text: string;
  constructor(text: string) {
    this.text = text;
  }

  ws(): void {
    while (this.pos < this.text.length && ' \t'.includes(this.text[this.pos] ?? '')) this.pos++;
  }

  value(depth: number): PyValue | undefined {
    if (depth > MAX_DEPTH || ++this.items > MAX_ITEMS) return undefined;
    this.ws();
    const c = this.text[this.pos];
    if (c === "'" || c === '"') return this.str(c);
    if (c === '[') return this.seq(']', depth);
    if (c === '(') return this.seq(')', depth);
    if (c === '{') return this.dict(depth);
    return this.atom();
  }

  atom(): PyValue | undefined {
    const m = /^(?:None|True|False|-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?)/.exec(this.text.slice(this.pos, this.pos + 400));
    if (m === null) return undefined;
    const word = m[0];
    this.pos += word.length;
    if (word === 'None') return null;
    if (word === 'True') return true;
    if (word === 'False') return false;
    if (/^-?[0-9]+$/.test(word)) {
      const n = BigInt(word);
      return n <= BigInt(Number.MAX_SAFE_INTEGER) && n >= BigInt(Number.MIN_SAFE_INTEGER) ? Number(n) : n;
    }
    const f = Number(word);
    return Number.isFinite(f) ? f : undefined;
  }

  str(quote: string): string | undefined {
    let out = '';
    this.pos++;
    while (this.pos < this.text.length) {
      const c = this.text[this.pos++] ?? '';
      if (c === quote) return out;
      if (c === '\n') return undefined;
      if (c !== '\\') {
        out += c;
        continue;
      }
      const e = this.text[this.pos++] ?? '';
      const simple: Record<string, string> = { '\\': '\\', "'": "'", '"': '"', n: '\n', r: '\r', t: '\t', a: '\u0007', b: '\b', f: '\f', v: '\v', '0': '\0' };
      const width = e === 'x' ? 2 : e === 'u' ? 4 : e === 'U' ? 8 : 0;
      if (width > 0) {
        const hex = this.text.slice(this.pos, this.pos + width);
        if (!new RegExp(`^[0-9a-fA-F]{${width}}$`).test(hex)) return undefined;
        const code = Number.parseInt(hex, 16);
        if (code > 0x10ffff) return undefined;
        out += String.fromCodePoint(code);
        this.pos += width;
      } else if (e in simple && !(e === '0' && /[0-7]/.test(this.text[this.pos] ?? ''))) {
        out += simple[e];
      } else {
        return undefined;
      }
    }
    return undefined;
  }

  seq(close: string, depth: number): PyValue[] | undefined {
    this.pos++;
    const out: PyValue[] = [];
    for (;;) {
      this.ws();
      if (this.text[this.pos] === close) {
        this.pos++;
        return out;
      }
      const v = this.value(depth + 1);
      if (v === undefined) return undefined;
      out.push(v);
      this.ws();
      if (this.text[this.pos] === ',') this.pos++;
      else if (this.text[this.pos] !== close) return undefined;
    }
  }

  dict(depth: number): PyDict | undefined {
    this.pos++;
    const out: (readonly [PyValue, PyValue])[] = [];
    for (;;) {
      this.ws();
      if (this.text[this.pos] === '}') {
        this.pos++;
        return { dict: out };
      }
      const k = this.value(depth + 1);
      this.ws();
      if (k === undefined || this.text[this.pos] !== ':') return undefined;
      this.pos++;
      const v = this.value(depth + 1);
      if (v === undefined) return undefined;
      out.push([k, v]);
      this.ws();
      if (this.text[this.pos] === ',') this.pos++;
      else if (this.text[this.pos] !== '}') return undefined;
    }
  }
}

/** The value of one whole literal, or `undefined` when the text is not exactly one literal. */
export function parsePythonLiteral(text: string): PyValue | undefined {
  const r = new Reader(text);
  const v = r.value(0);
  r.ws();
  return r.pos === text.length ? v : undefined;
}
