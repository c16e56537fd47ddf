"""Answers from the explicit state, proven against reality: every command the terminal state would
answer (`--state full`) is also run in the real bubblewrap sandbox, and the two are compared byte
for byte. The state then advances by the real output (as in eval), so each sequence is checked
step by step. Also replays the recorded real episodes in fixtures/real: each step the state would
answer, against what was recorded.

    .venv/bin/python benchmarks/state_vs_real.py [--world devbox] [--show-agreeing]

Prints the agreement per command (the first word: the rule family), and every mismatch. The target
is 100%: a wrong state answer is confidently wrong every time, and where a rule cannot be exact it
must leave the step to the model. No engine is needed (nothing goes to a model here). The desktop's
rules (os) are checked the same way over the recorded real desktop episodes (scripts/record_desktop.py).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from mcp_world.dialects import get_dialect  # noqa: E402
from mcp_world.engines import EnginePool  # noqa: E402
from mcp_world.importing import read_records  # noqa: E402
from mcp_world.executors.sandbox import SandboxLimits, TerminalSandbox  # noqa: E402
from mcp_world.paths import FIXTURES_DIR  # noqa: E402
from mcp_world.rules import Call  # noqa: E402
from mcp_world.simulator import Limits, Simulator  # noqa: E402
from mcp_world.store import Store  # noqa: E402
from mcp_world.world import World, load_world  # noqa: E402

# Write-then-read sequences of the kinds agents type, each from a fresh copy of the world.
SEQUENCES: list[list[str]] = [
    ["mkdir -p a/b/c", "ls a", "ls a/b", "ls", "ls a/b/c", "cd a/b", "pwd", "ls"],
    ["mkdir sub", "cd sub", "git init -q", "touch a.txt", "git add a.txt",
     "git -c user.email=u@x -c user.name=u commit -qm first", "git log --oneline", "git branch", "cd ..",
     "git log --oneline", "git branch"],
    ["rm -rf src", "ls", "cd tests", "ls", "cat test_notes.py"],
    ["touch new.py", "ls", "mv new.py src/", "ls src", "ls"],
    ["cd src", "pwd", "cd ..", "pwd", "cd ~", "pwd", "ls"],
    ["echo a > f.txt", "echo b >> f.txt", "cat f.txt", "cp f.txt g.txt", "cat g.txt", "rm f.txt", "ls", "cat f.txt"],
    ["mkdir docs", "cd docs", "pwd", "ls", "touch x.md", "ls", "cd ..", "ls docs"],
    ["grep -n -A2 def src/notes.py", "grep -C1 -n import tests/test_notes.py", "grep -w add src/notes.py",
     "cat src/notes.py | grep -B1 return", "grep -o note README.md | wc -l", "grep -m1 -n def src/notes.py",
     "grep -in NOTES README.md", "grep -x 'def add(notes, text):' src/notes.py", "grep -vc return src/notes.py",
     "grep -n -e -m src/notes.py", "grep -A1 -B1 -n text src/notes.py | head -4", "grep -H -n def src/notes.py",
     "grep -Fn '(notes' src/notes.py", "grep -3 append src/notes.py"],
    ["awk '{print $1}' src/notes.py", "awk 'END {print NR}' README.md",
     "wc -l src/notes.py tests/test_notes.py | awk '{print $1}'", "ls | awk '{print toupper($0)}'",
     "awk -F'(' '{print $1}' src/notes.py", "cat README.md | awk 'length > 10'", "awk '{n += NF} END {print n}' README.md",
     "awk 'NR==1 {print; exit}' README.md", "awk '!seen[$1]++' src/notes.py", "awk '{printf \"%3d %s\\n\", NR, $0}' src/notes.py",
     "awk 'BEGIN {print 7/2, 2^8, int(-7/2), substr(\"hello\", 2, 3)}'", "awk '{ s += length($0) } END { print s }' README.md",
     "awk -F: '{print NF}' README.md | sort -n | uniq -c", "awk '$1 == \"def\" {print NR\": \"$2}' src/notes.py",
     "awk '{print > \"o.txt\"}' README.md", "cat o.txt", "ls"],
    ["echo '$HOME' > a.txt", "cat a.txt", "echo -e 'x\\ty' > b.txt", "cat b.txt", "printf '100%%\\n' > c.txt",
     "cat c.txt", "echo ~ > d.txt", "cat d.txt", "echo $$ > e.txt", "cat e.txt", "printf 'a\\nb\\n' > g.txt",
     "cat g.txt", "echo -n hi > h.txt", "cat h.txt", "echo $HOME/x > i.txt", "cat i.txt", "echo $# $@", "echo $?",
     "echo a{b,c} > j.txt", "cat j.txt", "printf 'x%sy' > k.txt", "cat k.txt", "echo \"a  b\" >> h.txt", "cat h.txt"],
    ["touch x.txt y.txt .h.txt", "rm *.txt", "ls -a", "rm -r s*", "ls", "rm t?sts/*.py", "ls tests",
     "echo a#b $# $@ # c", "mkdir -p d/{a,b}", "ls d", "ls", "cp README.md tests/*", "ls tests", "touch $RANDOM", "ls"],
    ["cd nope", "pwd", "cd README.md", "cd src/nope/deeper", "cd nope; pwd", "cd nope && ls || echo failed",
     "cd src/notes.py/x", "cd ~/nope", "cd nope/", "rm -r tests", "cd tests", "echo 'a\nb'; cd nope", "cd src", "pwd"],
    ["git status", "git log --oneline", "git branch", "git checkout -b feat", "git branch", "echo x > n.txt",
     "git add n.txt", "git -c user.email=u@x -c user.name=u commit -m 'add n'", "git log --oneline"],
    ["cat README.md", "cat requirements.txt", "ls -a", "ls src", "ls tests", "whoami", "hostname", "echo $HOME",
     "cd /", "pwd"],
    ["cd /home", "ls", "cd /tmp", "pwd", "ls /"],
    ["git config --global user.email a@b.c && git config --global user.name 'A B'", "echo x > n.txt",
     "git add -A && git commit -qm 'add n'", "git log --oneline", "echo y >> n.txt", "git commit -q -a -m more",
     "git log -2", "git rev-parse --short HEAD", "git commit -qm nothing", "git log -1 --format='%H %P'",
     "mkdir d && echo z > d/z.txt && git add d && git commit --quiet -m 'add d'", "git log --format='%h %s'",
     "git branch -v"],
    ["rm README.md nope", "ls", "mkdir a b && touch a/x", "rmdir a b", "ls", "cp a/x nope/ requirements.txt src/",
     "ls src", "mv requirements.txt nope src/", "ls; ls src", "touch x nope/y", "ls", "mkdir c nope/d", "ls",
     "cat tests/test_notes.py", "touch /tmp/q", "rm -rf /tmp", "ls /tmp", "ls /", "ls -a /", "touch /x", "mkdir /x",
     "cd / && ls", "rm -rf /home", "ls /home", "ls", "pwd"],
    ["grep -n def src/notes.py tests/test_notes.py", "grep def src/*.py tests/*.py", "grep -n add */*.py",
     "grep -c def src/notes.py tests/test_notes.py README.md", "grep -l add src/notes.py tests/test_notes.py README.md",
     "grep -h add src/notes.py tests/test_notes.py", "grep -C1 add src/notes.py tests/test_notes.py",
     "grep -lv zzz README.md requirements.txt", "cd src && grep def ../tests/*.py notes.py",
     "grep -n def notes.py ../tests/*.py | head -1", "mkdir -p a/b && echo q > a/b/x.py && grep -c q a/b/*.py ../README.md",
     "rm -rf *.txt ../src/", "cd .. && ls", "grep -rn add ."],
    ["cat > fix.py <<'EOF'\nimport pathlib\np = pathlib.Path('src') / 'notes.py'\n"
     "p.write_text(p.read_text().replace('notes', 'items'))\nEOF", "python3 fix.py", "cat src/notes.py", "cat README.md",
     "python3 fix.py > log.txt", "cat src/notes.py", "cat log.txt",
     "python3 -c \"open('README.md', 'a').write('more\\n')\"", "cat README.md", "cat tests/test_notes.py",
     "printf 'for f in *.md; do echo x >> $f; done\\n' > up.sh", "bash up.sh", "cat README.md", "cat requirements.txt"],
    ["echo 'x = 1' >> src/notes.py", "python3 -c \"open('out.txt', 'w').write('x')\"", "git diff --stat", "git diff",
     "git status --short", "git diff src/notes.py", "echo y >> README.md", "git diff --stat", "git add src/notes.py",
     "git diff --cached --stat", "git diff --stat", "python3 -c \"import subprocess; subprocess.run(['git', 'add', "
     "'README.md'])\"", "git diff --cached --stat", "git add -A", "git -c user.name=a -c user.email=a@b commit -qm x",
     "git status", "git diff", "git log --oneline"],
    ["head -2 src/notes.py tests/test_notes.py", "tail -n 1 src/*.py tests/*.py README.md", "tail -1 src/*.py README.md",
     "head -n 1 README.md requirements.txt | wc -l", "printf 'a' > n.txt && head n.txt README.md",
     "tail -n 2 n.txt src/notes.py", "head -3 src/notes.py nope"],
    ["echo a > f b", "cat f", "echo x >> f y z", "cat f", "printf %d > g 7", "cat g", "mkdir my file.txt my file.txt", "ls", "rm tests/test_notes.py tests/test_notes.py", "ls tests",
     "rm ~/.. src/*.py", "cat src/notes.py", "awk '{print $1}' src/notes.py", "ls src", "mkdir q && rm -r q q/x", "ls",
     "touch a b && rm a b", "ls"],
    ["whoami", "id -un", "hostname", "hostname -s", "uname -n", "echo $USER@$HOSTNAME:$PWD $LOGNAME",
     "export HOSTNAME=box USER=other", "echo $HOSTNAME $USER", "hostname", "whoami"],
    ["echo hi > /tmp/x.txt", "cat /tmp/x.txt", "cd /tmp", "ls", "pwd", "cd /usr/bin", "pwd", "cd", "pwd"],
    ["mkdir -p deep/er/est", "touch deep/er/f.txt", "ls deep/er", "rm -r deep/er", "ls deep", "ls deep/er"],
    ["printf 'one\\ntwo\\n' > t.txt", "cat t.txt", "wc -l t.txt", "head -1 t.txt", "cat nope.txt", "ls nope"],
    ["export FOO=bar", "echo $FOO", "unset FOO", "echo $FOO", "cd src && pwd", "cd .. ; ls"],
    ["mv README.md README.old", "ls", "cat README.old", "cat README.md", "cp requirements.txt src/", "ls src"],
    ["git log --oneline -1", "git diff --stat", "git branch -a", "ls -la", "git show --stat HEAD", "git rev-parse HEAD",
     "ls -la", "git status --short", "ls -la"],
    ["git log -1 --format=%an", "git log --format='%h %s'", "git log --pretty=oneline", "git rev-parse HEAD",
     "git config --global user.email u@x.org && git config --global user.name 'U Ser'",
     "echo x > n.txt && git add -A && git commit -m 'add n'", "git log --format='%h|%an|%ae|%s|%p|%P'",
     "git log --pretty=format:'%H %ad %ai %aI %as %at %aD' -n 1", "git log -2 --format=%d%n%b%B%x09.",
     "git rev-parse --short HEAD", "cd src", "git rev-parse --show-toplevel --show-prefix --show-cdup --git-dir",
     "git rev-parse --is-inside-work-tree --verify HEAD", "cd ..", "git rev-parse --git-dir --show-prefix",
     "git branch feat", "git log -1 --format=%d", "git log --format=%cn%ce%cd%ct%ci%cI%cs%n"],
    ["python3 -c 'print(2 ** 16)'", "python3 -c 'import os; print(os.getcwd())'", "cd src",
     "python3 -c 'import os; print(os.getcwd(), os.path.abspath(\"../x/./y\"), os.path.splitext(\"a.tar.gz\"))'",
     "python3 -c 'print(len(open(\"notes.py\").read().splitlines()))'", "cd ..",
     "python3 -c 'import json; print(json.dumps({\"ok\": True, \"n\": [1, 2.5, None]}, indent=2, sort_keys=True))'",
     "python3 -c 'import sys; print(sys.argv, sys.platform)' one two",
     "python3 -c \"print(sum(x*x for x in range(10)), [c.upper() for c in 'abc'], f'{3.14159:.2f}|{42:>5}|{7!r:<4}|')\"",
     "python3 -c 'import math; print(math.sqrt(2), math.pi, math.factorial(20), 7 / 2, 7 // 2, -7 % 3, 2 ** -1)'",
     "python3 -c 'for i in range(3): print(i, end=\" \")'",
     "python3 -c 'd = {\"b\": 1, \"a\": 2}; print(d, d.keys(), sorted(d.items()), d.get(\"c\", 0), range(2, 9, 3))'",
     "python3 -c 'x = [3, 1, 2]; print(sorted(x, key=abs), max(x), min(x), list(reversed(x)), x[::-1], x[1:], 1 < 2 < 3)'",
     "python3 -c 'print(\"a,b,,c\".split(\",\"), \"  pad \".strip(), \"x\".center(7, \"*\"), \"Title case\".title())'",
     "python3 -c 'print(0.1 + 0.2, 1e16, 1.5e-7, float(\"inf\"), round(2.675, 2), divmod(17, 5), hex(255), True + True)'",
     "python3 -c 'print(\"é\", \"naïve\".upper(), len(\"日本\"), [\"é\"], ascii(\"é\"))'",
     "python3 -c 'lines = open(\"README.md\").readlines(); print(len(lines), lines[0].rstrip())'",
     "python3 -c 'print(\"\\t\".join([\"a\", \"b\"]), repr(\"q\\n\"), [1, (2,), {}])'",
     'python3 -c "import json; print(json.dumps({\\"n\\": len(open(\\"src/notes.py\\").readlines())}))"',
     'python3 -c "print(1 + \\\n2, \\"\\\\n\\".join([\\"a\\", \\"b\\"]))"'],
    ["touch os.py sys.py types.py && python3 -c 'import os, sys; print(os.getcwd(), sys.argv)'",
     "python3 -c 'print(2 ** 16, [1, 2] * 2)'", "rm os.py sys.py types.py", "ls"],
    ["python3 -m py_compile src/notes.py && echo ok", "ls src", "ls -la src", "ls src/__pycache__", "git status --short",
     "git status", "find . -name '*.pyc'", "cd tests", "python3 -m py_compile test_notes.py", "git status --short",
     "find .. -type f -not -path '../.git/*'", "cd ..", "echo x > new.bin && tar cf a.tar new.bin",
     "git status --porcelain", "printf 'def f(:\\n' > bad.py", "python3 -m py_compile bad.py"],
    ["git init -q sub && git status --short | head -3", "ls", "mkdir -p d && ls | wc -l", "ls d", "cd src && ls | wc -l",
     "pwd", "ls", "cd .. && touch z && git status --short | head -5", "ls", "cd tests && cat test_notes.py | grep -c x",
     "cd .. && mkdir e && ls -1 | head -3 && ls e"],
    ["sort src/notes.py | uniq | wc -l", "sort src/notes.py | uniq -c | sort -rn | head -2", "sort -r README.md",
     "uniq README.md", "uniq -c README.md", "wc src/notes.py", "cat src/notes.py | wc", "wc src/notes.py tests/test_notes.py",
     "wc -lw src/notes.py", "wc -cl README.md requirements.txt", "head -c 10 src/notes.py", "tail -c 7 src/notes.py",
     "tail -n +2 src/notes.py", "tail +2 src/notes.py", "cat README.md | head -c 12", "head -c 0 README.md",
     "printf '10 b\\n9 a\\n-1 z\\nx\\n1.5 q\\n 2 s\\n.5 t\\n' > n.txt", "sort -n n.txt", "sort -rn n.txt",
     "sort -nr n.txt | head -3", "sort -u README.md", "cat n.txt README.md | sort -u | wc -l", "wc -w n.txt README.md"],
    ["git ls-files", "git show HEAD:requirements.txt", "git branch -v", "git ls-files | wc -l",
     "echo x >> README.md && echo y > new.txt && rm requirements.txt", "git show HEAD:README.md",
     "git show HEAD:requirements.txt | head -1", "git ls-files", "git add new.txt", "git ls-files", "cd src",
     "git ls-files", "git show HEAD:notes.py", "git show HEAD:src/notes.py", "cd ..", "git ls-files | grep -c src"],
    ["[ ! -d .git ] || echo repo", "[ -d .git ] && echo repo", "test -f src/notes.py && echo yes", "test -d nope",
     "[ -f src ] && echo file || echo notfile", "[[ -s README.md ]] && echo nonempty", "ls nope || echo none",
     "[ -e /tmp ] && echo t", "touch e.txt && [ -s e.txt ] || echo empty", "rm e.txt || echo failed", "ls",
     "[ -e e.txt ] && echo still || echo gone", "cd src && [ -f notes.py ] && echo here", "[ ! -e notes.py ]",
     "cd .. && [ -d tests ] && ls tests || echo none", "mkdir -p d || echo fail", "ls d"],
    ["basename a/b/ .py", "basename -s .py src/notes.py tests/x.py", "basename -a a/b c/d", "basename /", "dirname a/b/",
     "dirname x/ ''", "seq 3", "seq 0", "seq 3 1", "seq 1 2 7", "seq -2 0", "realpath src/../README.md tests/x",
     "realpath nope/x", "realpath .", "realpath src/", "realpath nope/../src", "realpath src/../tests/../nope",
     "basename $PWD", "mkdir -p a/b && realpath a/b/../b/c", "cd a && realpath ../README.md b"],
    ["sort -rn README.md | head -2 && wc src/notes.py", "git ls-files | wc -l; realpath tests/../src", "ls && cd src",
     "pwd", "cd .. && echo a && ls | wc -l", "python3 x.py && ls", "cat requirements.txt && ls src && echo done",
     "git status && git log --oneline", "cat nope && echo no; echo yes", "mkdir q && cd q && pwd; cd .. && ls"],
    ["git checkout -b dev", "git branch", "git checkout main", "git branch", "git log --oneline -1",
     "git log --oneline -n1"],
    ["rm -rf ~/notes-app", "ls", "pwd", "cd ~", "ls", "cd notes-app"],
    ["cd src", "rm -rf ../src", "ls", "pwd", "cd ..", "ls", "rm -rf ~", "pwd", "ls", "cd /tmp", "pwd", "ls"],
    ["echo more >> README.md", "git switch -c topic", "git branch", "git checkout -b topic", "git switch -c main",
     "git checkout -b fix/typo", "git branch", "cd /tmp", "git checkout -b elsewhere"],
    ["mkdir -p x/y && cd x/y && pwd", "ls ..", "cd ../..", "ls x", "rmdir x/y", "ls x"],
    # `git status` of a clean tree: as made, in a subfolder, on a new branch, after committing everything
    ["cd src && git status", "cd ..", "mkdir empty", "git status", "git checkout -b clean", "git status",
     "echo x >> README.md", "git status", "git add -A", "git status",
     "git -c user.email=u@x -c user.name=u commit -qm all", "git status", "cat README.md", "git status",
     "touch src/new.py", "git add src/new.py", "git -c user.email=u@x -c user.name=u commit -qm one", "git status",
     "echo y > /tmp/t.txt", "git status", "python3 -c 'print(1)'", "git status"],
    # `git status` of a changed tree, in each of its forms: modified, removed, new, staged, a new folder
    ["echo x >> README.md", "git status", "git status --short", "rm requirements.txt", "git status -s",
     "touch new.txt", "mkdir -p lib/deep", "touch lib/deep/a.py", "git status", "cd src", "git status --short",
     "git status", "git status --porcelain", "git status -sb", "cd ..", "git add README.md", "git status",
     "git status --short", "echo y >> README.md", "git status -s", "git add -A", "git status",
     "git -c user.name=u -c user.email=u@x commit -qm all", "git status", "git status --short", "git log --oneline"],
    ["echo '# end' >> src/notes.py", "git add .", "git status --short", "echo '# more' >> src/notes.py",
     "git -c user.name=u -c user.email=u@x commit -qm one", "git status", "git -c user.name=u -c user.email=u@x commit -qam two",
     "git status", "cat README.md", "git rev-parse --abbrev-ref HEAD", "git branch --show-current", "git tag v0.1",
     "git tag", "git describe --tags", "git tag v0.1", "git checkout -b next", "git branch --show-current",
     "git status", "git checkout main", "git status"],
    ["cp README.md src/copy.md", "mv requirements.txt reqs.txt", "git status", "rm -r tests", "git status --short",
     "git add tests", "git status", "git add src/copy.md reqs.txt", "git status --short",
     "git -c user.name=u -c user.email=u@x commit -qm moves", "git status"],
    ["cat README.md", "printf 'x\\n' > README.md", "git status --short", "git -c user.name=u -c user.email=u@x commit -qm none",
     "mkdir fresh && cd fresh && echo a > a.txt && mkdir sub && echo b > sub/b.txt && cd ..", "git status --short",
     "git add fresh/sub", "git status", "git status --porcelain"],
    # `git diff`: lines added at the end, a file removed, emptied or written anew with no line in
    # common; staged, unstaged, against HEAD
    ["echo '# more' >> tests/test_notes.py", "git diff", "echo tail >> README.md", "git diff --stat", "rm src/notes.py",
     "git diff", "git diff --name-only", "git diff --name-status", "cd tests", "git diff", "git diff test_notes.py",
     "git diff -- ../README.md", "cd ..", "git add README.md", "git diff", "git diff --cached", "git diff --staged --stat",
     "echo again >> README.md", "git diff HEAD", "git diff", "printf 'new\\n' > requirements.txt", "git diff requirements.txt",
     "printf 'pytest==8.3.2\\nother\\n' > requirements.txt", "git diff requirements.txt", ": > README.md", "git diff --stat",
     "touch n.txt && git add n.txt", "git diff --cached", "echo x > n.txt", "git diff", "git diff --cached --name-status",
     "sed -i s/def/DEF/ tests/test_notes.py", "git diff"],
    # python one-liners that only read keep what the state knows; a module named as the standard
    # library's in the folder is imported (and compiled) by them, so after one nothing is kept
    ["python3 -c 'print(2 ** 16)'", "ls", "git status", "python3 -c 'import os; print(os.getcwd())'", "ls",
     "python3 -c 'import json, sys; print(json.dumps(sys.argv))'", "git status --short", "python3 missing.py",
     "python3 src/missing.py", "python3 --version", "ls", "touch types.py", "python3 -c 'import ast'", "ls",
     "git status --short", "cd src", "python3 -c 'print(len(open(\"notes.py\").read().splitlines()))'", "ls",
     "python3 -c 'import os; os.mkdir(\"made\")'", "ls"],
    # `ls -R` of folders known whole, and `ls PATTERN` the shell expands in a folder known whole
    ["ls -R", "ls -R src", "ls -R | head -3", "ls *.md", "ls *.txt *.md", "ls nothing*", "ls t*", "ls *s*",
     "mkdir -p a/b/c && touch a/b/f.txt a/.h", "ls -R", "ls -R a", "cd src", "ls *.py", "ls ?otes.py", "ls -R ..",
     "ls -R | wc -l", "cat ../README.md notes.py", "cat notes.py notes.py", "printf 'a' > x.txt", "cat x.txt notes.py",
     "cat missing.txt notes.py"],
    # two letters swapped: no such command, until the episode defines one of that name
    ["sl", "gti status", "cta README.md", "pyhton3 -V", "gerp x README.md", "sl -l", "alias sl=ls", "sl",
     "gti() { git \"$@\"; }", "gti status", "cta README.md; ls", "rmdir .", "grep -c '' README.md",
     "grep -n '^$' README.md", "grep -c '^' src/notes.py"],
    # mistakes GNU tools refuse the same way every time, and `ls -a` of a folder the state knows whole
    ["mkdir src", "mkdir .", "mkdir new", "mkdir new", "head -n README.md", "tail -n notes.py src/notes.py",
     "ls -a src", "cd src", "ls -a", "ls -a ..", "ls -a ~", "ls -a tests", "touch tests/.hidden", "ls -a tests"],
    ["head -3 README.md", "tail -n 2 src/notes.py", "wc -l src/notes.py", "grep -n def src/notes.py",
     "grep -c import tests/test_notes.py", "cat -n requirements.txt", "sed -n '2,3p' README.md",
     "cat README.md | grep notes | wc -l", "ls | sort -r | head -2", "ls | wc -l", "grep -v x requirements.txt | tr a-z A-Z",
     "grep nothing_here README.md", "sort README.md | uniq -c | head -3", "grep -i NOTES README.md", "head -n1 src/notes.py",
     "echo '# end' >> src/notes.py", "tail -1 src/notes.py", "python3 -c 'import src.notes'", "ls src",
     "nl src/notes.py", "nl README.md | head -3", "printf 'a\\n\\n  \\nb\\n' | nl", "cat README.md | nl | tail -2",
     # bash's printf (its format reused for the arguments left), echo and printf into a pipe
     "printf '%s=%d\\n' x 1 y 2", "printf '%-6s|%5s|\\n' ab cde f", "printf '%05d|%-4d|%3d\\n' 42 -3 5 -17",
     "printf 'no conversion\\n' extra", "printf '%s %s\\n' a", "printf '%d\\n'", "printf '100%%\\n'",
     "printf '%s\\n' b a b | sort | uniq -c", "echo hello | wc -c", "echo 'a b c' | tr a-z A-Z", "printf 'x\\ny\\n' | nl",
     "echo one two | awk '{print $2}'", "printf 'a,b\\n' | cut -d, -f2"],
    # find and grep -r where the file system's order cannot show: one path or file at most, or a
    # count or sort after them; in a repository only for names .git cannot hold; and cut
    ["find . -name 'notes.py'", "find . -name '*.py' | wc -l", "find . -name '*.py' | sort", "find src -name '*.py'",
     "find . -name config", "find . -type f | wc -l", "find . -iname 'README.MD'", "find . -maxdepth 1 -name '*.md'",
     "find nope -name x", "find . -name '*.sample' | wc -l", "find . -name '*.txt' -type f", "find -name 'test_*.py'",
     "grep -rn def --include='*.py' .", "grep -rn import --include='*.py' . | wc -l", "grep -rl notes --include='*.py' .",
     "grep -rn def .", "grep -rn x nope/", "grep -rw def --include='*.py' src", "grep -rn note src | cut -d: -f1,2",
     "grep -n def src/notes.py | cut -d: -f1", "cut -c1-5 README.md", "cut -d' ' -f1 README.md", "cut -d: -f2- README.md",
     "grep -rhio NOTES --include='*.py' . | sort | uniq -c", "grep -rc def --include='*.py' .",
     "mkdir -p /tmp/w/a && echo hi > /tmp/w/a/f.txt", "find /tmp/w", "find /tmp/w -type f", "find /tmp/w -type d | wc -l",
     "grep -r hi /tmp/w", "grep -rl hi /tmp/w", "grep -rn nothing /tmp/w", "cd /tmp/w", "grep -rn hi", "find -name f.txt",
     "find . -name 'f.*'", "find . -mindepth 1 -type d", "find a", "find . -maxdepth 0", "grep -rw h . | wc -l",
     "echo 'hi there' > a/g.txt", "grep -rn hi . | sort", "grep -rn hi . | wc -l", "grep -rl hi . | wc -l",
     "find . -type f | sort", "find . -name '*.txt' | wc -c", "rm a/f.txt", "find . -type f", "grep -r hi .",
     # grep -r of regular expressions and of the options one file's grep takes (search._grep_r_pattern)
     "mkdir -p b && printf 'def f(x):\\n    return x * 2\\nclass K:\\n    pass\\n' > b/m.py && "
     "printf 'import os\\nVALUE = 3\\n' > b/n.py", "grep -rn '^def \\|^class ' b", "grep -rE 'x|VALUE' b",
     "grep -rc 'x' .", "grep -rvn 'pass' b", "grep -rl 'os$' .", "grep -rnx 'VALUE = [0-9]' b",
     "grep -ro '[A-Z][a-z]*' b | sort", "grep -rhi 'RETURN' .", "grep -rw 'x' b", "grep -rn 'nothing.*here' b"],
    # a literal in-place substitution: the file's new contents are known (and so is what git sees)
    ["sed -i 's/notes/memos/' README.md", "cat README.md", "sed -i 's/def/DEF/g' src/notes.py", "cat src/notes.py",
     "git status --short", "git diff --stat", "sed -i 's/x/y/' missing.txt", "sed -i 's/a.b/c/' README.md",
     "sed -i 's/memos/notes/g' README.md", "git status --short", "printf 'a-b a-b\\na-b' > t.txt",
     "sed -i 's/a-b/A_B/' t.txt", "cat t.txt", "grep -c A_B t.txt", "sed -i 's/ /_/g' t.txt", "cat t.txt"],
    # counting several files (named, expanded by the shell, or handed over by xargs), and diff
    ["wc -l README.md requirements.txt", "wc -c README.md src/notes.py", "cd src", "wc -l *.py", "wc -w *.py",
     "cd ..", "wc -l *.md", "wc -l *.txt *.md", "wc -l nothing*", "find . -name '*.py' | xargs wc -l | tail -1",
     "find . -name '*.py' | xargs wc -l", "find . -name 'notes.py' | xargs wc -l", "find . -name '*.py' | xargs wc -c | tail -n 1",
     "find . -name '*.py' | xargs wc -l | head -1", "find . -name '*.md' | xargs wc -w",
     "cp README.md copy.txt", "diff README.md copy.txt", "diff -q README.md copy.txt", "diff -q README.md requirements.txt",
     "diff README.md missing.txt", "diff missing.txt README.md", "diff m1 m2", "diff README.md requirements.txt",
     "echo more >> copy.txt", "diff -u README.md copy.txt", "diff --brief copy.txt README.md", "diff src tests"],
    # `ls -a` at a repository's top: .git, and what the state knows
    ["ls -a", "mkdir -p sub && cd sub && git init -q", "ls -a", "touch a.txt", "ls -a", "cd ..", "ls -a sub",
     "ls -A", "ls -A sub", "ls -a src tests", "ls -A tests src sub", "ls -a sub src",
     # a pattern in a folder the line names (folders._glob)
     "ls src/*.py", "ls tests/test_*", "ls src/*.txt", "mkdir -p src/deep && touch src/deep/a.py src/b.py", "ls src/*",
     "wc -l src/*.py", "ls ./src/*.py", "cd src && ls ../tests/*.py"],
    # a subcommand git does not have: its message and suggestions, the same every time
    ["git chekout main", "git stauts", "git stat", "git dif", "git ad .", "git xyz", "git st", "git co -b x",
     "git cherrypick HEAD", "git Status", "git status", "git config alias.co checkout", "git co main"],
    # here-documents: how agents write files (the text literal with a quoted delimiter, or with
    # nothing in it the shell would expand); a script fed to python may write anything
    ["cat > src/util.py <<'EOF'\ndef slug(s):\n    return s.lower().replace(' ', '-')\nEOF", "cat src/util.py",
     "git status --short", "mkdir -p docs && cat > docs/a.md << 'EOF'\n# Docs\n\nText with $HOME kept.\nEOF",
     "cat docs/a.md", "ls docs", "tee b.txt <<EOF\nline one\nEOF", "cat b.txt", "cat <<EOF\nplain\ntext\nEOF",
     "cat >> README.md <<'EOF'\nmore\nEOF", "tail -2 README.md", "cat > t.sh <<-'EOF'\n\techo hi\n\tEOF", "cat t.sh",
     "find . -name '*.md'", "git diff --stat", "git status --short", "cat <<EOF > h.txt\nhome is $HOME\nEOF", "ls",
     "python3 - <<'EOF'\nopen('made.txt', 'w').write('x')\nEOF", "ls"],
    # long listings: sizes, links, pages and times as the sandbox's tmpfs home has them
    ["ls -la", "ls -l", "ls -lah", "ls -la src", "ls -l README.md", "mkdir -p docs/api && echo hello > docs/api/a.md",
     "ls -la docs", "ls -l docs/api", "cat > big.txt <<'EOF'\n" + "\n".join(["x" * 120] * 70) + "\nEOF", "ls -lh",
     "ls -l big.txt", "mv docs/api/a.md docs/b.md", "ls -la docs", "cp README.md r2.md", "ls -l", "rm r2.md",
     "ls -al", "touch README.md", "ls -l README.md", "ls -la ..", "git status --short", "ls -l", "ls -la"],
    # a commit where no one is configured to make it: git asks who first, even with nothing to commit
    ["git commit -m x", "echo more >> README.md", "git add -A && git commit -m 'more'", "git status --short",
     "git log --oneline", "git commit -am again", "git -c user.name=u commit -m x", "cd /tmp && git commit -m x"],
    # commits once an identity is configured: the id is made at the second git runs, the diffstat's
    # summary and the files made or removed are the state's
    ["git config --global user.email user@devbox.example", "git config --global user.name 'Dev User'",
     "cat > src/util.py <<'EOF'\ndef slug(s):\n    return s.lower()\nEOF", "git add -A", "git commit -m 'Add slug'",
     "git log --oneline", "echo '# more' >> README.md", "git commit -am 'More notes'", "git log --oneline",
     "git status", "rm requirements.txt", "git commit -am 'Drop requirements'",
     "sed -i 's/notes/items/' src/notes.py", "git commit -am 'Rename notes to items'", "git log --oneline -3",
     "printf 'a\nb\nc\n' > tests/t.txt && git add tests/t.txt", "git commit -m 'Add t'",
     "printf 'a\nB\nc\nd\n' > tests/t.txt", "git commit -am 'Change t'", "git -c user.name=Other commit -am none",
     "git log --oneline", "git log", "git log -2", "git log -n 1", "git log --oneline | head -3",
     "git log --oneline | wc -l", "git log | grep -c commit", "echo more >> README.md && touch z.txt",
     "git add -A && git commit -m 'Add z'", "git add README.md; git commit -m 'Nothing more'", "git log --oneline -2"],
    # a pattern left unquoted is expanded by bash in the shell's folder first (nothing matched: as written)
    ["find . -name *.py", "find . -name *.md", "grep -rn def --include=*.py .", "touch x.py", "find . -name *.py",
     "grep -rl add --include=*.py . | wc -l", "ls *.md", "find src -name *.py"],
    # a module rewritten whole (lines in common: the diffstat counts a shortest diff), python -m of a
    # module that is not installed (nothing ran), several folders listed long
    ["cat > src/notes.py <<'EOF'\ndef add(notes, text):\n    notes.append(text)\n    return notes\n\n\n"
     "def remove(notes, text):\n    notes.remove(text)\n    return notes\nEOF", "git diff --stat",
     "python3 -m pytest -q", "git status --short", "ls", "sed -i 's/notes/items/' src/notes.py", "git diff --stat",
     "printf 'a\\nb\\n' > new.txt && git add new.txt", "git diff HEAD --stat", "git diff --cached --stat",
     "git diff --name-status", "ls -l src tests", "ls -la tests src"],
    # numbered lines, several folders listed, every branch
    ["nl -ba src/notes.py", "nl -ba README.md", "ls src tests", "ls tests src", "ls -1 src",
     "git branch -a", "git checkout -b feat", "git branch --list", "mkdir -p e && ls e src", "ls src nope"],
    # find with tests negated (`-not -path './.git/*'`: how agents list a repository's own files)
    ["find . -type d -not -path './.git*'", "find . -type f -not -path './.git/*'",
     "find . -not -path '*/.git/*' -type f -name '*.py'", "find . -type f ! -name '*.md' -not -path './.git/*'",
     "mkdir -p lib/x && touch lib/x/a.py", "find . -type f -not -path './.git/*'", "find . -name '*.py' -not -name 'test_*'",
     "find . -path './src/*'", "find src -type f -not -name '*.pyc'", "find . -not -path './.git/*' | wc -l"],
    # find and grep -r walk folders in the order the sandbox's tmpfs home hands them out: newest
    # first; a rename (mv, sed -i) makes an entry the newest, a write in place (>, cp onto) keeps it
    ["touch b.py a.py", "mkdir pkg", "touch pkg/z.py pkg/y.py", "find . -name '*.py'", "mv a.py c.py",
     "find . -name '*.py'", "echo 'def x(): pass' > b.py", "find . -type f -name '*.py'",
     "sed -i 's/notes/items/' src/notes.py", "find . -name '*.py'", "grep -rn def --include='*.py' .",
     "grep -rl def --include='*.py' .", "rm b.py", "touch b.py", "find . -name '*.py' | head -3", "cp c.py d.py",
     "cp c.py b.py", "find . -name '*.py'", "sed -i 's/a/b/' b.py", "find . -name '*.py' | head -3", "find src tests -name '*.py'", "grep -rn add --include='*.py' src tests",
     "mkdir -p x/y && touch x/y/k.py x/j.py", "find x", "find . -name '*.py' | xargs wc -l"],
    # mistakes: a path that is not there, a folder where a file is wanted, a file on the way
    ["rm nope", "rm -f nope", "rm src", "rm nope/x", "rm README.md/x", "cp nope x", "cp src x", "mv nope x",
     "cp README.md nope/", "mv README.md nope/x", "cp README.md src/notes.py/x", "head nope", "tail -n 2 nope",
     "head src", "wc -l nope", "grep x nope", "grep -n def src", "grep -c def src", "sort nope", "sort src",
     "uniq nope", "nl nope", "cat README.md/", "touch nope/x", "mkdir a/b", "mkdir README.md/x", "rmdir nope",
     "rmdir README.md", "chmod +x nope", "stat nope", "du -sh nope", "rm -r .", "ls", "rm README.md nope src", "ls",
     "rm -rf ..", "head -3 ~/nope", "sed -i '2d' nope", "sed -i '1i x' requirements.txt", "cat requirements.txt",
     "sed -i '$d' requirements.txt", "cat requirements.txt", "ls"],
    # git show of the first commit: its header, then each file as added
    ["git show --stat", "git show", "git show --stat HEAD | head -8", "touch e.txt && git add e.txt", "git show HEAD --stat",
     "echo x >> README.md && rm requirements.txt", "git show", "git show HEAD | grep -c '^+'"],
    # what git removes, renames or brings back: not taken as still there
    ["git rm -q requirements.txt", "rm requirements.txt", "ls", "git mv tests/test_notes.py t.py", "cd tests/test_notes.py",
     "ls tests", "git stash -q", "ls", "cat t.py", "git stash pop -q", "git status --short", "ls"],
    # what .git holds after the world's commit (gitfiles.py): counted by find, added up by du
    ["du -sh .", "du -sk", "du -s src tests", "du -sh README.md", "find . -type f | wc -l", "find . -type d | wc -l",
     "find . | wc -l", "find . -name '*.sample' | wc -l", "find .git -maxdepth 1 -type f | sort", "git status",
     "find . -type f | wc -l", "cat > n.txt <<'EOF'\n" + "0123456789" * 500 + "\nEOF", "du -sh .", "du -sh n.txt",
     "cd src && du -sh .. && cd ..", "git log --oneline", "find . -type f | wc -l", "git add n.txt",
     "find . -type f | wc -l", "du -sh .", "find nope -type f | wc -l", "grep -r x nope | wc -l", "cd ..",
     "find .git | wc -l"],
    # a script that stops or ends before anything of it runs (pyscript.py): nothing written either
    ["mkdir -p pkg && printf '\"\"\"Doc.\"\"\"\\nfrom __future__ import annotations\\n\\nfrom ._core import (\\n    A,\\n)\\n' > pkg/m.py",
     "python3 pkg/m.py", "ls pkg", "cd pkg && python3 m.py", "ls", "printf '\"\"\"Only.\"\"\"\\n# c\\n' > d.py",
     "python3 d.py", "touch e.py && python3 e.py", "printf 'from . import (a, b)  # c\\n' > c.py", "python3 c.py",
     "printf 'from . import (a,  \\n  b)\\n' > l.py", "python3 l.py", "ls", "cd .. && git status --short",
     "printf '__version__ = \"1.0\"\\nB = C = (\"a\", [1, {2: None}])\\n' > v.py", "python3 v.py",
     "printf 'from __future__ import annotations\\nx: Foo = -1\\nfrom .m import y\\n' > w.py", "python3 w.py", "ls",
     "printf 'from __future__ import annotations\\nversion: str\\nversion_tuple: tuple[int | str, ...]\\n__version__ = version = \"1.0\"\\n' > _version.py",
     "python3 _version.py", "ls"],
    # quiet standard-library imports before a relative import (pyscript.py), and one that a module
    # beside the script stands in for
    ["mkdir pkg && printf 'import io\\nimport os, re\\nimport sys\\nfrom typing import Any, Self\\n\\nfrom ._core import X\\n' > pkg/a.py",
     "python3 pkg/a.py", "ls pkg", "cd pkg",
     "printf '\"\"\"Doc.\"\"\"\\nfrom __future__ import annotations\\n\\nimport re\\nfrom contextlib import suppress\\n"
     "TYPE_CHECKING = False\\nif TYPE_CHECKING:\\n    from .x import y\\ntry:\\n    from typing import Self\\n"
     "except ImportError:\\n    from typing_extensions import Self\\nfrom .api import Z  # c\\n' > b.py", "python3 b.py", "ls",
     "printf 'import typing\\nif typing.TYPE_CHECKING:\\n    import q\\nimport logging, json as j, os.path\\n' > c.py",
     "python3 c.py", "printf 'from typing import Nope\\nfrom . import a\\n' > d.py", "python3 d.py", "ls",
     "cd .. && mkdir q && printf 'import json\\nfrom . import a\\n' > q/m.py && touch q/re.py", "python3 q/m.py", "ls q", "python3 ./pkg/a.py",
     "python3 pkg/../pkg/a.py", "cd / && python3 nope.py"],
    # a file's syntax tree, as agents read a module's outline (pyeval.py's `ast`)
    ["python3 -c 'import ast, sys; print(len(ast.parse(open(\"src/notes.py\").read()).body))'",
     "python3 -c 'import ast; t = ast.parse(open(\"tests/test_notes.py\").read()); print([n.name for n in t.body if isinstance(n, ast.FunctionDef)])'",
     "python3 -c 'import ast; t = ast.parse(open(\"src/notes.py\").read()); print([type(n).__name__ for n in ast.walk(t)][:6], ast.get_docstring(t))'",
     "python3 -c 'import ast; print(ast.dump(ast.parse(\"x = 1\")))'",
     "python3 -c 'import ast; print(sum(isinstance(n, (ast.FunctionDef, ast.ClassDef)) for n in ast.walk(ast.parse(open(\"src/notes.py\").read()))))'",
     "python3 -c 'import ast; f = ast.parse(open(\"src/notes.py\").read()).body[0]; print(f.name, f.lineno, f.end_lineno, [a.arg for a in f.args.args])'",
     "ls", "python3 -c 'print(1); print(1/0)'", "python3 -c 'x = {}\nprint(x[\"k\"])'", "python3 -c 'print(int(\"x\"))'",
     "python3 -c 'print([1, 2][5])'", "python3 -c 'assert 1 == 2, [1, \"x\"]'", "ls"],
    # the project's own functions, imported and called (pyrun.py): module bodies walked, the
    # bytecode Python writes into __pycache__ beside each module, a script run as __main__
    ["python3 -c 'from src.notes import add; print(add([\"a\"], \"b\"))'", "ls src", "ls -a src/__pycache__",
     "git status --short", "python3 -c 'import src.notes as n; print(n.add([], 1), n.__name__)'", "ls -a src/__pycache__",
     "cat > calc.py <<'EOF'\nimport json\nfrom typing import List, Optional\n\nLIMIT = 10\n\n\n"
     "def total(xs: List[int], skip: Optional[int] = None) -> int:\n    s = 0\n    for x in xs:\n"
     "        if x == skip or x < 0:\n            continue\n        s += x\n    return s\n\n\n"
     "def fib(n):\n    return n if n < 2 else fib(n - 1) + fib(n - 2)\n\n\ndef table(n, *, sep=\"-\"):\n"
     "    rows = {}\n    i = 0\n    while True:\n        i += 1\n        if i > n:\n            break\n"
     "        rows.setdefault(i % 2, []).append(f\"{i}{sep}{fib(i)}\")\n    return rows\n\n\n"
     "if __name__ == \"__main__\":\n    print(\"main\", total([1, 2, -3], skip=2), table(4))\nEOF",
     "python3 calc.py", "ls", "python3 -c 'import calc; print(calc.total([1, -2, 3]), calc.fib(12), calc.LIMIT)'",
     "ls", "ls __pycache__", "python3 -c 'from calc import table; print(table(5, sep=\":\"))'",
     "printf 'from calc import total\\nfrom src import notes\\n\\nprint(notes.add([total([2, 3])], \"x\"))\\n' > use.py",
     "python3 use.py", "ls __pycache__ src/__pycache__", "mkdir pkg && printf 'from .core import twice\\n' > pkg/__init__.py",
     "printf 'def twice(x):\\n    return [x, x]\\n' > pkg/core.py", "python3 -c 'import pkg; print(pkg.twice(3))'",
     "ls pkg", "ls -a pkg/__pycache__", "python3 -c 'from pkg.core import twice; print(twice(\"ab\"))'", "git status --short",
     "git status", "rm -rf __pycache__", "python3 -c 'import calc'", "git status --short", "ls __pycache__",
     "python3 -c 'from calc import fib; assert fib(6) == 8; print(\"ok\")'",
     "python3 -c 'from calc import fib; print(fib(3)); assert fib(6) == 9, fib(6)'", "ls -a src/__pycache__ pkg/__pycache__",
     "python3 -c 'for i in range(3):\n    assert i < 2, f\"i={i}\"'", "ls",
     "cd /home && printf 'def f():\\n    return 1\\n' > run.py && python3 -c 'import run'", "ls /home"],
    # the project's classes (pyclass.py): instances made, changed and printed, properties, static and
    # class methods, super(), a dataclass's init, repr and ==; an instance without a repr is the model's
    ['cat > models.py <<\'EOF\'\nfrom dataclasses import dataclass\nfrom typing import Optional\n\n\nclass Node:\n    """A node."""\n    count = 0\n\n    def __init__(self, value, next=None):\n        self.value = value\n        self.next = next\n        Node.count += 1\n\n    def __repr__(self):\n        return f"Node({self.value!r})"\n\n\nclass Stack:\n    def __init__(self):\n        self.head = None\n        self.size = 0\n\n    def push(self, value):\n        self.head = Node(value, self.head)\n        self.size += 1\n        return self\n\n    def pop(self):\n        if self.head is None:\n            raise IndexError("empty")\n        node = self.head\n        self.head = node.next\n        self.size -= 1\n        return node.value\n\n    @property\n    def empty(self):\n        return self.head is None\n\n    @staticmethod\n    def kind():\n        return "stack"\n\n    @classmethod\n    def of(cls, *values):\n        return cls()\n\n    def __str__(self):\n        out = []\n        node = self.head\n        while node is not None:\n            out.append(str(node.value))\n            node = node.next\n        return "[" + ", ".join(out) + "]"\n\n\nclass Counted(Stack):\n    def __init__(self, label):\n        super().__init__()\n        self.label = label\n\n    def push(self, value):\n        super().push(value)\n        return self\n\n\n@dataclass\nclass Point:\n    x: int\n    y: int = 0\n    label: Optional[str] = None\n\n    def norm(self):\n        return abs(self.x) + abs(self.y)\nEOF',
     "python3 -c 'from models import Stack; s = Stack(); s.push(1).push(2); print(s, s.size, s.pop(), s, s.empty, Stack.kind())'",
     "python3 -c 'from models import Node; n = Node(3); print(n, repr(n), [n.value], Node.count, f\"{n}|{n!r}\")'",
     "python3 -c 'from models import Counted; c = Counted(\"x\"); c.push(5).push(6); print(c, c.label, c.size, isinstance(c, Counted), type(c).__name__)'",
     "python3 -c 'from models import Point; p = Point(3, -4); print(p, p.norm(), p == Point(3, -4), p == Point(1), Point(1, label=\"a\"))'",
     "python3 -c 'from models import Stack; print(Stack())'", "ls", "ls __pycache__", "git status --short",
     "printf 'from models import Point\\n\\n\\nclass Q(Point):\\n    pass\\n' > sub.py",
     "python3 -c 'from sub import Q, Point; print(Q(1), Q(1) == Q(1), Q(1) == Point(1), Q(1, y=2))'"],
    # tracebacks through the project's functions, methods and modules (pytraceback.py): the frames,
    # the lines and carets Python shows, a script's output before its traceback, what was compiled
    ["cat > stats.py <<'EOF'\nLIMITS = {\"low\": 0}\n\n\ndef mean(xs):\n    return sum(xs) / len(xs)\n\n\n"
     "def check(x, name=\"x\"):\n    assert x > LIMITS[\"low\"], f\"{name} too low: {x}\"\n    return x\n\n\n"
     "def label(d):\n    return d[\"name\"].title() + \" \u00e9t\u00e9 \" + d[\"n\"]\n\n\n"
     "class Account:\n    def __init__(self, owner, balance=0):\n        self.owner = owner\n        self.balance = balance\n\n"
     "    def withdraw(self, amount):\n        if amount > self.balance:\n            raise ValueError(f\"{self.owner} has only {self.balance}\")\n"
     "        self.balance -= amount\n        return self\n\n    @property\n    def share(self):\n        return self.balance // 0\n"
     "\n\ndef report(xs):\n    return check(mean(xs), \"mean\")\nEOF",
     "python3 -c 'from stats import mean; print(mean([]))'", "ls", "ls __pycache__",
     "python3 -c 'from stats import report; print(report([1, 2]), report([-1, -2]))'",
     "python3 -c 'from stats import label; print(label({\"name\": \"ada\", \"n\": 3}))'",
     "python3 -c 'from stats import label; print(label({}))'",
     "python3 -c 'from stats import Account; a = Account(\"ann\", 5); a.withdraw(2).withdraw(4)'",
     "python3 -c 'from stats import Account\nprint(Account(\"bo\").share)'",
     "printf 'from stats import Account, report\n\nprint(\"start\")\nacct = Account(\"cy\", 1)\nprint(acct.withdraw(1).balance)\n"
     "print(report([3, 1]))\nreport([0])\n' > run.py", "python3 run.py", "git status --short",
     "printf 'import stats\nTOTAL = stats.mean([])\n' > broken.py", "python3 -c 'import broken'", "ls __pycache__",
     "printf 'import broken\n' > outer.py && python3 outer.py", "python3 -c 'x = [1]; y = x; x += [2]; print(y, x)'",
     # try statements (pyexcept.py): handlers by class, `as e`, else, finally on every way out
     "cat > tr.py <<'EOF'\ndef parse(s):\n    try:\n        n = int(s)\n    except ValueError as e:\n        print(\"bad:\", e)\n"
     "        return -1\n    else:\n        print(\"ok\", n)\n    finally:\n        print(\"done\")\n    return n\n\n\n"
     "def loop(xs):\n    out = []\n    for x in xs:\n        try:\n            if x < 0:\n                continue\n"
     "            out.append(1 / x)\n        except ZeroDivisionError:\n            break\n        finally:\n"
     "            out.append(\"f\")\n    return out\n\n\ndef strict(x):\n    try:\n        return {\"a\": 1}[x]\n"
     "    except (IndexError, TypeError) as e:\n        return repr(e)\n    finally:\n        print(\"strict\", x)\nEOF",
     "python3 -c 'from tr import parse, loop; print(parse(\"3\"), parse(\"x\"), loop([1, -1, 2, 0, 5]))'",
     "python3 -c 'from tr import strict; print(strict([]), strict(\"a\")); strict(\"b\")'", "ls __pycache__",
     # the project's own exception classes, printf-style formatting, a file read in a `with`
     "cat > errs.py <<'EOF'\nclass AppError(Exception):\n    \"\"\"The app's.\"\"\"\n\n\nclass NotFound(AppError, ):\n    pass\n\n\n"
     "def find(d, k):\n    if k not in d:\n        raise NotFound(\"no %s in %d keys\" % (k, len(d)))\n    return d[k]\n\n\n"
     "def lines(path):\n    with open(path) as f:\n        return [line.rstrip() for line in f if line.strip()]\nEOF",
     "python3 -c 'from errs import find, AppError\ntry:\n    find({}, \"a\")\nexcept AppError as e:\n    print(\"caught\", repr(e))'",
     "python3 -c 'from errs import find; print(find({\"a\": 1}, \"a\")); find({\"b\": 2}, \"a\")'",
     "python3 -c 'from errs import lines; print(lines(\"src/notes.py\"))'",
     # `global`, `*args`, `**kwargs`, and `*xs`, `**d` spread in a call
     "printf 'HITS = 0\\n\\n\\ndef hit(*names, sep=\"/\", **tags):\\n    global HITS\\n    HITS += len(names)\\n"
     "    return sep.join(names), sorted(tags.items())\\n' > reg.py",
     "python3 -c 'import reg; print(reg.hit(\"a\", \"b\", x=1), reg.hit(*\"cd\", **{\"sep\": \"-\", \"y\": 2}), reg.HITS)'",
     "python3 -c 'from reg import hit; print(*hit(), sep=\"|\"); hit(1, 2)'",
     # chained tracebacks: raised while another was handled, `from e`, `from None`, a bare `raise`
     "cat > ch.py <<'EOF'\ndef get(d, k):\n    try:\n        return d[k]\n    except KeyError:\n        raise ValueError(f\"no {k}\")\n\n\n"
     "def cause(d, k):\n    try:\n        return d[k]\n    except KeyError as e:\n        raise LookupError(k) from e\n\n\n"
     "def quiet(d, k):\n    try:\n        return d[k]\n    except KeyError:\n        raise ValueError(k) from None\n\n\n"
     "def again(xs):\n    try:\n        return xs[0]\n    except IndexError:\n        print(\"empty\")\n        raise\nEOF",
     "python3 -c 'from ch import get; get({}, \"a\")'", "python3 -c 'from ch import cause; cause({}, 1)'",
     "python3 -c 'from ch import quiet; quiet({}, 2)'", "python3 -c 'from ch import again; print(again([5])); again([])'",
     "python3 -c 'from ch import get\ntry:\n    get({}, 0)\nexcept ValueError as e:\n    print(\"caught\", e)\n    1/0'"],
    # command substitution and arithmetic (substitution.py), and where `cd` into one leaves the shell
    ["cd src", "cd \"$(git rev-parse --show-toplevel)\" && pwd",
     "echo \"on $(git branch --show-current), $(git rev-parse --short HEAD)\"", "wc -l $(find . -name '*.py')",
     "cat $(find . -name notes.py) | head -3", "cd $(dirname src/notes.py) && ls", "echo $(ls)", "ls $(pwd)/..",
     "cd ..",
     "echo $((3 * 4 + 2)) $((7 / 2)) $((-7 % 3)) $((2 ** 10)) $((5 > 3))", "export N=4; echo $((N * N + 1))",
     "echo \"$(wc -l < README.md) lines in README\"", "mkdir -p \"$(pwd)/build/out\" && ls build",
     "touch \"build/$(basename src/notes.py .py).txt\" && ls build",
     "cp src/notes.py \"$(basename src/notes.py).bak\" && ls", "git status --short", "echo $(cat nonexist)", "ls",
     "cd \"$HOME\" && pwd", "cd \"$HOME/notes-app\" && echo $(basename \"$PWD\")",
     "cd $(git rev-parse --show-toplevel)/src; pwd",
     "cd; cd notes-app/tests", "echo \"$(ls ..)\"", "ls $(git rev-parse --show-toplevel)",
     # `$?`: the last command's status, in the next line (the sandbox keeps it as a shell that lives on)
     "cat nope", "echo $?", "echo $?", "false || echo \"was $?\"", "grep -q zzz ../README.md; echo \"grep said $?\"",
     "echo $(( $? + 1 ))", "nosuchcmd", "echo \"$?\""],
    # `ls` of any kind into a pipe; `grep -r` of several folders, one after the other
    ["ls src | wc -l", "ls -l | head -3", "ls -la src | wc -l", "ls -a | sort -r", "ls src tests | head",
     "ls -1 src | grep py", "grep -rn add src tests", "grep -rl add tests src", "grep -rc add src tests",
     "grep -r zzz src tests", "mkdir -p src/sub && echo 'add x' > src/sub/a.txt && echo add > tests/b.txt",
     "grep -rn add src tests", "grep -rn add tests src", "grep -rn 'a.d' src tests", "ls src | wc -l",
     "ls -la src | tail -2"],
    # `if` statements, run as bash runs them
    ["if [ -d tests ]; then cd tests; fi", "pwd", "cd ..", "if [ -f nope ]; then cat nope; else echo \"no file\"; fi",
     "if [ -f README.md ]; then head -1 README.md; echo found; fi", "if ls src; then echo listed; fi",
     "if cat nope; then echo yes; else echo \"no: $?\"; fi",
     "if test -d src && test -d tests; then cd src && ls; else echo x; fi", "pwd", "if true; then false; fi", "echo $?",
     "if false; then echo a; fi", "echo $?", "if [ -d /tmp ]; then touch /tmp/f; fi", "ls /tmp",
     "if [ ! -d build ]; then mkdir build && cd build; fi", "pwd", "ls .."],
    # writes into the sandbox's read-only root (readonly.py)
    ["touch /x", "mkdir /opt", "mkdir -p /opt/tool/bin", "mkdir /usr", "mkdir /etc/x", "mkdir /etc/passwd",
     "echo a > /etc/motd", "echo a >> /x", "echo a > /usr", "echo a > /bin", "rm /x", "rm /etc/passwd", "rm /bin",
     "rm /usr", "ls /", "cd / && touch x", "ls", "cd ~/notes-app && touch /etc/hosts.new && echo ok || echo refused",
     "mkdir -p /etc/a/b; echo $?", "ls /"],
    # git diff where git's diff chooses (xdiff.py): a function added between two, lines swapped, a
    # line added beside an equal one, a last line without its newline, blocks moved
    ["printf 'def a():\\n    return 1\\n\\n\\ndef c():\\n    return 3\\n' > m.py && git add m.py && git commit -qm m",
     "printf 'def a():\\n    return 1\\n\\n\\ndef b():\\n    return 2\\n\\n\\ndef c():\\n    return 3\\n' > m.py", "git diff",
     "git diff --stat", "printf 'def add(notes, text):\\n    return notes\\n    notes.append(text)\\n' > src/notes.py",
     "git diff src/notes.py", "printf '# notes-app\\n\\n\\nA tiny command-line notes manager.\\n' > README.md",
     "git diff README.md", "printf 'pytest==8.2.0' > requirements.txt", "git diff requirements.txt",
     "git add -A && git commit -qm x", "git show --stat",
     "printf 'def c():\\n    return 3\\n\\n\\ndef a():\\n    return 1\\n' > m.py", "git diff", "git diff --numstat",
     "git add -A && git commit -qm y && git log -p -1 | tail -12", "git show HEAD~1 | tail -8"],
    # a module of the standard library's name stands in only for what the one-liner's imports look up
    ["touch calendar.py logging.py", "python3 -c 'import json; print(json.dumps([1, None]))'", "ls",
     "python3 -m py_compile src/notes.py && echo ok", "ls src src/__pycache__", "touch types.py",
     "python3 -c 'import json; print(json.dumps([1]))'", "ls", "python3 -c 'import math; print(math.pi)'"],
    # a module no finder found, imported first: nothing ran, nothing was written
    ["python3 -c 'import nosuchmodule'", "ls", "python3 -c 'from nosuch.sub import x'", "ls",
     "python3 -c 'import os.nosuch'", "ls"],
    ["echo 'print(\"SHADOW\")' > types.py", "python3 -c 'print(1)'", "ls", "echo 'print(2)' > encodings.py",
     "python3 -c 'print(3)'", "ls"],
    # what .git holds is known as the world's commit left it: a word in none of it is searched for
    # in the project alone (git's sample hooks, its logs, the index's paths: where it is, the model's)
    ["grep -rn append .", "grep -rl notes .", "grep -rw test_add .", "grep -rn zzzz .", "grep -rn pytest .",
     "grep -rl Initial .", "grep -rin NOTES . | wc -l", "echo x >> README.md && git add README.md",
     "grep -rn append ."],
    # .git's folders listed and its text files read, as the world's commit left them
    ["ls .git", "ls .git/hooks", "ls .git/objects", "ls .git/refs/heads", "cat .git/HEAD", "cat .git/config",
     "cat .git/description", "cat .git/COMMIT_EDITMSG", "cat .git/logs/HEAD", "cat .git/refs/heads/main",
     "cat .git/info/exclude", "ls -1 .git/info", "ls .git/nope", "git add -A", "ls .git", "cat .git/HEAD"],
    ["[ -d .git ] && echo yes || echo no", "rm -rf .git", "[ -d .git ] && echo yes || echo no", "test -e .git; echo $?"],
    # sed's regular expressions as agents write them, printing and in place (sedscript.py, sedregex.py)
    ["sed 's/notes/items/g' src/notes.py", "sed -n '/def/p' src/notes.py", "sed -n '$=' README.md",
     "sed -i 's/^\\(def\\) \\(add\\)/\\1 my_\\2/' src/notes.py", "cat src/notes.py", "git diff --stat",
     "sed -i -E 's/pytest==([0-9.]+)/pytest>=\\1/' requirements.txt", "cat requirements.txt", "sed -i '/^$/d' README.md",
     "cat README.md", "sed -i '$a # end' README.md", "tail -2 README.md", "sed -i 's/[[:space:]]*$//' README.md",
     "cat -A README.md | head -3", "cat src/notes.py | sed 's/  */ /g'", "sed -i '1,2s/^/# /' tests/test_notes.py",
     "head -3 tests/test_notes.py", "sed -i 's/\\(o\\)\\1/x/' README.md", "ls", "git status --short",
     "sed -n '2,/return/p' src/notes.py", "sed '3q' README.md", "sed -i.bak 's/x/y/' src/notes.py", "ls src"],
    # a revision before the world's one commit, as agents ask for the last change
    ["git diff HEAD~1 --stat", "git show HEAD^", "git log --oneline HEAD~1..", "git diff HEAD~1..HEAD",
     "git reset --hard HEAD~1", "git log -3 HEAD~2", "git show HEAD^2", "git diff @~1", "git diff main~1",
     "git status --short", "git diff HEAD^0 --stat", "echo x >> README.md",
     "git -c user.name=a -c user.email=a@b.c commit -qam two", "git diff HEAD~2", "git show HEAD~1 --stat",
     "git log --oneline HEAD~3..", "touch HEAD~5", "git diff HEAD~5"],
    # what a commit the episode made changed: git show, and the tree against its parent
    ["echo x >> README.md", "printf 'def f():\\n    return 1\\n' > src/util.py", "git add -A",
     "git -c user.name=a -c user.email=a@b.c commit -qm two", "git show --stat", "git show", "git diff HEAD~1",
     "git diff HEAD^ --stat", "sed -i 's/notes/memo/' src/notes.py", "git diff HEAD~1 --stat",
     "git -c user.name=a -c user.email=a@b.c commit -qam three", "git show", "git show HEAD --stat", "git diff @~1",
     "git checkout -b other", "git show --stat", "rm src/util.py", "git -c user.name=a -c user.email=a@b.c commit -qam four",
     "git show --stat", "git show"],
    # what is not seen, shown (cat -A and its parts); git log as git show prints a commit
    ["cat -A README.md", "printf 'a\\tb\\n  x \\n' > t.txt", "cat -A t.txt", "cat -e t.txt", "cat -T t.txt",
     "cat -E t.txt", "cat -v t.txt", "cat t.txt | cat -A", "printf 'no end' > u.txt", "cat -A u.txt", "git log --stat",
     "git log -p", "git log --stat -1", "echo x >> README.md", "git -c user.name=a -c user.email=a@b.c commit -qam two",
     "git log -p -1", "git log -1 --stat", "git log -n1 -p"],
    # one block rewritten, inserted or taken out in the middle of a file: git diff's hunk
    ["sed -i 's/notes.append(text)/notes.insert(0, text)/' src/notes.py", "git diff", "git diff --stat",
     "sed -i '2i\\    # newest first' src/notes.py", "git diff src/notes.py", "sed -i '/^$/d' README.md", "git diff README.md",
     "printf 'def add(notes, text):\\n    return [text] + notes\\n' > src/notes.py", "git diff",
     "git -c user.name=a -c user.email=a@b.c commit -qam edits", "git show", "git diff HEAD~1 --stat",
     "printf 'x\\ny\\nx\\n' > t.txt", "git add t.txt", "git -c user.name=a -c user.email=a@b.c commit -qm t",
     "printf 'x\\ny\\nx\\ny\\nx\\n' > t.txt", "git diff"],
    # grep's regular expressions, basic and extended
    ["grep -n 'de.' src/notes.py", "grep -E 'append|return' src/notes.py", "grep -c '^ *return' src/notes.py",
     "grep -o 'no[a-z]*' src/notes.py | sort | uniq -c", "grep -v '^$' README.md", "grep -n '\\(add\\|test\\)_*' tests/test_notes.py",
     "grep -E '[0-9]+\\.[0-9]+' requirements.txt", "cat src/notes.py | grep -x ' *return notes'", "grep -in 'NOTES\\b' README.md",
     "grep 'a\\-b' README.md", "grep -w 'no.es' src/notes.py", "grep -E '(ab' README.md"],
    # git grep: the tracked files, in the index's order, from the shell's folder
    ["git grep notes", "git grep -n notes", "git grep -c notes", "git grep -l add", "cd src", "git grep -n add", "cd ..",
     "git grep -E 'append|return'", "git grep -in NOTES", "git grep zzz", "git grep -o 'no[a-z]*'", "git grep -c '^$'",
     "echo 'notes here' > new.txt", "git grep -l notes", "git add new.txt", "git grep -l notes",
     "sed -i 's/notes/items/' src/notes.py", "git grep -n items", "git grep -w notes", "git grep notes -- src",
     'git grep -n "it[a-z]*s.app"'],
    # shell variables: set, exported, read back, split outside quotes; a shell that lives on keeps them
    ["F=src/notes.py", "wc -l $F", "cat $F | head -2", "grep -n def \"$F\"", "L='README.md requirements.txt'", "ls $L",
     "wc -l $L", "echo \"[$L]\"", "cat $L | wc -l", "export F", "bash -c 'echo \"$F\"'", "D=$(dirname $F)", "ls $D",
     "cd $D && pwd", "cd -", "N=$(wc -l < $F); echo $((N * 2))", "unset F; echo \"[$F]\"", "E=", "ls $E",
     "X=5 Y=6; echo $X$Y", "G='*.md'; echo \"$G\"", "P=\"~/notes-app\"", "cd \"$P\"", "echo $OLDPWD"],
    # for loops over words, patterns and substitutions; reads and writes in the body
    ["for f in src/*.py tests/*.py; do echo \"== $f\"; head -3 \"$f\"; done", "echo $f",
     "for f in *.md *.txt; do wc -l $f; done", "for i in $(seq 3); do echo \"n $i\" > n$i.txt; done", "ls",
     "cat n2.txt", "for f in n*.txt; do cat $f; rm $f; done", "ls", "for d in src tests; do ls $d | wc -l; done",
     "for f in $(find . -name '*.py'); do grep -c def $f; done", "for x in a 'b c'; do echo \"<$x>\"; done",
     "for f in *; do [ -d \"$f\" ] && echo \"dir $f\" || echo \"file $f\"; done", "for f in nope*; do cat $f; done",
     "for w in $(cat requirements.txt); do echo $w; done", "for d in src tests; do cd $d; pwd; cd ..; done", "pwd",
     "while read -r l; do echo \"> $l\"; done < requirements.txt", "cat README.md",
     "ls | while read f; do echo $f; done", "ls src", "find . -name '*.py' -exec wc -l {} +",
     "find . -name '*.py' -exec grep -c def {} \\;", "find src -type f -exec head -1 {} ';'"],
    # commands of several lines (a newline ends a command, but after `&&`, `|`, `do`, a backslash),
    # comments, compound commands in a list and inside each other
    ["cd src\nls", "echo a\necho b", "ls\n\npwd\n", "cd ..\n", "echo a # a comment; rm -rf src\necho b", "ls",
     "ls &&\n  pwd", "cat README.md |\n  wc -l", "ls -la \\\n  src",
     "for f in src/*.py tests/*.py\ndo\n  if grep -q def \"$f\"; then\n    echo \"defs: $f\"\n  fi\ndone",
     "if [ -d src ]; then\n  cd src\nfi\npwd", "cd ..", "for a in 1 2; do for b in x y; do echo $a$b; done; done",
     "for f in *; do if [ -d $f ]; then echo \"d $f\"; else wc -l $f; fi; done", "X=1\necho $X", "cat nope\necho $?",
     "mkdir -p made/dir\ncd made\nls\ncd ..", "touch x.txt\nls", "grep -q notes README.md && echo found",
     "cat > hello.py <<'EOF'\nprint('hi')\nEOF\npython3 hello.py", "cat hello.py", "ls",
     "cat <<'EOF' > src/util.py\ndef f():\n    return 1\nEOF\npython3 -c 'from src.util import f; print(f())'"],
    # writes the state does not follow (through a pipe, in a subshell): what they wrote is not known after
    ["echo hi | tee README.md", "cat README.md", "ls | sort > list.txt", "cat list.txt", "(echo sub > sub.txt)",
     "cat sub.txt", "ls", "echo x > a.txt; false", "cat a.txt"],
    # an edit undone with git: the working file as the index has it, the index as the last commit has it
    ["sed -i 's/notes/items/g' src/notes.py", "git diff --stat", "git checkout -- src/notes.py", "cat src/notes.py",
     "echo x >> README.md", "git add README.md", "echo y >> README.md", "git restore README.md", "git diff",
     "git restore --staged README.md", "git status --short", "git reset --hard", "git status", "rm -rf tests",
     "git checkout tests", "find tests", "git checkout -- nope", "cat > extra.py <<'EOF'\nx = 1\nEOF",
     "git add extra.py", "git reset", "git status --short", "cat extra.py"],
    ["git config --global user.email a@b.c && git config --global user.name 'A B'", "echo v2 > src/notes.py",
     "git commit -qam v2", "echo broken > src/notes.py", "git add -A", "git reset --hard", "cat src/notes.py",
     "git log --oneline", "mkdir lib && echo y > lib/y.py && git add lib", "git reset --hard -q", "ls",
     "echo z > README.md", "cd src", "git reset -q && git checkout -- ..", "cd ..", "git status"],
    # a stash: was the test failing before the change? (saved, the files as committed, then brought back)
    ["git stash", "sed -i 's/append/insert/' src/notes.py", "echo new > notes.txt", "git add notes.txt",
     "git stash list", "git stash", "cat src/notes.py", "ls", "python3 -m pytest -q tests 2>&1 | tail -1",
     "git stash pop", "git status --short", "git diff", "git stash list", "git stash pop"],
    # files moved and removed through git, or moved and staged: the rename git shows
    ["git mv README.md GUIDE.md", "git status --short", "mv requirements.txt reqs.txt", "git add -A", "git status",
     "cd src", "git status -s", "git rm notes.py", "ls", "cd ..", "git rm -r tests", "ls", "git rm nope",
     "git status", "git reset -q --hard", "ls", "git rm --cached README.md", "git status --short"],
    # what the rules before this answered wrong: a move staged (a rename to git), a folder placed
    # where one was removed, a pattern that matches .git
    ["mv README.md GUIDE.md", "git add -A", "git status --short", "git status", "rm -r src", "cp -r tests src",
     "cat src/test_notes.py", "ls src", "echo .g* | wc -c", "ls -d */", "tac requirements.txt | md5sum"],
    # names handed on by xargs (the way agents search the files find lists)
    ["find . -name '*.py' | xargs grep -l def", "find . -name '*.py' | xargs grep -n 'def '",
     "find . -name '*.py' | xargs grep -c import", "find . -type f -name '*.md' | xargs grep -in notes",
     "find . -name '*.py' | xargs cat | wc -l", "git ls-files | xargs grep -l pytest",
     "find . -name '*.py' | xargs grep nothing", "echo $?"],
    # commit messages of paragraphs: `-m a -m b`, and a here-document in `$(…)`, as Claude Code commits
    ["git config --global user.email a@b.c && git config --global user.name 'A B'", "echo x >> README.md",
     "git add -A && git commit -m \"$(cat <<'EOF'\nUpdate the readme\n\nCo-Authored-By: A <a@b.c>\nEOF\n)\"",
     "git log --oneline", "git status", "echo y >> README.md", "git commit -qam first -m second",
     "git log --oneline --graph", "git rev-parse --short HEAD"],
    # an `if` with `elif`s, backquotes, and where the machine's programs are and what its environment holds
    ["if [ -f pyproject.toml ]; then echo poetry; elif [ -f requirements.txt ]; then cat requirements.txt; fi",
     "if [ -d nope ]; then ls nope; elif [ -d docs ]; then ls docs; else echo none; fi; echo $?",
     "echo \"$(ls | wc -l) entries, `ls src | wc -l` in src\"", "for f in `find . -name '*.py'`; do wc -l $f; done",
     "which python3 git", "command -v python3 >/dev/null && echo have python", "type cd", "which cd; echo $?",
     "printenv HOME PATH", "echo $LANG", "export PYTHONPATH=src; printenv PYTHONPATH", "cd `dirname src/notes.py`",
     "pwd", "cd -"],
    # git blame of files as the first commit made them; a PATH that finds the machine's programs, and one that does not
    ["git blame src/notes.py", "git blame -L 1,2 README.md | cut -c1-20", "git blame nope.py", "cd tests",
     "git blame test_notes.py", "cd ..", 'export PATH="$HOME/.local/bin:$PATH"', "ls", "export PATH=/nowhere",
     "ls", "which git", "export PATH=/usr/bin:/bin", "git blame -- requirements.txt"],
    # sort's keys, what is big here, numbered lines piped on, awk with a longer separator
    ["printf 'b 2\\na 10\\nc 1\\nd 10\\n' > t.txt", "sort -k2 -n t.txt", "sort -k2,2nr -k1,1 t.txt",
     "sort -k2,2n -u t.txt", "du -sh * | sort -h", "du -sk * | sort -rn | head -3", "cat -n src/notes.py | head -2",
     "cat -n README.md | grep -n notes", "awk -F'==' '{print $1}' requirements.txt", "sort -t= -k2 requirements.txt",
     "ls -la | sort -k5 -rn | head -3"],
    # loops and conditions piped on; ls of several names (files, folders, missing ones); loops in loops
    ['for f in src/*.py tests/*.py; do echo "$f: $(wc -l < $f)"; done | sort -t: -k2 -n',
     "for f in $(git ls-files); do wc -l $f; done | sort -rn | head -3", "ls README.md src tests nope",
     'find . -name "*.py" | while read f; do echo "$f $(grep -c def $f)"; done | sort -k2 -n',
     "if [ -d src ]; then ls src; fi | wc -l", "for f in *.md nope; do cat $f; done | wc -l",
     "ls -a src README.md", "for d in src tests; do for f in $d/*.py; do echo $f; done; done | tail -1",
     "echo x > a.txt && ls *.txt | wc -l", "ls a.txt requirements.txt", "for f in *.txt; do echo $f >&2; done | wc -l"],
    ["mkdir -p docs && for n in 1 2 3; do echo \"# $n\" > docs/$n.md; done", "ls docs README.md",
     "for f in docs/*.md; do head -1 $f; done | sort -r", "ls docs | while read f; do wc -c docs/$f; done | sort -n",
     "for i in 1 2; do for j in a b; do echo $i$j; done; done | wc -l", "cd docs && ls 1.md ../src 2.md", "cd .."],
    # errors and output sent elsewhere (`2>/dev/null`, `2>&1`, `>/dev/null 2>&1`, `2> f`), alone, in lists and
    # heading pipes; a command that failed before a `;` of a line the model answers
    ["ls nope 2>/dev/null", "cat README.md 2>/dev/null | head -1", "cat nope 2>/dev/null || echo missing",
     "git status 2>&1 | head -3", "which python3 >/dev/null 2>&1 && echo yes", "mkdir -p build 2>/dev/null", "ls",
     "echo x > out.log 2>&1", "cat out.log", "ls nope 2> err.txt; cat err.txt", "git status --short 2>/dev/null",
     "cd src 2>/dev/null && pwd", "cd ..", "python3 -c 'print(1)' 2>&1", "find . -name '*.py' 2>/dev/null | wc -l",
     "rm -rf build 2>/dev/null; ls", "mkdir README.md; date", "head -1 README.md", "rm nope 2>&1 | wc -l",
     "command -v git >/dev/null && echo have git"],
    # a project scaffolded with braces (`mkdir -p app/{models,views}`, `cp f{,.bak}`, `{1..3}`), then searched
    # with .git left out (`--exclude-dir={.git,…}`, `-prune`), then committed
    ["mkdir -p app/{models,views,tests} docs", "touch app/{models,views}/__init__.py app/tests/test_{a,b}.py",
     "ls -R app", "echo 'x = 1' > app/models/user.py && cp app/models/user.py{,.bak}", "ls app/models",
     "for i in {1..3}; do echo \"step $i\" >> docs/log.md; done", "cat docs/log.md", "echo {a..c} {05..1..2}",
     "grep -rn 'x =' . --exclude-dir={.git,docs}", "grep -rl step --exclude-dir=.git .",
     "find . -path ./.git -prune -o -name '*.py' -print | sort", "find . -name .git -prune -o -type f -print | wc -l",
     "rm app/models/user.py.bak && git add -A",
     "git status --short", "git commit -qm 'Scaffold app' && git log --oneline | head -2", "ls {app,docs}"],
    # a script made executable and run; modes shown, copied and taken back (`chmod a=r`: then refused)
    ["printf '#!/bin/sh\\necho ran\\n' > run.sh", "chmod +x run.sh", "ls -l run.sh",
     "chmod 600 README.md && ls -l", "cp run.sh deploy.sh && ls -l deploy.sh", "chmod u+x,go-rx deploy.sh",
     "ls -l", "git status --short", "chmod -x run.sh deploy.sh", "git status --short", "chmod a=r requirements.txt",
     "echo x >> requirements.txt", "chmod u+w requirements.txt", "cat requirements.txt", "chmod 700 src",
     "ls -l", "ls src", "chmod +x nope", "chmod +x run.sh && ./run.sh"],
    # patterns above the last part (`*/*.py`, `*/`, `../*/…`), in a tree with a folder named like another's prefix
    ["mkdir -p lib/core lib-extra docs && touch lib/core/a.py lib-extra/b.py docs/c.md lib/d.py", "echo */*",
     "wc -l */*.py", "grep -c def */*.py */*/*.py", "ls -d */*/", "cat */notes.py | wc -l", "ls */*.md",
     "head -n 1 */*.py", "echo ../*/src", "rm */*.md && ls docs", "echo */*/*"],
    # a project explored as agents do: the repository searched and walked, .git and all; several names
    # read or listed at once, some not there
    ["find . -type f | head -20", "grep -rn notes .", "grep -rn import . | wc -l", "grep -rli usage .",
     "cat setup.py pyproject.toml requirements.txt 2>/dev/null", "ls -l README.md src", "ls -ld src tests nope",
     "head -3 README.md nope.md requirements.txt", "wc -l README.md src/notes.py nope", "grep -rnw test . 2>/dev/null",
     "find . -maxdepth 2 -type d", "git status", "grep -rn return .", "mkdir -p build && touch build/x.o",
     "find . -maxdepth 1", "grep -rl pytest .", "cat README.md nope 2>/dev/null | wc -l", "git log -3 --stat",
     "git log --name-status", "grep -rn 'TODO\\|notes' .", "grep -rl -e import -e return .", "git ls-files '*.py'",
     "git grep -n def -- '*.py' | head -3", "find ~/notes-app -maxdepth 1", "grep -rn 'def .*(' .", "ls -lS"],
    # a commit looked at as agents look at it, remotes added, who commits set twice, a search cut
    # short, patterns typed in the wrong folder
    ["git show --stat", "git show --oneline --stat", "git show -s --format='%h %an %s'", "git remote -v",
     "grep -rn notes . | head -3", "wc -l *.py", "cat *.txt *.cfg", "cd src && wc -l *.md; cd ..",
     "git remote add origin git@github.com:me/notes-app.git", "git remote -v", "git config user.name Dev",
     "git config user.email dev@example.com", "git config --global user.name Other", "git config user.name",
     "seq 1 120 > data.txt && git add data.txt && git commit -qm 'Add data'", "git show --stat", "git log --oneline",
     "git show -s --format='%an <%ae>'", "git show $(git rev-parse --short HEAD) --name-only", "rm -f *.pyc",
     "git remote add origin x", "git remote get-url origin", "git log --stat -2 | tail -4", "head -2 *.log *.md"],
    # a project with a .gitignore, as every real one has: caches, builds and environments made, a file
    # added that is ignored, a package folder with its bytecode, everything staged and committed
    ["printf '__pycache__/\\n*.py[cod]\\nbuild/\\ndist/\\n*.egg-info/\\n.venv/\\n.env\\n' > .gitignore",
     "git status --short",
     "mkdir -p build/lib src/__pycache__ notes.egg-info && touch build/lib/n.py notes.egg-info/PKG-INFO",
     "touch src/__pycache__/notes.cpython-311.pyc .env src/n.pyc", "git status", "echo 'x = 1' > src/extra.py",
     "git status -s", "git add .env src/extra.py", "git status -s", "git add notes.egg-info/PKG-INFO",
     "mkdir -p tools/__pycache__ && touch tools/run.py tools/__pycache__/run.cpython-311.pyc", "git status --porcelain",
     "git add -A", "git status", "git commit -qm 'Ignore builds'",
     "git -c user.name=a -c user.email=a@b.c commit -qm x",
     "git status", "git log --oneline", "git ls-files", "git show --stat", "cat .gitignore", "cd src && git status -s",
     "touch debug.log && git status -s && cd .."],
    # a script written, made executable, committed and changed, as agents do: git records mode 100755, and
    # a tracked file's x bit is a change of its own
    ["mkdir -p scripts && printf '#!/usr/bin/env bash\nset -e\necho checking\n' > scripts/check.sh",
     "chmod +x scripts/check.sh", "./scripts/check.sh", "git status", "git add scripts", "git diff --cached",
     "git -c user.name=a -c user.email=a@b.c commit -m 'Add a check script'", "ls -l scripts", "git log --oneline",
     "chmod +x src/notes.py", "git status --short", "git diff", "git checkout -- src/notes.py", "ls -l src",
     "echo 'echo done' >> scripts/check.sh", "git diff --stat", "./scripts/check.sh",
     "git -c user.name=a -c user.email=a@b.c commit -qam 'Say when done'", "git show --stat", "git show",
     "git log --oneline", "git status"],
    # bash's `[[ … ]]` and loops as scripts and agents write them: patterns, file tests, `$(…)` in a test,
    # counters in `while` and `until`, files written turn by turn
    ["F=src/notes.py", "[[ -f $F && $F == *.py ]] && echo \"python: $F\"",
     "i=0; while [[ $i -lt 3 ]]; do echo \"step $i\" >> log.txt; i=$((i+1)); done", "cat log.txt",
     "until [ -d build ]; do mkdir build; echo made; done; ls",
     "n=0; for f in src/*.py tests/*.py; do n=$((n+1)); done; echo \"$n files\"",
     "if [[ $(ls | wc -l) -gt 3 ]]; then echo many; else echo few; fi", "[[ -n $HOME && -d $HOME ]] && echo home",
     "for f in *; do [[ -d $f ]] && echo \"dir $f\"; done; echo end", "[[ -z $(git status --short) ]] || echo dirty",
     "[[ $(wc -l < log.txt) -eq 3 ]] && echo three", "rm -rf build log.txt && ls", "git status --short"],
]

# In a world without a git repository (the office's workstation): git stops, until one is made
NO_REPO_SEQUENCES: list[list[str]] = [
    ["git status", "git log --oneline", "cd reports", "git branch", "git show", "git --version", "cd ..",
     "git init -q scratch", "git status", "cd scratch", "git status"],
    ["python3 -c 'print(1)'", "git status", "cat todo.txt", "git log"],
    ["git chekout main", "git stauts", "git config --global alias.stauts status", "git stauts"],
    ["find . -name '*.txt' | wc -l", "find reports -type f | wc -l", "grep -rn Q3 reports | wc -l", "cd reports",
     "find . -type f | sort", "grep -rl budget .", "grep -rn the . | wc -l", "find . -name 'nothing*'"],
    # a repository made where the world has none: followed from its start
    ["git init", "git status", "git status -sb", "git log", "git log --oneline -3", "git branch", "git diff",
     "git add todo.txt", "git status", "git status --porcelain", "git diff --cached --stat", "git diff --cached",
     "git commit -m first", "git -c user.name=U -c user.email=u@x commit -m first", "git log --oneline",
     "git branch", "git -c user.name=U -c user.email=u@x commit -m again", "git init", "ls -la", "git status"],
    ["mkdir proj && cd proj && git init -q", "git status", "git -c user.name=U -c user.email=u@x commit -m none",
     "echo 'print(1)' > main.py && mkdir lib && echo x > lib/a.txt", "git status --short", "git add main.py && git status",
     "git config --global user.email a@b.c && git config --global user.name 'A B'", "git commit -m 'first commit'",
     "git log -1 --format='%an <%ae> %s'", "git status", "git add . && git commit -qm two", "git status",
     "git checkout -b feat", "git branch", "ls -a", "cd ~ && git status", "git init -q other", "cd other",
     "git status", "cd ~/proj && git init", "git log --format=%s", "ls -a ~/proj"],
    ["git config --global init.defaultBranch trunk", "git init -q n", "cd n", "git status", "git log",
     "git init sub"],
]

# A world whose repository's seed says no date (as `world from-dir` writes one): the sandbox commits
# it at GitSeed's default date, so its id is known from the start
UNDATED_SEQUENCES: list[list[str]] = [
    ["git log --oneline", "git show --stat", "git log -1", "git rev-parse HEAD", "echo x >> README.md",
     "git -c user.name=U -c user.email=u@x commit -qam more", "git log --oneline", "git show --stat HEAD~1",
     "git log --format='%h %ad %s' --date=short"],
]


def undated(world: World) -> World:
    """`world` with its repositories' seed dates left out."""
    seed = json.loads(json.dumps(world.seed))
    for repo in seed.get("terminal", {}).get("git", []):
        repo.pop("date", None)
    return world.model_copy(update={"seed": seed, "name": f"{world.name}-undated"})


