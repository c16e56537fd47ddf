"""The shell's variables as the terminal's state follows them: how bash expands a word (`_expand`,
`_expand_words`; `strict`: not at all where the value is not known), what a line assigns (`assign`),
what a line the state did not run may have set (`forget_assigned`), and what every shell of the
sandbox starts with (`started_with`: who and where it is, BASE_ENV).
"""

from __future__ import annotations

import functools
import posixpath
import re
import shlex
from typing import Any

from .state import TerminalState, _abs, _absent, _contents, _Unknown


@functools.lru_cache(maxsize=16)  # (asked again for each command of a long line: `_expand_words`)
def _outside_single_quotes(command: str) -> str | None:
    """The line with what single quotes hold taken out (the shell reads none of it); None where a
    quote is not closed."""
    out, inside, double = [], False, False
    for c in command:
        if inside:
            inside = c != "'"
        elif c == "'" and not double:
            inside = True
            out.append("''")
        else:
            double = double != (c == '"')
            out.append(c)
    return None if inside or double else "".join(out)


def _expand_words(words: list[str], line: str, s: TerminalState, strict: bool = False) -> list[str]:
    """The words of `line` as bash hands them to the program: variables expanded, unless every `$`
    of the line is inside single quotes (bash then expands none, and each `$` is the program's own:
    sed's `$d` and `/^$/`, awk's `$1`). The words have lost their quotes, so that is told from the
    line; `strict`: a variable bash would split or match as a pattern (`_splits`), or a `$` escaped
    (`echo \\$HOME` prints `$HOME`: the words no longer tell it), is not known."""
    bare = _outside_single_quotes(line)
    if bare is not None and "$" not in bare:
        return list(words)
    if strict and (_splits(line, s) or escaped_dollar(line)):
        raise _Unknown(line)
    expanded = [_expand(w, s, strict) for w in words]
    if strict and sum(map(len, expanded)) > MAX_EXPANDED + len(line):
        raise _Unknown(line)
    return expanded


QUOTED_TILDE = re.compile(r"[\"'\\\\]~")  # (`"~/x"`, `\~`: a ~ the shell does not read as the home)
ASSIGNMENT = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)=(.*)", re.S)
# What bash will not let a line assign (its own, read-only), and the variables bash or the programs
# read that start exported or change how things run: assigned, they stay in env (as `export` has them)
# What every shell of the sandbox starts with beside who and where it is (executors/sandbox.py)
BASE_ENV = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "TERM": "dumb"}
READ_ONLY = frozenset({"UID", "EUID", "PPID", "BASHOPTS", "SHELLOPTS", "BASH_VERSINFO"})
EXPORTED = frozenset({"PATH", "HOME", "USER", "LOGNAME", "LANG", "TERM", "HOSTNAME", "LANGUAGE", "IFS", "CDPATH",
                      "GLOBIGNORE", "POSIXLY_CORRECT", "TMPDIR", "PWD", "OLDPWD", "SHELL", "TZ"})


def escaped_dollar(line: str) -> bool:
    """A `\\$` bash reads as a `$` of the word's own (`echo \\$HOME`), outside single quotes (or an
    unclosed quote: not told)."""
    bare = _outside_single_quotes(line)
    return bare is None or "\\$" in bare


def assign(s: TerminalState, words: list[str], known: bool) -> None:
    """`NAME=VALUE…` alone on its command (words expanded; `known`: their values are as bash has
    them): a variable the episode exported (or one of EXPORTED, or LC_…) changes in env, others in
    vars; a value not known, None in vars."""
    for word in words:
        name, _, value = word.partition("=")
        if name in s.env or name in EXPORTED or name.startswith(("LC_", "BASH")):
            s.env[name] = value
            if known:
                s.vars.pop(name, None)
        else:
            s.vars[name] = value
        if not known:
            s.vars[name] = None


def assigns_itself(line: str) -> bool:
    """`X=1 Y=$X`: a variable the line assigns is also read in it, where bash has the new value."""
    assigned = set(re.findall(r"(?:^|[\s;&|(!{])([A-Za-z_]\w*)\+?=", line))
    return bool(assigned & set(re.findall(r"\$\{?([A-Za-z_]\w*)", line)))


