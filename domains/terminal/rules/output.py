"""What a terminal prints, read back: the output without echoed prompt lines, the exit code a real
shell would give (read from the output by rules), and the cwd after `cd`."""

from __future__ import annotations

import re
import shlex

from mcp_world.rules import Call, FormatError, Parsed, refuse_repetition, exit_code_for, sounds_like_commentary


def shell_words(command: str) -> list[str] | None:
    """A command line as bash splits it into words and operators (`&&`, `;`, `|`, `>`, `>>`…), a
    newline that ends a command read as `;` (`separators`); None when it does not parse (an open quote)."""
    command = _uncommented(command)
    if "\n" in command and "<<" not in command:  # (a here-document's lines are its text: heredoc())
        command = joined(command)
        ends = set(separators(command))
        command = "".join(" ; " if i in ends else c for i, c in enumerate(command))
    try:
        lexer = shlex.shlex(command, posix=True, punctuation_chars=";&|<>()")
        lexer.commenters = ""  # (shlex would start a comment at any #: `$#`, `a#b`, a URL's #part)
        lexer.whitespace_split = True
        return list(lexer)
    except ValueError:
        return None


def _scanned(command: str):
    """Each character of the line (index, character, kind) as bash reads it: "code" (outside quotes,
    not escaped), "quoted" (a quote, what quotes hold, an escaped character), "escape" (the backslash
    before one, outside single quotes), "comment" (from an unquoted # that begins a word to the line's end)."""
    quote, escaped, comment = "", False, False
    for i, c in enumerate(command):
        if comment and c != "\n":
            yield i, c, "comment"
            continue
        comment = False
        if escaped:
            escaped = False
            yield i, c, "quoted"
        elif c == "\\" and quote != "'":
            escaped = True
            yield i, c, "escape"
        elif quote or c in "'\"":
            quote = c if not quote else "" if c == quote else quote
            yield i, c, "quoted"
        elif c == "#" and (i == 0 or command[i - 1] in " \t\n;&|()<>"):
            comment = True
            yield i, c, "comment"
        else:
            yield i, c, "code"


_PLAIN_DOUBLE = re.compile(r'(?:[^"\\$`\'!]|\\[^$`"\\\n])*')  # (what a double-quoted word bash reads as written holds)


def single_quoted(command: str) -> str:
    """The line with each double-quoted word bash reads as it is written — no `$`, backquote, `!`
    or single quote in it, no backslash bash takes off (before `$`, a backquote, `"`, a backslash
    or a newline) — written in single quotes instead: the same words (`tr " " "\\n"` is `tr ' '
    '\\n'`), so what reads single-quoted text alone reads these too."""
    if '"' not in command:
        return command
    out, i, start = [], 0, 0
    while i < len(command):
        c = command[i]
        if c == "\\":
            i += 2
        elif c == "'":
            end = command.find("'", i + 1)
            if end < 0:
                return command
            i = end + 1
        elif c == '"':
            m = _PLAIN_DOUBLE.match(command, i + 1)
            end = m.end() if m else i + 1
            if end < len(command) and command[end] == '"':
                out += [command[start:i], "'" + command[i + 1:end] + "'"]
                start = i = end + 1
            else:
                return command  # (a word bash reads its own way: `"$x"`, `"it's"`…)
        else:
            i += 1
    return "".join(out) + command[start:]


def _uncommented(command: str) -> str:
    """The line without its comments (they end at the line's end)."""
    return "".join(c for _, c, kind in _scanned(command) if kind != "comment") if "#" in command else command


def joined(command: str) -> str:
    """The line with each backslash before a newline taken off with it (outside single quotes): bash
    reads the two lines as one."""
    if "\\\n" not in command:
        return command
    gone = {n for i, c, kind in _scanned(command) if kind == "escape" and command[i + 1:i + 2] == "\n" for n in (i, i + 1)}
    return "".join(c for i, c in enumerate(command) if i not in gone)


def one_line(command: str) -> str:
    """A command of one line whose newlines outside quotes only space its words (after `|`, `&&`,
    or its last): each a blank."""
    return "".join(" " if c == "\n" and kind == "code" else c for _, c, kind in _scanned(command)).rstrip(" ")


_CONTINUED = ("&&", "||", "|", ";", "do", "then", "else", "{", "(", "!", "in")  # (a newline after them is a blank)


