"""One simple command answered from the terminal's state, its words as bash hands them over:
`pwd`, `cat` and `ls` of what the state knows, `echo`, the tools' refusals of a path not there
(missing.py, inturn.py), a typo of an everyday command, python3 of a script (programs.py), and git
(repository.py and the modules beside it). shell.py reads the line down to these words.
"""

from __future__ import annotations

import posixpath
import re

from . import (diskuse, gitblame, gitclean, gitfiles, gitlog, gitmodes, gitmv, gitremote, gitrestore, gitrm, gitstash,
               gittypo, gnudiff, inturn, machine, missing, pathnames, pyjson, readonly, statfmt)
from .folders import _folders, _listing, _long, _unexpanded, every_name
from .line import _echo_text, _split
from .programs import _as_python_shows, _script, module_run, py_compiled
from .repository import (GIT_CONFIG_FILES, NEED_A_REPO, NO_IDENTITY, NOT_A_REPO, _commit_answer, _commit_message,
                         _env_identity, _git_answer, _git_globals, _init_answer, _no_identity, _unborn_answer)
from .state import (
    _PLAIN, _QUOTABLE, TerminalState, _abs, _absent, _c_locale, _children, _exists, _in_repo, _kind, _within)
from .variables import _outside_single_quotes


def _printed(words: list[str], s: TerminalState) -> str | None:
    """What bash's `echo ARGS` (no option but -n) or `printf FORMAT ARGS…` prints, its words as the
    shell passes them (line._echo_text); None where an alias or function of that name may stand in."""
    cmd, args = words[0], words[1:]
    if cmd in s.defined:
        return None
    if cmd == "echo":  # (its options: a first word of n, e and E alone; `echo -1` prints -1)
        return _echo_text(args, False)
    if cmd == "printf" and args and not args[0].startswith("-"):
        return _echo_text(args, True)
    return None


# Commands typed fast enough to swap two letters (`sl`, `gti`, `cta`), which no machine has: the
# swaps of everyday commands, less those that are programs somewhere (`nl` is coreutils', `dc` a
# calculator, Debian packages `cw`, `otp`, `pat`, `tali`, `vm`). `sl`, a joke package, is kept: a
# machine set up for work does not have it.
EVERYDAY = ("ls cat git cd grep python python3 pip pip3 echo head tail find mkdir touch sed awk sort make less more "
            "vim nano curl wget tar diff chmod chown mv cp rm pwd which wc uniq cut clear ssh top ps kill sudo man env "
            "export history node npm docker pytest rmdir unzip zip tree file stat du df date whoami hostname uname "
            "xargs tee ln source exit cargo go java gcc apt").split()


TYPOS = frozenset(c[:i] + c[i + 1] + c[i] + c[i + 2:] for c in EVERYDAY for i in range(len(c) - 1)) - \
    set(EVERYDAY) - {"cw", "dc", "nl", "otp", "pat", "tali", "vm"}


