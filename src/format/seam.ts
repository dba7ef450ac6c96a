/**
 * The format seam: `RepositoryFormat`, what every repository format provides (what evidence
 * needs, and what the pages, the text output and the other formats need of it: its facts, its
 * headings, its layout, its advice), the only shape of a format the layers above know (they find
 * formats through `registry.ts`), and `ScopeAccess`, what a format sees of the store while it
 * reads one scope. The evidence layer implements `ScopeAccess` (`evidence/scope-access.ts`) over
 * the confined driver, with the scan's budgets and cancellation, and counts every object it hands
 * out exactly once; a format decides what to list and read, and how to classify it, never how
 * objects are counted.
 *
 * Keys are relative to the scope's base (for `archive-cloud`, `<prefix>/<server>/`; for
 * `stanza-repository`, the repository root `<prefix>/`, under which the stanza's two areas
 * `archive/<stanza>/` and `backup/<stanza>/` lie): a format never sees the destination prefix,
 * and nothing it holds can leak it.
 */
import type { BackupItem } from '../contract/collections.ts';
import type { State, StateReason } from '../contract/primitives.ts';
import type { CapabilityId, WireFormat } from '../contract/values.ts';
import type { CommonSummary, Details, RetentionSummary, StateCounts, WALCounts } from '../contract/snapshot.ts';
import type { WalGeometry } from '../postgres/wal.ts';
import type { ReadResult, StreamResult } from '../store/driver.ts';

/** One listed object, handed out once. */
export interface ListedObject {
  /** Relative to the scope's base. */
  readonly key: string;
  readonly size: number;
  /** Provider receipt time, epoch ms; null when the store gave none the wire can carry. */
  readonly receivedAt: number | null;
}

/** A key range of one listing: keys after `after`, up to and including `through`. */
export interface KeyRange {
  readonly after?: string;
  readonly through?: string;
}

export interface ScopeAccess {
  readonly signal: AbortSignal;
  /** Listings and reads a scan may have in flight at once. */
  readonly concurrency: number;
  /** Whether the store can start a listing after a key; without it, parallel key ranges cost a full listing each. */
  readonly startsAfterKeys: boolean;
  /** Every object under `prefix`, within `range`, in key order, page by page; each is counted. */
  objects(prefix: string, range?: KeyRange): AsyncIterable<readonly ListedObject[]>;
  /** One level under `prefix`: the objects directly there (counted) and the sub-prefixes. */
  level(prefix: string): AsyncIterable<{ readonly objects: readonly ListedObject[]; readonly folders: readonly string[] }>;
  /** Only the sub-prefixes of `prefix`; no object is handed out or counted. */
  folders(prefix: string): Promise<string[]>;
  /** A bounded read of one small object. */
  read(key: string, maxBytes: number): Promise<ReadResult>;
  /** A bounded read of one large object as its chunks arrive, for a parser that never holds it whole. */
  readStream(key: string, maxBytes: number): Promise<StreamResult>;
}

/**
 * One object of a scope's WAL area as its format classifies it, in the neutral words evidence
 * builds ranges from. Names are PostgreSQL's 24-hex WAL names; keys stay relative.
 */
export type WalEntry =
  /** A whole segment. `sizeOk` is the format's judgement of its listed size (true when sizes are not judged). */
  | { readonly kind: 'segment'; readonly name: string; readonly compressed: boolean; readonly sizeOk: boolean; readonly receivedAt: number | null; readonly restore?: RestoreChoice }
  /** A `.partial` segment; with `restore`, the format's restore tool may take it for a whole segment of its name. */
  | { readonly kind: 'partial'; readonly name: string; readonly receivedAt: number | null; readonly restore?: RestoreChoice }
  | { readonly kind: 'backup-history'; readonly receivedAt: number | null }
  /** A timeline history file, to be read through the format. */
  | { readonly kind: 'history'; readonly timeline: number; readonly ref: HistoryRef; readonly receivedAt: number | null }
  | { readonly kind: 'unknown'; readonly receivedAt: number | null };

/**
 * How the format's own restore tool chooses among the copies of one WAL name (stored under several
 * keys): it takes the copy of the lowest `rank`, the first listed among equals, and refuses to
 * choose when copies carry different `identity` values (a checksum in the key). Evidence counts a
 * position as present only when the copy the tool would take is a plausible whole segment.
 * Absent: rank 0, no identity.
 */
export interface RestoreChoice {
  readonly rank: number;
  readonly identity: string | null;
}

/** Where a history file is and how it is stored: the format's own, opaque to evidence. */
export interface HistoryRef {
  readonly key: string;
  readonly encoding: string | null;
}

/** A history file's bytes as PostgreSQL wrote them, or why they could not be had. */
export type HistoryBytes = { readonly ok: true; readonly bytes: Uint8Array } | { readonly ok: false; readonly status: 'unread' } | { readonly ok: false; readonly status: 'invalid'; readonly reason: string };

