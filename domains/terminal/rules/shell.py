"""The small shell interpreter over the terminal's state (state.py).

`answer` gives the output when the state alone determines it (`pwd`, `cat` of a file whose contents
this episode established, `ls` of a fully known folder, `echo`, conditions and lists as bash runs
them, git through repository.py); `silent` the empty output of commands that print nothing when the
state says they succeed; `apply` the state after a command printed what it printed (git's
commands through history.py).
"""

from __future__ import annotations

import fnmatch
import posixpath
import re
import shlex
import sys
from typing import Any

from pydantic import BaseModel

from . import awk, filters, gittypo, history, lists, missing, pathnames, pycheck, pyeval, search, sedscript
from .folders import _folders, _listing, _long, _ls, _ls_glob, _tree, _unexpanded, _wc_glob
from .history import _ids_shown
from .repository import (GIT_CONFIG_FILES, GIT_PIPED_READS, NEED_A_REPO, NO_IDENTITY, NOT_A_REPO, _commit_answer,
                         _commit_message, _git_answer, _git_globals, _init_answer, _no_identity, _unborn_answer)
from .state import (_PLAIN, _QUOTABLE, WRITABLE, TerminalState, _abs, _absent, _changed, _children, _contents, _exists, _expand,
                    _file_on_the_way, _forget_writes, _in_repo, _kind, _made, _nearest_folder, _remove, _touched,
                    _Unknown, _user, _within, _writable, _write)
from .output import next_cwd, shell_words


def _split(command: str) -> list[list[str]] | None:
    """Simple commands joined by && or ; (None when the line has pipes or anything fancier)."""
    words = shell_words(command)
    if words is None:
        return None
    parts: list[list[str]] = [[]]
    for w in words:
        if w in ("&&", ";"):
            parts.append([])
        elif w in ("|", "||", "&", "(", ")", "<", "<<", "|&") or "$(" in w or "`" in w:
            return None
        else:
            parts[-1].append(w)
    return [p for p in parts if p]


_HEREDOC = re.compile(r"<<(-?)[ \t]*(?:'([A-Za-z_][A-Za-z0-9_]*)'|\"([A-Za-z_][A-Za-z0-9_]*)\"|([A-Za-z_][A-Za-z0-9_]*))")


class Heredoc(BaseModel):
    """A here-document: the line that runs with it (the operator taken out) and the text it feeds."""
    line: str
    text: str
    literal: bool  # the delimiter quoted ('EOF'), or nothing in the text the shell would expand


def heredoc(command: str) -> Heredoc | None:
    """`cat > FILE <<'EOF'` … `EOF` (or `<<EOF`, `<<-EOF`, the redirection after it): the way agents
    write files. None where the command has none, more than one, or more after its last line."""
    first, _, rest = command.partition("\n")
    found = list(_HEREDOC.finditer(first))
    if len(found) != 1 or "<<<" in first or not rest:
        return None
    m = found[0]
    tabs, delimiter = m.group(1) == "-", m.group(2) or m.group(3) or m.group(4)
    lines = rest.split("\n")
    if tabs:
        lines = [line.lstrip("\t") for line in lines]
    if delimiter not in lines:
        return None
    end = lines.index(delimiter)
    if any(line.strip() for line in lines[end + 1:]):
        return None  # (more commands after it: not followed here)
    body = lines[:end]
    text = "".join(line + "\n" for line in body)
    quoted = bool(m.group(2) or m.group(3))
    return Heredoc(line=first[:m.start()] + first[m.end():], text=text,
                   literal=quoted or not any(c in text for c in "$`\\"))


# Commands that print who the shell runs as, or the machine's name (the world's hostname; `-f`
# and `-i` ask the resolver, which is the machine's)
WHO_AND_WHERE = {("whoami",): "user", ("id", "-un"): "user", ("id", "-nu"): "user",
                 ("hostname",): "host", ("hostname", "-s"): "host", ("uname", "-n"): "host",
                 ("uname", "--nodename"): "host"}


def _tildes(words: list[str], command: str, s: TerminalState) -> list[str]:
    """The words with each tilde the shell expands (`~`, `~/x` unquoted: the home), as a program sees
    them (`ls ~/x` says `cannot access '/home/user/x'`); raises _Unknown where a quoted one and an
    unquoted one cannot be told apart, or for `~user`."""
    marked = [w for w in words if w.startswith("~")]
    if not marked:
        return words
    quote, before, bare = "", " ", 0
    for c in command:
        if quote:
            quote = "" if c == quote else quote
        elif c in "'\"":
            quote = c
        elif c == "~" and before in " \t":
            bare += 1
        before = c
    if bare != len(marked) or any(w != "~" and not w.startswith("~/") for w in marked):
        raise _Unknown("~")
    return [s.home + w[1:] if w.startswith("~") else w for w in words]


def _redirected_anyway(s: TerminalState, words: list[str], kinds: set[str] | None, output: str) -> None:
    """A command that failed (or was not found) still had its output file opened first: `> f` made or
    emptied it, `>> f` made it if missing; what it holds now is not known (what was written before
    the failure). Unless opening it failed (bash says so, naming it; a name ending in /)."""
    at = next((i for i, w in enumerate(words) if w in (">", ">>")), None)
    if at is None or at + 1 >= len(words) or words[at + 1].endswith("/") or \
            f"bash: line 1: {words[at + 1]}: " in output:
        return
    if kinds is None or {"target glob", "target brace", "target quoted $", "variable"} & kinds:
        _forget_writes(s, None)  # (where it wrote: not known)
        return
    target = _abs(_expand(words[at + 1], s), s)
    if posixpath.dirname(target) in s.dirs and target not in s.dirs:
        _write(s, target, None)


FILE_COMMANDS = frozenset({"touch", "mkdir", "rm", "rmdir", "cp", "mv"})
RECURSIVE = re.compile(r"-[a-zA-Z]*[rRa][a-zA-Z]*|--recursive|--archive")


# What a script may use to reach files it does not name: walks, patterns, listings, a shell's loop
_WALKS = re.compile(r"\b(?:walk|glob|rglob|iglob|listdir|scandir|iterdir|xargs|for\s+\w+\s+in)\b|\bfind\s+[\w./~-]|"
                    r"\*\.\w|\*/|/\*|[\"'][^\"'\n]*\*")  # (not `x * 2`, nor `text.find(…)`)


def _named_in(text: str, s: TerminalState) -> list[str]:
    """The files a script (a program's text: a file run, `-c CODE`, a here-document fed to it) may
    write, that the state knows: each it names (its path, from the shell's folder or whole, or its
    name alone: `Path('src') / 'notes.py'`); where it walks folders or uses patterns, every file
    below the shell's folder."""
    if _WALKS.search(text):
        return [p for p in s.files if _within(p, s.cwd)]
    words = set(re.findall(r"[\w.~/-]+", text[:MAX_SCRIPT]))
    return [p for p in s.files if posixpath.basename(p) in words or posixpath.relpath(p, s.cwd) in words or p in words
            or p.startswith(s.home + "/") and "~/" + p[len(s.home) + 1:] in words]


MAX_SCRIPT = 1_000_000  # characters of a script read for the names it holds (past them: every file below)


