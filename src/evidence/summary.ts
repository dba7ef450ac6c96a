/**
 * The states of one scope's evidence: WAL continuity, timeline history, observed recovery
 * coverage, the retention comparison, the nine capabilities and the conservative top-level state.
 * Each rule is listed with its reason code in docs/design/evidence.md §States; the order of the
 * checks is the order of that list. Staleness and generation-0 rules are applied later, by the
 * publication, which alone knows the publication history.
 */
import type { Reason, State, StateReason } from '../contract/primitives.ts';
import type { Capability, RetentionSummary, StateCounts } from '../contract/snapshot.ts';
import { CAPABILITY_IDS, type CapabilityId } from '../contract/values.ts';
import type { RepositoryFormat, RetentionPolicy } from '../format/seam.ts';
import { RECEIPT_CLOCK_TOLERANCE_MS } from './gaps.ts';
import type { ScopeEvidence } from './scope-scan.ts';

export interface Expectations {
  readonly policyText: string | null;
  readonly policy: RetentionPolicy | null;
  readonly minimumRedundancy: number | null;
  /** `EXPECTED_MAX_ARCHIVE_LAG` in seconds; null: the lag is shown, never judged. */
  readonly maxArchiveLagSeconds?: number | null;
}

export const MESSAGES: Record<string, string> = {
  'wal-segment-size-unknown': 'No backup declares the WAL segment size, so continuity cannot be judged.',
  'wal-segment-size-conflict': 'Backups declare different WAL segment sizes or numbering.',
  'multiple-system-ids': 'Backups of more than one database system share this server prefix.',
  'ranges-truncated': 'The scan stopped holding WAL ranges at its safety ceiling.',
  'diagnostics-truncated': 'The scan stopped retaining backup or timeline findings at its safety ceiling.',
  'wal-archive-empty': 'No WAL segment is archived.',
  'wal-gap-confirmed': 'A confirmed gap interrupts the archived WAL, and {tool}\'s retention does not explain it.',
  'wal-gap-candidate': 'A gap interrupts the archived WAL; it is not yet confirmed, and {tool}\'s retention does not explain it.',
  'wal-segment-size-invalid': 'Objects named as WAL segments have a size no segment can have; their positions count as missing.',
  'wal-unknown-objects': 'The WAL area holds objects {tool} does not write.',
  'wal-continuous': 'Archived WAL has no gap between the first and last segment of any timeline.',
  'wal-frontier-regressed': 'WAL seen at the newest end of a timeline in an earlier scan is gone, and no backup was deleted since.',
  'wal-gap-vanished': 'WAL confirmed missing in an earlier scan is still missing, and the WAL around it is gone too.',
  'wal-continuous-except-retention': 'Archived WAL is continuous except for holes with exactly the shape {tool}\'s retention leaves.',
  'archive-lag-over-expectation': 'The newest WAL was received longer ago than the configured maximum archive lag, by the store\'s clock.',
  'archive-lag-unknown': 'The store sent no clock reading, so the configured maximum archive lag cannot be checked.',
  'archive-receipt-after-store-clock': 'A WAL object was received after the store\'s own clock at the scan: the store\'s clocks disagree, so the archive lag is unknown.',
  'wal-copy-not-restorable': 'A WAL name is stored under several keys and the copy the restore tool would take is not a plausible segment (or the copies disagree): its position counts as missing.',
  'wal-timeline-not-archived': 'The newest timeline has had a history file for over an hour of the store\'s clock and no archived WAL segment.',
  'timeline-history-contradicted': 'A timeline history declares a switch that the archived WAL contradicts.',
  'coverage-target-not-archived': 'The newest timeline has a history file but no archived WAL segment yet, so no recovery coverage of it is observed.',
  'coverage-target-wal-missing': 'The newest timeline has archived no WAL segment for over an hour of the store\'s clock since its history file.',
  'coverage-path-wal-lost': 'The best recovery path reaches the newest WAL, but another usable backup\'s path stops at lost, contradicted or unattributable WAL.',
  'coverage-history-contradicted': 'Recovery coverage of the newest timeline crosses a switch its history declares and the archived WAL contradicts.',
  'scope-empty': 'No backup directory and no WAL were found at this server\'s location.',
  'timeline-history-missing': 'A timeline has no history file.',
  'timeline-history-invalid': 'A timeline history file is unreadable or inconsistent.',
  'timeline-history-unread': 'A timeline history file exists but its content could not be read (encrypted), so the ancestry is unknown.',
  'timelines-consistent': 'Every timeline has a consistent history.',
  'no-usable-backup': 'No backup is proven structurally usable.',
  'latest-timeline-not-covered': 'No usable backup has a recovery path to the newest timeline.',
  'coverage-to-frontier': 'A usable backup is covered by WAL up to the newest observed segment.',
  'coverage-to-frontier-backup-warning': 'Only a usable backup that carries a warning is covered by WAL up to the newest observed segment.',
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
  'completed-backup-not-usable': 'A completed backup whose begin time is unknown is not proven structurally usable.',
  'backups-usable': 'Every completed backup is proven structurally usable.',
  'completed-backup-unhealthy': 'A completed backup is structurally broken.',
  'completed-backup-unknown': 'A completed backup could not be proven structurally usable.',
  'completed-backup-warning': 'A completed backup is usable but carries a warning.',
  'evidence-healthy': 'The evidence shows no problem.',
  'not-in-format': 'The format has no such artifact.',
  'capability-not-judged': 'viewer does not judge this capability for this format yet.',
  'inventory-exact': 'Objects and bytes are counted exactly.',
  'catalog-complete': 'Every backup directory has readable metadata.',
  'catalog-incomplete': 'Some backup directories have no readable metadata.',
  'metadata-encrypted': 'The repository\'s metadata is encrypted: names and sizes are evidence, what is behind the cipher is unknown.',
  'metadata-encryption-unknown': 'Whether the repository\'s metadata is encrypted is not known for every backup.',
  'metadata-readable': 'Every backup\'s metadata is readable, without a cipher.',
  'dependency-chains-complete': 'Every completed backup that depends on others has its whole chain usable.',
  'dependency-chain-broken': 'A completed backup depends on a backup that is missing or structurally broken.',
  'dependency-chain-unknown': 'A completed backup depends on a backup not proven structurally usable.',
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
  // Evidence over time: what an earlier generation saw may not silently disappear (D-66).
  if (e.frontierRegressed) return sr('unhealthy', 'wal-frontier-regressed');
  if (e.walCounts.segment === 0) return sr('unknown', 'wal-archive-empty');
  if (e.newestUnarchived === 'lost') return sr('unhealthy', 'wal-timeline-not-archived');
  // Every gap counts but a hole with exactly the shape the format's retention leaves (its retention-holes rule).
  const unexplained = e.gaps.filter((_, i) => e.gapClasses[i] !== 'retention-expected');
  if (unexplained.some((g) => g.status === 'confirmed')) return sr('unhealthy', 'wal-gap-confirmed');
  if (e.vanishedGaps > 0) return sr('unhealthy', 'wal-gap-vanished');
  if (unexplained.length > 0) return sr('warning', 'wal-gap-candidate');
  if (e.implausibleSegments > 0) return sr('warning', 'wal-segment-size-invalid');
  if (e.unrestorableSegments > 0) return sr('warning', 'wal-copy-not-restorable');
  if (e.walCounts.unknown > 0) return sr('warning', 'wal-unknown-objects');
  return e.gaps.length > 0 ? sr('healthy', 'wal-continuous-except-retention') : sr('healthy', 'wal-continuous');
}