class _NoEngine:
    """Nothing here may reach a model: the state is asked directly."""

    url = "none://"
    model = "none"

    async def complete(self, request):  # pragma: no cover - never called
        raise AssertionError("the state-vs-real replay asked a model")

    async def aclose(self) -> None:
        pass


_STAMP = re.compile(r"\b[A-Z][a-z]{2} [ 0-3]\d (?:[0-2]\d:[0-5]\d| \d{4}) ")  # ls -l's time (C locale)


_MADE = re.compile(r"^\[(\S+)(?: \(root-commit\))? [0-9a-f]{7}\]", re.M)  # a commit's id, made at the second it ran
_DISK = re.compile(r"^d[rwxst-]{9} +\d+ \S+ \S+ +4096 ", re.M)  # a folder of ls -l on ext4 and most disks
_IDS = re.compile(r"\b[0-9a-f]{7,40}\b|^Date: .*$", re.M)  # commits' ids and git's dates


def _unclocked(text: str) -> str:
    return _IDS.sub("<id>", text)


def _pair() -> list[int]:
    return [0, 0]


class Tally:
    def __init__(self, recorded: bool = False) -> None:
        # recorded: a recording does not keep when each step ran, so the commits a replay makes get
        # other ids and dates than the recording's (live, both are checked byte for byte)
        self.recorded = recorded
        self.per_rule: dict[str, list[int]] = defaultdict(_pair)  # rule: [answered, agreed]
        self.mismatches: list[dict] = []
        # the same lines in another order: find and grep -r on a disk file system, whose readdir
        # order no state can know (the state gives the tmpfs order of the sandbox's home)
        self.reordered: list[dict] = []
        # the same but for the times `ls -l` shows, or a new commit's id (made at the second git ran):
        # the state's are when this replay made the world and ran each step, a recording's when it
        # was recorded (or, live, a minute or a second turned between the two)
        self.clocked: list[dict] = []
        # ls -l recorded where the home was on a disk file system (folders of 4096 bytes, other
        # blocks): the state gives the sandbox's tmpfs (the first devbox recordings were made before)
        self.disk: list[dict] = []
        # (recorded only) commits' ids and git's dates alone differ: a commit the episode made quietly
        # (`commit -qm`), at another second than the recording's; or, in the first devbox
        # recordings, the world's own, made before the sandbox committed it at the seed's date
        self.ids: list[dict] = []
        # of those, commits whose id alone differs (live: at no second between asking the state and
        # git's end does the state give reality's id)
        self.other_ids = 0
        # answers that showed a quiet commit's id as the state made it, a second after git did: the
        # output shows git's, and from it the state's answer is reality's (live only)
        self.corrected = 0
        self.steps = 0
        # (live only) the shell's folder after each step, as the state follows it, against where the
        # sandbox's bash said it ended: those it got wrong, after a step the state answered or not
        self.cwds = 0
        self.cwd_wrong: list[dict] = []

    def add(self, where: str, command: str, cwd: str, state: str, real: str) -> None:
        rule = command.split()[0] if command.split() else "(empty)"
        self.per_rule[rule][0] += 1
        self.per_rule[rule][1] += state == real
        if state != real:
            same_lines = sorted(state.splitlines()) == sorted(real.splitlines())
            seen = {"where": where, "command": command, "cwd": cwd, "state": state, "real": real}
            if _STAMP.sub("<time>", _MADE.sub(r"[\1 <id>]", state)) == _STAMP.sub("<time>", _MADE.sub(r"[\1 <id>]", real)):
                self.clocked.append(seen)
                self.other_ids += _STAMP.sub("<time>", state) != _STAMP.sub("<time>", real)  # (the times alone: equal)
            elif _DISK.search(real) and not _DISK.search(state):
                self.disk.append(seen)
            elif self.recorded and _unclocked(state) == _unclocked(real):
                self.ids.append(seen)
            else:
                (self.reordered if same_lines else self.mismatches).append(seen)

    def settle(self) -> None:
        """A `du` that differs, in a recording that shows elsewhere it was made on a disk file system
        (a folder of 4096 bytes, or find's order not the tmpfs one): on a disk each folder takes a
        block of its own, on the sandbox's tmpfs none."""
        on_disk = {m["where"] for m in self.disk + self.reordered}
        for m in [m for m in self.mismatches if m["where"] in on_disk and m["command"].split()[:1] == ["du"]]:
            self.mismatches.remove(m)
            self.disk.append(m)

    def merge(self, other: Tally) -> None:
        """`other`'s steps counted here too (a share of the sequences run in another process)."""
        for rule, (answered, agreed) in other.per_rule.items():
            self.per_rule[rule][0] += answered
            self.per_rule[rule][1] += agreed
        for name in ("mismatches", "reordered", "clocked", "disk", "ids", "cwd_wrong"):
            getattr(self, name).extend(getattr(other, name))
        for name in ("other_ids", "corrected", "steps", "cwds"):
            setattr(self, name, getattr(self, name) + getattr(other, name))

    @property
    def answered(self) -> int:
        return sum(a for a, _ in self.per_rule.values())

    @property
    def agreed(self) -> int:
        return sum(b for _, b in self.per_rule.values())


