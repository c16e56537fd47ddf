"""The terminal domain's state and the small shell interpreter over it.

    cwd, home, files (path -> contents, or None when only existence is known), the folders, the
    folders whose whole listing is known, deleted paths, environment variables, git (branch,
    branches, commits, tags, and each path changed since the last commit, in the working tree and
    the index)

`answer` gives the output when the state alone determines it (`pwd`, `cat` of a file whose contents
this episode established, `ls` of a fully known folder, `echo`, `git branch`, `git log --oneline`,
`git status`);
`silent` the empty output of commands that print nothing when the state says they succeed; `apply`
the state after a command printed what it printed.
"""

from __future__ import annotations

import fnmatch
import posixpath
import re
import shlex
import sys
import time
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from . import awk, filters, gitdiff, gitlog, gitobjects, gitstatus, gittypo, listing, lists, pathnames, pycheck, pyeval, search
from .output import next_cwd, shell_words


class Made(BaseModel):
    """A commit's full id, author ("name <email>") and time. `tree` and `parent` are kept where the
    id is the state's own, no output having shown it (`commit -q`: made at the second the state saw
    it done): git's may be a second earlier, and the next output that shows it corrects it."""
    model_config = ConfigDict(extra="forbid")
    id: str
    who: str
    when: int
    tree: str = ""
    parent: str = ""


class GitState(BaseModel):
    model_config = ConfigDict(extra="forbid")
    repo: str = ""  # the repository's folder
    branch: str = "main"
    branches: list[str] = Field(default_factory=lambda: ["main"])
    commits: list[str] = Field(default_factory=list)  # messages, newest last
    hashes: list[str] = Field(default_factory=list)  # their abbreviated hashes where known ("" where not)
    unknown: bool = False  # a command changed history or branches in a way not modelled here
    # The working tree and the index against the last commit, path by path (relative to the
    # repository): `base` holds, for each path written or removed since, its blob at the last commit
    # ("" where it had none), `index` the blob staged where that differs; None where the content is
    # not known. Every path in neither is as the last commit has it. `follows`: every change since
    # the last commit is in them. The world makes its repository with every file committed, so it
    # starts so; anything the state cannot follow (a program that may write anywhere) ends it, and a
    # commit of everything (`git add -A`) starts it again.
    follows: bool = False
    base: dict[str, str | None] = Field(default_factory=dict)
    index: dict[str, str | None] = Field(default_factory=dict)
    all_staged: bool = False  # `git add -A` (or `.` at the top) and nothing written since
    moved: bool = False  # a commit was made in the episode: another branch's files may differ
    tags: dict[str, int] = Field(default_factory=dict)  # lightweight tags: name -> commits then
    texts: dict[str, str] = Field(default_factory=dict)  # the contents of the blobs in `base` and `index`
    head: str = ""  # the last commit's full id, where known (the seed's, or one the state made)
    made: list[Made | None] = Field(default_factory=list)  # beside `commits`, where known (`git log`)

    @model_validator(mode="before")
    @classmethod
    def _earlier(cls, value: Any) -> Any:
        """A state stored by an earlier version: its `clean` tree is followed, `staged` is dropped."""
        if isinstance(value, dict) and ("clean" in value or "staged" in value):
            value = {k: v for k, v in value.items() if k not in ("clean", "staged")} | \
                {"follows": bool(value.get("clean"))}
        return value


class TerminalState(BaseModel):
    model_config = ConfigDict(extra="forbid")
    cwd: str
    home: str
    host: str = ""  # the machine's name ("" in states of earlier versions: not known)
    files: dict[str, str | None] = Field(default_factory=dict)
    dirs: list[str] = Field(default_factory=list)
    known_dirs: list[str] = Field(default_factory=list)  # folders whose whole listing is known
    other_repos: list[str] = Field(default_factory=list)  # git repositories made in the episode (init, clone): not modelled
    deleted: list[str] = Field(default_factory=list)
    env: dict[str, str] = Field(default_factory=dict)
    git: GitState | None = None
    # No git repository anywhere the shell can be but `git` (one `git init` made, where the world had
    # none): the world makes none, and nothing since could have (`git init`/`clone` of another, or a
    # program that may write anything, ends it)
    no_repo: bool = False
    defined: list[str] = Field(default_factory=list)  # aliases and functions the episode defined
    # The paths made in the home and /tmp, oldest first, where the state saw them made (the world's
    # files as the shadow sandbox writes them, then what the episode made). The sandbox's home and
    # /tmp are tmpfs, which hands a folder's entries out newest first: where every entry of a folder
    # is here, the order find and grep -r walk it in is known (a rename moves an entry to the front;
    # a file written in place keeps its place).
    order: list[str] = Field(default_factory=list)
    # When each path in the home (and the home's parent) was last changed, where the state saw it
    # (epoch seconds: the world is made, and each step runs, at the time it runs, as in the sandbox);
    # with the repository's `.git` while no git command has run in it. For `ls -l`.
    times: dict[str, int] = Field(default_factory=dict)
    # git's user.name and user.email as `git config` set them in the episode ({}: none, as in the
    # sandbox); None where a config command the state does not follow may have changed them
    identity: dict[str, str] | None = None
    # A git config file the world has, or a `git config` beside who commits (init.defaultBranch…):
    # what a new repository starts as (its branch) is no longer known
    configured: bool = False




def _split(command: str) -> list[list[str]] | None:
    """Simple commands joined by && or ; (None when the line has pipes or anything fancier)."""
    words = shell_words(command)
    if words is None:
        return None
    parts: list[list[str]] = [[]]
    for w in words:
        if w in ("&&", ";"):
            parts.append([])
        elif w in ("|", "||", "&", "(", ")", "<", "<<", "|&") or "$(" in w or "`" in w:
            return None
        else:
            parts[-1].append(w)
    return [p for p in parts if p]


_HEREDOC = re.compile(r"<<(-?)[ \t]*(?:'([A-Za-z_][A-Za-z0-9_]*)'|\"([A-Za-z_][A-Za-z0-9_]*)\"|([A-Za-z_][A-Za-z0-9_]*))")


class Heredoc(BaseModel):
    """A here-document: the line that runs with it (the operator taken out) and the text it feeds."""
    line: str
    text: str
    literal: bool  # the delimiter quoted ('EOF'), or nothing in the text the shell would expand


def heredoc(command: str) -> Heredoc | None:
    """`cat > FILE <<'EOF'` … `EOF` (or `<<EOF`, `<<-EOF`, the redirection after it): the way agents
    write files. None where the command has none, more than one, or more after its last line."""
    first, _, rest = command.partition("\n")
    found = list(_HEREDOC.finditer(first))
    if len(found) != 1 or "<<<" in first or not rest:
        return None
    m = found[0]
    tabs, delimiter = m.group(1) == "-", m.group(2) or m.group(3) or m.group(4)
    lines = rest.split("\n")
    if tabs:
        lines = [line.lstrip("\t") for line in lines]
    if delimiter not in lines:
        return None
    end = lines.index(delimiter)
    if any(line.strip() for line in lines[end + 1:]):
        return None  # (more commands after it: not followed here)
    body = lines[:end]
    text = "".join(line + "\n" for line in body)
    quoted = bool(m.group(2) or m.group(3))
    return Heredoc(line=first[:m.start()] + first[m.end():], text=text,
                   literal=quoted or not any(c in text for c in "$`\\"))


def _abs(path: str, s: TerminalState) -> str:
    if path.startswith("~"):
        path = s.home + path[1:]
    normal = posixpath.normpath(path if path.startswith("/") else posixpath.join(s.cwd, path))
    return "/" + normal.lstrip("/")  # (normpath keeps a leading `//`, which Linux reads as `/`)


def _exists(path: str, s: TerminalState) -> bool:
    return path in s.files or path in s.dirs


def _children(folder: str, s: TerminalState) -> list[str]:
    names = set()
    for p in list(s.files) + s.dirs:
        if p != folder and posixpath.dirname(p) == folder:
            names.add(posixpath.basename(p))
    # The sandbox's locale is C.UTF-8: `ls` sorts by bytes (README.md before a.txt); under a
    # language locale (en_US.UTF-8) it sorts by letters, ignoring case and leading dots.
    if s.env.get("LANG", "C.UTF-8").split(".")[0] in ("C", "POSIX"):
        return sorted(names)
    return sorted(names, key=lambda n: (n.lstrip(".").lower(), n))


class _Unknown(Exception):
    """A word whose expansion the state does not know (a variable it never saw set)."""


def _expand(word: str, s: TerminalState, strict: bool = False) -> str:
    def var(m: re.Match[str]) -> str:
        name = m.group(1) or m.group(2)
        if not name:  # $$, $?, $#, $@, $*, $!, $-: the shell's own (its pid, the last status…)
            if strict:
                raise _Unknown(m.group(0))
            return ""
        if name in s.env:
            return s.env[name]
        if name == "HOME":
            return s.home
        if name == "PWD":
            return s.cwd
        if name in ("USER", "LOGNAME") and _user(s):
            return _user(s)
        if name == "HOSTNAME" and s.host:
            return s.host
        if name == "SHELL":  # bash sets it from the user's passwd entry, which is /bin/bash in every world
            return "/bin/bash"
        if strict:  # $SHELL, $PATH, $RANDOM…: set by the machine, not by the episode
            raise _Unknown(name)
        return ""

    expanded = re.sub(r"\$\{(\w+)\}|\$(\w+)|\$[?$#@*!-]", var, word)
    if strict and "${" in word and re.search(r"\$\{(?!\w+\})", word):
        raise _Unknown(word)  # (${X:-default}, ${#X}, ${X/a/b}: not expanded here)
    return expanded


# The machine's root as the shadow sandbox makes it (executors/sandbox.py): /usr from the host, the
# links to its folders, its own /etc, /dev and /proc, and the writable /home and /tmp. Nothing can be
# made or removed but below /home and /tmp.
ROOT = ("bin", "dev", "etc", "home", "lib", "lib64", "proc", "sbin", "tmp", "usr")
WRITABLE = ("/home", "/tmp")


def _writable(path: str) -> bool:
    """A path that can be made, written or removed (below /home or /tmp: not the mounts themselves)."""
    return any(path != top and _within(path, top) for top in WRITABLE)


def _user(s: TerminalState) -> str:
    """Who the shell runs as: the owner of the home (/home/NAME), or root; "" where not known."""
    if s.home == "/root":
        return "root"
    return posixpath.basename(s.home) if posixpath.dirname(s.home) == "/home" else ""


# Commands that print who the shell runs as, or the machine's name (the world's hostname; `-f`
# and `-i` ask the resolver, which is the machine's)
WHO_AND_WHERE = {("whoami",): "user", ("id", "-un"): "user", ("id", "-nu"): "user",
                 ("hostname",): "host", ("hostname", "-s"): "host", ("uname", "-n"): "host",
                 ("uname", "--nodename"): "host"}


def _contents(name: str, s: TerminalState) -> str | None:
    """A file's contents where this episode knows them (None: unknown, removed, or a folder)."""
    path = _abs(name, s)
    if path in s.deleted or path in s.dirs or any(_within(path, d) for d in s.deleted):
        return None
    return s.files.get(path)


def _kind(path: str, s: TerminalState) -> str | None:
    """What is at `path`: "dir", "file", "missing", or None where the state does not know (inside a
    repository's .git, which the state does not follow)."""
    gits = [posixpath.join(r, ".git") for r in ([s.git.repo] if s.git else []) + s.other_repos]
    if path in gits:
        return "dir"
    if "/.git/" in path + "/":
        return None
    if any(_within(path, d) for d in s.deleted) or _absent(path, s):
        return "missing"
    if path in s.dirs or path == s.home:
        return "dir"
    return "file" if path in s.files else None


def _absent(path: str, s: TerminalState) -> bool:
    """Nothing is at `path`: removed, or missing from a folder whose listing is known whole."""
    return path in s.deleted or (posixpath.dirname(path) in s.known_dirs and not _exists(path, s))


def _tildes(words: list[str], command: str, s: TerminalState) -> list[str]:
    """The words with each tilde the shell expands (`~`, `~/x` unquoted: the home), as a program sees
    them (`ls ~/x` says `cannot access '/home/user/x'`); raises _Unknown where a quoted one and an
    unquoted one cannot be told apart, or for `~user`."""
    marked = [w for w in words if w.startswith("~")]
    if not marked:
        return words
    quote, before, bare = "", " ", 0
    for c in command:
        if quote:
            quote = "" if c == quote else quote
        elif c in "'\"":
            quote = c
        elif c == "~" and before in " \t":
            bare += 1
        before = c
    if bare != len(marked) or any(w != "~" and not w.startswith("~/") for w in marked):
        raise _Unknown("~")
    return [s.home + w[1:] if w.startswith("~") else w for w in words]


def _redirected_anyway(s: TerminalState, words: list[str], kinds: set[str] | None, output: str) -> None:
    """A command that failed (or was not found) still had its output file opened first: `> f` made or
    emptied it, `>> f` made it if missing; what it holds now is not known (what was written before
    the failure). Unless opening it failed (bash says so, naming it; a name ending in /)."""
    at = next((i for i, w in enumerate(words) if w in (">", ">>")), None)
    if at is None or at + 1 >= len(words) or words[at + 1].endswith("/") or \
            f"bash: line 1: {words[at + 1]}: " in output:
        return
    if kinds is None or {"target glob", "target brace", "target quoted $", "variable"} & kinds:
        _forget_writes(s, None)  # (where it wrote: not known)
        return
    target = _abs(_expand(words[at + 1], s), s)
    if posixpath.dirname(target) in s.dirs and target not in s.dirs:
        _write(s, target, None)


FILE_COMMANDS = frozenset({"touch", "mkdir", "rm", "rmdir", "cp", "mv"})
RECURSIVE = re.compile(r"-[a-zA-Z]*[rRa][a-zA-Z]*|--recursive|--archive")


def _partly_done(s: TerminalState, words: list[str], kinds: set[str] | None) -> None:
    """A file command that failed may have done part of its work: `rm a nope` removes a, `mkdir x
    nope/y` makes x, `rm -r` of a mount empties it. Where it names several paths, or works
    recursively, whether each is there, what is under it and what its folder lists are no longer known."""
    operands = [w for w in words[1:] if not w.startswith("-")]
    if len(operands) < 2 and not any(RECURSIVE.fullmatch(w) for w in words[1:] if w.startswith("-")) and \
            words[0] != "mv":
        return  # (one path, refused: nothing done)
    if kinds is None or not kinds <= PATH_EXPANSIONS or \
            any(w.startswith("-") and not re.fullmatch(r"-[a-zA-Z]+", w) for w in words[1:]):
        _forget_writes(s, None)  # (patterns, variables, options with values: which paths, not known)
        return
    for w in operands:
        path = _abs(_expand(w, s), s)
        if path == "/":
            _forget_writes(s, None)
            return
        _touched(s, path)
        s.files = {p: c for p, c in s.files.items() if not _within(p, path)}
        s.dirs = [d for d in s.dirs if not _within(d, path) or d == s.cwd]
        s.known_dirs = [d for d in s.known_dirs if not _within(d, path) and d != posixpath.dirname(path)]
        s.deleted = [d for d in s.deleted if not _within(d, path)]
        s.order = [p for p in s.order if not _within(p, path)]
        s.times = {p: when for p, when in s.times.items() if not _within(p, path)}