def answer(words: list[str], command: str, s: TerminalState) -> tuple[str, int] | None:
    """What one simple command prints and its exit code where the state alone determines them, from
    its words as bash hands them over (`command`: the line as typed, for what the words lost: its
    quotes, its operators); None: the model answers."""
    cmd, args = words[0], words[1:]
    if words[-2:-1] in ([">"], [">>"]) and words.count(">") + words.count(">>") == 1 and \
            not any(c in command for c in "<&|") and (refused := readonly.redirected(words[-1])) is not None:
        return f"/bin/bash: line 1: {words[-1]}: {refused}\n", 1  # (bash opens it first: nothing runs)
    if ">" in words or ">>" in words:
        return None  # writes: state changes, the output is empty; let apply() record it, answer ""
    refused = missing.refused(words, s)
    if refused is not None:
        return refused
    in_turn = inturn.answer(words, s)  # (`cat a nope b`, `head -5 a nope`, `wc -l a docs`)
    if in_turn is not None:
        return in_turn
    if cmd == "ls" and len(args) >= 2 and all(_PLAIN.fullmatch(a) and not a.startswith("-") for a in args):
        return _folders(args, s, lambda folder: _listing(_abs(folder, s), s))
    if cmd == "ls" and args[:1] in (["-d"], ["-1d"], ["-d1"]) and len(args) >= 2 and \
            all(_PLAIN.fullmatch(a) and not a.startswith("-") for a in args[1:]):  # (`ls -d nope src`: its complaint)
        return _folders(args[1:], s, lambda folder: None, folders_as_files=True)
    if cmd == "pwd" and not args:
        return s.cwd + "\n", 0
    if cmd in ("true", "false", ":") and cmd not in s.defined:
        return "", int(cmd == "false")  # (bash's builtins: whatever their arguments)
    if cmd in ("which", "command", "type", "printenv", "whoami", "id", "hostname", "uname") or \
            cmd == "python3" and args in (["--version"], ["-V"]):
        return machine.answer(words, s)
    if cmd in ("basename", "dirname", "seq", "realpath") and cmd not in s.defined:
        return pathnames.answer(cmd, args, s.cwd, s.home, lambda path: _kind(path, s))
    if cmd in ("echo", "printf"):
        said = _printed(words, s)
        return None if said is None else (said, 0)
    if cmd == "cat" and len(args) == 1 and not args[0].startswith("-") and not args[0].endswith("/"):
        path = _abs(args[0], s)
        if not _PLAIN.fullmatch(args[0]) and (_absent(path, s) or path in s.dirs):
            return None  # (GNU quotes such a name in its message: 'q r')
        if _absent(path, s):
            return f"cat: {args[0]}: No such file or directory\n", 1
        if path in s.dirs:
            return f"cat: {args[0]}: Is a directory\n", 1
        content = s.files.get(path) if "/.git/" not in path else gitfiles.text(path, s)
        return (content, 0) if content is not None else None
    if cmd == "cd" and args == ["-"] and s.vars.get("OLDPWD") in s.dirs and "cd" not in s.defined:
        return s.vars["OLDPWD"] + "\n", 0  # type: ignore[operator]
    if cmd == "cd" and len(args) == 1 and _PLAIN.fullmatch(args[0].removeprefix("~/")) and \
            not args[0].startswith("-") and "cd" not in s.defined and "CDPATH" not in s.env:
        found = missing.what_is_at(args[0], s)  # (bash run as `bash -c`, as in the sandbox: its line 1)
        refused = missing.NOT_DIR if found == "file" else \
            found if found in (missing.NO_ENTRY, missing.NOT_DIR) else None
        shown = _abs(args[0], s) if args[0].startswith("~/") else args[0]  # (bash expanded the ~ before)
        return (f"/bin/bash: line 1: cd: {shown}: {refused}\n", 1) if refused else None
    if cmd in TYPOS and cmd not in s.defined and "PATH" not in s.env and \
            not any(posixpath.basename(p) == cmd for p in s.files):
        return f"/bin/bash: line 1: {cmd}: command not found\n", 127  # (bash run as `bash -c`, as in the sandbox)
    if cmd == "python3" and args and _PLAIN.fullmatch(args[0]) and not args[0].startswith("-") and \
            _absent(_abs(args[0], s), s):
        return f"python3: can't open file '{_as_python_shows(args[0], s)}': [Errno 2] No such file or directory\n", 2
    if cmd == "python3" and args[:2] == ["-m", "json.tool"] and (run := pyjson.tool(args[2:])) and \
            len(run[1]) == 1 and (_abs(run[1][0], s) in s.dirs or _absent(_abs(run[1][0], s), s)):
        return pyjson.unopened(run[1][0], _abs(run[1][0], s) in s.dirs)  # (a file json.tool could read: filters.py)
    if cmd == "python3" and args[:1] == ["-m"] and (ran := module_run(s, args)) is not None:
        return ran[:2]  # (`python3 -m src.notes add x`: a module of the project's)
    if cmd == "python3" and args[:2] == ["-m", "py_compile"]:
        compiled = py_compiled(s, args)
        return None if compiled is None else compiled[:2]
    if cmd == "python3" and args and not args[0].startswith("-"):
        return _script(args[0], s, args[1:])  # (`python3 x.py ARGS…`: sys.argv[1:])
    if cmd in ("head", "tail") and len(args) >= 2 and args[0] == "-n" and _PLAIN.fullmatch(args[1]) and \
            not re.search(r"\d", args[1]):
        return f"{cmd}: invalid number of lines: ‘{args[1]}’\n", 1  # (`head -n FILE`: the count left out)
    if cmd == "diff":
        return gnudiff.diff_files(args, s)
    if cmd == "cmp" and cmd not in s.defined:
        return gnudiff.cmp_files(args, s)
    if cmd == "stat" and cmd not in s.defined:
        return statfmt.answer(args, s)
    if cmd == "du" and "du" not in s.defined:
        return diskuse.du(args, s)
    if cmd == "rmdir" and args == ["."]:
        return "rmdir: failed to remove '.': Invalid argument\n", 1  # (the folder the shell is in: refused)
    if cmd == "mkdir" and len(args) == 1 and _PLAIN.fullmatch(args[0]) and not args[0].startswith("-") and \
            _exists(_abs(args[0], s), s):
        return f"mkdir: cannot create directory ‘{args[0]}’: File exists\n", 1
    if cmd == "ls" and any(a.startswith("-") and "l" in a for a in args):
        return _long(args, s)
    if cmd == "ls" and args[:1] in (["-a"], ["-A"]) and args[1:] in ([], ["."]) and _kind(s.cwd, s) == "missing":
        return "", 0  # (the shell's folder removed: it lists nothing, not even . and ..)
    if cmd == "ls" and args[:1] in (["-a"], ["-A"]) and len(args) <= 2 and not args[1:2] == ["--"]:
        listed = every_name(_abs(args[1], s) if len(args) == 2 else s.cwd, s, args[0] == "-A")
        return None if listed is None else (listed, 0)
    if cmd == "ls" and args[:1] in (["-a"], ["-A"]) and len(args) >= 3 and \
            all(_PLAIN.fullmatch(a) and not a.startswith("-") for a in args[1:]):
        return _folders(args[1:], s, lambda folder: every_name(_abs(folder, s), s, args[0] == "-A"))
    if cmd == "ls" and len([a for a in args if a != "-1"]) <= 1 and \
            not any(a.startswith("-") and a != "-1" for a in args):
        target = [a for a in args if a != "-1"]
        folder = _abs(target[0], s) if target else s.cwd
        if folder in s.files:
            return (target[0] + "\n", 0) if target else None
        if not target and folder not in s.dirs and any(_within(folder, d) for d in s.deleted):
            return "", 0  # the folder was removed under the shell: a real shell stays there, and it is empty
        if folder not in s.known_dirs and not args and folder in s.seen:
            return s.seen[folder], 0  # (as ls printed it last, nothing having changed since)
        in_git = gitfiles.listing(folder, s) if folder not in s.known_dirs and _c_locale(s) else None
        if in_git is not None:  # (.git, or a folder in it, as the world's commit left it: in byte order)
            return "".join(n + "\n" for n in sorted(in_git, key=lambda n: n.encode()) if not n.startswith(".")), 0
        if folder not in s.known_dirs:
            if target and (folder in s.deleted or posixpath.dirname(folder) in s.known_dirs and not _exists(folder, s)):
                return (f"ls: cannot access '{target[0]}': No such file or directory\n", 2) \
                    if _QUOTABLE.fullmatch(target[0]) else None
            return None
        names = [n for n in _children(folder, s) if not n.startswith(".")]
        return ("".join(n + "\n" for n in names), 0)
    return _git(cmd, args, s) if cmd == "git" else None


