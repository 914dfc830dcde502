#!/usr/bin/env bash
# A Kubernetes cluster on this machine, for the tests of the kubernetes transport: etcd, the API server,
# the controller manager (its Job controller hands out the indexes of an Indexed Job) and the scheduler,
# and one or more nodes, each a kubelet over its own containerd and runc, built by scripts/setup-tools.sh.
# Nothing is pulled from a registry: images are imported from archives made here (scripts/kube/oci-image.sh).
#
#   cluster.sh up DIR [--nodes N]   start it with N nodes (default 1); DIR/admin.kubeconfig reaches it (as
#                                   system:masters)
#   cluster.sh down DIR             stop it and remove everything it made: its pods first (through the
#                                   kubelets, so their network is torn down), then its processes, mounts,
#                                   network namespaces, bridges and address
#   cluster.sh image DIR ARCHIVE    import an OCI image archive into every node
#   cluster.sh link DIR K up|down   connect or cut node K's network (a node lost, and found again)
#
# Node K is named bskube-node-K. Node 1 and every server are on 10.99.0.1 (added to lo; the kubelet refuses
# a loopback node address, and a fixed address keeps the ports off everything else's); node K > 1 is a
# network namespace bskube-K whose veth bskube-vK is on the bridge bskube-link (10.99.1.254/24), at
# 10.99.1.K. Node K's pods are on its own bridge bskube0, 10.244.(K-1).0/24, gateway 10.244.(K-1).1 — the
# host routes to each node's pods through the node, no NAT and no iptables rules. No kube-proxy and no DNS:
# a pod reaches servers by address. The nodes share the machine's file systems and cgroups (each kubelet
# and containerd has its own directories under DIR/nodes/K). One cluster at a time on a machine.
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
# Each node's pod bridge (in its own network namespace), and the bridge joining the nodes K > 1 to the host.
BRIDGE=bskube0
LINK=bskube-link
LINK_ADDRESS=10.99.1.254
MAX_NODES=9
# Where the running cluster's directory is on record.
RECORD=/run/benchspec-kube

log() { printf '[kube] %s\n' "$*" >&2; }
die() {
  log "$*"
  exit 1
}

