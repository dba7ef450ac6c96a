/**
 * The states of one scope's evidence: WAL continuity, timeline history, observed recovery
 * coverage, the retention comparison, the nine capabilities and the conservative top-level state.
 * Each rule is listed with its reason code in docs/design/evidence.md §States; the order of the
 * checks is the order of that list. Staleness and generation-0 rules are applied later, by the
 * publication, which alone knows the publication history.
 */
import type { Reason, State, StateReason } from '../contract/primitives.ts';
import { CAPABILITY_IDS, type Capability, type RetentionSummary, type StateCounts } from '../contract/snapshot.ts';
import type { RetentionPolicy } from '../format/barman-cloud/retention-policy.ts';
import type { ScopeEvidence } from './scope-scan.ts';

export interface Expectations {
  readonly policyText: string | null;
  readonly policy: RetentionPolicy | null;
  readonly minimumRedundancy: number | null;
}

const MESSAGES: Record<string, string> = {
  'wal-segment-size-unknown': 'No backup declares the WAL segment size, so continuity cannot be judged.',
  'wal-segment-size-conflict': 'Backups declare different WAL segment sizes or numbering.',
  'multiple-system-ids': 'Backups of more than one database system share this server prefix.',
  'ranges-truncated': 'The scan stopped holding WAL ranges at its safety ceiling.',
  'diagnostics-truncated': 'The scan stopped retaining backup or timeline findings at its safety ceiling.',
  'wal-archive-empty': 'No WAL segment is archived.',
  'wal-gap-confirmed': 'A confirmed gap interrupts the archived WAL, and Barman\'s retention does not explain it.',
  'wal-gap-candidate': 'A gap interrupts the archived WAL; it is not yet confirmed, and Barman\'s retention does not explain it.',
  'wal-segment-size-invalid': 'Objects named as WAL segments have a size no segment can have; their positions count as missing.',
  'wal-unknown-objects': 'The WAL area holds objects Barman does not write.',
  'wal-continuous': 'Archived WAL has no gap between the first and last segment of any timeline.',
  'wal-continuous-except-retention': 'Archived WAL is continuous except for holes with exactly the shape Barman\'s retention leaves.',
  'scope-empty': 'Nothing was found at this server\'s location: no backup directory and no WAL.',
  'timeline-history-missing': 'A timeline has no history file.',
  'timeline-history-invalid': 'A timeline history file is unreadable or inconsistent.',
  'timelines-consistent': 'Every timeline has a consistent history.',
  'no-usable-backup': 'No backup is proven structurally usable.',
  'latest-timeline-not-covered': 'No usable backup has a recovery path to the newest timeline.',
  'coverage-to-frontier': 'A usable backup is covered by WAL up to the newest observed segment.',
  'coverage-candidate-limited': 'Recovery coverage of the newest timeline stops at an unconfirmed gap.',
  'coverage-gap-limited': 'Recovery coverage of the newest timeline stops at missing WAL.',
  'coverage-unknown-limited': 'Recovery coverage of the newest timeline stops where history is unknown.',
  'no-expectation-configured': 'No retention expectation is configured.',
  'retention-policy-unrecognized': 'The configured retention policy is not in a recognised syntax.',
  'minimum-redundancy-not-met': 'Fewer structurally usable backups than the configured minimum.',
  'redundancy-policy-not-met': 'Fewer structurally usable backups than the retention policy asks for.',
  'recovery-window-not-covered': 'No usable backup covers the configured recovery window.',
  'retention-met': 'Structurally usable backups meet the configured expectations.',
  'latest-backup-not-usable': 'The newest backup is not proven structurally usable.',
  'older-backup-not-usable': 'A completed backup other than the newest is not proven structurally usable.',
  'backups-usable': 'Every completed backup is proven structurally usable.',
  'completed-backup-unhealthy': 'A completed backup is structurally broken.',
  'completed-backup-unknown': 'A completed backup could not be proven structurally usable.',
  'completed-backup-warning': 'A completed backup is usable but carries a warning.',
  'evidence-healthy': 'The evidence shows no problem.',
  'not-in-format': 'The format has no such artifact.',
  'inventory-exact': 'Objects and bytes are counted exactly.',
  'catalog-complete': 'Every backup directory has readable metadata.',
  'catalog-incomplete': 'Some backup directories have no readable metadata.',
};

const sr = (state: State, code: string): StateReason => ({ state, reason: { code, message: MESSAGES[code] ?? code } });
export const reasonFor = (code: string): Reason => ({ code, message: MESSAGES[code] ?? code });

const SEVERITY: Record<State, number> = { healthy: 0, warning: 1, unknown: 2, unhealthy: 3 };
/** The most severe of several verdicts; ties keep the first (the order is the priority). */
export function worst(items: readonly StateReason[]): StateReason {
  return items.reduce((a, b) => (SEVERITY[b.state] > SEVERITY[a.state] ? b : a));
}

