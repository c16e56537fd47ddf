"""`git status` as git prints it, from the changes the shell state worked out (repository.changes).

A change is a path (as git shows it: relative to the shell's folder) with its two status letters,
the index against the last commit and the working tree against the index, as `git status --short`
writes them (" M", "A ", "MD", "??"…). Untracked folders come collapsed, ending in "/". Checked
byte for byte against git in the sandbox (benchmarks/state_vs_real.py).
"""

from __future__ import annotations

LABELS = {"A": "new file:", "M": "modified:", "D": "deleted:"}
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
    unstaged = [(path, xy[1]) for path, xy in changes if xy != "??" and xy[1] != " "]
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
