"""The real repository (`--shadow swe`): the world's code base in a bubblewrap sandbox, its tests
run for real with pytest, the repository tools on the real files — and the state's answers proven
against it."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import httpx
import pytest
from mcp import Client

from mcp_world.domain import load_domain
from mcp_world.errors import MCPWorldError
from mcp_world.executors.repo import RepoSandbox, ShadowRepo, Runner
from mcp_world.executors.sandbox import SandboxLimits
from mcp_world.rules import Call
from mcp_world.tasks import shipped_tasks
from mcp_world.world import load_world

from .helpers import http_server

FIX = {"path": "textstats/core.py", "old_str": 'r"\\w+"', "new_str": "r\"\\w+(?:'\\w+)*\""}


@pytest.fixture(scope="module")
def repo():
    executor = ShadowRepo(SandboxLimits(timeout_s=8))
    yield executor
    executor.close()


def observe(executor: ShadowRepo, episode: str, tool: str, arguments: dict, world=None):
    return asyncio.run(executor.observe(episode, world or load_world("repo"), tool, arguments, {}))


def test_the_tests_run_for_real_and_an_edit_changes_their_outcome(repo):
    before = observe(repo, "fix", "repo_run_tests", {})
    assert before.text.startswith("============================= test session starts")
    assert "rootdir: /workspace/textstats\n" in before.text
    assert "FAILED tests/test_core.py::test_word_count_keeps_contractions - assert 7 == 5" in before.text
    assert {k: before.structured[k] for k in ("passed", "failed", "errors", "exit_code")} == \
        {"passed": 3, "failed": 1, "errors": 0, "exit_code": 1}
    diff = observe(repo, "fix", "repo_replace", FIX)
    assert diff.structured == {"path": "textstats/core.py", "added": 1, "removed": 1}
    after = observe(repo, "fix", "repo_run_tests", {})
    assert (after.structured["passed"], after.structured["failed"], after.structured["exit_code"]) == (4, 0, 0)
    one = observe(repo, "fix", "repo_run_tests", {"target": "tests/test_core.py::test_word_count_simple"})
    assert "collected 1 item\n" in one.text and one.structured["passed"] == 1
    # Another episode has its own repository: the fix is not there.
    assert observe(repo, "other", "repo_run_tests", {}).structured["failed"] == 1
    # Nothing but what the agent made: no bytecode, no .pytest_cache.
    assert observe(repo, "fix", "repo_list", {}).text == "README.md\npyproject.toml\ntests/\ntextstats/\n"
    assert repo.reader("fix", load_world("repo")).read("textstats/core.py").count("(?:'\\w+)*") == 1
    repo.end("fix")
    repo.end("other")


def test_every_state_answer_of_the_repo_world_is_what_the_real_repository_answers(repo):
    """The swe state answers views, edits, searches and listings from the files it knows: replayed
    over the repo world's scripted task actions and more, each state answer is byte for byte the
    real one (and so is each refusal)."""
    rules = load_domain("swe").rules
    world = load_world("repo")
    calls = [(a.tool, a.arguments) for t in shipped_tasks("repo").tasks for a in t.actions]
    calls += [("repo_list", {"path": "tests"}), ("repo_view", {"path": "textstats"}),
              ("repo_view", {"path": "README.md", "start_line": 3}), ("repo_search", {"pattern": "def (\\w+)_count"}),
              ("repo_search", {"pattern": "zzz-nothing"}), ("repo_search", {"pattern": "import", "path": "textstats/core.py"}),
              ("repo_replace", {"path": "textstats/core.py", "old_str": "return", "new_str": "return "}),
              ("repo_list", {"path": "nowhere"}), ("repo_list", {"path": "README.md"})]
    state = rules.initial(world)
    compared = 0
    for i, (tool, arguments) in enumerate(calls):
        call = Call(tool, dict(arguments), state)
        simulated = rules.answer(state, call)
        real = observe(repo, "proof", tool, dict(arguments), world)
        if simulated is not None:
            assert (simulated.text, simulated.structured) == (real.text, real.structured), (i, tool, arguments)
            compared += 1
        state = rules.apply(state, call, real.text, real.structured)
    assert compared >= 18
    repo.end("proof")


def test_hostile_tests_stay_in_the_sandbox(repo, tmp_path):
    """The agent writes a test that reads a host file, links one into the repository, writes to the
    test runner and to the host, opens the network: none of it reaches the host, and a view of the
    link reads what the sandbox sees. A test that never ends is stopped."""
    host = Path("/var/tmp") / f"mcp-world-repo-{os.getpid()}.txt"
    host.write_text("host secret\n")
    os.chmod(host, 0o644)
    world = load_world("repo")
    hostile = (f"import os, socket\n\ndef test_escape():\n    os.symlink({str(host)!r}, 'leak.txt')\n"
               f"    for target in ('/opt/mcp-world/repo_tool.py', {str(tmp_path / 'x')!r}, {str(host)!r}):\n"
               "        try:\n            open(target, 'w').write('owned')\n        except OSError:\n            pass\n"
               "    s = socket.socket()\n    s.settimeout(1)\n"
               "    assert s.connect_ex(('1.1.1.1', 80)) != 0\n")
    try:
        made = observe(repo, "evil", "repo_replace", {"path": "tests/test_core.py", "old_str": "from textstats",
                                                      "new_str": hostile + "from textstats"}, world)
        assert made.structured.get("added"), made.text
        ran = observe(repo, "evil", "repo_run_tests", {"target": "tests/test_core.py::test_escape"}, world)
        assert ran.structured["passed"] == 1, ran.text
        assert host.read_text() == "host secret\n" and not (tmp_path / "x").exists()
        assert "owned" not in (repo.runner.folder / "repo_tool.py").read_text()
        link = observe(repo, "evil", "repo_view", {"path": "leak.txt"}, world)
        assert "host secret" not in link.text and link.structured.get("error"), link.text
        outside = observe(repo, "evil", "repo_view", {"path": "../../../var/tmp"}, world)
        assert outside.structured == {"error": "../../../var/tmp is outside the repository"}
        forever = observe(repo, "evil", "repo_replace", {"path": "tests/test_core.py", "old_str": "def test_escape",
                                                         "new_str": "def test_forever():\n    while True:\n"
                                                                    "        pass\n\n\ndef test_escape"}, world)
        assert forever.structured.get("added")
        stopped = observe(repo, "evil", "repo_run_tests", {"target": "tests/test_core.py::test_forever"}, world)
        assert stopped.structured["exit_code"] == 124 and "stopped after 8 s" in stopped.text
    finally:
        host.unlink(missing_ok=True)
        repo.end("evil")


def test_a_root_the_sandbox_cannot_hold_is_refused_with_what_is_accepted():
    world = load_world("repo")
    bad = world.model_copy(update={"seed": {**world.seed, "swe": {**world.seed["swe"], "root": "/usr/lib/textstats"}}})
    runner = Runner()
    try:
        with pytest.raises(MCPWorldError, match="must be an absolute, normalized folder outside /usr.*got '/usr/lib"):
            RepoSandbox(bad, SandboxLimits(), runner)
    finally:
        runner.close()
    assert not runner.folder.exists()


@pytest.mark.anyio
async def test_real_repository_episodes_are_scored_by_their_real_test_runs(engine_url: str, tmp_path: Path):
    """`serve --world repo --shadow swe`: an episode opened with mode real gets the real tools, and
    its task's checks read the real runs and files — a wrong fix fails, whatever the world model
    predicted; a shadow episode logs the real run beside the simulated one."""
    db = tmp_path / "e.db"
    with http_server(engine_url, db, "--world", "repo", "--shadow", "swe") as (url, _):
        async with httpx.AsyncClient(base_url=url.removesuffix("/mcp"), timeout=300) as h:
            listed = (await h.get("/episodes")).json()
            assert listed["modes"] == ["simulation", "real"] and listed["real_domains"] == ["swe"]
            good = (await h.post("/episodes", json={"task": "fix-word-count", "mode": "real"})).json()
            wrong = (await h.post("/episodes", json={"task": "fix-word-count", "mode": "real"})).json()
            async with Client(good["mcp_url"], read_timeout_seconds=300) as c:
                missing = await c.call_tool("repo_view", {"path": "CHANGELOG.md"})
                await c.call_tool("repo_replace", FIX)
                ran = await c.call_tool("repo_run_tests", {})
            assert missing.is_error and missing.meta["mcp-world/provenance"] == "real"
            assert ran.meta["mcp-world/provenance"] == "real" and ran.structured_content["passed"] == 4
            async with Client(wrong["mcp_url"], read_timeout_seconds=300) as c:
                await c.call_tool("repo_replace", {**FIX, "new_str": 'r"[a-z]+"'})  # "don't" is still two words
                ran_wrong = await c.call_tool("repo_run_tests", {})
            assert ran_wrong.structured_content["failed"] >= 1, ran_wrong.content[0].text
            verdict = (await h.post(f"/episodes/{good['episode_id']}/verify", json={})).json()
            assert verdict["reward"] == 1.0, verdict
            failed = (await h.post(f"/episodes/{wrong['episode_id']}/verify", json={})).json()
            assert failed["reward"] == 0.4 and [c["passed"] for c in failed["checks"]] == [True, False, True], failed
    import sqlite3

    with sqlite3.connect(db) as conn:
        rows = conn.execute("select provenance, observation is not null, real_observation, prediction_error "
                            "from steps where tool = 'repo_run_tests' order by id").fetchall()
    assert [r[0] for r in rows] == ["real", "real"]
    # the world model's prediction is logged beside each real run: its answer, or (the 135M model's
    # answer, sampled, is now and then no test run at all: seen in CI; and on a busy machine one still
    # running when the server's drain ends is marked abandoned, as designed: seen in CI) why it has none
    for _, predicted, _, error in rows:
        assert predicted or (error or "").startswith(("malformed_observation: the world model's answer was not",
                                                      "abandoned: the server stopped")), error
    assert "4 passed" in rows[0][2]


def test_in_a_real_episode_the_checks_read_the_real_runs_and_the_real_files(repo):
    """What the agent got decides: the log's real observation of a test run (not the world model's
    prediction logged beside it), and the real repository's files (not the state)."""
    from mcp_world.tasks import parse_task, run_checks, view_of

    world = load_world("repo")
    task = parse_task({"id": "t", "instruction": "fix it", "success": [
        {"kind": "tests_pass"}, {"kind": "file_contains", "path": "textstats/core.py", "text": "(?:'\\w+)*"}]}, world)
    predicted = '{"passed": 4, "failed": 0, "errors": 0, "exit_code": 0, "summary": "4 passed in 0.01s"}'
    really = '{"passed": 3, "failed": 1, "errors": 0, "exit_code": 1, "summary": "1 failed, 3 passed in 0.02s"}'
    rows = [{"tool": "repo_run_tests", "arguments": "{}", "domain": "swe", "provenance": "real",
             "observation": "4 passed", "structured": predicted, "real_observation": "1 failed",
             "real_structured": really}]
    state = {"swe": {**load_domain("swe").rules.initial(world), "files": {"textstats/core.py": "(?:'\\w+)*"}}}
    simulated = run_checks(task, view_of(world, state, [{**rows[0], "provenance": "model"}]))
    assert [c.passed for c in simulated] == [True, True]
    real = run_checks(task, view_of(world, state, rows, real={"swe": repo.reader("checks", world)}))
    assert [c.passed for c in real] == [False, False], real
    assert real[0].detail == "the last run: 1 failed, 3 passed in 0.02s"
    assert real[1].detail.endswith("(in the real repository)")
    repo.end("checks")


