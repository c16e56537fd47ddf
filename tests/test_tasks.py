"""Tasks with verifiable success: every check kind reads the episode's state and log (built here by
the domains' own rules, as the server builds them), malformed checks are refused with what is
accepted, and the reward is the weighted share of passed checks."""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import pytest

from mcp_world.domain import domain_for, load_domain
from mcp_world.errors import WorldFileError
from mcp_world.paths import FIXTURES_DIR
from mcp_world.rules import Call
from mcp_world.episodes import initial_state
from mcp_world.tasks import load_tasks, parse_task, verify, view_of
from mcp_world.world import load_world

TASK_FILES = sorted((FIXTURES_DIR / "tasks").glob("*.yaml"))


def task(world, *checks, judge=None):
    return parse_task({"id": "t", "instruction": "do it", "success": list(checks),
                       **({"judge": judge} if judge else {})}, world)


def run(world, state, steps=(), answer="", *checks):
    verdict = anyio.run(verify, task(world, *checks), view_of(world, state, list(steps), answer))
    return verdict


def terminal_after(world, commands):
    """The terminal state after `commands`, each answered from the state as the server does."""
    rules = domain_for(world, "terminal").rules
    state = initial_state(world)
    steps = []
    for command in commands:
        doc = state["terminal"]
        call = Call("run_command", {"command": command}, doc)
        parsed = rules.answer(doc, call)
        assert parsed is not None, f"{command!r} is not answered from the state; pick a command that is"
        state["terminal"] = rules.apply(doc, call, parsed.text, parsed.structured)
        steps.append({"tool": "run_command", "arguments": json.dumps({"command": command}), "domain": "terminal",
                      "observation": parsed.text, "structured": json.dumps(parsed.structured)})
    return state, steps


def scripted_from_state(world, task):
    """A task's scripted actions, each answered from the state as the server does (none may need the
    model), and the state and steps they leave."""
    state = initial_state(world)
    steps = []
    for action in task.actions:
        domain = domain_for(world, next(d for d in world.domains
                                        if load_domain(d).tool(action.tool) is not None))
        call = Call(action.tool, dict(action.arguments), state[domain.name], spec=domain.tool(action.tool))
        parsed = domain.rules.answer(state[domain.name], call)
        assert parsed is not None, f"{task.id}: {action.tool} {action.arguments} is left to the model"
        state[domain.name] = domain.rules.apply(state[domain.name], call, parsed.text, parsed.structured)
        steps.append({"tool": action.tool, "arguments": json.dumps(action.arguments), "domain": domain.name,
                      "observation": parsed.text, "structured": json.dumps(parsed.structured)})
    return state, steps


@pytest.mark.parametrize("world_name, task_ids", [
    ("office", ["directory", "leave-request", "intranet-news"]),  # the intranet's declared pages
    ("phone", ["wifi-off"]),  # Android 14's Settings > Network & internet > Internet, as declared
])
def test_scripted_tasks_on_declared_pages_run_from_the_state_and_succeed(world_name, task_ids):
    world = load_world(world_name)
    tasks = {t.id: t for t in load_tasks(FIXTURES_DIR / "tasks" / f"{world_name}.yaml").tasks}
    for task_id in task_ids:
        state, steps = scripted_from_state(world, tasks[task_id])
        verdict = anyio.run(verify, tasks[task_id], view_of(world, state, steps, "dana.reyes@acme.example"))
        machine = [c for c in verdict.checks if "answer" not in c.name]
        assert machine and all(c.passed for c in machine), (task_id, verdict.checks)


@pytest.mark.parametrize("path", TASK_FILES, ids=lambda p: p.stem)
def test_every_shipped_task_has_success_checks_valid_for_its_world(path: Path):
    tf = load_tasks(path)
    world = load_world(tf.world)
    assert len(tf.tasks) >= 10
    for t in tf.tasks:
        assert t.checks, f"{path.name}: task {t.id} has no success checks"
        assert all(c.domain is None or c.domain in world.domains for c in t.checks)