# Where a word is a command of the line (`find . -name x` runs no `.`)
_COMMAND_AT = r"(?:^|[;&|(){}\n`!]|\b(?:then|do|else|elif|if|while|until)\b)\s*"
_SOURCES = re.compile(_COMMAND_AT + r"(?:source|\.|eval)(?:\s|$)")  # (what they run sets what it likes)


def forget_assigned(s: TerminalState, line: str) -> None:
    """A line the state did not run: each variable it may have set (`X=…`, `export X=…`, `for X in`,
    `read X`) now holds what is not known; after `source FILE`, each one FILE may set (`_sourced`),
    and after `eval` or a file the state cannot read, every one it knew, PATH too."""
    names = set(re.findall(r"(?:^|[\s;&|(!{])([A-Za-z_]\w*)\+?=", line))
    names |= set(re.findall(r"\bfor\s+([A-Za-z_]\w*)", line))
    for m in re.finditer(r"\bread\b([^;&|\n]*)", line):
        names |= set(re.findall(r"(?<![-\w])[A-Za-z_]\w*", m.group(1)))
    if _SOURCES.search(line):
        sourced = _sourced(line, s)
        # (`source venv/bin/activate` sets PATH: `which python3` is the venv's from then on)
        names |= set(s.vars) | set(s.env) | {"PATH"} if sourced is None else sourced
    if re.search(r"(?:^|[\s;&|(])(?:cd|pushd|popd)\b", line):
        names.add("OLDPWD")
    for name in names:
        s.vars[name] = None


def _eval_words(text: str) -> list[str] | None:
    """The words `eval` is given, where bash hands them over as written (no `$`, backquote or pattern)."""
    if re.search(r"[$`*?\[\\<>(]", text):
        return None
    try:
        return shlex.split(text)
    except ValueError:
        return None


def _sourced(line: str, s: TerminalState) -> set[str] | None:
    """The variables the files `line` sources may set (`source .env` of `X=1`: X), where the state
    knows each file's text and it names all it sets (`may_set`), or knows the file is not there; None
    where one is not known, or the line evaluates a text (`eval`). A name without a slash is looked
    for in PATH first: only one that starts with a dot (`.env`) is taken as the folder's."""
    names: set[str] = set()
    for m in re.finditer(_COMMAND_AT + r"eval(?:\s+([^;&|\n]*)|$)", line):
        words = _eval_words(m.group(1) or "")
        named = may_set(" ".join(words)) if words is not None else None  # (`eval "X=1"`: the text it runs)
        if named is None:
            return None
        names |= named
    for m in re.finditer(_COMMAND_AT + r"(?:source|\.)(?:\s+(\S+)|\s*$)", line):
        word = m.group(1) or ""
        if not word or re.search(r"[$`*?\[{~'\"\\]", word) or "/" not in word and not word.startswith("."):
            return None
        try:
            path = _abs(word, s)
        except _Unknown:
            return None
        if _absent(path, s):
            continue
        text = _contents(word, s)
        named = may_set(text) if text is not None else None
        if named is None:
            return None
        names |= named
    return names


_UNQUOTED_VARIABLE = re.compile(r"\$(?:\{[^}'\"\s]*\}|\w+)")


def _splits(line: str, s: TerminalState) -> bool:
    """Whether bash splits the value of a variable outside quotes into words, or matches it as a
    pattern (`F="a b"; ls $F` lists two files; `G='*.md'; ls $G` the files it matches), or drops
    it as empty: the words are then not the expanded ones."""
    quote, i = "", 0
    while i < len(line):
        c = line[i]
        if quote:
            quote = "" if c == quote else quote
            i += 2 if quote == '"' and c == "\\" else 1
            continue
        if c in "'\"":
            quote = c
        elif c == "\\":
            i += 1
        elif c == "$" and (m := _UNQUOTED_VARIABLE.match(line, i)):
            value = _expand(m.group(0), s)
            if not value or any(ch in value for ch in " \t\n*?["):
                return True
        i += 1
    return False


# What `_expand` reads of a word: `${…}` (a name, or one of the forms bash works out of its value: a
# default or alternative word, `:-` `-` `:+` `+`; the length, `${#X}`; a prefix or suffix pattern
# of `*`, `?` and plain characters taken off, `#` `##` `%` `%%`; a plain text replaced, `/` `//`;
# a slice, `:N` `:N:M`), `$NAME`, and the shell's own `$?`, `$$`, `$#`…
_REFERENCE = re.compile(r"\$\{(#?)(\w+)(?:(:?[-+])([\w./:@%+,=-]*)|(%%?|##?)([\w./:@+,=*?-]+)|"
                        r"(//?)([\w.:@+,=-]+)/([\w./:@+,=-]*)|:(\d{1,6})(?::(\d{1,6}))?)?\}|\$([A-Za-z_]\w*|\d)|"
                        r"\$[?$#@*!-]")  # (`$10` is `${1}0`: one digit)


