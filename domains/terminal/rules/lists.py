"""A command line's lists, found in the text as written (quotes kept): the commands joined by `&&`,
`||` and `;` at its top level, each of which may be a pipeline. The shell state answers and follows
a list command by command (shell.py).
"""

from __future__ import annotations

import re
from typing import NamedTuple

from .line import _expansions, _split
from .missing import what_is_at
from .output import _uncommented, joined, separators, shell_words
from .state import _PLAIN, TerminalState, _abs
from .substitution import closing

MAX_COMMANDS = 64  # a longer list is not run command by command here (each is answered on the state before it)


def commands(command: str, substitutions: bool = False, grouped: bool = True) -> list[tuple[str, str]] | None:
    """The commands of a list at the line's top level, each as written with the operator before it
    ("" for the first; `&&`, `||`, `;`). None where anything else joins them or hides in them (`&`, a
    subshell, a here-document, a newline outside quotes, an open quote, more than MAX_COMMANDS, and
    unless `substitutions`, a `$(…)`, which is then kept whole in its command). A command may be a pipeline.
    A newline that ends a command (output.separators) joins it to the next as `;` does, named "\\n".
    `grouped`: an `if … fi`, `for … done` or `while … done` is one command of the list (`group`)."""
    if "`" in command or "$(" in command and not substitutions:
        return None
    command = joined(_uncommented(command))
    ends = set(separators(command)) if "\n" in command and "<<" not in command else set()
    out: list[tuple[str, str]] = []
    op, start, i, quote, tested = "", 0, 0, "", False
    while i < len(command):
        c = command[i]
        if not quote and _TEST_WORD.match(command, i) and (i == 0 or command[i - 1] in " \t\n;&|(!"):
            tested = command[i] == "["  # (`[[ a && b ]]`: its `&&`, `||` and parentheses are its own)
            i += 2
            continue
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
        elif tested and c in "&|()<>":
            i += 1 + command.startswith(("&&", "||"), i)
            continue
        elif command.startswith(("&&", "||"), i) or c == ";" or i in ends:
            out.append((op, command[start:i].strip()))
            op = command[i:i + (1 if c in ";\n" else 2)]
            start = i + len(op)
            i = start - 1
        elif c == "&" and (command[i - 1:i] == ">" or command.startswith(">", i + 1)):
            pass  # (`2>&1`, `&>/dev/null`: a redirection's, not a command's end)
        elif c in "&()" or command.startswith("<<", i) or c == "\n" and "<<" in command:
            return None  # (a newline in quotes is the text's; one after `&&`, `do`…, a blank)
        i += 1
    out.append((op, command[start:].strip()))
    if len(out) > 1 and out[-1] == ("\n", ""):
        out.pop()  # (the line's last newline)
    if quote or not all(text for _, text in out) or len(out) > MAX_COMMANDS:
        return None
    return group(out) if grouped else out


_TEST_WORD = re.compile(r"(?:\[\[|\]\])(?=[\s;&|)]|$)")  # (`[[` and `]]` as words: a test's bounds)
_OPENERS = frozenset({"if", "for", "while", "until", "case", "select"})
_CLOSERS = frozenset({"fi", "done", "esac"})
_SEPARATOR = {";": "; ", "\n": "\n", "&&": " && ", "||": " || "}


def expansions_each(command: str, parts: list[list[str]], s: TerminalState) -> list[set[str] | None] | None:
    """What the shell expands in each of `parts` (the simple commands `_split` reads in `command`),
    each read in its own text: `pytest; echo $?` expands nothing in pytest's words. None where the
    texts of the commands are not those parts."""
    listed = commands(command)
    if not listed or len(listed) != len(parts) or any(op not in ("", "&&", ";") for op, _ in listed) or \
            [_split(text) for _, text in listed] != [[p] for p in parts]:
        return None
    return [_expansions(text, s) for _, text in listed]