@pytest.mark.parametrize("check, says", [
    ({"kind": "nope"}, ["unknown check kind 'nope'", "kinds accepted:", "file_contains", "called"]),
    ({"kind": "file_contains", "path": "a.txt"}, ["file_contains check: text: Field required", "fields of file_contains"]),
    ({"kind": "called", "tool": "browser_click"}, ["no tool 'browser_click' in world 'devbox'", "tools: run_command"]),
    ({"kind": "visited", "url": "https://x.example/"}, ["unknown check kind 'visited' for world 'devbox'"]),
    ({"kind": "state", "domain": "browser", "pointer": "/url", "equals": ""}, ["domain 'browser' is not in world 'devbox'"]),
    ({"kind": "answer_matches", "pattern": "(a)\\1"}, ["not an RE2 regular expression"]),
    ({"kind": "state", "domain": "terminal", "pointer": "/cwd"}, ["exactly one of equals, contains, exists"]),
    ({"kind": "file_exists", "path": "a", "weight": 0}, ["weight", "greater than 0"]),
    ({"kind": "file_exists", "path": "a", "colour": "red"}, ["colour", "Extra inputs are not permitted"]),
    ("file_exists", ["a check is a mapping with a `kind`"]),
])
def test_a_malformed_check_names_the_field_and_what_is_accepted(check, says):
    with pytest.raises(WorldFileError) as err:
        task(load_world("devbox"), check)
    for part in says:
        assert part in str(err.value)
    assert "success[0]" in str(err.value)


def test_a_malformed_check_in_a_task_file_names_the_file_and_the_task(tmp_path: Path):
    path = tmp_path / "tasks.yaml"
    path.write_text("world: devbox\ntasks:\n  - id: a\n    instruction: x\n    success:\n      - {kind: cwd}\n")
    with pytest.raises(WorldFileError) as err:
        load_tasks(path)
    assert str(path) in str(err.value) and "tasks[0] (a)" in str(err.value) and "path: Field required" in str(err.value)


def test_terminal_checks_read_the_shell_state_after_the_commands():
    world = load_world("devbox")
    state, steps = terminal_after(world, [
        "cd ~/notes-app",
        "printf 'def remove(notes, text):\\n    notes.remove(text)\\n' >> src/notes.py",
        "mkdir -p build/out", "rm -rf build", "echo hi > notes.txt",
    ])
    v = run(world, state, steps, "",
            {"kind": "file_contains", "path": "src/notes.py", "text": "def remove("},
            {"kind": "file_contains", "path": "src/notes.py", "text": "def add("},
            {"kind": "file_equals", "path": "~/notes-app/notes.txt", "text": "hi"},
            {"kind": "file_absent", "path": "build"},
            {"kind": "cwd", "path": "~/notes-app"},
            {"kind": "file_exists", "path": "/home/user/notes-app/src"})
    assert [c.passed for c in v.checks] == [True, True, True, True, True, True], v.as_dict()
    assert v.reward == 1.0
    # The same checks fail on the untouched world, and the details say what was found.
    v0 = run(world, initial_state(world), [], "",
             {"kind": "file_contains", "path": "src/notes.py", "text": "def remove("},
             {"kind": "file_exists", "path": "notes.txt"}, {"kind": "cwd", "path": "/tmp"})
    assert [c.passed for c in v0.checks] == [False, False, False] and v0.reward == 0.0
    assert "lacks 'def remove('" in v0.checks[0].detail and "does not exist" in v0.checks[1].detail
    assert "the shell is in /home/user/notes-app" == v0.checks[2].detail


def test_git_checks_see_a_new_branch_and_a_new_commit_only_after_they_were_made():
    world = load_world("devbox")
    branch = {"kind": "git_branch", "equals": "feature/search"}
    commit = {"kind": "git_commit", "message_contains": "remove"}
    before = run(world, initial_state(world), [], "", branch, commit)
    assert [c.passed for c in before.checks] == [False, False]
    assert "no new commit" in before.checks[1].detail
    rules = domain_for(world, "terminal").rules
    state = initial_state(world)
    for command in ("git checkout -b feature/search", "git add -A", "git commit -m 'Add remove()'"):
        # git is answered by the world model; the state follows the command whatever the text was.
        call = Call("run_command", {"command": command}, state["terminal"])
        state["terminal"] = rules.apply(state["terminal"], call, "", {"exit_code": 0, "cwd": "/home/user/notes-app"})
    after = run(world, state, [], "", branch, commit)
    assert [c.passed for c in after.checks] == [True, True], after.as_dict()


