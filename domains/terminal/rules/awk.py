"""awk programs of the kinds agents type, run over a text the state knows, as awk prints them: fields
(`{print $1, $NF}`, `-F:`), line numbers and counts (`NR==3`, `END {print NR}`), sums
(`{s += $2} END {print s}`), patterns (`/word/`, `$3 > 100`, `!seen[$0]++`), `printf`, `if`,
`for`, `next`, `exit` and the string functions (length, substr, index, toupper, tolower, split,
sub, gsub, sprintf, int).

The program is read by a small parser and walked over plain values; it is never run. Only what mawk
(the sandbox's awk) and gawk print the same way is answered: a regular expression is a fixed string
(with ^ and $), a number prints as an integer below 2**31 (above, mawk switches to %.6g and gawk does
not), `for (k in a)` (whose order each awk chooses) and anything else not written here raise
`Unknown`, and the model answers. Steps and output are bounded. Checked against both awks on random
programs and texts (benchmarks/awk_vs_real.py) and live in the sandbox (benchmarks/state_vs_real.py).
"""

from __future__ import annotations

import math
import re
from typing import Any

from .awkparse import Parser, Unknown

MAX_STEPS = 200_000
MAX_OUTPUT = 1_000_000
MAX_PROGRAM = 2_000
MAX_WIDTH = 10_000  # a printf width or precision
INT_LIMIT = 2 ** 31  # an integral number below it prints as an integer in both awks
FIXED = re.compile(r"\^?[A-Za-z0-9_ :,=#@%<>!&;'\"-]*\$?")  # an ERE that is a fixed string
_NUMERIC = re.compile(r"[ \t\n]*[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?[ \t\n]*")
_PREFIX = re.compile(r"[ \t\n]*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)")
_ODD_NUMBER = re.compile(r"[ \t\n]*[-+]?(?:0[xX]|inf|nan)", re.I)  # hex, inf, nan: the awks read them apart
_FORMAT = re.compile(r"%([-+ 0]*)(\d*)(?:\.(\d+))?([sdioxXeEfgG%])")  # (no #: C and Python part there)
_BLANKS = re.compile(r"[ \t\n]+")  # awk's default field separator
_REGEX_SPECIALS = frozenset("\\.[]()*+?{}|^$")
SPECIAL = {"NR", "NF", "FNR", "FS", "OFS", "ORS", "SUBSEP", "CONVFMT", "OFMT", "RS", "FILENAME", "ENVIRON",
           "RSTART", "RLENGTH", "ARGC", "ARGV"}


class Strnum(str):
    """Input text (a field, a line, a `-v` value): a number where it looks like one."""


class _Uninit:
    pass


UNINIT = _Uninit()


class _Next(Exception):
    pass


class _Exit(Exception):
    def __init__(self, code: int | None) -> None:
        self.code = code  # (None: the code an earlier exit gave, or 0)


def _bounded(s: str) -> str:
    """A string the walker may hold (`s = s s` doubles it each time)."""
    if len(s) > MAX_OUTPUT:
        raise Unknown("a string this long")
    return s


def number(v: Any) -> float:
    if isinstance(v, float):
        return v
    if v is UNINIT:
        return 0.0
    if _ODD_NUMBER.match(v):
        raise Unknown("a hexadecimal, inf or nan string")
    m = _PREFIX.match(v)
    return float(m.group(1)) if m else 0.0


def text(v: Any) -> str:
    if isinstance(v, str):
        return str(v)
    if v is UNINIT:
        return ""
    if math.isnan(v) or math.isinf(v):
        raise Unknown("inf or nan")
    if v == int(v):
        if abs(v) >= INT_LIMIT:
            raise Unknown("an integer past 2**31: mawk and gawk print it apart")
        return str(int(v))
    return "%.6g" % v


def _looks_numeric(v: Any) -> bool:
    return isinstance(v, Strnum) and bool(_NUMERIC.fullmatch(v)) and not _ODD_NUMBER.match(v)


def truth(v: Any) -> bool:
    if isinstance(v, float):
        return v != 0
    if v is UNINIT:
        return False
    if isinstance(v, Strnum) and _looks_numeric(v):
        return number(v) != 0
    return v != ""


