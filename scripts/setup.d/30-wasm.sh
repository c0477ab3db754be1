#!/usr/bin/env bash
# smol-executor-wasm: Pyodide (CPython compiled to WebAssembly) from the npm registry, into the cache
# folder the executor looks in (~/.cache/smol/pyodide, or $SMOL_PYODIDE_DIR). Idempotent: a second
# run with the pinned version already there does nothing. Needs Node.js >= 18 and npm.
set -euo pipefail
cd "$(dirname "$0")/../.."

version=$(sed -n 's/^PYODIDE_VERSION = "\(.*\)"$/\1/p' packages/executors/wasm/src/smol_executor_wasm/runtime.py)
home="${SMOL_PYODIDE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/smol/pyodide}"
manifest="$home/node_modules/pyodide/package.json"

if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  echo "30-wasm: installing Node.js and npm from Debian"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs npm >/dev/null
fi

if [ -f "$manifest" ] && grep -q "\"version\": \"$version\"" "$manifest"; then
  echo "30-wasm: pyodide@$version already in $home"
  exit 0
fi
mkdir -p "$home"
npm install --prefix "$home" --no-audit --no-fund --loglevel=error "pyodide@$version"
echo "30-wasm: pyodide@$version installed in $home"
