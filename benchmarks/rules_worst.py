"""What the terminal's rules cost on the worst lines found: nested loops that would run a million
turns, loops eight deep with an `if` between, a loop of 3,600 turns. The rules run in a worker thread
(other episodes are answered meanwhile), but a line's answer and update are time its own episode
waits and a core is busy (domains/terminal/rules/budget.py bounds them). Prints seconds to answer and
to apply each line, and whether the state answered it (past the budget: the model's).

    .venv/bin/python benchmarks/rules_worst.py [--world devbox] [--world repo] [--world path/to/world.yaml]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from mcp_world.domain import load_domain  # noqa: E402
from mcp_world.rules import Call  # noqa: E402
from mcp_world.world import load_world  # noqa: E402

LINES = {
    "a million turns (6 loops of 10)": "for i in 0 1 2 3 4 5 6 7 8 9; do " * 6 + "echo $i" + "; done" * 6,
    "8 loops of 2, an if between": "if true; then for i in 1 2; do " * 8 + "echo x" + "; done; fi" * 8,
    "60 x 60 turns": "for i in $(seq 1 60); do for j in $(seq 1 60); do echo $i$j; done; done",
    "a 64-turn loop of 3 commands": 'for i in $(seq 1 64); do echo "$i"; ls src; cat README.md; done',
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--world", action="append", help="a world's name or file (default: devbox and repo)")
    args = parser.parse_args()
    rules = load_domain("terminal").rules
    for world in args.world or ["devbox", "repo"]:
        state = rules.initial(load_world(world))
        print(f"{world}: {len(state['files'])} files in the state")
        for name, line in LINES.items():
            call = Call("run_command", {"command": line}, state)
            started = time.perf_counter()
            answer = rules.answer(state, call)
            answered = time.perf_counter() - started
            started = time.perf_counter()
            rules.apply(state, call, answer.text if answer else "x\n", {"exit_code": 0, "cwd": state["cwd"]})
            applied = time.perf_counter() - started
            print(f"  {name:<32} answer {answered:5.2f} s  apply {applied:5.2f} s  "
                  f"{'from the state' if answer else 'the model'}")


if __name__ == "__main__":
    main()
