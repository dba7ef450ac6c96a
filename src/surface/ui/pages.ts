/**
 * The standalone pages, rendered on the server from the last publication of each scope: `/` (the
 * inventory: the repository's display name, what structural evidence is and one observed recovery
 * window per server (glance-view.ts); with more than one server a fleet table first; per server the operator's four
 * questions at the top (newest WAL received by the store's clock, the archive lag against its
 * expectation, the backup to restore from for the newest timeline and why not a newer one, how
 * far its observed recovery coverage reaches), a note when receipt times are a bulk copy's and
 * what to do for each reason code shown, then freshness, totals, backups by kind with their
 * names (and a failed backup's recorded error), observed recovery coverage per timeline, a timeline picture, expectations, recent
 * objects) and `/wals` (the compact WAL evidence with filters, `class=gap` for the missing runs
 * only, each history's switchpoint). Byte counts in binary units, exact bytes in a title; wide
 * tables scroll inside themselves so a 390 px screen never scrolls the page sideways. Plain HTML and one stylesheet whose hash the Content-Security-Policy names; no script.
 * While a publication is stale or holds no complete generation, every item's state is shown as
 * retained historical evidence, never as current health (the wire keeps the item states). Until
 * the first discovery of the destination has ended, every page says discovery is in progress, and
 * the server scopes are unknown, never "0"; while a first scan runs, every page shows its progress
 * (pages and objects listed so far).
 */
import { createHash } from 'node:crypto';
import type { BackupItem, RecoveryPathItem, WalGapItem, WalRangeItem } from '../../contract/collections.ts';
import { stanzaRepositoryFacts } from '../../contract/details-view.ts';
import type { FailureCategory, State } from '../../contract/primitives.ts';
import type { BackupLabel, ForeignFormat, Shelf } from '../../format/seam.ts';
import type { RecentObject } from '../../evidence/scope-scan.ts';
import { detailsView } from '../../publication/details.ts';
import type { Publication } from '../../publication/publisher.ts';
import { copyNote, progressNote, STRUCTURAL_SENTENCE, todo, windowLines } from './glance-view.ts';
import { html, raw, type Raw } from './html.ts';
import { bytes, count, when } from './parts.ts';
import { backupTime, durationText, restoreChoice, type WhyNot } from './restore-choice.ts';

export interface ScopeView {
  readonly server: string;
  readonly publication: Publication;
  readonly recentObjects: readonly RecentObject[];
  /** `.partial` segments by WAL name, history files by timeline: what `/wals` lists beside ranges. */
  readonly partials: readonly { readonly timeline: number; readonly wal: string }[];
  /** Each history file's status and, when it was read, the switch into its timeline (parent, LSN, the parent's segment holding it). */
  readonly histories: readonly { readonly timeline: number; readonly status: string; readonly switchpoint: Switchpoint | null }[];
  /** Where each timeline forked from its parent, for the picture. */
  readonly forks: readonly { readonly timeline: number; readonly parent: number; readonly position: number }[];
  /** The tool whose repository this is, as the evidence names it (the format's `tool`: "Barman", "pgBackRest"); null before a scan. */
  readonly tool: string | null;
  /** Gaps (by `gapKey`) with exactly the shape the format's retention leaves. */
  readonly retentionGaps: ReadonlySet<string>;
  /** The last complete scan found no backup directory and no WAL at the scope's location. */
  readonly empty: boolean;
  /** Each backup's shelf, as its format's verdict and evidence decided it (by backup id). */
  readonly shelves: ReadonlyMap<string, Shelf>;
  /** What operators know each backup by: its name and keep status (by backup id). */
  readonly labels: ReadonlyMap<string, BackupLabel>;
  /**
   * The backups each backup depends on (by backup id; absent for a self-contained one), in the
   * format's order (pgBackRest: `backup-reference`, the full first), each with how its artifacts
   * stand as a dependency, `null` when the catalog does not hold it.
   */
  readonly dependencies: ReadonlyMap<string, readonly Dependency[]>;
  /** The store's clock against the newest WAL at the last complete scan; null before one. */
  readonly clock: StoreClock | null;
  /** Receipt times (RFC 3339, store clock) of the scope's oldest and newest objects at the last complete scan; null before one. */
  readonly receipts: { readonly earliest: string | null; readonly latest: string | null } | null;
  /** The error text each failed backup recorded (by backup id), bounded and sanitised; empty when the format reads none. */
  readonly recordedErrors: ReadonlyMap<string, string>;
}

/** Where a timeline leaves its parent, as its history file says. */
export interface Switchpoint {
  readonly parent: number;
  readonly lsn: string;
  /** The parent's segment that holds the switchpoint. */
  readonly wal: string;
}

/** One backup another depends on: its id and its artifacts' state as a dependency (null: not in the catalog). */
export interface Dependency {
  readonly id: string;
  readonly state: State | null;
}

/** Receipt times and the scan's time, all by the store's own clock (RFC 3339). */
export interface StoreClock {
  /** The store's clock at the scan; null when it sent no clock reading. */
  readonly storeTimeAtScan: string | null;
  /** The newest receipt time of any WAL object; null when none was received. */
  readonly newestWalReceivedAt: string | null;
  /** Store time at the scan minus the newest WAL receipt, in seconds; null when either is unknown. */
  readonly archiveLagSeconds: number | null;
}

/** The key a gap's class is found by: one gap per timeline and start position. */
export const gapKey = (g: { readonly timeline: number; readonly start_position: number }) => `${g.timeline}:${g.start_position}`;

/** What discovery found at the destination beside the server scopes. */
export interface DestinationFacts {
  /** Objects that belong to no scope; null while unknown. */
  readonly unscopedObjects: number | null;
  readonly foreignFormat: ForeignFormat | null;
  /** The category of the last discovery's failure (a wrong bucket, denied, the store down); null after a success. */
  readonly discoveryFailure: FailureCategory | null;
  /** True until the first discovery has ended: no scope is known yet, and none is missing either (D-77). */
  readonly discoveryPending: boolean;
  /** What points at the cause of the last discovery failure (error name, HTTP status, local cause; never the endpoint); absent or null when none is known. */
  readonly discoveryFailureDetail?: string | null;
}

export interface PageContext {
  readonly scopes: readonly ScopeView[];
  /** Null with a configured list of servers: nothing beside them is looked at. */
  readonly destination: DestinationFacts | null;
  readonly identity: string | null;
  readonly retentionPolicy: string | null;
  readonly minimumRedundancy: number | null;
  /** `EXPECTED_MAX_ARCHIVE_LAG` in seconds; null when not configured (the lag is shown, never judged). */
  readonly maxArchiveLagSeconds: number | null;
  readonly demo: boolean;
  /**
   * In a fleet (FLEET_FILE): the repository these pages show, null on the fleet page itself; every
   * link of a repository's pages carries it. Absent outside a fleet.
   */
  readonly repository?: string | null;
  /**
   * What the pages call the repository: REPOSITORY_NAME, or by default `displayNameOf` its
   * destination (bucket or container and prefix, never a credential). Absent or null: unnamed.
   */
  readonly name?: string | null;
  /** The first scan's listing so far (the refresher's BudgetMeter), while it runs; null or absent otherwise. */
  readonly progress?: { readonly pages: number; readonly objects: number } | null;
  /**
   * What points at the cause of a scope's latest failed attempt, by server (the error name, the HTTP
   * status and the local cause; never the endpoint, a key or provider text); null when none.
   */
  readonly failureDetail?: (server: string) => string | null;
}