def _partly_done(s: TerminalState, words: list[str], kinds: set[str] | None) -> None:
    """A file command that failed may have done part of its work: `rm a nope` removes a, `mkdir x
    nope/y` makes x, `rm -r` of a mount empties it. Where it names several paths, or works
    recursively, whether each is there, what is under it and what its folder lists are no longer known."""
    s.seen = {}  # (what it made or removed may not be any path the state knows)
    operands = [w for w in words[1:] if not w.startswith("-")]
    if len(operands) < 2 and not any(RECURSIVE.fullmatch(w) for w in words[1:] if w.startswith("-")) and \
            words[0] != "mv":
        return  # (one path, refused: nothing done)
    if kinds is None or not kinds <= PATH_EXPANSIONS | {"glob"} or \
            any(w.startswith("-") and not re.fullmatch(r"-[a-zA-Z]+", w) for w in words[1:]):
        _forget_writes(s, None, list(s.files) if words[0] in ("rm", "mv") else None)
        return  # (braces, variables, options with values: which paths, not known; what it removed, neither)
    paths: list[str] = []
    for w in operands:
        folder, _, pattern = _expand(w, s).rpartition("/")
        if not any(c in pattern for c in "*?[") and not any(c in folder for c in "*?["):
            paths.append(_abs(_expand(w, s), s))
        elif any(c in folder for c in "*?[") or "[^" in pattern:
            paths.append(s.cwd if not w.startswith(("/", "~")) else "/")  # (a pattern above the last part)
        else:  # (what the pattern matched of the paths the state knows; the folder's listing: not known)
            where = _abs(folder or ".", s) if folder or not w.startswith("/") else "/"
            s.known_dirs = [d for d in s.known_dirs if d != where]
            paths += [posixpath.join(where, n) for n in _children(where, s)
                      if fnmatch.fnmatchcase(n, pattern) and (pattern.startswith(".") or not n.startswith("."))]
    recursive = any(RECURSIVE.fullmatch(w) for w in words[1:] if w.startswith("-"))
    paths = [p for p in paths if not (words[0] == "rm" and not recursive and p in s.dirs)]  # (`rm DIR`: refused)
    if "/" in paths:
        _forget_writes(s, None, list(s.files))
        return
    for path in paths:  # (each before any is forgotten: what the last commit had there is still known)
        _touched(s, path)
    for path in paths:
        mount = path in WRITABLE  # (/home, /tmp: mounts, never removed themselves; only what is in them)

        def gone(p: str, path: str = path, mount: bool = mount) -> bool:
            return _within(p, path) and not (mount and p == path)

        s.files = {p: c for p, c in s.files.items() if not gone(p)}
        s.dirs = [d for d in s.dirs if not gone(d) or d == s.cwd]
        s.known_dirs = [d for d in s.known_dirs if not _within(d, path) and (mount or d != posixpath.dirname(path))]
        s.deleted = [d for d in s.deleted if not gone(d)]
        s.order = [p for p in s.order if not gone(p)]
        s.times = {p: when for p, when in s.times.items() if not gone(p)}


def _refused_before_anything(s: TerminalState, command: str, output: str, exit_code: int) -> bool:
    """The command failed as missing.py said it would, before it did anything (all but rm of
    several paths, which removes the others)."""
    parts = _split(command)
    if not parts or len(parts) != 1 or any(c in command for c in "*?[]{}\\$`"):
        return False
    try:
        words = _tildes([_expand(w, s, strict=True) for w in parts[0]], command, s)
    except _Unknown:
        return False
    plain = [w for w in words[1:] if not w.startswith("-")]
    return not (words[0] == "rm" and len(plain) > 1) and missing.refused(words, s) == (output, exit_code)


def _apart(paths: list[str]) -> bool:
    """No path is named twice, or inside another (`mkdir a a`, `rm -r a a/b`: the second is refused)."""
    return not any(_within(p, q) for i, p in enumerate(paths) for j, q in enumerate(paths) if i != j)


def _source(words: list[str], s: TerminalState) -> tuple[str, bool, int] | None:
    """A first stage of a pipe the state computes: `ls`, `find`, `grep -r` (search.py)."""
    refs = (s.git.branches + list(s.git.tags)) if s.git else []
    if words[0] == "ls":
        listed = _ls(words[1:], s)
        return None if listed is None else (listed, True, 0)
    if words[:1] == ["git"] and words[1:2] and words[1] in filters.GIT_PIPED:
        said = answer(s.model_dump(), shlex.join(words))
        return None if said is None or said[1] != 0 else (said[0], True, 0)  # (git's refusal: to the terminal, not the pipe)
    if words[0] == "find":
        return search.find(words[1:], lambda top: _tree(top, s), refs, lambda top: _absent(_abs(top, s), s))
    missing = search.missing_top(words[1:], lambda name: False if _absent(_abs(name, s), s) else None)
    if missing is not None:
        return missing, True, 2
    return search.grep_r(words[1:], lambda top: _tree(top, s), lambda name: _contents(name, s), refs)


def _diff_files(args: list[str], s: TerminalState) -> tuple[str, int] | None:
    """`diff [-q] A B` of files the state knows: the same says nothing; `-q` says they differ; a
    missing one is refused. Where they differ, which lines diff shows is its algorithm's: the model's."""
    opts, names = [a for a in args if a.startswith("-")], [a for a in args if not a.startswith("-")]
    if opts not in ([], ["-q"], ["--brief"], ["-u"]) or len(names) != 2 or not all(_PLAIN.fullmatch(n) for n in names):
        return None
    gone = [n for n in names if _absent(_abs(n, s), s)]
    if len(gone) == 1 and all(_abs(n, s) in s.files for n in names if n not in gone):
        return f"diff: {gone[0]}: No such file or directory\n", 2
    old, new = (_contents(n, s) for n in names)
    if old is None or new is None or "\0" in old + new:
        return None
    if old == new:
        return "", 0
    return (f"Files {names[0]} and {names[1]} differ\n", 1) if opts in (["-q"], ["--brief"]) else None


PRINTF_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", '"': '"', "'": "'", "a": "\a", "b": "\b",
                  "f": "\f", "v": "\v"}


def _echo_text(args: list[str], printf: bool) -> str | None:
    """What bash's `echo ARGS` (no escapes read: bash's default) or `printf FORMAT` prints; None
    where it is not worked out here (`echo -e` of a backslash, a printf conversion or argument, an
    escape other than \\n \\t \\r \\\\ \\" \\' \\a \\b \\f \\v)."""
    if printf:
        if len(args) != 1:
            return None  # (none: printf refuses; more: the format is applied to each)
        fmt = args[0].replace("%%", "\0")
        if "%" in fmt or "\0" in args[0]:
            return None
        out, i = [], 0
        while i < len(fmt):
            if fmt[i] == "\\":
                if fmt[i + 1:i + 2] not in PRINTF_ESCAPES:
                    return None
                out.append(PRINTF_ESCAPES[fmt[i + 1]])
                i += 2
            else:
                out.append(fmt[i])
                i += 1
        return "".join(out).replace("\0", "%")
    letters = ""
    while args and re.fullmatch(r"-[neE]+", args[0]):
        letters, args = letters + args[0][1:], args[1:]
    if "e" in letters and any("\\" in a for a in args):
        return None
    return " ".join(args) + ("" if "n" in letters else "\n")


def _expansions(command: str, s: TerminalState) -> set[str] | None:
    """What the shell would expand in `command` beside the variables the state knows: outside quotes
    a pattern ("glob"), braces ("brace"), a tilde starting a word ("tilde"), a backslash
    ("backslash"); `$` within single quotes ("quoted $": the words are expanded without their
    quotes); a variable the state does not know, or `$$`, `$?`, `${X:-…}` ("variable"). In the word
    a `>` writes to, each kind is named "target …". None: the line is not simple commands."""
    parts = _split(command)
    if parts is None:
        return None
    kinds: set[str] = set()
    quote, before, target = "", " ", 0  # (target: 1 after a `>`, 2 inside the word it writes to)
    for i, c in enumerate(command):
        if target and not quote and c in " \t;&|" and (target == 2 or c not in " \t"):
            target = 0
        elif target == 1 and c not in " \t>":
            target = 2
        mark = "target " if target == 2 else ""
        if quote == "'":
            if c == "$":
                kinds.add(mark + "quoted $")
            quote = "" if c == "'" else quote
        elif quote == '"':
            if c == "\\":
                kinds.add(mark + "backslash")
            quote = "" if c == '"' else quote
        elif c in "'\"":
            quote = c
        elif c == ">" and not target:
            target = 1
        elif c in "*?[":
            kinds.add(mark + "glob")
        elif c == "{":
            kinds.add(mark + "brace")
        elif c == "\\":
            kinds.add(mark + "backslash")
        elif c == "~" and before in " \t=:>":
            kinds.add(mark + "tilde")
        elif c == "$" and command[i + 1:i + 2] in ("'", '"'):
            kinds.add(mark + "variable")  # ($'…' and $"…": bash's own quoting, read otherwise here)
        before = c
    for words in parts:
        for i, w in enumerate(words):
            try:
                _expand(w, s, strict=True)
            except _Unknown:
                kinds.add("target variable" if i and words[i - 1] in (">", ">>") else "variable")
    if "$(" in command or "`" in command:
        kinds.add("variable")  # (a command's output, or arithmetic: not worked out here)
    return kinds


