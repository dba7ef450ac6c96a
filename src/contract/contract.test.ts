/**
 * The wire contract proves itself: the committed schema and example files are what the code
 * generates, every schema compiles under a strict 2020-12 validator, every valid example passes,
 * every negative example fails, and the serializer is canonical.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { NEGATIVE_EXAMPLES, snapshotComplete, stanzaSnapshotComplete, VALID_EXAMPLES } from './examples.ts';
import { contractFiles, GENERATED_DIRS, INVALID_EXAMPLE_DIR, SCHEMA_DIR, VALID_EXAMPLE_DIR } from './files.ts';
import { DETAILS_SCHEMA_NAMES, WIRE_KINDS, type WireKind } from './kinds.ts';
import { serialize } from './serialize.ts';
import type { RepositoryEvidenceSnapshot } from './snapshot.ts';
import { foreignDetailsSnapshotViolations, wireViolations } from './validate.ts';
import { createAjv } from './validator-build.ts';
import { invariantViolations } from './invariants.ts';

const root = join(import.meta.dirname, '..', '..');
const read = (path: string) => readFileSync(join(root, path), 'utf8');

describe('generated contract files', () => {
  const files = contractFiles();
  it('are committed exactly as generated (run npm run contract after a change)', () => {
    for (const [path, text] of files) assert.equal(read(path), text, `${path} is out of date`);
    for (const dir of GENERATED_DIRS) {
      for (const name of readdirSync(join(root, dir))) assert.ok(files.has(`${dir}/${name}`), `${dir}/${name} is not generated`);
    }
  });

  it('every schema file compiles in a strict Draft 2020-12 validator and accepts its examples', () => {
    const ajv = createAjv();
    for (const kind of WIRE_KINDS) {
      const schema = JSON.parse(read(`${SCHEMA_DIR}/${kind}.schema.json`)) as Record<string, unknown>;
      assert.equal(schema['$schema'], 'https://json-schema.org/draft/2020-12/schema');
      const validate = ajv.compile(schema);
      const examples = VALID_EXAMPLES.filter((e) => e.kind === kind);
      assert.ok(examples.length > 0, `${kind} has no example`);
      for (const ex of examples) {
        const file = JSON.parse(read(`${VALID_EXAMPLE_DIR}/${ex.name}.json`)) as { kind: WireKind; body: unknown };
        assert.equal(file.kind, kind);
        assert.ok(validate(file.body), `${ex.name}: ${JSON.stringify(validate.errors)}`);
      }
    }
  });

  it('each details member has a schema file of its own that accepts exactly its examples\' details', () => {
    const ajv = createAjv();
    const snapshots = VALID_EXAMPLES.filter((e) => e.kind === 'RepositoryEvidenceSnapshot').map((e) => e.body as RepositoryEvidenceSnapshot);
    const types = new Set(snapshots.map((s) => s.details.type));
    assert.deepEqual([...types].sort(), ['archive-cloud/v1alpha1', 'stanza-repository/v1alpha1']);
    for (const name of DETAILS_SCHEMA_NAMES) {
      const validate = ajv.compile(JSON.parse(read(`${SCHEMA_DIR}/${name}.schema.json`)) as Record<string, unknown>);
      const own = name === 'StanzaRepositoryDetails' ? 'stanza-repository/v1alpha1' : 'archive-cloud/v1alpha1';
      for (const s of snapshots) assert.equal(validate(s.details), s.details.type === own, `${name} on ${s.details.type}`);
    }
  });
});

describe('wire validator', () => {
  for (const ex of VALID_EXAMPLES) {
    it(`accepts ${ex.name}`, () => assert.deepEqual(wireViolations(ex.kind, ex.body), []));
  }
  for (const ex of NEGATIVE_EXAMPLES) {
    it(`rejects ${ex.name}: ${ex.why}`, () => {
      const file = JSON.parse(read(`${INVALID_EXAMPLE_DIR}/${ex.name}.json`)) as { kind: WireKind; body: unknown };
      assert.notDeepEqual(wireViolations(file.kind, file.body), []);
    });
  }

  it('reports rules the schema cannot state through invariants, with a path', () => {
    const body = structuredClone(snapshotComplete);
    body.details.archive_cloud.backup_states = { healthy: 5, warning: 0, unhealthy: 0, unknown: 0 };
    assert.deepEqual(invariantViolations('RepositoryEvidenceSnapshot', body), [
      { path: '/details/archive_cloud/backup_states', rule: 'state counts must sum to backup_items' },
    ]);
  });

  it('holds a stanza-repository payload to the same invariants, and the details type to the format', () => {
    const body = structuredClone(stanzaSnapshotComplete);
    body.details.stanza_repository.backup_states = { healthy: 5, warning: 0, unhealthy: 0, unknown: 0 };
    body.details.stanza_repository.retention.visible_backups = 5;
    assert.deepEqual(invariantViolations('RepositoryEvidenceSnapshot', body), [
      { path: '/details/stanza_repository/backup_states', rule: 'state counts must sum to backup_items' },
      { path: '/details/stanza_repository/retention/visible_backups', rule: 'cannot exceed backup_items' },
    ]);
    const mismatched = { ...structuredClone(snapshotComplete), identity: stanzaSnapshotComplete.identity };
    assert.deepEqual(invariantViolations('RepositoryEvidenceSnapshot', mismatched), [
      { path: '/details/type', rule: 'must be the details type of identity.repository.format' },
    ]);
  });

  it('judges only the envelope of details this client does not recognize (Versioning rule 4)', () => {
    const foreign = { ...structuredClone(stanzaSnapshotComplete), stale: true, details: { type: 'stanza-repository/v2', stanza_repository: { wal: { state: 'healthy' }, anything: [1] } } };
    foreign.state = 'unknown';
    foreign.capabilities = foreign.capabilities.map((c) => ({ ...c, state: 'unknown' as const }));
    assert.deepEqual(foreignDetailsSnapshotViolations(foreign), []);
    assert.deepEqual(foreignDetailsSnapshotViolations(stanzaSnapshotComplete), []);
    assert.notDeepEqual(foreignDetailsSnapshotViolations({ ...foreign, state: 'healthy' }), [], 'the envelope still is');
  });

  it('refuses an unknown kind instead of passing it', () => {
    assert.notDeepEqual(wireViolations('NoSuchKind' as WireKind, {}), []);
  });
});

describe('canonical serializer', () => {
  /** The same value with every object's keys in reverse insertion order. */
  function reversed(value: unknown): unknown {
    if (Array.isArray(value)) return value.map(reversed);
    if (value === null || typeof value !== 'object') return value;
    return Object.fromEntries(Object.entries(value).reverse().map(([k, v]) => [k, reversed(v)]));
  }

  it('gives byte-identical bodies whatever order the keys were built in', () => {
    for (const ex of VALID_EXAMPLES) {
      const a = serialize(ex.kind, ex.body);
      const b = serialize(ex.kind, reversed(ex.body) as typeof ex.body);
      assert.equal(b, a, ex.name);
      assert.notEqual(JSON.stringify(reversed(ex.body)), a, `${ex.name}: the reversal must change naive output`);
    }
  });

  it('keeps nulls present and emits keys in schema order', () => {
    const text = serialize('RepositoryEvidenceSnapshot', snapshotComplete);
    assert.ok(text.startsWith('{"api_version":"evidence.viewer.io/v1alpha1","kind":"RepositoryEvidenceSnapshot","producer":'));
    assert.match(text, /"last_failure_category":null/);
  });

  it('emits each details member in its own schema order', () => {
    const text = serialize('RepositoryEvidenceSnapshot', stanzaSnapshotComplete);
    assert.match(text, /"details":\{"type":"stanza-repository\/v1alpha1","stanza_repository":\{"backup_items":4,/);
    assert.match(text, /"diagnostics_truncated":false,"backup_types":\{"full":1,"diff":1,"incr":1\},"dependency_chain":/);
    assert.throws(() => serialize('RepositoryEvidenceSnapshot', { ...snapshotComplete, details: { ...snapshotComplete.details, stanza_repository: {} } } as RepositoryEvidenceSnapshot), TypeError);
  });

  it('refuses a key the schema does not declare rather than emitting it', () => {
    const body = { ...snapshotComplete, extra: 1 } as typeof snapshotComplete;
    assert.throws(() => serialize('RepositoryEvidenceSnapshot', body), TypeError);
  });
});
