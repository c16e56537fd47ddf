"""The agentworld dialect: Qwen-AgentWorld's own conversation format. Rendering and parsing are
checked against hand-written transcripts in that format (thinking, observation markers and tags,
and the ways an answer goes wrong); the simulator logs the thinking and never shows it; `auto`
picks the dialect from the engine's model name; the real embedded engine accepts its requests."""

from __future__ import annotations

import json
import sqlite3

import pytest

from mcp_world.errors import AgentFault

from mcp_world.dialects import dialect_for_model, get_dialect
from mcp_world.dialects.agentworld import split
from mcp_world.dialects.base import Turn
from mcp_world.domain import domain_for
from mcp_world.rules import Call
from mcp_world.world import load_world

from .conftest import ScriptedEngine
from .helpers import stdio_client

pytestmark = pytest.mark.anyio

DUMP = ("<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\"><node index=\"0\" "
        "text=\"Wi-Fi\" resource-id=\"\" class=\"android.widget.Switch\" package=\"com.android.settings\" "
        "content-desc=\"\" checkable=\"true\" checked=\"false\" clickable=\"true\" enabled=\"true\" focusable=\"true\" "
        "focused=\"false\" scrollable=\"false\" long-clickable=\"false\" password=\"false\" selected=\"false\" "
        "bounds=\"[0,0][1080,200]\" /></hierarchy>")


@pytest.mark.parametrize("answer, thinking, observation", [
    # the usual shape: thinking, then the marker and the tool's output
    ("<think>ls lists the project.</think>\n\n**Environment Observation:**\nREADME.md\nsrc\n",
     "ls lists the project.", "README.md\nsrc\n"),
    # the chat template opened <think> itself: only the closing tag is in the answer
    ("The command prints the user.\n</think>\n\n**Environment Observation:**\nuser\n",
     "The command prints the user.", "user\n"),
    # the thinking budget ran out: an unclosed <think> is all thinking and leaves no observation
    ("<think>First, consider what git status prints when", "First, consider what git status prints when", ""),
    # a GUI observation inside its tags, after thinking
    (f"<think>Wi-Fi turns off.</think>\n<predicted_observation>\n{DUMP}\n</predicted_observation>",
     "Wi-Fi turns off.", DUMP + "\n"),
    # missing observation tags: the text after the marker is the observation
    (f"**Environment Observation:**\n{DUMP}", "", DUMP + "\n"),
    # the answer wrapped in the marker inside the tags, and the marker around the tags
    (f"<predicted_observation>\n**Environment Observation:**\n{DUMP}\n</predicted_observation>", "", DUMP + "\n"),
    (f"**Environment Observation:**\n<predicted_observation>{DUMP}</predicted_observation>", "", DUMP + "\n"),
    # two blocks (a draft, then the answer): the last one counts
    ("<predicted_observation>draft</predicted_observation> Correction: <predicted_observation>final</predicted_observation>",
     "", "final\n"),
    # cut off at the token limit before the closing tag
    ("<predicted_observation>\n<hierarchy rotation=\"0\"><node", "", "<hierarchy rotation=\"0\"><node\n"),
    # a code fence around the output, and a sentence before the marker
    ("Here it is.\n**Environment Observation:**\n```\nhello\n```", "", "hello\n"),
    # an empty output (mkdir prints nothing)
    ("<think>Nothing is printed.</think>\n**Environment Observation:**\n", "Nothing is printed.", ""),
])
def test_answers_in_the_agentworld_format_are_split_into_thinking_and_observation(answer, thinking, observation):
    assert split(answer) == (thinking, observation)


