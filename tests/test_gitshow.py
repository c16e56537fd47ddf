"""`git show` with the options agents give it (domains/terminal/rules/gitshow.py), diffstats as wide
as a real project's (gitdiff.stat), and who commits as `git config` set it: each answer beside the
real bubblewrap sandbox's (tests/sandboxed.py), byte for byte."""

from __future__ import annotations

import pytest
import yaml

from mcp_world.executors.sandbox import bwrap_available
from mcp_world.world import load_world

from .sandboxed import side_by_side, unanswered

pytestmark = pytest.mark.skipif(not bwrap_available(), reason="needs bubblewrap")
IDENTITY = "git -c user.name=Dev -c user.email=dev@example.com"


def test_git_show_s_headers_and_bodies_as_git_joins_them():
    """A one-line header runs into the body, any other is followed by a blank line (a
    `--pretty=format:` one by a newline); `-s` drops the body whatever else asks for one; the commit
    named as HEAD, its branch or its abbreviated id. Before, only `git show [--stat] [HEAD]` and three
    others were answered."""
    lines = ["git show --oneline --stat", "git show -s", "git show --name-only HEAD", "git show --format=%H -s",
             "git show --format='%h%n%s' --stat", "git show --pretty=oneline --stat", "git show --oneline",
             "git show -s --oneline", "git show -s --pretty=format:%s", "git show --pretty=format:%s --stat",
             "git show --name-status --oneline", "git show --format=%s --name-only", "git show --numstat",
             "git show --shortstat", "git show --stat -s", "git show main --stat", "git show 60b5326 -s",
             "git show --no-patch --format='%an <%ae>'",
             f"echo more >> README.md && {IDENTITY} commit -qam 'Say more'", "git show --oneline --stat",
             "git show -s --format='%an %s'", "git show $(git rev-parse --short HEAD) --name-status", "git show -p"]
    seen = side_by_side(lines)
    assert unanswered(seen, set(lines)) == set()


def test_what_is_left_to_the_model_in_git_show():
    """An id of 4 characters may be ambiguous with another object; an option not read here
    (`--abbrev-commit`); two commits named at once."""
    lines = [f"echo more >> README.md && {IDENTITY} commit -qam 'Say more'", "git show 60b5326 --stat",
             "git show 60b5", "git show --abbrev-commit -s", "git show HEAD HEAD~1 --stat", "git show --stat --oneline"]
    seen = side_by_side(lines)
    assert [said is None for _, said, _ in seen[1:]] == [False, True, True, True, False]


def test_commits_before_the_last_are_shown_and_git_log_shows_each_one_s_changes():
    """`git show HEAD~1`, `HEAD~2 --stat`, `HEAD^ --name-only`, the world's first commit by its id, and
    `git log --stat`, `-p -2`, `--name-status`, `--oneline --stat`, `--format=%s --stat`,
    `--pretty=format:%h --stat` (a blank line between entries) over commits the episode made, one of them
    a mode changed alone. Before, only the last commit's change was kept: each of these was the model's."""
    lines = ["echo x >> README.md", f"{IDENTITY} commit -qam two",
             f"echo y > n.txt && git add n.txt && {IDENTITY} commit -qm three", "git log --stat", "git log -p -2",
             "git log --name-status", "git log --oneline --stat", "git log --format=%s --stat",
             "git log --pretty=format:%h --stat -2", "git show HEAD~1", "git show HEAD~2 --stat",
             "git show HEAD^ --name-only", "git show 60b5326 --stat", f"chmod +x n.txt && {IDENTITY} commit -qam four",
             "git log -p -2", "git log --stat -3 --date=short", "git show HEAD~1 --oneline"]
    seen = side_by_side(lines)
    assert unanswered(seen, set(lines)) == set()


def test_a_real_projects_first_commit_is_shown_with_its_diffstat_scaled(tmp_path):
    """Files of hundreds of lines under long names: git scales the +/- graph into its 80 columns and
    cuts the names to "..." and their last folders. Before, each was left to the model."""
    files = {"/home/user/proj/README.md": "# proj\n\nA project.\n",
             "/home/user/proj/src/proj/a/rather/deep/package/of/modules/implementation_details.py":
                 "".join(f"x_{i} = {i}\n" for i in range(340)),
             "/home/user/proj/tests/test_everything.py": "".join(f"def test_{i}():\n    pass\n" for i in range(90))}
    world = {"name": "wide", "description": "A project.", "domains": ["terminal"],
             "seed": {"terminal": {"user": "user", "hostname": "devbox", "cwd": "/home/user/proj", "files": files,
                                   "git": [{"path": "/home/user/proj", "branch": "main", "message": "Start"}]}}}
    path = tmp_path / "wide.yaml"
    path.write_text(yaml.safe_dump(world))
    lines = ["git show --stat", "git log --stat", "git show --oneline --stat", "git log -1 --stat",
             "sed -i 's/= 1/= 100/' src/proj/a/rather/deep/package/of/modules/implementation_details.py",
             "git diff --stat", "git diff HEAD --stat", f"{IDENTITY} commit -qam Tweak", "git show --stat"]
    seen = side_by_side(lines, str(path))
    assert unanswered(seen, set(lines)) == set()
    assert ".../" in seen[0][2] and "+++++" in seen[0][2]


