/**
 * The manifests themselves run: deploy/kubernetes/overlays/podman (the base with the replacements
 * its kustomization lists and manifests.test.ts holds it to), rendered with `kubectl kustomize` and
 * started with `podman kube play`. The Deployment becomes pod viewer-console-pod-0; viewer scans
 * the real repository in the test store and the console serves the sidecar's publication. What
 * the manifest says is checked on the running containers (users, groups, read-only root, no
 * capabilities, memory limits, which container mounts what), then `podman pod stop` (SIGTERM, as
 * kubelet does) must end both with exit 0 and the socket removed. (`podman kube down` alone kills
 * without the grace period, so it only cleans up.)
 */
import assert from 'node:assert/strict';
import { chmodSync, chownSync, existsSync, mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { realRepositories } from '../support/real-repositories.ts';
import { CONSOLE_UID, KUBE_PLAY_DIR, kubectlAvailable, NODE, render, SHARED_GID, SOCKET_DIR, STATE_PATH, STORE_DIR, TEST_DIR, TOKEN_PATH, VIEWER_JS, VIEWER_UID } from './layout.ts';
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
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(join(dir, 'socket'), { recursive: true });
    mkdirSync(join(dir, 'store'));
    const shared = (path: string, mode: number) => {
      chownSync(path, 0, SHARED_GID);
      chmodSync(path, mode);
    };
    shared(join(dir, 'socket'), 0o2770);
    writeFileSync(join(dir, 'token'), TOKEN);
    shared(join(dir, 'token'), 0o440);
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
