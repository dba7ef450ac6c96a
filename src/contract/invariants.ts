/**
 * Publication rules that JSON Schema cannot express: orderings between timestamps and positions,
 * consistency between a WAL name and its timeline, sums that must agree, the details type of the
 * repository format, and the deterministic sort of every array. A snapshot's details are read
 * through the format-neutral `commonSummary`, so every payload is held to the same rules. The validator runs these after the schema has accepted a body, so each rule
 * may rely on the body's shape.
 */
import type {
  ArchiveBackupPage,
  ArchiveRecoveryPathPage,
  ArchiveWALGapPage,
  ArchiveWALRangePage,
  BackupItem,
  RecoveryPathItem,
  WalGapItem,
  WalRangeItem,
} from './collections.ts';
import type { WireBody, WireKind } from './kinds.ts';
import { compareBackups, compareRecoveryPaths, compareWalRuns, firstOutOfOrder } from './order.ts';
import { commonSummary, payloadPointer, stanzaRepositoryFacts } from './details-view.ts';
import type { RepositoryEvidenceSnapshot } from './snapshot.ts';
import { DETAILS_TYPE_OF_FORMAT } from './values.ts';

export interface Violation {
  /** JSON Pointer of the offending value. */
  readonly path: string;
  /** Stable description of the rule, free of the offending value. */
  readonly rule: string;
}

type Check = (add: (path: string, rule: string) => void) => void;

/** `a <= b` for two RFC 3339 UTC timestamps (compared as instants, fractions included). */
function notAfter(a: string, b: string): boolean {
  return instant(a) <= instant(b);
}

/** Epoch nanoseconds as a bigint, so nine-digit fractions compare exactly. */
function instant(ts: string): bigint {
  const dot = ts.indexOf('.');
  const whole = dot === -1 ? ts.slice(0, -1) : ts.slice(0, dot);
  const fraction = dot === -1 ? '' : ts.slice(dot + 1, -1);
  const seconds = BigInt(Date.parse(`${whole}Z`) / 1000);
  return seconds * 1_000_000_000n + BigInt(fraction.padEnd(9, '0') || '0');
}

/** The timeline encoded in the first eight hex digits of a WAL name. */
const walTimeline = (wal: string) => Number.parseInt(wal.slice(0, 8), 16);

const lsnValue = (lsn: string) => {
  const [hi = '0', lo = '0'] = lsn.split('/');
  return (BigInt(`0x${hi}`) << 32n) + BigInt(`0x${lo}`);
};

function ordered(add: (path: string, rule: string) => void, path: string, a: string | null, b: string | null, what: string) {
  if (a !== null && b !== null && !notAfter(a, b)) add(path, `${what} must not be after its end`);
}

function checkSnapshot(s: RepositoryEvidenceSnapshot): Check {
  return (add) => {
    if (s.evidence_generation > 0 && s.started_at !== null && s.completed_at !== null) {
      ordered(add, '/started_at', s.started_at, s.completed_at, 'started_at');
      if (s.last_attempt_at === null) add('/last_attempt_at', 'a published generation implies an attempt');
      else if (!notAfter(s.started_at, s.last_attempt_at)) {
        add('/last_attempt_at', 'the latest attempt cannot start before the published generation');
      }
    }
    const expectedType = DETAILS_TYPE_OF_FORMAT[s.identity.repository.format];
    if (s.details.type !== expectedType) add('/details/type', 'must be the details type of identity.repository.format');
    const ac = commonSummary(s.details);
    const at = payloadPointer(s.details);
    if (ac === null || at === null) return;
    if (ac.backup_states !== null && ac.backup_items !== null) {
      const b = ac.backup_states;
      if (b.healthy + b.warning + b.unhealthy + b.unknown !== ac.backup_items) {
        add(`${at}/backup_states`, 'state counts must sum to backup_items');
      }
    }
    const r = ac.retention;
    if (r.structurally_usable_backups !== ac.structurally_usable_backups) {
      add(`${at}/retention/structurally_usable_backups`, 'must equal the summary count');
    }
    if (r.visible_backups !== null && r.structurally_usable_backups !== null) {
      if (r.structurally_usable_backups > r.visible_backups) {
        add(`${at}/retention/structurally_usable_backups`, 'cannot exceed visible_backups');
      }
    }
    if (r.visible_backups !== null && ac.backup_items !== null && r.visible_backups > ac.backup_items) {
      add(`${at}/retention/visible_backups`, 'cannot exceed backup_items');
    }
    ordered(add, `${at}/retention/oldest_completion_at`, r.oldest_completion_at, r.newest_completion_at, 'oldest_completion_at');
    const stanza = stanzaRepositoryFacts(s.details);
    if (stanza !== null && ac.backup_items !== null) {
      // Listed backups (DONE, by type) and interrupted ones are distinct backup items (D-72).
      const t = stanza.backup_types;
      const listed = t === null ? 0 : t.full + t.diff + t.incr;
      if (listed + (stanza.interrupted_backups ?? 0) > ac.backup_items) {
        add(`${at}/backup_types`, 'listed and interrupted backups cannot exceed backup_items');
      }
    }
  };
}

