#!/usr/bin/env bash
# A one-node Kubernetes cluster on this machine, for the tests of the kubernetes transport: etcd, the API
# server, the controller manager (its Job controller hands out the indexes of an Indexed Job) and the
# scheduler, and a kubelet over containerd and runc, built by scripts/setup-tools.sh. Nothing is pulled
# from a registry: images are imported from archives made here (scripts/kube/oci-image.sh).
#
#   cluster.sh up DIR      start it; DIR/admin.kubeconfig reaches it (as system:masters)
#   cluster.sh down DIR    stop it and remove everything it made: its pods first (through the kubelet, so
#                          their network is torn down), then its processes, mounts, bridge and address
#   cluster.sh image DIR ARCHIVE   import an OCI image archive into the node
#
# Its addresses: the node and every server on 10.99.0.1 (added to lo; the kubelet refuses a loopback node
# address, and a fixed address keeps the ports off everything else's), pods on the bridge bskube0,
# 10.244.0.0/24, gateway 10.244.0.1 — the host routes between them, no NAT and no iptables rules. No
# kube-proxy and no DNS: a pod reaches servers by address. One cluster at a time on a machine.
# Facts of this machine kind it works around: cgroup v1 (failCgroupV1: false, cgroupfs, no QoS cgroups), no
# CAP_SYS_RESOURCE (runc-wrapper: a negative oom_score_adj becomes 0), no dummy network device.
set -euo pipefail

KUBE_VERSION="v1.34.4"
ETCD_VERSION="v3.6.16"
CONTAINERD_VERSION="v2.1.9"
TOOLS_DIR="${BENCHSPEC_TOOLS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/benchspec/tools}"
KUBE="$TOOLS_DIR/kube-$KUBE_VERSION"
ETCD="$TOOLS_DIR/etcd-$ETCD_VERSION/etcd"
CTRD="$TOOLS_DIR/containerd-$CONTAINERD_VERSION"
HERE=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
ADDRESS=10.99.0.1
BRIDGE=bskube0
POD_CIDR=10.244.0.0/24
NODE=bskube-node
# Where the running cluster's directory is on record.
RECORD=/run/benchspec-kube

log() { printf '[kube] %s\n' "$*" >&2; }
die() {
  log "$*"
  exit 1
}

kubectl_() { "$KUBE/kubectl" --kubeconfig "$DIR/admin.kubeconfig" "$@"; }
ctr_() { "$CTRD/ctr" --address "$DIR/containerd/containerd.sock" -n k8s.io "$@"; }

# start NAME COMMAND...: in the background, its output in DIR/logs/NAME.log, its pid in DIR/pids/NAME.
start() {
  local name=$1
  shift
  setsid "$@" >"$DIR/logs/$name.log" 2>&1 </dev/null &
  printf '%s\n' "$!" >"$DIR/pids/$name"
}