def _nearest_folder(path: str, s: TerminalState) -> str:
    """The nearest folder above `path` the state knows is there (mkdir makes from there down: where
    that folder's listing is known, nothing on the way can be there already)."""
    folder = posixpath.dirname(path)
    while folder not in s.dirs and folder not in ("/", ""):
        folder = posixpath.dirname(folder)
    return folder


def _file_on_the_way(path: str, s: TerminalState) -> bool:
    """A file stands where a folder above `path` would be (mkdir -p: "Not a directory")."""
    folder = posixpath.dirname(path)
    while folder not in ("/", ""):
        if folder in s.files and folder not in s.dirs:
            return True
        folder = posixpath.dirname(folder)
    return False


def _cd_refused(path: str, s: TerminalState) -> str | None:
    """Why bash's `cd` refuses `path`, where the state knows: nothing is there (at it or at a folder
    on the way), or it is a file; None where it may go there, or the state does not know."""
    while path != "/":
        if path in s.files and path not in s.dirs and not any(_within(path, d) for d in s.deleted):
            return "Not a directory"  # (it, or a file on the way)
        if _absent(path, s):
            return "No such file or directory"
        if _exists(path, s):
            return None
        path = posixpath.dirname(path)
    return None


def _listing(folder: str, s: TerminalState) -> str | None:
    """What `ls` prints for a folder whose whole listing is known."""
    if folder not in s.known_dirs:
        return None
    return "".join(n + "\n" for n in _children(folder, s) if not n.startswith("."))


MAX_LISTED = 200  # folders `ls -R` lists from the state at most


def _ls(args: list[str], s: TerminalState) -> str | None:
    """What `ls ARGS` prints where the state knows it: the folder's names (`ls`, `ls -1`), or every
    folder below it too (`ls -R [DIR]`), as GNU ls writes them to a pipe."""
    if all(a == "-1" for a in args):
        return _listing(s.cwd, s)
    if args[:1] != ["-R"] or len(args) > 2 or (len(args) == 2 and (args[1].startswith("-") or args[1].endswith("/")
                                                                  or not _PLAIN.fullmatch(args[1]))):
        return None
    shown = args[1] if len(args) == 2 else "."
    top = _abs(shown, s)
    sections: list[str] = []

    def walk(folder: str, name: str) -> bool:
        if folder not in s.known_dirs or len(sections) > MAX_LISTED:
            return False  # (a tree deeper or wider than that: the model's)
        names = [n for n in _children(folder, s) if not n.startswith(".")]
        sections.append(f"{name}:\n" + "".join(n + "\n" for n in names))
        return all(walk(posixpath.join(folder, n), f"{name}/{n}" if name != "/" else f"/{n}")
                   for n in names if posixpath.join(folder, n) in s.dirs)

    return "\n".join(sections) if walk(top, shown) else None


def _tree(top: str, s: TerminalState) -> search.Tree | None:
    """Everything below the folder `top`, when the state knows the whole tree (search.Tree): every
    folder in it listed whole, no home in it (a home's dot files are not in the state)."""
    folder = _abs(top, s)
    if folder not in s.known_dirs or _within(s.home, folder) or any(_within(folder, d) for d in s.deleted):
        return None
    repos = [r for r in ([s.git.repo] if s.git else []) + s.other_repos if _within(r, folder)]
    below: dict[str, list[str]] = {}  # each folder's entries, in one pass over what the state holds
    for p in set(s.files) | set(s.dirs):
        if p != folder and _within(p, folder):
            below.setdefault(posixpath.dirname(p), []).append(p)
    if sum(map(len, below.values())) > search.MAX_PATHS:
        return None
    known, folders = set(s.known_dirs), set(s.dirs)
    made = {p: i for i, p in enumerate(s.order)}
    ordered = True
    entries: list[tuple[str, bool]] = []

    def inside(here: str) -> list[str] | None:
        """The entries of `here` as find and grep visit them: newest first; byte order where the
        creation order is not known."""
        nonlocal ordered
        if here not in known:
            return None
        found = [p for p in below.get(here, []) if posixpath.basename(p) != ".git"]
        if len(found) < len(below.get(here, [])):
            repos.append(here)
        if all(p in made for p in found):
            return sorted(found, key=lambda p: -made[p])
        ordered = False
        return sorted(found, key=lambda p: p.encode())

    top_entries = inside(folder)
    if top_entries is None:
        return None
    walking = [iter(top_entries)]  # each folder's contents right after it (no recursion: trees may be deep)
    while walking:
        path = next(walking[-1], None)
        if path is None:
            walking.pop()
            continue
        entries.append((path[len(folder):].lstrip("/"), path in folders))
        if path in folders:
            deeper = inside(path)
            if deeper is None:
                return None
            walking.append(iter(deeper))
    if not ordered:  # (the order does not matter to what is then answered: one path, or an order-free pipe)
        entries.sort(key=lambda e: e[0].encode())
    git_dirs = sorted({posixpath.join(r, ".git")[len(folder):].lstrip("/") for r in repos})
    return search.Tree(top=top, entries=entries, git_inside=bool(repos), ordered=ordered, git_dirs=git_dirs)


_LONG_FLAGS = re.compile(r"-[lah]+")


def _folders(names: list[str], s: TerminalState, one) -> str | None:
    """`ls` given several folders: each one's listing (`one(name)`) under its name, the folders in
    byte order; None where any is not a known folder, or is given twice."""
    if len(set(names)) < len(names) or any(_abs(n, s) not in s.dirs for n in names):
        return None
    names = sorted(names, key=lambda n: n.encode())
    listed = [one(n) for n in names]
    return None if any(x is None for x in listed) else "\n".join(f"{n}:\n{x}" for n, x in zip(names, listed))


def _long(args: list[str], s: TerminalState) -> str | None:
    """`ls -l [-a] [-h] [PATH…]` where the state knows every entry's size, links and time (listing.py)."""
    flags = "".join(a[1:] for a in args if a.startswith("-"))
    names = [a for a in args if not a.startswith("-")]
    if len(names) > 1:
        return _folders(names, s, lambda folder: _long([f"-{flags}", folder], s))
    if "l" not in flags or not all(_LONG_FLAGS.fullmatch(a) for a in args if a.startswith("-")) or len(names) > 1 or \
            (names and (not _PLAIN.fullmatch(names[0]) or names[0].endswith("/") and names[0] != "/")) or \
            s.env.get("LANG", "C.UTF-8").split(".")[0] not in ("C", "POSIX") or "LS_COLORS" in s.env:
        return None
    target = _abs(names[0], s) if names else s.cwd
    if not _within(target, s.home) or any(_within(target, d) for d in s.deleted):
        return None  # (elsewhere: modes, owners and sizes the state does not hold)
    repos = {r for r in ([s.git.repo] if s.git else []) + s.other_repos}

    def entries(folder: str) -> list[str] | None:
        if folder not in s.known_dirs:
            return None
        inside = [posixpath.join(folder, n) for n in _children(folder, s)]
        return inside + ([posixpath.join(folder, ".git")] if folder in repos else [])

    def row(path: str, name: str) -> listing.Row | None:
        when = s.times.get(path)
        if when is None:
            return None
        if path in s.files and path not in s.dirs:
            content = s.files[path]
            return None if content is None else listing.file_row(name, len(content.encode()), when)
        if posixpath.basename(path) == ".git" and posixpath.dirname(path) in repos:
            return listing.folder_row(name, listing.GIT_DIR_ENTRIES, listing.GIT_DIR_FOLDERS, when)
        inside = entries(path)
        if inside is None or path not in s.dirs:
            return None
        return listing.folder_row(name, len(inside), sum(1 for p in inside if p in s.dirs or p.endswith("/.git")), when)

    if target in s.files and target not in s.dirs:
        shown = [(target, names[0])]
    else:
        inside = entries(target)
        if inside is None:
            return None
        every = "a" in flags
        shown = sorted(([(target, "."), (posixpath.dirname(target), "..")] if every else []) +
                       [(p, posixpath.basename(p)) for p in inside if every or not posixpath.basename(p).startswith(".")],
                       key=lambda e: e[1].encode())
    rows = [row(p, name) for p, name in shown]
    if any(r is None for r in rows):
        return None
    user = posixpath.basename(s.home)
    return listing.render(rows, int(clock()), user, "h" in flags, total=not (target in s.files and target not in s.dirs))


def _source(words: list[str], s: TerminalState) -> tuple[str, bool, int] | None:
    """A first stage of a pipe the state computes: `ls`, `find`, `grep -r` (search.py)."""
    refs = (s.git.branches + list(s.git.tags)) if s.git else []
    if words[0] == "ls":
        listed = _ls(words[1:], s)
        return None if listed is None else (listed, True, 0)
    if words[:1] == ["git"] and words[1:2] and words[1] in filters.GIT_PIPED:
        said = answer(s.model_dump(), shlex.join(words))
        return None if said is None or said[1] != 0 else (said[0], True, 0)  # (git's refusal: to the terminal, not the pipe)
    if words[0] == "find":
        return search.find(words[1:], lambda top: _tree(top, s), refs, lambda top: _absent(_abs(top, s), s))
    missing = search.missing_top(words[1:], lambda name: False if _absent(_abs(name, s), s) else None)
    if missing is not None:
        return missing, True, 2
    return search.grep_r(words[1:], lambda top: _tree(top, s), lambda name: _contents(name, s), refs)


def _unexpanded(command: str, s: TerminalState) -> str:
    """The command with each unquoted pattern word expanded as bash does it in the shell's folder,
    when the state knows that folder whole: the names it matches, sorted; none, the word as it is
    (`grep -r x --include=*.py .`). Elsewhere the command stays as it is (and is not followed)."""
    if not any(c in command for c in "*?[") or s.cwd not in s.known_dirs or "\n" in command:
        return command
    out, quote, start = [], "", 0
    words: list[tuple[int, int]] = []
    for i, c in enumerate(command + " "):
        if quote:
            quote = "" if c == quote else quote
        elif c in "'\"":
            quote = c
        elif c in " \t":
            if i > start:
                words.append((start, i))
            start = i + 1
    names = _children(s.cwd, s)
    last = 0
    for a, b in words:
        word = command[a:b]
        if not any(c in word for c in "*?[") or any(c in word for c in "'\"\\$`"):
            continue
        if any(c in word for c in "/|;&<>(){}"):
            return command  # (a path, or operators inside the word: not followed)
        matched = [n for n in names if (word.startswith(".") or not n.startswith(".")) and fnmatch.fnmatchcase(n, word)]
        if any(not re.fullmatch(r"[A-Za-z0-9._+@,=-]+", n) for n in matched):
            return command
        out += [command[last:a], " ".join(f"'{n}'" for n in matched) if matched else f"'{word}'"]  # (in ls's order)
        last = b
    return "".join(out) + command[last:]


def _glob(pattern: str, s: TerminalState) -> list[str] | None:
    """The names the shell expands PATTERN to in its folder, when the state knows that folder whole
    (in the order bash sorts them); None: not known here."""
    if "/" in pattern or not re.fullmatch(r"[A-Za-z0-9._*?-]+", pattern) or s.cwd not in s.known_dirs:
        return None
    return [n for n in _children(s.cwd, s) if fnmatch.fnmatchcase(n, pattern) and
            (pattern.startswith(".") or not n.startswith("."))]


def _wc_glob(option: str, pattern: str, s: TerminalState) -> tuple[str, int] | None:
    """`wc -l|-c|-w PATTERN`: the files the shell expands it to, counted (filters.wc_files)."""
    names = _glob(pattern, s)
    if not names:
        return None  # (no match: wc is given the pattern itself; the model's)
    texts = [_contents(n, s) for n in names]
    if any(t is None for t in texts):
        return None  # a folder among them, or a file not known
    return filters.wc_files(names, texts, option[1:]), 0


def _diff_files(args: list[str], s: TerminalState) -> tuple[str, int] | None:
    """`diff [-q] A B` of files the state knows: the same says nothing; `-q` says they differ; a
    missing one is refused. Where they differ, which lines diff shows is its algorithm's: the model's."""
    opts, names = [a for a in args if a.startswith("-")], [a for a in args if not a.startswith("-")]
    if opts not in ([], ["-q"], ["--brief"], ["-u"]) or len(names) != 2 or not all(_PLAIN.fullmatch(n) for n in names):
        return None
    gone = [n for n in names if _absent(_abs(n, s), s)]
    if len(gone) == 1 and all(_abs(n, s) in s.files for n in names if n not in gone):
        return f"diff: {gone[0]}: No such file or directory\n", 2
    old, new = (_contents(n, s) for n in names)
    if old is None or new is None or "\0" in old + new:
        return None
    if old == new:
        return "", 0
    return (f"Files {names[0]} and {names[1]} differ\n", 1) if opts in (["-q"], ["--brief"]) else None


def _ls_glob(pattern: str, s: TerminalState) -> tuple[str, int] | None:
    """`ls PATTERN` (one pattern, in the shell's folder, the state knowing it whole): the shell
    expands it and ls lists the files it matched, then each folder's names; none matched, ls is
    given the pattern itself and cannot find it."""
    names = _glob(pattern, s)
    if names is None:
        return None
    if not names:
        return (f"ls: cannot access '{pattern}': No such file or directory\n", 2) if _QUOTABLE.fullmatch(pattern) else None
    folders = [n for n in names if posixpath.join(s.cwd, n) in s.dirs]
    out = [n + "\n" for n in names if n not in folders]
    for n in folders:
        inner = _listing(posixpath.join(s.cwd, n), s)
        if inner is None:
            return None
        out.append(inner if len(names) == 1 else ("\n" if out else "") + f"{n}:\n" + inner)
    return "".join(out), 0


PRINTF_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", '"': '"', "'": "'", "a": "\a", "b": "\b",
                  "f": "\f", "v": "\v"}


def _echo_text(args: list[str], printf: bool) -> str | None:
    """What bash's `echo ARGS` (no escapes read: bash's default) or `printf FORMAT` prints; None
    where it is not worked out here (`echo -e` of a backslash, a printf conversion or argument, an
    escape other than \\n \\t \\r \\\\ \\" \\' \\a \\b \\f \\v)."""
    if printf:
        if len(args) != 1:
            return None  # (none: printf refuses; more: the format is applied to each)
        fmt = args[0].replace("%%", "\0")
        if "%" in fmt or "\0" in args[0]:
            return None
        out, i = [], 0
        while i < len(fmt):
            if fmt[i] == "\\":
                if fmt[i + 1:i + 2] not in PRINTF_ESCAPES:
                    return None
                out.append(PRINTF_ESCAPES[fmt[i + 1]])
                i += 2
            else:
                out.append(fmt[i])
                i += 1
        return "".join(out).replace("\0", "%")
    letters = ""
    while args and re.fullmatch(r"-[neE]+", args[0]):
        letters, args = letters + args[0][1:], args[1:]
    if "e" in letters and any("\\" in a for a in args):
        return None
    return " ".join(args) + ("" if "n" in letters else "\n")


