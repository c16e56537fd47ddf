"""The values pyeval.py's walker (and pyrun.py's, pyclass.py's) hands around, and their bounds:
what stands for a module, a file, a function, a syntax tree's node; which values are plain (only
those reach Python's own functions) and printable the same in every run; what is left to the model
(`Unknown`), and an error Python's own operation raised (`PythonError`, whose message is Python's).
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import Any

MAX_BITS = 14_000  # an int's size (Python 3.11 prints at most 4,300 digits)
MAX_LEN = 100_000  # a string's or a list's
MAX_STEPS = 50_000  # nodes evaluated and loop rounds
MAX_OUTPUT = 100_000
MAX_CELLS = 2_000_000  # characters and items made in all
MAX_WORK = 3_000_000  # characters and items gone over in all (by a search, a comparison, a call)


class Unknown(Exception):
    """Outside what this walker computes: the model answers."""


class _Module:
    def __init__(self, name: str) -> None:
        self.name = name


class _File:
    def __init__(self, text: str) -> None:
        self.text = text


class _Opaque:
    """A value of the walker's own making (pyclass.py's classes and instances): never handed to
    Python's own functions."""


class _Node:
    """A node of a syntax tree `ast.parse` made of a text: its fields read as plain values, lists and
    nodes (printed, it would show an address: not answered)."""

    def __init__(self, node: ast.AST) -> None:
        self.node = node


class _NodeType:
    """`ast.FunctionDef` and the like: for `isinstance` and `type(n).__name__`."""

    def __init__(self, name: str) -> None:
        self.name = name


class _Function:
    """A function the code may call: a builtin, a method of a plain value, a module's function."""

    def __init__(self, kind: str, *what: Any) -> None:
        self.kind, self.what = kind, what


# The errors Python's own operations raise on plain values; recursion and memory: the walker's bounds
RAISED = (ArithmeticError, ValueError, TypeError, LookupError, AttributeError, AssertionError)


class PythonError(Exception):
    """An error Python itself raised, operating on the code's values as the code asked (`_python`),
    or one the code raised (`raise ValueError(…)`): its message is Python's own. One the walker's own
    workings raised is not one of these.

    On its way up it learns where its traceback points (pytraceback.py): `where`, the node of the
    frame it is rising through whose operation raised it (UNPLACED where Python's position for it is
    not known here); `frames`, the frames it has left, innermost first: (file, function, node)."""

    def __init__(self, error: BaseException, where: ast.AST | None = None) -> None:
        super().__init__(str(error))
        self.error = error
        self.where: ast.AST | None = where
        self.frames: list[tuple[str, str, ast.AST | None]] = []
        # Python's chain: the error being handled when this one was raised (`__context__`), or the one
        # named in `raise … from e` (`__cause__`; `from None` suppresses the context); and, once
        # caught, the frame it was caught in (file, function): its traceback starts there
        self.context: PythonError | None = None
        self.cause: PythonError | None = None
        self.suppress_context = False
        self.caught_in: tuple[str, str] | None = None
        self.caught_depth = -1  # (how many calls deep the walker was where it was caught)


# Marks an exception class the project defined (`class NotFound(KeyError): """…"""`), made as a real
# class of Python's (pyexcept.py): nothing of the project's runs in it
WALKED = "_mcp_world_walked"

UNPLACED = ast.Pass()  # (an error's position Python would show that this walker does not know)


def _python(function: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """Python's own operation on the code's values; the error it raises, a PythonError."""
    try:
        return function(*args, **kwargs)
    except RAISED as error:
        raise PythonError(error) from None


FAILED = (PythonError, *RAISED)  # (an error rising where its traceback would show more: the model's)
class _Generated(list):
    """A generator expression's values (printed, it would show an address: not answered)."""


MAX_PARSED = 1_000_000  # characters `ast.parse` is given


def _library(function: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """A call of a library function written in Python: an error in it shows its frames (the model's)."""
    try:
        return function(*args, **kwargs)
    except FAILED:
        raise Unknown("an error inside a library's code") from None


def _node_value(value: Any) -> Any:
    """A node's field as the code sees it: nodes wrapped, lists of them, plain values as they are."""
    if isinstance(value, ast.AST):
        return _Node(value)
    if isinstance(value, list):
        return [_node_value(v) for v in value]
    if value is None or isinstance(value, str | int | float | bool):
        return value
    raise Unknown("a field of another kind")


def _starred() -> bool:
    raise Unknown("*")


def _digit_runs(spec: str) -> list[str]:
    runs, current = [], ""
    for ch in spec:
        if ch.isdigit():
            current += ch
        elif current:
            runs.append(current)
            current = ""
    return runs + ([current] if current else [])


def _plain(value: Any) -> Any:
    """A value Python's own functions may be handed: not a module, a file, a function or a node."""
    if isinstance(value, _Module | _File | _Function | _Node | _NodeType | _Opaque):
        raise Unknown("not a plain value")
    return value


def _printable(value: Any) -> Any:
    """A value whose printed form Python gives the same in every run (no address, no set order),
    and not past MAX_LEN characters (counted before Python makes it)."""
    budget = [MAX_LEN]

    def visit(v: Any, depth: int) -> None:
        budget[0] -= 4 + (len(v) if isinstance(v, str) else v.bit_length() // 3 if isinstance(v, int) else 0)
        if budget[0] < 0 or depth > 50:
            raise Unknown("too much to print")
        if isinstance(v, _Generated):
            raise Unknown("a generator's address")
        if isinstance(v, bool | int | float | str | range) or v is None:
            return
        if isinstance(v, BaseException) and (type(v).__module__ == "builtins" or getattr(type(v), WALKED, False)):
            v = v.args
        if type(v).__name__ in ("dict_keys", "dict_values", "dict_items"):
            v = list(v)
        if isinstance(v, dict):
            v = [x for pair in v.items() for x in pair]
        if not isinstance(v, list | tuple):
            raise Unknown(f"{type(v).__name__} printed")
        for item in v:
            visit(item, depth + 1)

    visit(value, 0)
    return value


def _checked(value: Any) -> Any:
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > MAX_BITS:
        raise Unknown("too big")
    return _sized(value)


def _sized(value: Any) -> Any:
    if isinstance(value, str | list | tuple) and len(value) > MAX_LEN:
        raise Unknown("too long")
    return value
