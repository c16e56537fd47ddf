"""`NAME=VALUE… command` and `env NAME=VALUE… command`: the command run with those variables in its
environment, and the shell's own variables left as they were, as bash runs it (`PAGER=cat git log`,
`PYTHONPATH=src python3 -m app`, `CI=1 python3 run.py`).

The command is answered, followed and applied on a state whose environment holds the variables
(`scoped`): every rule that a variable changes already reads the episode's environment, as it does
after `export`. Afterwards the variables are what they were before the line (`restored`).

Left as they are (and so to the model's, or followed as any line the state does not read): a value
the state does not know (`$(…)`, `~`, a variable not known), a command that changes the shell itself
(`X=1 export Y`, `cd`, `source`, a function), one that reads a variable the prefix sets (`X=1 echo $X`
prints the old one, as does a substitution in its words), a list (`X=1 a && b`: the prefix is the first
command's, which shell.py meets alone), and a pipeline unless what it sets changes no program
(`PAGER=cat git log | head`).
"""

from __future__ import annotations

import re
import shlex
from typing import Any

from .output import _scanned, shell_words
from .state import TerminalState, _Unknown
from .variables import READ_ONLY, _expand

_ASSIGNED = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)=")
# Builtins and keywords whose prefix is not a program's environment alone: they change the shell, run
# text as shell code, or keep what they are given (bash keeps a special builtin's in POSIX mode)
_SHELL_ITSELF = frozenset({
    "export", "unset", "set", "declare", "typeset", "local", "readonly", "source", ".", "eval", "exec", "alias",
    "unalias", "read", "mapfile", "readarray", "shopt", "cd", "pushd", "popd", "dirs", "trap", "return", "exit",
    "break", "continue", "shift", "hash", "umask", "ulimit", "builtin", "command", "let", "getopts", "env",
    "printenv", "time", "nohup", "sudo", "xargs", "timeout", "nice", "if", "for", "while", "until",
    "case", "select", "function", "{", "(", "[[", "!", "coproc", "history", "fc", "jobs", "wait", "kill"})
# What no program the rules answer reads: the same in every stage of a pipeline
_INERT = frozenset({"PAGER", "GIT_PAGER", "MANPAGER", "NO_COLOR", "CLICOLOR", "TERM"})
MAX_ASSIGNED = 8


def split(state: dict[str, Any], command: str) -> tuple[dict[str, str], str] | None:
    """The variables a line's prefix gives its command (each value as bash has it) and the command;
    None where the line has no prefix, or one followed here (above)."""
    text = command.strip()
    if text.startswith("env ") and not text.startswith("env -"):
        text = text[4:].lstrip(" \t")
    first = _ASSIGNED.match(text)
    if first is None:
        return None
    assigned: dict[str, str] = {}
    at = 0
    while (m := _ASSIGNED.match(text, at)) is not None:
        end = _word_end(text, m.end())
        value = None if end is None else _value(text[m.end():end], state, assigned)
        if value is None or m.group(1) in READ_ONLY or m.group(1) in assigned or len(assigned) == MAX_ASSIGNED:
            return None
        assigned[m.group(1)] = value
        at = end
        while text[at:at + 1] in (" ", "\t"):
            at += 1
    rest = text[at:]
    words = shell_words(rest)
    if not rest or not words or "$(" in rest or "`" in rest or words[0] in _SHELL_ITSELF or \
            words[0] in state.get("defined", []) or _ASSIGNED.match(words[0]) or rest[0] in "<>|;&#" or \
            any(op in words for op in ("&&", "||", ";", "&", "(", ")")) or \
            re.search(r"\$\{?(?:%s)\b" % "|".join(assigned), rest) or "\n" in rest and "<<" not in rest:
        return None
    if ("|" in words or "|&" in words) and not set(assigned) <= _INERT:
        return None  # (a pipeline: the prefix is its first program's alone)
    return assigned, rest


def _word_end(text: str, start: int) -> int | None:
    """Where the word that begins at `start` ends: at the first blank or operator bash reads as one."""
    for i, c, kind in _scanned(text[start:]):
        if kind == "code" and c in " \t\n;&|<>()":
            return start + i
    return len(text)


def _value(raw: str, state: dict[str, Any], assigned: dict[str, str]) -> str | None:
    """An assignment's value as bash gives it (quotes taken off, `$NAME` the state knows expanded; no
    pattern or brace is expanded in one); None where it is not known here."""
    if any(t in raw for t in ("`", "$(", "$'", '$"', "~")) or "$" in raw and ("'" in raw or "\\" in raw):
        return None
    try:
        words = shlex.split(raw) if raw else [""]
    except ValueError:
        return None
    if len(words) != 1:
        return None
    if "$" not in raw:
        return words[0]
    if any(re.search(r"\$\{?%s\b" % name, raw) for name in assigned):
        return None  # (`X=1 Y=$X cmd`: which X bash reads there, not followed)
    try:
        return _expand(words[0], TerminalState.model_validate(state), strict=True)  # (read whole only here)
    except _Unknown:
        return None


def scoped(state: dict[str, Any], assigned: dict[str, str]) -> dict[str, Any]:
    """The state the command runs on: the variables in its environment, none of them the shell's alone."""
    return {**state, "env": {**(state.get("env") or {}), **assigned},
            "vars": {k: v for k, v in (state.get("vars") or {}).items() if k not in assigned}}


def restored(before: dict[str, Any], after: dict[str, Any], assigned: dict[str, str]) -> dict[str, Any]:
    """The state after the command, each variable the prefix set back as it was before the line."""
    env, variables = dict(after.get("env") or {}), dict(after.get("vars") or {})
    for name in assigned:
        for now, then in ((env, before.get("env") or {}), (variables, before.get("vars") or {})):
            if name in then:
                now[name] = then[name]
            else:
                now.pop(name, None)
    return {**after, "env": env, "vars": variables}
