#!/usr/bin/env bash
# The image the deploy tests run, built once per content (test/deploy/podman.ts calls this).
# Under a lock: copies the build's inputs (package.json, package-lock.json, LICENSE, NOTICE, bin/,
# src/ without tests) to a snapshot, hashes it with deploy/image/ and scripts/build-image.sh, and reuses
# localhost/viewer:test-<hash> when it exists. Otherwise builds it with scripts/build-image.sh from
# the snapshot, then builds it a second time with --no-cache under another tag (the
# reproducibility check: both IDs are recorded in <hash>.json), tags it localhost/viewer:pod-test
# (the podman overlay's image) and removes earlier test images. Prints <hash>.json.
set -Eeuo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
DIR=${VIEWER_TEST_DIR:-/var/tmp/viewer-test}/image
export VIEWER_IMAGE_CACHE=$DIR/cache
# Staging in memory when there is room: npm ci's many small files are the slow part on disk.
if [ -z "${TMPDIR:-}" ] && [ -w /dev/shm ] && [ "$(df --output=avail -k /dev/shm | tail -1)" -gt 1048576 ]; then export TMPDIR=/dev/shm; fi
mkdir -p "$DIR"
exec 9>"$DIR/.lock"
flock 9
snap=$(mktemp -d "$DIR/source.XXXXXX")
trap 'rm -rf "$snap"' EXIT
trap 'echo "ensure-image: the build failed; its log:" >&2; tail -n 40 "$DIR/build.log" >&2' ERR
cp "$ROOT/package.json" "$ROOT/package-lock.json" "$ROOT/LICENSE" "$ROOT/NOTICE" "$snap/"
cp -R "$ROOT/bin" "$ROOT/src" "$snap/"
find "$snap/src" -name '*.test.ts' -delete
hash=$( { tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner --mode=a+rX,go-w -C "$snap" -cf - . ; \
  cat "$ROOT/deploy/image/Containerfile" "$ROOT/scripts/build-image.sh"; } | sha256sum | cut -c1-16)
tag=localhost/viewer:test-$hash
record=$DIR/$hash.json
if [ -s "$record" ] && podman image exists "$tag"; then
  podman tag "$tag" localhost/viewer:pod-test
  cat "$record"
  exit 0
fi
t0=$(date +%s%N)
id=$(bash "$ROOT/scripts/build-image.sh" --source "$snap" --tag "$tag" 2>"$DIR/build.log")
t1=$(date +%s%N)
again=$(bash "$ROOT/scripts/build-image.sh" --source "$snap" --tag "$tag-again" --no-cache 2>>"$DIR/build.log")
t2=$(date +%s%N)
podman rmi "$tag-again" >/dev/null
size=$(podman image inspect --format '{{.Size}}' "$tag")
podman tag "$tag" localhost/viewer:pod-test
# Earlier test images (other hashes) go, with the layers no other image uses.
for old in $(podman images --format '{{.Repository}}:{{.Tag}}' | grep '^localhost/viewer:test-' | grep -v ":test-$hash\$" || true); do
  podman rmi "$old" >/dev/null 2>&1 || true
  rm -f "$DIR/${old#localhost/viewer:test-}.json"
done
printf '{"hash":"%s","tag":"%s","id":"%s","rebuilt_id":"%s","size":%s,"build_ms":%s,"rebuild_ms":%s}\n' \
  "$hash" "$tag" "$id" "$again" "$size" $(((t1 - t0) / 1000000)) $(((t2 - t1) / 1000000)) > "$record"
cat "$record"