def _git(cmd: str, args: list[str], s: TerminalState) -> tuple[str, int] | None:
    """git's line: in the repository the state models (repository.py and the git*.py modules beside
    it), a misspelt subcommand, a folder that is no repository, who commits as `git config` says."""
    if args[:1] == ["config"]:
        return _identity_read(args[1:], s)
    if cmd == "git" and s.git and (s.git.unknown or gitmodes.unanswered(s, (_git_globals(args) or ({}, []))[1])):
        return None  # the episode ran git commands the state does not model (merge, reset…); 100755 files
    if cmd == "git" and args and re.fullmatch(r"[A-Za-z][A-Za-z0-9_.-]*", args[0]) and "PATH" not in s.env and \
            "git config" not in s.defined and not any(p.endswith(GIT_CONFIG_FILES) for p in s.files):
        said = gittypo.unknown(args[0])  # (an alias needs git config, or a config file written)
        if said is not None:
            return said, 1
    if cmd == "git" and args[:1] == ["init"]:
        return _init_answer(s, args[1:])
    if cmd == "git" and args[:1] == ["branch"] and args[1:] in ([], ["-a"], ["--all"], ["-l"], ["--list"]) and \
            s.git and s.git.commits and _in_repo(s):  # (-a adds remote-tracking branches: the world's has none)
        return "".join(("* " if b == s.git.branch else "  ") + b + "\n" for b in sorted(s.git.branches)), 0
    if cmd == "git" and len(args) == 3 and args[:2] in (["checkout", "-b"], ["switch", "-c"]) and s.git and \
            s.git.commits and _in_repo(s) and re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._/-]*", args[2]) and \
            ".." not in args[2]:
        # Creating a branch prints one line (local changes are carried over silently); one that
        # exists is refused. Switching to an existing branch also lists modified files: not answered.
        if args[2] in s.git.branches:
            return f"fatal: a branch named '{args[2]}' already exists\n", 128
        return f"Switched to a new branch '{args[2]}'\n", 0
    if cmd == "git" and s.no_repo and _within(s.cwd, s.home) and args[:1] and args[0] in NEED_A_REPO and \
            not (s.git and _within(s.cwd, s.git.repo)):
        return NOT_A_REPO, 128  # (global options first, `-C` or `--git-dir`, may name one: not answered)
    parsed = _git_globals(args) if cmd == "git" else None
    if parsed and not parsed[0] and parsed[1][:1] == ["remote"] and s.git and _in_repo(s):
        return gitremote.answer(s.git, parsed[1][1:])
    if parsed and parsed[1][:1] == ["commit"] and _in_repo(s) and _no_identity(s, parsed[0]) and \
            _commit_message(parsed[1]) is not None and not {"-h", "--help"} & set(parsed[1]):
        user = posixpath.basename(s.home)
        return NO_IDENTITY.format(who=f"{user}@{s.host}.(none)"), 128
    if parsed and s.git and s.git.commits and _in_repo(s):
        config, sub = parsed
        found = _commit_answer(s, config, sub) if sub[:1] == ["commit"] else None if config else \
            gitstash.answer(s, sub) if sub[:1] == ["stash"] else gitrm.answer(s, sub) if sub[:1] == ["rm"] else \
            gitclean.answer(s, sub) if sub[:1] == ["clean"] else \
            gitmv.answer(s, sub) if sub[:1] == ["mv"] else gitblame.answer(s, sub) if sub[:1] == ["blame"] else \
            gitrestore.answer(s, sub) or _git_answer(s, sub)
        if found is not None:
            return found
    if parsed and s.git and not s.git.commits and _in_repo(s) and not s.git.unknown:
        return _unborn_answer(s, *parsed)
    if cmd == "git" and args[:1] == ["log"] and "--oneline" in args and s.git and s.git.commits and _in_repo(s):
        return gitlog.oneline(s.git.commits, s.git.hashes, args[1:])
    return None


