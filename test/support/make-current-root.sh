#!/usr/bin/env bash
# make-current-root.sh — a separate root filesystem holding the backup tools people run today,
# for the tests' "current tools" repositories (make-current-barman-repos.sh,
# make-current-pgbackrest-repos.sh): Debian sid's PostgreSQL 18, barman-cli-cloud 3.20 and
# pgBackRest 2.60, pinned below by exact version.
#
# Why a separate root: the machines run Debian bookworm (PostgreSQL 15, Barman 3.4, pgBackRest
# 2.45), and adding sid to the host's apt sources would make a mixed system. The host's apt
# sources are never changed: mmdebstrap builds the root from the Debian mirror the host already
# uses (read from the host's apt configuration at run time), and PostgreSQL and the tools run
# inside it with chroot. The network is shared, so the test S3 store on 127.0.0.1 is reachable
# from inside.
#
# Pins: every package the tests rely on is installed as pkg=version. When the mirror has moved on
# the build fails and says so, with the versions the mirror has now (update PINS and rerun).
#
# Debian-sid defect worked around here, visibly: python3-snappy 0.5.3's C CRC-32C crashes
# (SIGSEGV, exit 139) under Python 3.14, so `barman-cloud-wal-archive --snappy`,
# `barman-cloud-backup --snappy` and the restore of anything snappy-compressed die. Launchers in
# /usr/local/bin (first in the PATH the builds use inside the root) replace only
# snappy.snappy._crc32c with python3-crc32c's crc32c (the same CRC-32C Castagnoli: snappy's
# framing format masks it the same way) and then run Barman's own entry point. The build checks
# that the unpatched module still crashes (and says so if it no longer does), that the
# replacement gives the CRC-32C check value, and that a framed stream round-trips.
#
# Also: the postgresql-18 package creates a default cluster 18/main; it is dropped (the builds
# make their own clusters; nothing is ever started by the packages, as no init runs in a chroot).
#
# Cached: the root lives in $WORK/rootfs with a marker ($WORK/.built) holding this script's hash;
# it is rebuilt when the script changes. The repository builds put that marker into their own,
# so a new root rebuilds them. Built into $WORK/rootfs.new and renamed when complete.
# Run as root. Env: WORK (/var/tmp/viewer-test/current-root), MIRROR (default: the host's).
set -Eeuo pipefail