def _simulator(world: World, tmp: Path) -> tuple[Simulator, Store]:
    store = Store(tmp / "state-vs-real.db")
    sim = Simulator(world, EnginePool([_NoEngine()]), store, get_dialect("instruct"), Limits(), 1, state_mode="full")
    return sim, store


def _at_the_second_git_ran(sim: Simulator, ep, command: str, real: str, asked: float) -> str | None:
    """A commit made live: its id depends on the second git ran, which may be a second or more after
    the state was asked (the sandbox takes a while to start on a busy machine). The state's answer
    at each second from the asking to now: the one reality printed, if the state gives it at any."""
    import importlib

    st = importlib.import_module(f"{type(sim.domains['terminal'].rules).__module__}.state")
    saved = st.clock
    try:
        for second in range(int(asked), int(time.time()) + 1):
            st.clock = lambda second=second: float(second)
            answer = sim.state_answer(ep, "run_command", {"command": command})
            if answer is not None and answer.text == real:
                return answer.text
    finally:
        st.clock = saved
    return None


def _pin_a_quiet_commit(sim: Simulator, ep, box: TerminalSandbox, before: dict, command: str, real,
                        asked: float) -> None:
    """A commit the step made that the state made the id of (`commit -q` shows none), at the second git
    made it, read from the sandbox: a second may turn between git's commit and the state's update on a
    busy machine, and every later answer that shows the id (`git reset --hard`: "HEAD is now at …")
    would be a second off (as tests/sandboxed.py pins it)."""
    import importlib

    state = ep.state.get("terminal", {})
    git = state.get("git") or {}
    if not git.get("head") or git.get("head") == (before.get("git") or {}).get("head"):
        return
    made = box.run(f"git -C '{git['repo']}' rev-parse HEAD", "/", env=before.get("env") or {}).output.strip()
    if made == git["head"]:
        return
    st = importlib.import_module(f"{type(sim.domains['terminal'].rules).__module__}.state")
    rules, saved = sim.domains["terminal"].rules, st.clock
    try:
        for second in range(int(asked), int(time.time()) + 1):
            st.clock = lambda second=second: float(second)
            then = rules.apply(json.loads(json.dumps(before)), Call("run_command", {"command": command}, before),
                               real.output, {"exit_code": real.exit_code})
            if (then.get("git") or {}).get("head") == made:
                state.clear()
                state.update(then)
                return
    finally:
        st.clock = saved


