"""git in the terminal's state: what git prints where the state knows the repository (`status`,
`log`, `diff`, `branch`, `init` where the world has none, `commit` with its id), and what git's
commands change in it (what is staged, each commit made, the ids an output shows).

Checked byte for byte against git in the sandbox (benchmarks/state_vs_real.py).
"""

from __future__ import annotations

import posixpath
import re

from . import gitdiff, gitgrep, gitlog, gitmodes, gitobjects, gitpast, gitstatus
from . import state as st
from .gitindex import _committed, _tracked, changes, ignoring, refused
from .state import GitState, TerminalState, _PLAIN, _abs, _blob, _children, _contents, _exists, _in_repo, _within


# What git says to a commit where no one is configured to make it (the sandbox, a fresh machine):
# it asks before anything else, even with nothing to commit
NO_IDENTITY = ("Author identity unknown\n\n*** Please tell me who you are.\n\nRun\n\n"
               "  git config --global user.email \"you@example.com\"\n  git config --global user.name \"Your Name\"\n\n"
               "to set your account's default identity.\nOmit --global to set the identity only in this repository.\n\n"
               "fatal: unable to auto-detect email address (got '{who}')\n")


def _no_identity(s: TerminalState, config: dict[str, str]) -> bool:
    """No email for a commit anywhere git looks: not given (`-c user.email=…`), not in the
    environment, no git config run or config file written in the episode (the world writes none)."""
    return bool(s.host) and "user.email" not in config and s.identity is not None and \
        "user.email" not in s.identity and not _env_identity(s)


def _env_identity(s: TerminalState) -> bool:
    """Something beside `git config` may say who commits: the environment, or a config file written."""
    return bool({"GIT_AUTHOR_EMAIL", "GIT_COMMITTER_EMAIL", "EMAIL", "GIT_AUTHOR_NAME", "GIT_COMMITTER_NAME",
                 "GIT_AUTHOR_DATE", "GIT_COMMITTER_DATE", "PATH", "HOME", "GIT_CONFIG_GLOBAL"} & set(s.env)) or \
        any(p.endswith(GIT_CONFIG_FILES) and s.files[p] is not None for p in s.files)


QUIET = {"-q", "--quiet"}


# What may make a new repository other than git's defaults: its branch name, its template
GIT_SETTINGS = frozenset({"HOME", "PATH", "XDG_CONFIG_HOME", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "GIT_CONFIG_NOSYSTEM",
                          "GIT_TEMPLATE_DIR", "GIT_DIR", "GIT_WORK_TREE", "GIT_CEILING_DIRECTORIES", "GIT_CONFIG_COUNT",
                          "GIT_CONFIG_PARAMETERS"})


def _new_repository(s: TerminalState, repo: str) -> bool:
    """`git init` at `repo` makes a repository there, on git's default branch (`master`: nothing
    configures another): the folder is known to hold none (or is made now, inside a known one)."""
    if s.configured or GIT_SETTINGS & set(s.env) or not _within(repo, s.home) or repo in s.files or \
            any(_within(repo, d) for d in s.deleted) or repo in s.other_repos or s.git and repo == s.git.repo:
        return False
    if repo in s.dirs:
        return repo in s.known_dirs and ".git" not in _children(repo, s)
    return posixpath.dirname(repo) in s.known_dirs  # (git makes the folder; the folders on the way too: not followed)


def _fresh(s: TerminalState, repo: str) -> GitState | None:
    """The repository `git init` makes at `repo` where the world has none yet (the state follows one
    repository): no commit, every file under it untracked. Followed only where every folder under
    it is known whole; None where it is not modelled (a repository may be elsewhere already, or
    inside it: git adds that as an embedded one)."""
    if s.git is not None or not s.no_repo or not _new_repository(s, repo) or \
            any(_within(r, repo) for r in s.other_repos):
        return None
    inside = [p for p in [*s.files, *s.dirs] if p != repo and _within(p, repo) and not any(_within(p, d) for d in s.deleted)]
    if any(posixpath.basename(p) == ".git" for p in inside):
        return None
    folders = [repo, *(p for p in inside if p in s.dirs)] if repo in s.dirs else []
    return GitState(repo=repo, branch="master", branches=[], follows=all(d in s.known_dirs for d in folders),
                    stash=[], remotes={},
                    base={posixpath.relpath(p, repo): "" for p in inside if p not in s.dirs})


