"""How bash reads a line, as far as the state follows it: simple commands joined by `&&` and `;`
(`_split`), a here-document (`heredoc`), the tildes it expands (`_tildes`), what it would expand
beside the variables the state knows (`_expansions`), and what `echo` and `printf` print
(`_echo_text`); backquotes, read as `$(…)` (`backquoted`)."""

from __future__ import annotations

import re
import shlex

from pydantic import BaseModel

from .state import TerminalState, _Unknown
from .variables import _expand, _outside_single_quotes, _splits
from .output import shell_words


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


def backquoted(command: str) -> str:
    """The line with each `…` written `$(…)`, which bash reads the same where nothing in it is escaped or
    nested (`echo `ls | wc -l``, `X=`pwd``); the line as typed where one is not read so here (what sees a
    backquote then leaves the line to the model)."""
    if "`" not in command or "<<" in command or "$'" in command:
        return command  # (a here-document's text; `$'…'`, whose backslashes are read otherwise)
    out, quote, i, at = [], "", 0, 0
    while i < len(command):
        c = command[i]
        if quote == "'" or c == "'" and not quote:
            quote = "" if quote else c
        elif c == "\\":
            i += 1
        elif c == '"':
            quote = "" if quote else c
        elif c == "`":
            end = command.find("`", i + 1)
            body = command[i + 1:end]
            if end < 0 or not body.strip() or any(x in body for x in "\\()") or quote and '"' in body or \
                    not _balanced(body):
                return command
            out += [command[at:i], "$(", body, ")"]
            i, at = end, end + 1
        i += 1
    return "".join(out) + command[at:]


def _balanced(text: str) -> bool:
    try:
        shlex.split(text)
    except ValueError:
        return False
    return True


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


def heredoc_then(command: str) -> tuple[str, str] | None:
    """A here-document's command with more commands on the lines after its delimiter (`cat > f.py
    <<'EOF'` … `EOF`, then `python3 f.py`): the two parts, the first a command `heredoc` reads;
    None for anything else."""
    first, _, rest = command.partition("\n")
    found = list(_HEREDOC.finditer(first))
    if len(found) != 1 or "<<<" in first or not rest:
        return None
    m = found[0]
    if "$(" in first[:m.start()]:
        return None  # (`git commit -m "$(cat <<'EOF'`: the here-document feeds a substitution, not the line)
    delimiter = m.group(2) or m.group(3) or m.group(4)
    lines = command.split("\n")
    for n, line in enumerate(lines[1:], 1):
        if (line.lstrip("\t") if m.group(1) == "-" else line) == delimiter:
            after = "\n".join(lines[n + 1:]).strip("\n")
            return ("\n".join(lines[:n + 1]), after) if after.strip() else None
    return None


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


def home_expanded(command: str, home: str) -> str:
    """The line with each tilde bash expands to the home written as the home (`find ~/app`, `grep -rn
    x ~`: unquoted, a word's first character, before `/` or the word's end); another (`~user`, `a~`,
    a quoted one) as it is."""
    out, quote, before = [], "", " "
    for i, c in enumerate(command):
        if quote:
            quote = "" if c == quote else quote
        elif c in "'\"":
            quote = c
        elif c == "~" and before in " \t|" and command[i + 1:i + 2] in ("/", " ", "\t", "", "|"):
            out.append(home)
            before = c
            continue
        out.append(c)
        before = c
    return "".join(out)


PRINTF_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", '"': '"', "'": "'", "a": "\a", "b": "\b",
                  "f": "\f", "v": "\v"}


_CONVERSION = re.compile(r"%(-?)(0?)(\d{0,4})([sdi%])")
_DECIMAL = re.compile(r"-?(?:[1-9]\d{0,17}|0)")


def _printf(fmt: str, args: list[str]) -> str | None:
    """bash's `printf FORMAT ARGS…`: the format's escapes, and its `%s`, `%d` (`-`, `0` and a width),
    applied to the arguments and again to those left (none left: "" and 0); None where it uses
    anything else (`%b`, `%x`, a precision, an argument to %d that is not a plain decimal)."""
    pieces: list[tuple[str, str, str, str] | str] = []  # text, or a conversion (flag, zero, width, letter)
    i = 0
    while i < len(fmt):
        if fmt[i] == "%":
            m = _CONVERSION.match(fmt, i)
            if m is None:
                return None
            if m.group(4) == "%" and m.group(0) != "%%":
                return None  # (`%5%`)
            pieces.append("%" if m.group(4) == "%" else m.groups())  # type: ignore[arg-type]
            i = m.end()
        elif fmt[i] == "\\":
            if fmt[i + 1:i + 2] not in PRINTF_ESCAPES:
                return None
            pieces.append(PRINTF_ESCAPES[fmt[i + 1]])
            i += 2
        else:
            pieces.append(fmt[i])
            i += 1
    takes = sum(1 for p in pieces if isinstance(p, tuple))
    out, left = [], list(args)
    while True:
        for p in pieces:
            if isinstance(p, str):
                out.append(p)
                continue
            dash, zero, width, letter = p
            value = left.pop(0) if left else ("" if letter == "s" else "0")
            if letter in "di":
                if not _DECIMAL.fullmatch(value):
                    return None  # (bash's own reading: octal, hex, 'c, and its complaint)
                out.append(format(int(value), ("<" if dash else "0" if zero else ">") + (width or "0") + "d"))
            elif zero:
                return None  # (`%05s`: not written here)
            else:
                out.append(value.ljust(int(width or 0)) if dash else value.rjust(int(width or 0)))
        if not left or not takes:  # (each round takes an argument: it ends)
            return "".join(out)


