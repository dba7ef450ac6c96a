#!/usr/bin/env bash
# swift-s3.sh — viewer's real S3-compatible object store for integration tests:
# OpenStack Swift 2.30 from Debian bookworm packages, single node ("Swift All In
# One"), 1 replica, s3api + tempauth middleware, everything bound to 127.0.0.1.
#
# Usage: swift-s3.sh [start|stop|status|clean]        (default: start)
#   start   install packages if missing; stop this script's previous instance
#           for DATA_DIR (by PID file); with RESET=1 wipe the data; write configs,
#           build rings, start memcached + account/container/object/proxy
#           servers, wait until healthy, create BUCKETS, print endpoint + PIDs.
#           Idempotent: running it again restarts from scratch.
#   stop    stop only the PIDs this script recorded in $DATA_DIR/run/*.pid (each
#           checked against its /proc cmdline first). Data is kept.
#   status  PIDs, RSS and health of this script's instance.
#   clean   stop, then delete DATA_DIR.
#
# Parameters (env):
#   PORT=18080            S3 endpoint (proxy). Backends use PORT+1 (container),
#                         PORT+2 (account), PORT+3 (object); memcached PORT+4.
#   DATA_DIR=/var/tmp/viewer-test/swift  configs + rings (etc/), objects (srv/), PIDs (run/),
#                         logs (log/), s3.env. Filesystem needs user xattrs (ext4/xfs ok).
#   ACCESS=test:tester    S3 access key id. tempauth requires "<account>:<user>"
#                         ([A-Za-z0-9_.~-] on each side of the colon).
#   SECRET=testing        S3 secret ([A-Za-z0-9/+=_.~-]).
#   BUCKETS=              space-separated buckets to create (S3 naming rules).
#   EXTRA_USERS=          more tempauth users, space-separated "acct:user=secret"
#                         (no rights: S3 calls get AccessDenied) or
#                         "acct:user=secret=.admin" (own account = own buckets).
#   RESET=1               wipe objects on start (0 = keep them across restarts).
#   LOG_LEVEL=WARNING     INFO logs every request to $DATA_DIR/log/*.log.
#   WORKERS=0             Swift 'workers' (0 = one process per server, no fork;
#                         N > 0 forks N children per server: more RAM, not faster here).
#   PART_POWER=8  HEALTH_TIMEOUT=60  SKIP_INSTALL=0
#
# Timing (2 cores): ~4-7 s from nothing to healthy; ~250 MiB RSS in total.
# Client settings: endpoint http://127.0.0.1:$PORT, region us-east-1, path-style.
# Differences from AWS seen with SDK v3 / boto3 (see test/support/README.md):
#  - unknown access key -> 403 SignatureDoesNotMatch (not InvalidAccessKeyId);
#    unsigned requests -> Swift's own 412 "Bad URL" (not S3 XML AccessDenied)
#  - DeleteObjects needs Content-MD5 (boto3 sends it; SDK v3 sends only a CRC32)
#  - LastModified is rounded UP to the whole second; ListBuckets CreationDate is
#    always 2009-02-03T16:45:09Z; ContinuationToken = base64(last key); a bad
#    token -> 500 InternalError; bucket names are per access-key account
# The only file read from /etc/swift is /etc/swift/swift.conf (hash path
# prefix/suffix + storage policies; its path is hard-coded in Swift). The
# package ships one; this script writes it only if it is missing.
set -Eeuo pipefail

CMD=${1:-start}
PORT=${PORT:-18080}
DATA_DIR=${DATA_DIR:-/var/tmp/viewer-test/swift}
ACCESS=${ACCESS:-test:tester}
SECRET=${SECRET:-testing}
BUCKETS=${BUCKETS:-}
EXTRA_USERS=${EXTRA_USERS:-}
RESET=${RESET:-1}
LOG_LEVEL=${LOG_LEVEL:-WARNING}
WORKERS=${WORKERS:-0}
PART_POWER=${PART_POWER:-8}
HEALTH_TIMEOUT=${HEALTH_TIMEOUT:-60}
SKIP_INSTALL=${SKIP_INSTALL:-0}

