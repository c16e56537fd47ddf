"""A corpus of real terminal transitions from many worlds (issue 18): each world is a snapshot of a
real folder on this machine (`world from-dir`: the source trees of installed Python packages, some
made into small git repositories first), and each episode is a sequence of the commands agents
type — listing, reading, searching, counting, editing, git, python, pipes, mistakes — run in the
bubblewrap sandbox on a fresh copy of the world. Steps are real outputs, deduplicated, and split
**by world** into train and held-out worlds:

    fixtures/real/corpus-train.jsonl.xz      the trainer's data (interchange format, xz-compressed)
    fixtures/real/corpus-heldout.jsonl.xz    worlds no training sees (eval, benchmarks/heldout.py)

    .venv/bin/python scripts/record_corpus.py [--worlds 48] [--episodes 8] [--seed 0] [--out fixtures/real]

Every world holds exactly what the sandbox materializes: files whose contents did not fit the
snapshot's budget are left out (no file is empty in reality and unknown in the world), and a
repository's recorded log is dropped (the sandbox commits the seed anew, with another id). The
commands are built from each world's own files and words, so no two worlds see the same
sequences; `family` on each step names its kind (benchmarks report per family).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import lzma
import random
import re
import shlex
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from mcp_world.domain import load_domain  # noqa: E402
from mcp_world.executors.sandbox import SandboxLimits, TerminalSandbox  # noqa: E402
from mcp_world.world import World, parse_world  # noqa: E402
from mcp_world.worldgen import from_dir  # noqa: E402

next_cwd = load_domain("terminal").rules.next_cwd

# Who works on each world (user, hostname), in turn: the model must read them from the world.
PEOPLE = [("dev", "workstation"), ("alice", "alice-laptop"), ("ubuntu", "ip-10-0-3-17"), ("sam", "buildbox"),
          ("maria", "dev-vm"), ("user", "devbox"), ("kim", "thinkpad"), ("ci", "runner-04")]
HELD_OUT_EVERY = 4  # one world in four is held out
WORD = re.compile(r"\b[A-Za-z_][A-Za-z0-9_]{3,20}\b")
COMMON = {"self", "return", "import", "from", "None", "True", "False", "def", "class", "with", "pass", "this",
          "that", "else", "elif", "except", "raise", "while", "print", "lambda", "yield", "assert", "global"}


def candidate_folders(limit: int) -> list[Path]:
    """Small pure-Python package folders of this environment, in a stable order."""
    site = Path(sysconfig.get_paths()["purelib"])
    found = []
    for d in sorted(site.iterdir()):
        if not d.is_dir() or d.name.startswith(("_", ".")) or d.name.endswith((".dist-info", ".egg-info", ".libs")):
            continue
        py = [p for p in d.rglob("*.py") if "__pycache__" not in p.parts]
        if not 3 <= len(py) <= 40:
            continue
        if any(p.suffix in (".so", ".pyd") for p in d.rglob("*")):
            continue
        size = sum(p.stat().st_size for p in py)
        if size > 400_000:
            continue
        found.append(d)
    rng = random.Random(18)
    rng.shuffle(found)
    return found[:limit]


def make_world(folder: Path, n: int, scratch: Path) -> World:
    """A world from `folder`: every other one as a small git repository of its own."""
    user, host = PEOPLE[n % len(PEOPLE)]
    name = f"pkg-{folder.name.replace('_', '-')}"
    source = scratch / folder.name  # a copy, outside any repository around the environment
    shutil.copytree(folder, source, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    if n % 2 == 0:  # a git repository, committed once (the snapshot reads its log)
        env = {"GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": "/dev/null", "PATH": "/usr/bin:/bin"}
        subprocess.run(["git", "init", "-q", "-b", "main" if n % 4 == 0 else "master"], cwd=source, check=True, env=env)
        subprocess.run(["git", "add", "-A"], cwd=source, check=True, env=env)
        subprocess.run(["git", "-c", f"user.name={user}", "-c", f"user.email={user}@{host}.example", "commit", "-qm",
                        f"Import {folder.name}"], cwd=source, check=True, env=env)
    snap = from_dir(source, name=name, user=user, hostname=host, max_file_bytes=6_000, max_total_bytes=16_384,
                    max_files=40)
    data = snap.world.model_dump(by_alias=True, exclude_defaults=True)
    seed = data["seed"]["terminal"]
    seed["files"] = {p: c for p, c in seed["files"].items() if c is not None}  # the world is what the sandbox has
    for repo in seed.get("git", []):
        # The sandbox makes the seed's commit anew (at the seed's date), so its id is not the copy's:
        # the world says what the sandbox makes, and the state computes that id.
        repo.pop("log", None)
    seed["notes"] = f"A copy of the Python package {folder.name}'s source tree."
    return parse_world(data, f"the corpus world {name}")


class Commands:
    """Command lines of each family, built from one world's files."""

    def __init__(self, world: World, rng: random.Random) -> None:
        seed = world.seed_of("terminal")
        self.rng = rng
        self.base = seed.cwd
        self.has_git = bool(seed.git)
        self.files = sorted(p[len(self.base) + 1:] for p in seed.files if p.startswith(self.base + "/"))
        self.dirs = sorted({f.rsplit("/", 1)[0] for f in self.files if "/" in f})
        self.py = [f for f in self.files if f.endswith(".py")] or self.files
        words: dict[str, int] = {}
        for path, text in seed.files.items():
            for w in WORD.findall(text or ""):
                if w not in COMMON:
                    words[w] = words.get(w, 0) + 1
        self.words = [w for w, _ in sorted(words.items(), key=lambda kv: (-kv[1], kv[0]))[:60]] or ["import"]

    def pick(self, xs: list[str]) -> str:
        return self.rng.choice(xs)

    def f(self) -> str:
        return shlex.quote(self.pick(self.files))

    def p(self) -> str:
        return shlex.quote(self.pick(self.py))

    def w(self) -> str:
        return self.pick(self.words)

    def d(self) -> str:
        return shlex.quote(self.pick(self.dirs)) if self.dirs else "."

    def listing(self) -> list[str]:
        return [self.pick(["ls", "ls -la", "ls -1", f"ls {self.d()}", "ls -a", f"ls -l {self.d()}", "pwd",
                           "find . -name '*.py'", f"find {self.d()} -type f", "ls ..", "ls ~", "ls /", "ls /tmp",
                           "find . -maxdepth 1 -type d", "ls -R | head -20", "ls *.py"])]

    def reading(self) -> list[str]:
        f = self.f()
        return [self.pick([f"cat {f}", f"head -n 15 {f}", f"tail -n 5 {f}", f"sed -n '1,12p' {f}", f"cat -n {f}",
                           f"head -3 {f}", f"tail -1 {f}", f"cat {self.p()}"])]

    def search(self) -> list[str]:
        w = self.w()
        return [self.pick([f"grep -n {w} {self.p()}", f"grep -rn {w} .", f"grep -rl {w} .",
                           f"grep -rn {w} --include='*.py' . | head -5", f"grep -c {w} {self.p()}",
                           f"find . -name '{self.pick(self.files).rsplit('/', 1)[-1]}'", f"grep -i {w.lower()} {self.p()}",
                           f"grep -rw {w} . | wc -l", f"grep -n 'def ' {self.p()}", f"grep -n '^class ' {self.p()}"])]

    def counting(self) -> list[str]:
        return [self.pick([f"wc -l {self.f()}", "wc -l *.py", "find . -type f | wc -l", f"wc -c {self.f()}",
                           "ls | wc -l", f"wc -w {self.p()}", "du -sh .", f"grep -c '' {self.p()}",
                           "find . -name '*.py' | wc -l", f"sort {self.p()} | uniq | wc -l"])]

    def editing(self) -> list[str]:
        f, w = self.f(), self.w()
        new = self.pick(["notes.txt", "TODO.md", "scratch.py", "out.log", "tmp/plan.md"])
        choice = self.rng.randrange(7)
        if choice == 0:
            return [f"echo '# {w}' >> {f}", f"tail -2 {f}"]
        if choice == 1:
            return [f"mkdir -p {new.rsplit('/', 1)[0] if '/' in new else 'build'}", f"echo 'x = 1' > {new}",
                    f"cat {new}", "ls"]
        if choice == 2:
            return [f"sed -i 's/{w}/{w}_renamed/' {self.p()}", f"grep -rn {w}_renamed . | head -3"]
        if choice == 3:
            return [f"cp {f} copy.txt", "ls", "diff " + f + " copy.txt", "rm copy.txt", "ls"]
        if choice == 4:
            return [f"mv {f} moved.txt", "ls", f"cat {f}", "mv moved.txt " + f]
        if choice == 5:
            return [f"touch {new.rsplit('/', 1)[-1]}", "ls", f"rm {new.rsplit('/', 1)[-1]}", "ls"]
        return ["printf 'a\\nb\\n' > list.txt", "cat list.txt", "wc -l list.txt", "rm list.txt"]

    def git(self) -> list[str]:
        if not self.has_git:
            return [self.pick(["git status", "git log --oneline", "git init -q && git status --short | head -3"])]
        choice = self.rng.randrange(6)
        if choice == 0:
            return [self.pick(["git status", "git log --oneline", "git branch", "git log -1 --format=%an",
                               "git show --stat HEAD | head -8", "git ls-files | head", "git status --short"])]
        if choice == 1:
            return [f"echo '# change' >> {self.f()}", "git status --short", "git diff --stat"]
        if choice == 2:
            return [f"git checkout -b fix/{self.w().lower()}", "git branch", "git status"]
        if choice == 3:
            return [f"echo 'x' > new_{self.w().lower()}.txt", "git status --short", "git add -A",
                    "git -c user.name=me -c user.email=me@example.com commit -qm 'Add a file'", "git log --oneline"]
        if choice == 4:
            return ["git log --oneline", "git rev-parse --abbrev-ref HEAD", "git diff"]
        return ["git tag v0.1", "git tag", "git describe --tags"]

    def python(self) -> list[str]:
        return [self.pick([f"python3 -m py_compile {self.p()} && echo ok", "python3 -c 'print(2 ** 16)'",
                           f"python3 -c 'import ast, sys; print(len(ast.parse(open(\"{self.pick(self.py)}\").read()).body))'",
                           "python3 --version", "python3 -c 'import os; print(os.getcwd())'",
                           f"python3 -c 'print(len(open(\"{self.pick(self.files)}\").read().splitlines()))'",
                           "python3 -c 'import sys; print(sys.argv)'", f"python3 {self.p()}",
                           "python3 -c 'import json; print(json.dumps({\"ok\": True}))'"])]

    def pipes(self) -> list[str]:
        return [self.pick([f"cat {self.p()} | grep -v '^#' | head -5", "ls | sort -r | head -3",
                           "find . -name '*.py' | xargs wc -l | tail -1", f"grep -ho '{self.w()}' -r . | sort | uniq -c",
                           f"cat {self.f()} | wc -l", "ls -1 | head -2", f"head -20 {self.p()} | tail -5",
                           f"grep -n import {self.p()} | cut -d: -f1 | head -3", "ls | tr a-z A-Z"])]

    def errors(self) -> list[str]:
        return [self.pick(["sl", "gti status", f"cat {self.w()}.txt", "cd nowhere", "ls missing/",
                           f"cta {self.f()}", "python3 missing.py", "rmdir .", "touch /usr/x", "cat /etc/shadow",
                           f"grep -rn {self.w()} nope/", "mkdir " + (self.d() if self.dirs else "."), "git chekout main",
                           "python3 -c 'import nosuchmodule'", f"head -n {self.f()}"])]

    def navigate(self) -> list[str]:
        if not self.dirs:
            return ["cd ..", "pwd", "ls", "cd " + self.base]
        d = self.d()
        return [f"cd {d}", "pwd", "ls", "cd .." if "/" not in d else "cd " + self.base]

    FAMILIES = ["listing", "reading", "search", "counting", "editing", "git", "python", "pipes", "errors", "navigate"]

    def episode(self, length: int) -> list[tuple[str, str]]:
        out: list[tuple[str, str]] = []
        while len(out) < length:
            family = self.pick(self.FAMILIES)
            out += [(family, c) for c in getattr(self, family)()]
        return out


