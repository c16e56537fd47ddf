"""What a terminal prints, read back: the output without echoed prompt lines, the exit code a real
shell would give (read from the output by rules), and the cwd after `cd`."""

from __future__ import annotations

import re
import shlex

from mcp_world.rules import Call, FormatError, Parsed, refuse_repetition, exit_code_for, sounds_like_commentary


def shell_words(command: str) -> list[str] | None:
    """A command line as bash splits it into words and operators (`&&`, `;`, `|`, `>`, `>>`…);
    None when it does not parse (an open quote)."""
    try:
        lexer = shlex.shlex(_uncommented(command), posix=True, punctuation_chars=";&|<>()")
        lexer.commenters = ""  # (shlex would start a comment at any #: `$#`, `a#b`, a URL's #part)
        lexer.whitespace_split = True
        return list(lexer)
    except ValueError:
        return None


def _uncommented(command: str) -> str:
    """The line without its comment: bash starts one at an unquoted # that begins a word."""
    quote, escaped = "", False
    for i, c in enumerate(command):
        if escaped:
            escaped = False
        elif c == "\\" and quote != "'":
            escaped = True
        elif quote:
            quote = "" if c == quote else quote
        elif c in "'\"":
            quote = c
        elif c == "#" and (i == 0 or command[i - 1] in " \t\n;&|()<>"):
            return command[:i]
    return command


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
    for w in words:
        if w in ("&&", ";", "||", "|", "&"):
            segments.append([])
        else:
            segments[-1].append(w)
    for seg in segments:
        if seg and seg[0] == "cd":
            target = seg[1] if len(seg) > 1 else home
            if target == "-":
                continue
            if any(c in target for c in "$`*?[{\\"):
                return cwd  # (an expansion, a pattern: where it leads is not read from the text)
            target = target.replace("~", home, 1) if target.startswith("~") else target
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
