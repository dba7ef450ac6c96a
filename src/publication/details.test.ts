/** The publication's details: one view of either payload, and an overlay that keeps a format's own facts. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { snapshotComplete, stanzaSnapshotComplete } from '../contract/examples.ts';
import type { Details } from '../contract/snapshot.ts';
import { archiveCloud } from '../format/barman-cloud/format.ts';
import { detailsView, emptyDetails, overlayDetails } from './details.ts';

const r = { code: 'refresh-unavailable', message: 'The latest refresh failed (unavailable); earlier evidence, if any, is retained.' };

describe('detailsView', () => {
  it('reads the same view from either payload', () => {
    const archive = detailsView(snapshotComplete.details);
    const stanza = detailsView({ type: 'stanza-repository/v1alpha1', stanza_repository: { ...stanzaSnapshotComplete.details.stanza_repository, ...snapshotComplete.details.archive_cloud } });
    assert.deepEqual(stanza, archive);
    assert.deepEqual(archive.totals, { backups: 2, ranges: 3, gaps: 1, paths: 3 });
    assert.deepEqual(archive.routeTotals, { backups: 2, 'wal-ranges': 3, 'wal-gaps': 1, 'recovery-paths': 3 });
    assert.equal(detailsView(stanzaSnapshotComplete.details).structurallyUsable, 3);
  });

  it('refuses details of a type the contract does not define', () => {
    assert.throws(() => detailsView({ type: 'archive-cloud/v2' } as unknown as Details), TypeError);
  });
});

describe('overlayDetails', () => {
  it('is what the archive-cloud format would fill from the same view', () => {
    const v = detailsView(snapshotComplete.details);
    const unknown = { state: 'unknown' as const, reason: r };
    const refilled = archiveCloud.details({ ...v, wal: unknown, timeline: unknown, coverage: unknown, retention: { ...v.retention, ...unknown }, rangesTruncated: false, diagnosticsTruncated: true });
    assert.deepEqual(overlayDetails(archiveCloud, snapshotComplete.details, r, { ranges: false, diagnostics: true }), refilled);
  });

  it('keeps a stanza-repository payload\'s own facts and makes its dependency chain unknown', () => {
    const d = overlayDetails(archiveCloud, stanzaSnapshotComplete.details, r);
    assert.equal(d.type, 'stanza-repository/v1alpha1');
    const p = d.stanza_repository;
    assert.deepEqual(p.dependency_chain, { state: 'unknown', reason: r });
    assert.deepEqual([p.backup_types, p.encrypted, p.interrupted_backups], [{ full: 1, diff: 1, incr: 1 }, false, 1]);
  });
});

describe('emptyDetails', () => {
  it('is the format\'s payload with no evidence and the configured expectations', () => {
    const d = emptyDetails(archiveCloud, r, { policyText: 'REDUNDANCY 2', policy: { kind: 'redundancy', count: 2 }, minimumRedundancy: 1, maxArchiveLagSeconds: null });
    const v = detailsView(d);
    assert.equal(v.totals, null);
    assert.deepEqual([v.retention.minimum_configured, v.retention.policy_configured, v.retention.minimum_redundancy, v.wal.state], [true, true, 1, 'unknown']);
  });
});