def unmatched(command: str, s: TerminalState) -> tuple[str, int] | None:
    """A line whose patterns matched nothing in folders the state knows whole: bash hands each on as
    it is (no nullglob), and the tool does not find a file of that name (`cat *.py`, `wc -l *.md
    *.py`, `rm *.pyc`). Only such refusals are answered here; any other line with a pattern, a brace
    or an escape is the model's."""
    literal = _unexpanded(command, s)  # (each pattern left: one that matched nothing, now between ' ')
    bare = _outside_single_quotes(literal)
    parts = _split(literal)
    if bare is None or any(c in bare for c in "*?[]{}\\$`\"~") or not parts or len(parts) != 1 or \
            ">" in parts[0] or ">>" in parts[0]:
        return None
    return missing.refused(parts[0], s) or inturn.answer(parts[0], s)


def _identity_read(args: list[str], s: TerminalState) -> tuple[str, int] | None:
    """`git config [--get] [--global|--local] user.name|user.email`: what the episode set (the sandbox
    sets neither: nothing printed, exit 1). In the repository the state follows its own config wins;
    elsewhere only the global one is read, which the state does not keep beneath a local one."""
    scope = [a for a in args if a.startswith("-")]
    keys = [a.lower() for a in args if not a.startswith("-")]
    if len(keys) != 1 or keys[0] not in ("user.name", "user.email") or len(scope) != len(set(scope)) or \
            not set(scope) <= {"--get", "--global", "--local"} or s.identity is None or s.configured or \
            _env_identity(s):
        return None
    key, local = keys[0], s.git is not None and _in_repo(s) and not s.git.unknown
    if "--local" in scope:
        if not local or "--global" in scope:
            return None  # (outside a repository git refuses --local; both: refused too)
        value = s.identity.get(key) if key in s.identity_local else None
    elif key in s.identity_local and ("--global" in scope or not local):
        return None  # (the global value beneath the repository's own: not kept)
    else:
        value = s.identity.get(key)
    return (value + "\n", 0) if value is not None else ("", 1)