def _corrects_itself(sim: Simulator, ep, command: str, real: str, code: int) -> bool:
    """The state, once it saw what reality printed, gives it: an id the state made itself (a quiet
    commit's, at the second it saw git done, which may be a second after git ran) that the output
    shows as git made it."""
    import importlib

    shell = importlib.import_module(f"{type(sim.domains['terminal'].rules).__module__}.shell")
    state = ep.state.get("terminal", {})
    after = shell.apply(state, command, real, code, state.get("cwd", ""))
    return after.get("git") != state.get("git") and shell.answer(after, command) == (real, code)


async def against_sandbox(world: World, sequences: list[list[str]], tally: Tally) -> None:
    """Each sequence in a fresh sandbox of `world`, the state beside it."""
    with tempfile.TemporaryDirectory() as tmp:
        sim, store = _simulator(world, Path(tmp))
        try:
            for n, sequence in enumerate(sequences):
                box = TerminalSandbox(world, SandboxLimits())
                ep = await sim.episode(f"seq{n}")
                try:
                    for command in sequence:
                        state = ep.state.setdefault("terminal", {})
                        cwd = state.get("cwd", box.home)
                        asked = time.time()
                        answer = sim.state_answer(ep, "run_command", {"command": command})
                        real = box.run(command, cwd, env=state.get("env") or {}, session=True)
                        box.status = real.exit_code & 255  # (`$?` in the next command, as the shadow mode keeps it)
                        tally.steps += 1
                        if answer is not None:
                            text = answer.text
                            if text != real.output and _MADE.search(real.output):
                                text = _at_the_second_git_ran(sim, ep, command, real.output, asked) or text
                            if text != real.output and _corrects_itself(sim, ep, command, real.output, real.exit_code):
                                tally.corrected += 1  # (a quiet commit's id, a second off: the log shows git's)
                                text = real.output
                            tally.add(f"sequence {n}", command, cwd, text, real.output)
                        before = json.loads(json.dumps(state))
                        sim.observe(ep, "run_command", {"command": command}, real.output, {"exit_code": real.exit_code})
                        _pin_a_quiet_commit(sim, ep, box, before, command, real, asked)
                        followed = ep.state["terminal"].get("cwd")
                        if real.cwd:
                            tally.cwds += 1
                            if followed != real.cwd:  # (the shadow mode takes bash's word, and so does the rest)
                                tally.cwd_wrong.append({"where": f"sequence {n}", "command": command, "state": followed,
                                                        "real": real.cwd, "answered": answer is not None})
                                ep.state["terminal"]["cwd"] = real.cwd
                finally:
                    box.close()
        finally:
            store.close()


