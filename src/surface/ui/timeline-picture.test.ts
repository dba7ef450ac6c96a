/**
 * The timeline picture's view model: where lanes, bars, gaps, forks, backups and the frontier
 * sit, computed apart from the SVG that draws them; and what is left out beyond the page's bounds.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PAGE_BOUNDS } from './page-context.ts';
import { pictureModel, type PictureInput, type Run } from './timeline-picture.ts';

const run = (timeline: number, start: number, end: number): Run => ({
  timeline,
  start_position: start,
  end_position: end,
  first_wal: `first-${timeline}-${start}`,
  last_wal: `last-${timeline}-${end}`,
  segment_count: end - start + 1,
});

type Gap = Run & { readonly status: string };
const none: PictureInput<Gap> = { walRanges: [], walGaps: [], recoveryPaths: [], backups: [], forks: [] };

describe('the timeline picture model', () => {
  it('has nothing to draw without WAL', () => {
    assert.equal(pictureModel(none), null);
  });

  it('maps WAL positions onto the lanes, the oldest timeline on top', () => {
    // Positions 0..99 on timeline 1, 100..149 on timeline 2 (forked at 100), a gap at 40..49.
    const m = pictureModel<Gap>({
      walRanges: [run(1, 0, 39), run(1, 50, 99), run(2, 100, 149)],
      walGaps: [{ ...run(1, 40, 49), status: 'confirmed' }],
      recoveryPaths: [{ backup_id: 'b1', start_position: 10 }, { backup_id: 'b1', start_position: 60 }, { backup_id: 'b2', start_position: null }],
      backups: [{ backup_id: 'b1', timeline: 1, state: 'healthy' }, { backup_id: 'b2', timeline: 1, state: 'healthy' }, { backup_id: 'b3', timeline: null, state: 'unknown' }],
      forks: [{ timeline: 2, parent: 1, position: 100 }, { timeline: 3, parent: 2, position: 120 }],
    });
    assert.ok(m !== null);
    // 150 positions over the 830 units between the lanes' left edge (60) and the right margin (10).
    const x = (pos: number) => 60 + (pos / 150) * 830;
    assert.deepEqual([m.width, m.height], [900, 20 + 2 * 34 + 16]);
    assert.deepEqual(m.lanes, [
      { timeline: 1, x: 60, y: 10, width: 830, labelY: 25 },
      { timeline: 2, x: 60, y: 44, width: 830, labelY: 59 },
    ]);
    assert.deepEqual(m.bars.map((b) => [b.run.timeline, b.x, b.y, b.width]), [
      [1, 60, 14, x(40) - x(0)],
      [1, x(50), 14, x(100) - x(50)],
      [2, x(100), 48, x(150) - x(100)],
    ]);
    assert.deepEqual(m.gaps.map((g) => [g.x, g.y, g.width, g.labelY, g.gap.status]), [[x(40), 11, x(50) - x(40), 42, 'confirmed']]);
    // Only forks between lanes drawn; a backup at its first path's begin, none without a begin or a timeline.
    assert.deepEqual(m.forks, [{ x: x(100), y1: 21, y2: 55, timeline: 2, parent: 1 }]);
    assert.deepEqual(m.backups, [{ x: x(10), y: 11, backupId: 'b1', state: 'healthy' }]);
    assert.deepEqual(m.frontier, { x: 890, y1: 42, y2: 68, labelX: 840, labelY: 77, wal: 'last-2-149' });
    assert.deepEqual(m.hidden, { olderTimelines: 0, laterGaps: 0 });
  });

  it('keeps runs visible however short: bars at least 1.5 units wide, gaps 3', () => {
    const m = pictureModel<Gap>({ ...none, walRanges: [run(1, 0, 0), run(1, 100_000, 100_000)], walGaps: [{ ...run(1, 1, 1), status: 'candidate' }] });
    assert.deepEqual(m?.bars.map((b) => b.width), [1.5, 1.5]);
    assert.deepEqual(m?.gaps.map((g) => g.width), [3]);
  });

  it('draws the newest timelines and the first gaps only, one bar for a lane with too many ranges, and counts the rest', () => {
    const timelines = PAGE_BOUNDS.lanes + 2;
    const ranges = Array.from({ length: timelines }, (_, i) => run(i + 1, 10 * i, 10 * i + 4));
    const many = Array.from({ length: PAGE_BOUNDS.rangesPerLane + 1 }, (_, i) => run(timelines, 1_000 + 2 * i, 1_000 + 2 * i));
    const gaps = Array.from({ length: PAGE_BOUNDS.gaps + 5 }, (_, i) => ({ ...run(timelines, 1_001 + 2 * i, 1_001 + 2 * i), status: 'candidate' }));
    const m = pictureModel<Gap>({ ...none, walRanges: [...ranges, ...many], walGaps: gaps });
    assert.ok(m !== null);
    assert.deepEqual(m.lanes.map((l) => l.timeline), Array.from({ length: PAGE_BOUNDS.lanes }, (_, i) => i + 3));
    assert.deepEqual(m.hidden, { olderTimelines: 2, laterGaps: 5 });
    assert.equal(m.gaps.length, PAGE_BOUNDS.gaps);
    const newest = m.bars.filter((b) => b.run.timeline === timelines);
    assert.equal(newest.length, 1, 'one bar for the lane');
    assert.deepEqual([newest[0]?.run.first_wal, newest[0]?.run.last_wal, newest[0]?.run.segment_count], [`first-${timelines}-${10 * (timelines - 1)}`, `last-${timelines}-${1_000 + 2 * PAGE_BOUNDS.rangesPerLane}`, 5 + PAGE_BOUNDS.rangesPerLane + 1]);
    assert.equal(m.frontier?.wal, `last-${timelines}-${1_000 + 2 * PAGE_BOUNDS.rangesPerLane}`);
  });
});