/** The query that names the fleet repository a page shows (empty outside a fleet). */
export const repositoryQuery = (ctx: PageContext): string => (ctx.repository == null ? '' : `repository=${encodeURIComponent(ctx.repository)}`);

export const STYLE = `
body{font:14px/1.45 system-ui,sans-serif;margin:0;color:#1b1f24;background:#f6f7f9}
header{background:#1b1f24;color:#fff;padding:10px 20px;display:flex;gap:24px;align-items:baseline}
header h1{font-size:17px;margin:0}header a{color:#cfe3ff}main{padding:16px 20px;max-width:1200px}
section{background:#fff;border:1px solid #d6dae0;border-radius:6px;padding:12px 16px;margin:0 0 16px}
h2{font-size:16px;margin:0 0 8px}h3{font-size:14px;margin:14px 0 6px}
table{border-collapse:collapse;width:100%;font-size:13px}th,td{text-align:left;padding:3px 8px;border-bottom:1px solid #eceef1;vertical-align:top}
th{background:#f0f2f5;font-weight:600}code{font:12px ui-monospace,monospace}
.state{font-weight:600;padding:1px 6px;border-radius:3px;border:1px solid}
.healthy{color:#145a32;border-color:#145a32}.warning{color:#7a4d00;border-color:#7a4d00}
.unhealthy{color:#8b0000;border-color:#8b0000}.unknown{color:#444;border-color:#888;border-style:dashed}
.retained{color:#5b6470;border-color:#9aa1ab;border-style:dotted;font-weight:400}.notice{border-color:#7a4d00;background:#fff8eb}
.muted{color:#5b6470}.facts{display:grid;grid-template-columns:max-content 1fr;gap:2px 16px}
form{display:flex;flex-wrap:wrap;gap:10px;align-items:end}label{display:flex;flex-direction:column;font-size:12px}
.error{border-color:#8b0000}svg text{font:11px system-ui,sans-serif}
.lane{fill:#f0f2f5}.range{fill:#2f6f9f}.gap-confirmed{fill:url(#hatch);stroke:#8b0000}.gap-candidate{fill:#fff;stroke:#7a4d00;stroke-dasharray:3 2}
.gap-retention{fill:#e4e7eb;stroke:#5b6470;stroke-dasharray:1 2}
.backup{fill:#1b1f24}.fork{stroke:#555;stroke-dasharray:2 2}.frontier{stroke:#145a32;stroke-width:2}
.top{display:grid;grid-template-columns:max-content 1fr;gap:6px 16px;margin:10px 0 14px;padding:10px 14px;background:#f3f7fb;border:1px solid #c5d3e2;border-radius:6px;font-size:14px}
.top dt{font-weight:600}.top dd{margin:0}.top ul{margin:2px 0 0;padding-left:18px}
.label{font-size:12px;background:#eef1f5;border:1px solid #d6dae0;border-radius:3px;padding:0 5px;white-space:nowrap}
td code,td time{white-space:nowrap}th.reason{min-width:14em}
header{flex-wrap:wrap;row-gap:4px}header h1 .name{font-weight:400;font-size:15px;margin-left:6px;overflow-wrap:anywhere}
h2 .name{font-weight:400;overflow-wrap:anywhere}.structural{color:#3d4550;font-size:13px}
ul.windows,ul.todo{margin:6px 0;padding-left:18px}ul.todo li{margin:2px 0}.recorded-error{margin-top:3px;color:#8b0000;overflow-wrap:anywhere}
code,.top dd,.facts span,p,li{overflow-wrap:anywhere}input,select{max-width:100%}.bytes{white-space:nowrap}
@media (max-width:600px){header{padding:8px 12px;gap:4px 14px}main{padding:10px 8px}section{padding:10px}
.facts,.top{grid-template-columns:1fr;gap:0 8px}.facts>span:nth-child(odd),.top dt{font-weight:600;margin-top:6px}
label{flex:1 1 100%}label input,label select{width:100%;box-sizing:border-box}.scroll>table{min-width:640px}}
.scroll:focus-visible{outline:2px solid #2f6f9f}
p.notice{border-left:3px solid #7a4d00;padding:6px 10px}p.notice.error{border-left-color:#8b0000;background:#fdf1f1}
.fleet td{white-space:nowrap}.scroll{overflow-x:auto}
.chain .dep{display:block}td code.id{white-space:normal}.broken{color:#8b0000}
`;
export const STYLE_HASH = `sha256-${createHash('sha256').update(STYLE).digest('base64')}`;

const state = (s: string) => html`<span class="state ${s}">${s}</span>`;
/** An item's state; while the publication is stale or incomplete it is retained evidence, not current health. */
const itemState = (s: string, retained: boolean) => (retained ? html`<span class="state retained" title="retained historical evidence, not current health">${s} (retained)</span>` : state(s));
/** Stale, or no complete generation: what the page lists is historical evidence. */
const retainedOf = (v: ScopeView) => v.publication.snapshot.stale || v.publication.snapshot.completeness !== 'complete';
const isRetentionGap = (v: ScopeView, g: WalGapItem) => v.retentionGaps.has(gapKey(g));
/** "<tool>'s retention" with the scope's own tool (Barman's, pgBackRest's), or plain "retention" before a scan. */
const retentionOf = (v: ScopeView) => (v.tool === null ? 'retention' : `${v.tool}'s retention`);
const gapLabel = (v: ScopeView, g: WalGapItem) => (isRetentionGap(v, g) ? `${g.status} gap with the shape ${retentionOf(v)} leaves (expected)` : `${g.status} gap`);

/** Outside a fleet the two pages; in one the fleet, and the repository's two pages once one is chosen. */
function nav(ctx: PageContext): Raw {
  if (ctx.repository === undefined) return html`<a href="/">Inventory</a> · <a href="/wals">WAL browser</a>`;
  const q = repositoryQuery(ctx);
  return html`<a href="/">Fleet</a>${ctx.repository === null ? '' : html` · <a href="/?${q}">Inventory of <code>${ctx.repository}</code></a> · <a href="/wals?${q}">WAL browser</a>`}`;
}

