/**
 * The two-container pod for real, with rootful podman on this machine (docs/deploy.md): the real
 * image as viewer, scanning the real Barman repository in the test S3 store, and as the reference
 * console, which assembles viewer's publication over the shared socket with the token and serves
 * it. Each container gets the environment, user and limits of the base manifest
 * (deploy/kubernetes/base), with the test's destination, endpoint and fingerprint, and the flags
 * that stand for its securityContext (--read-only without podman's /tmp tmpfs, --cap-drop=ALL,
 * no-new-privileges). The shared group is given with --group-add (fsGroup's effect), the socket
 * directory and the token are host files prepared as kubelet prepares them (root:10002, 02770 and
 * 0440), and viewer's state directory (STATE_DIR) a host directory as kubelet makes an emptyDir
 * with fsGroup (root:10002, 02777).
 *
 * The pod uses the host's network: the test store listens on 127.0.0.1 only, which a pod on
 * podman's bridge cannot reach without rebinding the store, and a bridge would change the host's
 * firewall and forwarding. Nothing in the pod listens on TCP but the console (on 127.0.0.1); the
 * API is the Unix socket.
 */
import assert from 'node:assert/strict';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { IContainer } from 'kubernetes-models/v1/Container';
import { realRepositories } from '../support/real-repositories.ts';
import { runViewer, type ScanDocument } from '../support/run-viewer.ts';
import { CONSOLE_UID, containerOf, deploymentOf, envOf, NODE, podSpecOf, quantity, render, SHARED_GID, SOCKET_DIR, STATE_PATH, STORE_DIR, TEST_DIR, TOKEN_PATH, VIEWER_JS, VIEWER_UID } from './layout.ts';
import { podman, podmanRun, processCost, skipPodman, socketGet, testImage, until } from './podman.ts';

const TOKEN = 'q1aKFo9oVbP3rJ7Ztl0cKjYc2yU8m1Q0xW5nA4bZr-E';
const SERVER = 'pg-main';
const INTRUDER_UID = 10004;
const MiB = 1024 ** 2;

interface Projection {
  source: { state: string; reason: string };
  projection: { revision: number; evidence_generation: number; collections: { backups: { known: boolean; items?: { backup_id: string }[] } } } | null;
}
interface Snapshot {
  revision: number;
  evidence_generation: number;
  identity: { repository: { destination_fingerprint: string } };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const a = s.address();
      s.close(() => (typeof a === 'object' && a !== null ? resolve(a.port) : reject(new Error('no port'))));
    });
  });
}

/** The podman flags that stand for a container's securityContext and limits in the manifest. */
function securityFlags(c: IContainer, groups: readonly number[]): string[] {
  const sc = c.securityContext ?? {};
  assert.equal(sc.readOnlyRootFilesystem, true);
  assert.deepEqual(sc.capabilities?.drop, ['ALL']);
  assert.equal(sc.allowPrivilegeEscalation, false);
  const flags = ['--user', `${sc.runAsUser}:${sc.runAsGroup}`, '--read-only', '--read-only-tmpfs=false', '--cap-drop=ALL', '--security-opt', 'no-new-privileges'];
  for (const g of groups) flags.push('--group-add', String(g));
  flags.push('--memory', String(quantity(c.resources?.limits?.['memory'])), '--cpus', String(quantity(c.resources?.limits?.['cpu'])));
  return flags;
}
const envFlags = (env: Record<string, string>) => Object.entries(env).flatMap(([k, v]) => ['-e', `${k}=${v}`]);

/** A node one-liner run in a container of the pod; its stdout parsed as JSON. */
function inContainer(container: string, script: string): Record<string, unknown> {
  return JSON.parse(podman(['exec', container, NODE, '-e', script])) as Record<string, unknown>;
}
const FILE_FACTS = (path: string) => `const fs=require('fs');const l=fs.lstatSync(${JSON.stringify(path)});let w;try{fs.writeFileSync(${JSON.stringify(path)},'x')}catch(e){w=e.code}
  console.log(JSON.stringify({file:l.isFile(),link:l.isSymbolicLink(),mode:(l.mode&0o7777).toString(8),uid:l.uid,gid:l.gid,write:w}))`;

