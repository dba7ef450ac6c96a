#!/usr/bin/env bash
# prepare.sh — the real parts the tests need, ready once per test run (npm's pretest runs it):
# the Swift S3 store on 127.0.0.1:18080, the real Barman repositories and the real pgBackRest
# repository in it. Serialised with a lock, so test files that call it themselves wait instead of
# building twice. A store that had to be (re)started comes up empty, so the repositories are
# rebuilt with it. The pgBackRest repository (its own clusters, ports and prefix) is built in the
# background while the Barman ones are built.
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
  rm -f "$BASE/repos/.built" "$BASE/pgbackrest/.built"
fi
WORK=$BASE/pgbackrest S3_ENDPOINT=http://127.0.0.1:18080 bash "$HERE/make-pgbackrest-repos.sh" 9>&- &
PGBR=$!
# If the Barman build fails, the pgBackRest build must not go on alone past this script's lock.
trap '[[ -n $PGBR ]] && kill "$PGBR" 2>/dev/null; wait' EXIT
WORK=$BASE/repos S3_ENDPOINT=http://127.0.0.1:18080 bash "$HERE/make-barman-repos.sh" 9>&-
wait "$PGBR"
PGBR=