export function layout(title: string, ctx: PageContext, body: Raw): string {
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${title}${ctx.name == null ? '' : ` · ${ctx.name}`} · viewer</title><style>${raw(STYLE)}</style></head>
<body><header><h1>viewer${ctx.name == null ? '' : html` <span class="name">${ctx.name}</span>`}</h1><nav>${nav(ctx)}</nav>
<span>${ctx.demo ? 'embedded demo repository' : ''}</span>
<span class="muted">${ctx.identity === null ? '' : html`signed in as ${ctx.identity}`}</span></header>
<main>${ctx.destination?.discoveryPending === true ? html`<p class="notice" role="status"><strong>Discovery in progress:</strong> the destination is being listed to find its server scopes (for at most 30 s); they appear on these pages once it ends.</p>` : ''}${progressNote(ctx)}${body}</main></body></html>
`.text;
}

/**
 * What one page draws and lists is bounded whatever the repository holds (100 k ranges, 100 k
 * paths): the newest timelines, the first gaps by position, the newest backups' paths; the rest
 * is counted in a note. The sidecar API and `viewer scan` carry every item.
 */
export const PAGE_BOUNDS = { lanes: 16, gaps: 1_000, rangesPerLane: 1_000, pathsPerTarget: 50, targets: 16 } as const;

function picture(v: ScopeView): Raw {
  const p = v.publication;
  const all = [...new Set([...p.walRanges, ...p.walGaps].map((r) => r.timeline))].sort((a, b) => a - b);
  if (all.length === 0) return html`<p class="muted">No WAL observed.</p>`;
  const timelines = all.slice(-PAGE_BOUNDS.lanes);
  const lanes = new Map(timelines.map((t, i) => [t, i]));
  const ranges = p.walRanges.filter((r) => lanes.has(r.timeline));
  const laneGaps = p.walGaps.filter((g) => lanes.has(g.timeline));
  const gaps = laneGaps.slice(0, PAGE_BOUNDS.gaps);
  // Folds, not Math.min(...runs): a spread of 100 k+ arguments overflows the stack.
  const runs: readonly (WalRangeItem | WalGapItem)[] = [...ranges, ...laneGaps];
  const min = runs.reduce((m, r) => Math.min(m, r.start_position), Number.POSITIVE_INFINITY);
  const max = runs.reduce((m, r) => Math.max(m, r.end_position), Number.NEGATIVE_INFINITY) + 1;
  const W = 900;
  const left = 60;
  const lane = 34;
  const x = (pos: number) => left + ((pos - min) / Math.max(1, max - min)) * (W - left - 10);
  const y = (t: number) => 10 + (lanes.get(t) ?? 0) * lane;
  const H = 20 + timelines.length * lane + 16;
  const newest = ranges.filter((r) => r.timeline === timelines.at(-1)).at(-1);
  // A lane with more ranges than the picture can tell apart is one bar from its first to its last
  // segment; the gaps drawn over it show the holes.
  const bars = timelines.flatMap((t) => {
    const own = ranges.filter((r) => r.timeline === t);
    if (own.length <= PAGE_BOUNDS.rangesPerLane) return own;
    const first = own[0] as WalRangeItem;
    const last = own.at(-1) as WalRangeItem;
    return [{ ...first, end_position: last.end_position, last_wal: last.last_wal, segment_count: own.reduce((n, r) => n + r.segment_count, 0) }];
  });
  const begins = new Map<string, number>();
  for (const r of p.recoveryPaths) if (r.start_position !== null && !begins.has(r.backup_id)) begins.set(r.backup_id, r.start_position);
  const hidden = [all.length - timelines.length > 0 ? `${all.length - timelines.length} older timelines` : '', laneGaps.length > gaps.length ? `${laneGaps.length - gaps.length} later gaps` : ''].filter((t) => t !== '');
  return html`<svg role="img" aria-labelledby="pic-${v.server}" viewBox="0 0 ${W} ${H}" width="100%">
<title id="pic-${v.server}">Timelines of ${v.server} as lanes over WAL position: ranges, gaps, backups and the frontier</title>
<defs><pattern id="hatch" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="3" height="6" fill="#8b0000"/></pattern></defs>
${timelines.map((t) => html`<rect class="lane" x="${left}" y="${y(t)}" width="${W - left - 10}" height="22"/><text x="4" y="${y(t) + 15}">timeline ${t}</text>`)}
${bars.map((r) => html`<rect class="range" x="${x(r.start_position)}" y="${y(r.timeline) + 4}" width="${Math.max(1.5, x(r.end_position + 1) - x(r.start_position))}" height="14"><title>segments ${r.first_wal} to ${r.last_wal} (${r.segment_count})</title></rect>`)}
${gaps.map((g) => html`<rect class="${isRetentionGap(v, g) ? 'gap-retention' : `gap-${g.status}`}" x="${x(g.start_position)}" y="${y(g.timeline) + 1}" width="${Math.max(3, x(g.end_position + 1) - x(g.start_position))}" height="20"><title>${gapLabel(v, g)}: ${g.first_wal} to ${g.last_wal} (${g.segment_count} missing)</title></rect><text x="${x(g.start_position)}" y="${y(g.timeline) + 32}">${isRetentionGap(v, g) ? 'retention' : g.status === 'confirmed' ? 'gap' : 'gap?'}</text>`)}
${v.forks.filter((f) => lanes.has(f.timeline) && lanes.has(f.parent)).map((f) => html`<line class="fork" x1="${x(f.position)}" y1="${y(f.parent) + 11}" x2="${x(f.position)}" y2="${y(f.timeline) + 11}"><title>timeline ${f.timeline} forks from ${f.parent}</title></line>`)}
${p.backups.flatMap((b) => {
    const pos = begins.get(b.backup_id);
    if (pos === undefined || b.timeline === null || !lanes.has(b.timeline)) return [];
    return [html`<path class="backup" d="M${x(pos)} ${y(b.timeline) + 1} l5 -8 h-10 z"><title>backup ${b.backup_id} (${b.state}${retainedOf(v) ? ', retained' : ''})</title></path>`];
  })}
${newest === undefined ? '' : html`<line class="frontier" x1="${x(newest.end_position + 1)}" y1="${y(newest.timeline) - 2}" x2="${x(newest.end_position + 1)}" y2="${y(newest.timeline) + 24}"><title>frontier: ${newest.last_wal}</title></line><text x="${Math.min(W - 60, x(newest.end_position + 1) + 3)}" y="${y(newest.timeline) + 33}">frontier</text>`}
</svg>
<p class="muted">Bars: archived segments. Hatched box: confirmed gap; dashed box: candidate gap ("gap?"); grey dotted box: a hole with exactly the shape ${retentionOf(v)} leaves between the WAL of the backups it keeps ("retention"). Triangles: backups at their begin WAL. Dotted line: a timeline fork. Green line: the frontier.${hidden.length === 0 ? '' : html` Not drawn: ${hidden.join(' and ')} (the WAL browser lists every run).`}</p>`;
}

function coverage(v: ScopeView, retained: boolean): Raw {
  const paths = v.publication.recoveryPaths;
  if (paths.length === 0) return html`<p class="muted">No completed backup, so no recovery path.</p>`;
  const byTarget = new Map<number, RecoveryPathItem[]>();
  for (const r of paths) {
    const list = byTarget.get(r.target_timeline);
    if (list === undefined) byTarget.set(r.target_timeline, [r]);
    else list.push(r);
  }
  const targets = [...byTarget.keys()].sort((a, b) => a - b);
  const shown = targets.slice(-PAGE_BOUNDS.targets);
  const older = targets.length - shown.length;
  return html`${older > 0 ? html`<p class="muted">Coverage to the ${shown.length} newest timelines; ${older} older target timelines are not listed here.</p>` : ''}${shown.map((t) => {
    const list = byTarget.get(t) ?? [];
    // Paths come sorted by backup id, which is the backup's start time: the newest are last.
    const rows = list.slice(-PAGE_BOUNDS.pathsPerTarget);
    return html`<h3>Observed recovery coverage to timeline ${t}</h3>${list.length > rows.length ? html`<p class="muted">The ${rows.length} newest of ${list.length} paths.</p>` : ''}
<div class="scroll" tabindex="0" role="region" aria-label="Observed recovery coverage to timeline ${t}"><table><thead><tr><th>backup</th><th>state</th><th>stop</th><th>from</th><th>covered up to</th><th>at least from</th><th>reason</th></tr></thead><tbody>
${rows.map((r) => html`<tr><td>${backupRef(v, r.backup_id)}</td><td>${itemState(r.state, retained)}</td><td>${r.stop}</td><td><code>${r.start_wal ?? '-'}</code></td><td><code>${r.frontier_wal ?? '-'}</code></td><td>${when(r.lower_bound_at)}</td><td>${r.reason.message}</td></tr>`)}
</tbody></table></div>`;
  })}`;
}

/** The catalog's shelves, kept apart as the spec asks, in the order the page shows them. */
const SHELVES: readonly Shelf[] = ['completed', 'structurally incomplete', 'in progress or abandoned', 'failed', 'malformed', 'unsupported'];

/**
 * Statuses kept under a heading of their own whatever shelf they are on, never among completed
 * backups (pgBackRest's, D-72): a directory the repository shows as interrupted or still running,
 * and a complete backup its catalog does not list.
 */
const OWN_HEADINGS: readonly { readonly status: string; readonly heading: string; readonly note: (tool: string) => string }[] = [
  { status: 'INTERRUPTED', heading: 'Interrupted', note: (tool) => `Started and never completed: interrupted, or still running (the repository cannot tell). Not restorable, and not listed by ${tool}'s own info.` },
  { status: 'UNLISTED', heading: 'Unlisted', note: (tool) => `Complete backup directories the catalog of backups does not list: ${tool}'s own info and restore see them only once the catalog is rebuilt.` },
];