PATH_EXPANSIONS = {"tilde", "backslash", "target tilde", "target backslash"}  # (`_abs` reads ~; shlex, \\ )


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


def answer(state: dict[str, Any], command: str) -> tuple[str, int] | None:
    """The output and exit code when the state alone determines them; None: ask the model."""
    s = TerminalState.model_validate(state)
    fed = heredoc(command)
    if fed is not None:
        return _fed_answer(s, fed)
    listed = lists.commands(command)
    if listed and len(listed) == 1 and _condition(s, command) is not None:
        return _condition(s, command)
    if listed and len(listed) > 1:
        evaluated = _evaluate(state, listed)  # `[ -f x ] && echo yes || echo no`, `cat a && ls`: run as bash would
        if evaluated is not None:
            return evaluated[:2]
    one_liner = pyeval.one_liner(command)
    if one_liner is not None:
        return _python_c(one_liner, s)
    computed = filters.answer(_unexpanded(command, s), lambda name: _contents(name, s), lambda words: _source(words, s))
    if computed is not None:
        return computed
    parts = _split(command)  # (a list of several commands: `_evaluate`'s, above)
    if not parts or len(parts) != 1 or "$(" in command or "`" in command:
        return None
    if parts[0][:1] == ["ls"] and len(parts[0]) == 2 and any(c in parts[0][1] for c in "*?") and \
            not any(c in command for c in "'\"\\$"):
        return _ls_glob(parts[0][1], s)
    if parts[0][:1] == ["wc"] and len(parts[0]) == 3 and parts[0][1] in ("-l", "-c", "-w") and \
            any(c in parts[0][2] for c in "*?") and not any(c in command for c in "'\"\\$"):
        return _wc_glob(parts[0][1], parts[0][2], s)
    if parts[0][:2] == ["ls", "-R"] and "$" not in command:
        listed = _ls(parts[0][1:], s)
        return (listed, 0) if listed is not None else None
    if any(c in w for w in parts[0] for c in "*?[]{}\\") or ("'" in command and "$" in command) or \
            any(w.startswith("~") for w in parts[0][1:] if parts[0][0] == "echo"):
        return None  # globs, braces, escapes and quoting subtleties: the shell's business, the model's call
    try:
        words = _tildes([_expand(w, s, strict=True) for w in parts[0]], command, s)
    except _Unknown:
        return None
    cmd, args = words[0], words[1:]
    if ">" in words or ">>" in words:
        return None  # writes: state changes, the output is empty; let apply() record it, answer ""
    refused = missing.refused(words, s)
    if refused is not None:
        return refused
    if cmd == "ls" and len(args) >= 2 and all(_PLAIN.fullmatch(a) and not a.startswith("-") for a in args):
        listed = _folders(args, s, lambda folder: _listing(_abs(folder, s), s))
        return (listed, 0) if listed is not None else None
    if cmd == "pwd" and not args:
        return s.cwd + "\n", 0
    if (cmd, *args) in WHO_AND_WHERE and cmd not in s.defined and "PATH" not in s.env:
        said = s.host if WHO_AND_WHERE[(cmd, *args)] == "host" else _user(s)
        return (said + "\n", 0) if said else None
    if cmd in ("basename", "dirname", "seq", "realpath") and cmd not in s.defined:
        return pathnames.answer(cmd, args, s.cwd, s.home, lambda path: _kind(path, s))
    if cmd == "echo" and all(not a.startswith("-") or a == "-n" for a in args):
        said = _echo_text(args, False)
        return None if said is None else (said, 0)
    if cmd == "cat" and len(args) == 1 and not args[0].startswith("-") and not args[0].endswith("/"):
        path = _abs(args[0], s)
        if not _PLAIN.fullmatch(args[0]) and (_absent(path, s) or path in s.dirs):
            return None  # (GNU quotes such a name in its message: 'q r')
        if _absent(path, s):
            return f"cat: {args[0]}: No such file or directory\n", 1
        if path in s.dirs:
            return f"cat: {args[0]}: Is a directory\n", 1
        content = s.files.get(path)
        return (content, 0) if content is not None else None
    if cmd == "cat" and len(args) > 1 and not any(a.startswith("-") for a in args):
        contents = [_contents(a, s) for a in args]  # every file there and known: one after the other
        return ("".join(c for c in contents if c is not None), 0) if all(c is not None for c in contents) else None
    if cmd == "cd" and len(args) == 1 and _PLAIN.fullmatch(args[0].removeprefix("~/")) and \
            not args[0].startswith("-") and "cd" not in s.defined and "CDPATH" not in s.env:
        found = missing.what_is_at(args[0], s)  # (bash run as `bash -c`, as in the sandbox: its line 1)
        refused = missing.NOT_DIR if found == "file" else found if found in (missing.NO_ENTRY, missing.NOT_DIR) else None
        shown = _abs(args[0], s) if args[0].startswith("~/") else args[0]  # (bash expanded the ~ before)
        return (f"/bin/bash: line 1: cd: {shown}: {refused}\n", 1) if refused else None
    if cmd in TYPOS and cmd not in s.defined and "PATH" not in s.env and \
            not any(posixpath.basename(p) == cmd for p in s.files):
        return f"/bin/bash: line 1: {cmd}: command not found\n", 127  # (bash run as `bash -c`, as in the sandbox)
    if cmd == "python3" and len(args) == 1 and _PLAIN.fullmatch(args[0]) and not args[0].startswith("-") and \
            _absent(_abs(args[0], s), s):
        return f"python3: can't open file '{_abs(args[0], s)}': [Errno 2] No such file or directory\n", 2
    if cmd in ("head", "tail") and len(args) >= 2 and args[0] == "-n" and _PLAIN.fullmatch(args[1]) and \
            not re.search(r"\d", args[1]):
        return f"{cmd}: invalid number of lines: ‘{args[1]}’\n", 1  # (`head -n FILE`: the count left out)
    if cmd == "diff":
        return _diff_files(args, s)
    if cmd == "rmdir" and args == ["."]:
        return "rmdir: failed to remove '.': Invalid argument\n", 1  # (the folder the shell is in: refused)
    if cmd == "mkdir" and len(args) == 1 and _PLAIN.fullmatch(args[0]) and not args[0].startswith("-") and \
            _exists(_abs(args[0], s), s):
        return f"mkdir: cannot create directory ‘{args[0]}’: File exists\n", 1
    if cmd == "ls" and any(a.startswith("-") and "l" in a for a in args):
        listed = _long(args, s)
        return (listed, 0) if listed is not None else None
    if cmd == "ls" and args[:1] == ["-a"] and len(args) <= 2:
        folder = _abs(args[1], s) if len(args) == 2 else s.cwd
        names = _children(folder, s) if folder in s.known_dirs and folder != s.home else None
        if names is None or any(n.startswith(".") for n in names):
            return None  # a home holds dot files the state does not list (.bashrc, .profile)
        if (s.git and folder == s.git.repo) or folder in s.other_repos:
            if s.env.get("LANG", "C.UTF-8").split(".")[0] not in ("C", "POSIX"):
                return None
            names = [".git", *names]  # a repository's top: git keeps everything in .git
        everything = [".", "..", *names]
        if s.env.get("LANG", "C.UTF-8").split(".")[0] in ("C", "POSIX"):
            everything.sort(key=lambda n: n.encode())  # (in bytes: `*.txt` comes before `.`)
        return "".join(n + "\n" for n in everything), 0
    if cmd == "ls" and len([a for a in args if a != "-1"]) <= 1 and not any(a.startswith("-") and a != "-1" for a in args):
        target = [a for a in args if a != "-1"]
        folder = _abs(target[0], s) if target else s.cwd
        if folder in s.files:
            return (target[0] + "\n", 0) if target else None
        if not target and folder not in s.dirs and any(_within(folder, d) for d in s.deleted):
            return "", 0  # the folder was removed under the shell: a real shell stays there, and it is empty
        if folder not in s.known_dirs and not args and folder in s.seen:
            return s.seen[folder], 0  # (as ls printed it last, nothing having changed since)
        if folder not in s.known_dirs:
            if target and (folder in s.deleted or posixpath.dirname(folder) in s.known_dirs and not _exists(folder, s)):
                return (f"ls: cannot access '{target[0]}': No such file or directory\n", 2) \
                    if _QUOTABLE.fullmatch(target[0]) else None
            return None
        names = [n for n in _children(folder, s) if not n.startswith(".")]
        return ("".join(n + "\n" for n in names), 0)
    if cmd == "git" and s.git and s.git.unknown:
        return None  # the episode ran git commands the state does not model (merge, reset…)
    if cmd == "git" and args and re.fullmatch(r"[A-Za-z][A-Za-z0-9_.-]*", args[0]) and "PATH" not in s.env and \
            "git config" not in s.defined and not any(p.endswith(GIT_CONFIG_FILES) for p in s.files):
        said = gittypo.unknown(args[0])  # (an alias needs git config, or a config file written)
        if said is not None:
            return said, 1
    if cmd == "git" and args[:1] == ["init"]:
        return _init_answer(s, args[1:])
    if cmd == "git" and args[:1] == ["branch"] and args[1:] in ([], ["-a"], ["--all"], ["-l"], ["--list"]) and \
            s.git and s.git.commits and _in_repo(s):  # (-a adds remote-tracking branches: the world's repository has none)
        return "".join(("* " if b == s.git.branch else "  ") + b + "\n" for b in sorted(s.git.branches)), 0
    if cmd == "git" and len(args) == 3 and args[:2] in (["checkout", "-b"], ["switch", "-c"]) and s.git and \
            s.git.commits and _in_repo(s) and re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._/-]*", args[2]) and ".." not in args[2]:
        # Creating a branch prints one line (local changes are carried over silently); one that
        # exists is refused. Switching to an existing branch also lists modified files: not answered.
        if args[2] in s.git.branches:
            return f"fatal: a branch named '{args[2]}' already exists\n", 128
        return f"Switched to a new branch '{args[2]}'\n", 0
    if cmd == "git" and s.no_repo and _within(s.cwd, s.home) and args[:1] and args[0] in NEED_A_REPO and \
            not (s.git and _within(s.cwd, s.git.repo)):
        return NOT_A_REPO, 128  # (global options first, `-C` or `--git-dir`, may name one: not answered)
    parsed = _git_globals(args) if cmd == "git" else None
    if parsed and parsed[1][:1] == ["commit"] and _in_repo(s) and _no_identity(s, parsed[0]) and \
            _commit_message(parsed[1]) is not None and not {"-h", "--help"} & set(parsed[1]):
        user = posixpath.basename(s.home)
        return NO_IDENTITY.format(who=f"{user}@{s.host}.(none)"), 128
    if parsed and s.git and s.git.commits and _in_repo(s):
        config, sub = parsed
        found = _commit_answer(s, config, sub) if sub[:1] == ["commit"] else \
            _git_answer(s, sub) if not config else None
        if found is not None:
            return found
    if parsed and s.git and not s.git.commits and _in_repo(s) and not s.git.unknown:
        return _unborn_answer(s, *parsed)
    if cmd == "git" and args[:2] == ["log", "--oneline"] and len(args) <= 4 and s.git and s.git.commits and _in_repo(s):
        n = len(s.git.commits)
        if len(args) > 2:
            m = re.fullmatch(r"-n(\d+)|-(\d+)", "".join(args[2:]))
            if not m:
                return None
            n = int(m.group(1) or m.group(2))
        known = s.git.hashes if len(s.git.hashes) == len(s.git.commits) else []
        if not known or not all(known):
            return None  # a commit whose hash the state does not know (`commit -q`): the model answers
        lines = [f"{h} {msg}" for h, msg in zip(known, s.git.commits)][::-1][:n]
        return "".join(line + "\n" for line in lines), 0
    return None


