/**
 * The catalog's shelves: every backup reason lands on the shelf the spec names (completed,
 * in-progress, failed, malformed, unsupported and structurally incomplete kept separate).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { BackupItem } from '../../contract/collections.ts';
import { backupPage } from '../../contract/examples.ts';
import { backupKind } from './pages.ts';

const base = backupPage.items[0] as BackupItem;
const item = (state: BackupItem['state'], code: string): BackupItem => ({ ...base, state, reason: { code, message: 'm' } });

describe('backup shelves', () => {
  const cases: [BackupItem['state'], string, ReturnType<typeof backupKind>][] = [
    ['healthy', 'structurally-usable', 'completed'],
    ['warning', 'unrecognized-objects', 'completed'],
    ['unknown', 'backup-info-missing', 'in progress or abandoned'],
    // STARTED, WAITING_FOR_WALS, SYNCING: Barman has not finished it; it is not an unsupported kind.
    ['unknown', 'backup-not-completed', 'in progress or abandoned'],
    ['unhealthy', 'backup-failed', 'failed'],
    ['unknown', 'backup-info-invalid', 'malformed'],
    ['unknown', 'backup-status-unknown', 'malformed'],
    ['unknown', 'backup-type-unsupported', 'unsupported'],
    ['unknown', 'snapshot-not-verifiable', 'unsupported'],
    ['unhealthy', 'data-archive-missing', 'structurally incomplete'],
    ['unknown', 'required-wal-not-yet-archived', 'structurally incomplete'],
  ];
  for (const [state, code, shelf] of cases) {
    it(`${code} (${state}) is ${shelf}`, () => assert.equal(backupKind(item(state, code)), shelf));
  }
});
