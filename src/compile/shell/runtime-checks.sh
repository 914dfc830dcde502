# shellcheck shell=bash
# Part of every compiled benchspec.sh (src/compile/shell/script.ts assembles it). This header, up to the
# first blank line, is not copied into the script.

if ((BASH_VERSINFO[0] < 5)); then
  echo "benchspec: this script needs bash 5 or newer (this is bash $BASH_VERSION)" >&2
  exit 127
fi
shopt -s inherit_errexit
export LC_ALL=C
