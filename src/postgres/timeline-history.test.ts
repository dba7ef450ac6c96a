/** History-file parsing on real content and on every way it can be wrong. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MAX_HISTORY_BYTES, parseTimelineHistory } from './timeline-history.ts';

describe('timeline history files', () => {
  it('parses the file PostgreSQL 15 wrote at a promotion (real repository)', () => {
    assert.deepEqual(parseTimelineHistory('1\t0/D000090\tat restore point "incident"\n', 2), {
      ok: true,
      entries: [{ parentTimeline: 1, switchpoint: 0xd000090n }],
    });
  });

  it('parses a chain with blank lines, comments and the zero-padded LSN form', () => {
    const text = '# copied\n1\t0/0D000090\tno recovery target specified\n\n2\t0/F0000A0\tafter 2026-11-21 13:00:00+00\n';
    const r = parseTimelineHistory(text, 3);
    assert.ok(r.ok);
    assert.deepEqual(r.ok && r.entries.map((e) => [e.parentTimeline, e.switchpoint]), [[1, 0xd000090n], [2, 0xf0000a0n]]);
  });

  const bad: [string, string, number, string][] = [
    ['empty', '', 2, 'history-empty'],
    ['only comments', '# nothing\n\n', 2, 'history-empty'],
    ['two fields', '1\t0/D000090\n', 2, 'history-malformed'],
    ['four fields', '1\t0/D000090\ta\tb\n', 2, 'history-malformed'],
    ['hex parent', 'A\t0/D000090\tx\n', 12, 'history-malformed'],
    ['parent zero', '0\t0/D000090\tx\n', 2, 'history-malformed'],
    ['bad LSN', '1\tD000090\tx\n', 2, 'history-malformed'],
    ['parent not below the file timeline', '2\t0/D000090\tx\n', 2, 'history-inconsistent'],
    ['parents out of order', '2\t0/D000090\tx\n1\t0/E000000\ty\n', 3, 'history-inconsistent'],
    ['switchpoints going back', '1\t0/E000000\tx\n2\t0/D000000\ty\n', 3, 'history-inconsistent'],
    ['binary garbage', '\u0000\u0001\u0002', 2, 'history-malformed'],
  ];
  for (const [what, text, tli, reason] of bad) {
    it(`refuses ${what} as ${reason}`, () => assert.deepEqual(parseTimelineHistory(text, tli), { ok: false, reason }));
  }

  it('refuses an oversized file before reading it line by line', () => {
    assert.deepEqual(parseTimelineHistory('1\t0/1\tx\n'.repeat(MAX_HISTORY_BYTES / 8 + 1), 2), { ok: false, reason: 'history-too-large' });
  });
});