def _init_answer(s: TerminalState, args: list[str]) -> tuple[str, int] | None:
    """`git init [-q] [FOLDER]`: a repository made (git's hint on the branch's name first, as on a
    machine without config), or made again."""
    where = [a for a in args if a not in QUIET]
    if len(where) > 1 or any(a.startswith("-") for a in where):
        return None
    repo = _abs(where[0], s) if where else s.cwd
    quiet = len(where) < len(args)
    if s.git is not None and repo == s.git.repo and not any(_within(posixpath.join(repo, ".git"), d) for d in s.deleted):
        return ("" if quiet else f"Reinitialized existing Git repository in {repo}/.git/\n"), 0
    if not _new_repository(s, repo):
        return None
    return ("" if quiet else gitstatus.INIT_HINT + f"Initialized empty Git repository in {repo}/.git/\n"), 0


# `git log` on a branch with no commit yet refuses, whatever form it was asked in
UNBORN_LOG = re.compile(r"--oneline|-\d+|-n\d*|\d+|--max-count=\d+|--(?:format|pretty)=.*|--stat|--graph|--decorate|"
                        r"-p|--patch|--name-only|--name-status|--reverse|--no-pager")


def _unborn_answer(s: TerminalState, config: dict[str, str], args: list[str]) -> tuple[str, int] | None:
    """git in a repository made in the episode that has no commit yet (`git init`): status says so,
    `git log` refuses, no branch is listed yet; adding, diffs and the first commit as anywhere."""
    g = s.git
    assert g is not None
    if args[:1] == ["commit"]:
        return _commit_answer(s, config, args)
    if config:
        return None
    if args[:1] == ["log"] and all(UNBORN_LOG.fullmatch(a) for a in args[1:]):
        return f"fatal: your current branch '{g.branch}' does not have any commits yet\n", 128
    if args[:1] == ["branch"] and args[1:] in ([], ["-a"], ["--all"], ["-l"], ["--list"], ["-v"], ["-vv"]):
        return "", 0
    if args == ["branch", "--show-current"]:
        return g.branch + "\n", 0
    if args[:1] in (["status"], ["add"], ["diff"], ["ls-files"]):
        return _git_answer(s, args)
    return None


TAG_LISTING = (["tag"], ["tag", "-l"], ["tag", "--list"])


STATUS_FORMS = {(): "long", ("-s",): "short", ("--short",): "short", ("--porcelain",): "porcelain",
                ("-s", "-b"): "branch", ("-sb",): "branch", ("--short", "--branch"): "branch"}


