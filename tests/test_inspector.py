"""An independent MCP client, the MCP Inspector CLI (installed by the setup with the Node 22 it
needs), reads every shipped world's tools and finds no schema-portability problem with `--strict`;
the same check does report a world whose tool declares a `type` array."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from mcp_world.world import available_worlds

INSPECTOR = Path(sys.prefix) / "inspector" / "node_modules" / ".bin"


def strict_tools_list(engine_url: str, world: str, db: Path, cwd: Path) -> subprocess.CompletedProcess:
    assert (INSPECTOR / "mcp-inspector").exists(), "the setup installs the MCP Inspector (scripts/bootstrap.sh)"
    env = {**os.environ, "PATH": f"{INSPECTOR}:{os.environ['PATH']}"}
    # `--` ends the inspector's own options: the server's --transport is not the inspector's.
    return subprocess.run(["mcp-inspector", "--cli", "--method", "tools/list", "--strict", "--", sys.executable, "-m",
                           "mcp_world", "serve", "--transport", "stdio", "--engine", engine_url, "--world", world,
                           "--db", str(db)], capture_output=True, text=True, timeout=180, env=env, cwd=cwd)


@pytest.mark.parametrize("world", available_worlds())
def test_every_shipped_worlds_tools_pass_the_inspectors_strict_portability_check(world, engine_url, tmp_path):
    r = strict_tools_list(engine_url, world, tmp_path / "i.db", tmp_path)
    assert r.returncode == 0, r.stderr[-2000:]
    assert '"world_reset"' in r.stdout  # it read the tools
    assert "Issue:" not in r.stderr and "warning" not in r.stderr, r.stderr[-2000:]


def test_the_strict_check_reports_a_tool_with_a_type_array(engine_url, tmp_path):
    world = tmp_path / "nullable.yaml"
    world.write_text("""\
name: nullable
description: A ticket tracker whose one tool takes a nullable field.
domains: [mcp]
tools:
  - name: find_ticket
    description: Find a ticket.
    inputSchema: {type: object, properties: {owner: {type: [string, "null"]}}}
""")
    r = strict_tools_list(engine_url, str(world), tmp_path / "i.db", tmp_path)
    assert "`type` is an array" in r.stderr and "1 warning" in r.stderr, r.stderr[-2000:]
