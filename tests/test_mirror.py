"""Mirror mode in front of the real reference MCP server @modelcontextprotocol/server-memory (npm,
installed by the setup), over stdio and streamable HTTP; worlds made from mirror sessions and
simulated by `serve` in the mcp domain."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from mcp import Client, StdioServerParameters

from mcp_world.paths import FIXTURES_DIR
from mcp_world.world import load_world

from .helpers import free_port, http_client, http_process, query as rows, stdio_client

pytestmark = pytest.mark.anyio

MEMORY_SERVER = Path(sys.prefix) / "upstreams" / "node_modules" / "@modelcontextprotocol" / "server-memory" / "dist" / "index.js"


@pytest.fixture
def memory_server(tmp_path) -> list[str]:
    assert MEMORY_SERVER.exists(), f"{MEMORY_SERVER} is missing: the setup installs it with npm (is Node.js installed?)"
    return ["node", str(MEMORY_SERVER)]


def mirror_args(db: Path, *extra: str) -> list[str]:
    # The upstream sees only the variables it is given: the memory server's file is passed on by name.
    return ["-m", "mcp_world", "mirror", "--db", str(db), "--upstream-env", "MEMORY_FILE_PATH", *extra]


def _described(tool) -> tuple:
    """What a client learns of a tool: name, title, description, both schemas, annotations."""
    annotations = tool.annotations.model_dump(exclude_none=True) if tool.annotations else None
    return tool.title, tool.description, tool.input_schema, tool.output_schema, annotations


ALICE = {"entities": [{"name": "Alice", "entityType": "person", "observations": ["likes green tea"]}]}


async def test_http_mirror_answers_with_real_results_and_logs_predictions_beside_them(engine_url, memory_server, tmp_path):
    db, port = tmp_path / "mirror.db", free_port()
    env = {"MEMORY_FILE_PATH": str(tmp_path / "graph.jsonl")}
    async with Client(StdioServerParameters(command=memory_server[0], args=memory_server[1:],
                                            env={**os.environ, "MEMORY_FILE_PATH": str(tmp_path / "direct.jsonl")})) as direct:
        upstream_tools = {t.name: _described(t) for t in (await direct.list_tools()).tools}
    args = mirror_args(db, "--engine", engine_url, "--port", str(port), "--drain-timeout", "500", "--", *memory_server)
    with http_process(args, port, env) as (url, proc):
        async with http_client(url, "agent-1") as c:
            # The upstream's tools, unchanged.
            # name, title, description, both schemas, annotations: all of it
            assert {t.name: _described(t) for t in (await c.list_tools()).tools} == upstream_tools
            created = await c.call_tool("create_entities", ALICE)
            found = await c.call_tool("search_nodes", {"query": "tea"})
            missing = await c.call_tool("add_observations", {"observations": [{"entityName": "Zed", "contents": ["x"]}]})
        assert not created.is_error and created.structured_content["entities"][0]["name"] == "Alice"
        assert "Alice" in found.content[0].text and found.meta["mcp-world/provenance"] == "real"
        assert missing.is_error and "Zed not found" in missing.content[0].text
        # Logged as real before the agent got its answer.
        logged = rows(db, "select idx, tool, provenance, real_observation from steps order by idx")
        assert [(i, t, p) for i, t, p, _ in logged] == [(0, "create_entities", "real"), (1, "search_nodes", "real"),
                                                       (2, "add_observations", "real")]
        assert "Alice" in logged[1][3]
        proc.terminate()  # the mirror lets the predictions still running finish
        out, _ = proc.communicate(timeout=560)
    assert proc.returncode == 0, out
    assert "predictions logged" in out
    steps = rows(db, "select observation, prediction_error, real_observation, real_structured from steps order by idx")
    # Every step got the world model's prediction or the reason it has none; the real result stays.
    assert all(obs is not None or err for obs, err, _, _ in steps), steps
    assert any(obs is not None for obs, _, _, _ in steps), steps
    assert json.loads(steps[2][3]) == {"isError": True}
    episode = rows(db, "select source, world from episodes")
    assert episode[0][0] == "mirror" and json.loads(episode[0][1])["domains"] == ["mcp"]


async def test_stdio_mirror_forwards_errors_keeps_serving_and_refuses_a_broken_upstream(memory_server, tmp_path):
    db = tmp_path / "m.db"
    params = StdioServerParameters(command=sys.executable,
                                   args=mirror_args(db, "--transport", "stdio", "--no-predict", "--", *memory_server),
                                   env={**os.environ, "MEMORY_FILE_PATH": str(tmp_path / "g.jsonl")})
    async with Client(params, read_timeout_seconds=120) as c:
        unknown = await c.call_tool("no_such_tool", {})
        bad = await c.call_tool("create_entities", {"entities": "not a list"})
        ok = await c.call_tool("create_entities", ALICE)
        graph = await c.call_tool("read_graph", {})
    assert unknown.is_error and "no_such_tool" in unknown.content[0].text
    assert bad.is_error
    assert not ok.is_error and "Alice" in graph.content[0].text
    logged = rows(db, "select tool, real_structured, observation, prediction_error from steps order by idx")
    assert [t for t, _, _, _ in logged] == ["no_such_tool", "create_entities", "create_entities", "read_graph"]
    # The server's own error results are real observations too, marked as errors.
    assert [json.loads(s or "{}").get("isError", False) for _, s, _, _ in logged] == [True, True, False, False]
    assert all(obs is None and err is None for _, _, obs, err in logged)  # --no-predict: reality only
    r = subprocess.run([sys.executable, *mirror_args(tmp_path / "x.db", "--transport", "stdio", "--no-predict",
                                                     "--", "/nonexistent/mcp-server")],
                       capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
    assert r.returncode == 2 and "could not connect to the real MCP server" in r.stderr
    r = subprocess.run([sys.executable, *mirror_args(tmp_path / "x.db")], capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "--upstream URL" in r.stderr


async def test_a_mirror_in_front_of_a_streamable_http_upstream(memory_server, tmp_path):
    # The upstream: server-memory behind a first mirror on HTTP (a real MCP server over HTTP).
    up_port, port = free_port(), free_port()
    env = {"MEMORY_FILE_PATH": str(tmp_path / "g.jsonl")}
    with http_process(mirror_args(tmp_path / "up.db", "--no-predict", "--port", str(up_port), "--", *memory_server),
                      up_port, env) as (up_url, _):
        with http_process(mirror_args(tmp_path / "front.db", "--no-predict", "--port", str(port), "--upstream", up_url,
                                      "--upstream-header", "X-Episode-Id: front-1"), port) as (url, _):
            async with http_client(url, "agent-7") as c:
                await c.call_tool("create_entities", ALICE)
                opened = await c.call_tool("open_nodes", {"names": ["Alice"]})
    assert opened.structured_content["entities"][0]["observations"] == ["likes green tea"]
    assert rows(tmp_path / "front.db", "select id from episodes") == [("agent-7",)]
    assert rows(tmp_path / "up.db", "select id from episodes") == [("front-1",)]


async def test_a_world_made_from_mirror_sessions_is_simulated_with_schemas_enforced(engine_url, tmp_path):
    recorded = FIXTURES_DIR / "real" / "memory-mirror.jsonl"
    out = tmp_path / "memory.yaml"
    r = subprocess.run([sys.executable, "-m", "mcp_world", "world", "from-episodes", "--data", str(recorded),
                        "--name", "memory-sim", "--out", str(out)], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    world = load_world(out)
    first = json.loads(recorded.read_text().splitlines()[0])
    assert world.domains == ["mcp"] and [t.name for t in world.tools] == [t["name"] for t in first["world"]["tools"]]
    per_tool = {}
    for d in world.demonstrations:
        per_tool[d.tool] = per_tool.get(d.tool, 0) + 1
    assert per_tool and max(per_tool.values()) <= 3
    assert yaml.safe_load(out.read_text())["name"] == "memory-sim"

    async with stdio_client(engine_url, tmp_path / "sim.db", "--world", str(out), "--seed", "3") as c:
        tools = {t.name: t for t in (await c.list_tools()).tools}
        assert tools["read_graph"].output_schema and tools["create_entities"].input_schema == world.tools[0].input_schema
        graph = await c.call_tool("read_graph", {})
        bad = await c.call_tool("open_nodes", {"names": "Alice"})
        missing = await c.call_tool("create_entities", {})
    # The client itself checked the structured content against the declared outputSchema.
    assert not graph.is_error and set(graph.structured_content) >= {"entities", "relations"}, graph
    assert graph.meta["mcp-world/provenance"] == "model"
    assert bad.is_error and "names" in bad.content[0].text and "array" in bad.content[0].text
    assert missing.is_error and "entities" in missing.content[0].text and "required" in missing.content[0].text


def test_the_shipped_mirror_recordings_cover_both_reference_servers():
    for name, server, least in (("memory-mirror.jsonl", "memory", 20), ("git-mirror.jsonl", "git", 20)):
        records = [json.loads(x) for x in (FIXTURES_DIR / "real" / name).read_text().splitlines()]
        assert sum(len(r["steps"]) for r in records) >= least
        assert all(r["world"]["name"] == server and r["world"]["domains"] == ["mcp"] and r["world"]["tools"]
                   for r in records)


def test_the_recorded_mcp_servers_are_many_real_servers_with_their_errors():
    """fixtures/real/mcp-servers.jsonl.xz (scripts/record_mcp.py): seven more real servers, each with
    its own tools, several steps, and the errors the real server returned (isError) kept as such."""
    from mcp_world.importing import read_records

    records = read_records(FIXTURES_DIR / "real" / "mcp-servers.jsonl.xz")
    per_server: dict[str, list] = {}
    for r in records:
        assert r.world.domains == ["mcp"] and r.world.tools and r.steps
        assert all(s.tool in {t.name for t in r.world.tools} and s.observation is not None for s in r.steps)
        per_server.setdefault(r.world.name.split("-")[0], []).extend(r.steps)
    assert set(per_server) == {"filesystem", "everything", "thinking", "time", "calculator", "sqlite", "fetch"}
    assert all(len(steps) >= 10 for steps in per_server.values()), {k: len(v) for k, v in per_server.items()}
    errors = {k for k, steps in per_server.items() if any((s.structured or {}).get("isError") for s in steps)}
    assert {"filesystem", "time", "calculator", "fetch"} <= errors, errors
    outside = [s for r in records if r.world.name.startswith("filesystem-") for s in r.steps
               if s.tool == "read_text_file" and not s.arguments["path"].startswith(f"/tmp/mcp-fs/{r.world.name[11:]}/")]
    assert outside and all("Access denied" in s.observation for s in outside)  # the real server's refusal


class _FakeUpstream:
    """A stand-in upstream for the mirror's own mechanics (the real servers are tested above)."""

    def __init__(self) -> None:
        from types import SimpleNamespace

        self.spec = SimpleNamespace(describe=lambda: "fake upstream")

    async def call(self, name, arguments):
        import mcp_types as types

        return types.CallToolResult(content=[types.TextContent(text=f"real {arguments.get('n')}")])


