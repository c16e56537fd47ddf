"""What git's commands change in the terminal's state: a repository made (`init`, `clone`), who
commits (`config`), what is staged (`add`), each commit made and its id (printed, or made at the
second the state saw a quiet one done, then corrected by the next output that shows git's),
branches, tags and remotes; anything else git does ends what the state follows of the repository.
"""

from __future__ import annotations

import posixpath
import re

from . import gitclean, gitmodes, gitmv, gitobjects, gitpast, gitremote, gitrestore, gitrm, gitstash, gitstatus, modes
from . import state as st
from .gitindex import _committed, ignoring, refused
from .repository import (BRANCH_LISTING, GIT_READS, QUIET, TAG_LISTING, _commit_message, _commits_all, _fresh,
                         _git_globals, _new_commit)
from .state import (Made, TerminalState, _abs, _blob, _changed, _forget_below, _forget_writes, _in_repo, _kept, _made,
                    _within, _write)


def apply(s: TerminalState, words: list[str], output: str | None) -> bool:
    """The state after the git command `words` (expanded) printed `output` (None: not known, a part of
    a line whose output is the last part's); False for a command that is not git's."""
    cmd, args = words[0], words[1:]
    if cmd == "git" and s.git is not None and s.git.pristine and _may_write_git_dir(s, args):
        s.git.pristine = False
    if cmd == "git" and args[:1] in (["init"], ["clone"]):
        where = [a for a in args[1:] if not a.startswith("-")]
        target = where[0] if args[0] == "init" and where else (where[1] if len(where) > 1 else None)
        if args[0] == "clone" and target is None and where:
            target = posixpath.basename(where[0].rstrip("/")).removesuffix(".git")
        repo = _abs(target, s) if target else s.cwd
        fresh = _fresh(s, repo) if args[0] == "init" and set(args[1:]) - set(where) <= QUIET else None
        s.deleted = [d for d in s.deleted if not _within(repo, d)]  # (git makes the folder, and those on the way)
        if fresh is not None:  # the world's first repository: followed from its start
            if repo not in s.dirs:
                s.dirs.append(repo)
                s.known_dirs.append(repo)
                _made(s, repo)
            s.git = fresh  # (and no other repository: `no_repo` stays)
            _changed(s, repo)  # (.git made in it)
            s.times[posixpath.join(repo, ".git")] = int(st.clock())
            return True
        if args[0] == "init" and s.git is not None and repo == s.git.repo:
            s.times.pop(posixpath.join(repo, ".git"), None)  # made again: nothing else changes (its time: not followed)
            return True
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
        # (the modes followed through it, or it only reads, or it cannot change one)
        kept = gitmodes.aware(args) or args[:1] and args[0] in GIT_READS or gitmodes.settled(s)
        before = gitmodes.snapshot(s) if kept and not gitmodes.aware(args) else {}
        if not kept:
            modes.after_git(s, args)  # (what it may have written back: its mode not known)
        if not _leaves_git_dir(args):
            s.times.pop(posixpath.join(s.git.repo, ".git"), None)  # (git may have written there, at any time)
        plain = [a for a in args if not a.startswith("-")]
        sub = args[:1]
        commit_message = _commit_message(args) if sub == ["commit"] else None
        if sub == ["remote"]:
            gitremote.apply(s.git, args[1:], output)
        elif not sub or sub[0] in GIT_READS or (sub == ["branch"] and set(args[1:]) <= BRANCH_LISTING) or \
                args in TAG_LISTING:
            if args == ["log", "--oneline"] and output:
                _abbreviations_shown(s, output)
            # (reads: `git branch` alone lists the branches, which marked git unknown until now)
        elif sub == ["add"]:
            _stage(s, args[1:])
        elif commit_message is not None:
            config = (_git_globals(words[1:]) or ({}, []))[0]
            coming = _new_commit(s, config, _commits_all(args), commit_message) \
                if s.git.head or not s.git.commits else None
            if s.git.branch not in s.git.branches:
                s.git.branches.append(s.git.branch)  # (a repository's first commit makes its branch)
            parent, s.git.head = s.git.head, ""
            index = _committed(s, _commits_all(args))
            taken = gitmodes.committed(s, _commits_all(args))
            gitpast.keep_earlier(s)
            _remember_change(s, index, taken)
            _commit(s, index, taken)
            if len(s.git.hashes) < len(s.git.commits):
                s.git.hashes += [""] * (len(s.git.commits) - len(s.git.hashes))
            s.git.commits.append(commit_message)
            done = _COMMITTED.search(output or "")  # "[main 1a2b3c4] message": the new commit's id
            s.git.hashes.append(done.group(1)[:7] if done else "")
            s.git.made += [None] * (len(s.git.commits) - 1 - len(s.git.made))
            s.git.made.append(None)
            if coming is not None and done:  # its full id: made in the last minute, at the second it shows
                now = int(st.clock())
                found = next(((made, when) for when in range(now + 1, now - 60, -1)
                              if (made := coming.made(parent, when)).startswith(done.group(1))), None)
                if found:
                    s.git.head, s.git.made[-1] = found[0], Made(id=found[0], who=coming.who, when=found[1])
            elif coming is not None and output == "":  # `commit -q`: git's id at this second, as far as is known
                now = int(st.clock())
                s.git.head = coming.made(parent, now)
                s.git.hashes[-1] = s.git.head[:7]
                s.git.made[-1] = Made(id=s.git.head, who=coming.who, when=now, tree=coming.tree, parent=parent)
        elif sub == ["tag"] and len(args) == 2 and not args[1].startswith("-"):
            s.git.tags[args[1]] = len(s.git.commits)
        elif sub in (["checkout"], ["switch"]) and len(plain) == 2 and "--" not in args and \
                set(args[1:]) - {plain[1]} <= {"-b", "-c", "-q"} and \
                (plain[1] in s.git.branches or {"-b", "-c"} & set(args)):
            if plain[1] not in s.git.branches:
                s.git.branches.append(plain[1])  # (made here: its last commit is this one)
            elif plain[1] != s.git.branch:
                s.git.last_change = None  # (another branch's last commit: not known to be this one)
                if s.git.moved:
                    modes.after_git(s, args)
                    s.git.unknown = True  # that branch's files may differ from these: not followed
                    _forget_writes(s, s.git.repo)
            s.git.branch = plain[1]
        elif sub == ["branch"] and len(plain) == 2 and len(args) == 2:
            if plain[1] not in s.git.branches:
                s.git.branches.append(plain[1])
        elif sub == ["branch"] and len(args) == 3 and args[1] in ("-d", "-D") and args[2] in s.git.branches:
            s.git.branches.remove(args[2])
        elif sub in (["checkout"], ["restore"], ["reset"]) and gitrestore.apply(s, args, output) or \
                sub == ["stash"] and gitstash.apply(s, args, output) or sub == ["rm"] and gitrm.apply(s, args, output) or \
                sub == ["mv"] and gitmv.apply(s, args, output) or sub == ["clean"] and gitclean.apply(s, args, output):
            pass  # (a file put back, the index too: as the last commit, the index or a stash had it)
        else:  # merge, rebase, stash, a reset or restore not followed, commit --amend…: not modelled
            s.git.unknown = True
            modes.after_git(s, args)  # (what it wrote, from another branch perhaps: its mode not known)
            before = {}
            if _index_only(args):
                _forget_writes(s, s.git.repo)
            else:  # (`git rm`, `git mv`, a stash or a restore: files removed, renamed or brought back)
                _forget_below(s, s.git.repo)
        if not kept:
            gitmodes.lose(s)
        gitmodes.written_back(s, before)
    else:
        return False
    return True


