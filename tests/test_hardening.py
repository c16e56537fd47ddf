"""Hardening: inputs that must not freeze the server, schemas that must not make it fetch anything,
lookups that must not confuse episodes, secrets that must not leave a real folder or a mirror, and
terminal output that must not hide what an agent did."""

from __future__ import annotations

import time

import anyio
import pytest
from mcp import Client

from mcp_world.errors import WorldFileError
from mcp_world.schemas import validator
from mcp_world.server import build_server
from mcp_world.world import parse_world

from .conftest import ScriptedEngine

pytestmark = pytest.mark.anyio


async def test_a_catastrophic_search_pattern_answers_in_seconds_while_another_client_is_served(make_rig):
    import re

    t0 = time.perf_counter()
    assert re.search("(a|aa)*c", "a" * 24) is None  # Python's re: exponential (0.03 s here, x1.6 per a)
    backtracking = time.perf_counter() - t0
    rig = make_rig("repo", ScriptedEngine(lambda r: "x\n"), state_mode="full")
    server = build_server(rig.sim)
    line = "a" * 5000
    async with Client(server, raise_exceptions=True) as a, Client(server, raise_exceptions=True) as b:
        view = await a.call_tool("repo_view", {"path": "textstats/core.py", "start_line": 1, "end_line": 1})
        first = view.content[0].text.split("\t", 1)[1].rstrip("\n")
        edit = await a.call_tool("repo_replace", {"path": "textstats/core.py", "old_str": first, "new_str": line})
        assert not edit.is_error, edit.content[0].text
        done: dict[str, float] = {}

        async def search() -> None:
            r = await a.call_tool("repo_search", {"pattern": "(a|aa)*c", "path": "textstats"})
            done["search"] = time.perf_counter()
            assert "No matches" in r.content[0].text or ":1:" in r.content[0].text

        async def other() -> None:
            r = await b.call_tool("repo_list", {"path": "."})
            done["other"] = time.perf_counter()
            assert not r.is_error

        t0 = time.perf_counter()
        with anyio.fail_after(10):
            async with anyio.create_task_group() as tg:
                tg.start_soon(search)
                tg.start_soon(other)
    assert done["search"] - t0 < 5 and done["other"] - t0 < 5, (done, t0, backtracking)


def test_world_schemas_with_remote_references_or_backtracking_patterns_are_refused():
    def world(prop: dict) -> dict:
        return {"name": "x", "description": "y", "domains": ["mcp"],
                "tools": [{"name": "t", "inputSchema": {"type": "object", "properties": {"a": prop}}}]}

    with pytest.raises(WorldFileError, match="points outside the schema; only local references"):
        parse_world(world({"$ref": "https://evil.example/schema.json"}))
    with pytest.raises(WorldFileError, match="points outside the schema"):
        parse_world(world({"$ref": "file:///etc/passwd"}))
    with pytest.raises(WorldFileError, match="needs a backtracking engine"):
        parse_world(world({"type": "string", "pattern": "^(?=a)(a+)+$"}))
    assert parse_world(world({"type": "string", "pattern": "^[a-z]+$"}))  # a linear pattern is fine


def test_validation_never_retrieves_a_reference():
    from .helpers import watched_port

    with watched_port(3) as (port, seen):
        v = validator({"type": "object", "properties": {"a": {"$ref": f"http://127.0.0.1:{port}/s.json"}}})
        t0 = time.perf_counter()
        with pytest.raises(Exception, match="Unresolvable|unresolvable|s.json"):
            list(v.iter_errors({"a": 1}))
        assert time.perf_counter() - t0 < 2
    assert not seen  # no connection was made


async def test_episode_keys_are_exact_a_wildcard_or_another_case_resumes_nothing(make_rig):
    rig = make_rig("devbox", ScriptedEngine(lambda r: "ok\n"))
    await rig.sim.call("agent-1", "run_command", {"command": "touch a"})
    await rig.sim.reset("agent-1")
    await rig.sim.call("agent-1", "run_command", {"command": "touch b"})
    assert [r["id"] for r in rig.store.episodes_of_key("agent-1")] == ["agent-1", "agent-1.1"]
    from mcp_world.dialects import get_dialect
    from mcp_world.engines import EnginePool
    from mcp_world.simulator import Simulator
    from mcp_world.world import load_world

    fresh = Simulator(load_world("devbox"), EnginePool([ScriptedEngine(lambda r: "ok\n")]), rig.store,
                      get_dialect("instruct"), state_mode="off")
    for other in ("Agent-1", "agent_1", "agent-%", "agent-1.1x"):
        ep = await fresh.episode(other)
        assert ep.id == other and ep.next_index == 0  # a new episode, not agent-1's
    again = await fresh.episode("agent-1")
    assert again.id == "agent-1.1" and again.next_index == 1  # the key itself resumes its latest episode


def _cli(*args: str, timeout: float = 120):
    import subprocess
    import sys

    return subprocess.run([sys.executable, "-m", "mcp_world", *args], capture_output=True, text=True, timeout=timeout)


