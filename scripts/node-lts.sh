#!/usr/bin/env bash
# Installs the current Node.js LTS (from the npm registry's `node` package) into the tools cache, once, and
# prints its bin directory: `PATH="$(bash scripts/node-lts.sh):$PATH" npm test` runs the suite on it. CI runs
# the suite on the machine's Node and on this one.
set -euo pipefail

NODE_LTS_VERSION="24.21.0"
TOOLS_DIR="${BENCHSPEC_TOOLS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/benchspec/tools}"
dest="$TOOLS_DIR/node-$NODE_LTS_VERSION"
bin="$dest/node_modules/node/bin"
if [[ ! -x "$bin/node" ]] || [[ "$("$bin/node" --version)" != "v$NODE_LTS_VERSION" ]]; then
  printf '[node-lts] installing Node.js %s into %s\n' "$NODE_LTS_VERSION" "$dest" >&2
  mkdir -p "$dest"
  # The package's install script fetches the platform's binary package from the same registry.
  npm install --prefix "$dest" --no-audit --no-fund --no-save "node@$NODE_LTS_VERSION" >&2
  [[ "$("$bin/node" --version)" == "v$NODE_LTS_VERSION" ]] || {
    printf '[node-lts] %s/node is not v%s\n' "$bin" "$NODE_LTS_VERSION" >&2
    exit 1
  }
fi
printf '%s\n' "$bin"
