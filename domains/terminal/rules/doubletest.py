"""bash's `[[ EXPR ]]`, read as bash reads it: its words are not split nor matched against the files; the
right of `==`, `=` and `!=` is a pattern where it is not quoted (`[[ $f == *.py ]]`, `[[ $f == "*.py" ]]`);
`<` and `>` compare strings (the sandbox's C.UTF-8 orders them by code point); `!`, `&&`, `||` and
parentheses join them. A file test is answered by the caller's `file_test`; anything else the state cannot
tell (`=~`, `-r`, `-nt`, a variable it does not know, a word with `$(`) leaves the line to the model."""

from __future__ import annotations

import re
from typing import Any, Callable

from .state import TerminalState, _Unknown
from .substitution import _VARIABLE, closing
from .variables import MAX_EXPANDED, _expand

Run = Callable[[str], "str | None"]  # (a command's text: what it prints, None where not known)
FileTest = Callable[[str, str], "bool | None"]  # (test's option, the path): whether it holds, None: not known
Word = list[tuple[str, bool]]  # each character, and whether it is bare (a pattern's where it is `*`, `?`, `[`)

_BINARY = frozenset({"==", "=", "!=", "<", ">", "=~", "-eq", "-ne", "-lt", "-le", "-gt", "-ge", "-nt", "-ot", "-ef"})
_UNARY = frozenset("abcdefghkprstuwxzGLNOSnov") | {"R"}  # (bash's `-X` tests: a word `-X` before another is one)
_NUMBER = re.compile(r"[-+]?(?:0|[1-9]\d{0,17})")  # (an operand of `-eq`… is arithmetic: 010 is 8, `x` is $x)
MAX_PATTERN = 4096  # characters of a pattern matched here (a longer one is the model's)
_EXTGLOB = re.compile(r"[?*+@!]\(")
_CLASSES = {"alpha": "a-zA-Z", "digit": "0-9", "alnum": "a-zA-Z0-9", "upper": "A-Z", "lower": "a-z", "space": r" \t\n\r\f\v",
            "blank": r" \t", "punct": re.escape("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"), "xdigit": "0-9A-Fa-f"}


class _NotTold(Exception):
    """What the state cannot tell (or bash would refuse: its error is the model's)."""


class _Malformed(_NotTold):
    """What bash's grammar refuses for certain (its syntax error: nothing on the line runs)."""


def holds(command: str, s: TerminalState, file_test: FileTest, run: Run | None = None) -> bool | None:
    """Whether `[[ … ]]` (the whole of `command`) holds; None where the state cannot tell. `run(CMD)`: what
    `$(CMD)` prints (None: not known)."""
    try:
        command = command.strip()
        words, end = _words(command, s, run=run)
        parser = _Parser(words[1:-1], file_test)
        tree = parser.either()
        if end != len(command) or parser.i != len(parser.words):
            return None
        return tree()
    except (_NotTold, _Unknown, RecursionError):
        return None


def well_formed(command: str) -> bool:
    """Every `[[ … ]]` of the line reads as bash's grammar has it (bash reads the whole line before it
    runs any of it: `if [[ -d src ]]; then …; elif [[ $F > b c ]]; …` is its syntax error, the first
    branch never run); False also where one is not read here."""
    return all(read == "read" for read in _grammar(command))


def malformed(command: str) -> bool:
    """A line of its own with a `[[ … ]]` bash's grammar refuses for certain (a word too many, one missing,
    a parenthesis not closed): bash reads the line before it runs any of it, so nothing on it ran,
    whatever was said of it."""
    return "\n" not in command.strip() and "refused" in _grammar(command)  # (bash runs a string line by line)


def _grammar(command: str) -> list[str]:
    """How each `[[ … ]]` of the line reads: "read", "refused" (bash's syntax error, for certain) or
    "not read" (here)."""
    out = []
    for m in _OPENS.finditer(command):
        try:
            words, _ = _words(command, None, m.start(1))
            parser = _Parser(words[1:-1], lambda *_: None)
            parser.either()
            out.append("read" if parser.i == len(parser.words) else "refused")
        except _Malformed:
            out.append("refused")
        except (_NotTold, _Unknown, RecursionError):
            out.append("not read")
    return out


