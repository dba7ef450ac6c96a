/**
 * Published evidence as OpenMetrics text: the one metrics module of `viewer scan --output
 * openmetrics` and of the consumer console, which holds nothing but the wire snapshot and items.
 * Owns the metric names, their labels and what each series is derived from.
 *
 * Rules every series keeps:
 * - unknown evidence is an absent series, never 0: a collection the caller does not know (`null`),
 *   a `null` wire count or timestamp, an unknown details payload, an observation not made;
 * - every series carries `server` (the scope's name); the other labels are only `timeline`,
 *   `state`, `status`, `backup_id`, `stop`, `part`, `capability` and `reason`, and `version`,
 *   `format` and `provider` on `viewer_build_info`: values from closed sets or identifiers the wire already
 *   publishes (a reason is its bounded code, never its message; a version the wire's bounded
 *   pattern), never an object key, a destination or a fingerprint; beside them, two kinds of
 *   target labels, neither of which may be one of these (`OWN_LABELS`) or the other:
 *   - a scope's own labels (`MetricScope.labels`, say `repository` and `env` of one repository of a
 *     fleet), printed right after `server` on that scope's series; a family's label names are the
 *     union over the scopes, and a scope without one of them leaves it off its series;
 *   - the process-wide labels (`RenderExtras.labels`, `METRICS_LABELS`), validated by the
 *     configuration, printed after the scope labels on every series;
 * - scopes are distinct by their scope labels and server together: two repositories may each have
 *   a server `pg-main`;
 * - the same input gives the same bytes: families in one fixed order; within a family, scopes
 *   ordered by their scope-label values (the names in the order below, a missing label as the
 *   empty text, byte order), then by server, and the samples of a scope by their label values
 *   (prom-client prints in insertion order). The scope-label names are ordered by the earliest
 *   position any scope gives them, then by byte order, so the scopes' order does not matter;
 * - the text is prom-client's, from a registry of its own per render: nothing is formatted here.
 *
 * Coverage start (`viewer_recovery_coverage_start_timestamp_seconds{timeline}`): the oldest point
 * a usable backup's observed recovery path reaches on the newest timeline. The newest timeline is
 * the highest `target_timeline` of the recovery paths (every completed backup has a path to every
 * timeline after its own). Among the paths to it that stop at the `frontier` (the end of its
 * observed WAL) and start from a backup item whose state is healthy or warning (structurally
 * usable), the series is the earliest `lower_bound_at`: that backup's end, its consistency point,
 * as the path gives it (null, and left out, when its consistency is not observed). Absent when
 * the backups or the paths are unknown, or when no such path exists (no usable backup reaches the
 * newest WAL: ViewerNoCoverageToNewestWal's case): unknown, never 0. With the newest WAL receipt it
 * bounds the recovery window viewer observed; it says nothing about a restore succeeding.
 */
import { Gauge, Registry, type OpenMetricsContentType } from 'prom-client';
import type { BackupItem, RecoveryPathItem, WalGapItem, WalRangeItem } from '../contract/collections.ts';
import { CAPABILITY_IDS, COMPLETED_STATUS, GAP_STATUSES, isCompleted, PROVIDERS, RECOVERY_STOPS, STATES, SUMMARY_STATES, WIRE_BACKUP_STATUSES, WIRE_FORMATS } from '../contract/values.ts';
import { commonSummary, type CommonSummary } from '../contract/details-view.ts';
import type { Details, RepositoryEvidenceSnapshot } from '../contract/snapshot.ts';

/** The HTTP content type of the text `renderOpenMetrics` returns. */
export const OPENMETRICS_CONTENT_TYPE = Registry.OPENMETRICS_CONTENT_TYPE;

/**
 * The wire snapshot, its details optional: a consumer that meets a details type it does not know
 * keeps only the envelope (spec, Versioning rule 4), and then the series read from the payload
 * are absent.
 */
export type ScopeSnapshot = Omit<RepositoryEvidenceSnapshot, 'details'> & { readonly details?: Details | undefined };