describe('the two-container pod under podman', { skip: skipPodman }, () => {
  const pod = `viewer-pod-test-${process.pid}`;
  const viewerName = `${pod}-viewer`;
  const consoleName = `${pod}-console`;
  let work: string;
  let socketHost: string;
  let tokenHost: string;
  let image: string;
  let viewerEnv: Record<string, string>;
  let viewerFlags: string[];
  let consoleUrl: string;
  let scan: ScanDocument;
  let sidecar: Snapshot;

  const mounts = (socketDir: string) => ['-v', `${socketDir}:${SOCKET_DIR}`, '-v', `${tokenHost}:${TOKEN_PATH}:ro`];
  /** The store credential and the state directory: viewer's own mounts. */
  const storeMount = () => ['-v', `${join(work, 'store')}:${STORE_DIR}:ro`, '-v', `${join(work, 'state')}:${STATE_PATH}`];
  const snapshot = async () => {
    const r = await socketGet(join(socketHost, 'evidence.sock'), '/api/v1alpha1/snapshot', TOKEN);
    return r.status === 200 ? (r.body as Snapshot) : null;
  };
  const projection = async () => (await (await fetch(`${consoleUrl}/projection`)).json()) as Projection;

  /** A root:10002 directory or file, as kubelet makes the emptyDir and the Secret's files with fsGroup. */
  const shared = (path: string, mode: number) => {
    chownSync(path, 0, SHARED_GID);
    chmodSync(path, mode);
  };

  before(async () => {
    const repos = realRepositories();
    image = testImage().tag;
    const spec = podSpecOf(deploymentOf(render('base')));
    const viewerC = containerOf(spec, 'viewer');
    const consoleC = containerOf(spec, 'console');
    assert.equal(spec.securityContext?.fsGroup, SHARED_GID);

    mkdirSync(TEST_DIR, { recursive: true });
    work = mkdtempSync(join(TEST_DIR, 'pod-'));
    chmodSync(work, 0o755);
    socketHost = join(work, 'socket');
    mkdirSync(socketHost);
    shared(socketHost, 0o2770);
    tokenHost = join(work, 'token');
    writeFileSync(tokenHost, TOKEN);
    shared(tokenHost, 0o440);
    mkdirSync(join(work, 'store'));
    writeFileSync(join(work, 'store', 'access-key-id'), `${repos.accessKeyId}\n`);
    writeFileSync(join(work, 'store', 'secret-access-key'), `${repos.secretAccessKey}\n`);
    for (const f of ['access-key-id', 'secret-access-key']) shared(join(work, 'store', f), 0o440);
    shared(join(work, 'store'), 0o750);
    mkdirSync(join(work, 'state'));
    shared(join(work, 'state'), 0o2777);

    const destination = `s3://${repos.bucket}/${repos.prefix}`;
    const r = await runViewer(['scan'], {
      DESTINATION_PATH: destination,
      ARCHIVE_SERVER_NAMES: SERVER,
      STORE_ENDPOINT_URL: repos.endpoint,
      STORE_ACCESS_KEY_ID_FILE: join(work, 'store', 'access-key-id'),
      STORE_SECRET_ACCESS_KEY_FILE: join(work, 'store', 'secret-access-key'),
    });
    assert.equal(r.status, 0, r.stderr);
    scan = JSON.parse(r.stdout) as ScanDocument;

    viewerEnv = { ...envOf(viewerC), DESTINATION_PATH: destination, ARCHIVE_SERVER_NAMES: SERVER, STORE_ENDPOINT_URL: repos.endpoint, REFRESH_INTERVAL_SECONDS: '10' };
    viewerFlags = securityFlags(viewerC, [SHARED_GID]);
    podmanRun(['pod', 'rm', '-f', pod]);
    podman(['pod', 'create', '--name', pod, '--network', 'host']);
    podman(['run', '-d', '--pod', pod, '--name', viewerName, ...viewerFlags, ...mounts(socketHost), ...storeMount(), ...envFlags(viewerEnv), image]);
    sidecar = await until('viewer publishing its first scan', async () => {
      const s = await snapshot();
      return s !== null && s.evidence_generation > 0 ? s : null;
    });

    const port = await freePort();
    consoleUrl = `http://127.0.0.1:${port}`;
    const consoleEnv = {
      ...envOf(consoleC),
      LISTEN_ADDR: `127.0.0.1:${port}`,
      REPOSITORY_EXPECTED_FINGERPRINT: (scan.snapshot as Snapshot).identity.repository.destination_fingerprint,
      POLL_INTERVAL_SECONDS: '5',
    };
    podman(['run', '-d', '--pod', pod, '--name', consoleName, ...securityFlags(consoleC, [SHARED_GID]), ...mounts(socketHost), ...envFlags(consoleEnv), image, 'console']);
  });

  after(() => {
    if (process.env['KEEP_POD'] === undefined) {
      podmanRun(['pod', 'rm', '-f', '-t', '0', pod]);
      if (work !== undefined) rmSync(work, { recursive: true, force: true });
    }
  });

  it('viewer made the socket 0660 in the directory\'s group, in a setgid 02770 directory', () => {
    const dir = inContainer(viewerName, `const fs=require('fs');const d=fs.lstatSync('${SOCKET_DIR}');const s=fs.lstatSync('${SOCKET_DIR}/evidence.sock');
      console.log(JSON.stringify({dir:(d.mode&0o7777).toString(8),dirGid:d.gid,socket:s.isSocket(),mode:(s.mode&0o7777).toString(8),uid:s.uid,gid:s.gid}))`);
    assert.deepEqual(dir, { dir: '2770', dirGid: SHARED_GID, socket: true, mode: '660', uid: VIEWER_UID, gid: SHARED_GID });
    const host = statSync(join(socketHost, 'evidence.sock'));
    assert.equal(host.mode & 0o7777, 0o660);
    assert.equal(host.gid, SHARED_GID, 'the group came from the setgid directory, not viewer\'s primary group');
  });

  it('the token is a real 0440 file of the shared group in both containers, and read-only', () => {
    for (const c of [viewerName, consoleName]) {
      assert.deepEqual(inContainer(c, FILE_FACTS(TOKEN_PATH)), { file: true, link: false, mode: '440', uid: 0, gid: SHARED_GID, write: 'EROFS' }, c);
    }
  });

  it('each container runs as its own user with the shared group, without capabilities, on a read-only root', () => {
    const facts = `const fs=require('fs');const st=fs.readFileSync('/proc/self/status','utf8');let w;try{fs.writeFileSync('/app/x','')}catch(e){w=e.code}
      console.log(JSON.stringify({uid:process.getuid(),groups:process.getgroups().sort(),caps:/CapEff:\\s*(\\S+)/.exec(st)[1],nnp:/NoNewPrivs:\\s*(\\d)/.exec(st)[1],root:w,store:fs.existsSync('${STORE_DIR}'),
        pid1:fs.readFileSync('/proc/1/cmdline','utf8').split('\\0').filter(Boolean)}))`;
    // Each container has its own PID namespace (as in Kubernetes): node is PID 1 and must handle SIGTERM itself.
    assert.deepEqual(inContainer(viewerName, facts), { uid: VIEWER_UID, groups: [VIEWER_UID, SHARED_GID], caps: '0000000000000000', nnp: '1', root: 'EROFS', store: true, pid1: [NODE, VIEWER_JS] });
    // The console's container sets no NODE_OPTIONS: the executable restarted PID 1 in place with its young generation (D-129).
    assert.deepEqual(inContainer(consoleName, facts), { uid: CONSOLE_UID, groups: [SHARED_GID, CONSOLE_UID], caps: '0000000000000000', nnp: '1', root: 'EROFS', store: false, pid1: [NODE, '--max-semi-space-size=4', VIEWER_JS, 'console'] });
    const [inspected] = JSON.parse(podman(['container', 'inspect', consoleName])) as [{ Config: { Env: string[] } }];
    assert.deepEqual(inspected.Config.Env.filter((e) => /^(STORE_|DESTINATION_PATH|AWS_|EVIDENCE_TOKEN_FILE)/.test(e)), [], 'no object-store credential or destination in the console');
  });

  it('viewer keeps its memory in STATE_DIR: one 0600 file of its own per scope, the only thing it writes beside the socket', async () => {
    const files = await until('the memory of the first generation written', () => {
      const names = readdirSync(join(work, 'state'));
      return Promise.resolve(names.some((n) => /^memory-[0-9a-f]{32}\.json$/.test(n)) ? names : null);
    });
    assert.equal(files.length, 1, files.join(', '));
    const st = statSync(join(work, 'state', files[0] ?? ''));
    assert.deepEqual([st.uid, st.mode & 0o777], [VIEWER_UID, 0o600]);
  });

  it('`viewer probe` (the liveness command) reports live, and not live without the token', () => {
    const live = podmanRun(['exec', viewerName, NODE, VIEWER_JS, 'probe']);
    assert.equal(live.status, 0, live.stderr);
    const dead = podmanRun(['exec', '-e', 'EVIDENCE_TOKEN_FILE=/nonexistent', viewerName, NODE, VIEWER_JS, 'probe']);
    assert.equal(dead.status, 1);
    assert.equal(dead.stderr, 'viewer probe: not live\n');
  });

  it('the console assembles the sidecar\'s publication over the socket and serves it', async () => {
    const p = await until('the console\'s projection', async () => {
      const x = await projection();
      return x.source.state === 'available' && x.projection !== null ? x : null;
    });
    const current = await snapshot();
    assert.ok(current !== null);
    assert.equal(p.source.reason, 'current');
    // The console's projection is a publication the sidecar made (the sidecar rescans every 10 s,
    // so the console may be one behind): then it catches up at its next poll.
    const caughtUp = await until('the console at the sidecar\'s revision', async () => {
      const [x, s] = [await projection(), await snapshot()];
      return x.projection !== null && s !== null && x.projection.revision === s.revision && x.projection.evidence_generation === s.evidence_generation ? x : null;
    }, 20_000);
    assert.ok(caughtUp.projection !== null && caughtUp.projection.revision >= sidecar.revision);
    const backups = caughtUp.projection.collections.backups;
    assert.equal(backups.known, true);
    assert.deepEqual(backups.items?.map((b) => b.backup_id).sort(), scan.backups.map((b) => b['backup_id'] as string).sort(), 'the backups viewer scan sees');
    assert.ok((backups.items ?? []).length > 0);
    assert.equal((await fetch(`${consoleUrl}/readyz`)).status, 200);
    assert.match(await (await fetch(`${consoleUrl}/metrics`)).text(), /^viewer_consumer_source_state\{server="pg-main",namespace="databases",cluster="pg-main",state="available"\} 1$/m);
  });

  it('a container of the pod without the shared group can neither use the socket nor read the token', () => {
    const script = `const fs=require('fs');const net=require('net');let token;try{fs.readFileSync('${TOKEN_PATH}')}catch(e){token=e.code}
      const s=net.connect('${SOCKET_DIR}/evidence.sock');s.on('connect',()=>{console.log(JSON.stringify({token,socket:'connected'}));s.destroy()});s.on('error',(e)=>console.log(JSON.stringify({token,socket:e.code,groups:process.getgroups()})))`;
    const out = podman(['run', '--rm', '--pod', pod, '--user', `${INTRUDER_UID}:${INTRUDER_UID}`, '--read-only', '--read-only-tmpfs=false', '--cap-drop=ALL', '--security-opt', 'no-new-privileges',
      ...mounts(socketHost), '--entrypoint', NODE, image, '-e', script]);
    assert.deepEqual(JSON.parse(out), { token: 'EACCES', socket: 'EACCES', groups: [INTRUDER_UID] });
  });

  it('viewer refuses to start with a token laid out as a Secret volume does (a symbolic link), and creates no socket', () => {
    // kubelet's secret volume: token -> ..data/token, ..data -> ..<timestamp>/ (a directory mount keeps the links).
    const secretDir = join(work, 'secret-volume');
    const data = join(secretDir, '..2026_11_24_00_00_00.000000000');
    mkdirSync(data, { recursive: true });
    writeFileSync(join(data, 'token'), TOKEN);
    shared(join(data, 'token'), 0o440);
    symlinkSync('..2026_11_24_00_00_00.000000000', join(secretDir, '..data'));
    symlinkSync('..data/token', join(secretDir, 'token'));
    const socketDir = join(work, 'socket-refused');
    mkdirSync(socketDir);
    shared(socketDir, 0o2770);
    const r = podmanRun(['run', '--rm', '--network', 'none', ...viewerFlags, '-v', `${socketDir}:${SOCKET_DIR}`, '-v', `${secretDir}:/var/run/secrets/viewer:ro`, ...storeMount(), ...envFlags(viewerEnv), image]);
    assert.equal(r.status, 78, r.stderr);
    assert.equal(r.stderr, 'viewer: sidecar refused to start: token file: is a symbolic link\n');
    assert.deepEqual(readdirSync(socketDir), []);
  });

  it('viewer refuses a 0400 token, and a socket directory whose group it lacks', () => {
    const socketDir = join(work, 'socket-refused-2');
    mkdirSync(socketDir);
    shared(socketDir, 0o2770);
    // Tokens viewer's own user can read, so that the rule under test is the only obstacle.
    const own = (name: string, mode: number) => {
      const path = join(work, name);
      writeFileSync(path, TOKEN);
      chownSync(path, VIEWER_UID, SHARED_GID);
      chmodSync(path, mode);
      return path;
    };
    const run = (flags: string[], token: string) =>
      podmanRun(['run', '--rm', '--network', 'none', ...flags, '-v', `${socketDir}:${SOCKET_DIR}`, '-v', `${token}:${TOKEN_PATH}:ro`, ...storeMount(), ...envFlags(viewerEnv), image]);
    const r0400 = run(viewerFlags, own('token-0400', 0o400));
    assert.equal(r0400.status, 78);
    assert.equal(r0400.stderr, 'viewer: sidecar refused to start: token file: mode must be exactly 0440\n');
    const withoutGroup = viewerFlags.filter((f, i) => f !== '--group-add' && viewerFlags[i - 1] !== '--group-add');
    assert.equal(withoutGroup.length, viewerFlags.length - 2);
    const rGroup = run(withoutGroup, own('token-own', 0o440));
    assert.equal(rGroup.status, 78);
    assert.equal(rGroup.stderr, "viewer: sidecar refused to start: socket directory: its group is not one of this process's groups\n");
    assert.deepEqual(readdirSync(socketDir), []);
  });

  it('SIGTERM stops viewer cleanly within its 5 s (socket removed, exit 0), then the console', () => {
    const pidOf = (name: string) => (JSON.parse(podman(['container', 'inspect', name])) as [{ State: { Pid: number } }])[0].State.Pid;
    const cost = processCost(pidOf(viewerName));
    const consoleCost = processCost(pidOf(consoleName));
    const limit = Number(viewerFlags[viewerFlags.indexOf('--memory') + 1]);
    process.stderr.write(`viewer in the pod: peak RSS ${(cost.peakRssKiB / 1024).toFixed(1)} MiB, ${cost.cpuSeconds.toFixed(2)} CPU s (limit ${limit / MiB} MiB); `
      + `console: ${(consoleCost.peakRssKiB / 1024).toFixed(1)} MiB, ${consoleCost.cpuSeconds.toFixed(2)} CPU s\n`);
    assert.ok(cost.peakRssKiB * 1024 < limit);
    const started = Date.now();
    podman(['stop', '-t', '10', viewerName]);
    const took = Date.now() - started;
    const [stopped] = JSON.parse(podman(['container', 'inspect', viewerName])) as [{ State: { ExitCode: number; Status: string } }];
    assert.equal(stopped.State.ExitCode, 0, 'exit 0, not SIGKILL\'s 137');
    assert.ok(took < 5_000, `stopped in ${took} ms`);
    process.stderr.write(`viewer stopped in ${took} ms\n`);
    assert.equal(existsSync(join(socketHost, 'evidence.sock')), false, 'the socket was removed');
    assert.match(podman(['logs', viewerName]), /"msg":"shutting down"/);
    const consoleStarted = Date.now();
    podman(['stop', '-t', '20', consoleName]);
    const [consoleStopped] = JSON.parse(podman(['container', 'inspect', consoleName])) as [{ State: { ExitCode: number } }];
    assert.equal(consoleStopped.State.ExitCode, 0);
    assert.ok(Date.now() - consoleStarted < 15_000);
  });
});