/**
 * Archive lag: the store's clock at the scan minus the newest WAL receipt, both read from the store
 * (its `Date` header, its receipt times), so viewer's own clock plays no part (docs/design/evidence.md
 * §Archive freshness). Null when either is unknown. Never negative: a receipt stamped after the
 * store's reading (second resolution) is no lag.
 */
export function archiveLagSeconds(e: ScopeEvidence): number | null {
  if (e.storeTimeAtScan === null || e.latestWalReceipt === null || receiptAfterStoreClock(e)) return null;
  return Math.max(0, (e.storeTimeAtScan - e.latestWalReceipt) / 1000);
}

/**
 * A WAL receipt later than the store's clock at the scan (beyond the second both are stamped in)
 * proves the store's clocks disagree: the lag is unknown then, never 0 (D-86).
 */
export function receiptAfterStoreClock(e: Pick<ScopeEvidence, 'storeTimeAtScan' | 'latestWalReceipt'>): boolean {
  return e.storeTimeAtScan !== null && e.latestWalReceipt !== null && e.latestWalReceipt > e.storeTimeAtScan + RECEIPT_CLOCK_TOLERANCE_MS;
}

/** Why the archive lag is unknown, when it is: no WAL received, no store clock, or clocks that disagree. */
export function archiveLagUnknownReason(e: ScopeEvidence): 'no-wal' | 'no-store-clock' | 'receipt-after-store-clock' | null {
  if (e.latestWalReceipt === null) return 'no-wal';
  if (e.storeTimeAtScan === null) return 'no-store-clock';
  return receiptAfterStoreClock(e) ? 'receipt-after-store-clock' : null;
}

