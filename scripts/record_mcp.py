"""Record real sessions with seven more real MCP servers, through `mcp-world mirror`, into
fixtures/real/mcp-servers.jsonl.xz (the interchange format, real observations only).

| server (world names)                          | from                                       | kind of data          |
|-----------------------------------------------|--------------------------------------------|-----------------------|
| filesystem (filesystem-<package>)             | npm @modelcontextprotocol/server-filesystem | a package's source tree, copied |
| everything (everything-*)                     | npm @modelcontextprotocol/server-everything | the protocol's test server |
| sequential-thinking (thinking-*)              | npm @modelcontextprotocol/server-sequential-thinking | a chain of thoughts |
| time (time-*)                                 | PyPI mcp-server-time                       | time zones            |
| calculator (calculator-*)                     | PyPI mcp-server-calculator                 | arithmetic            |
| sqlite (sqlite-<database>)                    | PyPI mcp-server-sqlite                     | a database it builds  |
| fetch (fetch-<package>)                       | PyPI mcp-server-fetch                      | a local `http.server` |

scripts/domain_mix.py holds the sqlite and fetch worlds out of training (with mcp-server-git), so that
`benchmarks/adapter_domains.py --sets mcp-heldout` scores servers an adapter never saw.

The servers are installed on first use into runs/mcp-servers/ (npm packages pinned; sqlite and the
calculator are written for mcp 1.x, so they get a virtual environment of their own). Every session
goes through the real mirror command over stdio, exactly as an agent's calls would, with
predictions off. Run from the repository root (about a minute once installed):

    .venv/bin/python scripts/record_mcp.py [--out fixtures/real/mcp-servers.jsonl.xz]
"""

from __future__ import annotations

import argparse
import json
import lzma
import os
import random
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import anyio

sys.path.insert(0, str(Path(__file__).resolve().parent))
from record_mirror import _session  # noqa: E402
from record_pages import _serve_folder, _site_env  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
SERVERS = ROOT / "runs" / "mcp-servers"
SITE = Path(sys.executable).parent.parent / "lib" / f"python{sys.version_info[0]}.{sys.version_info[1]}" / "site-packages"
NPM = {"filesystem": "@modelcontextprotocol/server-filesystem@2026.8.31",
       "everything": "@modelcontextprotocol/server-everything@2026.8.31",
       "sequential-thinking": "@modelcontextprotocol/server-sequential-thinking@2026.8.31"}
PYPI = {"time": (["mcp-server-time==2026.10.19"], "mcp-server-time"),
        "fetch": (["mcp-server-fetch==2026.10.24"], "mcp-server-fetch"),
        "sqlite": (["mcp<2", "mcp-server-sqlite==2025.4.25"], "mcp-server-sqlite"),
        "calculator": (["mcp<2", "mcp-server-calculator==0.2.1"], "mcp-server-calculator")}
# packages of the terminal corpus's train worlds (so that no held-out terminal world's files are trained on)
FS_PACKAGES = ["sniffio", "idna", "dotenv", "multipart", "referencing", "cachetools", "pluggy", "tenacity"]
FETCH_PACKAGES = ["annotated_types", "mdurl"]
FS_ROOT = Path("/tmp/mcp-fs")
FETCH_PORT = 8731


def install() -> dict[str, list[str]]:
    """The command that starts each server on stdio, installing what is missing."""
    SERVERS.mkdir(parents=True, exist_ok=True)
    node_dir = SERVERS / "npm" / "node_modules" / "@modelcontextprotocol"
    if not all((node_dir / f"server-{n}" / "dist" / "index.js").exists() for n in NPM):
        subprocess.run(["npm", "install", "--silent", "--no-audit", "--no-fund", "--prefix", str(SERVERS / "npm"),
                        *NPM.values()], check=True)
    commands = {n: ["node", str(node_dir / f"server-{n}" / "dist" / "index.js")] for n in NPM}
    for name, (requirements, script) in PYPI.items():
        env = SERVERS / f"{name}-env"
        if not (env / "bin" / script).exists():
            _site_env(SERVERS, name, requirements)
        commands[name] = [str(env / "bin" / script)]
    return commands


def _version(spec: str) -> str:
    return spec.rsplit("@", 1)[-1] if spec.startswith("@") else spec.split("==")[-1]


