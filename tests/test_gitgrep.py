"""`git grep` as the terminal's state answers it (domains/terminal/rules/gitgrep.py), beside the real
git of this machine (the sandbox's) over generated repositories, patterns and options."""

from __future__ import annotations

import os
import random
import shutil
import subprocess

import pytest

from domains.terminal.rules import gitgrep
from domains.terminal.rules.state import GitState, TerminalState

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="no git on this machine")

WORDS = ["def", "foo", "bar", "foo_bar", "Foo", "x", "ab", "(x)", "abab", "1", "a-b", "#", ""]
PATTERNS = ["def", "foo", "Foo", "x", "ab", "a-b", "^def", "foo$", "de.", "f.*o", "o\\+", "[ab]", "[^ a]",
            "a\\|b", "\\(ab\\)*x", "[[:upper:]]", "\\w\\+", "\\bx\\b", "a|b", "(ab)+", "fo+", "[0-9]+", "^$", "x*", "."]
OPTIONS = ["-n", "-c", "-v", "-i", "-l", "-o", "-h", "-E", "-F", "-in", "-vn", "-on", "-nE"]


def _committed(repo, texts: dict[str, str], env: dict[str, str]) -> tuple[dict[str, str], list[str]]:
    """`texts` (name: text) written in `repo` and added to a new git repository there: the files by
    path, as the state holds them, and the paths git tracks, in its order."""
    for name, text in texts.items():
        (repo / name).write_text(text)
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True, env=env)
    subprocess.run(["git", "add", "-A"], cwd=repo, check=True, env=env)
    tracked = subprocess.run(["git", "ls-files"], cwd=repo, capture_output=True, text=True, env=env).stdout.split()
    return {f"{repo}/{name}": text for name, text in texts.items()}, tracked


def test_generated_repositories_are_grepped_as_git_greps_them(tmp_path):
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "LANG": "C.UTF-8"}
    rng = random.Random(20261205)
    taken, differ = 0, []
    for n in range(60):
        repo = tmp_path / f"r{n}"
        (repo / "sub").mkdir(parents=True)
        names = rng.sample(["a.txt", "b.py", "sub/c.txt", "sub/d.md", "Z.txt", "e-f.txt"], rng.randint(1, 4))
        texts = {}
        for name in names:
            lines = [" ".join(rng.choice(WORDS) for _ in range(rng.randint(0, 4))) for _ in range(rng.randint(0, 8))]
            texts[name] = "\n".join(lines) + ("\n" if rng.random() < 0.8 else "")
        files, tracked = _committed(repo, texts, env)
        cwd = str(repo / "sub") if rng.random() < 0.2 else str(repo)
        s = TerminalState(cwd=cwd, home=str(tmp_path), files=files, dirs=[str(repo), str(repo / "sub")])
        g = GitState(repo=str(repo))
        for _ in range(20):
            args = [a for _ in range(rng.randint(0, 2)) for a in rng.choice(OPTIONS).split()] + [rng.choice(PATTERNS)]
            ours = gitgrep.answer(s, g, args, tracked)
            if ours is None:
                continue
            taken += 1
            real = subprocess.run(["git", "grep", *args], cwd=cwd, capture_output=True, text=True, env=env)
            if ours != (real.stdout, real.returncode):
                differ.append((args, cwd, files, ours, real.stdout, real.returncode))
    assert not differ, differ[:3]
    assert taken > 600  # (most are answered: the check is not vacuous)


SPECS = ["*.py", "*.txt", "sub", "sub/*", "*", "a.txt", "sub/c.txt", "nope", ".", "..", "../*.md", "s*", "*/d.md",
         "Z.txt", "?.py", "e-f.txt"]


def test_pathspecs_choose_files_as_git_ls_files_and_git_grep_choose_them(tmp_path):
    """`git ls-files '*.py'`, `git grep -n WORD -- sub '*.txt'`: a pathspec with `*` or `?` matches a
    path whole (`*` across slashes), another names a file or a folder and all below it, each from the
    shell's folder; beside the real git on generated repositories."""
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "LANG": "C.UTF-8"}
    rng = random.Random(20261206)
    taken, differ = 0, []
    for n in range(40):
        repo = tmp_path / f"r{n}"
        (repo / "sub").mkdir(parents=True)
        names = rng.sample(["a.txt", "b.py", "sub/c.txt", "sub/d.md", "Z.txt", "e-f.txt", "sub/g.py"],
                           rng.randint(2, 6))
        texts = {name: "\n".join(rng.choice(WORDS) for _ in range(rng.randint(1, 5))) + "\n" for name in names}
        files, tracked = _committed(repo, texts, env)
        cwd = str(repo / "sub") if rng.random() < 0.3 else str(repo)
        s = TerminalState(cwd=cwd, home=str(tmp_path), files=files, dirs=[str(repo), str(repo / "sub")])
        g = GitState(repo=str(repo))
        for _ in range(12):
            specs = rng.sample(SPECS, rng.randint(1, 2))
            hit = gitgrep.pathspecs(specs, str(repo), cwd)
            if hit is not None:
                taken += 1
                real = subprocess.run(["git", "ls-files", *specs], cwd=cwd, capture_output=True, text=True, env=env)
                ours = "".join(os.path.relpath(os.path.join(repo, rel), cwd) + "\n" for rel in tracked if hit(rel))
                if ours != real.stdout:
                    differ.append(("ls-files", specs, cwd, ours, real.stdout))
            args = [rng.choice(["-n", "-c", "-l"]), rng.choice(["def", "foo", "x"]), "--", *specs]
            said = gitgrep.answer(s, g, args, tracked)
            if said is not None:
                taken += 1
                real = subprocess.run(["git", "grep", *args], cwd=cwd, capture_output=True, text=True, env=env)
                if said != (real.stdout, real.returncode):
                    differ.append(("grep", args, cwd, said, real.stdout))
    assert not differ, differ[:3]
    assert taken > 500