/** The expectation's verdict on the lag; null when no expectation is configured (shown, never judged). */
function lagState(e: ScopeEvidence, x: Expectations): StateReason | null {
  const max = x.maxArchiveLagSeconds ?? null;
  if (max === null || e.latestWalReceipt === null) return null;
  if (receiptAfterStoreClock(e)) return sr('unknown', 'archive-receipt-after-store-clock');
  const lag = archiveLagSeconds(e);
  if (lag === null) return sr('unknown', 'archive-lag-unknown');
  return lag > max ? sr('warning', 'archive-lag-over-expectation') : null;
}

function timelineState(e: ScopeEvidence): StateReason {
  if (e.diagnosticsTruncated) return sr('unknown', 'diagnostics-truncated');
  if (e.empty) return sr('unknown', 'scope-empty');
  const unknown = e.graph.unknownTimelines().map((t) => e.graph.ancestry(t));
  if (unknown.some((a) => !a.known && a.reason === 'history-missing')) return sr('unhealthy', 'timeline-history-missing');
  if (unknown.some((a) => !a.known && a.reason === 'history-contradicted')) return sr('unhealthy', 'timeline-history-contradicted');
  // A history that exists but could not be read (behind a repository cipher) proves nothing either way.
  if (unknown.length > 0 && unknown.every((a) => !a.known && a.reason === 'history-unread')) return sr('unknown', 'timeline-history-unread');
  if (unknown.length > 0) return sr('unhealthy', 'timeline-history-invalid');
  return sr('healthy', 'timelines-consistent');
}

/**
 * Encrypted metadata (for a format that can encrypt its repository): readable metadata is evidence;
 * behind a cipher only names and sizes are, and everything else is unknown, never healthy.
 */
function encryptedMetadataState(e: ScopeEvidence): StateReason {
  if (e.empty) return sr('unknown', 'scope-empty');
  const encryptions = e.backups.map((b) => b.item.encryption);
  if (encryptions.some((c) => c !== null && c !== 'none')) return sr('unknown', 'metadata-encrypted');
  if (encryptions.length === 0 || encryptions.some((c) => c === null)) return sr('unknown', 'metadata-encryption-unknown');
  return sr('healthy', 'metadata-readable');
}

/** The paths from usable backups to the newest timeline that count for its coverage. */
function newestPaths(e: ScopeEvidence) {
  const usable = new Set(e.backups.filter((b) => b.usable).map((b) => b.item.backup_id));
  // The newest timeline is the highest known from WAL, histories or backups: one with a history
  // and no segment yet is not covered, and must not let an older timeline stand in for it.
  const newest = e.graph.newest;
  // A standalone backup's path that stops at a retention hole is what keep:standalone promises:
  // it neither covers the frontier nor counts against the paths that do.
  return e.paths.filter((p) => usable.has(p.backup_id) && p.target_timeline === newest && p.reason.code !== 'standalone-retention-limited');
}