def record_world(world: World, n_episodes: int, rng: random.Random, limits: SandboxLimits) -> list[dict]:
    episodes, seen = [], set()
    cmds = Commands(world, rng)
    for k in range(n_episodes):
        sequence = cmds.episode(rng.randint(5, 10))
        key = tuple(c for _, c in sequence)
        if key in seen:
            continue
        seen.add(key)
        box = TerminalSandbox(world, limits)
        seed = world.seed_of("terminal")
        cwd, home = seed.cwd, box.home
        steps = []
        try:
            for family, cmd in sequence:
                r = box.run(cmd, cwd, session=True)
                box.status = r.exit_code & 255  # (`$?` in the next command, as in a shell that lives on)
                cwd = r.cwd or next_cwd(cmd, cwd, home, r.exit_code)  # (where bash said it ended)
                steps.append({"tool": "run_command", "arguments": {"command": cmd}, "observation": r.output,
                              "structured": {"exit_code": r.exit_code, "cwd": cwd}, "family": family})
        finally:
            box.close()
        episodes.append({"id": f"{world.name}-{k + 1:02d}", "world": world.model_dump(by_alias=True, exclude_defaults=True),
                         "steps": steps})
    return episodes


def held_out(name: str) -> bool:
    return int(hashlib.sha256(name.encode()).hexdigest(), 16) % HELD_OUT_EVERY == 0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--worlds", type=int, default=48, help="how many package folders become worlds")
    ap.add_argument("--episodes", type=int, default=8, help="episodes per world (fresh sandbox each)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", type=Path, default=ROOT / "fixtures" / "real")
    args = ap.parse_args()
    started = time.monotonic()
    limits = SandboxLimits(timeout_s=10, max_output_bytes=16_384)
    split: dict[str, list[dict]] = {"train": [], "heldout": []}
    with tempfile.TemporaryDirectory() as tmp:
        for n, folder in enumerate(candidate_folders(args.worlds)):
            world = make_world(folder, n, Path(tmp))
            rng = random.Random(f"{args.seed}:{world.name}")
            episodes = record_world(world, args.episodes, rng, limits)
            split["heldout" if held_out(world.name) else "train"] += episodes
            print(f"{world.name:36} {'held out' if held_out(world.name) else 'train':8} "
                  f"{len(episodes)} episodes, {sum(len(e['steps']) for e in episodes)} steps", flush=True)
    for part, episodes in split.items():
        path = args.out / f"corpus-{part}.jsonl.xz"
        with lzma.open(path, "wt", encoding="utf-8", preset=9) as f:
            for e in episodes:
                f.write(json.dumps(e, ensure_ascii=False) + "\n")
        worlds = len({e["world"]["name"] for e in episodes})
        print(f"{path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}: {worlds} worlds, {len(episodes)} "
              f"episodes, {sum(len(e['steps']) for e in episodes)} steps, {path.stat().st_size / 1024:.0f} KiB")
    print(f"in {time.monotonic() - started:.0f} s")


if __name__ == "__main__":
    main()
