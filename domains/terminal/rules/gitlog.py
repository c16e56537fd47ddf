"""`git log`'s other forms and `git rev-parse`, as git (2.39, the sandbox's) prints them, for the
commits whose full id, author and time the state knows.

- `--pretty=oneline`, `--format=FMT`, `--pretty=format:FMT`/`tformat:FMT`/`FMT` (with a `%`):
  the placeholders agents use (ids, parents, author and committer, their dates in git's fixed
  forms, subject, body, the branch decoration, `%n`, `%%`, `%xHH`). `format:` separates the entries
  with a newline and ends without one; `tformat:` (and `--format`) ends each entry with one.
- A placeholder whose value the state does not hold (a relative date, a signature, colours,
  padding) leaves the whole answer to the model.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from typing import NamedTuple


class Entry(NamedTuple):
    """A commit as `git log` shows it: its subject, full id, author ("name <email>"), time (UTC),
    and its parent's full id ("" for the root commit)."""
    message: str
    id: str
    who: str
    when: int
    parent: str


COUNT = re.compile(r"-(\d+)|-n(\d+)|--max-count=(\d+)")
# `--date=FORM`: how `%ad`, `%cd` and the default form's `Date:` show a time (`date`'s forms; "r": raw,
# "l": local, the default without its zone: the sandbox's is UTC); relative, human and format: dates
# are the model's
DATES = {"default": "d", "short": "s", "iso": "i", "iso8601": "i", "iso-strict": "I", "iso8601-strict": "I",
         "rfc": "D", "rfc2822": "D", "unix": "t", "raw": "r", "local": "l"}
_PLACEHOLDER = re.compile(r"%(x[0-9a-fA-F]{2}|[ac][nNeEdDtiIs]|[HhPpsBbnDd%])")


def options(args: list[str]) -> tuple[int | None, tuple[str, str] | None, str] | None:
    """`git log`'s arguments: (how many entries, None for all; the form, None for the default one:
    ("oneline", ""), ("format", FMT) or ("tformat", FMT); the dates' form, `DATES`'), or None where
    another option, a revision or a path is given (the model answers)."""
    count, form, dates = None, None, "d"
    i = 0
    while i < len(args):
        arg = args[i]
        m = COUNT.fullmatch(arg)
        if m:
            count = int(next(x for x in m.groups() if x is not None))
        elif arg in ("-n", "--max-count") and i + 1 < len(args) and args[i + 1].isdigit():
            count, i = int(args[i + 1]), i + 1
        elif arg == "--pretty=oneline":
            form = ("oneline", "")
        elif arg.startswith("--format="):
            form = ("tformat", arg.removeprefix("--format="))
        elif arg.startswith("--pretty=format:"):
            form = ("format", arg.removeprefix("--pretty=format:"))
        elif arg.startswith("--pretty=tformat:"):
            form = ("tformat", arg.removeprefix("--pretty=tformat:"))
        elif arg.startswith("--pretty=") and "%" in arg:
            form = ("tformat", arg.removeprefix("--pretty="))
        elif arg.startswith("--date=") and arg.removeprefix("--date=") in DATES:
            dates = DATES[arg.removeprefix("--date=")]
        elif arg not in ("--no-decorate", "--no-color"):
            return None
        i += 1
    return count, form, dates


def render(entries: list[Entry], form: tuple[str, str], decoration: str | None, dates: str = "d") -> str | None:
    """The entries (newest first) in `form`; `decoration` is what `%d` shows at the newest entry
    (None: not known, so a format with `%d` or `%D` is not answered); `dates`: `%ad`'s and `%cd`'s form."""
    kind, fmt = form
    if kind == "oneline":
        return "".join(f"{e.id} {e.message}\n" for e in entries)
    shown = []
    for n, entry in enumerate(entries):
        text = expand(fmt, entry, decoration if n == 0 else "", dates)
        if text is None:
            return None
        shown.append(text)
    return "".join(t + "\n" for t in shown) if kind == "tformat" else "\n".join(shown)


