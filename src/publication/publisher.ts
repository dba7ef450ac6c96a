/**
 * Immutable publications of one scope and the transitions between them (spec "Publication
 * transitions"). `revision` advances on every published attempt result, and also when the
 * freshness threshold makes the evidence stale (so one `(revision, evidence_generation)` always
 * means one byte-identical body, D-31); `evidence_generation` advances only on a complete scan.
 * A failed or truncated attempt keeps the previous complete generation, sets `stale`, and makes
 * every current state `unknown` with a typed `refresh-<category>` reason.
 *
 * Every publication is validated by the one wire validator before it is returned. A scan whose
 * publication fails validation is a failed attempt like any other (`refresh-invalid-publication`,
 * category `incompatible_format`): the previous generation stays and is served. A publication that
 * still fails carries its violations, and the surfaces answer 500 `invalid-publication` for it.
 *
 * Revisions start from a base drawn at construction (D-59): the whole seconds of the clock times
 * 2^20 plus 20 random bits, so a restarted process never names a different body with a pair
 * `(revision, evidence_generation)` an earlier process of the same destination already used.
 *
 * What each complete generation hands the next (D-66) is one `EvidenceMemory` (`evidence/memory.ts`):
 * `nextScan` hands it to the scan, `complete` takes the scan's in its place. A process may start from
 * what an earlier one of the same scope remembered (`remember`: the state file of `STATE_DIR`, D-81):
 * its publication stays generation 0 until the first scan completes, which publishes the remembered
 * generation + 1 (D-82). A process may also continue where an earlier one stopped (`resume`:
 * `viewer scan --previous` reads the previous run's document back, `cli/previous-scan.ts`): its
 * publication, generation and memory become this publisher's, and its revisions start above the
 * earlier process's last one.
 */
import { randomInt } from 'node:crypto';
import type { BackupItem, RecoveryPathItem, WalGapItem, WalRangeItem } from '../contract/collections.ts';
import { compareBackups, compareRecoveryPaths, compareWalRuns } from '../contract/order.ts';
import type { FailureCategory, Provider, Reason } from '../contract/primitives.ts';
import { API_VERSION, CAPABILITY_IDS, PAGE_LIMITS, PRODUCER_NAME, SCOPE_KIND } from '../contract/values.ts';
import { serialize } from '../contract/serialize.ts';
import type { RepositoryEvidenceSnapshot } from '../contract/snapshot.ts';
import { detailsOf, emptyDetails, overlayDetails } from './details.ts';
import { wireViolations, type Violation } from '../contract/validate.ts';
import { freshMemory, sameIdentity, type EvidenceMemory, type MemoryIdentity } from '../evidence/memory.ts';
import type { ScopeEvidence } from '../evidence/scope-scan.ts';
import { reasonFor, summarize, type Expectations, type FormatTraits } from '../evidence/summary.ts';
import { disagreements } from '../evidence/agreement.ts';

export interface PublicationIdentity {
  readonly cluster: { readonly namespace: string; readonly uid: string; readonly name: string | null };
  readonly provider: Provider;
  readonly fingerprint: string;
  readonly server: string;
  readonly producerVersion: string;
  /** The scope's format: which capabilities it has at all, the tool its messages name. */
  readonly format: FormatTraits;
}

export interface Publication {
  readonly revision: number;
  readonly generation: number;
  readonly snapshot: RepositoryEvidenceSnapshot;
  /** The canonical serialization of `snapshot`. */
  readonly snapshotJson: string;
  readonly backups: readonly BackupItem[];
  readonly walRanges: readonly WalRangeItem[];
  readonly walGaps: readonly WalGapItem[];
  readonly recoveryPaths: readonly RecoveryPathItem[];
  /** Empty when the publication is valid; otherwise the surfaces serve 500 `invalid-publication`. */
  readonly violations: readonly Violation[];
}

