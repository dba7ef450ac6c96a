/**
 * One scope's wiring, as the three commands use it: the publisher names the scope from the
 * configuration (the standalone placeholder cluster or the sidecar's, the provider, the
 * fingerprint with or without the endpoint), the scan reads the confined scope, the refresher
 * publishes what it found. The command line calls the scanner in this one place.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { DEMO_BUCKET, DEMO_PREFIX, DEMO_SERVER, demoRepository } from '../format/barman-cloud/demo-repository.ts';
import type { Publication } from '../publication/publisher.ts';
import { destinationFingerprint } from '../publication/fingerprint.ts';
import { confine } from '../store/confined.ts';
import type { Destination } from '../store/destination.ts';
import { parseConfig, type Config, type Env } from './config/config.ts';
import { standaloneCluster } from './identity.ts';
import { scanBudget, scopeRefresher, wireScope } from './scope-wiring.ts';
import { requireCommonSummary } from '../contract/details-view.ts';

function config(env: Env): Config {
  const result = parseConfig(env);
  if (!result.ok) throw new Error(result.violations.map((v) => v.variable).join(', '));
  return result.config;
}

const DEMO: Destination = { provider: 'store-a', bucket: DEMO_BUCKET, account: null, emulatorOrigin: null, prefix: DEMO_PREFIX };

describe('scope wiring', () => {
  it('names a standalone scope with the placeholder cluster and the configured expectations', () => {
    const c = config({ EXPECTED_RETENTION_POLICY: 'REDUNDANCY 2', EXPECTED_MINIMUM_REDUNDANCY: '3', SCAN_MAX_PAGES: '7', SCAN_MAX_OBJECTS: '9' });
    const scope = wireScope(c, { server: DEMO_SERVER, destination: DEMO, endpointUrl: null });
    assert.equal(scope.root, `${DEMO_PREFIX}/${DEMO_SERVER}/`);
    const s = scope.publisher.current.snapshot;
    assert.deepEqual(s.identity.cluster, standaloneCluster);
    assert.deepEqual(s.identity.repository.scope, { kind: 'archive-server', name: DEMO_SERVER });
    assert.equal(s.identity.repository.provider, 'store-a');
    assert.equal(s.identity.repository.destination_fingerprint, destinationFingerprint(DEMO, null));
    const retention = requireCommonSummary(s.details).retention;
    assert.deepEqual([retention.policy_configured, retention.minimum_configured, retention.minimum_redundancy], [true, true, 3]);
    assert.deepEqual(scanBudget(c), { maxPages: 7, maxObjects: 9 });
  });

  it('names a sidecar scope with the configured cluster and the endpoint in the fingerprint', () => {
    const c = config({
      RUNTIME_MODE: 'sidecar', REPOSITORY_FORMAT: 'archive-cloud', PROVIDER: 'store-a', DESTINATION_PATH: 's3://acme-backups/postgres/prod',
      ARCHIVE_SERVER_NAMES: 'pg-main', EVIDENCE_TOKEN_FILE: '/run/token', CLUSTER_NAMESPACE: 'databases', CLUSTER_UID: '6f1c2a7e-3b9d-4e8f-a1c2-9d8e7f6a5b4c',
      STORE_CREDENTIAL_MODE: 'static-files', STORE_ACCESS_KEY_ID_FILE: '/k', STORE_SECRET_ACCESS_KEY_FILE: '/s', STORE_ENDPOINT_URL: 'https://s3.internal:8443',
    });
    if (c.mode !== 'sidecar') throw new Error('sidecar');
    const scope = wireScope(c, { server: c.serverName, destination: c.destination, endpointUrl: c.endpointUrl });
    const identity = scope.publisher.current.snapshot.identity;
    assert.deepEqual(identity.cluster, { namespace: 'databases', uid: '6f1c2a7e-3b9d-4e8f-a1c2-9d8e7f6a5b4c', name: null });
    assert.equal(identity.repository.destination_fingerprint, destinationFingerprint(c.destination, 'https://s3.internal:8443'));
    assert.notEqual(identity.repository.destination_fingerprint, destinationFingerprint(c.destination, null));
    assert.equal(scope.root, 'postgres/prod/pg-main/');
  });

  it("the refresher publishes the scan of the scope's confined driver", async () => {
    const c = config({});
    const scope = wireScope(c, { server: DEMO_SERVER, destination: DEMO, endpointUrl: null });
    const published: Publication[] = [];
    const refresher = scopeRefresher(c, scope, scope.scan(confine(demoRepository(), scope.root)), (p) => published.push(p));
    await refresher.refreshNow();
    await refresher.stop();
    const last = published.at(-1);
    assert.equal(last?.generation, 1);
    assert.equal(last.snapshot.completeness, 'complete');
    assert.deepEqual(last.violations, []);
    assert.equal(scope.publisher.evidence?.server, DEMO_SERVER);
  });

  it('the command line calls the scanner in one place', () => {
    const dir = import.meta.dirname;
    const calls = readdirSync(dir, { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))
      .flatMap((f) => [...readFileSync(join(dir, f), 'utf8').matchAll(/\bscanScope\(/g)].map(() => f));
    assert.deepEqual(calls, ['scope-wiring.ts']);
  });
});
