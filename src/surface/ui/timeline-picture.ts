/**
 * The timeline picture of one scope: one lane per timeline over WAL position, with its archived
 * ranges as bars, its gaps as boxes (confirmed, candidate, or with its retention's shape), the
 * forks between timelines, the backups at their begin WAL and the frontier. `pictureModel`
 * computes every position (a view model, tested alone); `picture` only renders it. What is drawn
 * is bounded (`PAGE_BOUNDS`): the newest timelines, the first gaps, one bar for a lane with more
 * ranges than the picture can tell apart; the rest is counted in the legend.
 */
import type { BackupItem, RecoveryPathItem, WalGapItem, WalRangeItem } from '../../contract/collections.ts';
import { html, type Raw } from './html.ts';
import { PAGE_BOUNDS, type ScopeView } from './page-context.ts';
import { gapLabel, isRetentionGap, retainedOf, retentionOf } from './scope-parts.ts';

/** A run of WAL positions on one timeline, as the picture needs it of a range or a gap. */
export type Run = Pick<WalRangeItem, 'timeline' | 'start_position' | 'end_position' | 'first_wal' | 'last_wal' | 'segment_count'>;

/** What the picture is drawn from: the scope's items (narrowed) and its forks. */
export interface PictureInput<G extends Run> {
  readonly walRanges: readonly Run[];
  readonly walGaps: readonly G[];
  readonly recoveryPaths: readonly Pick<RecoveryPathItem, 'backup_id' | 'start_position'>[];
  readonly backups: readonly Pick<BackupItem, 'backup_id' | 'timeline' | 'state'>[];
  readonly forks: ScopeView['forks'];
}

/** The frontier's line across its lane, and its label. */
export interface Frontier {
  readonly x: number;
  readonly y1: number;
  readonly y2: number;
  readonly labelX: number;
  readonly labelY: number;
  readonly wal: string;
}

/** Every position of the picture, in the SVG's user units. */
export interface PictureModel<G extends Run> {
  readonly width: number;
  readonly height: number;
  /** One lane per timeline drawn, oldest on top; the label sits at `labelY`. */
  readonly lanes: readonly { readonly timeline: number; readonly x: number; readonly y: number; readonly width: number; readonly labelY: number }[];
  readonly bars: readonly { readonly x: number; readonly y: number; readonly width: number; readonly run: Run }[];
  readonly gaps: readonly { readonly x: number; readonly y: number; readonly width: number; readonly labelY: number; readonly gap: G }[];
  /** A vertical line at the fork's position from the parent's lane to the child's. */
  readonly forks: readonly { readonly x: number; readonly y1: number; readonly y2: number; readonly timeline: number; readonly parent: number }[];
  /** A backup's triangle, its tip at (`x`, `y`). */
  readonly backups: readonly { readonly x: number; readonly y: number; readonly backupId: string; readonly state: string }[];
  /** After the newest range of the newest timeline drawn; null when that timeline has none. */
  readonly frontier: Frontier | null;
  /** What is not drawn: timelines older than the lanes, gaps beyond the first drawn. */
  readonly hidden: { readonly olderTimelines: number; readonly laterGaps: number };
}

/** The picture's geometry: its width, the lanes' left edge and right margin, one lane's pitch. */
const WIDTH = 900;
const LEFT = 60;
const RIGHT = 10;
const LANE = 34;

/** The frontier's line across its lane at `x`, and its label beside it, kept inside the picture. */
const frontierAt = (x: number, lane: number, wal: string): Frontier =>
  ({ x, y1: lane - 2, y2: lane + 24, labelX: Math.min(WIDTH - 60, x + 3), labelY: lane + 33, wal });

