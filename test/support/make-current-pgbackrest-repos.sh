#!/usr/bin/env bash
# make-current-pgbackrest-repos.sh — a real pgBackRest repository written by the tools people run
# today: PostgreSQL 18 and pgBackRest 2.60 (Debian sid), run inside the root make-current-root.sh
# builds, straight into the test Swift store (swift-s3.sh must be running): pgBackRest 2.58+
# speaks plain http to an S3 endpoint given with the http:// scheme (repo1-s3-endpoint=
# http://127.0.0.1, repo1-storage-port, repo1-s3-uri-style=path), so no posix export is needed.
# Repository path /current-pgbackrest in bucket `barman` (keys current-pgbackrest/archive/...,
# current-pgbackrest/backup/...). Writes what pgBackRest itself reports about it to $OUT.
#
# Every backup is bundled (repo1-bundle=y) with block incremental (repo1-block=y), zst.
# Stanza `main` (16 MiB segments, pgbench data):
#   timeline 1: WAL gz; full F1, diff D1, incr I1; WAL zst; a tablespace ts1 (so F1's set has
#   none and every later backup one); full F2 annotated (--annotation);
#   three segments of their own (the middle one is lost later); diff D2, incr I2; restore point
#   "incident"; WAL past it on timeline 1. Point-in-time restore to "incident" (--type=name,
#   --target-action=promote) onto timeline 2, WAL lz4; incr I3 on timeline 2, whose chain (I2,
#   D2, F2) lies on timeline 1; full F3 and incr I4 on timeline 2. Then `expire
#   --repo1-retention-full=2` expires F1, D1, I1 (and the WAL before F2's archive start). Then
#   one timeline-1 segment between F2's archive stop and D2's archive start, the middle one of
#   three with both neighbours archived, is deleted from the store; `pgbackrest verify` runs on
#   the result.
# Stanza `encrypted` (its own small cluster, built in the background; repo1-cipher-type=
#   aes-256-cbc for this stanza only): WAL gz; full, diff, incr.
# Recorded in $OUT: info-<stanza>.json / .txt (`pgbackrest info` after the build),
# info-main-before-expire.json, expire-main.txt, verify-main.txt, history-2.txt, manifests.tsv
# (per current backup: stanza, label, type, and from its manifest read back with `pgbackrest
# repo-get`: prior, compress type, bundle, block incremental, db-version, the number of
# tablespaces in [backup:target], annotation), objects.tsv (the key listing:
# key, size, last-modified), versions.txt and facts.env.
#
# Everything of the tools runs inside the root with chroot, in a mount namespace of this script's
# own (see make-current-barman-repos.sh). Idempotent: a marker holding this script's hash and the
# root's skips the build when nothing changed. Env: S3_ENDPOINT (http://127.0.0.1:18080) ACCESS
# SECRET WORK (/var/tmp/viewer-test/current/pgbackrest) OUT
# (/var/tmp/viewer-test/current/out/pgbackrest) CURRENT_ROOT (/var/tmp/viewer-test/current-root).
set -Eeuo pipefail

