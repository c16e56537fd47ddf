"""File modes: `chmod` followed, for `ls -l`, and for knowing when the state must stop answering.

In the sandbox's home and /tmp the user owns everything it makes: files 644, folders 755 (umask
022). `chmod MODE PATH…` of paths the state knows, with an octal mode (`755`, `600`) or a symbolic
one (`+x`, `u+x,go-w`, `a=r`, `-x`), is answered (it prints nothing) and followed: each path's mode
is kept in `TerminalState.modes` (a path not there has the default). `cp` gives a new file its
source's mode less the umask; `mv` keeps it.

Before, any `chmod` made the state forget every listing and content (`chmod +x run.sh` is common),
and after one that took the user's own rights (`chmod a=r f`, `chmod 000 src`) the state answered
`echo x > f`, `touch src/x` and `cat src/notes.py` as if they had worked; the sandbox says
"Permission denied". Now, while a mode is held that takes from the user what it needs (a file it
cannot read or write, a folder it cannot list, enter or write in), or a special bit, or a mode not
known (a `chmod` not followed: `-R`, `g=u`, `+X`, one that failed), the state answers nothing
(`machine.followed`) and forgets what each line may write, until `chmod` gives the rights back.

git records a file's executable bit (mode 100755): gitmodes.py follows it through the index and the
commits. A git command that may rewrite files leaves those files' modes unknown here.
"""

from __future__ import annotations

import functools
import posixpath
import re
from typing import Any

from .state import TerminalState, _abs, _absent, _exists, _touched, _Unknown, _within, _writable

FILE, FOLDER, UMASK = 0o644, 0o755, 0o022
# git commands that leave the working tree's files as they are (their modes too)
_LEAVES_FILES = frozenset({"add", "commit", "status", "diff", "log", "show", "branch", "rev-parse", "ls-files",
                           "grep", "blame", "config", "tag", "shortlog", "describe", "remote"})


def changed(spec: str, mode: int, folder: bool = False) -> int | None:
    """The mode `chmod SPEC` makes of `mode`, as GNU chmod computes it (coreutils' mode_compile and
    mode_adjust: with no `ugoa` the umask's bits are left alone; `X`, copies like `g=u`, `s` and
    `t`; a folder keeps its set-id bits unless the mode names them); None for a mode chmod refuses."""
    changes = _compiled(spec)
    if changes is None:
        return None
    mode &= 0o7777
    for op, flag, affected, value, mentioned in changes:
        omit = (0o6000 if folder else 0) & ~mentioned
        if flag == "copy":
            value &= mode
            value |= (0o444 if value & 0o444 else 0) | (0o222 if value & 0o222 else 0) | (0o111 if value & 0o111 else 0)
        elif flag == "X" and (mode & 0o111 or folder):
            value |= 0o111
        value &= (affected if affected else ~UMASK) & ~omit
        if op == "=":
            preserved = (~affected if affected else 0) | omit
            mode = (mode & preserved) | value
        elif op == "+":
            mode |= value
        else:
            mode &= ~value
    return mode & 0o7777


@functools.lru_cache(maxsize=256)
def _compiled(spec: str) -> tuple[tuple[str, str, int, int, int], ...] | None:
    """The changes a mode stands for, each (op, flag, affected, value, mentioned), as mode_compile
    makes them; None where chmod would say "invalid mode"."""
    if re.fullmatch(r"[0-7]+", spec):
        value = int(spec, 8)
        if value > 0o7777:
            return None
        mentioned = (value & 0o6000) | 0o1777 if len(spec) < 5 else 0o7777
        return (("=", "", 0o7777, value, mentioned),)
    changes = []
    for clause in spec.split(","):
        m = re.fullmatch(r"([ugoa]*)((?:[-+=](?:[ugo]|[rwxXst]*))+)", clause)
        if m is None:
            return None
        affected = 0
        for who in m.group(1):
            affected |= {"u": 0o4700, "g": 0o2070, "o": 0o1007, "a": 0o7777}[who]
        for op, perms in re.findall(r"([-+=])([ugo]|[rwxXst]*)", m.group(2)):
            flag, value = "", 0
            if perms in ("u", "g", "o"):
                flag, value = "copy", {"u": 0o700, "g": 0o070, "o": 0o007}[perms]
            else:
                for p in perms:
                    value |= {"r": 0o444, "w": 0o222, "x": 0o111, "X": 0, "s": 0o6000, "t": 0o1000}[p]
                    flag = "X" if p == "X" else flag
            changes.append((op, flag, affected, value, affected & value if affected else value))
    return tuple(changes)


