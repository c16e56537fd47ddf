"""`git stash` in the terminal's state, where it follows the repository: `git stash [push] [-m MSG]`
saves each tracked change (the working file and the index) and puts the files back as the last
commit has them; `git stash list`; `git stash apply|pop` brings the working files back onto a clean
tree on the commit they were saved on (a file staged as new is staged again; other staged changes
are not, as git does without --index) and prints `git status`; `git stash drop`. Agents stash to
see whether a test failed before their change, then pop. Each is worked out once as gitrestore's
Plan, so the answer and the state after it agree; what the state does not know (a conflict, another
commit, a stash it did not see made) is the model's, and the state then forgets as before.

Checked byte for byte against git in the sandbox (tests/test_git_restore.py, benchmarks/state_vs_real.py).
"""

from __future__ import annotations

import posixpath

from . import gitrestore
from .gitrestore import Plan, carry_out, emptied_known
from .repository import _git_answer
from .state import Stashed, TerminalState, _blob

SAVED = "Saved working directory and index state {}\n"
NOTHING_TO_SAVE = "No local changes to save\n"
NO_ENTRIES = "No stash entries found.\n"
DROPPED = "Dropped refs/stash@{0} ("


def _form(args: list[str]) -> tuple[str, bool, str | None] | None:
    """(what: push, list, apply, pop or drop; quiet; push's message) of `git stash …`; None for a form
    not followed here (another entry, --index, --keep-index, -u, paths)."""
    rest = args[1:]
    verb = rest.pop(0) if rest and not rest[0].startswith("-") else "push"
    quiet = any(a in ("-q", "--quiet") for a in rest)
    rest = [a for a in rest if a not in ("-q", "--quiet")]
    if verb == "push":
        if rest and (rest[0] in ("-m", "--message") and len(rest) == 2):
            return verb, quiet, rest[1]
        if len(rest) == 1 and rest[0].startswith("--message="):
            return verb, quiet, rest[0].split("=", 1)[1]
        return (verb, quiet, None) if not rest else None
    if verb == "list" and not rest and not quiet:
        return verb, quiet, None
    if verb in ("apply", "pop", "drop") and rest in ([], ["stash@{0}"]):
        return verb, quiet, None
    return None


def _push(s: TerminalState, quiet: bool, message: str | None) -> tuple[Plan, Stashed | None] | None:
    g = s.git
    assert g is not None
    hard = gitrestore.plan(s, ["reset", "--hard", "-q"])
    if hard is None:
        return None
    saved = Stashed(subject="", commits=len(g.commits))
    for rel, head in g.base.items():
        path = posixpath.join(g.repo, rel)
        staged, work = g.index.get(rel, head) or "", _blob(s, path)
        if not head and not staged:
            continue  # (untracked: not stashed without -u)
        if work is None:
            return None
        if staged != head or work != staged:
            saved.work[rel], saved.index[rel] = work, staged
            saved.texts |= {work: s.files.get(path) if work else "", staged: g.texts.get(staged) if staged else ""}
    if not saved.work:
        return Plan("" if quiet else NOTHING_TO_SAVE, 0), None
    if message is None and (not g.hashes or not g.hashes[-1] or "\n" in g.commits[-1]):
        return None
    saved.subject = f"On {g.branch}: {message}" if message is not None else \
        f"WIP on {g.branch}: {g.hashes[-1]} {g.commits[-1]}"
    hard.said = "" if quiet else SAVED.format(saved.subject)
    return hard, saved


def _bring_back(s: TerminalState) -> Plan | None:
    """What `git stash apply` writes back of stash@{0}: onto the commit it was saved on, where each
    path it saved is as that commit has it (no conflict to work out)."""
    g = s.git
    assert g is not None and g.stash
    top = g.stash[0]
    if top.commits != len(g.commits):
        return None
    out = Plan("", 0)
    for rel, work in top.work.items():
        path = posixpath.join(g.repo, rel)
        now = _blob(s, path)
        head = g.base[rel] if rel in g.base else now
        if now is None or head is None or g.index.get(rel, head) != head or now != head:
            return None
        if not head:  # staged as new when stashed: staged again, as the working file was
            if top.index[rel] != work or not work:
                return None
            out.index[rel] = work
        if not work:
            if not emptied_known(s, path):
                return None
            out.removes.append(path)
        elif work != now:
            out.writes[path] = top.texts.get(work)
    return out


def _plan(s: TerminalState, args: list[str]) -> tuple[Plan, Stashed | None, str] | None:
    """(the plan, the entry push saves, what) of `git stash …`, where the state knows it all."""
    g = s.git
    form = _form(args) if args[:1] == ["stash"] else None
    if form is None or g is None or not g.follows or g.unknown or not g.commits or g.stash is None:
        return None
    verb, quiet, message = form
    if verb == "push":
        pushed = _push(s, quiet, message)
        return None if pushed is None else (*pushed, verb)
    if verb == "list":
        return Plan("".join(f"stash@{{{n}}}: {e.subject}\n" for n, e in enumerate(g.stash)), 0), None, verb
    if not g.stash:
        return Plan(NO_ENTRIES, 1), None, verb
    if verb == "drop":
        return Plan("" if quiet else DROPPED, 0), None, verb
    back = _bring_back(s)
    if back is None:
        return None
    if not quiet:  # (`git status` after it; where that is not known, what it prints is not either)
        after = s.model_copy(deep=True)
        carry_out(after, back)
        status = _git_answer(after, ["status"])
        back.said = None if status is None else status[0] + (DROPPED if verb == "pop" else "")
    return back, None, verb


def answer(s: TerminalState, args: list[str]) -> tuple[str, int] | None:
    """What `git stash …` prints, where the state knows it (not the id `pop` and `drop` print)."""
    planned = _plan(s, args)
    if planned is None or planned[0].said is None or planned[0].said.endswith(DROPPED):
        return None
    return planned[0].said, planned[0].code


def _as_expected(said: str | None, output: str, verb: str) -> bool:
    """`output` is what the state expected `git stash …` to print (`said`; the id `pop` and `drop`
    print is git's; None: `git status` after it, not known, so any it may print)."""
    if said is None:
        return output.startswith("On branch ") and (DROPPED in output) == (verb == "pop")
    if said.endswith(DROPPED):
        expected = said[:-len(DROPPED)]
        return output.startswith(expected) and output[len(expected):].startswith(DROPPED)
    return output == said


def apply(s: TerminalState, args: list[str], output: str | None) -> bool:
    """The files, index and stash after `git stash …` printed `output` (None: not known), where the
    state knows them and the output is what it expected; False elsewhere (the caller forgets)."""
    planned = _plan(s, args)
    if planned is None:
        return False
    plan, saved, verb = planned
    if output is not None and not _as_expected(plan.said, output, verb):
        return False
    g = s.git
    assert g is not None and g.stash is not None
    if plan.code:
        return True  # (refused: nothing changed)
    carry_out(s, plan)
    if saved is not None:
        g.stash.insert(0, saved)
    elif verb in ("pop", "drop"):
        g.stash.pop(0)
    return True