function coverageState(e: ScopeEvidence): StateReason {
  if (e.rangesTruncated) return sr('unknown', 'ranges-truncated');
  if (e.diagnosticsTruncated) return sr('unknown', 'diagnostics-truncated');
  if (e.empty) return sr('unhealthy', 'scope-empty');
  // WAL cannot be attributed to any backup's system: nothing about coverage is proven.
  if (e.systemIds.size > 1) return sr('unknown', 'multiple-system-ids');
  if (!e.backups.some((b) => b.usable)) return sr('unhealthy', 'no-usable-backup');
  const paths = newestPaths(e);
  if (paths.length === 0) return sr('unhealthy', 'latest-timeline-not-covered');
  // The best path: the furthest stop, then the healthiest state, then the furthest frontier.
  const rank = { frontier: 0, 'candidate-limited': 1, 'unknown-limited': 2, 'gap-limited': 3 } as const;
  const reach = (p: (typeof paths)[number]) => [p.frontier_timeline ?? -1, p.frontier_position ?? -1] as const;
  const further = (a: (typeof paths)[number], b: (typeof paths)[number]) => reach(b)[0] > reach(a)[0] || (reach(b)[0] === reach(a)[0] && reach(b)[1] > reach(a)[1]);
  const better = (a: (typeof paths)[number], b: (typeof paths)[number]) =>
    rank[b.stop] < rank[a.stop] || (rank[b.stop] === rank[a.stop] && (SEVERITY[b.state] < SEVERITY[a.state] || (SEVERITY[b.state] === SEVERITY[a.state] && further(a, b))));
  const best = paths.reduce((a, b) => (better(a, b) ? b : a));
  let verdict: StateReason;
  // The newest timeline archived nothing: the best path reached its parent's end and no further.
  if (best.reason.code === 'target-timeline-not-archived') verdict = sr('unknown', 'coverage-target-not-archived');
  else if (best.reason.code === 'target-timeline-wal-missing') verdict = sr('unhealthy', 'coverage-target-wal-missing');
  else if (best.reason.code === 'coverage-history-contradicted') verdict = sr('unknown', 'coverage-history-contradicted');
  else if (best.stop === 'frontier') verdict = best.state === 'healthy' ? sr('healthy', 'coverage-to-frontier') : best.state === 'warning' ? sr('warning', 'coverage-to-frontier-backup-warning') : sr('unknown', 'coverage-unknown-limited');
  else if (best.stop === 'candidate-limited') verdict = sr('warning', 'coverage-candidate-limited');
  else if (best.stop === 'unknown-limited') verdict = sr('unknown', 'coverage-unknown-limited');
  else verdict = sr('unhealthy', 'coverage-gap-limited');
  // Coverage summarises every path, not only the best: WAL lost on another usable backup's path
  // is part of the window gone (retention's own holes aside).
  if (e.pathsLosingWal > 0) verdict = worst([verdict, sr('warning', 'coverage-path-wal-lost')]);
  return verdict;
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
    // Met only when a backup that completed before the window's start has a path that reaches the
    // newest timeline's frontier: an old backup that stops on its way there covers no window.
    const reaching = new Set(newestPaths(e).filter((p) => p.stop === 'frontier' && (p.state === 'healthy' || p.state === 'warning')).map((p) => p.backup_id));
    const covers = usable.some((b) => b.endAt !== null && Date.parse(b.endAt) <= pointOfRecoverability && reaching.has(b.item.backup_id));
    verdict = covers && coverage.state !== 'unhealthy' && coverage.state !== 'unknown' ? sr('healthy', 'retention-met') : sr('warning', 'recovery-window-not-covered');
  } else verdict = sr('healthy', 'retention-met');
  return { ...base, ...verdict };
}

/**
 * The backups' part of the top level (D-58): none usable is unhealthy; any completed backup not
 * usable, or carrying a warning, is at least a warning: recovery from a newer usable backup is
 * judged by coverage, and the structural capability carries the worst backup itself. Which
 * message applies depends on what is known of the backups' ages: a completed backup whose begin
 * time is unknown (its metadata contradicts itself) could be the newest or not.
 */
function backupsState(e: ScopeEvidence): StateReason {
  if (e.empty) return sr('unhealthy', 'scope-empty');
  // Which backup's WAL is which is unknown, so no backup's usability is proven.
  if (e.systemIds.size > 1) return sr('unknown', 'multiple-system-ids');
  const usable = e.backups.filter((b) => b.usable);
  if (usable.length === 0) return sr('unhealthy', 'no-usable-backup');
  // A backup whose status cannot be read may be a completed one: counted as such (never healthier).
  const completed = e.backups.filter((b) => b.mayHaveCompleted);
  if (completed.some((b) => !b.usable && b.item.begin_at === null)) return sr('warning', 'completed-backup-not-usable');
  const newest = [...e.backups].filter((b) => b.item.begin_at !== null).sort((a, b) => Date.parse(a.item.begin_at ?? '') - Date.parse(b.item.begin_at ?? '')).at(-1);
  if (newest !== undefined && !newest.usable) return sr('warning', 'latest-backup-not-usable');
  if (completed.some((b) => !b.usable)) return sr('warning', 'older-backup-not-usable');
  if (completed.some((b) => b.item.state === 'warning')) return sr('warning', 'completed-backup-warning');
  return sr('healthy', 'backups-usable');
}