_OPENS = re.compile(r"(?:^|[\s;&|(!])(\[\[)(?=\s)")


def inert(command: str, substituted: bool = False) -> bool:
    """`command` is a `[[ … ]]` alone, which changes nothing (no `$(…)` inside, unless `substituted`: the
    caller knows each only reads; nor a `${X:=…}` that assigns): its `>` and `<` are comparisons, not
    redirections into or out of files."""
    stripped = command.strip()
    return stripped.startswith("[[") and stripped.endswith("]]") and stripped[2:3] in (" ", "\t") and \
        stripped[-3:-2] in (" ", "\t") and (_ASSIGNS if substituted else _CHANGES).search(stripped) is None and \
        all(_TEST_BOUND.fullmatch(w) is None for w in stripped[2:-2].split())


def compares(command: str) -> bool:
    """A `[[ … ]]` in the line compares with `<` or `>` (which the rest of the rules would read as redirections)."""
    if "[[" not in command:
        return False
    inside = False
    for m in _COMPARED.finditer(command):  # (each mark in turn: linear in the line)
        if m.group(0).startswith("[["):
            inside = True
        elif m.group(0) == "]]":
            inside = False
        elif inside:
            return True
    return False


_COMPARED = re.compile(r"\[\[\s|\]\]|\s[<>]\s")
_CHANGES = re.compile(r"\$\(|`|\$\{[^}]*=|[;&|]\s*$|\n")
_ASSIGNS = re.compile(r"`|\$\{[^}]*=|[;&|]\s*$|\n")
_TEST_BOUND = re.compile(r"\[\[|\]\]")


def _words(command: str, s: TerminalState | None, start: int = 0, run: Run | None = None) -> tuple[list[Word], int]:
    """The words of the `[[ … ]]` at `start` as `[[` reads them, and where it ends: quotes taken off (what
    was quoted is not a pattern), each variable's value and each `$(…)`'s output (`run`, its trailing
    newlines taken off) in its place, unsplit (with no state, `s` None: a placeholder, for its grammar
    alone); `&&`, `||`, `(`, `)`, `<`, `>` words of their own."""
    words: list[Word] = []
    word: Word | None = None
    quote, i, grown = "", start, 0

    def ended() -> bool:
        nonlocal word
        if word is not None:
            if _bare(word) == "[[" and words or not words and _bare(word) != "[[":
                raise _NotTold("[[")
            words.append(word)
        word = None
        return len(words) > 1 and _bare(words[-1]) == "]]"

    while i < len(command):
        c = command[i]
        if quote == "'":
            if c == "'":
                quote = ""
            else:
                word.append((c, False))  # type: ignore[union-attr]
            i += 1
            continue
        if c in "`" or command.startswith(("$[", "$(("), i) or command.startswith("$(", i) and run is None and s:
            raise _NotTold(c)
        if c == "$":
            m = _VARIABLE.match(command, i) or _SUBSTITUTED.match(command, i)
            if not m:
                raise _NotTold(c)  # (`$'…'`, `$@`, `${X:=a}`…)
            value = "x" if s is None else _value(command, m, s, run)
            grown += len(value)
            if grown > MAX_EXPANDED:
                raise _NotTold(c)
            word = [] if word is None else word
            word += [(v, not quote) for v in value]
            i = m.end() if m.re is _VARIABLE else _closed(command, i)
            continue
        if c == "\\":
            if i + 1 == len(command):
                raise _NotTold(c)
            nxt = command[i + 1]
            if nxt == "\n":
                i += 2
                continue
            word = [] if word is None else word
            if quote and nxt not in '$`"\\':
                word.append(("\\", False))
            word.append((nxt, False))
            i += 2
            continue
        if quote == '"':
            if c == '"':
                quote = ""
            else:
                word.append((c, False))  # type: ignore[union-attr]
            i += 1
            continue
        if c in "'\"":
            quote, word = c, [] if word is None else word
            i += 1
            continue
        if c in " \t\n":
            i += 1
            if ended():
                return words, i - 1
            continue
        op = next((o for o in ("&&", "||", "(", ")", "<", ">") if command.startswith(o, i)), None)
        if op is not None and not (op == "(" and word is not None):
            if ended():
                return words, i
            words.append([(o, True) for o in op])
            i += len(op)
            continue
        if c in ";&|" or c == "~" and word is None:
            if ended():
                return words, i
            raise _NotTold(c)  # (a lone `&`, `~` the home: not read here)
        word = [] if word is None else word
        word.append((c, True))
        i += 1
    if quote:
        raise _NotTold(quote)
    if not ended():
        raise _NotTold("]]")  # (not closed)
    return words, i