PACKAGES=(swift swift-proxy swift-account swift-container swift-object python3-swift memcached curl)
PY=/usr/bin/python3
T0=$(date +%s%N)
log() { printf '[%6.2fs] %s\n' "$(( ($(date +%s%N) - T0) / 10000000 ))e-2" "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

[[ $DATA_DIR == /* && $DATA_DIR != / ]] || die "DATA_DIR must be an absolute path"
DATA_DIR=${DATA_DIR%/}
ETC=$DATA_DIR/etc SRV=$DATA_DIR/srv RUN=$DATA_DIR/run LOGS=$DATA_DIR/log
MARKER=$DATA_DIR/.viewer-swift-s3
[[ $PORT =~ ^[0-9]+$ ]] && ((PORT > 0 && PORT + 4 < 65536)) || die "bad PORT=$PORT"
P_PROXY=$PORT P_CONT=$((PORT + 1)) P_ACCT=$((PORT + 2)) P_OBJ=$((PORT + 3)) P_MC=$((PORT + 4))
ENDPOINT="http://127.0.0.1:$P_PROXY"
SERVERS=(account container object proxy)

# ------------------------------------------------------------------ process helpers
alive() { # pid -> running and not a zombie
  local st
  [[ -r /proc/$1/stat ]] || return 1
  st=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1) || return 1
  [[ -n $st && $st != Z ]]
}
ours() { # name pid -> the process is the one this script started for DATA_DIR
  local cl
  cl=$(tr '\0' ' ' < "/proc/$2/cmdline" 2>/dev/null) || return 1
  case $1 in
    memcached) [[ $cl == *memcached* && $cl == *"$(cat "$RUN/memcached.port" 2>/dev/null || echo none)"* ]] ;;
    *) [[ $cl == *"swift-$1-server $ETC/$1-server.conf"* ]] ;;
  esac
}
stop_own() {
  local f name pid pids=() names=() i
  [[ -d $RUN ]] || return 0
  for f in "$RUN"/*.pid; do
    [[ -e $f ]] || continue
    name=$(basename "$f" .pid); pid=$(cat "$f" 2>/dev/null || true)
    if [[ $pid =~ ^[0-9]+$ ]] && alive "$pid" && ours "$name" "$pid"; then
      log "stopping $name (pid $pid)"
      kill -TERM "$pid" 2>/dev/null || true
      pids+=("$pid"); names+=("$name")
    fi
    rm -f "$f"
  done
  for i in "${!pids[@]}"; do
    for _ in $(seq 100); do alive "${pids[$i]}" || break; sleep 0.1; done
    if alive "${pids[$i]}" && ours "${names[$i]}" "${pids[$i]}"; then
      log "${names[$i]} (pid ${pids[$i]}) ignored SIGTERM for 10 s; SIGKILL"
      kill -KILL "${pids[$i]}" 2>/dev/null || true
    fi
  done
  rm -f "$RUN/memcached.port"
}
port_busy() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
spawn() { # name logfile cmd... ; detached (own session), PID via the pid file
  local name=$1 logf=$2; shift 2
  rm -f "$RUN/$name.pid"
  setsid bash -c 'echo $$ > "$0"; exec "$@"' "$RUN/$name.pid" "$@" > "$logf" 2>&1 < /dev/null &
  for _ in $(seq 50); do [[ -s $RUN/$name.pid ]] && return 0; sleep 0.02; done
  die "$name did not start"
}
pid_of() { cat "$RUN/$1.pid" 2>/dev/null || true; }
show_pids() {
  local n pid out=()
  for n in memcached "${SERVERS[@]}"; do
    pid=$(pid_of "$n"); [[ -n $pid ]] && alive "$pid" && out+=("$n:$pid")
  done
  echo "${out[*]}"
}
rss_report() {
  local n pid total=0 kb
  for n in memcached "${SERVERS[@]}"; do
    pid=$(pid_of "$n"); [[ -n $pid ]] && alive "$pid" || continue
    # the process plus its forked workers (WORKERS > 0)
    kb=$(ps -o rss= -p "$pid" --ppid "$pid" | awk '{s += $1} END {print s + 0}'); total=$((total + kb))
    printf '  %-10s pid %-7s RSS %6d KiB\n' "$n" "$pid" "$kb"
  done
  printf '  total RSS %d MiB\n' $((total / 1024))
}

# ------------------------------------------------------------------ install
install_packages() {
  local need=() p added_policy=0
  for p in "${PACKAGES[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || need+=("$p"); done
  ((${#need[@]})) || return 0
  [[ $(id -u) -eq 0 ]] || die "packages missing (${need[*]}); run as root to install them"
  # keep the packages' init scripts from starting the stock services (proxy on
  # 0.0.0.0:8080 from /etc/swift, memcached on 11211) on machines without policy-rc.d
  if [[ ! -e /usr/sbin/policy-rc.d ]]; then
    printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d; chmod 755 /usr/sbin/policy-rc.d; added_policy=1
  fi
  log "apt-get install ${need[*]}"
  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null; } ||
    { ((added_policy)) && rm -f /usr/sbin/policy-rc.d; die "apt-get install failed"; }
  ((added_policy)) && rm -f /usr/sbin/policy-rc.d
  return 0
}

# ------------------------------------------------------------------ config
write_configs() {
  local user; user=$(id -un)
  # tempauth lines in the user64_<b64 account>_<b64 user> form, so names may contain '_'
  tempauth_user() { # access secret groups
    local a u
    a=$(printf %s "${1%%:*}" | base64 -w0 | tr -d '='); u=$(printf %s "${1#*:}" | base64 -w0 | tr -d '=')
    echo "user64_${a}_${u} = $2${3:+ $3}"
  }
  local users e rest
  users=$(tempauth_user "$ACCESS" "$SECRET" .admin)
  for e in $EXTRA_USERS; do
    rest=${e#*=}
    [[ ${e%%=*} =~ ^[A-Za-z0-9_.~-]+:[A-Za-z0-9_.~-]+$ && ${rest%%=*} =~ ^[A-Za-z0-9/+_.~-]+$ ]] ||
      die "bad EXTRA_USERS entry '$e' (want acct:user=secret[=.admin])"
    users+=$'\n'$(tempauth_user "${e%%=*}" "${rest%%=*}" "$([[ $rest == *=* ]] && echo "${rest#*=}")")
  done
  common() { # port name
    cat <<EOF
[DEFAULT]
bind_ip = 127.0.0.1
bind_port = $1
workers = $WORKERS
user = $user
swift_dir = $ETC
devices = $SRV
mount_check = false
disable_fallocate = true
log_level = $LOG_LEVEL
log_name = $2

EOF
  }
  local s port
  for s in account container object; do
    case $s in account) port=$P_ACCT ;; container) port=$P_CONT ;; object) port=$P_OBJ ;; esac
    { common "$port" "$s-server"
      cat <<EOF
[pipeline:main]
pipeline = healthcheck $s-server

[app:$s-server]
use = egg:swift#$s

[filter:healthcheck]
use = egg:swift#healthcheck
EOF
    } > "$ETC/$s-server.conf"
  done
  { common "$P_PROXY" proxy-server
    cat <<EOF
[pipeline:main]
# s3api must come before the auth filter; slo is needed for multipart uploads
pipeline = catch_errors gatekeeper healthcheck proxy-logging cache listing_formats s3api tempauth copy slo dlo versioned_writes proxy-logging proxy-server

[app:proxy-server]
use = egg:swift#proxy
account_autocreate = true

[filter:catch_errors]
use = egg:swift#catch_errors
[filter:gatekeeper]
use = egg:swift#gatekeeper
[filter:healthcheck]
use = egg:swift#healthcheck
[filter:proxy-logging]
use = egg:swift#proxy_logging
[filter:cache]
use = egg:swift#memcache
memcache_servers = 127.0.0.1:$P_MC
[filter:listing_formats]
use = egg:swift#listing_formats
[filter:s3api]
use = egg:swift#s3api
location = us-east-1
[filter:tempauth]
use = egg:swift#tempauth
$users
[filter:copy]
use = egg:swift#copy
[filter:slo]
use = egg:swift#slo
[filter:dlo]
use = egg:swift#dlo
[filter:versioned_writes]
use = egg:swift#versioned_writes
EOF
  } > "$ETC/proxy-server.conf"
}

build_rings() { # same result as swift-ring-builder create/add/rebalance, in one process (~0.4 s instead of ~3 s)
  "$PY" - "$ETC" "$PART_POWER" "$P_ACCT" "$P_CONT" "$P_OBJ" <<'EOF'
import sys, os
from swift.common.ring import RingBuilder
etc, part_power = sys.argv[1], int(sys.argv[2])
for name, port in zip(("account", "container", "object"), map(int, sys.argv[3:6])):
    b = RingBuilder(part_power, 1, 1)   # 2^part_power partitions, 1 replica, min_part_hours 1
    b.add_dev({"region": 1, "zone": 1, "ip": "127.0.0.1", "port": port, "replication_ip": "127.0.0.1",
               "replication_port": port, "device": "d1", "weight": 1.0, "meta": ""})
    b.rebalance()
    b.get_ring().save(os.path.join(etc, name + ".ring.gz"))
    b.save(os.path.join(etc, name + ".builder"))
EOF
}

# ------------------------------------------------------------------ health
healthy_http() { curl -sf -m 2 -o /dev/null "http://127.0.0.1:$1/healthcheck"; }
wait_healthy() {
  local deadline=$((SECONDS + HEALTH_TIMEOUT)) n ok pid
  while :; do
    ok=1
    for n in "${SERVERS[@]}"; do
      pid=$(pid_of "$n")
      alive "$pid" || { tail -n 30 "$LOGS/$n.log" >&2; die "$n-server (pid $pid) exited; log: $LOGS/$n.log"; }
    done
    for p in "$P_ACCT" "$P_CONT" "$P_OBJ" "$P_PROXY"; do healthy_http "$p" || { ok=0; break; }; done
    ((ok)) && break
    ((SECONDS < deadline)) || die "not healthy after ${HEALTH_TIMEOUT}s; logs in $LOGS"
    sleep 0.1
  done
}
swift_auth() { # -> sets TOKEN, STORAGE_URL (tempauth's Swift v1 auth, same user)
  local hdrs
  hdrs=$(curl -sf -m 5 -D - -o /dev/null -H "X-Auth-User: $ACCESS" -H "X-Auth-Key: $SECRET" "$ENDPOINT/auth/v1.0" | tr -d '\r') ||
    die "tempauth login for $ACCESS failed"
  TOKEN=$(awk -F': ' 'tolower($1)=="x-auth-token" {print $2}' <<<"$hdrs")
  STORAGE_URL=$(awk -F': ' 'tolower($1)=="x-storage-url" {print $2}' <<<"$hdrs")
  [[ -n $TOKEN && -n $STORAGE_URL ]] || die "tempauth returned no token"
}
create_buckets() {
  local b code
  for b in $BUCKETS; do
    [[ $b =~ ^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$ ]] || die "invalid S3 bucket name: $b"
    code=$(curl -s -m 10 -o /dev/null -w '%{http_code}' -X PUT -H "X-Auth-Token: $TOKEN" "$STORAGE_URL/$b")
    [[ $code == 201 || $code == 202 ]] || die "creating bucket $b: HTTP $code"
  done
}
s3_check() { # SigV4 ListBuckets through s3api+tempauth, if Debian botocore is installed
  "$PY" -c 'import botocore' 2>/dev/null || { log "python3-botocore not installed; skipped SigV4 check"; return 0; }
  "$PY" - "$ENDPOINT" "$ACCESS" "$SECRET" <<'EOF' || die "SigV4 ListBuckets check failed"
import sys, botocore.session
from botocore.config import Config
s3 = botocore.session.get_session().create_client("s3", endpoint_url=sys.argv[1], region_name="us-east-1",
    aws_access_key_id=sys.argv[2], aws_secret_access_key=sys.argv[3],
    config=Config(s3={"addressing_style": "path"}, retries={"max_attempts": 1}))
print("buckets:", " ".join(b["Name"] for b in s3.list_buckets()["Buckets"]) or "(none)", file=sys.stderr)
EOF
}

# ------------------------------------------------------------------ commands
do_start() {
  [[ $ACCESS =~ ^[A-Za-z0-9_.~-]+:[A-Za-z0-9_.~-]+$ ]] || die "ACCESS must look like <account>:<user> (tempauth), got '$ACCESS'"
  [[ $SECRET =~ ^[A-Za-z0-9/+=_.~-]+$ ]] || die "SECRET may only use [A-Za-z0-9/+=_.~-]"
  [[ $SKIP_INSTALL == 1 ]] || install_packages
  command -v swift-proxy-server >/dev/null || die "Swift is not installed"
  command -v memcached >/dev/null || die "memcached is not installed"
  [[ -f /etc/swift/swift.conf ]] || {
    log "writing missing /etc/swift/swift.conf"; mkdir -p /etc/swift
    printf '[swift-hash]\nswift_hash_path_suffix = changeme\nswift_hash_path_prefix = changeme\n\n[storage-policy:0]\nname = Policy-0\ndefault = yes\n' > /etc/swift/swift.conf
  }

  if [[ -d $DATA_DIR && -n $(ls -A "$DATA_DIR" 2>/dev/null) && ! -e $MARKER ]]; then
    die "$DATA_DIR exists, is not empty and was not created by this script; pick another DATA_DIR"
  fi
  stop_own
  local p
  for p in "$P_PROXY" "$P_CONT" "$P_ACCT" "$P_OBJ" "$P_MC"; do
    port_busy "$p" && die "port $p is in use by a process this script did not start (PORT=$PORT uses $PORT..$((PORT + 4)))"
  done
  if [[ $RESET == 1 ]]; then rm -rf "$SRV" "$ETC" "$LOGS"; fi
  # a failed start stops whatever it had started (logs stay in $LOGS)
  trap 'rc=$?; if ((rc)); then stop_own; fi' EXIT
  mkdir -p "$ETC" "$SRV/d1" "$RUN" "$LOGS"; touch "$MARKER"
  "$PY" - "$SRV/d1" <<'EOF' || die "filesystem of $SRV does not support user xattrs (Swift needs them): use ext4/xfs, e.g. a loopback xfs image"
import sys, os, xattr
f = os.path.join(sys.argv[1], ".xattr-probe"); open(f, "w").close()
try: xattr.setxattr(f, "user.swift.probe", b"x" * 200)
finally: os.unlink(f)
EOF
  write_configs
  build_rings   # one device holds every partition, so rebuilding keeps RESET=0 data reachable
  log "configs + rings in $ETC"

  # tempauth needs memcache: Swift v1 tokens live there, and without a server
  # every S3 request stalls on failed memcache connects (~2x slower)
  spawn memcached "$LOGS/memcached.log" memcached -l 127.0.0.1 -p "$P_MC" -U 0 -m 64 -t 1 -u "$(id -un)"
  echo "-p $P_MC" > "$RUN/memcached.port"
  local s
  for s in "${SERVERS[@]}"; do
    spawn "$s" "$LOGS/$s.log" "swift-$s-server" "$ETC/$s-server.conf" -v
  done
  wait_healthy
  log "all servers answer /healthcheck"
  swift_auth
  curl -sf -m 5 -o /dev/null -I -H "X-Auth-Token: $TOKEN" "$STORAGE_URL" || die "account HEAD failed"
  create_buckets
  s3_check
  local pids; pids=$(show_pids)
  cat > "$DATA_DIR/s3.env" <<EOF
S3_ENDPOINT=$ENDPOINT
AWS_ACCESS_KEY_ID=$ACCESS
AWS_SECRET_ACCESS_KEY=$SECRET
AWS_DEFAULT_REGION=us-east-1
SWIFT_S3_PIDS="$pids"
SWIFT_S3_DATA_DIR=$DATA_DIR
EOF
  trap - EXIT
  log "healthy: S3 endpoint $ENDPOINT (access key $ACCESS)"
  rss_report >&2
  cat "$DATA_DIR/s3.env"
}

do_status() {
  local pids; pids=$(show_pids)
  echo "PIDS: ${pids:-none}"
  [[ -n $pids ]] && rss_report
  local p rc=0
  for p in "$P_ACCT" "$P_CONT" "$P_OBJ" "$P_PROXY"; do
    if healthy_http "$p"; then echo "127.0.0.1:$p healthy"; else echo "127.0.0.1:$p DOWN"; rc=1; fi
  done
  return $rc
}

case $CMD in
  start) do_start ;;
  stop) stop_own; log "stopped (data kept in $DATA_DIR)" ;;
  status) do_status ;;
  clean)
    stop_own
    if [[ -e $MARKER ]]; then rm -rf "$DATA_DIR"; log "removed $DATA_DIR"
    elif [[ -d $DATA_DIR ]]; then die "$DATA_DIR was not created by this script; not removing"; fi ;;
  *) die "usage: $0 [start|stop|status|clean]" ;;
esac