function checkBackup(i: BackupItem, at: string): Check {
  return (add) => {
    ordered(add, `${at}/begin_at`, i.begin_at, i.end_at, 'begin_at');
    if (i.begin_wal !== null && i.end_wal !== null && i.begin_wal > i.end_wal) add(`${at}/begin_wal`, 'begin_wal must not follow end_wal');
    if (i.begin_lsn !== null && i.end_lsn !== null && lsnValue(i.begin_lsn) > lsnValue(i.end_lsn)) {
      add(`${at}/begin_lsn`, 'begin_lsn must not follow end_lsn');
    }
    for (const field of ['begin_wal', 'end_wal'] as const) {
      const wal = i[field];
      if (wal !== null && i.timeline !== null && walTimeline(wal) !== i.timeline) add(`${at}/${field}`, 'WAL name must be on the backup timeline');
    }
  };
}

function checkRun(i: WalRangeItem | WalGapItem, at: string): Check {
  return (add) => {
    if (i.end_position < i.start_position) add(`${at}/end_position`, 'end_position must not precede start_position');
    else if (i.segment_count > i.end_position - i.start_position + 1) add(`${at}/segment_count`, 'segment_count exceeds the positions spanned');
    if (walTimeline(i.first_wal) !== i.timeline || walTimeline(i.last_wal) !== i.timeline) add(`${at}/first_wal`, 'WAL names must be on the item timeline');
    if (i.first_wal > i.last_wal) add(`${at}/last_wal`, 'last_wal must not precede first_wal');
    if ('latest_receipt_at' in i && i.latest_receipt_at !== null && i.end_receipt_at !== null && !notAfter(i.end_receipt_at, i.latest_receipt_at)) {
      add(`${at}/latest_receipt_at`, 'the latest receipt cannot precede the ending segment receipt');
    }
    if ('first_observed_generation' in i && i.first_observed_generation > i.last_observed_generation) {
      add(`${at}/last_observed_generation`, 'last observation cannot precede the first');
    }
  };
}

function checkPath(i: RecoveryPathItem, at: string): Check {
  return (add) => {
    const codes = i.assumption_codes;
    if (firstOutOfOrder(codes, (a, b) => (a < b ? -1 : a > b ? 1 : 0)) !== -1) add(`${at}/assumption_codes`, 'must be sorted and unique');
    if (i.start_wal !== null && walTimeline(i.start_wal) !== i.start_timeline) add(`${at}/start_wal`, 'must be on start_timeline');
    if (i.frontier_wal !== null && walTimeline(i.frontier_wal) !== i.frontier_timeline) add(`${at}/frontier_wal`, 'must be on frontier_timeline');
    if (i.start_position !== null && i.frontier_position !== null && i.frontier_position < i.start_position) {
      add(`${at}/frontier_position`, 'the frontier cannot precede the start');
    }
    if (i.start_timeline !== null && i.frontier_timeline !== null && i.frontier_timeline < i.start_timeline) {
      add(`${at}/frontier_timeline`, 'timelines only increase along a path');
    }
    if (i.frontier_timeline !== null && i.frontier_timeline > i.target_timeline) add(`${at}/frontier_timeline`, 'cannot pass the target timeline');
  };
}

function checkPage<T>(items: readonly T[], total: number | null, compare: (a: T, b: T) => number, item: (i: T, at: string) => Check): Check {
  return (add) => {
    const bad = firstOutOfOrder(items, compare);
    if (bad !== -1) add(`/items/${bad}`, 'items must be sorted and unique');
    if (total !== null && total < items.length) add('/total_items', 'cannot be less than the items on the page');
    items.forEach((it, n) => item(it, `/items/${n}`)(add));
  };
}

/** The invariant checks of each kind; kinds without any have none. */
export function invariantViolations<K extends WireKind>(kind: K, body: WireBody<K>): Violation[] {
  const out: Violation[] = [];
  const add = (path: string, rule: string) => out.push({ path, rule });
  switch (kind) {
    case 'RepositoryEvidenceSnapshot':
      checkSnapshot(body as RepositoryEvidenceSnapshot)(add);
      break;
    case 'ArchiveBackupPage': {
      const p = body as ArchiveBackupPage;
      checkPage(p.items, p.total_items, compareBackups, checkBackup)(add);
      break;
    }
    case 'ArchiveWALRangePage': {
      const p = body as ArchiveWALRangePage;
      checkPage(p.items, p.total_items, compareWalRuns, checkRun)(add);
      break;
    }
    case 'ArchiveWALGapPage': {
      const p = body as ArchiveWALGapPage;
      checkPage(p.items, p.total_items, compareWalRuns, checkRun)(add);
      break;
    }
    case 'ArchiveRecoveryPathPage': {
      const p = body as ArchiveRecoveryPathPage;
      checkPage(p.items, p.total_items, compareRecoveryPaths, checkPath)(add);
      break;
    }
    default:
      break;
  }
  return out;
}

/** Single-item checks, for the publisher to validate items once before they are paged. */
export const itemInvariants = { backup: checkBackup, run: checkRun, path: checkPath };