def separators(command: str) -> list[int]:
    """Where a newline ends a command (bash reads it as `;`): outside quotes, not escaped (a line
    continued), and not after an operator or a word that leaves the command open (`&&`, `|`, `do`,
    `then`…), nor at the line's start or after another. (The line without its comments: `_uncommented`.)"""
    found: list[int] = []
    since = False  # (code since the last end)
    for i, c, kind in _scanned(command):
        if c == "\n" and kind == "code":
            tail = command[max(0, i - 16):i].rstrip(" \t\n")  # (enough to end with an operator or a keyword)
            last = tail.split()[-1] if tail.split() else ""
            if since and not tail.endswith(("&&", "||", "|", ";", "(", "{")) and last not in _CONTINUED:
                found.append(i)
                since = False
        elif c not in " \t\n" and kind != "comment":
            since = True
    return found


def tilde(path: str, home: str) -> str:
    """`path` with a leading `~` read as bash reads it: `~` and `~USER` (the machine's one user) the home,
    `~root` /root; a user the machine lacks leaves the name as typed."""
    if not path.startswith("~"):
        return path
    user, slash, rest = path[1:].partition("/")
    found = home if user in ("", home.rstrip("/").rpartition("/")[2]) else "/root" if user == "root" else None
    return path if found is None else found + slash + rest


_ASSIGNS = re.compile(r"[A-Za-z_]\w*=")


def next_cwd(command: str, cwd: str, home: str, exit_code: int) -> str:
    """Follow `cd` in a command line (`cd x`, `cd x && ...`, `cd`), so structured `cwd` stays right."""
    if exit_code != 0:
        return cwd
    if "<<" in command:
        command = command.partition("\n")[0]  # (a here-document's lines are its text, not commands)
    words = shell_words(command)
    if words is None:
        return cwd
    segments: list[list[str]] = [[]]
    piped: set[int] = set()  # (a command of a pipe runs in a subshell: its `cd` moves no shell)
    for w in words:
        if w in ("&&", ";", "||", "|", "&"):
            if w in ("|", "&"):
                piped |= {len(segments) - 1, len(segments)}
            segments.append([])
        else:
            segments[-1].append(w)
    for n, seg in enumerate(segments):
        while seg and _ASSIGNS.match(seg[0]) and len(seg) > 1:
            seg = seg[1:]  # (`X=1 cd src`: bash's cd, the variable in its environment alone)
        if seg and seg[0] == "cd" and n not in piped:
            target = seg[1] if len(seg) > 1 else home
            if target == "-":
                continue
            if any(c in target for c in "$`*?[{\\"):
                return cwd  # (an expansion, a pattern: where it leads is not read from the text)
            target = tilde(target, home)
            path = target if target.startswith("/") else f"{cwd.rstrip('/')}/{target}"
            parts: list[str] = []
            for p in path.split("/"):
                if p in ("", "."):
                    continue
                if p == "..":
                    if parts:
                        parts.pop()
                else:
                    parts.append(p)
            cwd = "/" + "/".join(parts)
    return cwd


def parse(raw: str, call: Call) -> Parsed:
    text = raw.replace("\r\n", "\n")
    fence = re.fullmatch(r"\s*```[a-z]*\n(.*?)\n?```\s*", text, re.S)
    if fence:
        text = fence.group(1) + "\n"
    command = str(call.arguments.get("command", "")).strip()
    lines = text.split("\n")
    # An echoed prompt line ("$ ls", or a screen's "user@devbox:~/app$ ls") is not part of the output.
    if lines and command and re.fullmatch(r"\s*(?:\S+@[\w.-]+:[^\n]*?[$#] ?|[$#] )?" + re.escape(command) + r"\s*",
                                          lines[0]):
        lines = lines[1:]
    while lines and re.fullmatch(r"\s*(\S+@\S+[:~\w/]*)?[$#]\s*", lines[-1]):
        lines.pop()
    text = "\n".join(lines)
    if sounds_like_commentary(text):
        raise FormatError("the answer explains the command instead of showing its output")
    refuse_repetition(text, call)
    text = text.rstrip("\n")  # a leading blank line is output too (unittest, `echo; ls`)
    if text:
        text += "\n"
    code = exit_code_for(text)
    home = call.state.get("home", "/home/user")
    cwd = next_cwd(command, call.state.get("cwd", home), home, code)
    return Parsed(text, {"output": text, "exit_code": code, "cwd": cwd})
