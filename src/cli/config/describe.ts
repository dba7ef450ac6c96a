/**
 * A summary of an accepted configuration that is safe to print: modes, kinds and counts only, and
 * the destination fingerprint (a hash that is on the wire anyway, what a consumer's
 * `REPOSITORY_EXPECTED_FINGERPRINT` must be). No destination URL, bucket, prefix, path, server
 * name, role or credential ever appears in it.
 */
import { destinationFingerprint } from '../../publication/fingerprint.ts';
import type { Config } from './config.ts';

/** `fleet`: FLEET_FILE's repositories when one is configured (counted, never named). */
export function describeConfig(config: Config, fleet: readonly { readonly config: { readonly serverNames: readonly string[] | null } }[] | null = null): Record<string, unknown> {
  const common = {
    mode: config.mode,
    format: config.format,
    provider: config.provider,
    credentials: config.credentials.mode,
    endpoint: config.endpointUrl === null ? 'provider-default' : 'configured',
    ca_file: config.caFile === null ? 'not-configured' : 'configured',
    refresh_interval_seconds: config.refreshIntervalSeconds,
    freshness_threshold_seconds: config.freshnessThresholdSeconds,
    readiness_window_seconds: config.readinessWindowSeconds,
    scan_budgets: { max_pages: config.scan.maxPages, max_objects: config.scan.maxObjects, timeout_seconds: config.scan.timeoutSeconds, concurrency: config.scan.concurrency },
    retention_policy: config.retention.policyText === null ? 'not-configured' : config.retention.policy === null ? 'unrecognized' : config.retention.policy.kind,
    minimum_redundancy_configured: config.retention.minimumRedundancy !== null,
    max_archive_lag_seconds: config.retention.maxArchiveLagSeconds,
    state_dir: config.stateDir === null ? 'not-configured' : 'configured',
    metrics_labels: config.metricsLabels.length,
  };
  if (config.mode === 'sidecar') return { ...common, destination: 'configured', destination_fingerprint: destinationFingerprint(config.destination, config.endpointUrl), scopes: 1 };
  const scopes = fleet === null ? (config.serverNames === null ? 'discovery' : config.serverNames.length) : fleet.every((r) => r.config.serverNames !== null) ? fleet.reduce((n, r) => n + (r.config.serverNames?.length ?? 0), 0) : 'discovery';
  return {
    ...common,
    destination: fleet !== null ? 'fleet-file' : config.destination === null ? 'embedded-demo' : 'configured',
    ...(fleet === null && config.destination !== null ? { destination_fingerprint: destinationFingerprint(config.destination, config.endpointUrl) } : {}),
    ...(fleet === null ? {} : { repositories: fleet.length, fleet_concurrency: config.fleetConcurrency }),
    scopes,
    metrics_listen: config.metricsListen === null ? 'not-configured' : 'configured',
    listen_port: config.listen.port,
    wal_page_size: config.walPageSize,
    trusted_user_header: config.trustedUserHeader === null ? 'not-configured' : 'configured',
  };
}
