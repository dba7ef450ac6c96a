/**
 * The operator's four questions at the top of each server, answered first: is WAL still arriving
 * (the newest received, by the store's clock), is that within the expectation, which backup to
 * restore from for the newest timeline (and why not a newer one), and how far its observed
 * recovery coverage reaches. The choice is restore-choice.ts's; this module words it.
 */
import type { BackupItem } from '../../contract/collections.ts';
import { detailsView } from '../../publication/details.ts';
import { stopPhrase } from './coverage.ts';
import { html, type Raw } from './html.ts';
import type { PageContext, ScopeView, StoreClock } from './page-context.ts';
import { itemState, state, when } from './parts.ts';
import { backupTime, durationText, restoreChoice, type RestoreChoice, type WhyNot } from './restore-choice.ts';
import { backupRef } from './scope-parts.ts';

/** How many passed-over backups the top facts name; the catalog below lists every one. */
const PASSED_OVER_SHOWN = 8;

type Badge = (s: string) => Raw;

function whyNot(v: ScopeView, b: BackupItem, w: WhyNot, timeline: number): Raw {
  switch (w.kind) {
    case 'not-usable':
      return html`not structurally usable (${b.reason.code})`;
    case 'no-path':
      return html`no observed recovery path to timeline ${timeline}\
${b.timeline !== null && b.timeline !== timeline ? html` (taken on timeline ${b.timeline})` : ''}`;
    case 'stops':
      return html`its path ${stopPhrase(v, w.path)}`;
    case 'path-not-usable':
      return html`its path reaches the newest WAL but is ${w.path.state} (${w.path.reason.code})`;
  }
}

/** When the newest WAL was received, by the store's clock, and how long before the scan. */
function newestWal(c: StoreClock): Raw {
  if (c.newestWalReceivedAt === null) return html`none: no WAL object was received`;
  const lag = c.archiveLagSeconds;
  const before = lag !== null
    ? html`${durationText(lag)} before the scan by the store's clock`
    : html`how long before the scan is unknown: ${c.storeTimeAtScan === null
      ? 'the store sent no clock reading'
      : "it was received after the store's own clock at the scan (the store's clocks disagree)"}`;
  return html`${when(c.newestWalReceivedAt)} (store time), ${before}`;
}

/** The archive lag, judged against `max` when one is configured. */
function archiveLag(c: StoreClock, max: number | null, badge: Badge): Raw {
  const lag = c.archiveLagSeconds;
  const expected = max === null ? '' : durationText(max);
  if (c.newestWalReceivedAt === null) {
    return html`${badge('unknown')} unknown: no WAL received${max === null ? '' : html`; expected at most ${expected}`}`;
  }
  if (lag === null && c.storeTimeAtScan !== null) {
    return html`${badge('unknown')} unknown: a WAL object was received after the store's own clock at the scan, so the store's \
clocks disagree and the age of the newest WAL cannot be measured\
${max === null ? '' : html`; the expected maximum of ${expected} cannot be checked (archive-receipt-after-store-clock)`}`;
  }
  if (lag === null) {
    return html`${badge('unknown')} unknown: the store sent no clock reading, so the age of the newest WAL cannot be measured\
${max === null ? '' : html`; the expected maximum of ${expected} cannot be checked (archive-lag-unknown)`}`;
  }
  if (max === null) return html`${durationText(lag)}; no maximum is configured (EXPECTED_MAX_ARCHIVE_LAG), so it is shown, not judged`;
  if (lag > max) {
    return html`${badge('warning')} ${durationText(lag)}, over the expected maximum of ${expected} (archive-lag-over-expectation): \
by the store's clock the newest WAL is ${durationText(lag)} old. A database with no writes archives nothing, so this says look \
at the archiving, not that it failed.`;
  }
  return html`${badge('healthy')} ${durationText(lag)}, within the expected maximum of ${expected}`;
}