class _SlowEngine:
    """A scripted engine (named so) that takes `delay` seconds and counts how many requests overlap."""

    url, model = "scripted://slow", "scripted"

    def __init__(self, delay: float) -> None:
        self.delay, self.now, self.most, self.finished = delay, 0, 0, 0

    async def complete(self, request):
        import asyncio

        from mcp_world.engines import Completion

        self.now += 1
        self.most = max(self.most, self.now)
        try:
            await asyncio.sleep(self.delay)
        finally:
            self.now -= 1
        self.finished += 1
        return Completion("predicted\n", 10, 2, False, self.model, self.delay * 1000)

    async def aclose(self):
        pass


def _mirror(tmp_path, engine, **options):
    from mcp_world.engines import EnginePool
    from mcp_world.mirror import Mirror
    from mcp_world.store import Store
    from mcp_world.world import parse_world

    world = parse_world({"name": "m", "description": "a mirrored server", "domains": ["mcp"],
                         "tools": [{"name": "get", "inputSchema": {"type": "object"},
                                    "annotations": {"readOnlyHint": True}}]})
    store = Store(tmp_path / "mech.db")
    return Mirror(_FakeUpstream(), world, store, EnginePool([engine]), **options), store


async def test_the_mirror_agent_never_waits_for_predictions_which_run_two_at_a_time(tmp_path):
    engine = _SlowEngine(2.0)
    mirror, store = _mirror(tmp_path, engine)
    results = [await mirror.call(f"a{i % 3}", "get", {"n": i}) for i in range(6)]
    assert [r.content[0].text for r in results] == [f"real {i}" for i in range(6)]
    # six real answers came back while no prediction had finished: the agent never waited for one
    # (a wall-clock bound here failed on a loaded machine; the count does not depend on load)
    assert engine.finished == 0
    assert await mirror.drain(30) == 0
    assert engine.most == 2  # predict_concurrency: two at a time, never more
    rows = store.query("select observation, prediction_error from steps order by id")
    assert [r["observation"] for r in rows] == ["predicted"] * 6  # every step got its prediction
    store.close()