def _expansions(command: str, s: TerminalState) -> set[str] | None:
    """What the shell would expand in `command` beside the variables the state knows: outside quotes
    a pattern ("glob"), braces ("brace"), a tilde starting a word ("tilde"), a backslash
    ("backslash"); `$` within single quotes ("quoted $": the words are expanded without their
    quotes); a variable the state does not know, or `$$`, `$?`, `${X:-…}` ("variable"). In the word
    a `>` writes to, each kind is named "target …". None: the line is not simple commands."""
    parts = _split(command)
    if parts is None:
        return None
    kinds: set[str] = set()
    quote, before, target = "", " ", 0  # (target: 1 after a `>`, 2 inside the word it writes to)
    for c in command:
        if target and not quote and c in " \t;&|" and (target == 2 or c not in " \t"):
            target = 0
        elif target == 1 and c not in " \t>":
            target = 2
        mark = "target " if target == 2 else ""
        if quote == "'":
            if c == "$":
                kinds.add(mark + "quoted $")
            quote = "" if c == "'" else quote
        elif quote == '"':
            if c == "\\":
                kinds.add(mark + "backslash")
            quote = "" if c == '"' else quote
        elif c in "'\"":
            quote = c
        elif c == ">" and not target:
            target = 1
        elif c in "*?[":
            kinds.add(mark + "glob")
        elif c == "{":
            kinds.add(mark + "brace")
        elif c == "\\":
            kinds.add(mark + "backslash")
        elif c == "~" and before in " \t=:>":
            kinds.add(mark + "tilde")
        before = c
    for words in parts:
        for i, w in enumerate(words):
            try:
                _expand(w, s, strict=True)
            except _Unknown:
                kinds.add("target variable" if i and words[i - 1] in (">", ">>") else "variable")
    if "$(" in command or "`" in command:
        kinds.add("variable")  # (a command's output, or arithmetic: not worked out here)
    return kinds


PATH_EXPANSIONS = {"tilde", "backslash", "target tilde", "target backslash"}  # (`_abs` reads ~; shlex, \\ )


_PLAIN = re.compile(r"[A-Za-z0-9._/+-]+")  # a word GNU tools print between ‘ ’ as it is
_QUOTABLE = re.compile(r"[^'\\\x00-\x1f\x7f]+")  # a name ls puts between ' ' as it is (no quote, backslash or control)


# Commands typed fast enough to swap two letters (`sl`, `gti`, `cta`), which no machine has: the
# swaps of everyday commands, less those that are programs somewhere (`nl` is coreutils', `dc` a
# calculator, Debian packages `cw`, `otp`, `pat`, `tali`, `vm`). `sl`, a joke package, is kept: a
# machine set up for work does not have it.
EVERYDAY = ("ls cat git cd grep python python3 pip pip3 echo head tail find mkdir touch sed awk sort make less more "
            "vim nano curl wget tar diff chmod chown mv cp rm pwd which wc uniq cut clear ssh top ps kill sudo man env "
            "export history node npm docker pytest rmdir unzip zip tree file stat du df date whoami hostname uname "
            "xargs tee ln source exit cargo go java gcc apt").split()
TYPOS = frozenset(c[:i] + c[i + 1] + c[i] + c[i + 2:] for c in EVERYDAY for i in range(len(c) - 1)) - \
    set(EVERYDAY) - {"cw", "dc", "nl", "otp", "pat", "tali", "vm"}


def answer(state: dict[str, Any], command: str) -> tuple[str, int] | None:
    """The output and exit code when the state alone determines them; None: ask the model."""
    s = TerminalState.model_validate(state)
    fed = heredoc(command)
    if fed is not None:
        return _fed_answer(s, fed)
    listed = lists.commands(command)
    if listed and len(listed) == 1 and _condition(s, command) is not None:
        return _condition(s, command)
    if listed and len(listed) > 1:
        evaluated = _evaluate(state, listed)  # `[ -f x ] && echo yes || echo no`, `cat a && ls`: run as bash would
        if evaluated is not None:
            return evaluated[:2]
    one_liner = pyeval.one_liner(command)
    if one_liner is not None:
        return _python_c(one_liner, s)
    computed = filters.answer(_unexpanded(command, s), lambda name: _contents(name, s), lambda words: _source(words, s))
    if computed is not None:
        return computed
    parts = _split(command)  # (a list of several commands: `_evaluate`'s, above)
    if not parts or len(parts) != 1 or "$(" in command or "`" in command:
        return None
    if parts[0][:1] == ["ls"] and len(parts[0]) == 2 and any(c in parts[0][1] for c in "*?") and \
            not any(c in command for c in "'\"\\$"):
        return _ls_glob(parts[0][1], s)
    if parts[0][:1] == ["wc"] and len(parts[0]) == 3 and parts[0][1] in ("-l", "-c", "-w") and \
            any(c in parts[0][2] for c in "*?") and not any(c in command for c in "'\"\\$"):
        return _wc_glob(parts[0][1], parts[0][2], s)
    if parts[0][:2] == ["ls", "-R"] and "$" not in command:
        listed = _ls(parts[0][1:], s)
        return (listed, 0) if listed is not None else None
    if any(c in w for w in parts[0] for c in "*?[]{}\\") or ("'" in command and "$" in command) or \
            any(w.startswith("~") for w in parts[0][1:] if parts[0][0] == "echo"):
        return None  # globs, braces, escapes and quoting subtleties: the shell's business, the model's call
    try:
        words = _tildes([_expand(w, s, strict=True) for w in parts[0]], command, s)
    except _Unknown:
        return None
    cmd, args = words[0], words[1:]
    if ">" in words or ">>" in words:
        return None  # writes: state changes, the output is empty; let apply() record it, answer ""
    if cmd == "ls" and len(args) >= 2 and all(_PLAIN.fullmatch(a) and not a.startswith("-") for a in args):
        listed = _folders(args, s, lambda folder: _listing(_abs(folder, s), s))
        return (listed, 0) if listed is not None else None
    if cmd == "pwd" and not args:
        return s.cwd + "\n", 0
    if (cmd, *args) in WHO_AND_WHERE and cmd not in s.defined and "PATH" not in s.env:
        said = s.host if WHO_AND_WHERE[(cmd, *args)] == "host" else _user(s)
        return (said + "\n", 0) if said else None
    if cmd in ("basename", "dirname", "seq", "realpath") and cmd not in s.defined:
        return pathnames.answer(cmd, args, s.cwd, s.home, lambda path: _kind(path, s))
    if cmd == "echo" and all(not a.startswith("-") or a == "-n" for a in args):
        said = _echo_text(args, False)
        return None if said is None else (said, 0)
    if cmd == "cat" and len(args) == 1 and not args[0].startswith("-"):
        path = _abs(args[0], s)
        if not _PLAIN.fullmatch(args[0]) and (_absent(path, s) or path in s.dirs):
            return None  # (GNU quotes such a name in its message: 'q r')
        if _absent(path, s):
            return f"cat: {args[0]}: No such file or directory\n", 1
        if path in s.dirs:
            return f"cat: {args[0]}: Is a directory\n", 1
        content = s.files.get(path)
        return (content, 0) if content is not None else None
    if cmd == "cat" and len(args) > 1 and not any(a.startswith("-") for a in args):
        contents = [_contents(a, s) for a in args]  # every file there and known: one after the other
        return ("".join(c for c in contents if c is not None), 0) if all(c is not None for c in contents) else None
    if cmd == "cd" and len(args) == 1 and _PLAIN.fullmatch(args[0].removeprefix("~/")) and \
            not args[0].startswith("-") and "cd" not in s.defined and "CDPATH" not in s.env:
        refused = _cd_refused(_abs(args[0], s), s)  # (bash run as `bash -c`, as in the sandbox: its line 1)
        shown = _abs(args[0], s) if args[0].startswith("~/") else args[0]  # (bash expanded the ~ before)
        return (f"/bin/bash: line 1: cd: {shown}: {refused}\n", 1) if refused else None
    if cmd in TYPOS and cmd not in s.defined and "PATH" not in s.env and \
            not any(posixpath.basename(p) == cmd for p in s.files):
        return f"/bin/bash: line 1: {cmd}: command not found\n", 127  # (bash run as `bash -c`, as in the sandbox)
    if cmd == "python3" and len(args) == 1 and _PLAIN.fullmatch(args[0]) and not args[0].startswith("-") and \
            _absent(_abs(args[0], s), s):
        return f"python3: can't open file '{_abs(args[0], s)}': [Errno 2] No such file or directory\n", 2
    if cmd in ("head", "tail") and len(args) >= 2 and args[0] == "-n" and _PLAIN.fullmatch(args[1]) and \
            not re.search(r"\d", args[1]):
        return f"{cmd}: invalid number of lines: ‘{args[1]}’\n", 1  # (`head -n FILE`: the count left out)
    if cmd == "diff":
        return _diff_files(args, s)
    if cmd == "rmdir" and args == ["."]:
        return "rmdir: failed to remove '.': Invalid argument\n", 1  # (the folder the shell is in: refused)
    if cmd == "mkdir" and len(args) == 1 and _PLAIN.fullmatch(args[0]) and not args[0].startswith("-") and \
            _exists(_abs(args[0], s), s):
        return f"mkdir: cannot create directory ‘{args[0]}’: File exists\n", 1
    if cmd == "ls" and any(a.startswith("-") and "l" in a for a in args):
        listed = _long(args, s)
        return (listed, 0) if listed is not None else None
    if cmd == "ls" and args[:1] == ["-a"] and len(args) <= 2:
        folder = _abs(args[1], s) if len(args) == 2 else s.cwd
        names = _children(folder, s) if folder in s.known_dirs and folder != s.home else None
        if names is None or any(n.startswith(".") for n in names):
            return None  # a home holds dot files the state does not list (.bashrc, .profile)
        if (s.git and folder == s.git.repo) or folder in s.other_repos:
            if s.env.get("LANG", "C.UTF-8").split(".")[0] not in ("C", "POSIX"):
                return None
            names = [".git", *names]  # a repository's top: git keeps everything in .git
        everything = [".", "..", *names]
        if s.env.get("LANG", "C.UTF-8").split(".")[0] in ("C", "POSIX"):
            everything.sort(key=lambda n: n.encode())  # (in bytes: `*.txt` comes before `.`)
        return "".join(n + "\n" for n in everything), 0
    if cmd == "ls" and len([a for a in args if a != "-1"]) <= 1 and not any(a.startswith("-") and a != "-1" for a in args):
        target = [a for a in args if a != "-1"]
        folder = _abs(target[0], s) if target else s.cwd
        if folder in s.files:
            return (target[0] + "\n", 0) if target else None
        if not target and folder not in s.dirs and any(_within(folder, d) for d in s.deleted):
            return "", 0  # the folder was removed under the shell: a real shell stays there, and it is empty
        if folder not in s.known_dirs:
            if target and (folder in s.deleted or posixpath.dirname(folder) in s.known_dirs and not _exists(folder, s)):
                return (f"ls: cannot access '{target[0]}': No such file or directory\n", 2) \
                    if _QUOTABLE.fullmatch(target[0]) else None
            return None
        names = [n for n in _children(folder, s) if not n.startswith(".")]
        return ("".join(n + "\n" for n in names), 0)
    if cmd == "git" and s.git and s.git.unknown:
        return None  # the episode ran git commands the state does not model (merge, reset…)
    if cmd == "git" and args and re.fullmatch(r"[A-Za-z][A-Za-z0-9_.-]*", args[0]) and "PATH" not in s.env and \
            "git config" not in s.defined and not any(p.endswith(GIT_CONFIG_FILES) for p in s.files):
        said = gittypo.unknown(args[0])  # (an alias needs git config, or a config file written)
        if said is not None:
            return said, 1
    if cmd == "git" and args[:1] == ["init"]:
        return _init_answer(s, args[1:])
    if cmd == "git" and args[:1] == ["branch"] and args[1:] in ([], ["-a"], ["--all"], ["-l"], ["--list"]) and \
            s.git and s.git.commits and _in_repo(s):  # (-a adds remote-tracking branches: the world's repository has none)
        return "".join(("* " if b == s.git.branch else "  ") + b + "\n" for b in sorted(s.git.branches)), 0
    if cmd == "git" and len(args) == 3 and args[:2] in (["checkout", "-b"], ["switch", "-c"]) and s.git and \
            s.git.commits and _in_repo(s) and re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._/-]*", args[2]) and ".." not in args[2]:
        # Creating a branch prints one line (local changes are carried over silently); one that
        # exists is refused. Switching to an existing branch also lists modified files: not answered.
        if args[2] in s.git.branches:
            return f"fatal: a branch named '{args[2]}' already exists\n", 128
        return f"Switched to a new branch '{args[2]}'\n", 0
    if cmd == "git" and s.no_repo and _within(s.cwd, s.home) and args[:1] and args[0] in NEED_A_REPO and \
            not (s.git and _within(s.cwd, s.git.repo)):
        return NOT_A_REPO, 128  # (global options first, `-C` or `--git-dir`, may name one: not answered)
    parsed = _git_globals(args) if cmd == "git" else None
    if parsed and parsed[1][:1] == ["commit"] and _in_repo(s) and _no_identity(s, parsed[0]) and \
            _commit_message(parsed[1]) is not None and not {"-h", "--help"} & set(parsed[1]):
        user = posixpath.basename(s.home)
        return NO_IDENTITY.format(who=f"{user}@{s.host}.(none)"), 128
    if parsed and s.git and s.git.commits and _in_repo(s):
        config, sub = parsed
        found = _commit_answer(s, config, sub) if sub[:1] == ["commit"] else \
            _git_answer(s, sub) if not config else None
        if found is not None:
            return found
    if parsed and s.git and not s.git.commits and _in_repo(s) and not s.git.unknown:
        return _unborn_answer(s, *parsed)
    if cmd == "git" and args[:2] == ["log", "--oneline"] and len(args) <= 4 and s.git and s.git.commits and _in_repo(s):
        n = len(s.git.commits)
        if len(args) > 2:
            m = re.fullmatch(r"-n(\d+)|-(\d+)", "".join(args[2:]))
            if not m:
                return None
            n = int(m.group(1) or m.group(2))
        known = s.git.hashes if len(s.git.hashes) == len(s.git.commits) else []
        if not known or not all(known):
            return None  # a commit whose hash the state does not know (`commit -q`): the model answers
        lines = [f"{h} {msg}" for h, msg in zip(known, s.git.commits)][::-1][:n]
        return "".join(line + "\n" for line in lines), 0
    return None


def _fed_answer(s: TerminalState, fed: Heredoc) -> tuple[str, int] | None:
    """`cat <<EOF` prints the text; `tee [-a] FILE <<EOF` writes it and prints it (FILE's folder
    there). Writing it with `cat > FILE` prints nothing: `silent`'s."""
    parts = _split(fed.line)
    if not parts or len(parts) != 1 or not fed.literal:
        return None
    words = parts[0]
    if words == ["cat"]:
        return fed.text, 0
    names = [w for w in words[1:] if w not in ("-a", "--append")]
    if words[0] == "tee" and len(names) == 1 and _PLAIN.fullmatch(names[0]) and not names[0].startswith("-") and \
            posixpath.dirname(_abs(names[0], s)) in s.dirs and _abs(names[0], s) not in s.dirs:
        return fed.text, 0
    return None


