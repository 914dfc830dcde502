# shellcheck shell=bash
# shellcheck disable=SC2004 # BS_TDEV is an associative array, declared in src/compile/shell/runtime.sh
# The block target kind's part of a compiled benchspec.sh (src/targets/block/shell.ts calls these
# functions). This header, up to the first blank line, is not copied into the script.

# bs_block_setup NAME DEVICE: refuses anything but an unused block device: not mounted, not swap, no
# partition or holder (LVM, md, dm) of it mounted or swap.
bs_block_setup() {
  local name=$1 device=$2 dev
  if [[ -z $device ]]; then bs_die "target $name: no block device given"; fi
  dev=$(readlink -f -- "$device") || bs_die "target $name: cannot resolve $device"
  if [[ ! -b $dev ]]; then bs_die "target $name: $device is not a block device"; fi
  bs_block_unused "$name" "$dev"
  # shellcheck disable=SC2034 # read by the target's enter function
  BS_TDEV[$name]=$dev
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
