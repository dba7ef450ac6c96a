#!/usr/bin/env bash
# make-barman-repos.sh — builds viewer's real test repositories: real PostgreSQL 15 clusters
# archiving and backing up with Barman's own cloud tools (Debian barman-cli-cloud) into the test
# Swift store (swift-s3.sh must be running). Writes what Barman itself reports about them to
# $OUT (backup-list-<server>.json, objects-<server>.tsv, facts.env) for tests to assert against.
#
# Scenario, server pg-main (16 MiB segments), in s3://barman/fixtures:
#   backup 1 plain; WAL gzip; backup 2 --gzip --name before-incident (keep: full);
#   restore point "incident"; WAL bzip2; a FAILED backup (an unreadable file in PGDATA);
#   an abandoned backup directory (backup 1's data.tar copied under a new id, no backup.info);
#   PITR to "incident" and promotion: timeline 2 with its history file; WAL gzip on timeline 2;
#   backup 3 --bzip2 --name after-pitr on timeline 2; then one timeline-1 segment between
#   backup 1 and backup 2 is deleted.
# Server pg-wal1m (1 MiB segments, starting at segment 0FFC so WAL crosses from log 0 into log 1):
# plain WAL, one backup.
#
# Idempotent: a marker holding this script's hash skips the build when nothing changed.
# Env: S3_ENDPOINT (http://127.0.0.1:18080) ACCESS SECRET WORK (/var/tmp/viewer-test/repos)
set -Eeuo pipefail

