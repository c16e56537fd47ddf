"""The terminal's state beside the real bubblewrap sandbox, command by command (a shell that lives
on, as the shadow mode runs it): each answer the state gives must be the sandbox's byte for byte,
and the folder after it too."""

from __future__ import annotations

import multiprocessing
import re
import shlex
import time
from concurrent.futures import ProcessPoolExecutor

from mcp_world.domain import load_domain
from mcp_world.executors.sandbox import SandboxLimits, TerminalSandbox
from mcp_world.world import load_world

RULES = load_domain("terminal").rules
shell = __import__(type(RULES).__module__ + ".shell", fromlist=["x"])
silent = __import__(type(RULES).__module__ + ".silent", fromlist=["x"]).silent
st = __import__(type(RULES).__module__ + ".state", fromlist=["x"])
# ls -l's time (as benchmarks/state_vs_real.py reads it)
_STAMP = re.compile(r"\b[A-Z][a-z]{2} [ 0-3]\d (?:[0-2]\d:[0-5]\d| \d{4}) ")


def side_by_side(commands: list[str], world: str = "devbox") -> list[tuple[str, tuple[str, int] | None, str]]:
    """(command, the state's answer or None, the sandbox's output) for each command in turn; the state
    follows the sandbox's output and folder, as the shadow mode has it follow reality."""
    loaded = load_world(world)
    state = RULES.initial(loaded)
    box = TerminalSandbox(loaded, SandboxLimits())
    seen = []
    try:
        for command in commands:
            asked = time.time()
            said = shell.answer(state, command) or silent(state, command)
            real = box.run(command, state["cwd"], env=state.get("env") or {}, session=True)
            box.status = real.exit_code & 255
            if said is not None and said[0] != real.output:
                said = _at_the_second_git_ran(state, command, asked, real.output) or said
            if said is not None:  # (`ls -l` shows the minute each ran: the state's and the sandbox's may part)
                stamped = _STAMP.sub("<time>", said[0]), _STAMP.sub("<time>", real.output)
                assert (stamped[0], said[1]) == (stamped[1], real.exit_code), command
                assert shell.cwd_after(state, command, said[1]) == real.cwd, command
            seen.append((command, said, real.output))
            state = _applied(box, state, command, real, asked)
    finally:
        box.close()
    return seen


def _at_the_second_git_ran(state: dict, command: str, asked: float, real: str) -> tuple[str, int] | None:
    """A commit's id depends on the second git ran, which may be a second after the state was asked (the
    sandbox takes a while to start on a busy machine): the state's answer at the second, from the asking
    to now, whose answer is reality's (as benchmarks/state_vs_real.py reads a live commit)."""
    saved = st.clock
    try:
        for second in range(int(asked), int(time.time()) + 1):
            st.clock = lambda second=second: float(second)
            said = shell.answer(state, command) or silent(state, command)
            if said is not None and said[0] == real:
                return said
    finally:
        st.clock = saved
    return None


def _applied(box: TerminalSandbox, state: dict, command: str, real, asked: float) -> dict:
    """The state after the step, as the shadow mode has it follow reality; where the step made a commit
    the state made the id of (`commit -q` shows none), at the second git made it, read from the
    sandbox (a second may turn between git's commit and the state's apply)."""
    after = shell.apply(state, command, real.output, real.exit_code, real.cwd)
    git = after.get("git") or {}
    if not git.get("head") or git.get("head") == (state.get("git") or {}).get("head"):
        return after
    made = box.run(f"git -C {shlex.quote(git['repo'])} rev-parse HEAD", "/", env=state.get("env") or {}).output.strip()
    if git["head"] == made:
        return after
    saved = st.clock
    try:
        for second in range(int(asked), int(time.time()) + 1):
            st.clock = lambda second=second: float(second)
            then = shell.apply(state, command, real.output, real.exit_code, real.cwd)
            if (then.get("git") or {}).get("head") == made:
                return then
    finally:
        st.clock = saved
    return after


def unanswered(seen, expected: set[str]) -> set[str]:
    """Those of the `expected` commands the state left to the model."""
    return {command for command, said, _ in seen if command in expected and said is None}


def side_by_side_processes() -> ProcessPoolExecutor:
    """Two processes for the long nets of sandbox runs, one per core of the CI's two: a sandbox run is
    mostly waiting on bwrap and bash, so two halves take about half the time. Processes, not threads:
    the rules read the module's clock, which the nets hold at a second while they look for a commit's."""
    return ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("spawn"))
