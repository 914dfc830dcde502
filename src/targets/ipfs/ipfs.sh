# shellcheck shell=bash
# Part of every compiled benchspec.sh (src/targets/ipfs/shell.ts writes it): the throwaway Kubo node of a
# `launch: kubo` target that BENCHSPEC_TARGET_<name> does not place, as benchspec run launches it. This
# header, up to the first blank line, is not copied into the script.

# The daemon and repo of each target's node; whether a repetition has used it (`fresh` renews only then).
declare -A BS_KUBO_PID=() BS_KUBO_REPO=() BS_KUBO_USED=()

# bs_kubo_launch NAME: an offline Kubo node with an empty repo in the script's temp directory, its RPC API
# on a loopback port the daemon picks (the test profile: loopback addresses, no bootstrap peers); sets
# BS_TAPI[NAME] to its address (a multiaddr).
bs_kubo_launch() {
  local name=$1 repo addr waited=0
  repo=$(mktemp -d "$BS_STATE/targets/kubo.XXXXXX")
  BS_KUBO_REPO[$name]=$repo
  bs_kubo_watchdog "$repo"
  IPFS_PATH=$repo IPFS_TELEMETRY=off ipfs init --profile test --empty-repo >"$repo.log" 2>&1 ||
    bs_die "target $name: ipfs init failed: $(tail -n 3 -- "$repo.log")"
  # --offline: no swarm at all, so nothing leaves the machine and no peer can fetch the benchmark data.
  IPFS_PATH=$repo IPFS_TELEMETRY=off ipfs daemon --offline >>"$repo.log" 2>&1 </dev/null &
  BS_KUBO_PID[$name]=$!
  printf '%s\n' "$!" >"$repo.pid"
  # The repo's api file holds the API's multiaddr (no newline) once it listens.
  until [[ -s $repo/api ]] && addr=$(<"$repo/api") && [[ $addr =~ ^/ip4/127\.0\.0\.1/tcp/[0-9]+$ ]] &&
    curl -sf -X POST -o /dev/null "http://127.0.0.1:${addr##*/}/api/v0/id"; do
    if ! kill -0 "${BS_KUBO_PID[$name]}" 2>/dev/null; then
      bs_die "target $name: the Kubo daemon exited: $(tail -n 3 -- "$repo.log")"
    fi
    waited=$((waited + 1))
    if ((waited > 600)); then bs_die "target $name: the Kubo daemon did not answer within 30 s"; fi
    sleep 0.05
  done
  # As bs_ipfs_target_check leaves an address: the multiaddr the CLI and the engine's curl both read.
  # shellcheck disable=SC2004 # BS_TAPI is associative (runtime.sh declares it)
  BS_TAPI[$name]=$addr
  BS_KUBO_USED[$name]=
  bs_log "target $name: started a Kubo node (repo $repo, API ${BS_TAPI[$name]})"
}

# bs_kubo_watchdog REPO: a kill -9 of the script runs no cleanup, so a watchdog outlives it: once the
# script is gone, it stops the daemon whose pid is in REPO.pid and removes the repo. Started before the
# repo is filled; it ends by itself when bs_kubo_stop removed the repo first.
bs_kubo_watchdog() {
  # Its own bash, not a subshell: `pkill -f benchspec.sh` must not take the watchdog with the script.
  # shellcheck disable=SC2016 # expanded by that bash
  bash -c '
    trap "" INT TERM
    # Alive: not gone, and not a zombie no one reaps (a container whose init does not).
    alive() { local state; read -r _ _ state _ <"/proc/$1/stat" 2>/dev/null && [[ $state != Z ]]; }
    while alive "$1"; do
      if [[ ! -e $2 ]]; then exit 0; fi
      sleep 0.5
    done
    if [[ -s $2.pid ]]; then
      read -r pid <"$2.pid"
      kill -TERM "$pid" 2>/dev/null
      while kill -0 "$pid" 2>/dev/null; do sleep 0.1; done
    fi
    rm -rf -- "$2" "$2.log" "$2.pid"' benchspec-kubo-watchdog "$$" "$1" </dev/null >/dev/null 2>&1 &
}

# bs_kubo_stop NAME: its daemon stopped and its repo removed (nothing when none was launched).
bs_kubo_stop() {
  local name=$1 pid=${BS_KUBO_PID[$1]:-}
  if [[ -n $pid ]]; then
    kill -TERM "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  fi
  if [[ -n ${BS_KUBO_REPO[$name]:-} ]]; then
    rm -rf -- "${BS_KUBO_REPO[$name]}" "${BS_KUBO_REPO[$name]}".{log,pid}
  fi
  unset "BS_KUBO_PID[$name]" "BS_KUBO_REPO[$name]"
}

# bs_kubo_fresh NAME: a fresh node for what comes next (`fresh`), once the node has been used.
bs_kubo_fresh() {
  local name=$1
  if [[ -z ${BS_KUBO_PID[$name]:-} ]]; then return 0; fi
  if [[ -n ${BS_KUBO_USED[$name]} ]]; then
    bs_kubo_stop "$name"
    bs_kubo_launch "$name"
  fi
  BS_KUBO_USED[$name]=1
}
