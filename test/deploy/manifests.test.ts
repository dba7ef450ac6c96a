/**
 * The Kubernetes manifests (deploy/kubernetes), rendered with `kubectl kustomize` as a user would:
 * each object type-checked against the Kubernetes API schemas (kubernetes-models), then every
 * invariant of the spec a manifest can break asserted here (spec: Authentication, Sidecar; Sidecar
 * configuration; Consumer contract). The schemas catch wrong types and missing fields only, not a
 * misspelt field or a dangling reference, so those are asserted too. The podman overlay may differ
 * from the base only by the replacements its kustomization lists.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { IDeployment } from 'kubernetes-models/apps/v1/Deployment';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { Service } from 'kubernetes-models/v1/Service';
import { ServiceAccount } from 'kubernetes-models/v1/ServiceAccount';
import type { IContainer } from 'kubernetes-models/v1/Container';
import type { IPodSpec } from 'kubernetes-models/v1/PodSpec';
import type { IVolume } from 'kubernetes-models/v1/Volume';
import { parseConfig } from '../../src/cli/config/config.ts';
import { parseConsoleConfig, STORE_VARIABLES } from '../../src/cli/config/console-config.ts';
import { SIDECAR_SOCKET_PATH } from '../../src/contract/values.ts';
import { destinationFingerprint } from '../../src/publication/fingerprint.ts';
import { parseDestination } from '../../src/store/destination.ts';
import { parseAllDocuments } from 'yaml';
import { forKubePlay } from './kube-play-adapt.ts';
import {
  CONSOLE_UID, containerOf, deploymentOf, envOf, KUBE_PLAY_DIR, kubectlAvailable, KUSTOMIZE, podSpecOf, PROBE_COMMAND, quantity, render,
  SHARED_GID, SOCKET_DIR, STATE_PATH, STORE_DIR, TOKEN_PATH, VIEWER_UID, type Rendered,
} from './layout.ts';
import { VIEWER_MEMORY } from './memory-figures.ts';

const MODELS: Record<string, new (data: never) => { validate(): void }> = { Deployment, Service, ServiceAccount };
/** Overlays for production: every invariant holds in each. */
const PRODUCTION = ['base', 'overlays/web-identity', 'overlays/cloudnative-pg'] as const;
const MiB = 1024 ** 2;
/** 7. The variables overlays/podman sets (the test store, the console's address, shorter intervals). */
const PODMAN_OVERRIDES: Record<'viewer' | 'console', readonly string[]> = {
  viewer: ['DESTINATION_PATH', 'ARCHIVE_SERVER_NAMES', 'STORE_ENDPOINT_URL', 'REFRESH_INTERVAL_SECONDS'],
  console: ['LISTEN_ADDR', 'REPOSITORY_EXPECTED_FINGERPRINT', 'POLL_INTERVAL_SECONDS'],
};

/** A SecretKeySelector of CloudNativePG's API. */
interface KeySelector {
  name: string;
  key: string;
}
/** The parts of the barman-cloud plugin's ObjectStore and of a Cluster that viewer's configuration comes from. */
interface ObjectStore {
  kind: 'ObjectStore';
  metadata: { name: string; namespace: string };
  spec: {
    configuration: {
      destinationPath: string;
      endpointURL?: string;
      endpointCA?: KeySelector;
      s3Credentials?: { accessKeyId?: KeySelector; secretAccessKey?: KeySelector; sessionToken?: KeySelector; region?: KeySelector; inheritFromIAMRole?: boolean };
    };
    retentionPolicy?: string;
  };
}
interface Cluster {
  kind: 'Cluster';
  metadata: { name: string; namespace: string };
  spec: { plugins?: { name: string; parameters?: { barmanObjectName?: string; serverName?: string } }[] };
}

const volumeNamed = (spec: IPodSpec, name: string): IVolume => {
  const v = (spec.volumes ?? []).find((x) => x.name === name);
  assert.ok(v !== undefined, `volume ${name} is defined`);
  return v;
};
const mountsOf = (c: IContainer, volume: string) => (c.volumeMounts ?? []).filter((m) => m.name === volume);
/** Names of the volumes a container mounts. */
const mountedVolumes = (c: IContainer) => new Set((c.volumeMounts ?? []).map((m) => m.name));

