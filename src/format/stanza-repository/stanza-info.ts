/**
 * A stanza's two info files, `backup/<stanza>/backup.info` and `archive/<stanza>/archive.info`,
 * each read with its `.copy` twin under the info-file ceiling and chosen by pgBackRest's rule
 * (`chooseInfoCopy`: the main file when it loads, else the copy), with what the choice tells:
 * the copy stood in, the two loadable files differ, or the files are encrypted (by pgBackRest's
 * cipher, or by the store with a customer-provided key the scan does not hold, D-92). Read once per
 * scan and shared by the catalog and the WAL plan, which run side by side (the memory is keyed on
 * the scan's access, so nothing outlives the scan). Keys are relative to the scope's base, the
 * destination (`layout.ts`).
 */
import type { ScopeAccess } from '../seam.ts';
import { readArchiveInfo, type ArchiveInfo } from './archive-info.ts';
import { readBackupInfo, type BackupInfo } from './backup-info.ts';
import { chooseInfoCopy, INFO_FILE_LIMITS, parseInfoFile, type CopyChoice, type InfoFile, type InfoFileResult } from './info-file.ts';
import { archiveArea, backupArea } from './layout.ts';

/** How one info file and its copy stood, and which was used. */
export interface InfoPair<T> {
  /** The typed view of the chosen file; null when neither loads. */
  readonly view: T | null;
  /** `main` or `copy`: the one used; null when neither loads. */
  readonly chosen: CopyChoice['chosen'];
  /** Neither file exists. */
  readonly absent: boolean;
  /** Either file is encrypted (OpenSSL's `Salted__`): unreadable without the passphrase. */
  readonly encrypted: boolean;
  /**
   * Either file is stored encrypted with a customer-provided key (S3 SSE-C, pgBackRest's
   * `repo1-s3-sse-customer-key`) the scan does not hold: listed, its bytes refused (D-92).
   */
  readonly keyRequired: boolean;
  /** Both load and their bytes differ (what `pgbackrest verify` reports). */
  readonly differ: boolean;
  /** The main file did not load and the copy stood in. */
  readonly fromCopy: boolean;
}

/** One info file as read: parsed (or refused by the parser), not there (null), or behind a customer-provided key. */
type InfoRead = InfoFileResult | null | 'key-required';

async function readOne(access: ScopeAccess, key: string): Promise<InfoRead> {
  const r = await access.read(key, INFO_FILE_LIMITS.maxBytes);
  if (r.status === 'absent') return null;
  if (r.status === 'key-required') return 'key-required';
  if (r.status === 'too-large') return { ok: false, reason: 'too-large', line: null };
  return parseInfoFile(r.bytes, INFO_FILE_LIMITS);
}

async function readPair<T>(access: ScopeAccess, key: string, typed: (file: InfoFile) => T): Promise<InfoPair<T>> {
  const [main, copy] = await Promise.all([readOne(access, key), readOne(access, `${key}.copy`)]);
  // A file behind a customer-provided key loads no more than a missing one: the other may stand in.
  const parsed = (r: InfoRead): InfoFileResult | null => (r === 'key-required' ? null : r);
  const choice = chooseInfoCopy(parsed(main), parsed(copy));
  const encrypted = [main, copy].some((r) => r !== null && r !== 'key-required' && !r.ok && r.reason === 'encrypted');
  return {
    view: choice.file === null ? null : typed(choice.file),
    chosen: choice.chosen,
    absent: main === null && copy === null,
    encrypted,
    keyRequired: main === 'key-required' || copy === 'key-required',
    differ: choice.differ,
    fromCopy: choice.chosen === 'copy',
  };
}

export interface StanzaInfo {
  readonly backup: InfoPair<BackupInfo>;
  readonly archive: InfoPair<ArchiveInfo>;
}

const read = new WeakMap<ScopeAccess, Map<string, Promise<StanzaInfo>>>();

/** Both info files of `stanza`, read once per scan (per access). */
export function stanzaInfo(access: ScopeAccess, stanza: string): Promise<StanzaInfo> {
  let byStanza = read.get(access);
  if (byStanza === undefined) {
    byStanza = new Map();
    read.set(access, byStanza);
  }
  let info = byStanza.get(stanza);
  if (info === undefined) {
    info = Promise.all([
      readPair(access, `${backupArea(stanza)}backup.info`, readBackupInfo),
      readPair(access, `${archiveArea(stanza)}archive.info`, readArchiveInfo),
    ]).then(([backup, archive]) => ({ backup, archive }));
    byStanza.set(stanza, info);
  }
  return info;
}