/**
 * What an earlier process of the same scope published last and remembered (D-66), for `resume`:
 * its last publication (snapshot and items, a failed or stale one included) and the memory its
 * last complete generation handed on, exactly as `nextScan` would have returned it there.
 */
export interface PublicationResume {
  readonly snapshot: RepositoryEvidenceSnapshot;
  readonly backups: readonly BackupItem[];
  readonly walRanges: readonly WalRangeItem[];
  readonly walGaps: readonly WalGapItem[];
  readonly recoveryPaths: readonly RecoveryPathItem[];
  /** What its last complete generation handed on (a fresh memory when it has none). */
  readonly memory: EvidenceMemory;
}

/** Facts of one refresh attempt, successful or not. */
export interface Attempt {
  readonly startedAt: Date;
  readonly finishedAt: Date;
  readonly pages: number;
  readonly objects: number;
}

const iso = (d: Date) => d.toISOString();
const reason = (code: string, message: string): Reason => ({ code, message });

/** `refresh-<category>`: the typed reason of a failed refresh (the spec's `refresh-throttled`). */
export function refreshReason(category: FailureCategory): Reason {
  return reason(`refresh-${category.replaceAll('_', '-')}`, `The latest refresh failed (${category.replaceAll('_', ' ')}); earlier evidence, if any, is retained.`);
}

const STALE = reason('evidence-stale', 'Evidence is older than the freshness threshold.');
const INVALID = reason('refresh-invalid-publication', 'The latest scan produced evidence that failed validation; earlier evidence, if any, is retained.');

/** Revisions a process may use per second of its life before it could meet a later process's range. */
const REVISIONS_PER_SECOND = 2 ** 20;

/** D-59: seconds since the epoch times 2^20, plus 20 random bits (below 2^53 until the year 2242). */
export function revisionBase(nowMs: number = Date.now()): number {
  return Math.floor(nowMs / 1000) * REVISIONS_PER_SECOND + randomInt(REVISIONS_PER_SECOND);
}
const NO_SCAN = reason('no-completed-scan', 'No scan has completed yet.');

/** Every current-evidence state of `s` made `unknown` with `r` (stale or failed publications). */
function withoutCurrentStates(format: FormatTraits, s: RepositoryEvidenceSnapshot, r: Reason): RepositoryEvidenceSnapshot {
  return {
    ...s,
    stale: true,
    state: 'unknown',
    reason: r,
    capabilities: s.capabilities.map((c) => ({ ...c, state: 'unknown', reason: c.support === 'supported' ? r : c.reason })),
    details: overlayDetails(format, s.details, r),
  };
}

export class Publisher {
  readonly #identity: PublicationIdentity;
  readonly #expectations: Expectations;
  readonly #freshnessMs: number;
  #current: Publication;
  /** The last complete evidence, kept to rebuild stale or failed publications. */
  #completeSnapshot: RepositoryEvidenceSnapshot | null = null;
  #completeEvidence: ScopeEvidence | null = null;
  /** What the last complete generation handed on (its evidence's, or a remembered or resumed one). */
  #memory: EvidenceMemory;
  #resumed = false;

  constructor(identity: PublicationIdentity, expectations: Expectations, freshnessMs: number, options: { readonly revisionBase?: number } = {}) {
    this.#identity = identity;
    this.#expectations = expectations;
    this.#freshnessMs = freshnessMs;
    this.#memory = freshMemory(this.memoryIdentity);
    this.#current = this.#publish({ ...this.#initial(), revision: options.revisionBase ?? revisionBase() }, [], [], [], []);
  }

  get current(): Publication {
    return this.#current;
  }

  /**
   * The scan behind the current generation (null before the first): what the operator's pages
   * show beside the publication. A failed or truncated attempt never replaces it.
   */
  get evidence(): ScopeEvidence | null {
    return this.#completeEvidence;
  }