BASE=${VIEWER_TEST_DIR:-/var/tmp/viewer-test}
S3_ENDPOINT=${S3_ENDPOINT:-http://127.0.0.1:18080}
ACCESS=${ACCESS:-test:tester}
SECRET=${SECRET:-testing}
WORK=${WORK:-$BASE/current/pgbackrest}
OUT=${OUT:-$BASE/current/out/pgbackrest}
CURRENT_ROOT=${CURRENT_ROOT:-$BASE/current-root}
ROOT=$CURRENT_ROOT/rootfs
BUCKET=barman
PREFIX=current-pgbackrest
PORT_MAIN=55452 PORT_ENC=55453
STANZA_MAIN=main STANZA_ENC=encrypted
CIPHER_TYPE=aes-256-cbc
CIPHER_PASS=viewer-current-passphrase
ANNOTATION_KEY=purpose ANNOTATION_VALUE="before the incident"
IN=/srv/viewer # $WORK, seen from inside the root
PG=/usr/lib/postgresql/18/bin
MARKER=$WORK/.built
SELF=$(cd "$(dirname "$0")" && pwd)/$(basename "$0")
HASH="$(sha256sum "$SELF" | cut -c1-16) root:$(cat "$CURRENT_ROOT/.built" 2>/dev/null)"
T0=${VIEWER_CURRENT_T0:-$(date +%s)}
log() { printf '[make-current-pgbackrest-repos %3ss] %s\n' "$(( $(date +%s) - T0 ))" "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }
trap 'log "failed at line $LINENO: $BASH_COMMAND"' ERR

[[ -x $ROOT/usr/lib/postgresql/18/bin/postgres && -f $CURRENT_ROOT/.built ]] || die "no current-tools root in $ROOT: run make-current-root.sh first"
if [[ -f $MARKER && $(cat "$MARKER") == "$HASH" && -f $OUT/facts.env ]]; then
  log "repository already built by this version; nothing to do"
  exit 0
fi
if [[ -z ${VIEWER_CURRENT_NS:-} ]]; then
  export VIEWER_CURRENT_NS=1 VIEWER_CURRENT_T0=$T0
  exec unshare --mount --propagation private -- bash "$SELF" "$@"
fi

[[ $S3_ENDPOINT =~ ^http://([0-9.]+):([0-9]+)$ ]] || die "S3_ENDPOINT must be http://<ip>:<port>"
S3_HOST=${BASH_REMATCH[1]} S3_PORT=${BASH_REMATCH[2]}
export AWS_ACCESS_KEY_ID=$ACCESS AWS_SECRET_ACCESS_KEY=$SECRET AWS_DEFAULT_REGION=us-east-1 # s3tool.py on the host
PGUID=$(awk -F: '$1 == "postgres" { print $3 }' "$ROOT/etc/passwd")
PGGID=$(awk -F: '$1 == "postgres" { print $4 }' "$ROOT/etc/passwd")
ENV_IN=(PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin LANG=C.UTF-8 TZ=UTC)
inroot() { chroot "$ROOT" /usr/bin/env -i "${ENV_IN[@]}" HOME=/root "$@"; }
as_pg() { chroot --userspec="$PGUID:$PGGID" --groups="$PGGID" "$ROOT" /usr/bin/env -i "${ENV_IN[@]}" HOME=/var/lib/postgresql "$@"; }
pgbr() { as_pg pgbackrest --config="$IN/pgbackrest.conf" "$@"; }

MOUNTED=()
ENC_PID=
unmount_all() {
  local i
  for ((i = ${#MOUNTED[@]} - 1; i >= 0; i--)); do umount "${MOUNTED[$i]}" 2>/dev/null || umount -l "${MOUNTED[$i]}" || true; done
  MOUNTED=()
}
stop_clusters() {
  local d
  for d in main encrypted; do
    [[ -f $WORK/pg/$d/postmaster.pid ]] && as_pg "$PG/pg_ctl" -D "$IN/pg/$d" -m immediate -w stop >/dev/null 2>&1 || true
  done
}
cleanup() {
  local rc=$?
  [[ -n $ENC_PID ]] && kill "$ENC_PID" 2>/dev/null && wait "$ENC_PID" 2>/dev/null
  ((${#MOUNTED[@]})) && stop_clusters
  unmount_all
  return $rc
}
trap cleanup EXIT
trap 'exit 143' TERM INT

# ---------------------------------------------------------------- mounts, clean slate
mount_in() { # type|bind source target [options]
  if [[ $1 == bind ]]; then mount --bind "$2" "$3"; else mount -t "$1" ${4:+-o "$4"} "$2" "$3"; fi
  MOUNTED+=("$3")
}
mount_all() {
  mount_in proc proc "$ROOT/proc"
  mount_in tmpfs shm "$ROOT/dev/shm" mode=1777,size=512m
  mount_in tmpfs tmp "$ROOT/tmp" mode=1777,size=1g
  mount_in bind "$WORK" "$ROOT$IN"
}
mkdir -p "$WORK"
mount_all
stop_clusters # a cluster an earlier, killed build left running
unmount_all
rm -rf "$WORK" "$OUT"
mkdir -p "$WORK/pg/sock" "$WORK/bin" "$WORK/logs" "$WORK/pgbr/log" "$WORK/pgbr/lock" "$WORK/pgbr/spool" "$OUT"
mount_all
chown -R "$PGUID:$PGGID" "$WORK/pg" "$WORK/pgbr"
chmod 755 "$WORK" "$WORK/bin" "$WORK/logs"
cd "$WORK"
cp "$CURRENT_ROOT/versions.txt" "$OUT/versions.txt"

cat > "$WORK/bin/s3tool.py" <<'EOF'
import sys
endpoint, bucket, cmd, args = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
import boto3
from botocore.config import Config
s3 = boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1", config=Config(s3={"addressing_style": "path"}))
def listing(prefix):
    return [o for p in s3.get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix=prefix) for o in p.get("Contents", [])]
if cmd == "empty":  # PREFIX
    for o in listing(args[0]):
        s3.delete_object(Bucket=bucket, Key=o["Key"])
elif cmd == "list":  # PREFIX -> key, size, last-modified
    for o in listing(args[0]):
        print(f"{o['Key']}\t{o['Size']}\t{o['LastModified'].isoformat()}")
elif cmd == "delete":  # KEY, which must exist
    s3.head_object(Bucket=bucket, Key=args[0])
    s3.delete_object(Bucket=bucket, Key=args[0])
else:
    sys.exit(f"unknown command {cmd}")
EOF
s3tool() { /usr/bin/python3 "$WORK/bin/s3tool.py" "$S3_ENDPOINT" "$BUCKET" "$@"; }
s3tool empty "$PREFIX/"

# repo1-retention-full is high during the build (a backup runs expire itself); the expire at the
# end is explicit.
cat > "$WORK/pgbackrest.conf" <<EOF
[global]
repo1-type=s3
repo1-path=/$PREFIX
repo1-s3-bucket=$BUCKET
repo1-s3-endpoint=http://$S3_HOST
repo1-storage-port=$S3_PORT
repo1-s3-uri-style=path
repo1-storage-verify-tls=n
repo1-s3-region=us-east-1
repo1-s3-key=$ACCESS
repo1-s3-key-secret=$SECRET
repo1-bundle=y
repo1-block=y
repo1-retention-full=9
compress-type=zst
lock-path=$IN/pgbr/lock
log-path=$IN/pgbr/log
spool-path=$IN/pgbr/spool
log-level-console=warn
log-level-file=detail
start-fast=y
archive-timeout=60
process-max=1

[$STANZA_MAIN]
pg1-path=$IN/pg/$STANZA_MAIN
pg1-port=$PORT_MAIN
pg1-socket-path=$IN/pg/sock

[$STANZA_ENC]
pg1-path=$IN/pg/$STANZA_ENC
pg1-port=$PORT_ENC
pg1-socket-path=$IN/pg/sock
repo1-cipher-type=$CIPHER_TYPE
repo1-cipher-pass=$CIPHER_PASS
EOF
chmod 644 "$WORK/pgbackrest.conf"

# archive_command: archive-push with the WAL compression type read per call from a file (the
# wrapper's name holds "pgbackrest": backup refuses an archive_command that does not).
for s in $STANZA_MAIN $STANZA_ENC; do
  cat > "$WORK/bin/pgbackrest-archive-push-$s" <<EOF
#!/bin/sh
exec pgbackrest --config='$IN/pgbackrest.conf' --stanza=$s --compress-type="\$(cat '$IN/bin/compress-$s')" archive-push "\$1"
EOF
  echo gz > "$WORK/bin/compress-$s"
done
chmod 755 "$WORK"/bin/pgbackrest-archive-push-*
chmod 644 "$WORK"/bin/compress-*

init_cluster() { # name port
  as_pg "$PG/initdb" -D "$IN/pg/$1" -A trust -U postgres >"$WORK/logs/initdb-$1.log"
  cat >> "$WORK/pg/$1/postgresql.auto.conf" <<EOF
port = $2
listen_addresses = ''
unix_socket_directories = '$IN/pg/sock'
wal_level = replica
archive_mode = on
archive_command = '$IN/bin/pgbackrest-archive-push-$1 %p'
fsync = off
EOF
}
start() { as_pg "$PG/pg_ctl" -D "$IN/pg/$1" -l "$IN/pg/$1.log" -w start >/dev/null; }
stop() { as_pg "$PG/pg_ctl" -D "$IN/pg/$1" -m fast -w stop >/dev/null; }
sql() { as_pg "$PG/psql" -h "$IN/pg/sock" -p "$1" -U postgres -d postgres -qAtX -c "$2"; }
ready_count() { sql "$1" "select count(*) from pg_ls_archive_statusdir() where name like '%.ready'"; }
switch() { # port [count]
  local i
  for ((i = 0; i < ${2:-1}; i++)); do
    sql "$1" "select pg_switch_wal()" >/dev/null
    for _ in $(seq 600); do
      [[ $(ready_count "$1") == 0 ]] && break
      sleep 0.05
    done
    [[ $(ready_count "$1") == 0 ]] || die "archiving stalled on port $1"
  done
}
work() { as_pg "$PG/pgbench" -h "$IN/pg/sock" -p "$1" -U postgres -t "${2:-200}" postgres >/dev/null 2>&1; }
labels() { pgbr --stanza="$1" info --output=json | /usr/bin/python3 -c 'import sys, json; print(" ".join(b["label"] for b in json.load(sys.stdin)[0]["backup"]))'; }
backup() { # stanza name type [options...]: takes a backup; prints its label
  local stanza=$1 name=$2 type=$3 label
  shift 3
  log "$stanza: backup $name ($type${*:+ $*})"
  pgbr --stanza="$stanza" backup --type="$type" "$@" >"$WORK/logs/backup-$stanza-$name.log" 2>&1 ||
    die "$stanza: backup $name failed: $(cat "$WORK/logs/backup-$stanza-$name.log")"
  label=$(labels "$stanza" | tr ' ' '\n' | tail -n 1)
  [[ $label == *"$(case $type in full) echo F ;; diff) echo D ;; incr) echo I ;; esac)" ]] ||
    die "$stanza: backup $name: newest label $label is not a $type"
  echo "$label"
}

# ---------------------------------------------------------------- stanza encrypted (background)
build_encrypted() {
  local s=$STANZA_ENC p=$PORT_ENC F D I
  log "$s: initdb and start"
  init_cluster $s $p
  start $s
  pgbr --stanza=$s stanza-create >"$WORK/logs/stanza-create-$s.log" 2>&1
  sql $p "create table t (x int)" >/dev/null
  switch $p
  F=$(backup $s F full)
  sql $p "insert into t select generate_series(1, 10000)" >/dev/null
  switch $p
  D=$(backup $s D diff)
  sql $p "insert into t select generate_series(1, 10000)" >/dev/null
  switch $p
  I=$(backup $s I incr)
  switch $p
  stop $s
  cat > "$WORK/facts-$s.env" <<EOF
ENCRYPTED_FULL=$F
ENCRYPTED_DIFF=$D
ENCRYPTED_INCR=$I
EOF
}
(build_encrypted) >"$WORK/logs/build-$STANZA_ENC.log" 2>&1 &
ENC_PID=$!

# ---------------------------------------------------------------- stanza main, timeline 1
S=$STANZA_MAIN P=$PORT_MAIN
log "$S: initdb, start, pgbench data, stanza-create (PostgreSQL 18, pgBackRest 2.60 to $S3_ENDPOINT)"
init_cluster $S $P
start $S
as_pg "$PG/pgbench" -h "$IN/pg/sock" -p $P -U postgres -i -s 1 -q postgres >/dev/null 2>&1
pgbr --stanza=$S stanza-create >"$WORK/logs/stanza-create-$S.log" 2>&1
switch $P 2
F1=$(backup $S F1 full)
work $P; switch $P
D1=$(backup $S D1 diff)
work $P; switch $P
I1=$(backup $S I1 incr)
work $P; switch $P
echo zst > "$WORK/bin/compress-$S"
mkdir -p "$WORK/pg/ts1" && chown "$PGUID:$PGGID" "$WORK/pg/ts1" && chmod 700 "$WORK/pg/ts1"
sql $P "create tablespace ts1 location '$IN/pg/ts1'" >/dev/null
sql $P "create table in_ts1 tablespace ts1 as select i, md5(i::text) as t from generate_series(1, 20000) i" >/dev/null
TS1_OID=$(sql $P "select oid from pg_tablespace where spcname = 'ts1'")
switch $P 2
F2=$(backup $S F2 full "--annotation=$ANNOTATION_KEY=$ANNOTATION_VALUE")
# Three segments of their own between F2's stop and D2's start: the middle one is deleted below,
# and neither of its neighbours is a backup's archive start or stop.
for _ in 1 2 3; do work $P; switch $P; done
D2=$(backup $S D2 diff)
work $P; switch $P
I2=$(backup $S I2 incr)
work $P; switch $P
sql $P "select pg_create_restore_point('incident')" >/dev/null
sql $P "create table after_incident as select 1 as x" >/dev/null
work $P 100; switch $P 2 # timeline 1 goes on past the restore point
SYSTEM_ID_MAIN=$(as_pg "$PG/pg_controldata" -D "$IN/pg/$S" | sed -n 's/^Database system identifier: *//p')
stop $S

# ---------------------------------------------------------------- point-in-time restore: timeline 2
log "$S: restore to 'incident' (--type=name, promote) onto timeline 2"
find "$WORK/pg/$S" "$WORK/pg/ts1" -mindepth 1 -delete # restore wants both empty (ts1 back in place)
pgbr --stanza=$S restore --type=name --target=incident --target-action=promote >"$WORK/logs/restore-$S.log" 2>&1 ||
  die "$S: restore failed: $(cat "$WORK/logs/restore-$S.log")"
echo lz4 > "$WORK/bin/compress-$S"
start $S
for _ in $(seq 300); do [[ $(sql $P "select pg_is_in_recovery()") == f ]] && break; sleep 0.1; done
[[ $(sql $P "select pg_is_in_recovery()") == f ]] || die "$S: the restored cluster did not promote"
[[ $(sql $P "select count(*) from pg_class where relname = 'after_incident'") == 0 ]] || die "$S: recovery went past 'incident'"
sql $P "checkpoint" >/dev/null
[[ $(sql $P "select timeline_id from pg_control_checkpoint()") == 2 ]] || die "$S: not on timeline 2 after promotion"
work $P; switch $P
I3=$(backup $S I3 incr)
work $P; switch $P
F3=$(backup $S F3 full)
work $P; switch $P
I4=$(backup $S I4 incr)
work $P; switch $P
stop $S
pgbr --stanza=$S info --output=json > "$OUT/info-$S-before-expire.json"

# ---------------------------------------------------------------- retention
log "$S: expire --repo1-retention-full=2"
pgbr --stanza=$S expire --repo1-retention-full=2 --log-level-console=info >"$OUT/expire-$S.txt" 2>&1
[[ $(labels $S) == "$F2 $D2 $I2 $I3 $F3 $I4" ]] || die "$S: after expire: $(labels $S), expected $F2 $D2 $I2 $I3 $F3 $I4"

# ---------------------------------------------------------------- wait for stanza encrypted
if ! wait "$ENC_PID"; then
  ENC_PID=
  sed 's/^/  | /' "$WORK/logs/build-$STANZA_ENC.log" >&2
  die "$STANZA_ENC: build failed (log above)"
fi
ENC_PID=
sed 's/^/  | /' "$WORK/logs/build-$STANZA_ENC.log" >&2

# ---------------------------------------------------------------- what pgBackRest says
for s in $S $STANZA_ENC; do
  pgbr --stanza=$s info --output=json > "$OUT/info-$s.json"
  pgbr --stanza=$s info > "$OUT/info-$s.txt"
done
# Per current backup, from its manifest as pgBackRest reads it back (decrypted for `encrypted`).
printf 'stanza\tlabel\ttype\tprior\tcompress\tbundle\tblock_incr\tdb_version\ttablespaces\tannotation\n' > "$OUT/manifests.tsv"
for s in $S $STANZA_ENC; do
  for l in $(labels $s); do
    pgbr --stanza=$s repo-get "backup/$s/$l/backup.manifest" > "$WORK/manifest-$s-$l"
    /usr/bin/python3 - "$s" "$l" "$WORK/manifest-$s-$l" >> "$OUT/manifests.tsv" <<'EOF'
import json, sys
stanza, label, path = sys.argv[1:4]
section, kv = None, {}
for line in open(path, encoding="utf-8"):
    line = line.rstrip("\n")
    if line.startswith("["):
        section = line.strip("[]")
    elif "=" in line and section in ("backup", "backup:db", "backup:option", "backup:target", "metadata"):
        k, v = line.split("=", 1)
        kv[(section, k)] = json.loads(v)
annotation = ",".join(f"{k}={v}" for k, v in sorted((kv.get(("metadata", "annotation")) or {}).items()))
print("\t".join([stanza, label, kv[("backup", "backup-type")], kv.get(("backup", "backup-prior")) or "",
                 kv[("backup:option", "option-compress-type")], "y" if kv.get(("backup", "backup-bundle")) else "n",
                 "y" if kv.get(("backup", "backup-block-incr")) else "n", kv[("backup:db", "db-version")],
                 str(sum(1 for (sec, _), v in kv.items() if sec == "backup:target" and "tablespace-id" in v)), annotation]))
EOF
  done
done
cp "$WORK/pgbackrest.conf" "$OUT/pgbackrest.conf"

# ---------------------------------------------------------------- the lost segment
s3tool list "$PREFIX/" > "$WORK/objects-before-loss.tsv"
ARCHIVE_ID=$(/usr/bin/python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))[0]["archive"][0]["id"])' "$OUT/info-$S.json")
read -r LOST_KEY LOST_WAL < <(/usr/bin/python3 - "$OUT/info-$S.json" "$F2" "$D2" "$PREFIX/archive/$S/$ARCHIVE_ID/0000000100000000/" "$WORK/objects-before-loss.tsv" <<'EOF'
import json, re, sys
info, f2, d2, root, listing = sys.argv[1:6]
by = {b["label"]: b for b in json.load(open(info))[0]["backup"]}
after, before = by[f2]["archive"]["stop"], by[d2]["archive"]["start"]
seg = {}
for line in open(listing):
    key = line.split("\t")[0]
    m = re.fullmatch(re.escape(root) + r"([0-9A-F]{24})-[0-9a-f]{40}(\.\w+)?", key)
    if m:
        seg[int(m.group(1), 16)] = (key, m.group(1))
fits = [p for p in sorted(seg) if p - 1 in seg and p + 1 in seg and "%024X" % (p - 1) > after and "%024X" % (p + 1) < before]
assert fits, (after, before, sorted(seg))
print(*seg[fits[len(fits) // 2]])
EOF
)
[[ -n ${LOST_WAL:-} ]] || die "$S: no segment to delete between F2's stop and D2's start"
s3tool delete "$LOST_KEY"
log "$S: deleted $LOST_WAL ($LOST_KEY)"
set +e
pgbr --stanza=$S verify --output=text > "$OUT/verify-$S.txt" 2>&1
VERIFY_EXIT=$?
set -e
log "$S: verify exited $VERIFY_EXIT"
s3tool list "$PREFIX/" > "$OUT/objects.tsv"
grep -qF "$LOST_KEY	" "$OUT/objects.tsv" && die "the lost segment is still listed"

# The timeline switch: 00000002.history (plain text in the unencrypted stanza).
pgbr --stanza=$S repo-get "archive/$S/$ARCHIVE_ID/00000002.history" > "$OUT/history-2.txt"
read -r _ SWITCH_LSN _ < "$OUT/history-2.txt"
FIRST_TL2=$(sed -n "s|^$PREFIX/archive/$S/$ARCHIVE_ID/0000000200000000/\([0-9A-F]\{24\}\)-.*|\1|p" "$OUT/objects.tsv" | sort | head -n 1)
PGBI=$(grep -c '\.pgbi	' "$OUT/objects.tsv" || true)
((PGBI > 0)) || die "no .pgbi object: block incremental wrote nothing"

cat > "$OUT/facts.env" <<EOF
S3_ENDPOINT=$S3_ENDPOINT
BUCKET=$BUCKET
PREFIX=$PREFIX
STANZAS=$S $STANZA_ENC
MAIN_STANZA=$S
MAIN_ARCHIVE_ID=$ARCHIVE_ID
MAIN_SYSTEM_ID=$SYSTEM_ID_MAIN
MAIN_BACKUPS=$F2 $D2 $I2 $I3 $F3 $I4
MAIN_FULL=$F2 $F3
MAIN_DIFF=$D2
MAIN_INCR=$I2 $I3 $I4
MAIN_EXPIRED=$F1 $D1 $I1
MAIN_ANNOTATED=$F2
MAIN_ANNOTATION=$ANNOTATION_KEY=$ANNOTATION_VALUE
MAIN_TIMELINE_1=$F2 $D2 $I2
MAIN_TIMELINE_2=$I3 $F3 $I4
MAIN_CROSS_TIMELINE_INCR=$I3
MAIN_TABLESPACE_OID=$TS1_OID
MAIN_RESTORE_POINT=incident
MAIN_SWITCH_LSN=$SWITCH_LSN
MAIN_FIRST_TIMELINE_2_WAL=$FIRST_TL2
PGBI_OBJECTS=$PGBI
DELETED_WAL=$LOST_WAL
DELETED_KEY=$LOST_KEY
VERIFY_EXIT=$VERIFY_EXIT
CIPHER_STANZA=$STANZA_ENC
CIPHER_TYPE=$CIPHER_TYPE
CIPHER_PASS=$CIPHER_PASS
POSTGRESQL_VERSION=$(sed -n 's/^postgresql=postgres (PostgreSQL) \([^ ]*\).*/\1/p' "$OUT/versions.txt")
PGBACKREST_VERSION=$(sed -n 's/^pgbackrest=pgBackRest //p' "$OUT/versions.txt")
EOF
cat "$WORK/facts-$STANZA_ENC.env" >> "$OUT/facts.env"
printf 'ENCRYPTED_SYSTEM_ID=%s\n' "$(/usr/bin/python3 -c 'import sys, json; print(json.load(open(sys.argv[1]))[0]["db"][0]["system-id"])' "$OUT/info-$STANZA_ENC.json")" >> "$OUT/facts.env"
echo "$HASH" > "$MARKER"
log "done: $(wc -l < "$OUT/objects.tsv") objects under s3://$BUCKET/$PREFIX/ ($PGBI .pgbi); main $F2 $D2 $I2 $I3 $F3 $I4; lost $LOST_WAL"