WORK=${WORK:-/var/tmp/viewer-test/current-root}
ROOT=$WORK/rootfs
MARKER=$WORK/.built
SUITE=sid
HASH=$(sha256sum "$0" | cut -c1-16)
# Exact versions, as Debian's mirror served sid when this was written (2026-11).
PINS=(
  postgresql-18=18.6-3
  postgresql-client-18=18.6-3
  barman-cli-cloud=3.20.1-1
  python3-barman=3.20.1-1
  pgbackrest=2.60.0-1
  python3=3.14.8-1
  python3-boto3=1.40.72-1
  python3-botocore=1.43.117+repack-1
  python3-zstandard=0.25.0-1+b3
  python3-lz4=4.4.5+dfsg-1+b2
  python3-snappy=0.5.3-1.3+b3
  python3-crc32c=2.7.1-1+b3
  ca-certificates=20260816+nmu1
  procps=2:4.0.7-1
  zstd=1.5.7+dfsg-4
  lz4=1.10.0-10
  xz-utils=5.8.4-1
  bzip2=1.0.8-6+b2
)
T0=$(date +%s)
log() { printf '[make-current-root %3ss] %s\n' "$(( $(date +%s) - T0 ))" "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }
trap 'log "failed at line $LINENO: $BASH_COMMAND"' ERR

if [[ -f $MARKER && $(cat "$MARKER") == "$HASH" && -x $ROOT/usr/lib/postgresql/18/bin/postgres ]]; then
  log "root already built by this version: $(paste -sd' ' "$WORK/versions.txt" 2>/dev/null)"
  exit 0
fi
[[ $(id -u) == 0 ]] || die "needs root (mmdebstrap, chroot)"
command -v mmdebstrap >/dev/null || die "mmdebstrap is missing (Debian: apt-get install mmdebstrap)"

# The Debian mirror of the host's own apt sources: the one serving the host's own release (its
# main archive; not -security, -updates, nor a third-party repository).
if [[ -z ${MIRROR:-} ]]; then
  codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
  MIRROR=$(apt-get indextargets --format '$(REPO_URI) $(RELEASE)' 'Created-By: Packages' 2>/dev/null |
    awk -v c="$codename" '$2 == c { print $1; exit }')
  MIRROR=${MIRROR%/}
fi
[[ -n $MIRROR ]] || die "no Debian mirror found in the host's apt sources (set MIRROR)"

# Removes a root tree, never what is mounted inside it: anything still mounted under it (a killed
# mmdebstrap's /proc, /sys or /dev) is unmounted first, and rm stays on the tree's filesystem.
remove_tree() {
  local m
  [[ -e $1 ]] || return 0
  while read -r m; do umount -l "$m" 2>/dev/null || true; done < <(awk -v t="$1/" 'index($5 "/", t) == 1 { print $5 }' /proc/self/mountinfo | sort -r)
  rm -rf --one-file-system "$1"
}
mkdir -p "$WORK"
remove_tree "$ROOT.new"
rm -f "$WORK/mmdebstrap.log"
names=()
for p in "${PINS[@]}"; do names+=("${p%%=*}"); done
log "mmdebstrap $SUITE from $MIRROR: ${PINS[*]}"
# The customize hooks run on the host with the root as $1.
# 1. drop the cluster the postgresql-18 package created;
# 2. the snappy launchers (see the header): one per barman-cloud command that may compress or
#    decompress snappy, each running Barman's own entry point after the replacement;
# 3. /srv/viewer: where the repository builds bind-mount their work directories.
# In the background and waited for, so that a TERM (prepare.sh stopping this build) is handled at
# once: mmdebstrap is stopped and its unfinished root removed.
MMDEBSTRAP=
trap 'if [[ -n $MMDEBSTRAP ]]; then kill "$MMDEBSTRAP" 2>/dev/null; wait "$MMDEBSTRAP" || true; fi; remove_tree "$ROOT.new"; exit 143' TERM INT
mmdebstrap --variant=apt --aptopt='Acquire::Check-Valid-Until "false"' \
  --include="$(IFS=,; echo "${PINS[*]}")" \
  --customize-hook='chroot "$1" pg_dropcluster 18 main' \
  --customize-hook='for c in wal-archive:cloud_walarchive wal-restore:cloud_walrestore backup:cloud_backup restore:cloud_restore; do
      f="$1/usr/local/bin/barman-cloud-${c%%:*}"
      printf "%s\n" "#!/usr/bin/python3" \
        "# viewer test root (make-current-root.sh): Debian sid defect workaround. python3-snappy 0.5.3" \
        "# crashes in its C CRC-32C under Python 3.14; use python3-crc32c'"'"'s instead, then run Barman." \
        "import sys" "import crc32c" "import snappy.snappy" "snappy.snappy._crc32c = crc32c.crc32c" \
        "# The replacement runs at import, outside the guard: Python 3.14 starts multiprocessing" \
        "# children with forkserver, which import this file again as __mp_main__." \
        "from barman.clients.${c#*:} import main" "if __name__ == \"__main__\":" \
        "    sys.argv[0] = \"barman-cloud-${c%%:*}\"" "    sys.exit(main())" > "$f"
      chmod 755 "$f"
    done' \
  --customize-hook='mkdir -p "$1/srv/viewer"' \
  "$SUITE" "$ROOT.new" "$MIRROR" >"$WORK/mmdebstrap.log" 2>&1 &
MMDEBSTRAP=$!
mmdebstrap_exit=0
wait "$MMDEBSTRAP" || mmdebstrap_exit=$?
MMDEBSTRAP=
if ((mmdebstrap_exit != 0)); then
  sed 's/^/  | /' "$WORK/mmdebstrap.log" | tail -n 30 >&2
  remove_tree "$ROOT.new"
  if grep -qE "Version '[^']+' for '[^']+' was not found|has no installation candidate|Unable to locate package" "$WORK/mmdebstrap.log"; then
    log "the mirror no longer has a pinned version (sid moved on). What it has now:"
    mmdebstrap --quiet --variant=apt --aptopt='Acquire::Check-Valid-Until "false"' \
      --customize-hook="chroot \"\$1\" apt-cache madison ${names[*]} >&2" "$SUITE" /dev/null "$MIRROR" 2>&1 |
      grep '|' | sed 's/^/  /' >&2 || true
    die "pinned versions missing from $MIRROR ($SUITE): update PINS in $0"
  fi
  die "mmdebstrap failed (log above, $WORK/mmdebstrap.log)"
fi

# What was installed, checked against the pins and printed for the build log.
chroot "$ROOT.new" dpkg-query -W -f '${Package}=${Version}\n' "${names[@]}" > "$WORK/installed.txt"
for p in "${PINS[@]}"; do
  grep -qxF "$p" "$WORK/installed.txt" || die "installed $(grep "^${p%%=*}=" "$WORK/installed.txt"), pinned $p"
done
{
  echo "debian=$SUITE $(cat "$ROOT.new/etc/debian_version") from $MIRROR"
  echo "postgresql=$(chroot "$ROOT.new" /usr/lib/postgresql/18/bin/postgres --version)"
  echo "barman-cli-cloud=$(chroot "$ROOT.new" /usr/bin/barman-cloud-backup --version 2>&1)"
  echo "pgbackrest=$(chroot "$ROOT.new" pgbackrest version)"
  echo "python=$(chroot "$ROOT.new" python3 --version)"
} > "$WORK/versions.txt"
sed 's/^/  /' "$WORK/versions.txt" >&2

# The snappy defect, checked each build: still there (or gone: then say so), and the replacement
# computes CRC-32C (check value of "123456789" is E3069283) and round-trips a framed stream.
snappy_exit=0
# (the subshell reports the signal to its own stderr, discarded; the outer shell sees an exit code)
{ (chroot "$ROOT.new" /usr/bin/python3 -c 'import snappy; snappy.StreamCompressor().add_chunk(b"x" * 65536)'; exit $?); } 2>/dev/null || snappy_exit=$?
if [[ $snappy_exit == 139 ]]; then
  log "python3-snappy under $(chroot "$ROOT.new" python3 --version) still crashes in its CRC-32C (exit 139): barman-cloud-{wal-archive,wal-restore,backup,restore} run through the launchers in /usr/local/bin that use python3-crc32c's"
  echo "snappy-workaround=needed (python3-snappy's C CRC-32C crashes: exit 139); launchers in /usr/local/bin" >> "$WORK/versions.txt"
else
  log "NOTE: python3-snappy no longer crashes (exit $snappy_exit): the launchers in /usr/local/bin are no longer needed"
  echo "snappy-workaround=not needed (exit $snappy_exit); launchers kept" >> "$WORK/versions.txt"
fi
chroot "$ROOT.new" /usr/bin/python3 - <<'EOF'
import crc32c, snappy.snappy
assert crc32c.crc32c(b"123456789") == 0xE3069283
snappy.snappy._crc32c = crc32c.crc32c
import snappy, os
data = os.urandom(40000) + bytes(100000)
c = snappy.StreamCompressor()
framed = c.add_chunk(data)
d = snappy.StreamDecompressor()
assert d.decompress(framed) == data
d.flush()
EOF
chroot "$ROOT.new" /usr/local/bin/barman-cloud-wal-archive --version >/dev/null

remove_tree "$ROOT"
mv "$ROOT.new" "$ROOT"
echo "$HASH" > "$MARKER"
log "done: $(du -sh "$ROOT" | cut -f1) in $ROOT"