def _expand(word: str, s: TerminalState, strict: bool = False) -> str:
    def value(name: str) -> str | None:
        """The variable's value; None where the shell has none; raises _Unknown where not known."""
        if s.vars.get(name, "") is None:
            raise _Unknown(name)
        if name.isdigit() and name != "0":  # (a script's arguments, where scripts.py runs one with its words)
            if s.vars.get("#") is None:
                raise _Unknown(name)
            return s.vars.get(name)
        if name in s.vars:
            return s.vars[name]
        if name in s.env:
            return s.env[name]
        started = started_with(s).get(name)
        if started:
            return started
        if name == "SHELL":  # bash sets it from the user's passwd entry, which is /bin/bash in every world
            return "/bin/bash"
        if not known_unset(name, s):  # $RANDOM, $SECONDS…: bash's; or one a line may have set
            raise _Unknown(name)
        return None

    def var(m: re.Match[str]) -> str:
        name = m.group(2) or m.group(12)
        if not name and m.group(0) == "$#" and s.vars.get("#") is not None:
            return s.vars["#"]  # type: ignore[return-value]
        if not name:  # $$, $?, $#, $@, $*, $!, $-: the shell's own (its pid, the last status…)
            if strict:
                raise _Unknown(m.group(0))
            return ""
        try:
            return _worked_out(m, value(name)) if m.group(2) else value(name) or ""
        except _Unknown:
            if strict:
                raise
            return "" if m.group(0) in ("$" + name, "${" + name + "}") else m.group(0)

    expanded = _REFERENCE.sub(var, word)
    if strict and len(expanded) > MAX_EXPANDED and len(expanded) > len(word):
        raise _Unknown(word)  # (`echo $F$F$F…` of a long F: the model's, not megabytes worked through here)
    if strict and "${" in _REFERENCE.sub("", word):
        raise _Unknown(word)  # (`${X:=a}`, `${X^^}`, `${!X}`, a word with spaces or quotes: not expanded here)
    if strict and expanded.startswith("~") and not word.startswith("~"):
        raise _Unknown(word)  # (a value's ~ is itself, which `_abs` would read as the home)
    return expanded


MAX_EXPANDED = 16_384  # characters a line's words may grow to as variables are expanded (the tool's limit on a line)
MAX_CUT = 512  # characters of a value a pattern is taken off (`${X%.*}`); a longer one is not worked out


def _worked_out(m: re.Match[str], got: str | None) -> str:
    """What bash makes of one `${…}` (`_REFERENCE`), given its name's value (None: unset)."""
    length, _, test, word, cut, pattern, swap, old, new, start, count = m.groups()[:11]
    if length:
        if test or cut or swap or start:
            raise _Unknown(m.group(0))  # (`${#X:-a}`: bash's "bad substitution")
        return str(len(got or ""))
    if test:
        there = got is not None and (got != "" or not test.startswith(":"))
        if test.endswith("-"):
            return got if there else word  # type: ignore[return-value]
        return word if there else ""
    got = got or ""
    if cut:  # (shortest or longest; from the front, `#`, or the end, `%`)
        if len(got) > MAX_CUT:
            raise _Unknown(m.group(0))  # (each cut is matched from every place: kept small)
        for i in range(len(got) + 1) if cut in ("#", "%%") else range(len(got), -1, -1):
            if cut.startswith("#") and _matches(pattern, got[:i]):
                return got[i:]
            if cut.startswith("%") and _matches(pattern, got[i:]):
                return got[:i]
        return got
    if swap:
        return got.replace(old, new) if swap == "//" else got.replace(old, new, 1)
    if start:
        return got[int(start):int(start) + int(count)] if count is not None else got[int(start):]
    return got