/** Where a backup belongs in the operator's catalog (the spec keeps these kinds apart). */
export type Shelf = 'completed' | 'in progress or abandoned' | 'failed' | 'malformed' | 'unsupported' | 'structurally incomplete';

/** A format's verdict on a backup, with its reason in the format's own words. */
export interface FormatVerdict {
  readonly state: State;
  readonly code: string;
  readonly message: string;
  /** The shelf of a verdict that decides before any WAL is consulted; judged by state otherwise. */
  readonly shelf?: Shelf;
}

/**
 * What operators know a backup by, as the format's own tools list it: for the operator's pages
 * only, never on the wire (the backup item's fields are closed).
 */
export interface BackupLabel {
  /** The name given to the backup (barman-cloud: `backup_name`); printable, at most 128 characters; null when none. */
  readonly name: string | null;
  /** Kept out of retention by the operator, and how (barman-cloud: the keep annotation); null when not, or unrecognised. */
  readonly keep: 'full' | 'standalone' | null;
  /** The error text the tool recorded for the backup (barman-cloud: `error`), bounded; null or absent when none. Pages only, never the wire. */
  readonly error?: string | null;
}

/** What a format knows of one backup, before evidence checks the WAL it needs. */
export interface FormatBackup {
  /** The wire item's fields as far as the format validated them (evidence adds server, state and reason). */
  readonly fields: Omit<BackupItem, 'server' | 'state' | 'reason'>;
  /** A verdict reached before any WAL is consulted (metadata, artifacts); null when WAL decides. */
  readonly decided: FormatVerdict | null;
  /** When WAL decides: the verdict if `begin_wal`..`end_wal` cannot be placed under the archive's geometry. */
  readonly unplaceable: FormatVerdict;
  /** When WAL decides: the verdict once all WAL it needs is present (healthy, or a warning of the format's). */
  readonly otherwise: FormatVerdict;
  /** The format recorded the backup as completed (barman-cloud: `DONE`). */
  readonly completed: boolean;
  /**
   * Completed, or its status cannot be read (metadata present but unreadable, malformed, or behind
   * a cipher): it may be a completed backup, and the summaries count it as one (never healthier).
   */
  readonly mayHaveCompleted: boolean;
  /** Kept by the operator only up to its consistency point (barman-cloud: `keep:standalone`). */
  readonly standalone: boolean;
  /** Values that contradict nothing else in the metadata (null otherwise). */
  readonly trusted: { readonly timeline: number | null; readonly endLsn: bigint | null; readonly endAt: string | null };
  readonly label: BackupLabel;
  /**
   * The backups whose artifacts this one needs to be restored (an incremental or differential
   * backup's chain; [] for a self-contained backup). Evidence makes a backup no more usable than
   * any backup it depends on (the dependency-chain rule, evidence/backups.ts).
   */
  readonly dependsOn: readonly BackupDependency[];
}

/** One backup another depends on: its id, and the catalog's backup of that id (null when the catalog has none). */
export interface BackupDependency {
  readonly id: string;
  readonly backup: FormatBackup | null;
}

/** The catalog of one scope: its backups and what they say of the WAL archive's geometry. */
export interface FormatCatalog {
  readonly backups: readonly FormatBackup[];
  readonly geometry: WalGeometry | null;
  readonly geometryIssue: 'unknown' | 'conflict' | null;
  readonly systemIds: ReadonlySet<string>;
  /** A safety ceiling was reached (more backup directories than kept). */
  readonly truncated: boolean;
  /** Objects of the catalog area that are no backup's. */
  readonly unknownObjects: number;
}

/** Another registered repository format recognised at a destination: its id, as its REPOSITORY_FORMAT would be (D-60). */
export type ForeignFormat = string;

/**
 * A format's layout as a few one-level listings see it: how every other format's discovery and
 * scope reading recognise it (asked through the registry, never by a list of names), and the
 * words the pages and the empty-scope hints use for it.
 */
export interface LayoutShape {
  /** How another format's discovery names it: "a pgBackRest repository". */
  readonly describedAs: string;
  /** What one scope is called in hints: "server", "stanza". */
  readonly scopeNoun: string;
  /** Folders directly under the destination that hold its scopes, one level down (empty: the scopes are directly there). */
  readonly rootAreas: readonly string[];
  /** Folders directly under one scope's own prefix that mark it as this format's (empty when none do). */
  readonly scopeAreas: readonly string[];
  /**
   * Whether the destination (the access's base) holds this layout, given the folder names directly
   * there (without `/`): a few bounded listings of its own metadata, never a whole listing.
   */
  holdsAt(access: ScopeAccess, names: readonly string[]): Promise<boolean>;
  /** Whether a key, relative to the destination, is one of this format's own metadata files. */
  ownsKey(key: string): boolean;
}

