/**
 * Store faults on store-b: Azurite behind the fault proxy, holding the demo repository, scanned by
 * the real Azure driver through a standalone scope composed in-process (provider-harness.ts).
 * ServerBusy is Azure's throttling answer (retried by the SDK, 3 tries); denied and missing
 * containers are not retried; a store that never answers ends at the scan's deadline; a 200 that
 * is no blob listing is `incompatible_format`.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { BlobServiceClient } from '@azure/storage-blob';
import { AZURITE_ACCOUNT, AZURITE_KEY, startAzurite, type Azurite } from '../support/azurite.ts';
import { demoObjects } from '../support/demo-objects.ts';
import { azure, azureError, CANARY, startFaultProxy, type FaultProxy } from '../support/fault-proxy.ts';
import { runProviderFault, tempDir } from './provider-harness.ts';

describe('Azure store faults against Azurite', () => {
  let azurite: Azurite;
  let proxy: FaultProxy;
  let dir: ReturnType<typeof tempDir>;
  let env: Record<string, string>;
  let forbidden: (string | RegExp)[];
  const prefix = 'faults';

  before(async () => {
    azurite = await startAzurite();
    const container = BlobServiceClient.fromConnectionString(azurite.connectionString()).getContainerClient('barman');
    await container.create();
    for (const o of await demoObjects()) await container.getBlockBlobClient(`${prefix}/${o.key.split('/').slice(1).join('/')}`).upload(o.body, o.body.length);
    proxy = await startFaultProxy(new URL(azurite.blobEndpoint).origin);
    dir = tempDir();
    const endpoint = `${proxy.url}/${AZURITE_ACCOUNT}`;
    writeFileSync(join(dir.path, 'conn'), `DefaultEndpointsProtocol=http;AccountName=${AZURITE_ACCOUNT};AccountKey=${AZURITE_KEY};BlobEndpoint=${endpoint};`);
    env = { PROVIDER: 'store-b', DESTINATION_PATH: `${endpoint}/barman/${prefix}`, STORE_CONNECTION_STRING_FILE: join(dir.path, 'conn') };
    forbidden = [CANARY, AZURITE_KEY, AZURITE_ACCOUNT, proxy.url, `127.0.0.1:${proxy.port}`, '"barman"', `${prefix}/`, /ServerBusy|AuthorizationPermissionMismatch|ContainerNotFound|RequestId/, /pg-main\/|(?:base|wals)\/[0-9A-F]{8}/];
  });
  after(async () => {
    await proxy.close();
    azurite.stop();
    dir.remove();
  });

  it('503 ServerBusy on every listing: throttled, each listing tried 3 times', async () => {
    const r = await runProviderFault(proxy, env, forbidden, { match: azure.list, fault: azureError(503, 'ServerBusy'), category: 'throttled', attempts: 3 });
    assert.ok(r.invocations >= 1 && r.faulted <= 3 * r.invocations);
  });

  it('403 AuthorizationPermissionMismatch on every listing: authorization, not retried', async () => {
    await runProviderFault(proxy, env, forbidden, { match: azure.list, fault: azureError(403, 'AuthorizationPermissionMismatch'), category: 'authorization', attempts: 1 });
  });

  it('404 ContainerNotFound on every listing: not_found, not retried', async () => {
    await runProviderFault(proxy, env, forbidden, { match: azure.list, fault: azureError(404, 'ContainerNotFound'), category: 'not_found', attempts: 1 });
  });

  it('a 200 that is no blob listing (an HTML page): incompatible_format, never an empty listing', async () => {
    await runProviderFault(proxy, env, forbidden, { match: azure.list, fault: { kind: 'rewrite-body', rewrite: () => '<html><body>Welcome</body></html>' }, category: 'incompatible_format', attempts: 1 });
  });

  it('a store that never answers a listing: timeout at the scan deadline', async () => {
    const scanTimeoutMs = 2_000;
    const r = await runProviderFault(proxy, env, forbidden, { match: azure.list, fault: { kind: 'hang' }, category: 'timeout', attempts: 1, scanTimeoutMs });
    assert.ok(r.failedRefreshMs >= scanTimeoutMs - 50 && r.failedRefreshMs < scanTimeoutMs + 10_000, `${Math.round(r.failedRefreshMs)} ms`);
  });
});
