"""Command substitution and arithmetic expansion, as bash does them, where the state knows the value:
`cd "$(dirname src/app.py)"`, `wc -l $(find . -name '*.py')`, `echo "on $(git branch --show-current)"`,
`echo $((3 * 4 + N))`.

`expand` finds each `$(…)` and `$((…))` of a line (`spans`), asks `inner` for what the command
inside prints (the shell's answer, where it only reads and succeeds: shell.py), and writes the value
back into the line as bash would: trailing newlines taken off, split into words outside double
quotes, kept whole inside them. The line that comes out is answered as if typed. Where a value is
not known, or bash would read it in a way not followed here (a pattern in an unquoted value,
backquotes, a here-document), nothing is expanded and the model answers.
"""

from __future__ import annotations

import ast
import re
import shlex
from dataclasses import dataclass
from typing import Any, Callable

from .line import heredoc
from .programs import _reads_only
from .state import TerminalState, _Unknown
from .variables import MAX_EXPANDED, _expand, assigns_itself

MAX_VALUE = 20_000  # characters one substitution may put into the line
MAX_SPANS = 8
MAX_NESTED = 16  # `$(` in one line
_INT64 = 1 << 64


@dataclass(frozen=True)
class Span:
    start: int  # the `$`
    end: int  # after the closing `)` (or `))`)
    body: str  # the command, or the arithmetic expression
    kind: str  # "command" (`$(…)`), "arithmetic" (`$((…))`), "status" (`$?`)
    context: str  # "double" (inside double quotes), "assignment" (in `NAME=…`: not split either), "plain"
    # (and "number": inside `$((…))`, where the value is read as a number)


def _quoting(c: str, quote: str) -> tuple[str, bool, bool]:
    """How bash reads `c` inside `quote` ("", "'" or '"'): the quote after it, whether it is read as
    itself (not a quote, nor a backslash), and whether it escapes the next character."""
    if quote == "'":
        return ("" if c == "'" else quote), False, False
    if c == "\\":
        return quote, False, True
    if c == '"' or c == "'" and not quote:
        return ("" if quote == c else c), False, False
    return quote, True, False


def spans(command: str) -> list[Span] | None:
    """Each top-level `$(…)`, `$((…))` and `$?` of the line, in order; None where the line has
    backquotes, an unclosed quote or parenthesis, or one that `case` patterns may close (not read here)."""
    if command.count("$(") > MAX_NESTED:
        return None
    found: list[Span] = []
    quote, i, word = "", 0, 0  # (word: where the word being read began)
    while i < len(command):
        c = command[i]
        if c == "`" and quote != "'":
            return None
        after, itself, escapes = _quoting(c, quote)
        if itself and not quote and c in " \t\n;&|()<>":
            word = i + 1
        elif itself and command.startswith("$?", i):
            found.append(Span(i, i + 2, "?", "status", "double" if quote == '"' else "plain"))
            i += 1
        elif itself and command.startswith("$(", i):
            arithmetic = command.startswith("$((", i)
            end = closing(command, i + 2)
            if end is None or (arithmetic and not command.startswith("))", end - 1)):
                return None
            body = command[i + 3:end - 1] if arithmetic else command[i + 2:end]
            if not arithmetic and re.search(r"\bcase\b", body):
                return None
            assigned = re.fullmatch(r"[A-Za-z_]\w*\+?=.*", command[word:i], re.S)
            context = "double" if quote == '"' else "assignment" if assigned else "plain"
            found.append(Span(i, end + 1, body, "arithmetic" if arithmetic else "command", context))
            i = end
        quote = after
        i += 2 if escapes else 1
    return None if quote or len(found) > MAX_SPANS else found


def closing(text: str, start: int, nested: int = 0) -> int | None:
    """The index of the `)` that closes the parenthesis opened just before `start` (None: none, or
    substitutions nested too deep to follow)."""
    if nested > MAX_NESTED:
        return None
    depth, quote, i = 1, "", start
    while i < len(text):
        c = text[i]
        if c == "`" and quote != "'":
            return None
        after, itself, escapes = _quoting(c, quote)
        if itself and not quote and c in "()":
            depth += 1 if c == "(" else -1
            if depth == 0:
                return i
        elif itself and quote == '"' and text.startswith("$(", i):
            end = closing(text, i + 2, nested + 1)
            if end is None:
                return None
            i = end
        quote = after
        i += 2 if escapes else 1
    return None


