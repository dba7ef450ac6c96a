/** The account URL the ambient chain's client is built for, from both destination forms. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseDestination } from '../destination.ts';
import { azureAccountUrl, createAzureDriver } from './azure-driver.ts';
import { StoreError } from '../../common/errors.ts';

function accountUrl(url: string): string {
  const parsed = parseDestination(url, 'store-b');
  assert.ok(parsed.ok);
  return azureAccountUrl(parsed.destination);
}

describe('Azure account URL for the default chain', () => {
  it('is the account blob endpoint for the Azure form', () => {
    assert.equal(accountUrl('https://acme.blob.core.windows.net/backups/pg/cluster'), 'https://acme.blob.core.windows.net');
  });

  it('is origin and account for the emulator form', () => {
    assert.equal(accountUrl('https://127.0.0.1:10000/devstoreaccount1/backups/pg'), 'https://127.0.0.1:10000/devstoreaccount1');
  });

  it('an http account URL is refused before any request: bearer tokens need https', async () => {
    await assert.rejects(
      createAzureDriver({ container: 'backups', credentials: { mode: 'default-chain', accountUrl: 'http://127.0.0.1:10000/devstoreaccount1' } }),
      (e: unknown) => e instanceof StoreError && e.category === 'invalid_configuration',
    );
  });
});