  /** The scope the memory of this publisher belongs to. */
  get memoryIdentity(): MemoryIdentity {
    return { fingerprint: this.#identity.fingerprint, format: this.#identity.format.id, server: this.#identity.server };
  }

  /** What the last complete generation handed on (a fresh memory before any): what `STATE_DIR` keeps. */
  get memory(): EvidenceMemory {
    return this.#memory;
  }

  /**
   * What the next complete scan needs: what the complete generations so far proved (gaps, the
   * newest positions seen, the completed backups, the generation it continues), so that nothing
   * they proved is forgotten but by WAL arriving or a backup being deleted.
   */
  get nextScan(): { previous: EvidenceMemory } {
    return { previous: this.#memory };
  }

  /**
   * Starts from what an earlier process of this scope remembered (the state file of `STATE_DIR`,
   * D-81): the next complete scan continues it, and publishes its generation + 1 (D-82). The
   * current publication stays what it is (generation 0, no completed scan); revisions stay this
   * process's own (D-59). Only before the first attempt, once, and only a memory of this scope: a
   * caller reads it through `readMemory`, which refuses any other.
   */
  remember(memory: EvidenceMemory): void {
    const now = this.#current;
    if (this.#resumed || now.generation !== 0 || now.snapshot.last_attempt_at !== null || this.#memory.generation !== 0) throw new Error('a publisher remembers only before its first attempt');
    if (!sameIdentity(memory.identity, this.memoryIdentity)) throw new Error('a publisher remembers only a memory of its own scope');
    this.#memory = memory;
  }

  /**
   * Continues from what an earlier process of this scope published last (`viewer scan --previous`):
   * its publication becomes the current one, so a failed attempt retains its generation and items
   * as this process would have retained its own, and `nextScan` hands on its generation and memory.
   * Producer and cluster are this process's. The current revision becomes the greater of this
   * publisher's base and the earlier one's, so every publication from here on has a revision above
   * every one the earlier process published, even if the clock went backwards (D-59).
   *
   * Only before the first attempt, once; a resume of another scope, or one whose publication the
   * wire validator refuses, is a programming error (the caller reads it through `readPreviousScan`).
   */
  resume(r: PublicationResume): Publication {
    const now = this.#current;
    if (this.#resumed || now.generation !== 0 || now.snapshot.last_attempt_at !== null || this.#memory.generation !== 0) throw new Error('a publisher resumes only before its first attempt');
    const mine = this.#initial();
    const theirs = r.snapshot.identity.repository;
    const ours = mine.identity.repository;
    if (theirs.provider !== ours.provider || theirs.format !== ours.format || theirs.destination_fingerprint !== ours.destination_fingerprint || theirs.scope.name !== ours.scope.name) {
      throw new Error('a publisher resumes only a publication of its own scope');
    }
    const generation = r.snapshot.evidence_generation;
    if (!sameIdentity(r.memory.identity, this.memoryIdentity) || r.memory.generation !== generation) throw new Error('a publisher resumes only the memory of the publication it resumes');
    const remembered = r.memory.gaps.length > 0 || r.memory.frontiers !== null || r.memory.completedBackups.size > 0;
    const items = r.backups.length + r.walRanges.length + r.walGaps.length + r.recoveryPaths.length;
    if (generation === 0 && (remembered || items > 0)) throw new Error('a publication without a complete generation remembers nothing');
    const snapshot: RepositoryEvidenceSnapshot = {
      ...r.snapshot,
      producer: mine.producer,
      identity: { ...r.snapshot.identity, cluster: mine.identity.cluster },
      revision: Math.max(now.revision, r.snapshot.revision),
    };
    const resumed = this.#publish(snapshot, r.backups, r.walRanges, r.walGaps, r.recoveryPaths);
    if (resumed.violations.length > 0) throw new Error(`the resumed publication is invalid (${resumed.violations.length} violations)`);
    this.#current = resumed;
    // Failed and stale publications only make states unknown: rebuilding one from a failed or stale
    // snapshot gives the body rebuilding it from the complete one would have given.
    this.#completeSnapshot = generation > 0 ? snapshot : null;
    this.#memory = r.memory;
    this.#resumed = true;
    return resumed;
  }

  #initial(): RepositoryEvidenceSnapshot {
    return {
      api_version: API_VERSION,
      kind: 'RepositoryEvidenceSnapshot',
      producer: { name: PRODUCER_NAME, version: this.#identity.producerVersion },
      identity: {
        cluster: { ...this.#identity.cluster },
        repository: {
          provider: this.#identity.provider,
          // The wire's format the scope's format publishes under (its id, for every format the contract defines); validated with the rest before publishing.
          format: this.#identity.format.wireFormat,
          destination_fingerprint: this.#identity.fingerprint,
          scope: { kind: SCOPE_KIND, name: this.#identity.server },
        },
      },
      revision: 0,
      evidence_generation: 0,
      started_at: null,
      completed_at: null,
      last_attempt_at: null,
      completeness: 'no-completed-scan',
      stale: false,
      state: 'unknown',
      reason: NO_SCAN,
      capabilities: CAPABILITY_IDS.map((id) =>
        this.#identity.format.capabilities[id] === 'unsupported'
          ? { id, support: 'unsupported', state: 'unknown', reason: reasonFor('not-in-format') }
          : { id, support: 'supported', state: 'unknown', reason: NO_SCAN },
      ),
      inventory: { known: false, object_count: null, stored_bytes: null, unscoped_object_count: null, pages_examined: 0, objects_examined: 0, last_failure_category: null },
      details: emptyDetails(this.#identity.format, NO_SCAN, this.#expectations),
    };
  }

  #publish(snapshot: RepositoryEvidenceSnapshot, backups: readonly BackupItem[], ranges: readonly WalRangeItem[], gaps: readonly WalGapItem[], paths: readonly RecoveryPathItem[]): Publication {
    const violations = wireViolations('RepositoryEvidenceSnapshot', snapshot);
    const check = <T>(kind: 'ArchiveBackupPage' | 'ArchiveWALRangePage' | 'ArchiveWALGapPage' | 'ArchiveRecoveryPathPage', items: readonly T[]) => {
      // Items are checked as one page holding all of them: item rules and the global sort order.
      const page = { api_version: API_VERSION, kind, revision: snapshot.revision, evidence_generation: snapshot.evidence_generation, total_items: items.length, items, next_cursor: null };
      // Windows of a page's most (PAGE_LIMITS.maxItems) overlapping by one item, so the sort order
      // is checked across their seams.
      for (let i = 0; i === 0 || i < items.length - 1; i += PAGE_LIMITS.maxItems - 1) {
        const slice = { ...page, items: items.slice(i, i + PAGE_LIMITS.maxItems) };
        for (const v of wireViolations(kind, slice)) violations.push({ ...v, path: `/${kind}${v.path}` });
      }
    };
    check('ArchiveBackupPage', backups);
    check('ArchiveWALRangePage', ranges);
    check('ArchiveWALGapPage', gaps);
    check('ArchiveRecoveryPathPage', paths);
    return {
      revision: snapshot.revision,
      generation: snapshot.evidence_generation,
      snapshot,
      snapshotJson: serialize('RepositoryEvidenceSnapshot', snapshot),
      backups,
      walRanges: ranges,
      walGaps: gaps,
      recoveryPaths: paths,
      violations,
    };
  }

  /**
   * Publishes the result of a scan that listed everything, as the generation its memory names (the
   * one `nextScan` handed it continues). A truncated scan is a `safety_limit` failure.
   */
  complete(e: ScopeEvidence, attempt: Attempt): Publication {
    if (e.memory.generation !== this.#memory.generation + 1 || !sameIdentity(e.memory.identity, this.memoryIdentity)) throw new Error('a publisher completes only a scan that continues its own memory');
    if (e.rangesTruncated || e.diagnosticsTruncated) return this.fail('safety_limit', attempt, { ranges: e.rangesTruncated, diagnostics: e.diagnosticsTruncated });
    const s = summarize(e, this.#expectations, attempt.startedAt.getTime(), this.#identity.format);
    const backups = e.backups.map((b) => b.item).sort(compareBackups);
    const ranges = [...e.ranges].sort(compareWalRuns);
    const gaps = [...e.gaps].sort(compareWalRuns);
    const paths = [...e.paths].sort(compareRecoveryPaths);
    const prev = this.#current;
    const snapshot: RepositoryEvidenceSnapshot = {
      ...this.#initial(),
      revision: prev.revision + 1,
      evidence_generation: e.memory.generation,
      started_at: iso(attempt.startedAt),
      completed_at: iso(attempt.finishedAt),
      last_attempt_at: iso(attempt.startedAt),
      completeness: 'complete',
      stale: false,
      state: s.top.state,
      reason: s.top.reason,
      capabilities: s.capabilities,
      inventory: {
        known: true,
        object_count: e.objectCount,
        stored_bytes: e.storedBytes,
        unscoped_object_count: e.unscopedObjects === undefined ? 0 : e.unscopedObjects,
        pages_examined: attempt.pages,
        objects_examined: attempt.objects,
        last_failure_category: null,
      },
      details: detailsOf(this.#identity.format, e, s, { backups: backups.length, ranges: ranges.length, gaps: gaps.length, paths: paths.length }),
    };
    const candidate = this.#publish(snapshot, backups, ranges, gaps, paths);
    // Evidence the wire cannot carry never replaces evidence it could: a failed attempt instead.
    // So is a generation whose summaries are healthier than its items (evidence/agreement.ts).
    if (candidate.violations.length > 0 || disagreements(e, s).length > 0) return this.#failed('incompatible_format', INVALID, attempt, { ranges: false, diagnostics: false });
    this.#completeSnapshot = snapshot;
    this.#completeEvidence = e;
    this.#memory = e.memory;
    this.#current = candidate;
    return this.#current;
  }

  /** Publishes a failed attempt: the previous generation is kept, stale, with states unknown. */
  fail(category: FailureCategory, attempt: Attempt, truncated: { ranges: boolean; diagnostics: boolean } = { ranges: false, diagnostics: false }): Publication {
    return this.#failed(category, refreshReason(category), attempt, truncated);
  }

  #failed(category: FailureCategory, r: Reason, attempt: Attempt, truncated: { ranges: boolean; diagnostics: boolean }): Publication {
    const prev = this.#current;
    const base = this.#completeSnapshot ?? { ...this.#initial(), completeness: 'incomplete' as const };
    const failed = withoutCurrentStates(this.#identity.format, base, r);
    const snapshot: RepositoryEvidenceSnapshot = {
      ...failed,
      revision: prev.revision + 1,
      last_attempt_at: iso(attempt.startedAt),
      inventory: { ...failed.inventory, pages_examined: attempt.pages, objects_examined: attempt.objects, last_failure_category: category },
      details: overlayDetails(this.#identity.format, failed.details, r, truncated),
    };
    this.#current = this.#publish(snapshot, prev.backups, prev.walRanges, prev.walGaps, prev.recoveryPaths);
    return this.#current;
  }

  /**
   * When the current publication turns stale by time (epoch ms): the freshness threshold after the
   * start of the last attempt. Null when it is stale already or no attempt has been made.
   */
  staleAt(): number | null {
    const { stale, last_attempt_at: last } = this.#current.snapshot;
    return stale || last === null ? null : Date.parse(last) + this.#freshnessMs;
  }

  /** Publishes a stale revision once the freshness threshold has elapsed since the last attempt. */
  checkFreshness(now: Date): Publication {
    const prev = this.#current;
    const at = this.staleAt();
    if (at === null || now.getTime() < at) return prev;
    const snapshot = { ...withoutCurrentStates(this.#identity.format, prev.snapshot, STALE), revision: prev.revision + 1 };
    this.#current = this.#publish(snapshot, prev.backups, prev.walRanges, prev.walGaps, prev.recoveryPaths);
    return this.#current;
  }
}