def _fed_answer(s: TerminalState, fed: Heredoc) -> tuple[str, int] | None:
    """`cat <<EOF` prints the text; `tee [-a] FILE <<EOF` writes it and prints it (FILE's folder
    there). Writing it with `cat > FILE` prints nothing: `silent`'s."""
    parts = _split(fed.line)
    if not parts or len(parts) != 1 or not fed.literal:
        return None
    words = parts[0]
    if words == ["cat"]:
        return fed.text, 0
    names = [w for w in words[1:] if w not in ("-a", "--append")]
    if words[0] == "tee" and len(names) == 1 and _PLAIN.fullmatch(names[0]) and not names[0].startswith("-") and \
            posixpath.dirname(_abs(names[0], s)) in s.dirs and _abs(names[0], s) not in s.dirs:
        return fed.text, 0
    return None


def _python_c(one_liner: tuple[str, list[str]], s: TerminalState) -> tuple[str, int] | None:
    """What a one-liner prints where the state decides it (pyeval.py): python3 is the world's,
    and the modules the code imports are not shadowed from the shell's folder."""
    code, argv = one_liner
    imported = pyeval.imports(code[:pycheck.MAX_CODE])
    if len(code) > pycheck.MAX_CODE or imported is None or "python3" in s.defined or \
            not (imported <= pyeval.UNSHADOWED or _no_shadowing(s)) or \
            {"PATH", "PYTHONSTARTUP", "PYTHONHOME"} & set(s.env):
        return None
    said = pyeval.run(code, pyeval.Machine(s.cwd, lambda path: _contents(path, s), argv))
    return None if said is None else (said, 0)


_TESTS = {"-f": "file", "-d": "dir", "-e": "any", "-s": "nonempty"}


def _condition(s: TerminalState, command: str) -> tuple[str, int] | None:
    """`test -f|-d|-e|-s PATH` (or `[ … ]`, `[[ … ]]`, with `!`): nothing printed, and 0 where it holds
    (1 where not), where the state knows what is at PATH; None otherwise."""
    words = shell_words(command)
    if not words or words[0] not in ("test", "[", "[["):
        return None
    if words[0] != "test":
        if words[-1] != {"[": "]", "[[": "]]"}[words[0]]:
            return None
        words = words[:-1]
    expr = words[1:]
    negate = expr[:1] == ["!"]
    expr = expr[1:] if negate else expr
    if len(expr) != 2 or expr[0] not in _TESTS or not _PLAIN.fullmatch(expr[1]) or "$" in command:
        return None
    path, test = _abs(expr[1], s), _TESTS[expr[0]]
    kind = _kind(path, s)
    if kind is None or kind == "file" and test == "nonempty" and s.files.get(path) is None:
        return None
    holds = kind == "dir" and test in ("dir", "any", "nonempty") or \
        kind == "file" and (test in ("file", "any") or test == "nonempty" and bool(s.files[path]))  # (a folder's size is never 0)
    return "", 0 if holds != negate else 1


def cwd_after(state: dict[str, Any], command: str, exit_code: int) -> str:
    """The shell's folder after `command`: where the commands of a list that ran left it, where the
    state runs the list (`[ -d x ] && cd x || echo no`, `cd nope; ls`), else following each `cd`
    (next_cwd)."""
    listed = lists.commands(command)
    if listed and len(listed) > 1:
        evaluated = _evaluate(state, listed)
        if evaluated is not None and evaluated[1] == exit_code:
            return evaluated[2]["cwd"]
    return next_cwd(command, state.get("cwd", ""), state.get("home", ""), exit_code)


def _evaluate(state: dict[str, Any], listed: list[tuple[str, str]]) -> tuple[str, int, dict[str, Any]] | None:
    """A list run as bash runs it (a command after `&&` where the last one succeeded, after `||`
    where it failed, after `;` always), each command answered by the state on the state the ones
    before it left: the output, the exit code and that state; None where one is not known."""
    staged, said, code, lines = state, [], 0, 0
    for op, text in listed:
        if op == "&&" and code != 0 or op == "||" and code == 0:
            lines += text.count("\n")
            continue
        s = TerminalState.model_validate(staged)
        found = _condition(s, text)
        if found is None and (lists.commands(text) or [("", "")])[0][1] == text:  # (one command: no list again)
            found = answer(staged, text) or silent(staged, text)
        if found is None or lines and found[0].startswith("/bin/bash: line 1: "):
            return None  # (bash names the line a command is on: after a newline, not the first)
        lines += text.count("\n")
        out, code = found
        said.append(out)
        staged = apply(staged, text, out, code, next_cwd(text, s.cwd, s.home, code))
    return "".join(said), code, staged