def _index_only(args: list[str]) -> bool:
    """A git command that leaves the working tree's files where they are (it may change the index,
    history or names): `reset` (but --hard, --merge, --keep), `restore --staged`, `rm --cached`, a
    stash listed or shown, commits, tags, branches, configuration and remotes."""
    sub, rest = (args[0], args[1:]) if args else ("", [])
    if sub == "reset":
        return not {"--hard", "--merge", "--keep"} & set(rest)
    if sub == "restore":
        return bool({"-S", "--staged"} & set(rest)) and not {"-W", "--worktree"} & set(rest)
    if sub == "rm":
        return "--cached" in rest
    if sub == "stash":
        return rest[:1] in (["list"], ["show"])
    return sub in ("commit", "tag", "branch", "config", "remote", "fetch", "notes", "gc", "reflog")


_COMMITTED = re.compile(r"^\[[^\]\s]+(?: \(root-commit\))? ([0-9a-f]{7,40})\] ", re.M)


def _abbreviations_shown(s: TerminalState, output: str) -> None:
    """`git log --oneline` lists every commit, newest first: where its lines are the commits the
    state knows, with their messages, the abbreviated ids it shows are theirs (a world whose
    repository's ids the state could not make: the next `git log --oneline` is answered)."""
    g = s.git
    assert g is not None
    lines = output.splitlines()
    if len(lines) != len(g.commits) or not output.endswith("\n"):
        return
    shown = [re.fullmatch(r"([0-9a-f]{7,40}) (.*)", line) for line in reversed(lines)]
    if all(m and m.group(2) == message and "\n" not in message for m, message in zip(shown, g.commits)) and \
            all(not h or h == m.group(1) for h, m in zip(g.hashes, shown) if m):
        g.hashes = [m.group(1) for m in shown if m]


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


