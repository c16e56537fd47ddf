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

git records a file's executable bit (mode 100755): while a file of the repository has the user's x
bit, git's answers are the model's, and a commit made then is not followed (its tree is not the one
the state would write). A git command that may rewrite files then leaves those files' modes unknown.
"""

from __future__ import annotations

import posixpath
import re
from typing import Any

from .state import TerminalState, _abs, _exists, _Unknown, _within, _writable

FILE, FOLDER, UMASK = 0o644, 0o755, 0o022
_CLAUSE = re.compile(r"([ugoa]*)((?:[-+=][rwx]*)+)")
_BITS = {"r": 0o444, "w": 0o222, "x": 0o111}
_WHO = {"u": 0o700, "g": 0o070, "o": 0o007, "a": 0o777}
# git commands that leave the working tree's files as they are (their modes too)
_LEAVES_FILES = frozenset({"add", "commit", "status", "diff", "log", "show", "branch", "rev-parse", "ls-files",
                           "grep", "blame", "config", "tag", "shortlog", "describe", "remote"})


def changed(spec: str, mode: int) -> int | None:
    """The mode `chmod SPEC` makes of `mode` (GNU's rules: with no `ugoa`, the umask's bits are left
    alone); None for what is not followed here (`X`, `s`, `t`, `g=u`, a special bit)."""
    if re.fullmatch(r"[0-7]{1,4}", spec):
        value = int(spec, 8)
        return value if value <= 0o777 else None
    for clause in spec.split(","):
        m = _CLAUSE.fullmatch(clause)
        if m is None:
            return None
        affected = 0
        for who in m.group(1) or "a":
            affected |= _WHO[who]
        allowed = affected if m.group(1) else 0o777 & ~UMASK
        for op, perms in re.findall(r"([-+=])([rwx]*)", m.group(2)):
            value = 0
            for p in perms:
                value |= _BITS[p]
            value &= allowed
            if op == "+":
                mode |= value
            elif op == "-":
                mode &= ~value
            else:
                mode = (mode & ~(affected if m.group(1) else 0o777)) | value
    return mode


def of(path: str, s: TerminalState) -> int | None:
    """The mode of a path the state holds; None where not known."""
    if path in s.modes:
        return s.modes[path]
    return FOLDER if path in s.dirs else FILE


def text(mode: int, folder: bool) -> str:
    """`ls -l`'s first column: `-rwxr-xr-x`."""
    return ("d" if folder else "-") + "".join(c if mode & (1 << (8 - i)) else "-" for i, c in enumerate("rwxrwxrwx"))


def held(state: dict[str, Any] | TerminalState) -> bool:
    """A mode the rules do not follow the effects of is held somewhere: not known, a special bit, or
    one that takes from the user a right it needs (a file's rw, a folder's rwx)."""
    modes = state.modes if isinstance(state, TerminalState) else state.get("modes")
    if not modes:
        return False
    folders = set(state.dirs if isinstance(state, TerminalState) else state.get("dirs") or [])
    for path, mode in modes.items():
        need = 0o700 if path in folders else 0o600
        if mode is None or mode & ~0o777 or mode & need != need:
            return True
    return False


def chmod_line(words: list[str]) -> bool:
    """A plain `chmod` (the one line the state follows while a mode is held)."""
    return words[:1] == ["chmod"]


def answer(args: list[str], s: TerminalState) -> tuple[str, int] | None:
    """`chmod MODE PATH…` of paths the state holds in the home or /tmp: it prints nothing."""
    followed = _followed(args, s)
    return None if followed is None else ("", 0)


def apply(s: TerminalState, args: list[str], exit_code: int) -> None:
    """`chmod ARGS` ran: each path's new mode where followed; not known where it was not (every path
    below a folder with `-R`), or where it failed (which of its paths it changed is not known)."""
    followed = _followed(args, s) if exit_code == 0 else None
    if followed is not None:
        for path, mode in followed.items():
            default = FOLDER if path in s.dirs else FILE
            if mode == default:
                s.modes.pop(path, None)
            else:
                s.modes[path] = mode
        return
    for a in [a for a in args[1:] if not a.startswith("-")]:
        try:
            target = _abs(a, s)
        except _Unknown:  # (a path not followed: nothing of it is held)
            continue
        below = [p for p in [*s.files, *s.dirs] if _within(p, target)] if "-R" in args or "--recursive" in args \
            else [target]
        for path in below:
            if _exists(path, s):
                s.modes[path] = None


def copied(s: TerminalState, src: str, dst: str, preserved: bool, made: bool) -> None:
    """`cp SRC DST`: a file made keeps its source's mode less the umask (all of it with -p/-a); a file
    written over keeps its own. `mv` (preserved, made) keeps the mode."""
    if not made and not preserved:
        return
    mode = of(src, s)
    if mode is not None and not preserved:
        mode &= ~UMASK
    if mode == (FOLDER if dst in s.dirs else FILE):
        s.modes.pop(dst, None)
    else:
        s.modes[dst] = mode


def removed(s: TerminalState, path: str) -> None:
    for p in [p for p in s.modes if _within(p, path)]:
        del s.modes[p]


def executable_in_repo(s: TerminalState) -> bool:
    """A file of the repository has the user's x bit (or a mode not known): git records 100755."""
    if s.git is None or not s.modes:
        return False
    return any((mode is None or mode & 0o100) and _within(path, s.git.repo) and path not in s.dirs
               for path, mode in s.modes.items())


def after_git(s: TerminalState, args: list[str]) -> None:
    """A git command that may rewrite files (checkout, restore, reset, stash…) while the repository
    holds modes of its own: what git left them as is not followed."""
    if s.git is None or not s.modes or args[:1] and args[0] in _LEAVES_FILES:
        return
    for path in s.modes:
        if _within(path, s.git.repo) and path not in s.dirs:
            s.modes[path] = None


def _followed(args: list[str], s: TerminalState) -> dict[str, int] | None:
    """Each path's new mode, where chmod's arguments are a mode and paths the state holds (made by the
    world or the episode, in the home or /tmp); None otherwise."""
    if len(args) < 2 or not args[0] or args[0].startswith("-") and _CLAUSE.fullmatch(args[0]) is None:
        return None  # (an option: -R, -v, --reference…; `-x` is a mode)
    out: dict[str, int] = {}
    for a in args[1:]:
        if a.startswith("-") or a.endswith("/.git") or "/.git/" in a:
            return None
        path = _abs(a, s)
        if not _writable(path) or not _exists(path, s) or posixpath.basename(path) == ".git" or \
                any(_within(path, d) for d in s.deleted):
            return None
        mode = of(path, s)
        new = None if mode is None else changed(args[0], mode)
        if new is None:
            return None
        out[path] = new
    return out