def _apply_segment(s: TerminalState, segment: str) -> None:
    """One command of a line whose commands all succeeded: a simple one as it is applied alone (what
    it printed not told apart from the rest), a pipeline as a whole (one that only reads changes
    nothing; another may have written anything)."""
    parts = _split(segment)
    if parts is not None:
        kinds = _expansions(segment, s)
        for words in parts:
            _apply_one(s, [_expand(w, s) for w in words], None, kinds=kinds)
    elif not _reads_only(segment, s):
        _forget_writes(s, None)


def _quiet_prefix(state: dict[str, Any], parts: list[list[str]]) -> dict[str, Any] | None:
    """The state once the parts of a line before its last ran, where each prints nothing and
    succeeds (`silent`'s, or a quiet `git add`), so that the line prints the last part's output
    alone; None where one may print or fail."""
    staged = state
    for part in parts[:-1]:
        line = shlex.join(part)
        s = TerminalState.model_validate(staged)
        if not (_quiet_add(s, part) or silent(staged, line) == ("", 0)):
            return None
        staged = apply(staged, line, "", 0, next_cwd(line, s.cwd, s.home, 0))
    return staged


def _quiet_add(s: TerminalState, words: list[str]) -> bool:
    """`git add …` that prints nothing and changes nothing a commit's refusal depends on."""
    return words[:2] == ["git", "add"] and s.git is not None and _in_repo(s) and _git_answer(s, words[1:]) == ("", 0)


# The options with which each silent command still prints nothing and succeeds; with any other
# option the state does not answer (the real tool may refuse it: `mkdir -r` is an error).
SILENT_FLAGS = {
    "touch": {"-c", "-a", "-m"}, "mkdir": {"-p", "--parents"}, "cd": set(), "export": set(), "unset": set(),
    "rm": {"-r", "-f", "-rf", "-fr", "-R", "-Rf", "-fR", "--recursive", "--force"},
    "cp": {"-r", "-R", "-a", "-p", "-f", "-rf", "-fr", "--recursive"}, "mv": {"-f", "-n"},
}


# GNU coreutils' short options, and those that take a value (the rest of the word is the value).
# An option outside the set is refused the same way every time, so the state answers it exactly.
SHORT_OPTIONS = {"mkdir": ("pvmZ", "m"), "touch": ("acdfhmrt", "drt"), "rm": ("fiIrRdv", ""),
                 "cp": ("abdfiHlLnPpRrsStTuvxZ", "St"), "mv": ("bfinStTuvZ", "St")}


def invalid_option(words: list[str]) -> str | None:
    """The error GNU coreutils prints for an unknown short option (`mkdir -r x`), or None."""
    known = SHORT_OPTIONS.get(words[0]) if words else None
    if known is None:
        return None
    valid, with_value = known
    for word in words[1:]:
        if word == "--":
            break
        if not word.startswith("-") or word.startswith("--") or word == "-":
            continue
        for ch in word[1:]:
            if ch not in valid:
                return f"{words[0]}: invalid option -- '{ch}'\nTry '{words[0]} --help' for more information.\n"
            if ch in with_value:
                break
    return None


def silent(state: dict[str, Any], command: str) -> tuple[str, int] | None:
    """Commands that print nothing when they succeed, where the state says they will succeed:
    touch, mkdir, echo/printf into a file, export, cd into a known folder, rm/cp/mv of known paths;
    and those commands' refusal of an option they do not have."""
    s = TerminalState.model_validate(state)
    fed = heredoc(command)
    parts = _split(fed.line if fed else command)
    if not parts:
        return None
    if fed and ("$(" in fed.text or "`" in fed.text):
        return None  # (commands in the text run as it is fed: the model's)
    if len(parts) == 1 and not fed:
        refused = invalid_option(parts[0])
        if refused is not None:
            return refused, 1
    line = fed.line if fed else command
    if "$(" in line or "`" in line:
        return None
    kinds = _expansions(line, s)  # a pattern or braces the shell expands: which paths, and so their refusals, not known
    if kinds is None or {"target glob", "target brace"} & kinds or \
            {"glob", "brace"} & kinds and any(p[0] not in ("echo", "printf") for p in parts):
        return None
    for n, words in enumerate(parts):
        try:
            words = [_expand(w, s, strict=True) for w in words]
        except _Unknown:
            return None
        cmd, args = words[0], words[1:]
        plain = [a for a in args if not a.startswith("-")]
        redirect = next((i for i, w in enumerate(words) if w in (">", ">>")), None)
        flags = [a for a in args if a.startswith("-")]
        if redirect is None and cmd in SILENT_FLAGS and not set(flags) <= SILENT_FLAGS[cmd]:
            return None  # an option the real tool may refuse (`mkdir -r`) or that prints: the model answers
        if redirect is not None:
            if words[0] == "printf" and (redirect < 2 or words[1].startswith("-")) or redirect + 2 < len(words):
                return None  # (no format: printf refuses; one like an option: its options; words after the target)
            fed_cat = fed is not None and n == len(parts) - 1 and words[:redirect] == ["cat"] and len(words) == 3
            target = _abs(words[redirect + 1], s) if redirect + 1 < len(words) else ""
            if (words[0] not in ("echo", "printf") and not fed_cat) or not _writable(target) or target in s.dirs or \
                    words[redirect + 1].endswith("/") or target not in s.files and posixpath.dirname(target) not in s.known_dirs:
                return None  # (into a folder, a name ending in /, or what may be one: bash's "Is a directory")
        elif cmd == "touch" and plain and all(posixpath.dirname(_abs(a, s)) in s.dirs and _writable(_abs(a, s)) and
                                              (not a.endswith("/") or _abs(a, s) in s.dirs) for a in plain):
            pass  # (`touch x/` of no folder x: refused)
        elif cmd == "mkdir" and plain and _apart([_abs(a, s) for a in plain]) and \
                all(not _exists(_abs(a, s), s) and not _file_on_the_way(_abs(a, s), s) and _writable(_abs(a, s)) and
                    ("-p" in args or posixpath.dirname(_abs(a, s)) in s.dirs) and
                    _nearest_folder(_abs(a, s), s) in s.known_dirs for a in plain):
            for a in plain:  # later parts of the line may write there (a new folder: known, and empty)
                folder = _abs(a, s)
                while folder not in s.dirs and folder != "/":
                    s.dirs.append(folder)
                    s.known_dirs.append(folder)
                    folder = posixpath.dirname(folder)
        elif cmd == "git" and args[:1] == ["config"] and args[1:2] != ["--local"] and \
                [a for a in args[1:] if a != "--global"][:1] in (["user.name"], ["user.email"]) and \
                len([a for a in args[1:] if a != "--global"]) == 2 and (_in_repo(s) or "--global" in args):
            pass  # (setting who commits prints nothing)
        elif cmd in ("export", "unset") and args:
            pass
        elif cmd == "python3" and _compiles(s, args):
            pass
        elif cmd == "sed" and (edit := sedscript.in_place(args) if not kinds - PATH_EXPANSIONS else None) and \
                edit.edit and all(_contents(f, s) is not None for f in edit.files):
            pass  # (a script that is always valid, on files the state knows)
        elif cmd == "sed" and len(parts) == 1 and edit and edit.edit and len(edit.files) == 1 and \
                _PLAIN.fullmatch(edit.files[0]) and _absent(_abs(edit.files[0], s), s):
            return f"sed: can't read {edit.files[0]}: No such file or directory\n", 2
        elif cmd == "cd" and len(plain) == 1 and _abs(plain[0], s) in s.dirs and not plain[0].startswith("//"):
            s.cwd = _abs(plain[0], s)  # later parts of the line run there
        elif cmd == "rm" and plain and "*" not in "".join(plain) and _apart([_abs(a, s) for a in plain]) and \
                not any(posixpath.basename(a.rstrip("/")) in (".", "..") for a in plain) and \
                all(_exists(_abs(a, s), s) and _writable(_abs(a, s)) and
                    (_abs(a, s) in s.files or "-r" in "".join(args) or "-rf" in args) or
                    "f" in "".join(f[1:] for f in flags) and _absent(_abs(a, s), s) and _writable(_abs(a, s))
                    for a in plain):  # (-f: what is not there is no error)
            pass
        elif cmd in ("cp", "mv") and len(plain) == 2 and _abs(plain[0], s) in s.files and _writable(_abs(plain[1], s)) and \
                (cmd == "cp" or _writable(_abs(plain[0], s))) and \
                (posixpath.dirname(_abs(plain[1], s)) in s.dirs and not plain[1].endswith("/") or _abs(plain[1], s) in s.dirs) and \
                _abs(plain[0], s) not in (_abs(plain[1], s), posixpath.join(_abs(plain[1], s), posixpath.basename(plain[0]))):
            pass  # (onto itself: "are the same file", refused)
        else:
            return None
    return "", 0