/** A backup's type, and for one that depends on others the backups it needs, nearest first, each marked when it is missing or not usable. */
/** A backup id that may break after each `_` (pgBackRest's labels are two timestamps long); others never break. */
const idText = (id: string): Raw => (id.includes('_') ? html`<code class="id">${id.split(/(?<=_)/).map((part, i) => html`${i > 0 ? raw('<wbr>') : ''}${part}`)}</code>` : html`<code>${id}</code>`);

function typeCell(v: ScopeView, b: BackupItem): Raw {
  const deps = v.dependencies.get(b.backup_id) ?? [];
  const type = b.backup_type ?? html`<span class="muted">unknown</span>`;
  if (deps.length === 0) return html`${type}`;
  const dep = (d: Dependency) => html`${idText(d.id)}${d.state === null ? html` <strong class="broken">(missing)</strong>` : d.state === 'healthy' || d.state === 'warning' ? '' : html` <strong class="broken">(${d.state}: not usable)</strong>`}`;
  // One dependency a line, so the column stays one label wide.
  return html`<span class="chain">${type} of ${[...deps].reverse().map((d, i) => html`<span class="dep">${i > 0 ? html`<span title="which depends on">←</span>${raw('&nbsp;')}` : ''}${dep(d)}</span>`)}</span>`;
}

function backups(v: ScopeView, retained: boolean): Raw {
  const items = v.publication.backups;
  const shelves = v.shelves;
  if (items.length === 0) return html`<p class="muted">No backup directory.</p>`;
  // A backup the evidence has no shelf for (none should exist) is never shown as completed.
  const shelfOf = (b: BackupItem): Shelf => shelves.get(b.backup_id) ?? 'structurally incomplete';
  // Names and keep statuses are what some formats' tools list (Barman's); a scope with none shows neither column.
  const labelled = items.some((b) => v.labels.get(b.backup_id)?.name != null || v.labels.get(b.backup_id)?.keep != null);
  // Types and chains where they tell something: backups of more than one type, or some depending on others.
  const typed = new Set(items.flatMap((b) => (b.backup_type === null ? [] : [b.backup_type]))).size > 1 || v.dependencies.size > 0;
  const table = (rows: readonly BackupItem[]) => html`<div class="scroll" tabindex="0" role="region" aria-label="Backups of ${v.server}"><table><thead><tr><th>backup</th>${labelled ? html`<th>name</th><th>keep</th>` : ''}${typed ? html`<th>type</th>` : ''}<th>state</th><th>status</th><th>timeline</th><th>begin WAL<br>end WAL</th><th>ended</th><th>archives</th><th class="reason">reason</th></tr></thead><tbody>
${rows.map((b) => html`<tr><td>${idText(b.backup_id)}</td>${labelled ? html`<td>${v.labels.get(b.backup_id)?.name ?? '-'}</td><td>${v.labels.get(b.backup_id)?.keep ?? '-'}</td>` : ''}${typed ? html`<td>${typeCell(v, b)}</td>` : ''}<td>${itemState(b.state, retained)}</td><td>${b.status ?? '-'}</td><td>${b.timeline ?? '-'}</td><td><code>${b.begin_wal ?? '-'}</code><br><code>${b.end_wal ?? '-'}</code></td><td>${when(b.end_at)}</td><td>${b.artifact_count ?? '-'} (${b.compression ?? 'mixed or unknown'})${b.stored_artifact_bytes === null ? '' : html`, ${bytes(b.stored_artifact_bytes)}`}</td><td>${b.reason.message}${recordedError(v, b)}</td></tr>`)}
</tbody></table></div>`;
  const own = new Set(OWN_HEADINGS.map((h) => h.status));
  const tool = v.tool ?? 'the tool';
  return html`${SHELVES.map((k) => {
    const shelf = items.filter((b) => shelfOf(b) === k);
    const rows = shelf.filter((b) => b.status === null || !own.has(b.status));
    return html`${rows.length === 0 ? '' : html`<h3>${k[0]?.toUpperCase()}${k.slice(1)} (${rows.length})</h3>
${table(rows)}`}${OWN_HEADINGS.map((h) => {
      const apart = shelf.filter((b) => b.status === h.status);
      return apart.length === 0 ? '' : html`<h3>${h.heading} (${apart.length})</h3><p class="muted">${h.note(tool)}</p>
${table(apart)}`;
    })}`;
  })}`;
}

/** The error text a failed backup recorded, as its tool lists it (bounded and sanitised by the scope view, escaped here). */
function recordedError(v: ScopeView, b: BackupItem): Raw {
  const text = v.recordedErrors.get(b.backup_id);
  return text === undefined ? html`` : html`<div class="recorded-error">Recorded error: <q>${text}</q></div>`;
}

/** A backup as operators know it: its id, and the name and keep status its format's tools list. */
function backupRef(v: ScopeView, id: string): Raw {
  const l = v.labels.get(id);
  return html`<code>${id}</code>${l?.name == null ? '' : html` <span class="label" title="backup name">${l.name}</span>`}${l?.keep == null ? '' : html` <span class="muted">keep:${l.keep}</span>`}`;
}

