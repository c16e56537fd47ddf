"""What a `python3 -c CODE` one-liner prints, where the state alone decides it: arithmetic, strings,
lists and dicts, `print`, f-strings, `len(open(F).read().splitlines())`, `os.getcwd()`, `os.environ`, `os.path`'s
string functions, `sys.argv`, `json.dumps`, `math`, a file's syntax tree (`ast`). The code is never
run: its syntax tree is walked here, and only the plain values it builds (numbers, strings, lists,
tuples, dicts) ever reach Python's own functions, from a list of those that only compute (the
values and their bounds: pyvalues.py). Anything else — another module, a class, a lambda, a file
the state does not know, a value whose printed form holds an address or a set's order, an error
raised anywhere but at the code's top level — leaves the step to the model (`Unknown`). Sizes,
steps and the work of searches are bounded, so `9**9**9` or `"x" * 10**9` is the model's too.
"""

from __future__ import annotations

import ast
import json
import math
import operator
import posixpath
import re
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from . import pytraceback
from .pyast import Trees, imports  # noqa: F401 (the callers' pyeval.imports)
from .pyenviron import Environ, Lookup
from .pyfiles import Files, Written
from .pyvalues import (FAILED, MAX_BITS, MAX_CELLS, MAX_LEN, MAX_OUTPUT, MAX_STEPS, MAX_WORK, RAISED,
                       UNPLACED, PythonError, Unknown, _checked, _digit_runs, _File, _Function, _Generated,
                       _library, _Module,
                       _Node, _node_value, _NodeType, _plain, _printable, _python, _starred)

@dataclass
class Machine:
    """What the code may read: the shell's folder, a file's contents (None where not known), and
    the arguments after the code (`sys.argv[1:]`; `sys.argv[0]`: `program`, the script's path as
    given, or `-c`)."""
    cwd: str
    read: Callable[[str], str | None]
    argv: list[str] = field(default_factory=list)
    program: str = "-c"
    # Where the program may open a file to write (pyfiles.py; None: nowhere), and what it wrote when it ended
    may_write: Callable[[str], bool] | None = None
    written: list[tuple[str, str, bool]] = field(default_factory=list)
    kind: Callable[[str], str | None] | None = None  # ("dir", "file", "absent" or None: what Python meets)
    environ: Lookup | None = None  # (what the program's environment holds: pyenviron.py)


_BINARY = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
           ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: operator.pow,
           ast.LShift: operator.lshift, ast.RShift: operator.rshift, ast.BitAnd: operator.and_,
           ast.BitOr: operator.or_, ast.BitXor: operator.xor}
# A conversion of printf-style formatting: its width and precision
_PERCENT = re.compile(r"%(?:\([^)]*\))?[#0 +-]*(\*|\d+)?(?:\.(\*|\d*))?")
_INPLACE = {ast.Add: operator.iadd, ast.Sub: operator.isub, ast.Mult: operator.imul, ast.Div: operator.itruediv,
            ast.FloorDiv: operator.ifloordiv, ast.Mod: operator.imod, ast.Pow: operator.ipow,
            ast.LShift: operator.ilshift, ast.RShift: operator.irshift, ast.BitAnd: operator.iand,
            ast.BitOr: operator.ior, ast.BitXor: operator.ixor}
_UNARY = {ast.USub: operator.neg, ast.UAdd: operator.pos, ast.Not: operator.not_, ast.Invert: operator.invert}
_COMPARE = {ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
            ast.Gt: operator.gt, ast.GtE: operator.ge, ast.In: lambda a, b: a in b,
            ast.NotIn: lambda a, b: a not in b}