def filesystem_episode(package: str, rng: random.Random) -> tuple[str, list]:
    """A session over a copy of a package's source tree: looking around, reading, searching, then
    writing notes, editing, moving, and a few mistakes."""
    src = SITE / package
    root = FS_ROOT / package
    shutil.rmtree(root, ignore_errors=True)
    shutil.copytree(src, root, ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "*.so"))
    files = sorted(p.relative_to(root).as_posix() for p in root.rglob("*.py") if p.stat().st_size)
    first, other = rng.sample(files, 2) if len(files) > 1 else (files[0], files[0])
    r = str(root)
    steps = [
        ("list_allowed_directories", {}),
        ("list_directory", {"path": r}),
        rng.choice([("directory_tree", {"path": r}), ("list_directory_with_sizes", {"path": r, "sortBy": "size"})]),
        ("read_text_file", {"path": f"{r}/{first}", "head": rng.choice([10, 15, 20])}),
        ("search_files", {"path": r, "pattern": rng.choice(["*.py", "**/*.py", "*.typed", "*test*"])}),
        ("get_file_info", {"path": f"{r}/{other}"}),
        ("read_text_file", {"path": f"{r}/{other}", "tail": rng.choice([5, 8])}),
        ("read_text_file", {"path": f"{r}/{rng.choice(['README.md', 'setup.py', 'utils.py'])}"}),
        ("create_directory", {"path": f"{r}/notes/drafts"}),
        ("write_file", {"path": f"{r}/notes/todo.md",
                        "content": f"# {package}\n\n- read {first}\n- check {other}\n"}),
        ("list_directory", {"path": f"{r}/notes"}),
        ("edit_file", {"path": f"{r}/notes/todo.md", "dryRun": True,
                       "edits": [{"oldText": f"- check {other}", "newText": f"- checked {other}"}]}),
        ("edit_file", {"path": f"{r}/notes/todo.md",
                       "edits": [{"oldText": f"- check {other}", "newText": f"- checked {other}"}]}),
        ("read_text_file", {"path": f"{r}/notes/todo.md"}),
        ("move_file", {"source": f"{r}/notes/todo.md", "destination": f"{r}/notes/drafts/todo.md"}),
        ("read_multiple_files", {"paths": [f"{r}/notes/drafts/todo.md", f"{r}/notes/todo.md"]}),
        ("edit_file", {"path": f"{r}/notes/drafts/todo.md",
                       "edits": [{"oldText": "no such line", "newText": "x"}]}),
        # outside the allowed folder, yet harmless if a server failed to refuse: nothing of this machine's
        ("read_text_file", {"path": rng.choice([f"{FS_ROOT}/other/notes.txt", f"{r}/../secrets.txt",
                                                f"{FS_ROOT}-outside/todo.md"])}),
        ("get_file_info", {"path": f"{r}/notes/drafts"}),
    ]
    description = (
        f"The reference MCP filesystem server @modelcontextprotocol/server-filesystem {_version(NPM['filesystem'])}, "
        f"allowed to access only {r}: a copy of the source tree of the Python package {package} "
        f"({len(files)} Python files: {', '.join(files[:8])}{', …' if len(files) > 8 else ''}).")
    return description, steps


EVERYTHING_EPISODES = [
    [("echo", {"message": "Hello, world"}),
     ("get-sum", {"a": 17, "b": 25}),
     ("get-sum", {"a": 2.5, "b": -7}),
     ("get-annotated-message", {"messageType": "error", "includeImage": False}),
     ("get-annotated-message", {"messageType": "success", "includeImage": False}),
     ("get-resource-reference", {"resourceType": "Text", "resourceId": 3}),
     ("get-resource-links", {"count": 3}),
     ("get-structured-content", {"location": "New York"}),
     ("echo", {"message": "second message with unicode: café ✓"}),
     ("get-sum", {"a": "one", "b": 2})],
    [("get-structured-content", {"location": "Chicago"}),
     ("get-annotated-message", {"messageType": "debug", "includeImage": False}),
     ("get-resource-reference", {"resourceType": "Blob", "resourceId": 8}),
     ("trigger-long-running-operation", {"duration": 1, "steps": 2}),
     ("gzip-file-as-resource", {"name": "hello.txt.gz", "data": "data:text/plain;base64,SGVsbG8gd29ybGQK",
                                "outputType": "resourceLink"}),
     ("get-resource-links", {"count": 1}),
     ("get-structured-content", {"location": "Los Angeles"}),
     ("echo", {"message": ""}),
     ("get-resource-reference", {"resourceType": "Text", "resourceId": 0}),
     ("get-tiny-image", {})],
]