def test_partial_credit_is_the_weighted_share_of_passed_checks():
    world = load_world("devbox")
    steps = [{"tool": "run_command", "arguments": {"command": "python3 -m pytest -q"}, "observation": "1 passed\n"},
             {"tool": "run_command", "arguments": {"command": "rm -rf /"}, "error_kind": "bad_arguments"}]
    v = run(world, initial_state(world), steps, "All 3 tests PASSED",
            {"kind": "called", "tool": "run_command", "matches": {"command": "pytest"}, "weight": 3},
            {"kind": "answer_contains", "text": "passed"},
            {"kind": "answer_matches", "pattern": "^nothing$", "weight": 2},
            {"kind": "not_called", "tool": "run_command", "matches": {"command": "rm -rf /"}, "weight": 2})
    assert [c.passed for c in v.checks] == [True, True, False, False]
    assert v.reward == pytest.approx(4 / 8)
    # A refused call does not count as a call made without error.
    strict = run(world, initial_state(world), steps, "",
                 {"kind": "called", "tool": "run_command", "matches": {"command": "rm"}})
    assert not strict.checks[0].passed and "1 more failed" in strict.checks[0].detail


def test_an_mcp_record_check_reads_the_calls_arguments_and_their_error_results():
    world = load_world("helpdesk")
    check = {"kind": "called", "tool": "create_ticket", "arguments": {"requester": "ops@kettle.example"},
             "matches": {"subject": "(?i)payment"}}
    made = {"tool": "create_ticket", "arguments": {"subject": "Card payment failed", "requester": "ops@kettle.example"},
            "observation": '{"id": "T-1045"}'}
    assert run(world, {}, [made], "", check).reward == 1.0
    assert run(world, {}, [{**made, "is_error": 1}], "", check).reward == 0.0  # the tool said it failed
    other = {**made, "arguments": {**made["arguments"], "requester": "someone@else.example"}}
    assert run(world, {}, [other], "", check).reward == 0.0


def test_browser_checks_read_the_pages_shown_and_the_fields_typed():
    world = load_world("webshop")
    rules = domain_for(world, "browser").rules
    state = initial_state(world)
    steps = []
    page = ("<!DOCTYPE html><html><head><title>Login</title></head><body><form><input name=email>"
            "<input name=password type=password></form></body></html>")
    for tool, args, html, url in [
        ("browser_navigate", {"url": "https://greenleaf.example/login"}, page, "https://greenleaf.example/login"),
        ("browser_type", {"target": "input[name=email]", "text": "ana@example.com"}, page, "https://greenleaf.example/login"),
    ]:
        structured = {"url": url, "status": 200, "title": "Login"}
        state["browser"] = rules.apply(state["browser"], Call(tool, args, state["browser"]), html, structured)
        steps.append({"tool": tool, "arguments": args, "domain": "browser", "observation": html,
                      "structured": json.dumps(structured)})
    v = run(world, state, steps, "",
            {"kind": "visited", "matches": "/login$"}, {"kind": "form_field", "target": "email", "equals": "ana@example.com"},
            {"kind": "page_contains", "text": "name=password"}, {"kind": "visited", "url": "https://greenleaf.example/cart"})
    assert [c.passed for c in v.checks] == [True, True, True, False], v.as_dict()
    assert "never visited https://greenleaf.example/cart" in v.checks[3].detail


DUMP = ('<?xml version="1.0" encoding="UTF-8"?><hierarchy rotation="0"><node index="0" text="" class="android.widget.FrameLayout" '
        'package="com.android.settings" bounds="[0,0][1080,2400]"><node index="0" text="Wi-Fi" class="android.widget.TextView" '
        'package="com.android.settings" bounds="[40,300][800,380]"/><node index="1" text="" class="android.widget.Switch" '
        'package="com.android.settings" checkable="true" checked="false" clickable="true" bounds="[900,300][1040,380]"/>'
        '</node></hierarchy>')


def test_android_checks_read_switches_typed_text_and_the_foreground_app():
    world = load_world("phone")
    rules = domain_for(world, "android").rules
    state = initial_state(world)
    for tool, args in [("android_tap", {"target": "Wi-Fi"}), ("android_type", {"text": "On my way"})]:
        state["android"] = rules.apply(state["android"], Call(tool, args, state["android"]), DUMP,
                                       {"package": "com.android.settings"})
    v = run(world, state, [], "",
            {"kind": "setting", "name": "wi-fi", "on": False}, {"kind": "setting", "name": "Wi-Fi", "on": True},
            {"kind": "typed", "text": "on my way"}, {"kind": "app", "package": "com.android.settings"},
            {"kind": "screen_contains", "text": "Wi-Fi"}, {"kind": "setting", "name": "Bluetooth", "on": True})
    assert [c.passed for c in v.checks] == [True, False, True, True, True, False], v.as_dict()
    assert "no switch 'Bluetooth'" in v.checks[5].detail