def _sets_identity(s: TerminalState, args: list[str]) -> bool:
    """`git config [--global|--local] user.name|user.email VALUE`: who commits is known from now
    (a global one written to ~/.gitconfig; the repository's own wins over it, in whatever order they
    were set); another config command naming them: no longer known."""
    scope = [a for a in args if a.startswith("-")]
    plain = [a for a in args if not a.startswith("-")]
    if not plain or plain[0].lower() not in ("user.name", "user.email"):
        return False
    if "--get" in scope and len(plain) == 1:  # (a read, as without --get)
        scope.remove("--get")
    if scope not in ([], ["--global"], ["--local"]) or len(plain) != 2 or s.identity is None:
        if len(plain) != 1 or scope not in ([], ["--global"], ["--local"]):
            s.identity = None  # (--unset, --add, a file named…: not followed)
        return len(plain) == 1 and s.identity is not None  # (reading one changes nothing)
    key = plain[0].lower()
    if scope == ["--global"]:
        _write(s, posixpath.join(s.home, ".gitconfig"), None)
        if key in s.identity_local:
            return True  # (the repository's own still says who commits there)
    elif s.git is None or not _in_repo(s):
        s.identity = None  # (a repository's own config, outside the one the state follows)
        return True
    else:
        s.identity_local = sorted({*s.identity_local, key})
    s.identity = {**s.identity, key: plain[1]}
    return True


# git's reads that never write in .git itself, so its time (ls -l) stays; `git status` rewrites the
# index there every time (checked in the sandbox: twice in a row, on a clean tree and a changed one)
GIT_DIR_UNTOUCHED = frozenset({"log", "diff", "show", "blame", "grep", "ls-files", "rev-parse", "describe",
                               "shortlog", "reflog", "cat-file", "ls-tree", "help", "version", "--version"})


_GIT = re.compile(r"(?<![\w./-])git(?![\w.-])")
_GIT_OPTION = re.compile(r"\s+(?:-c\s+\S+|--no-pager|-P|--no-optional-locks)")
_GIT_SUB = re.compile(r"\s+([a-z][a-z-]*)(?=\s|$|[;&|)])")