function walState(e: ScopeEvidence): StateReason {
  if (e.empty) return sr('unknown', 'scope-empty');
  if (e.geometryIssue === 'unknown') return sr('unknown', 'wal-segment-size-unknown');
  if (e.geometryIssue === 'conflict') return sr('unknown', 'wal-segment-size-conflict');
  if (e.systemIds.size > 1) return sr('unknown', 'multiple-system-ids');
  if (e.rangesTruncated) return sr('unknown', 'ranges-truncated');
  if (e.walCounts.segment === 0) return sr('unknown', 'wal-archive-empty');
  // Every gap counts but a hole with exactly the shape Barman's retention leaves (retention-holes.ts).
  const unexplained = e.gaps.filter((_, i) => e.gapClasses[i] !== 'retention-expected');
  if (unexplained.some((g) => g.status === 'confirmed')) return sr('unhealthy', 'wal-gap-confirmed');
  if (unexplained.length > 0) return sr('warning', 'wal-gap-candidate');
  if (e.implausibleSegments > 0) return sr('warning', 'wal-segment-size-invalid');
  if (e.walCounts.unknown > 0) return sr('warning', 'wal-unknown-objects');
  return e.gaps.length > 0 ? sr('healthy', 'wal-continuous-except-retention') : sr('healthy', 'wal-continuous');
}

function timelineState(e: ScopeEvidence): StateReason {
  if (e.diagnosticsTruncated) return sr('unknown', 'diagnostics-truncated');
  if (e.empty) return sr('unknown', 'scope-empty');
  const unknown = e.graph.unknownTimelines().map((t) => e.graph.ancestry(t));
  if (unknown.some((a) => !a.known && a.reason === 'history-missing')) return sr('unhealthy', 'timeline-history-missing');
  if (unknown.length > 0) return sr('unhealthy', 'timeline-history-invalid');
  return sr('healthy', 'timelines-consistent');
}

function coverageState(e: ScopeEvidence): StateReason {
  if (e.rangesTruncated) return sr('unknown', 'ranges-truncated');
  if (e.diagnosticsTruncated) return sr('unknown', 'diagnostics-truncated');
  if (e.empty) return sr('unhealthy', 'scope-empty');
  const usable = new Set(e.backups.filter((b) => b.usable).map((b) => b.item.backup_id));
  if (usable.size === 0) return sr('unhealthy', 'no-usable-backup');
  const walTimelines = e.ranges.map((r) => r.timeline);
  const newest = walTimelines.length === 0 ? null : walTimelines.reduce((a, b) => Math.max(a, b));
  // A standalone backup's path that stops at a retention hole is what keep:standalone promises:
  // it neither covers the frontier nor counts against the paths that do.
  const paths = e.paths.filter((p) => usable.has(p.backup_id) && p.target_timeline === newest && p.reason.code !== 'standalone-retention-limited');
  if (paths.length === 0) return sr('unhealthy', 'latest-timeline-not-covered');
  const rank = { frontier: 0, 'candidate-limited': 1, 'unknown-limited': 2, 'gap-limited': 3 } as const;
  const best = paths.reduce((a, b) => (rank[b.stop] < rank[a.stop] ? b : a));
  if (best.stop === 'frontier' && best.state === 'healthy') return sr('healthy', 'coverage-to-frontier');
  if (best.stop === 'candidate-limited' || best.stop === 'frontier') return sr('warning', 'coverage-candidate-limited');
  if (best.stop === 'unknown-limited') return sr('unknown', 'coverage-unknown-limited');
  return sr('unhealthy', 'coverage-gap-limited');
}

const DAY_MS = 86_400_000;
const WINDOW_MS = { days: DAY_MS, weeks: 7 * DAY_MS, months: 31 * DAY_MS } as const;

function retention(e: ScopeEvidence, x: Expectations, now: number, coverage: StateReason): RetentionSummary {
  const completed = e.backups.filter((b) => b.completed);
  const usable = e.backups.filter((b) => b.usable);
  const ends = completed.flatMap((b) => (b.endAt === null ? [] : [b.endAt])).sort();
  const base = {
    visible_backups: completed.length,
    structurally_usable_backups: usable.length,
    oldest_completion_at: ends[0] ?? null,
    newest_completion_at: ends.at(-1) ?? null,
    minimum_configured: x.minimumRedundancy !== null,
    policy_configured: x.policyText !== null,
    minimum_redundancy: x.minimumRedundancy,
  };
  let verdict: StateReason;
  if (e.diagnosticsTruncated) verdict = sr('unknown', 'diagnostics-truncated');
  else if (x.policyText === null && x.minimumRedundancy === null) verdict = sr('unknown', 'no-expectation-configured');
  // The spec: a configured but unrecognized policy forces `unknown`, whatever else is configured.
  else if (x.policyText !== null && x.policy === null) verdict = sr('unknown', 'retention-policy-unrecognized');
  else if (x.minimumRedundancy !== null && usable.length < x.minimumRedundancy) verdict = sr('unhealthy', 'minimum-redundancy-not-met');
  else if (x.policy?.kind === 'redundancy' && usable.length < x.policy.count) verdict = sr('warning', 'redundancy-policy-not-met');
  else if (x.policy?.kind === 'recovery-window') {
    const pointOfRecoverability = now - x.policy.amount * WINDOW_MS[x.policy.unit];
    const covers = usable.some((b) => b.endAt !== null && Date.parse(b.endAt) <= pointOfRecoverability);
    verdict = covers && coverage.state === 'healthy' ? sr('healthy', 'retention-met') : sr('warning', 'recovery-window-not-covered');
  } else verdict = sr('healthy', 'retention-met');
  return { ...base, ...verdict };
}