def of(path: str, s: TerminalState) -> int | None:
    """The mode of a path the state holds; None where not known."""
    if path in s.modes:
        return s.modes[path]
    return FOLDER if _folder(path, s) else FILE


def _folder(path: str, s: TerminalState) -> bool:
    return path in s.dirs or posixpath.basename(path) == ".git" and _exists(path, s)


def text(mode: int, folder: bool) -> str:
    """`ls -l`'s first column: `-rwxr-xr-x`; a set-id bit as `s` (`S` without x), sticky as `t` (`T`)."""
    out = ["d" if folder else "-"]
    for i, c in enumerate("rwxrwxrwx"):
        out.append(c if mode & (1 << (8 - i)) else "-")
    for at, bit, letter in ((3, 0o4000, "s"), (6, 0o2000, "s"), (9, 0o1000, "t")):
        if mode & bit:
            out[at] = letter if out[at] == "x" else letter.upper()
    return "".join(out)


def held(state: dict[str, Any] | TerminalState) -> bool:
    """A mode the rules do not follow the effects of is held somewhere: not known, a folder's
    set-group-id bit, or one that takes from the user a right it needs (a file's rw, a folder's rwx)."""
    modes = state.modes if isinstance(state, TerminalState) else state.get("modes")
    if not modes:
        return False
    dirs = set(state.dirs if isinstance(state, TerminalState) else state.get("dirs") or [])
    return any(_holds_back(path, mode, dirs) for path, mode in modes.items())


def _holds_back(path: str, mode: int | None, dirs: set[str]) -> bool:
    """The mode at `path` is one `held` means."""
    if mode is None or mode & 0o600 != 0o600:
        return True
    # (a folder's set-group-id bit is handed to each folder made in it: not followed)
    return bool((mode & 0o100 == 0 or mode & 0o2000) and (path in dirs or path.endswith("/.git")))


def chmod_line(words: list[str]) -> bool:
    """A plain `chmod` (the one line the state follows while a mode is held)."""
    return words[:1] == ["chmod"]


def answer(args: list[str], s: TerminalState) -> tuple[str, int] | None:
    """`chmod [-R] [-f] MODE PATH…` of paths the state holds in the home or /tmp: it prints nothing."""
    read = _read(args)
    if read is None or read[0] - {"R", "f"}:
        return None  # (-v and -c print what they changed: the model's)
    return None if _followed(read, s) is None else ("", 0)


def apply(s: TerminalState, args: list[str], exit_code: int, output: str = "") -> None:
    """`chmod ARGS` ran: each path's new mode. Where it failed (chmod goes on past a path that is not
    there), the paths the state knows are there get it, and none where the mode was refused. A path
    the state does not hold keeps no mode, unless the mode may take the user's rights: then its mode
    is not known (and the state stops answering until a chmod sets one)."""
    read = _read(args)
    if read is None:
        _unknown(s, [a for a in args if not a.startswith("-")])
        return
    if exit_code != 0 and "invalid mode" in output:
        return
    followed = _followed(read, s) if exit_code == 0 else None
    if followed is None:
        followed = {}
        spec = read[1]
        for a in read[2]:
            try:
                target = _abs(a, s)
            except _Unknown:
                continue
            if _absent(target, s) or any(_within(target, d) for d in s.deleted):
                continue
            for path in _reached(target, read[0], s):
                # (where it failed, how far -R went is not known)
                mode = _before(path, spec, s) if _exists(path, s) and (path == target or exit_code == 0) else None
                if mode is not None and _compiled(spec) is not None:
                    followed[path] = changed(spec, mode, _folder(path, s))
                elif _exists(path, s) or not _keeps_rights(spec):
                    followed[path] = None  # type: ignore[assignment]
    for path, mode in followed.items():
        if not _folder(path, s):
            _touched(s, path)  # (git compares a file's mode too: gitmodes.py)
        if mode == (FOLDER if _folder(path, s) else FILE):
            s.modes.pop(path, None)
        else:
            s.modes[path] = mode


def _before(path: str, spec: str, s: TerminalState) -> int | None:
    """The mode `chmod SPEC` changes at `path`: where it is not known, a file's octal mode is all
    the same (`chmod 644 f` sets every bit of a file; a folder keeps its set-id bits)."""
    mode = of(path, s)
    return 0 if mode is None and re.fullmatch(r"[0-7]{3,4}", spec) and not _folder(path, s) else mode