def _echo_text(args: list[str], printf: bool) -> str | None:
    """What bash's `echo ARGS` (no escapes read: bash's default) or `printf FORMAT` prints; None
    where it is not worked out here (`echo -e` of a backslash, a printf conversion or argument, an
    escape other than \\n \\t \\r \\\\ \\" \\' \\a \\b \\f \\v)."""
    if printf:
        return _printf(args[0], args[1:]) if args and "\0" not in "".join(args) else None
    letters = ""
    while args and re.fullmatch(r"-[neE]+", args[0]):
        letters, args = letters + args[0][1:], args[1:]
    if "e" in letters and any("\\" in a for a in args):
        return None
    return " ".join(args) + ("" if "n" in letters else "\n")


_BRACED = re.compile(r"\$\{[^}'\"\s\\$`]+\}")


def _expansions(command: str, s: TerminalState) -> set[str] | None:
    """What the shell would expand in `command` beside the variables the state knows: outside quotes
    a pattern ("glob"), braces ("brace"), a tilde starting a word ("tilde"), a backslash
    ("backslash"); `$` within single quotes where a `$` outside them has the words expanded, which
    have lost their quotes ("quoted $"); a variable the state does not know (`$X`, `${X%.py}`), or
    `$$`, `$?` ("variable"); `${…}` is no pattern or braces of the line's own. In the word
    a `>` writes to, each kind is named "target …". None: the line is not simple commands."""
    parts = _split(command)
    if parts is None:
        return None
    kinds: set[str] = set()
    quote, before, target = "", " ", 0  # (target: 1 after a `>`, 2 inside the word it writes to)
    escaped, skip = False, 0
    for i, c in enumerate(command):
        if escaped:  # (`\"` and `\\` in double quotes: the character itself, as shlex reads it too)
            escaped = False
            continue
        if i < skip:
            continue
        if c == "$" and quote != "'" and (braced := _BRACED.match(command, i)):
            skip = braced.end()  # (`${F%.*}`: no pattern or braces of the line's; the words' `_expand` reads it)
            before = "}"
            continue
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
            if c == "\\" and command[i + 1:i + 2] in ("$", "`", "\n", ""):
                kinds.add(mark + "backslash")  # (bash takes it off there, shlex keeps it)
                if command[i + 1:i + 2] == "$":
                    kinds.add(mark + "variable")  # (`"\$X"`: a `$` of the word's own, which the words lose)
            escaped = c == "\\"
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
            kinds.add(mark + "backslash" if command[i + 1:i + 2] != "$" else mark + "variable")  # (`\$X`: literal)
        elif c == "~" and before in " \t=:>":
            kinds.add(mark + "tilde")
        elif c == "$" and command[i + 1:i + 2] in ("'", '"'):
            kinds.add(mark + "variable")  # ($'…' and $"…": bash's own quoting, read otherwise here)
        before = c
    quoted_only = "$" not in (_outside_single_quotes(command) or "$")  # (nothing there for bash to expand)
    for words in ([] if quoted_only else parts):
        for i, w in enumerate(words):
            try:
                _expand(w, s, strict=True)
            except _Unknown:
                kinds.add("target variable" if i and words[i - 1] in (">", ">>") else "variable")
    if "$(" in command or "`" in command or not quoted_only and _splits(command, s):
        kinds.add("variable")  # (a command's output, or arithmetic, or a value bash splits: not worked out here)
    if quoted_only:  # (bash expands nothing: the words, quotes lost, are as written, `$` and all; _expand_words)
        kinds -= QUOTED_DOLLAR
    return kinds


QUOTED_DOLLAR = {"quoted $", "target quoted $"}


PATH_EXPANSIONS = {"tilde", "backslash", "target tilde", "target backslash"}  # (`_abs` reads ~; shlex, \\ )