/**
 * The backups' part of the top level (D-58): none usable is unhealthy; the newest backup not
 * usable, or any other completed backup not usable, is a warning: recovery from a newer usable
 * backup is judged by coverage, and the structural capability carries the worst backup itself.
 */
function backupsState(e: ScopeEvidence): StateReason {
  if (e.empty) return sr('unhealthy', 'scope-empty');
  const usable = e.backups.filter((b) => b.usable);
  if (usable.length === 0) return sr('unhealthy', 'no-usable-backup');
  const newest = [...e.backups].filter((b) => b.item.begin_at !== null).sort((a, b) => ((a.item.begin_at ?? '') < (b.item.begin_at ?? '') ? -1 : 1)).at(-1);
  if (newest !== undefined && !newest.usable) return sr('warning', 'latest-backup-not-usable');
  if (e.backups.some((b) => b.completed && !b.usable)) return sr('warning', 'older-backup-not-usable');
  return sr('healthy', 'backups-usable');
}

/** Structural artifact validation: never healthier than the worst completed backup it summarises. */
function structuralState(e: ScopeEvidence): StateReason {
  if (e.empty) return sr('unknown', 'scope-empty');
  if (!e.backups.some((b) => b.usable)) return sr('unhealthy', 'no-usable-backup');
  const states = new Set(e.backups.filter((b) => b.completed).map((b) => b.item.state));
  if (states.has('unhealthy')) return sr('unhealthy', 'completed-backup-unhealthy');
  if (states.has('unknown')) return sr('unknown', 'completed-backup-unknown');
  if (states.has('warning')) return sr('warning', 'completed-backup-warning');
  return sr('healthy', 'backups-usable');
}

export interface ScopeSummary {
  readonly wal: StateReason;
  readonly timeline: StateReason;
  readonly coverage: StateReason;
  readonly retention: RetentionSummary;
  readonly backupStates: StateCounts;
  readonly structurallyUsable: number;
  readonly capabilities: Capability[];
  readonly top: StateReason;
}

export function summarize(e: ScopeEvidence, x: Expectations, now: number): ScopeSummary {
  const wal = walState(e);
  const timeline = timelineState(e);
  const coverage = coverageState(e);
  const ret = retention(e, x, now, coverage);
  const backups = backupsState(e);
  const backupStates: StateCounts = { healthy: 0, warning: 0, unhealthy: 0, unknown: 0 };
  for (const b of e.backups) backupStates[b.item.state] += 1;
  const catalog = e.empty ? sr('unknown', 'scope-empty') : e.backups.every((b) => b.item.status !== null) ? sr('healthy', 'catalog-complete') : sr('warning', 'catalog-incomplete');
  const structural = structuralState(e);
  const supported = (s: StateReason) => ({ support: 'supported' as const, ...s });
  const unsupported = { support: 'unsupported' as const, ...sr('unknown', 'not-in-format') };
  const byId: Record<(typeof CAPABILITY_IDS)[number], Omit<Capability, 'id'>> = {
    'catalog-listing': supported(catalog),
    'dependency-chain-validation': unsupported,
    'encrypted-metadata': unsupported,
    'object-inventory': supported(sr('healthy', 'inventory-exact')),
    'observed-recovery-coverage': supported(coverage),
    'retention-expectation-comparison': supported({ state: ret.state, reason: ret.reason }),
    'structural-artifact-validation': supported(structural),
    'timeline-history-traversal': supported(timeline),
    'wal-continuity': supported(wal),
  };
  const capabilities = CAPABILITY_IDS.map((id) => ({ id, ...byId[id] }));
  const retentionConfigured = x.policyText !== null || x.minimumRedundancy !== null;
  const verdicts = [backups, wal, timeline, coverage, ...(retentionConfigured ? [{ state: ret.state, reason: ret.reason }] : [])];
  const top = worst(verdicts);
  return {
    wal,
    timeline,
    coverage,
    retention: ret,
    backupStates,
    structurallyUsable: e.backups.filter((b) => b.usable).length,
    capabilities,
    top: top.state === 'healthy' ? sr('healthy', 'evidence-healthy') : top,
  };
}
