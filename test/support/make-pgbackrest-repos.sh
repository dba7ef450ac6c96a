#!/usr/bin/env bash
# make-pgbackrest-repos.sh — builds viewer's real pgBackRest test repository: real PostgreSQL 15
# clusters archive WAL and back up with Debian's pgBackRest 2.45 into one repository root holding
# two stanzas, then the repository is copied into the test Swift store (swift-s3.sh must be
# running) as s3://barman/pgbackrest/<relative path>. Writes what pgBackRest itself reports about
# it to $OUT (info-<stanza>.json, verify-main.txt, objects.tsv, backups.tsv, facts.env) for tests
# to assert against.
#
# Why a posix build, then an upload: pgBackRest 2.45 speaks S3 only over TLS (an http:// endpoint
# is accepted from 2.58), and the test store is plain http on 127.0.0.1. So the repository is
# written with repo1-type=posix and every regular file is then put as one object whose key is its
# path relative to the repository root, under the prefix. That is exactly the key layout
# pgBackRest's S3 driver writes (the same storage paths, one object per file); what an object
# store cannot hold is left out as it would be there: the `latest` symlink and empty directories.
# The posix tree stays on disk ($OUT/repo) so tests can copy the same repository into Azurite and
# the GCS emulator.
#
# Stanza `main` (16 MiB segments; the stanza is the server scope):
#   timeline 1: pgbench data; WAL gz; full F1 (gz), diff D1, incr I1; WAL switched to zst;
#   full F2 (zst, repo1-bundle=y), diff D2, incr I2 (bundled, zst); restore point "incident";
#   WAL past it on timeline 1. Then a point-in-time restore to "incident" (--type=name,
#   --target-action=promote) onto timeline 2; WAL gz on timeline 2; full F3 (gz, not bundled)
#   and incr I3 on timeline 2. Then `expire --repo1-retention-full=2` expires F1's set (F1, D1,
#   I1: gone from backup.info and the backup directory, WAL before F2's archive start removed;
#   their history manifests stay in backup.history). Then a full backup is interrupted: archiving
#   of the segments after the current one is held back (the archive command fails for them while
#   a flag file exists) so the backup cannot finish, its copy is slowed (zst level 19), and its
#   process group is killed with SIGKILL as soon as its label directory holds
#   backup.manifest.copy: it has no backup.manifest; the file it was writing is removed (an
#   object store never shows an unfinished upload). Finally (after the build) one timeline-1
#   WAL segment between F2's archive stop and D2's archive start, with both neighbours archived,
#   is deleted; `pgbackrest verify` is run on the result and what it says is recorded.
# Stanza `encrypted` (its own small cluster; repo1-cipher-type=aes-256-cbc for this stanza only,
#   in the same repository root): WAL gz; full (zst, bundled), diff, incr.
#
# Idempotent: a marker holding this script's hash skips the build when nothing changed.
# Env: S3_ENDPOINT (http://127.0.0.1:18080) ACCESS SECRET WORK (/var/tmp/viewer-test/pgbackrest)
set -Eeuo pipefail