def test_modules_the_agent_plants_do_not_answer_for_the_repository_tools(repo):
    """In a src layout the project's src/ is on PYTHONPATH (as after `pip install -e .`): a json.py a
    test leaves there is imported by the tests, never by the helper that reads the files for the
    tools and for the checks (which it could otherwise make say anything)."""
    world = load_world("repo")
    files = {"src/pkg/__init__.py": "VALUE = 1\n", "tests/test_plant.py": (
        "import os\n\ndef test_plant():\n"
        "    forged = 'import sys\\nsys.stdout.write(\\'{\"kind\": \"file\", \"content\": \"forged\"}\\')\\n'\n"
        "    for where in ('src/json.py', 'json.py'):\n        open(where, 'w').write(forged)\n"
        "    from pkg import VALUE\n    assert VALUE == 1\n")}
    planted = world.model_copy(update={"name": "planted", "seed": {
        "swe": {"root": "/workspace/planted", "files": files, "test_command": "pytest"}}})
    ran = observe(repo, "plant", "repo_run_tests", {}, planted)
    assert ran.structured["passed"] == 1, ran.text
    assert repo.reader("plant", planted).read("src/pkg/__init__.py") == "VALUE = 1\n"
    assert observe(repo, "plant", "repo_view", {"path": "src/json.py"}, planted).text.startswith("     1\timport sys")
    repo.end("plant")