def _matches(pattern: str, text: str) -> bool:
    """A pattern of `*`, `?` and plain characters matches the whole text (in time of their lengths'
    product: the last `*` alone is ever gone back to)."""
    i = j = 0
    star, mark = -1, 0
    while j < len(text):
        if i < len(pattern) and pattern[i] != "*" and pattern[i] in ("?", text[j]):
            i, j = i + 1, j + 1
        elif i < len(pattern) and pattern[i] == "*":
            star, mark, i = i, j, i + 1
        elif star >= 0:
            mark += 1
            i, j = star + 1, mark
        else:
            return False
    return pattern[i:].strip("*") == ""


def started_with(s: TerminalState) -> dict[str, str]:
    """The variables every shell of the sandbox has in its environment before the episode's own ("":
    not known here): who and where it is, and BASE_ENV."""
    return {"HOME": s.home, "PWD": s.cwd, "USER": _user(s), "LOGNAME": _user(s), "HOSTNAME": s.host, **BASE_ENV}


def _user(s: TerminalState) -> str:
    """Who the shell runs as: the owner of the home (/home/NAME), or root; "" where not known."""
    if s.home == "/root":
        return "root"
    return posixpath.basename(s.home) if posixpath.dirname(s.home) == "/home" else ""


# What bash itself has or sets as it runs (`compgen -v` in the sandbox's shell; REPLY after `read`,
# BASH_REMATCH after `=~`, OPTARG after `getopts`, MAPFILE, COPROC, COLUMNS…): never taken as unset.
BASH_OWN = frozenset(
    "BASH BASHOPTS BASHPID BASH_ALIASES BASH_ARGC BASH_ARGV BASH_ARGV0 BASH_CMDS BASH_COMMAND BASH_ENV "
    "BASH_EXECUTION_STRING BASH_LINENO BASH_LOADABLES_PATH BASH_REMATCH BASH_SOURCE BASH_SUBSHELL BASH_VERSINFO "
    "BASH_VERSION BASH_XTRACEFD CDPATH CHILD_MAX COLUMNS COMP_WORDBREAKS COPROC DIRSTACK EPOCHREALTIME EPOCHSECONDS "
    "EUID FUNCNAME FUNCNEST GLOBIGNORE GROUPS HISTCMD HISTCONTROL HISTFILE HISTFILESIZE HISTIGNORE HISTSIZE "
    "HISTTIMEFORMAT HOSTTYPE IFS IGNOREEOF INPUTRC LINENO LINES MACHTYPE MAIL MAILCHECK MAILPATH MAPFILE OPTARG "
    "OPTERR OPTIND OSTYPE PIPESTATUS POSIXLY_CORRECT PPID PROMPT_COMMAND PROMPT_DIRTRIM PS0 PS1 PS2 PS3 PS4 RANDOM "
    "READLINE_ARGUMENT READLINE_LINE READLINE_MARK READLINE_POINT REPLY SECONDS SHELLOPTS SHLVL SRANDOM TIMEFORMAT "
    "TMOUT UID _".split())
# What a line may set that it names: `X=…`, `a[1]=…`, `export X=…` (`"X=…"` too), `for X in`, `select X in`,
# `${X:=…}`, `printf -v X`, `read X Y`, and what it names at all where it runs `let`, `((…))`,
# `getopts`, `mapfile`, `readarray` or `coproc`.
_ASSIGNED = re.compile(r"(?:^|[\s;&|(!{])([A-Za-z_]\w*)(?:\[[^\]\n]*\])?\+?=")
_DECLARED = re.compile(r"(?:^|\s)['\"]?([A-Za-z_]\w*)\b")  # (`export "X=1"`, `declare X`: quoted or bare)
_LOOPED = re.compile(r"\b(?:for|select)\s+([A-Za-z_]\w*)|\$\{([A-Za-z_]\w*):?=")
_READ = re.compile(r"\bread\b([^;&|\n]*)")
_PRINTF = re.compile(r"\bprintf\b([^;&|\n]*)")  # (its `-v X` found within: one scan of the line)
_ANY_NAME = re.compile(r"\b(?:let|getopts|mapfile|readarray|coproc)\b|\(\(|\$\[|\bwait\s+-\w*p")
# What may set variables the line does not name: a trap, `readonly` (an `unset` after it fails), `set -a`
# (every later assignment exported), a function (calling it may set any), and in `declare`, `typeset`,
# `local` or `export`, a nameref (`-n`), a read-only one (`-r`), or a name itself expanded (`export
# $(cat .env)`). (`source` and `eval`: `_sourced`.)
_OPAQUE = re.compile(_COMMAND_AT + r"(?:(?:trap|readonly)(?=\s|$)|function\s|[\w.-]+\s*\(\s*\))|"
                     r"\bset\s+(?:-\w*a|-o\s+allexport)")
