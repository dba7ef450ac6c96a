/**
 * What to do about each reason code only barman-cloud emits (its backups' reasons, `backups.ts`):
 * one sentence each, `{tool}` for Barman. publication/advice.ts merges this table with the codes
 * every format shares (backup-info-invalid, unrecognized-objects, …) and gives the sentence on the
 * pages, in `viewer scan --output text` and, for a code an alert rule pages on, verbatim in that
 * rule's description (deploy/monitoring/viewer-alerts.yaml; test/monitoring/advice-source.test.ts).
 * publication/advice.test.ts fails on a code here this format does not emit, or on one it emits
 * without advice.
 */
export const ADVICE: Readonly<Record<string, string>> = {
  'backup-info-missing': 'If no backup is running, the backup was abandoned: delete its directory with barman-cloud-backup-delete (or by hand after checking), or look at the barman-cloud-backup log.',
  'backup-info-malformed': 'Compare backup.info with barman-cloud-backup-list\'s view of the backup; a damaged backup.info makes the backup unusable to Barman too.',
  'backup-info-too-large': 'Look at backup.info: it is larger than Barman writes (a foreign or damaged file).',
  'backup-info-not-utf8': 'Look at backup.info: it is not text (a damaged or foreign file).',
  'backup-info-customer-key-required': 'Nothing viewer can read: the metadata is behind a customer-provided key; check this backup with barman-cloud-backup-list using that key.',
  'backup-status-unknown': 'Look at backup.info\'s status: it is not one Barman writes.',
  'backup-failed': 'Read the recorded error and the barman-cloud-backup log of that run; fix the cause and take a new backup. Delete the failed one with barman-cloud-backup-delete.',
  'backup-not-completed': 'Wait for the running backup to end; if it never does, it was abandoned: look at the barman-cloud-backup log.',
  'backup-type-unknown': 'Look at backup.info\'s backup mode: it is not one Barman writes.',
  'backup-type-unsupported': 'Nothing to fix: incremental backups are not validated by viewer; verify them with Barman.',
  'snapshot-not-verifiable': 'Nothing to fix here: snapshot backups keep their data outside the object store; verify the snapshots with the cloud provider.',
  'data-archive-missing': 'Do not rely on this backup: its data archive is gone. Find out who deleted it (lifecycle rules, manual deletes) and take a new base backup.',
  'tablespace-archive-missing': 'Do not rely on this backup: a tablespace\'s archive is gone. Find out who deleted it and take a new base backup.',
  'archive-chunk-missing': 'Do not rely on this backup: a numbered part of an archive is gone (an interrupted upload or a delete); take a new base backup.',
  'archive-too-small': 'Do not rely on this backup: an archive is truncated (an interrupted upload); take a new base backup.',
  'unexpected-archive': 'Look at the archive for a tablespace backup.info does not declare (a copy from another backup?).',
  'keep-annotation-unrecognized': 'Set the keep annotation again with barman-cloud-backup-keep.',
  'keep-annotation-customer-key-required': 'Check the keep status with barman-cloud-backup-keep --status using the customer-provided key.',
};