# wait_for WHAT SECONDS COMMAND...: until COMMAND succeeds, or fail naming WHAT and the last log lines.
wait_for() {
  local what=$1 seconds=$2 deadline
  shift 2
  deadline=$((SECONDS + seconds))
  until "$@" >/dev/null 2>&1; do
    if ((SECONDS > deadline)); then
      tail -n 5 "$DIR"/logs/*.log >&2 || true
      die "$what did not come up within ${seconds}s"
    fi
    sleep 0.3
  done
}

kubeconfig() {
  local user=$1 token=$2
  cat <<EOF
apiVersion: v1
kind: Config
clusters:
  - name: benchspec
    cluster: { server: "https://$ADDRESS:6443", certificate-authority: "$DIR/pki/ca.crt" }
users:
  - name: $user
    user: { token: "$token" }
contexts:
  - name: $user
    context: { cluster: benchspec, user: $user }
current-context: $user
EOF
}

pki() {
  local p=$DIR/pki
  mkdir -p "$p"
  openssl genrsa -out "$p/sa.key" 2048 2>/dev/null
  openssl rsa -in "$p/sa.key" -pubout -out "$p/sa.pub" 2>/dev/null
  openssl req -x509 -newkey rsa:2048 -nodes -keyout "$p/ca.key" -out "$p/ca.crt" -days 7 \
    -subj "/CN=benchspec-test-ca" 2>/dev/null
  openssl req -newkey rsa:2048 -nodes -keyout "$p/apiserver.key" -out "$p/apiserver.csr" \
    -subj "/CN=kube-apiserver" 2>/dev/null
  printf 'subjectAltName=IP:%s,IP:10.96.0.1,DNS:kubernetes,DNS:kubernetes.default,DNS:localhost\n' "$ADDRESS" \
    >"$p/san.ext"
  openssl x509 -req -in "$p/apiserver.csr" -CA "$p/ca.crt" -CAkey "$p/ca.key" -CAcreateserial \
    -out "$p/apiserver.crt" -days 7 -extfile "$p/san.ext" 2>/dev/null
  # Static tokens: the admin (system:masters) and the node (system:nodes); random per cluster.
  ADMIN_TOKEN=$(openssl rand -hex 16)
  NODE_TOKEN=$(openssl rand -hex 16)
  printf '%s,admin,admin,system:masters\n%s,system:node:%s,%s,system:nodes\n' \
    "$ADMIN_TOKEN" "$NODE_TOKEN" "$NODE" "$NODE" >"$p/tokens.csv"
  chmod 600 "$p"/*.key "$p/tokens.csv"
}

up() {
  [[ -x $KUBE/kubelet && -x $ETCD && -x $CTRD/containerd ]] ||
    die "the cluster's binaries are not built: npm run setup (scripts/setup-tools.sh)"
  command -v runc >/dev/null || die "runc is not installed: npm run setup"
  # One cluster at a time: the one on record is taken down first if its API server is gone (a test run
  # killed outright), and refused while it runs.
  if [[ -s $RECORD ]]; then
    local other
    other=$(<"$RECORD")
    if [[ -f $other/pids/apiserver ]] && running "$(<"$other/pids/apiserver")"; then
      die "a cluster runs in $other (cluster.sh down $other)"
    fi
    log "removing what a killed cluster left in $other"
    down_in "$other"
  fi
  if ip -o addr show dev lo | grep -q " $ADDRESS/"; then
    die "$ADDRESS is on lo already, and no cluster on record: remove it (ip addr del $ADDRESS/32 dev lo)"
  fi
  printf '%s\n' "$DIR" >"$RECORD"
  mkdir -p "$DIR"/{logs,pids,etcd,containerd,cni,kubelet,ipam}
  ip addr add "$ADDRESS/32" dev lo
  pki
  kubeconfig admin "$ADMIN_TOKEN" >"$DIR/admin.kubeconfig"
  kubeconfig node "$NODE_TOKEN" >"$DIR/node.kubeconfig"
  chmod 600 "$DIR"/*.kubeconfig

  start etcd "$ETCD" --data-dir "$DIR/etcd" --listen-client-urls "http://$ADDRESS:2379" \
    --advertise-client-urls "http://$ADDRESS:2379" --listen-peer-urls "http://$ADDRESS:2380" \
    --initial-advertise-peer-urls "http://$ADDRESS:2380" --initial-cluster "default=http://$ADDRESS:2380" \
    --listen-metrics-urls ""
  start apiserver "$KUBE/kube-apiserver" --etcd-servers="http://$ADDRESS:2379" --bind-address="$ADDRESS" \
    --secure-port=6443 --advertise-address="$ADDRESS" --tls-cert-file="$DIR/pki/apiserver.crt" \
    --tls-private-key-file="$DIR/pki/apiserver.key" --client-ca-file="$DIR/pki/ca.crt" \
    --token-auth-file="$DIR/pki/tokens.csv" --authorization-mode=Node,RBAC \
    --service-account-key-file="$DIR/pki/sa.pub" --service-account-signing-key-file="$DIR/pki/sa.key" \
    --service-account-issuer=https://kubernetes.default.svc --service-cluster-ip-range=10.96.0.0/24 \
    --kubelet-preferred-address-types=InternalIP --allow-privileged=true \
    --enable-admission-plugins=NodeRestriction
  wait_for "the API server" 60 "$KUBE/kubectl" --kubeconfig "$DIR/admin.kubeconfig" get --raw /readyz
  start controller-manager "$KUBE/kube-controller-manager" --kubeconfig "$DIR/admin.kubeconfig" \
    --bind-address=127.0.0.1 --secure-port=0 --leader-elect=false \
    --service-account-private-key-file="$DIR/pki/sa.key" --root-ca-file="$DIR/pki/ca.crt" \
    --controllers='*,-nodeipam,-service-lb-controller,-cloud-node-lifecycle'
  start scheduler "$KUBE/kube-scheduler" --kubeconfig "$DIR/admin.kubeconfig" --bind-address=127.0.0.1 \
    --secure-port=0 --leader-elect=false

  # The node: containerd with runc (through the wrapper), CNI's bridge, network namespaces under its state.
  sed "s|@RUNC@|$HERE/runc-wrapper|" "$HERE/containerd.toml" | sed "s|@DIR@|$DIR|g" >"$DIR/containerd/config.toml"
  sed "s|@DIR@|$DIR|g; s|@BRIDGE@|$BRIDGE|; s|@POD_CIDR@|$POD_CIDR|" "$HERE/cni.conflist" \
    >"$DIR/cni/10-benchspec.conflist"
  start containerd env "PATH=$CTRD:$PATH" "$CTRD/containerd" --config "$DIR/containerd/config.toml"
  wait_for containerd 30 "$CTRD/ctr" --address "$DIR/containerd/containerd.sock" version
  image "$(pause_image)"
  sed "s|@DIR@|$DIR|g; s|@ADDRESS@|$ADDRESS|g" "$HERE/kubelet.yaml" >"$DIR/kubelet.yaml"
  start kubelet "$KUBE/kubelet" --config "$DIR/kubelet.yaml" --kubeconfig "$DIR/node.kubeconfig" \
    --root-dir "$DIR/kubelet" --hostname-override "$NODE" --node-ip "$ADDRESS" --cert-dir "$DIR/kubelet/pki"
  wait_for "the node" 90 kubectl_ wait --for=condition=Ready "node/$NODE" --timeout=2s
  # The node lifecycle controller lifts the not-ready taint once the node is Ready.
  wait_for "the node's taints lifted" 60 bash -c \
    "[[ -z \$(\"$KUBE/kubectl\" --kubeconfig \"$DIR/admin.kubeconfig\" get node $NODE -o jsonpath='{.spec.taints}') ]]"
  log "up: KUBECONFIG=$DIR/admin.kubeconfig"
}

# The pod sandbox image: a static "pause" (tools/pause.go), built once into the tools cache.
pause_image() {
  local archive="$TOOLS_DIR/kube-pause.tar"
  if [[ ! -s $archive ]]; then
    local work
    work=$(mktemp -d)
    cp "$HERE/pause.go" "$work/main.go"
    printf 'module pause\n\ngo 1.24\n' >"$work/go.mod"
    mkdir -p "$work/root"
    (cd "$work" && CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o root/pause .)
    bash "$HERE/oci-image.sh" "$archive.tmp" benchspec.local/pause:1 "$work/root" /pause
    mv "$archive.tmp" "$archive"
    rm -rf "$work"
  fi
  printf '%s\n' "$archive"
}

image() {
  ctr_ images import "$1" >/dev/null
}

# stop NAME: TERM, then KILL after 10 s.
stop() {
  local file=$DIR/pids/$1 pid i
  [[ -f $file ]] || return 0
  pid=$(<"$file")
  kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true
  for ((i = 0; i < 100; i++)); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  kill -KILL -- "-$pid" 2>/dev/null || kill -KILL "$pid" 2>/dev/null || true
  rm -f "$file"
}

# running PID: whether the process exists and is not a zombie.
running() {
  local state
  state=$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null) || return 1
  [[ -n $state && $state != Z ]]
}

# down_in OTHER-DIR: down for another cluster's directory.
down_in() {
  local DIR=$1
  down
}

down() {
  if [[ ! -d $DIR ]]; then
    if [[ -s $RECORD && $(<"$RECORD") == "$DIR" ]]; then rm -f -- "$RECORD"; fi
    return 0
  fi
  if [[ -f $DIR/pids/apiserver && -f $DIR/pids/kubelet ]]; then
    # Through the kubelet: each pod's containers stopped and its network torn down by CNI.
    kubectl_ delete jobs,pods --all --all-namespaces --grace-period=5 --wait=false >/dev/null 2>&1 || true
    kubectl_ wait --for=delete pods --all --all-namespaces --timeout=60s >/dev/null 2>&1 || true
  fi
  stop kubelet
  if [[ -S $DIR/containerd/containerd.sock ]]; then
    local task
    for task in $(ctr_ tasks ls -q 2>/dev/null); do
      ctr_ tasks kill -s SIGKILL "$task" >/dev/null 2>&1 || true
      ctr_ tasks delete -f "$task" >/dev/null 2>&1 || true
    done
  fi
  local name
  for name in scheduler controller-manager apiserver etcd containerd; do stop "$name"; done
  # Shims outlive containerd by design; this cluster's are named by its socket.
  pkill -KILL -f "containerd-shim-runc-v2 .*-address $DIR/containerd/containerd.sock" 2>/dev/null || true
  local mount
  while read -r mount; do umount -l "$mount" 2>/dev/null || true; done < <(
    awk -v dir="$DIR/" 'index($2, dir) == 1 { print $2 }' /proc/mounts | sort -r
  )
  ip link del "$BRIDGE" 2>/dev/null || true
  ip addr del "$ADDRESS/32" dev lo 2>/dev/null || true
  rm -rf -- "$DIR"
  if [[ -s $RECORD && $(<"$RECORD") == "$DIR" ]]; then rm -f -- "$RECORD"; fi
}

command=${1:-}
DIR=${2:-}
[[ -n $command && -n $DIR ]] || die "usage: cluster.sh up|down DIR | cluster.sh image DIR ARCHIVE"
DIR=$(realpath -m -- "$DIR")
case $command in
  up)
    [[ ! -e $DIR || -z $(ls -A -- "$DIR") ]] || die "$DIR is not empty"
    # A failed start leaves nothing behind.
    trap 'status=$?; if ((status != 0)); then down; fi' EXIT
    up
    trap - EXIT
    ;;
  down) down ;;
  image) image "${3:?usage: cluster.sh image DIR ARCHIVE}" ;;
  *) die "unknown command $command (up, down, image)" ;;
esac
