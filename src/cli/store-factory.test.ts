/**
 * The factory builds drivers from the parsed configuration alone: Barman's
 * AZURE_STORAGE_CONNECTION_STRING reaches it through the configuration (set but empty is refused
 * as invalid_configuration, never a fall-through to the SDK chain), not from the process
 * environment. Nothing here makes a request.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { ViewerError } from '../common/errors.ts';
import { parseConfig, type Config, type Env } from './config/config.ts';
import { createDriver } from './store-factory.ts';

const AZURE: Env = { DESTINATION_PATH: 'https://acme.blob.core.windows.net/backups/pg' };
const CONNECTION = 'DefaultEndpointsProtocol=https;AccountName=acme;AccountKey=a2V5;EndpointSuffix=core.windows.net';

function config(env: Env): Config {
  const result = parseConfig(env);
  if (!result.ok) throw new Error('refused');
  return result.config;
}

describe('store factory', () => {
  const saved = process.env['AZURE_STORAGE_CONNECTION_STRING'];
  after(() => {
    if (saved === undefined) delete process.env['AZURE_STORAGE_CONNECTION_STRING'];
    else process.env['AZURE_STORAGE_CONNECTION_STRING'] = saved;
  });

  it('refuses a connection string configured set but empty as invalid_configuration', async () => {
    await assert.rejects(createDriver(config({ ...AZURE, AZURE_STORAGE_CONNECTION_STRING: '' })), (e: unknown) => e instanceof ViewerError && e.category === 'invalid_configuration' && !e.message.includes('acme'));
  });

  it('builds the store-b driver from a configured connection string', async () => {
    (await createDriver(config({ ...AZURE, AZURE_STORAGE_CONNECTION_STRING: CONNECTION }))).close();
  });

  it('reads no environment of its own: a process variable the configuration did not carry changes nothing', async () => {
    const parsed = config(AZURE);
    process.env['AZURE_STORAGE_CONNECTION_STRING'] = '';
    (await createDriver(parsed)).close();
  });
});
