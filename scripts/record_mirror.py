"""Record real MCP sessions through `mcp-world mirror` in front of the two reference servers, into
fixtures/real/ (the interchange format, real observations):

    memory-mirror.jsonl   @modelcontextprotocol/server-memory (npm; installed by the setup into
                          .venv/upstreams), two episodes, each on a fresh empty knowledge graph
    git-mirror.jsonl      mcp-server-git (PyPI, in the dev extra) on a small repository at
                          /tmp/notes-app, made fresh by this script

The sessions go through the real mirror command over stdio, exactly as an agent's calls would
(predictions off: only the real results are wanted here). Run from the repository root:

    .venv/bin/python scripts/record_mirror.py
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import anyio
from mcp import Client, StdioServerParameters

ROOT = Path(__file__).resolve().parent.parent
VENV = Path(sys.executable).parent.parent
MEMORY_SERVER = VENV / "upstreams" / "node_modules" / "@modelcontextprotocol" / "server-memory" / "dist" / "index.js"
REPO = Path("/tmp/notes-app")

MEMORY_DESCRIPTION = (
    "The reference MCP knowledge-graph server @modelcontextprotocol/server-memory 2026.8.31: entities "
    "(name, entityType, observations) and relations between them, kept in one graph. The graph starts empty."
)
GIT_DESCRIPTION = (
    "The reference MCP git server mcp-server-git 2026.10.19, serving the repository /tmp/notes-app "
    "(a small Python notes manager on branch main: README.md, src/notes.py, tests/test_notes.py). "
    "Files are changed outside the server between calls, as a developer would."
)

MEMORY_EPISODES = [
    [
        ("create_entities", {"entities": [
            {"name": "Alice", "entityType": "person", "observations": ["works at Acme", "likes green tea"]},
            {"name": "Bob", "entityType": "person", "observations": ["plays chess"]},
            {"name": "Acme", "entityType": "company", "observations": ["makes anvils"]}]}),
        ("create_relations", {"relations": [{"from": "Alice", "to": "Acme", "relationType": "works_at"},
                                            {"from": "Alice", "to": "Bob", "relationType": "knows"}]}),
        ("read_graph", {}),
        ("search_nodes", {"query": "tea"}),
        ("open_nodes", {"names": ["Alice"]}),
        ("add_observations", {"observations": [{"entityName": "Bob", "contents": ["lives in Lyon", "speaks French"]}]}),
        ("open_nodes", {"names": ["Bob", "Acme"]}),
        ("delete_observations", {"deletions": [{"entityName": "Alice", "observations": ["likes green tea"]}]}),
        ("search_nodes", {"query": "chess"}),
        ("delete_relations", {"relations": [{"from": "Alice", "to": "Bob", "relationType": "knows"}]}),
        ("read_graph", {}),
        ("delete_entities", {"entityNames": ["Bob"]}),
        ("open_nodes", {"names": ["Bob"]}),
        ("add_observations", {"observations": [{"entityName": "Carol", "contents": ["new hire"]}]}),
        ("read_graph", {}),
    ],
    [
        ("read_graph", {}),
        ("create_entities", {"entities": [
            {"name": "Project Falcon", "entityType": "project", "observations": ["deadline: March 31"]},
            {"name": "Dana", "entityType": "person", "observations": ["project lead"]}]}),
        ("create_relations", {"relations": [{"from": "Dana", "to": "Project Falcon", "relationType": "leads"}]}),
        ("create_entities", {"entities": [{"name": "Dana", "entityType": "person", "observations": ["duplicate"]}]}),
        ("search_nodes", {"query": "Falcon"}),
        ("add_observations", {"observations": [{"entityName": "Project Falcon", "contents": ["budget approved"]}]}),
        ("search_nodes", {"query": "budget"}),
        ("open_nodes", {"names": ["Project Falcon", "Nobody"]}),
        ("delete_entities", {"entityNames": ["Project Falcon"]}),
        ("read_graph", {}),
    ],
]


def _git_episode() -> list:
    readme = REPO / "README.md"
    notes = REPO / "src" / "notes.py"
    repo = str(REPO)
    return [
        ("git_status", {"repo_path": repo}),
        ("git_log", {"repo_path": repo, "max_count": 5}),
        ("git_branch", {"repo_path": repo, "branch_type": "local"}),
        lambda: readme.write_text(readme.read_text() + "\nRun the tests with `python -m pytest -q`.\n"),
        ("git_status", {"repo_path": repo}),
        ("git_diff_unstaged", {"repo_path": repo}),
        ("git_add", {"repo_path": repo, "files": ["README.md"]}),
        ("git_diff_staged", {"repo_path": repo}),
        ("git_commit", {"repo_path": repo, "message": "README: how to run the tests"}),
        ("git_log", {"repo_path": repo, "max_count": 2}),
        ("git_create_branch", {"repo_path": repo, "branch_name": "feature/remove"}),
        ("git_checkout", {"repo_path": repo, "branch_name": "feature/remove"}),
        lambda: notes.write_text(notes.read_text() + "\n\ndef remove(notes, text):\n    notes.remove(text)\n    return notes\n"),
        ("git_diff_unstaged", {"repo_path": repo, "context_lines": 1}),
        ("git_add", {"repo_path": repo, "files": ["src/notes.py"]}),
        ("git_commit", {"repo_path": repo, "message": "Add remove()"}),
        ("git_log", {"repo_path": repo, "max_count": 3}),
        ("git_show", {"repo_path": repo, "revision": "HEAD"}),
        ("git_diff", {"repo_path": repo, "target": "main"}),
        ("git_checkout", {"repo_path": repo, "branch_name": "main"}),
        ("git_branch", {"repo_path": repo, "branch_type": "local"}),
        ("git_checkout", {"repo_path": repo, "branch_name": "no-such-branch"}),
        lambda: (REPO / "scratch.txt").write_text("temporary\n"),
        ("git_add", {"repo_path": repo, "files": ["scratch.txt"]}),
        ("git_status", {"repo_path": repo}),
        ("git_reset", {"repo_path": repo}),
        ("git_status", {"repo_path": repo}),
        ("git_show", {"repo_path": repo, "revision": "feature/remove~1"}),
    ]


def _make_repo() -> None:
    shutil.rmtree(REPO, ignore_errors=True)
    (REPO / "src").mkdir(parents=True)
    (REPO / "tests").mkdir()
    (REPO / "README.md").write_text("# notes-app\n\nA tiny command-line notes manager.\n")
    (REPO / "src" / "notes.py").write_text("def add(notes, text):\n    notes.append(text)\n    return notes\n")
    (REPO / "tests" / "test_notes.py").write_text(
        "from src.notes import add\n\n\ndef test_add():\n    assert add([], \"x\") == [\"x\"]\n")
    env = {**os.environ, "GIT_AUTHOR_NAME": "Sam Lee", "GIT_AUTHOR_EMAIL": "sam@example.com",
           "GIT_COMMITTER_NAME": "Sam Lee", "GIT_COMMITTER_EMAIL": "sam@example.com"}
    for cmd in (["git", "init", "-q", "-b", "main"], ["git", "add", "."], ["git", "commit", "-q", "-m", "Initial commit"]):
        subprocess.run(cmd, cwd=REPO, check=True, env=env)
    subprocess.run(["git", "config", "user.name", "Sam Lee"], cwd=REPO, check=True)
    subprocess.run(["git", "config", "user.email", "sam@example.com"], cwd=REPO, check=True)


async def _session(db: Path, name: str, description: str, upstream: list[str], steps: list, env: dict) -> int:
    # The upstream sees only the variables it is given by name (mcp-world's own stay with it).
    args = ["-m", "mcp_world", "mirror", "--transport", "stdio", "--no-predict", "--db", str(db),
            *[a for k in env for a in ("--upstream-env", k)],
            "--name", name, "--description", description, "--", *upstream]
    params = StdioServerParameters(command=sys.executable, args=args, env={**os.environ, **env}, cwd=str(ROOT))
    n = 0
    async with Client(params, read_timeout_seconds=120) as client:
        for step in steps:
            if callable(step):
                step()
                continue
            tool, arguments = step
            result = await client.call_tool(tool, arguments)
            block = result.content[0] if result.content else None
            text = getattr(block, "text", None) or (f"[{block.type}]" if block is not None else "")
            first = text.splitlines()[0] if text else ""
            print(f"  {tool:22} {'error ' if result.is_error else ''}{first[:70]}")
            n += 1
    return n


async def main() -> None:
    out_dir = ROOT / "fixtures" / "real"
    work = Path(tempfile.mkdtemp(prefix="mcp-world-record-"))
    try:
        if not MEMORY_SERVER.exists():
            sys.exit(f"{MEMORY_SERVER} is missing: run ./test.sh once (the setup installs it with npm)")
        db = work / "memory.db"
        for i, steps in enumerate(MEMORY_EPISODES, 1):
            print(f"server-memory episode {i}")
            await _session(db, "memory", MEMORY_DESCRIPTION, ["node", str(MEMORY_SERVER)], steps,
                           {"MEMORY_FILE_PATH": str(work / f"memory-{i}.jsonl")})
        _export(db, out_dir / "memory-mirror.jsonl")
        _make_repo()
        db = work / "git.db"
        print("mcp-server-git episode")
        await _session(db, "git", GIT_DESCRIPTION, [str(VENV / "bin" / "mcp-server-git"), "--repository", str(REPO)],
                       _git_episode(), {})
        _export(db, out_dir / "git-mirror.jsonl")
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _export(db: Path, out: Path) -> None:
    subprocess.run([sys.executable, "-m", "mcp_world", "export", "--db", str(db), "--observations", "real",
                    "--out", str(out)], check=True)
    records = [json.loads(line) for line in out.read_text().splitlines()]
    print(f"{out.relative_to(ROOT)}: {len(records)} episodes, {sum(len(r['steps']) for r in records)} real steps")


if __name__ == "__main__":
    anyio.run(main)
