/**
 * The destination fingerprint: `sha256:` and the hex SHA-256 of a normalised destination, the same
 * for every viewer and every consumer that looks at the same repository. Normalisation (one line
 * each, joined with `\n`): the literal `viewer-destination-v1`, the provider constant, the storage
 * account (empty when the provider has none), the bucket or container, the key prefix without
 * leading or trailing `/`, and the endpoint origin (`scheme://host[:port]`, lowercase, empty when
 * the provider's default is used). The server name is not part of it: it is the scope.
 * The endpoint is included because the same bucket name on two S3-compatible servers is two
 * repositories; a false "different" is safe, a false "same" is not.
 */
import { createHash } from 'node:crypto';
import type { Destination } from '../store/destination.ts';

export function destinationFingerprint(destination: Destination, endpointOrigin: string | null): string {
  const endpoint = (destination.emulatorOrigin ?? endpointOrigin ?? '').toLowerCase();
  const text = ['viewer-destination-v1', destination.provider, destination.account ?? '', destination.bucket, destination.prefix, endpoint].join('\n');
  return `sha256:${createHash('sha256').update(text, 'utf8').digest('hex')}`;
}