/** The positions of the picture; null when no WAL was observed. */
export function pictureModel<G extends Run>(p: PictureInput<G>): PictureModel<G> | null {
  const all = [...new Set([...p.walRanges, ...p.walGaps].map((r) => r.timeline))].sort((a, b) => a - b);
  if (all.length === 0) return null;
  const timelines = all.slice(-PAGE_BOUNDS.lanes);
  const lanes = new Map(timelines.map((t, i) => [t, i]));
  const ranges = p.walRanges.filter((r) => lanes.has(r.timeline));
  const laneGaps = p.walGaps.filter((g) => lanes.has(g.timeline));
  const gaps = laneGaps.slice(0, PAGE_BOUNDS.gaps);
  // Folds, not Math.min(...runs): a spread of 100 k+ arguments overflows the stack.
  const runs: readonly Run[] = [...ranges, ...laneGaps];
  const min = runs.reduce((m, r) => Math.min(m, r.start_position), Number.POSITIVE_INFINITY);
  const max = runs.reduce((m, r) => Math.max(m, r.end_position), Number.NEGATIVE_INFINITY) + 1;
  const inner = WIDTH - LEFT - RIGHT;
  const x = (pos: number) => LEFT + ((pos - min) / Math.max(1, max - min)) * inner;
  const y = (t: number) => 10 + (lanes.get(t) ?? 0) * LANE;
  /** From a run's first position to the end of its last, at least `least` wide. */
  const span = (r: Run, least: number) => Math.max(least, x(r.end_position + 1) - x(r.start_position));
  // A lane with more ranges than the picture can tell apart is one bar from its first to its last
  // segment; the gaps drawn over it show the holes.
  const bars = timelines.flatMap((t): Run[] => {
    const own = ranges.filter((r) => r.timeline === t);
    if (own.length <= PAGE_BOUNDS.rangesPerLane) return own;
    const first = own[0] as Run;
    const last = own.at(-1) as Run;
    return [{ ...first, end_position: last.end_position, last_wal: last.last_wal, segment_count: own.reduce((n, r) => n + r.segment_count, 0) }];
  });
  const begins = new Map<string, number>();
  for (const r of p.recoveryPaths) if (r.start_position !== null && !begins.has(r.backup_id)) begins.set(r.backup_id, r.start_position);
  const newest = ranges.filter((r) => r.timeline === timelines.at(-1)).at(-1);
  return {
    width: WIDTH,
    height: 20 + timelines.length * LANE + 16,
    lanes: timelines.map((t) => ({ timeline: t, x: LEFT, y: y(t), width: inner, labelY: y(t) + 15 })),
    bars: bars.map((r) => ({ x: x(r.start_position), y: y(r.timeline) + 4, width: span(r, 1.5), run: r })),
    gaps: gaps.map((g) => ({ x: x(g.start_position), y: y(g.timeline) + 1, width: span(g, 3), labelY: y(g.timeline) + 32, gap: g })),
    forks: p.forks
      .filter((f) => lanes.has(f.timeline) && lanes.has(f.parent))
      .map((f) => ({ x: x(f.position), y1: y(f.parent) + 11, y2: y(f.timeline) + 11, timeline: f.timeline, parent: f.parent })),
    backups: p.backups.flatMap((b) => {
      const pos = begins.get(b.backup_id);
      if (pos === undefined || b.timeline === null || !lanes.has(b.timeline)) return [];
      return [{ x: x(pos), y: y(b.timeline) + 1, backupId: b.backup_id, state: b.state }];
    }),
    frontier: newest === undefined ? null : frontierAt(x(newest.end_position + 1), y(newest.timeline), newest.last_wal),
    hidden: { olderTimelines: all.length - timelines.length, laterGaps: laneGaps.length - gaps.length },
  };
}

/** The picture of one scope, or a note that no WAL was observed. */
export function picture(v: ScopeView): Raw {
  const p = v.publication;
  const m = pictureModel<WalGapItem>({ ...p, forks: v.forks });
  if (m === null) return html`<p class="muted">No WAL observed.</p>`;
  const retained = retainedOf(v) ? ', retained' : '';
  const gapClass = (g: WalGapItem) => (isRetentionGap(v, g) ? 'gap-retention' : `gap-${g.status}`);
  const gapMark = (g: WalGapItem) => (isRetentionGap(v, g) ? 'retention' : g.status === 'confirmed' ? 'gap' : 'gap?');
  const lanes = m.lanes.map((l) => html`<rect class="lane" x="${l.x}" y="${l.y}" width="${l.width}" height="22"/>\
<text x="4" y="${l.labelY}">timeline ${l.timeline}</text>`);
  const bars = m.bars.map(({ x, y, width, run: r }) => html`<rect class="range" x="${x}" y="${y}" width="${width}" height="14">\
<title>segments ${r.first_wal} to ${r.last_wal} (${r.segment_count})</title></rect>`);
  const gaps = m.gaps.map(({ x, y, width, labelY, gap: g }) => html`<rect class="${gapClass(g)}" x="${x}" y="${y}" width="${width}" height="20">\
<title>${gapLabel(v, g)}: ${g.first_wal} to ${g.last_wal} (${g.segment_count} missing)</title></rect>\
<text x="${x}" y="${labelY}">${gapMark(g)}</text>`);
  const forks = m.forks.map((f) => html`<line class="fork" x1="${f.x}" y1="${f.y1}" x2="${f.x}" y2="${f.y2}">\
<title>timeline ${f.timeline} forks from ${f.parent}</title></line>`);
  const backups = m.backups.map((b) => html`<path class="backup" d="M${b.x} ${b.y} l5 -8 h-10 z">\
<title>backup ${b.backupId} (${b.state}${retained})</title></path>`);
  const f = m.frontier;
  const frontier = f === null
    ? ''
    : html`<line class="frontier" x1="${f.x}" y1="${f.y1}" x2="${f.x}" y2="${f.y2}"><title>frontier: ${f.wal}</title></line>\
<text x="${f.labelX}" y="${f.labelY}">frontier</text>`;
  const hidden = [
    m.hidden.olderTimelines > 0 ? `${m.hidden.olderTimelines} older timelines` : '',
    m.hidden.laterGaps > 0 ? `${m.hidden.laterGaps} later gaps` : '',
  ].filter((t) => t !== '');
  return html`<svg role="img" aria-labelledby="pic-${v.server}" viewBox="0 0 ${m.width} ${m.height}" width="100%">
<title id="pic-${v.server}">Timelines of ${v.server} as lanes over WAL position: ranges, gaps, backups and the frontier</title>
<defs><pattern id="hatch" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">\
<rect width="3" height="6" fill="#8b0000"/></pattern></defs>
${lanes}
${bars}
${gaps}
${forks}
${backups}
${frontier}
</svg>
<p class="muted">Bars: archived segments. Hatched box: confirmed gap; dashed box: candidate gap ("gap?"); \
grey dotted box: a hole with exactly the shape ${retentionOf(v)} leaves between the WAL of the backups it keeps ("retention"). \
Triangles: backups at their begin WAL. Dotted line: a timeline fork. Green line: the frontier.\
${hidden.length === 0 ? '' : html` Not drawn: ${hidden.join(' and ')} (the WAL browser lists every run).`}</p>`;
}
