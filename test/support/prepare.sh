#!/usr/bin/env bash
# prepare.sh — the real parts the tests need, ready once per test run (npm's pretest runs it):
# the Swift S3 store on 127.0.0.1:18080 and the real Barman repositories in it. Serialised with a
# lock, so test files that call it themselves wait instead of building twice. A store that had to
# be (re)started comes up empty, so the repositories are rebuilt with it.
set -Eeuo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
BASE=${VIEWER_TEST_DIR:-/var/tmp/viewer-test}
mkdir -p "$BASE"
exec 9>"$BASE/.prepare.lock"
flock 9
export PORT=18080 DATA_DIR=$BASE/swift BUCKETS="barman viewer-test" EXTRA_USERS="other:reader=readerpass" SKIP_INSTALL=1 LOG_LEVEL=WARNING
# The daemons started below must not inherit the lock's descriptor (9>&-), or they would hold
# the lock for as long as they run and every later caller would wait forever.
if ! bash "$HERE/swift-s3.sh" status >/dev/null 2>&1 9>&-; then
  RESET=1 bash "$HERE/swift-s3.sh" start >/dev/null 9>&-
  rm -f "$BASE/repos/.built"
fi
WORK=$BASE/repos S3_ENDPOINT=http://127.0.0.1:18080 bash "$HERE/make-barman-repos.sh" 9>&-
