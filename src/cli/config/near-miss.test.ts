import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { editDistance, nearMisses } from './near-miss.ts';

describe('near misses', () => {
  it('counts insertions, deletions and substitutions, stopping at the limit', () => {
    assert.equal(editDistance('REPOSITRY_FORMAT', 'REPOSITORY_FORMAT', 3), 1);
    assert.equal(editDistance('pg-mian', 'pg-main', 3), 2);
    assert.equal(editDistance('abc', 'xyzabcdef', 3), 3);
  });

  it('finds the known names within two edits, nearest first, never the name itself', () => {
    assert.deepEqual(nearMisses('pg-mian', ['pg-main', 'pg-wal1m', 'pg-mian']), ['pg-main']);
    assert.deepEqual(nearMisses('pg-man', ['pg-main', 'pg-mains', 'pg-zzzz']), ['pg-main', 'pg-mains']);
    assert.deepEqual(nearMisses('HOME', ['PROVIDER', 'LOG_LEVEL']), []);
  });
});
