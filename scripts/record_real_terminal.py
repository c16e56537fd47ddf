"""Record real terminal episodes on the devbox world with mcp-world's own sandboxed executor
(the shadow terminal), into fixtures/real/devbox-terminal.jsonl (the interchange format).

    .venv/bin/python scripts/record_real_terminal.py
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from mcp_world.executors.sandbox import SandboxLimits, TerminalSandbox  # noqa: E402
from mcp_world.formats import next_cwd  # noqa: E402
from mcp_world.world import load_world  # noqa: E402

EPISODES = [
    ["ls", "cat README.md", "ls src", "cat src/notes.py", "git status", "git log --oneline"],
    ["pwd", "ls -la", "mkdir docs", "ls", "touch docs/index.md", "ls docs", "rm -r docs", "ls"],
    ["cat requirements.txt", "echo 'pyyaml==6.0.1' >> requirements.txt", "cat requirements.txt", "git diff --stat", "git status --short"],
    ["cd src", "pwd", "ls", "cat notes.py", "cd ..", "pwd"],
    ["cat config.yaml", "ls nope", "foo", "python3 -c 'print(1/0)'", "echo $?"],
    ["whoami", "hostname", "echo $HOME", "uname -s", "python3 --version", "git --version", "ls /home", "id -un"],
    ["grep -rn def src", "wc -l src/notes.py", "head -2 src/notes.py", "tail -1 tests/test_notes.py", "grep -c import tests/test_notes.py"],
    ["echo 'def remove(notes, text):' >> src/notes.py", "echo '    notes.remove(text)' >> src/notes.py", "cat src/notes.py", "git diff", "git add src/notes.py", "git status --short"],
    ["ls tests", "cat tests/test_notes.py", "python3 -m pytest -q", "python3 -c 'import src.notes as n; print(n.add([], \"x\"))'"],
    ["touch a.txt b.txt", "ls *.txt", "mv a.txt c.txt", "ls *.txt", "rm b.txt c.txt", "ls *.txt", "git branch"],
]


def main() -> None:
    world = load_world("devbox")
    out = ROOT / "fixtures" / "real" / "devbox-terminal.jsonl"
    steps_total = 0
    with out.open("w", encoding="utf-8") as f:
        for n, commands in enumerate(EPISODES, 1):
            box = TerminalSandbox(world, SandboxLimits(timeout_s=20))
            seed = world.terminal_seed()
            cwd, home = seed.cwd, box.home
            steps = []
            try:
                for cmd in commands:
                    r = box.run(cmd, cwd)
                    cwd = next_cwd(cmd, cwd, home, r.exit_code)
                    steps.append({"tool": "run_command", "arguments": {"command": cmd}, "observation": r.output,
                                  "structured": {"exit_code": r.exit_code, "cwd": cwd}})
            finally:
                box.close()
            steps_total += len(steps)
            f.write(json.dumps({"id": f"devbox-real-{n:02d}", "world": world.model_dump(by_alias=True, exclude_defaults=True),
                                "steps": steps}, ensure_ascii=False) + "\n")
    print(f"wrote {len(EPISODES)} episodes, {steps_total} steps to {out}")


if __name__ == "__main__":
    main()
