"""The fidelity baseline: `mcp-world eval` on the project's own real data in fixtures/real/ — the
devbox terminal episodes recorded by the shadow executor, and the mirror sessions of the reference
MCP servers server-memory and mcp-server-git — on the embedded engine. devbox-sessions.jsonl is
left out: the shipped adapter was trained on it (and on 8 of the 10 devbox-terminal episodes).

    .venv/bin/python benchmarks/fidelity.py [--limit N] [--adapter none|DIR]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--limit", type=int)
    ap.add_argument("--engine", default="embedded")
    ap.add_argument("--adapter", help="none: the bare embedded model; default: the shipped adapter")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        files = ["devbox-terminal.jsonl", "git-mirror.jsonl", "memory-mirror.jsonl"]
        data = [arg for f in files for arg in ("--data", str(ROOT / "fixtures" / "real" / f))]
        cmd = [sys.executable, "-m", "mcp_world", "eval", *data, "--engine", a.engine, "--db", f"{tmp}/fidelity.db", "--json", f"{tmp}/fidelity.json"]
        if a.limit:
            cmd += ["--limit", str(a.limit)]
        if a.adapter:
            cmd += ["--adapter", a.adapter]
        sys.exit(subprocess.call(cmd))
