/**
 * What to do about each reason code viewer publishes: one sentence per code, the one source of that
 * advice for the standalone pages, `viewer scan --output text` and the alert rules' descriptions
 * (deploy/monitoring/viewer-alerts.yaml: each rule that pages on a code carries its sentence verbatim,
 * test/monitoring/advice-source.test.ts holds them together, so a change here changes the rule too).
 *
 * Two sources, merged at each look-up: the common table here (every code the publication, the
 * evidence layer or more than one format emits) and each registered format's own `advice` (the
 * codes only that format emits, in its folder: format/seam.ts), read from the registry when asked,
 * so a format registered later (a test's) is included. A format's table holds no code of the common
 * table, and no two formats' tables share a code (`advice.test.ts`); should a later one, the
 * format a look-up names wins, else the first registered. Every code a snapshot, a part, a
 * capability, a backup or a recovery path can carry has an entry (`advice.test.ts` derives the codes
 * from the modules that emit them and fails on a code without advice, or on advice for a code
 * nothing emits); a reason that needs no action says so. `{tool}` stands for the repository's tool
 * (the format's `tool`), as in the messages. The words follow the spec: "observed recovery
 * coverage", never a promise that a restore works.
 */
import type { FailureCategory } from '../contract/primitives.ts';
import { FAILURE_CATEGORIES } from '../contract/values.ts';
import { registeredFormats } from '../format/registry.ts';

const NOTHING = 'Nothing to do.';
const NEW_BACKUP = 'take a new base backup';
/** A gap not yet confirmed, on the wal part and where it limits coverage: one check, one sentence (ViewerWalGapCandidatePersisting carries it). */
const CANDIDATE_GAP = 'Usually an upload in flight: wait a scan or two; if the gap stays, check the archiver (pg_stat_archiver.failed_count, last_failed_wal) and whether the segments are still in pg_wal.';

/** A failed refresh's category (the snapshot's `refresh-<category>` reason) and what to check first. */
const REFRESH: Readonly<Record<FailureCategory, string>> = {
  canceled: 'The scan was canceled (viewer stopping or a newer scan replacing it); nothing to do unless it repeats.',
  timeout: 'Check the store endpoint\'s latency and SCAN_TIMEOUT_SECONDS (raise it for a repository this large).',
  invalid_configuration: 'Check the configuration: DESTINATION_PATH, the server name and the store variables (`viewer check-config`).',
  authentication: 'Check the store credentials viewer uses (expired or rotated keys, the credentials file).',
  authorization: 'Check the credentials\' permissions: viewer needs to list and read the prefix of DESTINATION_PATH.',
  throttled: 'The store throttled viewer: lengthen REFRESH_INTERVAL_SECONDS or ask for a higher request quota.',
  unavailable: 'Check the store endpoint and the network path to it (STORE_ENDPOINT_URL, DNS, TLS trust, proxies).',
  not_found: 'Check DESTINATION_PATH: the bucket or container does not exist for these credentials.',
  incompatible_format: 'Check REPOSITORY_FORMAT: the destination does not hold this repository format.',
  safety_limit: 'The repository holds more than the scan may list: raise SCAN_MAX_PAGES and SCAN_MAX_OBJECTS, or point viewer at a narrower prefix.',
};