_DECLARES = re.compile(r"\b(?:declare|typeset|local|export)\b([^;&|\n]*)")
_DECLARES_OPAQUE = re.compile(r"(?:^|\s)(?:-\w*[nr]|[^\s=]*[$`])")
MAX_NAMED = 256


def noted(before: dict[str, Any], after: dict[str, Any], line: str, followed: bool = False) -> dict[str, Any]:
    """The state after `line` with what it may have set that the state does not hold (`maybe_set`;
    `names_known` ends where what it set cannot be named), whoever answered it: a variable the line
    only may have set is never taken as unset. What a sourced file may set is not known after it,
    unless the state `followed` the file as it ran (scripts.py)."""
    sourced: set[str] | None = set()
    if _SOURCES.search(line) and followed:
        sourced = _sourced(line, TerminalState.model_validate(before))
    elif _SOURCES.search(line):  # (whoever answered it, and whatever it printed)
        s = TerminalState.model_validate(after)
        sourced = _sourced(line, s)
        if sourced is None and not re.search(r"[;&|\n]", line):  # (its file as it was: the line wrote none first)
            sourced = _sourced(line, TerminalState.model_validate(before))
        was = TerminalState.model_validate(before)
        for name in set(s.vars) | set(s.env) | {"PATH"} if sourced is None else sourced:
            if sourced is None or (s.vars.get(name), s.env.get(name)) == (was.vars.get(name), was.env.get(name)):
                s.vars[name] = None  # (`source venv/bin/activate` sets PATH: `which python3` is the venv's then)
        after = s.model_dump()  # (one it holds anew the state ran the file for: `printf … > .env && source .env`)
    named = may_set(line, sourcing=False)
    if not after.get("names_known"):
        return after
    if named is None or sourced is None or len(after.get("defined") or []) > len(before.get("defined") or []):
        return {**after, "names_known": False, "maybe_set": []}
    named |= sourced
    maybe = list(after.get("maybe_set") or [])
    if (unset := re.fullmatch(r"\s*unset\s+(?:-v\s+)?((?:[A-Za-z_]\w*\s*)+)", line)) and not named:
        maybe = [n for n in maybe if n not in unset.group(1).split()]  # (gone for sure: bash's own are never here)
    maybe += sorted(named - set(maybe) - BASH_OWN)
    if len(maybe) > MAX_NAMED:
        return {**after, "names_known": False, "maybe_set": []}
    return {**after, "maybe_set": maybe}


def may_set(text: str, sourcing: bool = True) -> set[str] | None:
    """The variables running `text` in the shell may set; None where it may set ones it does not
    name (`_OPAQUE`, `_DECLARES_OPAQUE`), or sources or evaluates a text (unless not `sourcing`:
    the line's own, which `_sourced` reads)."""
    if _OPAQUE.search(text) or any(_DECLARES_OPAQUE.search(m.group(1)) for m in _DECLARES.finditer(text)):
        return None
    named = set(_ASSIGNED.findall(text)) | {n for m in _LOOPED.findall(text) for n in m if n}
    for m in _DECLARES.finditer(text):
        named |= set(_DECLARED.findall(m.group(1)))
    for m in _READ.finditer(text):
        named |= set(re.findall(r"(?<![-\w])[A-Za-z_]\w*", m.group(1)))
    for m in _PRINTF.finditer(text):
        named |= set(re.findall(r"\s-v\s*([A-Za-z_]\w*)", m.group(1)))
    if _ANY_NAME.search(text):
        named |= set(re.findall(r"[A-Za-z_]\w*", text))
    if sourcing and _SOURCES.search(text):
        return None  # (a file that sources another, or evaluates a text)
    return named


def known_unset(name: str, s: TerminalState) -> bool:
    """The shell has no variable `name`: the state names every one it may have (`names_known`), and
    this one is not among them, nor one bash has or sets itself."""
    return s.names_known and name not in s.maybe_set and name not in s.vars and name not in s.env and \
        name not in started_with(s) and name not in BASH_OWN and not name.startswith(("BASH", "COMP_", "READLINE_")) \
        and re.fullmatch(r"[A-Za-z_]\w*", name) is not None