def test_passing_by_editing_the_tests_does_not_count(repo):
    """`unchanged`: the test file is as the world started it — in the state, and in a real episode
    in the real repository, whatever the agent's runs said."""
    from mcp_world.tasks import parse_task, run_checks, view_of

    world = load_world("repo")
    rules = load_domain("swe").rules
    task = parse_task({"id": "t", "instruction": "fix it", "success": [
        {"kind": "unchanged", "path": "tests/test_core.py"}, {"kind": "unchanged", "path": "nope.py"}]}, world)
    start = rules.initial(world)
    assert [c.passed for c in run_checks(task, view_of(world, {"swe": start}, []))] == [True, False]
    cheat = {"path": "tests/test_core.py", "old_str": "== 5", "new_str": "== 7"}
    edited = rules.apply(start, Call("repo_replace", cheat, start), "", {"path": cheat["path"], "added": 1})
    assert not run_checks(task, view_of(world, {"swe": edited}, []))[0].passed
    real = {"swe": repo.reader("cheat", world)}
    assert run_checks(task, view_of(world, {"swe": start}, [], real=real))[0].detail == \
        "tests/test_core.py is unchanged (in the real repository)"
    observe(repo, "cheat", "repo_replace", cheat, world)
    assert observe(repo, "cheat", "repo_run_tests", {}, world).structured["failed"] == 0
    after = run_checks(task, view_of(world, {"swe": start}, [], real=real))[0]
    assert (after.passed, after.detail) == (False, "tests/test_core.py is changed (in the real repository)")
    repo.end("cheat")