/** Advice by reason code for every code no single format owns: the publication's, the evidence layer's, and those more than one format emits. */
export const COMMON_ADVICE: Readonly<Record<string, string>> = {
  // The publication's own reasons (publisher.ts).
  'no-completed-scan': 'Wait for the first scan to complete; if it does not, the snapshot\'s last failure category says why.',
  'evidence-stale': 'Check that scans still run and complete within the freshness threshold (viewer\'s log, SCAN_TIMEOUT_SECONDS, the process\'s CPU); the evidence shown is historical until one does.',
  'refresh-invalid-publication': 'Report it: the scan produced evidence viewer refused to publish (a viewer defect); earlier evidence is kept.',
  ...Object.fromEntries(FAILURE_CATEGORIES.map((c) => [`refresh-${c.replaceAll('_', '-')}`, REFRESH[c]])),

  // The scope's parts and top-level state (evidence/summary.ts).
  'wal-segment-size-unknown': 'Nothing is wrong yet: continuity is judged once a backup with readable metadata declares the segment size; take or keep one backup.',
  'wal-segment-size-conflict': 'Check that only one PostgreSQL cluster archives to this server prefix (a re-initialised cluster with another wal_segment_size); give each cluster its own server name.',
  'multiple-system-ids': 'Give each database system its own server name or prefix: backups and WAL of different clusters under one prefix cannot be attributed.',
  'ranges-truncated': 'Raise the scan\'s safety ceilings (SCAN_MAX_PAGES, SCAN_MAX_OBJECTS) so the whole WAL archive is held; until then continuity past the ceiling is unknown.',
  'diagnostics-truncated': 'Raise the scan\'s safety ceilings so every backup and timeline finding is kept; the findings past the ceiling are not judged.',
  'wal-archive-empty': 'Check archive_mode and archive_command on the primary (CloudNativePG: the ObjectStore\'s wal section) and the server name: no WAL segment has been archived here.',
  'wal-gap-confirmed': `Open the WAL browser's gaps (class=gap); if the segments are still in pg_wal on the primary or a standby, archive them again, otherwise ${NEW_BACKUP}: coverage from older backups stops at the gap.`,
  'wal-gap-candidate': CANDIDATE_GAP,
  'wal-segment-size-invalid': 'Look at the WAL objects of an impossible size (truncated uploads or foreign files under wals/); archive those segments again from pg_wal if they are still there.',
  'wal-unknown-objects': 'Look at the objects under the WAL area {tool} does not write (copies, temporary files, another tool\'s files) and move them elsewhere.',
  'wal-continuous': NOTHING,
  'wal-frontier-regressed': 'Find out who deleted the newest WAL (a lifecycle rule, a manual delete, a restored bucket version): it was seen in an earlier scan and no backup was deleted since.',
  'wal-gap-vanished': 'Find out who deleted WAL around a known gap (a lifecycle rule, a manual delete); the loss stays a loss.',
  'wal-continuous-except-retention': 'Nothing to do: the holes are those {tool}\'s retention leaves between the WAL of the backups it keeps.',
  'archive-lag-over-expectation': 'Check archive_command and the archiver on the primary (pg_stat_archiver.failed_count, last_failed_wal; CloudNativePG: the instance manager\'s wal-archive log), then whether the database is idle without archive_timeout.',
  'archive-lag-unknown': 'Nothing to fix in the repository: the store sends no clock reading, so the lag cannot be judged; compare the newest WAL\'s receipt with the time yourself.',
  'archive-receipt-after-store-clock': 'Check the object store\'s clocks (its nodes disagree about the time); the lag is unknown until they agree.',
  'wal-copy-not-restorable': 'Look at the WAL names stored under several keys (several compressions of one segment) and remove the implausible copy, keeping the one PostgreSQL wrote.',
  'wal-timeline-not-archived': 'Check archiving on the new timeline: its history file is archived but no WAL segment followed for over an hour (archive_command after the promotion).',
  'timeline-history-contradicted': 'Check for two clusters promoted onto one timeline number, or a history file copied from elsewhere; give the clusters separate server names.',
  'coverage-target-not-archived': 'Wait: the newest timeline\'s history file arrived and its first WAL segment has not yet; if this persists, check archiving on the promoted server.',
  'coverage-target-wal-missing': `Check archiving on the newest timeline (the promoted server's archive_command), then ${NEW_BACKUP} on it.`,
  'coverage-path-wal-lost': `Nothing blocks a restore from the newest backup, but WAL only an older backup covered is lost: look at the gap on the WAL browser; ${NEW_BACKUP} if a longer window matters.`,
  'coverage-history-contradicted': 'Check the timeline history files against the archived WAL (two clusters on one timeline number, a history file from elsewhere); coverage across that switch is not observed.',
  'scope-empty': 'Check DESTINATION_PATH and the server name: nothing {tool} writes is at this location (a wrong prefix, a misspelt server, or archiving not yet started).',
  'timeline-history-missing': 'Restore the missing history file from a copy (pg_wal on the promoted server holds it) and archive it; without it, recovery across that timeline switch cannot follow the history.',
  'timeline-history-invalid': 'Replace the damaged history file with PostgreSQL\'s own copy from pg_wal on the promoted server.',
  'timeline-history-unread': 'Give viewer a way to read the history file (it is encrypted), or accept that the timeline ancestry is unknown.',
  'timelines-consistent': NOTHING,
  'no-usable-backup': `Look at each backup's reason on the page; then check that backups run at all (CloudNativePG: kubectl get backups, the ScheduledBackup) and ${NEW_BACKUP}.`,
  'latest-timeline-not-covered': `${NEW_BACKUP[0]?.toUpperCase()}${NEW_BACKUP.slice(1)} on the newest timeline: a promotion or point-in-time recovery started it and no usable backup's recovery path reaches it.`,
  'coverage-to-frontier': NOTHING,
  'coverage-to-frontier-backup-warning': 'Read the warning of the backup that reaches the newest WAL, and take a new base backup so a backup without a warning covers it.',
  'coverage-candidate-limited': CANDIDATE_GAP,
  'coverage-gap-limited': `Look at the gap on the WAL browser (class=gap); archive the segments again if pg_wal still has them, otherwise ${NEW_BACKUP}: no backup's coverage crosses it.`,
  'coverage-unknown-limited': 'Restore the missing or unreadable history file, or make the WAL segment size known (a backup with readable metadata): coverage stops where they are unknown.',
  'no-expectation-configured': 'Nothing to do; set EXPECTED_RETENTION_POLICY or EXPECTED_MINIMUM_REDUNDANCY to have retention judged.',
  'retention-policy-unrecognized': 'Write EXPECTED_RETENTION_POLICY in {tool}\'s syntax (e.g. "RECOVERY WINDOW OF 7 DAYS" or "REDUNDANCY 3").',
  'minimum-redundancy-not-met': 'Check the backup schedule and the last runs, then the backups that are not usable (their reasons); compare the tool\'s retention settings with EXPECTED_MINIMUM_REDUNDANCY.',
  'redundancy-policy-not-met': 'Check the backup schedule and the last runs, and that the tool\'s own retention keeps as many backups as EXPECTED_RETENTION_POLICY asks.',
  'recovery-window-not-covered': 'Check that backups run often enough and that the tool\'s retention keeps one older than the window, with WAL from it to the newest segment.',
  'retention-met': NOTHING,
  'latest-backup-not-usable': 'Read the newest backup\'s reason in the catalog; restore from the recommended older backup meanwhile, and take a new base backup.',
  'older-backup-not-usable': 'Read that backup\'s reason in the catalog and do not rely on it. Delete it with the tool\'s own command if it is beyond repair.',
  'completed-backup-not-usable': 'Read that backup\'s reason in the catalog and do not rely on it.',
  'backups-usable': NOTHING,
  'completed-backup-unhealthy': 'Read the broken backup\'s reason in the catalog; find out who or what deleted objects under its directory, and do not rely on it.',
  'completed-backup-unknown': 'Read the backup\'s reason in the catalog: what viewer cannot read (a cipher, a missing copy) decides whether you can rely on it.',
  'completed-backup-warning': 'Read the backup\'s warning in the catalog.',
  'evidence-healthy': NOTHING,
  'not-in-format': NOTHING,
  'capability-not-judged': 'Nothing to do: viewer does not judge this for this format yet.',
  'inventory-exact': NOTHING,
  'catalog-complete': NOTHING,
  'catalog-incomplete': 'Look at the backup directories without readable metadata: a backup still running, or an abandoned one to delete with the tool\'s own command.',
  'metadata-encrypted': 'Nothing to fix: what is behind the repository\'s cipher is not judged; use the tool\'s own verify for it.',
  'metadata-encryption-unknown': 'Look at the backups whose metadata could not be read.',
  'metadata-readable': NOTHING,
  'dependency-chains-complete': NOTHING,
  'dependency-chain-broken': 'Do not rely on the backups whose chain is broken; take a new full backup.',
  'dependency-chain-unknown': 'Read the reason of the backup the chain depends on; until it is proven usable, neither is the dependent backup.',

  // Backups judged against the WAL archive and their chains (evidence/backups.ts).
  'wal-geometry-unknown': 'Nothing is wrong yet: the WAL a backup needs is checked once the segment size is known (a backup with readable metadata).',
  'segment-size-conflict': 'Check the backup\'s origin: it declares a WAL segment size this archive does not use (another cluster\'s backup under this server).',
  'required-wal-missing': `The WAL this backup needs to become consistent is missing: archive it again if pg_wal still has it; otherwise do not rely on this backup and ${NEW_BACKUP}.`,
  'required-wal-candidate-gap': 'Wait a scan or two: the WAL this backup needs sits in an unconfirmed gap, usually an upload in flight.',
  'required-wal-not-yet-archived': 'Wait for archiving to catch up: the WAL this backup needs has not been archived yet.',
  'required-wal-system-ambiguous': 'Give each database system its own server name: WAL of several systems shares this location.',
  'dependency-missing': 'Do not rely on this backup: a backup it depends on is gone; take a new full backup.',
  'dependency-not-usable': 'Read the reason of the backup this one depends on; this one is usable only once that one is.',

  // Recovery paths (evidence/recovery-paths.ts); the codes the scope also uses are above.
  'consistency-not-reached': 'The WAL this backup needs to become consistent is not all observed: look at the gaps around its begin and end WAL.',
  'standalone-retention-limited': 'Nothing to do: a keep:standalone backup restores to its own end; its WAL after that was removed by retention, as expected.',
  'backup-not-usable': 'Read the backup\'s reason in the catalog: the path starts from a backup that is not structurally usable.',
  'backup-usability-unknown': 'Read the backup\'s reason in the catalog: whether the path\'s backup is usable is unknown.',
  'backup-warning': 'Read the backup\'s warning in the catalog.',
  'target-timeline-not-archived': 'Wait: the target timeline has a history file and no WAL yet.',
  'target-timeline-wal-missing': 'Check archiving on the target timeline: no WAL followed its history file for over an hour.',
  'coverage-system-ambiguous': 'Give each database system its own server name: WAL of several systems shares this location.',

  // Backups as more than one format judges them (each format's backups.ts): the same advice whatever the format.
  'backup-info-invalid': 'Look at backup.info: required fields are missing or out of shape, so the backup cannot be judged (or restored by the tool).',
  'backup-info-inconsistent': 'Look at backup.info: its values contradict each other (a hand-edited or damaged file).',
  'unrecognized-objects': 'Look at the objects in the backup directory {tool} does not write, and move them elsewhere.',
  'structurally-usable': NOTHING,
};