THINKING_PROBLEMS = [
    ["The test suite fails only on CI: list what differs between CI and my laptop.",
     "CI runs Python 3.11 with a clean environment; my laptop has extra packages installed.",
     "A missing dependency would explain an ImportError, but the failure is an assertion on a date.",
     "Revision: the assertion compares local time; CI runs in UTC while my laptop is in Europe/Paris.",
     "Conclusion: make the test use a fixed timezone; no more thoughts needed."],
    ["Plan a migration of the users table to add an email column without downtime.",
     "Step one: add the column as nullable, deploy code that writes it.",
     "Branch: instead backfill in batches of 1,000 rows during low traffic.",
     "Then add the NOT NULL constraint once every row has an email.",
     "Done: three deploys, no locks held for long."],
    ["Why is the nightly report 3 hours late?",
     "The export job starts at 01:00 and normally takes 40 minutes.",
     "Last night it waited on a lock held by the vacuum job.",
     "I need more thoughts: the vacuum was moved to 01:00 last week.",
     "Moving the vacuum back to 04:00 fixes the order.",
     "Final answer: reschedule the vacuum."],
]


def thinking_episode(thoughts: list[str], variant: int) -> list:
    total = len(thoughts) - (1 if variant == 2 else 0)
    steps = []
    for i, text in enumerate(thoughts, 1):
        args: dict = {"thought": text, "thoughtNumber": i, "totalThoughts": max(total, i), "nextThoughtNeeded": i < len(thoughts)}
        if text.startswith("Revision"):
            args |= {"isRevision": True, "revisesThought": i - 1}
        if text.startswith("Branch"):
            args |= {"branchFromThought": i - 1, "branchId": "batches"}
        if text.startswith("I need more"):
            args |= {"needsMoreThoughts": True}
        steps.append(("sequentialthinking", args))
    steps.append(("sequentialthinking", {"thought": "", "thoughtNumber": 0, "totalThoughts": 1, "nextThoughtNeeded": False}))
    return steps


TIME_EPISODES = [
    [("get_current_time", {"timezone": "UTC"}),
     ("get_current_time", {"timezone": "Europe/Paris"}),
     ("convert_time", {"source_timezone": "Europe/Paris", "time": "09:30", "target_timezone": "America/New_York"}),
     ("convert_time", {"source_timezone": "Asia/Tokyo", "time": "18:00", "target_timezone": "Europe/London"}),
     ("get_current_time", {"timezone": "Mars/Olympus_Mons"}),
     ("convert_time", {"source_timezone": "UTC", "time": "25:61", "target_timezone": "Asia/Kolkata"})],
    [("get_current_time", {"timezone": "Asia/Kolkata"}),
     ("convert_time", {"source_timezone": "America/Los_Angeles", "time": "16:45", "target_timezone": "Australia/Sydney"}),
     ("get_current_time", {"timezone": "America/Sao_Paulo"}),
     ("convert_time", {"source_timezone": "Europe/Berlin", "time": "00:15", "target_timezone": "Pacific/Auckland"}),
     ("convert_time", {"source_timezone": "EST", "time": "12:00", "target_timezone": "UTC"})],
]

CALCULATOR_EPISODES = [
    [("calculate", {"expression": "2 + 2 * 10"}),
     ("calculate", {"expression": "(1 + 2) ** 10"}),
     ("calculate", {"expression": "7 / 4"}),
     ("calculate", {"expression": "17 // 5 + 17 % 5"}),
     ("calculate", {"expression": "1 / 0"}),
     ("calculate", {"expression": "2 +"}),
     ("calculate", {"expression": "-3.5 * 4 - 0.25"}),
     ("calculate", {"expression": "round(2.675, 2)"})],
    [("calculate", {"expression": "100 * 1.07 ** 5"}),
     ("calculate", {"expression": "365 * 24 * 60"}),
     ("calculate", {"expression": "abs(-12)"}),
     ("calculate", {"expression": "10 - 4 - 3"}),
     ("calculate", {"expression": "2 ** 0.5"}),
     ("calculate", {"expression": "12 / 3 * 2"})],
]

