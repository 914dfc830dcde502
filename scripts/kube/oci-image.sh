#!/usr/bin/env bash
# oci-image.sh OUT.tar NAME ROOTFS ENTRYPOINT...: an OCI image archive (one uncompressed layer of ROOTFS,
# NAME as its reference) that `ctr images import` takes: the test cluster's images are made here, never
# pulled. The same ROOTFS gives the same bytes (sorted entries, owner 0, mtime 0).
set -euo pipefail
out=$1 name=$2 rootfs=$3
shift 3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/blobs/sha256"
blob() { # blob FILE: moved to blobs/sha256/<digest>; prints "digest size"
  local digest
  digest=$(sha256sum "$1" | cut -d' ' -f1)
  printf '%s %s\n' "$digest" "$(stat -c %s "$1")"
  mv "$1" "$work/blobs/sha256/$digest"
}
tar -C "$rootfs" --numeric-owner --owner=0 --group=0 --mtime=@0 --sort=name -cf "$work/layer" .
# Not `< <(blob …)`: its mv could still run while the next step, or the final tar, reads blobs/.
read -r layer layer_size <<<"$(blob "$work/layer")"
entry=$(printf '"%s",' "$@")
printf '{"architecture":"amd64","os":"linux","config":{"Entrypoint":[%s]},"rootfs":{"type":"layers","diff_ids":["sha256:%s"]}}' \
  "${entry%,}" "$layer" >"$work/config"
read -r config config_size <<<"$(blob "$work/config")"
printf '{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json","config":{"mediaType":"application/vnd.oci.image.config.v1+json","digest":"sha256:%s","size":%s},"layers":[{"mediaType":"application/vnd.oci.image.layer.v1.tar","digest":"sha256:%s","size":%s}]}' \
  "$config" "$config_size" "$layer" "$layer_size" >"$work/manifest"
read -r manifest manifest_size <<<"$(blob "$work/manifest")"
printf '{"schemaVersion":2,"manifests":[{"mediaType":"application/vnd.oci.image.manifest.v1+json","digest":"sha256:%s","size":%s,"annotations":{"org.opencontainers.image.ref.name":"%s"}}]}' \
  "$manifest" "$manifest_size" "$name" >"$work/index.json"
printf '{"imageLayoutVersion":"1.0.0"}' >"$work/oci-layout"
tar -C "$work" --numeric-owner --owner=0 --group=0 --mtime=@0 --sort=name -cf "$out" oci-layout index.json blobs