def _real_run_rows(executor: ShadowRepo, episode: str, world, calls: list[tuple[str, dict]]) -> list[dict]:
    """Run `calls` in the episode's real repository and log them as a real episode's step rows."""
    import json

    rows = []
    for tool, arguments in calls:
        got = observe(executor, episode, tool, arguments, world)
        rows.append({"tool": tool, "arguments": json.dumps(arguments), "domain": "swe", "provenance": "real",
                     "observation": "", "structured": "{}", "real_observation": got.text,
                     "real_structured": json.dumps(got.structured)})
    return rows


def test_at_verify_the_whole_suite_runs_again_with_the_tests_the_world_gave(repo):
    """`tests_pass` in a real episode (SWE-bench's rule): a run of the passing tests alone is no run
    of the suite, and at verify the whole suite runs again in a fresh repository with the agent's
    code and the world's tests and pytest configuration — an edited test or a deselecting addopts in
    pyproject.toml pass the agent's own runs, not verify."""
    from mcp_world.tasks import parse_task, run_checks, view_of

    world = load_world("repo")
    task = parse_task({"id": "t", "instruction": "fix it", "success": [{"kind": "tests_pass"}]}, world)
    start = {"swe": load_domain("swe").rules.initial(world)}

    def verdict(episode: str, calls: list[tuple[str, dict]]):
        rows = _real_run_rows(repo, episode, world, calls)
        assert rows[-1]["tool"] != "repo_run_tests" or json_of(rows[-1])["failed"] == 0, rows[-1]["real_observation"]
        return run_checks(task, view_of(world, start, rows, real={"swe": repo.reader(episode, world)}))[0]

    one = "tests/test_core.py::test_word_count_simple"
    targeted = verdict("targeted", [("repo_run_tests", {"target": one})])
    assert (targeted.passed, targeted.detail) == (False, "the whole suite was never run (repo_run_tests without a target)")
    edited = verdict("edited-test", [("repo_replace", {"path": "tests/test_core.py", "old_str": "== 5",
                                                       "new_str": "== 7"}), ("repo_run_tests", {})])
    deselect = 'addopts = "--deselect tests/test_core.py::test_word_count_keeps_contractions"\n'
    configured = verdict("configured", [("repo_replace", {"path": "pyproject.toml", "old_str": "[tool.pytest.ini_options]\n",
                                                          "new_str": "[tool.pytest.ini_options]\n" + deselect}),
                                        ("repo_run_tests", {})])
    for hacked in (edited, configured):
        assert not hacked.passed, hacked.detail
        assert "1 failed, 3 passed" in hacked.detail.split("at verify")[1], hacked.detail
    fixed = verdict("fixed", [("repo_replace", FIX), ("repo_run_tests", {})])
    assert fixed.passed and "at verify, with the tests as the world gave them: 4 passed" in fixed.detail, fixed.detail
    # The fresh run left the episode's own repository as the agent made it.
    assert "== 7" in repo.reader("edited-test", world).read("tests/test_core.py")
    for episode in ("targeted", "edited-test", "configured", "fixed"):
        repo.end(episode)