def compare(a: Any, b: Any) -> int:
    def numeric(v: Any) -> bool:
        return isinstance(v, float) or v is UNINIT or _looks_numeric(v)
    if numeric(a) and numeric(b):
        x, y = number(a), number(b)
        return (x > y) - (x < y)
    for v in (a, b):
        if isinstance(v, Strnum) and _ODD_NUMBER.match(v):
            raise Unknown("a hexadecimal, inf or nan string")
    x, y = text(a), text(b)
    return (x > y) - (x < y)


def _fixed(pattern: str) -> tuple[str, bool, bool]:
    """A regular expression that is a fixed string: (the string, anchored at the start, at the end)."""
    if not FIXED.fullmatch(pattern):
        raise Unknown("a regular expression")
    start = pattern.startswith("^")
    word = pattern[1:] if start else pattern
    end = word.endswith("$")
    return (word[:-1] if end else word), start, end


def matches(s: str, pattern: str) -> bool:
    word, start, end = _fixed(pattern)
    if start and end:
        return s == word
    return s.startswith(word) if start else s.endswith(word) if end else word in s


class Machine:
    def __init__(self, fs: str, assigns: dict[str, str]) -> None:
        self.vars: dict[str, Any] = {"FS": fs, "OFS": " ", "ORS": "\n", "NR": 0.0, "FNR": 0.0}
        self.vars.update({k: Strnum(v) for k, v in assigns.items()})
        self.arrays: dict[str, dict[str, Any]] = {}
        self.fields: list[Any] = [Strnum("")]
        self.out: list[str] = []
        self.size = 0
        self.steps = 0

    def tick(self) -> None:
        self.steps += 1
        if self.steps > MAX_STEPS:
            raise Unknown("too many steps")

    def emit(self, s: str) -> None:
        self.size += len(s)
        if self.size > MAX_OUTPUT:
            raise Unknown("too much output")
        self.out.append(s)

    def set_record(self, line: str) -> None:
        fs = text(self.vars.get("FS", " "))
        if fs == " ":
            parts = _BLANKS.split(line.strip(" \t\n")) if line.strip(" \t\n") else []
        elif fs and (len(fs) == 1 and fs != "\\" or not _REGEX_SPECIALS.intersection(fs)):
            parts = line.split(fs) if line else []  # (a longer one is a regular expression: one of no specials
            # matches itself: `-F'=='`, `-F', '`)
        else:
            raise Unknown("a field separator that is a regular expression")
        self.fields = [Strnum(line)] + [Strnum(p) for p in parts]

    def rebuild(self) -> None:
        self.fields[0] = Strnum(text(self.vars["OFS"]).join(text(f) for f in self.fields[1:]))

    # -- values
    def field_number(self, e: Any) -> int:
        n = number(self.eval(e))
        if n < 0 or n != int(n) or n > 100_000:
            raise Unknown("a field number out of reach")
        return int(n)

    def get(self, target: Any) -> Any:
        kind = target[0]
        if kind == "var":
            name = target[1]
            if name in self.arrays:
                raise Unknown("an array used as a value")
            if name == "NF":
                return float(len(self.fields) - 1)
            return self.vars.get(name, UNINIT)
        if kind == "index":
            name = target[1]
            if name in self.vars or name in SPECIAL:
                raise Unknown("a value used as an array")
            return self.arrays.setdefault(name, {}).setdefault(self.key(target[2]), UNINIT)
        n = self.field_number(target[1])
        return self.fields[n] if n < len(self.fields) else Strnum("")  # (past NF: an empty field, not a number)

    def key(self, e: Any) -> str:
        v = self.eval(e)
        return text(v) if not isinstance(v, float) or v == int(v) else "%.6g" % v

    def put(self, target: Any, value: Any) -> Any:
        if isinstance(value, str) and not isinstance(value, Strnum):
            value = str(value)
        kind = target[0]
        if kind == "var":
            name = target[1]
            if name in self.arrays or name in ("NF", "NR", "FNR", "RS") or name in SPECIAL - {"FS", "OFS", "ORS"}:
                raise Unknown(f"an assignment to {name}")
            self.vars[name] = value
        elif kind == "index":
            name = target[1]
            if name in self.vars or name in SPECIAL:
                raise Unknown("a value used as an array")
            self.arrays.setdefault(name, {})[self.key(target[2])] = value
        else:
            n = self.field_number(target[1])
            if n == 0:
                self.set_record(text(value))
            else:
                while len(self.fields) <= n:
                    self.fields.append(Strnum(""))
                self.fields[n] = value
                self.rebuild()
        return value

    def eval(self, e: Any) -> Any:
        self.tick()
        kind = e[0]
        if kind == "num":
            return e[1]
        if kind == "str":
            return e[1]
        if kind == "ere":
            return 1.0 if matches(text(self.fields[0]), e[1]) else 0.0
        if kind in ("var", "index", "field"):
            return self.get(e)
        if kind == "group":
            return self.eval(e[1])
        if kind == "assign":
            _, op, target, value = e
            v = self.eval(value)
            if op != "=":
                v = self.arith(op[0], self.get(target), v)
            return self.put(target, v)
        if kind in ("pre", "post"):
            _, op, target = e
            old = number(self.get(target))
            self.put(target, old + (1 if op == "++" else -1))
            return old + (1 if op == "++" else -1) if kind == "pre" else old
        if kind == "?":
            return self.eval(e[2]) if truth(self.eval(e[1])) else self.eval(e[3])
        if kind == "&&":
            return 1.0 if truth(self.eval(e[1])) and truth(self.eval(e[2])) else 0.0
        if kind == "||":
            return 1.0 if truth(self.eval(e[1])) or truth(self.eval(e[2])) else 0.0
        if kind == "in":
            return 1.0 if self.key(e[1]) in self.arrays.get(e[2], {}) else 0.0
        if kind in ("~", "!~"):
            pattern = e[2][1] if e[2][0] == "ere" else text(self.eval(e[2]))
            found = matches(text(self.eval(e[1])), pattern)
            return 1.0 if found == (kind == "~") else 0.0
        if kind in ("<", "<=", "!=", "==", ">", ">="):
            c = compare(self.eval(e[1]), self.eval(e[2]))
            return 1.0 if {"<": c < 0, "<=": c <= 0, "!=": c != 0, "==": c == 0, ">": c > 0, ">=": c >= 0}[kind] else 0.0
        if kind == "concat":
            return _bounded(text(self.eval(e[1])) + text(self.eval(e[2])))
        if kind in ("+", "-", "*", "/", "%", "^"):
            return self.arith(kind, self.eval(e[1]), self.eval(e[2]))
        if kind == "neg":
            return -number(self.eval(e[1])) + 0.0
        if kind == "plus":
            return number(self.eval(e[1]))
        if kind == "not":
            return 0.0 if truth(self.eval(e[1])) else 1.0
        if kind == "call":
            return self.call(e[1], e[2])
        raise Unknown(kind)

    def arith(self, op: str, a: Any, b: Any) -> float:
        x, y = number(a), number(b)
        if op in "/%" and y == 0:
            raise Unknown("division by zero")
        try:
            v = {"+": lambda: x + y, "-": lambda: x - y, "*": lambda: x * y, "/": lambda: x / y,
                 "%": lambda: math.fmod(x, y), "^": lambda: x ** y}[op]()
        except (OverflowError, ZeroDivisionError, ValueError) as err:
            raise Unknown(str(err)) from err
        if isinstance(v, complex) or math.isinf(v) or math.isnan(v):
            raise Unknown("inf or nan")
        return float(v)

    def call(self, name: str, args: list[Any]) -> Any:
        if name == "length":
            if len(args) > 1:
                raise Unknown("length of several")
            if args and args[0][0] == "var" and args[0][1] in self.arrays:
                raise Unknown("length of an array")
            return float(len(text(self.eval(args[0]) if args else self.fields[0])))
        if name in ("toupper", "tolower") and len(args) == 1:
            s = text(self.eval(args[0]))
            if not s.isascii():
                raise Unknown("case beyond ASCII")
            return s.upper() if name == "toupper" else s.lower()
        if name == "index" and len(args) == 2:
            return float(text(self.eval(args[0])).find(text(self.eval(args[1]))) + 1)
        if name == "int" and len(args) == 1:
            return float(math.trunc(number(self.eval(args[0]))))
        if name == "substr" and len(args) in (2, 3):
            s = text(self.eval(args[0]))
            nums = [number(self.eval(a)) for a in args[1:]]
            if any(n != int(n) for n in nums) or nums[0] < 1 or len(nums) == 2 and nums[1] < 0:
                raise Unknown("substr from before the start, or by fractions: the awks differ")
            start = int(nums[0]) - 1
            return s[start:start + int(nums[1])] if len(nums) == 2 else s[start:]
        if name == "sprintf" and args:
            return self.format(args)
        if name == "split" and len(args) in (2, 3) and args[1][0] == "var":
            s = text(self.eval(args[0]))
            sep = text(self.eval(args[2])) if len(args) == 3 else text(self.vars.get("FS", " "))
            if sep == " ":
                parts = _BLANKS.split(s.strip(" \t\n")) if s.strip(" \t\n") else []
            elif len(sep) == 1 and sep != "\\":
                parts = s.split(sep) if s else []
            else:
                raise Unknown("split by a regular expression")
            if args[1][1] in self.vars or args[1][1] in SPECIAL:
                raise Unknown("split into a value")
            self.arrays[args[1][1]] = {str(i + 1): Strnum(p) for i, p in enumerate(parts)}
            return float(len(parts))
        if name in ("sub", "gsub") and len(args) in (2, 3):
            pattern = args[0][1] if args[0][0] == "ere" else text(self.eval(args[0]))
            word, start, end = _fixed(pattern)
            new = text(self.eval(args[1]))
            if "&" in new or "\\" in new or not word or start or end:
                raise Unknown("a replacement or pattern awk reads its own way")
            target = args[2] if len(args) == 3 else ("field", ("num", 0.0))
            if target[0] not in ("var", "index", "field"):
                raise Unknown("sub of a value")
            s = text(self.get(target))
            count = s.count(word) if name == "gsub" else min(1, s.count(word))
            if count:
                self.put(target, _bounded(s.replace(word, new, -1 if name == "gsub" else 1)))
            return float(count)
        raise Unknown(f"{name} with {len(args)} arguments")

    def format(self, args: list[Any]) -> str:
        fmt = text(self.eval(args[0]))
        values = [self.eval(a) for a in args[1:]]
        out, at, used = [], 0, 0
        for m in _FORMAT.finditer(fmt):
            if "%" in fmt[at:m.start()]:
                raise Unknown("a format awk reads its own way")
            out.append(fmt[at:m.start()])
            at = m.end()
            flags, width, precision, conv = m.groups()
            if conv == "%":
                if flags or width or precision:
                    raise Unknown("%% with options")
                out.append("%")
                continue
            if used >= len(values):
                raise Unknown("fewer values than the format asks for")
            v = values[used]
            used += 1
            if int(width or 0) > MAX_WIDTH or int(precision or 0) > MAX_WIDTH:
                raise Unknown("a width this large")
            spec = "%" + flags + width + (f".{precision}" if precision is not None else "")
            if conv == "s":
                out.append((spec + "s") % text(v))
            elif conv in "dioxX":
                n = number(v)
                if abs(n) >= INT_LIMIT or conv in "oxX" and n < 0:
                    raise Unknown("an integer out of the range both awks print alike")
                out.append((spec + ("d" if conv == "i" else conv)) % math.trunc(n))
            else:
                n = number(v)
                if abs(n) >= 1e15:
                    raise Unknown("a large number")
                out.append((spec + conv) % n)
        if "%" in fmt[at:]:
            raise Unknown("a format awk reads its own way")
        out.append(fmt[at:])
        return _bounded("".join(out))

    # -- statements
    def run_all(self, body: list[Any]) -> None:
        for st in body:
            self.execute(st)

    def execute(self, st: Any) -> None:
        self.tick()
        kind = st[0]
        if kind == "block":
            self.run_all(st[1])
        elif kind == "expr":
            self.eval(st[1])
        elif kind == "print":
            values = [self.eval(a) for a in st[1]] if st[1] else [self.fields[0]]
            self.emit(text(self.vars["OFS"]).join(text(v) for v in values) + text(self.vars["ORS"]))
        elif kind == "printf":
            self.emit(self.format(st[1]))
        elif kind == "if":
            if truth(self.eval(st[1])):
                self.execute(st[2])
            elif st[3] is not None:
                self.execute(st[3])
        elif kind == "for":
            _, init, cond, step, body = st
            if init is not None:
                self.eval(init)
            while cond is None or truth(self.eval(cond)):
                self.execute(body)
                if step is not None:
                    self.eval(step)
        elif kind == "next":
            raise _Next
        elif kind == "exit":
            raise _Exit(int(number(self.eval(st[1]))) & 255 if st[1] is not None else None)
        else:
            raise Unknown(kind)


