"""The capability, end to end, as a user runs it: the real server process, real MCP clients over
stdio and streamable HTTP, the real embedded engine, the real SQLite log."""

import json
import sqlite3

import anyio
import pytest
from lxml import etree, html

from mcp_world import embedded

from .helpers import http_client, http_server, stdio_client

pytestmark = pytest.mark.anyio


def rows(db, episode=None):
    con = sqlite3.connect(db)
    con.row_factory = sqlite3.Row
    q = "select * from steps" + (" where episode_id = ?" if episode else "") + " order by episode_id, idx"
    out = [dict(r) for r in con.execute(q, (episode,) if episode else ())]
    con.close()
    return out


def episodes(db):
    con = sqlite3.connect(db)
    con.row_factory = sqlite3.Row
    out = [dict(r) for r in con.execute("select * from episodes")]
    con.close()
    return out


async def test_a_five_step_terminal_episode_over_stdio(engine_url, tmp_path):
    db = tmp_path / "e.db"
    commands = ["ls", "cat README.md", "mkdir docs", "cd src", "pwd"]
    results = []
    with anyio.fail_after(600):
        # --state off: every step goes to the world model (answers from the state are tested apart).
        async with stdio_client(engine_url, db, "--world", "devbox", "--seed", "11", "--state", "off") as c:
            names = {t.name for t in (await c.list_tools()).tools}
            assert names == {"run_command", "world_reset"}
            for cmd in commands:
                results.append(await c.call_tool("run_command", {"command": cmd}))
    logged = rows(db)
    assert [r["idx"] for r in logged] == [0, 1, 2, 3, 4]
    assert [json.loads(r["arguments"])["command"] for r in logged] == commands
    (ep,) = episodes(db)
    assert ep["world_name"] == "devbox" and ep["model"] == embedded.served_name(embedded.default_adapter()) and ep["seed"] == 11
    # Every step is a real prediction (60 of 60 such steps valid on 12 seeds; the bounded re-ask included).
    for res, row in zip(results, logged):
        assert not res.is_error, (row["arguments"], res.content[0].text)
        assert row["error_kind"] is None and row["provenance"] == "model" and row["observation"] == res.content[0].text
        assert set(res.structured_content) == {"output", "exit_code", "cwd"}
        assert row["prompt_tokens"] > 100 and row["completion_tokens"] >= 1 and row["latency_ms"] > 0
    assert results[3].structured_content["cwd"] == "/home/user/notes-app/src"
    assert results[4].structured_content["cwd"] == "/home/user/notes-app/src"  # `cd` carried to the next step


async def test_a_three_step_browser_episode_over_http(engine_url, tmp_path):
    db = tmp_path / "b.db"
    with http_server(engine_url, db, "--world", "webshop", "--seed", "5") as (url, _):
        with anyio.fail_after(600):
            async with http_client(url, "shopper-1") as c:
                results = [
                    await c.call_tool("browser_navigate", {"url": "https://greenleaf.example/"}),
                    await c.call_tool("browser_click", {"target": "Earl Grey"}),
                    await c.call_tool("browser_back", {}),
                ]
    logged = rows(db, "shopper-1")
    assert [r["tool"] for r in logged] == ["browser_navigate", "browser_click", "browser_back"]
    # The home page is one the world knows (answered as it is); Earl Grey's is the model's, in the
    # site's own head and menus, and nothing of another site's examples.
    assert [r["provenance"] for r in logged] == ["state", "model", "state"]
    earl_grey = results[1].content[0].text
    assert '<link rel="stylesheet" href="/static/shop.css">' in earl_grey and "Cart (0)" in earl_grey
    assert "Books Example" not in earl_grey and results[1].structured_content["url"] == "https://greenleaf.example/tea/earl-grey"
    # Every page parses (36 of 36 such steps on 12 seeds, since a looping <head> is re-asked).
    assert [r.is_error for r in results] == [False, False, False], [r.content[0].text[:300] for r in results]
    for r in results:
        text = r.content[0].text
        assert text.lstrip().lower().startswith("<!doctype html")
        doc = html.document_fromstring(text)
        assert doc.find("body") is not None
        assert set(r.structured_content) == {"url", "status", "title"}
    assert results[0].structured_content["url"] == "https://greenleaf.example/"


