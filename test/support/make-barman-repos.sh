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
# Scenario servers, in s3://barman/scenarios (a prefix of their own, so scope discovery under
# s3://barman/fixtures still finds exactly pg-main and pg-wal1m), 16 MiB segments, each a small
# cluster of its own (no pgbench data) built in the background while pg-main is built:
# Server pg-retention (gzip WAL): backup A; WAL; backup B; WAL; backup C; WAL; A marked keep standalone; then
#   barman-cloud-backup-delete -r "REDUNDANCY 1" deletes B and the WAL its rule allows. The keys
#   before and after, the deleted ones and the holes left between archived segments are recorded.
# Server pg-standalone (gzip WAL): backup S (keep standalone); WAL; backup N; WAL; then one segment strictly
#   between S's end_wal and N's begin_wal (archived segments on both sides) is deleted.
# Server pg-damaged (plain WAL): backups D1, D2, D3 with WAL between; then D1's data.tar is deleted and the
#   segment of D2's begin_wal is replaced by its first 100 bytes (same key).
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
SCEN_PREFIX=scenarios
SCEN_DEST=s3://$BUCKET/$SCEN_PREFIX
SCEN_SERVERS=(pg-retention pg-standalone pg-damaged)
PORT_RETENTION=55435 PORT_STANDALONE=55436 PORT_DAMAGED=55437
RETENTION_POLICY="REDUNDANCY 1"
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
for d in main restored small retention standalone damaged; do
  [[ -f $WORK/pg/$d/postmaster.pid ]] && as_pg "$PG/pg_ctl" -D "$WORK/pg/$d" -m immediate stop >/dev/null 2>&1 || true
done
rm -rf "$WORK"
mkdir -p "$WORK/pg" "$WORK/bin" "$WORK/logs" "$OUT" "$WORK/pg/sock"
chown -R postgres:postgres "$WORK/pg"
chmod 755 "$WORK" "$WORK/bin"
# Commands run as postgres inherit the working directory; the caller's may be private to root.
cd "$WORK"
# Empty the bucket prefixes left by an earlier build.
for p in "$PREFIX/" "$SCEN_PREFIX/"; do
s3py "$S3_ENDPOINT" "$BUCKET" "$p" <<'EOF'
import sys, boto3, hashlib, base64
from botocore.config import Config
s3 = boto3.client("s3", endpoint_url=sys.argv[1], config=Config(s3={"addressing_style": "path"}))
for page in s3.get_paginator("list_objects_v2").paginate(Bucket=sys.argv[2], Prefix=sys.argv[3]):
    for o in page.get("Contents", []):
        s3.delete_object(Bucket=sys.argv[2], Key=o["Key"])
EOF
done

# ---------------------------------------------------------------- archive wrappers
# archive_command runs in the postmaster's environment: credentials and endpoint live here.
# Compression is read per call from a file, so it can change without a reload.
for server in pg-main pg-wal1m "${SCEN_SERVERS[@]}"; do
  case $server in pg-main | pg-wal1m) dest=$DEST ;; *) dest=$SCEN_DEST ;; esac
  cat > "$WORK/bin/archive-$server.sh" <<EOF
#!/bin/sh
export AWS_ACCESS_KEY_ID='$ACCESS' AWS_SECRET_ACCESS_KEY='$SECRET' AWS_DEFAULT_REGION=us-east-1
flag=\$(cat '$WORK/bin/compression-$server' 2>/dev/null)
exec barman-cloud-wal-archive --endpoint-url '$S3_ENDPOINT' \$flag '$dest' '$server' "\$1"
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

# ---------------------------------------------------------------- scenario servers (background)
# s3tool.py: the listing, object and WAL-name work the scenario servers need. WAL names are read
# from keys the way Barman's CloudBackupCatalog.get_wal_paths reads them (basename, at most one
# compression suffix); positions are log * 256 + segment (16 MiB segments, post-9.3 numbering).
cat > "$WORK/bin/s3tool.py" <<'EOF'
import os, re, sys
COMPRESSIONS = (".gz", ".bz2", ".snappy")
XLOG = re.compile(r"^[0-9A-Fa-f]{8}(?:[0-9A-Fa-f]{16}(?:\.[0-9A-Fa-f]{8}\.backup|\.partial)?|\.history)$")
SEGMENT = re.compile(r"^([0-9A-F]{8})([0-9A-F]{8})([0-9A-F]{8})$")
endpoint, bucket, cmd, args = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]

