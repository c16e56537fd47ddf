"""The terminal's state beside the real bubblewrap sandbox, command by command (a shell that lives
on, as the shadow mode runs it): each answer the state gives must be the sandbox's byte for byte,
and the folder after it too."""

from __future__ import annotations

import re

from mcp_world.domain import load_domain
from mcp_world.executors.sandbox import SandboxLimits, TerminalSandbox
from mcp_world.world import load_world

RULES = load_domain("terminal").rules
shell = __import__(type(RULES).__module__ + ".shell", fromlist=["x"])
silent = __import__(type(RULES).__module__ + ".silent", fromlist=["x"]).silent
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
            said = shell.answer(state, command) or silent(state, command)
            real = box.run(command, state["cwd"], env=state.get("env") or {}, session=True)
            box.status = real.exit_code & 255
            if said is not None:  # (`ls -l` shows the minute each ran: the state's and the sandbox's may part)
                stamped = _STAMP.sub("<time>", said[0]), _STAMP.sub("<time>", real.output)
                assert (stamped[0], said[1]) == (stamped[1], real.exit_code), command
                assert shell.cwd_after(state, command, said[1]) == real.cwd, command
            seen.append((command, said, real.output))
            state = shell.apply(state, command, real.output, real.exit_code, real.cwd)
    finally:
        box.close()
    return seen


def unanswered(seen, expected: set[str]) -> set[str]:
    """Those of the `expected` commands the state left to the model."""
    return {command for command, said, _ in seen if command in expected and said is None}