# python -m of a module that is not installed: nothing ran, nothing was written
_NOT_RUN = re.compile(r"(?:/usr(?:/local)?/bin/)?python[0-9.]*: No module named [\w.]+\n?")
_DEFINES = re.compile(r"\balias\s+([\w.-]+)=|\bfunction\s+([\w.-]+)|(?:^|[;&|]\s*)([\w.-]+)\s*\(\s*\)")  # alias, function


def apply(state: dict[str, Any], command: str, output: str, exit_code: int, cwd_after: str) -> dict[str, Any]:
    """The state after `command` printed `output` (exit code `exit_code`)."""
    after = _apply(state, command, output, exit_code, cwd_after)
    if after.get("seen") and (exit_code != 0 and not _reads_only(command, TerminalState.model_validate(state)) or
                              set(after["files"]) != set(state.get("files", {})) or
                              set(after["dirs"]) != set(state.get("dirs", [])) or
                              after["deleted"] != state.get("deleted", []) or
                              after["env"].get("LANG") != state.get("env", {}).get("LANG")):
        after["seen"] = {}  # (something was made, removed or moved: what ls showed may have changed)
    return after


def _apply(state: dict[str, Any], command: str, output: str, exit_code: int, cwd_after: str) -> dict[str, Any]:
    s = TerminalState.model_validate(state)
    if re.match(r"\s*git\s+(?:log|show|rev-parse|branch)\b", command):
        _ids_shown(s, output)
    fed = heredoc(command)
    line = fed.line if fed else command  # (the text fed is data: what it defines is not the shell's)
    s.defined += [next(g for g in m.groups() if g) for m in _DEFINES.finditer(line)]
    if re.search(r"\bgit\b", line) and re.search(r"\bconfig\b", line) and "git config" not in s.defined:
        s.defined.append("git config")  # git aliases may exist from now on
    listed = None if fed else lists.commands(line)
    if listed and len(listed) > 1:
        evaluated = _evaluate(state, listed)
        if evaluated is not None and evaluated[:2] == (output, exit_code):  # (the state ran it as reality did)
            staged = TerminalState.model_validate(evaluated[2])
            staged.defined = s.defined  # (its folder: where the commands that ran left it, not every `cd` of the line)
            return staged.model_dump()
    parts = _split(line)
    segments = lists.segments(line) if parts is None and not fed and exit_code == 0 else None
    if segments and len(segments) > 1:  # commands joined by && (all ran, and succeeded), pipelines among them
        for segment in segments:
            _apply_segment(s, segment)
        s.cwd = cwd_after or s.cwd
        return s.model_dump()
    if parts is None:  # pipes, subshells, substitutions: unless every program only reads, forget what it may have changed
        if fed or not _reads_only(command, s):
            _forget_writes(s, None)
        parts = []
    kinds = _expansions(line, s)
    if exit_code != 0 and len(parts) > 1 and not (parts[-1][:2] == ["git", "commit"] and _quiet_prefix(state, parts)):
        _forget_writes(s, None)  # (the line failed, and the state did not run it: which command failed, not known)
        s.cwd = cwd_after or s.cwd
        return s.model_dump()
    # the output is the last part's alone where those before it print nothing (`git add -A && git commit`)
    quiet_before = len(parts) > 1 and _quiet_prefix(state, parts) is not None
    if exit_code != 0 and len(parts) == 1 and not fed and _refused_before_anything(s, line, output, exit_code):
        parts = []  # (refused before it began: nothing changed)
    for n, words in enumerate(parts):
        if exit_code != 0 and len(parts) == 1:
            if exit_code not in (126, 127) and words[0] not in MODELLED and _writes(words[0], words[1:], s) and \
                    not _NOT_RUN.fullmatch(output):
                _forget_writes(s, None)  # a program that failed may still have written (python's __pycache__)
            _redirected_anyway(s, words, kinds, output)
            if words[0] in FILE_COMMANDS and not missing.nothing_done(words, output):
                _partly_done(s, words, kinds)
            break
        if exit_code != 0 and n == len(parts) - 1 and words[:2] == ["git", "commit"]:
            break  # (the line failed: a commit at its end made nothing, whatever ran before it)
        words = [_expand(w, s) for w in words]
        if fed and n == len(parts) - 1 and words[0] in INTERPRETERS:
            # a script fed to a program that runs it may write anything: the files it names above all
            _forget_writes(s, None, _named_in(fed.text, s))
            continue
        last = n == len(parts) - 1
        _apply_one(s, words, output if len(parts) == 1 or last and quiet_before else None, fed if last else None,
                   kinds=kinds)
    s.cwd = cwd_after or s.cwd
    return s.model_dump()


def _archive_target(cmd: str, args: list[str]) -> str | None:
    """The archive `tar -czf NAME …` / `tar czf NAME …` / `zip [-r] NAME …` creates (None: not a create)."""
    if cmd == "zip":
        plain = [a for a in args if not a.startswith("-")]
        return plain[0] if plain else None
    if not args:
        return None
    flags = args[0].lstrip("-")
    if "c" not in flags or "f" not in flags:
        return None
    # The file name follows the bundled flags (`czf NAME`) or `-f NAME` / `--file=NAME` later.
    for i, a in enumerate(args):
        if a.startswith("--file="):
            return a.split("=", 1)[1]
        if a == "-f" and i + 1 < len(args):
            return args[i + 1]
    return args[1] if len(args) > 1 and flags.endswith("f") else None


# Programs that only read (with the options agents use): after them the state stays as it was.
READS = frozenset({
    "ls", "cat", "echo", "printf", "pwd", "cd", "grep", "egrep", "fgrep", "rg", "find", "head", "tail", "wc", "sort",
    "uniq", "cut", "tr", "diff", "cmp", "file", "stat", "du", "df", "whoami", "id", "hostname", "date", "env",
    "printenv", "which", "type", "history", "tree", "less", "more", "nl", "column", "basename", "dirname",
    "realpath", "readlink", "uname", "uptime", "ps", "free", "true", "false", "test", "[", "[[", "seq", "sleep",
    "export", "unset", "alias", "clear", "man", "help", "jq", "md5sum", "sha1sum", "sha256sum", "od", "xxd",
    "hexdump", "strings", "awk", "sed", "locale", "groups", "w", "who", "top", "lsb_release", "nproc",
})
# Programs that run what they are fed (a here-document's text is then a script)
INTERPRETERS = frozenset({"python", "python3", "bash", "sh", "zsh", "dash", "node", "perl", "ruby", "php", "sqlite3",
                          "psql", "mysql", "ssh", "sudo", "su", "xargs", "git", "make", "env", "source", "."})
MODELLED = frozenset({"touch", "mkdir", "rm", "rmdir", "mv", "cp", "tar", "zip", "git", "tee"})


def _writes(program: str, args: list[str], s: TerminalState | None) -> bool:
    """Whether this program, with these arguments, may change files (beyond what `apply` models), run
    in the state's folder (None: a folder not known)."""
    if program in ("python3", "python") and s is not None and (_no_shadowing(s) and pycheck.reads_only(args) or
                                                                len(args) == 1 and _absent(_abs(args[0], s), s)):
        return False  # (a script that is not there runs nothing)
    if program == "xargs":  # as the program it runs (echo without one): past xargs' own options
        i = 0
        while i < len(args) and args[i].startswith("-"):
            i += 2 if args[i] in ("-n", "-I", "-P", "-L", "-d", "-s", "-a", "-E") else 1
        return i < len(args) and _writes(args[i], args[i + 1:], s)
    if program == "git" and args[:1] and args[0] in GIT_PIPED_READS:
        return False  # (`git log | head`: reads the repository; status may refresh the index's stat data only)
    if program not in READS:
        return True
    if program in ("sed", "awk", "perl") and any(a.startswith(("-i", "--in-place")) for a in args):
        return True
    if program == "awk":
        return awk.may_write(args)
    if program == "find" and {"-delete", "-exec", "-execdir", "-ok", "-fprint"} & set(args):
        return True
    return program == "sort" and any(a.startswith("-o") for a in args)