_SUBSTITUTED = re.compile(r"\$(?=\(|\?)")  # (`$(…)` and `$?`: `_value`)


def _closed(command: str, at: int) -> int:
    """Just past the `$(…)` or `$?` at `at`."""
    if command.startswith("$?", at):
        return at + 2
    end = closing(command, at + 2)
    if end is None:
        raise _NotTold("$(")
    return end + 1


def _value(command: str, m: re.Match[str], s: TerminalState, run: Run | None) -> str:
    """A variable's value, the last status (`$?`), or what a `$(…)` prints, its trailing newlines taken off."""
    if m.re is _VARIABLE:
        return _expand(m.group(0), s, strict=True)
    if command.startswith("$?", m.start()):
        return str(s.status)
    printed = None if run is None else run(command[m.start() + 2:_closed(command, m.start()) - 1])
    if printed is None:
        raise _NotTold("$(")
    return printed.rstrip("\n")


def _text(word: Word) -> str:
    return "".join(c for c, _ in word)


def _bare(word: Word) -> str | None:
    """The word's text where none of it was quoted (an operator's), else None."""
    return _text(word) if all(bare for _, bare in word) else None


class _Parser:
    """`[[`'s grammar: `||` joins `&&`s, which join terms; a term is `! TERM`, `( EXPR )`, `-X WORD`,
    `WORD OP WORD` or `WORD` (true where not empty). Each is a function that works its value out when
    asked, so the right of `&&` and `||` is read (a mistake in it is bash's error) but worked out only
    where bash would."""

    def __init__(self, words: list[Word], file_test: FileTest) -> None:
        self.words, self.i, self.file_test = words, 0, file_test

    def peek(self) -> str | None:
        return _bare(self.words[self.i]) if self.i < len(self.words) else None

    def take(self) -> Word:
        if self.i >= len(self.words):
            raise _Malformed("]]")  # (bash: "unexpected token")
        self.i += 1
        return self.words[self.i - 1]

    def either(self) -> Callable[[], bool]:
        left = self.both()
        while self.peek() == "||":
            self.i += 1
            right, first = self.both(), left
            left = lambda first=first, right=right: first() or right()  # noqa: E731
        return left

    def both(self) -> Callable[[], bool]:
        left = self.term()
        while self.peek() == "&&":
            self.i += 1
            right, first = self.term(), left
            left = lambda first=first, right=right: first() and right()  # noqa: E731
        return left

    def term(self) -> Callable[[], bool]:
        at = self.peek()
        if at == "!":
            self.i += 1
            inner = self.term()
            return lambda: not inner()
        if at == "(":
            self.i += 1
            inner = self.either()
            if self.peek() != ")":
                raise _Malformed("(")
            self.i += 1
            return inner
        if at in ("&&", "||", ")"):
            raise _Malformed(at)
        first = self.take()
        op, text = self.peek(), _bare(first)
        if text in ("<", ">") or op in _BINARY and text and len(text) == 2 and text[0] == "-" and text[1] in _UNARY:
            raise _NotTold(text)  # (bash's syntax error; `-n = x`: `-n` of `=`, then a word too many)
        if op in _BINARY:
            self.i += 1
            return _compared(_text(first), op, self.take())
        if text and len(text) == 2 and text[0] == "-" and text[1] in _UNARY:
            if self.i == len(self.words) or self.peek() in ("&&", "||", ")"):
                raise _Malformed(text)  # (`[[ -f ]]`: "unexpected argument", bash's error)
            return self._unary(text, _text(self.take()))
        return lambda: _text(first) != ""

    def _unary(self, op: str, arg: str) -> Callable[[], bool]:
        if op in ("-z", "-n"):
            return lambda: (arg == "") == (op == "-z")

        def tested() -> bool:
            held = self.file_test(op, arg)
            if held is None:
                raise _NotTold(op)
            return held
        return tested


