/**
 * deploy/monitoring/viewer-alerts.yaml read by the monitoring tests: a reader for the YAML subset
 * the rule and rule-test files are written in (block mappings and sequences, plain, quoted and
 * `|`/`>` scalars; the repository has no YAML parser of its own, and promtool validates their full
 * syntax), and the alert rules it holds.
 */
import { readFileSync } from 'node:fs';
import { RULES } from './promtool-harness.ts';

export type Yaml = string | Yaml[] | { [key: string]: Yaml };

interface Line {
  readonly indent: number;
  readonly text: string;
}

function unquote(v: string): string {
  if (v.startsWith('"') && v.endsWith('"') && v.length >= 2) return JSON.parse(v) as string;
  if (v.startsWith("'") && v.endsWith("'") && v.length >= 2) return v.slice(1, -1).replaceAll("''", "'");
  return v;
}

/**
 * A reader for the subset the files are written in: block mappings and sequences, `key: value`
 * with plain or quoted scalars, `[]`, and `|`, `|-`, `>`, `>-` block scalars (folded ones joined
 * with single spaces: the files keep one paragraph per scalar). Anchors, aliases and flow mappings
 * are refused.
 */
export function readYaml(text: string): Yaml {
  const raw = text.split('\n');
  let i = 0;

  const next = (): Line | null => {
    while (i < raw.length) {
      const l = raw[i] ?? '';
      const t = l.trim();
      if (t === '' || t.startsWith('#')) {
        i++;
        continue;
      }
      return { indent: l.length - l.trimStart().length, text: t };
    }
    return null;
  };

  const blockScalar = (style: string, parentIndent: number): string => {
    const lines: string[] = [];
    let indent = -1;
    while (i < raw.length) {
      const l = raw[i] ?? '';
      const lineIndent = l.length - l.trimStart().length;
      if (l.trim() !== '' && lineIndent <= parentIndent) break;
      if (l.trim() !== '' && indent < 0) indent = lineIndent;
      lines.push(l.trim() === '' ? '' : l.slice(indent));
      i++;
    }
    while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
    const body = style.startsWith('>') ? lines.join(' ') : lines.join('\n');
    return style.endsWith('-') ? body : `${body}\n`;
  };

  const scalarOrNested = (value: string, indent: number): Yaml => {
    if (/^[&*]/.test(value) || /^\{/.test(value)) throw new Error(`line ${i}: anchors, aliases and flow mappings are not in the subset`);
    if (value === '[]') return [];
    if (/^[|>]-?$/.test(value)) return blockScalar(value, indent);
    if (value !== '') return unquote(value);
    const l = next();
    return l === null || l.indent <= indent ? '' : node(l.indent);
  };

  function node(indent: number): Yaml {
    const first = next();
    if (first === null) return '';
    if (first.text.startsWith('- ') || first.text === '-') {
      const items: Yaml[] = [];
      for (let l = next(); l !== null && l.indent === indent && (l.text.startsWith('- ') || l.text === '-'); l = next()) {
        // The item's content starts after `- `: rewrite the line as if it were indented there.
        const rest = l.text.slice(2);
        raw[i] = `${' '.repeat(indent + 2)}${rest}`;
        const m = /^([\w.-]+):(?:\s+(.*))?$/.exec(rest);
        if (m === null) {
          i++;
          items.push(unquote(rest));
        } else {
          items.push(node(indent + 2));
        }
      }
      return items;
    }
    const map: { [key: string]: Yaml } = {};
    for (let l = next(); l !== null && l.indent === indent && !l.text.startsWith('- '); l = next()) {
      const m = /^([\w.-]+):(?:\s+(.*))?$/.exec(l.text);
      if (m === null) throw new Error(`line ${i + 1}: expected key: value, got ${l.text}`);
      i++;
      map[m[1] ?? ''] = scalarOrNested((m[2] ?? '').trim(), indent);
    }
    return map;
  }

  const l = next();
  return l === null ? '' : node(l.indent);
}

export const isMap = (y: Yaml | undefined): y is { [key: string]: Yaml } => typeof y === 'object' && !Array.isArray(y);
export const field = (y: Yaml | undefined, key: string): Yaml | undefined => (isMap(y) ? y[key] : undefined);
export const list = (y: Yaml | undefined): Yaml[] => (Array.isArray(y) ? y : []);
export const str = (y: Yaml | undefined): string => (typeof y === 'string' ? y : '');

export interface AlertRule {
  readonly alert: string;
  readonly expr: string;
  readonly labels: Yaml | undefined;
  readonly annotations: Yaml | undefined;
}

export function alertRules(): AlertRule[] {
  const groups = list(field(readYaml(readFileSync(RULES, 'utf8')), 'groups'));
  return groups.flatMap((g) =>
    list(field(g, 'rules')).map((r) => ({ alert: str(field(r, 'alert')), expr: str(field(r, 'expr')), labels: field(r, 'labels'), annotations: field(r, 'annotations') })),
  );
}