/** Another registered format's layout, as a format's discovery and `readOthers` are handed it. */
export interface ForeignLayout {
  readonly id: string;
  readonly layout: LayoutShape;
}

/** One of a format's own facts beside the common summary, as a value the pages and the text render alike. */
export type FactValue =
  | { readonly kind: 'count'; readonly value: number | null }
  /** Counts by kind ("3 full, 1 diff"); null when unknown. */
  | { readonly kind: 'counts'; readonly parts: readonly { readonly count: number; readonly unit: string }[] | null }
  | { readonly kind: 'flag'; readonly value: boolean | null }
  | { readonly kind: 'state'; readonly value: StateReason };

/** A format's own facts beside the common summary: a view model, rendered by the pages and `viewer scan --output text`. */
export interface FormatFacts {
  /** Labelled values for the pages, in order. */
  readonly page: readonly { readonly label: string; readonly value: FactValue }[];
  /** Labelled lines for the text output, worded as the format's own tools' users read them. */
  readonly text: readonly { readonly label: string; readonly text: string }[];
}

/**
 * A status kept under a heading of its own in the catalog whatever shelf it is on, never among
 * completed backups; `note` says what it means, naming the tool.
 */
export interface OwnHeading {
  readonly status: string;
  readonly heading: string;
  note(tool: string): string;
}

/** What discovery found under a destination. */
export interface Discovery {
  /** Scope names, sorted; without another format's areas. */
  readonly servers: readonly string[];
  /**
   * Objects under the destination outside every scope, counted exactly; null beside another
   * format's areas, which are recognised but not listed whole (a pgBackRest archive can hold
   * millions of objects, none of them evidence viewer reads).
   */
  readonly unscopedObjects: number | null;
  readonly foreignFormat: ForeignFormat | null;
}

/** What evidence knows of a scope for a format's `details` payload (wire types only). */
export interface DetailsInput {
  /** Exact collection sizes; null before a complete scan. */
  readonly totals: { readonly backups: number; readonly ranges: number; readonly gaps: number; readonly paths: number } | null;
  readonly structurallyUsable: number | null;
  readonly backupStates: StateCounts | null;
  readonly walCounts: WALCounts | null;
  readonly wal: StateReason;
  readonly timeline: StateReason;
  readonly coverage: StateReason;
  readonly retention: RetentionSummary;
  readonly latestArchiveReceiptAt: string | null;
  readonly rangesTruncated: boolean;
  readonly diagnosticsTruncated: boolean;
  /**
   * The backup items as published, for a format's own counts (statuses, types, encryption); null
   * before a complete scan. Absent where a caller rebuilds a payload from another (`detailsView`).
   */
  readonly backups?: readonly Pick<BackupItem, 'status' | 'backup_type' | 'encryption'>[] | null;
  /** The dependency-chain-validation capability's verdict (unknown before a complete scan). */
  readonly dependencyChain?: StateReason;
}

/**
 * A format's verdict maker from its reason table and the shelves some reasons put a backup on:
 * one way for every format to turn a code into a `FormatVerdict`.
 */
export function verdictMaker<C extends string>(reasons: Readonly<Record<C, string>>, shelves: Readonly<Partial<Record<C, Shelf>>>): (state: State, code: C) => FormatVerdict {
  return (state, code) => {
    const shelf = shelves[code];
    return { state, code, message: reasons[code], ...(shelf === undefined ? {} : { shelf }) };
  };
}

/** The fields every format's payload shares, filled from `DetailsInput` the same way for each (the wire's `CommonSummary`). */
export function commonPayload(d: DetailsInput): CommonSummary {
  return {
    backup_items: d.totals?.backups ?? null,
    wal_range_items: d.totals?.ranges ?? null,
    wal_gap_items: d.totals?.gaps ?? null,
    recovery_path_items: d.totals?.paths ?? null,
    structurally_usable_backups: d.structurallyUsable,
    backup_states: d.backupStates,
    wal_counts: d.walCounts,
    wal: d.wal,
    timeline: d.timeline,
    coverage: d.coverage,
    retention: d.retention,
    latest_archive_receipt_at: d.latestArchiveReceiptAt,
    ranges_truncated: d.rangesTruncated,
    diagnostics_truncated: d.diagnosticsTruncated,
  };
}

/** A retention policy an operator expects, in the neutral terms viewer compares evidence with. */
export type RetentionPolicy =
  | { readonly kind: 'redundancy'; readonly count: number }
  | { readonly kind: 'recovery-window'; readonly amount: number; readonly unit: 'days' | 'weeks' | 'months' };

/** A gap's positions on its timeline, as the format's retention rule sees it. */
export interface GapSpan {
  readonly timeline: number;
  readonly start: number;
  readonly end: number;
}

