#!/usr/bin/env bash
# PID 1 of one test host: hosts.sh starts it in fresh network, UTS, IPC, mount and PID namespaces. It names the
# host, gives it its own storage, then holds the namespaces (and reaps the host's orphans) until hosts.sh kills
# it, which kills every process on the host and frees its namespaces and mounts.
#   host-init.sh NAME STATE_DIR STORAGE_SIZE
set -euo pipefail
name=$1 dir=$2 size=$3

hostname "$name"

# The new mount namespace starts as a copy of the machine's: drop the copies of other tests' temporary mounts,
# loop-device file systems and namespace handles, which would otherwise stay busy here after their owners
# unmount them.
findmnt -rn -o TARGET,SOURCE,FSTYPE | while read -r target source fstype; do
  printf -v target '%b' "$target" # findmnt -r escapes blanks as \x20
  if [[ $fstype == nsfs || $source == /dev/loop* || $target == /tmp/* ]]; then
    umount -l "$target" 2>/dev/null || true
  fi
done

# /srv is a small tmpfs here so the mount points exist on this host only (nothing is created on the shared
# root file system); /srv/benchspec-host is the host's own storage, /srv/benchspec-shared where the shared
# file system is mounted.
mount -t tmpfs -o mode=0755,size=1m benchspec-srv /srv
mkdir /srv/benchspec-host /srv/benchspec-shared
mount -t tmpfs -o "mode=0755,size=$size" "benchspec-$name" /srv/benchspec-host
# The hosts resolve each other's names, as on a real cluster, without asking any DNS server.
mount --bind "$dir/etc-hosts" /etc/hosts

: >"$dir/hosts/$name/ready"
# Daemons (sshd, slurmd, slurmstepd, sshfs) detach and are adopted by PID 1; bash's SIGCHLD handler reaps them.
while :; do
  sleep infinity &
  wait $! || true
done
