"""kill -9 of the server in the middle of a run: the database opens cleanly, every step whose
result reached a client is there, and a restarted server continues the episodes it is given again."""

import signal
import sqlite3

import anyio
import pytest

from .helpers import http_client, http_server

pytestmark = pytest.mark.anyio


async def test_a_server_killed_mid_run_loses_no_answered_step_and_continues_after_restart(engine_url, tmp_path):
    db = tmp_path / "crash.db"
    answered: list[tuple[str, int, str]] = []
    in_flight: dict[int, str] = {}  # agent -> the command it is waiting on
    killed = False
    failures: list[BaseException] = []

    async def agent(i, url):
        try:
            async with http_client(url, f"crash-{i}") as c:
                for n in range(50):
                    # Every other step is the world model's (the state cannot answer `groups`): engine
                    # requests are in flight when the server is killed.
                    command = f"echo agent{i} step{n}" if n % 2 == 0 else "groups"
                    in_flight[i] = command
                    r = await c.call_tool("run_command", {"command": command})
                    del in_flight[i]
                    if not r.is_error:
                        answered.append((f"crash-{i}", r.meta["mcp-world/step"], r.content[0].text))
        except Exception as err:  # noqa: BLE001 - only after the kill is this expected
            if not killed:
                failures.append(err)

    with http_server(engine_url, db) as (url, proc):
        async with anyio.create_task_group() as tg:
            for i in range(6):
                tg.start_soon(agent, i, url)
            with anyio.fail_after(300):
                while len(answered) < 12 or "groups" not in in_flight.values():
                    await anyio.sleep(0.05)
            waiting = dict(in_flight)
            killed = True
            proc.send_signal(signal.SIGKILL)
            proc.wait(timeout=30)
    assert not failures, failures  # no agent failed before the kill
    assert "groups" in waiting.values()  # the kill landed while the world model was answering
    assert len(answered) >= 12
    con = sqlite3.connect(db)
    assert con.execute("pragma integrity_check").fetchone()[0] == "ok"
    logged = {(e, i): o for e, i, o in con.execute("select episode_id, idx, observation from steps")}
    con.close()
    for episode, idx, observation in answered:
        assert logged.get((episode, idx)) == observation
    episode = max({e for e, _ in logged}, key=lambda e: sum(1 for x, _ in logged if x == e))
    last = max(i for (e, i) in logged if e == episode)

    with http_server(engine_url, db) as (url, _):
        with anyio.fail_after(300):
            async with http_client(url, episode) as c:
                r = await c.call_tool("run_command", {"command": "pwd"})
                assert r.meta["mcp-world/episode"] == episode and r.meta["mcp-world/step"] == last + 1
                transcript = (await c.read_resource("episode://current")).contents[0].text
                assert f"echo agent{episode.removeprefix('crash-')} step0" in transcript
            async with http_client(url, "after-restart") as c:
                r = await c.call_tool("run_command", {"command": "pwd"})
                assert r.meta["mcp-world/step"] == 0
