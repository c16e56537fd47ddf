"""The fidelity baseline: `mcp-world eval` on the project's own real terminal episodes
(fixtures/real/devbox-terminal.jsonl, recorded by the shadow executor) on the embedded engine.

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
        cmd = [sys.executable, "-m", "mcp_world", "eval", "--data", str(ROOT / "fixtures/real/devbox-terminal.jsonl"),
               "--engine", a.engine, "--db", f"{tmp}/fidelity.db", "--json", f"{tmp}/fidelity.json"]
        if a.limit:
            cmd += ["--limit", str(a.limit)]
        sys.exit(subprocess.call(cmd))
