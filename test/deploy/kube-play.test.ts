/**
 * The manifests themselves run: deploy/kubernetes/overlays/podman (the base with the replacements
 * its kustomization lists and manifests.test.ts holds it to), rendered with `kubectl kustomize` and
 * started with `podman kube play`. The Deployment becomes pod viewer-console-pod-0; viewer scans
 * the real repository in the test store and the console serves the sidecar's publication. What
 * the manifest says is checked on the running containers (users, groups, read-only root, no
 * capabilities, memory limits, which container mounts what), then `podman pod stop` (SIGTERM, as
 * kubelet does) must end both with exit 0 and the socket removed. (`podman kube down` alone kills
 * without the grace period, so it only cleans up.)
 *
 * Then overlays/cloudnative-pg, adapted the same way by kube-play-adapt.ts (manifests.test.ts holds
 * that function to overlays/podman's replacements): its projected store volume becomes a host
 * directory laid out as kubelet lays out the ObjectStore's Secret keys (each `items` key written
 * to its path: the test store's key pair as the values of the keys the ObjectStore names, and a CA
 * certificate made for the test as endpointCA's), and viewer must publish the Cluster's scope with
 * the Cluster's identity from it. Only the destination and the endpoint are the test store's.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parseAllDocuments, stringify } from 'yaml';
import { destinationFingerprint } from '../../src/publication/fingerprint.ts';
import { parseDestination } from '../../src/store/destination.ts';
import { realRepositories } from '../support/real-repositories.ts';
import { forKubePlay } from './kube-play-adapt.ts';
import {
  CONSOLE_UID, containerOf, deploymentOf, envOf, KUBE_PLAY_DIR, kubectlAvailable, KUSTOMIZE, NODE, podSpecOf, render, SHARED_GID, SOCKET_DIR, STATE_PATH, STORE_DIR, TEST_DIR,
  TOKEN_PATH, VIEWER_JS, VIEWER_UID,
} from './layout.ts';
import { podman, podmanRun, skipPodman, socketGet, testImage, until } from './podman.ts';

const TOKEN = 'q1aKFo9oVbP3rJ7Ztl0cKjYc2yU8m1Q0xW5nA4bZr-E';
const POD = 'viewer-console-pod-0';
const CONSOLE_URL = 'http://127.0.0.1:18390';
const MiB = 1024 ** 2;

interface Inspected {
  Config: { User: string; Env: string[] };
  HostConfig: { Memory: number; ReadonlyRootfs: boolean; CpuQuota: number; CpuPeriod: number; GroupAdd: string[] | null };
  Mounts: { Destination: string; Source: string; RW: boolean }[];
  State: { ExitCode: number; Status: string };
}
const inspect = (name: string) => (JSON.parse(podman(['container', 'inspect', name])) as [Inspected])[0];

/** A root:10002 directory or file, as kubelet makes the emptyDir and the Secret's files with fsGroup. */
function shared(path: string, mode: number): void {
  chownSync(path, 0, SHARED_GID);
  chmodSync(path, mode);
}

/** The socket directory and the token under `dir`, as kubelet prepares them (root:10002, 02770 and 0440). */
function prepareSocketAndToken(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(join(dir, 'socket'), { recursive: true });
  shared(join(dir, 'socket'), 0o2770);
  writeFileSync(join(dir, 'token'), TOKEN);
  shared(join(dir, 'token'), 0o440);
}

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}

