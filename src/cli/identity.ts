/**
 * Identity facts the command line supplies to publications: the producer version (from
 * package.json, sanitised to the wire pattern) and the placeholder cluster of standalone mode.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const pkg = JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', 'package.json'), 'utf8')) as { version?: unknown };
export const PRODUCER_VERSION = typeof pkg.version === 'string' && /^[0-9A-Za-z][0-9A-Za-z.+-]{0,63}$/.test(pkg.version) ? pkg.version : 'unknown';

/**
 * Standalone mode has no orchestrator cluster: without CLUSTER_* it publishes this placeholder,
 * the nil UUID in a namespace no Kubernetes object can have been correlated with (D-32).
 */
export const standaloneCluster = { namespace: 'standalone', uid: '00000000-0000-0000-0000-000000000000', name: null } as const;