# What git says to a commit where no one is configured to make it (the sandbox, a fresh machine):
# it asks before anything else, even with nothing to commit
NO_IDENTITY = ("Author identity unknown\n\n*** Please tell me who you are.\n\nRun\n\n"
               "  git config --global user.email \"you@example.com\"\n  git config --global user.name \"Your Name\"\n\n"
               "to set your account's default identity.\nOmit --global to set the identity only in this repository.\n\n"
               "fatal: unable to auto-detect email address (got '{who}')\n")


def _python_c(one_liner: tuple[str, list[str]], s: TerminalState) -> tuple[str, int] | None:
    """What a one-liner prints where the state decides it (pyeval.py): python3 is the world's,
    and the modules the code imports are not shadowed from the shell's folder."""
    code, argv = one_liner
    imported = pyeval.imports(code[:pycheck.MAX_CODE])
    if len(code) > pycheck.MAX_CODE or imported is None or "python3" in s.defined or \
            not (imported <= pyeval.UNSHADOWED or _no_shadowing(s)) or \
            {"PATH", "PYTHONSTARTUP", "PYTHONHOME"} & set(s.env):
        return None
    said = pyeval.run(code, pyeval.Machine(s.cwd, lambda path: _contents(path, s), argv))
    return None if said is None else (said, 0)


_TESTS = {"-f": "file", "-d": "dir", "-e": "any", "-s": "nonempty"}


def _condition(s: TerminalState, command: str) -> tuple[str, int] | None:
    """`test -f|-d|-e|-s PATH` (or `[ … ]`, `[[ … ]]`, with `!`): nothing printed, and 0 where it holds
    (1 where not), where the state knows what is at PATH; None otherwise."""
    words = shell_words(command)
    if not words or words[0] not in ("test", "[", "[["):
        return None
    if words[0] != "test":
        if words[-1] != {"[": "]", "[[": "]]"}[words[0]]:
            return None
        words = words[:-1]
    expr = words[1:]
    negate = expr[:1] == ["!"]
    expr = expr[1:] if negate else expr
    if len(expr) != 2 or expr[0] not in _TESTS or not _PLAIN.fullmatch(expr[1]) or "$" in command:
        return None
    path, test = _abs(expr[1], s), _TESTS[expr[0]]
    kind = _kind(path, s)
    if kind is None or kind == "file" and test == "nonempty" and s.files.get(path) is None:
        return None
    holds = kind == "dir" and test in ("dir", "any", "nonempty") or \
        kind == "file" and (test in ("file", "any") or test == "nonempty" and bool(s.files[path]))  # (a folder's size is never 0)
    return "", 0 if holds != negate else 1


def cwd_after(state: dict[str, Any], command: str, exit_code: int) -> str:
    """The shell's folder after `command`: where the commands of a list that ran left it, where the
    state runs the list (`[ -d x ] && cd x || echo no`, `cd nope; ls`), else following each `cd`
    (next_cwd)."""
    listed = lists.commands(command)
    if listed and len(listed) > 1:
        evaluated = _evaluate(state, listed)
        if evaluated is not None and evaluated[1] == exit_code:
            return evaluated[2]["cwd"]
    return next_cwd(command, state.get("cwd", ""), state.get("home", ""), exit_code)


def _evaluate(state: dict[str, Any], listed: list[tuple[str, str]]) -> tuple[str, int, dict[str, Any]] | None:
    """A list run as bash runs it (a command after `&&` where the last one succeeded, after `||`
    where it failed, after `;` always), each command answered by the state on the state the ones
    before it left: the output, the exit code and that state; None where one is not known."""
    staged, said, code, lines = state, [], 0, 0
    for op, text in listed:
        if op == "&&" and code != 0 or op == "||" and code == 0:
            lines += text.count("\n")
            continue
        s = TerminalState.model_validate(staged)
        found = _condition(s, text)
        if found is None and (lists.commands(text) or [("", "")])[0][1] == text:  # (one command: no list again)
            found = answer(staged, text) or silent(staged, text)
        if found is None or lines and found[0].startswith("/bin/bash: line 1: "):
            return None  # (bash names the line a command is on: after a newline, not the first)
        lines += text.count("\n")
        out, code = found
        said.append(out)
        staged = apply(staged, text, out, code, next_cwd(text, s.cwd, s.home, code))
    return "".join(said), code, staged


def _apply_segment(s: TerminalState, segment: str) -> None:
    """One command of a line whose commands all succeeded: a simple one as it is applied alone (what
    it printed not told apart from the rest), a pipeline as a whole (one that only reads changes
    nothing; another may have written anything)."""
    parts = _split(segment)
    if parts is not None:
        kinds = _expansions(segment, s)
        for words in parts:
            _apply_one(s, [_expand(w, s) for w in words], None, kinds=kinds)
    elif not _reads_only(segment, s):
        _forget_writes(s, None)


def _quiet_prefix(state: dict[str, Any], parts: list[list[str]]) -> dict[str, Any] | None:
    """The state once the parts of a line before its last ran, where each prints nothing and
    succeeds (`silent`'s, or a quiet `git add`), so that the line prints the last part's output
    alone; None where one may print or fail."""
    staged = state
    for part in parts[:-1]:
        line = shlex.join(part)
        s = TerminalState.model_validate(staged)
        if not (_quiet_add(s, part) or silent(staged, line) == ("", 0)):
            return None
        staged = apply(staged, line, "", 0, next_cwd(line, s.cwd, s.home, 0))
    return staged


def _quiet_add(s: TerminalState, words: list[str]) -> bool:
    """`git add …` that prints nothing and changes nothing a commit's refusal depends on."""
    return words[:2] == ["git", "add"] and s.git is not None and _in_repo(s) and _git_answer(s, words[1:]) == ("", 0)


def _no_identity(s: TerminalState, config: dict[str, str]) -> bool:
    """No email for a commit anywhere git looks: not given (`-c user.email=…`), not in the
    environment, no git config run or config file written in the episode (the world writes none)."""
    return bool(s.host) and "user.email" not in config and s.identity is not None and \
        "user.email" not in s.identity and not _env_identity(s)


def _env_identity(s: TerminalState) -> bool:
    """Something beside `git config` may say who commits: the environment, or a config file written."""
    return bool({"GIT_AUTHOR_EMAIL", "GIT_COMMITTER_EMAIL", "EMAIL", "GIT_AUTHOR_NAME", "GIT_COMMITTER_NAME",
                 "GIT_AUTHOR_DATE", "GIT_COMMITTER_DATE", "PATH", "HOME", "GIT_CONFIG_GLOBAL"} & set(s.env)) or \
        any(p.endswith(GIT_CONFIG_FILES) and s.files[p] is not None for p in s.files)


QUIET = {"-q", "--quiet"}
# What may make a new repository other than git's defaults: its branch name, its template
GIT_SETTINGS = frozenset({"HOME", "PATH", "XDG_CONFIG_HOME", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "GIT_CONFIG_NOSYSTEM",
                          "GIT_TEMPLATE_DIR", "GIT_DIR", "GIT_WORK_TREE", "GIT_CEILING_DIRECTORIES", "GIT_CONFIG_COUNT",
                          "GIT_CONFIG_PARAMETERS"})


def _new_repository(s: TerminalState, repo: str) -> bool:
    """`git init` at `repo` makes a repository there, on git's default branch (`master`: nothing
    configures another): the folder is known to hold none (or is made now, inside a known one)."""
    if s.configured or GIT_SETTINGS & set(s.env) or not _within(repo, s.home) or repo in s.files or \
            any(_within(repo, d) for d in s.deleted) or repo in s.other_repos or s.git and repo == s.git.repo:
        return False
    if repo in s.dirs:
        return repo in s.known_dirs and ".git" not in _children(repo, s)
    return posixpath.dirname(repo) in s.known_dirs  # (git makes the folder; the folders on the way too: not followed)


def _fresh(s: TerminalState, repo: str) -> GitState | None:
    """The repository `git init` makes at `repo` where the world has none yet (the state follows one
    repository): no commit, every file under it untracked. Followed only where every folder under
    it is known whole; None where it is not modelled (a repository may be elsewhere already, or
    inside it: git adds that as an embedded one)."""
    if s.git is not None or not s.no_repo or not _new_repository(s, repo) or \
            any(_within(r, repo) for r in s.other_repos):
        return None
    inside = [p for p in [*s.files, *s.dirs] if p != repo and _within(p, repo) and not any(_within(p, d) for d in s.deleted)]
    if any(posixpath.basename(p) == ".git" for p in inside):
        return None
    folders = [repo, *(p for p in inside if p in s.dirs)] if repo in s.dirs else []
    return GitState(repo=repo, branch="master", branches=[], follows=all(d in s.known_dirs for d in folders),
                    base={posixpath.relpath(p, repo): "" for p in inside if p not in s.dirs})


def _init_answer(s: TerminalState, args: list[str]) -> tuple[str, int] | None:
    """`git init [-q] [FOLDER]`: a repository made (git's hint on the branch's name first, as on a
    machine without config), or made again."""
    where = [a for a in args if a not in QUIET]
    if len(where) > 1 or any(a.startswith("-") for a in where):
        return None
    repo = _abs(where[0], s) if where else s.cwd
    quiet = len(where) < len(args)
    if s.git is not None and repo == s.git.repo and not any(_within(posixpath.join(repo, ".git"), d) for d in s.deleted):
        return ("" if quiet else f"Reinitialized existing Git repository in {repo}/.git/\n"), 0
    if not _new_repository(s, repo):
        return None
    return ("" if quiet else gitstatus.INIT_HINT + f"Initialized empty Git repository in {repo}/.git/\n"), 0


# `git log` on a branch with no commit yet refuses, whatever form it was asked in
UNBORN_LOG = re.compile(r"--oneline|-\d+|-n\d*|\d+|--max-count=\d+|--(?:format|pretty)=.*|--stat|--graph|--decorate|"
                        r"-p|--patch|--name-only|--name-status|--reverse|--no-pager")


def _unborn_answer(s: TerminalState, config: dict[str, str], args: list[str]) -> tuple[str, int] | None:
    """git in a repository made in the episode that has no commit yet (`git init`): status says so,
    `git log` refuses, no branch is listed yet; adding, diffs and the first commit as anywhere."""
    g = s.git
    assert g is not None
    if args[:1] == ["commit"]:
        return _commit_answer(s, config, args)
    if config:
        return None
    if args[:1] == ["log"] and all(UNBORN_LOG.fullmatch(a) for a in args[1:]):
        return f"fatal: your current branch '{g.branch}' does not have any commits yet\n", 128
    if args[:1] == ["branch"] and args[1:] in ([], ["-a"], ["--all"], ["-l"], ["--list"], ["-v"], ["-vv"]):
        return "", 0
    if args == ["branch", "--show-current"]:
        return g.branch + "\n", 0
    if args[:1] in (["status"], ["add"], ["diff"], ["ls-files"]):
        return _git_answer(s, args)
    return None


TAG_LISTING = (["tag"], ["tag", "-l"], ["tag", "--list"])
STATUS_FORMS = {(): "long", ("-s",): "short", ("--short",): "short", ("--porcelain",): "porcelain",
                ("-s", "-b"): "branch", ("-sb",): "branch", ("--short", "--branch"): "branch"}


def _git_answer(s: TerminalState, args: list[str]) -> tuple[str, int] | None:
    """git in the repository the state models: status, the branch's name, tags, and the commands
    that print nothing when they succeed (add, `commit -q`, tag)."""
    g = s.git
    assert g is not None
    if args[:1] == ["status"] and tuple(args[1:]) in STATUS_FORMS:
        form = STATUS_FORMS[tuple(args[1:])]
        listed = changes(s, g.repo if form == "porcelain" else s.cwd)
        if listed is None:
            return None
        if form == "long":  # (a repository with no commit yet says so: `git init`'s, _unborn_answer)
            return gitstatus.long(g.branch, listed, unborn="" if g.commits else gitstatus.NO_COMMITS), 0
        head = f"## {g.branch}\n" if g.commits else f"## No commits yet on {g.branch}\n"
        return (head if form == "branch" else "") + gitstatus.short(listed), 0
    if args[:1] == ["diff"]:
        return _diff(s, args[1:])
    if args[:1] == ["log"]:
        return _log(g, args[1:])
    if args in (["rev-parse", "--abbrev-ref", "HEAD"], ["branch", "--show-current"]):
        return g.branch + "\n", 0
    if args[:1] == ["rev-parse"]:
        said = gitlog.rev_parse(args[1:], g.head, g.branch, g.repo, s.cwd)
        return None if said is None else (said, 0)
    if args == ["ls-files"]:
        tracked = _tracked(s)
        return None if tracked is None else ("".join(posixpath.relpath(posixpath.join(g.repo, rel), s.cwd) + "\n"
                                                     for rel in tracked if _within(posixpath.join(g.repo, rel), s.cwd)), 0)
    if len(args) == 2 and args[0] == "show" and args[1].startswith(("HEAD:", "@:")) and g.follows:
        rel = args[1].partition(":")[2]
        if not re.fullmatch(r"[A-Za-z0-9._+@=,-]+(/[A-Za-z0-9._+@=,-]+)*", rel) or rel.startswith(".") and "/" in rel:
            return None  # (`HEAD:./x` is relative to the shell's folder; a folder is listed as a tree)
        if rel in g.base:  # written since: the blob it had at the last commit ("": none)
            text = g.texts.get(g.base[rel]) if g.base[rel] else None
        else:  # as the last commit has it
            text = _contents(posixpath.join(g.repo, rel), s)
        return None if text is None or posixpath.join(g.repo, rel) in s.dirs else (text, 0)
    if args == ["branch", "-v"] and len(g.branches) == 1 and g.hashes[-1:] and g.hashes[-1] and \
            len(g.hashes) == len(g.commits) and "\n" not in g.commits[-1]:
        return f"* {g.branch} {g.hashes[-1]} {g.commits[-1]}\n", 0
    if args in TAG_LISTING:
        return "".join(t + "\n" for t in sorted(g.tags)), 0  # (tags the seed's repository had: none)
    if args[:1] == ["tag"] and len(args) == 2 and re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}", args[1]) and \
            not args[1].endswith((".lock", ".")) and ".." not in args[1]:
        if args[1] in g.tags:
            return f"fatal: tag '{args[1]}' already exists\n", 128
        return "", 0
    if args == ["describe", "--tags"]:
        here = [t for t, at in g.tags.items() if at == len(g.commits)]
        return (here[0] + "\n", 0) if len(here) == 1 else None
    if args[:1] == ["add"] and not any(_within(r, g.repo) for r in s.other_repos):
        paths = [a for a in args[1:] if not a.startswith("-")]
        if set(args[1:]) - set(paths) <= {"-A", "--all"} and paths in ([], ["."]) and len(args) > 1:
            return "", 0  # everything (with nothing embedded, a repository made inside, to warn about)
        if paths and len(paths) == len(args) - 1 and all(_exists(_abs(p, s), s) and _within(_abs(p, s), g.repo)
                                                         for p in paths) and \
                not any(posixpath.basename(p) == ".gitignore" for p in s.files if _within(p, g.repo)):
            return "", 0  # (a path that is ignored, outside or missing is refused: not answered)
    return None


