"""The commits git shows: `git log` in its default form and formats, `git show` of the last commit or
one before it (`HEAD~2`, `HEAD^`, an abbreviated id), and `git log --stat`/`-p`/`--name-only`/
`--name-status` over several commits, each as `git show` prints it.

What the last commit changed is `GitState.last_change` (with `last_texts` and `last_modes`); when the
next commit is made it is kept in `GitState.earlier`, beside the commit it belongs to, and so is the
world's first commit (every file it has, added), worked out from the state while it is the only one.
A commit whose change the state did not know whole (made of files it did not know, or before the
state kept them) is None there, and every answer that shows it is the model's.
"""

from __future__ import annotations

import re

from . import gitdiff, gitlog, gitmodes, gitobjects, gitshow, gitstatus
from .gitindex import _untouched
from .state import GitState, Shown, TerminalState

BODIES = {"--stat", "-p", "--patch", "--name-only", "--name-status"}  # (`git log`'s, each commit as `git show`)
MAX_KEPT, MAX_KEPT_ALL = 256 << 10, 2 << 20  # characters of texts kept of one commit, and of them all


def log(g: GitState, args: list[str], skip: int = 0) -> tuple[str, int] | None:
    """`git log` (`-N`, `-n N`, `--max-count=N`) in git's default form, `--pretty=oneline` or a
    format (gitlog.py), newest first (`skip`: from the commit that many before the last), where the
    state knows each shown commit's full id, author and time. (`--oneline`: gitlog.oneline.)"""
    parsed = gitlog.options(args)
    if parsed is None:
        return None
    count, form, dates = parsed
    made = [None] * (len(g.commits) - len(g.made)) + g.made
    history = list(zip(g.commits, made))[::-1]
    shown = history[skip:len(history) if count is None else skip + count]
    if any(m is None for _, m in shown) or any("\n" in message for message, _ in shown):
        return None
    if form is None:
        return gitobjects.log([(message, m.id, m.who, m.when) for message, m in shown], dates), 0
    parents = [m.id if m else None for _, m in history[1:]] + [""]  # (the world's first commit: none)
    if any(parent is None for parent in parents[skip:skip + len(shown)]):
        return None
    entries = [gitlog.Entry(message, m.id, m.who, m.when, parent)
               for (message, m), parent in zip(shown, parents[skip:])]
    alone = len(g.branches) == 1 and not g.tags and not g.unknown
    said = gitlog.render(entries, form, f"HEAD -> {g.branch}" if alone and skip == 0 else None, dates)
    return None if said is None else (said, 0)


def back(g: GitState, name: str) -> int | None:
    """How many commits before the last `name` names (0: the last; `HEAD`, `@`, the branch where no tag
    has its name, `HEAD~2`, `HEAD^^`, `@~1`, an id whole or abbreviated to 7 or more); None for any
    other name, or one past the first commit."""
    m = re.fullmatch(r"(HEAD|@)((?:~\d*|\^1?)*)", name)
    if m:
        steps = sum(int(step[1:] or 1) for step in re.findall(r"~\d*|\^1?", m.group(2)))
        return steps if steps < len(g.commits) else None
    if name == g.branch and name not in g.tags:
        return 0
    if not re.fullmatch(r"[0-9a-f]{7,40}", name):
        return None
    made = [None] * (len(g.commits) - len(g.made)) + g.made
    found = [k for k, m in enumerate(reversed(made)) if m is not None and m.id.startswith(name)]
    return found[0] if len(found) == 1 else None


def header(s: TerminalState, log_args: list[str], skip: int = 0) -> str | None:
    """What `git log -1 LOG_ARGS` prints of the commit `skip` before the last (`--oneline` from its
    abbreviated id)."""
    g = s.git
    assert g is not None
    if log_args == ["--oneline"]:
        k = len(g.commits) - 1 - skip
        known = g.hashes if len(g.hashes) == len(g.commits) else []
        subject = g.commits[k].split("\n\n", 1)[0]
        return f"{known[k]} {subject}\n" if known and known[k] and "\n" not in subject else None
    said = log(g, ["-1", *log_args], skip)
    return None if said is None else said[0]


def body(s: TerminalState, form: str, skip: int = 0) -> str | None:
    """What the commit `skip` before the last changed, in `form` (gitdiff.body's)."""
    g = s.git
    assert g is not None
    if g.unknown:
        return None
    if skip == 0 and len(g.commits) > 1:
        return changed(last(g), form)
    if skip == 0:
        root = _root(s)
        return None if root is None else changed(root, form)
    k = len(g.commits) - 1 - skip
    return changed(g.earlier[k], form) if k < len(g.earlier) else None


