/**
 * What was measured for viewer's container at 1 M keys (bench/pod-memory.ts; docs/deploy.md,
 * "Memory and CPU"): the Node flags the manifest sets, the peak RSS they gave, and the memory
 * limit that peak justifies. manifests.test.ts holds the manifest to these numbers.
 */
export const VIEWER_MEMORY = {
  nodeOptions: '--max-old-space-size=96 --max-semi-space-size=2',
  /** Peak RSS (VmHWM) of viewer in its container over three scans of a 1,000,044-object repository (2026-11-24). */
  peakRssMiB1M: 159.1,
  limitMiB: 256,
} as const;
