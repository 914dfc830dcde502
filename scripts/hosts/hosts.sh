#!/usr/bin/env bash
# Test hosts on this one machine. Each host is its own network, UTS, IPC, mount and PID namespace with its own
# address on a bridge, hostname (h1, h2, …), sshd and storage at /srv/benchspec-host; the root file system
# (node, the checkout) is shared, as an NFS-mounted home would be. Optionally a Slurm cluster over the hosts
# and a file system shared by all of them (sshfs, see docs/testing.md for why not NFS), both served by a
# `head` host that is not one of the clients; optionally `fio --server` on every client host. Needs root.
#
#   hosts.sh up   [--slot K|auto] [--count N] [--slurm] [--shared] [--size SIZE] [--fio-server PORT] [--owner PID]
#   hosts.sh down [--slot K | --all]
#   hosts.sh exec [--slot K] HOST COMMAND...
#
# Slot K (default 0) owns bridge bsbrK with 10.77.K.1/24 (head .2, hN .10+N) and the state directory
# $BENCHSPEC_HOSTS_DIR/K (default /run/benchspec-hosts/K); `--slot auto` claims a free slot from 1 up, so
# parallel test files never share one. `up` prints the state directory, whose rig.json describes the hosts;
# it is a no-op when the slot is already up as asked. With --owner, a later `up` tears the slot down once that
# process has gone (a test run that was killed before its clean-up).
set -euo pipefail
# sshd's StrictModes refuses keys in group- or world-writable directories.
umask 022
# ip, sshd and the Slurm daemons live in sbin, which a caller's PATH may lack.
PATH=$PATH:/usr/sbin:/sbin

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
BASE=${BENCHSPEC_HOSTS_DIR:-/run/benchspec-hosts}
PRIVATE=/srv/benchspec-host
SHARED=/srv/benchspec-shared
MAX_SLOT=99 # keeps interface names within 15 characters and addresses within 10.77.0-99

log() { printf '[hosts] %s\n' "$*" >&2; }
die() {
  log "$*"
  exit 1
}
usage() { sed -n '/^#   hosts.sh/s/^# *//p' "${BASH_SOURCE[0]}" >&2 && exit 2; }

select_slot() {
  slot=$1
  [[ $slot =~ ^[0-9]+$ ]] && ((slot <= MAX_SLOT)) || die "slot must be 0..$MAX_SLOT, not $slot"
  dir=$BASE/$slot
  bridge=bsbr$slot
  subnet=10.77.$slot
}
address() { if [[ $1 == head ]]; then echo "$subnet.2"; else echo "$subnet.$((10 + ${1#h}))"; fi; }
veth() { echo "bs$slot$1"; }

# wait_for SECONDS WHAT COMMAND...: polls COMMAND until it succeeds.
wait_for() {
  local seconds=$1 what=$2
  local deadline=$((SECONDS + seconds))
  shift 2
  until "$@"; do
    ((SECONDS < deadline)) || die "timed out after $seconds s waiting for $what"
    sleep 0.05
  done
}