function typeCheck(r: Rendered): void {
  for (const o of r.objects) {
    const kind = String(o['kind']);
    const Model = MODELS[kind];
    assert.ok(Model !== undefined, `no schema check for kind ${kind}: add it to MODELS`);
    new Model(o as never).validate();
  }
}

/** The invariants of the spec that the pod's containers and volumes can break. */
function assertPodInvariants(spec: IPodSpec, overlay: string): void {
  // No Kubernetes API credential anywhere in the pod (rule 8 for viewer; the reference console needs none).
  assert.equal(spec.automountServiceAccountToken, false, `${overlay}: automountServiceAccountToken`);
  assert.notEqual(spec.hostNetwork, true);
  assert.notEqual(spec.hostPID, true);
  assert.notEqual(spec.hostIPC, true);
  assert.equal(spec.enableServiceLinks, false, 'no Service variables in the containers');
  assert.equal(spec.shareProcessNamespace ?? false, false, 'each container has its own PID namespace (viewer is PID 1 and handles SIGTERM)');
  assert.deepEqual(spec.containers.map((c) => c.name), ['viewer', 'console']);
  assert.equal((spec.initContainers ?? []).length, 0);
  assert.equal((spec.ephemeralContainers ?? []).length, 0);

  // Pod security: non-root, the shared group as fsGroup (kubelet gives it to the emptyDir, setgid,
  // and to the Secret's files), seccomp.
  const psc = spec.securityContext ?? {};
  assert.equal(psc.runAsNonRoot, true);
  assert.equal(psc.fsGroup, SHARED_GID, 'fsGroup is the shared group');
  assert.equal(psc.seccompProfile?.type, 'RuntimeDefault');
  assert.ok(!(psc.supplementalGroups ?? []).includes(0));
  // viewer stops within 5 s of SIGTERM, the console within 15 s: the grace period covers both.
  assert.ok((spec.terminationGracePeriodSeconds ?? 30) >= 20, 'grace period covers the console\'s 15 s shutdown');

  // Every volume is mounted somewhere and every mount names a defined volume (the schemas do not check this).
  const defined = new Set((spec.volumes ?? []).map((v) => v.name));
  for (const c of spec.containers) for (const m of c.volumeMounts ?? []) assert.ok(defined.has(m.name), `${c.name} mounts undefined volume ${m.name}`);
  for (const v of defined) assert.ok(spec.containers.some((c) => mountedVolumes(c).has(v)), `volume ${v} is mounted`);
  // Nothing from the node, in production.
  for (const v of spec.volumes ?? []) assert.equal(v.hostPath, undefined, `${overlay}: volume ${v.name} is a hostPath`);

  const viewer = containerOf(spec, 'viewer');
  const consoleC = containerOf(spec, 'console');
  assert.equal(viewer.image, consoleC.image, 'the console is the same image');

  for (const c of spec.containers) {
    const sc = c.securityContext ?? {};
    assert.equal(sc.runAsNonRoot, true, `${c.name}: runAsNonRoot`);
    assert.equal(sc.readOnlyRootFilesystem, true, `${c.name}: readOnlyRootFilesystem`);
    assert.equal(sc.allowPrivilegeEscalation, false, `${c.name}: allowPrivilegeEscalation`);
    assert.notEqual(sc.privileged, true, `${c.name}: privileged`);
    assert.deepEqual(sc.capabilities?.drop, ['ALL'], `${c.name}: drops every capability`);
    assert.equal((sc.capabilities?.add ?? []).length, 0, `${c.name}: adds no capability`);
    assert.equal(sc.seccompProfile?.type ?? psc.seccompProfile?.type, 'RuntimeDefault');
    assert.notEqual(sc.runAsGroup, SHARED_GID, `${c.name}: the shared group comes from fsGroup, not as primary group`);
    assert.equal((c.envFrom ?? []).length, 0, `${c.name}: every variable is visible in the manifest`);
    for (const e of c.env ?? []) assert.equal(e.valueFrom, undefined, `${c.name}: ${e.name} comes from a literal (credentials are files)`);
    // Requests and limits for both resources; requests within limits.
    for (const r of ['cpu', 'memory'] as const) {
      const request = quantity(c.resources?.requests?.[r]);
      const limit = quantity(c.resources?.limits?.[r]);
      assert.ok(request > 0 && limit > 0, `${c.name}: ${r} request and limit`);
      assert.ok(request <= limit, `${c.name}: ${r} request within its limit`);
    }
  }
  assert.equal(viewer.securityContext?.runAsUser, VIEWER_UID);
  assert.equal(consoleC.securityContext?.runAsUser, CONSOLE_UID);
  assert.notEqual(VIEWER_UID, CONSOLE_UID);

  // The socket directory: an emptyDir, mounted at the fixed directory into viewer and the console
  // only (rule 6), writable for viewer (it creates the socket).
  const socketVolume = viewer.volumeMounts?.find((m) => m.mountPath === SOCKET_DIR)?.name;
  assert.ok(socketVolume !== undefined, 'viewer mounts the socket directory');
  assert.equal(SIDECAR_SOCKET_PATH, `${SOCKET_DIR}/evidence.sock`);
  const socket = volumeNamed(spec, socketVolume);
  assert.ok(socket.emptyDir !== undefined, 'the socket directory is an emptyDir (pod-local)');
  assert.equal(socket.emptyDir.medium, 'Memory');
  assert.ok(quantity(socket.emptyDir.sizeLimit) > 0 && quantity(socket.emptyDir.sizeLimit) <= MiB, 'a socket needs no room');
  for (const c of [viewer, consoleC]) {
    const m = mountsOf(c, socketVolume);
    assert.equal(m.length, 1, `${c.name} mounts the socket directory once`);
    assert.equal(m[0]?.mountPath, SOCKET_DIR);
    assert.equal(m[0]?.subPath, undefined);
  }
  assert.notEqual(mountsOf(viewer, socketVolume)[0]?.readOnly, true, 'viewer creates the socket');

  // The token: one key of a Secret, mode 0440, mounted as a single file (subPath) read-only into
  // viewer and the console, at the path each is told (rules 4, 6, 7).
  const tokenVolume = viewer.volumeMounts?.find((m) => m.mountPath === TOKEN_PATH)?.name;
  assert.ok(tokenVolume !== undefined, 'viewer mounts the token');
  const token = volumeNamed(spec, tokenVolume);
  assert.ok(token.secret !== undefined, 'the token comes from a Secret');
  assert.equal(token.secret.optional ?? false, false, 'the token is not optional');
  assert.equal(token.secret.items?.length, 1, 'exactly one key of the Secret');
  const item = token.secret.items[0];
  assert.equal(item?.mode ?? token.secret.defaultMode, 0o440, 'token mode 0440 (not 0400: the console is another user of the shared group)');
  for (const c of [viewer, consoleC]) {
    const m = mountsOf(c, tokenVolume);
    assert.equal(m.length, 1, `${c.name} mounts the token once`);
    assert.equal(m[0]?.subPath, item?.path, `${c.name}: a single-file mount (subPath), a real file and not a projected link`);
    assert.equal(m[0]?.readOnly, true, `${c.name}: the token is mounted read-only`);
  }
  const viewerEnv = envOf(viewer);
  const consoleEnv = envOf(consoleC);
  assert.equal(viewerEnv['EVIDENCE_TOKEN_FILE'], mountsOf(viewer, tokenVolume)[0]?.mountPath);
  assert.equal(consoleEnv['REPOSITORY_EVIDENCE_TOKEN_FILE'], mountsOf(consoleC, tokenVolume)[0]?.mountPath);

  // Object-store credentials only in viewer; the console mounts nothing but the socket and the token.
  assert.deepEqual([...mountedVolumes(consoleC)].sort(), [socketVolume, tokenVolume].sort(), 'the console mounts the socket and the token only');
  for (const name of STORE_VARIABLES) assert.equal(consoleEnv[name], undefined, `the console has no ${name}`);
  for (const name of Object.keys(consoleEnv)) assert.ok(!/^(AWS_|AZURE_|GOOGLE_)/.test(name), `the console has no cloud credential variable ${name}`);
  // The state directory (STATE_DIR): an emptyDir on disk (memory-backed, it would count against
  // viewer's memory limit), bounded, mounted read-write into viewer alone, at the path STATE_DIR
  // names, which is not the socket directory: with the read-only root filesystem, the one place
  // viewer writes beside its socket. It survives a container restart, not the pod (docs/deploy.md).
  const stateMount = (viewer.volumeMounts ?? []).find((m) => m.mountPath === viewerEnv['STATE_DIR']);
  assert.ok(viewerEnv['STATE_DIR'] === STATE_PATH && stateMount !== undefined, 'STATE_DIR is a mounted volume');
  const state = volumeNamed(spec, stateMount.name);
  assert.ok(state.emptyDir !== undefined, 'the state directory is an emptyDir (the pod\'s lifetime)');
  assert.equal(state.emptyDir.medium, undefined, 'the state directory is on disk, not in viewer\'s memory');
  assert.ok(quantity(state.emptyDir.sizeLimit) >= 16 * MiB && quantity(state.emptyDir.sizeLimit) <= 256 * MiB, 'the state directory is bounded, with room for a large memory and its replacement');
  assert.notEqual(stateMount.readOnly, true, 'viewer writes its state');
  assert.equal(stateMount.subPath, undefined);
  assert.ok(!(stateMount.mountPath + '/').startsWith(`${SOCKET_DIR}/`), 'not the socket directory');
  assert.equal(mountsOf(consoleC, stateMount.name).length, 0, 'the console does not mount viewer\'s state');

  const storeMounts = (viewer.volumeMounts ?? []).filter((m) => m.name !== socketVolume && m.name !== tokenVolume && m.name !== stateMount.name);
  assert.equal(storeMounts.length, 1, 'viewer mounts one credential volume');
  const store = storeMounts[0];
  assert.equal(store?.mountPath, STORE_DIR);
  assert.equal(store.readOnly, true);
  const storeVolume = volumeNamed(spec, store.name);
  const mode = viewerEnv['STORE_CREDENTIAL_MODE'];
  if (mode === 'static-files') {
    // One Secret's keys, or a projected volume of several Secrets' keys (overlays/cloudnative-pg:
    // the ObjectStore's selectors may name different Secrets), each key a file named in `items`.
    const sources = storeVolume.secret !== undefined ? [storeVolume.secret] : (storeVolume.projected?.sources ?? []).map((s) => s.secret);
    assert.ok(sources.length > 0 && sources.every((s) => s !== undefined), 'static keys come from Secrets only');
    const paths = sources.flatMap((s) => s?.items ?? []).map((i) => `${STORE_DIR}/${i.path}`);
    assert.ok(paths.includes(viewerEnv['STORE_ACCESS_KEY_ID_FILE'] ?? ''), 'the access key file is in the Secret');
    assert.ok(paths.includes(viewerEnv['STORE_SECRET_ACCESS_KEY_FILE'] ?? ''), 'the secret key file is in the Secret');
    for (const name of ['STORE_SESSION_TOKEN_FILE', 'STORE_CA_FILE']) {
      if (viewerEnv[name] !== undefined) assert.ok(paths.includes(viewerEnv[name]), `${name} is a file of the store volume`);
    }
  } else {
    assert.equal(mode, 'web-identity');
    const sources = storeVolume.projected?.sources ?? [];
    assert.equal(sources.length, 1, 'one projected source: the token');
    const sat = sources[0]?.serviceAccountToken;
    assert.ok(sat !== undefined, 'web-identity uses a projected service-account token');
    // A token for the STS's audience, not the API server's: no credential against the Kubernetes API (rule 8).
    assert.ok(sat.audience !== undefined && sat.audience !== '', 'the projected token has its own audience');
    assert.ok(!/kubernetes|^api$|\.svc/.test(sat.audience), `audience ${sat.audience} is not the API server's`);
    assert.equal(viewerEnv['STORE_WEB_IDENTITY_TOKEN_FILE'], `${STORE_DIR}/${sat.path}`);
  }
  // No projected service-account token for the API server's audience anywhere.
  for (const v of spec.volumes ?? []) {
    for (const s of v.projected?.sources ?? []) {
      if (s.serviceAccountToken !== undefined) assert.ok(mountedVolumes(consoleC).has(v.name) === false || s.serviceAccountToken.audience !== undefined);
    }
  }

  // Both environments are valid configurations for the project's own parsers (the files they
  // name are checked at startup, in the pod tests).
  const parsed = parseConfig(viewerEnv);
  assert.ok(parsed.ok, `viewer's environment is refused: ${parsed.ok ? '' : JSON.stringify(parsed.violations)}`);
  assert.equal(parsed.config.mode, 'sidecar');
  assert.deepEqual(parsed.warnings, []);
  const consoleParsed = parseConsoleConfig(consoleEnv);
  assert.ok(consoleParsed.ok, `the console's environment is refused: ${consoleParsed.ok ? '' : JSON.stringify(consoleParsed.violations)}`);
  assert.equal(consoleParsed.config.evidence.enabled, true, 'the console reads the sidecar');
  assert.equal(consoleEnv['REPOSITORY_EVIDENCE_URL'], `unix://${SIDECAR_SOCKET_PATH}`);
  assert.equal(consoleEnv['REPOSITORY_BARMAN_SERVER'], viewerEnv['ARCHIVE_SERVER_NAMES'], 'the console expects the server viewer serves');
  for (const name of ['CLUSTER_NAMESPACE', 'CLUSTER_UID'] as const) assert.equal(consoleEnv[name], viewerEnv[name], `the console correlates for the cluster viewer reports (${name})`);

  // Probes: viewer's liveness is `viewer probe` run directly (no shell in the image); it has no
  // TCP listener, so no HTTP or TCP probe, and its /readyz (on the socket) is no pod gate.
  assert.deepEqual(viewer.livenessProbe?.exec?.command, PROBE_COMMAND);
  assert.ok((viewer.livenessProbe.timeoutSeconds ?? 1) >= 3, 'the probe\'s own ceiling is 2 s; the timeout leaves it room');
  assert.deepEqual(viewer.startupProbe?.exec?.command, PROBE_COMMAND);
  assert.equal(viewer.readinessProbe, undefined, 'viewer has no readiness gate (its /readyz is on the socket, read by the console)');
  assert.equal((viewer.ports ?? []).length, 0, 'viewer listens on no port');
  for (const p of [viewer.livenessProbe, viewer.startupProbe]) assert.ok(p?.httpGet === undefined && p?.tcpSocket === undefined && p?.grpc === undefined);
  const listen = consoleEnv['LISTEN_ADDR'] ?? ':3000';
  const port = Number(listen.slice(listen.lastIndexOf(':') + 1));
  const named = (consoleC.ports ?? []).find((p) => p.name === consoleC.readinessProbe?.httpGet?.port);
  assert.equal(named?.containerPort, port, 'the console\'s probes use the port it listens on');
  assert.equal(consoleC.readinessProbe?.httpGet?.path, '/readyz');
  assert.equal(consoleC.livenessProbe?.httpGet?.path, '/healthz');

  // Memory: the V8 heap is bounded, and the limit is above what was measured at 1 M keys.
  const heap = /--max-old-space-size=(\d+)/.exec(viewerEnv['NODE_OPTIONS'] ?? '');
  assert.ok(heap !== null, 'viewer\'s heap is sized for its limit (NODE_OPTIONS)');
  const limit = quantity(viewer.resources?.limits?.['memory']);
  assert.ok(Number(heap[1]) * MiB < limit / 2, 'the old space is at most half the limit');
  assert.equal(viewerEnv['NODE_OPTIONS'], VIEWER_MEMORY.nodeOptions, 'the flags that were measured');
  assert.ok(limit >= VIEWER_MEMORY.peakRssMiB1M * MiB * 1.25, `the limit leaves 25 % above the measured peak (${VIEWER_MEMORY.peakRssMiB1M} MiB at 1 M keys)`);
  assert.equal(limit, VIEWER_MEMORY.limitMiB * MiB, 'the limit docs/deploy.md justifies');
}

