"""The terminal's state — what an episode knows of the machine: the folder the shell is in, the
home, files (path -> contents, or None when only existence is known), the folders and those whose
whole listing is known, what was removed, the environment, the repository (GitState) — and what
every rule asks of it (where a path leads, whether it is there, what it holds) or does to it (a
file written, made or removed; what a command the state cannot follow may have changed).

shell.py answers commands from it (silent.py those that print nothing) and effects.py follows what
they do; repository.py answers git and history.py follows it; folders.py lists; variables.py expands
the shell's variables and follows what a line assigns. The helpers here keep their leading
underscore: they are shared by the rules package's modules, not part of the domain's interface (that
is TerminalRules, in __init__.py).
"""

from __future__ import annotations

import functools
import json
import posixpath
import re
import time
from typing import Any, Callable

from pydantic import BaseModel, ConfigDict, Field, model_validator

from . import gitobjects
from .output import tilde


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


class Stashed(BaseModel):
    """A `git stash` entry the state made: what it saved of each path the stash changed (relative to
    the repository): the working file's blob and the index's ("" where none), their texts, and the
    commit it was made on (how many commits the branch had)."""
    model_config = ConfigDict(extra="forbid")
    subject: str  # "WIP on main: 60b5326 Initial commit" (`git stash list`)
    commits: int
    work: dict[str, str] = Field(default_factory=dict)
    index: dict[str, str] = Field(default_factory=dict)
    texts: dict[str, str | None] = Field(default_factory=dict)


class Shown(BaseModel):
    """What a commit changed, as `git show` shows it: each path's blob before and after ("": none), the
    texts of those blobs, and the paths' modes before and after where one is not 100644."""
    model_config = ConfigDict(extra="forbid")
    change: dict[str, list[str]]
    texts: dict[str, str] = Field(default_factory=dict)
    modes: dict[str, list[str]] = Field(default_factory=dict)


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
    # No file git does not track was made where the state could not see it: a program run (a test
    # run, a script) ends it, keeping what it knows of the tracked ones (as it keeps the contents
    # of the files the program was not given); a commit of everything starts it again
    others_known: bool = True
    moved: bool = False  # a commit was made in the episode: another branch's files may differ
    tags: dict[str, int] = Field(default_factory=dict)  # lightweight tags: name -> commits then
    texts: dict[str, str] = Field(default_factory=dict)  # the contents of the blobs in `base` and `index`
    head: str = ""  # the last commit's full id, where known (the seed's, or one the state made)
    # .git holds what the world's seed commit made and nothing since (gitfiles.py lays it out): no
    # git command that may write there ran, nor a program that may run git
    pristine: bool = False
    # (while pristine) `git status` may have written the index anew (where a file was racily clean: changed in
    # the second the index was written), making it the newest entry in .git: where it is, not known
    index_moved: bool = False
    made: list[Made | None] = Field(default_factory=list)  # beside `commits`, where known (`git log`)
    # The last commit, where the episode made it and the state knew it whole (`git show`): each
    # path it changed, with its blob before and after ("": none), and those blobs' texts; None
    # where that commit is not one such (the world's, or one made of what the state did not know)
    last_change: dict[str, list[str]] | None = None
    last_texts: dict[str, str] = Field(default_factory=dict)
    last_modes: dict[str, list[str]] = Field(default_factory=dict)  # its paths' modes before and after, not 100644
    # What each commit before the last changed, beside `commits` (None where not known): gitpast.py
    earlier: list[Shown | None] = Field(default_factory=list)
    # `git stash` entries, newest first (stash@{0}), where known whole: the world makes its repository
    # with none, and `git init` makes one with none
    stash: list[Stashed] | None = None
    # The remotes, name -> URL, where known whole (gitremote.py): the world makes its repository with
    # none, and so does `git init`
    remotes: dict[str, str] | None = None
    # The files git records as executable (mode 100755, gitmodes.py), relative to the repository: at the
    # last commit, and in the index where it differs from that; `x_lost`: a git command the modes are not
    # followed through ran while one was in play (their picture holds again after a commit of everything)
    head_x: list[str] = Field(default_factory=list)
    index_x: dict[str, bool] = Field(default_factory=dict)
    x_lost: bool = False

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
    # Shell variables the episode set and did not export (`F=src/x.py`); None: set, to a value not
    # known (it then hides an exported one of that name in env)
    vars: dict[str, str | None] = Field(default_factory=dict)
    git: GitState | None = None
    # No git repository anywhere the shell can be but `git` (one `git init` made, where the world had
    # none): the world makes none, and nothing since could have (`git init`/`clone` of another, or a
    # program that may write anything, ends it)
    no_repo: bool = False
    defined: list[str] = Field(default_factory=list)  # aliases and functions the episode defined
    status: int = 0  # the last command's exit status (`$?`)
    # Every variable the shell has is named here (env, vars, what it starts with) or is bash's own, or
    # is among those a line may have set (`maybe_set`): one named nowhere is unset (`echo
    # $VIRTUAL_ENV` prints an empty line). False after a line that may have set variables it does not
    # name (`source`, `eval`, a function the episode defined…: variables.noted), and in states of
    # earlier versions.
    names_known: bool = False
    maybe_set: list[str] = Field(default_factory=list)
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
    # Which of them the repository's own config set (`git config user.name X` in it): there they win
    # over the global ones, whatever was set last; the global value beneath is not kept
    identity_local: list[str] = Field(default_factory=list)
    # A git config file the world has, or a `git config` beside who commits (init.defaultBranch…):
    # what a new repository starts as (its branch) is no longer known
    configured: bool = False
    # What a plain `ls` printed in a folder whose listing the state could not place (a name it does
    # not know may be a file or a folder): printed again while nothing the state follows of the
    # files has changed since (a world that does not contradict itself), never learnt from
    seen: dict[str, str] = Field(default_factory=dict)
    # The modes `chmod` gave paths, where not the default (files 644, folders 755); None: not known
    # (modes.py)
    modes: dict[str, int | None] = Field(default_factory=dict)


