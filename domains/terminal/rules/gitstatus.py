"""`git status` as git prints it, from the changes the shell state worked out (gitindex.changes).

A change is a path (as git shows it: relative to the shell's folder) with its two status letters,
the index against the last commit and the working tree against the index, as `git status --short`
writes them (" M", "A ", "MD", "??"…); a rename is "OLD -> NEW" with "R". Untracked folders come
collapsed, ending in "/". Checked byte for byte against git in the sandbox (benchmarks/state_vs_real.py).
"""

from __future__ import annotations

import bisect
from collections import Counter

from .state import GitState

LABELS = {"A": "new file:", "M": "modified:", "D": "deleted:", "R": "renamed:"}
# A repository with no commit yet: `git status` says so, and `git commit` with nothing staged
NO_COMMITS = "No commits yet"
INITIAL_COMMIT = "Initial commit"
# What `git init` says first where nothing configures the first branch's name (git 2.28 to 2.x, as
# the sandbox's 2.39: the hint goes to stderr, before the "Initialized" line)
INIT_HINT = "".join(f"hint: {line}\n" for line in (
    "Using 'master' as the name for the initial branch. This default branch name",
    "is subject to change. To configure the initial branch name to use in all",
    "of your new repositories, which will suppress this warning, call:", "",
    "\tgit config --global init.defaultBranch <name>", "",
    "Names commonly chosen instead of 'master' are 'main', 'trunk' and",
    "'development'. The just-created branch can be renamed via this command:", "",
    "\tgit branch -m <name>"))
WIDTH = len("typechange:") + 1  # git pads every label to its longest one's width

# `git add` given nothing to add (`git add #x`: the rest is a comment)
NOTHING_ADDED = ("Nothing specified, nothing added.\nhint: Maybe you wanted to say 'git add .'?\n"
                 "hint: Turn this message off by running\nhint: \"git config advice.addEmptyPathspec false\"\n")
# `git add` given a path a .gitignore leaves out (on stderr; the other paths are added all the same)
IGNORED = ("The following paths are ignored by one of your .gitignore files:\n{paths}hint: Use -f if you really want "
           "to add them.\nhint: Turn this message off by running\nhint: \"git config advice.addIgnoredFile false\"\n")


def short(changes: list[tuple[str, str]], porcelain: bool = False) -> str:
    """`git status --short` (and `--porcelain`, the same lines): tracked changes, then untracked."""
    tracked = [f"{xy} {path}\n" for path, xy in changes if xy != "??"]
    untracked = [f"?? {path}\n" for path, xy in changes if xy == "??"]
    return "".join(tracked + untracked)


def long(branch: str, changes: list[tuple[str, str]], unborn: str = "") -> str:
    """`git status`: the branch, then the staged, unstaged and untracked sections, then git's summary
    of what a commit would take. `unborn`: the branch has no commit yet (NO_COMMITS, or
    INITIAL_COMMIT where `git commit` says why it made none)."""
    staged = [(path, xy[0]) for path, xy in changes if xy != "??" and xy[0] != " "]
    unstaged = [(path.split(" -> ")[-1], xy[1]) for path, xy in changes if xy != "??" and xy[1] != " "]
    untracked = [path for path, xy in changes if xy == "??"]
    out = [f"On branch {branch}\n"] + ([f"\n{unborn}\n\n"] if unborn else [])
    if staged:
        unstage = "git rm --cached <file>..." if unborn else "git restore --staged <file>..."
        out.append(f"Changes to be committed:\n  (use \"{unstage}\" to unstage)\n")
        out += [f"\t{LABELS[x]:<{WIDTH}}{path}\n" for path, x in staged]
        out.append("\n")
    if unstaged:
        verb = "add/rm" if any(y == "D" for _, y in unstaged) else "add"
        out.append(f"Changes not staged for commit:\n  (use \"git {verb} <file>...\" to update what will be committed)\n"
                   "  (use \"git restore <file>...\" to discard changes in working directory)\n")
        out += [f"\t{LABELS[y]:<{WIDTH}}{path}\n" for path, y in unstaged]
        out.append("\n")
    if untracked:
        out.append("Untracked files:\n  (use \"git add <file>...\" to include in what will be committed)\n")
        out += [f"\t{path}\n" for path in untracked]
        out.append("\n")
    if staged:
        pass  # something would be committed: git says no more
    elif unstaged:
        out.append("no changes added to commit (use \"git add\" and/or \"git commit -a\")\n")
    elif untracked:
        out.append("nothing added to commit but untracked files present (use \"git add\" to track)\n")
    elif unborn:
        out.append("nothing to commit (create/copy files and use \"git add\" to track)\n")
    else:
        out.append("nothing to commit, working tree clean\n")
    return "".join(out)


def renames(g: GitState, listed: list[tuple[str, str]]) -> dict[str, str] | None:
    """The renames `git status` shows among the staged changes `listed` (relative to the repository):
    each file staged as new whose content a file staged as removed had, by its new path; None where
    git may find one the state does not work out (a file's content changed too, or two alike)."""
    gone: dict[str | None, list[str]] = {}
    for rel, xy in listed:
        if xy[0] == "D":
            gone.setdefault(g.base[rel], []).append(rel)
    made = [rel for rel, xy in listed if xy[0] == "A"]
    alike = Counter(g.index.get(rel) for rel in made)
    out: dict[str, str] = {}
    for rel in made:
        sources = gone.get(g.index.get(rel), [])
        if len(sources) > 1 or sources and alike[g.index.get(rel)] > 1:
            return None  # (which goes where: git's choice)
        if sources:
            out[rel] = sources[0]
    paired = set(out.values())
    left = [[g.texts.get(blob) if blob else "" for blob, rels in gone.items() for rel in rels if rel not in paired],
            [g.texts.get(blob) if blob else "" for blob in (g.index.get(rel) for rel in made if rel not in out)]]
    if any(text is None for texts in left for text in texts):
        return None
    return None if _similar_sizes(*left) else out  # type: ignore[arg-type]


def _similar_sizes(removed: list[str], added: list[str]) -> bool:
    """Some removed file and added file git may weigh as a rename: it never pairs two where one is
    more than twice the other's size (diffcore-rename.c), and finds the others by their content."""
    sizes = sorted(len(text.encode()) for text in added)
    for size in (len(text.encode()) for text in removed):
        at = bisect.bisect_left(sizes, (size + 1) // 2)  # (the first added file at least half its size)
        if at < len(sizes) and sizes[at] <= 2 * size:
            return True
    return False


def may_rename(changes: list[tuple[str, str | None, str | None, str, str]]) -> bool:
    """Among `changes` (path, texts and blobs before and after), a removed file and an added one git
    may show as a rename (the same content, or sizes close enough to weigh), which the diffs here do
    not write."""
    removed = [(old, before) for _, before, _, old, new in changes if old and not new]
    added = [(new, after) for _, _, after, old, new in changes if new and not old]
    if not removed or not added:
        return False
    if {blob for blob, _ in removed} & {blob for blob, _ in added} or \
            any(text is None for _, text in removed + added):
        return True
    return _similar_sizes([text or "" for _, text in removed], [text or "" for _, text in added])