def test_desktop_repository_and_search_checks_read_their_states():
    desktop = load_world("desktop")
    state = initial_state(desktop)
    state["os"]["typed"], state["os"]["hotkeys"] = ["\nPay invoice 11."], ["Ctrl+S"]
    v = run(desktop, state, [], "", {"kind": "typed", "text": "pay invoice 11."}, {"kind": "hotkey", "keys": "ctrl + s"},
            {"kind": "tree_contains", "name": "Calc"}, {"kind": "tree_contains", "name": "No such window"})
    assert [c.passed for c in v.checks] == [True, True, True, False], v.as_dict()

    repo = load_world("repo")
    state = initial_state(repo)
    steps = [{"tool": "repo_run_tests", "arguments": {}, "domain": "swe", "observation": "1 failed, 5 passed",
              "structured": {"passed": 5, "failed": 1, "errors": 0, "summary": "1 failed, 5 passed"}},
             {"tool": "repo_replace", "arguments": {"path": "textstats/core.py"}, "domain": "swe", "observation": "diff",
              "structured": {"path": "textstats/core.py", "added": 1, "removed": 1}}]
    assert not run(repo, state, steps, "", {"kind": "tests_pass"}).checks[0].passed  # edited after the failing run
    steps.append({"tool": "repo_run_tests", "arguments": {}, "domain": "swe", "observation": "6 passed",
                  "structured": {"passed": 6, "failed": 0, "errors": 0, "summary": "6 passed"}})
    assert run(repo, state, steps, "", {"kind": "tests_pass"}).reward == 1.0

    research = load_world("research")
    steps = [{"tool": "web_search", "arguments": {"query": "Voyager launch dates"}, "domain": "search", "observation": "[1]"}]
    v = run(research, initial_state(research), steps, "5 September 1977",
            {"kind": "searched", "matches": "launch"}, {"kind": "searched", "matches": "launch", "times": 2},
            {"kind": "fetched", "matches": "nasa"}, {"kind": "answer_contains", "text": "1977"})
    assert [c.passed for c in v.checks] == [True, False, False, True]


def test_a_check_that_cannot_read_the_state_fails_with_a_reason_and_verify_goes_on():
    world = load_world("devbox")
    broken = {"terminal": {"cwd": "/x", "files": 5}}  # not a mapping: `in` raises
    v = run(world, broken, [], "", {"kind": "file_exists", "path": "a"}, {"kind": "cwd", "path": "/x"})
    assert not v.checks[0].passed and "could not be evaluated" in v.checks[0].detail
    assert v.checks[1].passed and v.reward == 0.5


def test_a_judge_rubric_without_an_engine_is_reported_and_does_not_count():
    world = load_world("devbox")
    t = task(world, {"kind": "cwd", "path": "~/notes-app"}, judge={"rubric": "The agent explained the layout."})
    v = anyio.run(verify, t, view_of(world, initial_state(world), [], ""))
    assert v.reward == 1.0 and v.judge["score"] is None and "no judge engine" in v.judge["detail"]


@pytest.mark.anyio
async def test_the_judge_is_scored_by_a_real_engine_and_its_reasoning_kept(real_engine):
    world = load_world("devbox")
    t = task(world, {"kind": "cwd", "path": "/nowhere"}, judge={"rubric": "The agent listed the files.", "weight": 1})
    steps = [{"tool": "run_command", "arguments": {"command": "ls"}, "observation": "README.md\nsrc\ntests\n"}]
    v = await verify(t, view_of(world, initial_state(world), steps, "The project has README.md, src and tests."),
                     real_engine)
    assert v.judge is not None and v.judge.get("model"), v.judge
    assert v.judge["score"] is not None, f"the embedded engine's answer under the JSON schema was unreadable: {v.judge}"
    assert 0.0 <= v.judge["score"] <= 1.0 and v.judge["reasoning"]
    assert v.reward == pytest.approx(v.judge["score"] / 2)  # the failed check and the judge, weight 1 each


def test_file_exists_can_require_a_file_or_a_folder():
    world = load_world("devbox")
    state, steps = terminal_after(world, ["cd ~/notes-app", "mkdir setup.cfg", "touch docs"])
    v = run(world, state, steps, "",
            {"kind": "file_exists", "path": "setup.cfg", "type": "file"}, {"kind": "file_exists", "path": "setup.cfg", "type": "dir"},
            {"kind": "file_exists", "path": "docs", "type": "dir"}, {"kind": "file_exists", "path": "docs"})
    assert [c.passed for c in v.checks] == [False, True, False, True], v.as_dict()
    assert "exists but is a folder, not a file" in v.checks[0].detail
