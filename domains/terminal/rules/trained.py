"""The terminal as Qwen-AgentWorld was trained on it (agentworld.md in this folder is the table).

The trained action is a JSON array of keystroke objects typed into a tmux pane; the trained
observation is the pane's new screen: the prompt line with the command echoed, the output, the next
prompt. `run_command` maps onto one keystroke object (the command and a newline, waited on for its
timeout); its output is that screen's middle part, read back by removing the echo and the prompt.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable

from mcp_world.rules import Call, Moment, TrainedAction

# A prompt line at the end of a screen: `user@host:~/dir$`, `root@host:/app#`, or a bare `$`/`#`.
_PROMPT_LINE = re.compile(r"^(?:[\w.-]+@[\w.-]+:[^\n]*[$#]|[$#])\s*$")


def action(call: Call) -> TrainedAction:
    """`run_command(command, timeout_s)` as the keystrokes that type and run it, waited on for its timeout."""
    command = str(call.arguments.get("command", ""))
    timeout = call.filled().get("timeout_s", 30) if call.spec is not None else call.arguments.get("timeout_s", 30)
    return TrainedAction(json.dumps([{"keystrokes": command + "\n", "duration": float(timeout)}], indent=2,
                                    ensure_ascii=False))


def screen(text: str, command: str, prompt: Callable[[str], str], moment: Moment) -> str:
    """The pane after the command: its prompt line and echo (continuation lines for a multi-line
    command), the output, the prompt it ends at."""
    echo = prompt(moment.before) + command.replace("\n", "\n> ")
    body = text if not text or text.endswith("\n") else text + "\n"
    return f"{echo}\n{body}{prompt(moment.after).rstrip()}"


def read(raw: str, command: str) -> str:
    """The output inside a predicted screen: after the last line that echoes the command at a prompt
    (and its continuation lines), before the prompt the screen ends at. A screen with neither is
    taken as the output itself."""
    lines = raw.split("\n")
    first = command.split("\n", 1)[0].rstrip()
    start = 0
    for i in range(len(lines) - 1, -1, -1):
        line = lines[i].rstrip()
        if first and line.endswith(first):
            before = line[: len(line) - len(first)].rstrip()
            if before.endswith(("$", "#")) or (i == 0 and not before):  # an echo at a prompt, or on top
                start = i + 1 + command.count("\n")
                break
    body = lines[start:]
    while body and not body[-1].strip():
        body.pop()
    if body and _PROMPT_LINE.match(body[-1]):
        body.pop()
    text = "\n".join(body)
    return text + "\n" if text.strip() else ""
