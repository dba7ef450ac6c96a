/**
 * The structural state of each backup: the format's verdict on its metadata and artifacts (the
 * seam's `FormatBackup`), completed by the rule that is PostgreSQL's and no format's: the WAL the
 * backup needs to reach consistency (`begin_wal`..`end_wal` on its timeline) must be present in
 * the archive, under the archive's geometry, and attributable to the backup's database system. The rules run in a fixed order and the first that
 * applies decides; docs/design/evidence.md §Backups lists them with their reason codes.
 *
 * Then the dependency-chain rule, for formats whose backups need others' artifacts (`dependsOn`):
 * a backup is no more usable than the artifacts of every backup it depends on. A dependency the
 * catalog does not hold makes it unhealthy (`dependency-missing`); a dependency whose artifacts
 * are broken or unknown (the format's verdict before WAL, and that backup's own chain) makes it
 * unhealthy or unknown alike (`dependency-not-usable`). The more severe of the backup's own verdict
 * and its chain's decides. A dependency's own consistency WAL plays no part: restoring the
 * dependent replays from the dependent's own begin.
 */
import type { BackupItem } from '../contract/collections.ts';
import type { Reason, State } from '../contract/primitives.ts';
import type { BackupLabel, FormatBackup, FormatVerdict, Shelf } from '../format/seam.ts';
import { nextPosition, parseWalName, type WalGeometry } from '../postgres/wal.ts';
import type { WalIndex } from './wal-index.ts';

export interface BackupFacts {
  readonly item: BackupItem;
  /** Proven structurally usable (state healthy or warning). */
  readonly usable: boolean;
  /** The format recorded the backup as completed. */
  readonly completed: boolean;
  /** Completed, or its status cannot be read: the summaries count it as completed. */
  readonly mayHaveCompleted: boolean;
  readonly standalone: boolean;
  readonly timeline: number | null;
  readonly beginPosition: number | null;
  readonly endPosition: number | null;
  readonly endLsn: bigint | null;
  readonly endAt: string | null;
  /** Begin time as the wire item has it (RFC 3339), or null. */
  readonly beginAt: string | null;
  /** Where the operator's catalog shows it. */
  readonly shelf: Shelf;
  /** What operators know it by (its name, its keep), as the format reads it: pages only, never the wire. */
  readonly label: BackupLabel;
  /** Its dependency chain: healthy when every backup it depends on is usable, else the chain's state; null when it depends on none. */
  readonly chain: State | null;
  /**
   * The backups it depends on, in the format's order, each with how its artifacts stand as a
   * dependency (its format's verdict before WAL and its own chain); `null` when the catalog does not
   * hold it. For the operator's pages: the wire carries no chain.
   */
  readonly dependsOn: readonly { readonly id: string; readonly state: State | null }[];
}

export interface BackupContext {
  readonly server: string;
  /** The archive's geometry when it is known and agreed by the metadata; `null` otherwise. */
  readonly geometry: WalGeometry | null;
  readonly index: WalIndex;
  /** More than one database system id in the scope: no WAL can be attributed to this backup's system. */
  readonly systemAmbiguous?: boolean;
  /** A timeline with no archived segment: `lost` once the store's clock says its first should be there. */
  readonly unarchived?: (timeline: number) => 'lost' | 'not-yet' | null;
}

const REASONS = {
  'wal-geometry-unknown': 'The archive WAL segment size is not known, so required WAL cannot be checked.',
  'segment-size-conflict': 'The backup declares a WAL segment size the archive does not use.',
  'required-wal-missing': 'WAL needed to reach consistency is missing from the archive.',
  'required-wal-candidate-gap': 'WAL needed to reach consistency falls in an unconfirmed gap.',
  'required-wal-not-yet-archived': 'WAL needed to reach consistency has not been archived yet.',
  'required-wal-system-ambiguous': 'WAL of more than one database system shares this location, so the WAL this backup needs cannot be attributed to it.',
  'dependency-missing': 'A backup this one depends on is missing.',
  'dependency-not-usable': 'A backup this one depends on is not proven structurally usable.',
} as const;

const SEVERITY: Record<State, number> = { healthy: 0, warning: 1, unknown: 2, unhealthy: 3 };

const verdict = (state: State, code: keyof typeof REASONS): FormatVerdict => ({ state, code, message: REASONS[code] });

/** Rules 17–19: every position from `begin` to `end` on `timeline` observed. */
function walVerdict(begin: number, end: number, timeline: number, index: WalIndex, g: WalGeometry, lost: boolean): FormatVerdict | null {
  let position = begin;
  while (position <= end) {
    const range = index.rangeAt(timeline, position);
    if (range !== null) {
      position = nextPosition(range.end, g);
      continue;
    }
    const absence = index.absence(timeline, position);
    // Beyond what was observed: not archived yet, unless the timeline archived nothing for an hour.
    if (absence.kind === 'beyond-observed') return lost ? verdict('unhealthy', 'required-wal-missing') : verdict('unknown', 'required-wal-not-yet-archived');
    if (absence.kind === 'gap' && absence.gap.status === 'candidate') return verdict('unknown', 'required-wal-candidate-gap');
    return verdict('unhealthy', 'required-wal-missing');
  }
  return null;
}