def run(program: str, data: str | None, fs: str = " ", assigns: dict[str, str] | None = None) -> tuple[str, int]:
    """What `awk [-F FS] [-v k=v…] PROGRAM` prints over `data` (None: a program of BEGIN alone, which
    reads nothing), and its exit code; raises Unknown where the walker does not answer."""
    if len(program) > MAX_PROGRAM or "\0" in program:
        raise Unknown("a program this long")
    try:
        return _run(program, data, fs, assigns)
    except RecursionError as err:
        raise Unknown("nested this deep") from err


def _run(program: str, data: str | None, fs: str, assigns: dict[str, str] | None) -> tuple[str, int]:
    items = Parser(program).program()
    if not items:
        return "", 0
    m = Machine(fs, assigns or {})
    begins = [body for when, body in items if when == "BEGIN"]
    ends = [body for when, body in items if when == "END"]
    mains = [(when[1], body) for when, body in items if isinstance(when, tuple)]
    code = 0
    exited = False
    try:
        for body in begins:
            m.run_all(body)
    except _Exit as e:
        code, exited = e.code or 0, True
    except _Next as err:
        raise Unknown("next in BEGIN") from err
    if not exited and (mains or ends):
        if data is None:
            raise Unknown("a program that reads its input, given none")
        if "\0" in data:
            raise Unknown("binary input")
        lines = data.split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        try:
            for line in lines:
                m.vars["NR"] = m.vars["FNR"] = number(m.vars["NR"]) + 1
                m.set_record(line)
                try:
                    for pattern, body in mains:
                        if pattern is None or truth(m.eval(pattern)):
                            if body is None:
                                m.emit(text(m.fields[0]) + text(m.vars["ORS"]))
                            else:
                                m.run_all(body)
                except _Next:
                    continue
        except _Exit as e:
            code = e.code if e.code is not None else code
    try:
        for body in ends:
            m.run_all(body)
    except _Exit as e:
        code = e.code if e.code is not None else code
    except _Next as err:
        raise Unknown("next in END") from err
    return "".join(m.out), code


