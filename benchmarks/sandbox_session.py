"""What a real command costs in the bubblewrap sandbox, and what carrying the shell from one command
to the next adds (the trap that reports the folder, the variables, functions and options, and the
script that declares them again: executors/sandbox.py `_Where`). The same commands run with the
carry and without it, turn about, after a shell that holds some variables and a function.

    .venv/bin/python benchmarks/sandbox_session.py [--rounds 60]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from mcp_world.executors.sandbox import SandboxLimits, TerminalSandbox  # noqa: E402
from mcp_world.world import load_world  # noqa: E402

COMMANDS = ["echo hi", "ls -la", "cat README.md | wc -l", "grep -rn def src"]
SETUP = ["F=src/notes.py; L='a b c'; export V=1", "up() { cd ..; }", "shopt -s globstar; set -o pipefail"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=60)
    args = parser.parse_args()
    box = TerminalSandbox(load_world("devbox"), SandboxLimits())
    cwd = box.home + "/notes-app"
    try:
        for line in SETUP:
            box.run(line, cwd, session=True)
        times: dict[bool, list[float]] = {True: [], False: []}
        for _ in range(args.rounds):
            for command in COMMANDS:
                for session in (True, False):
                    start = time.perf_counter()
                    box.run(command, cwd, session=session)
                    times[session].append(time.perf_counter() - start)
        carried = len(box.shell or "")
    finally:
        box.close()
    for session, label in ((False, "without the carry"), (True, "with the carry")):
        ms = sorted(t * 1000 for t in times[session])
        print(f"{label:18}: median {statistics.median(ms):6.1f} ms, p90 {ms[int(len(ms) * 0.9)]:6.1f} ms "
              f"({len(ms)} commands)")
    print(f"what the shell carries: {carried} characters "
          f"({len(SETUP)} set-up commands: variables, a function, options)")


if __name__ == "__main__":
    main()