/** What the caller measured beside the evidence; each absent or `null` value is an absent series. */
export interface ScopeObservations {
  /** The store's clock when the scan read it. */
  readonly storeTimeAtScan: Date | null;
  /** How far the newest archived WAL lags behind the store's clock at the scan. */
  readonly archiveLagSeconds: number | null;
  /** The configured `EXPECTED_MAX_ARCHIVE_LAG` in seconds; null or absent when not configured. */
  readonly expectedMaxArchiveLagSeconds?: number | null;
  /** How long the last scan attempt took, successful or not. */
  readonly scanDurationSeconds?: number;
  /**
   * Each gap's class, in the order of `walGaps` (the scan knows it; the wire does not carry it):
   * `retention-expected` is the hole the format's retention leaves, anything else is unexplained.
   */
  readonly gapClasses?: readonly string[];
}

/** One scope's published evidence. A `null` collection is unknown to the caller: its series are absent. */
export interface MetricScope {
  readonly snapshot: ScopeSnapshot;
  readonly backups: readonly BackupItem[] | null;
  /** Accepted so callers hand over a whole publication; no series is read from the ranges yet. */
  readonly walRanges: readonly WalRangeItem[] | null;
  readonly walGaps: readonly WalGapItem[] | null;
  readonly recoveryPaths: readonly RecoveryPathItem[] | null;
  readonly observations?: ScopeObservations;
  /**
   * This scope's own target labels (say `[['repository', 'prod-a'], ['env', 'prod']]` for one
   * repository of a fleet): `[name, value]` pairs its series carry after `server` and before the
   * process-wide `RenderExtras.labels`. Names are Prometheus label names, distinct, none of
   * `OWN_LABELS` nor of the process-wide ones; values are not empty.
   */
  readonly labels?: readonly (readonly [name: string, value: string])[];
}

/** Where the consumer console's evidence comes from stands in one of these. */
export const CONSUMER_SOURCE_STATES = ['available', 'unavailable', 'unknown'] as const;
export type ConsumerSourceState = (typeof CONSUMER_SOURCE_STATES)[number];

/** The consumer console's own series: the state of its source and the age of its projection. */
export interface ConsumerObservations {
  /** The scope the consumer reads, when it knows it; `null` leaves the `server` label off. */
  readonly server: string | null;
  readonly sourceState: ConsumerSourceState;
  /** Seconds since the consumer assembled its current projection; `null` without one. */
  readonly projectionAgeSeconds: number | null;
}

export interface RenderExtras {
  readonly consumer?: ConsumerObservations;
  /**
   * The target's identity (`METRICS_LABELS`): `[name, value]` pairs every sample carries, printed
   * after `server`. Validated by the configuration; a name this module uses itself is refused here.
   */
  readonly labels?: readonly (readonly [name: string, value: string])[];
}

type Labels = Readonly<Record<string, string>>;
interface Sample {
  readonly labels: Labels;
  readonly value: number;
}

/** One scope as the families read it: its server and the collections the wire rules let it know. */
interface ScopeView {
  readonly server: string;
  /** Its scope labels by name. */
  readonly labels: ReadonlyMap<string, string>;
  readonly scope: MetricScope;
  /** The details' common summary, whichever format wrote them; null when absent or of an unknown type. */
  readonly details: CommonSummary | null;
  readonly backups: readonly BackupItem[] | null;
  readonly walGaps: readonly WalGapItem[] | null;
  readonly recoveryPaths: readonly RecoveryPathItem[] | null;
}

interface Family {
  readonly name: string;
  readonly help: string;
  /** The labels beside `server`, in the order they are printed and sorted by. */
  readonly labels: readonly string[];
  readonly samples: (v: ScopeView) => readonly (readonly [values: readonly string[], value: number])[];
}

const one = (value: number | null | undefined) => (value === null || value === undefined || !Number.isFinite(value) ? [] : [[[], value] as const]);
const bool = (b: boolean) => (b ? 1 : 0);

/** A one-hot family: a series for each value of a closed set, 1 for the current one. */
const oneHot = <T extends string>(values: readonly T[], current: T, prefix: readonly string[] = []) =>
  values.map((v) => [[...prefix, v], bool(v === current)] as const);

/**
 * A wire timestamp as Unix seconds with all its fractional digits (up to nine; a Date would keep
 * only milliseconds). `null` for a text that is no wire timestamp: unknown, not a crash.
 */