def expand(fmt: str, e: Entry, decoration: str | None, dates: str = "d") -> str | None:
    """One entry's line: each placeholder replaced, or None where one is not known (or not one of
    `_PLACEHOLDER`'s: git prints an unknown one as it is, but its meaning may be one the state lacks)."""
    out, i = [], 0
    for m in _PLACEHOLDER.finditer(fmt):
        if "%" in fmt[i:m.start()]:
            return None
        out.append(fmt[i:m.start()])
        value = _value(m.group(1), e, decoration, dates)
        if value is None:
            return None
        out.append(value)
        i = m.end()
    if "%" in fmt[i:]:
        return None
    return "".join(out) + fmt[i:]


def _value(code: str, e: Entry, decoration: str | None, dates: str) -> str | None:
    if code.startswith("x"):
        return chr(int(code[1:], 16))
    simple = {"H": e.id, "h": e.id[:7], "P": e.parent, "p": e.parent[:7], "s": e.message, "b": "",
              "B": e.message + "\n", "n": "\n", "%": "%"}
    if code in simple:
        return simple[code]
    if code in ("d", "D"):
        if decoration is None:
            return None
        return (f" ({decoration})" if code == "d" else decoration) if decoration else ""
    name, _, email = e.who.rpartition(" <")
    what = code[1]  # an author's (a) or committer's (c): the state's commits have one person for both
    if what in "nN":
        return name
    if what in "eE":
        return email.removesuffix(">")
    return date(e.when, dates if what == "d" else what)


def date(when: int, form: str = "d") -> str:
    """A time (UTC, as in the sandbox) in git's fixed forms: d (the default), t (seconds), i (ISO-like),
    I (strict ISO 8601), s (the day); D (RFC 2822); r (raw: seconds and zone), l (local: no zone)."""
    t = time.gmtime(when)
    if form == "t":
        return str(when)
    if form == "r":
        return f"{when} +0000"
    if form == "l":
        return time.strftime(f"%a %b {t.tm_mday} %H:%M:%S %Y", t)
    if form == "i":
        return time.strftime("%Y-%m-%d %H:%M:%S +0000", t)
    if form == "I":
        return time.strftime("%Y-%m-%dT%H:%M:%S+00:00", t)
    if form == "s":
        return time.strftime("%Y-%m-%d", t)
    if form == "D":
        return time.strftime(f"%a, {t.tm_mday} %b %Y %H:%M:%S +0000", t)
    return time.strftime(f"%a %b {t.tm_mday} %H:%M:%S %Y +0000", t)  # (the day unpadded, as git writes it)


def rev_parse(args: list[str], head: str, branch: str, repo: str, cwd: str) -> str | None:
    """`git rev-parse`'s lines for the options and revisions the state knows: the repository's top,
    git folder, the shell's place in it, and HEAD (or the branch's name) as a full or short id;
    None for anything else (another revision, an option the state does not model)."""
    lines: list[str] = []
    short = 0
    inside = "" if cwd == repo else cwd.removeprefix(repo + "/")
    for arg in args:
        if arg in ("--verify", "-q", "--quiet"):
            continue
        if arg == "--short":
            short = 7
        elif arg.startswith("--short=") and arg[8:].isdigit():
            short = min(max(int(arg[8:]), 4), 40)
        elif arg in ("HEAD", "@", branch):
            if not head:
                return None
            lines.append(head[:short] if short else head)
        elif arg == "--show-toplevel":
            lines.append(repo)
        elif arg in ("--is-inside-work-tree", "--is-inside-git-dir", "--is-bare-repository"):
            lines.append("true" if arg == "--is-inside-work-tree" else "false")
        elif arg == "--git-dir":
            lines.append(".git" if not inside else repo + "/.git")
        elif arg == "--show-prefix":
            lines.append(inside + "/" if inside else "")
        elif arg == "--show-cdup":
            lines.append("../" * (inside.count("/") + 1) if inside else "")
        else:
            return None
    return "".join(line + "\n" for line in lines) if lines else None