describe('Kubernetes manifests (kubectl kustomize, kubernetes-models, our invariants)', { skip: kubectlAvailable ? false : 'kubectl is not installed' }, () => {
  for (const overlay of PRODUCTION) {
    it(`${overlay}: every object passes the Kubernetes schema`, () => {
      const r = render(overlay);
      typeCheck(r);
      assert.deepEqual(r.objects.map((o) => o['kind']).sort(), ['Deployment', 'Service', 'ServiceAccount']);
    });

    it(`${overlay}: the pod keeps every invariant of the spec`, () => {
      const r = render(overlay);
      const d = deploymentOf(r);
      assert.equal(d.spec?.replicas, 1);
      assert.equal(d.spec?.strategy?.type, 'Recreate', 'a new token revision is a new pod, never two side by side');
      assertPodInvariants(podSpecOf(d), overlay);
      const sa = r.objects.find((o) => o['kind'] === 'ServiceAccount') as { metadata: { name: string }; automountServiceAccountToken?: boolean };
      assert.equal(sa.automountServiceAccountToken, false);
      assert.equal(podSpecOf(d).serviceAccountName, sa.metadata.name);
      const svc = r.objects.find((o) => o['kind'] === 'Service') as { spec: { selector: Record<string, string>; ports: { targetPort: string }[] } };
      const labels = d.spec?.template.metadata?.labels ?? {};
      for (const [k, v] of Object.entries(svc.spec.selector)) assert.equal(labels[k], v, 'the Service selects the pod');
      assert.deepEqual(d.spec?.selector.matchLabels, svc.spec.selector);
      assert.equal(svc.spec.ports[0]?.targetPort, 'http', 'the Service reaches the console, never viewer');
    });
  }

  it('the invariant checks catch what they are for (a broken copy of the base fails)', () => {
    const base = () => podSpecOf(deploymentOf(render('base')));
    const breakages: [string, (s: IPodSpec) => void, RegExp][] = [
      ['API token automounted', (s) => (s.automountServiceAccountToken = true), /automountServiceAccountToken/],
      ['token mounted as a whole Secret volume', (s) => delete containerOf(s, 'console').volumeMounts?.[1]?.subPath, /console: a single-file mount/],
      ['token 0400', (s) => ((s.volumes ?? [])[1]!.secret!.defaultMode = 0o400), /token mode 0440/],
      ['store credential in the console', (s) => containerOf(s, 'console').volumeMounts?.push({ name: 'store-credentials', mountPath: STORE_DIR, readOnly: true }), /the console mounts the socket and the token only/],
      ['writable root', (s) => (containerOf(s, 'viewer').securityContext!.readOnlyRootFilesystem = false), /viewer: readOnlyRootFilesystem/],
      ['no fsGroup', (s) => delete s.securityContext!.fsGroup, /fsGroup is the shared group/],
      ['a TCP listener for viewer', (s) => containerOf(s, 'viewer').env?.push({ name: 'LISTEN_ADDR', value: ':8080' }), /LISTEN_ADDR.*must not be set in sidecar mode/],
      ['a dangling mount', (s) => (containerOf(s, 'viewer').volumeMounts![2]!.name = 'store-credentails'), /mounts undefined volume store-credentails/],
      ['a store variable in the console', (s) => containerOf(s, 'console').env?.push({ name: 'AWS_SECRET_ACCESS_KEY', value: 'x' }), /the console has no AWS_SECRET_ACCESS_KEY/],
      ['a shell-form liveness probe', (s) => (containerOf(s, 'viewer').livenessProbe!.exec!.command = ['/bin/sh', '-c', 'viewer probe']), /livenessProbe|deepStrictEqual|Expected values/],
      ['no memory limit', (s) => delete containerOf(s, 'viewer').resources!.limits!['memory'], /viewer: memory request and limit/],
      ['STATE_DIR on the read-only root (no volume)', (s) => {
        containerOf(s, 'viewer').volumeMounts?.splice(3, 1);
        s.volumes?.splice(3, 1);
      }, /STATE_DIR is a mounted volume/],
      ['the state directory in memory', (s) => ((s.volumes ?? [])[3]!.emptyDir!.medium = 'Memory'), /on disk, not in viewer's memory/],
      ['the state directory shared with the console', (s) => containerOf(s, 'console').volumeMounts?.push({ name: 'state', mountPath: STATE_PATH }), /the console mounts the socket and the token only/],
    ];
    for (const [what, breakIt, message] of breakages) {
      const s = base();
      breakIt(s);
      assert.throws(() => assertPodInvariants(s, what), (e: unknown) => e instanceof assert.AssertionError && message.test(e.message), what);
    }
  });

  it('overlays/podman: the base with only the replacements its kustomization lists', () => {
    const base = podSpecOf(deploymentOf(render('base')));
    const r = render('overlays/podman');
    typeCheck(r);
    assert.deepEqual(r.objects.map((o) => o['kind']), ['Deployment'], '8. ServiceAccount and Service dropped');
    const pod = podSpecOf(deploymentOf(r));
    // 4. fsGroup stays; supplementalGroups stands in for it.
    assert.deepEqual(pod.securityContext, { ...base.securityContext, supplementalGroups: [SHARED_GID] });
    // 6. host network.
    assert.equal(pod.hostNetwork, true);
    const rest = (s: IPodSpec): Partial<IPodSpec> => {
      const copy: Partial<IPodSpec> = { ...s };
      for (const k of ['hostNetwork', 'securityContext', 'volumes', 'containers'] as const) delete copy[k];
      return copy;
    };
    assert.deepEqual(rest(pod), rest(base), 'nothing else of the pod changes');
    const { volumes: podVolumes, containers: podContainers } = pod;
    const { volumes: baseVolumes, containers: baseContainers } = base;
    // 1–3. every volume a hostPath under the test's directory, of the listed kind.
    // The state emptyDir stays as it is (kube play makes it the container user's, which is all it needs).
    assert.deepEqual(podVolumes, [
      { name: 'socket', hostPath: { path: `${KUBE_PLAY_DIR}/socket`, type: 'Directory' } },
      { name: 'token', hostPath: { path: `${KUBE_PLAY_DIR}/token`, type: 'File' } },
      { name: 'store-credentials', hostPath: { path: `${KUBE_PLAY_DIR}/store`, type: 'Directory' } },
      baseVolumes?.find((v) => v.name === 'state'),
    ]);
    assert.deepEqual(baseVolumes?.map((v) => v.name), ['socket', 'token', 'store-credentials', 'state']);
    const overrides = PODMAN_OVERRIDES;
    for (const name of ['viewer', 'console'] as const) {
      const b = baseContainers.find((c) => c.name === name)!;
      const p = podContainers.find((c) => c.name === name)!;
      // Security context, resources, image name, command: as in the base.
      assert.deepEqual(p.securityContext, b.securityContext, `${name}: security context unchanged`);
      assert.deepEqual(p.resources, b.resources, `${name}: resources unchanged`);
      assert.deepEqual(p.args, b.args);
      assert.equal(p.image, b.image?.replace(/:[^:]+$/, ':pod-test'), '7. the test image');
      // 7. only the listed variables change.
      const pe = envOf(p);
      const be = envOf(b);
      for (const k of new Set([...Object.keys(pe), ...Object.keys(be)])) {
        if (!overrides[name].includes(k)) assert.equal(pe[k], be[k], `${name}: ${k} unchanged`);
      }
      // 2. subPath removed, nothing else about the mounts.
      const strip = (c: typeof p) => (c.volumeMounts ?? []).map(({ subPath: _x, ...m }) => m).sort((x, y) => x.mountPath.localeCompare(y.mountPath));
      assert.deepEqual(strip(p), strip(b), `${name}: the same mounts`);
      assert.ok((p.volumeMounts ?? []).every((m) => m.subPath === undefined));
      // 5. no probes; 6. no container port.
      assert.equal(p.livenessProbe ?? p.readinessProbe ?? p.startupProbe, undefined, `${name}: probes removed`);
      assert.equal(p.ports, undefined);
    }
    assert.match(envOf(containerOf(pod, 'viewer'))['STORE_ENDPOINT_URL'] ?? '', /^http:\/\/127\.0\.0\.1:\d+$/);
  });
  it('overlays/cloudnative-pg: viewer reads what the ObjectStore and the Cluster it was written from say (cloudnative-pg.reference.yaml)', () => {
    const reference = parseAllDocuments(readFileSync(join(KUSTOMIZE, 'overlays/cloudnative-pg/cloudnative-pg.reference.yaml'), 'utf8')).map((d) => d.toJS() as ObjectStore | Cluster);
    const store = reference.find((o): o is ObjectStore => o.kind === 'ObjectStore');
    const cluster = reference.find((o): o is Cluster => o.kind === 'Cluster');
    assert.ok(store !== undefined && cluster !== undefined);
    const plugin = (cluster.spec.plugins ?? []).find((p) => p.name === 'barman-cloud.cloudnative-pg.io');
    assert.equal(plugin?.parameters?.barmanObjectName, store.metadata.name, 'the Cluster archives to this ObjectStore');
    const cfg = store.spec.configuration;
    const r = render('overlays/cloudnative-pg');
    for (const o of r.objects) assert.equal((o['metadata'] as { namespace?: string }).namespace, cluster.metadata.namespace, 'in the Cluster\'s namespace, where its Secrets are');
    const spec = podSpecOf(deploymentOf(r));
    const viewer = envOf(containerOf(spec, 'viewer'));
    const consoleEnv = envOf(containerOf(spec, 'console'));
    // The repository: destinationPath and the server (serverName, or the Cluster's name).
    assert.equal(viewer['DESTINATION_PATH'], cfg.destinationPath);
    const server = plugin?.parameters?.serverName ?? cluster.metadata.name;
    assert.equal(viewer['ARCHIVE_SERVER_NAMES'], server);
    assert.equal(consoleEnv['REPOSITORY_BARMAN_SERVER'], server);
    assert.equal(viewer['STORE_ENDPOINT_URL'], cfg.endpointURL);
    // The console expects the fingerprint of exactly that destination on that endpoint.
    const destination = parseDestination(cfg.destinationPath, 'store-a');
    assert.ok(destination.ok);
    assert.equal(consoleEnv['REPOSITORY_EXPECTED_FINGERPRINT'], destinationFingerprint(destination.destination, cfg.endpointURL === undefined ? null : new URL(cfg.endpointURL).origin));
    // The Cluster's identity (its UID is the one placeholder: it exists only once the Cluster does).
    for (const env of [viewer, consoleEnv]) assert.equal(env['CLUSTER_NAMESPACE'], cluster.metadata.namespace);
    assert.equal(viewer['CLUSTER_NAME'], cluster.metadata.name);
    // Each SecretKeySelector is one item of the store volume: that Secret's key, as the file the variable names.
    const credentials = cfg.s3Credentials ?? {};
    assert.notEqual(credentials.inheritFromIAMRole, true, 'static keys (inheritFromIAMRole maps to overlays/web-identity instead)');
    assert.equal(viewer['STORE_CREDENTIAL_MODE'], 'static-files');
    const volumeName = containerOf(spec, 'viewer').volumeMounts?.find((m) => m.mountPath === STORE_DIR)?.name;
    const sources = (spec.volumes ?? []).find((v) => v.name === volumeName)?.projected?.sources ?? [];
    const items = sources.flatMap((s) => (s.secret?.items ?? []).map((i) => ({ name: s.secret?.name, key: i.key, file: `${STORE_DIR}/${i.path}` })));
    const fileOf = (selector: KeySelector | undefined) => items.find((i) => selector !== undefined && i.name === selector.name && i.key === selector.key)?.file;
    const selectors: [string, KeySelector | undefined][] = [
      ['STORE_ACCESS_KEY_ID_FILE', credentials.accessKeyId],
      ['STORE_SECRET_ACCESS_KEY_FILE', credentials.secretAccessKey],
      ['STORE_SESSION_TOKEN_FILE', credentials.sessionToken],
      ['STORE_CA_FILE', cfg.endpointCA],
    ];
    for (const [variable, selector] of selectors) {
      assert.equal(viewer[variable], fileOf(selector), `${variable}: ${selector === undefined ? 'not set' : `${selector.name}/${selector.key}`}`);
    }
    assert.equal(items.length, selectors.filter(([, s]) => s !== undefined).length, 'no other key of the Secrets is mounted');
    assert.equal(viewer['STORE_REGION'], undefined, 'the ObjectStore names no region');
    // retentionPolicy (`<n>d|w|m`) as the recovery window the plugin gives barman-cloud-backup-delete.
    const retention = /^([1-9][0-9]*)([dwm])$/.exec(store.spec.retentionPolicy ?? '');
    assert.equal(viewer['EXPECTED_RETENTION_POLICY'], retention === null ? undefined : `RECOVERY WINDOW OF ${retention[1]} ${{ d: 'DAYS', w: 'WEEKS', m: 'MONTHS' }[retention[2] as 'd' | 'w' | 'm']}`);
  });

  it('kube-play-adapt.ts makes of the base exactly what overlays/podman renders (so it adapts any overlay as that one does)', () => {
    const expected = deploymentOf(render('overlays/podman'));
    const pick = (name: 'viewer' | 'console') => {
      const env = envOf(containerOf(podSpecOf(expected), name));
      return Object.fromEntries(PODMAN_OVERRIDES[name].map((k) => [k, env[k] ?? null]));
    };
    const adapted = forKubePlay(deploymentOf(render('base')), { dir: KUBE_PLAY_DIR, env: { viewer: pick('viewer'), console: pick('console') } });
    // Kustomize's merge reorders list entries; their order means nothing to Kubernetes.
    const sorted = (d: IDeployment) => {
      const c = structuredClone(d);
      for (const x of podSpecOf(c).containers) {
        x.env = [...(x.env ?? [])].sort((a, b) => a.name.localeCompare(b.name));
        x.volumeMounts = [...(x.volumeMounts ?? [])].sort((a, b) => a.mountPath.localeCompare(b.mountPath));
      }
      return c;
    };
    assert.deepEqual(sorted(adapted), sorted(expected));
  });
});
