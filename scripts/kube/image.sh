#!/usr/bin/env bash
# image.sh OUT.tar REFERENCE: builds the benchspec image from the repository's Containerfile with buildah
# and writes it as an OCI archive (`cluster.sh image` imports it). Run `npm run build` first: the image
# takes dist/. Nothing is pulled from a registry: its base is made here, once, and cached with the build's
# layers outside the checkout — Debian's minimal root file system (debootstrap), this machine's CA
# certificates (the package registries are reached through them), and the LTS Node.js the suite runs on.
set -euo pipefail

out=${1:?usage: image.sh OUT.tar REFERENCE}
reference=${2:?usage: image.sh OUT.tar REFERENCE}
HERE=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd -- "$HERE/../.." && pwd)
TOOLS_DIR="${BENCHSPEC_TOOLS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/benchspec/tools}"
SUITE=bookworm
MIRROR=http://deb.debian.org/debian
STORE=(--root "$TOOLS_DIR/containers/storage" --runroot /run/benchspec-buildah --storage-driver overlay)

log() { printf '[image] %s\n' "$*" >&2; }
buildah_() { buildah "${STORE[@]}" "$@"; }

node_bin=$(bash "$REPO/scripts/node-lts.sh")
node_version=$("$node_bin/node" --version)
npm_dir=$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")")
# The base's name says what it is made of: a change of any part makes another.
certs=$(cat /usr/local/share/ca-certificates/* 2>/dev/null | sha256sum | cut -c1-12)
base="localhost/benchspec-base:$SUITE-node${node_version#v}-ca$certs"

make_base() {
  log "making $base (debootstrap $SUITE, Node.js $node_version)"
  local work container mount
  work=$(mktemp -d)
  trap 'rm -rf "$work"' RETURN
  debootstrap --variant=minbase --include=libstdc++6,ca-certificates "$SUITE" "$work/root" "$MIRROR" \
    >"$work/debootstrap.log" 2>&1 || {
    tail -n 20 "$work/debootstrap.log" >&2
    return 1
  }
  # As the official Node.js images lay it out: node and npm under /usr/local.
  install -D -m 755 "$(readlink -f "$node_bin/node")" "$work/root/usr/local/bin/node"
  mkdir -p "$work/root/usr/local/lib/node_modules"
  cp -a "$npm_dir" "$work/root/usr/local/lib/node_modules/npm"
  ln -s ../lib/node_modules/npm/bin/npm-cli.js "$work/root/usr/local/bin/npm"
  ln -s ../lib/node_modules/npm/bin/npx-cli.js "$work/root/usr/local/bin/npx"
  if compgen -G '/usr/local/share/ca-certificates/*' >/dev/null; then
    cp /usr/local/share/ca-certificates/* "$work/root/usr/local/share/ca-certificates/"
    chroot "$work/root" update-ca-certificates >/dev/null 2>&1
  fi
  rm -rf "$work/root/var/cache/apt/archives/"*.deb "$work/root/var/lib/apt/lists/"*
  container=$(buildah_ from scratch)
  mount=$(buildah_ mount "$container")
  tar -C "$work/root" -cf - . | tar -C "$mount" -xf -
  buildah_ umount "$container" >/dev/null
  buildah_ config --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    --env NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt "$container"
  buildah_ commit -q "$container" "$base" >/dev/null
  buildah_ rm "$container" >/dev/null
}

command -v buildah >/dev/null || {
  log "buildah is not installed: npm run setup"
  exit 1
}
[[ -f $REPO/dist/cli/main.js ]] || {
  log "no dist/ in $REPO: npm run build"
  exit 1
}
buildah_ inspect --type image "$base" >/dev/null 2>&1 || make_base
log "building $reference"
build_log=$(mktemp)
trap 'rm -f "$build_log"' EXIT
# chroot isolation: RUN steps need no network namespace of their own (apt and npm reach the registries).
buildah_ build --isolation chroot --pull=never --layers --build-arg "BASE=$base" -f "$REPO/Containerfile" \
  -t "$reference" "$REPO" >"$build_log" 2>&1 || {
  tail -n 30 "$build_log" >&2
  exit 1
}
rm -f "$out"
buildah_ push -q "$reference" "oci-archive:$out:$reference" >/dev/null
log "$reference written to $out"