/**
 * The tables a look-up consults, in order: the common one, then `format`'s own when it names a
 * registered format, otherwise every registered format's, in registry order.
 */
function tables(format: string | null): Readonly<Record<string, string>>[] {
  const formats = registeredFormats();
  const named = format === null ? undefined : formats.find((f) => f.id === format);
  return [COMMON_ADVICE, ...(named === undefined ? formats : [named]).map((f) => f.advice)];
}

/** The advice for a code as written (`{tool}` unfilled); undefined for a code no table knows. */
function textOf(code: string, format: string | null): string | undefined {
  for (const table of tables(format)) if (Object.hasOwn(table, code)) return table[code];
  return undefined;
}

/**
 * Every code's advice as written (`{tool}` unfilled): the common table and each registered format's
 * own, as `adviceFor` finds them (with `format`, only that format's beside the common table).
 */
export function allAdvice(format: string | null = null): Readonly<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const table of tables(format)) for (const [code, text] of Object.entries(table)) if (!Object.hasOwn(out, code)) out[code] = text;
  return out;
}

/**
 * The advice for a reason code, `{tool}` filled in; null for a code viewer does not know (a newer
 * producer). `format`, a registered format's id, decides a code two formats would advise on
 * differently (none do today); without it, the first registered format that knows the code answers.
 */
export function adviceFor(code: string, tool: string | null = null, format: string | null = null): string | null {
  const text = textOf(code, format);
  return text === undefined ? null : text.replaceAll('{tool}', tool ?? 'the backup tool');
}

/** The advice says there is nothing to do (a healthy reason, or one that only informs): it starts "Nothing to do". */
export const needsNoAction = (code: string, format: string | null = null): boolean => (textOf(code, format) ?? '').startsWith(NOTHING.slice(0, -1));