/** Whether a gap has exactly the shape the format's own retention leaves. */
export type GapClass = 'retention-expected' | 'unexplained';

/** What a format's retention rule needs of one backup, once evidence has placed it. */
export interface BackupPlacement {
  readonly completed: boolean;
  readonly standalone: boolean;
  readonly timeline: number | null;
  readonly beginPosition: number | null;
  readonly endPosition: number | null;
  /** RFC 3339, or null when unknown. */
  readonly beginAt: string | null;
}

/** The WAL area once its layout is known: parts in key order, sizes judged against `segmentSize` when known. */
export interface WalPlan {
  parts(segmentSize: number | null): readonly AsyncIterable<readonly WalEntry[]>[];
}

/**
 * One repository format: everything `evidence/` needs to know of it, and the only way it knows
 * any. Evidence keeps the rules that are PostgreSQL's (ranges, gaps and their lifecycle,
 * timelines, recovery paths, the WAL a backup needs, the scope states); the format owns its
 * layout, its metadata, its verdicts on backups, its retention shape and its capabilities.
 */
export interface RepositoryFormat {
  /** The `REPOSITORY_FORMAT` value, and the key of the format registry (`registry.ts`). */
  readonly id: string;
  /**
   * The wire's `format` its publications carry: its id for every format the contract defines.
   * v1alpha1 is closed, so a format without a payload of its own in the contract publishes under
   * one the contract has (only the test-only format does, D-125).
   */
  readonly wireFormat: WireFormat;
  /** Whether sidecar mode may read it (the spec: archive-cloud only). */
  readonly sidecar: boolean;
  /** Its layout as other formats, the pages and the hints recognise it. */
  readonly layout: LayoutShape;
  /** Its own facts beside the common summary for the pages and the text output; null when the details carry none of its own. */
  facts(details: Details | null | undefined): FormatFacts | null;
  /** Statuses its catalog keeps under headings of their own (none for most formats). */
  readonly ownHeadings: readonly OwnHeading[];
  /** What to do about each reason code only this format emits: one sentence each, `{tool}` for its tool (publication/advice.ts merges them). */
  readonly advice: Readonly<Record<string, string>>;
  /**
   * The key prefixes a scope may touch (confinement) and the base its keys are relative to (a
   * prefix of every root), under a destination prefix.
   */
  scopeRoots(destinationPrefix: string, scope: string): { readonly base: string; readonly roots: readonly string[] };
  /** The scopes under a destination (the access's base) and what else lies there; `others` are every other registered format's layouts. */
  discoverScopes(access: ScopeAccess, others: readonly ForeignLayout[]): Promise<Discovery>;
  /** The tool whose repositories the format reads, as state messages name it ("Barman's retention"). */
  readonly tool: string;
  /** The format's tagged `details` payload, filled from what evidence knows of the scope. */
  details(input: DetailsInput): Details;
  /** Which of the spec's nine capabilities the format has at all. */
  readonly capabilities: Readonly<Record<CapabilityId, 'supported' | 'unsupported'>>;
  /**
   * The scope's catalog. `scope` is the scope's name (the server, or the stanza): a format whose
   * key layout names the scope below the base (`scopeRoots`) needs it; others ignore it.
   */
  readCatalog(access: ScopeAccess, maxBackups: number, scope: string): Promise<FormatCatalog>;
  /**
   * The archive's geometry, for a format that declares it apart from its backups' own files (one
   * small metadata file): the WAL listing then starts while the rest of the catalog is still being
   * read, instead of after it. Must be exactly the catalog's `geometry` and `geometryIssue` (the
   * same read, shared). Absent: the WAL listing waits for the catalog.
   */
  readGeometry?(access: ScopeAccess, scope: string): Promise<Pick<FormatCatalog, 'geometry' | 'geometryIssue'>>;
  /** Lists what the WAL area's layout needs before it can be read in parallel parts. */
  planWal(access: ScopeAccess, scope: string): Promise<WalPlan>;
  /** Everything in the scope that is neither catalog nor WAL: counted as unknown; another registered format's files (`others`) recognised. */
  readOthers(access: ScopeAccess, scope: string, others: readonly ForeignLayout[]): Promise<{ readonly unknownObjects: number; readonly foreignLayout: boolean }>;
  readHistory(access: ScopeAccess, ref: HistoryRef, maxBytes: number): Promise<HistoryBytes>;
  /** Each gap's class, in the order given. */
  classifyGaps(gaps: readonly GapSpan[], backups: readonly BackupPlacement[], geometry: WalGeometry | null, observed: (timeline: number) => readonly { readonly start: number; readonly end: number }[]): GapClass[];
  /** The format's own retention-policy syntax; null for text it does not recognise. */
  parseRetentionPolicy(text: string): RetentionPolicy | null;
}