def _git_answer(s: TerminalState, args: list[str]) -> tuple[str, int] | None:
    """git in the repository the state models: status, the branch's name, tags, and the commands
    that print nothing when they succeed (add, `commit -q`, tag)."""
    g = s.git
    assert g is not None
    if g.commits and not g.unknown and \
            (past := gitlog.past_the_root(args, len(g.commits), g.branch, lambda a: _exists(_abs(a, s), s))):
        return past, 128
    if args[:1] == ["status"] and tuple(args[1:]) in STATUS_FORMS:
        form = STATUS_FORMS[tuple(args[1:])]
        listed = changes(s, g.repo if form == "porcelain" else s.cwd)
        if listed is None:
            return None
        if form == "long":  # (a repository with no commit yet says so: `git init`'s, _unborn_answer)
            return gitstatus.long(g.branch, listed, unborn="" if g.commits else gitstatus.NO_COMMITS), 0
        head = f"## {g.branch}\n" if g.commits else f"## No commits yet on {g.branch}\n"
        return (head if form == "branch" else "") + gitstatus.short(listed), 0
    if args[:1] == ["diff"]:
        return _diff(s, args[1:])
    if args[:1] == ["grep"] and not g.unknown:
        tracked = _tracked(s)
        return None if tracked is None else gitgrep.answer(s, g, args[1:], tracked)
    if args[:1] == ["log"]:  # (`--all`: a stash's commits too, and other branches')
        if "--all" in args and not (len(g.branches) == 1 and g.stash == []):
            return None
        plain = [a for a in args[1:] if a != "--all"]
        return gitpast.log_changes(s, plain) or gitpast.log(g, plain)
    if args == ["branch", "--show-current"] or args == ["rev-parse", "--abbrev-ref", "HEAD"] and g.branch not in g.tags:
        return g.branch + "\n", 0  # (a tag of the branch's name makes the short name ambiguous: heads/main)
    if args[:1] == ["rev-parse"]:
        said = gitlog.rev_parse(args[1:], g.head, g.branch, g.repo, s.cwd)
        return None if said is None else (said, 0)
    if args[:1] == ["ls-files"] and not any(a.startswith("-") for a in args[1:]):  # (`git ls-files '*.py'`)
        tracked = _tracked(s)
        chosen = gitgrep.pathspecs(args[1:], g.repo, s.cwd) if args[1:] else \
            (lambda rel: _within(posixpath.join(g.repo, rel), s.cwd))
        return None if tracked is None or chosen is None else \
            ("".join(posixpath.relpath(posixpath.join(g.repo, rel), s.cwd) + "\n" for rel in tracked if chosen(rel)), 0)
    if args[:1] == ["show"] and not any(a.startswith("HEAD:") or a.startswith("@:") for a in args):
        return gitpast.show(s, args[1:])
    if len(args) == 2 and args[0] == "show" and args[1].startswith(("HEAD:", "@:")) and g.follows:
        rel = args[1].partition(":")[2]
        if not re.fullmatch(r"[A-Za-z0-9._+@=,-]+(/[A-Za-z0-9._+@=,-]+)*", rel) or rel.startswith(".") and "/" in rel:
            return None  # (`HEAD:./x` is relative to the shell's folder; a folder is listed as a tree)
        if rel in g.base:  # written since: the blob it had at the last commit ("": none)
            text = g.texts.get(g.base[rel]) if g.base[rel] else None
        else:  # as the last commit has it
            text = _contents(posixpath.join(g.repo, rel), s)
        return None if text is None or posixpath.join(g.repo, rel) in s.dirs else (text, 0)
    if args == ["branch", "-v"] and len(g.branches) == 1 and g.hashes[-1:] and g.hashes[-1] and \
            len(g.hashes) == len(g.commits) and "\n" not in g.commits[-1]:
        return f"* {g.branch} {g.hashes[-1]} {g.commits[-1]}\n", 0
    if args in TAG_LISTING:
        return "".join(t + "\n" for t in sorted(g.tags)), 0  # (tags the seed's repository had: none)
    if args[:1] == ["tag"] and len(args) == 2 and re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}", args[1]) and \
            not args[1].endswith((".lock", ".")) and ".." not in args[1]:
        if args[1] in g.tags:
            return f"fatal: tag '{args[1]}' already exists\n", 128
        return "", 0
    if args == ["describe", "--tags"]:
        here = [t for t, at in g.tags.items() if at == len(g.commits)]
        return (here[0] + "\n", 0) if len(here) == 1 else None
    if args == ["add"]:
        return gitstatus.NOTHING_ADDED, 0
    if args[:1] == ["add"] and not any(_within(r, g.repo) for r in s.other_repos):
        paths = [a for a in args[1:] if not a.startswith("-")]
        if set(args[1:]) - set(paths) <= {"-A", "--all"} and paths == [] and len(args) > 1:
            return "", 0  # everything (with nothing embedded, a repository made inside, to warn about)
        if paths and set(args[1:]) - set(paths) <= ({"-A", "--all"} if paths == ["."] else set()) and \
                all(_exists(_abs(p, s), s) and _within(_abs(p, s), g.repo) for p in paths):
            # (`.` in a folder a .gitignore ignores is refused too; a path outside or missing: not answered)
            ignored = refused(s, [_abs(p, s) for p in paths], ignoring(s))
            return None if ignored is None else ("", 0) if not ignored else \
                (gitstatus.IGNORED.format(paths="".join(p + "\n" for p in ignored)), 1)
    return None


def quiet_add(s: TerminalState, words: list[str]) -> bool:
    """`git add …` that prints nothing and changes nothing a commit's refusal depends on."""
    return words[:2] == ["git", "add"] and s.git is not None and _in_repo(s) and _git_answer(s, words[1:]) == ("", 0)


