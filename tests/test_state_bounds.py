"""What one line may make the terminal's state hold or do: hostile lines sent by a real MCP client
found each of these. A line of braces made the server build 10**15 words and the kernel killed it;
a name the kernel refuses was made in the state; a loop of copies took the state document, which
the server keeps, logs and reads at every step, to tens of megabytes."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from mcp_world.executors.sandbox import bwrap_available
from mcp_world.rules import Call

from .sandboxed import RULES, side_by_side


def test_braces_that_would_expand_past_the_bound_are_counted_before_they_are_written():
    """`echo {1..1000}{1..1000}{1..1000}{1..1000}{1..1000}` is 10**15 words: bash would run out of
    memory too. The words are counted before any is written, and past MAX_WORDS the line is left as
    typed (the model's). Run under a 1 GiB address-space limit: before, the product was built and the
    process died (the server, over MCP: killed by the kernel, every episode with it)."""
    lines = ["echo " + "{1..1000}" * 5, "echo {" + ",".join(["x{1..1000}"] * 3000) + "}",
             "touch " + "{a,b}" * 40, "echo {1..30}{1..30}"]
    code = ("import resource, sys, json\nresource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))\n"
            "from mcp_world.domain import load_domain\n"
            "rules = load_domain('terminal').rules\n"
            "braces = __import__(type(rules).__module__.rsplit('.', 1)[0] + '.braces', fromlist=['x'])\n"
            "print(json.dumps([braces.expanded(line) for line in json.loads(sys.argv[1])]))")
    done = subprocess.run([sys.executable, "-c", code, json.dumps(lines)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    out = json.loads(done.stdout)
    assert out[:3] == lines[:3]  # (past the bound: as typed)
    assert out[3].split()[1:3] == ["11", "12"] and len(out[3].split()) == 901  # (900 words: expanded)


@pytest.mark.skipif(not bwrap_available(), reason="needs bubblewrap")
def test_names_and_paths_the_kernel_refuses_are_left_to_the_model_and_make_nothing():
    """A name past 255 bytes: `touch` says "File name too long" and makes nothing; the state made the
    file and listed it. A path of 4,096 bytes or more: `cd` is refused; `mkdir -p` goes a folder at a
    time and makes them all. Each is the model's, and what it may have made is forgotten, so the
    `ls` after it is never answered without it."""
    name, deep = "n" * 300, "d/" * 2100
    seen = side_by_side([f"touch {name}", "ls", f"echo hi > {name}.txt", "ls", f"mkdir -p {deep}", "ls",
                         "ls d | head -1", "cd " + "a/" * 2100, "pwd"])
    said = {command: answer for command, answer, _ in seen}
    real = {command: output for command, _, output in seen}
    assert "File name too long" in real[f"touch {name}"] and said[f"touch {name}"] is None
    assert said[f"mkdir -p {deep}"] is None and real["ls d | head -1"] == "d\n"
    assert said["pwd"] is not None  # (the refused `cd` left the shell where it was, as the state says)


def test_a_step_that_takes_the_state_past_its_bound_forgets_what_it_held_below_the_home():
    """A 600 KB file copied 60 times in one loop: 36 MB. The state document stays under MAX_HELD:
    what is below the home is forgotten (those steps are the model's from then on), and what the
    state still answers stays right (`pwd`)."""
    state = RULES.initial(__import__("mcp_world.world", fromlist=["x"]).load_world("devbox"))

    def step(command: str) -> str | None:
        nonlocal state
        call = Call("run_command", {"command": command}, state)
        parsed = RULES.answer(state, call)
        text, structured = (parsed.text, parsed.structured) if parsed else ("", {"exit_code": 0, "cwd": state["cwd"]})
        state = RULES.apply(state, call, text, structured)
        return None if parsed is None else parsed.text

    assert step("echo " + "a" * 60_000 + " > f") == "" and step("sed -i 's/a/aaaaaaaaaa/g' f") == ""
    assert step("wc -c f") == "600001 f\n"
    assert step("for i in $(seq 60); do cp f f$i; done") == ""
    assert len(json.dumps(state)) < 100_000  # (36 MB before)
    assert step("ls | wc -l") is None and step("cat README.md") is None and step("git status --short") is None
    assert step("pwd") == "/home/user/notes-app\n"


def test_a_pattern_word_longer_than_any_name_is_not_matched_against_the_files():
    """`echo x [[[[…` of 15,000 characters: fnmatch's work grows as the pattern's length squared, and the
    state took 8 s of rule time to answer it (a hostile line, found by reading the `[[` rules for
    hostile input). A pattern word past MAX_PATTERN characters (a name is at most 255) is now left as
    typed, for the model; a short one is still matched."""
    from mcp_world.world import load_world

    folders = __import__(type(RULES).__module__ + ".folders", fromlist=["x"])
    s = __import__(type(RULES).__module__ + ".state", fromlist=["x"]).TerminalState.model_validate(
        RULES.initial(load_world("devbox")))
    long = "echo x " + "[" * 2000
    assert folders._unexpanded(long, s) == long
    assert folders._unexpanded("echo *.md", s) == "echo 'README.md'"