def client():
    import boto3
    from botocore.config import Config
    return boto3.client("s3", endpoint_url=endpoint, config=Config(s3={"addressing_style": "path"}))

def wal_name(key):
    if "/wals/" not in key:
        return None
    base = key.rsplit("/", 1)[-1]
    if XLOG.match(base):
        return base
    stem, ext = os.path.splitext(base)
    return stem if ext in COMPRESSIONS and XLOG.match(stem) else None

def position(name):
    m = SEGMENT.match(name)
    tli, log, seg = (int(g, 16) for g in m.groups())
    assert seg <= 0xFF, name
    return tli, log * 256 + seg

def name_of(tli, pos):
    return "%08X%08X%08X" % (tli, pos // 256, pos % 256)

def segments(keys):
    """{timeline: {position: key}} of archived WAL segments (no .partial/.backup/.history)."""
    out = {}
    for k in keys:
        n = wal_name(k)
        if n is not None and SEGMENT.match(n):
            tli, pos = position(n)
            out.setdefault(tli, {})[pos] = k
    return out

def stdin_keys():
    return [l for l in sys.stdin.read().splitlines() if l]

if cmd in ("list", "keys"):
    for page in client().get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix=args[0]):
        for o in page.get("Contents", []):
            print(f"{o['Key']}\t{o['Size']}\t{o['LastModified'].isoformat()}" if cmd == "list" else o["Key"])
elif cmd == "info":  # KEY... of backup.info files -> begin_wal end_wal timeline, a line each
    s3 = client()
    for key in args:
        body = s3.get_object(Bucket=bucket, Key=key)["Body"].read().decode()
        info = dict(l.split("=", 1) for l in body.splitlines() if "=" in l)
        print(info["begin_wal"], info["end_wal"], info["timeline"])
elif cmd == "delete":  # KEY, which must exist
    s3 = client()
    s3.head_object(Bucket=bucket, Key=args[0])
    s3.delete_object(Bucket=bucket, Key=args[0])
elif cmd == "truncate":  # KEY BYTES: replace the object by its first BYTES bytes; prints the old size
    s3 = client()
    body = s3.get_object(Bucket=bucket, Key=args[0])["Body"].read()
    s3.put_object(Bucket=bucket, Key=args[0], Body=body[: int(args[1])])
    print(len(body))
elif cmd == "holes":  # keys on stdin -> first:last of each run of positions missing between archived segments
    for tli, by_pos in sorted(segments(stdin_keys()).items()):
        ps = sorted(by_pos)
        for a, b in zip(ps, ps[1:]):
            if b - a > 1:
                print(f"{name_of(tli, a + 1)}:{name_of(tli, b - 1)}")
elif cmd == "wal-names":  # segment|backup, keys on stdin -> the WAL segment (or backup-history) names
    for k in stdin_keys():
        n = wal_name(k)
        if n is not None and (SEGMENT.match(n) if args[0] == "segment" else n.endswith(".backup")):
            print(n)
elif cmd == "wal-key":  # NAME, keys on stdin -> the key holding that WAL name
    hits = [k for k in stdin_keys() if wal_name(k) == args[0]]
    assert len(hits) == 1, hits
    print(hits[0])
