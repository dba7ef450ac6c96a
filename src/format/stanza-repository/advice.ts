/**
 * What to do about each reason code only pgBackRest's repository emits (its backups' and its info
 * files' reasons, `backups.ts`): one sentence each, `{tool}` for pgBackRest. publication/advice.ts
 * merges this table with the codes every format shares (backup-info-invalid, unrecognized-objects,
 * …) and gives the sentence on the pages, in `viewer scan --output text` and, for a code an alert
 * rule pages on, verbatim in that rule's description (deploy/monitoring/viewer-alerts.yaml;
 * test/monitoring/advice-source.test.ts). publication/advice.test.ts fails on a code here this
 * format does not emit, or on one it emits without advice.
 */
export const ADVICE: Readonly<Record<string, string>> = {
  'backup-catalog-unreadable': 'Repair backup.info from its copy (pgbackrest info shows what pgBackRest reads), or let pgBackRest rewrite it on the next backup.',
  'backup-metadata-encrypted': 'Nothing to fix: the repository is encrypted; check it with pgbackrest verify, which holds the passphrase.',
  'backup-metadata-customer-key-required': 'Nothing viewer can read: the metadata is behind a customer-provided key; check it with pgbackrest using that key.',
  'backup-earlier-database': 'Nothing to do unless you still need it: the backup belongs to an earlier database of the stanza (before a stanza-upgrade).',
  'backup-directory-missing': 'Do not rely on this backup: backup.info lists it but its directory is empty; run pgbackrest expire or take a new backup.',
  'backup-manifest-missing': 'Do not rely on this backup: its manifest and the manifest copy are both gone.',
  'backup-manifest-too-large': 'Nothing viewer can judge: the manifest exceeds what viewer reads; use pgbackrest verify.',
  'backup-manifest-malformed': 'Do not rely on this backup: neither manifest can be loaded.',
  'backup-manifest-inconsistent': 'Look at the backup: its manifest contradicts backup.info (a hand edit or a copy from elsewhere).',
  'backup-manifest-invalid': 'Do not rely on this backup: its manifest lists files it cannot locate.',
  'backup-file-missing': 'Do not rely on this backup: a file its manifest lists is gone; find out who deleted it and take a new backup.',
  'backup-file-size-mismatch': 'Do not rely on this backup: a stored file has the wrong size (truncated or replaced); take a new backup.',
  'backup-bundle-missing': 'Do not rely on this backup: a bundle is gone; take a new backup.',
  'backup-bundle-too-short': 'Do not rely on this backup: a bundle is truncated; take a new backup.',
  'backup-interrupted': 'If no backup is running, it was interrupted: pgBackRest resumes or removes it on the next backup (or run pgbackrest expire).',
  'backup-unlisted': 'Let pgBackRest rebuild backup.info (the next backup or expire does), or delete the stray directory if it is not wanted.',
  'backup-page-checksum-errors': 'Check the database for corruption (pg_checksums, amcheck) on the pages pgBackRest reported; the backup copies the damage faithfully.',
  'backup-manifest-from-copy': 'Repair backup.manifest from its copy; the copy was usable.',
  'backup-manifest-copy-mismatch': 'Look at backup.manifest.copy: it is missing or differs from backup.manifest.',
  'backup-info-from-copy': 'Repair backup.info from its copy; the copy was usable.',
  'backup-info-copy-mismatch': 'Look at backup.info and its copy: they differ (an interrupted write or a hand edit).',
  'archive-info-from-copy': 'Repair archive.info from its copy; the copy was usable.',
  'archive-info-copy-mismatch': 'Look at archive.info and its copy: they differ.',
  'archive-info-unreadable': 'Repair archive.info (pgbackrest stanza-create --force rewrites it); the archive id is taken from the listing meanwhile.',
  'archive-info-customer-key-required': 'Nothing viewer can read: archive.info is behind a customer-provided key; the archive id is taken from the listing.',
};
