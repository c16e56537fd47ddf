"""The fidelity baseline: `mcp-world eval` on the project's own real data in fixtures/real/ — the
devbox terminal episodes recorded by the shadow executor, and the mirror sessions of the reference
MCP servers server-memory and mcp-server-git — on the embedded engine. devbox-sessions.jsonl is
left out: the shipped adapter was trained on it (and on 8 of the 10 devbox-terminal episodes).

    .venv/bin/python benchmarks/fidelity.py [--limit N] [--adapter none|DIR] [--only terminal|mcp]
                                            [--strict-proxy]

--strict-proxy asks the same engine through benchmarks/_strict_proxy.py under the `openai`
profile (documented fields only: no prefill, no grammar), to show what an engine without vLLM's
extensions costs in fidelity.
"""

from __future__ import annotations

import argparse
import contextlib
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

FILES = {"terminal": ["devbox-terminal.jsonl"], "mcp": ["git-mirror.jsonl", "memory-mirror.jsonl"]}

if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--limit", type=int)
    ap.add_argument("--engine", default="embedded")
    ap.add_argument("--adapter", help="none: the bare embedded model; default: the shipped adapter")
    ap.add_argument("--only", choices=sorted(FILES), help="one domain's data only")
    ap.add_argument("--strict-proxy", action="store_true", help="through a strict hosted-API proxy (openai profile)")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp, contextlib.ExitStack() as stack:
        files = FILES[a.only] if a.only else [f for fs in FILES.values() for f in fs]
        data = [arg for f in files for arg in ("--data", str(ROOT / "fixtures" / "real" / f))]
        engine = ["--engine", a.engine]
        if a.strict_proxy:
            from benchmarks._strict_proxy import StrictProxy
            from mcp_world import embedded
            from mcp_world.paths import cache_dir

            url = a.engine
            if url == "embedded":
                url, started = embedded.background_or_start(cache_dir(None), say=print)
                if started is not None:
                    stack.callback(started.stop)
            proxy = StrictProxy(url, "sk-fidelity")
            engine = ["--engine", stack.enter_context(proxy.serving()), "--engine-key", "sk-fidelity",
                      "--engine-profile", "openai"]
        cmd = [sys.executable, "-m", "mcp_world", "eval", *data, *engine, "--db", f"{tmp}/fidelity.db",
               "--json", f"{tmp}/fidelity.json"]
        if a.limit:
            cmd += ["--limit", str(a.limit)]
        if a.adapter:
            cmd += ["--adapter", a.adapter]
        code = subprocess.call(cmd)
        if a.strict_proxy:
            print(f"strict proxy: {len(proxy.bodies)} requests forwarded, {len(proxy.refused)} refused")
        sys.exit(code)