/** Rules 15–23 after the format's: the archive's geometry, the WAL needed, then the format's warnings. */
function judge(b: FormatBackup, ctx: BackupContext): FormatVerdict {
  if (b.decided !== null) return b.decided;
  if (ctx.geometry === null) return verdict('unknown', 'wal-geometry-unknown');
  if (b.fields.wal_segment_size_bytes !== ctx.geometry.segmentSize) return verdict('unknown', 'segment-size-conflict');
  const begin = b.fields.begin_wal === null ? null : parseWalName(b.fields.begin_wal, ctx.geometry);
  const end = b.fields.end_wal === null ? null : parseWalName(b.fields.end_wal, ctx.geometry);
  if (begin === null || end === null || b.fields.timeline === null) return b.unplaceable;
  // A segment of the right name may be another system's (a failed capability makes its dependants unknown).
  if (ctx.systemAmbiguous === true) return verdict('unknown', 'required-wal-system-ambiguous');
  const lost = ctx.unarchived?.(b.fields.timeline) === 'lost';
  return walVerdict(begin.position, end.position, b.fields.timeline, ctx.index, ctx.geometry, lost) ?? b.otherwise;
}

/**
 * How each backup's artifacts stand as a dependency (its format's verdict before WAL, and its own
 * chain), worked out once per backup: a chain of n incremental backups, each naming all earlier
 * ones, costs n² steps, not 2ⁿ. The catalog's backups never change, so the memory is keyed on them.
 */
const artifactStates = new WeakMap<FormatBackup, State | 'pending'>();

function artifactState(b: FormatBackup): State {
  const known = artifactStates.get(b);
  // A cycle (no format writes one) proves nothing usable.
  if (known === 'pending') return 'unknown';
  if (known !== undefined) return known;
  artifactStates.set(b, 'pending');
  const own = b.decided?.state ?? 'healthy';
  const chain = chainVerdict(b)?.state ?? 'healthy';
  const s = SEVERITY[chain] > SEVERITY[own] ? chain : own;
  artifactStates.set(b, s);
  return s;
}

/** The chain's verdict: null when every dependency is usable (or there is none), else the most severe finding. */
function chainVerdict(b: FormatBackup): FormatVerdict | null {
  let found: FormatVerdict | null = null;
  for (const d of b.dependsOn) {
    let v: FormatVerdict | null;
    if (d.backup === null) v = verdict('unhealthy', 'dependency-missing');
    else {
      const s = artifactState(d.backup);
      v = s === 'healthy' || s === 'warning' ? null : verdict(s, 'dependency-not-usable');
    }
    if (v !== null && (found === null || SEVERITY[v.state] > SEVERITY[found.state])) found = v;
  }
  return found;
}

export function evaluateBackup(b: FormatBackup, ctx: BackupContext): BackupFacts {
  const own = judge(b, ctx);
  const chain = chainVerdict(b);
  const v = chain !== null && SEVERITY[chain.state] > SEVERITY[own.state] ? chain : own;
  const reason: Reason = { code: v.code, message: v.message };
  const { backup_id, status, backup_type, ...rest } = b.fields;
  // In the wire's field order: documents that are not canonically serialised keep it too.
  const item: BackupItem = {
    server: ctx.server,
    backup_id,
    status,
    backup_type,
    // The wire rule: an unknown backup type forces the state to unknown, whatever else is known.
    state: backup_type === null ? 'unknown' : v.state,
    reason,
    ...rest,
  };
  const positions = ctx.geometry !== null && b.fields.wal_segment_size_bytes === ctx.geometry.segmentSize ? ctx.geometry : null;
  const begin = positions === null || b.fields.begin_wal === null ? null : parseWalName(b.fields.begin_wal, positions);
  const end = positions === null || b.fields.end_wal === null ? null : parseWalName(b.fields.end_wal, positions);
  const usable = item.state === 'healthy' || item.state === 'warning';
  return {
    item,
    usable,
    completed: b.completed,
    mayHaveCompleted: b.mayHaveCompleted || b.completed,
    standalone: b.standalone,
    timeline: b.trusted.timeline,
    beginPosition: begin?.position ?? null,
    endPosition: end?.position ?? null,
    endLsn: b.trusted.endLsn,
    endAt: b.trusted.endAt,
    beginAt: item.begin_at,
    shelf: v.shelf ?? (usable ? 'completed' : 'structurally incomplete'),
    label: b.label,
    chain: b.dependsOn.length === 0 ? null : (chain?.state ?? 'healthy'),
    dependsOn: b.dependsOn.map((d) => ({ id: d.id, state: d.backup === null ? null : artifactState(d.backup) })),
  };
}