S3_ENDPOINT=${S3_ENDPOINT:-http://127.0.0.1:18080}
ACCESS=${ACCESS:-test:tester}
SECRET=${SECRET:-testing}
WORK=${WORK:-/var/tmp/viewer-test/pgbackrest}
BUCKET=barman
PREFIX=pgbackrest
PG=/usr/lib/postgresql/15/bin
PORT_MAIN=55440 PORT_ENC=55441
STANZA_MAIN=main STANZA_ENC=encrypted
CIPHER_TYPE=aes-256-cbc
CIPHER_PASS=viewer-test-passphrase
OUT=$WORK/out
REPO=$OUT/repo
CONF=$WORK/pgbackrest.conf
MARKER=$WORK/.built
HASH=$(sha256sum "$0" | cut -c1-16)
T0=$(date +%s)
log() { printf '[make-pgbackrest-repos %3ss] %s\n' "$(( $(date +%s) - T0 ))" "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }
trap 'log "failed at line $LINENO: $BASH_COMMAND"' ERR

if [[ -f $MARKER && $(cat "$MARKER") == "$HASH" && -f $OUT/facts.env ]]; then
  log "repository already built by this version; nothing to do"
  exit 0
fi

export AWS_ACCESS_KEY_ID=$ACCESS AWS_SECRET_ACCESS_KEY=$SECRET AWS_DEFAULT_REGION=us-east-1
as_pg() { runuser -u postgres -- "$@"; }

# ---------------------------------------------------------------- clean slate
stop_all() {
  local d
  for d in main encrypted; do
    [[ -f $WORK/pg/$d/postmaster.pid ]] && as_pg "$PG/pg_ctl" -D "$WORK/pg/$d" -m immediate stop >/dev/null 2>&1 || true
  done
}
stop_all
rm -rf "$WORK"
mkdir -p "$WORK/pg/sock" "$WORK/bin" "$WORK/logs" "$WORK/pgbr/log" "$WORK/pgbr/lock" "$WORK/pgbr/spool" "$REPO"
chown -R postgres:postgres "$WORK/pg" "$WORK/pgbr" "$REPO"
chmod 755 "$WORK" "$WORK/bin" "$OUT"
cd "$WORK" # commands run as postgres inherit the working directory; the caller's may be private

INTERRUPTED_PGID= ENC_PID=
cleanup() {
  (($? == 0)) && return
  [[ -n $INTERRUPTED_PGID ]] && kill -9 -- "-$INTERRUPTED_PGID" 2>/dev/null || true
  [[ -n $ENC_PID ]] && kill "$ENC_PID" 2>/dev/null && wait "$ENC_PID" 2>/dev/null || true
  stop_all
}
trap cleanup EXIT
trap 'exit 143' TERM INT # so that cleanup runs when prepare.sh stops this build

cat > "$CONF" <<EOF
[global]
repo1-type=posix
repo1-path=$REPO
repo1-retention-full=3
lock-path=$WORK/pgbr/lock
log-path=$WORK/pgbr/log
spool-path=$WORK/pgbr/spool
log-level-console=warn
log-level-file=detail
start-fast=y
archive-timeout=60
process-max=1

[$STANZA_MAIN]
pg1-path=$WORK/pg/main
pg1-port=$PORT_MAIN
pg1-socket-path=$WORK/pg/sock

[$STANZA_ENC]
pg1-path=$WORK/pg/encrypted
pg1-port=$PORT_ENC
pg1-socket-path=$WORK/pg/sock
repo1-cipher-type=$CIPHER_TYPE
repo1-cipher-pass=$CIPHER_PASS
EOF
chmod 644 "$CONF"
pgbr() { as_pg pgbackrest --config="$CONF" "$@"; }

# archive_command: pgBackRest's archive-push with the compression type read per call from a file
# (so it changes without a reload). While the stanza's hold file exists, every WAL file whose name
# sorts after the segment named in it fails to archive (PostgreSQL keeps it and retries).
for s in $STANZA_MAIN $STANZA_ENC; do
  cat > "$WORK/bin/pgbackrest-archive-push-$s" <<EOF
#!/bin/bash
hold='$WORK/bin/hold-$s'
[[ -e \$hold && \${1##*/} > \$(cat "\$hold") ]] && exit 1
exec pgbackrest --config='$CONF' --stanza=$s --compress-type="\$(cat '$WORK/bin/compress-$s')" archive-push "\$1"
EOF
  echo gz > "$WORK/bin/compress-$s"
done
chmod 755 "$WORK"/bin/pgbackrest-archive-push-*
chmod 644 "$WORK"/bin/compress-*

init_cluster() { # name port
  local dir=$WORK/pg/$1
  as_pg "$PG/initdb" -D "$dir" -A trust -U postgres >"$WORK/logs/initdb-$1.log"
  cat >> "$dir/postgresql.auto.conf" <<EOF
port = $2
listen_addresses = ''
unix_socket_directories = '$WORK/pg/sock'
wal_level = replica
archive_mode = on
archive_command = '$WORK/bin/pgbackrest-archive-push-$1 %p'
fsync = off
wal_recycle = off
EOF
}
start() { as_pg "$PG/pg_ctl" -D "$WORK/pg/$1" -l "$WORK/pg/$1.log" -w start >/dev/null; }
stop() { as_pg "$PG/pg_ctl" -D "$WORK/pg/$1" -m fast -w stop >/dev/null; }
sql() { as_pg "$PG/psql" -h "$WORK/pg/sock" -p "$1" -U postgres -d postgres -qAtX -c "$2"; }
ready_count() { sql "$1" "select count(*) from pg_ls_archive_statusdir() where name like '%.ready'"; }
# Switch to a new segment and wait until the archiver has nothing left to send, COUNT times.
switch() { # port [count]
  local i
  for ((i = 0; i < ${2:-1}; i++)); do
    sql "$1" "select pg_switch_wal()" >/dev/null
    for _ in $(seq 300); do
      [[ $(ready_count "$1") == 0 ]] && break
      sleep 0.05
    done
    [[ $(ready_count "$1") == 0 ]] || die "archiving stalled on port $1"
  done
}
work() { as_pg "$PG/pgbench" -h "$WORK/pg/sock" -p "$1" -U postgres -t "${2:-200}" postgres >/dev/null 2>&1; }
# Labels of the stanza's current backups, oldest first (from backup.info through pgBackRest).
labels() { pgbr --stanza="$1" info --output=json | /usr/bin/python3 -c 'import sys, json; print(" ".join(b["label"] for b in json.load(sys.stdin)[0]["backup"]))'; }
newest() { labels "$1" | tr ' ' '\n' | tail -n 1; }
backup() { # stanza name type [options...]: takes a backup; prints its label
  local stanza=$1 name=$2 type=$3 label
  shift 3
  log "$stanza: backup $name ($type${*:+ $*})"
  pgbr --stanza="$stanza" backup --type="$type" "$@" >"$WORK/logs/backup-$stanza-$name.log" 2>&1 ||
    die "$stanza: backup $name failed: $(cat "$WORK/logs/backup-$stanza-$name.log")"
  label=$(newest "$stanza")
  [[ $label == *"$(case $type in full) echo F ;; diff) echo D ;; incr) echo I ;; esac)" ]] ||
    die "$stanza: backup $name: newest label $label is not a $type"
  echo "$label"
}

# ---------------------------------------------------------------- stanza encrypted (background)
# A small cluster of its own (no pgbench data), built while stanza main is built.
build_encrypted() {
  local s=$STANZA_ENC p=$PORT_ENC F D I
  log "$s: initdb and start"
  init_cluster $s $p
  start $s
  pgbr --stanza=$s stanza-create >"$WORK/logs/stanza-create-$s.log" 2>&1
  sql $p "create table t (x int)" >/dev/null
  switch $p
  F=$(backup $s F full --compress-type=zst --repo1-bundle=y)
  sql $p "insert into t select generate_series(1, 10000)" >/dev/null
  switch $p
  D=$(backup $s D diff --repo1-bundle=y)
  sql $p "insert into t select generate_series(1, 10000)" >/dev/null
  switch $p
  I=$(backup $s I incr --repo1-bundle=y)
  switch $p
  stop $s
  pgbr --stanza=$s info --output=json > "$OUT/info-$s.json"
  pgbr --stanza=$s info > "$OUT/info-$s.txt"
  cat > "$WORK/facts-$s.env" <<EOF
ENCRYPTED_FULL=$F
ENCRYPTED_DIFF=$D
ENCRYPTED_INCR=$I
EOF
  printf '%s\t%s\t%s\n' "$F" zst y "$D" zst y "$I" zst y > "$WORK/compression-$s.tsv"
}
(build_encrypted) >"$WORK/logs/build-$STANZA_ENC.log" 2>&1 &
ENC_PID=$!

# ---------------------------------------------------------------- stanza main, timeline 1
S=$STANZA_MAIN P=$PORT_MAIN
log "$S: initdb, start, pgbench data, stanza-create"
init_cluster $S $P
start $S
as_pg "$PG/pgbench" -h "$WORK/pg/sock" -p $P -U postgres -i -s 1 -q postgres >/dev/null 2>&1
pgbr --stanza=$S stanza-create >"$WORK/logs/stanza-create-$S.log" 2>&1
switch $P 2
F1=$(backup $S F1 full --compress-type=gz)
work $P; switch $P
D1=$(backup $S D1 diff)
work $P; switch $P
I1=$(backup $S I1 incr)
work $P; switch $P
echo zst > "$WORK/bin/compress-$S"
switch $P 2
F2=$(backup $S F2 full --compress-type=zst --repo1-bundle=y)
# Three segments of their own between F2's stop and D2's start (a switch with nothing written
# since the last one is a no-op, so each follows work): the middle one is deleted below, and
# neither of its neighbours is a backup's archive start or stop, so the hole cannot have the
# shape pgBackRest's retention leaves (an island's end right before, a backup's start right after).
for _ in 1 2 3; do work $P; switch $P; done
D2=$(backup $S D2 diff --repo1-bundle=y)
work $P; switch $P
I2=$(backup $S I2 incr --repo1-bundle=y)
work $P; switch $P
sql $P "select pg_create_restore_point('incident')" >/dev/null
sql $P "create table after_incident as select 1 as x" >/dev/null
work $P 100; switch $P 2 # the old timeline goes on past the restore point
stop $S
pgbr --stanza=$S info --output=json > "$OUT/info-$S-timeline-1.json"

# ---------------------------------------------------------------- point-in-time restore: timeline 2
log "$S: restore to 'incident' (--type=name, promote) onto timeline 2"
find "$WORK/pg/$S" -mindepth 1 -delete
pgbr --stanza=$S restore --type=name --target=incident --target-action=promote >"$WORK/logs/restore-$S.log" 2>&1
echo gz > "$WORK/bin/compress-$S"
start $S
for _ in $(seq 300); do [[ $(sql $P "select pg_is_in_recovery()") == f ]] && break; sleep 0.1; done
[[ $(sql $P "select pg_is_in_recovery()") == f ]] || die "$S: the restored cluster did not promote"
[[ $(sql $P "select count(*) from pg_class where relname = 'after_incident'") == 0 ]] || die "$S: recovery went past 'incident'"
sql $P "checkpoint" >/dev/null
[[ $(sql $P "select timeline_id from pg_control_checkpoint()") == 2 ]] || die "$S: not on timeline 2 after promotion"
work $P; switch $P 2
F3=$(backup $S F3 full --compress-type=gz)
work $P; switch $P
I3=$(backup $S I3 incr)
work $P; switch $P
pgbr --stanza=$S info --output=json > "$OUT/info-$S-before-expire.json"

# ---------------------------------------------------------------- expire F1's set
log "$S: expire --repo1-retention-full=2"
pgbr --stanza=$S expire --repo1-retention-full=2 --log-level-console=info >"$OUT/expire-$S.txt" 2>&1
for l in $F1 $D1 $I1; do
  [[ ! -e $REPO/backup/$S/$l ]] || die "$S: expire left $l"
  compgen -G "$REPO/backup/$S/backup.history/*/$l.manifest.gz" >/dev/null || die "$S: no history manifest for $l"
done

# ---------------------------------------------------------------- an interrupted backup
# pgBackRest 2.45 switches WAL at backup start and waits for that segment in the archive before
# it writes backup.manifest.copy; at the end it waits for the stop segment. Archiving of every
# segment after the current one is held back, so the start passes and the end can never be
# reached: the backup cannot complete, whenever the kill lands. The copy is slowed (zst level
# 19) so the kill lands while files are being copied (checked in pgBackRest's log).
log "$S: a full backup killed with SIGKILL once backup.manifest.copy exists"
known=$(ls "$REPO/backup/$S")
log_lines=$(wc -l < "$WORK/pgbr/log/$S-backup.log")
# (+ 1: right after a switch the position is the first byte of the new segment, which
# pg_walfile_name names by the segment before it)
sql $P "select pg_walfile_name(pg_current_wal_insert_lsn() + 1)" > "$WORK/bin/hold-$S"
setsid runuser -u postgres -- pgbackrest --config="$CONF" --stanza=$S backup --type=full --compress-type=zst --compress-level=19 \
  >"$WORK/logs/backup-$S-interrupted.log" 2>&1 &
INTERRUPTED_PGID=$!
INTERRUPTED=
for _ in $(seq 1000); do
  for d in "$REPO/backup/$S"/*F; do
    l=$(basename "$d")
    grep -qxF "$l" <<<"$known" && continue
    [[ -f $d/backup.manifest.copy ]] && INTERRUPTED=$l && break 2
  done
  sleep 0.01
done
# setsid made the backup a process group of its own (a background job of this shell is no group
# leader, so setsid execs without a fork): its pid is the group id. Checked before the kill.
[[ $(cut -d' ' -f5 "/proc/$INTERRUPTED_PGID/stat") == "$INTERRUPTED_PGID" ]] || die "$S: the interrupted backup is not a process group"
kill -9 -- "-$INTERRUPTED_PGID"
{ wait "$INTERRUPTED_PGID"; } 2>/dev/null || true # (the braces keep bash from reporting the kill)
INTERRUPTED_PGID=
[[ -n $INTERRUPTED ]] || die "$S: the interrupted backup never wrote backup.manifest.copy"
[[ -f $REPO/backup/$S/$INTERRUPTED/backup.manifest.copy && ! -e $REPO/backup/$S/$INTERRUPTED/backup.manifest ]] ||
  die "$S: $INTERRUPTED is not interrupted (backup.manifest exists)"
tail -n +$((log_lines + 1)) "$WORK/pgbr/log/$S-backup.log" > "$OUT/backup-$S-interrupted.log"
grep -q 'backup stop archive' "$OUT/backup-$S-interrupted.log" && die "$S: the interrupted backup reached pg_backup_stop"
# pgBackRest 2.45 writes a backup's files in place on posix, so the file it was compressing when
# killed is there, cut short. An object store shows an object only once its upload completed, so
# such files (those pgBackRest did not log as copied) are removed: the tree then holds what an
# S3 repository would after the same kill.
PARTIAL=()
while IFS= read -r -d '' f; do
  rel=${f#"$REPO/backup/$S/$INTERRUPTED/pg_data/"}
  grep -qF "backup file $WORK/pg/$S/${rel%.zst} (" "$OUT/backup-$S-interrupted.log" && continue
  PARTIAL+=("backup/$S/$INTERRUPTED/pg_data/$rel")
  rm "$f"
done < <(find "$REPO/backup/$S/$INTERRUPTED/pg_data" -type f -print0)
log "$S: interrupted backup $INTERRUPTED killed; removed the file it was writing: ${PARTIAL[*]:-none}"
rm -f "$WORK/bin/hold-$S"
switch $P
stop $S
pgbr --stanza=$S info --output=json > "$OUT/info-$S.json"
pgbr --stanza=$S info > "$OUT/info-$S.txt"
grep -q "\"$INTERRUPTED\"" "$OUT/info-$S.json" && die "$S: the interrupted backup is in info"

# ---------------------------------------------------------------- wait for stanza encrypted
if ! wait "$ENC_PID"; then
  sed 's/^/  | /' "$WORK/logs/build-$STANZA_ENC.log" >&2
  die "$STANZA_ENC: build failed (log above)"
fi
grep -h '' "$WORK/logs/build-$STANZA_ENC.log" | sed 's/^/  | /' >&2 || true

# ---------------------------------------------------------------- facts from the repository
# Per backup: stanza, label, kind, compression and bundling (from its manifest: backup.manifest,
# backup.manifest.copy for the interrupted one, the history manifest for expired ones; the
# encrypted stanza's manifests cannot be read without decryption, so what was asked for is
# written), archive start/stop and timeline (pgBackRest's info, before the expire for the expired).
/usr/bin/python3 - "$REPO" "$OUT" "$S" "$STANZA_ENC" "$INTERRUPTED" "$F1 $D1 $I1" "$WORK/compression-$STANZA_ENC.tsv" > "$OUT/backups.tsv" <<'EOF'
import glob, gzip, json, os, sys
repo, out, main, enc, interrupted, expired, enc_compression = sys.argv[1:8]
expired = expired.split()
def manifest_options(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        kv = dict(l.rstrip("\n").split("=", 1) for l in f if "=" in l and not l.startswith("["))
    return json.loads(kv["option-compress-type"]), "y" if json.loads(kv.get("backup-bundle", "false")) else "n"
def info(name):
    with open(os.path.join(out, name)) as f:
        return {b["label"]: b for b in json.load(f)[0]["backup"]}
rows = []
now, before = info(f"info-{main}.json"), info(f"info-{main}-before-expire.json")
for label, b in before.items():
    kind = "expired" if label in expired else b["type"]
    if label in expired:
        assert label not in now, label
        path = glob.glob(os.path.join(repo, "backup", main, "backup.history", "*", label + ".manifest.gz"))[0]
    else:
        assert now[label] == b, label
        path = os.path.join(repo, "backup", main, label, "backup.manifest")
    compress, bundle = manifest_options(path)
    rows.append((main, label, kind, b["type"], compress, bundle, b["archive"]["start"], b["archive"]["stop"]))
compress, bundle = manifest_options(os.path.join(repo, "backup", main, interrupted, "backup.manifest.copy"))
rows.append((main, interrupted, "interrupted", "full", compress, bundle, "", ""))
asked = {l.split("\t")[0]: l.split("\t")[1:] for l in open(enc_compression).read().splitlines()}
for label, b in info(f"info-{enc}.json").items():
    rows.append((enc, label, b["type"], b["type"], *asked[label], b["archive"]["start"], b["archive"]["stop"]))
print("stanza\tlabel\tkind\ttype\tcompress\tbundle\tarchive_start\tarchive_stop")
for r in rows:
    print("\t".join(r))
EOF

# The timeline switch: 00000002.history (plain text in the unencrypted stanza).
ARCH=$REPO/archive/$S/15-1
[[ -f $ARCH/00000002.history ]] || die "$S: no 00000002.history"
cp "$ARCH/00000002.history" "$OUT/history-2.txt"
read -r _ SWITCH_LSN _ < "$OUT/history-2.txt"
FIRST_TL2=$(cd "$ARCH" && ls 0000000200000000/ | sort | head -n 1 | cut -c1-24)

# ---------------------------------------------------------------- the lost segment
# A timeline-1 segment whose archived neighbours both lie strictly between F2's archive stop and
# D2's archive start (the middle one of those), deleted from the repository.
arch_of() { awk -F'\t' -v l="$1" '$2 == l { print $7, $8 }' "$OUT/backups.tsv"; }
read -r _ F2_STOP < <(arch_of "$F2")
read -r D2_START _ < <(arch_of "$D2")
read -r LOST_KEY LOST_WAL < <(cd "$REPO" && /usr/bin/python3 - "archive/$S/15-1/0000000100000000" "$F2_STOP" "$D2_START" <<'EOF'
import os, re, sys
d, after, before = sys.argv[1:4]
seg = {}
for n in os.listdir(d):
    m = re.fullmatch(r"([0-9A-F]{24})-[0-9a-f]{40}(\.\w+)?", n)
    if m:
        seg[m.group(1)] = f"{d}/{n}"
names = sorted(seg)
fits = [n for i, n in enumerate(names) if 0 < i < len(names) - 1 and after < names[i - 1] and names[i + 1] < before
        and int(names[i - 1], 16) == int(n, 16) - 1 and int(names[i + 1], 16) == int(n, 16) + 1]
assert fits, (after, before, names)
n = fits[len(fits) // 2]
print(seg[n], n)
EOF
)
[[ -n ${LOST_WAL:-} ]] || die "$S: no segment to delete between $F2_STOP and $D2_START"
rm "$REPO/$LOST_KEY"
log "$S: deleted $LOST_WAL ($LOST_KEY)"

# ---------------------------------------------------------------- what verify says about it
set +e
pgbr --stanza=$S verify --output=text > "$OUT/verify-$S.txt" 2>&1
VERIFY_EXIT=$?
pgbr --stanza=$S verify --output=text --verbose --log-level-console=detail > "$OUT/verify-$S-detail.txt" 2>&1
VERIFY_DETAIL_EXIT=$?
set -e
log "$S: verify exited $VERIFY_EXIT ($(wc -c < "$OUT/verify-$S.txt") bytes of output)"

# ---------------------------------------------------------------- into the store
log "upload to s3://$BUCKET/$PREFIX/"
/usr/bin/python3 - "$S3_ENDPOINT" "$BUCKET" "$PREFIX/" "$REPO" > "$OUT/objects.tsv" <<'EOF'
import os, sys, boto3
from botocore.config import Config
from concurrent.futures import ThreadPoolExecutor
endpoint, bucket, prefix, root = sys.argv[1:5]
s3 = boto3.client("s3", endpoint_url=endpoint, config=Config(s3={"addressing_style": "path"}, max_pool_connections=16))
def listing():
    return [o for p in s3.get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix=prefix) for o in p.get("Contents", [])]
old = [o["Key"] for o in listing()]
for i in range(0, len(old), 1000):
    s3.delete_objects(Bucket=bucket, Delete={"Objects": [{"Key": k} for k in old[i:i + 1000]], "Quiet": True})
files = {}
for d, dirs, names in os.walk(root):
    for n in names:
        path = os.path.join(d, n)
        if os.path.islink(path) or not os.path.isfile(path):
            continue  # `latest` is a symlink: an object store has none
        files[prefix + os.path.relpath(path, root)] = path
def put(item):
    key, path = item
    with open(path, "rb") as f:
        s3.put_object(Bucket=bucket, Key=key, Body=f.read())
with ThreadPoolExecutor(16) as pool:
    list(pool.map(put, sorted(files.items())))
listed = listing()
got = {o["Key"]: o["Size"] for o in listed}
want = {k: os.path.getsize(p) for k, p in files.items()}
assert got == want, (set(got) ^ set(want))
for o in listed:
    print(f"{o['Key']}\t{o['Size']}\t{o['LastModified'].isoformat()}")
EOF
grep -q "	" "$OUT/objects.tsv" || die "nothing uploaded"
grep -qF "$PREFIX/$LOST_KEY	" "$OUT/objects.tsv" && die "the lost segment is in the store"

cat > "$OUT/facts.env" <<EOF
S3_ENDPOINT=$S3_ENDPOINT
BUCKET=$BUCKET
PREFIX=$PREFIX
POSIX_ROOT=$REPO
STANZAS=$S $STANZA_ENC
MAIN_STANZA=$S
MAIN_ARCHIVE_ID=15-1
MAIN_FULL=$F2 $F3
MAIN_DIFF=$D2
MAIN_INCR=$I2 $I3
MAIN_BUNDLED=$F2 $D2 $I2
MAIN_EXPIRED=$F1 $D1 $I1
MAIN_INTERRUPTED=$INTERRUPTED
MAIN_INTERRUPTED_PARTIAL_REMOVED=${PARTIAL[*]:-}
MAIN_TIMELINE_1=$F2 $D2 $I2
MAIN_TIMELINE_2=$F3 $I3
MAIN_RESTORE_POINT=incident
MAIN_SWITCH_LSN=$SWITCH_LSN
MAIN_FIRST_TIMELINE_2_WAL=$FIRST_TL2
DELETED_WAL=$LOST_WAL
DELETED_KEY=$PREFIX/$LOST_KEY
VERIFY_EXIT=$VERIFY_EXIT
VERIFY_DETAIL_EXIT=$VERIFY_DETAIL_EXIT
CIPHER_STANZA=$STANZA_ENC
CIPHER_TYPE=$CIPHER_TYPE
CIPHER_PASS=$CIPHER_PASS
EOF
cat "$WORK/facts-$STANZA_ENC.env" >> "$OUT/facts.env"
# System identifiers exactly (info's JSON holds them as 64-bit integers, beyond a JS number).
for s in $S $STANZA_ENC; do
  printf '%s_SYSTEM_ID=%s\n' "${s^^}" "$(/usr/bin/python3 -c 'import sys, json; print(json.load(open(sys.argv[1]))[0]["db"][0]["system-id"])' "$OUT/info-$s.json")" >> "$OUT/facts.env"
done
cp "$CONF" "$OUT/pgbackrest.conf"
echo "$HASH" > "$MARKER"
log "done: $(wc -l < "$OUT/objects.tsv") objects under s3://$BUCKET/$PREFIX/"