_BUILTINS: dict[str, Callable[..., Any]] = {
    "len": len, "str": str, "int": int, "float": float, "abs": abs, "round": round, "min": min, "max": max,
    "sum": sum, "sorted": sorted, "list": list, "tuple": tuple, "dict": dict, "bool": bool, "repr": repr,
    "chr": chr, "ord": ord, "hex": hex, "bin": bin, "oct": oct, "divmod": divmod, "any": any, "all": all,
    "reversed": reversed, "enumerate": enumerate, "zip": zip, "ascii": ascii,
}
_STR_METHODS = frozenset({
    "upper", "lower", "title", "capitalize", "swapcase", "casefold", "strip", "lstrip", "rstrip", "split", "rsplit",
    "splitlines", "join", "startswith", "endswith", "count", "find", "rfind", "index", "rindex", "isdigit",
    "isalpha", "isalnum", "isspace", "isupper", "islower", "istitle", "isidentifier", "isnumeric", "isdecimal",
    "partition", "rpartition", "removeprefix", "removesuffix", "zfill", "center", "ljust", "rjust", "replace",
})
_SEQUENCE_METHODS = frozenset({"count", "index"})
_DICT_METHODS = frozenset({"keys", "values", "items", "get"})
_MODULES = frozenset({"os", "os.path", "sys", "json", "math", "ast"})
_MATH = frozenset({"sqrt", "floor", "ceil", "pi", "e", "tau", "inf", "nan", "log", "log2", "log10", "exp", "sin",
                   "cos", "tan", "gcd", "lcm", "isqrt", "fabs", "hypot", "trunc", "isclose", "degrees",
                   "radians", "factorial", "comb", "perm", "fsum", "copysign", "atan", "atan2"})
_PATH_FUNCTIONS = frozenset({"join", "basename", "dirname", "splitext", "split", "normpath", "isabs"})


# `python3 -c CODE [word…]` with the code quoted so that bash hands it over as it is written
_ONE_LINER = re.compile(r"\s*python3\s+-c\s+(?:'([^']*)'|\"((?:[^\"$`\\]|\\.)*)\")((?:\s+[A-Za-z0-9._/=-]+)*)\s*",
                           re.S)
_ESCAPED = re.compile(r"\\([$`\"\\\n])")  # in double quotes, bash drops the backslash before these (and a newline)


def one_liner(command: str) -> tuple[str, list[str]] | None:
    """`python3 -c CODE [word…]`: the code as bash hands it over (single quotes: as written; double
    quotes: with bash's escapes undone, none of its expansions), and the words after it."""
    found = _ONE_LINER.fullmatch(command)
    if found is None:
        return None
    code = found.group(1)
    if code is None:
        code = _ESCAPED.sub(lambda m: m.group(1).strip("\n"), found.group(2))
    return code, found.group(3).split()


def run(code: str, machine: Machine) -> str | None:
    """What `python3 -c CODE` prints where it exits 0, or None (`outcome`)."""
    said = outcome(code, machine)
    return said[0] if said is not None and said[1] == 0 else None


