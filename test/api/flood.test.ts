/**
 * The socket under a flood (issue 19), briefly: the machinery of `npm run soak` (bench/soak-run.ts)
 * for a few seconds, swapping the publication every second. The sidecar's evidence API runs in a
 * process of its own on a Unix socket; 64 keep-alive clients in two other processes, 16 of them
 * slow readers that hold answers unread, ask for the snapshot, pages and whole walks. What must
 * hold whatever the machine's speed: never more than 16 admitted requests in flight, and the
 * API's count agreeing with one kept outside it; the excess refused with 429 `busy` and a
 * Retry-After; every 200 body valid against its schema and every walk one publication; walks
 * that meet a swap restart from the snapshot on 409 and then complete. Timings are the soak's
 * business, not this test's.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runSoak, SOAK_DEFAULTS, SPEC_LIMITS } from '../../bench/soak-run.ts';

describe('the sidecar socket under a flood', () => {
  it('keeps its budget, refuses the excess with 429 busy, tears nothing and restarts walks on 409', { timeout: 120_000 }, async () => {
    // Flatness over a few seconds would only measure warm-up: the warm-up outlasts the run, so it is not judged.
    const r = await runSoak({ ...SOAK_DEFAULTS, durationMs: 6_000, swapEveryMs: 1_000, warmupMs: 60_000 });
    const context = JSON.stringify({ status: r.status, walks: r.walks, samples: r.samples, violations: r.violations });

    assert.equal(r.torn, 0, context);
    assert.equal(r.unexpected, 0, context);
    assert.equal(r.status.other, 0, context);
    assert.equal(r.connection_errors, 0, context);
    assert.ok(r.requests > 0 && r.requests === r.server_requests, context);

    assert.ok(r.max_in_flight <= SPEC_LIMITS.maxInFlight, `admitted in flight: ${r.max_in_flight}`);
    assert.equal(r.busy_with_room, 0, '429 while fewer than 16 admitted requests were open');
    assert.equal(r.admitted_over_limit, 0, 'admitted while 16 were open');
    assert.ok(r.status['429'] > 0, `the budget was never exceeded: ${context}`);
    assert.equal(r.busy_verified, r.status['429'], 'a 429 was not busy with a Retry-After');

    assert.ok(r.swaps >= 2, `swaps: ${r.swaps}`);
    assert.ok(r.walks.restarted_on_409 > 0, context);
    assert.ok(r.walks.completed_after_restart > 0, context);
    assert.equal(r.walks.starved, 0, context);
    // Once the clients are gone the server holds no connection of theirs.
    assert.ok(r.fds.after <= r.fds.idle + 8, `descriptors before ${r.fds.idle}, after ${r.fds.after}`);
  });
});
