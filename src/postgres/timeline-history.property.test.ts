/**
 * Property tests of timeline history parsing (issue 19): arbitrary text is a typed result, never
 * an exception, and whatever is accepted satisfies the history invariants; histories written as
 * PostgreSQL's `writeTimeLineHistory` writes them (any number of ancestors, blank lines between
 * entries, any reason text, comments) parse back to exactly the generated entries; and breaking
 * one invariant of a generated history is refused with the right reason.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { MAX_HISTORY_BYTES, parseTimelineHistory, type HistoryEntry, type HistoryFailure } from './timeline-history.ts';
import { formatLsn } from './wal.ts';

const FAILURES: readonly HistoryFailure[] = ['history-empty', 'history-malformed', 'history-too-large', 'history-inconsistent'];
const LSN_MAX = (1n << 64n) - 1n;

/** Text built mostly from the characters a history file is made of. */
const historyLike = fc.oneof(
  fc.string({ maxLength: 300 }),
  fc.string({ unit: 'binary', maxLength: 300 }),
  fc.string({ unit: fc.constantFrom(...'0123456789ABCDEFabcdef/\t\n #\r x-'), maxLength: 300 }),
  fc.array(
    fc.tuple(fc.string({ unit: fc.constantFrom(...'0123456789-+ '), maxLength: 12 }), fc.string({ unit: fc.constantFrom(...'0123456789ABCDEFa/ '), maxLength: 20 }), fc.string({ maxLength: 10 })),
    { maxLength: 8 },
  ).map((lines) => lines.map((l) => l.join('\t')).join('\n')),
);

/** A valid history of `timeline`: strictly increasing parents below it, non-decreasing switchpoints. */
const historyArb = fc
  .integer({ min: 2, max: 0xffffffff })
  .chain((timeline) =>
    fc.tuple(
      fc.constant(timeline),
      fc.uniqueArray(fc.oneof(fc.integer({ min: 1, max: Math.min(timeline - 1, 40) }), fc.integer({ min: 1, max: timeline - 1 })), { minLength: 1, maxLength: Math.min(timeline - 1, 20) }),
      fc.array(fc.oneof(fc.bigInt({ min: 0n, max: LSN_MAX }), fc.bigInt({ min: 0n, max: 1n << 36n })), { minLength: 20, maxLength: 20 }),
    ),
  )
  .map(([timeline, parents, lsns]): { timeline: number; entries: HistoryEntry[] } => {
    const sortedParents = [...parents].sort((a, b) => a - b);
    const sortedLsns = lsns.slice(0, sortedParents.length).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    return { timeline, entries: sortedParents.map((parentTimeline, i) => ({ parentTimeline, switchpoint: sortedLsns[i] ?? 0n })) };
  });

/** A reason as PostgreSQL words it: one line, no tab, not blank. */
const reasonArb = fc.oneof(
  fc.constantFrom('no recovery target specified', 'before 2026-11-21 00:00:00+00', 'at restore point "before-incident"', 'after transaction 1234'),
  fc.string({ minLength: 1, maxLength: 40 }).filter((s) => !/[\t\n]/.test(s) && s.trim() !== ''),
);

/** The file as writeTimeLineHistory writes it: the parent's lines, then "\n" and the new entry. */
function render(entries: readonly HistoryEntry[], reasons: readonly string[], comments: readonly (string | null)[], lowercase: boolean): string {
  let text = '';
  entries.forEach((e, i) => {
    const comment = comments[i];
    if (comment !== null && comment !== undefined) text += `# ${comment.replace(/\n/g, ' ')}\n`;
    const lsn = lowercase ? formatLsn(e.switchpoint).toLowerCase() : formatLsn(e.switchpoint);
    text += `${i === 0 ? '' : '\n'}${String(e.parentTimeline)}\t${lsn}\t${reasons[i] ?? 'x'}\n`;
  });
  return text;
}

function checkResult(text: string, timeline: number): void {
  const r = parseTimelineHistory(text, timeline);
  if (!r.ok) {
    assert.ok(FAILURES.includes(r.reason));
    assert.deepEqual(Object.keys(r).sort(), ['ok', 'reason']);
    return;
  }
  assert.ok(r.entries.length >= 1);
  let previous: HistoryEntry | null = null;
  for (const e of r.entries) {
    assert.ok(Number.isInteger(e.parentTimeline) && e.parentTimeline >= 1 && e.parentTimeline < timeline);
    assert.ok(typeof e.switchpoint === 'bigint' && e.switchpoint >= 0n && e.switchpoint <= LSN_MAX);
    if (previous !== null) assert.ok(e.parentTimeline > previous.parentTimeline && e.switchpoint >= previous.switchpoint);
    previous = e;
  }
}