_GIT_DIR = re.compile(r"(?:^|[\s/'\"=;&|(])\.git(?:$|[\s/'\";&|)])")


def git_dir_touched(state: dict, after: dict, command: str, reads_only) -> None:
    """What the line may have done to .git that the rules do not follow command by command, on the
    state `after` it (`state`: before): `git status`, however it is run (`$(git status)`, `(git
    status)`, `env git status`), may write the index anew (GitState.index_moved); any command
    that does not only read (`reads_only()`) and names .git as a path, or runs inside it (`mkdir
    .git/x`, `cd .git/hooks && rm *.sample`), leaves it no longer as the commit left it."""
    git = after.get("git")
    if not git or not git.get("pristine"):
        return
    if not git.get("index_moved") and may_rewrite_index(command):
        git["index_moved"] = True
    if (_GIT_DIR.search(command) or "/.git" in state.get("cwd", "") + "/") and not reads_only():
        git["pristine"] = False


def may_rewrite_index(command: str) -> bool:
    """The line may have run git in a way that writes its index anew (`git status` refreshes it),
    wherever git stands in it (`$(git status)`, `(git status)`, `env git status`, `xargs git
    status`): git named anywhere, but before a subcommand that leaves .git as it is (`git log`)."""
    for found in _GIT.finditer(command):
        at = found.end()
        while (option := _GIT_OPTION.match(command, at)) is not None:
            at = option.end()
        sub = _GIT_SUB.match(command, at)
        if sub is None or not _leaves_git_dir([sub.group(1)]):
            return True
    return False


def _leaves_git_dir(args: list[str]) -> bool:
    """Whether git (its arguments from the subcommand on) leaves the .git folder's entries alone."""
    return bool(args) and (args[0] in GIT_DIR_UNTOUCHED and "--output" not in " ".join(args) or
                           args[0] == "branch" and set(args[1:]) <= BRANCH_LISTING or args in TAG_LISTING or
                           args in (["remote"], ["remote", "-v"]))


def _may_write_git_dir(s: TerminalState, args: list[str]) -> bool:
    """Whether git may have added, removed or resized a file in the repository's .git: a command run
    there that does (`status` only refreshes the index), or one pointed at a repository elsewhere."""
    elsewhere = any(a in ("-C", "--git-dir", "--work-tree") or a.startswith(("--git-dir=", "--work-tree="))
                    for a in args) or {"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE"} & set(s.env)
    sub = _git_args(args)
    return elsewhere or _in_repo(s) and not (_leaves_git_dir(sub) or sub[:1] == ["status"])


def _git_args(args: list[str]) -> list[str]:
    """git's arguments from the subcommand on (`-c name=value` and `--no-pager` before it dropped)."""
    i = 0
    while i < len(args) and args[i].startswith("-"):
        i += 2 if args[i] == "-c" else 1
    return args[i:]


_REFUSED = re.compile(re.escape(gitstatus.IGNORED).replace(re.escape("{paths}"), r"(?:[^\n]+\n)+"))


def refused_ignored(output: str) -> bool:
    """`git add` said it left out paths a .gitignore ignores, and nothing else: it added the others."""
    return bool(_REFUSED.fullmatch(output))


