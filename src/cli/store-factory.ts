/**
 * Builds the store driver a configuration names, confined to one scope root. Only the command
 * line wires configuration to drivers; drivers take plain options.
 */
import { ViewerError } from '../common/errors.ts';
import type { StoreDriver } from '../store/driver.ts';
import { createAzureDriver } from '../store/azure/azure-driver.ts';
import { createGcsDriver } from '../store/gcs/gcs-driver.ts';
import { createS3Driver } from '../store/s3/s3-driver.ts';
import type { Config } from './config/config.ts';

export async function createDriver(config: Config): Promise<StoreDriver> {
  const destination = config.destination;
  if (destination === null) throw new ViewerError('invalid_configuration', 'no destination is configured');
  const c = config.credentials;
  if (destination.provider === 'store-a' && (c.mode === 'static-files' || c.mode === 'web-identity' || c.mode === 'ambient')) {
    return createS3Driver({ bucket: destination.bucket, region: config.region, endpoint: config.endpointUrl, credentials: c });
  }
  if (destination.provider === 'store-b' && (c.mode === 'connection-string-file' || c.mode === 'ambient')) {
    // Barman's own ambient source for Azure is this variable; only the command line reads it.
    const ambient = process.env['AZURE_STORAGE_CONNECTION_STRING'];
    if (c.mode === 'ambient' && (ambient === undefined || ambient === '')) {
      throw new ViewerError('invalid_configuration', 'store-b without a connection string file needs AZURE_STORAGE_CONNECTION_STRING in this build');
    }
    return createAzureDriver({
      container: destination.bucket,
      credentials: c.mode === 'ambient' ? { mode: 'connection-string', value: ambient ?? '' } : { mode: 'connection-string-file', file: c.file },
    });
  }
  if (destination.provider === 'store-c' && (c.mode === 'service-account-file' || c.mode === 'ambient')) {
    return createGcsDriver({ bucket: destination.bucket, endpoint: config.endpointUrl, credentials: c });
  }
  throw new ViewerError('invalid_configuration', `provider ${destination.provider} is not available with these credentials`);
}