def _compiles(s: TerminalState, args: list[str]) -> bool:
    """`python3 -m py_compile FILE…` succeeds, printing nothing: each file is known and compiles (by
    the server's own Python, 3.11 like the sandbox's; compiling runs nothing), and nothing in the
    folder stands in for the standard library. Each file's bytecode goes to `__pycache__` beside it,
    named for the server's Python (as the sandbox's: cpython-311)."""
    if args[:2] != ["-m", "py_compile"] or len(args) < 3 or not _no_shadowing(s) or \
            "python3" in s.defined or {"PATH", "PYTHONPATH", "PYTHONDONTWRITEBYTECODE", "PYTHONPYCACHEPREFIX"} & set(s.env):
        return False
    for name in args[2:]:
        text = _contents(name, s) if name.endswith(".py") and not name.startswith("-") else None
        folder = posixpath.dirname(_abs(name, s))
        if text is None or len(text) > MAX_COMPILED or folder not in s.dirs or \
                posixpath.join(folder, "__pycache__") in s.files or not _within(folder, s.home):
            return False
        try:
            compile(text, name, "exec", dont_inherit=True)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return False  # (the error as the world's python words it: the model's)
    return True


MAX_COMPILED = 1_000_000


def _no_shadowing(s: TerminalState) -> bool:
    """Python started here imports the standard library from it: the folder is known whole and holds
    no module of the standard library's name (a `types.py` is imported, and compiled into
    `__pycache__`, by any `import ast`), and no PYTHONPATH adds others."""
    if s.cwd not in s.known_dirs or "PYTHONPATH" in s.env:
        return False
    return not any(name.removesuffix(".py") in sys.stdlib_module_names for name in _children(s.cwd, s)
                   if name.endswith(".py") or posixpath.join(s.cwd, name) in s.dirs)


def _reads_only(command: str, s: TerminalState) -> bool:
    """Every program of a pipeline or list only reads (and nothing is redirected into a file)."""
    words = shell_words(command)
    if words is None or any(w in (">", ">>", "&>", ">|") or "$(" in w or "`" in w for w in words):
        return False
    stages: list[list[str]] = [[]]
    for w in words:
        if w in ("|", "||", "&&", ";", "&", "(", ")", "|&"):
            stages.append([])
        elif stages[-1] or not re.fullmatch(r"\w+=.*", w):  # skip `NAME=value` before a program
            stages[-1].append(w)
    stages = [st for st in stages if st]
    here = None if any(st[0] == "cd" for st in stages) else s  # python's folder: known unless the line moves
    return bool(stages) and not any(_writes(st[0], st[1:], here) for st in stages)


def _program_ran(s: TerminalState, cmd: str, args: list[str]) -> None:
    """What a program the state cannot follow may have written, beside the files it is given: what
    its text names (python3 -c CODE, a script run, the Makefile), every file below the folder where
    that text is not known; a module run (`python3 -m pytest`) or another program: the files given
    alone (a test run writes caches, and a program its own files, far more often than the
    project's). One that runs no git leaves what git tracks followed."""
    plain = [a for a in args if not a.startswith("-")]
    code = args[args.index("-c") + 1] if "-c" in args[:-1] else None
    script = plain[0] if plain and cmd in INTERPRETERS and code is None and args[:1] != ["-m"] else \
        "Makefile" if cmd == "make" else None
    text = code if code is not None else _contents(script, s) if script else None
    named = _named_in(text, s) if text is not None else [p for p in s.files if _within(p, s.cwd)] if script else []
    runs_no_git = cmd in ("python", "python3", "node", "perl", "ruby", "php") and \
        not re.search(r"\bgit\b|subprocess|system|popen|exec", text or "")
    _forget_writes(s, None, [_abs(a, s) for a in plain] + named, index_kept=runs_no_git)


