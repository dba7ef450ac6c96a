/**
 * barman-cloud (`archive-cloud`) as a repository format behind the seam: one server prefix
 * `<prefix>/<server>/` holding `base/` (the catalog, `backups.ts`) and `wals/` (the WAL area,
 * `wal-reader.ts`), Barman's retention shape (`retention-holes.ts`) and retention-policy syntax
 * (`retention-policy.ts`), its layout as others recognise it (`layout.ts`), and which of the
 * spec's capabilities the format has.
 */
import { DETAILS_TYPE_ARCHIVE_CLOUD, FORMAT_ARCHIVE_CLOUD } from '../../contract/values.ts';
import { commonPayload, type RepositoryFormat } from '../seam.ts';
import { ADVICE } from './advice.ts';
import { readCatalog } from './backups.ts';
import { discoverServers } from './discovery.ts';
import { serverLayout } from './layout.ts';
import { classifyGaps } from './retention-holes.ts';
import { parseRetentionPolicy } from './retention-policy.ts';
import { readHistory, readOthers, walDirectories, walParts } from './wal-reader.ts';

/** The server prefix that holds one barman-cloud scope, and that every request of it stays under: `<prefix>/<server>/`, or `<server>/` for an empty prefix. */
export function scopeRoot(destinationPrefix: string, serverName: string): string {
  return destinationPrefix === '' ? `${serverName}/` : `${destinationPrefix}/${serverName}/`;
}

export const archiveCloud: RepositoryFormat = {
  id: FORMAT_ARCHIVE_CLOUD,
  wireFormat: FORMAT_ARCHIVE_CLOUD,
  // The one format the sidecar reads (spec).
  sidecar: true,
  tool: 'Barman',
  layout: serverLayout,
  // The payload is the common summary alone: nothing of its own beside it.
  facts: () => null,
  ownHeadings: [],
  advice: ADVICE,
  // One server prefix holds the whole scope.
  scopeRoots(prefix, server) {
    const root = scopeRoot(prefix, server);
    return { base: root, roots: [root] };
  },
  // barman-cloud writes neither incremental chains nor encrypted metadata.
  capabilities: {
    'object-inventory': 'supported',
    'catalog-listing': 'supported',
    'structural-artifact-validation': 'supported',
    'dependency-chain-validation': 'unsupported',
    'wal-continuity': 'supported',
    'timeline-history-traversal': 'supported',
    'encrypted-metadata': 'unsupported',
    'observed-recovery-coverage': 'supported',
    'retention-expectation-comparison': 'supported',
  },
  readCatalog,
  async planWal(access) {
    const dirs = await walDirectories(access);
    return { parts: (segmentSize) => walParts(access, dirs, segmentSize) };
  },
  readOthers,
  // The `archive-cloud/v1alpha1` payload, field for field.
  details: (d) => ({
    type: DETAILS_TYPE_ARCHIVE_CLOUD,
    archive_cloud: commonPayload(d),
  }),
  discoverScopes: discoverServers,
  readHistory,
  classifyGaps,
  parseRetentionPolicy,
};
