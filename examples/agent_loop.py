"""A minimal agent loop over MCP: start mcp-world over stdio, walk a few steps in the devbox
world, print what the (simulated) machine answered, and check the episode was logged.

    .venv/bin/python examples/agent_loop.py [--engine embedded|URL] [--db PATH]
"""

from __future__ import annotations

import argparse
import asyncio
import sqlite3
import sys
import tempfile

from mcp import Client, StdioServerParameters

PLAN = ["ls", "cat README.md", "git log --oneline"]


async def main(engine: str, db: str) -> None:
    server = StdioServerParameters(command=sys.executable, args=[
        "-m", "mcp_world", "serve", "--transport", "stdio", "--world", "devbox", "--engine", engine, "--db", db])
    async with Client(server, read_timeout_seconds=600) as client:
        tools = [t.name for t in (await client.list_tools()).tools]
        print("tools:", ", ".join(tools))
        for command in PLAN:
            result = await client.call_tool("run_command", {"command": command})
            status = "error" if result.is_error else f"exit {result.structured_content['exit_code']}"
            print(f"$ {command}   [{status}]\n{result.content[0].text}")
    steps = sqlite3.connect(db).execute("select count(*) from steps").fetchone()[0]
    assert steps == len(PLAN), f"expected {len(PLAN)} logged steps, found {steps}"
    print(f"{steps} steps logged in {db}")


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--engine", default="embedded")
    ap.add_argument("--db", default=tempfile.mktemp(suffix=".db"))
    a = ap.parse_args()
    asyncio.run(main(a.engine, a.db))
