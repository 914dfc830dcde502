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
  if ((${#missing[@]} == 0)); then
    log "Debian packages present"
    return
  fi
  log "installing Debian packages: ${missing[*]}"
  local sudo=()
  [[ $(id -u) -eq 0 ]] || sudo=(sudo)
  "${sudo[@]}" apt-get update -qq
  # Daemon packages (sshd, slurmd, munged) would start system-wide services on the machine's own addresses;
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

install_debian_packages
mkdir -p "$TOOLS_DIR"
build_go_tool kubo github.com/ipfs/kubo "$KUBO_VERSION" ./cmd/ipfs ipfs
build_go_tool minio github.com/minio/minio "$MINIO_VERSION" . minio
build_go_tool s5cmd github.com/peak/s5cmd/v2 "$S5CMD_VERSION" . s5cmd
build_go_tool warp github.com/minio/warp "$WARP_VERSION" . warp
log "tools ready in $TOOLS_DIR"