describe('timeline history files', () => {
  it('parse arbitrary text to a typed result satisfying the invariants, never throwing', () => {
    fc.assert(
      fc.property(historyLike, fc.oneof(fc.integer({ min: 0, max: 0xffffffff }), fc.integer({ min: 1, max: 50 }), fc.integer(), fc.double()), (text, timeline) => checkResult(text, timeline)),
      { numRuns: 5000 },
    );
  });

  it('parse arbitrary bytes decoded as PostgreSQL text, never throwing', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 600 }), fc.integer({ min: 1, max: 100 }), (bytes, timeline) => checkResult(Buffer.from(bytes).toString('utf8'), timeline)),
      { numRuns: 2000 },
    );
  });

  it('parse generated histories back to exactly their entries', () => {
    const arb = historyArb.chain((h) =>
      fc.tuple(
        fc.constant(h),
        fc.array(reasonArb, { minLength: h.entries.length, maxLength: h.entries.length }),
        fc.array(fc.option(fc.string({ maxLength: 20 }), { freq: 4 }), { minLength: h.entries.length, maxLength: h.entries.length }),
        fc.boolean(),
        fc.boolean(),
      ),
    );
    fc.assert(
      fc.property(arb, ([{ timeline, entries }, reasons, comments, lowercase, crlf]) => {
        let text = render(entries, reasons, comments, lowercase);
        if (crlf) text = text.replace(/\n/g, '\r\n');
        const r = parseTimelineHistory(text, timeline);
        assert.deepEqual(r, { ok: true, entries });
      }),
      { numRuns: 2000 },
    );
  });

  it('refuse a generated history with one invariant broken, with the reason that names it', () => {
    const arb = historyArb.chain((h) => fc.tuple(fc.constant(h), fc.nat(h.entries.length - 1), fc.constantFrom('parent-not-below', 'parents-not-increasing', 'switchpoint-decreasing', 'field-count', 'bad-parent', 'bad-lsn')));
    fc.assert(
      fc.property(arb, ([{ timeline, entries }, at, breakage]) => {
        const broken: { parent: string; lsn: string; reason: string; extra?: string }[] = entries.map((e) => ({ parent: String(e.parentTimeline), lsn: formatLsn(e.switchpoint), reason: 'no recovery target specified' }));
        const line = broken[at];
        assert.ok(line !== undefined);
        let expected: HistoryFailure;
        switch (breakage) {
          case 'parent-not-below':
            line.parent = String(timeline + (at % 2));
            expected = 'history-inconsistent';
            break;
          case 'parents-not-increasing': {
            if (at === 0) return;
            line.parent = broken[at - 1]?.parent ?? '1';
            expected = 'history-inconsistent';
            break;
          }
          case 'switchpoint-decreasing': {
            const before = entries[at - 1]?.switchpoint;
            if (before === undefined || before === 0n) return;
            line.lsn = formatLsn(before - 1n);
            expected = 'history-inconsistent';
            break;
          }
          case 'field-count':
            line.extra = 'x';
            expected = 'history-malformed';
            break;
          case 'bad-parent':
            line.parent = ['0', '-1', `0${line.parent}`, '1.0', '', ' ', 'x', '99999999999'][at % 8] ?? 'x';
            expected = 'history-malformed';
            break;
          case 'bad-lsn':
            line.lsn = ['0', '/', '0/', '/0', '123456789/0', '0/123456789', 'G/0', '-1/0', '0x1/0'][at % 9] ?? '';
            expected = 'history-malformed';
            break;
        }
        const text = broken.map((l) => [l.parent, l.lsn, l.reason, ...(l.extra === undefined ? [] : [l.extra])].join('\t')).join('\n');
        // A blank parent leaves the line starting with a tab, which trimming removes: two fields.
        assert.deepEqual(parseTimelineHistory(text, timeline), { ok: false, reason: expected }, text);
      }),
      { numRuns: 2000 },
    );
  });

  it('refuse text beyond the size bound however it is made', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 4 }), fc.integer({ min: 1, max: 8 }), (unit, extra) => {
        const text = unit.repeat(Math.ceil((MAX_HISTORY_BYTES + extra) / Buffer.byteLength(unit)));
        assert.deepEqual(parseTimelineHistory(text, 2), { ok: false, reason: 'history-too-large' });
      }),
      { numRuns: 20 },
    );
  });
});
