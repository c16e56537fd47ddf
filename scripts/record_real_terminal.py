"""Record real terminal episodes on the devbox world with mcp-world's own sandboxed executor
(the shadow terminal), in the interchange format:

    fixtures/real/devbox-terminal.jsonl   EPISODES: 10 short sessions (the eval baseline, the tests)
    fixtures/real/devbox-sessions.jsonl   SESSIONS: 40 more developer sessions (the trainer's data)

    .venv/bin/python scripts/record_real_terminal.py
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from mcp_world.executors.sandbox import SandboxLimits, TerminalSandbox  # noqa: E402
from mcp_world.domain import load_domain  # noqa: E402

next_cwd = load_domain("terminal").rules.next_cwd
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


# Everyday work on notes-app: reading, editing with the shell, git, python, mistakes.
SESSIONS = [
    ["git log --oneline", "git show --stat HEAD", "git branch -a", "git remote -v", "git tag"],
    ["ls src tests", "cat src/notes.py", "python3 -c 'from src.notes import add; print(add([\"a\"], \"b\"))'", "ls -a", "cat .gitignore"],
    ["git checkout -b feature/remove", "git branch", "echo 'def remove(notes, text):' >> src/notes.py", "git status", "git diff --stat", "git checkout main"],
    ["head -1 README.md", "wc -c README.md", "grep -n notes README.md", "grep -i milk README.md", "sed -n 3p README.md"],
    ["python3 -c 'import sys; print(sys.version_info[:2])'", "python3 -c 'import yaml'", "pip --version", "which python3", "which git"],
    ["ls -l src", "stat -c %s src/notes.py", "du -sh .", "find . -name '*.py'", "find . -type d -not -path './.git*'"],
    ["cat tests/test_notes.py", "python3 -m unittest", "python3 tests/test_notes.py", "ls tests", "wc -l tests/test_notes.py"],
    ["git log -1 --format=%an", "git log -1 --format=%s", "git rev-parse --abbrev-ref HEAD", "git config user.name", "git status -sb"],
    ["mkdir -p src/storage", "touch src/storage/__init__.py", "ls src", "ls src/storage", "git status --short", "rm -rf src/storage", "git status --short"],
    ["echo hello", "echo hello > hello.txt", "cat hello.txt", "ls", "git status --short", "rm hello.txt", "ls"],
    ["date +%Y", "df -h / | head -2", "free -m | head -1", "nproc", "ls /"],
    ["cat requirements.txt", "grep pytest requirements.txt", "sed -i 's/8.3.2/8.3.3/' requirements.txt", "cat requirements.txt", "git diff", "git checkout -- requirements.txt", "cat requirements.txt"],
    ["sort README.md | head -3", "cat -n src/notes.py", "tac src/notes.py", "rev README.md | head -1", "nl tests/test_notes.py"],
    ["ls -la src", "chmod +x src/notes.py", "ls -l src/notes.py", "git diff", "chmod -x src/notes.py", "git status --short"],
    ["python3 -c 'print(2**10)'", "python3 -c 'print(len(open(\"README.md\").read()))'", "python3 -c 'import os; print(os.getcwd())'", "python3 -c 'import this' | head -3", "python3 -c 'print(\"ok\")'"],
    ["git log --oneline -- src", "git ls-files", "git ls-files | wc -l", "git count-objects", "git shortlog -sn"],
    ["cd tests", "ls", "cat test_notes.py", "cd ..", "ls", "cd src", "ls"],
    ["cat nonexistent.txt", "ls missing/", "git checkout nope", "python3 missing.py", "cd nowhere", "rmdir src"],
    ["printf 'a\nb\nc\n' > letters.txt", "cat letters.txt", "wc -l letters.txt", "sort -r letters.txt", "grep b letters.txt", "rm letters.txt"],
    ["echo '# TODO' >> README.md", "tail -2 README.md", "git diff", "git add README.md", "git commit -m 'Add TODO'", "git log --oneline", "git status"],
    ["env | grep -c PATH", "echo $SHELL", "echo $USER", "echo $PWD", "printenv HOME", "type cd"],
    ["touch .env", "ls -a", "git status --short", "echo '.env' >> .gitignore", "git status --short", "cat .gitignore"],
    ["grep -rn add .", "grep -rln notes .", "grep -rn 'import' --include='*.py' .", "grep -c '' src/notes.py", "grep -v '^$' tests/test_notes.py"],
    ["cp src/notes.py notes.bak", "ls", "diff src/notes.py notes.bak", "echo '# changed' >> src/notes.py", "diff src/notes.py notes.bak", "git status --short"],
    ["python3 -c 'from src.notes import add; print(add([], 1))'", "python3 -c 'from src.notes import remove'", "python3 -c 'import src'", "ls src", "python3 -m src.notes"],
    ["git stash list", "echo x >> README.md", "git stash", "git stash list", "git status --short", "git stash pop", "git status --short"],
    ["ls -R", "ls -1", "ls -lh README.md", "ls -d */", "ls -t"],
    ["head -c 20 README.md", "cut -c1-10 README.md", "awk '{print $1}' requirements.txt", "tr a-z A-Z < requirements.txt", "cut -d= -f1 requirements.txt"],
    ["git log --stat", "git show HEAD:README.md", "git diff HEAD", "git log --format='%h %ae'", "git reflog"],
    ["mkdir docs", "echo '# Docs' > docs/index.md", "cat docs/index.md", "git add docs", "git status", "git reset docs", "git status --short"],
    ["id", "groups", "umask", "ulimit -n"],
    ["cat README.md", "cat src/notes.py tests/test_notes.py", "cat -A requirements.txt", "file README.md", "md5sum requirements.txt"],
    ["python3 -c 'import json; print(json.dumps({\"a\": 1}))'", "python3 -V", "python3 -c 'import platform; print(platform.system())'", "python3 -c 'import sqlite3; print(sqlite3.sqlite_version)'"],
    ["touch src/cli.py", "echo 'import sys' > src/cli.py", "cat src/cli.py", "git status --short", "git add -A", "git status --short", "git reset -q", "rm src/cli.py", "git status"],
    ["seq 5", "seq 1 3 10", "expr 6 \\* 7", "echo $((3+4))", "yes | head -2"],
    ["git log --oneline --all", "git diff --cached", "git status --porcelain", "git log -n 1 --pretty=oneline | wc -w", "git cat-file -t HEAD"],
    ["ls -la ~", "cat ~/.bashrc", "ls ~/notes-app", "pwd", "cd ~", "pwd", "ls"],
    ["echo 'def count(notes):' >> src/notes.py", "echo '    return len(notes)' >> src/notes.py", "tail -3 src/notes.py", "python3 -c 'from src.notes import count; print(count([1,2]))'", "git diff --stat", "git checkout src/notes.py", "tail -3 src/notes.py"],
    ["basename $PWD", "dirname $PWD", "realpath src/notes.py", "readlink -f README.md", "ls ..", "test -f README.md && echo yes"],
    ["history | tail -1", "alias", "whoami", "hostname", "cat /etc/hostname", "cat /etc/os-release | head -2"],
]


def record(world, episodes: list[list[str]], out: Path, prefix: str) -> int:
    steps_total = 0
    with out.open("w", encoding="utf-8") as f:
        for n, commands in enumerate(episodes, 1):
            box = TerminalSandbox(world, SandboxLimits(timeout_s=20))
            seed = world.seed_of("terminal")
            cwd, home = seed.cwd, box.home
            steps = []
            try:
                for cmd in commands:
                    r = box.run(cmd, cwd, session=True)
                    box.status = r.exit_code & 255  # (`$?` in the next command, as in a shell that lives on)
                    cwd = r.cwd or next_cwd(cmd, cwd, home, r.exit_code)  # (where bash said it ended)
                    steps.append({"tool": "run_command", "arguments": {"command": cmd}, "observation": r.output,
                                  "structured": {"exit_code": r.exit_code, "cwd": cwd}})
            finally:
                box.close()
            steps_total += len(steps)
            f.write(json.dumps({"id": f"{prefix}-{n:02d}", "world": world.model_dump(by_alias=True, exclude_defaults=True),
                                "steps": steps}, ensure_ascii=False) + "\n")
    print(f"wrote {len(episodes)} episodes, {steps_total} steps to {out}")
    return steps_total


def main() -> None:
    world = load_world("devbox")
    real = ROOT / "fixtures" / "real"
    which = sys.argv[1:] or ["terminal", "sessions"]
    if "terminal" in which:
        record(world, EPISODES, real / "devbox-terminal.jsonl", "devbox-real")
    if "sessions" in which:
        record(world, SESSIONS, real / "devbox-sessions.jsonl", "devbox-session")


if __name__ == "__main__":
    main()
