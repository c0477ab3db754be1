#!/usr/bin/env bash
# smol-tool-mcp: a Python environment with the mcp SDK 1.x (FastMCP), in which the tests run a server
# script written for mcp 1.x and check that smol's client (mcp 2.x) uses its tools: users keep such
# scripts running in an environment of their own (packages/tools/mcp/README.md). Into
# ~/.cache/smol/mcp-v1 (or $SMOL_MCP_V1_DIR). Idempotent: nothing to do when it imports FastMCP.
set -euo pipefail

home="${SMOL_MCP_V1_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/smol/mcp-v1}"
if [ -x "$home/bin/python" ] && "$home/bin/python" -c "import mcp.server.fastmcp" 2>/dev/null; then
  echo "60-mcp-v1: mcp 1.x already in $home"
  exit 0
fi
if command -v uv >/dev/null 2>&1; then
  uv venv -q "$home"
  uv pip install -q --python "$home/bin/python" "mcp>=1.10,<2"
else
  python3 -m venv "$home"
  "$home/bin/pip" install -q "mcp>=1.10,<2"
fi
echo "60-mcp-v1: mcp $("$home/bin/python" -c 'import importlib.metadata as m; print(m.version("mcp"))') in $home"
