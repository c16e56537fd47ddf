"""A devbox session as a coding agent types it, simulated and real side by side: `serve --world
devbox --shadow terminal` answers each command from the world (the state, or the world model) while
the bubblewrap sandbox runs it too, and the log keeps both. Prints, per step and in all, where the
simulated answer came from, whether it is the real output byte for byte, and their similarity
(mcp_world.metric's embedding score).

    .venv/bin/python benchmarks/agent_session.py [--session add|edit] [--engine URL] [--source CHECKOUT] [--show]

`--source` serves from another checkout of mcp-world (a `git worktree` of an older commit) for a
before/after. Without --engine it uses the background engine (`mcp-world engine start`) or starts
one. The commands are not the ones benchmarks/state_vs_real.py checks the rules with: they are what
an agent adding a function to notes-app types (look around, write with here-documents, test,
commit, write docs).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

SESSION = [
    "ls -la",
    "cat README.md",
    "find . -type f -not -path './.git/*'",
    "cat src/notes.py",
    "cat tests/test_notes.py",
    'grep -rn "def " --include=*.py .',
    "git status",
    "git log --oneline",
    "cat > src/notes.py <<'EOF'\ndef add(notes, text):\n    notes.append(text)\n    return notes\n\n\n"
    "def remove(notes, text):\n    notes.remove(text)\n    return notes\nEOF",
    "cat >> tests/test_notes.py <<'EOF'\n\n\ndef test_remove():\n    from src.notes import remove\n"
    "    assert remove([\"x\"], \"x\") == []\nEOF",
    "cat src/notes.py",
    "python3 -m pytest -q",
    "git diff --stat",
    "git status --short",
    'git add -A && git commit -m "Add remove()"',
    'git config --global user.email "agent@devbox.example"',
    'git config --global user.name "Agent"',
    'git commit -m "Add remove()"',
    "git log --oneline",
    "git status",
    "ls -l src tests",
    "ls -l src",
    "wc -l src/notes.py tests/test_notes.py",
    "mkdir -p docs && cat > docs/usage.md <<'EOF'\n# Usage\n\n    python -m src.notes add \"buy milk\"\nEOF",
    "ls docs",
    "find . -name '*.md' -not -path './.git/*'",
    "git add -A && git commit -qm 'Add usage docs'",
    "git log -2",
    "whoami",
    "hostname",
]


# `--session edit`: an agent renaming a function across files with sed, reviewing its change and
# the commit it made, putting a comment in and tidying the README (what a reviewer's fix looks like)
EDIT_SESSION = [
    "git log --oneline -3",
    "grep -rn add --include=*.py .",
    "sed -n '1,20p' src/notes.py",
    "sed -i 's/def add(notes, text)/def add_note(notes, text)/' src/notes.py",
    "sed -i 's/import add$/import add_note/; s/add(\\[\\]/add_note([]/' tests/test_notes.py",
    "grep -rn add --include=*.py .",
    "git diff",
    "git diff --stat",
    "python3 -m pytest -q",
    "git config --global user.email agent@devbox.example && git config --global user.name Agent",
    "git commit -qam 'Rename add to add_note'",
    "git show --stat",
    "git diff HEAD~1",
    "sed -i '1i # Notes, kept in a list.' src/notes.py",
    "head -3 src/notes.py",
    "cat -A src/notes.py | head -3",
    "sed -i '/^$/d' README.md",
    "git diff README.md",
    "git status --short",
    "git add -A && git commit -qm 'Notes: a comment; README: no blank lines'",
    "git log --oneline",
    "git show HEAD~5",
    "sed -n '$=' src/notes.py",
    "git log -p -1 | head -20",
]
SESSIONS = {"add": SESSION, "edit": EDIT_SESSION}


async def session(url: str, key: str, commands: list[str]) -> None:
    from tests.helpers import http_client

    async with http_client(url, key) as c:
        for command in commands:
            await c.call_tool("run_command", {"command": command})


async def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--engine", default=None)
    ap.add_argument("--source", type=Path, default=None, help="serve from this checkout of mcp-world")
    ap.add_argument("--show", action="store_true", help="print each step's two answers")
    ap.add_argument("--session", choices=sorted(SESSIONS), default="add",
                    help="add: a function added with here-documents (default); edit: a rename with sed, reviewed")
    a = ap.parse_args()
    from mcp_world import embedded
    from mcp_world.metric import Embedder
    from mcp_world.paths import cache_dir
    from tests.helpers import free_port, http_process, serve_args

    engine, started = (a.engine, None) if a.engine else embedded.background_or_start(cache_dir(None), say=print)
    db = Path(tempfile.mkdtemp(prefix="mcp-world-bench-session-")) / "session.db"
    here = os.getcwd()
    if a.source:  # `python -m mcp_world` finds the package in its working folder first
        os.chdir(a.source)
    port = free_port()
    try:
        with http_process(serve_args(engine, db, "--port", str(port), "--world", "devbox", "--shadow", "terminal"),
                          port, {}) as (url, proc):
            await session(url, "agent-session", SESSIONS[a.session])
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=600)
            except subprocess.TimeoutExpired:
                proc.kill()
        os.chdir(here)
        con = sqlite3.connect(db)
        rows = con.execute("select arguments, observation, real_observation, provenance from steps "
                           "where episode_id = 'agent-session' order by idx").fetchall()
        con.close()
        embedder = Embedder()
        source = a.source or ROOT
        head = subprocess.run(["git", "-C", str(source), "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True).stdout.strip()
        print(f"serving from {source} ({head or 'not a git checkout'}), engine {engine}")
        print(f"{'#':>2} {'from':6} {'exact':5} {'sim':>5}  command")
        scores, exact, state = [], 0, 0
        for n, (arguments, sim, real, provenance) in enumerate(rows):
            command = (json.loads(arguments or "{}").get("command") or "").splitlines()[0]
            score = embedder.similarity(sim or "", real or "")
            same = (sim or "") == (real or "")
            scores.append(score)
            exact += same
            state += provenance == "state"
            print(f"{n:2} {provenance:6} {'yes' if same else 'no':5} {score:5.2f}  {command[:70]}")
            if a.show and not same:
                print(f"     simulated: {sim!r}\n     real:      {real!r}")
        print(f"{len(rows)} steps: {state} from the state, {exact} byte-exact, mean similarity "
              f"{sum(scores) / max(len(scores), 1):.3f}")
    finally:
        if started is not None:
            started.stop()


if __name__ == "__main__":
    asyncio.run(main())