async def test_the_mirror_backlog_is_capped_and_unfinished_predictions_are_marked_abandoned(tmp_path):
    engine = _SlowEngine(30)
    mirror, store = _mirror(tmp_path, engine, max_backlog=3)
    for i in range(5):
        await mirror.call("a", "get", {"n": i})
    assert mirror.skipped == 2
    abandoned = await mirror.drain(0.2)
    assert abandoned == 3
    notes = [r["prediction_error"] for r in store.query("select prediction_error from steps order by id")]
    assert all(n.startswith("abandoned: the mirror stopped before this prediction finished") for n in notes[:3])
    assert all(n.startswith("skipped: 3 predictions were already waiting") for n in notes[3:])
    store.close()


async def test_a_stdio_client_closing_the_mirror_leaves_each_unfinished_prediction_marked(memory_server, tmp_path):
    """A stdio client (the SDK's, as Claude Desktop's) closes the mirror's input after its last call
    and sends SIGTERM 2 s later. The predictions still running (here an engine that never answers)
    are marked abandoned, saying why, instead of the process dying with its steps left blank; the
    real results are all logged."""
    import socket
    import threading

    hang = socket.socket()
    hang.bind(("127.0.0.1", 0))
    hang.listen(8)
    held: list = []
    threading.Thread(target=lambda: [held.append(hang.accept()) for _ in range(8)], daemon=True).start()
    db = tmp_path / "stdio.db"
    args = mirror_args(db, "--transport", "stdio", "--engine", f"http://127.0.0.1:{hang.getsockname()[1]}/v1",
                       "--drain-timeout", "120", "--", *memory_server)
    params = StdioServerParameters(command=sys.executable, args=args,
                                   env={**os.environ, "MEMORY_FILE_PATH": str(tmp_path / "graph.jsonl")})
    async with Client(params, read_timeout_seconds=60) as c:
        await c.call_tool("create_entities", ALICE)
        await c.call_tool("read_graph", {})
    hang.close()
    steps = rows(db, "select real_observation, prediction_error from steps order by idx")
    assert len(steps) == 2 and all(real for real, _ in steps)
    assert all((note or "").startswith("abandoned: the mirror stopped") and "stdio client" in note for _, note in steps), steps