# options that leave a revision where git reads it (anything else: not answered here)
_OPTIONS = re.compile(r"--stat|--oneline|-p|--patch|--name-only|--name-status|--cached|--staged|--hard|--soft|"
                      r"--mixed|-q|--quiet|--graph|--decorate|--reverse|-\d+|-n\d+|--max-count=\d+|"
                      r"--(?:format|pretty)=[^\n]*")
_REVISION = re.compile(r"(HEAD|@|[A-Za-z0-9][A-Za-z0-9._/-]*?)((?:~\d*|\^\d?)*)")
UNKNOWN_REVISION = ("fatal: ambiguous argument '{}': unknown revision or path not in the working tree.\n"
                    "Use '--' to separate paths from revisions, like this:\n"
                    "'git <command> [<revision>...] -- [<file>...]'\n")


def past_the_root(args: list[str], commits: int, branch: str, exists: Callable[[str], bool]) -> str | None:
    """git's refusal of a revision before the branch's first commit (`git diff HEAD~1` where the
    world's commit is the only one, `git show HEAD^`, `git log HEAD~3..`, `git reset --hard HEAD~1`),
    naming the first such argument; None where every revision is there, or another argument is not
    read here (a path, an option, another branch: git's words for those are the model's)."""
    if args[:1] not in (["diff"], ["show"], ["log"], ["reset"]) or commits < 1:
        return None
    refused = None
    for arg in args[1:]:
        if _OPTIONS.fullmatch(arg):
            continue
        sides = arg.split("..") if arg.count("..") == 1 and "..." not in arg else [arg]
        depths = [0 if not side and len(sides) == 2 else _depth(side, branch) for side in sides]
        if any(d is None for d in depths) or exists(arg):
            return None  # (a path of that name: git takes it as one)
        if refused is None and max(d for d in depths if d is not None) >= commits:
            refused = arg
    return UNKNOWN_REVISION.format(refused) if refused else None


def _depth(revision: str, branch: str) -> int | None:
    """How many commits back from the branch's last a revision of it names (`HEAD~2`: 2, `@^`: 1; a
    second parent, `HEAD^2`, none has here: past any); None for anything else."""
    m = _REVISION.fullmatch(revision)
    if not m or m.group(1) not in ("HEAD", "@", branch):
        return None
    depth = 0
    for step in re.findall(r"~\d*|\^\d?", m.group(2)):
        n = int(step[1:]) if step[1:] else 1
        if step[0] == "^" and n > 1:
            return 1 << 30  # (a linear history has no second parent)
        depth += n
    return depth


def oneline(commits: list[str], hashes: list[str], args: list[str]) -> tuple[str, int] | None:
    """`git log --oneline [-N | -n N] [--graph]` from the abbreviated ids the state knows, newest
    first (`hashes` beside `commits`, "" where not known); `--graph` marks each `* ` (the state
    follows one branch's history: a line)."""
    args = [a for a in args if not (a.startswith("--date=") and a.removeprefix("--date=") in DATES)]  # (no dates)
    rest = [a for a in args if a not in ("--oneline", "--graph")]
    n = len(commits)
    if len(args) - len(rest) != 1 + ("--graph" in args) or len(rest) > 2:
        return None
    if rest:
        m = re.fullmatch(r"-n(\d+)|-(\d+)", "".join(rest))
        if not m:
            return None
        n = int(m.group(1) or m.group(2))
    known = hashes if len(hashes) == len(commits) else []
    if not known or not all(known):
        return None  # a commit whose hash the state does not know (`commit -q`): the model answers
    subjects = [msg.split("\n\n", 1)[0] for msg in commits]  # (the first paragraph: one line, or not answered)
    if any("\n" in subject for subject in subjects):
        return None
    lines = [f"{h} {subject}" for h, subject in zip(known, subjects)][::-1][:n]
    mark = "* " if "--graph" in args else ""
    return "".join(mark + line + "\n" for line in lines), 0
