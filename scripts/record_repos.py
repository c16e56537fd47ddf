"""Real repository (swe) transitions from real projects (issue 18: the swe domain had no real steps).

Each world is the source distribution of a small pure-Python project from PyPI (pinned below;
downloaded with pip, the only step that needs the index), unpacked at /workspace/<name> with every
text file's contents, plus the shipped `repo` world. Its `failing_tests` are what the first real run
failed. Each episode is what agents do in a repository, run for real in the repository sandbox
(`mcp_world.executors.repo`, the same one `serve --shadow swe` uses): list, read the README, run the
tests, search, view a module, **break a line** (a mutation: a comparison flipped, a return value
changed, a constant moved) and run the tests to see the real failures, put it back and run them
again, run one test by id, and the usual mistakes (a file that is not there, text not found).

    .venv/bin/python scripts/record_repos.py [--episodes 3] [--seed 0] [--out fixtures/real/repos.jsonl.xz]

No model is trained on these worlds: every one is held out. `family` on each step names the tool.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import lzma
import random
import re
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from mcp_world.executors.repo import ShadowRepo  # noqa: E402
from mcp_world.executors.sandbox import SandboxLimits  # noqa: E402
from mcp_world.world import World, load_world  # noqa: E402

# Small pure-Python projects whose source distributions carry their tests (name, version).
PROJECTS = [("addict", "2.4.0"), ("inflection", "0.5.1"), ("glob2", "0.7"), ("sniffio", "1.3.1"), ("mccabe", "0.7.0"),
            ("schema", "0.7.7"), ("six", "1.16.0"), ("parse", "1.20.2")]
TEXT = {".py", ".md", ".rst", ".txt", ".cfg", ".toml", ".ini", ".in"}
MAX_FILE = 64 << 10
MUTATIONS = [(r" == ", " != "), (r" != ", " == "), (r" < ", " <= "), (r" > ", " >= "), (r"\bTrue\b", "False"),
             (r"\bFalse\b", "True"), (r"return (\w+)$", r"return not \1"), (r" \+ 1\b", " - 1"), (r"\[0\]", "[1]"),
             (r"\bis None\b", "is not None"), (r"\band\b", "or")]


def download(name: str, version: str, into: Path) -> Path:
    """The project's unpacked source distribution."""
    subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--no-binary", ":all:",
                    "--no-build-isolation", f"{name}=={version}", "-d", str(into)], check=True,
                   capture_output=True, text=True)
    archive = next(p for p in into.iterdir() if p.name.lower().replace("_", "-").startswith(name.lower())
                   and p.name.endswith(".tar.gz"))
    with tarfile.open(archive) as tar:
        tar.extractall(into / "src", filter="data")
    return next((into / "src").iterdir())


def make_world(name: str, version: str, folder: Path) -> World:
    files = {}
    for p in sorted(folder.rglob("*")):
        rel = p.relative_to(folder).as_posix()
        if not p.is_file() or p.suffix not in TEXT or ".egg-info" in rel or p.stat().st_size > MAX_FILE:
            continue
        try:
            files[rel] = p.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
    top = sorted({r.split("/")[0] + ("/" if "/" in r else "") for r in files})
    return World(name=f"repo-{name}", domains=["swe"], description=(
        f"The source distribution of the Python package {name} {version} from PyPI, unpacked at "
        f"/workspace/{name} ({len(files)} text files: {', '.join(top[:12])}). Its tests run with pytest on "
        "Python 3.11; nothing else is installed."),
        seed={"swe": {"root": f"/workspace/{name}", "files": files, "test_command": "pytest"}})


def observe(repo: ShadowRepo, episode: str, world: World, tool: str, arguments: dict) -> dict:
    real = asyncio.run(repo.observe(episode, world, tool, arguments, {}))
    return {"tool": tool, "arguments": arguments, "observation": real.text, "structured": real.structured,
            "family": tool.removeprefix("repo_")}


def failing(text: str) -> list[str]:
    return sorted(set(re.findall(r"^(?:FAILED|ERROR) (\S+::\S+)", text, re.M)))


def sources(world: World) -> tuple[list[str], list[str]]:
    files = world.seed["swe"]["files"]
    tests = [p for p in files if p.endswith(".py") and re.search(r"(^|/)test[^/]*\.py$", p)]
    modules = [p for p in files if p.endswith(".py") and p not in tests and not p.endswith(("setup.py", "conftest.py"))
               and not p.startswith(("doc", "examples"))]
    return modules, tests


