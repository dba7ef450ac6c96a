/**
 * Builds the store driver a configuration names: the provider's driver with the configured
 * credentials, over the destination's bucket or container. It does not confine it: callers do
 * (`store/confined.ts`), to one scope root for a scan, a sidecar or a standalone scope, and
 * standalone discovery and reachability list under the destination prefix. Everything it needs,
 * Barman's `AZURE_STORAGE_CONNECTION_STRING` included, comes from the parsed configuration
 * (`cli/config/`, the one reader of the environment); drivers take plain options.
 */
import { ViewerError } from '../common/errors.ts';
import type { StoreDriver } from '../store/driver.ts';
import { trustCaFile } from '../store/trust.ts';
import { providerNamed, type Config } from './config/config.ts';

// Each provider's SDK loads only when a configuration names it: importing all three costs about
// 0.3 s more at every start, which a one-shot `viewer scan` would pay for nothing.

export async function createDriver(config: Config): Promise<StoreDriver> {
  const destination = config.destination;
  if (destination === null) throw new ViewerError('invalid_configuration', 'no destination is configured');
  // STORE_CA_FILE joins the trusted roots before any client exists (once per process).
  if (config.caFile !== null) await trustCaFile(config.caFile);
  const c = config.credentials;
  if (destination.provider === 'store-a' && (c.mode === 'static-files' || c.mode === 'web-identity' || c.mode === 'ambient')) {
    const { createS3Driver } = await import('../store/s3/s3-driver.ts');
    return createS3Driver({ bucket: destination.bucket, region: config.region, endpoint: config.endpointUrl, credentials: c });
  }
  if (destination.provider === 'store-b' && (c.mode === 'connection-string-file' || c.mode === 'ambient')) {
    const { azureAccountUrl, createAzureDriver } = await import('../store/azure/azure-driver.ts');
    if (c.mode === 'connection-string-file') return createAzureDriver({ container: destination.bucket, credentials: c });
    // Ambient, in Barman's order (D-49): its own variable first (read with the configuration), then
    // the SDK's default chain (DefaultAzureCredential, which reads its own AZURE_* variables)
    // against the destination's account. Set but empty is refused, never a fall-through to the chain.
    const connection = c.connectionString;
    if (connection === '') throw new ViewerError('invalid_configuration', 'AZURE_STORAGE_CONNECTION_STRING is set but empty');
    return createAzureDriver({
      container: destination.bucket,
      credentials: connection === undefined ? { mode: 'default-chain', accountUrl: azureAccountUrl(destination) } : { mode: 'connection-string', value: connection },
    });
  }
  if (destination.provider === 'store-c' && (c.mode === 'service-account-file' || c.mode === 'ambient')) {
    const { createGcsDriver } = await import('../store/gcs/gcs-driver.ts');
    return createGcsDriver({ bucket: destination.bucket, endpoint: config.endpointUrl, credentials: c });
  }
  throw new ViewerError('invalid_configuration', `provider ${providerNamed(destination.provider)} is not available with these credentials`);
}