def last(g: GitState) -> Shown | None:
    """What the last commit changed, where the episode made it and the state knew it whole."""
    if g.last_change is None:
        return None
    return Shown(change=g.last_change, texts=g.last_texts, modes=g.last_modes)


def changed(shown: Shown | None, form: str) -> str | None:
    """A commit's change as patches or their diffstat; None where a side is not known or git would
    quote a name (or may find a rename: not written here)."""
    if shown is None:
        return None
    changes = []
    for rel in sorted(shown.change, key=lambda p: p.encode()):
        old, new = shown.change[rel]
        texts = [shown.texts.get(blob) if blob else None for blob in (old, new)]
        if any(blob and text is None for blob, text in zip((old, new), texts)):
            return None
        changes.append((rel, texts[0], texts[1], old, new))
    modes = {rel: (pair[0], pair[1]) for rel, pair in shown.modes.items()}
    return None if gitstatus.may_rename(changes) else gitdiff.body(changes, form, modes)


def _root(s: TerminalState) -> Shown | None:
    """The repository's first commit while it is the only one (the world's, or one the episode made),
    where the state knows it whole: each of its files, added."""
    g = s.git
    assert g is not None
    if len(g.commits) != 1 or g.unknown or not g.follows:
        return None
    tree = _untouched(s)
    tree.update({rel: g.texts.get(head) for rel, head in g.base.items() if head})
    if any(text is None for text in tree.values()):
        return None  # (a file's committed text not known)
    texts = {gitobjects.blob_id(text): text for text in tree.values() if text is not None}
    return Shown(change={rel: ["", gitobjects.blob_id(text)] for rel, text in tree.items() if text is not None},
                 texts=texts, modes={rel: [gitmodes.PLAIN, gitmodes.EXEC] for rel in g.head_x if rel in tree})


def keep_earlier(s: TerminalState) -> None:
    """A commit is about to be made: what the last one changed is kept beside it (`earlier`), where
    its texts are not too large to keep; the oldest are let go where all of them would be."""
    g = s.git
    assert g is not None
    if not g.commits:
        return
    kept = (last(g) if len(g.commits) > 1 else _root(s) or last(g)) if not g.unknown else None
    if kept is not None and _size(kept) > MAX_KEPT:
        kept = None
    g.earlier = (g.earlier + [None] * len(g.commits))[:len(g.commits) - 1] + [kept]
    total = sum(_size(shown) for shown in g.earlier if shown is not None)
    for k, shown in enumerate(g.earlier):
        if total <= MAX_KEPT_ALL:
            break
        if shown is not None:
            total -= _size(shown)
            g.earlier[k] = None



def _size(shown: Shown) -> int:
    return sum(len(text) for text in shown.texts.values())


def show(s: TerminalState, args: list[str]) -> tuple[str, int] | None:
    """`git show ARGS` of the last commit or one before it."""
    g = s.git
    assert g is not None
    return gitshow.answer(args, lambda name: back(g, name), lambda log_args, k: header(s, log_args, k),
                          lambda form, k: body(s, form, k))


def log_changes(s: TerminalState, args: list[str]) -> tuple[str, int] | None:
    """`git log [-N] --stat|-p|--name-only|--name-status [--oneline|--format=…] [--date=…]`: each commit
    as `git show` prints it, newest first."""
    g = s.git
    assert g is not None
    count, flags, i = None, [], 0
    while i < len(args):
        m = gitlog.COUNT.fullmatch(args[i])
        if m:
            count = int(next(x for x in m.groups() if x is not None))
        elif args[i] == "-n" and i + 1 < len(args) and args[i + 1].isdigit() and int(args[i + 1]) > 0:
            count, i = int(args[i + 1]), i + 1
        else:
            flags.append(args[i])
        i += 1
    if sum(f in BODIES for f in flags) != 1 or g.unknown or not g.commits:
        return None
    # (entries apart by a blank line in the default form, and where `format:` separates them)
    apart = not any(f == "--oneline" or f.startswith(("--format=", "--pretty=")) for f in flags) or \
        any(f.startswith("--pretty=format:") for f in flags)
    shown = []
    for k in range(min(len(g.commits) if count is None else count, len(g.commits))):
        said = gitshow.answer(flags, lambda name: None, lambda log_args, _, k=k: header(s, log_args, k),
                              lambda form, _, k=k: body(s, form, k))  # (no name given: this commit, k)
        if said is None:
            return None
        shown.append(said[0])
    return ("\n" if apart else "").join(shown), 0
