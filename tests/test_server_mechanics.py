"""The server's own mechanics, on a scripted engine (fast). The capability itself is proven on the
real embedded engine in test_end_to_end.py; engine faults (too large, unreachable, garbage) come
from a real HTTP endpoint through the real engine client in test_engine_faults.py."""

import json

import anyio
import pytest
from mcp import Client

from mcp_world.dialects.base import estimate_tokens
from mcp_world.engines import Completion
from mcp_world.server import build_server
from mcp_world.simulator import Limits, Simulator

from .conftest import ScriptedEngine

pytestmark = pytest.mark.anyio


def ls_engine(request):
    return "README.md\nsrc\n"


async def call(client, tool, args):
    with anyio.fail_after(30):
        return await client.call_tool(tool, args)


def steps(rig, episode="t"):
    return rig.store.query("select * from steps where episode_id = ? order by idx", (episode,))


async def test_a_call_is_answered_by_the_engine_and_logged(make_rig):
    engine = ScriptedEngine(ls_engine)
    rig = make_rig(engine=engine)
    async with Client(build_server(rig.sim, connection_key="t")) as c:
        r = await call(c, "run_command", {"command": "ls"})
    assert not r.is_error and r.content[0].text == "README.md\nsrc\n"
    assert r.structured_content == {"output": "README.md\nsrc\n", "exit_code": 0, "cwd": "/home/user/notes-app"}
    (row,) = steps(rig)
    assert row["tool"] == "run_command" and row["provenance"] == "model" and row["prompt_tokens"] == 10
    assert json.loads(row["arguments"]) == {"command": "ls"}
    # The prompt shows the world and the demonstrations, and ends at the new command.
    req = engine.requests[0]
    assert "devbox" in req.messages[0]["content"]
    assert req.prefill.endswith("user@devbox:~/notes-app$ ls\n") and "cat README.md" in req.prefill


@pytest.mark.parametrize("tool, args, kind, says", [
    ("run_command", {}, "bad_arguments", "'command' is a required property"),
    ("run_command", {"command": 5}, "bad_arguments", "5 is not of type 'string'"),
    ("run_command", {"command": "ls", "sudo": True}, "bad_arguments", "'sudo' was unexpected"),
    ("run_command", {"command": "x" * 1_000_000}, "too_large", "the limit is 65536"),
    ("launch_rocket", {}, "unknown_tool", "tools: run_command, world_reset"),
])
async def test_bad_input_gets_a_clear_error_loses_nothing_and_the_next_call_works(make_rig, tool, args, kind, says):
    rig = make_rig(engine=ScriptedEngine(ls_engine))
    async with Client(build_server(rig.sim, connection_key="t")) as c:
        assert not (await call(c, "run_command", {"command": "ls"})).is_error
        bad = await call(c, tool, args)
        assert bad.is_error and bad.content[0].text.startswith(kind) and says in bad.content[0].text
        assert not (await call(c, "run_command", {"command": "pwd"})).is_error
    rows = steps(rig)
    assert [r["error_kind"] for r in rows] == [None, kind, None]
    assert rows[0]["observation"] == "README.md\nsrc\n"


async def test_a_malformed_answer_is_repaired_once_then_reported_never_invented(make_rig):
    answers = iter(["This command lists files.", "This command lists files again."])
    rig = make_rig(engine=ScriptedEngine(lambda r: next(answers)))
    async with Client(build_server(rig.sim, connection_key="t")) as c:
        r = await call(c, "run_command", {"command": "ls"})
    assert r.is_error and "malformed_observation" in r.content[0].text and "after 2 attempts" in r.content[0].text
    (row,) = steps(rig)
    assert row["observation"] is None and row["error_kind"] == "malformed_observation"


async def test_a_repaired_answer_is_used_and_marked(make_rig):
    answers = iter(["Sure! Here is the output:", "a.txt\n"])
    rig = make_rig(engine=ScriptedEngine(lambda r: next(answers)))
    async with Client(build_server(rig.sim, connection_key="t")) as c:
        r = await call(c, "run_command", {"command": "ls"})
    assert r.content[0].text == "a.txt\n"
    assert steps(rig)[0]["repaired"] == 1