DIFF_FORMS = {(): "patch", ("--stat",): "stat", ("--numstat",): "numstat", ("--shortstat",): "shortstat",
              ("--name-only",): "names", ("--name-status",): "status"}

# the last commit's parent, as agents name it to see what it changed
PARENT = {"HEAD~1", "HEAD~", "HEAD^", "HEAD^1", "@~1", "@~", "@^"}


def _diff(s: TerminalState, args: list[str]) -> tuple[str, int] | None:
    """`git diff` (the index against the working tree), `--cached`/`--staged` (the last commit
    against the index), `HEAD` (the last commit against the working tree); as patches, `--stat`,
    `--numstat`, `--shortstat`, `--name-only` or `--name-status`, of the whole repository or of one path."""
    g = s.git
    assert g is not None
    if args[:1] and args[0] in PARENT and DIFF_FORMS.get(tuple(args[1:])) in ("patch", "stat") and \
            len(g.commits) > 1 and g.last_change is not None and not g.unknown and g.follows and \
            all(head == "" for head in g.base.values()) and not g.index:
        # (no tracked file changed since the last commit, nothing staged: the working tree against its
        # parent is what that commit changed; an untracked file no diff shows)
        body = gitpast.changed(gitpast.last(g), DIFF_FORMS[tuple(args[1:])])
        return None if body is None else (body, 0)
    sides = "index-work"
    if args[:1] in (["--cached"], ["--staged"]):
        sides, args = "head-index", args[1:]
    elif args[:1] == ["HEAD"]:
        sides, args = "head-work", args[1:]
    only = g.repo
    if args[-2:-1] == ["--"] or (args and not args[-1].startswith("-")):
        word = args[-1]
        only = _abs(word, s)  # one path, relative to the shell's folder
        args = args[:-2] if args[-2:-1] == ["--"] else args[:-1]
        if not _PLAIN.fullmatch(word) or not _within(only, g.repo) or not _exists(only, s):
            return None  # (a path that is not there is refused, or taken for a revision)
    form = DIFF_FORMS.get(tuple(args))
    if form is None or not g.follows or listed_unknown(s):
        return None
    changes = []
    shown_modes: dict[str, tuple[str, str]] = {}
    for rel in sorted(g.base, key=lambda p: p.encode()):
        path = posixpath.join(g.repo, rel)
        if not _within(path, only):
            continue
        head, staged = g.base[rel], g.index.get(rel, g.base[rel])
        work = _blob(s, path)
        old, new = {"index-work": (staged, work), "head-index": (head, staged), "head-work": (head, work)}[sides]
        if sides != "head-index" and not staged and not head:
            continue  # untracked: no diff shows it
        if sides == "head-work" and not staged:
            new = ""  # (taken out of the index: the working tree's file is untracked, and HEAD's is deleted)
        if old is None or new is None:
            return None
        xs = {"head": gitmodes.head(g, rel), "index": gitmodes.staged(g, rel),
              "work": gitmodes.work(s, rel) if work else False}
        old_x, new_x = (xs[side] for side in sides.split("-"))
        if new_x is None:
            return None  # (a mode not known)
        if (old == new and (not old or old_x == new_x)) or (sides == "index-work" and not staged):
            continue
        if pair := gitmodes.pair(old_x and bool(old), new_x and bool(new)):
            shown_modes[rel] = pair
        texts = [None if not blob else s.files.get(path) if blob == work else g.texts.get(blob) for blob in (old, new)]
        if any(blob and text is None for blob, text in zip((old, new), texts)):
            return None
        changes.append((rel, texts[0], texts[1], old, new))
    shown = None if gitstatus.may_rename(changes) else gitdiff.body(changes, form, shown_modes)
    return (shown, 0) if shown is not None else None


def listed_unknown(s: TerminalState) -> bool:
    """Some path changed since the last commit has a blob the state does not know."""
    g = s.git
    return g is None or any(v is None for v in list(g.base.values()) + list(g.index.values()))


