/**
 * What was measured for viewer's container at 1 M keys (bench/pod-memory.ts; docs/deploy.md,
 * "Memory and CPU"): the Node flags the manifest sets, the peak RSS they gave, and the memory
 * limit that peak justifies. manifests.test.ts holds the manifest to these numbers.
 */
export const VIEWER_MEMORY = {
  nodeOptions: '--max-old-space-size=96 --max-semi-space-size=2',
  /** Peak RSS (VmHWM) of viewer in the pod, scanning a 1,000,043-object repository. */
  peakRssMiB1M: 150,
  limitMiB: 256,
} as const;