async def test_android_episodes_over_http_get_valid_uiautomator_dumps(engine_url, tmp_path):
    """Three android actions, each the first of its own episode, at once (the engine batches them:
    one after another they took 90 s); every answer must be a dump that parses."""
    db = tmp_path / "a.db"
    actions = {"phone-launch": ("android_launch_app", {"package": "com.android.settings"}),
               "phone-tap": ("android_tap", {"target": "Network & internet"}),
               "phone-back": ("android_press_key", {"key": "BACK"})}
    results = {}

    async def act(url, episode):
        async with http_client(url, episode) as c:
            tool, arguments = actions[episode]
            results[episode] = await c.call_tool(tool, arguments)
            if episode == "phone-launch":
                results["bad"] = await c.call_tool("android_tap", {"x": 5, "target": "Wi-Fi"})

    with http_server(engine_url, db, "--world", "phone", "--seed", "3") as (url, _):
        with anyio.fail_after(500):
            async with anyio.create_task_group() as tg:
                for episode in actions:
                    tg.start_soon(act, url, episode)
    bad = results.pop("bad")
    assert bad.is_error and "bad_arguments" in bad.content[0].text
    assert len(rows(db, "phone-launch")) == 2 and len(rows(db, "phone-tap")) == 1
    for episode, r in results.items():
        assert not r.is_error, (episode, r.content[0].text)
        text = r.content[0].text
        assert text.startswith("<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy")
        root = etree.fromstring(text.encode())
        assert root.tag == "hierarchy" and root.findall(".//node")
        assert all(n.get("bounds", "").startswith("[") for n in root.iter("node"))


async def test_eight_concurrent_http_episodes_never_see_each_other(engine_url, tmp_path):
    db = tmp_path / "c.db"
    markers = [f"marker{i}x{i * 7}" for i in range(8)]

    async def agent(i, url, out):
        async with http_client(url, f"agent-{i}") as c:
            for cmd in (f"mkdir {markers[i]}", f"ls {markers[i]}"):
                await c.call_tool("run_command", {"command": cmd})
            out[i] = json.loads((await c.read_resource("episode://current")).contents[0].text)

    transcripts = {}
    with http_server(engine_url, db, "--world", "devbox") as (url, _):
        with anyio.fail_after(600):
            async with anyio.create_task_group() as tg:
                for i in range(8):
                    tg.start_soon(agent, i, url, transcripts)
    for i, t in transcripts.items():
        assert t["id"] == f"agent-{i}"
        assert [s["arguments"]["command"] for s in t["steps"]] == [f"mkdir {markers[i]}", f"ls {markers[i]}"]
        others = [m for j, m in enumerate(markers) if j != i]
        assert not any(m in json.dumps(t) for m in others)
    logged = rows(db)
    assert len(logged) == 16
    assert {r["episode_id"] for r in logged} == {f"agent-{i}" for i in range(8)}


async def test_http_calls_that_name_no_episode_each_get_a_fresh_world_and_the_log_says_so(engine_url, tmp_path):
    """A client of the 2026-07-28 protocol has no session: without X-Episode-Id each call is an episode
    of its own (DESIGN.md), so its writes seem lost. The server's log says so, and what keeps one world."""
    db = tmp_path / "u.db"
    with http_server(engine_url, db, "--world", "devbox") as (url, proc):
        with anyio.fail_after(300):
            async with http_client(url, None) as c:
                await c.call_tool("run_command", {"command": "mkdir made_here"})
                await c.call_tool("run_command", {"command": "ls -d made_here"})
    said = proc.stdout.read()
    assert len({r["episode_id"] for r in rows(db)}) == 2
    assert said.count("named no episode") == 1, said[-3000:]  # (the 1st, 10th, 100th… such episode)
    assert "send 'X-Episode-Id: NAME'" in said and "POST /episodes" in said


async def test_an_engine_answer_over_the_observation_limit_is_refused_and_the_next_call_works(engine_url, tmp_path):
    db = tmp_path / "o.db"
    with anyio.fail_after(600):
        async with stdio_client(engine_url, db, "--world", "webshop", "--max-observation-chars", "40") as c:
            r = await c.call_tool("browser_navigate", {"url": "https://greenleaf.example/checkout"})  # a page the model writes
            assert r.is_error and "observation_too_large" in r.content[0].text and "limit is 40" in r.content[0].text
            listed = await c.list_tools()
            assert listed.tools  # the server is still serving
    (row,) = rows(db)
    assert row["error_kind"] == "observation_too_large" and row["observation"] is None


async def test_the_same_seed_and_actions_give_identical_observations(engine_url, tmp_path):
    outs = []
    for run in range(2):
        async with stdio_client(engine_url, tmp_path / f"d{run}.db", "--world", "devbox", "--seed", "42",
                                "--state", "off") as c:
            with anyio.fail_after(300):
                outs.append([(await c.call_tool("run_command", {"command": cmd})).content[0].text
                             for cmd in ("ls", "cat requirements.txt")])
    assert outs[0] == outs[1]