def _log(g: GitState, args: list[str]) -> tuple[str, int] | None:
    """`git log` (`-N`, `-n N`, `--max-count=N`) in git's default form, `--pretty=oneline` or a
    format (gitlog.py), newest first, where the state knows each shown commit's full id, author and
    time. (`--oneline` alone: from the abbreviated ids, in `answer`.)"""
    parsed = gitlog.options(args)
    if parsed is None:
        return None
    count, form = parsed
    made = [None] * (len(g.commits) - len(g.made)) + g.made
    history = list(zip(g.commits, made))[::-1]
    shown = history[:len(history) if count is None else count]
    if any(m is None for _, m in shown) or any("\n" in message for message, _ in shown):
        return None
    if form is None:
        return gitobjects.log([(message, m.id, m.who, m.when) for message, m in shown]), 0
    parents = [m.id if m else None for _, m in history[1:]] + [""]  # (the world's first commit: none)
    if any(parent is None for parent in parents[:len(shown)]):
        return None
    entries = [gitlog.Entry(message, m.id, m.who, m.when, parent) for (message, m), parent in zip(shown, parents)]
    alone = len(g.branches) == 1 and not g.tags and not g.unknown
    said = gitlog.render(entries, form, f"HEAD -> {g.branch}" if alone else None)
    return None if said is None else (said, 0)


DIFF_FORMS = {(): "patch", ("--stat",): "stat", ("--name-only",): "names", ("--name-status",): "status"}


def _diff(s: TerminalState, args: list[str]) -> tuple[str, int] | None:
    """`git diff` (the index against the working tree), `--cached`/`--staged` (the last commit
    against the index), `HEAD` (the last commit against the working tree); as patches, `--stat`,
    `--name-only` or `--name-status`, of the whole repository or of one path."""
    g = s.git
    assert g is not None
    sides = "index-work"
    if args[:1] in (["--cached"], ["--staged"]):
        sides, args = "head-index", args[1:]
    elif args[:1] == ["HEAD"]:
        sides, args = "head-work", args[1:]
    only = g.repo
    if args[-2:-1] == ["--"] or (args and not args[-1].startswith("-")):
        word = args[-1]
        only = _abs(word, s)  # one path, relative to the shell's folder
        args = args[:-2] if args[-2:-1] == ["--"] else args[:-1]
        if not _PLAIN.fullmatch(word) or not _within(only, g.repo) or not _exists(only, s):
            return None  # (a path that is not there is refused, or taken for a revision)
    form = DIFF_FORMS.get(tuple(args))
    if form is None or not g.follows or listed_unknown(s):
        return None
    rows, patches = [], []
    for rel in sorted(g.base, key=lambda p: p.encode()):
        path = posixpath.join(g.repo, rel)
        if not _within(path, only):
            continue
        head, staged = g.base[rel], g.index.get(rel, g.base[rel])
        work = _blob(s, path)
        old, new = {"index-work": (staged, work), "head-index": (head, staged), "head-work": (head, work)}[sides]
        if sides != "head-index" and not staged and not head:
            continue  # untracked: no diff shows it
        if old is None or new is None:
            return None
        if old == new or (sides == "index-work" and not staged):
            continue
        texts = [None if not blob else s.files.get(path) if blob == work else g.texts.get(blob) for blob in (old, new)]
        if any(blob and text is None for blob, text in zip((old, new), texts)):
            return None
        if not re.fullmatch(r"[A-Za-z0-9._/+@=,-]+", rel):
            return None  # git quotes such names: not written here
        if form == "patch":  # (where the hunks go: only where no algorithm could place them otherwise)
            one = gitdiff.patch(rel, texts[0], texts[1], old, new)
            if one is None:
                return None
            patches.append(one[0])
        else:  # (how many lines: a shortest diff's, whatever it places where)
            counted = gitdiff.counts(texts[0] or "", texts[1] or "")
            if counted is None:
                return None
            one = ("", *counted)
        rows.append((rel, one[1], one[2], "A" if not old else "D" if not new else "M"))
    if form == "patch":
        return "".join(patches), 0
    if form == "names":
        return "".join(r[0] + "\n" for r in rows), 0
    if form == "status":
        return "".join(f"{r[3]}\t{r[0]}\n" for r in rows), 0
    shown = gitdiff.stat([r[:3] for r in rows])
    return (shown, 0) if shown is not None else None


def listed_unknown(s: TerminalState) -> bool:
    """Some path changed since the last commit has a blob the state does not know."""
    g = s.git
    return g is None or any(v is None for v in list(g.base.values()) + list(g.index.values()))


def _git_globals(args: list[str]) -> tuple[dict[str, str], list[str]] | None:
    """git's `-c name=value` options and the words from the subcommand on; None where another global
    option comes first (`-C`, `--git-dir`…: another repository, perhaps)."""
    config: dict[str, str] = {}
    i = 0
    while i < len(args) and args[i].startswith("-"):
        if args[i] == "-c" and i + 1 < len(args) and "=" in args[i + 1]:
            name, _, value = args[i + 1].partition("=")
            config[name.lower()] = value
            i += 2
        elif args[i] == "--no-pager":
            i += 1
        else:
            return None
    return config, args[i:]


def _commit_answer(s: TerminalState, config: dict[str, str], args: list[str]) -> tuple[str, int] | None:
    """`git commit -q -m MSG` prints nothing when there is something to commit; the author must be
    given (`-c user.name=… -c user.email=…`): git refuses a commit without one where none is
    configured, as in the sandbox."""
    message = _commit_message(args)
    flags = [a for a in args[1:] if a != message]
    who = {**(s.identity or {}), **config}
    if message is None or not who.get("user.name") or not who.get("user.email") or \
            (not config.get("user.email") and _env_identity(s)) or \
            any(a.startswith("-") and not re.fullmatch(r"-[aqm]+", a) and a not in ("--all", "--quiet") for a in flags):
        return None
    index = _committed(s, _commits_all(args))
    if index is None:
        return None
    if not any(index[rel] != head for rel, head in s.git.base.items()):
        listed = changes(s, s.cwd)  # nothing to commit: git says why, as `git status` does
        unborn = "" if s.git.commits else gitstatus.INITIAL_COMMIT
        return (gitstatus.long(s.git.branch, listed, unborn=unborn), 1) if listed is not None else None
    if any(re.fullmatch(r"-[a-zA-Z]*q[a-zA-Z]*", a) or a == "--quiet" for a in flags):
        return "", 0
    made = _new_commit(s, config, _commits_all(args), message)
    return (made.said(s.git.branch, made.made(s.git.head, int(clock())), root=not s.git.commits), 0) \
        if made is not None else None


def _new_commit(s: TerminalState, config: dict[str, str], every_tracked: bool,
                message: str) -> gitobjects.Commit | None:
    """The commit `git commit -m message` would make, where the state knows the whole tree, the
    parent's id and who commits; None elsewhere (a rename git may detect, a file too long to count
    its lines, a message git would clean up, nothing to commit)."""
    g = s.git
    assert g is not None
    index = _committed(s, every_tracked)
    name = config.get("user.name") or (s.identity or {}).get("user.name")
    email = config.get("user.email") or (s.identity or {}).get("user.email")
    if index is None or not g.head and g.commits or not name or not email or _env_identity(s) or \
            not re.fullmatch(r"[^\n<>]*[^\s<>]", name) or not re.fullmatch(r"[^\s<>]+", email) or \
            not re.fullmatch(r"[^\n]*\S", message) or message != message.strip() or \
            any(posixpath.basename(p) == ".gitignore" for p in s.files if _within(p, g.repo)):
        return None
    if any(p.count("/") > gitobjects.MAX_DEPTH for p in s.files):
        return None  # (a tree that deep: the model's)
    tree: dict[str, str] = {}  # every tracked file's blob after the commit
    for path, content in s.files.items():
        rel = posixpath.relpath(path, g.repo)
        if not _within(path, g.repo) or rel in g.base or rel.startswith(".git/"):
            continue
        if content is None or any(_within(path, d) for d in s.deleted):
            return None
        tree[rel] = gitobjects.blob_id(content)
    changed = []
    work_left = gitdiff.MAX_COUNTED ** 2 * 4  # line pairs compared, all files together (an answer stays quick)
    for rel, head in g.base.items():
        after = index[rel]
        if after:
            tree[rel] = after
        if after != head:
            work = posixpath.join(g.repo, rel)
            texts = [("" if not b else g.texts.get(b) if g.texts.get(b) is not None else
                      s.files.get(work) if b == _blob(s, work) else None) for b in (head, after)]
            if texts[0] is None or texts[1] is None:
                return None
            work_left -= (texts[0].count("\n") + 1) * (texts[1].count("\n") + 1)
            counted = gitdiff.counts(texts[0], texts[1]) if work_left > 0 else None
            if counted is None:
                return None
            changed.append((rel, head or "", after or "", *counted))
    if not changed or (any(not c[1] for c in changed) and any(not c[2] for c in changed)):
        return None  # (nothing to commit; or a file made and one removed: git may call it a rename)
    return gitobjects.Commit(tree=gitobjects.tree_of(tree), who=f"{name} <{email}>", message=message, changed=changed)


def _committed(s: TerminalState, every_tracked: bool) -> dict[str, str | None] | None:
    """The blob each changed path has in the index a commit takes (`-a`: every tracked file's change
    staged first); None where the state does not follow the repository or does not know a blob."""
    g = s.git
    if g is None or not g.follows:
        return None
    index = {rel: g.index.get(rel, head) for rel, head in g.base.items()}
    if every_tracked:
        for rel, staged in index.items():
            if staged:  # tracked: its change, a removal too, goes in
                index[rel] = _kept(s, posixpath.join(g.repo, rel))
    return None if any(v is None for v in index.values()) else index


# The options with which each silent command still prints nothing and succeeds; with any other
# option the state does not answer (the real tool may refuse it: `mkdir -r` is an error).
SILENT_FLAGS = {
    "touch": {"-c", "-a", "-m"}, "mkdir": {"-p", "--parents"}, "cd": set(), "export": set(), "unset": set(),
    "rm": {"-r", "-f", "-rf", "-fr", "-R", "-Rf", "-fR", "--recursive", "--force"},
    "cp": {"-r", "-R", "-a", "-p", "-f", "-rf", "-fr", "--recursive"}, "mv": {"-f", "-n"},
}


# GNU coreutils' short options, and those that take a value (the rest of the word is the value).
# An option outside the set is refused the same way every time, so the state answers it exactly.
SHORT_OPTIONS = {"mkdir": ("pvmZ", "m"), "touch": ("acdfhmrt", "drt"), "rm": ("fiIrRdv", ""),
                 "cp": ("abdfiHlLnPpRrsStTuvxZ", "St"), "mv": ("bfinStTuvZ", "St")}


def invalid_option(words: list[str]) -> str | None:
    """The error GNU coreutils prints for an unknown short option (`mkdir -r x`), or None."""
    known = SHORT_OPTIONS.get(words[0]) if words else None
    if known is None:
        return None
    valid, with_value = known
    for word in words[1:]:
        if word == "--":
            break
        if not word.startswith("-") or word.startswith("--") or word == "-":
            continue
        for ch in word[1:]:
            if ch not in valid:
                return f"{words[0]}: invalid option -- '{ch}'\nTry '{words[0]} --help' for more information.\n"
            if ch in with_value:
                break
    return None


def silent(state: dict[str, Any], command: str) -> tuple[str, int] | None:
    """Commands that print nothing when they succeed, where the state says they will succeed:
    touch, mkdir, echo/printf into a file, export, cd into a known folder, rm/cp/mv of known paths;
    and those commands' refusal of an option they do not have."""
    s = TerminalState.model_validate(state)
    fed = heredoc(command)
    parts = _split(fed.line if fed else command)
    if not parts:
        return None
    if fed and ("$(" in fed.text or "`" in fed.text):
        return None  # (commands in the text run as it is fed: the model's)
    if len(parts) == 1 and not fed:
        refused = invalid_option(parts[0])
        if refused is not None:
            return refused, 1
    line = fed.line if fed else command
    if "$(" in line or "`" in line:
        return None
    kinds = _expansions(line, s)  # a pattern or braces the shell expands: which paths, and so their refusals, not known
    if kinds is None or {"target glob", "target brace"} & kinds or \
            {"glob", "brace"} & kinds and any(p[0] not in ("echo", "printf") for p in parts):
        return None
    for n, words in enumerate(parts):
        try:
            words = [_expand(w, s, strict=True) for w in words]
        except _Unknown:
            return None
        cmd, args = words[0], words[1:]
        plain = [a for a in args if not a.startswith("-")]
        redirect = next((i for i, w in enumerate(words) if w in (">", ">>")), None)
        flags = [a for a in args if a.startswith("-")]
        if redirect is None and cmd in SILENT_FLAGS and not set(flags) <= SILENT_FLAGS[cmd]:
            return None  # an option the real tool may refuse (`mkdir -r`) or that prints: the model answers
        if redirect is not None:
            if words[0] == "printf" and (redirect < 2 or words[1].startswith("-")):
                return None  # (no format: printf refuses; one like an option: its options, or a refusal)
            fed_cat = fed is not None and n == len(parts) - 1 and words[:redirect] == ["cat"] and len(words) == 3
            target = _abs(words[redirect + 1], s) if redirect + 1 < len(words) else ""
            if (words[0] not in ("echo", "printf") and not fed_cat) or not _writable(target) or target in s.dirs or \
                    words[redirect + 1].endswith("/") or target not in s.files and posixpath.dirname(target) not in s.known_dirs:
                return None  # (into a folder, a name ending in /, or what may be one: bash's "Is a directory")
        elif cmd == "touch" and plain and all(posixpath.dirname(_abs(a, s)) in s.dirs and _writable(_abs(a, s)) and
                                              (not a.endswith("/") or _abs(a, s) in s.dirs) for a in plain):
            pass  # (`touch x/` of no folder x: refused)
        elif cmd == "mkdir" and plain and all(not _exists(_abs(a, s), s) and not _file_on_the_way(_abs(a, s), s) and
                                              _writable(_abs(a, s)) and
                                              ("-p" in args or posixpath.dirname(_abs(a, s)) in s.dirs) and
                                              _nearest_folder(_abs(a, s), s) in s.known_dirs for a in plain):
            for a in plain:  # later parts of the line may write there (a new folder: known, and empty)
                folder = _abs(a, s)
                while folder not in s.dirs and folder != "/":
                    s.dirs.append(folder)
                    s.known_dirs.append(folder)
                    folder = posixpath.dirname(folder)
        elif cmd == "git" and args[:1] == ["config"] and args[1:2] != ["--local"] and \
                [a for a in args[1:] if a != "--global"][:1] in (["user.name"], ["user.email"]) and \
                len([a for a in args[1:] if a != "--global"]) == 2 and (_in_repo(s) or "--global" in args):
            pass  # (setting who commits prints nothing)
        elif cmd in ("export", "unset") and args:
            pass
        elif cmd == "python3" and _compiles(s, args):
            pass
        elif cmd == "sed" and (literal := _sed_literal(args)) and _contents(literal[3], s) is not None:
            pass
        elif cmd == "sed" and len(parts) == 1 and literal and _absent(_abs(literal[3], s), s):
            return f"sed: can't read {args[2]}: No such file or directory\n", 2
        elif cmd == "cd" and len(plain) == 1 and _abs(plain[0], s) in s.dirs and not plain[0].startswith("//"):
            s.cwd = _abs(plain[0], s)  # later parts of the line run there
        elif cmd == "rm" and plain and "*" not in "".join(plain) and all(_exists(_abs(a, s), s) and _writable(_abs(a, s)) and
                                                                         (_abs(a, s) in s.files or "-r" in "".join(args)
                                                                          or "-rf" in args) for a in plain):
            pass
        elif cmd in ("cp", "mv") and len(plain) == 2 and _abs(plain[0], s) in s.files and _writable(_abs(plain[1], s)) and \
                (cmd == "cp" or _writable(_abs(plain[0], s))) and \
                (posixpath.dirname(_abs(plain[1], s)) in s.dirs or _abs(plain[1], s) in s.dirs) and \
                _abs(plain[0], s) not in (_abs(plain[1], s), posixpath.join(_abs(plain[1], s), posixpath.basename(plain[0]))):
            pass  # (onto itself: "are the same file", refused)
        else:
            return None
    return "", 0


