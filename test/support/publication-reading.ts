/**
 * Reading one publication in tests that judge it item by item (the edge cases of issue 23 on the
 * real repositories of both formats): its common summary, a capability, a backup, a recovery path,
 * a state with its reason as a pair, and the check that named summaries and the top level are not
 * healthy. Each lookup fails the test when the item is not published, rather than returning nothing.
 */
import assert from 'node:assert/strict';
import { requireCommonSummary } from '../../src/contract/details-view.ts';
import type { State } from '../../src/contract/primitives.ts';
import type { Publication } from '../../src/publication/publisher.ts';

export const SEVERITY: Record<State, number> = { healthy: 0, warning: 1, unknown: 2, unhealthy: 3 };

/** Gap settle thresholds under which every gap the archive moved past is confirmed at once: what an hour of the store's clock does. */
export const AT_ONCE = { settleMs: 5 * 60_000, longSettleMs: 0 };

export const summary = (p: Publication) => requireCommonSummary(p.snapshot.details);

export function capability(p: Publication, id: string) {
  const c = p.snapshot.capabilities.find((x) => x.id === id);
  assert.ok(c, `capability ${id} is published`);
  return c;
}

export function backup(p: Publication, id: string) {
  const b = p.backups.find((x) => x.backup_id === id);
  assert.ok(b, `backup ${id} is published`);
  return b;
}

export function path(p: Publication, id: string, target: number) {
  const x = p.recoveryPaths.find((r) => r.backup_id === id && r.target_timeline === target);
  assert.ok(x, `a path from ${id} to timeline ${target}`);
  return x;
}

/** A state and its reason code, as a pair to compare. */
export const sr = (s: { state: State; reason: { code: string } }) => [s.state, s.reason.code];

/** The named summaries, and the top level, are not healthy. */
export function notHealthy(p: Publication, ...parts: ('wal' | 'timeline' | 'coverage')[]): void {
  assert.notEqual(p.snapshot.state, 'healthy');
  for (const part of parts) assert.notEqual(summary(p)[part].state, 'healthy', part);
}

/** A WAL name of a 16 MiB-segment cluster below log 1 (every position the test repositories reach). */
export const wal = (timeline: number, position: number) => `${timeline.toString(16).toUpperCase().padStart(8, '0')}00000000${position.toString(16).toUpperCase().padStart(8, '0')}`;