def sandbox_share(world: str, sequences: str, share: int, shares: int) -> Tally:
    """Every `shares`-th sequence of a set (`SEQUENCES`, `NO_REPO_SEQUENCES`, `UNDATED_SEQUENCES`) from
    the `share`-th, in the sandbox beside the state: run in a process of its own (the tests run the
    shares side by side, one per core), as the clock the rules read is the module's own, held at a
    second while a commit's is looked for (`_at_the_second_git_ran`)."""
    loaded = load_world(world)
    tally = Tally()
    asyncio.run(against_sandbox(undated(loaded) if sequences == "UNDATED_SEQUENCES" else loaded,
                                globals()[sequences][share::shares], tally))
    return tally


async def replay(records):
    """Each recorded step with what the state would answer before it (None: the model would), the
    state then advanced by the recorded observation: (record, step index, step, cwd, answer)."""
    with tempfile.TemporaryDirectory() as tmp:
        for n, record in enumerate(records):
            sim, store = _simulator(record.world, Path(tmp) / str(n))
            try:
                ep = await sim.episode(record.id)
                for idx, step in enumerate(record.steps):
                    cwd = ep.state.get("terminal", {}).get("cwd", "")
                    answer = sim.state_answer(ep, step.tool, step.arguments) if step.tool in sim.tools else None
                    yield record, idx, step, cwd, answer
                    sim.observe(ep, step.tool, step.arguments, step.observation, step.structured)
            finally:
                store.close()


