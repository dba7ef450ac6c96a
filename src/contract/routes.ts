/**
 * The sidecar API's routes (spec "Sidecar the service"): the one list the server routes and logs
 * by, cursors bind, the probe and the consumer library (src/client/) call and the tests walk. A request whose path is not one of these
 * is `not-found`, logged as the route `unknown`.
 */
import type { WireKind } from './kinds.ts';

const API = '/api/v1alpha1';

export const HEALTH_PATH = '/healthz';
export const READY_PATH = '/readyz';
export const SNAPSHOT_PATH = `${API}/snapshot`;

/**
 * The paginated collections, each with its path and page kind. The order is the cursors': a cursor
 * records its collection as an index into this list.
 */
export const COLLECTIONS = [
  { route: 'backups', path: `${API}/backups`, kind: 'ArchiveBackupPage' },
  { route: 'wal-ranges', path: `${API}/wal-ranges`, kind: 'ArchiveWALRangePage' },
  { route: 'wal-gaps', path: `${API}/wal-gaps`, kind: 'ArchiveWALGapPage' },
  { route: 'recovery-paths', path: `${API}/recovery-paths`, kind: 'ArchiveRecoveryPathPage' },
] as const satisfies readonly { route: string; path: string; kind: WireKind }[];

export type Collection = (typeof COLLECTIONS)[number];
export type CollectionRoute = Collection['route'];

/** Every route, by the stable name request logs use. */
export const API_ROUTES: readonly string[] = [HEALTH_PATH, READY_PATH, SNAPSHOT_PATH, ...COLLECTIONS.map((c) => c.path)];