kubectl_() { "$KUBE/kubectl" --kubeconfig "$DIR/admin.kubeconfig" "$@"; }
# ctr_ K ARGS...: ctr of node K's containerd.
ctr_() {
  local k=$1
  shift
  "$CTRD/ctr" --address "$DIR/nodes/$k/containerd/containerd.sock" -n k8s.io "$@"
}
node_name() { printf 'bskube-node-%s\n' "$1"; }
node_address() { if (($1 == 1)); then printf '%s\n' "$ADDRESS"; else printf '10.99.1.%s\n' "$1"; fi; }
netns() { printf 'bskube-%s\n' "$1"; }
# The number of nodes of the cluster in DIR.
node_count() { find "$DIR/nodes" -mindepth 1 -maxdepth 1 -type d 2>/dev/null | wc -l; }

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
  # Static tokens: the admin (system:masters) and each node (system:nodes); random per cluster.
  ADMIN_TOKEN=$(openssl rand -hex 16)
  printf '%s,admin,admin,system:masters\n' "$ADMIN_TOKEN" >"$p/tokens.csv"
  local k name
  NODE_TOKENS=()
  for ((k = 1; k <= NODES; k++)); do
    name=$(node_name "$k")
    NODE_TOKENS[k]=$(openssl rand -hex 16)
    printf '%s,system:node:%s,%s,system:nodes\n' "${NODE_TOKENS[k]}" "$name" "$name" >>"$p/tokens.csv"
  done
  chmod 600 "$p"/*.key "$p/tokens.csv"
}

# network K: node K's network namespace on the link bridge, and the host's route to its pods.
network() {
  local k=$1 ns
  ns=$(netns "$k")
  if ! ip link show "$LINK" >/dev/null 2>&1; then
    ip link add "$LINK" type bridge
    ip addr add "$LINK_ADDRESS/24" dev "$LINK"
    ip link set "$LINK" up
  fi
  ip netns add "$ns"
  ip link add "bskube-v$k" type veth peer name eth0 netns "$ns"
  ip link set "bskube-v$k" master "$LINK" up
  ip -n "$ns" addr add "$(node_address "$k")/24" dev eth0
  ip -n "$ns" link set lo up
  ip -n "$ns" link set eth0 up
  ip -n "$ns" route add default via "$LINK_ADDRESS"
  # The node forwards between its pods and the link (a new namespace starts with forwarding off).
  ip netns exec "$ns" sysctl -qw net.ipv4.ip_forward=1
  ip route add "10.244.$((k - 1)).0/24" via "$(node_address "$k")"
}

# node K: node K's containerd (runc through the wrapper, CNI's bridge) and kubelet, in its network namespace.
node() {
  local k=$1 dir=$DIR/nodes/$1 name address enter=()
  name=$(node_name "$k")
  address=$(node_address "$k")
  mkdir -p "$dir"/{containerd,cni,kubelet,ipam,pod-logs}
  if ((k > 1)); then
    network "$k"
    # nsenter, not `ip netns exec`: the node's mounts (images, volumes, pod network namespaces) stay in the
    # host's mount namespace, where `down` finds them.
    enter=(nsenter "--net=/run/netns/$(netns "$k")")
  fi
  sed "s|@RUNC@|$HERE/runc-wrapper|; s|@DIR@|$dir|g" "$HERE/containerd.toml" >"$dir/containerd/config.toml"
  sed "s|@DIR@|$dir|g; s|@BRIDGE@|$BRIDGE|; s|@POD_CIDR@|10.244.$((k - 1)).0/24|" "$HERE/cni.conflist" \
    >"$dir/cni/10-benchspec.conflist"
  start "containerd-$k" "${enter[@]}" env "PATH=$CTRD:$PATH" "$CTRD/containerd" \
    --config "$dir/containerd/config.toml"
  wait_for "node $k's containerd" 30 "$CTRD/ctr" --address "$dir/containerd/containerd.sock" version
  image_on "$k" "$(pause_image)"
  kubeconfig "$name" "${NODE_TOKENS[k]}" >"$dir/kubelet.kubeconfig"
  chmod 600 "$dir/kubelet.kubeconfig"
  sed "s|@DIR@|$dir|g; s|@ADDRESS@|$address|g" "$HERE/kubelet.yaml" >"$dir/kubelet.yaml"
  start "kubelet-$k" "${enter[@]}" "$KUBE/kubelet" --config "$dir/kubelet.yaml" \
    --kubeconfig "$dir/kubelet.kubeconfig" --root-dir "$dir/kubelet" --hostname-override "$name" \
    --node-ip "$address" --cert-dir "$dir/kubelet/pki"
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
  local k
  for ((k = 2; k <= NODES; k++)); do
    if ip netns list | grep -qw "$(netns "$k")"; then
      die "the network namespace $(netns "$k") exists, and no cluster on record: remove it (ip netns del)"
    fi
  done
  printf '%s\n' "$DIR" >"$RECORD"
  mkdir -p "$DIR"/{logs,pids,etcd}
  ip addr add "$ADDRESS/32" dev lo
  pki
  kubeconfig admin "$ADMIN_TOKEN" >"$DIR/admin.kubeconfig"
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

  for ((k = 1; k <= NODES; k++)); do node "$k"; done
  for ((k = 1; k <= NODES; k++)); do
    local name
    name=$(node_name "$k")
    wait_for "node $k" 90 kubectl_ wait --for=condition=Ready "node/$name" --timeout=2s
    # The node lifecycle controller lifts the not-ready taint once the node is Ready.
    wait_for "node $k's taints lifted" 60 bash -c \
      "[[ -z \$(\"$KUBE/kubectl\" --kubeconfig \"$DIR/admin.kubeconfig\" get node $name -o jsonpath='{.spec.taints}') ]]"
  done
  log "up ($NODES node$( ((NODES == 1)) || printf s)): KUBECONFIG=$DIR/admin.kubeconfig"
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

image_on() {
  ctr_ "$1" images import "$2" >/dev/null
}

image() {
  local k
  for ((k = 1; k <= $(node_count); k++)); do image_on "$k" "$1"; done
}

# link K up|down: node K's veth on the link bridge (node 1, on the host's own addresses, cannot be cut).
link() {
  local k=$1 state=$2
  ((k > 1 && k <= $(node_count))) || die "node $k cannot be cut: nodes 2 to $(node_count) can"
  [[ $state == up || $state == down ]] || die "link DIR K up|down, not $state"
  ip link set "bskube-v$k" "$state"
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
  local k count
  count=$(node_count)
  # A cut node is connected again, so that its kubelet tears its pods down like the others'.
  for ((k = 2; k <= count; k++)); do ip link set "bskube-v$k" up 2>/dev/null || true; done
  if [[ -f $DIR/pids/apiserver && -f $DIR/pids/kubelet-1 ]]; then
    # Through the kubelets: each pod's containers stopped and its network torn down by CNI.
    kubectl_ delete jobs,pods --all --all-namespaces --grace-period=5 --wait=false >/dev/null 2>&1 || true
    kubectl_ wait --for=delete pods --all --all-namespaces --timeout=60s >/dev/null 2>&1 || true
  fi
  for ((k = 1; k <= count; k++)); do
    stop "kubelet-$k"
    if [[ -S $DIR/nodes/$k/containerd/containerd.sock ]]; then
      local task
      for task in $(ctr_ "$k" tasks ls -q 2>/dev/null); do
        ctr_ "$k" tasks kill -s SIGKILL "$task" >/dev/null 2>&1 || true
        ctr_ "$k" tasks delete -f "$task" >/dev/null 2>&1 || true
      done
    fi
    stop "containerd-$k"
    # Shims outlive containerd by design; this cluster's are named by its socket.
    pkill -KILL -f "containerd-shim-runc-v2 .*-address $DIR/nodes/$k/containerd/containerd.sock" 2>/dev/null || true
  done
  local name
  for name in scheduler controller-manager apiserver etcd; do stop "$name"; done
  local mount
  while read -r mount; do umount -l "$mount" 2>/dev/null || true; done < <(
    awk -v dir="$DIR/" 'index($2, dir) == 1 { print $2 }' /proc/mounts | sort -r
  )
  # The kubelets' links to their containers' logs, which live under DIR.
  local link
  for link in /var/log/containers/*.log; do
    if [[ -L $link && $(readlink -- "$link") == "$DIR/"* ]]; then rm -f -- "$link"; fi
  done
  ip link del "$BRIDGE" 2>/dev/null || true
  for ((k = 2; k <= count; k++)); do ip netns del "$(netns "$k")" 2>/dev/null || true; done
  ip link del "$LINK" 2>/dev/null || true
  ip addr del "$ADDRESS/32" dev lo 2>/dev/null || true
  rm -rf -- "$DIR"
  if [[ -s $RECORD && $(<"$RECORD") == "$DIR" ]]; then rm -f -- "$RECORD"; fi
}

command=${1:-}
DIR=${2:-}
[[ -n $command && -n $DIR ]] ||
  die "usage: cluster.sh up DIR [--nodes N] | down DIR | image DIR ARCHIVE | link DIR K up|down"
DIR=$(realpath -m -- "$DIR")
case $command in
  up)
    NODES=1
    if [[ ${3:-} == --nodes ]]; then NODES=${4:-}; fi
    [[ $NODES =~ ^[1-9]$ ]] || die "--nodes takes 1 to $MAX_NODES, not ${NODES:-nothing}"
    [[ ! -e $DIR || -z $(ls -A -- "$DIR") ]] || die "$DIR is not empty"
    # A failed start leaves nothing behind.
    trap 'status=$?; if ((status != 0)); then down; fi' EXIT
    up
    trap - EXIT
    ;;
  down) down ;;
  image) image "${3:?usage: cluster.sh image DIR ARCHIVE}" ;;
  link) link "${3:?usage: cluster.sh link DIR K up|down}" "${4:?usage: cluster.sh link DIR K up|down}" ;;
  *) die "unknown command $command (up, down, image, link)" ;;
esac
