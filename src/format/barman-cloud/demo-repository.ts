/**
 * The embedded demo repository: a small barman-cloud server laid out as Barman writes it, with the
 * situations viewer exists to show: backups in three compressions (gzip, none, and zstd with a
 * tablespace, as barman-cloud-backup --zstd writes it), a keep:standalone backup with
 * the hole Barman's retention leaves after it, a point-in-time recovery onto timeline 2, a lost
 * WAL segment after a regular backup, a failed
 * backup and an abandoned backup directory. Receipt times and the store's clock are fixed, so the
 * demo's evidence is the same on every run.
 */
import { MemoryStore } from '../../store/memory/memory-driver.ts';
import { SyntheticRepository } from './synthetic-repository.ts';

export const DEMO_PREFIX = 'demo';
export const DEMO_SERVER = 'pg-main';
export const DEMO_BUCKET = 'viewer-demo';

export function demoRepository(): MemoryStore {
  const t0 = Date.parse('2026-11-20T00:00:00Z');
  const at = (minutes: number) => new Date(t0 + minutes * 60_000);
  // The store's clock is fixed too: 4 minutes after the newest segment arrived (the demo's archive lag).
  const store = new MemoryStore({ storeClock: () => at(320) });
  const repo = new SyntheticRepository(store, `${DEMO_PREFIX}/${DEMO_SERVER}/`);
  // Timeline 1: segments 1..40, bzip2- then gzip-compressed. Barman's retention deleted a backup
  // that began at segment 19: it removed the WAL before 19 but kept segment 4, which the
  // keep:standalone backup needs (the expected hole 5..18). Segment 22 was lost after backup 2.
  repo.segments(1, 4, 32, at(15), { stepMs: 5 * 60_000, suffix: '.bz2', missing: [...Array.from({ length: 14 }, (_, i) => 5 + i), 22] });
  repo.segment(1, 4, at(16), '.00000028.backup');
  repo.segments(1, 33, 40, at(160), { stepMs: 5 * 60_000, suffix: '.gz' });
  // Point-in-time recovery: timeline 2 forks inside segment 38.
  repo.history(2, [{ parent: 1, switchpoint: repo.switchpoint(38), reason: 'at restore point "before-migration"' }], at(205), true);
  repo.partial(1, 38, at(204));
  repo.segments(2, 38, 60, at(206), { stepMs: 5 * 60_000, suffix: '.gz' });
  repo.backup({ id: '20261120T001500', timeline: 1, beginPosition: 4, endPosition: 4, beginTime: at(15), endTime: at(16), keep: 'standalone', name: 'before-upgrade' });
  repo.backup({ id: '20261120T013000', timeline: 1, beginPosition: 19, endPosition: 19, archiveSuffix: '.gz', beginTime: at(90), endTime: at(94) });
  repo.backup({ id: '20261120T023000', timeline: 1, beginPosition: 31, endPosition: 32, status: 'FAILED', beginTime: at(150), endTime: at(156) });
  repo.backup({ id: '20261120T040000', timeline: 2, beginPosition: 44, endPosition: 45, archiveSuffix: '.zst', tablespaces: [16385], beginTime: at(240), endTime: at(246), name: 'after-migration' });
  repo.backup({ id: '20261120T050000', timeline: 2, beginPosition: 56, endPosition: 57, withoutInfo: true, beginTime: at(300), endTime: at(301) });
  return store;
}