/** Where a recovery path ends, in words, with its stop code. */
function stopPhrase(v: ScopeView, path: RecoveryPathItem): Raw {
  const after = path.frontier_wal === null ? '' : html` after <code>${path.frontier_wal}</code>`;
  switch (path.stop) {
    case 'frontier':
      return html`reaches the newest WAL (frontier)`;
    case 'candidate-limited':
      return html`stops at a candidate gap${after} (candidate-limited)`;
    case 'unknown-limited':
      return html`stops where the timeline history is unknown${after} (unknown-limited)`;
    case 'gap-limited':
      return path.reason.code === 'standalone-retention-limited'
        ? html`stops at the hole ${retentionOf(v)} leaves after the WAL this backup needs${after} (gap-limited)`
        : html`stops at missing WAL${after} (gap-limited)`;
  }
}

function whyNot(v: ScopeView, b: BackupItem, w: WhyNot, timeline: number): Raw {
  switch (w.kind) {
    case 'not-usable':
      return html`not structurally usable (${b.reason.code})`;
    case 'no-path':
      return html`no observed recovery path to timeline ${timeline}${b.timeline !== null && b.timeline !== timeline ? html` (taken on timeline ${b.timeline})` : ''}`;
    case 'stops':
      return html`its path ${stopPhrase(v, w.path)}`;
    case 'path-not-usable':
      return html`its path reaches the newest WAL but is ${w.path.state} (${w.path.reason.code})`;
  }
}

/** How many passed-over backups the top facts name; the catalog below lists every one. */
const PASSED_OVER_SHOWN = 8;

/**
 * The operator's four questions, answered first: is WAL still arriving (the newest received, by
 * the store's clock), is that within the expectation, which backup to restore from for the newest
 * timeline (and why not a newer one), and how far its observed recovery coverage reaches.
 */
function topFacts(v: ScopeView, ctx: PageContext, retained: boolean): Raw {
  const p = v.publication;
  const c = v.clock;
  if (c === null || p.snapshot.evidence_generation === 0) {
    return html`<dl class="top"><dt>Newest WAL received</dt><dd>${when(null)} until a scan completes</dd><dt>Backup to restore from</dt><dd>${when(null)} until a scan completes</dd></dl>`;
  }
  const badge = (s: string) => itemState(s, retained);
  const max = ctx.maxArchiveLagSeconds;
  const lag = c.archiveLagSeconds;
  const expected = max === null ? '' : durationText(max);
  const newest = c.newestWalReceivedAt === null
    ? html`none: no WAL object was received`
    : html`${when(c.newestWalReceivedAt)} (store time), ${lag === null ? html`how long before the scan is unknown: ${c.storeTimeAtScan === null ? 'the store sent no clock reading' : "it was received after the store's own clock at the scan (the store's clocks disagree)"}` : html`${durationText(lag)} before the scan by the store's clock`}`;
  const lagText = c.newestWalReceivedAt === null
    ? html`${badge('unknown')} unknown: no WAL received${max === null ? '' : html`; expected at most ${expected}`}`
    : lag === null && c.storeTimeAtScan !== null
      ? html`${badge('unknown')} unknown: a WAL object was received after the store's own clock at the scan, so the store's clocks disagree and the age of the newest WAL cannot be measured${max === null ? '' : html`; the expected maximum of ${expected} cannot be checked (archive-receipt-after-store-clock)`}`
    : lag === null
      ? html`${badge('unknown')} unknown: the store sent no clock reading, so the age of the newest WAL cannot be measured${max === null ? '' : html`; the expected maximum of ${expected} cannot be checked (archive-lag-unknown)`}`
      : max === null
        ? html`${durationText(lag)}; no maximum is configured (EXPECTED_MAX_ARCHIVE_LAG), so it is shown, not judged`
        : lag > max
          ? html`${badge('warning')} ${durationText(lag)}, over the expected maximum of ${expected} (archive-lag-over-expectation): by the store's clock the newest WAL is ${durationText(lag)} old. A database with no writes archives nothing, so this says look at the archiving, not that it failed.`
          : html`${badge('healthy')} ${durationText(lag)}, within the expected maximum of ${expected}`;
  const rc = restoreChoice(p.backups, p.recoveryPaths, p.walRanges.map((r) => r.timeline));
  const passed = rc.passedOver.slice(0, PASSED_OVER_SHOWN);
  const more = rc.passedOver.length - passed.length;
  const passedList = (heading: string) => (passed.length === 0 || rc.timeline === null ? '' : html`<div>${heading}</div><ul>${passed.map(({ backup, why }) => html`<li>${backupRef(v, backup.backup_id)}${backupTime(backup) === null ? ' (time unknown)' : ''}: ${whyNot(v, backup, why, rc.timeline ?? 0)}</li>`)}${more > 0 ? html`<li class="muted">and ${more} more (the catalog below lists every backup)</li>` : ''}</ul>`);
  let restore: Raw;
  let reach: Raw;
  if (rc.timeline === null) {
    restore = html`none: no WAL was observed, so no recovery path reaches any`;
    reach = html`none observed`;
  } else if (rc.chosen !== null) {
    const { backup, path } = rc.chosen;
    restore = html`${backupRef(v, backup.backup_id)}, ended ${when(backup.end_at)} ${badge(path.state)}: the newest structurally usable backup whose observed recovery coverage reaches the newest WAL of timeline ${rc.timeline}.${passedList('Not a newer one:')}`;
    reach = html`WAL received up to ${when(path.frontier_receipt_at)} (store time; a receipt time, not a transaction time), segment <code>${path.frontier_wal ?? '-'}</code> on timeline ${path.frontier_timeline ?? '-'}, from ${backupRef(v, backup.backup_id)}`;
  } else {
    const f = rc.furthest;
    // The scope's coverage verdict, which judges exactly this: no path to the frontier.
    restore = html`${state(detailsView(p.snapshot.details).coverage.state)} none: no backup's observed recovery coverage reaches the newest WAL of timeline ${rc.timeline}. ${f === null
      ? (p.backups.length === 0 ? html`There is no backup.` : p.backups.some((b) => b.state === 'healthy' || b.state === 'warning') ? html`No structurally usable backup has a path to timeline ${rc.timeline}.` : html`No backup is structurally usable.`)
      : html`The furthest path, from ${backupRef(v, f.backup.backup_id)}, ${stopPhrase(v, f.path)}.`}${passedList('Why not each backup:')}`;
    reach = f === null
      ? html`none observed to timeline ${rc.timeline}`
      : html`only to WAL received at ${when(f.path.frontier_receipt_at)} (store time), segment <code>${f.path.frontier_wal ?? '-'}</code>, from ${backupRef(v, f.backup.backup_id)}: short of the newest WAL`;
  }
  return html`<dl class="top">
<dt>Newest WAL received</dt><dd>${newest}</dd>
<dt>Archive lag</dt><dd>${lagText}</dd>
<dt>Backup to restore from${rc.timeline === null ? '' : html` (timeline ${rc.timeline})`}</dt><dd>${restore}</dd>
<dt>Observed recovery coverage reaches</dt><dd>${reach}</dd>
</dl>`;
}