def _depth(text: str) -> int:
    """What a command of a list does to the nesting of compound commands: +1 where it opens one
    (`for f in *`, `then if x`), -1 where it closes one (`done`, `fi > log`), else 0."""
    words = text.split()
    while words and words[0] in ("do", "then", "else", "!"):
        words = words[1:]
    if words and words[0] in _OPENERS:
        return 1
    if words and words[0] in _CLOSERS:
        return -1
    return 1 if "|" in text and text.rpartition("|")[2].split()[:1] in (["while"], ["until"]) else 0  # (`ls | while`)


def group(listed: list[tuple[str, str]]) -> list[tuple[str, str]] | None:
    """The list with each compound command, from the command that opens it to the one that closes
    it, written back as one command (`if [ -d x ]; then cd x; fi` in `…; fi; pwd`); None where one is
    not closed, or is closed without being opened."""
    out: list[tuple[str, str]] = []
    depth = 0
    for op, text in listed:
        if depth:
            out[-1] = (out[-1][0], out[-1][1] + _SEPARATOR[op] + text)
        else:
            out.append((op, text))
        depth += _depth(text)
        if depth < 0:
            return None
    return out if depth == 0 else None


def segments(command: str) -> list[str] | None:
    """The commands of a line joined by `&&` alone (None where another operator joins them); a
    `$(…)` is kept whole in its command."""
    listed = commands(command, substitutions=True)
    return None if listed is None or any(op not in ("", "&&") for op, _ in listed) else [t for _, t in listed]


Clause = tuple[list[tuple[str, str]], list[tuple[str, str]]]  # (a test, the body it runs)


def conditional(command: str) -> tuple[list[Clause], list[tuple[str, str]]] | None:
    """`if LIST; then LIST; [elif LIST; then LIST;]… [else LIST;] fi`, the line's one command: its
    tests, each with its body, and what runs otherwise ([] for none), each a list as `commands` gives
    it (compound commands in it grouped). None for anything else (anything after `fi`)."""
    listed = commands(command, substitutions=True, grouped=False)
    if not listed or listed[-1] not in ((";", "fi"), ("\n", "fi")):
        return None
    parts: list[tuple[str, list[tuple[str, str]]]] = []  # (keyword, its list), in order
    at, depth = "", 0
    for op, text in listed[:-1]:
        word, rest = (text.split(None, 1) + [""])[:2]
        if depth == 0 and word in ("if", "then", "else", "elif"):
            if (at, word) not in _NEXT or at and op not in (";", "\n") or not rest.strip():
                return None
            at = word
            parts.append((at, [("", rest.strip())]))
            depth += _depth(rest)
        elif not at:
            return None
        else:
            parts[-1][1].append((op, text))
            depth += _depth(text)
        if depth < 0:
            return None
    grouped = [group(listed) for _, listed in parts]
    if at not in ("then", "else") or depth or any(g is None or _stray(g) for g in grouped):
        return None
    otherwise = grouped.pop() if at == "else" else []
    return [(grouped[i], grouped[i + 1]) for i in range(0, len(grouped), 2)], otherwise  # type: ignore[misc]


# Which keyword may follow which in an `if` (`""`: the line's start)
_NEXT = frozenset({("", "if"), ("if", "then"), ("then", "elif"), ("elif", "then"), ("then", "else")})


_STRAY = frozenset({"then", "else", "elif", "fi", "do", "done", "esac", "{", "}", "function", "select", "case",
                    "break", "continue", "return", "exit"})


def _stray(listed: list[tuple[str, str]]) -> bool:
    """A body that holds what is not run here: a keyword out of place, a `case`, `break`, `exit`…"""
    return any((text.split() or [""])[0] in _STRAY for _, text in listed)