describe('podman kube play of the manifests (overlays/podman)', { skip: skipPodman || (kubectlAvailable ? false : 'kubectl is not installed') }, () => {
  const dir = join(TEST_DIR, 'kube-play');
  const rendered = join(dir, 'rendered.yaml');
  const socket = join(dir, 'socket', 'evidence.sock');

  before(async () => {
    const repos = realRepositories();
    testImage(); // tags localhost/viewer:pod-test, the overlay's image
    podmanRun(['pod', 'rm', '-f', '-t', '0', POD]); // a crashed earlier run's pod
    assert.ok(await portFree(18390), 'port 18390 (the overlay\'s console) is taken');
    const yaml = render('overlays/podman').yaml.replaceAll(KUBE_PLAY_DIR, dir);
    assert.ok(yaml.includes(`value: s3://${repos.bucket}/${repos.prefix}\n`) && yaml.includes(`value: ${repos.endpoint}\n`), 'the overlay names the test store');
    prepareSocketAndToken(dir);
    mkdirSync(join(dir, 'store'));
    writeFileSync(join(dir, 'store', 'access-key-id'), `${repos.accessKeyId}\n`);
    writeFileSync(join(dir, 'store', 'secret-access-key'), `${repos.secretAccessKey}\n`);
    for (const f of ['access-key-id', 'secret-access-key']) shared(join(dir, 'store', f), 0o440);
    shared(join(dir, 'store'), 0o750);
    writeFileSync(rendered, yaml);
    podman(['kube', 'play', rendered]);
  });

  after(() => {
    podmanRun(['kube', 'down', rendered]);
    podmanRun(['pod', 'rm', '-f', '-t', '0', POD]);
    rmSync(dir, { recursive: true, force: true });
  });

  it('the console serves the publication viewer made, over the shared socket', async () => {
    const both = await until('the console at the sidecar\'s revision', async () => {
      const s = await socketGet(socket, '/api/v1alpha1/snapshot', TOKEN);
      const p = (await (await fetch(`${CONSOLE_URL}/projection`)).json()) as { source: { state: string }; projection: { revision: number; evidence_generation: number } | null };
      const snap = s.body as { revision: number; evidence_generation: number };
      return s.status === 200 && snap.evidence_generation > 0 && p.source.state === 'available' && p.projection?.revision === snap.revision ? { snap, p } : null;
    }, 45_000);
    assert.equal(both.p.projection?.evidence_generation, both.snap.evidence_generation);
    const probe = podmanRun(['exec', `${POD}-viewer`, NODE, VIEWER_JS, 'probe']);
    assert.equal(probe.status, 0, `viewer probe: ${probe.stderr}`);
    // Its memory went to the state directory, the emptyDir kube play made of the manifest's.
    const state = await until('the memory in the state directory', () => {
      const names = JSON.parse(podman(['exec', `${POD}-viewer`, NODE, '-e', `console.log(JSON.stringify(require('fs').readdirSync('${STATE_PATH}')))`])) as string[];
      return names.length > 0 ? names : null;
    });
    assert.match(state.join(' '), /^memory-[0-9a-f]{32}\.json$/);
  });

  it('the containers run as the manifest says: users, shared group, read-only root, no capabilities, limits, mounts', () => {
    const v = inspect(`${POD}-viewer`);
    const c = inspect(`${POD}-console`);
    assert.equal(v.Config.User, `${VIEWER_UID}:${VIEWER_UID}`);
    assert.equal(c.Config.User, `${CONSOLE_UID}:${CONSOLE_UID}`);
    for (const x of [v, c]) assert.equal(x.HostConfig.ReadonlyRootfs, true);
    assert.equal(v.HostConfig.Memory, 256 * MiB);
    assert.equal(c.HostConfig.Memory, 192 * MiB);
    assert.equal(v.HostConfig.CpuQuota / v.HostConfig.CpuPeriod, 1);
    const destinations = (x: Inspected) => x.Mounts.map((m) => m.Destination).sort();
    assert.deepEqual(destinations(v), [STORE_DIR, TOKEN_PATH, SOCKET_DIR, STATE_PATH].sort());
    assert.deepEqual(destinations(c), [TOKEN_PATH, SOCKET_DIR].sort(), 'the console mounts no store credential');
    for (const x of [v, c]) assert.equal(x.Mounts.find((m) => m.Destination === TOKEN_PATH)?.RW, false, 'the token is read-only');
    const facts = `const fs=require('fs');const st=fs.readFileSync('/proc/self/status','utf8');const t=fs.lstatSync('${TOKEN_PATH}');let w;try{fs.writeFileSync('/x','')}catch(e){w=e.code}
      console.log(JSON.stringify({groups:process.getgroups().includes(${SHARED_GID}),caps:/CapEff:\\s*(\\S+)/.exec(st)[1],nnp:/NoNewPrivs:\\s*(\\d)/.exec(st)[1],root:w,token:[t.isFile(),(t.mode&0o7777).toString(8),t.gid]}))`;
    for (const name of ['viewer', 'console']) {
      assert.deepEqual(JSON.parse(podman(['exec', `${POD}-${name}`, NODE, '-e', facts])), { groups: true, caps: '0000000000000000', nnp: '1', root: 'EROFS', token: [true, '440', SHARED_GID] }, name);
    }
    const s = statSync(socket);
    assert.equal(s.mode & 0o7777, 0o660);
    assert.equal(s.gid, SHARED_GID);
    assert.equal(s.uid, VIEWER_UID);
  });

  it('podman pod stop (SIGTERM, then the grace period) ends both containers cleanly and removes the socket', () => {
    const started = Date.now();
    podman(['pod', 'stop', '-t', '20', POD]);
    const took = Date.now() - started;
    assert.equal(inspect(`${POD}-viewer`).State.ExitCode, 0);
    assert.equal(inspect(`${POD}-console`).State.ExitCode, 0);
    assert.ok(took < 15_000, `stopped in ${took} ms`);
    assert.equal(existsSync(socket), false, 'viewer removed its socket');
  });
});

