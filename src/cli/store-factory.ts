/**
 * Builds the store driver a configuration names, confined to one scope root. Only the command
 * line wires configuration to drivers; drivers take plain options.
 */
import { ViewerError } from '../common/errors.ts';
import { confine } from '../store/confined.ts';
import type { StoreDriver } from '../store/driver.ts';
import { createS3Driver } from '../store/s3/s3-driver.ts';
import type { Config } from './config/config.ts';

export async function createDriver(config: Config): Promise<StoreDriver> {
  const destination = config.destination;
  if (destination === null) throw new ViewerError('invalid_configuration', 'no destination is configured');
  const c = config.credentials;
  if (destination.provider !== 'store-a' || !(c.mode === 'static-files' || c.mode === 'web-identity' || c.mode === 'ambient')) {
    throw new ViewerError('invalid_configuration', `provider ${destination.provider} is not available in this build`);
  }
  return createS3Driver({ bucket: destination.bucket, region: config.region, endpoint: config.endpointUrl, credentials: c });
}

export { confine };