PATH_MAX, NAME_MAX = 4_096, 255  # bytes: Linux refuses a longer path or name ("File name too long")


def _abs(path: str, s: TerminalState) -> str:
    path = tilde(path, s.home)
    if len(path) > NAME_MAX // 4 and (len(path.encode()) >= PATH_MAX or
                                      any(len(part.encode()) > NAME_MAX for part in path.split("/"))):
        raise TooLong(path[:64])
    if "/." in path and _detour(path, s):
        raise Detour(path[:64])
    normal = posixpath.normpath(path if path.startswith("/") else posixpath.join(s.cwd, path))
    return "/" + normal.lstrip("/")  # (normpath keeps a leading `//`, which Linux reads as `/`)


def _detour(path: str, s: TerminalState) -> bool:
    """The path steps back (`..`) or stays (`.`) after a name of its own the state does not hold as a
    folder: `nope/../x`, `README.md/../x`, `src/notes.py/.`. The kernel walks a path name by name, so
    it refuses one whose name is missing or a file; normpath (`_abs`) drops the pair unseen."""
    at, named = "/" if path.startswith("/") else s.cwd, False
    for part in path.split("/"):
        if part in ("..", ".") and named and at not in s.dirs:
            return True
        if part == "..":
            at = posixpath.dirname(at)
        elif part not in ("", "."):
            at, named = posixpath.join(at, part), True
    return False


def _exists(path: str, s: TerminalState) -> bool:
    """Something is at `path`: a file or folder the state holds, or a repository's .git (git's own,
    not among them) not removed since."""
    return path in s.files or path in s.dirs or _git_folder(path, s)


def _git_folder(path: str, s: TerminalState) -> bool:
    """`path` is a repository's .git (git's own folder: not among the state's), not removed since."""
    return posixpath.basename(path) == ".git" and \
        posixpath.dirname(path) in ([s.git.repo] if s.git else []) + s.other_repos and \
        not any(_within(path, d) for d in s.deleted)


def _c_locale(s: TerminalState) -> bool:
    """The shell's locale sorts by bytes (C or POSIX: the sandbox's C.UTF-8), as `ls` then does."""
    return s.env.get("LANG", "C.UTF-8").split(".")[0] in ("C", "POSIX")


def _children(folder: str, s: TerminalState) -> list[str]:
    names = set()
    for p in list(s.files) + s.dirs:
        if p != folder and posixpath.dirname(p) == folder:
            names.add(posixpath.basename(p))
    # The sandbox's locale is C.UTF-8: `ls` sorts by bytes (README.md before a.txt); under a
    # language locale (en_US.UTF-8) it sorts by letters, ignoring case and leading dots.
    if _c_locale(s):
        return sorted(names)
    return sorted(names, key=lambda n: (n.lstrip(".").lower(), n))


