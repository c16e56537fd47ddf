"""Every example is listed in examples/README.md and run (or parsed) here."""

import json
import subprocess
import sys

from mcp_world.paths import PROJECT_ROOT

EXAMPLES = PROJECT_ROOT / "examples"


def test_every_example_is_listed():
    listed = (EXAMPLES / "README.md").read_text()
    for f in EXAMPLES.iterdir():
        if f.name != "README.md":
            assert f"`{f.name}`" in listed, f.name


def test_the_agent_loop_example_runs_on_the_embedded_engine(engine_url, tmp_path):
    r = subprocess.run([sys.executable, str(EXAMPLES / "agent_loop.py"), "--engine", engine_url, "--db", str(tmp_path / "a.db")],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-2000:]
    assert "$ ls" in r.stdout and "3 steps logged" in r.stdout


def test_the_claude_desktop_config_is_valid():
    cfg = json.loads((EXAMPLES / "claude_desktop_config.json").read_text())
    server = cfg["mcpServers"]["mcp-world-devbox"]
    assert server["args"][:4] == ["-m", "mcp_world", "serve", "--transport"]