SQLITE_EPISODES = {
    "library": [
        ("list_tables", {}),
        ("create_table", {"query": "CREATE TABLE books (id INTEGER PRIMARY KEY, title TEXT NOT NULL, author TEXT, year INTEGER)"}),
        ("create_table", {"query": "CREATE TABLE loans (id INTEGER PRIMARY KEY, book_id INTEGER REFERENCES books(id), "
                                   "borrower TEXT, due DATE)"}),
        ("write_query", {"query": "INSERT INTO books (title, author, year) VALUES ('Dune', 'Frank Herbert', 1965), "
                                  "('Neuromancer', 'William Gibson', 1984), ('Hyperion', 'Dan Simmons', 1989)"}),
        ("write_query", {"query": "INSERT INTO loans (book_id, borrower, due) VALUES (1, 'Ada', '2026-12-20'), (3, 'Linus', '2026-12-05')"}),
        ("list_tables", {}),
        ("describe_table", {"table_name": "loans"}),
        ("read_query", {"query": "SELECT title, author FROM books WHERE year < 1990 ORDER BY year"}),
        ("read_query", {"query": "SELECT b.title, l.borrower, l.due FROM loans l JOIN books b ON b.id = l.book_id ORDER BY l.due"}),
        ("write_query", {"query": "UPDATE loans SET due = '2027-01-10' WHERE borrower = 'Ada'"}),
        ("read_query", {"query": "SELECT COUNT(*) AS n, MIN(year) AS oldest FROM books"}),
        ("read_query", {"query": "SELECT * FROM members"}),
        ("write_query", {"query": "SELECT * FROM books"}),
        ("append_insight", {"insight": "Two of three books are on loan; Hyperion is due first."}),
        ("write_query", {"query": "DELETE FROM loans WHERE borrower = 'Linus'"}),
        ("read_query", {"query": "SELECT * FROM loans"}),
        ("describe_table", {"table_name": "authors"}),
    ],
    "tasks": [
        ("create_table", {"query": "CREATE TABLE projects (id INTEGER PRIMARY KEY, name TEXT UNIQUE, budget REAL)"}),
        ("create_table", {"query": "CREATE TABLE tasks (id INTEGER PRIMARY KEY, project_id INTEGER, title TEXT, "
                                   "done INTEGER DEFAULT 0, hours REAL)"}),
        ("write_query", {"query": "INSERT INTO projects (name, budget) VALUES ('website', 12000.0), ('mobile app', 30000.0)"}),
        ("write_query", {"query": "INSERT INTO tasks (project_id, title, done, hours) VALUES (1, 'design mockups', 1, 12.5), "
                                  "(1, 'write copy', 0, 4), (2, 'login screen', 0, 20), (2, 'push notifications', 0, 16)"}),
        ("read_query", {"query": "SELECT p.name, SUM(t.hours) AS hours, SUM(t.done) AS done FROM tasks t "
                                 "JOIN projects p ON p.id = t.project_id GROUP BY p.name ORDER BY p.name"}),
        ("write_query", {"query": "UPDATE tasks SET done = 1 WHERE title = 'write copy'"}),
        ("read_query", {"query": "SELECT title, hours FROM tasks WHERE done = 0 ORDER BY hours DESC"}),
        ("write_query", {"query": "INSERT INTO projects (name, budget) VALUES ('website', 5000)"}),
        ("describe_table", {"table_name": "tasks"}),
        ("read_query", {"query": "SELEC name FROM projects"}),
        ("list_tables", {}),
        ("append_insight", {"insight": "The mobile app has 36 open hours and nothing done yet."}),
        ("read_query", {"query": "SELECT name, budget / 1000 AS k FROM projects WHERE budget > 10000"}),
        ("create_table", {"query": "CREATE TABLE projects (id INTEGER)"}),
    ],
}


def fetch_episode(package: str, base: str, rng: random.Random) -> list:
    files = sorted(p.relative_to(FS_ROOT / "fetch" / package).as_posix() for p in (FS_ROOT / "fetch" / package).rglob("*.py"))
    a, b = rng.sample(files, 2)
    return [
        ("fetch", {"url": f"{base}/"}),
        ("fetch", {"url": f"{base}/{a}", "max_length": 1500}),
        ("fetch", {"url": f"{base}/{a}", "max_length": 1500, "start_index": 1500}),
        ("fetch", {"url": f"{base}/{b}", "raw": True, "max_length": 800}),
        ("fetch", {"url": f"{base}/METADATA"}),
        ("fetch", {"url": f"{base}/missing.html"}),
        ("fetch", {"url": f"{base}/{a.rsplit('/', 1)[0]}/" if "/" in a else f"{base}/?C=M;O=D"}),
        ("fetch", {"url": "not a url"}),
    ]