def _within(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def _in_repo(s: TerminalState) -> bool:
    """The shell is in the repository the state models (not in another one made inside or beside it)."""
    return bool(s.git) and _within(s.cwd, s.git.repo) and not any(_within(s.cwd, r) for r in s.other_repos)


# python -m of a module that is not installed: nothing ran, nothing was written
_NOT_RUN = re.compile(r"(?:/usr(?:/local)?/bin/)?python[0-9.]*: No module named [\w.]+\n?")
_DEFINES = re.compile(r"\balias\s+([\w.-]+)=|\bfunction\s+([\w.-]+)|(?:^|[;&|]\s*)([\w.-]+)\s*\(\s*\)")  # alias, function
_COMMITTED = re.compile(r"^\[[^\]\s]+(?: \(root-commit\))? ([0-9a-f]{7,40})\] ", re.M)


def apply(state: dict[str, Any], command: str, output: str, exit_code: int, cwd_after: str) -> dict[str, Any]:
    """The state after `command` printed `output` (exit code `exit_code`)."""
    s = TerminalState.model_validate(state)
    if re.match(r"\s*git\s+(?:log|show|rev-parse|branch)\b", command):
        _ids_shown(s, output)
    fed = heredoc(command)
    line = fed.line if fed else command  # (the text fed is data: what it defines is not the shell's)
    s.defined += [next(g for g in m.groups() if g) for m in _DEFINES.finditer(line)]
    if re.search(r"\bgit\b", line) and re.search(r"\bconfig\b", line) and "git config" not in s.defined:
        s.defined.append("git config")  # git aliases may exist from now on
    listed = None if fed else lists.commands(line)
    if listed and len(listed) > 1:
        evaluated = _evaluate(state, listed)
        if evaluated is not None and evaluated[:2] == (output, exit_code):  # (the state ran it as reality did)
            staged = TerminalState.model_validate(evaluated[2])
            staged.defined = s.defined  # (its folder: where the commands that ran left it, not every `cd` of the line)
            return staged.model_dump()
    parts = _split(line)
    segments = lists.segments(line) if parts is None and not fed and exit_code == 0 else None
    if segments and len(segments) > 1:  # commands joined by && (all ran, and succeeded), pipelines among them
        for segment in segments:
            _apply_segment(s, segment)
        s.cwd = cwd_after or s.cwd
        return s.model_dump()
    if parts is None:  # pipes, subshells, substitutions: unless every program only reads, forget what it may have changed
        if fed or not _reads_only(command, s):
            _forget_writes(s, None)
        parts = []
    kinds = _expansions(line, s)
    if exit_code != 0 and len(parts) > 1 and not (parts[-1][:2] == ["git", "commit"] and _quiet_prefix(state, parts)):
        _forget_writes(s, None)  # (the line failed, and the state did not run it: which command failed, not known)
        s.cwd = cwd_after or s.cwd
        return s.model_dump()
    # the output is the last part's alone where those before it print nothing (`git add -A && git commit`)
    quiet_before = len(parts) > 1 and _quiet_prefix(state, parts) is not None
    for n, words in enumerate(parts):
        if exit_code != 0 and len(parts) == 1:
            if exit_code not in (126, 127) and words[0] not in MODELLED and _writes(words[0], words[1:], s) and \
                    not _NOT_RUN.fullmatch(output):
                _forget_writes(s, None)  # a program that failed may still have written (python's __pycache__)
            _redirected_anyway(s, words, kinds, output)
            if words[0] in FILE_COMMANDS:
                _partly_done(s, words, kinds)
            break
        if exit_code != 0 and n == len(parts) - 1 and words[:2] == ["git", "commit"]:
            break  # (the line failed: a commit at its end made nothing, whatever ran before it)
        words = [_expand(w, s) for w in words]
        if fed and n == len(parts) - 1 and words[0] in INTERPRETERS:
            # a script fed to a program that runs it may write anything: the files it names above all
            named = {_abs(w, s) for w in re.findall(r"[\w./~-]+", fed.text) if len(w) < 256}
            _forget_writes(s, None, sorted(p for p in named if p in s.files))
            continue
        last = n == len(parts) - 1
        _apply_one(s, words, output if len(parts) == 1 or last and quiet_before else None, fed if last else None,
                   kinds=kinds)
    s.cwd = cwd_after or s.cwd
    return s.model_dump()


def _ids_shown(s: TerminalState, output: str) -> None:
    """An output of git that may show commit ids, where the last commits' ids are the state's own
    (`commit -q`: made at the second the state saw it done). Where it shows, for one of them, the id
    git gives it at a second in the minute before, that is its id; the commits after it get theirs
    on it as their parent."""
    g = s.git
    if g is None or not g.made or g.made[-1] is None or not g.made[-1].tree:
        return
    shown = {x[:7] for x in re.findall(r"\b[0-9a-f]{7,40}\b", output)}
    first = len(g.made)
    while first > 0 and g.made[first - 1] is not None and g.made[first - 1].tree:  # type: ignore[union-attr]
        first -= 1  # (the oldest of the state's own ids in a row)
    parent = g.made[first].parent  # type: ignore[union-attr]
    for i in range(first, len(g.made)):
        m = g.made[i]
        assert m is not None
        ids = [(when, gitobjects.commit_id(m.tree, parent, m.who, when, g.commits[i]))
               for when in range(m.when, m.when - 61, -1)] if shown else []
        when, made = next(((when, made) for when, made in ids if made[:7] in shown),
                          (m.when, gitobjects.commit_id(m.tree, parent, m.who, m.when, g.commits[i])))
        g.made[i] = Made(id=made, who=m.who, when=when, tree=m.tree, parent=parent)
        g.hashes[i] = made[:7]
        parent = made
    g.head = parent


def _touched(s: TerminalState, path: str) -> None:
    """Something at or under `path` is about to be written or removed: each file of the repository
    there that nothing touched since the last commit keeps its blob as `base` (the working tree has
    it as committed until now). A folder whose listing is not known whole, or the repository's own
    folder, ends `follows`."""
    g = s.git
    if g is None or not (_within(path, g.repo) or _within(g.repo, path)):
        return
    g.all_staged = False
    if not g.follows:
        return
    if _within(g.repo, path) or _within(path, g.repo + "/.git"):
        g.follows = False  # the repository itself removed, moved or changed
        return
    if path in s.dirs:
        if any(_within(d, path) and d not in s.known_dirs for d in s.dirs):
            g.follows = False
            return
        targets = [p for p in s.files if _within(p, path)]  # (a file removed earlier is no longer listed)
    else:
        targets = [path]
    for p in targets:
        rel = posixpath.relpath(p, g.repo)
        if rel not in g.base:  # (touched before: its blob at the last commit is kept already)
            g.base[rel] = _kept(s, p)


def _kept(s: TerminalState, path: str) -> str | None:
    """The blob of the file at `path` (as _blob), its content kept for `git diff`."""
    blob = _blob(s, path)
    if blob and s.git is not None:
        s.git.texts[blob] = s.files[path] or ""
    return blob


def _blob(s: TerminalState, path: str) -> str | None:
    """The id of the blob git makes of the file at `path` now: "" where there is none, None where
    the state does not know (its content, or whether it exists)."""
    gone = any(_within(path, d) for d in s.deleted)
    if path in s.files and not gone:
        content = s.files[path]
        return None if content is None else gitobjects.blob_id(content)
    if path in s.dirs and not gone:
        return None  # a folder where a file was: not followed
    return "" if gone or posixpath.dirname(path) in s.known_dirs else None


def _tracked(s: TerminalState) -> list[str] | None:
    """The paths in git's index (relative to the repository), in its order; None where the state does
    not follow every change, or git would quote a name."""
    g = s.git
    if g is None or not g.follows:
        return None
    nested = [posixpath.join(g.repo, ".git"), *(r for r in s.other_repos if r != g.repo)]
    unchanged = [posixpath.relpath(p, g.repo) for p in s.files
                 if _within(p, g.repo) and p != g.repo and p not in s.dirs and not any(_within(p, n) for n in nested)
                 and not any(_within(p, d) for d in s.deleted)]
    tracked = {rel for rel in unchanged if rel not in g.base} | \
        {rel for rel, head in g.base.items() if g.index.get(rel, head) != ""}
    if any(not re.fullmatch(r"[A-Za-z0-9._/+@=,-]+", rel) for rel in tracked):
        return None
    return sorted(tracked, key=lambda rel: rel.encode())


def changes(s: TerminalState, relative_to: str) -> list[tuple[str, str]] | None:
    """What `git status --short` lists, as (path relative to `relative_to`, status letters), sorted
    as git sorts them; None where the state does not know it all."""
    g = s.git
    if g is None or not g.follows:
        return None
    out: list[tuple[str, str]] = []
    untracked: set[str] = set()
    for rel in sorted(g.base, key=lambda p: p.encode()):
        head = g.base[rel]
        staged = g.index.get(rel, head)
        path = posixpath.join(g.repo, rel)
        work = _blob(s, path)
        if work is None and staged == "" and path in s.files and path not in s.deleted and path not in s.dirs:
            work = "?"  # a file git does not track: that it is there is all that shows (`??`)
        if head is None or staged is None or work is None:
            return None
        if not re.fullmatch(r"[A-Za-z0-9._/+@=,-]+", rel):
            return None  # git quotes names with spaces and other characters: not written here
        if staged == "":
            if head:
                out.append((rel, "D "))
            if work:
                untracked.add(rel)
            continue
        x = " " if staged == head else ("A" if not head else "M")
        y = " " if work == staged else ("D" if not work else "M")
        if x + y != "  ":
            out.append((rel, x + y))
    if untracked and any(posixpath.basename(p) == ".gitignore" for p in s.files if _within(p, g.repo)):
        return None  # what is ignored: not worked out here
    shown: set[str] = set()
    for rel in untracked:  # a folder holding no tracked file is shown once, as the folder
        parts = rel.split("/")
        for n in range(1, len(parts)):
            folder = "/".join(parts[:n])
            full = posixpath.join(g.repo, folder)
            if not _tracked_under(s, full, untracked):
                if any(_within(d, full) and d not in s.known_dirs for d in s.dirs):
                    return None  # a file the state does not know of may be tracked there
                shown.add(folder + "/")
                break
        else:
            shown.add(rel)
    out += [(p, "??") for p in sorted(shown, key=lambda p: p.encode())]
    return [(posixpath.relpath(posixpath.join(g.repo, p), relative_to) + ("/" if p.endswith("/") else ""), xy)
            for p, xy in out]


def _tracked_under(s: TerminalState, folder: str, untracked: set[str]) -> bool:
    """Some file under `folder` is tracked (all of them are but the untracked ones)."""
    g = s.git
    assert g is not None
    return any(_within(p, folder) and _blob(s, p) != "" and posixpath.relpath(p, g.repo) not in untracked
               for p in s.files) or any(_within(posixpath.join(g.repo, rel), folder) and g.index.get(rel, head)
                                        for rel, head in g.base.items())


# `sed -i 's/OLD/NEW/[g]' FILE` with OLD and NEW plain text: no character a basic regular
# expression or a replacement gives a meaning to (`.`, `*`, `[`, `^`, `$`, `\`, `&`), no `/`
_SED_OLD = re.compile(r"[A-Za-z0-9_ :,=#@%-]+")
_SED_NEW = re.compile(r"[A-Za-z0-9_ :,=#@%.-]*")


def _sed_literal(args: list[str]) -> tuple[str, str, bool, str] | None:
    """(old, new, every occurrence, file) of a literal in-place substitution; None: anything else."""
    if len(args) != 3 or args[0] != "-i":
        return None
    m = re.fullmatch(r"s/([^/]*)/([^/]*)/(g?)", args[1])
    if not m or not _SED_OLD.fullmatch(m.group(1)) or not _SED_NEW.fullmatch(m.group(2)) or \
            not _PLAIN.fullmatch(args[2]) or args[2].startswith("-"):
        return None
    return m.group(1), m.group(2), m.group(3) == "g", args[2]


def _substituted(text: str, old: str, new: str, every: bool) -> str:
    """sed's `s/old/new/[g]` on each line (the first occurrence, or every one); a last line without
    its newline stays without one."""
    return "\n".join(line.replace(old, new, -1 if every else 1) for line in text.split("\n"))


def _write(s: TerminalState, path: str, content: str | None, append: bool = False, learnt: bool = False) -> None:
    """`path` holds `content` now: written by the command (or, `learnt`, read: nothing changed)."""
    if not learnt:
        _touched(s, path)
    if append:
        old = s.files.get(path, "" if path not in s.files else None)
        content = None if old is None or content is None else old + content
    if not learnt and path not in s.files:
        _made(s, path)
    elif not learnt:
        _changed(s, path)
    s.files[path] = content
    if path in s.deleted:
        s.deleted.remove(path)
    parent = posixpath.dirname(path)
    if parent not in s.dirs:
        s.dirs.append(parent)


def _made(s: TerminalState, path: str) -> None:
    """A new entry at `path` (or one moved or replaced there): the newest of its folder, and its
    folder changed now."""
    if path in s.order:
        s.order.remove(path)
    if _within(path, s.home) or _within(path, "/tmp"):
        s.order.append(path)
    _changed(s, path)
    _changed(s, posixpath.dirname(path))


def _changed(s: TerminalState, path: str) -> None:
    """`path` was written now (its folder, where an entry was made or removed in it)."""
    if _within(path, posixpath.dirname(s.home)):
        s.times[path] = int(clock())


clock = time.time  # (the tests set the clock)


def _archive_target(cmd: str, args: list[str]) -> str | None:
    """The archive `tar -czf NAME …` / `tar czf NAME …` / `zip [-r] NAME …` creates (None: not a create)."""
    if cmd == "zip":
        plain = [a for a in args if not a.startswith("-")]
        return plain[0] if plain else None
    if not args:
        return None
    flags = args[0].lstrip("-")
    if "c" not in flags or "f" not in flags:
        return None
    # The file name follows the bundled flags (`czf NAME`) or `-f NAME` / `--file=NAME` later.
    for i, a in enumerate(args):
        if a.startswith("--file="):
            return a.split("=", 1)[1]
        if a == "-f" and i + 1 < len(args):
            return args[i + 1]
    return args[1] if len(args) > 1 and flags.endswith("f") else None


# Programs that only read (with the options agents use): after them the state stays as it was.
READS = frozenset({
    "ls", "cat", "echo", "printf", "pwd", "cd", "grep", "egrep", "fgrep", "rg", "find", "head", "tail", "wc", "sort",
    "uniq", "cut", "tr", "diff", "cmp", "file", "stat", "du", "df", "whoami", "id", "hostname", "date", "env",
    "printenv", "which", "type", "history", "tree", "less", "more", "nl", "column", "basename", "dirname",
    "realpath", "readlink", "uname", "uptime", "ps", "free", "true", "false", "test", "[", "seq", "sleep",
    "export", "unset", "alias", "clear", "man", "help", "jq", "md5sum", "sha1sum", "sha256sum", "od", "xxd",
    "hexdump", "strings", "awk", "sed", "locale", "groups", "w", "who", "top", "lsb_release", "nproc",
})
# git subcommands that need a repository: outside one each stops with NOT_A_REPO (`git diff` does not:
# outside a repository it compares two paths)
NEED_A_REPO = frozenset({"status", "log", "show", "branch", "add", "commit", "checkout", "switch", "restore",
                         "reset", "rev-parse", "describe", "tag", "ls-files", "blame", "stash", "merge", "rebase",
                         "shortlog", "reflog"})
# As git prints it in the sandbox, whose home is on the root file system (recorded 81 times)
# Where git reads aliases from: a file written there may define one
GIT_CONFIG_FILES = ("/.gitconfig", "/.config/git/config", "/.git/config")
NOT_A_REPO = ("fatal: not a git repository (or any parent up to mount point /)\n"
              "Stopping at filesystem boundary (GIT_DISCOVERY_ACROSS_FILESYSTEM not set).\n")
# Programs that run what they are fed (a here-document's text is then a script)
INTERPRETERS = frozenset({"python", "python3", "bash", "sh", "zsh", "dash", "node", "perl", "ruby", "php", "sqlite3",
                          "psql", "mysql", "ssh", "sudo", "su", "xargs", "git", "make", "env", "source", "."})
# git subcommands that only read, as the first stage of a pipe
GIT_PIPED_READS = frozenset({"log", "status", "diff", "show", "blame", "ls-files", "rev-parse", "describe",
                             "shortlog", "grep"})
MODELLED = frozenset({"touch", "mkdir", "rm", "rmdir", "mv", "cp", "tar", "zip", "git", "tee"})
BRANCH_LISTING = frozenset({"-a", "-r", "-v", "-vv", "-l", "--list", "--all", "--show-current"})
GIT_READS = frozenset({"status", "log", "diff", "show", "blame", "grep", "ls-files", "rev-parse", "describe",
                       "shortlog", "reflog", "help", "version", "--version", "cat-file", "ls-tree", "remote"})


def _writes(program: str, args: list[str], s: TerminalState | None) -> bool:
    """Whether this program, with these arguments, may change files (beyond what `apply` models), run
    in the state's folder (None: a folder not known)."""
    if program in ("python3", "python") and s is not None and (_no_shadowing(s) and pycheck.reads_only(args) or
                                                                len(args) == 1 and _absent(_abs(args[0], s), s)):
        return False  # (a script that is not there runs nothing)
    if program == "xargs":  # as the program it runs (echo without one): past xargs' own options
        i = 0
        while i < len(args) and args[i].startswith("-"):
            i += 2 if args[i] in ("-n", "-I", "-P", "-L", "-d", "-s", "-a", "-E") else 1
        return i < len(args) and _writes(args[i], args[i + 1:], s)
    if program == "git" and args[:1] and args[0] in GIT_PIPED_READS:
        return False  # (`git log | head`: reads the repository; status may refresh the index's stat data only)
    if program not in READS:
        return True
    if program in ("sed", "awk", "perl") and any(a.startswith(("-i", "--in-place")) for a in args):
        return True
    if program == "awk":
        return awk.may_write(args)
    if program == "find" and {"-delete", "-exec", "-execdir", "-ok", "-fprint"} & set(args):
        return True
    return program == "sort" and any(a.startswith("-o") for a in args)


def _compiles(s: TerminalState, args: list[str]) -> bool:
    """`python3 -m py_compile FILE…` succeeds, printing nothing: each file is known and compiles (by
    the server's own Python, 3.11 like the sandbox's; compiling runs nothing), and nothing in the
    folder stands in for the standard library. Each file's bytecode goes to `__pycache__` beside it,
    named for the server's Python (as the sandbox's: cpython-311)."""
    if args[:2] != ["-m", "py_compile"] or len(args) < 3 or not _no_shadowing(s) or \
            "python3" in s.defined or {"PATH", "PYTHONPATH", "PYTHONDONTWRITEBYTECODE", "PYTHONPYCACHEPREFIX"} & set(s.env):
        return False
    for name in args[2:]:
        text = _contents(name, s) if name.endswith(".py") and not name.startswith("-") else None
        folder = posixpath.dirname(_abs(name, s))
        if text is None or len(text) > MAX_COMPILED or folder not in s.dirs or \
                posixpath.join(folder, "__pycache__") in s.files or not _within(folder, s.home):
            return False
        try:
            compile(text, name, "exec", dont_inherit=True)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return False  # (the error as the world's python words it: the model's)
    return True


MAX_COMPILED = 1_000_000


def _no_shadowing(s: TerminalState) -> bool:
    """Python started here imports the standard library from it: the folder is known whole and holds
    no module of the standard library's name (a `types.py` is imported, and compiled into
    `__pycache__`, by any `import ast`), and no PYTHONPATH adds others."""
    if s.cwd not in s.known_dirs or "PYTHONPATH" in s.env:
        return False
    return not any(name.removesuffix(".py") in sys.stdlib_module_names for name in _children(s.cwd, s)
                   if name.endswith(".py") or posixpath.join(s.cwd, name) in s.dirs)


def _reads_only(command: str, s: TerminalState) -> bool:
    """Every program of a pipeline or list only reads (and nothing is redirected into a file)."""
    words = shell_words(command)
    if words is None or any(w in (">", ">>", "&>", ">|") or "$(" in w or "`" in w for w in words):
        return False
    stages: list[list[str]] = [[]]
    for w in words:
        if w in ("|", "||", "&&", ";", "&", "(", ")", "|&"):
            stages.append([])
        elif stages[-1] or not re.fullmatch(r"\w+=.*", w):  # skip `NAME=value` before a program
            stages[-1].append(w)
    stages = [st for st in stages if st]
    here = None if any(st[0] == "cd" for st in stages) else s  # python's folder: known unless the line moves
    return bool(stages) and not any(_writes(st[0], st[1:], here) for st in stages)


def _forget_writes(s: TerminalState, under: str | None, files: list[str] | None = None) -> None:
    """A command the state cannot follow may have written: the listings of folders in the home and
    /tmp, where programs write (or `under`), are no longer known, nor the contents of the files it
    was given (or, for a repository-wide git command, of every file under the repository)."""
    roots = [under] if under else [s.home, "/tmp"]
    _touched(s, roots[0])
    if under is None:
        s.no_repo = False  # it may have made a repository
    for p in files or []:
        _touched(s, p)
    s.known_dirs = [d for d in s.known_dirs if not any(_within(d, root) for root in roots)]
    s.order = [p for p in s.order if not any(_within(p, root) for root in roots)]  # (it may have renamed)
    s.times = {p: t for p, t in s.times.items() if not any(_within(p, root) for root in roots)}
    for p in files or []:
        if p in s.files:
            s.files[p] = None
    if under is not None:
        for p in s.files:
            if _within(p, under):
                s.files[p] = None


def _sets_identity(s: TerminalState, args: list[str]) -> bool:
    """`git config [--global|--local] user.name|user.email VALUE`: who commits is known from now
    (a global one written to ~/.gitconfig); another config command naming them: no longer known."""
    scope = [a for a in args if a.startswith("-")]
    plain = [a for a in args if not a.startswith("-")]
    if not plain or plain[0].lower() not in ("user.name", "user.email"):
        return False
    if scope not in ([], ["--global"], ["--local"]) or len(plain) != 2 or s.identity is None:
        if len(plain) != 1 or scope not in ([], ["--global"], ["--local"]):
            s.identity = None  # (--unset, --add, a file named…: not followed)
        return len(plain) == 1 and s.identity is not None  # (reading one changes nothing)
    if scope == ["--global"]:
        _write(s, posixpath.join(s.home, ".gitconfig"), None)
    elif s.git is None or not _in_repo(s):
        s.identity = None  # (a repository's own config, outside the one the state follows)
        return True
    s.identity = {**s.identity, plain[0].lower(): plain[1]}
    return True


# git's reads that never write in .git itself, so its time (ls -l) stays; `git status` rewrites the
# index there every time (checked in the sandbox: twice in a row, on a clean tree and a changed one)
GIT_DIR_UNTOUCHED = frozenset({"log", "diff", "show", "blame", "grep", "ls-files", "rev-parse", "describe",
                               "shortlog", "reflog", "cat-file", "ls-tree", "help", "version", "--version"})


def _leaves_git_dir(args: list[str]) -> bool:
    """Whether git (its arguments from the subcommand on) leaves the .git folder's entries alone."""
    return bool(args) and (args[0] in GIT_DIR_UNTOUCHED and "--output" not in " ".join(args) or
                           args[0] == "branch" and set(args[1:]) <= BRANCH_LISTING or args in TAG_LISTING or
                           args in (["remote"], ["remote", "-v"]))


def _git_args(args: list[str]) -> list[str]:
    """git's arguments from the subcommand on (`-c name=value` and `--no-pager` before it dropped)."""
    i = 0
    while i < len(args) and args[i].startswith("-"):
        i += 2 if args[i] == "-c" else 1
    return args[i:]


def _stage(s: TerminalState, args: list[str]) -> None:
    """`git add` (it succeeded): the paths it names, or every path (`-A`, `.` at the top), are
    staged as the working tree has them."""
    g = s.git
    assert g is not None
    paths = [a for a in args if not a.startswith("-")]
    if any(_within(r, g.repo) for r in s.other_repos):
        g.follows = g.all_staged = False  # a repository inside is added as a link, or refused: not followed
        return
    if set(args) - set(paths) <= {"-A", "--all"} and (paths == [] or paths == ["."] and s.cwd == g.repo):
        g.all_staged = True
        paths = [g.repo]
    elif set(args) != set(paths) or any(c in "".join(paths) for c in "*?[") or \
            any(not _within(_abs(p, s), g.repo) for p in paths):
        g.follows = False  # options (`-u`, `-p`, `-f`…) or patterns: what was staged is not followed
        return
    else:
        paths = [_abs(p, s) for p in paths]
    for rel in g.base:
        if any(_within(posixpath.join(g.repo, rel), p) for p in paths):
            g.index[rel] = _kept(s, posixpath.join(g.repo, rel))


def _commit(s: TerminalState, index: dict[str, str | None] | None) -> None:
    """A commit was made of `index` (None: the state did not know it): it is the last commit now,
    and only the paths whose working tree differs from it stay changed."""
    g = s.git
    assert g is not None
    g.moved = True
    if g.all_staged:  # everything was staged, so everything was committed: nothing differs
        g.follows, g.base, g.index, g.texts, g.all_staged = True, {}, {}, {}, False
        return
    if index is None:
        g.follows = False
        return
    g.base = {rel: head for rel, head in index.items() if _blob(s, posixpath.join(g.repo, rel)) != head}
    g.index = {}
    g.texts = {h: t for h, t in g.texts.items() if h in g.base.values()}


def _commits_all(args: list[str]) -> bool:
    """`git commit -a` (`-am`, `--all`): every tracked file's change is staged first."""
    message = _commit_message(args)
    return any(a == "--all" or re.fullmatch(r"-[a-zA-Z]*a[a-zA-Z]*", a) for a in args[1:] if a != message)


def _commit_message(args: list[str]) -> str | None:
    """The message of `git commit -m MSG` (also `-am`, `-qm`); None for a commit the state cannot
    follow (an editor, --amend, -F, --fixup…)."""
    for a in args[1:]:
        if a in ("--amend", "-F", "--file", "-C", "-c", "--fixup", "--squash") or a.startswith("--fixup="):
            return None
    for i, a in enumerate(args[1:], 1):
        if re.fullmatch(r"-[aqvs]*m", a) and i + 1 < len(args):
            return args[i + 1]
        if a.startswith("--message="):
            return a.split("=", 1)[1]
    return None


def _remove(s: TerminalState, path: str) -> None:
    _touched(s, path)
    for p in [p for p in s.files if _within(p, path)]:
        del s.files[p]
    s.dirs = [d for d in s.dirs if not _within(d, path)]
    s.known_dirs = [d for d in s.known_dirs if not _within(d, path)]
    s.order = [p for p in s.order if not _within(p, path)]
    s.times = {p: t for p, t in s.times.items() if not _within(p, path)}
    _changed(s, posixpath.dirname(path))
    if path not in s.deleted:
        s.deleted.append(path)


def _apply_one(s: TerminalState, words: list[str], output: str | None, fed: Heredoc | None = None,
               kinds: set[str] | None = frozenset()) -> None:  # type: ignore[assignment]
    """The state after one simple command (`words`, expanded). `kinds`: what the shell expanded in its
    line beside known variables (_expansions; None: not known): where that leaves the paths a
    command writes or removes unknown, what it may have changed is forgotten, and what echo and
    printf write is known only where the shell passed their words as written."""
    writes = words[0] in ("touch", "mkdir", "rm", "rmdir", "cp", "mv") or ">" in words or ">>" in words or \
        words[0] not in MODELLED and _writes(words[0], words[1:], s)  # (sed -i, python…: the files they name)
    allowed = PATH_EXPANSIONS | ({"glob"} if words[0] == "rm" and ">" not in words and ">>" not in words else set())
    if words[0] in ("echo", "printf") and (">" in words or ">>" in words):  # (its words are what it writes, not paths)
        allowed |= {"glob", "brace", "tilde", "quoted $", "variable"}
    if writes and (kinds is None or not kinds <= allowed):
        # (`mkdir -p a/{b,c}`, `touch $RANDOM`, `cp x src/*`, `echo x* >> f`: which paths, or what, not known)
        named = [w for w in words[1:] if w and w not in (">", ">>") and not w.startswith("-")]
        _forget_writes(s, None, [_abs(w, s) for w in named])
        s.known_dirs = [d for d in s.known_dirs if d != s.cwd and all(d != posixpath.dirname(_abs(w, s)) for w in named)]
        if kinds is None or {"variable", "target variable"} & kinds:
            roots = [s.home, "/tmp"]  # (a path from a variable the state does not know: anywhere it writes)
        else:  # a pattern or braces: any file under the folder they start in
            roots = [_abs(w[:m.start()], s) if w[:m.start()].endswith("/") or not w[:m.start()] else
                     posixpath.dirname(_abs(w[:m.start()], s)) for w in named if (m := re.search(r"[*?\[{]", w))]
        for root in roots:
            _forget_writes(s, root)
            if words[0] in ("mv", "rm", "rmdir"):  # what is still there under it: not known either
                s.files = {p: c for p, c in s.files.items() if not _within(p, root) or p == root}
                s.dirs = [d for d in s.dirs if not _within(d, root) or d == root]
        return
    literal = kinds is not None and not kinds - {"target tilde", "target backslash"}
    redirect = next((i for i, w in enumerate(words) if w in (">", ">>")), None)
    if redirect is not None:
        if redirect + 1 >= len(words):
            return
        target, append = _abs(words[redirect + 1], s), words[redirect] == ">>"
        cmd = words[:redirect]
        if cmd == ["cat"] and fed is not None:
            _write(s, target, fed.text if fed.literal else None, append)  # (expanded by the shell: not known)
        elif cmd and cmd[0] in ("echo", "printf"):
            _write(s, target, _echo_text(cmd[1:], cmd[0] == "printf") if literal else None, append)
        elif cmd in ([], [":"], ["true"]):
            _write(s, target, "", append)  # `: > file`: emptied (or, appending, as it was)
        else:
            _write(s, target, None, append)  # something was written; what exactly, the model knows
        return
    cmd, args = words[0], words[1:]
    plain = [a for a in args if not a.startswith("-")]
    if cmd == "tee" and fed is not None:
        for a in plain:
            _write(s, _abs(a, s), fed.text if fed.literal else None, "-a" in args or "--append" in args)
    elif cmd == "touch":
        for a in plain:
            p = _abs(a, s)
            if p in s.dirs:
                _changed(s, p)  # (a folder: its time)
            elif p not in s.files:
                _write(s, p, "")
            elif args == plain:
                _changed(s, p)
            else:
                s.times.pop(p, None)  # (-d, -r, -t: another time)
    elif cmd == "mkdir":
        parents = "-p" in args or "--parents" in args or any(re.fullmatch(r"-[a-zA-Z]*p[a-zA-Z]*", a) for a in args)
        for a in plain:
            chain = [_abs(a, s)]  # the folder, then (with -p) each missing parent up to one that exists
            while parents and posixpath.dirname(chain[-1]) not in ("/", chain[-1]) and \
                    not _exists(posixpath.dirname(chain[-1]), s):
                chain.append(posixpath.dirname(chain[-1]))
            for d in reversed(chain):  # from the top: a folder made where the listing was known is known
                # `mkdir x` fails on an existing x, so x is new; `mkdir -p x` does not, so x is new only
                # where its parent's listing is known
                new = d not in s.dirs and (posixpath.dirname(d) in s.known_dirs or (d == chain[0] and not parents))
                if d not in s.dirs:
                    s.dirs.append(d)
                    _made(s, d)
                if new and d not in s.known_dirs:
                    s.known_dirs.append(d)  # a new folder holds only what is made in it: fully known
                if d in s.deleted:
                    s.deleted.remove(d)
    elif cmd in ("rm", "rmdir"):
        for a in plain:
            pattern = _abs(a, s)
            folder, name = posixpath.split(pattern)
            if not any(c in a for c in "*?["):
                matches = [pattern]
            elif any(c in folder for c in "*?[") or folder not in s.known_dirs or "[^" in name:
                _forget_writes(s, None)  # (what the pattern matched: not known)
                return
            else:  # as bash expands it: within the folder, dot files only for a pattern starting with a dot
                matches = [posixpath.join(folder, n) for n in _children(folder, s)
                           if fnmatch.fnmatchcase(n, name) and (name.startswith(".") or not n.startswith("."))]
            for p in matches:
                _remove(s, p)
    elif cmd in ("mv", "cp") and len(plain) == 2 and _abs(plain[1], s) not in s.dirs and \
            _abs(plain[1], s) not in s.files and posixpath.dirname(_abs(plain[1], s)) not in s.known_dirs:
        # (onto what may be a folder: into it, or onto a file: not known which)
        _forget_writes(s, posixpath.dirname(_abs(plain[1], s)))
        if cmd == "mv":
            _forget_writes(s, posixpath.dirname(_abs(plain[0], s)))
    elif cmd in ("mv", "cp") and len(plain) == 2:
        src, dst = _abs(plain[0], s), _abs(plain[1], s)
        _touched(s, dst)  # also where the files it moves are not known one by one
        if cmd == "mv":
            _touched(s, src)
        if dst in s.dirs:
            dst = posixpath.join(dst, posixpath.basename(src))
        moved = {p: c for p, c in s.files.items() if p == src or p.startswith(src + "/")}
        whole = src in s.files and src not in s.dirs  # one file (a folder's copy is made in cp's own order)
        if not whole or cmd == "mv":
            s.order = [p for p in s.order if not _within(p, dst)]  # (replaced, or made in an order not known)
        for p, c in moved.items():
            _write(s, dst + p[len(src):], c, learnt=not whole)
            if not whole:
                _touched(s, dst + p[len(src):])
        if src in s.dirs:  # a folder: the folders in it go too (empty ones as well), known where they were
            for d in [d for d in s.dirs if _within(d, src)]:
                if dst + d[len(src):] not in s.dirs:
                    s.dirs.append(dst + d[len(src):])
                if d in s.known_dirs and dst + d[len(src):] not in s.known_dirs:
                    s.known_dirs.append(dst + d[len(src):])
            if cmd == "mv":
                s.dirs = [d for d in s.dirs if not _within(d, src)]
                s.known_dirs = [d for d in s.known_dirs if not _within(d, src)]
        kept = s.times.get(src)  # a rename keeps the file's time; so does cp -p or -a
        if cmd == "mv":
            for p in moved:
                del s.files[p]
            s.order = [p for p in s.order if not _within(p, src)]
            if whole:
                _made(s, dst)  # a rename: the newest entry of its folder
            _changed(s, posixpath.dirname(src))
            if src not in s.deleted:
                s.deleted.append(src)
        s.times = {p: t for p, t in s.times.items() if not (_within(p, src) and cmd == "mv" or _within(p, dst))}
        if whole and (cmd == "mv" or {"-p", "-a", "--preserve", "--archive"} & set(args)):
            if kept is not None:
                s.times[dst] = kept
        elif whole:
            _changed(s, dst)
        _changed(s, posixpath.dirname(dst))
    elif cmd in ("tar", "zip") and _archive_target(cmd, args):
        _write(s, _abs(_archive_target(cmd, args), s), None)  # an archive now exists; its bytes are unknown
    elif cmd == "cat" and len(plain) == 1 and output is not None and not args[0].startswith("-") and \
            kinds is not None and kinds <= PATH_EXPANSIONS:  # (`cat *.txt`: which file it read, not known)
        p = _abs(plain[0], s)
        if p not in s.dirs:
            _write(s, p, output, learnt=True)  # what cat showed is what the file holds
    elif cmd == "ls" and not plain and output is not None and "-" not in "".join(args):
        for name in output.splitlines():  # (one a line, to a pipe: a name may hold spaces)
            p = posixpath.join(s.cwd, name)
            if not _exists(p, s):
                s.files.setdefault(p, None)
        if s.cwd not in s.known_dirs:
            s.known_dirs.append(s.cwd)
    elif cmd == "cd" and len(args) <= 1 and args != ["-"]:
        s.cwd = _abs(args[0], s) if args else s.home  # the rest of the line runs there
    elif cmd == "export":
        for a in args:
            k, sep, v = a.partition("=")
            if sep:
                s.env[k] = v
    elif cmd == "unset":
        for a in args:
            s.env.pop(a, None)
    elif cmd == "git" and args[:1] in (["init"], ["clone"]):
        where = [a for a in args[1:] if not a.startswith("-")]
        target = where[0] if args[0] == "init" and where else (where[1] if len(where) > 1 else None)
        if args[0] == "clone" and target is None and where:
            target = posixpath.basename(where[0].rstrip("/")).removesuffix(".git")
        repo = _abs(target, s) if target else s.cwd
        fresh = _fresh(s, repo) if args[0] == "init" and set(args[1:]) - set(where) <= QUIET else None
        if fresh is not None:  # the world's first repository: followed from its start
            if repo not in s.dirs:
                s.dirs.append(repo)
                s.known_dirs.append(repo)
                _made(s, repo)
            s.git = fresh  # (and no other repository: `no_repo` stays)
            _changed(s, repo)  # (.git made in it)
            s.times[posixpath.join(repo, ".git")] = int(clock())
            return
        if args[0] == "init" and s.git is not None and repo == s.git.repo:
            s.times.pop(posixpath.join(repo, ".git"), None)  # made again: nothing else changes (its time: not followed)
            return
        if s.git is not None and (_within(repo, s.git.repo) or _within(s.git.repo, repo)):
            s.git.follows = s.git.all_staged = False  # one made inside this one: an embedded repository
        s.no_repo = False
        if repo not in s.other_repos and not (s.git and repo == s.git.repo):
            s.other_repos.append(repo)
        missing = []  # (git makes the folders on the way too)
        folder = repo
        while folder not in s.dirs and folder not in ("/", ""):
            missing.append(folder)
            folder = posixpath.dirname(folder)
        for made in reversed(missing):
            s.dirs.append(made)
            _made(s, made)
            if made != repo and posixpath.dirname(made) in s.known_dirs:
                s.known_dirs.append(made)  # (holding only the next one down)
    elif cmd == "git" and args[:1] == ["config"] and _sets_identity(s, args[1:]):
        pass
    elif cmd == "git" and args[:1] == ["config"] and "--global" in args and \
            len([a for a in args[1:] if not a.startswith("-")]) >= 2:
        s.configured = True
        _write(s, posixpath.join(s.home, ".gitconfig"), None)  # (set: git writes the file, made if new)
    elif cmd == "git" and s.git is not None and _in_repo(s):
        args = _git_args(args)
        if not _leaves_git_dir(args):
            s.times.pop(posixpath.join(s.git.repo, ".git"), None)  # (git may have written there, at any time)
        plain = [a for a in args if not a.startswith("-")]
        sub = args[:1]
        commit_message = _commit_message(args) if sub == ["commit"] else None
        if not sub or sub[0] in GIT_READS or (sub == ["branch"] and set(args[1:]) <= BRANCH_LISTING) or \
                args in TAG_LISTING:
            pass  # reads: `git branch` alone lists the branches (it marked git unknown until now)
        elif sub == ["add"]:
            _stage(s, args[1:])
        elif commit_message is not None:
            config = (_git_globals(words[1:]) or ({}, []))[0]
            coming = _new_commit(s, config, _commits_all(args), commit_message) \
                if s.git.head or not s.git.commits else None
            if s.git.branch not in s.git.branches:
                s.git.branches.append(s.git.branch)  # (a repository's first commit makes its branch)
            parent, s.git.head = s.git.head, ""
            _commit(s, _committed(s, _commits_all(args)))
            if len(s.git.hashes) < len(s.git.commits):
                s.git.hashes += [""] * (len(s.git.commits) - len(s.git.hashes))
            s.git.commits.append(commit_message)
            done = _COMMITTED.search(output or "")  # "[main 1a2b3c4] message": the new commit's id
            s.git.hashes.append(done.group(1)[:7] if done else "")
            s.git.made += [None] * (len(s.git.commits) - 1 - len(s.git.made))
            s.git.made.append(None)
            if coming is not None and done:  # its full id: made in the last minute, at the second it shows
                now = int(clock())
                found = next(((made, when) for when in range(now + 1, now - 60, -1)
                              if (made := coming.made(parent, when)).startswith(done.group(1))), None)
                if found:
                    s.git.head, s.git.made[-1] = found[0], Made(id=found[0], who=coming.who, when=found[1])
            elif coming is not None and output == "":  # `commit -q`: git's id at this second, as far as is known
                now = int(clock())
                s.git.head = coming.made(parent, now)
                s.git.hashes[-1] = s.git.head[:7]
                s.git.made[-1] = Made(id=s.git.head, who=coming.who, when=now, tree=coming.tree, parent=parent)
        elif sub == ["tag"] and len(args) == 2 and not args[1].startswith("-"):
            s.git.tags[args[1]] = len(s.git.commits)
        elif sub in (["checkout"], ["switch"]) and len(plain) == 2 and "--" not in args and \
                set(args[1:]) - {plain[1]} <= {"-b", "-c", "-q"} and \
                (plain[1] in s.git.branches or {"-b", "-c"} & set(args)):
            if plain[1] not in s.git.branches:
                s.git.branches.append(plain[1])
            elif plain[1] != s.git.branch and s.git.moved:
                s.git.unknown = True  # that branch's files may differ from these: not followed
                _forget_writes(s, s.git.repo)
            s.git.branch = plain[1]
        elif sub == ["branch"] and len(plain) == 2 and len(args) == 2:
            if plain[1] not in s.git.branches:
                s.git.branches.append(plain[1])
        elif sub == ["branch"] and len(args) == 3 and args[1] in ("-d", "-D") and args[2] in s.git.branches:
            s.git.branches.remove(args[2])
        else:  # merge, reset, rebase, stash, restore, `checkout -- file`, commit --amend…: not modelled
            s.git.unknown = True
            _forget_writes(s, s.git.repo)
    elif cmd == "sed" and _sed_literal(args) and _contents(args[2], s) is not None:
        old, new, every, name = _sed_literal(args)  # (a literal substitution: the new contents are known)
        _write(s, _abs(name, s), _substituted(_contents(name, s), old, new, every))
        _made(s, _abs(name, s))  # sed -i writes a new file and renames it over the old one
    elif cmd == "python3" and _compiles(s, args):
        for name in args[2:]:
            source = _abs(name, s)
            folder = posixpath.join(posixpath.dirname(source), "__pycache__")
            if folder not in s.dirs:
                s.dirs.append(folder)
                _made(s, folder)
                if posixpath.dirname(folder) in s.known_dirs:
                    s.known_dirs.append(folder)
            compiled = posixpath.join(folder, f"{posixpath.basename(source)[:-3]}.{sys.implementation.cache_tag}.pyc")
            _write(s, compiled, None)  # (its bytes: not known)
            _made(s, compiled)  # (written beside it, then renamed over it: the newest entry)
    elif cmd not in MODELLED and _writes(cmd, args, s):
        _forget_writes(s, None, [_abs(a, s) for a in plain])  # python, make, sed -i…: may write anything