def _compared(left: str, op: str, right: Word) -> Callable[[], bool]:
    """`LEFT OP RIGHT`, worked out when asked (what the state does not read raises then, not as the
    line's grammar is read)."""
    def compared() -> bool:
        if op in ("==", "=", "!="):
            return (_pattern(right).fullmatch(left) is not None) == (op != "!=")
        if op in ("<", ">"):
            return left < _text(right) if op == "<" else left > _text(right)
        if op.startswith("-") and op[1:] in _NUMBERS:
            return bool(_NUMBERS[op[1:]](_number(left), _number(_text(right))))
        raise _NotTold(op)  # (`=~`: an ERE, `-nt`, `-ot`, `-ef`: the files' times and inodes)
    return compared


_NUMBERS = {"eq": int.__eq__, "ne": int.__ne__, "lt": int.__lt__, "le": int.__le__, "gt": int.__gt__, "ge": int.__ge__}


def _number(text: str) -> int:
    """An operand of `-eq`…, where it is a plain decimal (bash works out an arithmetic expression)."""
    stripped = text.strip(" \t\n")
    if not _NUMBER.fullmatch(stripped):
        raise _NotTold(text)
    return int(stripped)


def _pattern(word: Word) -> Any:
    """bash's pattern as a regular expression (RE2's, in time linear in the text: `*a*a*a…b` of a long
    text is not worked through by going back): a bare `*`, `?` and `[…]` match, the rest is itself."""
    if _EXTGLOB.search("".join(c if bare else " " for c, bare in word) + " "):
        raise _NotTold("extglob")  # (`@(a|b)`: bash's extended patterns, on within `[[`)
    if len(word) > MAX_PATTERN:
        raise _NotTold("long")
    out, i = [], 0
    while i < len(word):
        c, bare = word[i]
        if bare and c == "*":
            out.append(".*")
        elif bare and c == "?":
            out.append(".")
        elif bare and c == "[":
            found = _bracket(word, i)
            if found is None:
                out.append(re.escape(c))
            else:
                out.append(found[0])
                i = found[1]
        else:
            out.append(re.escape(c))
        i += 1
    import re2

    options = re2.Options()
    options.dot_nl = True  # (`*` and `?` take a newline too)
    options.max_mem = 8 << 20
    try:
        return re2.compile("".join(out), options)
    except re2.error as err:
        raise _NotTold("pattern") from err


def _bracket(word: Word, start: int) -> tuple[str, int] | None:
    """`[…]` from `start`: its regular expression and where it closes; None where it does not close (a
    `[` that is itself). `!` or `^` first negates, `]` first is itself, `[:alpha:]` a class; a range
    is by code point (bash's globasciiranges); `[=…=]` and `[.….]` are not read here."""
    i, items, negated = start + 1, [], False
    if i < len(word) and word[i][0] in "!^" and word[i][1]:
        negated, i = True, i + 1
    first = i
    while i < len(word):
        c, bare = word[i]
        if c == "]" and bare and i > first:
            if not items:
                return None
            return ("[^" if negated else "[") + "".join(items) + "]", i
        if c == "[" and bare and i + 1 < len(word) and word[i + 1][0] in ":=.":
            kind = word[i + 1][0]
            close = "".join(ch for ch, _ in word[i + 2:]).find(kind + "]")
            if close < 0:
                return None
            name = "".join(ch for ch, _ in word[i + 2:i + 2 + close])
            if kind != ":" or name not in _CLASSES:
                raise _NotTold(name)
            items.append(_CLASSES[name])
            i += close + 4
            continue
        if i + 2 < len(word) and word[i + 1] == ("-", True) and word[i + 2][0] != "]":
            low, high = c, word[i + 2][0]
            if low > high:
                raise _NotTold("range")  # (bash matches nothing by it; not followed here)
            items.append(re.escape(low) + "-" + re.escape(high))
            i += 3
            continue
        items.append(re.escape(c))
        i += 1
    return None