elif cmd == "pick-lost":  # AFTER BEFORE, keys on stdin -> key and name of an archived segment p with
    # AFTER < p <= BEFORE - 2 whose neighbours p - 1 and p + 1 are archived too (the middle one)
    tli, after = position(args[0])
    tli2, before = position(args[1])
    assert tli == tli2
    by_pos = segments(stdin_keys()).get(tli, {})
    fits = [p for p in sorted(by_pos) if after < p <= before - 2 and p - 1 in by_pos and p + 1 in by_pos]
    assert fits, (args, sorted(by_pos))
    p = fits[len(fits) // 2]
    print(by_pos[p], name_of(tli, p))
elif cmd == "retention-expect":  # ROOT DELETED_ID KEEP_BEGIN KEEP_END NEXT_BEGIN, keys before on stdin
    # The keys barman-cloud-backup-delete should remove when it deletes DELETED_ID by retention with
    # one older keep:standalone backup [KEEP_BEGIN, KEEP_END] and NEXT_BEGIN the next backup's
    # begin_wal, all on one timeline (cloud_backup_delete._remove_wals_for_backup): the backup's
    # objects, and every WAL name < NEXT_BEGIN except history files and names (backup-history
    # files: their first 24 characters) inside [KEEP_BEGIN, KEEP_END].
    root, deleted, keep_begin, keep_end, next_begin = args
    for k in stdin_keys():
        n = wal_name(k)
        if k.startswith(f"{root}base/{deleted}/"):
            print(k)
        elif n is not None and not n.endswith(".history"):
            check = n[:24] if n.endswith(".backup") else n
            if not keep_begin <= check <= keep_end and n < next_begin:
                print(k)
else:
    sys.exit(f"unknown command {cmd}")
EOF
s3tool() { /usr/bin/python3 "$WORK/bin/s3tool.py" "$S3_ENDPOINT" "$BUCKET" "$@"; }
ckeys() { s3tool keys "$1" | LC_ALL=C sort; }
# Write a little and switch, COUNT times: each call archives one more segment.
segments() { # port count
  local i
  for ((i = 0; i < $2; i++)); do
    sql "$1" "insert into t select generate_series(1, 1000)" >/dev/null
    switch "$1"
  done
}
# A small cluster of its own for a scenario server (no pgbench data: a fresh initdb is enough).
scen_start() { # dir port server
  log "$3: initdb and start"
  init_cluster "$1" "$2" "$3"
  start "$1"
  sql "$2" "create table t (x int)" >/dev/null
}
# Take a backup of a scenario server and print its id, read from Barman's own log line ("Starting
# backup '<id>'", -v); ids are seconds, so it must differ from the previous backup's id. One upload
# worker: these clusters are small, and each worker is one more Python process to start.
scen_backup() { # port server label [previous id]
  local id
  log "$2: backup $3"
  backup "$1" "$2" -v --jobs 1 >"$WORK/logs/backup-$2-$3.log" 2>&1
  id=$(sed -n "s/.*Starting backup '\([0-9]\{8\}T[0-9]\{6\}\)'.*/\1/p" "$WORK/logs/backup-$2-$3.log")
  [[ -n $id && $id != "${4:-}" ]] || die "$2: backup $3 reported no new backup id"
  echo "$id"
}
wals_of() { # server id... -> "begin end timeline" per id, one line each
  local server=$1 id keys=()
  shift
  for id in "$@"; do keys+=("$SCEN_PREFIX/$server/base/$id/backup.info"); done
  s3tool info "${keys[@]}"
}

# pg-retention: Barman's own retention deletes backup B and the WAL its rule allows.
build_retention() {
  local s=pg-retention p=$PORT_RETENTION d=$WORK/pg/retention root=$SCEN_PREFIX/pg-retention/
  local A B C a_begin a_end b_begin b_end c_begin c_end tli
  echo "-z" > "$WORK/bin/compression-$s" # gzip WAL: small objects, a quick build
  scen_start "$d" $p $s
  segments $p 1
  A=$(scen_backup $p $s A)
  segments $p 2
  B=$(scen_backup $p $s B "$A")
  segments $p 2
  C=$(scen_backup $p $s C "$B")
  segments $p 1
  stop "$d"
  { read -r a_begin a_end tli && read -r b_begin b_end tli && read -r c_begin c_end tli; } < <(wals_of $s "$A" "$B" "$C")
  [[ -n $a_end && -n $b_end && -n $c_end ]] || die "$s: backup.info without WAL names"
  barman-cloud-backup-keep "${CLOUD[@]}" --target standalone "$DEST" $s "$A"
  barman-cloud-backup-keep "${CLOUD[@]}" --status "$DEST" $s "$A" > "$OUT/keep-status-$s-A.txt"
  barman-cloud-backup-list "${CLOUD[@]}" "$DEST" $s > "$OUT/backup-list-$s-before-delete.txt"
  ckeys "$root" > "$OUT/retention-keys-before.txt"
  log "$s: barman-cloud-backup-delete -r '$RETENTION_POLICY'"
  barman-cloud-backup-delete "${CLOUD[@]}" --dry-run -r "$RETENTION_POLICY" "$DEST" $s > "$OUT/retention-delete-dry-run.txt" 2>&1
  barman-cloud-backup-delete "${CLOUD[@]}" -v -r "$RETENTION_POLICY" "$DEST" $s > "$WORK/logs/delete-$s.log" 2>&1
  ckeys "$root" > "$OUT/retention-keys-after.txt"
  LC_ALL=C comm -23 "$OUT/retention-keys-before.txt" "$OUT/retention-keys-after.txt" > "$OUT/retention-deleted-keys.txt"
  [[ -z $(LC_ALL=C comm -13 "$OUT/retention-keys-before.txt" "$OUT/retention-keys-after.txt") ]] || die "$s: the delete added keys"
  grep -q "/base/$B/" "$OUT/retention-deleted-keys.txt" || die "$s: retention did not delete backup B"
  # The rule read from Barman's source must predict exactly what Barman deleted.
  s3tool retention-expect "$root" "$B" "$a_begin" "$a_end" "$c_begin" < "$OUT/retention-keys-before.txt" | LC_ALL=C sort > "$WORK/retention-expected.txt"
  cmp -s "$WORK/retention-expected.txt" "$OUT/retention-deleted-keys.txt" ||
    die "$s: Barman deleted other keys than the rule predicts: $(diff "$WORK/retention-expected.txt" "$OUT/retention-deleted-keys.txt" | tr '\n' ' ')"
  local holes deleted_wals deleted_history
  holes=$(s3tool holes < "$OUT/retention-keys-after.txt" | paste -sd, -)
  deleted_wals=$(s3tool wal-names segment < "$OUT/retention-deleted-keys.txt" | paste -sd' ' -)
  deleted_history=$(s3tool wal-names backup < "$OUT/retention-deleted-keys.txt" | paste -sd' ' -)
  [[ -n $holes ]] || die "$s: retention left no hole between archived segments"
  cat > "$WORK/facts-$s.env" <<EOF
RETENTION_BACKUP_A=$A
RETENTION_BACKUP_B=$B
RETENTION_BACKUP_C=$C
RETENTION_BEGIN_WAL_A=$a_begin
RETENTION_END_WAL_A=$a_end
RETENTION_BEGIN_WAL_B=$b_begin
RETENTION_END_WAL_B=$b_end
RETENTION_BEGIN_WAL_C=$c_begin
RETENTION_END_WAL_C=$c_end
RETENTION_POLICY=$RETENTION_POLICY
RETENTION_DELETED_KEYS=$(paste -sd' ' - < "$OUT/retention-deleted-keys.txt")
RETENTION_DELETED_WALS=$deleted_wals
RETENTION_DELETED_BACKUP_HISTORY=$deleted_history
RETENTION_HOLES=$holes
EOF
}

# pg-standalone: one segment lost between a keep:standalone backup and the next backup.
build_standalone() {
  local s=pg-standalone p=$PORT_STANDALONE d=$WORK/pg/standalone root=$SCEN_PREFIX/pg-standalone/
  local S N s_begin s_end n_begin n_end tli lost_key lost_wal holes
  echo "-z" > "$WORK/bin/compression-$s"
  scen_start "$d" $p $s
  segments $p 1
  S=$(scen_backup $p $s S)
  barman-cloud-backup-keep "${CLOUD[@]}" --target standalone "$DEST" $s "$S"
  segments $p 3
  N=$(scen_backup $p $s N "$S")
  segments $p 1
  stop "$d"
  { read -r s_begin s_end tli && read -r n_begin n_end tli; } < <(wals_of $s "$S" "$N")
  [[ -n $s_end && -n $n_begin ]] || die "$s: backup.info without WAL names"
  read -r lost_key lost_wal < <(ckeys "$root" | s3tool pick-lost "$s_end" "$n_begin")
  [[ -n $lost_wal ]] || die "$s: no segment to lose between $s_end and $n_begin"
  s3tool delete "$lost_key"
  holes=$(ckeys "$root" | s3tool holes | paste -sd, -)
  [[ $holes == "$lost_wal:$lost_wal" ]] || die "$s: holes $holes, expected only $lost_wal"
  cat > "$WORK/facts-$s.env" <<EOF
STANDALONE_BACKUP_S=$S
STANDALONE_BACKUP_N=$N
STANDALONE_BEGIN_WAL_S=$s_begin
STANDALONE_END_WAL_S=$s_end
STANDALONE_BEGIN_WAL_N=$n_begin
STANDALONE_END_WAL_N=$n_end
STANDALONE_LOST_WAL=$lost_wal
STANDALONE_LOST_KEY=$lost_key
STANDALONE_HOLES=$holes
EOF
}

# pg-damaged: D1 loses its data.tar; D2's begin_wal segment is cut to its first 100 bytes.
build_damaged() {
  local s=pg-damaged p=$PORT_DAMAGED d=$WORK/pg/damaged root=$SCEN_PREFIX/pg-damaged/
  local D1 D2 D3 begin2 end2 tli trunc_key original holes
  scen_start "$d" $p $s # plain WAL: a cut segment is visibly shorter than 16 MiB
  segments $p 1
  D1=$(scen_backup $p $s D1)
  segments $p 1
  D2=$(scen_backup $p $s D2 "$D1")
  segments $p 1
  D3=$(scen_backup $p $s D3 "$D2")
  segments $p 1
  stop "$d"
  read -r begin2 end2 tli < <(wals_of $s "$D2")
  [[ -n $begin2 ]] || die "$s: backup.info without WAL names"
  s3tool delete "${root}base/$D1/data.tar"
  trunc_key=$(ckeys "$root" | s3tool wal-key "$begin2")
  original=$(s3tool truncate "$trunc_key" 100)
  holes=$(ckeys "$root" | s3tool holes | paste -sd, -)
  [[ -z $holes ]] || die "$s: unexpected holes $holes"
  cat > "$WORK/facts-$s.env" <<EOF
DAMAGED_BACKUP_1=$D1
DAMAGED_BACKUP_2=$D2
DAMAGED_BACKUP_3=$D3
DAMAGED_BEGIN_WAL_2=$begin2
DAMAGED_END_WAL_2=$end2
DAMAGED_DELETED_KEY=${root}base/$D1/data.tar
DAMAGED_TRUNCATED_WAL=$begin2
DAMAGED_TRUNCATED_KEY=$trunc_key
DAMAGED_TRUNCATED_SIZE=100
DAMAGED_TRUNCATED_ORIGINAL_SIZE=$original
EOF
}

# Built in the background (separate clusters and scopes) while pg-main and pg-wal1m are built.
SCEN_PIDS=()
scen_cleanup() {
  (($? == 0)) && return
  local pid d
  for pid in "${SCEN_PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  for d in retention standalone damaged; do
    [[ -f $WORK/pg/$d/postmaster.pid ]] && as_pg "$PG/pg_ctl" -D "$WORK/pg/$d" -m immediate stop >/dev/null 2>&1 || true
  done
}
trap scen_cleanup EXIT
for server in "${SCEN_SERVERS[@]}"; do
  (
    DEST=$SCEN_DEST
    started=$(date +%s)
    case $server in
      pg-retention) build_retention ;;
      pg-standalone) build_standalone ;;
      pg-damaged) build_damaged ;;
    esac
    barman-cloud-backup-list "${CLOUD[@]}" --format json "$DEST" "$server" > "$OUT/backup-list-$server.json"
    barman-cloud-backup-list "${CLOUD[@]}" "$DEST" "$server" > "$OUT/backup-list-$server.txt"
    s3tool list "$SCEN_PREFIX/$server/" > "$OUT/objects-$server.tsv"
    log "$server: built in $(( $(date +%s) - started ))s"
  ) >"$WORK/logs/build-$server.log" 2>&1 &
  SCEN_PIDS+=($!)
done
log "scenario servers ${SCEN_SERVERS[*]}: building in the background"

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

# ---------------------------------------------------------------- scenario servers: what Barman says
for i in "${!SCEN_SERVERS[@]}"; do
  server=${SCEN_SERVERS[$i]}
  if ! wait "${SCEN_PIDS[$i]}"; then
    sed 's/^/  | /' "$WORK/logs/build-$server.log" >&2
    die "$server: build failed (log above, $WORK/logs/build-$server.log)"
  fi
  grep -h 'built in' "$WORK/logs/build-$server.log" >&2 || true
done
SCEN_PIDS=()
echo "SCENARIO_PREFIX=$SCEN_PREFIX" >> "$OUT/facts.env"
for server in "${SCEN_SERVERS[@]}"; do cat "$WORK/facts-$server.env" >> "$OUT/facts.env"; done
echo "$HASH" > "$MARKER"
log "done: $(wc -l < "$OUT/objects-pg-main.tsv") objects for pg-main, $(wc -l < "$OUT/objects-pg-wal1m.tsv") for pg-wal1m; scenarios: $(for s in "${SCEN_SERVERS[@]}"; do printf '%s %s, ' "$s" "$(wc -l < "$OUT/objects-$s.tsv")"; done)"
