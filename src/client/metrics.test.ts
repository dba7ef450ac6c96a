/**
 * The consumer's metrics from what the wire carries (issue 25): the freshness series the console's
 * lag rule reads without the store's clock, and the gap classes that keep the hole a keep:standalone
 * backup's retention leaves from paging. Built on the contract's wire examples; the alert rules are
 * run on the rendered series with promtool (skipped, saying so, where it is not installed).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, it } from 'node:test';
import type { RecoveryPathItem, WalGapItem } from '../contract/collections.ts';
import * as ex from '../contract/examples.ts';
import { OWN_LABELS } from '../metrics/openmetrics.ts';
import { archiveReceiptAgeAtGeneration, CLUSTER_LABELS, gapClassesOnWire, projectionMetrics } from './metrics.ts';
import type { Projection } from './projection.ts';
import type { SourceStatus } from './source.ts';

const { details, ...envelope } = ex.snapshotComplete;
const summary = details.archive_cloud;
const reason = (code: string) => ({ code, message: `${code}.` });

function projection(o: { summary?: Partial<typeof summary>; gaps?: WalGapItem[]; paths?: RecoveryPathItem[] | null; detailsKnown?: boolean; completedAt?: string | null; generation?: number } = {}): Projection {
  const generation = o.generation ?? envelope.evidence_generation;
  return {
    revision: envelope.revision,
    evidenceGeneration: generation,
    snapshot: { ...envelope, evidence_generation: generation, completed_at: o.completedAt === undefined ? envelope.completed_at : o.completedAt },
    details: o.detailsKnown === false ? { type: 'archive-cloud/v9', known: false } : { type: 'archive-cloud/v1alpha1', known: true, archive_cloud: { ...summary, ...o.summary } },
    collections: {
      backups: { known: true, items: ex.backupPage.items },
      'wal-ranges': { known: true, items: ex.walRangePage.items },
      'wal-gaps': { known: true, items: o.gaps ?? ex.walGapPage.items },
      'recovery-paths': o.paths === null ? { known: false, reason: 'response-limit' } : { known: true, items: o.paths ?? ex.recoveryPathPage.items },
    },
    assembledAt: new Date('2026-11-21T13:31:00Z'),
  };
}

const status = { state: 'available', reason: 'current' } as unknown as SourceStatus;
const render = (p: Projection | null) => projectionMetrics(p, status, 'pg-main', new Date('2026-11-21T13:32:00Z'));
const sample = (text: string, series: string): number | undefined => {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
};

/** The example's gap at segment 7, confirmed: later WAL (8, 9) overtook it. */
const confirmedGap: WalGapItem = { ...ex.walGapPage.items[0]!, status: 'confirmed' };
/** A keep:standalone backup's path: WAL to its consistency point (6), then the hole retention leaves. */
const standalonePath: RecoveryPathItem = { ...ex.recoveryPathPage.items[0]!, backup_id: '20261119T010000', state: 'warning', reason: reason('standalone-retention-limited'), stop: 'gap-limited' };
/** The newer (anchor) backup's path, from after the hole to the frontier. */
const anchorPath: RecoveryPathItem = { ...ex.recoveryPathPage.items[0]!, state: 'healthy', reason: reason('coverage-to-frontier'), stop: 'frontier', start_position: 8, start_wal: '000000010000000000000008', frontier_position: 9, frontier_wal: '000000010000000000000009', frontier_receipt_at: '2026-11-20T02:00:00Z' };
const healthy = { state: 'healthy' as const, reason: reason('wal-continuous-except-retention') };

// ------------------------------------------------------------------ promtool

