/**
 * pgBackRest's repository (`stanza-repository`, D-60) as a repository format behind the seam: one
 * stanza is the scope, its areas `backup/<stanza>/` (the catalog, `backups.ts`) and
 * `archive/<stanza>/` (the WAL, `wal-plan.ts`) under the repository root (`layout.ts`); discovery
 * lists the stanzas (`discovery.ts`); pgBackRest's retention shape and the one retention-policy
 * form with a neutral meaning (`retention.ts`); which of the spec's capabilities the format has;
 * the tool its messages name; its facts, headings and layout as the pages, the text output and
 * other formats see them; and the `stanza-repository/v1alpha1` payload (D-72). Standalone
 * mode only: the sidecar refuses the format (cli/config). Design: docs/design/stanza-repository.md.
 */
import { DETAILS_TYPE_STANZA_REPOSITORY, FORMAT_STANZA_REPOSITORY, isCompleted } from '../../contract/values.ts';
import type { Details } from '../../contract/snapshot.ts';
import { commonPayload, type DetailsInput, type FormatFacts, type RepositoryFormat } from '../seam.ts';
import { ADVICE } from './advice.ts';
import { readCatalog, readGeometry } from './backups.ts';
import { discoverStanzas } from './discovery.ts';
import { stanzaLayout, stanzaRoots } from './layout.ts';
import { classifyGaps, parseRetentionPolicy } from './retention.ts';
import { planWal, readHistory, readOthers } from './wal-plan.ts';

/** The payload's own facts, counted from the published backup items (null before a complete scan). */
function stanzaFacts(d: DetailsInput) {
  const items = d.backups ?? null;
  if (items === null) return { backup_types: null, interrupted_backups: null, encrypted: null };
  // A backup whose status is unknown (its backup.info behind a cipher) may be listed or not: the
  // counts by type are then unknown, never a zero that reads as "none".
  const unknownStatus = items.some((b) => b.status === null);
  const types = { full: 0, diff: 0, incr: 0 };
  let interrupted = 0;
  for (const b of items) {
    if (isCompleted(b) && (b.backup_type === 'full' || b.backup_type === 'diff' || b.backup_type === 'incr')) types[b.backup_type] += 1;
    if (b.status === 'INTERRUPTED') interrupted += 1;
  }
  // The cipher is in use when any backup shows it; not in use when every backup's files prove none; else unknown.
  const encryptions = new Set(items.map((b) => b.encryption));
  const encrypted = encryptions.has('aes-256-cbc') ? true : encryptions.size === 1 && encryptions.has('none') ? false : null;
  return { backup_types: unknownStatus ? null : types, interrupted_backups: unknownStatus ? null : interrupted, encrypted };
}

/** pgBackRest's facts beside the common summary (D-72), as `pgbackrest info` users look for them; null for another payload. */
function facts(details: Details | null | undefined): FormatFacts | null {
  if (details?.type !== DETAILS_TYPE_STANZA_REPOSITORY) return null;
  const f = details.stanza_repository;
  const t = f.backup_types;
  const types = t === null ? 'unknown' : `${t.full} full, ${t.diff} diff, ${t.incr} incr listed in backup.info`;
  const interrupted = f.interrupted_backups === null ? 'unknown' : String(f.interrupted_backups);
  const cipher = f.encrypted === null ? 'unknown' : f.encrypted ? 'aes-256-cbc' : 'none';
  return {
    page: [
      { label: 'Completed backups by type', value: { kind: 'counts', parts: t === null ? null : [{ count: t.full, unit: 'full' }, { count: t.diff, unit: 'diff' }, { count: t.incr, unit: 'incr' }] } },
      { label: 'Interrupted backups', value: { kind: 'count', value: f.interrupted_backups } },
      { label: 'Encrypted repository', value: { kind: 'flag', value: f.encrypted } },
      { label: 'Dependency chains', value: { kind: 'state', value: f.dependency_chain } },
    ],
    text: [
      { label: 'backup sets', text: `${types}; ${interrupted} interrupted; repository cipher ${cipher}` },
      { label: 'dependencies', text: `${f.dependency_chain.state} (${f.dependency_chain.reason.code})` },
    ],
  };
}

export const stanzaRepository: RepositoryFormat = {
  id: FORMAT_STANZA_REPOSITORY,
  wireFormat: FORMAT_STANZA_REPOSITORY,
  // Standalone mode only (spec).
  sidecar: false,
  tool: 'pgBackRest',
  layout: stanzaLayout,
  facts,
  // Kept apart from the completed backups whatever their shelf (D-72).
  ownHeadings: [
    { status: 'INTERRUPTED', heading: 'Interrupted', note: (tool) => `Started and never completed: interrupted, or still running (the repository cannot tell). Not restorable, and not listed by ${tool}'s own info.` },
    { status: 'UNLISTED', heading: 'Unlisted', note: (tool) => `Complete backup directories the catalog of backups does not list: ${tool}'s own info and restore see them only once the catalog is rebuilt.` },
  ],
  advice: ADVICE,
  scopeRoots: stanzaRoots,
  // Every capability: pgBackRest writes diff and incr chains and encrypted repositories.
  capabilities: {
    'object-inventory': 'supported',
    'catalog-listing': 'supported',
    'structural-artifact-validation': 'supported',
    'dependency-chain-validation': 'supported',
    'wal-continuity': 'supported',
    'timeline-history-traversal': 'supported',
    'encrypted-metadata': 'supported',
    'observed-recovery-coverage': 'supported',
    'retention-expectation-comparison': 'supported',
  },
  readCatalog,
  // backup.info alone declares the segment size: the WAL listing need not wait for the manifests.
  readGeometry,
  planWal,
  readOthers,
  readHistory,
  discoverScopes: discoverStanzas,
  classifyGaps,
  parseRetentionPolicy,
  // The `stanza-repository/v1alpha1` payload: the common summary, field for field, and pgBackRest's facts.
  details: (d) => ({
    type: DETAILS_TYPE_STANZA_REPOSITORY,
    stanza_repository: {
      ...commonPayload(d),
      ...stanzaFacts(d),
      // Absent only where a payload is refilled from another's common fields: then it is not judged.
      dependency_chain: d.dependencyChain ?? { state: 'unknown', reason: { code: 'capability-not-judged', message: 'viewer does not judge this capability for this format yet.' } },
    },
  }),
};