def test_a_small_budget_keeps_the_most_recent_turns_and_gui_domains_ask_for_the_tags():
    # (the turn layout itself is checked for every domain in test_agentworld_format.py)
    world = load_world("devbox")
    domain = domain_for(world, "terminal")
    d = get_dialect("agentworld", thinking=False)
    history = [Turn("", f"line {i}\n" * 40, "/home/user/notes-app", "run_command", {"command": f"echo {i}"})
               for i in range(30)]
    r = d.render(world, domain, {}, history, "", "", 4000,
                 call=Call("run_command", {"command": "ls"}, {}, spec=domain.tool("run_command")))
    assert 0 < r.history_used < 30 and r.thinking is False and r.extra_tokens == 0
    assert "echo 29" in r.messages[-3]["content"] and "echo 0\\n" not in json.dumps(r.messages)
    assert r.messages[1]["content"].startswith(f"### Turn {30 - r.history_used + 1}\n**Current State:**\n")
    phone = load_world("phone")
    gui = get_dialect("agentworld", thinking_budget=2048).render(
        phone, domain_for(phone, "android"), {}, [Turn("{}", "x" * 4000)] * 5, "{}", "", 3000)
    assert "<predicted_observation></predicted_observation>" in gui.messages[0]["content"]
    assert gui.extra_tokens == 2048 and gui.thinking is True
    assert gui.history_used < 5


def test_the_dialect_follows_the_model_name():
    assert dialect_for_model("Qwen/Qwen-AgentWorld-35B-A3B") == "agentworld"
    assert dialect_for_model("frob/qwen-agentworld:35b-a3b") == "agentworld"
    assert dialect_for_model("smollm2-135m-instruct") == "instruct"
    with pytest.raises(ValueError, match="known: auto, agentworld, instruct"):
        get_dialect("chatml")


async def test_the_simulator_logs_the_thinking_and_the_agent_gets_only_the_observation(make_rig):
    engine = ScriptedEngine(lambda r: "<think>groups prints the user's groups.</think>\n**Environment Observation:**\nuser\n")
    engine.model = "Qwen/Qwen-AgentWorld-35B-A3B"
    rig = make_rig(engine=engine, dialect="auto")
    result = await rig.sim.call("a1", "run_command", {"command": "groups"})
    assert result.observation == "user\n" and result.structured["exit_code"] == 0
    request = engine.requests[0]
    assert request.thinking is True and request.top_k == 20 and request.repetition_penalty == 1.0
    assert request.max_tokens > 4096 and request.grammar is None
    assert request.messages[-1]["content"].startswith("### Turn ")
    con = sqlite3.connect(rig.db)
    assert con.execute("select dialect from episodes where id='a1'").fetchone() == ("agentworld",)
    assert con.execute("select thinking, observation from steps").fetchone() == ("groups prints the user's groups.", "user\n")
    # An answer that is all thinking gives no observation: re-asked, then a malformed_observation error.
    engine.script = lambda r: "<think>Let me think about ls -la and"
    with pytest.raises(AgentFault, match=r"ended inside its thinking.*budget is 4096 tokens: raise --thinking-budget"):
        await rig.sim.call("a1", "run_command", {"command": "git log --oneline"})
    assert len(engine.requests) == 3  # the first call, then the unfinished thinking asked once more
    assert {r.max_tokens for r in engine.requests[1:]} == {request.max_tokens}  # observation budget + thinking budget
    assert con.execute("select error_kind from steps where idx = 1").fetchone() == ("malformed_observation",)


async def test_the_embedded_engine_accepts_agentworld_requests(engine_url, tmp_path):
    db = tmp_path / "aw.db"
    async with stdio_client(engine_url, db, "--dialect", "agentworld", "--no-thinking", "--seed", "4",
                            "--state", "off") as c:
        r = await c.call_tool("run_command", {"command": "groups"})
    # The 135M model does not know the format, so its answer may not parse; what this shows is that the
    # engine takes the dialect's request (chat template switch, top_k, no repetition penalty) and
    # generates from it, and that the answer went through the dialect's parsing.
    assert not r.is_error or r.content[0].text.startswith("malformed_observation"), r.content[0].text
    con = sqlite3.connect(db)
    assert con.execute("select dialect from episodes").fetchone() == ("agentworld",)
    assert con.execute("select error_kind from steps").fetchone()[0] in (None, "malformed_observation")
    from mcp_world.engines import CompletionRequest, VLLMEngine

    engine = VLLMEngine(engine_url, timeout_s=120)
    done = await engine.complete(CompletionRequest(
        messages=[{"role": "system", "content": "# Role and Objective"}, {"role": "user", "content": "### Turn 1"}],
        max_tokens=8, seed=1, thinking=False, top_k=20, repetition_penalty=1.0))
    await engine.aclose()
    assert done.prompt_tokens > 5 and done.completion_tokens >= 1  # accepted and generated, no HTTP error