def _globbed(folder: str, s: TerminalState) -> list[str]:
    """The names a pattern is matched against in `folder`, in the order bash sorts them: its
    children, and a repository's .git (git's own folder, not among them)."""
    names = _children(folder, s)
    if ".git" not in names and _git_folder(posixpath.join(folder, ".git"), s):
        names = sorted([*names, ".git"], key=None if _c_locale(s) else lambda n: (n.lstrip(".").lower(), n))
    return names


class _Unknown(Exception):
    """A word whose expansion the state does not know (a variable it never saw set)."""


class TooLong(_Unknown):
    """A path the kernel refuses, longer than PATH_MAX or with a name past NAME_MAX: `touch` of a
    300-letter name says "File name too long" and makes nothing, where the state made the file. Not
    followed: the rules' entry points (`refusing_long_paths`) leave the line to the model and forget
    what it may have written (`mkdir -p` of a path 4,096 bytes long succeeds: it goes a folder at a
    time)."""


class Detour(TooLong):
    """A path the kernel may refuse that the state would read as another (`_detour`): not followed,
    as TooLong (the model answers; what the line may have written is forgotten)."""


def refusing_long_paths(fallback: Callable[..., Any]) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """An entry point of the rules (answer, silent, cwd_after, apply): where a path of the line is
    one the kernel refuses (TooLong, from anywhere inside), what `fallback` makes of the same call."""
    def wrapped(fn: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(fn)
        def entered(*args: Any, **kwargs: Any) -> Any:
            try:
                return fn(*args, **kwargs)
            except TooLong:
                return fallback(*args, **kwargs)
        return entered
    return wrapped


# The machine's root as the shadow sandbox makes it (executors/sandbox.py): /usr from the host, the
# links to its folders, its own /etc, /dev and /proc, and the writable /home and /tmp. Nothing can be
# made or removed but below /home and /tmp.
ROOT = ("bin", "dev", "etc", "home", "lib", "lib64", "proc", "sbin", "tmp", "usr")


WRITABLE = ("/home", "/tmp")


def _writable(path: str) -> bool:
    """A path that can be made, written or removed (below /home or /tmp: not the mounts themselves),
    outside git's own folders (what is in them is git's, not followed here)."""
    return any(path != top and _within(path, top) for top in WRITABLE) and "/.git/" not in path + "/"


def _contents(name: str, s: TerminalState) -> str | None:
    """A file's contents where this episode knows them (None: unknown, removed, or a folder)."""
    path = _abs(name, s)
    if path in s.deleted or path in s.dirs or any(_within(path, d) for d in s.deleted) or name.endswith("/"):
        return None  # (`README.md/`: "Not a directory")
    return s.files.get(path)


def _kind(path: str, s: TerminalState) -> str | None:
    """What is at `path`: "dir", "file", "missing", or None where the state does not know (inside a
    repository's .git, which the state does not follow)."""
    if _git_folder(path, s):
        return "dir"
    if any(_within(path, d) for d in s.deleted):
        return "missing"  # (a .git removed too: `rm -rf .git` then `[ -d .git ]` was answered as there)
    if "/.git/" in path + "/":
        return None
    if _absent(path, s):
        return "missing"
    if path in s.dirs or path == s.home:
        return "dir"
    return "file" if path in s.files else None


def _absent(path: str, s: TerminalState) -> bool:
    """Nothing is at `path`: removed, or missing from a folder whose listing is known whole."""
    return path in s.deleted or (posixpath.dirname(path) in s.known_dirs and not _exists(path, s))


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


_PLAIN = re.compile(r"[A-Za-z0-9._/+-]+")  # a word GNU tools print between ‘ ’ as it is


_QUOTABLE = re.compile(r"[^'\\\x00-\x1f\x7f]+")  # a name ls puts between ' ' as it is (no quote, backslash or control)


def _within(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def _in_repo(s: TerminalState) -> bool:
    """The shell is in the repository the state models (not in another one made inside or beside it)."""
    return bool(s.git) and _within(s.cwd, s.git.repo) and not any(_within(s.cwd, r) for r in s.other_repos)


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
        g.follows = g.pristine = False  # the repository itself removed, moved or changed
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
    folder = posixpath.dirname(path)
    while folder not in ("/", "") and folder not in s.dirs and folder not in s.known_dirs:
        if _absent(folder, s):
            return ""  # (a folder on the way is not there: nothing under it either)
        folder = posixpath.dirname(folder)
    return "" if gone or posixpath.dirname(path) in s.known_dirs else None


def _write(s: TerminalState, path: str, content: str | None, append: bool = False, learnt: bool = False) -> None:
    """`path` holds `content` now: written by the command (or, `learnt`, read: nothing changed)."""
    if append:  # (onto a file the state does not know, or may not know is there: not known either)
        old = "" if _blob(s, path) == "" else s.files.get(path)
        content = None if old is None or content is None else old + content
    if not learnt:
        _touched(s, path)
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


def _forget_writes(s: TerminalState, under: str | None, files: list[str] | None = None,
                   index_kept: bool = False) -> None:
    """A command the state cannot follow may have written: the listings of folders in the home and
    /tmp, where programs write (or `under`), are no longer known, nor the contents of the files it
    was given (or, for a repository-wide git command, of every file under the repository), nor whether
    one that was removed is there again.
    `index_kept`: a program that runs no git, so what git tracks is still followed, but for the
    files it does not track (`git diff` stays known, `git status` does not)."""
    # (and /home above the home: the sandbox's, where a shell standing there writes too)
    roots = [under] if under else [s.home, "/tmp"] + (["/home"] if _within(s.home, "/home") else [])
    s.seen = {}
    if index_kept and under is None and s.git is not None and s.git.follows and _within(s.git.repo, s.home):
        s.git.others_known = s.git.all_staged = False
    else:
        _touched(s, roots[0])
        if s.git is not None and not index_kept:
            s.git.pristine = False  # (it may have run git)
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
    if files:  # (one it names may be there again, and so may the folders on its way)
        s.deleted = [d for d in s.deleted if not any(_within(p, d) for p in files)]
    if under is not None:
        for p in s.files:
            if _within(p, under):
                s.files[p] = None


def _forget_below(s: TerminalState, root: str) -> None:
    """A command the state cannot follow may have made, removed or moved anything below `root` (git
    restoring, removing or renaming files): what is there is no longer known, but for the folders the
    shell is in."""
    _forget_writes(s, root)
    keep = {d for d in s.dirs if _within(s.cwd, d)}
    s.files = {p: c for p, c in s.files.items() if not _within(p, root) or p == root}
    s.dirs = [d for d in s.dirs if not _within(d, root) or d in keep]
    s.deleted = [d for d in s.deleted if not _within(d, root)]
    s.order = [p for p in s.order if not _within(p, root)]


MAX_HELD = 16 << 20  # characters of the state document a step may take it past (contents, names, git's texts)


def within_bounds(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    """`after`, unless the step took the state document past MAX_HELD: the episode's server keeps it,
    logs it and reads it at every step. A loop of `cp big.txt big$i.txt` or a 2,000-folder `mkdir -p`
    grows it by megabytes a step. Then what is below the home and /tmp is forgotten (their listings
    and contents, but for the folders the shell is in), with what git kept of the texts it changed:
    those steps are the model's from then on, and nothing the state still answers is wrong."""
    size = len(json.dumps(after, ensure_ascii=False))
    if size <= MAX_HELD or size <= len(json.dumps(before, ensure_ascii=False)):
        return after
    s = TerminalState.model_validate(after)
    for root in dict.fromkeys((s.home, "/tmp")):
        _forget_below(s, root)
    if s.git is not None:
        s.git = s.git.model_copy(update={
            "follows": False, "base": {}, "index": {}, "texts": {}, "all_staged": False, "others_known": False,
            "pristine": False, "last_change": None, "last_texts": {}, "last_modes": {},
            "earlier": [], "stash": None})
    return s.model_dump()


def _remove(s: TerminalState, path: str) -> None:
    _touched(s, path)
    s.modes = {p: m for p, m in s.modes.items() if not _within(p, path)}
    for p in [p for p in s.files if _within(p, path)]:
        del s.files[p]
    s.dirs = [d for d in s.dirs if not _within(d, path)]
    s.known_dirs = [d for d in s.known_dirs if not _within(d, path)]
    s.order = [p for p in s.order if not _within(p, path)]
    s.times = {p: t for p, t in s.times.items() if not _within(p, path)}
    _changed(s, posixpath.dirname(path))
    if path not in s.deleted:
        s.deleted.append(path)
