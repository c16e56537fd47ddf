"""The fidelity baseline: `mcp-world eval` on the project's own real data in fixtures/real/ — the
devbox terminal episodes recorded by the shadow executor, and the mirror sessions of the reference
MCP servers server-memory and mcp-server-git — on the embedded engine.

    .venv/bin/python benchmarks/fidelity.py [--limit N]
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
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        data = [arg for f in sorted((ROOT / "fixtures" / "real").glob("*.jsonl")) for arg in ("--data", str(f))]
        cmd = [sys.executable, "-m", "mcp_world", "eval", *data, "--engine", a.engine, "--db", f"{tmp}/fidelity.db", "--json", f"{tmp}/fidelity.json"]
        if a.limit:
            cmd += ["--limit", str(a.limit)]
        sys.exit(subprocess.call(cmd))