/** The backup to restore from and how far its coverage reaches; without one, why not, and the furthest path. */
function restoreFacts(v: ScopeView, rc: RestoreChoice, badge: Badge): { restore: Raw; reach: Raw } {
  const p = v.publication;
  const passed = rc.passedOver.slice(0, PASSED_OVER_SHOWN);
  const more = rc.passedOver.length - passed.length;
  const passedList = (heading: string) => {
    if (passed.length === 0 || rc.timeline === null) return '';
    const items = passed.map(({ backup, why }) => html`<li>${backupRef(v, backup.backup_id)}\
${backupTime(backup) === null ? ' (time unknown)' : ''}: ${whyNot(v, backup, why, rc.timeline ?? 0)}</li>`);
    return html`<div>${heading}</div><ul>${items}\
${more > 0 ? html`<li class="muted">and ${more} more (the catalog below lists every backup)</li>` : ''}</ul>`;
  };
  if (rc.timeline === null) {
    return { restore: html`none: no WAL was observed, so no recovery path reaches any`, reach: html`none observed` };
  }
  if (rc.chosen !== null) {
    const { backup, path } = rc.chosen;
    return {
      restore: html`${backupRef(v, backup.backup_id)}, ended ${when(backup.end_at)} ${badge(path.state)}: the newest structurally \
usable backup whose observed recovery coverage reaches the newest WAL of timeline ${rc.timeline}.${passedList('Not a newer one:')}`,
      reach: html`WAL received up to ${when(path.frontier_receipt_at)} (store time; a receipt time, not a transaction time), \
segment <code>${path.frontier_wal ?? '-'}</code> on timeline ${path.frontier_timeline ?? '-'}, from ${backupRef(v, backup.backup_id)}`,
    };
  }
  const f = rc.furthest;
  const noPath = p.backups.length === 0
    ? html`There is no backup.`
    : p.backups.some((b) => b.state === 'healthy' || b.state === 'warning')
      ? html`No structurally usable backup has a path to timeline ${rc.timeline}.`
      : html`No backup is structurally usable.`;
  // The scope's coverage verdict, which judges exactly this: no path to the frontier.
  const verdict = state(detailsView(p.snapshot.details).coverage.state);
  return {
    restore: html`${verdict} none: no backup's observed recovery coverage reaches the newest WAL of timeline ${rc.timeline}. \
${f === null ? noPath : html`The furthest path, from ${backupRef(v, f.backup.backup_id)}, ${stopPhrase(v, f.path)}.`}\
${passedList('Why not each backup:')}`,
    reach: f === null
      ? html`none observed to timeline ${rc.timeline}`
      : html`only to WAL received at ${when(f.path.frontier_receipt_at)} (store time), segment <code>${f.path.frontier_wal ?? '-'}</code>, \
from ${backupRef(v, f.backup.backup_id)}: short of the newest WAL`,
  };
}

/** The four questions as a definition list; unknown until a scan completes. */
export function topFacts(v: ScopeView, ctx: PageContext, retained: boolean): Raw {
  const p = v.publication;
  const c = v.clock;
  if (c === null || p.snapshot.evidence_generation === 0) {
    return html`<dl class="top"><dt>Newest WAL received</dt><dd>${when(null)} until a scan completes</dd>\
<dt>Backup to restore from</dt><dd>${when(null)} until a scan completes</dd></dl>`;
  }
  const badge: Badge = (s) => itemState(s, retained);
  const rc = restoreChoice(p.backups, p.recoveryPaths, p.walRanges.map((r) => r.timeline));
  const { restore, reach } = restoreFacts(v, rc, badge);
  return html`<dl class="top">
<dt>Newest WAL received</dt><dd>${newestWal(c)}</dd>
<dt>Archive lag</dt><dd>${archiveLag(c, ctx.maxArchiveLagSeconds, badge)}</dd>
<dt>Backup to restore from${rc.timeline === null ? '' : html` (timeline ${rc.timeline})`}</dt><dd>${restore}</dd>
<dt>Observed recovery coverage reaches</dt><dd>${reach}</dd>
</dl>`;
}
