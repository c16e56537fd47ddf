"""A command line's lists, found in the text as written (quotes kept): the commands joined by `&&`,
`||` and `;` at its top level, each of which may be a pipeline. The shell state answers and follows
a list command by command (shell.py).
"""

from __future__ import annotations

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
