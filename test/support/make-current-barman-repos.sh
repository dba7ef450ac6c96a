#!/usr/bin/env bash
# make-current-barman-repos.sh — a real barman-cloud repository written by the tools people run
# today: PostgreSQL 18 and Barman 3.20 (barman-cli-cloud from Debian sid), run inside the root
# make-current-root.sh builds, into the test Swift store (swift-s3.sh must be running) under
# s3://barman/current-barman (a prefix of its own: discovery under `fixtures` and `scenarios` is
# unaffected). Writes what Barman itself reports about it to $OUT for tests to assert against.
#
# Server pg18 (16 MiB segments, pgbench data and a table of random text), WAL compression changing
# over the archive's life, so segments, backup-history (.backup) files and the history file carry
# every suffix Barman 3.20 writes but bzip2:
#   WAL --zstd; backup B1 --lz4; WAL --lz4; a tablespace ts1; backup B2 --zstd (data.tar.zst and
#   <oid>.tar.zst); WAL --xz (three segments of their own: the middle one is lost later); WAL
#   --snappy; backup B3 --gzip --max-archive-size 1MB --name before-incident (several parts:
#   data.tar.gz, data_0001.tar.gz, ...), kept with barman-cloud-backup-keep --target full;
#   WAL --gzip; restore point "incident"; WAL past it on timeline 1.
#   Point-in-time recovery of before-incident to "incident" (barman-cloud-restore, then
#   recovery.signal with restore_command = barman-cloud-wal-restore, recovery_target_action =
#   promote): timeline 2 (00000002.history.zst; no .partial, as the last timeline-1 segment was
#   restored from the archive, and PostgreSQL archives a .partial only of its own), WAL --zstd; backup
#   B4 --snappy --name after-pitr on timeline 2; WAL --gzip on timeline 2 (the fork continues).
#   Then one timeline-1 segment (xz) strictly between B2's end_wal and B3's begin_wal, with
#   archived neighbours on both sides, is deleted from the store.
# Recorded in $OUT: backup-list.json / .txt (barman-cloud-backup-list), backup-show-<id>.json /
# .txt (barman-cloud-backup-show), keep-<id>.txt, objects.tsv (the key listing: key, size,
# last-modified), history-2.txt, versions.txt and facts.env.
#
# Everything of the tools runs inside the root with chroot, in a mount namespace of this script's
# own (unshare --mount): /proc, a /dev/shm and a /tmp tmpfs and this build's work directory (bind,
# at /srv/viewer) are mounted there only, so they disappear with the namespace even if this
# script is killed; on exit they are unmounted explicitly after the clusters are stopped.
#
# Idempotent: a marker holding this script's hash and the root's skips the build when nothing
# changed. Env: S3_ENDPOINT (http://127.0.0.1:18080) ACCESS SECRET WORK
# (/var/tmp/viewer-test/current/barman) OUT (/var/tmp/viewer-test/current/out/barman)
# CURRENT_ROOT (/var/tmp/viewer-test/current-root).
set -Eeuo pipefail