async def test_an_answer_that_looped_is_re_asked_with_a_frequency_penalty_and_the_rest_are_not(make_rig):
    looping = Completion("ok\n" * 40, 10, 120, True, "scripted", 1.0)  # cut at max_tokens, one line over and over
    answers = iter([looping, "a.txt\n", "This command lists files.", "b.txt\n"])
    engine = ScriptedEngine(lambda r: next(answers))
    rig = make_rig(engine=engine)
    async with Client(build_server(rig.sim, connection_key="t")) as c:
        looped = await call(c, "run_command", {"command": "ls"})
        explained = await call(c, "run_command", {"command": "ls src"})
    assert (looped.content[0].text, explained.content[0].text) == ("a.txt\n", "b.txt\n")
    penalties = [(r.frequency_penalty, r.repetition_penalty) for r in engine.requests]
    assert penalties == [(None, 1.05), (0.5, 1.05), (None, 1.05), (None, 1.05)]  # only the loop's re-ask changes
    assert [row["repaired"] for row in steps(rig)] == [1, 1]


async def test_history_is_given_to_the_model_and_cwd_follows_cd(make_rig):
    engine = ScriptedEngine(lambda r: "")
    rig = make_rig(engine=engine)
    async with Client(build_server(rig.sim, connection_key="t")) as c:
        await call(c, "run_command", {"command": "cd src"})
        r = await call(c, "run_command", {"command": "touch a.py"})
    assert r.structured_content["cwd"] == "/home/user/notes-app/src"
    assert engine.requests[1].prefill.endswith("user@devbox:~/notes-app$ cd src\nuser@devbox:~/notes-app/src$ touch a.py\n")


async def test_world_reset_starts_a_fresh_episode_and_the_transcript_is_a_resource(make_rig):
    rig = make_rig(world="office", engine=ScriptedEngine(lambda r: "x\n"))
    async with Client(build_server(rig.sim, connection_key="t")) as c:
        await call(c, "run_command", {"command": "ls"})
        res = await c.read_resource("episode://current")
        record = json.loads(res.contents[0].text)
        assert record["id"] == "t" and record["steps"][0]["observation"] == "x\n"
        r = await call(c, "world_reset", {"world": "devbox", "seed": 3})
        assert r.structured_content == {"episode_id": "t.1", "world": "devbox", "seed": 3, "domains": ["terminal"]}
        res = json.loads((await c.read_resource("episode://current")).contents[0].text)
        assert res["id"] == "t.1" and res["steps"] == [] and res["world"]["name"] == "devbox"
        bad = await call(c, "world_reset", {"world": "../../etc/passwd"})
        assert bad.is_error and "worlds this server can reset to" in bad.content[0].text


async def test_tools_are_listed_with_schemas_and_annotations(make_rig):
    rig = make_rig(world="office", engine=ScriptedEngine(ls_engine))
    async with Client(build_server(rig.sim, connection_key="t")) as c:
        tools = {t.name: t for t in (await c.list_tools()).tools}
    assert {"run_command", "browser_navigate", "browser_click", "browser_type", "browser_back", "browser_snapshot",
            "android_dump_ui", "android_tap", "android_type", "android_swipe", "android_press_key",
            "android_launch_app", "world_reset"} == set(tools)
    assert tools["run_command"].annotations.destructive_hint is True
    assert tools["android_dump_ui"].annotations.read_only_hint is True
    assert tools["browser_navigate"].input_schema["required"] == ["url"]


async def test_a_restarted_server_continues_an_episode_from_the_log(make_rig):
    rig = make_rig(engine=ScriptedEngine(ls_engine))
    async with Client(build_server(rig.sim, connection_key="t")) as c:
        await call(c, "run_command", {"command": "cd src"})
    from mcp_world.simulator import Simulator
    engine = ScriptedEngine(ls_engine)
    sim2 = Simulator(rig.sim.world, type(rig.sim.engines)([engine]), rig.store, rig.sim.dialect,
                         state_mode="off")
    async with Client(build_server(sim2, connection_key="t")) as c:
        r = await call(c, "run_command", {"command": "ls"})
    assert r.structured_content["cwd"] == "/home/user/notes-app/src"
    assert [row["idx"] for row in steps(rig)] == [0, 1]
    assert "$ cd src\n" in engine.requests[0].prefill


