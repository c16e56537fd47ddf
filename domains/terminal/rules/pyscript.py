"""`python3 FILE.py` where what the run does is known before anything of the file runs: a file of
nothing but a docstring, comments and `from __future__` imports prints nothing; one whose first
statement is a relative import (`from ._core import X`: a package's module run as a script) fails
there, as Python 3.11 prints it. Nothing else ran, so nothing was written either (not even
`__pycache__`: the script itself is not compiled to a file, and it imported nothing). Python's
start-up imports what it needs before the script's folder is on its path, so nothing there stands
in for it. Checked against the sandbox's Python (benchmarks/state_vs_real.py).
"""

from __future__ import annotations

import ast
import functools
import re
import warnings

MAX_SOURCE = 1_000_000  # characters of a script parsed here (past them: the model's)
RELATIVE = "ImportError: attempted relative import with no known parent package\n"


@functools.lru_cache(maxsize=16)  # (asked when the step is answered and again when it is applied)
def run(path: str, text: str) -> tuple[str, int] | None:
    """What `python3 PATH` prints and its exit code, where the file (`text`) decides them before it
    runs anything; None otherwise (a syntax error's message, anything that runs, is the model's)."""
    if len(text) > MAX_SOURCE or text.startswith("\ufeff") or "\0" in text:
        return None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # (`"\d"`: a warning Python may print first: the model's)
            tree = ast.parse(text)
            compile(tree, path, "exec", dont_inherit=True)
    except (SyntaxError, ValueError, RecursionError, MemoryError, Warning):
        return None
    body, at = tree.body, 0
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) and \
            isinstance(body[0].value.value, str):
        at = 1  # (the docstring)
    future = False
    while at < len(body) and isinstance(body[at], ast.ImportFrom) and body[at].module == "__future__":
        future = future or any(a.name == "annotations" for a in body[at].names)  # type: ignore[union-attr]
        at += 1
    while at < len(body) and _literal(body[at], future):
        at += 1  # (`__version__ = "1.0"`, `__all__ = [...]`: names bound, nothing else done)
    if at == len(body):
        return "", 0
    first = body[at]
    if not isinstance(first, ast.ImportFrom) or first.level == 0:
        return None
    line = re.split(r"\r\n|\r|\n", text)[first.lineno - 1]
    if not line.isascii() or first.end_col_offset is None:
        return None  # (offsets count bytes: a line of other characters is not placed here)
    shown = line.lstrip(" \t\f")  # (the line as Python shows it: its indent taken off, not what trails it)
    indent = len(line) - len(shown)
    # its span on that line (to the line's last character that is not a space, where it goes on below)
    end = first.end_col_offset if first.end_lineno == first.lineno else len(line.rstrip(" \t\x0b\x0c"))
    marks = ""
    if (first.col_offset, end) != (indent, len(line)):
        # (a statement shorter than its line, `from . import x  # why`: marked with carets)
        marks = "    " + " " * (first.col_offset - indent) + "^" * (end - first.col_offset) + "\n"
    return f'Traceback (most recent call last):\n  File "{path}", line {first.lineno}, in <module>\n' \
           f"    {shown}\n{marks}{RELATIVE}", 1


def _literal(node: ast.stmt, future: bool) -> bool:
    """A name bound to a literal (`X = 1`, `A = B = ("a", "b")`), or declared or bound with an
    annotation where annotations are not evaluated (`x: str`, `x: int = 2` under `from __future__
    import annotations`, as the version files setuptools-scm writes): nothing runs."""
    if isinstance(node, ast.Assign):
        targets, value = node.targets, node.value
    elif isinstance(node, ast.AnnAssign) and future and node.simple:
        if node.value is None:
            return True  # (`version: str`: a name declared, nothing bound)
        targets, value = [node.target], node.value
    else:
        return False
    try:
        ast.literal_eval(value)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False
    return all(isinstance(t, ast.Name) for t in targets)