/** The parts of the reference ObjectStore (overlays/cloudnative-pg/cloudnative-pg.reference.yaml) the test plays the Secrets from. */
interface ReferenceObject {
  kind: string;
  metadata: { name: string; namespace: string };
  spec: { configuration?: { s3Credentials?: Partial<Record<string, { name: string; key: string }>>; endpointCA?: { name: string; key: string } } };
}
interface Snapshot {
  revision: number;
  evidence_generation: number;
  identity: { cluster: { namespace: string; uid: string; name: string | null }; repository: { destination_fingerprint: string; scope: { kind: string; name: string } } };
}
interface Projection {
  source: { state: string; reason: string };
  projection: { revision: number; evidence_generation: number; collections: { backups: { known: boolean; items?: { backup_id: string }[] } } } | null;
}

describe('podman kube play of overlays/cloudnative-pg (the ObjectStore\'s Secret keys and the Cluster\'s identity)', { skip: skipPodman || (kubectlAvailable ? false : 'kubectl is not installed') }, () => {
  const dir = join(TEST_DIR, 'kube-play-cnpg');
  const rendered = join(dir, 'rendered.yaml');
  const socket = join(dir, 'socket', 'evidence.sock');
  let viewerEnv: Record<string, string>;
  let fingerprint: string;
  let secretFiles: string[];

  before(async () => {
    const repos = realRepositories();
    testImage();
    podmanRun(['pod', 'rm', '-f', '-t', '0', POD]);
    assert.ok(await portFree(18390), 'port 18390 (the console) is taken');
    const deployment = deploymentOf(render('overlays/cloudnative-pg'));
    const spec = podSpecOf(deployment);
    viewerEnv = envOf(containerOf(spec, 'viewer'));

    // The Secrets as the ObjectStore names them: the test store's key pair under the keys its
    // s3Credentials selectors name (ACCESS_KEY_ID, ACCESS_SECRET_KEY: the plugin's convention).
    const objects = parseAllDocuments(readFileSync(join(KUSTOMIZE, 'overlays/cloudnative-pg/cloudnative-pg.reference.yaml'), 'utf8')).map((d) => d.toJS() as ReferenceObject);
    const configuration = objects.find((o) => o.kind === 'ObjectStore')?.spec.configuration ?? {};
    const credentials = configuration.s3Credentials ?? {};
    const secrets = new Map<string, string>();
    for (const [field, value] of [['accessKeyId', repos.accessKeyId], ['secretAccessKey', repos.secretAccessKey]] as const) {
      const selector = credentials[field];
      assert.ok(selector !== undefined, `the ObjectStore names s3Credentials.${field}`);
      secrets.set(`${selector.name}/${selector.key}`, value);
    }
    // endpointCA's key: a CA certificate made for the test. viewer must find it where STORE_CA_FILE
    // points and accept it (it refuses to start with an unreadable or certificate-less file); the
    // test store speaks plain http, so the CA is loaded but verifies no connection here.
    prepareSocketAndToken(dir);
    const ca = configuration.endpointCA;
    assert.ok(ca !== undefined, 'the ObjectStore names endpointCA');
    execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-subj', '/CN=viewer test store CA', '-days', '1',
      '-keyout', join(dir, 'ca.key'), '-out', join(dir, 'ca.crt')], { stdio: 'ignore' });
    secrets.set(`${ca.name}/${ca.key}`, readFileSync(join(dir, 'ca.crt'), 'utf8'));
    // Laid out as kubelet lays out the projected volume: each item's Secret key as the file its path names.
    mkdirSync(join(dir, 'store'));
    const volume = spec.volumes?.find((v) => v.name === containerOf(spec, 'viewer').volumeMounts?.find((m) => m.mountPath === STORE_DIR)?.name);
    secretFiles = [];
    for (const source of volume?.projected?.sources ?? []) {
      for (const item of source.secret?.items ?? []) {
        const value = secrets.get(`${source.secret?.name}/${item.key}`);
        if (value === undefined) continue;
        writeFileSync(join(dir, 'store', item.path), value);
        shared(join(dir, 'store', item.path), 0o440);
        secretFiles.push(item.path);
      }
    }
    assert.equal(secretFiles.length, 3, 'the overlay mounts the keys the ObjectStore names: the key pair and the CA');
    shared(join(dir, 'store'), 0o750);

    // The test store in place of the ObjectStore's destination and endpoint (the server, the
    // credential files and the Cluster's identity stay the overlay's).
    const destination = `s3://${repos.bucket}/${repos.prefix}`;
    const parsed = parseDestination(destination, 'store-a');
    assert.ok(parsed.ok);
    fingerprint = destinationFingerprint(parsed.destination, new URL(repos.endpoint).origin);
    const adapted = forKubePlay(deployment, {
      dir,
      env: {
        viewer: { DESTINATION_PATH: destination, STORE_ENDPOINT_URL: repos.endpoint, REFRESH_INTERVAL_SECONDS: '10' },
        console: { LISTEN_ADDR: '127.0.0.1:18390', REPOSITORY_EXPECTED_FINGERPRINT: fingerprint, POLL_INTERVAL_SECONDS: '5' },
      },
    });
    writeFileSync(rendered, stringify(adapted));
    podman(['kube', 'play', rendered]);
  });

  after(() => {
    podmanRun(['kube', 'down', rendered]);
    podmanRun(['pod', 'rm', '-f', '-t', '0', POD]);
    rmSync(dir, { recursive: true, force: true });
  });

  it('viewer publishes the Cluster\'s server with the Cluster\'s identity, from the ObjectStore\'s Secret keys, and the console serves it', async () => {
    const repos = realRepositories();
    const both = await until('the console at the sidecar\'s revision', async () => {
      const s = await socketGet(socket, '/api/v1alpha1/snapshot', TOKEN);
      const p = (await (await fetch(`${CONSOLE_URL}/projection`)).json()) as Projection;
      const snap = s.body as Snapshot;
      return s.status === 200 && snap.evidence_generation > 0 && p.source.state === 'available' && p.projection?.revision === snap.revision ? { snap, p } : null;
    }, 45_000);
    assert.equal(both.p.source.reason, 'current');
    assert.equal(both.p.projection?.evidence_generation, both.snap.evidence_generation);
    // identity.cluster is the Cluster's (CLUSTER_NAMESPACE/UID/NAME), the scope its server (the
    // plugin's serverName, by default the Cluster's name), the fingerprint the console expects.
    assert.deepEqual(both.snap.identity.cluster, { namespace: 'databases', uid: viewerEnv['CLUSTER_UID'], name: 'pg-main' });
    assert.deepEqual(both.snap.identity.repository.scope, { kind: 'archive-server', name: 'pg-main' });
    assert.equal(both.snap.identity.repository.destination_fingerprint, fingerprint);
    // The evidence is the repository's: every backup Barman lists, and the abandoned directory.
    const backups = both.p.projection?.collections.backups;
    assert.equal(backups?.known, true);
    assert.deepEqual(backups.items?.map((b) => b.backup_id).sort(), [...repos.backupList('pg-main').map((b) => b.backup_id), repos.facts['ABANDONED_BACKUP']].sort());
    // The console's series name the Cluster too (its namespace and name, from identity.cluster).
    assert.match(await (await fetch(`${CONSOLE_URL}/metrics`)).text(), /^viewer_consumer_source_state\{server="pg-main",namespace="databases",cluster="pg-main",state="available"\} 1$/m);
  });

  it('the ObjectStore\'s keys are files in viewer only, where its variables point; viewer keeps its memory', async () => {
    const files = `const fs=require('fs');console.log(JSON.stringify({store:fs.readdirSync('${STORE_DIR}').sort(),state:fs.readdirSync('${STATE_PATH}')}))`;
    const seen = await until('the memory in the state directory', () => {
      const x = JSON.parse(podman(['exec', `${POD}-viewer`, NODE, '-e', files])) as { store: string[]; state: string[] };
      return x.state.length > 0 ? x : null;
    });
    assert.deepEqual(seen.store, [...secretFiles].sort());
    for (const name of ['STORE_ACCESS_KEY_ID_FILE', 'STORE_SECRET_ACCESS_KEY_FILE', 'STORE_CA_FILE']) assert.ok(secretFiles.map((f) => `${STORE_DIR}/${f}`).includes(viewerEnv[name] ?? ''), name);
    assert.match(seen.state.join(' '), /^memory-[0-9a-f]{32}\.json$/);
    assert.deepEqual(inspect(`${POD}-console`).Mounts.map((m) => m.Destination).sort(), [TOKEN_PATH, SOCKET_DIR].sort(), 'the console mounts no store credential');
  });
});
