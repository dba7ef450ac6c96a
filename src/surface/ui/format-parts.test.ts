/**
 * What the pages render of a format without naming it: its own facts (each kind of value), the
 * statuses its catalog keeps apart, and the notice about another registered format at the
 * destination, worded from the registry's layouts against the repository's own format.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { archiveCloud } from '../../format/barman-cloud/format.ts';
import { registerFormat } from '../../format/registry.ts';
import type { LayoutShape } from '../../format/seam.ts';
import { stanzaRepository } from '../../format/stanza-repository/format.ts';
import { foreignNotice } from './destination-notes.ts';
import { factValue, formatFacts } from './server-facts.ts';

const reason = { code: 'chain-ok', message: 'Every chain <complete>.' };

describe("a format's own facts", () => {
  it('renders each kind of value, unknown never as 0', () => {
    assert.equal(factValue({ kind: 'count', value: 1234 }).text, '1,234');
    assert.equal(factValue({ kind: 'count', value: null }).text, '<span class="muted">unknown</span>');
    assert.equal(factValue({ kind: 'counts', parts: [{ count: 2, unit: 'full' }, { count: 0, unit: 'diff' }, { count: 1_000, unit: 'incr' }] }).text, '2 full, 0 diff, 1,000 incr');
    assert.equal(factValue({ kind: 'counts', parts: null }).text, '<span class="muted">unknown</span>');
    assert.equal(factValue({ kind: 'flag', value: true }).text, 'yes');
    assert.equal(factValue({ kind: 'flag', value: false }).text, 'no');
    assert.equal(factValue({ kind: 'flag', value: null }).text, '<span class="muted">unknown</span>');
    assert.equal(factValue({ kind: 'state', value: { state: 'warning', reason } }).text, '<span class="state warning">warning</span> Every chain &lt;complete&gt;.');
  });

  it('one labelled row each, escaped; nothing for a format without facts of its own', () => {
    const rows = formatFacts({ page: [{ label: 'A <b>', value: { kind: 'count', value: 1 } }, { label: 'B', value: { kind: 'flag', value: true } }], text: [] });
    assert.equal(rows.text, '<span>A &lt;b&gt;</span><span>1</span>\n<span>B</span><span>yes</span>');
    assert.equal(formatFacts(null).text, '');
    assert.equal(formatFacts(archiveCloud.facts(null)).text, '');
  });
});

describe('another format at the destination', () => {
  const text = (h: { text: string }) => h.text.replace(/<\/?code>/g, '`');

  it('names it from its layout, with its REPOSITORY_FORMAT, and says what the own format does not read', () => {
    assert.equal(
      foreignNotice(stanzaRepository.id, archiveCloud).text,
      '<p class="notice">The destination looks like a pgBackRest repository (REPOSITORY_FORMAT=stanza-repository), not archive-cloud (incompatible_format): its <code>archive/</code> and <code>backup/</code> areas are not read as servers.</p>',
    );
    assert.equal(
      text(foreignNotice(archiveCloud.id, stanzaRepository)),
      '<p class="notice">The destination looks like a Barman cloud repository (REPOSITORY_FORMAT=archive-cloud), not stanza-repository (incompatible_format): its folders holding `base/` and `wals/` are not read as stanzas.</p>',
    );
  });

  it('words any registered format alike, and one the registry does not hold plainly', () => {
    const layout: LayoutShape = { describedAs: 'a toy repository', scopeNoun: 'box', rootAreas: ['toys'], scopeAreas: [], holdsAt: () => Promise.resolve(false), ownsKey: () => false };
    const remove = registerFormat({ ...archiveCloud, id: 'toy-notice', layout });
    try {
      assert.match(text(foreignNotice('toy-notice', stanzaRepository)), /like a toy repository \(REPOSITORY_FORMAT=toy-notice\), not stanza-repository \(incompatible_format\): its `toys\/` area is not read as stanzas\./);
    } finally {
      remove();
    }
    assert.match(text(foreignNotice('gone', archiveCloud)), /like another repository format \(REPOSITORY_FORMAT=gone\), not archive-cloud \(incompatible_format\): its folders are not read as servers\./);
  });
});