def expand(command: str, inner: Callable[[str], str | None], variable: Callable[[str], str | None],
           numbers: bool = False, status: int | None = None) -> str | None:
    """The line with each substitution replaced by its value (the line itself where it has none);
    None where a value is not known. `inner(CMD)` is what CMD prints (None: not known); `variable(NAME)`
    a variable's value (None: not known); `status` the last command's exit status (`$?`). `numbers`:
    the line is arithmetic, where a value must be one."""
    found = spans(command)
    if found is None:
        return None
    out, at = [], 0
    for span in found:
        if span.kind == "status":
            text = None if status is None else str(status)
        elif span.kind == "arithmetic":
            nested = "$(" in span.body or "$?" in span.body
            body = expand(span.body, inner, variable, True, status) if nested else span.body
            value = None if body is None else arithmetic(body, variable)
            text = None if value is None else str(value)
        else:
            printed = inner(span.body)
            text = None if printed is None or len(printed) > MAX_VALUE or "\0" in printed else \
                _written(printed.rstrip("\n"), "number" if numbers else span.context)
        if text is None:
            return None
        out += [command[at:span.start], text]
        at = span.end
    return "".join(out) + command[at:]


def _written(value: str, context: str) -> str | None:
    """The value as the line must hold it to be read as bash reads the substitution's output."""
    if context == "double":
        return value if not any(c in value for c in '\\"$`') else '"' + shlex.quote(value) + '"'
    if context == "assignment":
        return shlex.quote(value)  # (one word: a value assigned is neither split nor matched against files)
    if context == "number":
        return value.strip(" \t\n") if re.fullmatch(r"[ \t\n]*-?\d{1,18}[ \t\n]*", value) else None
    words = [w for w in re.split(r"[ \t\n]+", value) if w]  # (split as the default IFS splits)
    if any(c in w for w in words for c in "*?["):
        return None  # (each such word is a pattern the shell would match against the files)
    # (a blank at either end ends the word before, or starts the one after: `x$(…)y`)
    return (" " if value[:1] in (" ", "\t", "\n") else "") + " ".join(shlex.quote(w) for w in words) + \
        (" " if value[-1:] in (" ", "\t", "\n") else "")


_ARITH_TEXT = re.compile(r"[\w$ \t+\-*/%()<>=!]*")
_NUMBER = re.compile(r"\b\d\w*")  # (a word that starts with a digit: a decimal number, or refused)


def arithmetic(expression: str, variable: Callable[[str], str | None]) -> int | None:
    """bash's `$((…))` over 64-bit integers: + - * / % ** and parentheses, comparisons (1 or 0),
    unary minus, decimal numbers and variables holding them. None for anything else (octal `010`,
    `**` beside a unary minus, `--` and `++`, C's bitwise and logical operators), a variable
    not known, or what bash refuses (division by zero, a negative exponent)."""
    if not _ARITH_TEXT.fullmatch(expression) or len(expression) > 500 or "--" in expression or "++" in expression or \
            "**" in expression and re.search(r"(^|[^\w)\s])\s*-", expression):
        return None  # (`--` and `++`: bash's decrement and increment)
    if any(not n.isdigit() or n.startswith("0") and n != "0" or len(n) > 18 for n in _NUMBER.findall(expression)):
        return None  # (octal, hexadecimal, `1_000`, `1e3`, past 64 bits: not read here)
    try:
        tree = ast.parse(expression.replace("$", "").strip() or "0", mode="eval").body
    except (SyntaxError, ValueError, RecursionError):
        return None
    try:
        return _value(tree, variable, 0)
    except _Refused:
        return None


class _Refused(Exception):
    pass


def _wrap(n: int) -> int:
    n %= _INT64
    return n - _INT64 if n >= 1 << 63 else n


_COMPARED = {ast.Lt: int.__lt__, ast.LtE: int.__le__, ast.Gt: int.__gt__, ast.GtE: int.__ge__, ast.Eq: int.__eq__,
             ast.NotEq: int.__ne__}