def json_of(row: dict) -> dict:
    import json

    return json.loads(row["real_structured"])


def test_generate_runs_real_repository_episodes_and_scores_them_there(engine_url: str, tmp_path: Path):
    """`generate --shadow swe --real swe`: the scripted fix runs in the real repository, and its
    checks read the real run and the real files."""
    import json
    import sqlite3
    import subprocess
    import sys

    import yaml

    tasks = tmp_path / "fix.yaml"
    shipped = yaml.safe_load((Path(__file__).parent.parent / "fixtures" / "tasks" / "repo.yaml").read_text())
    tasks.write_text(yaml.safe_dump({"world": "repo", "tasks": [t for t in shipped["tasks"] if t["id"] == "fix-word-count"]}))
    db = tmp_path / "gen.db"
    r = subprocess.run([sys.executable, "-m", "mcp_world", "generate", "--tasks", str(tasks), "--shadow", "swe",
                        "--real", "swe", "--engine", engine_url, "--db", str(db)], capture_output=True, text=True,
                       timeout=900)
    assert r.returncode == 0, r.stderr[-2000:]
    with sqlite3.connect(db) as conn:
        reward, verdict = conn.execute("select reward, verdict from episodes").fetchone()
        provenance = {p for (p,) in conn.execute("select provenance from steps")}
    checks = json.loads(verdict)["checks"]
    assert reward == 1.0 and provenance == {"real"}, checks
    assert checks[2]["detail"] == "tests/test_core.py is unchanged (in the real repository)"
    assert checks[1]["detail"].startswith("the last run: 4 passed")
