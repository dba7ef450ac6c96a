#!/usr/bin/env bash
# prepare.sh — the real parts the tests need, ready once per test run (npm's pretest runs it):
# the Swift S3 store on 127.0.0.1:18080, the real Barman repositories and the real pgBackRest
# repository in it. Serialised with a lock, so test files that call it themselves wait instead of
# building twice. A store that had to be (re)started comes up empty, so the repositories are
# rebuilt with it. The pgBackRest repository (its own clusters, ports and prefix) is built in the
# background while the Barman ones are built, and so are the current tools' repositories: the
# Debian sid root with PostgreSQL 18, Barman 3.20 and pgBackRest 2.60 (make-current-root.sh, kept
# across store restarts), then, side by side, the repositories they write
# (make-current-barman-repos.sh, make-current-pgbackrest-repos.sh).
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
  rm -f "$BASE/repos/.built" "$BASE/pgbackrest/.built" "$BASE/current/barman/.built" "$BASE/current/pgbackrest/.built"
fi
WORK=$BASE/pgbackrest S3_ENDPOINT=http://127.0.0.1:18080 bash "$HERE/make-pgbackrest-repos.sh" 9>&- &
PGBR=$!
# The current tools: the root, then both repositories side by side. A TERM to this subshell stops
# whichever build runs (each stops its clusters and unmounts what it mounted).
(
  set -Eeuo pipefail
  pids=()
  trap 'kill "${pids[@]}" 2>/dev/null; wait; exit 143' TERM
  WORK=$BASE/current-root bash "$HERE/make-current-root.sh" & pids=($!)
  wait "${pids[0]}"
  export S3_ENDPOINT=http://127.0.0.1:18080 CURRENT_ROOT=$BASE/current-root
  WORK=$BASE/current/barman OUT=$BASE/current/out/barman bash "$HERE/make-current-barman-repos.sh" & pids=($!)
  WORK=$BASE/current/pgbackrest OUT=$BASE/current/out/pgbackrest bash "$HERE/make-current-pgbackrest-repos.sh" & pids+=($!)
  rc=0
  for pid in "${pids[@]}"; do wait "$pid" || rc=1; done
  exit $rc
) 9>&- &
CURRENT=$!
# If one build fails, the others must not go on alone past this script's lock.
trap '[[ -n $PGBR ]] && kill "$PGBR" 2>/dev/null; [[ -n $CURRENT ]] && kill "$CURRENT" 2>/dev/null; wait' EXIT
WORK=$BASE/repos S3_ENDPOINT=http://127.0.0.1:18080 bash "$HERE/make-barman-repos.sh" 9>&-
wait "$PGBR"
PGBR=
wait "$CURRENT"
CURRENT=