def test_reports_and_episode_listings_neutralize_terminal_escapes_and_say_what_ran_for_real(tmp_path):
    import json

    hide = "rm -rf ~/notes-app\x1b[2K\x1b[1A\r# tidy up"  # erase the line, move up, carriage return
    record = {"id": "sneaky", "world": {"name": "devbox", "description": "x", "domains": ["terminal"]},
              "steps": [{"tool": "run_command", "arguments": {"command": hide}, "observation": "\x1b]0;owned\x07done\n"},
                        {"tool": "run_command", "arguments": {"command": "ls"}, "observation": "a\n"}]}
    src = tmp_path / "e.jsonl"
    src.write_text(json.dumps(record) + "\n")
    db = str(tmp_path / "e.db")
    assert _cli("import", str(src), "--db", db).returncode == 0
    r = _cli("report", "sneaky", "--db", db, "--html", str(tmp_path / "r.html"))
    assert r.returncode == 0, r.stderr
    assert "\x1b" not in r.stdout and "\r" not in r.stdout
    assert "\\x1b[2K\\x1b[1A\\x0d# tidy up" in r.stdout and "destructive" in r.stdout
    shown = _cli("episodes", "show", "sneaky", "--db", db)
    assert shown.returncode == 0 and "\x1b" not in shown.stdout and "\x07" not in shown.stdout
    assert "\\x1b]0;owned\\x07done" in shown.stdout
    html = (tmp_path / "r.html").read_text()
    assert "2 step(s) ran for real" in html and "Nothing here was executed" not in html


UPSTREAM = '''
import os
from mcp.server import MCPServer

app = MCPServer("vault")


@app.tool()
def show_env() -> str:
    """The names of the variables this server was started with."""
    return " ".join(sorted(os.environ))


@app.tool()
def login(user: str, password: str) -> str:
    """Log in; returns the session's settings."""
    return f"user = {user}\\napi_key = 'sk-live-9f8e7d6c5b4a39281706f5e4d3c2b1a0'\\nregion = eu-west-1\\n"


app.run()
'''


async def test_a_mirror_passes_the_upstream_only_the_variables_asked_for_and_logs_no_secrets(tmp_path):
    import json
    import os
    import sqlite3
    import stat
    import sys

    from mcp import StdioServerParameters

    server = tmp_path / "vault.py"
    server.write_text(UPSTREAM)
    db = tmp_path / "m.db"
    env = {**os.environ, "MCP_WORLD_TEST_SECRET": "do-not-pass", "KEEP_ME": "1"}
    params = StdioServerParameters(command=sys.executable, env=env, args=[
        "-m", "mcp_world", "mirror", "--db", str(db), "--transport", "stdio", "--no-predict",
        "--upstream-env", "KEEP_ME", "--", sys.executable, str(server)])
    async with Client(params) as c:
        with anyio.fail_after(120):
            names = (await c.call_tool("show_env", {})).content[0].text.split()
            real = await c.call_tool("login", {"user": "ann", "password": "correct-horse-battery-staple"})
    assert "KEEP_ME" in names and "PATH" in names and "MCP_WORLD_TEST_SECRET" not in names
    assert "sk-live-9f8e7d6c5b4a39281706f5e4d3c2b1a0" in real.content[0].text  # the agent gets the real result
    con = sqlite3.connect(db)
    arguments, logged = con.execute("select arguments, real_observation from steps where tool = 'login'").fetchone()
    con.close()
    assert json.loads(arguments) == {"user": "ann", "password": "[REDACTED]"}
    assert "sk-live" not in logged and "api_key = '[REDACTED]'" in logged and "region = eu-west-1" in logged
    assert stat.S_IMODE(db.stat().st_mode) == 0o600  # the log is its owner's alone


async def test_a_real_result_reaches_the_agent_even_when_its_log_write_fails(tmp_path):
    from types import SimpleNamespace

    import mcp_types as types

    from mcp_world.errors import StoreError
    from mcp_world.mirror import Mirror
    from mcp_world.store import Store
    from mcp_world.world import parse_world

    world = parse_world({"name": "m", "description": "a mirrored server", "domains": ["mcp"],
                         "tools": [{"name": "transfer", "inputSchema": {"type": "object"}}]})
    calls = []

    class Upstream:
        spec = SimpleNamespace(describe=lambda: "fake upstream")

        async def call(self, name, arguments):
            calls.append(name)  # the real side effect
            return types.CallToolResult(content=[types.TextContent(text="sent 100 EUR")])

    store = Store(tmp_path / "f.db")
    mirror = Mirror(Upstream(), world, store, engines=None)

    async def broken(row, state=None):
        raise StoreError("disk I/O error")

    store.add_step = broken  # type: ignore[method-assign]
    result = await mirror.call("agent", "transfer", {"to": "bob"})
    assert not result.is_error and result.content[0].text == "sent 100 EUR"
    assert calls == ["transfer"] and mirror.log_failures == 1
    store.close()