async def against_recordings(paths: list[Path], tally: Tally, domain: str = "terminal") -> None:
    """Recorded real episodes of `domain` (the terminal, or the desktop: os): each step the state would
    answer, against the recording. A terminal rule is the command's first word; a desktop one, the tool."""
    for path in paths:
        records = [r for r in read_records(path) if r.world.domains == [domain]]
        async for record, _, step, cwd, answer in replay(records):
            if domain == "terminal" and step.tool != "run_command":
                continue
            tally.steps += 1
            if answer is not None:
                what = step.arguments.get("command", "") if domain == "terminal" else \
                    f"{step.tool} {json.dumps(step.arguments, ensure_ascii=False)}"
                tally.add(f"{path.name}:{record.id}", what, cwd, answer.text, step.observation)
    tally.settle()


def report(name: str, tally: Tally, show_agreeing: bool = False) -> None:
    share = f"{tally.agreed / tally.answered:.1%}" if tally.answered else "-"
    print(f"{name}: {tally.steps} steps, {tally.answered} answered from the state, {tally.agreed} byte-exact ({share})")
    for rule, (answered, agreed) in sorted(tally.per_rule.items(), key=lambda kv: -kv[1][0]):
        if show_agreeing or agreed < answered:
            print(f"  {rule:10} {agreed:4}/{answered:<4}")
    if tally.cwds:
        wrong = tally.cwd_wrong
        print(f"  the shell's folder after each step: {tally.cwds - len(wrong)} of {tally.cwds} as bash said "
              f"({sum(m['answered'] for m in wrong)} wrong after a step the state answered)")
        for m in wrong:
            print(f"  FOLDER {m['where']}: {m['command']!r}: state {m['state']}, bash {m['real']}"
                  f"{' (answered from the state)' if m['answered'] else ''}")
    for m in tally.mismatches:
        print(f"  MISMATCH {m['where']}: {m['command']!r} in {m['cwd']}\n    state: {m['state']!r}\n    real:  {m['real']!r}")
    if tally.clocked:
        print(f"  the same but for the times ls -l shows or a new commit's id: {len(tally.clocked)}")
    if tally.corrected:
        print(f"  a quiet commit's id a second off, taken from the output that showed git's: {tally.corrected}")
    if tally.ids:
        print(f"  the same but for commits' ids and dates (a recording does not keep when its commits were made): "
              f"{len(tally.ids)}")
    for m in tally.disk:
        print(f"  RECORDED ON A DISK FILE SYSTEM {m['where']}: {m['command']!r} (the state gives the tmpfs sandbox's sizes)")
    for m in tally.reordered:
        print(f"  SAME LINES, OTHER ORDER {m['where']}: {m['command']!r} in {m['cwd']}\n"
              f"    state: {m['state']!r}\n    real:  {m['real']!r}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--world", default="devbox", help="the world the sequences run in (they assume devbox's files)")
    ap.add_argument("--show-agreeing", action="store_true", help="list every rule, not only those that disagree")
    args = ap.parse_args()
    live, recorded = Tally(), Tally(recorded=True)
    asyncio.run(against_sandbox(load_world(args.world), SEQUENCES, live))
    asyncio.run(against_sandbox(load_world("office"), NO_REPO_SEQUENCES, live))
    asyncio.run(against_sandbox(undated(load_world(args.world)), UNDATED_SEQUENCES, live))
    report("sandbox sequences", live, True)
    recordings = sorted((FIXTURES_DIR / "real").glob("*.jsonl*"))
    asyncio.run(against_recordings(recordings, recorded))
    report("recorded episodes (fixtures/real)", recorded, args.show_agreeing)
    desktop = Tally()
    asyncio.run(against_recordings(recordings, desktop, "os"))
    report("recorded desktop episodes (fixtures/real, AT-SPI)", desktop, True)


if __name__ == "__main__":
    main()