/** The format's own facts beside the common ones (pgBackRest's: backup types, interrupted backups, encryption, dependency chains). */
function formatFacts(details: Parameters<typeof stanzaRepositoryFacts>[0]): Raw {
  const f = stanzaRepositoryFacts(details);
  if (f === null) return html``;
  const types = f.backup_types;
  return html`<span>Completed backups by type</span><span>${types === null ? count(null) : html`${count(types.full)} full, ${count(types.diff)} diff, ${count(types.incr)} incr`}</span>
<span>Interrupted backups</span><span>${count(f.interrupted_backups)}</span>
<span>Encrypted repository</span><span>${f.encrypted === null ? html`<span class="muted">unknown</span>` : f.encrypted ? 'yes' : 'no'}</span>
<span>Dependency chains</span><span>${state(f.dependency_chain.state)} ${f.dependency_chain.reason.message}</span>`;
}

/** Retention reasons by the expectation they are about; the others concern every expectation configured. */
const POLICY_REASONS = new Set(['retention-policy-unrecognized', 'redundancy-policy-not-met', 'recovery-window-not-covered']);
const MINIMUM_REASONS = new Set(['minimum-redundancy-not-met']);

function expectations(v: ScopeView, ctx: PageContext): Raw {
  const d = detailsView(v.publication.snapshot.details);
  const r = d.retention;
  const verdict = (about: ReadonlySet<string>, other: ReadonlySet<string>) =>
    about.has(r.reason.code) || (!other.has(r.reason.code) && r.reason.code !== 'no-expectation-configured') ? html` ${state(r.state)} ${r.reason.message}` : '';
  const policy = ctx.retentionPolicy === null ? html`not configured` : html`${ctx.retentionPolicy}${verdict(POLICY_REASONS, MINIMUM_REASONS)}`;
  const minimum = ctx.minimumRedundancy === null
    ? html`not configured`
    : html`${ctx.minimumRedundancy} expected, ${count(d.structurallyUsable)} structurally usable${verdict(MINIMUM_REASONS, POLICY_REASONS)}`;
  return html`<span>Expected retention</span><span>${policy}</span>
<span>Minimum redundancy</span><span>${minimum}</span>
<span>Maximum archive lag</span><span>${ctx.maxArchiveLagSeconds === null ? 'not configured' : durationText(ctx.maxArchiveLagSeconds)}</span>`;
}