function instant(ts: string | null | undefined): { readonly seconds: number; readonly nanos: number } | null {
  if (ts === null || ts === undefined) return null;
  const m = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d{1,9}))?Z$/.exec(ts);
  const ms = m?.[1] === undefined ? Number.NaN : Date.parse(`${m[1]}Z`);
  if (!Number.isFinite(ms)) return null;
  return { seconds: ms / 1000, nanos: Number((m?.[2] ?? '').padEnd(9, '0')) };
}

function unixSeconds(ts: string | null | undefined): number | null {
  const i = instant(ts);
  if (i === null) return null;
  // Parsed from the decimal text so a value prints as the wire wrote it, not as a float sum does.
  return i.seconds >= 0 ? Number(`${i.seconds}.${String(i.nanos).padStart(9, '0')}`) : i.seconds + i.nanos / 1e9;
}

function secondsBetween(from: string | null, to: string | null): number | null {
  const a = instant(from);
  const b = instant(to);
  // In whole nanoseconds first: a difference of two floats would print as 1.0000001.
  return a === null || b === null ? null : ((b.seconds - a.seconds) * 1e9 + (b.nanos - a.nanos)) / 1e9;
}

const countBy = <T, K extends string>(items: readonly T[], keys: readonly K[], key: (item: T) => K, weight: (item: T) => number = () => 1) =>
  keys.map((k) => [[k], items.reduce((n, item) => n + (key(item) === k ? weight(item) : 0), 0)] as const);

/** The recovery paths to the newest target timeline: the coverage a recovery of today would use. */
function newestTimelinePaths(paths: readonly RecoveryPathItem[]): readonly RecoveryPathItem[] {
  const newest = paths.reduce((n, p) => Math.max(n, p.target_timeline), 0);
  return paths.filter((p) => p.target_timeline === newest);
}

/**
 * The start of observed recovery coverage on the newest target timeline (module header): among the
 * recovery paths to the newest target timeline that stop at its `frontier`, those whose backup
 * item is structurally usable (state healthy or warning), the earliest `lower_bound_at` (the
 * backup's end, where it is consistent; null when its consistency is not observed). Null when the
 * backups or the paths are unknown or no path qualifies.
 */
function coverageStart(backups: readonly BackupItem[] | null, paths: readonly RecoveryPathItem[] | null): { readonly timeline: number; readonly at: number } | null {
  if (backups === null || paths === null) return null;
  const usable = new Set(backups.filter((b) => b.state === 'healthy' || b.state === 'warning').map((b) => b.backup_id));
  const starts = newestTimelinePaths(paths).flatMap((p) => {
    const at = p.stop === 'frontier' && usable.has(p.backup_id) ? unixSeconds(p.lower_bound_at) : null;
    return at === null ? [] : [{ timeline: p.target_timeline, at }];
  });
  return starts.reduce<{ readonly timeline: number; readonly at: number } | null>((a, b) => (a === null || b.at < a.at ? b : a), null);
}

/** The producer version as a label value: the wire's bounded pattern, anything else `unknown`. */
const PRODUCER_VERSION_PATTERN = /^[0-9A-Za-z][0-9A-Za-z.+-]{0,63}$/;
/** A label value from a closed set, or `unknown` for a value outside it (a newer producer). */
const closed = (values: readonly string[], v: string): string => (values.includes(v) ? v : 'unknown');