/** Structural artifact validation: never healthier than the worst completed backup it summarises. */
function structuralState(e: ScopeEvidence): StateReason {
  if (e.empty) return sr('unknown', 'scope-empty');
  if (!e.backups.some((b) => b.usable)) return sr(e.systemIds.size > 1 ? 'unknown' : 'unhealthy', e.systemIds.size > 1 ? 'multiple-system-ids' : 'no-usable-backup');
  // A backup whose status cannot be read may be a completed one (its state is unknown at best).
  const states = new Set(e.backups.filter((b) => b.mayHaveCompleted).map((b) => b.item.state));
  if (states.has('unhealthy')) return sr('unhealthy', 'completed-backup-unhealthy');
  if (states.has('unknown')) return sr('unknown', 'completed-backup-unknown');
  if (states.has('warning')) return sr('warning', 'completed-backup-warning');
  return sr('healthy', 'backups-usable');
}

/**
 * Dependency-chain validation (for formats whose backups depend on others): healthy when every
 * completed backup's chain is usable, else the worst chain (evidence/backups.ts judges each).
 */
function chainState(e: ScopeEvidence): StateReason {
  // A truncated catalog cannot prove a chain (D-11, D-72).
  if (e.diagnosticsTruncated) return sr('unknown', 'diagnostics-truncated');
  if (e.empty) return sr('unknown', 'scope-empty');
  const chains = e.backups.filter((b) => b.completed && b.chain !== null).map((b) => b.chain);
  if (chains.includes('unhealthy')) return sr('unhealthy', 'dependency-chain-broken');
  if (chains.includes('unknown')) return sr('unknown', 'dependency-chain-unknown');
  return sr('healthy', 'dependency-chains-complete');
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

/** What a summary and its publication need of the scope's format: its id (memory), the wire's format it publishes under, its capabilities, the tool its messages name, its payload. */
export type FormatTraits = Pick<RepositoryFormat, 'id' | 'wireFormat' | 'capabilities' | 'tool' | 'details'>;

/** A state whose message names the format's tool, with the tool's name in place. */
const naming = (s: StateReason, tool: string): StateReason => (s.reason.message.includes('{tool}') ? { ...s, reason: { ...s.reason, message: s.reason.message.replaceAll('{tool}', tool) } } : s);

export function summarize(e: ScopeEvidence, x: Expectations, now: number, format: FormatTraits): ScopeSummary {
  const support = format.capabilities;
  const continuity = walState(e);
  const lag = lagState(e, x);
  const wal = naming(lag === null ? continuity : worst([continuity, lag]), format.tool);
  const timeline = timelineState(e);
  const coverage = coverageState(e);
  const ret = retention(e, x, now, coverage);
  const backups = backupsState(e);
  const backupStates: StateCounts = { healthy: 0, warning: 0, unhealthy: 0, unknown: 0 };
  for (const b of e.backups) backupStates[b.item.state] += 1;
  const catalog = e.empty ? sr('unknown', 'scope-empty') : e.backups.every((b) => b.item.status !== null) ? sr('healthy', 'catalog-complete') : sr('warning', 'catalog-incomplete');
  const structural = structuralState(e);
  // The format says which capabilities it has; evidence judges those it has rules for. A
  // capability a format has but no rule judges yet is visible, with support unknown (spec).
  const judged: Partial<Record<CapabilityId, StateReason>> = {
    'catalog-listing': catalog,
    'encrypted-metadata': encryptedMetadataState(e),
    'dependency-chain-validation': chainState(e),
    'object-inventory': sr('healthy', 'inventory-exact'),
    'observed-recovery-coverage': coverage,
    'retention-expectation-comparison': { state: ret.state, reason: ret.reason },
    'structural-artifact-validation': structural,
    'timeline-history-traversal': timeline,
    'wal-continuity': wal,
  };
  const capabilities: Capability[] = CAPABILITY_IDS.map((id) => {
    if (support[id] === 'unsupported') return { id, support: 'unsupported', ...sr('unknown', 'not-in-format') };
    const s = judged[id];
    return s === undefined ? { id, support: 'unknown', ...sr('unknown', 'capability-not-judged') } : { id, support: 'supported', ...s };
  });
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
