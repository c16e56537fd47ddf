"""Random command sequences of the kinds agents type — writes with every kind of quoting, patterns,
braces, tildes and variables, moves, copies, removals, reads, pipes, conditions, git — run in the real
bubblewrap sandbox (the devbox world) with the terminal state beside it. Every step the state answers
is compared with reality (output and exit code); the state then advances by the real output, as in
benchmarks/state_vs_real.py. Its fixed sequences check what was built; these look for what nobody
thought to write down (they found `echo '$HOME' > f` recorded as the home, `touch` of a folder made a
file, `cat *.txt` learnt a file named `*.txt`, `cp f f` answered as done, `rm a nope` kept a).

    .venv/bin/python benchmarks/state_fuzz.py [--seed 1] [--sequences 25] [--length 12] [--templates repo]

Prints how many steps the state answered, and every one that differs from the sandbox.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.state_vs_real import (_MADE, _STAMP, _at_the_second_git_ran, _pin_a_quiet_commit,  # noqa: E402
                                      _simulator)
from mcp_world.executors.sandbox import SandboxLimits, TerminalSandbox  # noqa: E402
from mcp_world.world import load_world  # noqa: E402

NAMES = ["a.txt", "b.py", "src", "tests", "README.md", "src/notes.py", "docs", "docs/x.md", "new", "new/y",
         ".hidden", "my file.txt", "*.txt", "src/*.py", "~/z", "/tmp/t", "nope", "n?tes", "'q r'", "src/",
         "/", "/etc", "/tmp", "/x", "~/..", "nope/x"]
WORDS = ["hello", "a b", "'$HOME'", '"$HOME"', "$HOME", "x*y", "'a  b'", "\"q'q\"", "-n", "'#x'", "a#b", "{1,2}",
         "\\$x", "'\\n'", "%d", "'%%'", "\"a\\tb\"", "$#", "~", "'~'", "$((1+2))", "$(pwd)", "x\\ y"]
TEMPLATES = [
    "echo {w} > {n}", "echo {w} >> {n}", "printf {w} > {n}", "cat {n}", "ls", "ls {n}", "ls -a", "ls -la {n}",
    "mkdir {n}", "mkdir -p {n}/{n2}", "touch {n}", "rm {n}", "rm -r {n}", "rm -f {n}", "cp {n} {n2}", "mv {n} {n2}",
    "cd {n}", "cd ..", "pwd", "wc -l {n}", "head -2 {n}", "grep -n {w} {n}", "find . -name '{g}'",
    "git status --short", "git add {n}", "git diff --stat", "cat {n} | wc -c", "echo {w} {w2}",
    "ls {n} && echo ok || echo no", "[ -f {n} ] && cat {n}", "sed -i 's/a/b/' {n}", "awk '{{print $1}}' {n}",
    "sort {n} | uniq -c", "test -d {n} && ls {n}", "basename {n}", "cat -n {n}", "tail -1 {n}", "grep -c {w} {n}",
    "echo {w} | tr a-z A-Z", "ls *", "ls -d */", "git init -q {n}", "cd {n} && ls", "echo {w} > {n} && cat {n}",
    "grep -rn {w} .", "cat {n} {n2}", "rmdir {n}", "mkdir {n} && cd {n} && pwd",
    "rm {n} {n2}", "rm -rf {n} {n2}", "touch {n} {n2}", "mkdir {n} {n2}", "cp {n} {n2} {n3}", "mv {n} {n2} {n3}",
    "rmdir {n} {n2}", "cp -r {n} {n2}", "ls / {n}", "whoami", "hostname", "echo $USER@$HOSTNAME",
]

# `--templates repo`: a developer's work in the world's repository. Reading, searching and editing its
# files (sed, appends, here-documents), and git from status to commit, branches, restores and stashes.
REPO_NAMES = ["README.md", "requirements.txt", "src/notes.py", "tests/test_notes.py", "new.txt", "src/new.py",
              "docs/guide.md", "notes.bak", ".gitignore", "nope.txt", "src", "tests", "docs", "."]
REPO_WORDS = ["add", "def", "notes", "x", "return", "'^def'", "'^$'", "import", "pytest", "'a b'", "TODO", "'[0-9]'"]
BRANCHES = ["feature", "fix-1", "main", "nope"]
MESSAGES = ["'Add notes'", "wip", "'fix: x'", '"two words"']
REPO_TEMPLATES = [
    "git status", "git status --short", "git status -s", "git diff", "git diff --stat", "git diff --cached",
    "git diff {n}", "git add {n}", "git add -A", "git add .", "git commit -qm {m}", "git commit -m {m}",
    "git commit -am {m}", "git -c user.name=a -c user.email=a@b.c commit -qm {m}", "git log --oneline",
    "git log -1", "git log --oneline -2", "git show --stat HEAD", "git branch", "git branch {b}",
    "git checkout -b {b}", "git checkout {b}", "git switch {b}", "git checkout -- {n}", "git restore {n}",
    "git restore --staged {n}", "git rm -q {n}", "git rm --cached {n}", "git mv {n} {n2}", "git reset -q",
    "git stash", "git stash pop", "git stash list", "git tag {b}", "git tag", "git ls-files",
    "git rev-parse --abbrev-ref HEAD", "git log --oneline | wc -l", "git diff | head -5", "git branch -d {b}",
    "echo {w} >> {n}", "printf '%s\\n' {w} > {n}", "sed -i 's/{w}/{w2}/' {n}", "sed -i '{k}d' {n}",
    "sed -n '{k},{k2}p' {n}", "sed -i 's/{w}/{w2}/g' {n}", "sed -i '{k}i {w}' {n}", "sed -i '{k}a {w}' {n}",
    "sed -i '{k},{k2}d' {n}", "sed -i '/{w}/d' {n}", "sed -i -e 's|{w}|{w2}|' {n} {n2}", "cat > {n} <<'EOF'\n{w}\n{w2}\nEOF", "cp {n} {n2}",
    "mv {n} {n2}", "rm {n}", "mkdir -p {n}", "touch {n}", "cat {n}", "head -n {k} {n}", "tail -n {k} {n}",
    "wc -l {n}", "grep -n {w} {n}", "grep -c {w} {n}", "grep -rn {w} .", "grep -rl {w} src tests", "sort {n}",
    "sort -r {n} | head -2", "cut -d' ' -f1 {n}", "nl {n}", "cat -n {n}", "diff {n} {n2}",
    "grep -v '^$' {n} | wc -l", "find . -name '*.py' | sort", "find . -type f | wc -l", "ls -R", "ls", "ls {n}",
    "uniq {n}", "awk 'NR==1' {n}", "cd {n}", "cd ..", "pwd", "python3 -m py_compile {n} && echo ok",
    "python3 -c 'print(1+1)'", "[ -f {n} ] && echo yes || echo no",
    "touch {n}/x", "mkdir {n}/x", "rmdir {n}", "chmod +x {n}", "stat {n}", "du -sh {n}", "grep {w} {n}", "rm -f {n}",
    "cp {n} {n2}/", "mv {n} {n2}/x", "rm {n} {n2}", "cat {n}/", "head {n}/x", "rm -r {n}", "sort -r {n}",
    "git show --stat", "git show | head -12", "du -sh .", "find . | wc -l", "find .git -type f | wc -l",
    # sed's regular expressions (sedscript.py, sedregex.py), printing and in place
    "sed -i 's/^{w}/{w2}/' {n}", "sed -i '/^$/d' {n}", "sed -n '/{w}/p' {n}", "sed 's/[a-z]*/X/2' {n}",
    "sed -i -E 's/({w})+/<\\1>/g' {n}", "sed -i '$d' {n}", "sed -i 's/ *$//' {n}", "sed -n '$=' {n}",
    "sed 's/\\([a-z]\\)\\([a-z]*\\)/\\2\\1/' {n}", "sed -i '{k},/{w}/s/.*/[&]/' {n}", "cat {n} | sed '{k}q'",
    "git grep -n {w}", "git grep -c {w}", "git grep -l '{w}.'", "grep -n '^{w}' {n}", "grep -cE '{w}|{w2}' {n}",
    # an edit undone, or put aside (gitrestore.py, gitstash.py)
    "git reset", "git reset --hard", "git reset {n}", "git reset -- {n}", "git checkout {n}", "git checkout HEAD -- {n}",
    "git restore -SW {n}", "git stash apply", "git stash drop -q", "git stash push -m {m}", "git stash -q",
    "git reset --hard -q", "git checkout -- {n} {n2}", "git stash pop -q",
    "git rm {n}", "git rm -r {n}", "git rm -f {n} {n2}", "mv {n} {n2} && git add -A", "git mv {n} {n2} && git status",
]
# `--templates python`: the project's own modules written and imported, their functions called
# (pyrun.py): bodies that loop, recurse, change lists and dicts, print, or fail in Python's ways
PY_MODULES = ["calc.py", "util.py", "pkg/__init__.py", "pkg/core.py", "src/notes.py", "run.py"]
PY_FUNCTIONS = [
    "def {f}(x):\n    return x * 2", "def {f}(x):\n    out = []\n    for i in range(3):\n        out.append(x)\n    return out",
    "def {f}(x):\n    return 10 // x", "def {f}(x):\n    return x[0]", "def {f}(x, k=2):\n    return [x] * k",
    "def {f}(x):\n    if not x:\n        raise ValueError(f'no {{x!r}}')\n    return [10 // v for v in [x, x - 1]]",
    "def {f}(x):\n    total = x\n    total += {g}(x)\n    return total",
    "def {f}(x):\n    d = {{}}\n    d.setdefault('k', []).append(x)\n    d['n'] = len(d)\n    return d",
    "def {f}(x):\n    print('in', x)\n    return len(x)", "def {f}(x):\n    y = x\n    while y > 0:\n        y -= 1\n    return y",
    "def {f}(x):\n    print(z)\n    z = 1", "def {f}(x):\n    return {g}(x) + 1", "def {f}(x):\n    return {f}(x - 1) if x > 0 else 0",
    "def {f}(x):\n    class A:\n        pass\n    return A", "def {f}(x):\n    yield x", "def {f}(x):\n    return f'{{x!r}}:{{x}}'",
    "def {f}(x):\n    s = 0\n    for c in str(x):\n        if c == '1':\n            continue\n        if c == '3':\n            break\n"
    "        s += 1\n    return s", "def {f}(x):\n    return sorted(x)", "def {f}(x):\n    assert x, 'empty'\n    return x",
    "def {f}(x: int) -> list[int]:\n    return [x, -x]", "def {f}(x):\n    def inner(y):\n        return y + x\n    return inner(1)",
    "def {f}(x, *rest):\n    return x", "def {f}(x):\n    global Z\n    return x", "def {f}(x):\n    return Z + x",
    # classes (pyclass.py): instances made and printed, methods, properties, super(), dataclasses
    "class K:\n    n = 0\n\n    def __init__(self, x):\n        self.x = x\n        K.n += 1\n\n    def __repr__(self):\n"
    "        return f'K({{self.x!r}})'\n\n\ndef {f}(x):\n    return [K(x).x, K.n, str(K(x))]",
    "class B:\n    def __init__(self):\n        self.items = []\n\n    def add(self, x):\n        self.items.append(x)\n"
    "        return self\n\n    @property\n    def size(self):\n        return len(self.items)\n\n\n"
    "class C(B):\n    def add(self, x):\n        super().add(x)\n        return super().add(x)\n\n\n"
    "def {f}(x):\n    c = C().add(x)\n    return (c.size, c.items, isinstance(c, B), type(c).__name__)",
    "from dataclasses import dataclass\n\n\n@dataclass\nclass P:\n    x: int\n    y: int = 0\n\n\n"
    "def {f}(x):\n    return f'{{P(x)}} {{P(x) == P(x, 0)}} {{P(1, y=x)!r}}'",
    "class Q:\n    pass\n\n\ndef {f}(x):\n    return Q()",
    "class R:\n    def __init__(self, x):\n        self.x = 10 // x\n\n    def __str__(self):\n        return str(self.x)\n\n\n"
    "def {f}(x):\n    print(R(x))\n    return R(x).x",
]
PY_TOP = ["import json", "from typing import List, Optional", "Z = 1", "print('loaded')", "from .core import {f}",
          "if __name__ == '__main__':\n    print('main', {f}(2))", "from calc import {f}", "import os", "LIMIT: int = 3"]
PY_ARGS = ["3", "[1, 2, 3]", "'ab'", "0", "-1", "[]", "None", "13", "'x'"]
PY_TEMPLATES = [
    "cat > {mod} <<'EOF'\n{body}\nEOF", "cat > {mod} <<'EOF'\n{body}\nEOF", "python3 -c 'from {name} import {f}; print({f}({a}))'",
    "python3 -c 'import {name}; print({name}.{f}({a}), {name}.{g}({a2}))'", "python3 -c 'import {name}'", "python3 {mod}",
    "ls", "ls -a __pycache__", "ls src/__pycache__", "ls pkg", "ls -a pkg/__pycache__", "git status --short", "mkdir -p pkg",
    "rm -rf __pycache__", "touch typing.py", "rm -f typing.py", "echo 'print(1)' >> {mod}", "cd pkg", "cd ..",
    "python3 -c 'from src.notes import add; print(add({a}, {a2}))'",
]


def _py_fields(rng: random.Random) -> dict[str, str]:
    names = ["f", "g", "h"]
    body = [rng.choice(PY_TOP).format(f=rng.choice(names)) for _ in range(rng.randint(0, 2))]
    for name in names:
        body.append(rng.choice(PY_FUNCTIONS).format(f=name, g=rng.choice(names)))
    if rng.random() < 0.3:
        body.append(rng.choice(PY_TOP).format(f=rng.choice(names)))
    mod = rng.choice(PY_MODULES)
    return dict(mod=mod, body="\n\n\n".join(body), name=mod[:-3].replace("/", ".").removesuffix(".__init__"),
                f=rng.choice(names), g=rng.choice(names), a=rng.choice(PY_ARGS), a2=rng.choice(PY_ARGS))


# `--templates subst`: command substitution and arithmetic (`cd "$(dirname f)"`, `wc -l $(find …)`,
# `echo $(( $(wc -l < f) + 1 ))`), their values split, quoted and assigned, between moves and writes;
# `$?`, the status the command before left; `ls` into pipes and `grep -r` of several folders
SUB_INNER = ["pwd", "ls", "ls {n}", "cat {n}", "basename {n}", "dirname {n}", "git branch --show-current",
             "git rev-parse --show-toplevel", "git rev-parse --short HEAD", "wc -l < {n}", "find . -name '{g}'",
             "head -1 {n}", "echo {w}", "whoami", "git log --oneline -1", "cat nope", "ls -a", "cd .. && pwd"]
SUB_ARITH = ["1 + 2 * 3", "7 / 2", "-7 % 3", "2 ** 10", "V * 2", "(3 - 5) * 4", "10 > 3", "$(wc -l < {n}) + 1",
             "$(ls | wc -l) * 2", "1 / 0"]
SUB_TEMPLATES = [
    "echo $({c})", "echo \"$({c})\"", "cd \"$(dirname {n})\"", "cd $(dirname {n}) && pwd",
    "wc -l $(find . -name '{g}')", "cat $(find . -name '{g}') | head -2", "ls $(dirname {n})",
    "X=$({c}) && echo \"$X\"", "export V=$({c}); echo \"[$V]\"",
    "echo $(( {a} ))", "echo \"{w} $({c}) {w2}\"", "printf '[%s]' $({c})", "mkdir -p \"$(dirname {n})/made\" && ls",
    "touch \"$(basename {n})\" && ls", "echo $({c}) > {n} && cat {n}", "cd $({c}); pwd", "cd {n}", "cd ..", "ls", "pwd",
    "cat {n}", "rm -rf {n}", "mkdir -p {n}", "echo {w} > {n}", "export V={k}", "echo $(( V + {k} ))",
    "[ -d \"$(dirname {n})\" ] && echo yes || echo no", "cd /tmp && git status --short", "cd ~/notes-app",
    "echo $?", "cat {n}; echo \"[$?]\"", "false || echo $?", "ls {n} && echo $? || echo \"no $?\"",
    "echo $(( $? + {k} ))", "ls {n} | wc -l", "ls -la {n} | tail -2", "ls -a {n} | sort -r", "grep -rn {w} src tests",
    "grep -rl {w} tests {n}",
]
SUB_NAMES = ["README.md", "src/notes.py", "tests/test_notes.py", "src", "tests", "new/x.txt", "a b.txt", ".", "..",
             "nope", "/tmp", "~/notes-app/src"]
SUB_WORDS = ["hello", "'a  b'", "\"$HOME\"", "x*y", "-n", "'$(pwd)'", "\"q'q\"", "'*'"]

# `--templates vars`: shell variables set, exported, unset and read back (split and matched as bash
# does outside quotes), and `for` loops over words, patterns and substitutions, between moves and writes
VAR_TEMPLATES = [
    "F={n}", "F=\"{n}\"", "F={w}", "L=\"{n} {n2}\"", "G='{g}'", "export F", "export F={n}", "unset F", "E=", "echo $F",
    "echo \"$F\"", "echo \"[$F]\" $L", "echo x${{F}}y", "wc -l $F", "cat $F", "ls $F", "ls \"$F\"", "ls $L", "ls $G",
    "echo $G", "cat $F | head -2", "grep -c def $F", "[ -f \"$F\" ] && echo file || echo no", "cd $F",
    "cd \"$F\"; pwd", "ls $E", "for f in {g}; do echo \"== $f\"; wc -l < $f; done",
    "for f in $L; do echo \"[$f]\"; done", "for f in \"$L\"; do echo \"[$f]\"; done",
    "for i in $(seq {k}); do echo $i; done", "for d in src tests; do ls $d; done",
    "for f in $(ls); do [ -d $f ] && echo dir $f; done", "for f in {n} {n2}; do cat $f; done", "echo $f",
    "for x in a b; do echo $x > {n}; done; cat {n}", "for f in src/*.py; do head -2 \"$f\"; done",
    "X=$(ls | wc -l); echo $X", "N=$((N + {k}))", "echo $N", "cd ..", "cd ~/notes-app", "pwd", "ls", "mkdir -p {n}",
    "touch {n}", "rm -rf {n}", "echo {w} > {n}", "if [ -n \"$F\" ]; then echo set; else echo unset; fi",
    "for f in *; do echo \"$f\"; done | wc -l", "bash -c 'echo \"[$F]\"'", "for f in {g} {n}; do ls -d $f; done",
    "find . -name '{g}' -exec wc -l {{}} +", "find {n} -type f -exec head -1 {{}} \\;", "printf \"%s\\n\" {w} > {n}",
    "while read -r l; do echo \"<$l>\"; done < {n}", "ls {n} | while read f; do echo \"$f\"; done",
    "cd {n}\nls", "echo {w}\necho {w2}", "for f in {g}\ndo\n  wc -l $f\ndone", "if [ -f {n} ]; then\n  cat {n}\nfi\npwd",
    "for a in 1 2; do for b in {n} {n2}; do ls -d $b; done; done", "ls |\n  wc -l", "cat {n} # note; rm {n}\nls",
    "for f in *; do if [ -d $f ]; then echo \"d $f\"; fi; done",
]

# `--templates lines`: backquotes (plain, quoted, nested, escaped), `if` with `elif`s, where the
# machine's programs are and what its environment holds, sort's keys, `du` of a pattern, numbered lines
# piped on, `git blame`, between moves, writes and exports
LINE_INNER = ["pwd", "ls", "ls {n}", "cat {n}", "dirname {n}", "basename {n}", "wc -l < {n}", "echo {w}", "which {p}",
              "git branch --show-current", "find . -name '{g}'", "cat nope", "printenv {v}"]
LINE_TEMPLATES = [
    "echo `{c}`", "echo \"[`{c}`]\"", "X=`{c}`; echo \"$X\"", "cd `dirname {n}` && pwd", "cd `{c}`; pwd",
    "for f in `{c}`; do echo \"- $f\"; done", "echo `echo \\`{c}\\``", "echo '`{c}`'", "echo \\`{c}\\`",
    "wc -l `find . -name '{g}'`", "echo `{c}` > {n} && cat {n}",
    "if [ -f {n} ]; then echo file; elif [ -d {n} ]; then echo dir; else echo none; fi",
    "if [ -d {n} ]; then cd {n}; elif [ -f {n} ]; then cat {n}; fi; pwd",
    "if grep -q {w} {n}; then echo a; elif [ -e {n2} ]; then ls {n2}; elif false; then :; fi; echo $?",
    "if [ -f {n} ]\nthen\n  wc -l {n}\nelif [ -d {n} ]\nthen\n  ls {n}\nfi",
    "which {p}", "which {p} {p2}; echo $?", "command -v {p}", "command -v {p} {p2}", "type {p}", "type -t {p} {p2}",
    "printenv {v}", "printenv {v} {v2}; echo $?", "echo ${v}", "echo \"${v}:${v2}\"", "export {v}={w}",
    "{v}={w}; printenv {v}", "unset {v}", "alias ll='ls -l'", "f() {{ ls; }}", "cd ..", "cd ~/notes-app", "ls",
    "mkdir -p {n}", "touch {n}", "rm -rf {n}", "echo {w} > {n}", "mv {n} {n2}",
    "sort -k{k} {n}", "sort -k{k},{k}nr -k1,1 {n}", "sort -t= -k2 -n {n}", "printf '%s {k}\\n' {w} {w2} >> {n}",
    "du -sh *", "du -sh * | sort -h", "du -sk {n} {n2} | sort -rn", "cat -n {n} | head -{k}", "cat -A {n} | tail -1",
    "awk -F'==' '{{print $1}}' {n}", "git blame {n}", "git blame -L 1,{k} {n} | cut -c1-9", "python3 --version",
]
LINE_PROGRAMS = ["python3", "git", "ls", "cd", "echo", "bash", "sh", "if", "node", "pytest", "ll", "f", "type",
                 "export", "kill", "awk", "[", "nope", "printenv"]
LINE_VARIABLES = ["HOME", "PATH", "LANG", "TERM", "USER", "PWD", "SHELL", "X", "V", "OLDPWD", "SHLVL", "HOSTNAME",
                  "NOPE", "LOGNAME"]

# `--templates pipes`: loops and conditions piped on (what each command prints to the terminal and what
# goes down the pipe), `ls` of several names, loops inside loops, between writes and moves
PIPE_BODIES = ["wc -l $f", "head -1 $f", "echo $f", "cat $f", "ls $f", "grep -c {w} $f", "echo $f >&2",
               "[ -f $f ] && echo $f", "basename $f", "ls -d $f", "cd $f; pwd", "echo {w} > $f.out", "cat nope"]
PIPE_TEMPLATES = [
    "for f in {g}; do {b}; done | sort -r", "for f in {n} {n2}; do {b}; done | wc -l",
    "for f in {n} {n2} {n3}; do {b}; {b2}; done | head -{k}", "ls {n} {n2}", "ls {n} {n2} {n3}", "ls -a {n} {n2}",
    "ls {n} {n2} | head -{k}", "ls {g} {n} | wc -l", "if [ -d {n} ]; then ls {n}; else cat {n}; fi | wc -l",
    "if [ -f {n} ]; then {b}; fi | tail -1", "ls | while read f; do {b}; done | head -{k}",
    "ls {n} | while read f; do {b}; done | sort", "for i in 1 2; do for f in {g}; do {b}; done; done | tail -{k}",
    "for i in 1 2; do if [ -e {n} ]; then echo $i; fi; done | wc -l", "for f in {g}; do {b}; done 2>&1 | wc -l",
    "echo {w} > {n}", "mkdir -p {n}", "touch {n}", "rm -rf {n}", "cd {n}", "cd ..", "ls", "cp {n} {n2}",
]
PIPE_NAMES = SUB_NAMES + ["README.md", "src/notes.py", "requirements.txt", "x.out", "new"]

# `--templates streams`: a command's errors and output sent elsewhere (`2>/dev/null`, `2>&1`, `>/dev/null
# 2>&1`, `&>`, `>&2`, `2> f`), alone, in lists and heading pipes, between writes and reads of what they wrote
STREAM_INNER = ["ls {n}", "cat {n}", "ls nope", "cat nope", "grep -c {w} {n}", "wc -l {n}", "git status --short",
                "git log --oneline -1", "head -1 {n}", "echo {w}", "which {p}", "command -v {p}",
                "python3 -c 'print(1)'", "ls {n} {n2}", "find {n} -name '*.py'", "git checkout nope", "mkdir {n}",
                "rm {n}", "cd {n}"]
STREAM_TEMPLATES = [
    "{c} 2>/dev/null", "{c} 2>&1", "{c} >/dev/null", "{c} >/dev/null 2>&1", "{c} &>/dev/null", "{c} 2>&1 >/dev/null",
    "{c} 2>/dev/null | head -{k}", "{c} 2>&1 | wc -l", "{c} 2>&1 | tail -1", "{c} 2>/dev/null || echo failed",
    "{c} >/dev/null 2>&1 && echo ok || echo no", "{c} 2> err.txt; cat err.txt", "{c} > out.txt 2>&1; cat out.txt",
    "{c} >> out.txt 2>&1", "cat out.txt", "{c} 2>>err.txt", "{c} >&2", "{c} 1>&2 | wc -l", "ls", "cat err.txt",
    "mkdir {n} 2>/dev/null", "rm {n} 2>/dev/null; echo $?", "cd {n} 2>/dev/null && pwd", "cd ..", "touch {n} 2>&1",
    "echo {w} > {n} 2>/dev/null", "cat {n} 2>&1 | head -2", "pwd", "{c} | wc -l 2>/dev/null", "{c} | head -{k} 2>&1",
    "{c} >& out.txt; cat out.txt", "{c} 2>&1 | grep -c {w} 2>/dev/null",
]

# `--templates braces`: what agents scaffold with (`mkdir -p d/{a,b}`, `cp f{,.bak}`, `touch t_{1..3}.py`,
# `--exclude-dir={.git,x}`), between reads, listings and removals of what the braces made
BRACE_NAMES = ["app", "src", "tests", "docs", "new", "README.md", "src/notes.py", "a b", "x.txt", ".", "nope"]
BRACE_TEMPLATES = [
    "mkdir -p {n}/{{a,b,c}}", "mkdir {n}{{1,2}}", "mkdir -p {n}/{{lib,bin}}/{{x,y}}", "ls {n}", "ls -R {n}", "ls",
    "touch {n}/{{x,y}}.py", "touch {n}_{{1..3}}.txt", "ls {n}/{{a,b}}", "ls -d {n}{{1,2}} {n}_{{1..3}}.txt",
    "cp {n}{{,.bak}}", "mv {n}{{,.old}}", "mv {n}{{.old,}}", "cat {n}{{,.bak}}", "rm -rf {n}/{{a,b}}",
    "rm -rf {n}{{1,2}}",
    "rm -f {n}_{{1..3}}.txt", "echo {n}{{1..3}}", "echo {{a..e..2}} {{05..1..2}} {{c..a}}", "echo {w}{{,x}}",
    "for i in {{1..3}}; do echo $i >> {n}.log; done", "cat {n}.log", "for d in {{src,tests,nope}}; do ls $d; done",
    "ls -d {{src,tests,nope}}", "grep -rn {w} . --exclude-dir={{.git,app}}", "grep -rl {w} --exclude-dir=.git .",
    "grep -rn {w} --include='*.py' --exclude-dir={{.git,new}} .", "grep -rnI {w} src tests", "wc -l {n}{{,.bak}}",
    "find {n} -name '*.py' | sort", "cd {n}", "cd ..", "echo '{{x,y}}' \"{{a,b}}\" {{a,b}}", "git status --short",
    "git add {n}{{,.bak}}", "diff {n}{{,.bak}}", "mkdir -p {{{n},{n2}}}/sub && ls {n}",
    "find . -path ./.git -prune -o -type f -print", "find . -name .git -prune -o -name '*.py' -print",
    "find {n} -name {n2} -prune -o -type f -print", "find . -type d -name '{n}' -prune -o -print | wc -l",
]

# `--templates modes`: chmod (octal and symbolic, ones that take the user's own rights, ones not followed)
# between reads, writes, listings, copies, git; and patterns above the last part (`*/*`, `ls -d */*/`)
MODE_NAMES = ["run.sh", "src", "tests", "src/notes.py", "README.md", "new", "new/y", "lib", "lib/a.py", "nope",
              "*.md", "a-b", "a-b/c.py", "."]
MODES = ["+x", "-x", "755", "644", "600", "700", "000", "a=r", "u+x,go-w", "go=", "u-w", "=rx", "+X", "g=u", "o+t",
         "u+s", "0755", "-R 700", "-v 644", "999", "g+s", "-R go+rX", "a+rwX", "u=rwx,g=rx,o=", "-f 600"]
MODE_TEMPLATES = [
    "chmod {m} {n}", "chmod {m} {n} {n2}", "ls -l", "ls -l {n}", "ls -la {n}", "cat {n}", "echo {w} > {n}",
    "echo {w} >> {n}", "touch {n}/x", "ls {n}", "mkdir -p {n}/{n2}", "cp {n} {n2}", "cp -p {n} {n2}", "mv {n} {n2}",
    "rm -rf {n}", "cp -r {n} {n2}", "git status --short", "git diff --stat", "git log --oneline | head -3",
    "git add -A && git -c user.name=a -c user.email=a@b.c commit -qm m", "echo */*", "ls */", "ls -d */*/",
    "wc -l */*", "grep -c {w} */*", "cat */{n}", "echo {g}/*", "head -n 1 */*.py", "rm {g}/{n}", "cd {n}", "cd ..",
    "sed -i 's/a/b/' {n}", "printf '#!/bin/sh\\necho hi\\n' > {n}", "mkdir -p a-b/c.py lib && touch lib/a.py",
]

# `--templates walk`: find and grep -r through the repository's .git where it comes in the walk (gitfiles.walk),
# between writes, renames and `git status` (the index written anew); several names read or listed, some not there
WALK_WORDS = ["notes", "import", "return", "usage", "Initial", "sample", "pytest", "hook", "HEAD", "'def '", "main"]
WALK_TEMPLATES = [
    "find .", "find . -type f", "find . -maxdepth 2", "find . -type d", "find . -name '{g}'", "grep -rn {w} .",
    "grep -rl {w} .", "grep -rni {w} .", "grep -rn {w} . 2>/dev/null", "grep -rn {w} . | wc -l",
    "grep -rnw {w} . | sort", "grep -rn {w}", "grep -rho {w} .", "grep -rn '{w}\\|{w2}' .", "grep -rnE '{w}|{w2}' .",
    "grep -rl -e {w} -e {w2} .", "grep -rnwi '{w}\\|{w2}' . | wc -l", "git status", "git status --short",
    "grep -rn '{w}.*' .", "grep -rnE '{w}[a-z_]*' .", "grep -rc {w} .", "grep -rli '{w}.*s' .",
    "grep -rno '{w}[a-z]*' . 2>/dev/null", "touch {n}", "echo {w} > {n}", "mkdir -p {n}", "mv {n} {n2}", "rm -rf {n}",
    "cp {n} {n2}", "cat {n} {n2}", "cat {n} {n2} 2>/dev/null", "head -2 {n} {n2}", "wc -l {n} {n2}", "ls -l {n} {n2}",
    "ls -ld {n} {n2}", "ls -l {n}", "git diff", "git log --oneline", "cd {n}", "cd ..", "ls -lS", "ls -lSr {n}",
    "ls -lar {n}", "grep -rn {w} {n}", "grep -rc '{w}.*' {n}",
]
# `--templates gitreads`: git's reads agents add options to (`git show` forms, `git remote`, who commits
# as `git config` says) between edits, commits, branches and remotes; patterns that match nothing;
# a command's output into a file
GITREAD_TEMPLATES = [
    "git show", "git show --stat", "git show --oneline --stat", "git show -s", "git show -s --format='%h %s'",
    "git show --name-only", "git show --name-status HEAD", "git show --pretty=oneline -s", "git show --numstat",
    "git show --shortstat", "git show --format=%s --stat", "git show --pretty=format:%an -s", "git show {b} --stat",
    "git show $(git rev-parse --short HEAD) -s", "git show -p --oneline", "git log --stat -1", "git log -p -1",
    "git remote", "git remote -v", "git remote add {r} {u}", "git remote remove {r}", "git remote get-url {r}",
    "git remote rm {r}", "git remote add -f {r} {u}", "git config remote.{r}.url {u}",
    "git config user.name", "git config user.name {p}", "git config --global user.name {p}",
    "git config --global user.email {p}@b.c", "git config user.email {p}@y.z", "git config --get user.email",
    "git config --local user.name", "git config --global user.name",
    "echo {w} >> {n}", "git add -A", "git commit -qm {m}", "git commit -qam {m}",
    "git -c user.name=a -c user.email=a@b.c commit -qam {m}", "git log --oneline", "git log -1 --format='%an %ae'",
    "git diff --stat", "git checkout -b {b}", "git checkout {b}", "wc -l *.{x}", "cat *.{x}", "head -3 *.{x} *.md",
    "rm *.{x}", "rm -f *.{x}", "grep {w} *.{x}", "grep -rn {w} . | head -{k}", "cd {n}", "cd ..", "touch {n}",
    # output into a file (intofile.py), read back
    "ls > {n}", "ls -l > {n}", "grep -n {w} {n2} > {n}", "sort {n2} > {n}", "git log --oneline > {n}",
    "cat {n2} >> {n}", "grep -rn {w} . > {n}", "wc -l {n2} > {n}", "find . -name '*.{x}' > {n}", "seq 1 {k} >> {n}",
    "head -{k} {n2} | sort > {n}", "git show --stat > {n}", "cat {n}", "wc -c {n}",
]

# `--templates ignores`: a project's .gitignore files (gitignore.py): patterns of every kind written into the
# top one and a folder's own, files made where they match or not, then `git status`, `git add` (everything,
# a folder, a path that is ignored), commits, `git ls-files` and `git clean`
IGNORE_PATTERNS = ["*.log", "build/", "/build", "!keep.log", "**/gen/", "docs/_build", "*.o", "src/*.py", "#x", "\\#x",
                   "*.py[co]", "logs/**/b", "lo?s", "node_modules", "*.LOG", "/*.txt", "gen", "!src/gen/", "tmp*/",
                   "b", "**/x.o", "*~", "out/*", "!out/keep"]
IGNORE_FOLDERS = ["build", "build/sub", "logs", "logs/a/b", "src/gen", "docs/_build", "out", "tmp1", "src"]
IGNORE_FILES = ["a.log", "keep.log", "x.o", "n.txt", "m.pyc", "b", "#x", "f~", "keep", "x.LOG", "new.py"]
IGNORE_FILES_AT = [".gitignore", "src/.gitignore", "logs/.gitignore"]
IGNORE_TEMPLATES = [
    "echo '{p}' >> {i}", "echo '{p}' >> .gitignore", "printf '{p}\\n{p2}\\n' > {i}",
    "printf '{p}\\n{p2}\\n' >> .gitignore",
    "mkdir -p {d} && touch {d}/{f}", "mkdir -p {d} && touch {d}/{f} {d}/{f2}", "touch {f}", "echo x > {f2}",
    "mkdir -p {d}", "git status -s", "git status", "git status --porcelain", "git status -s", "git status",
    "git add -A", "git add .", "git add {f}", "git add {d}", "git add {d}/{f}", "git add {d} {f2}",
    "git -c user.name=a -c user.email=a@b.c commit -qm {m}", "git commit -qm {m}", "git ls-files", "git log --oneline",
    "rm -rf {d}", "rm -f {i}", "cd {d}", "cd ..", "cat {i}", "git show --stat", "git diff --cached --stat",
    "git clean -n", "git clean -nd", "git clean -fd", "git clean -f", "git clean -fdq", "cd {d} && git clean -nd",
    "git clean -nx", "git clean -ndx", "git clean -fdx", "git clean -fx",
]

# `--templates env`: a command's own environment (envprefix.py): `NAME=VALUE cmd` and `env NAME=VALUE cmd` of
# variables no program reads, ones some do (LANG, TZ, POSIXLY_CORRECT, CDPATH), and Python's (PYTHONPATH,
# PYTHONDONTWRITEBYTECODE, PYTHONUNBUFFERED), before listings, reads, git, python3 runs (into files too)
ENV_VARIABLES = ["PAGER=cat", "GIT_PAGER=cat", "NO_COLOR=1", "FOO=bar", "X=2", "LANG=C", "LC_ALL=C", "PYTHONPATH=src",
                 "PYTHONPATH=src:tests", "PYTHONPATH=.", "PYTHONPATH=nope", "PYTHONDONTWRITEBYTECODE=1",
                 "PYTHONUNBUFFERED=1", "TZ=UTC", "CDPATH=/", "POSIXLY_CORRECT=1", "TERM=dumb", "CI=true", "A='a b'",
                 "B=\"$HOME\"", "E=", "PYTHONPATH=$PWD/src"]
ENV_COMMANDS = ["ls", "ls src", "ls -a src", "cat README.md", "git log --oneline", "git status -s", "git status",
                "echo $X", "echo \"[$FOO]\"", "python3 -c 'import notes; print(notes.add([], 1))'",
                "python3 -c 'import src.notes as n; print(n.add([1], 2))'", "python3 -c 'print(1); 1/0'",
                "python3 -c 'import os; print(os.environ.get(\"FOO\"))'", "python3 run.py", "python3 src/notes.py",
                "touch {n}", "mkdir -p {n}", "sort README.md", "wc -l README.md", "grep -rn add src", "du -s src",
                "printenv FOO", "env | grep -c FOO", "pwd", "cd src", "cat nope", "ls {n}", "cat {n}"]
ENV_TEMPLATES = [
    "{v} {c}", "{v} {c}", "{v} {v2} {c}", "env {v} {c}", "{v} {c} > {n}", "{v} {c} >> {n}", "{c} > {n}", "cat {n}",
    "export {v}", "unset {u}", "{v} {c} | head -3", "{v} {c} && ls", "{c}", "ls", "git status -s", "ls src",
    "printf 'import notes\\nprint(notes.add([], 5))\\n' > run.py",
    "printf 'from src.notes import add\\nprint(add([], 6))\\n' > run.py", "cd src", "cd ..", "cd ~/notes-app",
    "rm -rf src/__pycache__", "git add -A && git -c user.name=a -c user.email=a@b.c commit -qm {n}",
]

# `--templates pywrites`: Python that writes files (pyfiles.py), as agents edit a project with it: one-liners
# that write, append and rewrite (`s = open(p).read(); open(p, "w").write(s.replace(a, b))`), programs fed
# by a here-document (`python3 - <<'EOF'`), scripts, `print(…, file=f)`, then reads, listings and git
PYW_FILES = ["README.md", "out.txt", "src/notes.py", "new/x.txt", "d/y.txt", "tests/test_notes.py", "nope/z.txt"]
PYW_WORDS = ["notes", "add", "x", "return", "def", "NOTES", "é", "a b"]
PYW_TEMPLATES = [
    "python3 -c \"open('{n}', 'w').write('{w}\\n')\"", "python3 -c \"open('{n}', 'a').write('{w}\\n')\"",
    "python3 -c \"s = open('{n}').read(); open('{n}', 'w').write(s.replace('{w}', '{w2}'))\"",
    "python3 - <<'EOF'\np = '{n}'\ns = open(p).read()\nwith open(p, 'w') as f:\n"
    "    f.write(s.upper())\nprint(len(s))\nEOF",
    "python3 - <<'EOF'\nwith open('{n}', 'w') as f:\n    for i in range({k}):\n        print(i, '{w}', file=f)\nEOF",
    "python3 <<'EOF'\nf = open('{n}', 'a')\nf.writelines(['{w}\\n', '{w2}\\n'])\nf.close()\n"
    "print(open('{n}').read())\nEOF",
    "python3 -c \"open('{n}', 'w').write('x'); print(open('{n2}').read()[:3])\"",
    "printf 'import sys\\nopen(sys.argv[0] + \".out\", \"w\").write(\"{w}\")\\nprint(\"ok\")\\n' > w.py",
    "python3 w.py",
    "cat w.py.out", "python3 w.py > run.txt", "cat run.txt", "cat {n}", "cat {n2}", "ls", "ls src", "ls {d}",
    "git status --short", "git diff --stat", "git diff", "wc -l {n}", "mkdir -p {d}", "rm -f {n}", "cd {d}",
    "cd ~/notes-app", "git add -A && git -c user.name=a -c user.email=a@b.c commit -qm x",
    "python3 -c 'import src.notes as m; print(m.add([], 1))'", "python3 - <<'EOF'\nprint(1/0)\nEOF",
]

# `--templates pytools`: Python that does not compile (pysyntax.py) run as a one-liner, a script, a program fed
# by a here-document and through `python3 -m py_compile`, and `python3 -m json.tool` (pyjson.py) on files and
# pipes of JSON and of what is not JSON, with its options; a program that writes and then fails, `python3 -m`
# of the project's module, json.load, os.getenv; then listings and git
PYT_FILES = ["bad.py", "ok.py", "ind.py", "src/notes.py", "d.json", "e.json", "README.md", "nope.py", "src",
             "requirements.txt", "q/x.py"]
PYT_SOURCES = ["def f(:", "def f():\\n    return 1", "if True:\\n  x = 1\\n y = 2", "print('a'", "x = [1, 2",
               "for i in range(3)\\n    print(i)", "class A:\\npass", "return 1", "print(\\t1)", "x = 1 +",
               "import os\\nprint(os.sep)", "def f():\\n\\treturn 1\\n        pass", "s = '''open",
               "*a = 1", "f'{1 +}'", 'x = "\\\\d"']
PYT_JSON = ['{"a": 1, "b": [1, 2]}', '[1, 2', '{"z": "é", "a": null}', '', '{"a": 1,}', '"x" 1', '[]',
            '{"k": {"n": [true]}}', 'NaN', '{"a": 1e400}']
PYT_OPTIONS = ["", "--sort-keys", "--indent 2", "--compact", "--tab", "--no-indent", "--no-ensure-ascii",
               "--sort-keys --indent 1", "--json-lines", "--indent 0", "--sort", "--compact --tab"]
PYT_TEMPLATES = [
    "printf '{src}\\n' > {py}", "printf '{src}\\n' > {py}", "python3 {py}", "python3 {py} a b", "python3 ./{py}",
    "python3 -c \"{src1}\"", "python3 -c '{src2}'", "python3 - <<'EOF'\n{body}\nEOF", "python3 <<'EOF'\n{body}\nEOF",
    "python3 -m py_compile {py}", "python3 -m py_compile {py} {py2}", "python3 -m py_compile -q {py}",
    "python3 -m py_compile {py} && echo ok", "python3 {py} || echo failed",
    "echo '{j}' > {js}", "echo '{j}' > {js}", "python3 -m json.tool {o} {js}", "cat {js} | python3 -m json.tool {o}",
    "python3 -m json.tool {o} < {js}", "echo '{j}' | python3 -m json.tool {o}", "python3 -m json.tool {js} | head -{k}",
    "python3 -m json.tool {js} > out.json", "cat out.json", "python3 -m json.tool {js} | wc -l",
    "python3 -m json.tool {n}", "ls", "ls src", "git status --short", "rm -rf src/__pycache__", "mkdir -p q",
    "python3 -c \"open('w.txt', 'a').write('x\\n'); print([][{k}])\"", "cat w.txt", "python3 -m src.notes",
    "python3 -c \"import json; print(json.load(open('{js}')))\"",
    "X={k} python3 -c 'import os; print(os.getenv(\"X\"))'",
]

# `--templates names`: variables no line set (`echo $VIRTUAL_ENV`), set every way bash sets one
# (`printf -v`, `read`, `${X:=…}`, `let`, a nameref, a function, `eval`, `set -a`), sourced from a file
# (`source .env`), and read by programs (`printenv`, `os.environ`)
NAME_SET = ["X", "F", "DEBUG", "CI", "SEC", "VIRTUAL_ENV", "PYTHONPATH", "REPLY"]
NAME_READ = NAME_SET + ["HOME", "OPTIND", "SHLVL", "LANG", "NOPE", "X1"]
NAME_TEMPLATES = [
    "echo ${r}", "echo \"[${r}]\"", "echo \"${{{r}}}x\"", "printenv {r}", "printenv {r}; echo $?",
    "[ -z \"${r}\" ] && echo unset || echo set", "{v}={w}", "export {v}={w}", "unset {v}", "export {v}",
    "printf -v {v} %s {w}", "read {v} < {n}", ": ${{{v}:={w}}}", "read -r {v} {v2} < {n}",
    "for {v} in {w} {w2}; do :; done",
    "printf '{v}={w}\\n' > .env", "printf 'export {v}={w}\\n' > .env", "source .env", ". ./.env",
    "python3 -c \"import os; print(os.environ.get('{r}'))\"", "env | grep -c {r}", "declare -n R={v}; R={w}",
    "f() {{ {v}={w}; }}; f", "eval \"{v}={w}\"", "set -a; {v}={w}; set +a", "{v}={w} printenv {v}", "which python3",
    "ls", "cat {n}", "echo $REPLY", "let {v}=3", "(( {v} = 4 ))", "echo $(( {v} + 1 ))", "echo ${r} ${r2}",
    "cd src; echo ${r}", "cd ~/notes-app", "{v}={w}; echo ${v}", "unset {v}; echo \"<${v}>\"",
]

# `--templates scripts`: scripts written (a here-document, a shebang or none) and run every way: made
# executable and run by path, by bash or sh, with arguments, sourced, and code given to `bash -c`;
# their folder, variables, `exit`, `set -e`, and what they write, read back after them
SCRIPT_BODIES = ["echo {w}", "ls", "ls src", "mkdir -p {d}", "echo {w} > {n}", "cat {n}", "cd src", "pwd",
                 "wc -l README.md", "X={w}", "echo $X", "export Y={w}", "echo \"[$Y]\"", "cat nope",
                 "grep -c def src/notes.py", "exit {k}", "set -e", "set -euo pipefail",
                 "for f in *.md; do echo $f; done",
                 "if [ -f {n} ]; then echo yes; fi", "echo $1", "rm -f {n}", "touch {n}", "false", "true", "ls {d}"]
SCRIPT_TEMPLATES = [
    *["cat > {s} <<'EOF'\n{h}{b1}\n{b2}\n{b3}\nEOF", "cat > {s} <<'EOF'\n{h}{b1}\n{b2}\nEOF"] * 3, "chmod +x {s}",
    "./{s}", "bash {s}", "sh {s}", "bash {s} a", "source {s}", ". ./{s}", "bash -c '{b1}'", "sh -c '{b1}; {b2}'",
    "bash {s}; echo $?", "./{s} && echo ok", "echo $?", "ls", "cat {n}", "pwd", "echo $X $Y", "git status --short",
    "cd ~/notes-app", "ls {d}", "mkdir -p sub", "X=1; export Y=2",
]

# `--templates params`: what bash works out of a variable (`${F%.py}`, `${F##*/}`, `${X:-d}`, `${#F}`,
# `${F//o/0}`, `${F:0:3}`) in words, paths and assignments; touch, mkdir and rmdir of several paths,
# some refused; the shell's folder removed from under it; a `$` in single quotes written to a file; a
# script made executable beside git
PARAM_FORMS = ["${F}", "${F%.py}", "${F%%/*}", "${F#*/}", "${F##*/}", "${F%/*}", "${F:-d}", "${N:-x}", "${N-y}",
               "${F:+set}", "${#F}", "${F//o/0}", "${F/s/S}", "${F:0:3}", "${F:4}", "${U:-none}", "${F%.*}.bak"]
PARAM_TEMPLATES = [
    "F={n}", "F={n}; N=", "N={w}", "unset N", "echo {p} {p2}", "echo \"{p}\"", "ls {p}", "cat {p}", "cp {n} {p}",
    "mkdir -p {p}", "touch {p}", "P={p}; echo $P", "echo {w} > {p}", "wc -l {p}",
    "for f in src/*.py tests/*.py; do echo ${{f##*/}} ${{f%.py}}; done",
    "touch {n} {n2}", "mkdir {n} {n2}", "mkdir -p {n} {n2}", "rmdir {n} {n2}", "rmdir {n}", "rm -f {n}",
    "mkdir -p {n}/a && touch {n}/a/f", "ls", "ls {n}", "mkdir q && cd q", "rmdir ../q", "cd ~/notes-app", "pwd",
    "ls -a", "printf 'echo $HOME\\n' > {s}", "echo 'cost: $5' > {s}", "cat {s}", "bash {s}", "chmod +x {s}",
    "git status --short", "git add {s}", "git diff --stat",
]
# `--templates gitmodes`: git and a file's x bit (mode 100755): scripts made executable or not, staged,
# committed, diffed, shown, put back (checkout, restore, reset, stash), removed and moved with git; and
# the commits before the last shown (`git show HEAD~1`, `git log --stat -3`, `--date=short`)
GITMODE_NAMES = ["run.sh", "README.md", "src/notes.py", "tests/test_notes.py", "bin/go", "new.sh", "bin", "src"]
GITMODE_MODES = ["+x", "-x", "755", "644", "u+x", "g+x", "a-x", "700", "600", "-R +x", "-R a-x"]
GITMODE_TEMPLATES = [
    "chmod {x} {n}", "chmod {x} {n} {n2}", "chmod {x} {n}", "printf '#!/bin/sh\\necho {w}\\n' > {n}",
    "echo {w} >> {n}", "mkdir -p bin && printf 'echo go\\n' > bin/go && chmod +x bin/go", "git add {n}", "git add -A",
    "git add .", "git status", "git status --short", "git diff", "git diff --cached", "git diff --stat",
    "git diff HEAD", "git diff --name-status", "git diff --cached --numstat", "git diff {n}",
    "git -c user.name=a -c user.email=a@b.c commit -qm {m}", "git -c user.name=a -c user.email=a@b.c commit -m {m}",
    "git -c user.name=a -c user.email=a@b.c commit -am {m}", "git log --oneline", "git show --stat", "git show",
    "git diff HEAD~1 --stat", "git checkout -- {n}", "git restore {n}", "git restore --staged {n}", "git reset",
    "git reset -q {n}", "git reset --hard -q", "git rm -q {n}", "git rm -q --cached {n}", "git mv {n} {n2}",
    "git stash", "git stash pop", "ls -l", "ls -l {n}", "cp {n} {n2}", "mv {n} {n2}", "rm -f {n}", "./{n}",
    "git show HEAD~1 --stat", "git show HEAD^", "git log --stat -3", "git log -p -2", "git log --name-status",
    "git log --oneline --stat", "git log --format=%s --name-only", "git log --date=short --format='%h %ad %s'",
]
# `--templates tests`: bash's `[[ … ]]`: patterns (quoted and not), strings and numbers compared, file
# tests, `!`, `&&`, `||` and parentheses inside it, in lists, `if` and loops, beside files made and removed
TEST_CONDITIONS = ["$F == {g}", "$F == \"{g}\"", "$F != {g}", "-f {n}", "-d {n}", "-e {n}", "-s {n}", "! -f {n}",
                   "-z $E", "-n $F", "$F", "$E", "$N -gt {k}", "$N -le {k}", "$N -eq {k}", "$F < {w}", "$F > {w}",
                   "{w} == {w2}", "$F == *.[a-z]*", "$F == [[:upper:]]*", "$F = ?*", "-f \"$F\"", "-d $F/..",
                   "$F == *\\ *", "$N -ne 0 && -n $F"]
TEST_TEMPLATES = [
    "F={n}", "N={k}; E=", "F='{w}'", "[[ {c} ]] && echo yes || echo no", "[[ {c} && {c2} ]]; echo $?",
    "[[ {c} || ( {c2} ) ]] && echo y", "if [[ {c} ]]; then echo a; elif [[ {c2} ]]; then echo b; else echo c; fi",
    "[[ {c} ]]", "for f in {n} {n2}; do [[ -f $f ]] && echo \"$f\"; done", "touch {n}", "mkdir -p {n}", "rm -rf {n}",
    "ls", "echo x > {n}", ": > {n}", "[ {c} ] && echo single", "cd {n}", "cd ~/notes-app", "ls {n}",
    "[[ {c} ]] && touch made || mkdir -p made2", "[[ ! {c} ]]; echo $?",
]
# `--templates loops`: `while` and `until` turn by turn, counters worked out in each turn (`$((i+1))`)
# after an assignment on the same line, files and folders made in a loop, `for` over words and files
LOOP_TEMPLATES = [
    "i=0; while [[ $i -lt {k} ]]; do echo $i; i=$((i+1)); done",
    "N={k}; until [ $N -le 0 ]; do N=$((N-1)); done; echo $N",
    "until [ -e {n} ]; do touch {n}; echo made; done; ls", "while [ -f {n} ]; do rm {n}; done; echo $?",
    "X=1; for f in {n} {n2}; do X=$((X+1)); echo $X; done", "S=0; for i in 1 2 {k}; do S=$((S+i)); done; echo $S",
    "c=0; while [ $c -lt {k} ]; do mkdir -p d$c && cd d$c; c=$((c+1)); done; pwd", "cd ~/notes-app",
    "for f in src/* tests/*; do [[ -f $f ]] && echo \"$f\"; done", "while read -r l; do echo \"[$l]\"; done < {n}",
    "i=0; while [ $i -lt {k} ]; do echo $i > f$i.txt; i=$((i+1)); done", "ls", "cat {n}", "echo x > {n}",
    "n=0; for f in *; do n=$((n+1)); done; echo $n", "k={k}; while [ $k -gt 0 ]; do k=$((k-2)); done; echo $k",
    "for d in a b; do mkdir -p $d; touch $d/{w}; done; ls a b", "rm -rf a b d0 f*.txt",
]
TEMPLATE_SETS = {"files": (TEMPLATES, NAMES, WORDS), "repo": (REPO_TEMPLATES, REPO_NAMES, REPO_WORDS),
                 "python": (PY_TEMPLATES, [], []), "subst": (SUB_TEMPLATES, SUB_NAMES, SUB_WORDS),
                 "vars": (VAR_TEMPLATES, SUB_NAMES, SUB_WORDS), "lines": (LINE_TEMPLATES, SUB_NAMES, SUB_WORDS),
                 "pipes": (PIPE_TEMPLATES, PIPE_NAMES, SUB_WORDS), "streams": (STREAM_TEMPLATES, PIPE_NAMES, SUB_WORDS),
                 "braces": (BRACE_TEMPLATES, BRACE_NAMES, REPO_WORDS),
                 "modes": (MODE_TEMPLATES, MODE_NAMES, REPO_WORDS), "walk": (WALK_TEMPLATES, REPO_NAMES, WALK_WORDS),
                 "gitreads": (GITREAD_TEMPLATES, REPO_NAMES, WALK_WORDS),
                 "ignores": (IGNORE_TEMPLATES, IGNORE_FILES, IGNORE_PATTERNS),
                 "env": (ENV_TEMPLATES, ["o.txt", "out.log", "new/x.txt", "src/m.txt", "d"], ENV_VARIABLES),
                 "pywrites": (PYW_TEMPLATES, PYW_FILES, PYW_WORDS), "pytools": (PYT_TEMPLATES, PYT_FILES, ["x"]),
                 "names": (NAME_TEMPLATES, ["README.md", ".env", "requirements.txt"], ["1", "a", "src", "x y"]),
                 "scripts": (SCRIPT_TEMPLATES, ["o.txt", "log.txt", "src/m.txt"], ["hi", "a b", "x"]),
                 "params": (PARAM_TEMPLATES, ["src/notes.py", "README.md", "a", "a/b", "nope/x", "src", "q", "x.txt"],
                            ["hi", "a b", "x"]),
                 "gitmodes": (GITMODE_TEMPLATES, GITMODE_NAMES, ["hi", "ok"]),
                 "loops": (LOOP_TEMPLATES, ["README.md", "x.txt", "src/notes.py", "new.txt", "nope"], ["w", "v.txt"]),
                 "tests": (TEST_TEMPLATES, ["README.md", "src", "src/notes.py", "nope", "x.txt", "a b", "e.txt"],
                           ["abc", "notes", "a*", "Z", "10", "9", "b c"])}


def command(rng: random.Random, templates: str = "files") -> str:
    forms, names, words = TEMPLATE_SETS[templates]
    form = rng.choice(forms)
    if templates == "python":
        return form.format(**_py_fields(rng))
    fields = dict(w=rng.choice(words), w2=rng.choice(words), n=rng.choice(names), n2=rng.choice(names),
                  n3=rng.choice(names), g=rng.choice(["*.py", "*.md", "n*", "*"]))
    if templates == "repo":  # (drawn only here, so a seed of the first set still types what it always typed)
        fields.update(m=rng.choice(MESSAGES), b=rng.choice(BRANCHES), k=rng.randint(1, 3), k2=rng.randint(1, 5))
    if templates == "vars":
        fields.update(k=rng.randint(0, 4))
    if templates == "gitreads":
        fields.update(m=rng.choice(MESSAGES), b=rng.choice(BRANCHES), k=rng.randint(1, 4),
                      r=rng.choice(["origin", "upstream", "Up-1.x", "fork"]),
                      u=rng.choice(["https://github.com/me/notes.git", "git@host:me/n.git", "../up", "/srv/x.git"]),
                      p=rng.choice(["Alice", "bob", "Dev"]), x=rng.choice(["py", "txt", "log", "md", "cfg"]))
    if templates == "ignores":
        fields.update(p=rng.choice(words), p2=rng.choice(words), d=rng.choice(IGNORE_FOLDERS), f=rng.choice(names),
                      f2=rng.choice(names), i=rng.choice(IGNORE_FILES_AT), m=rng.choice(MESSAGES))
    if templates == "pywrites":
        fields.update(k=rng.randint(0, 3), d=rng.choice(["d", "new", "src", "tests"]))
    if templates == "pytools":
        src = rng.choice(PYT_SOURCES)
        fields.update(src=src, py=rng.choice(["bad.py", "ok.py", "ind.py", "q/x.py", "nope.py", "src/notes.py"]),
                      py2=rng.choice(["bad.py", "ok.py", "src/notes.py", "src"]),
                      body=src.replace("\\n", "\n").replace("\\t", "\t"),
                      src1=rng.choice(["def f(:", "print(1", "x = (1,\n2", "return 1", "1 +", "print(2)"]),
                      src2=rng.choice(["def f(:", "if 1:\n1", "*a = 1", "x = [", "print(\"ok\")"]),
                      j=rng.choice(PYT_JSON), js=rng.choice(["d.json", "e.json", "README.md"]),
                      o=rng.choice(PYT_OPTIONS), k=rng.randint(1, 4))
    if templates == "loops":
        fields.update(k=rng.randint(0, 5))
    if templates == "tests":
        fields.update(k=rng.randint(0, 12), g=rng.choice(["*.md", "src*", "?*", "[a-z]*", "*/*", "R*", "x"]))
        fields.update(c=rng.choice(TEST_CONDITIONS).format(**fields), c2=rng.choice(TEST_CONDITIONS).format(**fields))
    if templates == "params":
        fields.update(p=rng.choice(PARAM_FORMS), p2=rng.choice(PARAM_FORMS), s=rng.choice(["h.sh", "run.sh"]))
    if templates == "scripts":
        fields.update(s=rng.choice(["run.sh", "b.sh", "sub/x.sh"]), d=rng.choice(["build", "out/x"]),
                      k=rng.randint(0, 3),
                      h=rng.choice(["", "#!/bin/bash\n", "#!/bin/sh\n", "#!/usr/bin/env bash\n"]))
        fields.update({b: rng.choice(SCRIPT_BODIES).format(**fields) for b in ("b1", "b2", "b3")})
    if templates == "names":
        fields.update(v=rng.choice(NAME_SET), v2=rng.choice(NAME_SET), r=rng.choice(NAME_READ),
                      r2=rng.choice(NAME_READ))
    if templates == "env":
        fields.update(v=rng.choice(words), v2=rng.choice(words), u=rng.choice(words).split("=")[0])
        fields.update(c=rng.choice(ENV_COMMANDS).format(**fields))
    if templates == "subst":
        inner = dict(fields, k=rng.randint(-3, 12))
        fields.update(c=rng.choice(SUB_INNER).format(**inner), a=rng.choice(SUB_ARITH).format(**inner), k=inner["k"])
    if templates == "lines":
        fields.update(p=rng.choice(LINE_PROGRAMS), p2=rng.choice(LINE_PROGRAMS), v=rng.choice(LINE_VARIABLES),
                      v2=rng.choice(LINE_VARIABLES), k=rng.randint(1, 3))
        fields.update(c=rng.choice(LINE_INNER).format(**fields))
    if templates == "streams":
        fields.update(k=rng.randint(1, 3), p=rng.choice(LINE_PROGRAMS))
        fields.update(c=rng.choice(STREAM_INNER).format(**fields))
    if templates == "modes":
        fields.update(m=rng.choice(MODES))
    if templates == "gitmodes":
        fields.update(x=rng.choice(GITMODE_MODES), m=rng.choice(MESSAGES))
    if templates == "pipes":
        fields.update(k=rng.randint(1, 3))
        fields.update(b=rng.choice(PIPE_BODIES).format(**fields), b2=rng.choice(PIPE_BODIES).format(**fields))
    return form.format(**fields)


async def run(seed: int, sequences: int, length: int, templates: str = "files") -> tuple[int, int, list[dict]]:
    """(steps, answered from the state, the answers that differ from the sandbox)."""
    from domains.terminal.rules.output import next_cwd

    rng = random.Random(seed)
    world = load_world("devbox")
    steps = answered = 0
    wrong: list[dict] = []
    for k in range(sequences):
        commands = [command(rng, templates) for _ in range(length)]
        with tempfile.TemporaryDirectory() as tmp:
            sim, store = _simulator(world, Path(tmp))
            ep = await sim.episode(f"fuzz{k}")
            box = TerminalSandbox(world, SandboxLimits())
            try:
                for i, line in enumerate(commands):
                    state = ep.state.setdefault("terminal", {})
                    cwd = state.get("cwd", box.home)
                    asked = time.time()
                    said = sim.state_answer(ep, "run_command", {"command": line})
                    real = box.run(line, cwd, env=state.get("env") or {}, session=True)
                    box.status = real.exit_code & 255  # (`$?` in the next command, as the shadow mode keeps it)
                    steps += 1
                    if said is not None:
                        answered += 1
                        code = (said.structured or {}).get("exit_code", 0)
                        text = said.text
                        if text != real.output and _MADE.search(real.output):  # (a commit's id: the second git ran)
                            text = _at_the_second_git_ran(sim, ep, line, real.output, asked) or text
                        # (`ls -l` shows the minute each ran: the state's and the sandbox's may part by one)
                        if (_STAMP.sub("<time>", text), code) != (_STAMP.sub("<time>", real.output), real.exit_code):
                            wrong.append({"sequence": k, "step": i, "command": line, "cwd": cwd, "before": commands[:i],
                                          "state": (text, code), "real": (real.output, real.exit_code)})
                        elif real.cwd and (said.structured or {}).get("cwd", real.cwd) != real.cwd:  # (the folder)
                            wrong.append({"sequence": k, "step": i, "command": line, "cwd": cwd, "before": commands[:i],
                                          "state": ("folder", said.structured["cwd"]), "real": ("folder", real.cwd)})
                    # (the folder after it: where a failed `cd` leaves the shell, not where its text suggests)
                    after = real.cwd or next_cwd(line, cwd, state.get("home", box.home), real.exit_code)
                    before = json.loads(json.dumps(state))
                    sim.observe(ep, "run_command", {"command": line}, real.output,
                                {"exit_code": real.exit_code, "cwd": after})
                    _pin_a_quiet_commit(sim, ep, box, before, line, real, asked)
            finally:
                box.close()
                store.close()
    return steps, answered, wrong


def run_in_process(seed: int, sequences: int, length: int, templates: str = "files") -> tuple[int, int, list[dict]]:
    """`run`, for a process of its own (the tests run seeds side by side, one per core)."""
    return asyncio.run(run(seed, sequences, length, templates))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--sequences", type=int, default=25)
    parser.add_argument("--length", type=int, default=12)
    parser.add_argument("--templates", choices=sorted(TEMPLATE_SETS), default="files",
                        help="files: file commands with hostile names and quoting; repo: a developer's work in "
                             "the world's repository (git, sed, pipes); python: the project's modules written, "
                             "imported and called; subst: command substitution and arithmetic; vars: variables "
                             "and for loops; lines: elif, backquotes, which and printenv, sort keys, du, blame; "
                             "pipes: loops and conditions piped on, ls of several names, loops in loops; streams: "
                             "2>/dev/null, 2>&1, >/dev/null and the like, alone, in lists and heading pipes; braces: "
                             "{a,b}, {1..3} and {,.bak} as agents scaffold, grep's --exclude-dir and -I, find's -prune")
    args = parser.parse_args()
    steps, answered, wrong = asyncio.run(run(args.seed, args.sequences, args.length, args.templates))
    print(f"{steps} random steps in the sandbox: the state answered {answered}, "
          f"{answered - len(wrong)} exactly as the sandbox ({len(wrong)} differ)")
    for w in wrong:
        print(f"  DIFFERS sequence {w['sequence']} step {w['step']}: {w['command']!r} in {w['cwd']}\n"
              f"    after: {w['before']}\n    state: {w['state']!r}\n    real:  {w['real']!r}")


if __name__ == "__main__":
    main()