def test_ids(path: str, source: str) -> list[str]:
    """The ids pytest gives the test functions of a file (test_* at the top, and in Test* classes)."""
    import ast

    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    ids = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("test"):
            ids.append(f"{path}::{node.name}")
        elif isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
            ids += [f"{path}::{node.name}::{f.name}" for f in node.body
                    if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef)) and f.name.startswith("test")]
    return ids


def mutation(world: World, rng: random.Random) -> tuple[str, str, str] | None:
    """(path, old line, new line): one line of a module changed so that it still parses."""
    modules, _ = sources(world)
    candidates = []
    for path in modules:
        lines = world.seed["swe"]["files"][path].splitlines()
        for line in lines:
            if line.strip().startswith(("#", "def ", "class ", "import ", "from ", '"', "'")) or lines.count(line) != 1:
                continue
            for pattern, repl in MUTATIONS:
                if re.search(pattern, line):
                    candidates.append((path, line, re.sub(pattern, repl, line, count=1)))
    return rng.choice(candidates) if candidates else None


def episodes_of(repo: ShadowRepo, world: World, n: int, rng: random.Random) -> list[dict]:
    modules, tests = sources(world)
    out = []
    for k in range(n):
        ep = f"{world.name}-{k + 1:02d}"
        steps = []
        call = lambda tool, **arguments: steps.append(observe(repo, ep, world, tool, arguments))  # noqa: E731
        if k % 3 == 0:
            call("repo_list")
            readme = next((p for p in world.seed["swe"]["files"] if p.lower().startswith("readme")), None)
            if readme:
                call("repo_view", path=readme, start_line=1, end_line=20)
            call("repo_run_tests")
            if modules:
                call("repo_search", pattern=r"^def \w+|^class \w+", path=rng.choice(modules))
            call("repo_view", path="CHANGELOG.md" if "CHANGELOG.md" not in world.seed["swe"]["files"] else "NEWS.md")
        change = mutation(world, rng)
        if k % 3 != 0 and change:
            path, old, new = change
            number = world.seed["swe"]["files"][path].splitlines().index(old) + 1
            call("repo_view", path=path, start_line=max(1, number - 5), end_line=number + 5)
            call("repo_replace", path=path, old_str=old, new_str=new)
            call("repo_run_tests", **({"target": rng.choice(tests)} if tests and k % 3 == 2 else {}))
            call("repo_replace", path=path, old_str=new + "\n" + "zzz-not-there", new_str=old)  # a mistake
            call("repo_replace", path=path, old_str=new, new_str=old)
            call("repo_run_tests")
        ids = [i for t in tests for i in test_ids(t, world.seed["swe"]["files"][t])]
        if ids:
            call("repo_run_tests", target=rng.choice(ids))
        repo.end(ep)
        out.append({"id": ep, "world": world.model_dump(by_alias=True, exclude_defaults=True), "steps": steps})
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--episodes", type=int, default=3, help="episodes per world (a fresh repository each)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", type=Path, default=ROOT / "fixtures" / "real" / "repos.jsonl.xz")
    args = ap.parse_args()
    started = time.monotonic()
    repo = ShadowRepo(SandboxLimits(timeout_s=30))
    episodes = []
    try:
        worlds = [load_world("repo")]
        with tempfile.TemporaryDirectory() as tmp:
            for name, version in PROJECTS:
                folder = download(name, version, Path(tmp) / name)
                worlds.append(make_world(name, version, folder))
        for world in worlds:
            first = observe(repo, "first-run", world, "repo_run_tests", {})
            repo.end("first-run")
            seed = {**world.seed["swe"], "failing_tests": failing(first["observation"])}
            world = world.model_copy(update={"seed": {**world.seed, "swe": seed}})
            made = episodes_of(repo, world, args.episodes, random.Random(f"{args.seed}:{world.name}"))
            episodes += made
            print(f"{world.name:24} {len(seed['files']):3} files, first run: {first['structured'].get('summary')!r:44} "
                  f"{len(made)} episodes, {sum(len(e['steps']) for e in made)} steps", flush=True)
    finally:
        repo.close()
    with lzma.open(args.out, "wt", encoding="utf-8", preset=9) as f:
        for e in episodes:
            f.write(json.dumps(e, ensure_ascii=False) + "\n")
    steps = sum(len(e["steps"]) for e in episodes)
    print(f"{args.out}: {len(episodes)} episodes, {steps} steps, {args.out.stat().st_size / 1024:.0f} KiB "
          f"in {time.monotonic() - started:.0f} s")


if __name__ == "__main__":
    main()
