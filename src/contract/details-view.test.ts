/** The format-neutral reading of `details`: the same common summary from either payload, nothing from an unknown type. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { commonSummary, payloadPointer, requireCommonSummary, stanzaRepositoryFacts, withStatesUnknown } from './details-view.ts';
import { snapshotComplete, stanzaSnapshotComplete } from './examples.ts';
import { CommonSummary, type Details } from './snapshot.ts';
import { COMMON_SUMMARY_FIELDS, STANZA_SUMMARY_STATES, SUMMARY_STATES } from './values.ts';
import { wireViolations } from './validate.ts';

const foreign = { type: 'stanza-repository/v2', stanza_repository: snapshotComplete.details.archive_cloud } as unknown as Details;

describe('commonSummary', () => {
  it('reads the fields the schema of the common summary declares, in its order (values.ts and snapshot.ts agree)', () => {
    assert.deepEqual(Object.keys(CommonSummary.properties), COMMON_SUMMARY_FIELDS);
  });
  it('returns exactly the shared fields of either payload', () => {
    assert.deepEqual(commonSummary(snapshotComplete.details), snapshotComplete.details.archive_cloud);
    const c = commonSummary(stanzaSnapshotComplete.details);
    assert.deepEqual(Object.keys(c ?? {}), COMMON_SUMMARY_FIELDS);
    const shared: Record<string, unknown> = { ...stanzaSnapshotComplete.details.stanza_repository };
    for (const own of ['backup_types', 'dependency_chain', 'encrypted', 'interrupted_backups']) delete shared[own];
    assert.deepEqual(c, shared);
  });

  it('is null for no details and for a type the contract does not define; requireCommonSummary throws there', () => {
    assert.equal(commonSummary(null), null);
    assert.equal(commonSummary(undefined), null);
    assert.equal(commonSummary(foreign), null);
    assert.equal(commonSummary({ type: 'toString' } as unknown as Details), null, 'an inherited key is no type');
    assert.throws(() => requireCommonSummary(foreign), TypeError);
    assert.equal(payloadPointer(foreign), null);
    assert.equal(payloadPointer(stanzaSnapshotComplete.details), '/details/stanza_repository');
  });

  it('reads pgBackRest\'s own facts only from a stanza-repository payload', () => {
    assert.deepEqual(stanzaRepositoryFacts(stanzaSnapshotComplete.details), {
      backup_types: { full: 1, diff: 1, incr: 1 },
      dependency_chain: stanzaSnapshotComplete.details.stanza_repository.dependency_chain,
      encrypted: false,
      interrupted_backups: 1,
    });
    assert.equal(stanzaRepositoryFacts(snapshotComplete.details), null);
  });
});

describe('withStatesUnknown', () => {
  const r = { code: 'evidence-stale', message: 'Evidence is retained from an earlier generation.' };

  it('makes every state of the payload unknown, the dependency chain included, and keeps every other field', () => {
    const d = withStatesUnknown(stanzaSnapshotComplete.details, r);
    assert.equal(d.type, 'stanza-repository/v1alpha1');
    const before = stanzaSnapshotComplete.details.stanza_repository;
    const after = d.stanza_repository;
    for (const s of STANZA_SUMMARY_STATES) assert.deepEqual([after[s].state, after[s].reason], ['unknown', r], s);
    assert.deepEqual({ ...after.retention, state: before.retention.state, reason: before.retention.reason }, before.retention);
    assert.deepEqual([after.backup_types, after.encrypted, after.interrupted_backups, after.backup_items], [before.backup_types, before.encrypted, before.interrupted_backups, before.backup_items]);
    const stale = { ...stanzaSnapshotComplete, stale: true, state: 'unknown' as const, reason: r, capabilities: stanzaSnapshotComplete.capabilities.map((c) => ({ ...c, state: 'unknown' as const })), details: d };
    assert.deepEqual(wireViolations('RepositoryEvidenceSnapshot', stale), []);
  });

  it('sets the truncation flags when given, and leaves the archive-cloud payload\'s shape alone', () => {
    const d = withStatesUnknown(snapshotComplete.details, r, { ranges: true, diagnostics: false });
    const after = (d as typeof snapshotComplete.details).archive_cloud;
    assert.deepEqual(Object.keys(after), COMMON_SUMMARY_FIELDS);
    for (const s of SUMMARY_STATES) assert.equal(after[s].state, 'unknown');
    assert.deepEqual([after.ranges_truncated, after.diagnostics_truncated], [true, false]);
    assert.throws(() => withStatesUnknown(foreign, r), TypeError);
  });
});