async def test_argument_limits_are_configurable(make_rig):
    rig = make_rig(engine=ScriptedEngine(ls_engine), limits=Limits(max_argument_chars=100))
    async with Client(build_server(rig.sim, connection_key="t")) as c:
        r = await call(c, "run_command", {"command": "echo " + "a" * 200})
    assert r.is_error and "too_large" in r.content[0].text


async def test_concurrent_first_calls_of_one_episode_create_it_once(make_rig):
    rig = make_rig(engine=ScriptedEngine(ls_engine))
    results = []

    async def one():
        results.append(await rig.sim.call("same", "run_command", {"command": "ls"}))

    with anyio.fail_after(30):
        async with anyio.create_task_group() as tg:
            for _ in range(5):
                tg.start_soon(one)
    assert sorted(r.index for r in results) == [0, 1, 2, 3, 4]
    assert [e["id"] for e in rig.store.query("select id from episodes")] == ["same"]


async def test_several_engines_share_the_episodes_and_each_episode_sticks_to_one(tmp_path):
    from mcp_world.dialects import get_dialect
    from mcp_world.engines import EnginePool
    from mcp_world.store import Store
    from mcp_world.world import load_world

    a, b = ScriptedEngine(lambda r: "from a\n", url="scripted://a"), ScriptedEngine(lambda r: "from b\n", url="scripted://b")
    store = Store(tmp_path / "two.db")
    sim = Simulator(load_world("devbox"), EnginePool([a, b]), store, get_dialect("instruct"), state_mode="off")
    seen: dict[str, set[str]] = {}
    for n in range(12):
        for _ in range(3):
            r = await sim.call(f"ep-{n}", "run_command", {"command": "groups"})
            seen.setdefault(f"ep-{n}", set()).add(r.observation)
    assert all(len(v) == 1 for v in seen.values())  # sticky: one engine per episode
    assert {o for v in seen.values() for o in v} == {"from a\n", "from b\n"}  # and both engines are used
    urls = {row["engine_url"] for row in store.query("select engine_url from episodes")}
    assert urls == {"scripted://a", "scripted://b"}
    store.close()


async def test_an_engine_counting_more_prompt_tokens_than_estimated_shrinks_the_next_prompts(make_rig):
    """The context budget is kept in the engine's own count: when it reports three times the tokens
    we estimated, later prompts hold fewer history turns, and the engine's context is never exceeded."""
    def prompts_sent(counted_as: float) -> list[int]:
        def script(request):
            estimate = sum(estimate_tokens(m["content"]) for m in request.messages) + estimate_tokens(request.prefill)
            return Completion("x" * 300 + "\n", int(estimate * counted_as), 80, False, "scripted", 1.0)
        return script

    shown = {}
    for counted_as in (1.0, 3.0):
        engine = ScriptedEngine(prompts_sent(counted_as))
        rig = make_rig(engine=engine, limits=Limits(context_tokens=2_048))
        for n in range(12):
            await rig.sim.call("t", "run_command", {"command": f"cat log{n}.txt"})
        shown[counted_as] = engine.requests[-1].prefill.count("$ cat log")
        assert rig.sim._token_ratio == 1.0 if counted_as == 1.0 else rig.sim._token_ratio > 2.5
    assert shown[3.0] < shown[1.0], shown  # the history was cut to fit the engine's real count


async def test_beyond_max_episodes_the_oldest_is_forgotten_and_resumes_from_the_log(make_rig):
    engine = ScriptedEngine(ls_engine)
    rig = make_rig(engine=engine, limits=Limits(max_episodes=2))
    for key in ("a", "b"):
        await rig.sim.call(key, "run_command", {"command": f"echo {key}-first"})
    await rig.sim.call("c", "run_command", {"command": "ls"})  # a third episode: "a" leaves memory
    assert set(rig.sim._episodes) == {"b", "c"}
    await rig.sim.call("a", "run_command", {"command": "pwd"})
    assert "echo a-first" in engine.requests[-1].prefill  # its history came back from the log
    assert [r["idx"] for r in steps(rig, "a")] == [0, 1]  # the same episode, one step on
    assert len(rig.sim._episodes) == 2