def _stage(s: TerminalState, args: list[str]) -> None:
    """`git add` (it succeeded): the paths it names, or every path (`-A`, `.` at the top), are
    staged as the working tree has them."""
    g = s.git
    assert g is not None
    paths = [a for a in args if not a.startswith("-")]
    if any(_within(r, g.repo) for r in s.other_repos):
        g.follows = g.all_staged = False  # a repository inside is added as a link, or refused: not followed
        return
    if not args:
        return  # ("Nothing specified, nothing added.": `git add #x` is `git add`, the rest a comment)
    if set(args) - set(paths) <= {"-A", "--all"} and (paths == [] or paths == ["."] and s.cwd == g.repo):
        g.all_staged = True
        paths = [g.repo]
        if not g.others_known:
            g.follows = False  # (files the state does not know were staged too: a commit of them all, not answered)
    elif set(args) - set(paths) - ({"-A", "--all"} if paths == ["."] else set()) or \
            any(c in "".join(paths) for c in "*?[") or \
            any(not _within(_abs(p, s), g.repo) for p in paths):
        g.follows = False  # options (`-u`, `-p`, `-f`…) or patterns: what was staged is not followed
        return
    else:
        paths = [_abs(p, s) for p in paths]
    staged = [rel for rel in g.base if any(_within(posixpath.join(g.repo, rel), p) for p in paths)]
    fresh = [rel for rel in staged if g.base[rel] == "" and g.index.get(rel, "") == ""]  # (untracked)
    ignores = ignoring(s)
    named = refused(s, paths, ignores)
    if ignores is None or named is None:
        g.follows = g.all_staged = False  # (what a .gitignore leaves out, which is not staged: not known)
        return
    staged = [rel for rel in staged if rel not in fresh or not ignores(rel)]  # (a path named that is ignored too)
    for rel in staged:
        g.index[rel] = _kept(s, posixpath.join(g.repo, rel))
        gitmodes.stage(s, rel)


def _remember_change(s: TerminalState, index: dict[str, str | None] | None, taken: dict[str, bool] | None) -> None:
    """What the commit about to be made of `index` (with the modes `taken`) changes, path by path,
    with the texts of both sides (`git show`); nothing where a blob, its text or a mode is not known."""
    g = s.git
    assert g is not None
    g.last_change, g.last_texts, g.last_modes = None, {}, {}
    if index is None or taken is None:
        return
    if any(g.base[rel] is None for rel in index):
        return  # (a path's blob at the last commit not known)
    sides = {rel: (gitmodes.head(g, rel) and bool(g.base[rel]), taken[rel] and bool(new)) for rel, new in index.items()}
    change = {rel: [g.base[rel] or "", new or ""] for rel, new in index.items()
              if new != g.base[rel] or sides[rel][0] != sides[rel][1] and g.base[rel] and new}
    modes = {rel: list(pair) for rel in change if (pair := gitmodes.pair(*sides[rel]))}
    texts: dict[str, str] = {}
    for rel, blobs in change.items():
        working = s.files.get(posixpath.join(g.repo, rel))
        for blob in blobs:
            text = g.texts.get(blob) if blob else ""
            if text is None and working is not None and _blob(s, posixpath.join(g.repo, rel)) == blob:
                text = working
            if text is None:
                return
            if blob:
                texts[blob] = text
    g.last_change, g.last_texts, g.last_modes = change, texts, modes


def _commit(s: TerminalState, index: dict[str, str | None] | None, taken: dict[str, bool] | None) -> None:
    """A commit was made of `index` with the modes `taken` (None: the state did not know them): it
    is the last commit now, and only the paths whose working tree differs from it stay changed."""
    g = s.git
    assert g is not None
    g.moved = True
    if g.all_staged:  # everything was staged, so everything was committed: nothing differs but what is ignored
        ignored = {rel: "" for rel, head in g.base.items() if head == "" and g.index.get(rel, "") == ""}
        gitmodes.after_commit(s, None, True, set(ignored))
        g.follows, g.base, g.index, g.texts, g.all_staged, g.others_known = True, ignored, {}, {}, False, True
        return
    gitmodes.after_commit(s, {rel: x and bool(index[rel]) for rel, x in taken.items()}
                          if index is not None and taken is not None else None, False, set())
    if index is None or taken is None:
        g.follows = False
        return
    g.base = {rel: head for rel, head in index.items() if _blob(s, posixpath.join(g.repo, rel)) != head or
              head and gitmodes.work(s, rel) != gitmodes.head(g, rel)}
    g.index = {}
    g.texts = {h: t for h, t in g.texts.items() if h in g.base.values()}