const FAMILIES: readonly Family[] = [
  {
    // What produced the evidence, the usual `_info` gauge: always 1, to join on by `server`.
    name: 'viewer_build_info',
    help: 'What produced the published evidence: the producer version the snapshot carries, the repository format and the object-store provider; always 1.',
    labels: ['version', 'format', 'provider'],
    samples: ({ scope: { snapshot: s } }) => {
      const version = PRODUCER_VERSION_PATTERN.test(s.producer.version) ? s.producer.version : 'unknown';
      const r = s.identity.repository;
      return [[[version, closed(WIRE_FORMATS, r.format), closed(PROVIDERS, r.provider)], 1] as const];
    },
  },
  {
    name: 'viewer_scan_success',
    help: '1 when the last scan attempt finished without a failure, 0 when it failed; absent before the first attempt.',
    labels: [],
    samples: ({ scope: { snapshot: s } }) => (s.last_attempt_at === null ? [] : one(bool(s.inventory.last_failure_category === null))),
  },
  {
    name: 'viewer_scan_duration_seconds',
    help: 'How long the scan of the published evidence generation took (completed_at minus started_at).',
    labels: [],
    samples: ({ scope: { snapshot: s } }) => one(secondsBetween(s.started_at, s.completed_at)),
  },
  {
    name: 'viewer_scan_attempt_duration_seconds',
    help: 'How long the last scan attempt took, successful or not, as the scanning process measured it.',
    labels: [],
    samples: ({ scope }) => one(scope.observations?.scanDurationSeconds),
  },
  {
    name: 'viewer_state',
    help: 'The state of the scope evidence: 1 for the current state, 0 for the others.',
    labels: ['state'],
    samples: ({ scope: { snapshot: s } }) => oneHot(STATES, s.state),
  },
  {
    // The reason beside the state, so an alert can say why and route by cause: one series, the
    // current state and its reason code (a bounded identifier, never the message).
    name: 'viewer_state_reason',
    help: 'The state of the scope evidence with its reason code: 1 for the current state and reason only.',
    labels: ['state', 'reason'],
    samples: ({ scope: { snapshot: s } }) => [[[s.state, s.reason.code], 1] as const],
  },
  {
    name: 'viewer_part_state_reason',
    help: 'The state of each part of the evidence (wal, timeline, coverage, retention) with its reason code: 1 for the current state and reason only; absent where the details payload is unknown.',
    labels: ['part', 'state', 'reason'],
    samples: ({ details }) => (details === null ? [] : SUMMARY_STATES.map((part) => [[part, details[part].state, details[part].reason.code], 1] as const)),
  },
  {
    // The nine capabilities of the snapshot (spec, Capability), each with its state and reason
    // code: the current one only, as viewer_state_reason. An id outside the closed list (a newer
    // producer) is `unknown`.
    name: 'viewer_capability_state',
    help: 'The state of each capability of the evidence (the snapshot\'s capabilities) with its reason code: 1 for the current state and reason only.',
    labels: ['capability', 'state', 'reason'],
    samples: ({ scope: { snapshot: s } }) => s.capabilities.map((c) => [[closed(CAPABILITY_IDS, typeof c.id === 'string' ? c.id : ''), closed(STATES, c.state), c.reason.code], 1] as const),
  },
  {
    name: 'viewer_stale',
    help: '1 when the published evidence is stale (a refresh failed or is overdue), else 0.',
    labels: [],
    samples: ({ scope: { snapshot: s } }) => one(bool(s.stale)),
  },
  {
    name: 'viewer_publication_revision',
    help: 'The revision of the publication; it advances with every published change.',
    labels: [],
    samples: ({ scope: { snapshot: s } }) => one(s.revision),
  },
  {
    name: 'viewer_evidence_generation',
    help: 'The generation of the published evidence: the number of complete scans; 0 before the first.',
    labels: [],
    samples: ({ scope: { snapshot: s } }) => one(s.evidence_generation),
  },
  {
    name: 'viewer_objects',
    help: 'Objects in the scope, counted exactly; absent while the inventory is not known.',
    labels: [],
    samples: ({ scope: { snapshot: s } }) => one(s.inventory.object_count),
  },
  {
    name: 'viewer_stored_bytes',
    help: 'Bytes stored in the scope, counted exactly; absent while the inventory is not known.',
    labels: [],
    samples: ({ scope: { snapshot: s } }) => one(s.inventory.stored_bytes),
  },
  {
    name: 'viewer_backups',
    help: 'Backups by state.',
    labels: ['state'],
    samples: ({ backups }) => (backups === null ? [] : countBy(backups, STATES, (b) => b.state)),
  },
  {
    // Backups that never completed (failed, interrupted) are noise, counted in viewer_backups
    // only. A completed (`COMPLETED_STATUS`) backup that is unhealthy or unknown is a backup
    // someone may restore from that viewer cannot prove usable. A backup whose status could not be
    // read is not counted here (it may or may not have completed); the scope's state carries it.
    name: 'viewer_completed_backups_not_usable',
    help: `Completed (${COMPLETED_STATUS}) backups not proven structurally usable (unhealthy or unknown); FAILED and interrupted backups are not counted.`,
    labels: [],
    samples: ({ backups }) => (backups === null ? [] : one(backups.filter((b) => isCompleted(b) && (b.state === 'unhealthy' || b.state === 'unknown')).length)),
  },
  {
    // Each backup's state beside its status, so completed (`COMPLETED_STATUS`) backups can be told
    // apart from failed, interrupted and unreadable ones: one series a backup, the current state
    // only. The status is the wire's closed set, `unknown` where it could not be read (null).
    name: 'viewer_backup_state',
    help: `The state of each backup with its status (${COMPLETED_STATUS}, FAILED, ...; unknown where it could not be read): 1 for the current state only.`,
    labels: ['backup_id', 'status', 'state'],
    samples: ({ backups }) => (backups ?? []).map((b) => [[b.backup_id, b.status === null ? 'unknown' : closed(WIRE_BACKUP_STATUSES, b.status), closed(STATES, b.state)], 1] as const),
  },
  {
    name: 'viewer_structurally_usable_backups',
    help: 'Backups proven structurally usable.',
    labels: [],
    samples: ({ details }) => one(details?.structurally_usable_backups),
  },
  {
    name: 'viewer_newest_backup_end_timestamp_seconds',
    help: 'When the newest completed backup ended (Unix seconds); absent without a completed backup.',
    labels: [],
    samples: ({ backups }) => {
      // Completed: the wire's one completed status, whatever the payload (contract/collections.ts).
      const ends = (backups ?? []).flatMap((b) => {
        const at = isCompleted(b) ? unixSeconds(b.end_at) : null;
        return at === null ? [] : [at];
      });
      return ends.length === 0 ? [] : one(ends.reduce((a, b) => Math.max(a, b)));
    },
  },
  {
    name: 'viewer_wal_gaps',
    help: 'Gaps in the archived WAL by status.',
    labels: ['status'],
    samples: ({ walGaps }) => (walGaps === null ? [] : countBy(walGaps, GAP_STATUSES, (g) => g.status)),
  },
  {
    name: 'viewer_wal_gaps_unexplained',
    help: 'Gaps in the archived WAL that the format\'s retention does not explain, by status; absent where gap classes are unknown (a consumer).',
    labels: ['status'],
    samples: ({ walGaps, scope }) => {
      const classes = scope.observations?.gapClasses;
      if (walGaps === null || classes?.length !== walGaps.length) return [];
      return countBy(walGaps.filter((_, i) => classes[i] !== 'retention-expected'), GAP_STATUSES, (g) => g.status);
    },
  },
  {
    name: 'viewer_wal_missing_segments',
    help: 'WAL segments missing inside the gaps, by gap status.',
    labels: ['status'],
    samples: ({ walGaps }) => (walGaps === null ? [] : countBy(walGaps, GAP_STATUSES, (g) => g.status, (g) => g.segment_count)),
  },
  {
    name: 'viewer_newest_wal_receipt_timestamp_seconds',
    help: 'When the store received the newest archived WAL (Unix seconds, provider receipt time, not transaction time).',
    labels: [],
    samples: ({ details }) => one(unixSeconds(details?.latest_archive_receipt_at)),
  },
  {
    name: 'viewer_store_time_at_scan_timestamp_seconds',
    help: 'The store clock when the scan read it (Unix seconds).',
    labels: [],
    samples: ({ scope }) => {
      const t = scope.observations?.storeTimeAtScan;
      return one(t === null || t === undefined ? null : t.getTime() / 1000);
    },
  },
  {
    name: 'viewer_archive_lag_seconds',
    help: 'How far the newest archived WAL lags behind the store clock at the scan.',
    labels: [],
    samples: ({ scope }) => one(scope.observations?.archiveLagSeconds),
  },
  {
    name: 'viewer_expected_max_archive_lag_seconds',
    help: 'The configured maximum archive lag (EXPECTED_MAX_ARCHIVE_LAG); absent when none is configured.',
    labels: [],
    samples: ({ scope }) => one(scope.observations?.expectedMaxArchiveLagSeconds),
  },
  {
    name: 'viewer_recovery_coverage_timestamp_seconds',
    help: 'Observed recovery coverage from a backup on the newest target timeline reaches WAL the store received at this time (Unix seconds; provider receipt time, not transaction time).',
    labels: ['backup_id', 'timeline'],
    samples: ({ recoveryPaths }) =>
      newestTimelinePaths(recoveryPaths ?? []).flatMap((p) => {
        const at = unixSeconds(p.frontier_receipt_at);
        return at === null ? [] : [[[p.backup_id, String(p.target_timeline)], at] as const];
      }),
  },
  {
    // The start of the recovery window a restore of today could use (module header, "Coverage start").
    name: 'viewer_recovery_coverage_start_timestamp_seconds',
    help: 'The start of observed recovery coverage on the newest target timeline: the earliest consistency point (lower_bound_at, the backup\'s end) of a structurally usable backup whose path reaches that timeline\'s frontier (Unix seconds); absent when no such path is known.',
    labels: ['timeline'],
    samples: ({ backups, recoveryPaths }) => {
      const start = coverageStart(backups, recoveryPaths);
      return start === null ? [] : [[[String(start.timeline)], start.at] as const];
    },
  },
  {
    name: 'viewer_recovery_path_state',
    help: 'The state of the observed recovery coverage from each backup on the newest target timeline: 1 for the current state.',
    labels: ['backup_id', 'timeline', 'state'],
    samples: ({ recoveryPaths }) => newestTimelinePaths(recoveryPaths ?? []).flatMap((p) => oneHot(STATES, p.state, [p.backup_id, String(p.target_timeline)])),
  },
  {
    name: 'viewer_recovery_path_stop',
    help: 'What ends the observed recovery coverage from each backup on the newest target timeline: 1 for the current stop.',
    labels: ['backup_id', 'timeline', 'stop'],
    samples: ({ recoveryPaths }) => newestTimelinePaths(recoveryPaths ?? []).flatMap((p) => oneHot(RECOVERY_STOPS, p.stop, [p.backup_id, String(p.target_timeline)])),
  },
];

