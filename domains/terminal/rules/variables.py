"""The shell's variables as the terminal's state follows them: how bash expands a word (`_expand`,
`_expand_words`; `strict`: not at all where the value is not known), what a line assigns (`assign`),
what a line the state did not run may have set (`forget_assigned`), and what every shell of the
sandbox starts with (`started_with`: who and where it is, BASE_ENV).
"""

from __future__ import annotations

import functools
import posixpath
import re

from .state import TerminalState, _Unknown


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
    line; `strict`: a variable bash would split or match as a pattern (`_splits`) is not known."""
    bare = _outside_single_quotes(line)
    if bare is not None and "$" not in bare:
        return list(words)
    if strict and _splits(line, s):
        raise _Unknown(line)
    return [_expand(w, s, strict) for w in words]


QUOTED_TILDE = re.compile(r"[\"'\\\\]~")  # (`"~/x"`, `\~`: a ~ the shell does not read as the home)
ASSIGNMENT = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)=(.*)", re.S)
# What bash will not let a line assign (its own, read-only), and the variables bash or the programs
# read that start exported or change how things run: assigned, they stay in env (as `export` has them)
# What every shell of the sandbox starts with beside who and where it is (executors/sandbox.py)
BASE_ENV = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "TERM": "dumb"}
READ_ONLY = frozenset({"UID", "EUID", "PPID", "BASHOPTS", "SHELLOPTS", "BASH_VERSINFO"})
EXPORTED = frozenset({"PATH", "HOME", "USER", "LOGNAME", "LANG", "TERM", "HOSTNAME", "LANGUAGE", "IFS", "CDPATH",
                      "GLOBIGNORE", "POSIXLY_CORRECT", "TMPDIR", "PWD", "OLDPWD", "SHELL", "TZ"})


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


def forget_assigned(s: TerminalState, line: str) -> None:
    """A line the state did not run: each variable it may have set (`X=…`, `export X=…`, `for X in`,
    `read X`) now holds what is not known; after `source` or `eval`, every one it knew."""
    names = set(re.findall(r"(?:^|[\s;&|(!{])([A-Za-z_]\w*)\+?=", line))
    names |= set(re.findall(r"\bfor\s+([A-Za-z_]\w*)", line))
    for m in re.finditer(r"\bread\b([^;&|\n]*)", line):
        names |= set(re.findall(r"(?<![-\w])[A-Za-z_]\w*", m.group(1)))
    if re.search(r"(?:^|[\s;&|(])(?:source|\.|eval)\s", line):
        names |= set(s.vars) | set(s.env)
    if re.search(r"(?:^|[\s;&|(])(?:cd|pushd|popd)\b", line):
        names.add("OLDPWD")
    for name in names:
        s.vars[name] = None


_UNQUOTED_VARIABLE = re.compile(r"\$(?:\{(\w+)\}|(\w+))")


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


def _expand(word: str, s: TerminalState, strict: bool = False) -> str:
    def var(m: re.Match[str]) -> str:
        name = m.group(1) or m.group(2)
        if not name:  # $$, $?, $#, $@, $*, $!, $-: the shell's own (its pid, the last status…)
            if strict:
                raise _Unknown(m.group(0))
            return ""
        if s.vars.get(name, "") is None:
            if strict:
                raise _Unknown(name)
            return ""
        if name in s.vars:
            return s.vars[name]  # type: ignore[return-value]
        if name in s.env:
            return s.env[name]
        started = started_with(s).get(name)
        if started:
            return started
        if name == "SHELL":  # bash sets it from the user's passwd entry, which is /bin/bash in every world
            return "/bin/bash"
        if strict:  # $SHELL, $PATH, $RANDOM…: set by the machine, not by the episode
            raise _Unknown(name)
        return ""

    expanded = re.sub(r"\$\{(\w+)\}|\$(\w+)|\$[?$#@*!-]", var, word)
    if strict and "${" in word and re.search(r"\$\{(?!\w+\})", word):
        raise _Unknown(word)  # (${X:-default}, ${#X}, ${X/a/b}: not expanded here)
    if strict and expanded.startswith("~") and not word.startswith("~"):
        raise _Unknown(word)  # (a value's ~ is itself, which `_abs` would read as the home)
    return expanded


def started_with(s: TerminalState) -> dict[str, str]:
    """The variables every shell of the sandbox has in its environment before the episode's own ("":
    not known here): who and where it is, and BASE_ENV."""
    return {"HOME": s.home, "PWD": s.cwd, "USER": _user(s), "LOGNAME": _user(s), "HOSTNAME": s.host, **BASE_ENV}


def _user(s: TerminalState) -> str:
    """Who the shell runs as: the owner of the home (/home/NAME), or root; "" where not known."""
    if s.home == "/root":
        return "root"
    return posixpath.basename(s.home) if posixpath.dirname(s.home) == "/home" else ""
