/**
 * What the standalone pages render from: one scope as the pages see it (`ScopeView`, built by
 * scope-view.ts), what discovery found at the destination (`DestinationFacts`), and the page's
 * context (`PageContext`: the scopes, the operator's expectations, the repository's format as the
 * pages need it). Also the bounds of what one page draws and lists, and the two small keys every
 * section shares (a gap's key, the fleet repository's query).
 */
import type { State, FailureCategory } from '../../contract/primitives.ts';
import type { BackupLabel, ForeignFormat, RepositoryFormat, Shelf } from '../../format/seam.ts';
import type { RecentObject } from '../../evidence/scope-scan.ts';
import type { Publication } from '../../publication/publisher.ts';

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
  /** The tool whose repository this is, as the evidence names it (the format's `tool`); null before a scan. */
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
   * format's order, each with how its artifacts stand as a dependency, `null` when the catalog
   * does not hold it.
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
  /** Another registered format's id, when the destination holds its layout. */
  readonly foreignFormat: ForeignFormat | null;
  /** The category of the last discovery's failure (a wrong bucket, denied, the store down); null after a success. */
  readonly discoveryFailure: FailureCategory | null;
  /** True until the first discovery has ended: no scope is known yet, and none is missing either (D-77). */
  readonly discoveryPending: boolean;
  /**
   * What points at the cause of the last discovery failure (error name, HTTP status, local cause;
   * never the endpoint); absent or null when none is known.
   */
  readonly discoveryFailureDetail?: string | null;
}

/**
 * What the pages need of the repository's format (REPOSITORY_FORMAT): its id, its layout's words
 * (the notice about another format at the destination), its own facts beside the common summary
 * and the statuses its catalog keeps under headings of their own. The command line passes the
 * `RepositoryFormat` itself.
 */
export type PageFormat = Pick<RepositoryFormat, 'id' | 'layout' | 'facts' | 'ownHeadings'>;

export interface PageContext {
  readonly scopes: readonly ScopeView[];
  /** Null with a configured list of servers: nothing beside them is looked at. */
  readonly destination: DestinationFacts | null;
  /** The format of the repository these pages show; null on the fleet page, which shows many. */
  readonly format: PageFormat | null;
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

/**
 * What one page draws and lists is bounded whatever the repository holds (100 k ranges, 100 k
 * paths): the newest timelines, the first gaps by position, the newest backups' paths; the rest
 * is counted in a note. The sidecar API and `viewer scan` carry every item.
 */
export const PAGE_BOUNDS = { lanes: 16, gaps: 1_000, rangesPerLane: 1_000, pathsPerTarget: 50, targets: 16 } as const;