def _apply_one(s: TerminalState, words: list[str], output: str | None, fed: Heredoc | None = None,
               kinds: set[str] | None = frozenset()) -> None:  # type: ignore[assignment]
    """The state after one simple command (`words`, expanded). `kinds`: what the shell expanded in its
    line beside known variables (_expansions; None: not known): where that leaves the paths a
    command writes or removes unknown, what it may have changed is forgotten, and what echo and
    printf write is known only where the shell passed their words as written."""
    writes = words[0] in ("touch", "mkdir", "rm", "rmdir", "cp", "mv") or ">" in words or ">>" in words or \
        words[0] not in MODELLED and _writes(words[0], words[1:], s)  # (sed -i, python…: the files they name)
    allowed = PATH_EXPANSIONS | ({"glob"} if words[0] == "rm" and ">" not in words and ">>" not in words else set())
    if words[0] in ("echo", "printf") and (">" in words or ">>" in words):  # (its words are what it writes, not paths)
        allowed |= {"glob", "brace", "tilde", "quoted $", "variable"}
    if writes and (kinds is None or not kinds <= allowed):
        # (`mkdir -p a/{b,c}`, `touch $RANDOM`, `cp x src/*`, `echo x* >> f`: which paths, or what, not known)
        named = [w for w in words[1:] if w and w not in (">", ">>") and not w.startswith("-")]
        _forget_writes(s, None, [_abs(w, s) for w in named])
        s.known_dirs = [d for d in s.known_dirs if d != s.cwd and all(d != posixpath.dirname(_abs(w, s)) for w in named)]
        if kinds is None or {"variable", "target variable"} & kinds:
            roots = [s.home, "/tmp"]  # (a path from a variable the state does not know: anywhere it writes)
        else:  # a pattern or braces: any file under the folder they start in
            roots = [_abs(w[:m.start()], s) if w[:m.start()].endswith("/") or not w[:m.start()] else
                     posixpath.dirname(_abs(w[:m.start()], s)) for w in named if (m := re.search(r"[*?\[{]", w))]
        for root in roots:
            _forget_writes(s, root)
            if words[0] in ("mv", "rm", "rmdir"):  # what is still there under it: not known either
                s.files = {p: c for p, c in s.files.items() if not _within(p, root) or p == root}
                s.dirs = [d for d in s.dirs if not _within(d, root) or d == root]
        return
    literal = kinds is not None and not kinds - {"target tilde", "target backslash"}
    redirect = next((i for i, w in enumerate(words) if w in (">", ">>")), None)
    if redirect is not None:
        if redirect + 1 >= len(words):
            return
        target, append = _abs(words[redirect + 1], s), words[redirect] == ">>"
        cmd = words[:redirect] + words[redirect + 2:]  # (`echo a > f b` writes "a b")
        if cmd == ["cat"] and fed is not None:
            _write(s, target, fed.text if fed.literal else None, append)  # (expanded by the shell: not known)
        elif cmd and cmd[0] in ("echo", "printf"):
            _write(s, target, _echo_text(cmd[1:], cmd[0] == "printf") if literal else None, append)
        elif cmd in ([], [":"], ["true"]):
            _write(s, target, "", append)  # `: > file`: emptied (or, appending, as it was)
        else:
            if cmd[0] not in MODELLED and _writes(cmd[0], cmd[1:], s):
                _program_ran(s, cmd[0], cmd[1:])  # (`python3 fix.py > log.txt`: it may write more than its output)
            _write(s, target, None, append)  # something was written; what exactly, the model knows
        return
    cmd, args = words[0], words[1:]
    plain = [a for a in args if not a.startswith("-")]
    if cmd == "tee" and fed is not None:
        for a in plain:
            _write(s, _abs(a, s), fed.text if fed.literal else None, "-a" in args or "--append" in args)
    elif cmd == "touch":
        for a in plain:
            p = _abs(a, s)
            if p in s.dirs:
                _changed(s, p)  # (a folder: its time)
            elif p not in s.files and (_absent(p, s) or posixpath.dirname(p) in s.known_dirs):
                _write(s, p, "")
            elif p not in s.files:  # (a name in a folder not known whole: a file made, or a folder or file there)
                _touched(s, p)
                s.known_dirs = [d for d in s.known_dirs if d != p]
                s.seen = {}
            elif args == plain:
                _changed(s, p)
            else:
                s.times.pop(p, None)  # (-d, -r, -t: another time)
    elif cmd == "mkdir":
        parents = "-p" in args or "--parents" in args or any(re.fullmatch(r"-[a-zA-Z]*p[a-zA-Z]*", a) for a in args)
        for a in plain:
            chain = [_abs(a, s)]  # the folder, then (with -p) each missing parent up to one that exists
            while parents and posixpath.dirname(chain[-1]) not in ("/", chain[-1]) and \
                    not _exists(posixpath.dirname(chain[-1]), s):
                chain.append(posixpath.dirname(chain[-1]))
            for d in reversed(chain):  # from the top: a folder made where the listing was known is known
                # `mkdir x` fails on an existing x, so x is new; `mkdir -p x` does not, so x is new only
                # where its parent's listing is known
                new = d not in s.dirs and (posixpath.dirname(d) in s.known_dirs or (d == chain[0] and not parents))
                if d not in s.dirs:
                    s.dirs.append(d)
                    _made(s, d)
                if new and d not in s.known_dirs:
                    s.known_dirs.append(d)  # a new folder holds only what is made in it: fully known
                if d in s.deleted:
                    s.deleted.remove(d)
    elif cmd in ("rm", "rmdir"):
        for a in plain:
            pattern = _abs(a, s)
            folder, name = posixpath.split(pattern)
            if not any(c in a for c in "*?["):
                matches = [pattern]
            elif any(c in folder for c in "*?[") or "[^" in name:
                _forget_writes(s, None)  # (what the pattern matched: not known)
                return
            else:  # as bash expands it: within the folder, dot files only for a pattern starting with a dot
                # (in a folder not known whole: what it matched of the paths the state knows is gone,
                # and the folder's listing stays unknown)
                matches = [posixpath.join(folder, n) for n in _children(folder, s)
                           if fnmatch.fnmatchcase(n, name) and (name.startswith(".") or not n.startswith("."))]
            for p in matches:
                _remove(s, p)
    elif cmd in ("mv", "cp") and any(a.startswith("--") or re.fullmatch(r"-\w*[tST]\w*", a) for a in args):
        _forget_writes(s, None)  # (`-t DIR`, `-S SUFFIX`, `-T`, long options: which path is which, not followed)
    elif cmd in ("mv", "cp") and len(plain) > 2:  # (several into a folder: each as it alone would go)
        if _abs(plain[-1], s) in s.dirs:
            for source in plain[:-1]:
                _apply_one(s, [cmd, *[a for a in args if a.startswith("-")], source, plain[-1]], None)
        else:
            _partly_done(s, words, None)
    elif cmd in ("mv", "cp") and len(plain) == 2 and (
            _abs(plain[1], s) not in s.dirs and _abs(plain[1], s) not in s.files and not _absent(_abs(plain[1], s), s) and
            posixpath.dirname(_abs(plain[1], s)) not in s.known_dirs or not _exists(_abs(plain[0], s), s)):
        # (onto what may be a folder: into it, or onto a file: not known which; or what it moved, not known)
        s.deleted = [d for d in s.deleted if not _within(d, _abs(plain[1], s))]
        _forget_writes(s, posixpath.dirname(_abs(plain[1], s)))
        if cmd == "mv":
            _forget_writes(s, posixpath.dirname(_abs(plain[0], s)))
            if set(args) - set(plain) <= {"-f"} and _abs(plain[0], s) != s.cwd:
                _remove(s, _abs(plain[0], s))  # (wherever it went, it is not where it was)
    elif cmd in ("mv", "cp") and len(plain) == 2:
        src, dst = _abs(plain[0], s), _abs(plain[1], s)
        _touched(s, dst)  # also where the files it moves are not known one by one
        if cmd == "mv":
            _touched(s, src)
        if dst in s.dirs:
            dst = posixpath.join(dst, posixpath.basename(src))
        moved = {p: c for p, c in s.files.items() if p == src or p.startswith(src + "/")}
        whole = src in s.files and src not in s.dirs  # one file (a folder's copy is made in cp's own order)
        if not whole or cmd == "mv":
            s.order = [p for p in s.order if not _within(p, dst)]  # (replaced, or made in an order not known)
        for p, c in moved.items():
            if not whole:  # (before it is written: what the last commit had there, nothing or another file)
                _touched(s, dst + p[len(src):])
            _write(s, dst + p[len(src):], c, learnt=not whole)
        if src in s.dirs:  # a folder: the folders in it go too (empty ones as well), known where they were
            for d in [d for d in s.dirs if _within(d, src)]:
                if dst + d[len(src):] not in s.dirs:
                    s.dirs.append(dst + d[len(src):])
                if d in s.known_dirs and dst + d[len(src):] not in s.known_dirs:
                    s.known_dirs.append(dst + d[len(src):])
            if cmd == "mv":
                s.dirs = [d for d in s.dirs if not _within(d, src)]
                s.known_dirs = [d for d in s.known_dirs if not _within(d, src)]
        kept = s.times.get(src)  # a rename keeps the file's time; so does cp -p or -a
        if cmd == "mv":
            for p in moved:
                del s.files[p]
            s.order = [p for p in s.order if not _within(p, src)]
            if whole:
                _made(s, dst)  # a rename: the newest entry of its folder
            _changed(s, posixpath.dirname(src))
            if src not in s.deleted:
                s.deleted.append(src)
        s.times = {p: t for p, t in s.times.items() if not (_within(p, src) and cmd == "mv" or _within(p, dst))}
        if whole and (cmd == "mv" or {"-p", "-a", "--preserve", "--archive"} & set(args)):
            if kept is not None:
                s.times[dst] = kept
        elif whole:
            _changed(s, dst)
        _changed(s, posixpath.dirname(dst))
    elif cmd in ("tar", "zip") and _archive_target(cmd, args):
        _write(s, _abs(_archive_target(cmd, args), s), None)  # an archive now exists; its bytes are unknown
    elif cmd == "cat" and len(plain) == 1 and output is not None and not args[0].startswith("-") and \
            kinds is not None and kinds <= PATH_EXPANSIONS:  # (`cat *.txt`: which file it read, not known)
        p = _abs(plain[0], s)
        if p not in s.dirs:
            _write(s, p, output, learnt=True)  # what cat showed is what the file holds
    elif cmd == "ls" and not plain and output is not None and "-" not in "".join(args):
        # What ls listed is the folder's listing where the state knows each name (a name it does not
        # know may be a file or a folder: neither is learnt, and the listing is not known)
        names = output.splitlines()  # (one a line, to a pipe: a name may hold spaces)
        if sorted(names) != sorted(n for n in _children(s.cwd, s) if not n.startswith(".")):
            s.known_dirs = [d for d in s.known_dirs if d != s.cwd]  # (names it did not know, or not all it knew)
            if not args:
                s.seen[s.cwd] = output
        elif s.cwd not in s.known_dirs:
            s.known_dirs.append(s.cwd)
    elif cmd == "cd" and len(args) <= 1 and args != ["-"]:
        s.cwd = _abs(args[0], s) if args else s.home  # the rest of the line runs there
    elif cmd == "export":
        for a in args:
            k, sep, v = a.partition("=")
            if sep:
                s.env[k] = v
    elif cmd == "unset":
        for a in args:
            s.env.pop(a, None)
    elif cmd == "git" and history.apply(s, words, output):
        pass
    elif cmd == "sed" and (edit := sedscript.in_place(args)) is not None:  # (it rewrites the files it is given)
        for name in edit.files:
            text = _contents(name, s)
            _write(s, _abs(name, s), edit.edit(text) if edit.edit and text is not None else None)
            _made(s, _abs(name, s))  # sed -i writes a new file and renames it over the old one
    elif cmd == "python3" and _compiles(s, args):
        for name in args[2:]:
            source = _abs(name, s)
            folder = posixpath.join(posixpath.dirname(source), "__pycache__")
            if folder not in s.dirs:
                s.dirs.append(folder)
                _made(s, folder)
                if posixpath.dirname(folder) in s.known_dirs:
                    s.known_dirs.append(folder)
            compiled = posixpath.join(folder, f"{posixpath.basename(source)[:-3]}.{sys.implementation.cache_tag}.pyc")
            _write(s, compiled, None)  # (its bytes: not known)
            _made(s, compiled)  # (written beside it, then renamed over it: the newest entry)
    elif cmd not in MODELLED and _writes(cmd, args, s):  # python, make, sed -i…: may write anything
        _program_ran(s, cmd, args)