def _keeps_rights(spec: str) -> bool:
    """The mode leaves the user its rights on a file or a folder of the defaults (one the state does
    not hold: a program made it)."""
    file, folder = changed(spec, FILE, False), changed(spec, FOLDER, True)
    return file is not None and folder is not None and file & 0o600 == 0o600 and folder & 0o700 == 0o700


def copied(s: TerminalState, src: str, dst: str, preserved: bool, made: bool) -> None:
    """`cp SRC DST`: a file made keeps its source's mode less the umask (all of it with -p/-a); a file
    written over keeps its own."""
    if not made and not preserved:
        return
    mode = of(src, s)
    if mode is not None and not preserved:
        mode &= 0o777 & ~UMASK  # (cp drops the set-id and sticky bits it does not preserve)
    if mode == (FOLDER if _folder(src, s) else FILE):
        s.modes.pop(dst, None)
    else:
        s.modes[dst] = mode


def removed(s: TerminalState, path: str) -> None:
    for p in [p for p in s.modes if _within(p, path)]:
        del s.modes[p]


def after_git(s: TerminalState, args: list[str]) -> None:
    """A git command that may rewrite files (checkout, restore, reset, stash…) while the repository
    holds modes of its own: what git left them as is not followed (`args` from the subcommand on:
    history._git_args)."""
    if s.git is None or not s.modes or args[:1] and args[0] in _LEAVES_FILES:
        return
    for path in s.modes:
        if _within(path, s.git.repo) and not _folder(path, s):
            s.modes[path] = None


_OPTIONS = {"-R": "R", "--recursive": "R", "-f": "f", "--silent": "f", "--quiet": "f", "-v": "v",
            "--verbose": "v", "-c": "c", "--changes": "c"}


def _read(args: list[str]) -> tuple[frozenset[str], str, list[str]] | None:
    """chmod's arguments: (its options, the mode, the paths); None for an option not followed here
    (`--reference`, `--preserve-root`…). A word like `-x` or `-w` is a mode, as chmod reads it."""
    options: set[str] = set()
    rest = list(args)
    while rest and rest[0].startswith("-") and _compiled(rest[0]) is None:
        word = rest.pop(0)
        if word == "--":
            break
        letters = [f"-{c}" for c in word[1:]] if not word.startswith("--") else [word]
        if not all(w in _OPTIONS for w in letters):
            return None
        options |= {_OPTIONS[w] for w in letters}
    if len(rest) < 2:
        return None
    return frozenset(options), rest[0], rest[1:]


def _reached(target: str, options: frozenset[str], s: TerminalState) -> list[str]:
    """The paths chmod changes for `target`: all below it too with -R (those the state holds, and a
    repository's .git: what is inside it is git's, and no answer shows its modes)."""
    if "R" not in options:
        return [target]
    gits = [posixpath.join(r, ".git") for r in ([s.git.repo] if s.git else []) + s.other_repos]
    return [target] + [p for p in dict.fromkeys([*s.dirs, *s.files, *gits]) if p != target and _within(p, target)
                       and _exists(p, s)]


def _unknown(s: TerminalState, names: list[str]) -> None:
    for a in names:
        try:
            path = _abs(a, s)
        except _Unknown:
            continue
        if _exists(path, s):
            s.modes[path] = None


def _followed(read: tuple[frozenset[str], str, list[str]], s: TerminalState) -> dict[str, int] | None:
    """Each path's new mode, where the paths are ones the state holds (made by the world or the
    episode, in the home or /tmp; with -R, every one below each) and the mode is one chmod takes;
    None otherwise."""
    options, spec, names = read
    if _compiled(spec) is None:
        return None
    out: dict[str, int] = {}
    dirs, stuck = set(s.dirs), False
    for a in names:
        if a.startswith("-") or a.endswith("/.git") or "/.git/" in a:
            return None
        if stuck:
            return None  # (`chmod 000 . x`: the paths after it may no longer be reached)
        target = _abs(a, s)
        if not _writable(target) or not _exists(target, s) or posixpath.basename(target) == ".git" or \
                any(_within(target, d) for d in s.deleted):
            return None
        for path in _reached(target, options, s):
            mode = _before(path, spec, s)
            if mode is None or any(_within(path, d) for d in s.deleted) or not _exists(path, s):
                return None
            out[path] = changed(spec, mode, _folder(path, s))  # type: ignore[assignment]
            if "R" in options and _folder(path, s) and out[path] & 0o500 != 0o500:
                return None  # (`chmod -R 600 d`: chmod cannot go into d once it has done it)
            stuck = stuck or _holds_back(path, out[path], dirs)
    return out