/** Every label name this module prints itself; target labels must be others. */
export const OWN_LABELS: ReadonlySet<string> = new Set(['server', 'state', ...FAMILIES.flatMap((f) => f.labels)]);

const CONSUMER_FAMILIES = {
  state: { name: 'viewer_consumer_source_state', help: 'The state of the consumer source: 1 for the current state, 0 for the others.' },
  age: { name: 'viewer_consumer_projection_age_seconds', help: 'Seconds since the consumer assembled its current projection.' },
} as const;

/** Byte order of label values, so the text does not depend on a locale. */
function compareValues(a: readonly string[], b: readonly string[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const x = a[i] ?? '';
    const y = b[i] ?? '';
    if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
}

function viewOf(scope: MetricScope): ScopeView {
  const s = scope.snapshot;
  // Generation 0 has no complete evidence: whatever arrays a caller holds then are not known ones.
  const known = <T>(items: readonly T[] | null) => (s.evidence_generation === 0 ? null : items);
  return {
    server: s.identity.repository.scope.name,
    labels: new Map(scope.labels ?? []),
    scope,
    details: commonSummary(s.details),
    backups: known(scope.backups),
    walGaps: known(scope.walGaps),
    recoveryPaths: known(scope.recoveryPaths),
  };
}

function gauge(registry: Registry<OpenMetricsContentType>, name: string, help: string, labelNames: readonly string[], samples: readonly Sample[]): void {
  if (samples.length === 0) return; // an unknown family is left out, never printed empty or as 0
  const g = new Gauge({ name, help, labelNames, registers: [registry] });
  for (const { labels, value } of samples) g.set(labels, value);
}

/** A Prometheus label name that is not reserved for Prometheus's own use (`__` prefix). */
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const validLabelName = (n: string) => LABEL_NAME.test(n) && !n.startsWith('__');

/**
 * The scope-label names over all scopes, ordered by the earliest position any scope gives a name,
 * then by byte order: independent of the order of the scopes. Refuses a scope whose labels are
 * not valid, repeat a name, take one of `OWN_LABELS` or of the process-wide `targetNames`, or
 * have an empty value (which would print like a missing label).
 */
function scopeLabelNames(scopes: readonly MetricScope[], targetNames: ReadonlySet<string>): string[] {
  const position = new Map<string, number>();
  for (const scope of scopes) {
    const labels = scope.labels ?? [];
    const names = labels.map(([n]) => n);
    if (new Set(names).size !== names.length) throw new Error('a metric scope\'s labels must be distinct');
    labels.forEach(([name, value], i) => {
      if (!validLabelName(name)) throw new Error(`a metric scope's label ${i + 1} is not a Prometheus label name`);
      if (OWN_LABELS.has(name) || targetNames.has(name)) throw new Error(`a metric scope's label ${name} is one of the metrics module's own or of the target labels`);
      if (value === '') throw new Error(`a metric scope's label ${name} has an empty value`);
      position.set(name, Math.min(position.get(name) ?? i, i));
    });
  }
  return [...position].sort(([a, i], [b, j]) => i - j || (a < b ? -1 : a > b ? 1 : 0)).map(([n]) => n);
}

/**
 * The OpenMetrics text of the scopes' published evidence, plus the consumer's own series when
 * given. Scopes must be distinct by their scope labels and server together.
 */
export async function renderOpenMetrics(scopes: readonly MetricScope[], extra: RenderExtras = {}): Promise<string> {
  const target = extra.labels ?? [];
  const targetNames = target.map(([name]) => name);
  if (targetNames.some((n) => OWN_LABELS.has(n) || !validLabelName(n)) || new Set(targetNames).size !== targetNames.length) throw new Error('target labels must be distinct and none of the metrics module\'s own');
  const scopeNames = scopeLabelNames(scopes, new Set(targetNames));
  const key = (v: ScopeView) => [...scopeNames.map((n) => v.labels.get(n) ?? ''), v.server];
  const views = scopes.map(viewOf).sort((a, b) => compareValues(key(a), key(b)));
  for (let i = 1; i < views.length; i++) {
    const [a, b] = [views[i - 1], views[i]];
    if (a !== undefined && b !== undefined && compareValues(key(a), key(b)) === 0) throw new Error(`two metric scopes name the server ${b.server} with the same scope labels`);
  }
  const registry = new Registry<OpenMetricsContentType>();
  registry.setContentType(Registry.OPENMETRICS_CONTENT_TYPE);
  for (const f of FAMILIES) {
    const samples = views.flatMap((v) => {
      // The scope's own labels in the names' order; one it lacks is left off, never printed empty.
      const own = scopeNames.flatMap((n) => (v.labels.has(n) ? [[n, v.labels.get(n) ?? '']] : []));
      return [...f.samples(v)]
        .sort((a, b) => compareValues(a[0], b[0]))
        .map(([values, value]) => ({ labels: Object.fromEntries([['server', v.server], ...own, ...target, ...f.labels.map((l, i) => [l, values[i] ?? ''])]) as Labels, value }));
    });
    gauge(registry, f.name, f.help, ['server', ...scopeNames, ...targetNames, ...f.labels], samples);
  }
  const c = extra.consumer;
  if (c !== undefined) {
    const server: Labels = { ...(c.server === null ? {} : { server: c.server }), ...Object.fromEntries(target) };
    const states = [...CONSUMER_SOURCE_STATES].sort().map((state) => ({ labels: { ...server, state }, value: bool(state === c.sourceState) }));
    gauge(registry, CONSUMER_FAMILIES.state.name, CONSUMER_FAMILIES.state.help, ['server', ...targetNames, 'state'], states);
    const age = c.projectionAgeSeconds;
    gauge(registry, CONSUMER_FAMILIES.age.name, CONSUMER_FAMILIES.age.help, ['server', ...targetNames], age === null || !Number.isFinite(age) ? [] : [{ labels: server, value: age }]);
  }
  const text = await registry.metrics();
  // prom-client joins the families and appends `\n# EOF\n`: with none, that is a blank first line,
  // which OpenMetrics does not allow.
  return text === '\n# EOF\n' ? '# EOF\n' : text;
}