function scopeSection(v: ScopeView, ctx: PageContext): Raw {
  const s = v.publication.snapshot;
  const d = detailsView(s.details);
  const limits = [d.rangesTruncated ? 'WAL ranges' : '', d.diagnosticsTruncated ? 'diagnostics' : '', s.inventory.last_failure_category === 'safety_limit' ? 'scan budget' : ''].filter(Boolean);
  const retained = retainedOf(v);
  return html`<section id="server-${v.server}" aria-labelledby="scope-${v.server}"><h2 id="scope-${v.server}">Server <code>${v.server}</code> ${state(s.state)}</h2>
<p>${s.reason.message}</p>
${retained && s.evidence_generation > 0 ? html`<p class="notice">The evidence below is retained from generation ${s.evidence_generation}, completed ${when(s.completed_at)}: it is historical, not current health. Every item is marked "retained".</p>` : ''}
${v.empty ? html`<p class="notice">No backup directory and no WAL were found at this server's location. Check DESTINATION_PATH and the server name.</p>` : ''}
${topFacts(v, ctx, retained)}
${copyNote(v)}${todo(v)}
<div class="facts">
<span>Repository</span><span>${v.tool ?? html`<span class="muted">unknown until a scan completes</span>`} (<code>${s.identity.repository.format}</code>)</span>
${formatFacts(s.details)}
<span>Generation</span><span>${s.evidence_generation} (revision ${s.revision}), ${s.completeness}${s.stale ? ', stale' : ''}</span>
<span>Scan started</span><span>${when(s.started_at)}</span><span>Scan completed</span><span>${when(s.completed_at)}</span>
<span>Store's clock at the scan</span><span>${v.clock === null ? when(null) : v.clock.storeTimeAtScan === null ? html`<span class="muted">not sent by the store</span>` : when(v.clock.storeTimeAtScan)}</span>
<span>Last attempt</span><span>${when(s.last_attempt_at)}${s.inventory.last_failure_category === null ? '' : html` — failed: ${s.inventory.last_failure_category}${((d) => (d === null ? '' : ` (${d})`))(ctx.failureDetail?.(v.server) ?? null)}`}</span>
<span>Safety limits reached</span><span>${limits.length === 0 ? 'none' : limits.join(', ')}</span>
<span>Objects</span><span>${count(s.inventory.object_count)}</span><span>Stored bytes</span><span>${bytes(s.inventory.stored_bytes)}</span>
<span>WAL continuity</span><span>${state(d.wal.state)} ${d.wal.reason.message}</span>
<span>Timelines</span><span>${state(d.timeline.state)} ${d.timeline.reason.message}</span>
<span>Observed recovery coverage</span><span>${state(d.coverage.state)} ${d.coverage.reason.message}</span>
${expectations(v, ctx)}
</div>
<h3>Timelines and WAL</h3>${picture(v)}
<h3>Backups</h3>${backups(v, retained)}
${coverage(v, retained)}
<h3>Recently received objects</h3>
${v.recentObjects.length === 0 ? html`<p class="muted">None.</p>` : html`<p class="muted">Newest first; on one receipt time, the key that sorts last first.</p><div class="scroll" tabindex="0" role="region" aria-label="Recently received objects of ${v.server}"><table class="recent"><thead><tr><th>object</th><th>size</th><th>received</th></tr></thead><tbody>${v.recentObjects.map((o) => html`<tr><td>${o.key === null ? html`<span class="muted">a key holding control characters (not shown)</span>` : html`<code>${o.key}</code>`}</td><td>${bytes(o.size)}</td><td>${when(o.receivedAt)}</td></tr>`)}</tbody></table></div>`}
</section>`;
}

/** The other formats the destination can be recognised as, by their REPOSITORY_FORMAT value (D-60). */
const FOREIGN_FORMATS: Record<ForeignFormat, string> = { 'stanza-repository': 'a pgBackRest repository (REPOSITORY_FORMAT=stanza-repository), not archive-cloud' };

/** What a discovery failure's category most often means at a destination. */
const DISCOVERY_FAILURES: Record<FailureCategory, string> = {
  not_found: 'the bucket or container does not exist; check DESTINATION_PATH',
  authentication: 'the store did not accept the credentials',
  authorization: 'the credentials may not list the destination',
  unavailable: 'the store could not be reached or answered with an error',
  timeout: 'listing the destination took too long',
  throttled: 'the store throttled the listing',
  safety_limit: 'the destination holds more than discovery lists',
  incompatible_format: 'the destination does not hold this repository format',
  invalid_configuration: 'the destination is not configured correctly',
  canceled: 'the listing was canceled',
};

function destinationNotes(d: DestinationFacts | null, scopes: number): Raw {
  if (d === null) return html``;
  return html`${d.discoveryFailure === null ? '' : html`<p class="notice error" role="alert"><strong>Discovery failed (${d.discoveryFailure}${d.discoveryFailureDetail == null ? '' : `: ${d.discoveryFailureDetail}`}):</strong> ${DISCOVERY_FAILURES[d.discoveryFailure]}. ${scopes === 0 ? 'No server scope is known, so nothing below is evidence of an empty destination.' : 'The server scopes below are those an earlier discovery found.'} Discovery is retried every refresh interval.</p>`}
${d.foreignFormat === null ? '' : html`<p class="notice">The destination looks like ${FOREIGN_FORMATS[d.foreignFormat]} (incompatible_format): its <code>archive/</code> and <code>backup/</code> areas are not read as servers.</p>`}
<p>Objects under the destination that belong to no server scope: ${count(d.unscopedObjects)}.</p>`;
}

/**
 * One server at a glance, the cells after its name: state with its reason code, newest backup,
 * archive lag against the expectation, WAL gaps, coverage. The fleet table of one repository and
 * the fleet page's table of every repository share them.
 */
export function serverSummaryCells(v: ScopeView, maxArchiveLagSeconds: number | null): Raw {
  const max = maxArchiveLagSeconds;
  const p = v.publication;
  const retained = retainedOf(v);
  const newest = [...p.backups].filter((b) => backupTime(b) !== null).sort((a, b) => (backupTime(b) ?? 0) - (backupTime(a) ?? 0) || (a.backup_id < b.backup_id ? 1 : -1))[0];
  const lag = v.clock?.archiveLagSeconds ?? null;
  const open = p.walGaps.filter((g) => !isRetentionGap(v, g));
  const confirmed = open.filter((g) => g.status === 'confirmed').length;
  const candidate = open.length - confirmed;
  const expected = p.walGaps.length - open.length;
  const gaps = open.length === 0 ? html`none` : html`${confirmed > 0 ? `${confirmed} confirmed` : ''}${confirmed > 0 && candidate > 0 ? ', ' : ''}${candidate > 0 ? `${candidate} candidate` : ''}`;
  return html`<td>${state(p.snapshot.state)} <code class="reason">${p.snapshot.reason.code}</code></td>
<td>${p.snapshot.evidence_generation === 0 ? html`<span class="muted">unknown</span>` : newest === undefined ? html`<span class="muted">none</span>` : html`${backupRef(v, newest.backup_id)} ${itemState(newest.state, retained)} <span class="muted">ended ${when(newest.end_at)}</span>`}</td>
<td>${lag === null ? html`<span class="muted">unknown</span>` : html`${durationText(lag)}${max !== null && lag > max ? html` ${itemState('warning', retained)} over ${durationText(max)}` : ''}`}</td>
<td>${p.snapshot.evidence_generation === 0 ? html`<span class="muted">unknown</span>` : gaps}${expected > 0 ? html` <span class="muted">(${expected} from retention, expected)</span>` : ''}</td>
<td>${state(detailsView(p.snapshot.details).coverage.state)}</td>`;
}

/** The header cells of `serverSummaryCells`. */
export const SERVER_SUMMARY_HEADINGS = html`<th>state, reason</th><th>newest backup</th><th>archive lag</th><th>WAL gaps</th><th>coverage</th>`;

/** One row per server, linking to its section: with many servers, the page is read from here. */
function fleet(ctx: PageContext): Raw {
  if (ctx.scopes.length < 2) return html``;
  const rows = ctx.scopes.map((v) => html`<tr><td><a href="#server-${v.server}"><code>${v.server}</code></a></td>${serverSummaryCells(v, ctx.maxArchiveLagSeconds)}</tr>`);
  return html`<section aria-labelledby="fleet"><h2 id="fleet">Servers (${ctx.scopes.length})</h2>
<div class="scroll" tabindex="0" role="region" aria-label="Servers"><table class="fleet"><thead><tr><th>server</th>${SERVER_SUMMARY_HEADINGS}</tr></thead><tbody>
${rows}
</tbody></table></div></section>`;
}

export function inventoryPage(ctx: PageContext): string {
  const n = ctx.scopes.length;
  const failed = ctx.destination?.discoveryFailure != null;
  const pending = ctx.destination?.discoveryPending === true;
  const scopes = n === 0 && (failed || pending)
    ? html`Server scopes: <span class="muted">unknown</span>, ${failed ? 'discovery failed' : 'discovery in progress'}.`
    : html`${n} server scope${n === 1 ? '' : 's'}${n === 0 ? '.' : html`: ${ctx.scopes.map((v, i) => html`${i > 0 ? ', ' : ''}<code>${v.server}</code>`)}.`}`;
  const body = html`<section><h2>Repository${ctx.repository == null ? '' : html` <code>${ctx.repository}</code>`}${ctx.name == null || ctx.name === ctx.repository ? '' : html` <span class="name">${ctx.name}</span>`}</h2><p>${scopes}
Totals are exact once a scan completed and unknown before; states are what the evidence proves, "unknown" where it cannot.</p>
<p class="structural">${STRUCTURAL_SENTENCE}</p>
${windowLines(ctx)}${destinationNotes(ctx.destination, n)}</section>
${fleet(ctx)}
${ctx.scopes.map((v) => scopeSection(v, ctx))}`;
  return layout('Inventory', ctx, body);
}

/** The spec's object classes, and `gap`: the missing runs only (the rows `segment` lists as missing). */
export const WAL_CLASSES = ['segment', 'partial', 'history', 'backup-history', 'duplicate', 'unknown', 'gap'] as const;
export type WalClass = (typeof WAL_CLASSES)[number];

export interface WalFilter {
  readonly server: string | null;
  readonly walClass: WalClass | null;
  readonly timeline: number | null;
  readonly from: string | null;
  readonly to: string | null;
  readonly page: number;
}

export type WalFilterResult = { ok: true; filter: WalFilter } | { ok: false; problems: string[] };

const WAL = /^[0-9A-F]{24}$/;

/** Parses `/wals` query parameters: `server`, `class`, `timeline`, `from`, `to`, `page` (D-46). */
export function parseWalFilter(search: URLSearchParams, servers: readonly string[]): WalFilterResult {
  const problems: string[] = [];
  const one = (name: string) => {
    const all = search.getAll(name);
    if (all.length > 1) problems.push(`${name} is given more than once`);
    const v = all[0];
    return v === undefined || v === '' ? null : v;
  };
  for (const name of new Set(search.keys())) if (!['server', 'class', 'timeline', 'from', 'to', 'page'].includes(name)) problems.push(`unknown filter ${name.slice(0, 20)}`);
  const server = one('server');
  if (server !== null && !servers.includes(server)) problems.push('server is not one of the scopes');
  const walClass = one('class');
  if (walClass !== null && !(WAL_CLASSES as readonly string[]).includes(walClass)) problems.push(`class must be one of ${WAL_CLASSES.join(', ')}`);
  const timeline = one('timeline');
  if (timeline !== null && (!/^[1-9][0-9]{0,9}$/.test(timeline) || Number(timeline) > 0xffffffff)) problems.push('timeline must be a positive integer');
  const from = one('from');
  const to = one('to');
  if (from !== null && !WAL.test(from)) problems.push('from must be a 24-digit uppercase WAL name');
  if (to !== null && !WAL.test(to)) problems.push('to must be a 24-digit uppercase WAL name');
  if (from !== null && to !== null && WAL.test(from) && WAL.test(to) && from > to) problems.push('from must not come after to');
  const page = one('page');
  if (page !== null && !/^[1-9][0-9]{0,6}$/.test(page)) problems.push('page must be a positive integer');
  if (problems.length > 0) return { ok: false, problems };
  return { ok: true, filter: { server, walClass: walClass as WalClass | null, timeline: timeline === null ? null : Number(timeline), from, to, page: page === null ? 1 : Number(page) } };
}

interface WalRow {
  readonly server: string;
  readonly timeline: number;
  readonly first: string;
  readonly last: string;
  readonly what: Raw;
}

function walRows(v: ScopeView, f: WalFilter): WalRow[] {
  const inRange = (first: string, last: string) => (f.from === null || last >= f.from) && (f.to === null || first <= f.to);
  const onTimeline = (t: number) => f.timeline === null || f.timeline === t;
  const rows: WalRow[] = [];
  const want = (c: WalClass) => f.walClass === null || f.walClass === c;
  const p = v.publication;
  if (want('segment') || f.walClass === 'gap') {
    const archived = f.walClass === 'gap' ? [] : p.walRanges.map((r) => ({ r, gap: false }));
    const runs = [...archived, ...p.walGaps.map((r) => ({ r, gap: true }))].sort((a, b) => a.r.timeline - b.r.timeline || a.r.start_position - b.r.start_position);
    for (const { r, gap } of runs) {
      if (!onTimeline(r.timeline) || !inRange(r.first_wal, r.last_wal)) continue;
      // A missing run is one row however long it is.
      const what = gap ? html`<strong>missing</strong> ${r.segment_count} segment${r.segment_count === 1 ? '' : 's'} (${gapLabel(v, r as WalGapItem)})` : html`${r.segment_count} archived segment${r.segment_count === 1 ? '' : 's'}`;
      rows.push({ server: v.server, timeline: r.timeline, first: r.first_wal, last: r.last_wal, what });
    }
  }
  if (want('partial')) for (const x of v.partials) if (onTimeline(x.timeline) && inRange(x.wal, x.wal)) rows.push({ server: v.server, timeline: x.timeline, first: x.wal, last: x.wal, what: html`partial segment` });
  if (want('history')) {
    for (const h of v.histories) {
      if (!onTimeline(h.timeline) || f.from !== null || f.to !== null) continue;
      const sp = h.switchpoint;
      const what = sp === null ? html`history file (${h.status})` : html`history file (${h.status}): switches from timeline ${sp.parent} at LSN <code>${sp.lsn}</code>, in segment <code>${sp.wal}</code>`;
      rows.push({ server: v.server, timeline: h.timeline, first: '-', last: '-', what });
    }
  }
  return rows;
}

export function walsPage(ctx: PageContext, f: WalFilter, pageSize: number): string {
  const scopes = ctx.scopes.filter((v) => f.server === null || v.server === f.server);
  const rows = scopes.flatMap((v) => walRows(v, f));
  const pages = Math.max(1, Math.ceil(rows.length / pageSize));
  const page = Math.min(f.page, pages);
  const shown = rows.slice((page - 1) * pageSize, page * pageSize);
  // Exact only when every scope shown has complete counts; otherwise unknown, never zero.
  const counted = (c: 'backup_history' | 'duplicate' | 'unknown'): number | null =>
    scopes.reduce<number | null>((n, v) => {
      const k = detailsView(v.publication.snapshot.details).walCounts?.[c] ?? null;
      return n === null || k === null ? null : n + k;
    }, 0);
  const link = (n: number) => {
    const q = new URLSearchParams();
    if (ctx.repository != null) q.set('repository', ctx.repository);
    if (f.server !== null) q.set('server', f.server);
    if (f.walClass !== null) q.set('class', f.walClass);
    if (f.timeline !== null) q.set('timeline', String(f.timeline));
    if (f.from !== null) q.set('from', f.from);
    if (f.to !== null) q.set('to', f.to);
    q.set('page', String(n));
    return `/wals?${q.toString()}`;
  };
  const notes = f.walClass === 'backup-history' || f.walClass === 'duplicate' || f.walClass === 'unknown'
    ? ((n) => (n === null
      ? html`<p>Objects of class ${f.walClass}: ${count(null)} until a scan of every scope shown completes.</p>`
      : html`<p>${count(n)} objects of class ${f.walClass}: counted exactly, not kept one by one.</p>`))(counted(f.walClass === 'backup-history' ? 'backup_history' : f.walClass))
    : '';
  const gapsOnly = (() => {
    const q = new URLSearchParams();
    if (ctx.repository != null) q.set('repository', ctx.repository);
    if (f.server !== null) q.set('server', f.server);
    q.set('class', 'gap');
    return `/wals?${q.toString()}`;
  })();
  const body = html`<section><h2>WAL browser</h2>${filterForm(ctx, f)}${f.walClass === 'gap' ? '' : html`<p><a href="${gapsOnly}">Show only the gaps</a> (missing WAL).</p>`}</section>
<section>${notes}<p class="muted">${rows.length} row${rows.length === 1 ? '' : 's'}, page ${page} of ${pages}.</p>
<div class="scroll" tabindex="0" role="region" aria-label="WAL rows"><table><thead><tr><th>server</th><th>timeline</th><th>first WAL</th><th>last WAL</th><th>what</th></tr></thead><tbody>
${shown.map((r) => html`<tr><td><code>${r.server}</code></td><td>${r.timeline}</td><td><code>${r.first}</code></td><td><code>${r.last}</code></td><td>${r.what}</td></tr>`)}
</tbody></table></div>
<p>${page > 1 ? html`<a href="${link(page - 1)}">previous</a>` : ''} ${page < pages ? html`<a href="${link(page + 1)}">next</a>` : ''}</p></section>`;
  return layout('WAL browser', ctx, body);
}

function filterForm(ctx: PageContext, f: WalFilter | null): Raw {
  return html`<form method="get" action="/wals">${ctx.repository == null ? '' : html`<input type="hidden" name="repository" value="${ctx.repository}">`}
<label>Server<select name="server"><option value="">all</option>${ctx.scopes.map((v) => html`<option${f?.server === v.server ? raw(' selected') : ''}>${v.server}</option>`)}</select></label>
<label>Class<select name="class"><option value="">all</option>${WAL_CLASSES.map((c) => html`<option value="${c}"${f?.walClass === c ? raw(' selected') : ''}>${c === 'gap' ? 'gap (missing WAL only)' : c}</option>`)}</select></label>
<label>Timeline<input name="timeline" inputmode="numeric" size="6" value="${f?.timeline ?? ''}"></label>
<label>From WAL<input name="from" size="26" maxlength="24" value="${f?.from ?? ''}"></label>
<label>To WAL<input name="to" size="26" maxlength="24" value="${f?.to ?? ''}"></label>
<button type="submit">Filter</button></form>`;
}

export function rejectedFilterPage(ctx: PageContext, problems: readonly string[]): string {
  return layout('Filter rejected', ctx, html`<section class="error"><h2>Filter rejected</h2><p>Nothing was searched. Fix the filter:</p><ul>${problems.map((p) => html`<li>${p}</li>`)}</ul>${filterForm(ctx, null)}</section>`);
}