const probe = spawnSync('promtool', ['--version'], { encoding: 'utf8' });
const SKIP = (probe.error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT' ? 'promtool is not installed (Debian package prometheus; CI installs it)' : false;
const RULES = resolve(import.meta.dirname, '..', '..', 'deploy', 'monitoring', 'viewer-alerts.yaml');
/** The alerts on the evidence and the console's own series; the absent-data guards are not about a scope's evidence. */
const EVIDENCE_ALERTS = [
  'ViewerWalGapConfirmed',
  'ViewerWalGapCandidatePersisting',
  'ViewerNoCoverageToNewestWal',
  'ViewerStateDegraded',
  'ViewerConsoleArchiveLagOverDefault',
  'ViewerConsoleArchiveLagOverExpectation',
  'ViewerRetentionExpectationNotMet',
  'ViewerCompletedBackupNotUsable',
  'ViewerNoUsableBackup',
];

/** Which of EVIDENCE_ALERTS fire at 2h with the text's samples held 2h: each asked silent, the failures name the firing ones. */
function firingAt2h(text: string): string[] {
  const series = text
    .split('\n')
    .filter((l) => l !== '' && !l.startsWith('#'))
    .map((l) => {
      const at = l.lastIndexOf(' ');
      return `      - series: '${l.slice(0, at)}'\n        values: '${l.slice(at + 1)}x120'`;
    });
  const firing: string[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'viewer-consumer-alerts-'));
  try {
    for (const alert of EVIDENCE_ALERTS) {
      const file = join(dir, 'test.yaml');
      writeFileSync(
        file,
        [`rule_files:\n  - ${RULES}`, 'evaluation_interval: 1m', 'tests:', '  - interval: 1m', '    input_series:', ...series, '    alert_rule_test:', `      - eval_time: 2h\n        alertname: ${alert}\n        exp_alerts: []`, ''].join('\n'),
      );
      const r = spawnSync('promtool', ['test', 'rules', file], { encoding: 'utf8' });
      if (r.status !== 0) {
        assert.match(`${r.stdout}${r.stderr}`, /FAILED/, `${r.stdout}${r.stderr}`);
        firing.push(alert);
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return firing;
}

describe('the consumer freshness series: completed_at minus latest_archive_receipt_at', () => {
  it('is the generation end on viewer\'s clock minus the newest receipt on the store\'s', async () => {
    // 13:30:04.875 (completed_at) - 13:29:58 (latest_archive_receipt_at)
    assert.equal(archiveReceiptAgeAtGeneration(projection()), 6.875);
    assert.equal(sample(await render(projection()), 'viewer_consumer_archive_receipt_age_at_generation_seconds{server="pg-main",namespace="databases",cluster="pg-main"}'), 6.875);
  });

  it('keeps skew visible: a receipt after the scan end on viewer\'s clock is negative, not 0', () => {
    assert.equal(archiveReceiptAgeAtGeneration(projection({ summary: { latest_archive_receipt_at: '2026-11-21T13:30:10Z' } })), -5.125);
  });

  it('is absent, never 0, when unknown: no receipt, no completed scan, an unknown details payload, no projection', async () => {
    for (const p of [
      projection({ summary: { latest_archive_receipt_at: null } }),
      projection({ completedAt: null }),
      projection({ detailsKnown: false }),
      projection({ generation: 0 }),
      null,
    ]) {
      assert.doesNotMatch(await render(p), /viewer_consumer_archive_receipt_age_at_generation_seconds/);
    }
  });

  it('is valid OpenMetrics with the rest of the text (promtool check metrics)', { skip: SKIP }, async () => {
    const r = spawnSync('promtool', ['check', 'metrics'], { input: await render(projection()), encoding: 'utf8' });
    assert.equal(r.status, 0, `${r.stdout}${r.stderr}`);
  });
});

describe('gap classes from the wire: the hole a keep:standalone backup leaves is not unexplained', () => {
  it('a gap a standalone backup\'s path stops at with standalone-retention-limited is retention-expected', async () => {
    const p = projection({ gaps: [confirmedGap], paths: [standalonePath, anchorPath], summary: { wal: { state: 'unhealthy', reason: reason('wal-frontier-regressed') } } });
    assert.deepEqual(gapClassesOnWire(p), ['retention-expected']);
    const text = await render(p);
    assert.equal(sample(text, 'viewer_wal_gaps{server="pg-main",namespace="databases",cluster="pg-main",status="confirmed"}'), 1);
    assert.equal(sample(text, 'viewer_wal_gaps_unexplained{server="pg-main",namespace="databases",cluster="pg-main",status="confirmed"}'), 0);
  });

  it('the wal part\'s wal-continuous-except-retention makes every gap retention-expected, even without the paths', () => {
    assert.deepEqual(gapClassesOnWire(projection({ gaps: [confirmedGap], paths: null, summary: { wal: healthy } })), ['retention-expected']);
  });

  it('any other gap is unexplained: a path that stops at it for another reason, or a path stopping elsewhere', async () => {
    const other = projection({ gaps: [confirmedGap], paths: [{ ...standalonePath, reason: reason('coverage-gap-limited'), state: 'unhealthy' }] });
    assert.deepEqual(gapClassesOnWire(other), ['unexplained']);
    assert.equal(sample(await render(other), 'viewer_wal_gaps_unexplained{server="pg-main",namespace="databases",cluster="pg-main",status="confirmed"}'), 1);
    // A standalone path whose stop does not match the gap's status does not stop at that gap.
    assert.deepEqual(gapClassesOnWire(projection({ gaps: [confirmedGap], paths: [{ ...standalonePath, stop: 'candidate-limited' }] })), ['unexplained']);
    // The example: a candidate gap an ordinary backup's path stops at.
    assert.deepEqual(gapClassesOnWire(projection()), ['unexplained']);
  });

  it('unknown when the paths are unknown (413) and the wal part does not settle it: the series is absent', async () => {
    const p = projection({ gaps: [confirmedGap], paths: null });
    assert.equal(gapClassesOnWire(p), undefined);
    const text = await render(p);
    assert.doesNotMatch(text, /viewer_wal_gaps_unexplained/);
    assert.equal(sample(text, 'viewer_wal_gaps{server="pg-main",namespace="databases",cluster="pg-main",status="confirmed"}'), 1);
  });

  it('no alert pages on the hole: the console\'s series held 2h against viewer-alerts.yaml; an unexplained gap still pages', { skip: SKIP }, async () => {
    const standalone = projection({ gaps: [confirmedGap], paths: [standalonePath, anchorPath], summary: { wal: healthy, coverage: { state: 'healthy', reason: reason('coverage-to-frontier') } } });
    const lost = projection({ gaps: [confirmedGap], paths: [{ ...standalonePath, reason: reason('coverage-gap-limited'), state: 'unhealthy' }, anchorPath], summary: { wal: { state: 'unhealthy', reason: reason('wal-gap-confirmed') }, coverage: { state: 'healthy', reason: reason('coverage-to-frontier') } } });
    assert.deepEqual(firingAt2h(await render(standalone)), []);
    // The same gap, not explained on the wire: the confirmed-gap alert, and only it, pages.
    assert.deepEqual(firingAt2h(await render(lost)), ['ViewerWalGapConfirmed']);
  });
});

describe('the cluster identity on every series', () => {
  const samples = (text: string) => text.split('\n').filter((l) => l !== '' && !l.startsWith('#'));

  it('labels every sample, the console\'s own included, with the snapshot\'s namespace and cluster name after server', async () => {
    const text = await render(projection());
    const lines = samples(text);
    assert.ok(lines.length > 30 && lines.some((l) => l.startsWith('viewer_consumer_source_state')) && lines.some((l) => l.startsWith('viewer_consumer_archive_receipt_age_at_generation_seconds')));
    const { namespace, name, uid } = envelope.identity.cluster;
    for (const l of lines) assert.match(l, new RegExp(`^viewer_[a-z_]+\\{server="pg-main",namespace="${namespace}",cluster="${String(name)}"[,}]`), l);
    assert.ok(!text.includes(uid), 'the cluster UID is never a label');
  });

  it('leaves cluster off when the snapshot does not name the cluster, and both off without a projection', async () => {
    const p = projection();
    const unnamed = { ...p, snapshot: { ...p.snapshot, identity: { ...p.snapshot.identity, cluster: { ...p.snapshot.identity.cluster, name: null } } } };
    const lines = samples(await render(unnamed));
    for (const l of lines) assert.match(l, /^viewer_[a-z_]+\{server="pg-main",namespace="databases"[,}]/, l);
    assert.ok(lines.every((l) => !l.includes('cluster=')));
    for (const l of samples(await render(null))) assert.ok(!l.includes('namespace=') && !l.includes('cluster='), l);
  });

  it('cannot collide with the metrics module\'s own labels', () => {
    for (const label of CLUSTER_LABELS) assert.ok(!OWN_LABELS.has(label), label);
  });
});
