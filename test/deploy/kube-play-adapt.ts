/**
 * The replacements of deploy/kubernetes/overlays/podman as a function, so that any rendered
 * overlay's Deployment can be run with `podman kube play` on this machine: the base gets them from
 * that kustomization, overlays/cloudnative-pg from here (kube-play.test.ts). manifests.test.ts
 * holds the two to the same result: this function applied to the base gives exactly what
 * overlays/podman renders. The numbers are the kustomization's (docs/deploy.md, section 5):
 *   1. the socket volume   -> hostPath Directory <dir>/socket
 *   2. the token volume    -> hostPath File <dir>/token, subPath removed from every mount
 *   3. the store volume    -> hostPath Directory <dir>/store (whatever it was: a Secret, a
 *                             projected volume of several Secrets' keys)
 *   4. fsGroup             -> plus supplementalGroups [10002]
 *   5. probes              -> removed
 *   6. network             -> hostNetwork, no container port
 *   7. settings            -> the given variables set (each replaced where it is, or added), and
 *                             the image tag pod-test
 *   8. ServiceAccount, Service -> not returned (only the Deployment is)
 */
import type { IDeployment } from 'kubernetes-models/apps/v1/Deployment';
import type { IContainer } from 'kubernetes-models/v1/Container';
import type { IVolume } from 'kubernetes-models/v1/Volume';
import { podSpecOf, SHARED_GID, SOCKET_DIR, STORE_DIR, TOKEN_PATH } from './layout.ts';

export interface KubePlaySettings {
  /** The host directory of the hostPath volumes: `socket/`, `token`, `store/`. */
  readonly dir: string;
  /** Variables set in each container (a value replaces the manifest's; `null` removes it). */
  readonly env: { readonly viewer: Readonly<Record<string, string | null>>; readonly console: Readonly<Record<string, string | null>> };
}

function setEnv(c: IContainer, values: Readonly<Record<string, string | null>>): void {
  const env = (c.env ?? []).filter((e) => values[e.name] !== null);
  for (const [name, value] of Object.entries(values)) {
    if (value === null) continue;
    const found = env.find((e) => e.name === name);
    if (found !== undefined) found.value = value;
    else env.push({ name, value });
  }
  c.env = env;
}

/** A copy of `deployment` that `podman kube play` can run with the host files under `settings.dir`. */
export function forKubePlay(deployment: IDeployment, settings: KubePlaySettings): IDeployment {
  const d = structuredClone(deployment);
  const spec = podSpecOf(d);
  const viewer = spec.containers.find((c) => c.name === 'viewer');
  if (viewer === undefined) throw new Error('no viewer container');
  const mountedAt = (path: string) => {
    const name = viewer.volumeMounts?.find((m) => m.mountPath === path)?.name;
    if (name === undefined) throw new Error(`viewer mounts nothing at ${path}`);
    return name;
  };
  const hostPaths = new Map<string, IVolume>([
    [mountedAt(SOCKET_DIR), { name: '', hostPath: { path: `${settings.dir}/socket`, type: 'Directory' } }],
    [mountedAt(TOKEN_PATH), { name: '', hostPath: { path: `${settings.dir}/token`, type: 'File' } }],
    [mountedAt(STORE_DIR), { name: '', hostPath: { path: `${settings.dir}/store`, type: 'Directory' } }],
  ]);
  spec.volumes = (spec.volumes ?? []).map((v) => {
    const replacement = hostPaths.get(v.name);
    return replacement === undefined ? v : { ...replacement, name: v.name };
  });
  spec.securityContext = { ...spec.securityContext, supplementalGroups: [SHARED_GID] };
  spec.hostNetwork = true;
  for (const c of spec.containers) {
    c.volumeMounts = (c.volumeMounts ?? []).map(({ subPath: _dropped, ...m }) => m);
    delete c.livenessProbe;
    delete c.readinessProbe;
    delete c.startupProbe;
    delete c.ports;
    if (c.image !== undefined) c.image = c.image.replace(/:[^:/]+$/, ':pod-test');
    setEnv(c, c.name === 'viewer' ? settings.env.viewer : settings.env.console);
  }
  return d;
}