def outcome(code: str, machine: Machine) -> tuple[str, int] | None:
    """What `python3 -c CODE` prints and its exit code, or None where this walker does not decide it.
    An error raised at the code's own top level, in a statement of one line, by Python's own
    operations (`1/0`, `{}["k"]`, `int("x")`) is Python's traceback (`traceback`)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # (`1 is 1`, `None[0]`: Python warns on stderr first)
            tree = ast.parse(code)
            compile(tree, "<string>", "exec", dont_inherit=True)
    except (SyntaxError, ValueError, RecursionError, MemoryError, Warning):
        return None  # (the error as the world's python words it: the model's)
    return _Walker(machine).walk(tree)


STDOUT_BUFFER = 8192  # bytes Python's stdout holds, writing to a pipe, before it writes them out


def traceback(shown: str, printed: str) -> tuple[str, int] | None:
    """A program's output where it ended on an uncaught error (`shown`: its traceback, pytraceback.py):
    the traceback comes first, as what was printed waits in stdout's buffer (a pipe's) until Python
    exits; exit 1."""
    if len(printed.encode()) >= STDOUT_BUFFER:
        return None  # (part of it written before the traceback: where it parts, not followed)
    return shown + printed, 1


# Modules no file in the shell's folder can stand in for: sys is built in, and os (with os.path) is
# imported before the code runs, when the folder is not yet on the path
UNSHADOWED = frozenset({"sys", "os", "os.path"})


class _Walker(Files, Trees):
    def __init__(self, machine: Machine) -> None:
        self.machine = machine
        self.opened: list[Written] = []  # (files opened to write: pyfiles.py)
        self.names: dict[str, Any] = {}
        self.out: list[str] = []
        self.sources: dict[str, str] = {}  # the files its frames are in (a traceback shows their lines)
        # (the file being walked, as Python names it in a traceback: a program fed on stdin's is `<stdin>`)
        self.filename = "<stdin>" if machine.program in ("-", "") else "<string>"
        self.frame_name = "<module>"  # (the function being walked, as a traceback names it)
        self.steps = 0
        self.printed = 0
        self.cells = 0
        self.work = 0
        self.generating = 0  # inside a generator expression (consumed lazily: a print there is not answered)

    def _made(self, value: Any) -> Any:
        """`value`, counted against the bounds on what the code makes."""
        value = _checked(value)
        if isinstance(value, str | list | tuple | dict):
            self.cells += len(value)
            if self.cells > MAX_CELLS:
                raise Unknown("too much made")
        return value

    def walk(self, tree: ast.Module) -> tuple[str, int] | None:
        """The code's output and exit code; None where the walker does not decide them."""
        statement: ast.stmt | None = None
        top = self.filename
        try:
            for statement in tree.body:
                self.execute(statement)
        except Unknown:
            return None
        except PythonError as raised:
            self.machine.written[:] = self.written()  # (what it wrote before it failed: flushed as it exits)
            where = raised.where
            if where is None or where is UNPLACED:  # (`-c`'s own lines are not shown: its line is enough)
                where = statement if statement is not None and statement.lineno == statement.end_lineno else None
            if where is None:
                return None  # (its traceback: the model's)
            shown = pytraceback.chain(raised, [(top, "<module>", where), *reversed(raised.frames)],
                                      self.sources)
            if shown is not None and top == "<stdin>":
                return "".join(self.out) + shown, 1  # (a program read from a file, stdin's too: stdout flushed first)
            return None if shown is None else traceback(shown, "".join(self.out))
        except (*RAISED, RecursionError, MemoryError):
            return None  # (the walker's own: not Python's word)
        self.machine.written[:] = self.written()
        return "".join(self.out), 0

    def _charge(self, *values: Any) -> None:
        """What an operation goes over (`x.count(y)`, `y in x`, `x == y`, `sorted(x)`: each item of
        its strings, lists and dicts), counted against MAX_WORK: the walker never takes long."""
        self.work += sum(len(v) for v in values if isinstance(v, str | list | tuple | dict | range | bytes))
        if self.work > MAX_WORK:
            raise Unknown("too much work")

    def _tick(self) -> None:
        self.steps += 1
        if self.steps > MAX_STEPS:
            raise Unknown("too long")

    def execute(self, node: ast.stmt) -> None:
        self._tick()
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name not in _MODULES or (alias.asname and "." in alias.name):
                    raise Unknown(alias.name)
                module = alias.name if alias.asname else alias.name.split(".")[0]  # (`import os.path`: os)
                self.names[alias.asname or module] = _Module(module)
        elif isinstance(node, ast.ImportFrom):
            if node.level or node.module not in _MODULES:
                raise Unknown(str(node.module))
            for alias in node.names:
                self.names[alias.asname or alias.name] = self._attribute(_Module(node.module), alias.name)
        elif isinstance(node, ast.Assign):
            value = self.evaluate(node.value)
            for target in node.targets:
                self._bind(target, value)
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            self.names[node.target.id] = self._binary(node.op, self._name(node.target.id), self.evaluate(node.value),
                                                      inplace=True)
        elif isinstance(node, ast.Expr):
            self.evaluate(node.value)
        elif isinstance(node, ast.If):
            for statement in node.body if self.evaluate(node.test) else node.orelse:
                self.execute(statement)
        elif isinstance(node, ast.For) and not node.orelse:
            for item in self._iterate(self.evaluate(node.iter)):
                self._bind(node.target, item)
                for statement in node.body:
                    self.execute(statement)
        elif isinstance(node, ast.Pass):
            pass
        else:
            raise Unknown(type(node).__name__)

    def _bind(self, target: ast.expr, value: Any) -> None:
        if isinstance(target, ast.Name):
            self.names[target.id] = value
        elif isinstance(target, ast.Tuple | ast.List):
            items = list(self._iterate(value))
            if len(items) != len(target.elts):
                raise Unknown("unpacking")
            for t, v in zip(target.elts, items):
                self._bind(t, v)
        else:
            raise Unknown("assignment target")

    def _iterate(self, value: Any):
        if isinstance(value, _File):
            value = value.text.splitlines(keepends=True)
        if isinstance(value, _Module | _Function) or isinstance(value, int | float | bool) or value is None:
            raise Unknown("not iterable here")
        for item in value:
            self._tick()
            yield item

    def _name(self, name: str) -> Any:
        if name in self.names:
            return self.names[name]
        if name in _BUILTINS or name in ("print", "open", "range", "pow", "isinstance", "type"):
            return _Function("builtin", name)
        raise Unknown(name)

    def evaluate(self, node: ast.expr) -> Any:
        self._tick()
        if isinstance(node, ast.Constant):
            if not isinstance(node.value, int | float | str | bool) and node.value is not None:
                raise Unknown("constant")
            return node.value
        if isinstance(node, ast.Name):
            return self._name(node.id)
        if isinstance(node, ast.BinOp):
            return self._binary(node.op, self.evaluate(node.left), self.evaluate(node.right))
        if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
            return _checked(_python(_UNARY[type(node.op)], _plain(self.evaluate(node.operand))))
        if isinstance(node, ast.BoolOp):
            value = None
            for operand in node.values:
                value = _plain(self.evaluate(operand))
                if isinstance(node.op, ast.And) != bool(value):
                    return value
            return value
        if isinstance(node, ast.Compare):
            left = _plain(self.evaluate(node.left))
            for op, comparator in zip(node.ops, node.comparators):
                right = self.evaluate(comparator)
                if isinstance(right, Environ) and isinstance(op, ast.In | ast.NotIn):
                    right = [left] if right.value(left) is not None else []  # (`"CI" in os.environ`)
                right = _plain(right)
                self._charge(left, right)
                if not _compare(op, left, right):
                    return False
                left = right
            return True
        if isinstance(node, ast.IfExp):
            return self.evaluate(node.body if self.evaluate(node.test) else node.orelse)
        if isinstance(node, ast.List | ast.Tuple):
            items = [self.evaluate(e) for e in node.elts if not isinstance(e, ast.Starred) or _starred()]
            return items if isinstance(node, ast.List) else tuple(items)
        if isinstance(node, ast.Dict):
            if any(k is None for k in node.keys):
                raise Unknown("**")
            return _python(dict, [(_plain(self.evaluate(k)), self.evaluate(v)) for k, v in zip(node.keys, node.values)])
        if isinstance(node, ast.Subscript):
            value = self.evaluate(node.value)
            if isinstance(value, Environ):
                return value.item(_plain(self.evaluate(node.slice)))
            value = _plain(value)
            if isinstance(node.slice, ast.Slice):
                self._charge(value)
                parts = [None if p is None else _plain(self.evaluate(p))
                         for p in (node.slice.lower, node.slice.upper, node.slice.step)]
                return _python(operator.getitem, value, _python(slice, *parts))
            return _python(operator.getitem, value, _plain(self.evaluate(node.slice)))
        if isinstance(node, ast.JoinedStr):
            return "".join(v if isinstance(v, str) else "" for v in (self.evaluate(p) for p in node.values))
        if isinstance(node, ast.FormattedValue):
            return self._formatted(node, self.evaluate(node.value))
        if isinstance(node, ast.ListComp | ast.DictComp | ast.GeneratorExp):
            return self._comprehension(node)
        if isinstance(node, ast.Attribute):
            return self._attribute(self.evaluate(node.value), node.attr)
        if isinstance(node, ast.Call):
            return self._call(node)
        raise Unknown(type(node).__name__)

    def _arguments(self, node: ast.Call) -> tuple[list[Any], dict[str, Any]]:
        """A call's arguments, `*xs` and `**d` spread as Python spreads them (a list, a tuple or a dict
        of string keys given; a string or a range spread too; a name given twice: the model's)."""
        args: list[Any] = []
        for a in node.args:
            if isinstance(a, ast.Starred):
                value = self.evaluate(a.value)
                if not isinstance(value, list | tuple | str | range) or len(value) > MAX_LEN:
                    raise Unknown("*x of another kind, or too long")
                self._charge(value)
                args.extend(value)
            else:
                args.append(self.evaluate(a))
        kwargs: dict[str, Any] = {}
        for k in node.keywords:
            value = self.evaluate(k.value)
            spread = value if k.arg is None else {k.arg: value}
            if not isinstance(spread, dict) or any(not isinstance(key, str) or key in kwargs for key in spread):
                raise Unknown("**d of another kind, or a keyword given twice")
            kwargs.update(spread)
        return args, kwargs

    def _formatted(self, node: ast.FormattedValue, value: Any) -> str:
        """One `{…}` of an f-string, its value given."""
        value = _printable(value)
        value = {-1: value, 115: str(value), 114: repr(value), 97: ascii(value)}[node.conversion]
        spec = "" if node.format_spec is None else self.evaluate(node.format_spec)
        if any(ch.isdigit() for ch in spec) and max(len(run) for run in _digit_runs(spec)) > 4:
            raise Unknown("wide format")
        return self._made(_python(format, value, spec))

    def _comprehension(self, node: ast.ListComp | ast.DictComp | ast.GeneratorExp) -> Any:
        """A list or dict comprehension, or a generator expression (computed at once: a print in it
        is not answered), its `for`s nested in order. Its names are its own: those of the frame
        around it are as they were after it (in place: the frame's namespace stays the same one)."""
        generators = node.generators
        if any(g.is_async for g in generators):
            raise Unknown("an async comprehension")
        targets = {n.id for g in generators for n in ast.walk(g.target) if isinstance(n, ast.Name)}
        before = {name: self.names[name] for name in targets if name in self.names}
        out: Any = {} if isinstance(node, ast.DictComp) else []
        first = self.evaluate(generators[0].iter)  # (in the frame around it)
        self.generating += isinstance(node, ast.GeneratorExp)

        def loop(depth: int, iterable: Any) -> None:
            generator = generators[depth]
            for item in self._iterate(iterable):
                self._bind(generator.target, item)
                if not all(self.evaluate(test) for test in generator.ifs):
                    continue
                if depth + 1 < len(generators):
                    loop(depth + 1, self.evaluate(generators[depth + 1].iter))
                elif isinstance(node, ast.DictComp):
                    key = _plain(self.evaluate(node.key))
                    _python(operator.setitem, out, key, self.evaluate(node.value))
                    self._made([key])
                else:
                    out.append(self.evaluate(node.elt))

        try:
            loop(0, first)
        except PythonError as error:
            if isinstance(node, ast.GeneratorExp):  # (run as it is consumed: where, and what ran before, differ)
                raise Unknown("an error in a generator expression") from None
            name = "<dictcomp>" if isinstance(node, ast.DictComp) else "<listcomp>"
            error.frames.append((self.filename, name, error.where))  # (a frame of its own)
            error.where = node
            raise
        except FAILED:
            raise Unknown("an error of the walker's own") from None
        finally:
            for name in targets:
                self.names.pop(name, None)
            self.names.update(before)
            self.generating -= isinstance(node, ast.GeneratorExp)
        if isinstance(node, ast.GeneratorExp):
            return self._made(_Generated(out))
        return out if isinstance(node, ast.DictComp) else self._made(out)

    def _binary(self, op: ast.operator, left: Any, right: Any, inplace: bool = False) -> Any:
        """`left OP right`; `inplace`: `left OP= right` (a list is extended in place, and Python's
        messages say `+=`)."""
        left, right = _plain(left), _plain(right)
        self._charge(left, right)
        if type(op) not in _BINARY:
            raise Unknown("operator")
        if isinstance(op, ast.Mod) and isinstance(left, str):  # (`"%d items" % n`: printf-style formatting)
            _printable(right)
            if any(m.group(1) == "*" or m.group(2) == "*" or len(m.group(1) or "") > 4 or len(m.group(2) or "") > 4
                   for m in _PERCENT.finditer(left)):
                raise Unknown("a width from the arguments, or a wide one")
        if isinstance(op, ast.Pow | ast.LShift) and isinstance(left, int) and isinstance(right, int):
            grows = right if isinstance(op, ast.LShift) else right * max(abs(left).bit_length() - 1, 0)
            if right > MAX_BITS or grows > MAX_BITS:
                raise Unknown("too big")
        if isinstance(op, ast.Mult) and isinstance(left, str | list | tuple) and isinstance(right, int) and \
                len(left) * right > MAX_LEN or isinstance(right, str | list | tuple) and isinstance(left, int) and \
                len(right) * left > MAX_LEN:
            raise Unknown("too long")
        return self._made(_python((_INPLACE if inplace else _BINARY)[type(op)], left, right))

    def _attribute(self, value: Any, name: str) -> Any:
        if isinstance(value, _Module):
            if value.name == "math" and name in _MATH:
                return getattr(math, name) if not callable(getattr(math, name)) else _Function("math", name)
            if value.name == "sys" and name in ("argv", "platform", "maxsize"):
                return {"argv": [self.machine.program, *self.machine.argv], "platform": "linux", "maxsize": 2**63 - 1}[name]
            if value.name == "os" and name in ("path", "environ", "getenv"):
                return _Module("os.path") if name == "path" else Environ(self.machine.environ) if name == "environ" \
                    else _Function("environ", Environ(self.machine.environ))
            if value.name == "os" and name in ("getcwd", "sep", "name", "curdir", "pardir"):
                return _Function("os", name) if name == "getcwd" else {"sep": "/", "name": "posix", "curdir": ".",
                                                              "pardir": ".."}[name]
            if value.name == "os.path" and (name in _PATH_FUNCTIONS or name == "abspath"):
                return _Function("os.path", name)
            if value.name == "json" and name in ("dumps", "loads", "load"):
                return _Function("json", name)
            if value.name == "ast" and name in ("parse", "walk", "dump", "get_docstring"):
                return _Function("ast", name)
            if value.name == "ast" and isinstance(getattr(ast, name, None), type) and issubclass(getattr(ast, name), ast.AST):
                return _NodeType(name)
            raise Unknown(f"{value.name}.{name}")
        if isinstance(value, _Node) and name in value.node._fields + ("lineno", "end_lineno", "col_offset"):
            return _node_value(getattr(value.node, name, None))
        if isinstance(value, _NodeType) and name == "__name__":
            return value.name
        if isinstance(value, str) and name in _STR_METHODS or isinstance(value, list | tuple) and \
                name in _SEQUENCE_METHODS or isinstance(value, dict) and name in _DICT_METHODS:
            return _Function("method", value, name)
        if isinstance(value, _File) and name in ("read", "readlines"):
            return _Function("file", value, name)
        if isinstance(value, Written) and name in ("write", "writelines", "close", "flush"):
            return _Function("written", value, name)
        if isinstance(value, Environ) and name == "get":
            return _Function("environ", value)
        raise Unknown(f"attribute {name}")

    def _call(self, node: ast.Call, func: Any = None) -> Any:
        """`func(…)`; `func`: the function, where the caller has evaluated it (once: `open(p, "w").write`)."""
        func = self.evaluate(node.func) if func is None else func
        args, kwargs = self._arguments(node)
        if not isinstance(func, _Function):
            raise Unknown("call")
        kind, what = func.kind, func.what
        if kind == "builtin":
            return self._builtin(what[0], args, kwargs)
        if kind == "method":
            value, name = what
            self._charge(value, *args, *kwargs.values())
            if name in ("center", "ljust", "rjust", "zfill") and args and (not isinstance(args[0], int) or
                                                                            args[0] > MAX_LEN):
                raise Unknown("too wide")
            if name == "join" and (len(args) != 1 or not isinstance(args[0], list | tuple | str) or
                                   len(value) * len(args[0]) + sum(len(x) for x in args[0] if isinstance(x, str))
                                   > MAX_LEN):
                raise Unknown("joined: too long, or from what it cannot measure first")
            if name == "replace" and len(args) >= 2 and isinstance(args[0], str) and isinstance(args[1], str) and \
                    (value.count(args[0]) + 1) * (len(args[1]) + 1) > MAX_LEN:
                raise Unknown("too long")
            return self._made(_python(getattr(value, name), *[_plain(a) for a in args],
                                      **{k: _plain(v) for k, v in kwargs.items()}))
        if kind == "written":
            return self._file_method(what[0], what[1], args, kwargs)
        if kind == "file":
            file, name = what
            if args or kwargs:
                raise Unknown("read(n)")
            return self._made(file.text if name == "read" else file.text.splitlines(keepends=True))
        if kind == "environ":
            return what[0].get(args, kwargs)
        if kind == "os":
            if args or kwargs:
                raise Unknown("getcwd()")
            return self.machine.cwd
        if kind == "os.path":
            if kwargs or not all(isinstance(a, str) for a in args):
                raise Unknown("os.path")
            if what[0] == "abspath":
                return posixpath.normpath(posixpath.join(self.machine.cwd, *args))
            return _library(getattr(posixpath, what[0]), *args)
        if kind == "json" and what[0] != "dumps":  # (`json.load(open(F))`, `json.loads(TEXT)`; its errors'
            text = args[0].text if args and isinstance(args[0], _File) else args[0] if args else None  # frames:
            if kwargs or args[1:] or not isinstance(text, str) or (what[0] == "load") != isinstance(args[0], _File):
                raise Unknown("json.load")  # json.py's lines: not answered)
            return self._made(_library(json.loads, text))
        if kind == "json":
            if args[1:] or set(kwargs) - {"indent", "sort_keys", "separators", "ensure_ascii"} or \
                    not isinstance(kwargs.get("indent", 0), int | None) or (kwargs.get("indent") or 0) > 16:
                raise Unknown("json.dumps")
            return self._made(_library(json.dumps, _printable(args[0]), **{k: _plain(v) for k, v in kwargs.items()}))
        if kind == "ast":
            return self._ast(what[0], args, kwargs)
        if kind == "math":
            if what[0] in ("factorial", "comb", "perm") and any(not isinstance(a, int) or a > 1000 for a in args):
                raise Unknown("too big")
            return self._made(_python(getattr(math, what[0]), *[_plain(a) for a in args],
                                      **{k: _plain(v) for k, v in kwargs.items()}))
        raise Unknown(kind)

    def _builtin(self, name: str, args: list[Any], kwargs: dict[str, Any]) -> Any:
        self._charge(*args)
        if name == "isinstance" and len(args) == 2 and not kwargs:
            kinds = args[1] if isinstance(args[1], tuple) else (args[1],)
            if isinstance(args[0], _Node) and all(isinstance(k, _NodeType) for k in kinds):
                return any(isinstance(args[0].node, getattr(ast, k.name)) for k in kinds)
            raise Unknown("isinstance")
        if name == "type" and len(args) == 1 and isinstance(args[0], _Node) and not kwargs:
            return _NodeType(type(args[0].node).__name__)
        if name == "print":
            if self.generating:
                raise Unknown("a print a generator may not reach")
            into = kwargs.pop("file", None)
            if set(kwargs) - {"sep", "end", "flush"} or not all(isinstance(kwargs.get(k, ""), str | None)
                                                                for k in ("sep", "end")) or \
                    into is not None and not isinstance(into, Written):
                raise Unknown("print(file=)")
            sep = " " if kwargs.get("sep") is None else kwargs["sep"]
            end = "\n" if kwargs.get("end") is None else kwargs["end"]
            text = sep.join(_python(str, _printable(a)) for a in args) + end
            if into is not None:
                self._into(into, text)
                return None
            self.printed += len(text)
            if self.printed > MAX_OUTPUT:
                raise Unknown("too much output")
            self.out.append(text)
            return None
        if name == "open":
            return self._open(args, kwargs)
        if name == "range":
            made = _python(range, *[_plain(a) for a in args])
            if len(made) > MAX_LEN:
                raise Unknown("too long")
            return made
        if name == "pow":
            if len(args) != 2 or kwargs:
                raise Unknown("pow")
            return self._binary(ast.Pow(), args[0], args[1])
        if name in ("str", "repr", "ascii"):
            args = [_printable(a) for a in args]
        elif name in ("sorted", "min", "max") and "key" in kwargs:
            kwargs = {**kwargs, "key": self._key(kwargs["key"])}
        elif name == "sum" and (len(args) > 1 or kwargs):
            raise Unknown("sum with a start")  # (lists added one by one: quadratic)
        if name not in _BUILTINS:
            raise Unknown(name)
        return self._made(_python(_BUILTINS[name], *[_plain(a) for a in args],
                                          **{k: (v if k == "key" else _plain(v)) for k, v in kwargs.items()}))

    def _key(self, key: Any) -> Callable[[Any], Any]:
        """What Python's own sort calls for a `key=` given in the code: here one of Python's
        functions (pyrun.py's walker adds the code's own)."""
        if not (isinstance(key, _Function) and key.kind == "builtin" and key.what[0] in ("len", "abs", "str", "int")):
            raise Unknown("key")
        return _BUILTINS[key.what[0]]


def _compare(op: ast.cmpop, left: Any, right: Any) -> bool:
    if type(op) in _COMPARE:
        return _python(_COMPARE[type(op)], left, right)
    if isinstance(op, ast.Is | ast.IsNot) and right is None:
        return (left is None) == isinstance(op, ast.Is)
    raise Unknown("comparison")