def test_seed_paths_that_leave_the_home_folder_are_refused():
    def world(seed: dict) -> dict:
        return {"name": "x", "description": "y", "domains": ["terminal"], "seed": {"terminal": seed}}

    for seed, says in [({"cwd": "/home/user/../../../../root/x"}, "must be an absolute, normalized path inside"),
                       ({"user": "../../etc"}, "String should match pattern"),
                       ({"git": [{"path": "/home/user/../../tmp/r"}]}, "git path"),
                       ({"files": {"/home/user/../../etc/cron.d/x": "* * * * * root sh"}}, "absolute and normalized"),
                       ({"hostname": "a b"}, "String should match pattern")]:
        with pytest.raises(WorldFileError, match=says):
            parse_world(world(seed))
    assert parse_world(world({"user": "ann", "cwd": "/home/ann/app", "files": {"/etc/motd": "hi"}}))


def test_the_sandbox_never_touches_a_host_path_outside_its_scratch_folder(tmp_path):
    from mcp_world.executors.sandbox import SandboxLimits, TerminalSandbox, bwrap_available
    from mcp_world.world import load_world

    if not bwrap_available():
        pytest.skip("bubblewrap is installed by the setup")
    box = TerminalSandbox(load_world("devbox"), SandboxLimits(timeout_s=5))
    try:
        outside = tmp_path / "outside"
        outside.mkdir()
        (box.scratch / "home" / "user" / "escape").symlink_to(outside)  # as a step could leave one
        assert box._inside("/home/user/escape/x") is None
        assert box._inside("/home/user/../../../etc") is None
        assert box._inside("/home/user/notes-app/README.md") is not None
    finally:
        box.close()
    assert list(outside.iterdir()) == []


def test_the_embedded_engine_children_do_not_import_from_the_callers_folder(tmp_path, monkeypatch):
    from mcp_world import embedded
    from mcp_world.errors import EngineSetupError

    evil = tmp_path / "checkout"
    evil.mkdir()
    (evil / "planted.py").write_text(f"open({str(tmp_path / 'ran')!r}, 'w').write('x')\n")
    monkeypatch.chdir(evil)
    with pytest.raises(EngineSetupError, match="No module named 'planted'"):
        embedded._build(tmp_path / "cache" / "model", "import planted", [], "a build")
    assert not (tmp_path / "ran").exists()
    cmd = embedded.engine_command(embedded.EmbeddedConfig(cache=tmp_path), tmp_path, 9)
    assert cmd[1] == "-I"  # the engine too


def test_runtime_adapter_loading_is_enabled_only_for_engine_start_lora(tmp_path, monkeypatch):
    from mcp_world import embedded

    monkeypatch.setenv("VLLM_ALLOW_RUNTIME_LORA_UPDATING", "1")  # even inherited, it is not passed on
    assert "VLLM_ALLOW_RUNTIME_LORA_UPDATING" not in embedded.engine_env(embedded.EmbeddedConfig(cache=tmp_path))
    assert embedded.engine_env(embedded.EmbeddedConfig(cache=tmp_path, lora=True))["VLLM_ALLOW_RUNTIME_LORA_UPDATING"] == "1"


def test_engine_stop_does_not_kill_a_process_that_got_the_recorded_pid(tmp_path):
    import json
    import subprocess
    import sys

    bystander = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"], start_new_session=True)
    try:
        (tmp_path / "engine.json").write_text(json.dumps({
            "url": "http://127.0.0.1:9", "pid": bystander.pid, "model": "m", "log": "", "started_at": 0}))
        r = _cli("engine", "stop", "--cache", str(tmp_path))
        assert r.returncode == 0, r.stderr
        time.sleep(0.5)
        assert bystander.poll() is None  # still running: it is not our engine
        assert not (tmp_path / "engine.json").exists()  # the stale record is gone
    finally:
        bystander.kill()


async def test_a_real_observation_is_bounded_like_a_simulated_one(make_rig):
    from mcp_world.executors import RealObservation
    from mcp_world.simulator import Limits

    class HugePage:  # a real executor that returns a 2 MB page (the shadow browser's own limit)
        async def observe(self, episode_id, world, tool, arguments, state):
            page = "<!DOCTYPE html><html><body>" + "x" * 2_000_000 + "</body></html>"
            return RealObservation(page, {"url": "http://127.0.0.1:8000/", "status": 200}, {"status": 200})

        def end(self, episode_id):
            pass

    rig = make_rig("webshop", ScriptedEngine(lambda r: "<p>sim</p></body></html>"), limits=Limits(max_observation_chars=50_000))
    rig.sim.shadow = {"browser": HugePage()}
    rig.sim.real = frozenset({"browser"})
    r = await rig.sim.call("b", "browser_navigate", {"url": "http://127.0.0.1:8000/"})
    assert r.provenance == "real" and len(r.observation) <= 50_000
    assert "cut at 50000 of" in r.observation
    logged = rig.store.query("select real_observation from steps")[0]["real_observation"]
    assert len(logged) <= 50_000
