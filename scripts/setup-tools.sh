#!/usr/bin/env bash
# Installs the real tools the integration tests (and `launch:` targets) use. Idempotent: Debian packages are
# installed only when missing, Go-built servers are cached outside the checkout so fresh clones reuse them.
set -euo pipefail

KUBO_VERSION="v0.42.0"
MINIO_VERSION="v0.0.0-20260212201848-7aac2a2c5b7c"
# s5cmd: only `npm run bench` uses it, as the independent fast S3 client the S3 engine is compared with.
S5CMD_VERSION="v2.3.0"
# warp: MinIO's own S3 load generator, the anchor `npm run bench` compares the S3 engine with.
WARP_VERSION="v1.3.1"
TOOLS_DIR="${BENCHSPEC_TOOLS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/benchspec/tools}"

log() { printf '[setup] %s\n' "$*" >&2; }

install_debian_packages() {
  local missing=()
  command -v fio >/dev/null || missing+=(fio)
  command -v shellcheck >/dev/null || missing+=(shellcheck)
  # The compiled shell script drives S3 through the AWS CLI (aws s3api) for what it does not time; its tests
  # run it against MinIO.
  command -v aws >/dev/null || missing+=(awscli)
  # It times S3 and Kubo RPC requests through curl (--aws-sigv4: 7.75 or later).
  command -v curl >/dev/null || missing+=(curl)
  command -v chromium >/dev/null || missing+=(chromium)
  command -v losetup >/dev/null || missing+=(mount)
  command -v mkfs.ext4 >/dev/null || missing+=(e2fsprogs)
  # The block-device tests write partition tables onto loop devices' images.
  command -v sfdisk >/dev/null || missing+=(fdisk)
  # The TLS test makes a self-signed certificate for MinIO.
  command -v openssl >/dev/null || missing+=(openssl)
  # The payload test compresses a payload with a window longer than the object (zstd --long); the bench
  # reads warp's results (.json.zst).
  command -v zstd >/dev/null || missing+=(zstd)
  # The multi-host tests' hosts (scripts/hosts/) run sshd, Slurm and sshfs inside namespaces.
  [[ -x /usr/sbin/sshd ]] || missing+=(openssh-server)
  command -v ssh >/dev/null || missing+=(openssh-client)
  [[ -x /usr/sbin/slurmctld ]] || missing+=(slurmctld)
  [[ -x /usr/sbin/slurmd ]] || missing+=(slurmd)
  command -v srun >/dev/null || missing+=(slurm-client)
  command -v sshfs >/dev/null || missing+=(sshfs)
  [[ -x /usr/sbin/ip || -x /sbin/ip ]] || missing+=(iproute2)
  command -v pgrep >/dev/null || missing+=(procps)
  # The Kubernetes tests' node (scripts/kube/): the OCI runtime, the CNI plugins, and a static busybox
  # for the images they build (nothing is pulled from a registry).
  command -v runc >/dev/null || missing+=(runc)
  [[ -x /usr/lib/cni/bridge ]] || missing+=(containernetworking-plugins)
  [[ -x /bin/busybox ]] || missing+=(busybox-static)
  # The benchspec image the pods run: built from the Containerfile by buildah on a base debootstrap makes.
  command -v buildah >/dev/null || missing+=(buildah)
  command -v debootstrap >/dev/null || missing+=(debootstrap)
  # The live metrics test scrapes a run with a Prometheus of its own (and lints with promtool).
  command -v prometheus >/dev/null || missing+=(prometheus)
  if ((${#missing[@]} == 0)); then
    log "Debian packages present"
    return
  fi
  log "installing Debian packages: ${missing[*]}"
  local sudo=()
  [[ $(id -u) -eq 0 ]] || sudo=(sudo)
  "${sudo[@]}" apt-get update -qq
  # Daemon packages (sshd, slurmd, munged, prometheus) would start system-wide services on the machine's own addresses;
  # the tests run their own copies inside namespaces, so a temporary policy-rc.d keeps the install from
  # starting any (Debian's maintainer scripts ask it before starting a service).
  local policy=/usr/sbin/policy-rc.d
  if [[ -e $policy ]]; then
    "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
    return
  fi
  printf '#!/bin/sh\nexit 101\n' | "${sudo[@]}" tee "$policy" >/dev/null
  "${sudo[@]}" chmod +x "$policy"
  # shellcheck disable=SC2064 # expand now: the sudo prefix is local
  trap "${sudo[*]} rm -f $policy" EXIT
  "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  "${sudo[@]}" rm -f "$policy"
  trap - EXIT
}

# Builds a Go binary from a module downloaded through the module proxy (`go install pkg@version` cannot list
# versions here, so the module directory is fetched explicitly and built in a writable copy).
build_go_tool() {
  local name=$1 module=$2 version=$3 package=$4 binary=$5
  local dest="$TOOLS_DIR/$name-$version"
  if [[ -x "$dest/$binary" ]]; then
    log "$name $version cached at $dest"
    return
  fi
  log "building $name $version (a few minutes on 2 cores)"
  local dir work
  # The module proxy answers here, the checksum database does not (sum.golang.org is out of reach).
  dir=$(GOSUMDB=off go mod download -json "$module@$version" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
  [[ -n "$dir" && -d "$dir" ]] || { log "could not download $module@$version"; exit 1; }
  work=$(mktemp -d -t benchspec-build-XXXXXX)
  # Removed on any exit: a failed build would otherwise leave a few hundred MB of module copy in /tmp.
  # shellcheck disable=SC2064 # expand now: $work is local and may be out of scope when the trap fires
  trap "rm -rf $(printf %q "$work")" EXIT
  cp -r "$dir/." "$work/"
  chmod -R u+w "$work"
  mkdir -p "$dest"
  (cd "$work" && GOSUMDB=off GOFLAGS=-mod=mod CGO_ENABLED=0 go build -trimpath -o "$dest/$binary.tmp" "$package")
  mv "$dest/$binary.tmp" "$dest/$binary"
  rm -rf "$work"
  trap - EXIT
  log "$name built: $dest/$binary"
}

# Builds PACKAGES of MODULE@VERSION from a wrapper module that requires it: a module whose go.mod replaces
# its sibling modules with directories of its own repository (Kubernetes' staging, etcd's api/client)
# cannot be `go install`ed, but its siblings are published at SIBLINGS, so each such replace becomes
# "sibling => sibling SIBLINGS". The binaries go to TOOLS_DIR/NAME-VERSION/, named after their packages
# (one package: NAME).
build_go_wrapped() {
  local name=$1 module=$2 version=$3 siblings=$4 ldflags=$5
  shift 5
  local dest="$TOOLS_DIR/$name-$version" package absent=0 out=bin/
  if (($# == 1)); then out=bin/$name; fi
  for package in "$@"; do
    if (($# == 1)); then package=$name; fi
    [[ -x "$dest/${package##*/}" ]] || absent=1
  done
  if ((absent == 0)); then
    log "$name $version cached at $dest"
    return
  fi
  log "building $name $version (Kubernetes: 10-25 minutes on 2 cores)"
  local mod work
  mod=$(GOSUMDB=off go mod download -json "$module@$version" | sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",$/\1/p')
  [[ -n "$mod" && -f "$mod" ]] || { log "could not download $module@$version"; exit 1; }
  work=$(mktemp -d -t benchspec-build-XXXXXX)
  # shellcheck disable=SC2064 # expand now: $work is local and may be out of scope when the trap fires
  trap "rm -rf $(printf %q "$work")" EXIT
  {
    printf 'module benchspec.local/%s\n\ngo 1.24.0\n\nrequire %s %s\n\nreplace (\n' "$name" "$module" "$version"
    awk -v v="$siblings" '$2 == "=>" && $3 ~ /^\.\.?\// { printf "\t%s => %s %s\n", $1, $1, v }' "$mod"
    printf ')\n'
  } >"$work/go.mod"
  mkdir -p "$dest"
  mkdir -p "$work/bin"
  (cd "$work" && GOSUMDB=off GOFLAGS=-mod=mod CGO_ENABLED=0 go build -trimpath -tags "no_btrfs no_devmapper no_zfs" \
    -ldflags "-s -w $ldflags" -o "$work/$out" "$@")
  mv "$work"/bin/* "$dest/"
  rm -rf "$work"
  trap - EXIT
  log "$name built in $dest"
}

# A Kubernetes cluster on this machine (scripts/kube/cluster.sh) for the kubernetes transport's tests:
# control plane and kubelet, etcd, containerd (Debian's 1.6 is older than current kubelets want); runc and
# the CNI plugins are Debian's. 1.34: the last minor whose kubelet runs on cgroup v1 (this machine's) by
# default.
KUBE_VERSION="v1.34.4"
ETCD_VERSION="v3.6.16"
CONTAINERD_VERSION="v2.1.9"

build_kube() {
  local minor=${KUBE_VERSION#v1.}
  minor=${minor%%.*}
  build_go_wrapped kube k8s.io/kubernetes "$KUBE_VERSION" "v0.${KUBE_VERSION#v1.}" \
    "-X k8s.io/component-base/version.gitVersion=$KUBE_VERSION -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=$minor -X k8s.io/component-base/version.gitTreeState=clean" \
    k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kube-controller-manager \
    k8s.io/kubernetes/cmd/kube-scheduler k8s.io/kubernetes/cmd/kubelet k8s.io/kubernetes/cmd/kubectl
  build_go_wrapped etcd go.etcd.io/etcd/server/v3 "$ETCD_VERSION" "$ETCD_VERSION" "" go.etcd.io/etcd/server/v3
  build_go_wrapped containerd github.com/containerd/containerd/v2 "$CONTAINERD_VERSION" "$CONTAINERD_VERSION" "" \
    github.com/containerd/containerd/v2/cmd/containerd github.com/containerd/containerd/v2/cmd/ctr \
    github.com/containerd/containerd/v2/cmd/containerd-shim-runc-v2
}

install_debian_packages
mkdir -p "$TOOLS_DIR"
build_go_tool kubo github.com/ipfs/kubo "$KUBO_VERSION" ./cmd/ipfs ipfs
build_go_tool minio github.com/minio/minio "$MINIO_VERSION" . minio
build_go_tool s5cmd github.com/peak/s5cmd/v2 "$S5CMD_VERSION" . s5cmd
build_go_tool warp github.com/minio/warp "$WARP_VERSION" . warp
build_kube
log "tools ready in $TOOLS_DIR"
