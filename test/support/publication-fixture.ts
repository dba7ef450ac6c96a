/**
 * One way for tests to make a Publisher (issue 27): a default identity (a cluster in namespace `n`,
 * store-a, an all-zero fingerprint, server `srv`, barman-cloud), no expectations and an hour's
 * freshness, each overridable. Tests whose subject is the Publisher's constructor build it
 * themselves (src/publication/publisher.test.ts).
 */
import type { Expectations } from '../../src/evidence/summary.ts';
import { archiveCloud } from '../../src/format/barman-cloud/format.ts';
import { Publisher, type PublicationIdentity } from '../../src/publication/publisher.ts';

/**
 * The clusters the tests use: `TEST_CLUSTER` by default, `DATABASES_CLUSTER` for the API's tests,
 * `DB_CLUSTER` for the evidence tests, `STANDALONE_CLUSTER` where a scan runs as `viewer scan` does
 * (no Kubernetes cluster: the standalone namespace and the all-zero uid).
 */
export const TEST_CLUSTER: PublicationIdentity['cluster'] = { namespace: 'n', uid: '00000000-0000-4000-8000-000000000000', name: null };
export const DATABASES_CLUSTER: PublicationIdentity['cluster'] = { namespace: 'databases', uid: '6f1c2a7e-3b9d-4e8f-a1c2-9d8e7f6a5b4c', name: null };
export const DB_CLUSTER: PublicationIdentity['cluster'] = { namespace: 'db', uid: '6f1c2a7e-3b9d-4e8f-a1c2-9d8e7f6a5b4c', name: null };
export const STANDALONE_CLUSTER: PublicationIdentity['cluster'] = { namespace: 'standalone', uid: '00000000-0000-0000-0000-000000000000', name: null };

export const TEST_IDENTITY: PublicationIdentity = {
  cluster: TEST_CLUSTER,
  provider: 'store-a',
  fingerprint: `sha256:${'0'.repeat(64)}`,
  server: 'srv',
  producerVersion: '0.1.0',
  format: archiveCloud,
};

export const NO_EXPECTATIONS: Expectations = { policyText: null, policy: null, minimumRedundancy: null };

export interface PublisherFixture {
  readonly identity?: Partial<PublicationIdentity>;
  /** Over `NO_EXPECTATIONS`; undefined: none. */
  readonly expectations?: Partial<Expectations> | undefined;
  /** Default one hour. */
  readonly freshnessMs?: number;
  readonly revisionBase?: number;
}

export function testPublisher(fixture: PublisherFixture = {}): Publisher {
  return new Publisher(
    { ...TEST_IDENTITY, ...fixture.identity },
    { ...NO_EXPECTATIONS, ...fixture.expectations },
    fixture.freshnessMs ?? 3_600_000,
    fixture.revisionBase === undefined ? {} : { revisionBase: fixture.revisionBase },
  );
}
