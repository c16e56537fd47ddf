"""`git remote`: the remotes of the repository the state follows, as `git remote add` and `remove`
made them (the world makes its repository with none, as the sandbox does; `git init` too), and what
`git remote`, `-v` and `get-url` print of them (git 2.39: the names in byte order, each URL twice
with -v). A remote added another way (`-f`, which fetches; `git config`; an edit of .git/config)
or changed another way (`rename`, `set-url`) ends what is known of them; `show` and `prune` ask the
remote itself: the model's.
"""

from __future__ import annotations

import re

from .line import _split as split_line
from .state import GitState

_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]*(?:\.[A-Za-z0-9_-]+)*")  # (a name git takes: no `..`, no `.lock` end)
_URL = re.compile(r"[^\s\x00-\x1f\x7f]+")
_LISTING = {(): False, ("-v",): True, ("--verbose",): True}


def answer(g: GitState, args: list[str]) -> tuple[str, int] | None:
    """What `git remote ARGS` prints, where the state knows the remotes; None: the model's."""
    if g.remotes is None:
        return None
    remotes = g.remotes
    if tuple(args) in _LISTING:
        names = sorted(remotes, key=str.encode)
        if _LISTING[tuple(args)]:
            return "".join(f"{n}\t{remotes[n]} ({way})\n" for n in names for way in ("fetch", "push")), 0
        return "".join(n + "\n" for n in names), 0
    if len(args) == 2 and args[0] == "get-url":
        return (remotes[args[1]] + "\n", 0) if args[1] in remotes else (f"error: No such remote '{args[1]}'\n", 2)
    if len(args) == 2 and args[0] in ("remove", "rm"):
        return ("", 0) if args[1] in remotes else (f"error: No such remote: '{args[1]}'\n", 2)
    if len(args) == 3 and args[0] == "add" and _added(args[1], args[2]):
        return (f"error: remote {args[1]} already exists.\n", 3) if args[1] in remotes else ("", 0)
    return None


def apply(g: GitState, args: list[str], output: str | None) -> None:
    """The remotes after `git remote ARGS` printed `output` (None: not known, a part of a line)."""
    if g.remotes is None or tuple(args) in _LISTING or args[:1] == ["get-url"]:
        return
    if len(args) == 3 and args[0] == "add" and _added(args[1], args[2]) and output in (None, ""):
        g.remotes.setdefault(args[1], args[2])  # (one of that name already: refused, nothing changed)
    elif len(args) == 2 and args[0] in ("remove", "rm") and output in (None, ""):
        g.remotes.pop(args[1], None)
    else:
        g.remotes = None


_NAMED = re.compile(r"\bremote\b|\.git/config\b")  # (`git config remote.origin.url`, `cp x .git/config`)


def after_line(before: dict | None, after: dict, command: str, output: str, exit_code: int) -> None:
    """What a whole line left of the remotes (`before`, `after`: the state's git before and after it): a
    line that names remotes or .git/config other than as one `git remote` command that did what the
    state followed (`apply`) or was refused as `answer` says (nothing changed) may have changed them:
    no longer known. (`git remote add -f x y` adds x and then fails to fetch.) Every line is asked;
    only one that names them is read further."""
    if not _NAMED.search(command) or not before or before.get("remotes") is None or not after or \
            after.get("remotes") is None:
        return
    parts = split_line(command)
    words = parts[0] if parts and len(parts) == 1 else []
    if words[:2] == ["git", "remote"] and \
            (exit_code == 0 or answer(GitState.model_validate(before), words[2:]) == (output, exit_code)):
        return
    after["remotes"] = None


def _added(name: str, url: str) -> bool:
    """A name and a URL `git remote add` takes as they are (an odd one: git's refusal, the model's)."""
    return _NAME.fullmatch(name) is not None and not name.endswith(".lock") and _URL.fullmatch(url) is not None and \
        not url.startswith("-")
