/**
 * Minimal, safe HTML building for the standalone pages: every interpolated value is escaped by
 * default (`html` tagged template), and only values wrapped with `raw` (built by this module's own
 * templates) pass through unescaped.
 */

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export class Raw {
  readonly text: string;
  constructor(text: string) {
    this.text = text;
  }
  toString(): string {
    return this.text;
  }
}

export const raw = (text: string) => new Raw(text);

export function escape(value: unknown): string {
  return String(value).replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c);
}

type Part = string | number | boolean | null | undefined | Raw | readonly Part[];

function render(part: Part): string {
  if (part === null || part === undefined || part === false) return '';
  if (part instanceof Raw) return part.text;
  if (Array.isArray(part)) return (part as readonly Part[]).map(render).join('');
  return escape(part);
}

/** Tagged template: interpolations are escaped unless they are `Raw` (or arrays of them). */
export function html(strings: TemplateStringsArray, ...values: Part[]): Raw {
  let out = strings[0] ?? '';
  values.forEach((v, i) => {
    out += render(v) + (strings[i + 1] ?? '');
  });
  return new Raw(out);
}