def _git_globals(args: list[str]) -> tuple[dict[str, str], list[str]] | None:
    """git's `-c name=value` options and the words from the subcommand on; None where another global
    option comes first (`-C`, `--git-dir`…: another repository, perhaps)."""
    config: dict[str, str] = {}
    i = 0
    while i < len(args) and args[i].startswith("-"):
        if args[i] == "-c" and i + 1 < len(args) and "=" in args[i + 1]:
            name, _, value = args[i + 1].partition("=")
            config[name.lower()] = value
            i += 2
        elif args[i] == "--no-pager":
            i += 1
        else:
            return None
    return config, args[i:]


def _commit_answer(s: TerminalState, config: dict[str, str], args: list[str]) -> tuple[str, int] | None:
    """`git commit -q -m MSG` prints nothing when there is something to commit; the author must be
    given (`-c user.name=… -c user.email=…`): git refuses a commit without one where none is
    configured, as in the sandbox."""
    message = _commit_message(args)
    flags = [a for a in args[1:] if a != message]
    who = {**(s.identity or {}), **config}
    if message is None or not who.get("user.name") or not who.get("user.email") or \
            (not config.get("user.email") and _env_identity(s)) or \
            any(a.startswith("-") and not re.fullmatch(r"-[aqm]+", a) and a not in ("--all", "--quiet") for a in flags):
        return None
    index = _committed(s, _commits_all(args))
    taken = gitmodes.committed(s, _commits_all(args))
    if index is None or taken is None:
        return None
    if not any(index[rel] != head or head and index[rel] and gitmodes.head(s.git, rel) != taken[rel]
               for rel, head in s.git.base.items()):
        listed = changes(s, s.cwd)  # nothing to commit: git says why, as `git status` does
        unborn = "" if s.git.commits else gitstatus.INITIAL_COMMIT
        return (gitstatus.long(s.git.branch, listed, unborn=unborn), 1) if listed is not None else None
    if any(re.fullmatch(r"-[a-zA-Z]*q[a-zA-Z]*", a) or a == "--quiet" for a in flags):
        return "", 0
    made = _new_commit(s, config, _commits_all(args), message)
    return (made.said(s.git.branch, made.made(s.git.head, int(st.clock())), root=not s.git.commits), 0) \
        if made is not None and not made.renames else None  # (git names a rename it finds: not written here)


def _new_commit(s: TerminalState, config: dict[str, str], every_tracked: bool,
                message: str) -> gitobjects.Commit | None:
    """The commit `git commit -m message` would make, where the state knows the whole tree, the
    parent's id and who commits (`renames`: git may find a rename among its changes, and name it in
    what it prints); None elsewhere (a file too long to count its lines, a message git would clean
    up, nothing to commit)."""
    g = s.git
    assert g is not None
    index = _committed(s, every_tracked)
    name = config.get("user.name") or (s.identity or {}).get("user.name")
    email = config.get("user.email") or (s.identity or {}).get("user.email")
    if index is None or not g.head and g.commits or not name or not email or _env_identity(s) or \
            not re.fullmatch(r"[^\n<>]*[^\s<>]", name) or not re.fullmatch(r"[^\s<>]+", email) or \
            not _as_git_keeps_it(message) or gitmodes.lost(s) or ignoring(s) is None:
        return None  # (a file whose mode git records is not known; a world's file git ignores)
    taken = gitmodes.committed(s, every_tracked)
    if taken is None:
        return None
    if any(p.count("/") > gitobjects.MAX_DEPTH for p in s.files):
        return None  # (a tree that deep: the model's)
    tree: dict[str, str] = {}  # every tracked file's blob after the commit
    executable = {rel for rel in g.head_x if rel not in g.base} | {rel for rel, x in taken.items() if x}
    modes_of: dict[str, tuple[str, str]] = {}
    for path, content in s.files.items():
        rel = posixpath.relpath(path, g.repo)
        if not _within(path, g.repo) or rel in g.base or rel.startswith(".git/"):
            continue
        if content is None or any(_within(path, d) for d in s.deleted):
            return None
        tree[rel] = gitobjects.blob_id(content)
    changed = []
    sides: list[tuple[str, str | None, str | None, str, str]] = []  # (each change with its texts: a rename?)
    work_left = gitdiff.MAX_LINES * 4  # lines diffed, all files together (an answer stays quick)
    for rel, head in g.base.items():
        after = index[rel]
        if after:
            tree[rel] = after
        moved = bool(head and after) and gitmodes.head(g, rel) != taken[rel]
        if after != head or moved:
            if pair := gitmodes.pair(gitmodes.head(g, rel) and bool(head), taken[rel] and bool(after)):
                modes_of[rel] = pair
            work = posixpath.join(g.repo, rel)
            texts = [("" if not b else g.texts.get(b) if g.texts.get(b) is not None else
                      s.files.get(work) if b == _blob(s, work) else None) for b in (head, after)]
            if texts[0] is None or texts[1] is None:
                return None
            work_left -= texts[0].count("\n") + texts[1].count("\n")
            counted = gitdiff.counts(texts[0], texts[1]) if work_left > 0 else None
            if counted is None:
                return None
            changed.append((rel, head or "", after or "", *counted))
            sides.append((rel, texts[0], texts[1], head or "", after or ""))
    if not changed:
        return None  # (nothing to commit)
    return gitobjects.Commit(tree=gitobjects.tree_of(tree, executable=frozenset(executable & set(tree))),
                             who=f"{name} <{email}>", message=message, changed=changed,
                             renames=gitstatus.may_rename(sides), modes=modes_of)


