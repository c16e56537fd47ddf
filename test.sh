#!/usr/bin/env bash
# The whole test suite: set everything up on first use, then run pytest. The real embedded engine
# is started once per test session (or a running `mcp-world engine start` is reused).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
bash "$ROOT/scripts/bootstrap.sh"
cd "$ROOT"
exec "${MCP_WORLD_VENV:-$ROOT/.venv}/bin/python" -m pytest "$@"