def test_who_commits_is_the_repositorys_own_config_over_the_global_one():
    """`git config user.name Alice` in the repository, then `--global user.name Bob`: git commits as
    Alice there, whatever was set last. Before, the state committed as Bob: the author and the id of
    the commit, and every `git log` after it, were confidently wrong. `git config [--get] user.name`
    reads back what was set (nothing, exit 1, where nothing was); a read with `--get` no longer made
    the state forget who commits (and `ls` after it was the model's)."""
    lines = ["git config user.name", "git config user.name Alice && git config user.email a@x",
             "git config --global user.name Bob && git config --global user.email b@x", "git config user.name",
             "git config --get user.email", "ls", "git config --local user.email",
             "echo x >> README.md && git commit -qam one", "git log -1 --format='%an %ae'", "git log --oneline"]
    seen = side_by_side(lines)
    assert unanswered(seen, set(lines)) == set()
    assert dict((c, s) for c, s, _ in seen)["git log -1 --format='%an %ae'"] == ("Alice a@x\n", 0)
    seen = side_by_side(["cd ..", "git config --get user.name", "git config --global user.name Bob",
                         "git config --global user.name", "git config user.email"])
    assert [said for _, said, _ in seen[1:]] == [("", 1), ("", 0), ("Bob\n", 0), ("", 1)]


def test_remotes_added_and_removed_are_listed_as_git_lists_them():
    """`git remote -v` of the world's repository prints nothing (it has none, as a fresh clone of a
    project's files does not); `git remote add`, `remove`, `get-url`, and their refusals, as git
    prints them; names in byte order. `git remote add -f x y` adds x and then fails to fetch, and
    `git config remote.origin.url`: what they left is the model's. Before, every `git remote` was."""
    lines = ["git remote -v", "git remote add zeta https://e.com/z.git",
             "git remote add origin git@github.com:me/notes.git", "git remote", "git remote -v",
             "git remote add origin x", "git remote get-url origin", "git remote get-url nope",
             "git remote remove nope",
             "git remote rm zeta", "git remote --verbose", "git remote add Up-1.x ../up", "git remote", "git status"]
    seen = side_by_side(lines + ["git remote add -f x y", "git remote get-url x", "git config remote.origin.url w"])
    assert unanswered(seen, set(lines)) == set()
    assert seen[4][1] == ("origin\tgit@github.com:me/notes.git (fetch)\norigin\tgit@github.com:me/notes.git (push)\n"
                          "zeta\thttps://e.com/z.git (fetch)\nzeta\thttps://e.com/z.git (push)\n", 0)
    assert seen[-2][1] is None


def test_dates_in_the_form_date_asks_for():
    """`git log --date=short` (and iso, iso-strict, rfc, unix, raw, local, default) in the default form's
    `Date:` line, in `%ad` and `%cd` (`%ai` keeps its own), and in `git show`'s header; a commit made in
    the episode too. Before, any `--date=` was the model's. `--date=relative` stays the model's."""
    lines = ["git log --date=short", "git log --date=iso -1", "git log --date=raw --format='%ad|%cd|%ai'",
             "git log --date=unix --format=%ad", "git log --date=rfc --format=%cd",
             "git log --date=iso-strict --pretty='%h %ad'", "git log --date=local --format=%ad",
             "git log --format='%h %ad %s' --date=short", "git show --date=short -s", "echo x >> README.md",
             f"{IDENTITY} commit -qam two", "git log --date=short --format='%h %ad %an %s'",
             "git show --stat --date=iso", "git log --oneline --date=short", "git log --date=relative --format=%ad"]
    seen = side_by_side(lines)
    assert unanswered(seen, set(lines[:-1])) == set()
    assert seen[-1][1] is None


def test_the_changes_kept_of_earlier_commits_are_bounded():
    """What each earlier commit changed is kept beside it (the state document is read at every step):
    one whose texts pass 256 KiB is not kept, and past 2 MiB in all the oldest are let go."""
    from .sandboxed import RULES

    gitpast = __import__(type(RULES).__module__ + ".gitpast", fromlist=["x"])
    st = __import__(type(RULES).__module__ + ".state", fromlist=["x"])
    s = st.TerminalState.model_validate(RULES.initial(load_world("devbox")))
    seen = []
    for n, size in enumerate([300_000, 1_000, *[250_000] * 9]):
        s.git.commits.append(f"c{n}")  # (the last commit, whose change `keep_earlier` keeps beside it)
        s.git.last_change, s.git.last_texts = {"f": ["", f"b{n}"]}, {f"b{n}": "x" * size}
        gitpast.keep_earlier(s)
        seen.append([shown is not None for shown in s.git.earlier])
    assert seen[0] == [False, False] and seen[1] == [False, False, True]  # (300,000 characters: not kept)
    # (nine of 250,000 pass 2 MiB: the oldest are let go, the 1,000 first)
    assert seen[-1] == [False] * 4 + [True] * 8 and len(seen[-1]) == len(s.git.commits)
