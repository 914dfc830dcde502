# shellcheck shell=bash
# shellcheck disable=SC2004 # BS_TDIR is an associative array, declared in src/compile/shell/runtime.sh
# The fs target kind's part of a compiled benchspec.sh (src/targets/fs/shell.ts calls these functions). This
# header, up to the first blank line, is not copied into the script.

# bs_fs_setup NAME ROOT keep|remove: files go into a fresh subdirectory of ROOT (ROOT itself a new temp
# dir when empty); only what the script created is removed. Cases see it through a link with a plain path.
bs_fs_setup() {
  local name=$1 root=$2 keep=$3 work
  if [[ -z $root ]]; then
    root=$(mktemp -d "$BS_TMPBASE/benchspec-target.XXXXXX")
    if [[ $keep != keep ]]; then BS_CLEAN+=("$root"); fi
  fi
  if [[ $root != /* ]]; then root=$PWD/$root; fi
  if [[ ! -d $root ]]; then bs_die "target $name: $root is not a directory"; fi
  work=$(mktemp -d -- "$root/benchspec.XXXXXX") || bs_die "target $name: cannot create a directory in $root"
  if [[ $keep == keep ]]; then
    bs_log "target $name: keeping files in $work"
  else
    BS_CLEAN+=("$work")
  fi
  ln -s -- "$work" "$BS_STATE/targets/$name"
  BS_TDIR[$name]=$BS_STATE/targets/$name
}

bs_fs_enter() {
  BS_DIR=${BS_TDIR[$1]}/$BS_CASE
  mkdir -p -- "$BS_DIR"
}

bs_fs_leave() {
  if [[ $2 != keep ]]; then rm -rf -- "${BS_TDIR[$1]:?}/$BS_CASE"; fi
}

# bs_fs_purge: the current case's directory emptied (a workload's purge).
bs_fs_purge() {
  bs_log "$BS_CASE: purge: emptying $BS_DIR"
  rm -rf -- "${BS_DIR:?}"
  mkdir -p -- "$BS_DIR"
}
