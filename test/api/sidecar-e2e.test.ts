/**
 * The real executable in sidecar mode on the real fixed path, `/var/run/viewer/evidence.sock`,
 * inside a private mount namespace (`unshare -m`, CI runs as root) so the host's /run is never
 * touched: gates pass (and refuse a token file ending with a newline, for the sidecar and the
 * probe alike), the socket appears with mode 0660, `viewer probe` reports live, the API
 * answers over the socket with curl, readiness is false while the store is unreachable, and
 * SIGTERM removes the socket.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, it } from 'node:test';

const ROOT = join(import.meta.dirname, '..', '..');
const TOKEN = 'q1aKFo9oVbP3rJ7Ztl0cKjYc2yU8m1Q0xW5nA4bZr-E';
const available = spawnSync('unshare', ['-m', 'true']).status === 0;

const SCRIPT = `
set -u
mount -t tmpfs tmpfs /run
mkdir -p /run/viewer /run/secrets
chmod 2770 /run/viewer
printf '%s' "$TOKEN" > /run/secrets/token && chmod 0440 /run/secrets/token
printf '%s\\n' "$TOKEN" > /run/secrets/token-newline && chmod 0440 /run/secrets/token-newline
printf 'AKIAEXAMPLEKEY\\n' > /run/secrets/id && printf 'example-secret-value\\n' > /run/secrets/secret
export RUNTIME_MODE=sidecar REPOSITORY_FORMAT=archive-cloud PROVIDER=store-a DESTINATION_PATH=s3://acme-bucket/secret-prefix
export ARCHIVE_SERVER_NAMES=pg-main EVIDENCE_TOKEN_FILE=/run/secrets/token CLUSTER_NAMESPACE=databases
export CLUSTER_UID=6f1c2a7e-3b9d-4e8f-a1c2-9d8e7f6a5b4c STORE_CREDENTIAL_MODE=static-files
export STORE_ACCESS_KEY_ID_FILE=/run/secrets/id STORE_SECRET_ACCESS_KEY_FILE=/run/secrets/secret
export STORE_ENDPOINT_URL=http://127.0.0.1:9 READINESS_WINDOW_SECONDS=30 SCAN_TIMEOUT_SECONDS=5
"$NODE" bin/viewer.js > /run/viewer.log 2>&1 &
pid=$!
for i in $(seq 1 100); do [ -S /var/run/viewer/evidence.sock ] && break; sleep 0.1; done
echo "mode=$(stat -c %a /var/run/viewer/evidence.sock)"
(unset RUNTIME_MODE DESTINATION_PATH; "$NODE" bin/viewer.js probe; echo "probe=$?")
(EVIDENCE_TOKEN_FILE=/run/secrets/missing "$NODE" bin/viewer.js probe; echo "probe-without-token=$?")
(EVIDENCE_TOKEN_FILE=/run/secrets/token-newline "$NODE" bin/viewer.js probe; echo "probe-newline=$?")
(EVIDENCE_TOKEN_FILE=/run/secrets/token-newline "$NODE" bin/viewer.js 2> /run/refused.log; echo "refused=$?"; echo "refused-line=$(cat /run/refused.log)")
sleep 1
echo "healthz=$(curl -s -o /dev/null -w '%{http_code}' --unix-socket /var/run/viewer/evidence.sock -H "Authorization: Bearer $TOKEN" http://sidecar/healthz)"
echo "readyz=$(curl -s -o /dev/null -w '%{http_code}' --unix-socket /var/run/viewer/evidence.sock -H "Authorization: Bearer $TOKEN" http://sidecar/readyz)"
echo "noauth=$(curl -s -o /dev/null -w '%{http_code}' --unix-socket /var/run/viewer/evidence.sock http://sidecar/healthz)"
echo "snapshot=$(curl -s --unix-socket /var/run/viewer/evidence.sock -H "Authorization: Bearer $TOKEN" http://sidecar/api/v1alpha1/snapshot)"
kill -TERM $pid; wait $pid; echo "exit=$?"
[ -e /var/run/viewer/evidence.sock ] && echo socket=left || echo socket=removed
echo "log<<"; cat /run/viewer.log; echo ">>log"
`;

describe('sidecar on the fixed socket path', { skip: available ? false : 'unshare -m is not permitted here' }, () => {
  it('starts behind its gates, serves, probes live, and cleans up on SIGTERM', () => {
    const r = spawnSync('unshare', ['-m', 'bash', '-c', SCRIPT], { cwd: ROOT, env: { PATH: process.env['PATH'] ?? '', TOKEN, NODE: process.execPath }, encoding: 'utf8', timeout: 60_000 });
    const out = r.stdout;
    const field = (name: string) => new RegExp(`^${name}=(.*)$`, 'm').exec(out)?.[1];
    assert.equal(field('mode'), '660', out + r.stderr);
    assert.equal(field('probe'), '0');
    assert.equal(field('probe-without-token'), '1');
    // A token followed by a newline: the probe fails, and a sidecar refuses to start, saying how to write the file (D-78).
    assert.equal(field('probe-newline'), '1');
    assert.equal(field('refused'), '78', out + r.stderr);
    assert.match(field('refused-line') ?? '', /^viewer: sidecar refused to start: token file: ends with a line break; .*printf '%s'/);
    assert.equal(field('healthz'), '200');
    assert.equal(field('readyz'), '503', 'the store is unreachable, so not ready');
    assert.equal(field('noauth'), '401');
    const snapshot = JSON.parse(field('snapshot') ?? '{}') as { kind?: string; evidence_generation?: number; inventory?: { last_failure_category?: string | null } };
    assert.equal(snapshot.kind, 'RepositoryEvidenceSnapshot');
    assert.equal(snapshot.evidence_generation, 0);
    assert.equal(field('exit'), '0');
    assert.equal(field('socket'), 'removed');
    for (const secret of [TOKEN, 'example-secret-value', 'AKIAEXAMPLEKEY', 'acme-bucket', 'secret-prefix']) {
      assert.ok(!out.includes(secret) && !r.stderr.includes(secret), `${secret.slice(0, 6)} leaked`);
    }
    const log = out.slice(out.indexOf('log<<'));
    for (const secret of [TOKEN, 'example-secret-value', 'AKIAEXAMPLEKEY', 'acme-bucket', 'secret-prefix', 'pg-main']) assert.ok(!log.includes(secret), `the log carries ${secret.slice(0, 6)}`);
  });
});
