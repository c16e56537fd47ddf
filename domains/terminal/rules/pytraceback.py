"""The traceback Python 3.11 prints for an error the walkers followed to the top (pyeval.py, pyrun.py).

Each frame is a file, a function and the node whose operation raised (or, in a caller, the call that
was running): Python shows the file, the line, the function, then (a file's frame, not `-c`'s
`<string>`) the line's text with carets under the node's columns, `~` and `^` for a binary operation
or a subscript, none where the node spans the whole line. That drawing is Python's own: the frames
go to this Python's `traceback` module, the same rules the interpreter's printer follows, so the
answer holds only where this Python is the world's (stdlib_imports.PYTHON, as the sandbox's). The
lines shown are given from the state, never read from this machine (`lookup_line=False`).

What the walkers leave UNPLACED (an error in an f-string, an unpacking, a statement whose position
Python takes from elsewhere) makes the whole traceback the model's. Every position the walkers give
is checked against python3 by benchmarks/pytraceback_vs_python.py.
"""

from __future__ import annotations

import ast
import dis
import functools
import sys
import traceback as _traceback
from dataclasses import dataclass
from typing import Any

from . import stdlib_imports
from .pyvalues import UNPLACED, WALKED, PythonError

Frame = tuple[str, str, Any]  # (file as Python names it, function, the node or Position it points at)


def text(frames: list[Frame], error: str, sources: dict[str, str]) -> str | None:
    """`Traceback (most recent call last):`, the frames (outermost first) and the error's line;
    None where a frame's position is not known or this Python is not the world's. `sources`: the
    text of each file a frame is in ("<string>", `-c`'s code, is never shown)."""
    if stdlib_imports.PYTHON != f"{sys.version_info[0]}.{sys.version_info[1]}":
        return None
    summaries, split = [], {}
    for filename, name, node in frames:
        if node is None or node is UNPLACED:
            return None
        source = sources.get(filename) if filename not in ("<string>", "<stdin>") else None
        if source is not None and filename not in split:  # (universal newlines, as Python reads it)
            split[filename] = source.replace("\r\n", "\n").replace("\r", "\n").split("\n")
        lines = split.get(filename)
        line = "" if lines is None else lines[node.lineno - 1] + "\n" if 0 < node.lineno <= len(lines) else None
        if line is None:
            return None
        summaries.append(_frame(filename, name, node, line))
    shown = "".join(_traceback.StackSummary.from_list([f for f, _ in summaries]).format())
    for frame, line in summaries:  # (each line as the file has it: see _frame)
        if frame.line != line.strip():
            shown = shown.replace(f"    {frame.line}\n", f"    {line.strip()}\n", 1)
    return f"Traceback (most recent call last):\n{shown}{error}\n"


def error_line(error: BaseException) -> str | None:
    """How Python's traceback ends for an error of Python's own, or of a class the project defined
    (named with its module, but `__main__`'s); None for another kind."""
    if isinstance(error, SyntaxError) and getattr(error, "drawn", None):  # (a module that does not compile:
        return error.drawn.rstrip("\n")  # type: ignore[attr-defined]  # its file, line and carets: pysyntax.py)
    kind, module = type(error), type(error).__module__
    if module != "builtins" and not getattr(kind, WALKED, False) or isinstance(error, RecursionError | MemoryError):
        return None
    name = kind.__qualname__ if module in ("builtins", "__main__") else f"{module}.{kind.__qualname__}"
    said = str(error)
    return f"{name}: {said}" if said else name


MAX_CHAIN = 10  # errors in one chain (Python breaks a cycle; the walker leaves a long chain to the model)


def chain(error: PythonError, frames: list[Frame], sources: dict[str, str], depth: int = 0) -> str | None:
    """The traceback of an error that reached the top (`frames`, outermost first), after those of
    the errors it was raised from, as Python prints the chain: each one's traceback starts in the frame
    that caught it. None where any of it is not known."""
    if depth > MAX_CHAIN:
        return None
    line = error_line(error.error)
    shown = None if line is None else text(frames, line, sources)
    earlier = error.cause if error.cause is not None else None if error.suppress_context else error.context
    if shown is None or earlier is None:
        return shown
    if earlier.caught_in is None:
        return None
    before = chain(earlier, [(*earlier.caught_in, earlier.where), *reversed(earlier.frames)], sources, depth + 1)
    if before is None:
        return None
    joint = ("The above exception was the direct cause of the following exception:" if error.cause is not None else
             "During handling of the above exception, another exception occurred:")
    return f"{before}\n{joint}\n\n{shown}"


def _frame(filename: str, name: str, node: Any, line: str) -> tuple[_traceback.FrameSummary, str]:
    """The frame's summary, and its line. The interpreter places carets by characters; this
    Python's traceback module (3.11) finds a binary operator's or a subscript's by bytes, so a line
    with characters past ASCII goes to it with each of those as one ASCII character (and the
    columns counted again in characters), and is shown as it is."""
    colno, end_colno, shown = node.col_offset, node.end_col_offset, line
    if not line.isascii():
        encoded = line.encode()
        colno, end_colno = (None if c is None else len(encoded[:c].decode("utf-8", "replace"))
                            for c in (colno, end_colno))
        shown = "".join(c if c.isascii() else "x" for c in line)
    return _traceback.FrameSummary(filename, node.lineno, name, lookup_line=False, line=shown,
                                   end_lineno=node.end_lineno, colno=colno, end_colno=end_colno), line


@dataclass(frozen=True)
class Position:
    """Where an instruction is, as a compiled code object gives it (an ast node's fields)."""
    lineno: int
    end_lineno: int | None
    col_offset: int | None
    end_col_offset: int | None


@functools.lru_cache(maxsize=256)
def raised_at(statement: ast.Assert) -> Position | None:
    """Where a failed `assert` raises, as this Python compiles it: not always the test's place (a
    name alone: the statement's; `a == 1 and b`: the comparison compiled last). Compiled once per
    statement, not once per failure (an assert failing in a loop that catches it)."""
    code = compile(ast.Module(body=[statement], type_ignores=[]), "<assert>", "exec")
    for instruction in dis.get_instructions(code):
        if instruction.opname == "RAISE_VARARGS" and instruction.positions is not None and \
                instruction.positions.lineno is not None:
            p = instruction.positions
            return Position(p.lineno, p.end_lineno, p.col_offset, p.end_col_offset)
    return None

