/**
 * The pod layout the manifests, the image and the pod tests agree on (docs/deploy.md), and the
 * rendering of deploy/kubernetes with `kubectl kustomize` (offline; kubectl is on these machines).
 * Every number here is asserted against the manifests by manifests.test.ts, so a test that uses
 * one runs what the manifests say.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import type { IDeployment } from 'kubernetes-models/apps/v1/Deployment';
import type { IContainer } from 'kubernetes-models/v1/Container';
import type { IPodSpec } from 'kubernetes-models/v1/PodSpec';
import { parseAllDocuments } from 'yaml';

export const ROOT = join(import.meta.dirname, '..', '..');
export const KUSTOMIZE = join(ROOT, 'deploy', 'kubernetes');
export const TEST_DIR = process.env['VIEWER_TEST_DIR'] ?? '/var/tmp/viewer-test';

export const VIEWER_UID = 10001;
export const CONSOLE_UID = 10003;
/** The group the socket directory and the token share; fsGroup in the manifests. */
export const SHARED_GID = 10002;
export const SOCKET_DIR = '/var/run/viewer';
export const TOKEN_PATH = '/var/run/secrets/viewer/token';
export const STORE_DIR = '/var/run/secrets/viewer-store';
/** viewer's state directory (STATE_DIR): an emptyDir of viewer's alone. */
export const STATE_PATH = '/var/lib/viewer';
export const NODE = '/usr/local/bin/node';
export const VIEWER_JS = '/app/bin/viewer.js';
export const PROBE_COMMAND = [NODE, VIEWER_JS, 'probe'];
/** The directory prefix the podman overlay's hostPath volumes use (moved with VIEWER_TEST_DIR). */
export const KUBE_PLAY_DIR = '/var/tmp/viewer-test/kube-play';

export const kubectlAvailable = spawnSync('kubectl', ['version', '--client'], { stdio: 'ignore' }).status === 0;
// kubectl is preinstalled on these machines; in CI its absence is a failure, not a skip.
if (!kubectlAvailable && process.env['CI'] === 'true') throw new Error('kubectl is not installed: the manifests cannot be rendered');

export interface Rendered {
  readonly yaml: string;
  readonly objects: readonly Record<string, unknown>[];
}

/** `kubectl kustomize deploy/kubernetes/<dir>`, and its documents parsed. */
export function render(dir: string): Rendered {
  const yaml = execFileSync('kubectl', ['kustomize', join(KUSTOMIZE, dir)], { encoding: 'utf8', env: { ...process.env, KUBECONFIG: '/dev/null' } });
  const objects = parseAllDocuments(yaml).map((d) => {
    if (d.errors.length > 0) throw new Error(`${dir}: ${d.errors[0]?.message ?? 'YAML error'}`);
    return d.toJS() as Record<string, unknown>;
  });
  return { yaml, objects };
}

export function deploymentOf(r: Rendered): IDeployment {
  const found = r.objects.filter((o) => o['kind'] === 'Deployment');
  if (found.length !== 1) throw new Error(`expected one Deployment, found ${found.length}`);
  return found[0] as unknown as IDeployment;
}

export function podSpecOf(d: IDeployment): IPodSpec {
  const spec = d.spec?.template.spec;
  if (spec === undefined) throw new Error('the Deployment has no pod spec');
  return spec;
}

export function containerOf(spec: IPodSpec, name: 'viewer' | 'console'): IContainer {
  const c = spec.containers.find((x) => x.name === name);
  if (c === undefined) throw new Error(`no container ${name}`);
  return c;
}

/** A container's environment as name → value; a value from anywhere else (valueFrom) is refused. */
export function envOf(c: IContainer): Record<string, string> {
  const env: Record<string, string> = {};
  for (const e of c.env ?? []) {
    if (e.valueFrom !== undefined || e.value === undefined) throw new Error(`${c.name}: ${e.name} is not a literal value`);
    env[e.name] = e.value;
  }
  return env;
}

/** Kubernetes quantities as bytes (memory) or cores (cpu): `256Mi`, `1`, `100m`. */
export function quantity(q: string | number | undefined): number {
  if (q === undefined) return Number.NaN;
  if (typeof q === 'number') return q;
  const m = /^(\d+(?:\.\d+)?)(m|Ki|Mi|Gi|k|M|G)?$/.exec(q);
  if (m === null) return Number.NaN;
  const unit = { m: 1e-3, Ki: 1024, Mi: 1024 ** 2, Gi: 1024 ** 3, k: 1e3, M: 1e6, G: 1e9 }[m[2] ?? ''] ?? 1;
  return Number(m[1]) * unit;
}