async def record(commands: dict[str, list[str]], db: Path, work: Path) -> None:
    rng = random.Random(7)
    n = 0

    async def session(name: str, description: str, upstream: list[str], steps: list) -> None:
        nonlocal n
        print(f"{name}")
        n += await _session(db, name, description, upstream, steps, {})

    for package in FS_PACKAGES:
        description, steps = filesystem_episode(package, rng)
        await session(f"filesystem-{package}", description, [*commands["filesystem"], str(FS_ROOT / package)], steps)
    everything = (f"The reference MCP test server @modelcontextprotocol/server-everything {_version(NPM['everything'])}, "
                  "which exercises every feature of the protocol: tools, resources (Text and Blob resources 1 to 100), "
                  "prompts, logging, structured content and progress.")
    for i, steps in enumerate(EVERYTHING_EPISODES, 1):
        await session(f"everything-{i}", everything, commands["everything"], steps)
    thinking = (f"The reference MCP server @modelcontextprotocol/server-sequential-thinking "
                f"{_version(NPM['sequential-thinking'])}: a tool that records a chain of numbered thoughts, with "
                "revisions and branches, for step-by-step problem solving.")
    for i, thoughts in enumerate(THINKING_PROBLEMS):
        await session(f"thinking-{i + 1}", thinking, commands["sequential-thinking"], thinking_episode(thoughts, i))
    clock = (f"The reference MCP time server mcp-server-time {_version(PYPI['time'][0][0])}: the current time in an "
             "IANA time zone, and conversion of a time between zones. The machine's local zone is UTC.")
    for i, steps in enumerate(TIME_EPISODES, 1):
        await session(f"time-{i}", clock, [*commands["time"], "--local-timezone", "UTC"], steps)
    calc = (f"mcp-server-calculator {_version(PYPI['calculator'][1][1])} from PyPI: evaluates an arithmetic "
            "expression (numbers and + - * / // % **, parentheses).")
    for i, steps in enumerate(CALCULATOR_EPISODES, 1):
        await session(f"calculator-{i}", calc, commands["calculator"], steps)
    for name, steps in SQLITE_EPISODES.items():
        path = work / f"{name}.db"
        await session(f"sqlite-{name}",
                      f"The reference MCP SQLite server mcp-server-sqlite {_version(PYPI['sqlite'][1][1])}, on the "
                      f"database file {name}.db, which starts empty.",
                      [*commands["sqlite"], "--db-path", str(path)], steps)
    for package in FETCH_PACKAGES:
        folder = FS_ROOT / "fetch" / package
        shutil.rmtree(folder, ignore_errors=True)
        shutil.copytree(SITE / package, folder, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        dist = next(SITE.glob(f"{package}-*.dist-info"))
        shutil.copy(dist / "METADATA", folder / "METADATA")
        base, procs = f"http://127.0.0.1:{FETCH_PORT}", []
        _serve_folder(folder, FETCH_PORT, procs)
        try:
            await session(f"fetch-{package}",
                          f"The reference MCP fetch server mcp-server-fetch {_version(PYPI['fetch'][0][0])}: fetches a "
                          f"URL and returns it as markdown. {base}/ is a local `python -m http.server` over the source "
                          f"tree of the Python package {package} (with its METADATA); nothing else is reachable.",
                          [*commands["fetch"], "--ignore-robots-txt", "--allow-private-ips"], fetch_episode(package, base, rng))
        finally:
            for proc in procs:
                proc.terminate()
                proc.wait(timeout=10)
    print(f"{n} real steps")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=ROOT / "fixtures" / "real" / "mcp-servers.jsonl.xz")
    args = ap.parse_args()
    commands = install()
    work = Path(tempfile.mkdtemp(prefix="mcp-world-record-"))
    try:
        db = work / "episodes.db"
        anyio.run(record, commands, db, work)
        plain = work / "episodes.jsonl"
        subprocess.run([sys.executable, "-m", "mcp_world", "export", "--db", str(db), "--observations", "real",
                        "--out", str(plain)], check=True)
        records = [json.loads(line) for line in plain.read_text(encoding="utf-8").splitlines() if line.strip()]
        with lzma.open(args.out, "wt", encoding="utf-8") as f:
            for r in records:
                f.write(json.dumps(r, ensure_ascii=False) + "\n")
        worlds = sorted({r["world"]["name"] for r in records})
        print(f"{args.out}: {len(records)} episodes of {len(worlds)} worlds, "
              f"{sum(len(r['steps']) for r in records)} real steps, {args.out.stat().st_size // 1024} KiB")
    finally:
        shutil.rmtree(work, ignore_errors=True)
        shutil.rmtree(FS_ROOT, ignore_errors=True)


if __name__ == "__main__":
    os.chdir(ROOT)
    main()
