"""A command line's lists, found in the text as written (quotes kept): the commands joined by `&&`,
`||` and `;` at its top level, each of which may be a pipeline. The shell state answers and follows
a list command by command (shell.py).
"""

from __future__ import annotations

import re
from typing import NamedTuple

from .missing import what_is_at
from .output import shell_words
from .state import _PLAIN, TerminalState, _abs
from .substitution import closing

MAX_COMMANDS = 64  # a longer list is not run command by command here (each is answered on the state before it)


def commands(command: str, substitutions: bool = False) -> list[tuple[str, str]] | None:
    """The commands of a list at the line's top level, each as written with the operator before it
    ("" for the first; `&&`, `||`, `;`). None where anything else joins them or hides in them (`&`, a
    subshell, a here-document, a newline outside quotes, an open quote, more than MAX_COMMANDS, and
    unless `substitutions`, a `$(…)`, which is then kept whole in its command). A command may be a pipeline."""
    if "`" in command or "$(" in command and not substitutions:
        return None
    out: list[tuple[str, str]] = []
    op, start, i, quote = "", 0, 0, ""
    while i < len(command):
        c = command[i]
        if quote:
            if c == quote:
                quote = ""
            elif c == "\\" and quote == '"':
                i += 1
            elif quote == '"' and command.startswith("$(", i):
                end = closing(command, i + 2)
                if end is None:
                    return None
                i = end
        elif c in "'\"":
            quote = c
        elif c == "\\":
            i += 1
        elif command.startswith("$(", i):
            end = closing(command, i + 2)
            if end is None:
                return None
            i = end
        elif command.startswith(("&&", "||"), i) or c == ";":
            out.append((op, command[start:i].strip()))
            op = command[i:i + (1 if c == ";" else 2)]
            start = i + len(op)
            i = start - 1
        elif c in "&()\n" or command.startswith("<<", i):  # (a newline in quotes is the text's)
            return None
        i += 1
    out.append((op, command[start:].strip()))
    if quote or not all(text for _, text in out) or len(out) > MAX_COMMANDS:
        return None
    return out


def segments(command: str) -> list[str] | None:
    """The commands of a line joined by `&&` alone (None where another operator joins them)."""
    listed = commands(command)
    return None if listed is None or any(op not in ("", "&&") for op, _ in listed) else [t for _, t in listed]


_KEYWORDS = frozenset({"if", "then", "else", "elif", "fi", "for", "while", "until", "do", "done", "case", "esac",
                       "{", "}", "function", "select"})


def conditional(command: str) -> tuple[list[tuple[str, str]], list[tuple[str, str]], list[tuple[str, str]]] | None:
    """`if LIST; then LIST; [else LIST;] fi`, the line's one command: its test, its body and what runs
    otherwise ([] for none), each a list as `commands` gives it. None for anything else (`elif`,
    anything nested, anything after `fi`)."""
    listed = commands(command, substitutions=True)
    if not listed or listed[-1] != (";", "fi"):
        return None
    parts: dict[str, list[tuple[str, str]]] = {"if": [], "then": [], "else": []}
    at = ""
    for op, text in listed[:-1]:
        word, _, rest = text.partition(" ")
        if word in ("if", "then", "else"):
            if (at, word) not in (("", "if"), ("if", "then"), ("then", "else")) or at and op != ";" or not rest.strip():
                return None
            at = word
            parts[at].append(("", rest.strip()))
        elif word in _KEYWORDS or not at or "\t" in word:
            return None
        else:
            parts[at].append((op, text))
    return (parts["if"], parts["then"], parts["else"]) if at in ("then", "else") else None


_FOR = re.compile(r"for[ \t]+([A-Za-z_]\w*)[ \t]+in(?:[ \t]+(.*))?", re.S)


def loop(command: str) -> tuple[str, str, list[tuple[str, str]]] | None:
    """`for NAME in WORDS; do LIST; done`, the line's one command: the name, the words as written,
    and the body, a list as `commands` gives it. None for anything else (a loop in the body, `break`,
    anything after `done`, `for NAME` alone)."""
    listed = commands(command, substitutions=True)
    if not listed or len(listed) < 3 or listed[-1] != (";", "done") or listed[1][0] != ";":
        return None
    head = _FOR.fullmatch(listed[0][1])
    word, _, rest = listed[1][1].partition(" ")
    if head is None or word != "do" or not rest.strip():
        return None
    body = [("", rest.strip()), *listed[2:-1]]
    if any(text.partition(" ")[0] in _KEYWORDS | {"break", "continue", "return", "exit"} for _, text in body):
        return None
    return head.group(1), head.group(2) or "", body


_READ = re.compile(r"while[ \t]+(IFS=[ \t]+)?read[ \t]+(-r[ \t]+)?([A-Za-z_]\w*)")
_DONE = re.compile(r"done(?:[ \t]*<[ \t]*([A-Za-z0-9._/-]+))?")


class Reading(NamedTuple):
    """`[SOURCE |] while [IFS=] read [-r] NAME; do LIST; done [< FILE]`."""
    source: str  # the pipeline before `|` ("" where none)
    file: str  # the file after `<` ("" where none)
    name: str
    whole: bool  # `IFS=`: each line as it is (else its blanks at either end taken off)
    raw: bool  # `-r`: a backslash is itself (else bash reads it as an escape: not followed here)
    body: list[tuple[str, str]]


def reading(command: str) -> Reading | None:
    """A `while read` loop over a file's or a pipeline's lines, the line's one command; None for
    anything else (a source and a file both, a loop in the body, `break`, anything after `done`)."""
    listed = commands(command, substitutions=True)
    if not listed or len(listed) < 3 or listed[1][0] != ";" or listed[-1][0] != ";":
        return None
    source, piped, loop_head = listed[0][1].rpartition("|")  # (the loop's own words hold no `|`)
    head, done = _READ.fullmatch(loop_head.strip()), _DONE.fullmatch(listed[-1][1])
    word, _, rest = listed[1][1].partition(" ")
    if head is None or done is None or word != "do" or not rest.strip() or piped and (done.group(1) or
                                                                                       not source.strip()):
        return None
    body = [("", rest.strip()), *listed[2:-1]]
    if any(text.partition(" ")[0] in _KEYWORDS | {"break", "continue", "return", "exit"} for _, text in body):
        return None
    return Reading(source.strip(), done.group(1) or "", head.group(3), bool(head.group(1)), bool(head.group(2)), body)


def cds_first(s: TerminalState, listed: list[tuple[str, str]]) -> str:
    """Where a list that failed left the shell, where it starts with `cd`s into folders the state
    knows (which succeed) and no other `cd` follows (`cd /tmp && git commit` failing in /tmp)."""
    s = s.model_copy()
    start = s.cwd
    for n, (op, text) in enumerate(listed):
        words = shell_words(text) or []
        if words[:1] != ["cd"]:
            rest = " ".join(t for _, t in listed[n:])
            return s.cwd if n and op in ("&&", ";") and not re.search(r"(^|[\s;&|(])(cd|pushd|popd)\b", rest) else start
        if op == "||" or len(words) != 2 or not _PLAIN.fullmatch(words[1]) or what_is_at(words[1], s) != "dir":
            return start
        s.cwd = _abs(words[1], s)
    return start  # (only `cd`s, into folders that are there, and it failed: not as the state says)