# A zombie still answers kill -0, so liveness reads the process state.
alive() {
  local stat
  stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
  stat=${stat##*) }
  [[ ${stat:0:1} != Z ]]
}
dead() { ! alive "$1"; }
start_time() {
  local stat fields
  stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
  read -ra fields <<<"${stat##*) }"
  echo "${fields[19]}" # field 22, counted from field 3
}
owner_gone() {
  local pid start
  [[ -f $1/owner ]] || return 1
  read -r pid start <"$1/owner"
  [[ $(start_time "$pid" || true) != "$start" ]]
}

in_host() {
  local pid=$1
  shift
  nsenter --target "$pid" --net --uts --ipc --mount --pid -- "$@"
}
host_pid() { cat "$dir/hosts/$1/pid"; }

# Serialises claiming, reaping and tearing down slots. The lock is on $BASE itself, so removing an empty $BASE
# leaves no lock file behind; a process that locked a $BASE removed meanwhile retries on the new one. $BASE is
# only removed under the lock: removed after it, it could vanish between another process's claim and mkdir.
lock_base() {
  while :; do
    mkdir -p "$BASE"
    exec 9<"$BASE"
    flock 9
    [[ /proc/self/fd/9 -ef $BASE ]] && return
    exec 9<&-
  done
}
unlock_base() { exec 9<&-; }
remove_base_if_empty() { rmdir "$BASE" 2>/dev/null || true; }

teardown_slot() {
  local holders=() file pid
  # A host's PID 1 dies by SIGKILL (the only signal it takes from outside its namespace) and the kernel then
  # kills every process on the host; its namespaces and mounts go with the last of them. unshare (their parent,
  # run with --kill-child) is killed too in case PID 1 was never recorded. Recorded pids are checked against the
  # command line first, so a stale file never kills an unrelated process.
  for file in "$dir"/hosts/*/pid "$dir"/hosts/*/unshare.pid; do
    [[ -f $file ]] || continue
    pid=$(<"$file")
    if alive "$pid" && runs_in_slot "$pid"; then
      kill -KILL "$pid" 2>/dev/null || true
      holders+=("$pid")
    fi
  done
  for pid in "${holders[@]}"; do wait_for 10 "process $pid to exit" dead "$pid"; done
  local link
  for link in $(ip -o link show | sed -n "s/^[0-9]*: \(bs${slot}\(h[0-9]*\|head\)\)[@:].*/\1/p"); do
    ip link del "$link" 2>/dev/null || true
  done
  ip link del "$bridge" 2>/dev/null || true
  rm -rf "$dir"
}

runs_in_slot() {
  local args arg
  mapfile -d '' args 2>/dev/null <"/proc/$1/cmdline" || return 1
  for arg in "${args[@]}"; do [[ $arg == "$dir" ]] && return 0; done
  return 1
}

reap_abandoned() {
  local d
  for d in "$BASE"/[0-9]*; do
    [[ -d $d ]] && owner_gone "$d" || continue
    log "tearing down slot ${d##*/}: its owner has exited"
    select_slot "${d##*/}"
    teardown_slot
  done
}

write_keys_and_configs() {
  local name
  mkdir -m 0700 "$dir/ssh"
  mkdir -p "$dir/bin" "$dir/hosts"
  ssh-keygen -q -t ed25519 -N '' -C benchspec-hosts -f "$dir/ssh/id_ed25519"
  cp "$dir/ssh/id_ed25519.pub" "$dir/ssh/authorized_keys"
  : >"$dir/ssh/known_hosts"
  printf '127.0.0.1 localhost\n%s.1 coordinator\n' "$subnet" >"$dir/etc-hosts"
  {
    printf '# benchspec test hosts, slot %s: ssh -F %s h1\n' "$slot" "$dir/ssh_config"
    for name in "${names[@]}"; do printf 'Host %s\n  HostName %s\n' "$name" "$(address "$name")"; done
    printf 'Host %s\n' "${names[*]}"
    printf '  User root\n  IdentityFile %s\n  IdentitiesOnly yes\n' "$dir/ssh/id_ed25519"
    printf '  UserKnownHostsFile %s\n  GlobalKnownHostsFile /dev/null\n' "$dir/ssh/known_hosts"
    printf '  StrictHostKeyChecking yes\n  BatchMode yes\n  ConnectTimeout 5\n  LogLevel ERROR\n'
  } >"$dir/ssh_config"
  # Code under test runs plain `ssh HOST …`: with $dir/bin first in PATH it gets this rig's configuration.
  printf '#!/bin/sh\nexec /usr/bin/ssh -F %s "$@"\n' "$dir/ssh_config" >"$dir/bin/ssh"
  chmod +x "$dir/bin/ssh"
  for name in "${names[@]}"; do
    mkdir -p "$dir/hosts/$name"
    ssh-keygen -q -t ed25519 -N '' -C "$name" -f "$dir/hosts/$name/ssh_host_ed25519_key"
    printf '%s,%s %s\n' "$name" "$(address "$name")" "$(cut -d' ' -f1-2 "$dir/hosts/$name/ssh_host_ed25519_key.pub")" \
      >>"$dir/ssh/known_hosts"
    printf '%s %s\n' "$(address "$name")" "$name" >>"$dir/etc-hosts"
    cat >"$dir/hosts/$name/sshd_config" <<EOF
ListenAddress $(address "$name")
HostKey $dir/hosts/$name/ssh_host_ed25519_key
PidFile $dir/hosts/$name/sshd.pid
AuthorizedKeysFile $dir/ssh/authorized_keys
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
UseDNS no
PrintMotd no
PrintLastLog no
Subsystem sftp internal-sftp
EOF
  done
}

start_host() {
  local name=$1 hostdir=$dir/hosts/$1 unshare_pid pid
  # --kill-child: PID 1 dies with unshare, so killing either ends the host.
  setsid unshare --net --uts --ipc --mount --propagation private --pid --fork --kill-child --mount-proc \
    bash "$HERE/host-init.sh" "$name" "$dir" "$size" </dev/null >"$hostdir/init.log" 2>&1 &
  unshare_pid=$!
  echo "$unshare_pid" >"$hostdir/unshare.pid"
  wait_for 10 "$name to start" started "$name" "$unshare_pid"
  pid=$(pgrep -P "$unshare_pid")
  echo "$pid" >"$hostdir/pid"

  local outer
  outer=$(veth "$name")
  ip link add "$outer" type veth peer name eth0 netns "$pid"
  ip link set "$outer" master "$bridge" up
  in_host "$pid" ip addr add "$(address "$name")/24" dev eth0
  in_host "$pid" ip link set eth0 up
  in_host "$pid" ip link set lo up
  # Daemons get no descriptor of ours: a caller reading our output would otherwise wait for them to exit.
  in_host "$pid" /usr/sbin/sshd -f "$hostdir/sshd_config" -E "$hostdir/sshd.log" </dev/null >/dev/null 2>&1
}
started() {
  [[ -e $dir/hosts/$1/ready ]] && return
  alive "$2" || die "$1 did not start: $(cat "$dir/hosts/$1/init.log")"
  return 1
}
sshd_listening() { [[ -s $dir/hosts/$1/sshd.pid ]]; }

write_slurm_conf() {
  local i
  mkdir -p "$dir/slurm/ctld"
  for ((i = 1; i <= count; i++)); do mkdir -p "$dir/slurm/spool/h$i"; done
  cat >"$dir/slurm/slurm.conf" <<EOF
ClusterName=benchspec$slot
SlurmctldHost=head($(address head))
# No munge: the cluster lives on one machine and one user, and auth/none saves a daemon and its key.
AuthType=auth/none
CredType=cred/none
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$dir/slurm/ctld
SlurmdSpoolDir=$dir/slurm/spool/%n
SlurmctldPidFile=$dir/slurm/slurmctld.pid
SlurmdPidFile=$dir/slurm/slurmd-%n.pid
SlurmctldLogFile=$dir/slurm/slurmctld.log
SlurmdLogFile=$dir/slurm/slurmd-%n.log
# No cgroups: processes are tracked through /proc, which each host's PID namespace has to itself.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
# Short timers: tests start and stop clusters in seconds.
SlurmdTimeout=30
InactiveLimit=0
MinJobAge=2
KillWait=2
EOF
  for ((i = 1; i <= count; i++)); do
    printf 'NodeName=h%d NodeAddr=%s CPUs=%d State=UNKNOWN\n' "$i" "$(address "h$i")" "$(nproc)"
  done >>"$dir/slurm/slurm.conf"
  printf 'PartitionName=hosts Nodes=ALL Default=YES MaxTime=INFINITE State=UP\n' >>"$dir/slurm/slurm.conf"
}

start_slurm() {
  write_slurm_conf
  local conf=$dir/slurm/slurm.conf i
  in_host "$(host_pid head)" /usr/sbin/slurmctld -f "$conf" </dev/null >/dev/null 2>&1
  for ((i = 1; i <= count; i++)); do
    in_host "$(host_pid "h$i")" /usr/sbin/slurmd -f "$conf" </dev/null >/dev/null 2>&1
  done
  wait_for 30 "the Slurm nodes to be idle" nodes_idle
}
nodes_idle() {
  local states
  states=$(SLURM_CONF=$dir/slurm/slurm.conf sinfo --noheader --Node --format=%T 2>/dev/null) || return 1
  [[ $(grep -cx idle <<<"$states") -eq $count ]]
}

# fio's server on every client host, on the host's address: it runs the jobs a `fio --client` sends it and
# goes with the host.
start_fio_servers() {
  local i
  for ((i = 1; i <= count; i++)); do
    in_host "$(host_pid "h$i")" fio "--server=ip:$(address "h$i"),$fio_port" --daemonize="$dir/hosts/h$i/fio.pid" \
      </dev/null >"$dir/hosts/h$i/fio.log" 2>&1
  done
  for ((i = 1; i <= count; i++)); do wait_for 10 "fio's server on h$i" fio_listening "h$i"; done
}
fio_listening() { in_host "$(host_pid "$1")" ss -Hltn "sport = :$fio_port" | grep -q LISTEN; }

# The head's storage, mounted over sftp by every client host at the same path.
mount_shared() {
  local i
  for ((i = 1; i <= count; i++)); do
    # No caching: a file one host writes is what the next host that looks sees.
    in_host "$(host_pid "h$i")" sshfs -F "$dir/ssh_config" "head:$PRIVATE" "$SHARED" \
      -o dir_cache=no,attr_timeout=0,entry_timeout=0,negative_timeout=0 </dev/null >/dev/null 2>&1
  done
}

write_rig_json() {
  local name first=1
  host_json() { printf '{"name":"%s","address":"%s","pid":%s}' "$1" "$(address "$1")" "$(host_pid "$1")"; }
  {
    printf '{"slot":%s,"dir":"%s","count":%s,' "$slot" "$dir" "$count"
    printf '"sshConfig":"%s","bin":"%s","privatePath":"%s",' "$dir/ssh_config" "$dir/bin" "$PRIVATE"
    if ((shared)); then printf '"sharedPath":"%s",' "$SHARED"; else printf '"sharedPath":null,'; fi
    if ((slurm)); then printf '"slurmConf":"%s",' "$dir/slurm/slurm.conf"; else printf '"slurmConf":null,'; fi
    if [[ -n $fio_port ]]; then printf '"fioPort":%s,' "$fio_port"; else printf '"fioPort":null,'; fi
    if ((slurm || shared)); then printf '"head":%s,' "$(host_json head)"; else printf '"head":null,'; fi
    printf '"hosts":['
    for name in "${names[@]}"; do
      [[ $name == head ]] && continue
      ((first)) || printf ','
      first=0
      host_json "$name"
    done
    printf ']}\n'
  } >"$dir/rig.json"
}

show_logs() {
  local file
  for file in "$dir"/hosts/*/init.log "$dir"/hosts/*/sshd.log "$dir"/hosts/*/fio.log "$dir"/slurm/*.log; do
    [[ -s $file ]] && log "--- $file" && tail -n 20 "$file" >&2
  done
  return 0
}

already_up() {
  [[ -f $dir/up && $(<"$dir/config") == "$config" ]] || return 1
  local file
  for file in "$dir"/hosts/*/pid; do alive "$(<"$file")" || return 1; done
}

cmd_up() {
  local requested=0 owner=""
  count=3 slurm=0 shared=0 size=256m fio_port=""
  while (($#)); do
    case $1 in
      --slot) requested=$2 && shift ;;
      --count) count=$2 && shift ;;
      --slurm) slurm=1 ;;
      --shared) shared=1 ;;
      --size) size=$2 && shift ;;
      --fio-server) fio_port=$2 && shift ;;
      --owner) owner=$2 && shift ;;
      *) usage ;;
    esac
    shift
  done
  [[ $count =~ ^[0-9]+$ ]] && ((count >= 1 && count <= 200)) || die "--count must be 1..200"
  [[ -z $fio_port || ($fio_port =~ ^[0-9]+$ && fio_port -ge 1 && fio_port -le 65535) ]] || die "--fio-server takes a port, 1..65535"
  [[ $BASE != *[\"\\\ ]* ]] || die "BENCHSPEC_HOSTS_DIR must not contain quotes, backslashes or blanks"
  config="count=$count slurm=$slurm shared=$shared size=$size fio=$fio_port"
  local started_at=${EPOCHREALTIME/./}

  lock_base
  reap_abandoned
  if [[ $requested == auto ]]; then
    local k
    for ((k = 1; k <= MAX_SLOT; k++)); do [[ -e $BASE/$k ]] || break; done
    ((k <= MAX_SLOT)) || die "all $MAX_SLOT slots under $BASE are in use"
    select_slot "$k"
  else
    select_slot "$requested"
    if already_up; then
      unlock_base
      echo "$dir"
      return
    fi
    teardown_slot
  fi
  mkdir -m 0755 "$dir"
  if [[ -n $owner ]]; then
    printf '%s %s\n' "$owner" "$(start_time "$owner" || die "owner $owner is not running")" >"$dir/owner"
  fi
  echo "$config" >"$dir/config"
  unlock_base

  trap 'status=$?; if ((status)); then show_logs; log "bring-up failed; tearing down slot $slot"; lock_base; teardown_slot; remove_base_if_empty; unlock_base; fi' EXIT
  names=()
  ((slurm || shared)) && names+=(head)
  local i
  for ((i = 1; i <= count; i++)); do names+=("h$i"); done
  write_keys_and_configs
  # sshd's privilege-separation directory is compiled in; Debian's service creates it the same way.
  [[ -d /run/sshd ]] || mkdir -m 0755 /run/sshd
  ip link add "$bridge" type bridge
  ip addr add "$subnet.1/24" dev "$bridge"
  ip link set "$bridge" up
  local name
  for name in "${names[@]}"; do start_host "$name"; done
  for name in "${names[@]}"; do wait_for 10 "sshd on $name" sshd_listening "$name"; done
  ((slurm)) && start_slurm
  ((shared)) && mount_shared
  [[ -n $fio_port ]] && start_fio_servers
  write_rig_json
  touch "$dir/up"
  trap - EXIT
  log "slot $slot up: ${#names[@]} hosts in $(((${EPOCHREALTIME/./} - started_at) / 1000)) ms"
  echo "$dir"
}

cmd_down() {
  local all=0
  select_slot 0
  while (($#)); do
    case $1 in
      --slot) select_slot "$2" && shift ;;
      --all) all=1 ;;
      *) usage ;;
    esac
    shift
  done
  [[ -d $BASE ]] || ((all)) || return 0
  lock_base
  if ((all)); then
    local d link
    for d in "$BASE"/[0-9]*; do
      [[ -d $d ]] || continue
      select_slot "${d##*/}"
      teardown_slot
    done
    # Interfaces of slots whose state directory was lost.
    for link in $(ip -o link show | sed -n 's/^[0-9]*: \(bs[0-9]*\(h[0-9]*\|head\)\|bsbr[0-9]*\)[@:].*/\1/p'); do
      ip link del "$link" 2>/dev/null || true
    done
  else
    teardown_slot
  fi
  remove_base_if_empty
  unlock_base
}

cmd_exec() {
  select_slot 0
  if [[ ${1:-} == --slot ]]; then
    select_slot "$2"
    shift 2
  fi
  (($# >= 2)) || usage
  local name=$1
  shift
  [[ -f $dir/hosts/$name/pid ]] || die "no host $name in slot $slot"
  in_host "$(host_pid "$name")" "$@"
}

[[ $(id -u) -eq 0 ]] || die "needs root (namespaces, a bridge, daemons)"
case ${1:-} in
  up) shift && cmd_up "$@" ;;
  down) shift && cmd_down "$@" ;;
  exec) shift && cmd_exec "$@" ;;
  *) usage ;;
esac