def _as_git_keeps_it(message: str) -> bool:
    """A message git commits as it is given (`-m`: lines with no blank at their end, no blank line
    at either end or after another), its first paragraph one line; a message of paragraphs is
    how agents give a body (`-m a -m b`, or a here-document in `$(…)`)."""
    return message == message.strip() and not re.search(r"[ \t\r\f\v]\n|\n\n\n", message) and \
        "\n" not in message.split("\n\n", 1)[0]


# git subcommands that need a repository: outside one each stops with NOT_A_REPO (`git diff` does not:
# outside a repository it compares two paths)
NEED_A_REPO = frozenset({"status", "log", "show", "branch", "add", "commit", "checkout", "switch", "restore",
                         "reset", "rev-parse", "describe", "tag", "ls-files", "blame", "stash", "merge", "rebase",
                         "shortlog", "reflog"})


# As git prints it in the sandbox, whose home is on the root file system (recorded 81 times)
# Where git reads aliases from: a file written there may define one
GIT_CONFIG_FILES = ("/.gitconfig", "/.config/git/config", "/.git/config")


NOT_A_REPO = ("fatal: not a git repository (or any parent up to mount point /)\n"
              "Stopping at filesystem boundary (GIT_DISCOVERY_ACROSS_FILESYSTEM not set).\n")


# git subcommands that only read, as the first stage of a pipe
GIT_PIPED_READS = frozenset({"log", "status", "diff", "show", "blame", "ls-files", "rev-parse", "describe",
                             "shortlog", "grep"})


BRANCH_LISTING = frozenset({"-a", "-r", "-v", "-vv", "-l", "--list", "--all", "--show-current"})


GIT_READS = frozenset({"status", "log", "diff", "show", "blame", "grep", "ls-files", "rev-parse", "describe",
                       "shortlog", "reflog", "help", "version", "--version", "cat-file", "ls-tree", "remote"})


def _commits_all(args: list[str]) -> bool:
    """`git commit -a` (`-am`, `--all`): every tracked file's change is staged first."""
    message = _commit_message(args)
    return any(a == "--all" or re.fullmatch(r"-[a-zA-Z]*a[a-zA-Z]*", a) for a in args[1:] if a != message)


def _commit_message(args: list[str]) -> str | None:
    """The message of `git commit -m MSG` (also `-am`, `-qm`); None for a commit the state cannot
    follow (an editor, --amend, -F, --fixup…)."""
    for a in args[1:]:
        if a in ("--amend", "-F", "--file", "-C", "-c", "--fixup", "--squash") or a.startswith("--fixup="):
            return None
    paragraphs = []  # (`-m a -m b`: each a paragraph of the message, as git joins them)
    for i, a in enumerate(args[1:], 1):
        if re.fullmatch(r"-[aqvs]*m", a) and i + 1 < len(args) and args[i - 1] != a:
            paragraphs.append(args[i + 1])
        elif a.startswith("--message="):
            paragraphs.append(a.split("=", 1)[1])
    return "\n\n".join(paragraphs) if paragraphs else None
