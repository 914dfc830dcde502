# shellcheck shell=bash
# shellcheck disable=SC2004 # BS_TDEV is an associative array, declared in src/compile/shell/runtime.sh
# The block target kind's part of a compiled benchspec.sh (src/targets/block/shell.ts calls these
# functions). This header, up to the first blank line, is not copied into the script.

# bs_block_setup NAME DEVICE: refuses anything but an unused block device: not mounted, not swap, no
# partition, holder (LVM, md, dm) or loop device over it mounted or swap.
bs_block_setup() {
  local name=$1 device=$2 dev
  if [[ -z $device ]]; then bs_die "target $name: no block device given"; fi
  dev=$(readlink -f -- "$device") || bs_die "target $name: cannot resolve $device"
  if [[ ! -b $dev ]]; then bs_die "target $name: $device is not a block device"; fi
  bs_block_unused "$name" "$dev"
  # shellcheck disable=SC2034 # read by the target's enter function
  BS_TDEV[$name]=$dev
}

# bs_block_overwrite NAME SIGNATURE UUID: a destructive target destroys what its device holds, so the spec
# must name it. Refuses holders, partitions without a table blkid recognises, and a partition table or
# signature that SIGNATURE (and UUID, when not empty) do not name exactly: a changed disk is refused again.
bs_block_overwrite() {
  local name=$1 signature=$2 uuid=$3 dev=${BS_TDEV[$1]} sys p h out rc=0 key value type id what ack
  local partitions=() holders=()
  local -A found=()
  sys=/sys/class/block/${dev##*/}
  for p in "$sys/${dev##*/}"*; do
    if [[ -e $p/partition ]]; then partitions+=("${p##*/}"); fi
  done
  for p in "$sys" "${partitions[@]/#/$sys/}"; do
    for h in "$p"/holders/*; do
      if [[ -e $h ]]; then holders+=("/dev/${h##*/}"); fi
    done
  done
  if ((${#holders[@]} > 0)); then
    bs_die "target $name: refusing $dev: it is held by ${holders[*]} (device mapper, LVM, md…)"
  fi
  local loops
  loops=$(bs_block_loops "$dev" "${partitions[@]/#//dev/}")
  if [[ -n $loops ]]; then
    bs_die "target $name: refusing $dev: loop device ${loops//$'\n'/, } is attached over it (what it holds would be destroyed; losetup -d it first)"
  fi
  command -v blkid >/dev/null || bs_die "target $name: cannot check what $dev holds: blkid (util-linux) is not installed"
  # blkid's low-level probe reads the device's own sectors; exit status 2: nothing, 8: more than one candidate.
  out=$(blkid -p -o export "$dev") || rc=$?
  case $rc in
    0) ;;
    2) out= ;;
    8) bs_die "target $name: refusing $dev: blkid finds more than one signature on it (wipefs -n $dev lists them); clear it yourself (wipefs -a) if all of it is to go" ;;
    *) bs_die "target $name: cannot check what $dev holds: blkid exited with status $rc" ;;
  esac
  while IFS='=' read -r key value; do
    if [[ -n $key ]]; then found[$key]=$value; fi
  done <<<"$out"
  if [[ -n ${found[PTTYPE]:-} && -n ${found[TYPE]:-} ]]; then
    bs_die "target $name: refusing $dev: it holds ${found[PTTYPE]} (uuid ${found[PTUUID]:-}) and ${found[TYPE]} (uuid ${found[UUID]:-}); overwrite names one signature, so clear it yourself (wipefs -a) if all of it is to go"
  fi
  if [[ -z ${found[PTTYPE]:-} ]] && ((${#partitions[@]} > 0)); then
    bs_die "target $name: refusing $dev: it has partitions (${partitions[*]}) but no partition table blkid recognises"
  fi
  type=${found[PTTYPE]:-${found[TYPE]:-}}
  id=${found[PTUUID]:-${found[UUID]:-}}
  if [[ -z $type ]]; then return 0; fi
  if [[ $signature == "$type" && (-z $uuid || ${uuid,,} == "${id,,}") ]]; then return 0; fi
  what="$type${id:+ (uuid $id)}"
  if [[ -n ${found[PTTYPE]:-} ]]; then
    what="a $what partition table${partitions[*]:+ with partitions ${partitions[*]}}"
  else
    what="a $what signature"
  fi
  ack="overwrite: { signature: $type${id:+, uuid: $id} }"
  if [[ -n $signature ]]; then
    bs_die "target $name: refusing $dev: the spec's overwrite names $signature${uuid:+ (uuid $uuid)}, but it holds $what; to destroy it, add $ack to its target"
  fi
  bs_die "target $name: refusing $dev: it holds $what, which destructive: true alone does not destroy; to destroy it, add $ack to its target"
}

# bs_block_purge: the current case's device discarded (blkdiscard) when it supports discard, else zeros
# written over all of it (blkdiscard --zeroout). bs_block_setup checked it like any write.
bs_block_purge() {
  local max
  max=$(cat "/sys/class/block/${BS_DEVICE##*/}/queue/discard_max_bytes" 2>/dev/null) || max=0
  if ((max > 0)); then
    bs_log "$BS_CASE: purge: discarding $BS_DEVICE (blkdiscard)"
    blkdiscard "$BS_DEVICE" || bs_fail "purge of $BS_DEVICE failed: blkdiscard exited with status $?"
  else
    bs_log "$BS_CASE: purge: writing zeros over $BS_DEVICE (no discard support)"
    blkdiscard --zeroout "$BS_DEVICE" || bs_fail "purge of $BS_DEVICE failed: blkdiscard --zeroout exited with status $?"
  fi
}

# bs_block_loops DEVICE…: the loop devices attached over any DEVICE: backed by the device node itself, or by
# a file on a file system that lives on it (df names the device holding the file).
bs_block_loops() {
  local f backing under loop
  for f in /sys/block/loop*/loop/backing_file; do
    [[ -r $f ]] || continue
    backing=$(<"$f")
    loop=${f%/loop/backing_file}
    loop=/dev/${loop##*/}
    if [[ -b $backing ]]; then
      under=$(readlink -f -- "$backing") || continue
    elif [[ -e $backing ]]; then
      under=$(df --output=source -- "$backing" 2>/dev/null | tail -n 1) || continue
      under=$(readlink -f -- "$under" 2>/dev/null) || continue
    else
      continue
    fi
    if [[ " $* " == *" $under "* ]]; then printf '%s\n' "$loop"; fi
  done
}

bs_block_unused() {
  local name=$1 dev=$2 base sys p h related=() numbers=() line src
  base=${dev##*/}
  sys=/sys/class/block/$base
  related=("$dev")
  if [[ -d $sys ]]; then
    for p in "$sys/$base"*; do
      if [[ -e $p/partition ]]; then related+=("/dev/${p##*/}"); fi
    done
    for h in "$sys"/holders/* "$sys/$base"*/holders/*; do
      if [[ -e $h ]]; then related+=("/dev/${h##*/}"); fi
      for p in "$h"/holders/*; do
        if [[ -e $p ]]; then related+=("/dev/${p##*/}"); fi
      done
    done
  fi
  # Loop devices attached over any of them (the kernel lists no holder for those), and over those in turn.
  local loop count=0
  while ((count != ${#related[@]})); do
    count=${#related[@]}
    while IFS= read -r loop; do
      if [[ " ${related[*]} " != *" $loop "* ]]; then related+=("$loop"); fi
    done < <(bs_block_loops "${related[@]}")
  done
  for p in "${related[@]}"; do
    if [[ -r /sys/class/block/${p##*/}/dev ]]; then numbers+=("$(cat "/sys/class/block/${p##*/}/dev")"); fi
  done
  while read -r src _; do
    src=$(readlink -f -- "$src" 2>/dev/null) || continue
    for p in "${related[@]}"; do
      if [[ $src == "$p" ]]; then bs_die "target $name: refusing $dev: $p is mounted"; fi
    done
  done </proc/mounts
  if [[ -r /proc/self/mountinfo ]]; then
    while read -r _ _ line _; do
      for p in "${numbers[@]}"; do
        if [[ $line == "$p" ]]; then bs_die "target $name: refusing $dev: device $p is mounted"; fi
      done
    done </proc/self/mountinfo
  fi
  if [[ -r /proc/swaps ]]; then
    while read -r src _; do
      [[ $src == /* ]] || continue
      src=$(readlink -f -- "$src" 2>/dev/null) || continue
      for p in "${related[@]}"; do
        if [[ $src == "$p" ]]; then bs_die "target $name: refusing $dev: $p is used as swap"; fi
      done
    done </proc/swaps
  fi
}