S3_ENDPOINT=${S3_ENDPOINT:-http://127.0.0.1:18080}
ACCESS=${ACCESS:-test:tester}
SECRET=${SECRET:-testing}
WORK=${WORK:-/var/tmp/viewer-test/repos}
BUCKET=barman
PREFIX=fixtures
DEST=s3://$BUCKET/$PREFIX
PG=/usr/lib/postgresql/15/bin
PORT_MAIN=55432 PORT_RESTORED=55433 PORT_SMALL=55434
OUT=$WORK/out
MARKER=$WORK/.built
HASH=$(sha256sum "$0" | cut -c1-16)
T0=$(date +%s)
log() { printf '[make-barman-repos %3ss] %s\n' "$(( $(date +%s) - T0 ))" "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }
trap 'log "failed at line $LINENO: $BASH_COMMAND"' ERR

if [[ -f $MARKER && $(cat "$MARKER") == "$HASH" && -f $OUT/facts.env ]]; then
  log "repositories already built by this version; nothing to do"
  exit 0
fi

export AWS_ACCESS_KEY_ID=$ACCESS AWS_SECRET_ACCESS_KEY=$SECRET AWS_DEFAULT_REGION=us-east-1
CLOUD=(--endpoint-url "$S3_ENDPOINT" --cloud-provider aws-s3)
as_pg() { runuser -u postgres -- "$@"; }
s3py() { /usr/bin/python3 - "$@"; }

# ---------------------------------------------------------------- clean slate
for d in main restored small; do
  [[ -f $WORK/pg/$d/postmaster.pid ]] && as_pg "$PG/pg_ctl" -D "$WORK/pg/$d" -m immediate stop >/dev/null 2>&1 || true
done
rm -rf "$WORK"
mkdir -p "$WORK/pg" "$WORK/bin" "$WORK/logs" "$OUT" "$WORK/pg/sock"
chown -R postgres:postgres "$WORK/pg"
chmod 755 "$WORK" "$WORK/bin"
# Commands run as postgres inherit the working directory; the caller's may be private to root.
cd "$WORK"
# Empty the bucket prefix left by an earlier build.
s3py "$S3_ENDPOINT" "$BUCKET" "$PREFIX/" <<'EOF'
import sys, boto3, hashlib, base64
from botocore.config import Config
s3 = boto3.client("s3", endpoint_url=sys.argv[1], config=Config(s3={"addressing_style": "path"}))
for page in s3.get_paginator("list_objects_v2").paginate(Bucket=sys.argv[2], Prefix=sys.argv[3]):
    for o in page.get("Contents", []):
        s3.delete_object(Bucket=sys.argv[2], Key=o["Key"])
EOF

# ---------------------------------------------------------------- archive wrappers
# archive_command runs in the postmaster's environment: credentials and endpoint live here.
# Compression is read per call from a file, so it can change without a reload.
for server in pg-main pg-wal1m; do
  cat > "$WORK/bin/archive-$server.sh" <<EOF
#!/bin/sh
export AWS_ACCESS_KEY_ID='$ACCESS' AWS_SECRET_ACCESS_KEY='$SECRET' AWS_DEFAULT_REGION=us-east-1
flag=\$(cat '$WORK/bin/compression-$server' 2>/dev/null)
exec barman-cloud-wal-archive --endpoint-url '$S3_ENDPOINT' \$flag '$DEST' '$server' "\$1"
EOF
  : > "$WORK/bin/compression-$server"
done
cat > "$WORK/bin/restore-pg-main.sh" <<EOF
#!/bin/sh
export AWS_ACCESS_KEY_ID='$ACCESS' AWS_SECRET_ACCESS_KEY='$SECRET' AWS_DEFAULT_REGION=us-east-1
exec barman-cloud-wal-restore --endpoint-url '$S3_ENDPOINT' '$DEST' pg-main "\$1" "\$2"
EOF
chmod 755 "$WORK"/bin/*.sh
chmod 666 "$WORK"/bin/compression-*

init_cluster() { # dir port server [initdb args]
  local dir=$1 port=$2 server=$3; shift 3
  as_pg "$PG/initdb" -D "$dir" -A trust -U postgres "$@" >"$WORK/logs/initdb-$server.log"
  cat >> "$dir/postgresql.auto.conf" <<EOF
port = $port
listen_addresses = ''
unix_socket_directories = '$WORK/pg/sock'
wal_level = replica
archive_mode = on
archive_command = '$WORK/bin/archive-$server.sh %p'
fsync = off
EOF
}
start() { as_pg "$PG/pg_ctl" -D "$1" -l "$WORK/pg/$(basename "$1").log" -w start >/dev/null; }
stop() { as_pg "$PG/pg_ctl" -D "$1" -m fast -w stop >/dev/null; }
sql() { as_pg "$PG/psql" -h "$WORK/pg/sock" -p "$1" -U postgres -d postgres -qAtX -c "$2"; }
# Switch to a new segment and wait until the archiver has nothing left to send.
switch() { # port [count]
  local i
  for ((i = 0; i < ${2:-1}; i++)); do
    sql "$1" "select pg_switch_wal()" >/dev/null
    for _ in $(seq 200); do
      [[ $(sql "$1" "select count(*) from pg_ls_archive_statusdir() where name like '%.ready'") == 0 ]] && break
      sleep 0.1
    done
    [[ $(sql "$1" "select count(*) from pg_ls_archive_statusdir() where name like '%.ready'") == 0 ]] || die "archiving stalled on port $1"
  done
}
work() { as_pg "$PG/pgbench" -h "$WORK/pg/sock" -p "$1" -U postgres -t "${2:-200}" postgres >/dev/null 2>&1; }
backup() { # port server [flags...]
  local port=$1 server=$2; shift 2
  as_pg env AWS_ACCESS_KEY_ID="$ACCESS" AWS_SECRET_ACCESS_KEY="$SECRET" AWS_DEFAULT_REGION=us-east-1 \
    barman-cloud-backup "${CLOUD[@]}" --immediate-checkpoint -h "$WORK/pg/sock" -p "$port" -U postgres "$@" "$DEST" "$server"
}
backup_ids() { # server -> ids in order
  barman-cloud-backup-list "${CLOUD[@]}" --format json "$DEST" "$1" | /usr/bin/python3 -c 'import sys, json; print(" ".join(b["backup_id"] for b in json.load(sys.stdin)["backups_list"]))'
}
newest_id() { backup_ids "$1" | tr ' ' '\n' | tail -n 1; }

# ---------------------------------------------------------------- pg-main, timeline 1
log "pg-main: initdb and start"
MAIN=$WORK/pg/main
init_cluster "$MAIN" $PORT_MAIN pg-main
start "$MAIN"
as_pg "$PG/pgbench" -h "$WORK/pg/sock" -p $PORT_MAIN -U postgres -i -s 1 -q postgres >/dev/null 2>&1
switch $PORT_MAIN 2
log "pg-main: backup 1 (plain)"
backup $PORT_MAIN pg-main >"$WORK/logs/backup1.log" 2>&1
B1=$(newest_id pg-main)
switch $PORT_MAIN 2
echo "-z" > "$WORK/bin/compression-pg-main"
work $PORT_MAIN
switch $PORT_MAIN 3
sleep 1 # backup ids are timestamps to the second
log "pg-main: backup 2 (gzip, named)"
backup $PORT_MAIN pg-main --gzip --name before-incident >"$WORK/logs/backup2.log" 2>&1
B2=$(newest_id pg-main)
barman-cloud-backup-keep "${CLOUD[@]}" --target full "$DEST" pg-main "$B2"
work $PORT_MAIN
switch $PORT_MAIN 2
sql $PORT_MAIN "select pg_create_restore_point('incident')" >/dev/null
sql $PORT_MAIN "create table after_incident as select 1 as x" >/dev/null
echo "-j" > "$WORK/bin/compression-pg-main"
switch $PORT_MAIN 2

log "pg-main: a backup that fails (an unreadable file in PGDATA)"
sleep 1
touch "$MAIN/unreadable-by-postgres" && chown root:root "$MAIN/unreadable-by-postgres" && chmod 000 "$MAIN/unreadable-by-postgres"
if backup $PORT_MAIN pg-main >"$WORK/logs/backup-failed.log" 2>&1; then die "the failing backup succeeded"; fi
rm -f "$MAIN/unreadable-by-postgres"
FAILED=$(newest_id pg-main)
[[ $FAILED != "$B2" ]] || die "the failed backup left no backup.info"
switch $PORT_MAIN 1
stop "$MAIN"

# An abandoned backup directory: archives without backup.info, as a killed barman-cloud-backup
# leaves it. Made by copying backup 1's data.tar under a new id (deterministic, unlike a kill).
ABANDONED=20261121T235959
s3py "$S3_ENDPOINT" "$BUCKET" "$PREFIX/pg-main/base/$B1/data.tar" "$PREFIX/pg-main/base/$ABANDONED/data.tar" <<'EOF'
import sys, boto3
from botocore.config import Config
s3 = boto3.client("s3", endpoint_url=sys.argv[1], config=Config(s3={"addressing_style": "path"}))
s3.copy_object(Bucket=sys.argv[2], Key=sys.argv[4], CopySource={"Bucket": sys.argv[2], "Key": sys.argv[3]})
EOF

# ---------------------------------------------------------------- PITR onto timeline 2
log "pg-main: point-in-time recovery to 'incident' and promotion"
RESTORED=$WORK/pg/restored
mkdir -p "$RESTORED" && chown postgres:postgres "$RESTORED" && chmod 700 "$RESTORED"
as_pg env AWS_ACCESS_KEY_ID="$ACCESS" AWS_SECRET_ACCESS_KEY="$SECRET" AWS_DEFAULT_REGION=us-east-1 \
  barman-cloud-restore "${CLOUD[@]}" "$DEST" pg-main before-incident "$RESTORED" >"$WORK/logs/restore.log" 2>&1
sed -i "s/^port = .*/port = $PORT_RESTORED/" "$RESTORED/postgresql.auto.conf"
cat >> "$RESTORED/postgresql.auto.conf" <<EOF
restore_command = '$WORK/bin/restore-pg-main.sh %f %p'
recovery_target_name = 'incident'
recovery_target_action = 'promote'
EOF
as_pg touch "$RESTORED/recovery.signal"
echo "-z" > "$WORK/bin/compression-pg-main"
start "$RESTORED"
for _ in $(seq 300); do [[ $(sql $PORT_RESTORED "select pg_is_in_recovery()") == f ]] && break; sleep 0.1; done
[[ $(sql $PORT_RESTORED "select pg_is_in_recovery()") == f ]] || die "recovery did not promote"
[[ $(sql $PORT_RESTORED "select timeline_id from pg_control_checkpoint()") == 2 ]] || sql $PORT_RESTORED "checkpoint" >/dev/null
work $PORT_RESTORED
switch $PORT_RESTORED 2
sleep 1
log "pg-main: backup 3 on timeline 2 (bzip2, named)"
backup $PORT_RESTORED pg-main --bzip2 --name after-pitr >"$WORK/logs/backup3.log" 2>&1
B3=$(newest_id pg-main)
switch $PORT_RESTORED 2
stop "$RESTORED"

# ---------------------------------------------------------------- the lost segment
# The first timeline-1 segment after backup 1's end WAL that is still before backup 2's begin.
read -r GAP_KEY GAP_WAL < <(s3py "$S3_ENDPOINT" "$BUCKET" "$PREFIX/pg-main/" "$B1" "$B2" <<'EOF'
import sys, re, boto3
from botocore.config import Config
s3 = boto3.client("s3", endpoint_url=sys.argv[1], config=Config(s3={"addressing_style": "path"}))
bucket, root, b1, b2 = sys.argv[2:6]
def info(i):
    body = s3.get_object(Bucket=bucket, Key=f"{root}base/{i}/backup.info")["Body"].read().decode()
    return dict(l.split("=", 1) for l in body.splitlines() if "=" in l)
end1, begin2 = info(b1)["end_wal"], info(b2)["begin_wal"]
keys = [o["Key"] for p in s3.get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix=f"{root}wals/0000000100000000/") for o in p.get("Contents", [])]
for k in keys:
    name = k.rsplit("/", 1)[1]
    if re.fullmatch(r"[0-9A-F]{24}(\.gz|\.bz2)?", name) and end1 < name[:24] < begin2:
        s3.delete_object(Bucket=bucket, Key=k)
        print(k, name[:24])
        break
EOF
)
[[ -n ${GAP_WAL:-} ]] || die "no segment to delete between the backups"
log "pg-main: deleted $GAP_WAL"

# ---------------------------------------------------------------- pg-wal1m
log "pg-wal1m: initdb with 1 MiB segments, archive, back up"
SMALL=$WORK/pg/small
init_cluster "$SMALL" $PORT_SMALL pg-wal1m --wal-segsize=1
# Start near the end of log 0 so the archive crosses into the next hash directory (log 1).
as_pg "$PG/pg_resetwal" -l 000000010000000000000FFC -D "$SMALL" >/dev/null
start "$SMALL"
as_pg "$PG/pgbench" -h "$WORK/pg/sock" -p $PORT_SMALL -U postgres -i -s 1 -q postgres >/dev/null 2>&1
switch $PORT_SMALL 3
backup $PORT_SMALL pg-wal1m >"$WORK/logs/backup-small.log" 2>&1
switch $PORT_SMALL 3
stop "$SMALL"

# ---------------------------------------------------------------- what Barman says
for server in pg-main pg-wal1m; do
  barman-cloud-backup-list "${CLOUD[@]}" --format json "$DEST" "$server" > "$OUT/backup-list-$server.json"
  s3py "$S3_ENDPOINT" "$BUCKET" "$PREFIX/$server/" > "$OUT/objects-$server.tsv" <<'EOF'
import sys, boto3
from botocore.config import Config
s3 = boto3.client("s3", endpoint_url=sys.argv[1], config=Config(s3={"addressing_style": "path"}))
for p in s3.get_paginator("list_objects_v2").paginate(Bucket=sys.argv[2], Prefix=sys.argv[3]):
    for o in p.get("Contents", []):
        print(f"{o['Key']}\t{o['Size']}\t{o['LastModified'].isoformat()}")
EOF
done
s3py "$S3_ENDPOINT" "$BUCKET" "$PREFIX/pg-main/wals/00000002.history" > "$OUT/history-2.txt" <<'EOF'
import sys, gzip, bz2, boto3
from botocore.config import Config
s3 = boto3.client("s3", endpoint_url=sys.argv[1], config=Config(s3={"addressing_style": "path"}))
for suffix, opener in (("", lambda b: b), (".gz", gzip.decompress), (".bz2", bz2.decompress)):
    try:
        print(opener(s3.get_object(Bucket=sys.argv[2], Key=sys.argv[3] + suffix)["Body"].read()).decode(), end="")
        break
    except s3.exceptions.NoSuchKey:
        pass
EOF
cat > "$OUT/facts.env" <<EOF
S3_ENDPOINT=$S3_ENDPOINT
BUCKET=$BUCKET
PREFIX=$PREFIX
BACKUP_1=$B1
BACKUP_2=$B2
BACKUP_3=$B3
FAILED_BACKUP=$FAILED
ABANDONED_BACKUP=$ABANDONED
DELETED_WAL=$GAP_WAL
DELETED_KEY=$GAP_KEY
EOF
echo "$HASH" > "$MARKER"
log "done: $(wc -l < "$OUT/objects-pg-main.tsv") objects for pg-main, $(wc -l < "$OUT/objects-pg-wal1m.tsv") for pg-wal1m"
