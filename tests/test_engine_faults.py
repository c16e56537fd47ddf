"""Engine faults: an engine that dies, hangs, answers garbage or errors. Each call gets a clear
error or a valid observation, the log stays whole, and an embedded engine that dies is restarted."""

import http.server
import json
import os
import signal
import sqlite3
import threading
import time

import anyio
import psutil
import pytest
from mcp import Client

from mcp_world.engines import VLLMEngine
from mcp_world.paths import cache_dir
from mcp_world.server import build_server

from .helpers import stdio_client

pytestmark = pytest.mark.anyio


class FaultyEngine(http.server.BaseHTTPRequestHandler):
    """A deliberately broken OpenAI-compatible endpoint (a fault injector, not a world model)."""

    mode = "garbage"
    posts = 0

    def do_POST(self):  # noqa: N802
        self.rfile.read(int(self.headers.get("content-length", 0)))
        FaultyEngine.posts += 1
        if FaultyEngine.mode == "drop" or (FaultyEngine.mode == "drop-once" and FaultyEngine.posts == 1):
            self.close_connection = True  # the connection closes under the request, no answer
            return
        if FaultyEngine.mode == "slow":
            time.sleep(3)
        if FaultyEngine.mode == "error":
            body, status = b'{"error": "out of memory"}', 500
        elif FaultyEngine.mode == "garbage":
            body, status = b"<html>502 Bad Gateway</html>", 200
        elif FaultyEngine.mode == "wrong-shape":
            body, status = json.dumps({"choices": []}).encode(), 200
        elif FaultyEngine.mode == "huge":  # a rogue engine: far more than any observation may be
            body = json.dumps({"choices": [{"message": {"content": "x" * 70_000}, "finish_reason": "stop"}],
                               "usage": {"prompt_tokens": 3, "completion_tokens": 9000}}).encode()
            status = 200
        else:
            body = json.dumps({"choices": [{"message": {"content": "fine\n"}, "finish_reason": "stop"}],
                               "usage": {"prompt_tokens": 3, "completion_tokens": 1}}).encode()
            status = 200
        try:
            self.send_response(status)
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up first (the timeout case)

    def log_message(self, *a):
        pass


@pytest.fixture
def faulty_url():
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), FaultyEngine)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{srv.server_address[1]}"
    srv.shutdown()


async def test_a_connection_dropped_under_a_request_is_retried_once(faulty_url):
    from mcp_world.engines import CompletionRequest
    from mcp_world.errors import AgentFault

    engine = VLLMEngine(faulty_url, model="m", timeout_s=5.0)
    request = CompletionRequest(messages=[{"role": "user", "content": "ls"}], max_tokens=8, seed=0)
    try:
        FaultyEngine.mode, FaultyEngine.posts = "drop-once", 0
        assert (await engine.complete(request)).text == "fine\n" and FaultyEngine.posts == 2
        FaultyEngine.mode, FaultyEngine.posts = "drop", 0
        with pytest.raises(AgentFault, match="unreachable"):
            await engine.complete(request)
        assert FaultyEngine.posts == 2  # once more, not forever
    finally:
        await engine.aclose()


async def test_slow_garbage_and_failing_engines_give_clear_errors_and_the_log_stays_whole(make_rig, faulty_url):
    engine = VLLMEngine(faulty_url, model="m", timeout_s=1.0)
    rig = make_rig(engine=engine)
    expected = {"slow": "engine_timeout", "error": "engine_unavailable", "garbage": "malformed_observation",
                "wrong-shape": "malformed_observation", "huge": "observation_too_large", "ok": None}
    async with Client(build_server(rig.sim, connection_key="t")) as c:
        for mode, kind in expected.items():
            FaultyEngine.mode = mode
            with anyio.fail_after(20):
                r = await c.call_tool("run_command", {"command": "uname -a"})  # (the model's: not the state's)
            if kind:
                assert r.is_error and r.content[0].text.startswith(kind), (mode, r.content[0].text)
            else:
                assert r.content[0].text == "fine\n"
    rows = rig.store.query("select idx, error_kind, observation from steps order by idx")
    assert [r["error_kind"] for r in rows] == list(expected.values())
    assert [r["idx"] for r in rows] == [0, 1, 2, 3, 4, 5]
    assert "65536" in rig.store.query("select error from steps where idx = 4")[0]["error"]
    # History holds only the one good observation: the failures left no trace in the episode.
    ep = await rig.sim.episode("t")
    assert [t.observation for t in ep.history["terminal"]] == ["fine\n"]