BASE=${VIEWER_TEST_DIR:-/var/tmp/viewer-test}
S3_ENDPOINT=${S3_ENDPOINT:-http://127.0.0.1:18080}
ACCESS=${ACCESS:-test:tester}
SECRET=${SECRET:-testing}
WORK=${WORK:-$BASE/current/barman}
OUT=${OUT:-$BASE/current/out/barman}
CURRENT_ROOT=${CURRENT_ROOT:-$BASE/current-root}
ROOT=$CURRENT_ROOT/rootfs
BUCKET=barman
PREFIX=current-barman
DEST=s3://$BUCKET/$PREFIX
SERVER=pg18
PORT_MAIN=55450 PORT_RESTORED=55451
MAX_ARCHIVE_SIZE=1MB
IN=/srv/viewer # $WORK, seen from inside the root
PG=/usr/lib/postgresql/18/bin
MARKER=$WORK/.built
SELF=$(cd "$(dirname "$0")" && pwd)/$(basename "$0")
HASH="$(sha256sum "$SELF" | cut -c1-16) root:$(cat "$CURRENT_ROOT/.built" 2>/dev/null)"
T0=${VIEWER_CURRENT_T0:-$(date +%s)}
log() { printf '[make-current-barman-repos %3ss] %s\n' "$(( $(date +%s) - T0 ))" "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }
trap 'log "failed at line $LINENO: $BASH_COMMAND"' ERR

[[ -x $ROOT/usr/lib/postgresql/18/bin/postgres && -f $CURRENT_ROOT/.built ]] || die "no current-tools root in $ROOT: run make-current-root.sh first"
if [[ -f $MARKER && $(cat "$MARKER") == "$HASH" && -f $OUT/facts.env ]]; then
  log "repository already built by this version; nothing to do"
  exit 0
fi
# A mount namespace of our own (see the header).
if [[ -z ${VIEWER_CURRENT_NS:-} ]]; then
  export VIEWER_CURRENT_NS=1 VIEWER_CURRENT_T0=$T0
  exec unshare --mount --propagation private -- bash "$SELF" "$@"
fi

export AWS_ACCESS_KEY_ID=$ACCESS AWS_SECRET_ACCESS_KEY=$SECRET AWS_DEFAULT_REGION=us-east-1 # s3tool.py on the host
PGUID=$(awk -F: '$1 == "postgres" { print $3 }' "$ROOT/etc/passwd")
PGGID=$(awk -F: '$1 == "postgres" { print $4 }' "$ROOT/etc/passwd")
ENV_IN=(PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin LANG=C.UTF-8 TZ=UTC
  AWS_ACCESS_KEY_ID="$ACCESS" AWS_SECRET_ACCESS_KEY="$SECRET" AWS_DEFAULT_REGION=us-east-1)
inroot() { chroot "$ROOT" /usr/bin/env -i "${ENV_IN[@]}" HOME=/root "$@"; }
as_pg() { chroot --userspec="$PGUID:$PGGID" --groups="$PGGID" "$ROOT" /usr/bin/env -i "${ENV_IN[@]}" HOME=/var/lib/postgresql "$@"; }
CLOUD=(--endpoint-url "$S3_ENDPOINT" --cloud-provider aws-s3)
barman() { local c=$1; shift; as_pg "barman-cloud-$c" "${CLOUD[@]}" "$@"; }

MOUNTED=()
unmount_all() {
  local i
  for ((i = ${#MOUNTED[@]} - 1; i >= 0; i--)); do umount "${MOUNTED[$i]}" 2>/dev/null || umount -l "${MOUNTED[$i]}" || true; done
  MOUNTED=()
}
stop_clusters() {
  local d
  for d in main restored; do
    [[ -f $WORK/pg/$d/postmaster.pid ]] && as_pg "$PG/pg_ctl" -D "$IN/pg/$d" -m immediate -w stop >/dev/null 2>&1 || true
  done
}
cleanup() {
  local rc=$?
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
mkdir -p "$WORK"
mount_in proc proc "$ROOT/proc"
mount_in tmpfs shm "$ROOT/dev/shm" mode=1777,size=512m
mount_in tmpfs tmp "$ROOT/tmp" mode=1777,size=1g
mount_in bind "$WORK" "$ROOT$IN"
stop_clusters # a cluster an earlier, killed build left running
unmount_all
rm -rf "$WORK" "$OUT"
mkdir -p "$WORK/pg/sock" "$WORK/bin" "$WORK/logs" "$OUT"
mount_in proc proc "$ROOT/proc"
mount_in tmpfs shm "$ROOT/dev/shm" mode=1777,size=512m
mount_in tmpfs tmp "$ROOT/tmp" mode=1777,size=1g
mount_in bind "$WORK" "$ROOT$IN"
chown -R "$PGUID:$PGGID" "$WORK/pg"
chmod 755 "$WORK" "$WORK/bin" "$WORK/logs"
cd "$WORK"
cp "$CURRENT_ROOT/versions.txt" "$OUT/versions.txt"
log "root: $(paste -sd';' "$OUT/versions.txt")"

# s3tool.py (host python3 and boto3): listings and object work. WAL names are read from keys the
# way Barman's CloudBackupCatalog.get_wal_paths reads them: the basename, at most one suffix of
# ALLOWED_COMPRESSIONS (.gz .bz2 .xz .snappy .zst .lz4 in 3.20).
cat > "$WORK/bin/s3tool.py" <<'EOF'
import os, re, sys
COMPRESSIONS = (".gz", ".bz2", ".xz", ".snappy", ".zst", ".lz4")
XLOG = re.compile(r"^[0-9A-F]{8}(?:[0-9A-F]{16}(?:\.[0-9A-F]{8}\.backup|\.partial)?|\.history)$")
SEGMENT = re.compile(r"^([0-9A-F]{8})([0-9A-F]{8})([0-9A-F]{8})$")
endpoint, bucket, cmd, args = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]

def client():
    import boto3
    from botocore.config import Config
    return boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1", config=Config(s3={"addressing_style": "path"}))

def listing(prefix):
    return [o for p in client().get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix=prefix) for o in p.get("Contents", [])]

def wal_name(key):
    if "/wals/" not in key:
        return None
    base = key.rsplit("/", 1)[-1]
    if XLOG.match(base):
        return base
    stem, ext = os.path.splitext(base)
    return stem if ext in COMPRESSIONS and XLOG.match(stem) else None

def position(name):
    tli, log, seg = (int(g, 16) for g in SEGMENT.match(name).groups())
    return tli, log * 256 + seg

def name_of(tli, pos):
    return "%08X%08X%08X" % (tli, pos // 256, pos % 256)

def segments(keys):
    out = {}
    for k in keys:
        n = wal_name(k)
        if n is not None and SEGMENT.match(n):
            tli, pos = position(n)
            out.setdefault(tli, {})[pos] = k
    return out

if cmd == "empty":  # PREFIX: delete every object under it
    s3 = client()
    for o in listing(args[0]):
        s3.delete_object(Bucket=bucket, Key=o["Key"])
elif cmd == "list":  # PREFIX -> key, size, last-modified
    for o in listing(args[0]):
        print(f"{o['Key']}\t{o['Size']}\t{o['LastModified'].isoformat()}")
elif cmd == "delete":  # KEY, which must exist
    s3 = client()
    s3.head_object(Bucket=bucket, Key=args[0])
    s3.delete_object(Bucket=bucket, Key=args[0])
elif cmd == "get":  # KEY -> its bytes on stdout
    sys.stdout.buffer.write(client().get_object(Bucket=bucket, Key=args[0])["Body"].read())
elif cmd == "pick-lost":  # PREFIX AFTER BEFORE -> key and name of the first archived segment p with
    # AFTER < p - 1 and p + 1 < BEFORE whose neighbours p - 1 and p + 1 are archived too (here the
    # middle one of the three xz segments after B2's end_wal)
    tli, after = position(args[1])
    _, before = position(args[2])
    by_pos = segments(o["Key"] for o in listing(args[0])).get(tli, {})
    fits = [p for p in sorted(by_pos) if after < p - 1 and p + 1 < before and p - 1 in by_pos and p + 1 in by_pos]
    assert fits, (args, sorted(by_pos))
    p = fits[0]
    print(by_pos[p], name_of(tli, p))
elif cmd == "holes":  # PREFIX -> first:last of each run of positions missing between archived segments
    for tli, by_pos in sorted(segments(o["Key"] for o in listing(args[0])).items()):
        ps = sorted(by_pos)
        for a, b in zip(ps, ps[1:]):
            if b - a > 1:
                print(f"{tli}:{name_of(tli, a + 1)}:{name_of(tli, b - 1)}")
else:
    sys.exit(f"unknown command {cmd}")
EOF
s3tool() { /usr/bin/python3 "$WORK/bin/s3tool.py" "$S3_ENDPOINT" "$BUCKET" "$@"; }
s3tool empty "$PREFIX/"

# ---------------------------------------------------------------- archive and restore commands
# archive_command runs in the postmaster's environment (inside the root, credentials from ENV_IN);
# the compression flag is read per call from a file, so it changes without a reload.
cat > "$WORK/bin/archive.sh" <<EOF
#!/bin/sh
exec barman-cloud-wal-archive --endpoint-url '$S3_ENDPOINT' --cloud-provider aws-s3 \$(cat '$IN/bin/compression') '$DEST' '$SERVER' "\$1"
EOF
cat > "$WORK/bin/restore.sh" <<EOF
#!/bin/sh
exec barman-cloud-wal-restore --endpoint-url '$S3_ENDPOINT' --cloud-provider aws-s3 '$DEST' '$SERVER' "\$1" "\$2"
EOF
chmod 755 "$WORK"/bin/*.sh
compression() { echo "$1" > "$WORK/bin/compression"; chmod 644 "$WORK/bin/compression"; log "WAL compression now $1"; }

init_cluster() { # name port
  as_pg "$PG/initdb" -D "$IN/pg/$1" -A trust -U postgres >"$WORK/logs/initdb-$1.log"
  cat >> "$WORK/pg/$1/postgresql.auto.conf" <<EOF
port = $2
listen_addresses = ''
unix_socket_directories = '$IN/pg/sock'
wal_level = replica
archive_mode = on
archive_command = '$IN/bin/archive.sh %p'
fsync = off
EOF
}
start() { as_pg "$PG/pg_ctl" -D "$IN/pg/$1" -l "$IN/pg/$1.log" -w start >/dev/null; }
stop() { as_pg "$PG/pg_ctl" -D "$IN/pg/$1" -m fast -w stop >/dev/null; }
sql() { as_pg "$PG/psql" -h "$IN/pg/sock" -p "$1" -U postgres -d postgres -qAtX -c "$2"; }
ready_count() { sql "$1" "select count(*) from pg_ls_archive_statusdir() where name like '%.ready'"; }
# Switch to a new segment and wait until the archiver has nothing left to send, COUNT times.
switch() { # port [count]
  local i
  for ((i = 0; i < ${2:-1}; i++)); do
    sql "$1" "select pg_switch_wal()" >/dev/null
    for _ in $(seq 600); do
      [[ $(ready_count "$1") == 0 ]] && break
      sleep 0.1
    done
    [[ $(ready_count "$1") == 0 ]] || die "archiving stalled on port $1 (see $WORK/pg/*.log)"
  done
}
work() { as_pg "$PG/pgbench" -h "$IN/pg/sock" -p "$1" -U postgres -t "${2:-200}" postgres >/dev/null 2>&1; }
backup_ids() {
  barman backup-list --format json "$DEST" "$SERVER" | /usr/bin/python3 -c 'import sys, json; print(" ".join(b["backup_id"] for b in json.load(sys.stdin)["backups_list"]))'
}
# Takes a backup; prints its id (the newest one listed, which must be new).
backup() { # port label [flags...]
  local port=$1 label=$2 before id
  shift 2
  before=$(backup_ids)
  sleep 1 # backup ids are timestamps to the second
  log "$SERVER: backup $label ($*)"
  barman backup --immediate-checkpoint -h "$IN/pg/sock" -p "$port" -U postgres "$@" "$DEST" "$SERVER" >"$WORK/logs/backup-$label.log" 2>&1 ||
    die "backup $label failed: $(tail -n 20 "$WORK/logs/backup-$label.log")"
  id=$(backup_ids | tr ' ' '\n' | tail -n 1)
  [[ -n $id && " $before " != *" $id "* ]] || die "backup $label: no new backup listed"
  echo "$id"
}
info_of() { # id -> begin_wal end_wal timeline, from barman-cloud-backup-show (one key: the server
  # name backup.info holds, "cloud" for barman-cloud-backup, whatever the server is called)
  barman backup-show --format json "$DEST" "$SERVER" "$1" |
    /usr/bin/python3 -c 'import sys, json; (d,) = json.load(sys.stdin).values(); print(d["begin_wal"], d["end_wal"], d["timeline"])'
}

# ---------------------------------------------------------------- timeline 1
log "$SERVER: initdb and start (PostgreSQL 18)"
compression --zstd
init_cluster main $PORT_MAIN
start main
as_pg "$PG/pgbench" -h "$IN/pg/sock" -p $PORT_MAIN -U postgres -i -s 1 -q postgres >/dev/null 2>&1
# Text that gzip cannot shrink much, in tables (files) of about 1.7 MB each: an archive part is
# closed when it exceeds MAX_ARCHIVE_SIZE before the next file, so B3's needs several parts.
for i in 1 2 3 4 5; do
  sql $PORT_MAIN "create table filler$i as select i, md5(random()::text) || md5(random()::text) as t from generate_series(1, 20000) i" >/dev/null
done
switch $PORT_MAIN 2
B1=$(backup $PORT_MAIN B1 --lz4)
compression --lz4
work $PORT_MAIN; switch $PORT_MAIN
mkdir -p "$WORK/pg/ts1" && chown "$PGUID:$PGGID" "$WORK/pg/ts1" && chmod 700 "$WORK/pg/ts1"
sql $PORT_MAIN "create tablespace ts1 location '$IN/pg/ts1'" >/dev/null
sql $PORT_MAIN "create table in_ts1 tablespace ts1 as select i, md5(i::text) as t from generate_series(1, 20000) i" >/dev/null
TS1_OID=$(sql $PORT_MAIN "select oid from pg_tablespace where spcname = 'ts1'")
work $PORT_MAIN; switch $PORT_MAIN
B2=$(backup $PORT_MAIN B2 --zstd)
compression --xz
# Three segments of their own between B2's end and B3's begin (a switch with nothing written since
# the last one is a no-op, so each follows work): the middle one is deleted at the end.
for _ in 1 2 3; do work $PORT_MAIN; switch $PORT_MAIN; done
compression --snappy
work $PORT_MAIN; switch $PORT_MAIN 2
B3=$(backup $PORT_MAIN B3 --gzip --max-archive-size "$MAX_ARCHIVE_SIZE" --name before-incident)
barman backup-keep --target full "$DEST" "$SERVER" "$B3"
compression --gzip
work $PORT_MAIN; switch $PORT_MAIN
sql $PORT_MAIN "select pg_create_restore_point('incident')" >/dev/null
sql $PORT_MAIN "create table after_incident as select 1 as x" >/dev/null
work $PORT_MAIN 100; switch $PORT_MAIN 2 # timeline 1 goes on past the restore point
SYSTEM_ID=$(as_pg "$PG/pg_controldata" -D "$IN/pg/main" | sed -n 's/^Database system identifier: *//p')
stop main

# ---------------------------------------------------------------- PITR onto timeline 2
log "$SERVER: restore before-incident, recover to 'incident' and promote"
mkdir -p "$WORK/pg/restored" "$WORK/pg/ts1-restored"
chown "$PGUID:$PGGID" "$WORK/pg/restored" "$WORK/pg/ts1-restored"
chmod 700 "$WORK/pg/restored" "$WORK/pg/ts1-restored"
barman restore --tablespace "ts1:$IN/pg/ts1-restored" "$DEST" "$SERVER" before-incident "$IN/pg/restored" >"$WORK/logs/restore.log" 2>&1 ||
  die "barman-cloud-restore failed: $(tail -n 20 "$WORK/logs/restore.log")"
sed -i "s/^port = .*/port = $PORT_RESTORED/" "$WORK/pg/restored/postgresql.auto.conf"
cat >> "$WORK/pg/restored/postgresql.auto.conf" <<EOF
restore_command = '$IN/bin/restore.sh %f %p'
recovery_target_name = 'incident'
recovery_target_action = 'promote'
EOF
as_pg touch "$IN/pg/restored/recovery.signal"
compression --zstd # 00000002.history.zst and the first timeline-2 segments
start restored
for _ in $(seq 600); do [[ $(sql $PORT_RESTORED "select pg_is_in_recovery()") == f ]] && break; sleep 0.1; done
[[ $(sql $PORT_RESTORED "select pg_is_in_recovery()") == f ]] || die "recovery did not promote"
[[ $(sql $PORT_RESTORED "select count(*) from pg_class where relname = 'after_incident'") == 0 ]] || die "recovery went past 'incident'"
sql $PORT_RESTORED "checkpoint" >/dev/null
[[ $(sql $PORT_RESTORED "select timeline_id from pg_control_checkpoint()") == 2 ]] || die "not on timeline 2 after promotion"
work $PORT_RESTORED; switch $PORT_RESTORED 2
B4=$(backup $PORT_RESTORED B4 --snappy --name after-pitr)
compression --gzip
work $PORT_RESTORED; switch $PORT_RESTORED 2
stop restored

# ---------------------------------------------------------------- what Barman says
for id in $B1 $B2 $B3 $B4; do
  barman backup-show --format json "$DEST" "$SERVER" "$id" > "$OUT/backup-show-$id.json"
  barman backup-show "$DEST" "$SERVER" "$id" > "$OUT/backup-show-$id.txt"
done
barman backup-keep --status "$DEST" "$SERVER" "$B3" > "$OUT/keep-$B3.txt"
read -r B2_BEGIN B2_END B2_TLI < <(info_of "$B2")
read -r B3_BEGIN B3_END B3_TLI < <(info_of "$B3")
[[ $B2_TLI == 1 && $B3_TLI == 1 ]] || die "B2, B3 not on timeline 1"

# ---------------------------------------------------------------- the lost segment
read -r LOST_KEY LOST_WAL < <(s3tool pick-lost "$PREFIX/$SERVER/wals/" "$B2_END" "$B3_BEGIN")
[[ -n ${LOST_WAL:-} ]] || die "no segment to lose between $B2_END and $B3_BEGIN"
s3tool delete "$LOST_KEY"
HOLES=$(s3tool holes "$PREFIX/$SERVER/wals/" | paste -sd, -)
[[ $HOLES == "1:$LOST_WAL:$LOST_WAL" ]] || die "holes $HOLES, expected only $LOST_WAL"
log "$SERVER: deleted $LOST_WAL ($LOST_KEY)"

barman backup-list --format json "$DEST" "$SERVER" > "$OUT/backup-list.json"
barman backup-list "$DEST" "$SERVER" > "$OUT/backup-list.txt"
s3tool list "$PREFIX/" > "$OUT/objects.tsv"
history_key=$(awk -F'\t' '$1 ~ /\/wals\/00000002\.history/ { print $1 }' "$OUT/objects.tsv")
[[ $history_key == */00000002.history.zst ]] || die "history file is $history_key, expected .zst"
s3tool get "$history_key" | inroot zstd -dc > "$OUT/history-2.txt"
read -r _ SWITCH_LSN _ < "$OUT/history-2.txt"

# What the listing must show: every compression where it was asked for.
keys() { cut -f1 "$OUT/objects.tsv"; }
expect_key() { keys | grep -qE "$1" || die "no key matches $1"; }
expect_key "/base/$B1/data\.tar\.lz4$"
expect_key "/base/$B2/data\.tar\.zst$"
expect_key "/base/$B2/$TS1_OID\.tar\.zst$"
expect_key "/base/$B3/data_0002\.tar\.gz$"
expect_key "/base/$B4/data\.tar\.snappy$"
for suffix in zst lz4 xz snappy gz; do expect_key "/wals/0000000100000000/[0-9A-F]{24}\.$suffix$"; done
for suffix in zst lz4 snappy; do expect_key "/wals/0000000100000000/[0-9A-F]{24}\.[0-9A-F]{8}\.backup\.$suffix$"; done
expect_key "/wals/0000000200000000/[0-9A-F]{24}\.gz$"
B3_PARTS=$(keys | grep -cE "/base/$B3/data(_[0-9]{4})?\.tar\.gz$")
TS_PARTS=$(keys | grep -cE "/base/$B3/$TS1_OID(_[0-9]{4})?\.tar\.gz$")
FIRST_TL2=$(keys | sed -n 's|.*/wals/0000000200000000/\([0-9A-F]\{24\}\)\..*|\1|p' | sort | head -n 1)

cat > "$OUT/facts.env" <<EOF
S3_ENDPOINT=$S3_ENDPOINT
BUCKET=$BUCKET
PREFIX=$PREFIX
SERVER=$SERVER
SYSTEM_ID=$SYSTEM_ID
BACKUP_LZ4=$B1
BACKUP_ZSTD=$B2
BACKUP_GZIP_PARTS=$B3
BACKUP_SNAPPY=$B4
BACKUPS=$B1 $B2 $B3 $B4
TIMELINE_1_BACKUPS=$B1 $B2 $B3
TIMELINE_2_BACKUPS=$B4
NAMED_BACKUPS=$B3:before-incident $B4:after-pitr
KEEP_BACKUP=$B3
KEEP_TARGET=full
TABLESPACE_BACKUP=$B2
TABLESPACE_NAME=ts1
TABLESPACE_OID=$TS1_OID
MAX_ARCHIVE_SIZE=$MAX_ARCHIVE_SIZE
GZIP_DATA_PARTS=$B3_PARTS
GZIP_TABLESPACE_PARTS=$TS_PARTS
RESTORE_POINT=incident
SWITCH_LSN=$SWITCH_LSN
FIRST_TIMELINE_2_WAL=$FIRST_TL2
DELETED_WAL=$LOST_WAL
DELETED_KEY=$LOST_KEY
HOLES=$HOLES
SNAPPY_WORKAROUND=$(sed -n 's/^snappy-workaround=//p' "$OUT/versions.txt")
POSTGRESQL_VERSION=$(sed -n 's/^postgresql=postgres (PostgreSQL) \([^ ]*\).*/\1/p' "$OUT/versions.txt")
BARMAN_VERSION=$(sed -n 's/^barman-cli-cloud=barman-cloud-backup //p' "$OUT/versions.txt")
EOF
echo "$HASH" > "$MARKER"
log "done: $(wc -l < "$OUT/objects.tsv") objects under $DEST/$SERVER/ (B3 in $B3_PARTS data parts); backups $B1 $B2 $B3 $B4; lost $LOST_WAL"
