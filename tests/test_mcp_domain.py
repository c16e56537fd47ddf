"""The generic mcp domain: tools declared by a world, arguments checked against their schemas,
answers read as the declared tool's result (JSON where the server answers JSON, structured content
for an outputSchema, error results)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from mcp_world.domain import domain_for
from mcp_world.domain import load_domain
from mcp_world.errors import WorldFileError
from mcp_world.rules import Call, FormatError
from mcp_world.paths import FIXTURES_DIR
from mcp_world.world import load_world, parse_world

from .helpers import stdio_client

pytestmark = pytest.mark.anyio

LIST = {"type": "object", "properties": {}}
OUT = {"type": "object", "properties": {"entities": {"type": "array"}}, "required": ["entities"]}


def _tool(**extra):
    world = parse_world({
        "name": "kv", "description": "d", "domains": ["mcp"],
        "tools": [{"name": "list", "inputSchema": LIST, **extra}],
        "demonstrations": [{"tool": "list", "observation": '[{"name": "a"}]'},
                           {"tool": "list", "observation": "Entity with name b not found", "structured": {"isError": True}}],
    })
    return domain_for(world, "mcp").tool("list")


def test_the_mcp_format_reads_json_results_structured_content_and_errors():
    fmt = load_domain("mcp").rules
    plain = _tool()
    assert plain.answer_start == "[" and fmt.prefill(Call("list", {}, {}, spec=plain)) == "["
    # A JSON result is cut where the document ends (the model running on is dropped).
    assert fmt.parse('[{"name": "a"}]\nThis lists the entities.', Call("list", {}, {}, spec=plain)).text == '[{"name": "a"}]'
    with pytest.raises(FormatError, match="JSON"):
        fmt.parse("[not json", Call("list", {}, {}, spec=plain))
    err = fmt.parse("Entity with name zz not found", Call("list", {}, {}, spec=plain))
    assert err.structured == {"isError": True}
    with pytest.raises(FormatError, match="talks about"):
        fmt.parse("Sure, here is the list", Call("list", {}, {}, spec=_tool(outputSchema=OUT)))
    typed = _tool(outputSchema=OUT)
    # The text is the list; the structured content wraps it as the schema's only property.
    assert fmt.parse('[{"name": "a"}]', Call("list", {}, {}, spec=typed)).structured == {"entities": [{"name": "a"}]}
    assert fmt.parse('{"entities": []}', Call("list", {}, {}, spec=typed)).structured == {"entities": []}
    assert fmt.parse('{"other": 1}', Call("list", {}, {}, spec=typed)).needs_structured


def test_the_mcp_format_keeps_what_real_servers_return_as_it_is():
    """Real results fixtures/real/mcp-servers.jsonl.xz holds: the tail of a file starting on an
    indented line of code keeps its indentation (it is not a JSON document), and a server that
    introduces its own result ("Here are 3 resource links …") is not taken for the model chatting,
    while an introduction of the output as such still is."""
    fmt = load_domain("mcp").rules
    free = _free_tool()
    code = "    [Anchor, Registry],\n)\ndef test_nonsubclassable(cls):\n    pass"
    assert fmt.parse(code, Call("read_text_file", {}, {}, spec=free)).text == code
    assert fmt.parse('  {"a": 1}', Call("read_text_file", {}, {}, spec=free)).text == '{"a": 1}'
    links = "Here are 3 resource links to resources available in this server:\n[resource demo://resource/1]"
    assert fmt.parse(links, Call("read_text_file", {}, {}, spec=free)).text == links
    # answers about the call instead of its result, as the small model wrote them for held-out servers
    for chat in ("Here is the output of the tool:\n{}", "Here's the result: 3", "Sure, here it is",
                 "The fetch command will return a JSON object", "This server supports read_text_file.",
                 "read_text_file() is a function that reads a file", "The result of the query is 3"):
        with pytest.raises(FormatError, match="talks about"):
            fmt.parse(chat, Call("read_text_file", {}, {}, spec=free))


def _free_tool():
    world = parse_world({"name": "fs", "description": "d", "domains": ["mcp"],
                         "tools": [{"name": "read_text_file", "inputSchema": LIST}]})
    return domain_for(world, "mcp").tool("read_text_file")


def test_declared_tools_are_checked_when_the_world_loads():
    for bad, says in (({"domains": ["mcp"]}, "give `tools`"),
                      ({"domains": ["mcp"], "tools": [{"name": "x", "inputSchema": {"type": "object", "properties": 5}}]},
                       "not a valid JSON schema"),
                      ({"domains": ["mcp"], "tools": [{"name": "x"}, {"name": "x"}]}, "declared twice"),
                      ({"domains": ["mcp"], "tools": [{"name": "bad name!"}]}, "tools.0.name")):
        with pytest.raises(Exception, match=says):
            parse_world({"name": "w", "description": "d", **bad})


async def test_a_declared_ticketing_server_is_simulated_over_mcp(engine_url, tmp_path):
    world = load_world("helpdesk")
    async with stdio_client(engine_url, tmp_path / "h.db", "--world", "helpdesk", "--seed", "5") as c:
        tools = {t.name: t for t in (await c.list_tools()).tools}
        known = await c.call_tool("get_ticket", {"ticket_id": "T-1041"})  # a result the world knows
        ticket = await c.call_tool("get_ticket", {"ticket_id": "T-1039"})  # one the model writes
        bad = await c.call_tool("get_ticket", {"ticket_id": "1041"})
        extra = await c.call_tool("list_tickets", {"status": "closed"})
    assert set(tools) == {t.name for t in world.tools} | {"world_reset"} and len(world.tools) >= 6
    assert tools["delete_ticket"].annotations.destructive_hint is True
    seeded = next(k for k in world.seed["mcp"]["results"] if k["arguments"] == {"ticket_id": "T-1041"})
    assert not known.is_error and known.content[0].text == seeded["result"]
    assert known.meta["mcp-world/provenance"] == "state" and ticket.meta["mcp-world/provenance"] == "model"
    assert not ticket.is_error and isinstance(json.loads(ticket.content[0].text), dict), ticket.content[0].text
    assert ticket.structured_content is None  # no outputSchema declared: text only, as MCP says
    assert bad.is_error and "does not match '^T-[0-9]+$'" in bad.content[0].text
    assert extra.is_error and "'closed' is not one of" in extra.content[0].text
    assert 'status: one of "open"|"pending"|"solved"' in extra.content[0].text


def test_import_eval_export_round_trip_on_recorded_mcp_sessions(engine_url, tmp_path):
    def cli(*args):
        r = subprocess.run([sys.executable, "-m", "mcp_world", *args], capture_output=True, text=True, timeout=600,
                           env={**os.environ, "HF_HUB_OFFLINE": "1"})
        assert r.returncode == 0, r.stderr
        return r

    db, exported, out = tmp_path / "e.db", tmp_path / "real.jsonl", tmp_path / "r.json"
    cli("import", str(FIXTURES_DIR / "real" / "git-mirror.jsonl"), "--db", str(db))
    cli("export", "--db", str(db), "--observations", "real", "--out", str(exported))
    original = json.loads((FIXTURES_DIR / "real" / "git-mirror.jsonl").read_text().splitlines()[0])
    assert json.loads(exported.read_text().splitlines()[0])["steps"] == original["steps"]
    cli("eval", "--data", str(exported), "--engine", engine_url, "--limit", "2", "--json", str(out), "--db", str(db))
    report = json.loads(out.read_text())
    assert report["domains"]["mcp"]["steps"] == 2 and 0 <= report["domains"]["mcp"]["mean_similarity"] <= 1
    # The predictions were stored beside the real results; export writes either side.
    sims = [json.loads(x) for x in cli("export", "--db", str(db), "--observations", "sim").stdout.splitlines()]
    predicted = [r for r in sims if r["id"].startswith("eval-")]
    made = [s["prediction"] for s in report["steps"] if s["prediction"] is not None]
    assert [s["observation"] for r in predicted for s in r["steps"]] == made


async def test_the_results_a_world_knows_are_answered_as_they_are_until_something_may_change(make_rig):
    """seed.mcp.results: the helpdesk knows what its reads return at the start (the model answered
    every seeded ticket "not found", copying the one error example). They are answered exactly with
    no model call until a call that may change something; they are the model's examples from then on."""
    from .conftest import ScriptedEngine

    world = load_world("helpdesk")
    known = {json.dumps(k["arguments"], sort_keys=True) + k["tool"]: k["result"] for k in world.seed["mcp"]["results"]}
    engine = ScriptedEngine(lambda r: '"id": "T-1041", "status": "open", "assignee": "lee@northwind.example"}')
    rig = make_rig(world, engine, state_mode="full")
    ticket = await rig.sim.call("h", "get_ticket", {"ticket_id": "T-1041"})
    listed = await rig.sim.call("h", "list_tickets", {"status": "open", "limit": 20})  # the schema's default, given
    everything = await rig.sim.call("h", "list_tickets", {})
    assert [r.provenance for r in (ticket, listed, everything)] == ["state"] * 3 and not engine.requests
    assert ticket.observation.rstrip("\n") == known['{"ticket_id": "T-1041"}get_ticket']
    assert "T-1043" in everything.observation and "T-1043" not in listed.observation
    await rig.sim.call("h", "update_ticket", {"ticket_id": "T-1041", "assignee": "lee@northwind.example"})
    again = await rig.sim.call("h", "get_ticket", {"ticket_id": "T-1041"})
    assert again.provenance == "model" and "lee@northwind.example" in again.observation
    prompt = str(engine.requests[-1].messages)
    assert '"assignee": null' in prompt and "how many rows the table has" in prompt  # the known results, as examples
    assert "Customer records exist" in prompt and "results:" not in prompt  # the notes alone as the seed's text


@pytest.mark.parametrize("result, says", [
    ({"tool": "get_tikcet", "arguments": {"ticket_id": "T-1"}}, "seed.mcp.results[0]: no declared tool 'get_tikcet'"),
    ({"tool": "update_ticket", "arguments": {"ticket_id": "T-1"}}, "update_ticket is not declared read-only"),
    ({"tool": "get_ticket", "arguments": {"ticket_id": "1041"}}, "do not fit get_ticket's inputSchema"),
    ({"tool": "get_ticket", "arguments": {"ticket_id": "T-1"}, "result": ""}, "seed.mcp.results.0.result"),
])
def test_a_known_result_that_does_not_fit_the_declared_tools_is_refused(result, says):
    world = load_world("helpdesk").model_dump(by_alias=True, exclude_defaults=True)
    world["seed"] = {"mcp": {"notes": "Tickets.", "results": [{"result": "{}", **result}]}}
    with pytest.raises(WorldFileError) as err:
        parse_world(world)
    assert says in str(err.value), str(err.value)