async def test_an_engine_that_is_not_there_is_an_error_for_that_call_and_the_server_recovers(make_rig):
    """The real engine client against a port nobody listens on; then an engine comes up on it."""
    from .helpers import free_port

    port = free_port()
    engine = VLLMEngine(f"http://127.0.0.1:{port}", model="m", timeout_s=5.0)
    rig = make_rig(engine=engine)
    async with Client(build_server(rig.sim, connection_key="t")) as c:
        with anyio.fail_after(20):
            down = await c.call_tool("run_command", {"command": "ls"})
        assert down.is_error and down.content[0].text.startswith("engine_unavailable"), down.content[0].text
        assert f"127.0.0.1:{port}" in down.content[0].text
        FaultyEngine.mode = "ok"
        srv = http.server.ThreadingHTTPServer(("127.0.0.1", port), FaultyEngine)
        threading.Thread(target=srv.serve_forever, daemon=True).start()
        try:
            with anyio.fail_after(20):
                up = await c.call_tool("run_command", {"command": "ls"})
        finally:
            srv.shutdown()
        assert not up.is_error and up.content[0].text == "fine\n"
    assert [r["error_kind"] for r in rig.store.query("select error_kind from steps order by idx")] == \
        ["engine_unavailable", None]


async def test_stdio_on_its_own_embedded_engine_answers_survives_the_engine_killed_and_leaves_nothing(tmp_path):
    """The Claude Desktop path, `serve --transport stdio` on the default embedded engine: tools are
    listed while the engine starts, the model answers; the engine killed with `kill -9` mid-run
    gives `engine_unavailable` meanwhile, is restarted on the same port and answers again; when
    the client goes, no engine process outlives the server. (Two tests that each started an engine
    of their own, one engine start apart.)"""
    cache = tmp_path / "cache"
    cache.mkdir()
    (cache / "models").symlink_to(cache_dir(os.environ.get("MCP_WORLD_CACHE")) / "models")
    db = tmp_path / "k.db"

    def engines() -> list[psutil.Process]:
        return [p for p in psutil.process_iter(["cmdline"]) if str(cache) in " ".join(p.info["cmdline"] or [])
                and "vllm.entrypoints.openai.api_server" in " ".join(p.info["cmdline"] or [])]

    t0 = time.monotonic()
    async with stdio_client(None, db, "--cache", str(cache)) as c:
        tools = await c.list_tools()  # answered while the engine is still starting
        assert time.monotonic() - t0 < 30 and "run_command" in {t.name for t in tools.tools}
        with anyio.fail_after(300):
            r = await c.call_tool("run_command", {"command": "groups"})  # a question only the model answers
        assert not r.is_error, r.content[0].text
        assert r.meta["mcp-world/provenance"] == "model"
        running = engines()
        assert len(running) == 1
        os.killpg(running[0].pid, signal.SIGKILL)
        with anyio.fail_after(30):
            r = await c.call_tool("run_command", {"command": "uname -a"})  # (the model's: not the state's)
        assert r.is_error and r.content[0].text.startswith("engine_unavailable")
        # Once restarted, the engine answers again: a success, or the tiny model's answer refused as
        # malformed (it sometimes degenerates) -- either way not engine_unavailable.
        with anyio.fail_after(400):
            while True:
                r = await c.call_tool("run_command", {"command": "uname -a"})
                if not r.is_error or not r.content[0].text.startswith("engine_unavailable"):
                    break
                await anyio.sleep(3)
        assert not r.is_error or r.content[0].text.startswith("malformed_observation"), r.content[0].text
        assert len(engines()) == 1 and engines()[0].pid != running[0].pid, "one engine, a new one"
    con = sqlite3.connect(db)
    kinds = [k for (k,) in con.execute("select error_kind from steps order by id")]
    con.close()
    assert kinds[0] is None and kinds[-1] in (None, "malformed_observation")
    assert set(kinds[1:-1]) == {"engine_unavailable"}
    deadline = time.monotonic() + 30  # the engine's process group is given up to 20 s to exit
    while (left := [p for p in psutil.process_iter(["cmdline"]) if str(cache) in " ".join(p.info["cmdline"] or [])]):
        assert time.monotonic() < deadline, f"engine processes left behind: {left}"
        time.sleep(0.5)