def _body(listed: list[tuple[str, str]]) -> list[tuple[str, str]] | None:
    """`do LIST; done`'s list (the commands after a loop's head, `done` last), compound commands in
    it grouped; None where it is not one, or holds what is not run here."""
    if len(listed) < 2 or listed[-1][1] != "done" and not _DONE.fullmatch(listed[-1][1]) or \
            listed[-1][0] not in (";", "\n") or listed[0][0] not in (";", "\n"):
        return None
    word, rest = (listed[0][1].split(None, 1) + [""])[:2]
    if word != "do" or not rest.strip():
        return None
    body = group([("", rest.strip()), *listed[1:-1]])
    return None if body is None or _stray(body) else body


_FOR = re.compile(r"for[ \t]+([A-Za-z_]\w*)[ \t]+in(?:[ \t]+(.*))?", re.S)


def loop(command: str) -> tuple[str, str, list[tuple[str, str]]] | None:
    """`for NAME in WORDS; do LIST; done`, the line's one command: the name, the words as written,
    and the body, a list as `commands` gives it. None for anything else (`break`, anything after
    `done`, `for NAME` alone)."""
    listed = commands(command, substitutions=True, grouped=False)
    head = _FOR.fullmatch(listed[0][1]) if listed else None
    body = _body(listed[1:]) if listed and listed[-1][1] == "done" else None
    return None if head is None or body is None else (head.group(1), head.group(2) or "", body)


def repeating(command: str) -> tuple[bool, list[tuple[str, str]], list[tuple[str, str]]] | None:
    """`while LIST; do LIST; done` (or `until`), the line's one command: whether it is `until`, the test
    and the body, each a list as `commands` gives it (compound commands in it grouped). None for anything
    else (anything after `done`, a `break` in it)."""
    listed = commands(command, substitutions=True, grouped=False)
    word, rest = ((listed[0][1].split(None, 1) + [""])[:2]) if listed else ("", "")
    if word not in ("while", "until") or not rest.strip():
        return None
    depth = _depth(rest)
    for k, (op, text) in enumerate(listed[1:], 1):
        if depth == 0 and (text.split() or [""])[0] == "do":
            test, body = group([("", rest.strip()), *listed[1:k]]), _body(listed[k:])
            return None if test is None or body is None or _stray(test) else (word == "until", test, body)
        depth += _depth(text)
    return None


def piped(command: str) -> tuple[str, str] | None:
    """`COMPOUND | PIPELINE`, the line's one command, a loop or an `if` whose output is piped on (`for f
    in *.py; do wc -l $f; done | sort -n`): the compound as written, and the pipeline after it; None for
    anything else."""
    listed = commands(command, substitutions=True, grouped=False)
    if not listed or (listed[0][1].split()[:1] or [""])[0] not in ("for", "while", "if") and "|" not in listed[0][1]:
        return None
    closer, bar, rest = listed[-1][1].partition("|")
    whole = command.rstrip()
    if not bar or closer.strip() not in ("done", "fi") or not rest.strip() or rest.startswith(("|", "&")) or \
            not whole.endswith(listed[-1][1]) or len(group(listed[:-1] + [(listed[-1][0], closer.strip())]) or []) != 1:
        return None
    return whole[:len(whole) - len(listed[-1][1])] + closer.strip(), rest.strip()


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
    anything else (a source and a file both, `break`, anything after `done`)."""
    listed = commands(command, substitutions=True, grouped=False)
    if not listed:
        return None
    source, piped, loop_head = listed[0][1].rpartition("|")  # (the loop's own words hold no `|`)
    head, done, body = _READ.fullmatch(loop_head.strip()), _DONE.fullmatch(listed[-1][1]), _body(listed[1:])
    if head is None or done is None or body is None or piped and (done.group(1) or not source.strip()):
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
            return s.cwd if n and op in ("&&", ";", "\n") and not re.search(r"(^|[\s;&|(])(cd|pushd|popd)\b", rest) \
                else start
        if op == "||" or len(words) != 2 or not _PLAIN.fullmatch(words[1]) or what_is_at(words[1], s) != "dir":
            return start
        s.cwd = _abs(words[1], s)
    return start  # (only `cd`s, into folders that are there, and it failed: not as the state says)