def command(args: list[str]) -> tuple[str, str, dict[str, str], list[str]] | None:
    """`awk [-F SEP] [-v NAME=VALUE]… 'PROGRAM' [FILE]`: (program, FS, assignments, files); None for
    any other option."""
    fs, assigns, i = " ", {}, 0
    while i < len(args) and args[i].startswith("-") and args[i] != "-":
        a = args[i]
        if a == "--":
            i += 1
            break
        if a in ("-F", "-v"):
            if i + 1 >= len(args):
                return None
            value, i = args[i + 1], i + 2
        elif a.startswith(("-F", "-v")):
            value, i = a[2:], i + 1
        else:
            return None
        if a.startswith("-F"):
            fs = {"\\t": "\t", "t": "\t"}.get(value, value)
            if value == "t":
                return None  # (-Ft: POSIX says a tab, some awks a "t")
            if "\\" in fs or not fs or len(fs) > 1 and _REGEX_SPECIALS.intersection(fs):
                return None
        else:
            name, sep, val = value.partition("=")
            if not sep or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name) or name in SPECIAL or "\\" in val:
                return None
            assigns[name] = val
    if i >= len(args):
        return None
    return args[i], fs, assigns, args[i + 1:]


def may_write(args: list[str]) -> bool:
    """Whether `awk ARGS` may write or run anything: a program the walker reads has no redirection,
    pipe or system() (those are not read); another, unless none of their words is in it."""
    parsed = command(args)
    if parsed is not None:
        try:
            Parser(parsed[0]).program()
            return False
        except (Unknown, RecursionError):
            pass
    return any(word in " ".join(args) for word in (">", "|", "system", "getline", "close", "fflush"))