def _value(node: ast.expr, variable: Callable[[str], str | None], depth: int) -> int:
    if depth > 50:
        raise _Refused
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return _wrap(node.value)
    if isinstance(node, ast.Name):
        held = variable(node.id)
        if held is None or not re.fullmatch(r"-?(?:0|[1-9]\d{0,18})", held.strip()):
            raise _Refused  # (a value that is itself an expression, or not known)
        return _wrap(int(held))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        v = _value(node.operand, variable, depth + 1)
        return _wrap(-v) if isinstance(node.op, ast.USub) else v
    if isinstance(node, ast.Compare):  # (C's: `<` `>` `<=` `>=` before `==` `!=`, each from the left)
        values = [_value(v, variable, depth + 1) for v in [node.left, *node.comparators]]
        if not all(type(op) in _COMPARED for op in node.ops):
            raise _Refused
        groups, ops = [values[0]], []
        for op, v in zip(node.ops, values[1:]):
            if isinstance(op, (ast.Eq, ast.NotEq)):
                groups.append(v)
                ops.append(op)
            else:
                groups[-1] = int(_COMPARED[type(op)](groups[-1], v))
        result = groups[0]
        for op, v in zip(ops, groups[1:]):
            result = int(_COMPARED[type(op)](result, v))
        return result
    if isinstance(node, ast.BinOp):
        a, b = _value(node.left, variable, depth + 1), _value(node.right, variable, depth + 1)
        if isinstance(node.op, ast.Add):
            return _wrap(a + b)
        if isinstance(node.op, ast.Sub):
            return _wrap(a - b)
        if isinstance(node.op, ast.Mult):
            return _wrap(a * b)
        if isinstance(node.op, (ast.Div, ast.Mod)):
            if b == 0 or a == -(1 << 63) and b == -1:
                raise _Refused  # (bash: "division by 0"; the other overflows in C)
            q = abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1)  # (C's division: toward zero)
            return _wrap(q) if isinstance(node.op, ast.Div) else _wrap(a - q * b)
        if isinstance(node.op, ast.Pow):
            if b < 0:
                raise _Refused  # (bash: "exponent less than 0")
            return _wrap(pow(a, b, _INT64))
    raise _Refused


_VARIABLE = re.compile(r"\$(?:\{[^}'\"\s\\$`]+\}|[A-Za-z_]\w*|[1-9#])")  # (`${…}`, `$1`: as _expand reads them)


def variables(command: str, s: TerminalState) -> str:
    """The line with each `$NAME` and `${…}` the state knows written back as its value, as bash
    reads it there (`_written`: split into words outside double quotes, an empty one gone); the
    others as they are. The line itself where a value outside quotes holds a pattern (bash would
    match it against the files), or the line has backquotes or an unclosed quote."""
    if "$" not in command or "`" in command or assigns_itself(command):
        return command
    out, at, quote, i, word, grown = [], 0, "", 0, 0, 0
    while i < len(command):
        c = command[i]
        after, itself, escapes = _quoting(c, quote)
        if itself and not quote and c in " \t\n;&|()<>":
            word = i + 1
        elif itself and (m := _VARIABLE.match(command, i)):
            try:
                value = _expand(m.group(0), s, strict=True)
            except _Unknown:
                value = None
            assigned = re.fullmatch(r"[A-Za-z_]\w*\+?=.*", command[word:i], re.S)
            text = None if value is None else \
                _written(value, "double" if quote == '"' else "assignment" if assigned else "plain")
            if value is not None and text is None:
                return command
            if text is not None:
                out += [command[at:i], text]
                at = m.end()
                grown += len(text)
                if grown > MAX_EXPANDED:
                    return command  # (`echo $F $F …` of a long F: the words' own expansion refuses it)
            i = m.end()
            continue
        quote = after
        i += 2 if escapes else 1
    return command if quote else "".join(out) + command[at:]


def printed(state: dict[str, Any], text: str, said: Callable[[dict[str, Any], str], tuple[str, int] | None],
            s: TerminalState | None = None) -> str | None:
    """What `$(TEXT)` prints, where it only reads and succeeds (its trailing newlines are the caller's to
    take off); None where not known."""
    s = s or TerminalState.model_validate(state)
    fed = heredoc(text)  # (`$(cat <<'EOF' … EOF)`: a message written out, as agents give git one)
    if not _reads_only(fed.line if fed else text, s):
        return None  # (one that writes runs in a subshell: what it leaves is not followed here)
    found = said(state, text)
    return found[0] if found is not None and found[1] == 0 else None


def line(state: dict[str, Any], command: str,
         said: Callable[[dict[str, Any], str], tuple[str, int] | None]) -> str | None:
    """`expand` over the terminal's state: a command inside prints what `said` (the shell's answer)
    says, where it only reads and succeeds; a variable holds what the state knows it holds."""
    s = TerminalState.model_validate(state)

    def inner(text: str) -> str | None:
        return printed(state, text, said, s)

    def variable(name: str) -> str | None:
        try:
            return _expand("${" + name + "}", s, strict=True)
        except _Unknown:
            return None

    return expand(command, inner, variable, status=s.status)
